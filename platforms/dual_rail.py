"""Dual-rail clusters: two independent network planes, two NICs per node.

Every node has ``sockets_per_node`` sockets (one SimGrid host each, joined by
socket links to the node's router, as in ``multicore``) and one NIC per rail;
NIC k hangs off socket k (``k < sockets_per_node``), as on the Hydra cluster
of seed 003 where each socket drives its own OmniPath card.  Each rail is one
non-blocking switch, or a fat-tree (``plane_down_ports``/``plane_up_ports``).
SimGrid 3.32 has no multi-rail routing, and writing the route of every host
pair takes hosts squared routes (518 MB of XML at 512 nodes), so the rail
policies are routed in a *routing graph* (``collsim.platforms.routing``,
``layered``): copies of each plane's switches per class of traffic, which
only let the policy's paths through, searched by SimGrid's DijkstraCache:

``socket_affine``
    A message leaves on the rail of the sender's socket and enters the
    receiving node on the same rail, crossing to the receiving socket through
    the node router if needed.
``striped``
    A pair of nodes (i, j) uses rail ``(i + j) mod 2``: the sender's socket
    reaches that rail's NIC through its node router if it is not the NIC's
    socket.
``single``
    One rail: one NIC per node on the node router (the single-rail machine).
``single_double``
    As ``single`` with twice the NIC and switch bandwidth: the usual
    approximation of a dual-rail machine by one fat rail.

Inside a fat-tree plane a message from node i to node j is routed d-mod-k by
the destination node's index, the rule of SimGrid's FAT_TREE cluster
(``fat_tree.dmodk_edges``, shared with plain and multicore fat-trees): it
takes the switches ``fat_tree.cluster_route`` takes from node i to node j on
the plane's shape, so cross-leaf messages to different nodes cross different
spines (spine ``j mod up_ports[1]`` on two levels with ``up_ports[0]`` 1).
Under ``single`` and ``single_double`` a plane with a choice of routes is a
routing graph too (the plane between the node routers, as a ``multicore``
fat-tree); a single switch, or a plane whose ``up_ports`` are all 1, keeps
the plain Dijkstra zone, whose one route per pair is the same.
"""

from __future__ import annotations

import networkx as nx

from ._common import (LINK_DEFAULTS, NODE_DEFAULTS, SOCKET_DEFAULTS, add_host, add_link,
                      check_node_parameters, new_platform)
from ._validate import check_count, check_nonnegative, check_positive
from .fat_tree import dmodk_edges, fat_tree, has_route_choice, routers_dmodk_routing_graph
from .routing import register_routing_graph

__all__ = ["dual_rail", "RAIL_POLICIES"]

RAIL_POLICIES = ("socket_affine", "striped", "single", "single_double")


