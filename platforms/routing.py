"""Routes on a platform graph, exactly as the generated SimGrid routing takes them.

Two routings are generated as SimGrid ``routing="DijkstraCache"`` zones
(one shortest-path search per source, cached; SimGrid 3.32 to 4.x cost an
edge of the search by its number of links and keep, for every node, the
first predecessor popped (by cost, then internal id) that reaches it at its
final cost; internal ids are handed out in the order nodes first appear in
the ``<route>`` elements):

``dijkstra``
    One link per graph edge, one route per edge and direction.  Every route
    is hop-minimal; among several, ``route`` takes SimGrid's choice: the XML
    writer emits routes in ``G.edges`` order, each edge up then down, and
    ``simgrid_order`` reproduces the ids that follow.  So the graph predicts
    the links of every simulated message, not only their number.  On a
    fat-tree this choice keeps every route in the switches whose up-port
    labels are all 0 (``collsim.platforms.fat_tree``); the fat-trees the
    cluster cannot express are ``layered`` instead (below).
``FAT_TREE`` cluster
    A fat-tree of one-core nodes whose links are all alike is written as
    SimGrid's FAT_TREE cluster of its shape (``fat_tree.native_cluster``);
    ``route`` then follows SimGrid's FatTreeZone rule, d-mod-k
    (``fat_tree.cluster_route``, checked against SimGrid's own routes in
    ``tests/test_platform_fat_tree_native.py``).
``layered``
    Routes in a *routing graph*: a directed graph registered for the platform
    family (``register_routing_graph``) whose vertices are the hosts plus
    copies of the routers, and whose every edge names the physical links it
    crosses (and, to weigh a path, zero-latency links of unbounded bandwidth
    that cost no simulated time).  A policy that is not "shortest path" (the
    rails of a dual-rail machine) becomes one: the copies let only the wanted
    paths through; on a fat-tree that is not a cluster (a dual-rail
    machine's fat-tree planes included), copies of the switches on the way
    down let only the d-mod-k routes through (``fat_tree.dmodk_edges``).  The
    routes written and searched grow with the hosts, not with the hosts
    squared.  ``route`` runs SimGrid's search on the routing graph and maps
    the result back to physical nodes.
"""

from __future__ import annotations

from collections import deque

import networkx as nx

from .fat_tree import cluster_route, dmodk_routing_graph, native_cluster

__all__ = ["route", "router", "simgrid_order", "register_routing_graph", "routing_graph", "VIRTUAL_LINKS"]

# The zero-latency, unbounded (FATPIPE) link of the detour (below).  A routing
# graph may name other such links: any hop given as a string is one.
VIRTUAL_LINKS = ("virtual-detour",)

_BUILDERS = {}


def register_routing_graph(family: str, builder) -> None:
    """Register ``builder(G) -> networkx.DiGraph`` as the routing graph of a platform family.

    Every edge of the routing graph carries ``links``: the physical hops it
    crosses, in order, each a ``(u, v)`` edge of ``G`` (u to v), or the name of
    a virtual link (zero latency, unbounded bandwidth: it only weighs the
    path).  Its vertices are ``G``'s hosts (same names) and any other names.
    """
    _BUILDERS[family] = builder


register_routing_graph("fat_tree", dmodk_routing_graph)


# SimGrid's search keeps unsigned costs and starts every node at ULONG_MAX; a
# node it cannot reach from the source is popped last and relaxes its edges
# with ULONG_MAX + cost, which wraps around to a tiny cost and corrupts the
# predecessors of the nodes it points to (a route then never ends).  A routing
# graph is directed and, by design, leaves parts of itself out of reach of a
# given source, so every graph gets a detour: each host enters a chain of
# DETOUR_HOPS virtual links whose end points to every node.  Everything is then
# reachable, and no path through the detour (more than DETOUR_HOPS links) can
# compete with a real route (a few links per level of the network).
DETOUR_HOPS = 64


def _add_detour(R: nx.DiGraph) -> None:
    virtual = VIRTUAL_LINKS[0]
    targets = list(R.nodes)
    hosts = [n for n in targets if R.nodes[n].get("host")]
    chain = [f"detour-{k}" for k in range(DETOUR_HOPS)]
    for host in hosts:
        R.add_edge(host, chain[0], links=[virtual])
    for a, b in zip(chain, chain[1:]):
        R.add_edge(a, b, links=[virtual])
    for node in targets:
        R.add_edge(chain[-1], node, links=[virtual])


def routing_graph(G: nx.Graph) -> nx.DiGraph:
    """Return the routing graph of a ``layered`` platform (built once per graph)."""
    R = G.graph.get("_routing_graph")
    if R is None:
        R = _BUILDERS[G.graph["name"]](G)
        for name, kind in G.nodes(data="kind"):
            if kind == "host" and name in R:
                R.nodes[name]["host"] = True
        _add_detour(R)
        G.graph["_routing_graph"] = R
    return R


