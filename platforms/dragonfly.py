"""The dragonfly: groups of all-to-all connected routers, groups linked all-to-all.

The Cray Cascade shape that SimGrid's DRAGONFLY cluster also builds
(``topo_parameters="groups,global;chassis,black;routers,green;nodes"``):
inside a chassis every router is linked to every other ("green" links);
routers in the same slot of the chassis of one group are linked all-to-all
("black" links); every pair of groups is joined by ``global_links`` links
("blue").  SimGrid's cluster gives all three kinds one bandwidth and latency
and attaches group j's link to router j, so the platform is written as
explicit links and routers in a Dijkstra zone instead: hop-minimal routing,
with ``collsim.platforms.routing`` reproducing which minimal route SimGrid
takes.  The k-th global link between groups i and j leaves group i from
router ``(q + k (groups - 1)) mod R`` where q is j's position among i's
peer groups and R the group's router count.
"""

from __future__ import annotations

import networkx as nx

from ._common import (LINK_DEFAULTS, NODE_DEFAULTS, add_host, add_link, check_node_parameters,
                      new_platform)
from ._validate import check_count, check_nonnegative, check_positive

__all__ = ["dragonfly", "topo_parameters"]


def topo_parameters(*, groups, global_links, chassis_per_group, routers_per_chassis,
                    nodes_per_router) -> str:
    """Return SimGrid's DRAGONFLY ``topo_parameters`` string for this shape.

    Examples
    --------
    >>> topo_parameters(groups=3, global_links=1, chassis_per_group=2,
    ...                 routers_per_chassis=2, nodes_per_router=2)
    '3,1;2,1;2,1;2'
    """
    return (f"{groups},{global_links};{chassis_per_group},1;{routers_per_chassis},1;"
            f"{nodes_per_router}")


