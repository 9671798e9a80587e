"""The fat-tree: an extended generalized fat-tree (XGFT) of switches.

Levels are numbered from the hosts (level 0) up.  ``down_ports[l-1]`` is the
number of children of a level-l switch, ``up_ports[l-1]`` the number of parents
of a level-(l-1) element; a level-(l-1) element with label
``(a_l, ..., a_L; b_1, ..., b_{l-1})`` is linked to the level-l switches
``(a_{l+1}, ..., a_L; b_1, ..., b_{l-1}, b_l)`` for every ``b_l`` (Ohring et
al., "On generalized fat trees", IPPS 1995; the same shape SimGrid's FAT_TREE
cluster builds from ``topo_parameters="L;down;up;parallel"``).

Every hop-minimal route goes up to the nearest common ancestor level and down
again; ``collsim.platforms.routing`` reproduces which of the equal routes
SimGrid's Dijkstra zone takes: always the one through the switches whose
up-port labels ``b`` are all 0 (``switch-l-j`` with ``j < prod(down_ports[l:])``),
so only those switches carry traffic and the other switches of a level
(``up_ports`` > 1) carry none.  Those switches form the pure tree
``L;down_ports;1,...,1;1,...,1``: when all links have one bandwidth and one
latency and nodes one core, the XML is SimGrid's FAT_TREE cluster of that
tree, which takes the same links and routes a message without a graph search
(``collsim.platforms.simgrid``); per-level bandwidths or latencies and
tapering, which that cluster cannot express (one ``bw`` for all links), and
nodes of several cores are written as explicit links and routers in a
Dijkstra zone.
"""

from __future__ import annotations

import math
from itertools import product

import networkx as nx

from ._common import (LINK_DEFAULTS, NODE_DEFAULTS, add_host, add_link, check_list,
                      check_node_parameters, new_platform)
from ._validate import check_count, check_nonnegative, check_positive

__all__ = ["fat_tree", "topo_parameters"]


def _real_at_least_one(name, value):
    check_positive(name, value)
    if value < 1:
        raise ValueError(f"{name} must be >= 1 (1 means no tapering), got {value!r}")


def topo_parameters(*, down_ports, up_ports, parallel_links) -> str:
    """Return SimGrid's FAT_TREE ``topo_parameters`` string for this shape.

    Examples
    --------
    >>> topo_parameters(down_ports=[4, 4], up_ports=[1, 2], parallel_links=[1, 1])
    '2;4,4;1,2;1,1'
    """
    levels = len(down_ports)
    return ";".join([str(levels)] + [",".join(str(x) for x in values)
                                     for values in (down_ports, up_ports, parallel_links)])


