"""The fat-tree: an extended generalized fat-tree (XGFT) of switches.

Levels are numbered from the hosts (level 0) up.  ``down_ports[l-1]`` is the
number of children of a level-l switch, ``up_ports[l-1]`` the number of parents
of a level-(l-1) element; a level-(l-1) element with label
``(a_l, ..., a_L; b_1, ..., b_{l-1})`` is linked to the level-l switches
``(a_{l+1}, ..., a_L; b_1, ..., b_{l-1}, b_l)`` for every ``b_l`` (Ohring et
al., "On generalized fat trees", IPPS 1995; the same shape SimGrid's FAT_TREE
cluster builds from ``topo_parameters="L;down;up;parallel"``).

Every hop-minimal route goes up to the nearest common ancestor level and down
again.  Which of the equal routes a message takes depends on how the graph is
written (``collsim.platforms.simgrid``), and ``collsim.platforms.routing.route``
predicts it either way:

- A plain fat-tree (all links of one bandwidth and one latency, nodes of one
  core: ``native_cluster``) is SimGrid's FAT_TREE cluster of its shape,
  ``L;down_ports;up_ports;1,...,1`` (parallel cables are one link of their
  summed bandwidth, here as in the graph).  SimGrid routes it with its
  FatTreeZone rule, d-mod-k (``cluster_route``): the up-link at each level
  is chosen from the destination's index, so cross-leaf messages to
  different destinations use different spines.
- Every other fat-tree with a choice of routes (some ``up_ports`` > 1):
  per-level bandwidths or latencies, tapering, nodes of several cores, the
  fat-tree inside a ``multicore`` machine (one SimGrid host per socket), and
  each fat-tree plane of a ``dual_rail`` machine (per rail and traffic
  class), is routed d-mod-k by the destination node's index in a routing
  graph of a Dijkstra zone (``dmodk_edges``, written by ``add_dmodk_routes``
  and by ``dual_rail``; ``collsim.platforms.routing``, ``layered``): the
  same switches as the cluster of its shape for the same pair of nodes, so
  cross-leaf messages to nodes of different residues use different spines.
  Without a choice (all ``up_ports`` 1) the one route per edge of a plain
  Dijkstra zone gives the same routes.
- A graph edited after it was made (not the cluster any more) is explicit
  links and routers in a Dijkstra zone, whose tie-break always takes the
  switches whose up-port labels ``b`` are all 0 (``switch-l-j`` with
  ``j < prod(down_ports[l:])``).  On those the other switches of a level
  (``up_ports`` > 1) carry no traffic: all cross-leaf traffic crosses one
  spine, oversubscribed ``up_ports[-1]``:1 on a two-level tree.
"""

from __future__ import annotations

import math
from itertools import product

import networkx as nx

from ._common import (LINK_DEFAULTS, NODE_DEFAULTS, add_host, add_link, check_list,
                      check_node_parameters, new_platform)
from ._validate import check_count, check_nonnegative, check_positive

__all__ = ["fat_tree", "topo_parameters", "native_cluster", "cluster_route", "dmodk_digit",
           "has_route_choice", "dmodk_edges", "add_dmodk_routes", "dmodk_routing_graph",
           "routers_dmodk_routing_graph"]


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
    if has_route_choice(params) and _native_cluster(G) is None:
        # not SimGrid's cluster, and several routes between some nodes: d-mod-k in a
        # routing graph (``dmodk_routing_graph``), the cluster's choice of switches
        G.graph["routing"] = "layered"
    return G


# -- SimGrid's FAT_TREE cluster: when it is used, and its routes --------------


