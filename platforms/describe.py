"""Platform analysis: the size, route classes and bisection of a platform graph."""

from __future__ import annotations

import networkx as nx

from .mapping import hosts
from .network import pair_classes
from .simgrid import platform_hash

__all__ = ["bisection_bandwidth", "describe_platform"]


def describe_platform(G: nx.Graph, *, max_sources: int = 64) -> dict:
    """What ``collsim platform describe`` shows of a platform, as data.

    Parameters
    ----------
    G : networkx.Graph
        A platform graph (a generator's, a catalog machine's or an XML file's).
    max_sources : int
        At most this many source hosts (evenly spaced) for the route classes.

    Returns
    -------
    dict
        ``platform``, ``hash``, ``nodes``, ``hosts``, ``cores``, ``switches``,
        ``links``, ``half_duplex`` (only when true); for a platform whose
        routes collsim knows also ``diameter_hops``, ``classes`` (one per
        distinct (alpha, beta) between hosts, with an example pair) and
        ``bisection_Bps``.
    """
    all_hosts = hosts(G)
    opaque = G.graph.get("routing") == "opaque"
    out = {
        "platform": G.graph.get("catalog", G.graph["name"]),
        "hash": platform_hash(G),
        "nodes": len({G.nodes[h]["node"] for h in all_hosts}),
        "hosts": len(all_hosts),
        "cores": sum(G.nodes[h]["cores"] for h in all_hosts),
        "switches": sum(1 for _, k in G.nodes(data="kind") if k not in ("host", "node")),
        "links": G.number_of_edges(),
    }
    if G.graph.get("half_duplex"):
        out["half_duplex"] = True
    if opaque:
        out["note"] = "routes of an XML file are not known to collsim: no classes or diameter"
        return out
    step = max(1, len(all_hosts) // max_sources)
    sources = all_hosts[::step]
    classes = pair_classes(G, sources=sources)
    out["diameter_hops"] = max(hops for _, _, hops in classes.values()) if classes else 0
    out["classes_from"] = len(sources)
    out["classes"] = [
        {"alpha_s": alpha, "beta_s_per_byte": beta, "bandwidth_Bps": 1 / beta,
         "hops": hops, "example": [source, target]}
        for (alpha, beta), (source, target, hops) in sorted(classes.items())
    ]
    out["bisection_Bps"] = bisection_bandwidth(G)
    return out


def bisection_bandwidth(G: nx.Graph) -> float:
    """Max flow between the first and the second half of the nodes (block order).

    This is the bandwidth across the cut that separates the two halves of a
    block mapping (an upper bound on the bisection bandwidth of the worst
    halving); links are full duplex, so each direction counts once.
    """
    node_ids = sorted({G.nodes[h]["node"] for h in hosts(G)})
    if len(node_ids) < 2:
        return 0.0
    half = set(node_ids[: len(node_ids) // 2])
    F = nx.DiGraph()
    for u, v, data in G.edges(data=True):
        F.add_edge(u, v, capacity=data["bandwidth_Bps"])
        F.add_edge(v, u, capacity=data["bandwidth_Bps"])
    for h in hosts(G):
        side = "_source" if G.nodes[h]["node"] in half else "_sink"
        if side == "_source":
            F.add_edge("_source", h)
        else:
            F.add_edge(h, "_sink")
    return float(nx.maximum_flow_value(F, "_source", "_sink"))
