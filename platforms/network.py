"""Alpha and beta between hosts, read off a platform graph.

alpha is the sum of the latencies on the route, beta the inverse of the
route's bottleneck bandwidth.  Routes are those the generated SimGrid routing
takes (``collsim.platforms.routing.route``): hop-minimal paths with SimGrid's
tie-breaking, or the explicit routes of a rail policy.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from .routing import router

__all__ = ["PairParameters", "pair_parameters", "network_parameters", "pair_classes"]


@dataclass(frozen=True)
class PairParameters:
    """alpha and beta of the route between two hosts."""

    alpha_s: float
    beta_s_per_byte: float
    hops: int


def pair_parameters(G: nx.Graph, source: str, target: str, *, route_pair=None) -> PairParameters:
    """Return (alpha, beta, hops) of the route from ``source`` to ``target``.

    ``route_pair``: ``routing.router(G)``, for callers that ask for many pairs
    (default: made here).

    Two ranks on one host communicate through the host's memory when it has
    one (``memory_latency_s``, ``memory_bandwidth_Bps`` on the host, from
    ``multicore``), else through the loopback
    (``G.graph["loopback_latency_s"]``, ``G.graph["loopback_bandwidth_Bps"]``).

    Examples
    --------
    >>> from collsim.platforms import crossbar
    >>> pair_parameters(crossbar(nodes=2, bandwidth_Bps=1e10, latency_s=1e-6), "node-0", "node-1")
    PairParameters(alpha_s=2e-06, beta_s_per_byte=1e-10, hops=2)
    """
    if source == target:
        memory_Bps = G.nodes[source].get("memory_bandwidth_Bps")
        if memory_Bps is not None:
            return PairParameters(alpha_s=G.nodes[source]["memory_latency_s"],
                                  beta_s_per_byte=1.0 / memory_Bps, hops=0)
        return PairParameters(
            alpha_s=G.graph["loopback_latency_s"],
            beta_s_per_byte=1.0 / G.graph["loopback_bandwidth_Bps"],
            hops=0,
        )
    path = (route_pair or router(G))(source, target)
    edges = [G.edges[a, b] for a, b in zip(path, path[1:])]
    return PairParameters(
        alpha_s=sum(edge["latency_s"] for edge in edges),
        beta_s_per_byte=1.0 / min(edge["bandwidth_Bps"] for edge in edges),
        hops=len(edges),
    )


def network_parameters(G: nx.Graph, rank_hosts: list[str]) -> tuple[PairParameters, bool]:
    """Return the (alpha, beta) that a model should use for these ranks.

    The parameters are those of the slowest route between rank 0's host and
    any other rank's host (largest alpha, then largest beta), together with
    whether the flat model is exact for them: all those routes have the same
    parameters and the ranks' hosts hang off one switch (so that concurrent
    messages between distinct pairs never share a link).  Otherwise (ranks
    sharing nodes, or a hierarchical network) a flat model with one (alpha,
    beta) is an approximation; so is it on half-duplex links.

    Parameters
    ----------
    G : networkx.Graph
        The platform.
    rank_hosts : list of str
        Host of each rank (at least two ranks).
    """
    if len(rank_hosts) < 2:
        return PairParameters(0.0, 0.0, 0), True
    first = rank_hosts[0]
    route_pair = router(G)
    seen = {}
    for host in rank_hosts[1:]:
        if host not in seen:
            seen[host] = pair_parameters(G, first, host, route_pair=route_pair)
    classes = {(pp.alpha_s, pp.beta_s_per_byte) for pp in seen.values()}
    worst = max(seen.values(), key=lambda pp: (pp.alpha_s, pp.beta_s_per_byte))
    # half-duplex links: the models charge one-way messages f_beta beta and a pipeline
    # stage's both ways, but the binary trees' overlaps are partial: not claimed exact
    return worst, (len(classes) == 1 and _one_switch(G, set(rank_hosts))
                   and not _shared_memory(G, rank_hosts) and not G.graph.get("half_duplex"))


def _shared_memory(G: nx.Graph, rank_hosts: list[str]) -> bool:
    """Whether two ranks share a host whose memory is one shared link.

    Their concurrent messages then compete for it, which the flat models leave out
    (on SimGrid's FATPIPE loopback they never compete).
    """
    counts: dict[str, int] = {}
    for host in rank_hosts:
        counts[host] = counts.get(host, 0) + 1
    return any(count > 1 and G.nodes[host].get("memory_bandwidth_Bps") is not None
               for host, count in counts.items())


def _one_switch(G: nx.Graph, used_hosts: set) -> bool:
    """Whether the hosts hang off one common element by one link each (a crossbar for them).

    Only then do messages between distinct pairs never share a link, which the
    seeds' models assume.  Ranks spread over the leaves of a fat-tree or the
    routers of a dragonfly may share up-links even when every pair has the
    same (alpha, beta), so the flat model is not claimed exact there.
    """
    if G.graph.get("name") == "crossbar" or len(used_hosts) < 2:
        return True
    neighbours = set()
    for host in used_hosts:
        adjacent = list(G.adj[host])
        if len(adjacent) != 1:
            return False
        neighbours.add(adjacent[0])
    return len(neighbours) == 1


def pair_classes(G: nx.Graph, *, sources=None) -> dict:
    """Return the distinct (alpha, beta) classes between hosts, one sample pair each.

    Parameters
    ----------
    G : networkx.Graph
        The platform.
    sources : list of str, optional
        Hosts to start from (default: every host); targets are all hosts.
        A host with more than one core also forms the same-host class.

    Returns
    -------
    dict
        ``{(alpha_s, beta_s_per_byte): (source, target, hops)}``, first pair
        found in host order.

    Examples
    --------
    >>> from collsim.platforms import crossbar
    >>> sorted(pair_classes(crossbar(nodes=3, cores_per_node=2, latency_s=1e-6)).values())
    [('node-0', 'node-0', 0), ('node-0', 'node-1', 2)]
    """
    from .mapping import hosts

    all_hosts = hosts(G)
    route_pair = router(G)
    classes = {}
    for source in all_hosts if sources is None else sources:
        for target in all_hosts:
            if source == target and G.nodes[source]["cores"] < 2:
                continue
            pair = pair_parameters(G, source, target, route_pair=route_pair)
            classes.setdefault((pair.alpha_s, pair.beta_s_per_byte), (source, target, pair.hops))
    return classes
