"""Multicore nodes on top of any inter-node network.

Each host of the network becomes a node: a router (the node's memory
interconnect, named like the host was) with one SimGrid host per socket
(``node-i.s0``, ``node-i.s1``, ...) attached to it by a socket link.  The
network's link from the old host now leaves the node router (the NIC).  A pair
of ranks then sees three distinct (alpha, beta):

- same socket: the host's loopback (``loopback_*``), or, with
  ``memory_bandwidth_Bps``, the socket's memory shared by all such messages;
- other socket of the node: socket link, router, socket link;
- other node: socket link, NIC and network, socket link.

The socket links are shared (full duplex, one direction per flow): all cores
of a socket that talk outside it share that link, so contention inside a node
is modeled.

The network keeps its links.  Its routes are SimGrid's Dijkstra choice
(``collsim.platforms.routing``), except on a fat-tree with a choice of routes
(some ``up_ports`` > 1): there a routing graph (``layered``) lets through only
the d-mod-k routes by the destination node's index, the switches SimGrid's
FAT_TREE cluster takes between the same nodes of the plain tree
(``fat_tree.add_dmodk_routes``), so cross-leaf traffic spreads over the spines
instead of crossing the one whose up-port label is 0.

What does not hold: SMPI's ``MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)``
groups ranks by SimGrid host (``Comm::find_intra_comm`` in SimGrid 3.32), so
on this platform it groups the ranks of one *socket*, not of one node.  A
SimGrid host has one loopback, so per-socket classes and node-wide SHARED
grouping cannot both hold.  Hosts carry ``node`` (the node index) so that the
Python side (mappings, descriptions) knows the node of every host; algorithms
that need node-wide grouping should split by that node index (e.g. pass it as
the colour of MPI_Comm_split), or use the base network with
``cores_per_node`` (one host per node: SHARED groups the node, but the two
intra-node classes merge into the loopback).
"""

from __future__ import annotations

import networkx as nx

from ._common import SOCKET_DEFAULTS, add_host, add_link
from ._validate import check_count, check_nonnegative, check_positive
from .fat_tree import has_route_choice, routers_dmodk_routing_graph
from .routing import register_routing_graph

__all__ = ["multicore"]