def simgrid_order(G: nx.Graph) -> dict:
    """Return SimGrid's internal id of every routed node of a Dijkstra platform."""
    cached = G.graph.get("_simgrid_order")
    if cached is not None and len(cached) <= G.number_of_nodes():
        return cached
    order = {}
    for u, v in G.edges():
        for node in (u, v):
            if node not in order:
                order[node] = len(order)
    G.graph["_simgrid_order"] = order
    return order


def _predecessors(G: nx.Graph, source: str) -> dict:
    cache = G.graph.setdefault("_route_cache", {})
    pred = cache.get(source)
    if pred is not None:
        return pred
    order = simgrid_order(G)
    distance = {source: 0}
    pred = {}
    queue = deque([source])
    while queue:
        node = queue.popleft()
        for nbr in G.adj[node]:
            if nbr not in distance:
                distance[nbr] = distance[node] + 1
                pred[nbr] = node
                queue.append(nbr)
            elif distance[nbr] == distance[node] + 1 and order[node] < order[pred[nbr]]:
                pred[nbr] = node
    if len(cache) > 4096:
        cache.clear()
    cache[source] = pred
    return pred


def _layered_predecessors(G: nx.Graph, source: str) -> dict:
    """SimGrid's DijkstraZone search from ``source`` on the routing graph.

    The same algorithm as SimGrid's (src/kernel/routing/DijkstraZone.cpp):
    a priority queue of (cost, internal id) holding every node at first, an
    edge's cost its number of links, a predecessor replaced only by a
    strictly cheaper path.
    """
    import heapq

    cache = G.graph.setdefault("_route_cache", {})
    pred = cache.get(source)
    if pred is not None:
        return pred
    R = routing_graph(G)
    order = G.graph.get("_layered_order")
    if order is None:
        order = {}
        for u, v in R.edges():
            for node in (u, v):
                order.setdefault(node, len(order))
        G.graph["_layered_order"] = order
    names = list(order)
    infinity = float("inf")
    cost = [infinity] * len(names)
    pred_id = [None] * len(names)
    start = order[source]
    cost[start] = 0
    queue = [(cost[i], i) for i in range(len(names))]
    heapq.heapify(queue)
    while queue:
        _, v = heapq.heappop(queue)
        if cost[v] == infinity:
            continue
        for u_name, data in R.adj[names[v]].items():
            u = order[u_name]
            candidate = cost[v] + len(data["links"])
            if candidate < cost[u]:
                cost[u] = candidate
                pred_id[u] = v
                heapq.heappush(queue, (candidate, u))
    pred = {names[i]: names[p] for i, p in enumerate(pred_id) if p is not None}
    if len(cache) > 4096:
        cache.clear()
    cache[source] = pred
    return pred


def _layered_route(G: nx.Graph, source: str, target: str) -> list:
    pred = _layered_predecessors(G, source)
    if target not in pred:
        raise ValueError(f"no route from {source!r} to {target!r}")
    vertices = [target]
    while vertices[-1] != source:
        vertices.append(pred[vertices[-1]])
    vertices.reverse()
    R = routing_graph(G)
    path = [source]
    for a, b in zip(vertices, vertices[1:]):
        for hop in R.edges[a, b]["links"]:
            if isinstance(hop, tuple):
                path.append(hop[1])
    return path


def route(G: nx.Graph, source: str, target: str) -> list:
    """Return the nodes SimGrid's route from ``source`` to ``target`` passes through.

    Parameters
    ----------
    G : networkx.Graph
        A generated platform.
    source, target : str
        Two hosts.

    Returns
    -------
    list
        ``[source, ..., target]``, physical nodes of ``G``; ``[source]`` when
        they are the same host.

    Examples
    --------
    >>> from collsim.platforms import fat_tree
    >>> route(fat_tree(levels=1, down_ports=[2]), "node-0", "node-1")
    ['node-0', 'switch-1-0', 'node-1']
    """
    return router(G)(source, target)


def router(G: nx.Graph):
    """``route`` for many pairs of one platform: the routing rule is found once.

    Returns a function of ``(source, target)`` giving what ``route(G, source,
    target)`` gives, for callers that route many pairs (the models' network
    parameters route rank 0 to every other rank: at 1,024 ranks on a fat-tree,
    deciding 1,023 times whether ``G`` is SimGrid's cluster cost 0.6 s).
    """
    cluster = native_cluster(G)
    if cluster is not None:
        def rule(G, source, target):
            return cluster_route(G, source, target, cluster=cluster)
    else:
        routing = G.graph.get("routing", "dijkstra")
        if routing == "layered":
            rule = _layered_route
        elif routing == "dijkstra":
            rule = _dijkstra_route
        else:
            raise ValueError(f"unknown routing {routing!r}")

    def route_pair(source: str, target: str) -> list:
        return [source] if source == target else rule(G, source, target)

    return route_pair


def _dijkstra_route(G: nx.Graph, source: str, target: str) -> list:
    pred = _predecessors(G, source)
    if target not in pred:
        raise ValueError(f"no route from {source!r} to {target!r}")
    path = [target]
    while path[-1] != source:
        path.append(pred[path[-1]])
    path.reverse()
    return path