def native_cluster(G: nx.Graph) -> dict | None:
    """The FAT_TREE cluster ``G`` is written as, or None (then a routed Dijkstra zone).

    A fat-tree from ``fat_tree`` whose hosts are ``node-0..`` in order, with
    one core each and one speed, and whose links all have one bandwidth and
    one latency is SimGrid's ``<cluster topology="FAT_TREE">`` of the same
    shape: ``topo_parameters`` ``L;down_ports;up_ports;1,..,1``.  Each graph
    edge (``k`` parallel cables merged into one link of ``k`` times the
    bandwidth, as everywhere in collsim) is one link of the cluster, so the
    parallel-link vector is all 1; the switches a route takes are the same
    as with ``k`` separate cables (SimGrid picks up-port ``d mod (up * k)``,
    whose parent is ``d mod up``).  SimGrid routes the cluster with its
    FatTreeZone rule (``cluster_route``), not by a graph search.

    Per-level bandwidths or latencies, tapering, nodes of several cores (the
    cluster's per-host loopback links round some times differently from the
    routed zone's one shared loopback) and edited graphs return None (the
    first ones are then routed d-mod-k, ``dmodk_routing_graph``).  The
    answer is kept in ``G.graph`` while the graph keeps its size.
    """
    if G.graph.get("name") != "fat_tree" or G.graph.get("routing", "dijkstra") != "dijkstra":
        return None
    key = (G.number_of_nodes(), G.number_of_edges())
    cached = G.graph.get("_native_cluster")
    if cached is not None and cached[0] == key:
        return cached[1]
    cluster = _native_cluster(G)
    G.graph["_native_cluster"] = (key, cluster)
    return cluster


def _native_cluster(G: nx.Graph) -> dict | None:
    params = G.graph.get("params", {})
    down_ports, up_ports = params["down_ports"], params["up_ports"]
    levels = params["levels"]
    hosts = [n for n, kind in G.nodes(data="kind") if kind == "host"]
    edges_expected = sum(math.prod(down_ports[level - 1:]) * math.prod(up_ports[:level])
                         for level in range(1, levels + 1))
    if (hosts != [f"node-{i}" for i in range(math.prod(down_ports))]
            or G.number_of_edges() != edges_expected):
        return None
    if len({G.nodes[h]["speed_flops"] for h in hosts}) != 1 or any(
            G.nodes[h]["cores"] != 1 for h in hosts):
        return None
    links = {(data["bandwidth_Bps"], data["latency_s"]) for _, _, data in G.edges(data=True)}
    if len(links) != 1:
        return None
    (bandwidth_Bps, latency_s), = links
    return dict(bandwidth_Bps=bandwidth_Bps, latency_s=latency_s, levels=levels,
                down_ports=list(down_ports), up_ports=list(up_ports), parallel_links=[1] * levels,
                topo_parameters=topo_parameters(down_ports=down_ports, up_ports=up_ports,
                                                parallel_links=[1] * levels))


def _digits(position: int, radices) -> list:
    digits = []
    for radix in radices:
        digits.append(position % radix)
        position //= radix
    return digits


def _number(digits, radices) -> int:
    position = 0
    for digit, radix in zip(reversed(digits), reversed(radices)):
        position = position * radix + digit
    return position


def cluster_route(G: nx.Graph, source: str, target: str, *, cluster: dict | None = None) -> list:
    """The route SimGrid 3.32's FatTreeZone takes in ``G``'s cluster, as nodes of ``G``.

    ``cluster``: ``native_cluster(G)`` when the caller has it (routing many pairs).

    SimGrid's labels: an element of level l at position j (SimGrid's order)
    has the digits of j, least significant first, in the radices ``up[d]``
    for d < l and ``down[d]`` for d >= l; ``fat_tree`` numbers the same
    element by the digits d >= l first, then d < l.  The rule
    (src/kernel/routing/FatTreeZone.cpp, ``get_local_route``): from the
    source go up while the current element's subtree (the hosts whose digits
    d >= its level equal its own) lacks the destination; at level l the
    up-port is ``(dst // prod(up[:l])) mod (up[l] * parallel[l])``, port p
    leading to the parent whose digit l is ``p mod up[l]`` (cable
    ``p // up[l]``).  Then go down: at a level-l switch, scan the child ports
    from ``(src mod parallel[l-1]) * down[l-1]`` for the first whose
    ``port mod down[l-1]`` is the destination's digit l-1; SimGrid's loop
    goes on scanning from the next port number in the child it reached, which
    can change the cable (never the switch) when ``parallel`` > 1.
    """
    if cluster is None:
        cluster = native_cluster(G)
    if cluster is None:
        raise ValueError("not a FAT_TREE cluster platform")
    if source == target:
        return [source]
    L, down, up, par = (cluster["levels"], cluster["down_ports"], cluster["up_ports"],
                        cluster["parallel_links"])

    def radices(level):
        return [up[d] if d < level else down[d] for d in range(L)]

    def name(level, label):
        if level == 0:
            return f"node-{_number(label, down)}"
        ours = label[level:] + label[:level]
        return f"switch-{level}-{_number(ours, down[level:] + up[:level])}"

    src = int(source.rsplit("-", 1)[1])
    dst = int(target.rsplit("-", 1)[1])
    dst_label = _digits(dst, down)
    level, label = 0, _digits(src, down)
    path = [source]

    def in_subtree(level, label):
        return level > 0 and all(label[d] == dst_label[d] for d in range(level, L))

    while not in_subtree(level, label):
        d = dst
        for i in range(level):
            d //= up[i]
        port = d % (up[level] * par[level])
        label = label[:level] + [port % up[level]] + label[level + 1:]
        level += 1
        path.append(name(level, label))
    while level > 0:
        port = (src % par[level - 1]) * down[level - 1]
        while level > 0 and port < down[level - 1] * par[level - 1]:
            if port % down[level - 1] == dst_label[level - 1]:
                label = label[:level - 1] + [port % down[level - 1]] + label[level:]
                level -= 1
                path.append(name(level, label))
            port += 1
    assert path[-1] == target, (source, target, path)
    return path