def dual_rail(
    *,
    nodes: int,
    sockets_per_node: int = 2,
    cores_per_socket: int = 1,
    rail_policy: str = "socket_affine",
    nic_bandwidth_Bps: float = LINK_DEFAULTS["bandwidth_Bps"],
    nic_latency_s: float = LINK_DEFAULTS["latency_s"],
    socket_bandwidth_Bps: float = SOCKET_DEFAULTS["bandwidth_Bps"],
    socket_latency_s: float = SOCKET_DEFAULTS["latency_s"],
    plane_down_ports=None,
    plane_up_ports=None,
    loopback_bandwidth_Bps: float = NODE_DEFAULTS["loopback_bandwidth_Bps"],
    loopback_latency_s: float = NODE_DEFAULTS["loopback_latency_s"],
    speed_flops: float = NODE_DEFAULTS["speed_flops"],
    gamma_s_per_byte: float = NODE_DEFAULTS["gamma_s_per_byte"],
) -> nx.Graph:
    """Return a cluster of ``nodes`` multicore nodes on two rails (or one).

    Parameters
    ----------
    nodes : int
        Number of nodes (>= 1).
    sockets_per_node : int
        Sockets per node (>= 2 for the two-rail policies: NIC k is on socket k).
    cores_per_socket : int
        Cores per socket (>= 1).
    rail_policy : {"socket_affine", "striped", "single", "single_double"}
        How routes choose a rail (see the module docstring).
    nic_bandwidth_Bps, nic_latency_s : float
        Link between a NIC and its rail's switch (doubled bandwidth under
        ``single_double``).
    socket_bandwidth_Bps, socket_latency_s : float
        Link between a socket and its node's router.
    plane_down_ports, plane_up_ports : list of int, optional
        Make each plane a fat-tree (as ``fat_tree``, whose product of
        ``plane_down_ports`` must equal ``nodes``) instead of one switch; every
        plane link has the NIC's bandwidth and latency.  Inside a plane a route
        takes the switches of the d-mod-k route by destination node, the one
        ``fat_tree.cluster_route`` gives on the plane's shape.
    loopback_bandwidth_Bps, loopback_latency_s, speed_flops, gamma_s_per_byte
        As for ``crossbar``.

    Returns
    -------
    networkx.Graph
        ``nodes * sockets_per_node`` hosts ``node-i.s<k>``, ``nodes`` node
        routers ``node-i``, one switch per rail (``rail-0``, ``rail-1``) or
        the switches of each plane's fat-tree (``rail-0.switch-1-0``, ...);
        ``nodes * sockets_per_node`` socket links and, per rail, ``nodes`` NIC
        links (times the plane's ``up_ports[0]``) plus the plane's upper links.

    Raises
    ------
    ValueError
        Naming the parameter.

    Examples
    --------
    >>> G = dual_rail(nodes=2)
    >>> from collsim.platforms.routing import route
    >>> route(G, "node-0.s1", "node-1.s0")
    ['node-0.s1', 'rail-1', 'node-1.s1', 'node-1', 'node-1.s0']
    """
    check_count("nodes", nodes)
    check_count("sockets_per_node", sockets_per_node)
    check_count("cores_per_socket", cores_per_socket)
    if rail_policy not in RAIL_POLICIES:
        raise ValueError(f"rail_policy must be one of {', '.join(RAIL_POLICIES)}, "
                         f"got {rail_policy!r}")
    if rail_policy in ("socket_affine", "striped") and sockets_per_node < 2:
        raise ValueError(f"sockets_per_node must be >= 2 for rail_policy={rail_policy}, "
                         f"got {sockets_per_node}")
    check_positive("nic_bandwidth_Bps", nic_bandwidth_Bps)
    check_nonnegative("nic_latency_s", nic_latency_s)
    check_positive("socket_bandwidth_Bps", socket_bandwidth_Bps)
    check_nonnegative("socket_latency_s", socket_latency_s)
    plane = None
    if plane_down_ports is not None or plane_up_ports is not None:
        if plane_down_ports is None:
            raise ValueError("plane_down_ports is needed with plane_up_ports")
        levels = len(plane_down_ports) if hasattr(plane_down_ports, "__len__") else 0
        plane = fat_tree(levels=max(levels, 1), down_ports=plane_down_ports,
                         up_ports=plane_up_ports,
                         bandwidth_Bps=nic_bandwidth_Bps * (2 if rail_policy == "single_double" else 1),
                         latency_s=nic_latency_s)
        plane_nodes = sum(1 for _, k in plane.nodes(data="kind") if k == "host")
        if plane_nodes != nodes:
            raise ValueError(f"plane_down_ports multiply to {plane_nodes} nodes, not nodes={nodes}")
    check_node_parameters(cores_per_node=cores_per_socket,
                          loopback_bandwidth_Bps=loopback_bandwidth_Bps,
                          loopback_latency_s=loopback_latency_s, speed_flops=speed_flops,
                          gamma_s_per_byte=gamma_s_per_byte)
    params = dict(nodes=nodes, sockets_per_node=sockets_per_node,
                  cores_per_socket=cores_per_socket, rail_policy=rail_policy,
                  nic_bandwidth_Bps=nic_bandwidth_Bps, nic_latency_s=nic_latency_s,
                  socket_bandwidth_Bps=socket_bandwidth_Bps, socket_latency_s=socket_latency_s,
                  plane_down_ports=plane_down_ports, plane_up_ports=plane_up_ports,
                  loopback_bandwidth_Bps=loopback_bandwidth_Bps,
                  loopback_latency_s=loopback_latency_s, speed_flops=speed_flops,
                  gamma_s_per_byte=gamma_s_per_byte)
    rails = 2 if rail_policy in ("socket_affine", "striped") else 1
    # two rails: a routing graph for the policy; one fat-tree rail with a choice of
    # routes: a routing graph for d-mod-k; one switch: the Dijkstra zone's one route
    layered = rails == 2 or plane is not None and has_route_choice(plane.graph["params"])
    G = new_platform("dual_rail", params, routing="layered" if layered else "dijkstra")
    nic_bw = nic_bandwidth_Bps * (2 if rail_policy == "single_double" else 1)
    G.graph["_plane"] = plane
    for r in range(rails):
        if plane is None:
            G.add_node(f"rail-{r}", kind="switch", rail=r)
        else:
            for name, data in plane.nodes(data=True):
                if data["kind"] != "host":
                    G.add_node(f"rail-{r}.{name}", kind="switch", rail=r, level=data["level"])
    for i in range(nodes):
        hub = f"node-{i}"
        G.add_node(hub, kind="node", node=i)
        for s in range(sockets_per_node):
            host = f"node-{i}.s{s}"
            add_host(G, host, node=i, socket=s, cores=cores_per_socket, speed_flops=speed_flops)
            add_link(G, host, hub, bandwidth_Bps=socket_bandwidth_Bps,
                     latency_s=socket_latency_s, kind="socket")
        for r in range(rails):
            nic_end = f"node-{i}.s{r}" if rails == 2 else hub
            leaves = [f"rail-{r}"] if plane is None else [
                f"rail-{r}.{leaf}" for leaf in plane.adj[f"node-{i}"]]
            for leaf in leaves:
                add_link(G, nic_end, leaf, bandwidth_Bps=nic_bw,
                         latency_s=nic_latency_s, kind=f"nic-{r}")
    if plane is not None:
        for r in range(rails):
            for u, v, data in plane.edges(data=True):
                if plane.nodes[u]["kind"] != "host" and plane.nodes[v]["kind"] != "host":
                    add_link(G, f"rail-{r}.{u}", f"rail-{r}.{v}", bandwidth_Bps=data["bandwidth_Bps"],
                             latency_s=data["latency_s"], kind=f"plane-{r}")
    return G


