"""Routes on a platform graph, exactly as the generated SimGrid routing takes them.

Two routings are generated:

``dijkstra``
    A SimGrid ``routing="Dijkstra"`` zone with one link per graph edge.  SimGrid
    3.32's DijkstraZone costs an edge by its number of links (here 1), pops
    nodes by (cost, internal id) and keeps the first predecessor that reaches a
    node at its final cost (strictly smaller test).  Among all hop-minimal paths
    it therefore takes, at every node, the predecessor with the smallest
    internal id; internal ids are handed out in the order nodes first appear in
    the ``<route>`` elements.  ``simgrid_order`` reproduces that order (the XML
    writer emits routes in ``G.edges`` order, each edge up then down) and
    ``route`` reproduces the choice, so the graph predicts the links of every
    simulated message, not only their number.
``explicit``
    A ``routing="Full"`` zone with one written route per host pair, produced
    by the generator's route function (``G.graph["route_policy"]``), e.g. the
    rail policies of the dual-rail platform.
"""

from __future__ import annotations

from collections import deque

import networkx as nx

__all__ = ["route", "simgrid_order", "register_route_policy"]

_POLICIES = {}


def register_route_policy(name, function) -> None:
    """Register ``function(G, source, target) -> list of nodes`` for explicit routing."""
    _POLICIES[name] = function


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
        ``[source, ..., target]``; ``[source]`` when they are the same host.

    Examples
    --------
    >>> from collsim.platforms import fat_tree
    >>> route(fat_tree(levels=1, down_ports=[2]), "node-0", "node-1")
    ['node-0', 'switch-1-0', 'node-1']
    """
    if source == target:
        return [source]
    routing = G.graph.get("routing", "dijkstra")
    if routing == "explicit":
        return _POLICIES[G.graph["route_policy"]](G, source, target)
    if routing != "dijkstra":
        raise ValueError(f"unknown routing {routing!r}")
    pred = _predecessors(G, source)
    if target not in pred:
        raise ValueError(f"no route from {source!r} to {target!r}")
    path = [target]
    while path[-1] != source:
        path.append(pred[path[-1]])
    path.reverse()
    return path