def fat_tree(
    *,
    levels: int = 2,
    down_ports,
    up_ports=None,
    parallel_links=None,
    bandwidth_Bps=LINK_DEFAULTS["bandwidth_Bps"],
    latency_s=LINK_DEFAULTS["latency_s"],
    tapering: float = 1.0,
    cores_per_node: int = NODE_DEFAULTS["cores_per_node"],
    loopback_bandwidth_Bps: float = NODE_DEFAULTS["loopback_bandwidth_Bps"],
    loopback_latency_s: float = NODE_DEFAULTS["loopback_latency_s"],
    speed_flops: float = NODE_DEFAULTS["speed_flops"],
    gamma_s_per_byte: float = NODE_DEFAULTS["gamma_s_per_byte"],
) -> nx.Graph:
    """Return a fat-tree of ``prod(down_ports)`` nodes.

    Parameters
    ----------
    levels : int
        Switch levels L (>= 1).
    down_ports : list of int
        Children of each switch, per level (L values >= 1).  The number of
        nodes is their product.
    up_ports : list of int, optional
        Parents of each element of the level below, per level (default all 1:
        a tree).  ``up_ports[0]`` > 1 gives a node several leaf switches.
    parallel_links : list of int, optional
        Cables between a child and each of its parents, per level (default 1).
        SimGrid routes one message over one link of a route, so k parallel
        cables are written as one link of k times the bandwidth, as SimGrid's
        own DRAGONFLY cluster does: exact for the aggregate, optimistic for a
        single message crossing it.
    bandwidth_Bps, latency_s : float or list of float
        Bandwidth and latency of one cable, the same for all levels or one
        value per level (level 1 = node to leaf switch).
    tapering : float
        Oversubscription ratio >= 1: cables above the leaf switches carry
        ``bandwidth / tapering`` (2 means a leaf switch's up-links have half
        the bandwidth its down-links have with the same port counts).
    cores_per_node, loopback_bandwidth_Bps, loopback_latency_s, speed_flops, gamma_s_per_byte
        As for ``crossbar``.

    Returns
    -------
    networkx.Graph
        ``prod(down_ports)`` hosts ``node-i`` and, at level l, ``prod(down_ports[l:]) *
        prod(up_ports[:l])`` switches ``switch-l-j``; each element of level
        l-1 has ``up_ports[l-1]`` links up, so there are
        ``sum_l prod(down_ports[l-1:]) * prod(up_ports[:l])`` links.

    Raises
    ------
    ValueError
        Naming the parameter: counts below 1, lists of the wrong length,
        tapering below 1, bandwidths or latencies out of range.

    Examples
    --------
    >>> G = fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 2])
    >>> sum(1 for _, k in G.nodes(data="kind") if k == "host"), G.number_of_edges()
    (16, 24)
    """
    check_count("levels", levels)
    up_ports = [1] * levels if up_ports is None else up_ports
    parallel_links = [1] * levels if parallel_links is None else parallel_links
    down_ports = check_list("down_ports", down_ports, levels, check_count)
    up_ports = check_list("up_ports", up_ports, levels, check_count)
    parallel_links = check_list("parallel_links", parallel_links, levels, check_count)
    bandwidths = bandwidth_Bps if isinstance(bandwidth_Bps, (list, tuple)) else [bandwidth_Bps] * levels
    latencies = latency_s if isinstance(latency_s, (list, tuple)) else [latency_s] * levels
    bandwidths = check_list("bandwidth_Bps", bandwidths, levels, check_positive)
    latencies = check_list("latency_s", latencies, levels, check_nonnegative)
    _real_at_least_one("tapering", tapering)
    check_node_parameters(cores_per_node=cores_per_node,
                          loopback_bandwidth_Bps=loopback_bandwidth_Bps,
                          loopback_latency_s=loopback_latency_s, speed_flops=speed_flops,
                          gamma_s_per_byte=gamma_s_per_byte)
    params = dict(levels=levels, down_ports=down_ports, up_ports=up_ports,
                  parallel_links=parallel_links, bandwidth_Bps=[float(b) for b in bandwidths],
                  latency_s=[float(t) for t in latencies], tapering=float(tapering),
                  cores_per_node=cores_per_node, loopback_bandwidth_Bps=loopback_bandwidth_Bps,
                  loopback_latency_s=loopback_latency_s, speed_flops=speed_flops,
                  gamma_s_per_byte=gamma_s_per_byte)
    G = new_platform("fat_tree", params,
                     topo_parameters=topo_parameters(down_ports=down_ports, up_ports=up_ports,
                                                     parallel_links=parallel_links))

    # Label of a level-l element: (a_{l+1..L}, b_{1..l}); its index is the
    # mixed-radix number of that tuple with the first digit least significant,
    # so that consecutive nodes share a leaf switch.
    def labels(level):
        radices = down_ports[level:] + up_ports[:level]
        return [label[::-1] for label in product(*[range(r) for r in reversed(radices)])]

    def name(level, label_index):
        return f"node-{label_index}" if level == 0 else f"switch-{level}-{label_index}"

    nodes = math.prod(down_ports)
    for i, label in enumerate(labels(0)):
        add_host(G, name(0, i), node=i, cores=cores_per_node, speed_flops=speed_flops)
    for level in range(1, levels + 1):
        upper = {label: j for j, label in enumerate(labels(level))}
        for j in range(len(upper)):
            G.add_node(name(level, j), kind="switch", level=level)
        bw = bandwidths[level - 1] * parallel_links[level - 1]
        if level > 1:
            bw /= tapering
        for i, label in enumerate(labels(level - 1)):
            a_rest = label[1 : levels - level + 1]
            b = label[levels - level + 1 :]
            for b_l in range(up_ports[level - 1]):
                parent = upper[a_rest + b + (b_l,)]
                add_link(G, name(level - 1, i), name(level, parent), bandwidth_Bps=bw,
                         latency_s=latencies[level - 1], kind=f"level-{level}")
    assert sum(1 for _, k in G.nodes(data="kind") if k == "host") == nodes
    return G