def dragonfly(
    *,
    groups: int,
    chassis_per_group: int = 1,
    routers_per_chassis: int,
    nodes_per_router: int,
    global_links: int = 1,
    node_bandwidth_Bps: float = LINK_DEFAULTS["bandwidth_Bps"],
    node_latency_s: float = LINK_DEFAULTS["latency_s"],
    local_bandwidth_Bps: float = LINK_DEFAULTS["bandwidth_Bps"],
    local_latency_s: float = LINK_DEFAULTS["latency_s"],
    global_bandwidth_Bps: float = LINK_DEFAULTS["bandwidth_Bps"],
    global_latency_s: float = LINK_DEFAULTS["latency_s"],
    cores_per_node: int = NODE_DEFAULTS["cores_per_node"],
    loopback_bandwidth_Bps: float = NODE_DEFAULTS["loopback_bandwidth_Bps"],
    loopback_latency_s: float = NODE_DEFAULTS["loopback_latency_s"],
    speed_flops: float = NODE_DEFAULTS["speed_flops"],
    gamma_s_per_byte: float = NODE_DEFAULTS["gamma_s_per_byte"],
) -> nx.Graph:
    """Return a dragonfly of ``groups * chassis_per_group * routers_per_chassis * nodes_per_router`` nodes.

    Parameters
    ----------
    groups : int
        Number of groups (>= 1).
    chassis_per_group, routers_per_chassis, nodes_per_router : int
        Shape of a group (>= 1 each).
    global_links : int
        Links between every pair of groups (>= 1); they need distinct router
        pairs, so ``global_links * (groups - 1)`` may not exceed the routers
        of a group.
    node_bandwidth_Bps, node_latency_s : float
        Node-to-router link.
    local_bandwidth_Bps, local_latency_s : float
        Router-to-router links inside a group (green and black).
    global_bandwidth_Bps, global_latency_s : float
        Links between groups.
    cores_per_node, loopback_bandwidth_Bps, loopback_latency_s, speed_flops, gamma_s_per_byte
        As for ``crossbar``.

    Returns
    -------
    networkx.Graph
        N = groups * chassis * routers * nodes hosts ``node-i`` and
        R = groups * chassis * routers routers ``router-g-c-r``; links: N to
        the routers, groups * chassis * C(routers, 2) green,
        groups * routers * C(chassis, 2) black and C(groups, 2) * global_links
        global.

    Raises
    ------
    ValueError
        Naming the parameter.

    Examples
    --------
    >>> G = dragonfly(groups=3, chassis_per_group=2, routers_per_chassis=2, nodes_per_router=2)
    >>> sum(1 for _, k in G.nodes(data="kind") if k == "host"), G.number_of_edges()
    (24, 39)
    """
    for name, value in (("groups", groups), ("chassis_per_group", chassis_per_group),
                        ("routers_per_chassis", routers_per_chassis),
                        ("nodes_per_router", nodes_per_router), ("global_links", global_links)):
        check_count(name, value)
    for name, value in (("node_bandwidth_Bps", node_bandwidth_Bps),
                        ("local_bandwidth_Bps", local_bandwidth_Bps),
                        ("global_bandwidth_Bps", global_bandwidth_Bps)):
        check_positive(name, value)
    for name, value in (("node_latency_s", node_latency_s), ("local_latency_s", local_latency_s),
                        ("global_latency_s", global_latency_s)):
        check_nonnegative(name, value)
    check_node_parameters(cores_per_node=cores_per_node,
                          loopback_bandwidth_Bps=loopback_bandwidth_Bps,
                          loopback_latency_s=loopback_latency_s, speed_flops=speed_flops,
                          gamma_s_per_byte=gamma_s_per_byte)
    routers_per_group = chassis_per_group * routers_per_chassis
    if groups > 1 and global_links * (groups - 1) > routers_per_group:
        raise ValueError(
            f"global_links={global_links} times {groups - 1} peer groups exceeds the "
            f"{routers_per_group} routers of a group")
    params = dict(groups=groups, chassis_per_group=chassis_per_group,
                  routers_per_chassis=routers_per_chassis, nodes_per_router=nodes_per_router,
                  global_links=global_links, node_bandwidth_Bps=node_bandwidth_Bps,
                  node_latency_s=node_latency_s, local_bandwidth_Bps=local_bandwidth_Bps,
                  local_latency_s=local_latency_s, global_bandwidth_Bps=global_bandwidth_Bps,
                  global_latency_s=global_latency_s, cores_per_node=cores_per_node,
                  loopback_bandwidth_Bps=loopback_bandwidth_Bps,
                  loopback_latency_s=loopback_latency_s, speed_flops=speed_flops,
                  gamma_s_per_byte=gamma_s_per_byte)
    G = new_platform("dragonfly", params,
                     topo_parameters=topo_parameters(
                         groups=groups, global_links=global_links,
                         chassis_per_group=chassis_per_group,
                         routers_per_chassis=routers_per_chassis,
                         nodes_per_router=nodes_per_router))

    def router(g, c, r):
        return f"router-{g}-{c}-{r}"

    node = 0
    for g in range(groups):
        for c in range(chassis_per_group):
            for r in range(routers_per_chassis):
                G.add_node(router(g, c, r), kind="router", group=g)
                for _ in range(nodes_per_router):
                    host = f"node-{node}"
                    add_host(G, host, node=node, cores=cores_per_node, speed_flops=speed_flops)
                    add_link(G, host, router(g, c, r), bandwidth_Bps=node_bandwidth_Bps,
                             latency_s=node_latency_s, kind="node")
                    node += 1
    local = dict(bandwidth_Bps=local_bandwidth_Bps, latency_s=local_latency_s)
    for g in range(groups):
        for c in range(chassis_per_group):
            for r in range(routers_per_chassis):
                for s in range(r + 1, routers_per_chassis):
                    add_link(G, router(g, c, r), router(g, c, s), kind="green", **local)
        for r in range(routers_per_chassis):
            for c in range(chassis_per_group):
                for d in range(c + 1, chassis_per_group):
                    add_link(G, router(g, c, r), router(g, d, r), kind="black", **local)

    def gateway(g, peer, k):
        position = peer if peer < g else peer - 1
        index = (position + k * (groups - 1)) % routers_per_group
        return router(g, index // routers_per_chassis, index % routers_per_chassis)

    for g in range(groups):
        for h in range(g + 1, groups):
            for k in range(global_links):
                add_link(G, gateway(g, h, k), gateway(h, g, k), kind="global",
                         bandwidth_Bps=global_bandwidth_Bps, latency_s=global_latency_s)
    return G