# -- d-mod-k in a routing graph: fat-trees SimGrid's cluster cannot express ----


def dmodk_digit(node: int, level: int, up_ports) -> int:
    """The up-port label ``b_{level+1}`` d-mod-k takes from level ``level`` towards ``node``.

    The rule of ``cluster_route`` (SimGrid's FatTreeZone):
    ``(node // prod(up_ports[:level])) mod up_ports[level]``.
    """
    return (node // math.prod(up_ports[:level])) % up_ports[level]


def has_route_choice(params: dict) -> bool:
    """Whether a fat-tree of these parameters has several hop-minimal routes for some pair."""
    return any(u > 1 for u in params["up_ports"])


def dmodk_edges(G: nx.Graph, params: dict, level0: list) -> list:
    """The edges of the fat-tree of ``G`` routed d-mod-k by destination node, in order.

    The one home of the rule that ``add_dmodk_routes`` (plain and multicore
    fat-trees) and ``dual_rail`` (each plane, per traffic class) write into
    their routing graphs.  ``level0`` are the fat-tree's level-0 elements in
    ``G`` (hosts ``node-i``, or the node routers of ``multicore``), each with
    its ``node`` index.  A switch vertex is ``(switch, chain)``: ``chain``
    ``()`` is the switch's *up* phase (reached from its children, leading to
    its parents), a non-empty ``chain`` its *down copy* on the way down from
    a level-k switch, ``chain`` the up-port labels ``b_{l+1..k}`` of the
    switches above it on that way (its own label holds ``b_1..b_l``).

    Returns
    -------
    list of (str, object, object, tuple)
        ``(kind, tail, head, link)``, ``link`` the one physical edge
        ``(u, v)`` of ``G`` crossed, ``kind`` one of: ``"climb"`` from a
        switch's up phase to a parent's; ``"down"`` from a level-k switch
        (up phase, k >= 2: turning down, or a down copy) to the down copy of
        a child, the chain extended by the switch's own ``b_k``;
        ``"enter"`` from a level-0 element to each of its level-1 switches
        (up phase); ``"deliver"`` from a level-1 switch (up phase or down
        copy) to a level-0 element ``r`` only when the labels ``b_1..b_k``
        of the path are d-mod-k's towards ``node(r)`` (``dmodk_digit``).
        From any source the one path that reaches ``r`` at the least number
        of links climbs to the nearest common ancestor level through the
        switches d-mod-k names and descends by the one way down: the route
        of ``cluster_route`` on the same shape; every other path reaching
        ``r`` turns higher, 2 links longer per level.
    """
    levels, down, up = params["levels"], params["down_ports"], params["up_ports"]
    level = {n: lv for n, lv in G.nodes(data="level") if G.nodes[n]["kind"] == "switch"}
    for r in level0:
        level[r] = 0

    def b_digits(name):
        lv = level[name]
        if lv == 0:
            return ()
        j = int(name.rsplit("-", 1)[1])
        return tuple(_digits(j, down[lv:] + up[:lv])[levels - lv:])

    b = {n: b_digits(n) for n in level}
    node_index = {r: G.nodes[r]["node"] for r in level0}
    wanted = {r: tuple(dmodk_digit(node_index[r], lv, up) for lv in range(levels))
              for r in level0}
    edges = []
    # the down copies of each switch, by the labels c above it, built top-down
    copies = {n: [] for n in level}
    for lv in range(levels, 0, -1):
        for x in (n for n in level if level[n] == lv):
            children = [c for c in G.adj[x] if level.get(c) == lv - 1]
            parents = [p for p in G.adj[x] if level.get(p) == lv + 1]
            for p in parents:
                edges.append(("climb", (x, ()), (p, ()), (x, p)))
            if lv == 1:
                continue
            for chain in [()] + copies[x]:  # turning down here, or on the way down
                for c in children:
                    c_chain = (b[x][-1],) + chain
                    copies[c].append(c_chain)
                    edges.append(("down", (x, chain), (c, c_chain), (x, c)))
    for r in level0:
        for x in G.adj[r]:
            if level.get(x) == 1:
                edges.append(("enter", r, (x, ()), (r, x)))
    for x in (n for n in level if level[n] == 1):
        for r in (c for c in G.adj[x] if level.get(c) == 0):
            for chain in [()] + copies[x]:
                path_b = b[x] + chain
                if path_b == wanted[r][:len(path_b)]:
                    edges.append(("deliver", (x, chain), r, (x, r)))
    return edges


def add_dmodk_routes(G: nx.Graph, R: nx.DiGraph, params: dict, level0: list) -> None:
    """Add to routing graph ``R`` the fat-tree of ``G`` routed d-mod-k by destination node.

    ``level0`` are the fat-tree's level-0 elements in ``G`` (hosts ``node-i``,
    or the node routers of ``multicore``), each with its ``node`` index.  The
    edges are ``dmodk_edges``'s, one real link each; every switch under its
    own name is the up phase, its down copy ``X@c_{l+1}.….c_k`` the switch on
    the way down with the up-port labels ``c`` above it (``_copy``).  So a
    route is the one ``cluster_route`` takes on the same shape.  Virtual
    routers add no link.
    """
    def vertex(v):
        return v if isinstance(v, str) else _copy(*v)

    for _, tail, head, link in dmodk_edges(G, params, level0):
        R.add_edge(vertex(tail), vertex(head), links=[link])


def routers_dmodk_routing_graph(G: nx.Graph, tree_params: dict) -> nx.DiGraph:
    """The routing graph of hosts on node routers joined by a fat-tree routed d-mod-k.

    Each host reaches its node router (``kind`` ``"node"``, with its ``node``
    index) and back by its own link; the fat-tree of ``tree_params`` between
    the routers is routed d-mod-k by the destination node (``add_dmodk_routes``):
    a ``multicore`` fat-tree, and the one rail of a ``dual_rail`` machine.
    """
    R = nx.DiGraph()
    routers = [n for n, kind in G.nodes(data="kind") if kind == "node"]
    for router in routers:
        for host in (h for h in G.adj[router] if G.nodes[h]["kind"] == "host"):
            R.add_edge(host, router, links=[(host, router)])
            R.add_edge(router, host, links=[(router, host)])
    add_dmodk_routes(G, R, tree_params, routers)
    return R


def dmodk_routing_graph(G: nx.Graph) -> nx.DiGraph:
    """The routing graph of a plain fat-tree that is not SimGrid's cluster (``add_dmodk_routes``)."""
    R = nx.DiGraph()
    hosts = [n for n, kind in G.nodes(data="kind") if kind == "host"]
    add_dmodk_routes(G, R, G.graph["params"], hosts)
    return R


def _copy(switch: str, chain: tuple) -> str:
    """The routing-graph vertex of ``switch``: itself (up phase) or its down copy."""
    return switch if not chain else f"{switch}@{'.'.join(map(str, chain))}"