def multicore(
    network: nx.Graph,
    *,
    sockets_per_node: int = 2,
    cores_per_socket: int = 1,
    socket_bandwidth_Bps: float = SOCKET_DEFAULTS["bandwidth_Bps"],
    socket_latency_s: float = SOCKET_DEFAULTS["latency_s"],
    memory_bandwidth_Bps: float | None = None,
    memory_latency_s: float = 0.0,
) -> nx.Graph:
    """Return ``network`` with every host replaced by a multicore node.

    Parameters
    ----------
    network : networkx.Graph
        A generated platform (``crossbar``, ``fat_tree``, ``dragonfly``).
    sockets_per_node : int
        Sockets per node (>= 1); each socket is one SimGrid host.
    cores_per_socket : int
        Cores per socket (>= 1).
    socket_bandwidth_Bps, socket_latency_s : float
        Link between a socket and its node's router (the cross-socket link:
        QPI/UPI/xGMI).
    memory_bandwidth_Bps : float or None
        Bandwidth of the socket's memory for MPI's shared-memory transfers,
        shared by every message between two ranks of the socket, both
        directions together (a SimGrid SHARED link ``<host>--memory`` on an
        explicit route from the host to itself).  None (the default): those
        messages use SimGrid's loopback instead, a FATPIPE on which they
        never compete (``loopback_*`` of ``network``).
    memory_latency_s : float
        Latency of that route (only with ``memory_bandwidth_Bps``).

    Returns
    -------
    networkx.Graph
        For N network hosts: N * sockets_per_node hosts ``<host>.s<k>``, N
        node routers (the old host names) and the network's switches; the
        network's links plus N * sockets_per_node socket links.  ``G.graph``
        keeps the loopback and gamma of ``network``.

    Raises
    ------
    ValueError
        Naming the parameter.

    Examples
    --------
    >>> from collsim.platforms import crossbar
    >>> G = multicore(crossbar(nodes=2), sockets_per_node=2, cores_per_socket=4)
    >>> sorted(n for n, k in G.nodes(data="kind") if k == "host")
    ['node-0.s0', 'node-0.s1', 'node-1.s0', 'node-1.s1']
    >>> G.nodes["node-1.s0"]["cores"], G.nodes["node-1.s0"]["node"]
    (4, 1)
    """
    if not isinstance(network, nx.Graph) or "params" not in network.graph:
        raise ValueError("network must be a platform graph made by a collsim generator")
    if (network.graph.get("routing", "dijkstra") != "dijkstra" and network.graph["name"] != "fat_tree"
            or network.graph["name"] == "multicore"):
        raise ValueError(f"network must be a single-host-per-node platform, got {network.graph['name']!r}")
    if network.graph.get("half_duplex"):
        # the routed zone's links are SPLITDUPLEX: refused, never silently full duplex
        raise ValueError("half-duplex links are modelled on a crossbar of one host per node, "
                         "not under multicore nodes")
    check_count("sockets_per_node", sockets_per_node)
    check_count("cores_per_socket", cores_per_socket)
    check_positive("socket_bandwidth_Bps", socket_bandwidth_Bps)
    check_nonnegative("socket_latency_s", socket_latency_s)
    if memory_bandwidth_Bps is not None:
        check_positive("memory_bandwidth_Bps", memory_bandwidth_Bps)
    check_nonnegative("memory_latency_s", memory_latency_s)
    params = dict(network=network.graph["name"], network_params=network.graph["params"],
                  sockets_per_node=sockets_per_node, cores_per_socket=cores_per_socket,
                  socket_bandwidth_Bps=socket_bandwidth_Bps, socket_latency_s=socket_latency_s)
    if memory_bandwidth_Bps is not None:
        # only when on, so that the params (and the hash) of existing platforms do not change
        params.update(memory_bandwidth_Bps=float(memory_bandwidth_Bps),
                      memory_latency_s=float(memory_latency_s))
    G = nx.Graph()
    G.graph.update({k: v for k, v in network.graph.items() if not k.startswith("_")})
    # a fat-tree with a choice of routes is routed d-mod-k in a routing graph
    # (``_routing_graph``); every other network keeps its Dijkstra zone
    dmodk = network.graph["name"] == "fat_tree" and has_route_choice(network.graph["params"])
    G.graph.update(name="multicore", params=params, routing="layered" if dmodk else "dijkstra")
    for name, data in network.nodes(data=True):
        if data["kind"] == "host":
            G.add_node(name, kind="node", node=data["node"])
        else:
            G.add_node(name, **data)
    for u, v, data in network.edges(data=True):
        G.add_edge(u, v, **data)
    for name, data in network.nodes(data=True):
        if data["kind"] != "host":
            continue
        for socket in range(sockets_per_node):
            host = f"{name}.s{socket}"
            add_host(G, host, node=data["node"], socket=socket, cores=cores_per_socket,
                     speed_flops=data["speed_flops"])
            if memory_bandwidth_Bps is not None:
                G.nodes[host].update(memory_bandwidth_Bps=float(memory_bandwidth_Bps),
                                     memory_latency_s=float(memory_latency_s))
            add_link(G, host, name, bandwidth_Bps=socket_bandwidth_Bps,
                     latency_s=socket_latency_s, kind="socket")
    return G


def _routing_graph(G: nx.Graph) -> nx.DiGraph:
    """The routing graph of a multicore fat-tree (see ``collsim.platforms.routing``).

    Each socket reaches its node router and back by its socket link; the
    fat-tree between the node routers is routed d-mod-k by the destination
    node's index (``fat_tree.add_dmodk_routes``), the rule SimGrid's FAT_TREE
    cluster applies to a plain fat-tree of the same shape.
    """
    if G.graph["params"]["network"] != "fat_tree":
        raise ValueError(f"no routing graph for a multicore {G.graph['params']['network']}")
    return routers_dmodk_routing_graph(G, G.graph["params"]["network_params"])


register_routing_graph("multicore", _routing_graph)