def _add_socket_edges(R: nx.DiGraph, nodes: range, sockets: int, policy: str) -> None:
    """The routing graph's sources: each socket towards the node router of the rails it
    reaches through it (``node-i@to<r>``), and the intra-node routes between sockets."""
    for i in nodes:
        hub = f"node-{i}"
        for s in range(sockets):
            host = f"node-{i}.s{s}"
            for t in range(sockets):
                if t != s:
                    target = f"node-{i}.s{t}"
                    R.add_edge(host, target, links=[(host, hub), (hub, target),
                                                    f"{target}.v0", f"{target}.v1"])
            for r in (0, 1):
                if policy == "socket_affine" and s % 2 != r:
                    continue
                if s != r:
                    R.add_edge(host, f"{hub}@to{r}", links=[(host, hub)])


def _routing_graph(G: nx.Graph) -> nx.DiGraph:
    """The routing graph of a dual-rail machine (see ``collsim.platforms.routing``).

    Traffic classes: under ``striped`` a node's parity (``i mod 2``), and rail
    ``r`` carries class ``c`` to class ``c xor r``; under ``socket_affine`` one
    class, rail ``r`` entered only from sockets ``s`` with ``s mod 2 == r``.
    Each rail's switches are copied per class as an up phase (``@u<c>``: links
    towards the spines) and, on a fat-tree plane, down copies per arrival
    class and chain of up-port labels above them (``@d<c>@<chain>``, the
    vertices ``(switch, chain)`` of ``fat_tree.dmodk_edges``: on two levels
    ``leaf@d<c>@s`` entered from spine ``s``).  A path turns down once, so
    every path is up then down and reaches only the nodes of its class; a
    level-1 switch (its up phase, when source and destination share it, or a
    down copy) delivers to node j's NIC only when the path's labels are
    d-mod-k's for j (``fat_tree.dmodk_digit``).  So the one path of least
    cost climbs through the switches d-mod-k names for j to the nearest
    common ancestor level and descends: hop-minimal inside the plane, the
    switches ``fat_tree.cluster_route`` takes on the plane's shape; any other
    path turns higher, 2 links longer per level.  On a single switch
    (``rail-<r>@u<c>``) the up phase delivers directly.

    Under ``single`` and ``single_double`` (one rail on the node routers,
    routed here only on a plane with a choice of routes): each socket's link
    to its node router and back, and the plane between the node routers
    d-mod-k (``fat_tree.add_dmodk_routes``, as a ``multicore`` fat-tree).

    A socket ``s`` reaches rail ``r``'s NIC directly when ``s == r`` (one
    virtual link and the NIC link), else through the node router (its socket
    link up, socket ``r``'s link down, the NIC link: ``node-i@to<r>``).  A
    message arriving on rail ``r`` enters socket ``r`` directly or goes on
    through the node router (``node-i@from<r>``).  Intra-node routes cross the
    two socket links and two virtual links: the virtual links make a path
    that passes through another socket's host to use that socket's NIC (a
    path the policy does not take) longer than the policy's path, so that
    SimGrid's search never prefers it.  Virtual links cost no time; each
    belongs to one host (``node-i.s<k>.v0``, ``.v1``), crossed only by
    messages that also cross that host's own links, so that they couple no
    flows SimGrid's sharing would otherwise solve apart.
    """
    params = G.graph["params"]
    policy, sockets = params["rail_policy"], params["sockets_per_node"]
    plane = G.graph.get("_plane")
    if policy not in ("socket_affine", "striped"):
        # one rail on the node routers: routed as a multicore fat-tree
        return routers_dmodk_routing_graph(G, plane.graph["params"])
    R = nx.DiGraph()
    classes = (0, 1) if policy == "striped" else (0,)

    def node_class(i):
        return i % 2 if policy == "striped" else 0

    def arrives(r, c):
        return c ^ r if policy == "striped" else c

    if plane is None:
        plane_edges = []
    else:
        # each plane routed d-mod-k by destination node: fat_tree's rule, per traffic class
        plane_edges = dmodk_edges(plane, plane.graph["params"],
                                  [n for n, kind in plane.nodes(data="kind") if kind == "host"])
    nodes = range(params["nodes"])
    _add_socket_edges(R, nodes, sockets, policy)
    for r in (0, 1):
        for c in classes:
            up, down = f"@u{c}", f"@d{arrives(r, c)}"
            for i in nodes:
                if node_class(i) != c:
                    continue
                nic = f"node-{i}.s{r}"
                for leaf in G.adj[nic]:
                    if G.nodes[leaf]["kind"] != "switch":
                        continue
                    R.add_edge(nic, leaf + up, links=[f"{nic}.v0", (nic, leaf)])
                    if any(R.has_edge(f"node-{i}.s{s}", f"node-{i}@to{r}") for s in range(sockets)):
                        R.add_edge(f"node-{i}@to{r}", leaf + up,
                                   links=[(f"node-{i}", nic), (nic, leaf)])
            for kind, tail, head, (a, b) in plane_edges:
                if kind in ("climb", "down"):  # up the plane, turning down, descending
                    R.add_edge(_plane_vertex(r, tail, up, down), _plane_vertex(r, head, up, down),
                               links=[(f"rail-{r}.{a}", f"rail-{r}.{b}")])
    # destinations: a NIC delivers to its socket, or on through the node router; on a
    # fat-tree plane only from a leaf whose path's labels are d-mod-k's for the node
    chains = {}
    for kind, tail, head, _ in plane_edges:
        if kind == "deliver":
            chains.setdefault((tail[0], head), []).append(tail[1])
    for r in (0, 1):
        for i in nodes:
            c_in = node_class(i)
            nic = f"node-{i}.s{r}"
            for leaf in G.adj[nic]:
                if G.nodes[leaf]["kind"] != "switch":
                    continue
                ups = [f"@u{c}" for c in classes if arrives(r, c) == c_in]
                if plane is None:
                    phases = [leaf + up for up in ups]
                else:
                    switch, phases = leaf.split(".", 1)[1], []
                    for chain in chains.get((switch, f"node-{i}"), []):
                        if chain:  # a down copy, the arrival class's
                            phases.append(_plane_vertex(r, (switch, chain), None, f"@d{c_in}"))
                        else:      # turning at the leaf: the up phases of the source classes
                            phases += [_plane_vertex(r, (switch, ()), up, None) for up in ups]
                for phase in phases:
                    R.add_edge(phase, nic, links=[(leaf, nic)])
                    if sockets > 1:
                        R.add_edge(phase, f"node-{i}@from{r}", links=[(leaf, nic)])
            for t in range(sockets):
                if t != r:
                    R.add_edge(f"node-{i}@from{r}", f"node-{i}.s{t}",
                               links=[(nic, f"node-{i}"), (f"node-{i}", f"node-{i}.s{t}")])
    return R


def _plane_vertex(rail: int, vertex: tuple, up: str, down: str) -> str:
    """The routing-graph vertex of a plane switch ``(switch, chain)`` of ``fat_tree.dmodk_edges``.

    Its up phase ``rail-<r>.<switch><up>`` (``up`` the source class's
    ``@u<c>``) when ``chain`` is empty, else its down copy
    ``rail-<r>.<switch><down>@<chain>`` (``down`` the arrival class's
    ``@d<c>``, ``chain`` the up-port labels above it on the way down).
    """
    switch, chain = vertex
    if not chain:
        return f"rail-{rail}.{switch}{up}"
    return f"rail-{rail}.{switch}{down}@{'.'.join(map(str, chain))}"


register_routing_graph("dual_rail", _routing_graph)
