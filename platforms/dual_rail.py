"""Dual-rail clusters: two independent network planes, two NICs per node.

Every node has ``sockets_per_node`` sockets (one SimGrid host each, joined by
socket links to the node's router, as in ``multicore``) and one NIC per rail;
NIC k hangs off socket k (``k < sockets_per_node``), as on the Hydra cluster
of seed 003 where each socket drives its own OmniPath card.  Each rail is one
non-blocking switch, or a fat-tree (``plane_down_ports``/``plane_up_ports``).  SimGrid 3.32 has no multi-rail routing, so every
host-to-host route is written explicitly (a ``Full`` zone), chosen by the rail
policy:

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
"""

from __future__ import annotations

import networkx as nx

from ._common import NODE_DEFAULTS, add_host, add_link, check_node_parameters, new_platform
from ._validate import check_count, check_nonnegative, check_positive
from .fat_tree import fat_tree
from .routing import register_route_policy, route

__all__ = ["dual_rail", "RAIL_POLICIES"]

RAIL_POLICIES = ("socket_affine", "striped", "single", "single_double")


def dual_rail(
    *,
    nodes: int,
    sockets_per_node: int = 2,
    cores_per_socket: int = 1,
    rail_policy: str = "socket_affine",
    nic_bandwidth_Bps: float = 12.5e9,
    nic_latency_s: float = 1e-6,
    socket_bandwidth_Bps: float = 40e9,
    socket_latency_s: float = 2e-7,
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
        is the one ``collsim.platforms.route`` gives on that fat-tree.
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
    G = new_platform("dual_rail", params, routing="explicit", route_policy=rail_policy,
                     loopback_bandwidth_Bps=loopback_bandwidth_Bps,
                     loopback_latency_s=loopback_latency_s, gamma_s_per_byte=gamma_s_per_byte)
    rails = 2 if rail_policy in ("socket_affine", "striped") else 1
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


def _across_plane(G, rail, source_node, target_node):
    """The switches a message crosses inside rail ``rail`` between two nodes."""
    plane = G.graph.get("_plane")
    if plane is None:
        return [f"rail-{rail}"]
    path = route(plane, f"node-{source_node}", f"node-{target_node}")
    return [f"rail-{rail}.{switch}" for switch in path[1:-1]]


def _to_socket(G, host, socket):
    """Path from ``host`` to the socket ``socket`` of the same node."""
    data = G.nodes[host]
    if data["socket"] == socket:
        return [host]
    return [host, f"node-{data['node']}", f"node-{data['node']}.s{socket}"]


def _two_rail_route(G, source, target, rail):
    out = _to_socket(G, source, rail)
    back = _to_socket(G, target, rail)
    return (out + _across_plane(G, rail, G.nodes[source]["node"], G.nodes[target]["node"])
            + back[::-1])


def _socket_affine(G, source, target):
    src, dst = G.nodes[source], G.nodes[target]
    if src["node"] == dst["node"]:
        return _to_socket(G, source, dst["socket"])
    return _two_rail_route(G, source, target, src["socket"] % 2)


def _striped(G, source, target):
    src, dst = G.nodes[source], G.nodes[target]
    if src["node"] == dst["node"]:
        return _to_socket(G, source, dst["socket"])
    return _two_rail_route(G, source, target, (src["node"] + dst["node"]) % 2)


def _single(G, source, target):
    src, dst = G.nodes[source], G.nodes[target]
    if src["node"] == dst["node"]:
        return _to_socket(G, source, dst["socket"])
    return ([source, f"node-{src['node']}"] + _across_plane(G, 0, src["node"], dst["node"])
            + [f"node-{dst['node']}", target])


register_route_policy("socket_affine", _socket_affine)
register_route_policy("striped", _striped)
register_route_policy("single", _single)
register_route_policy("single_double", _single)
