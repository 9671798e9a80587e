"""Routes by arithmetic on the regular families: no graph, any size.

A million-node fat-tree is a few seconds and gigabytes as a networkx graph;
its routes are a few integer operations per message.  Each fabric here takes
the generator's own parameters (``G.graph["params"]``, or a catalog entry's
``params``) and numbers the links of the platform the generator would build,
one id per direction (:mod:`collsim.analysis.network.fabric`).  Hosts are
the nodes ``node-0 ..`` (one host per node; ``cores_per_node`` ranks share
it through the FATPIPE loopback).

The fat-tree's and the dragonfly's rules run compiled, a loop per message
(:mod:`collsim.analysis.network.route_kernels`): a million messages of a step
are routed in tenths of a second.

``CrossbarFabric``
    Host i's link: id 2i up, 2i + 1 down (one id when half duplex).
``FatTreeFabric``
    SimGrid's d-mod-k (``collsim.platforms.fat_tree.cluster_route``, the
    rule the routing graphs of the other fat-trees reproduce): up to the
    nearest common ancestor level through the parents the destination's
    index names, down by the one way.  The level-m switch on the way to
    ``dst`` has index ``n // prod(down[:m]) + prod(down[m:]) * (dst mod
    prod(up[:m]))`` (n the source going up, ``dst`` coming down).
``DragonflyFabric``
    SimGrid's routes, by rule: its Dijkstra zone takes a shortest route and,
    among several, the one whose routers have the lowest internal ids read
    from the destination back.  The shortest routes of a dragonfly have a
    known form (within a group one or two local hops; between groups over one
    global link, or through one or two third groups when that is as short:
    ``route_kernels.dragonfly_routes``) and the ids follow from the order the
    generator adds the links (:meth:`DragonflyFabric.router_ids`), so no graph
    is searched.  ``tests/test_network_model.py`` checks every route of
    ten shapes (one chassis or several, one global link per group pair or
    several) equal to ``collsim.platforms.routing``'s.  Every generated
    dragonfly is routed so, whatever its size (``collsim.network_model``).
"""

from __future__ import annotations

import math

import numpy as np

from .fabric import NO_LINK, Fabric

__all__ = ["CrossbarFabric", "FatTreeFabric", "DragonflyFabric"]


class _Nodes(Fabric):
    """Hosts ``node-0 .. node-{N-1}`` and one FATPIPE loopback (the last id)."""

    def host_index(self, names) -> np.ndarray:
        return np.array([int(str(name).rsplit("-", 1)[1]) for name in names], dtype=np.int64)

    @property
    def host_names(self):
        return [f"node-{i}" for i in range(self.n_hosts)]

    def _loopback_rows(self, src, dst, table):
        same = src == dst
        if same.any():
            table[same] = NO_LINK
            table[same, 0] = self.loopback
        return table


class CrossbarFabric(_Nodes):
    """The crossbar of ``collsim.platforms.crossbar`` (params as the generator takes them).

    Examples
    --------
    >>> fabric = CrossbarFabric(dict(nodes=4, bandwidth_Bps=1e9, latency_s=1e-6,
    ...                              loopback_bandwidth_Bps=5e10, loopback_latency_s=1e-7,
    ...                              gamma_s_per_byte=1e-10, cores_per_node=1))
    >>> fabric.routes(np.array([0, 2]), np.array([3, 2])).tolist()
    [[0, 7], [8, -1]]
    """

    def __init__(self, params: dict) -> None:
        self.n_hosts = int(params["nodes"])
        self.gamma_s_per_byte = float(params["gamma_s_per_byte"])
        self.half_duplex = bool(params.get("half_duplex", False))
        self.bandwidth_Bps = float(params["bandwidth_Bps"])
        self.link_latency_s = float(params["latency_s"])
        self.loopback_Bps = float(params["loopback_bandwidth_Bps"])
        self.loopback_latency = float(params["loopback_latency_s"])
        self.loopback = 2 * self.n_hosts
        self.n_links = self.loopback + 1

    def routes(self, src, dst):
        src, dst = np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)
        down = 2 * dst if self.half_duplex else 2 * dst + 1
        table = np.stack([2 * src, down], axis=1)
        return self._loopback_rows(src, dst, table)

    def capacity_Bps(self, links):
        return np.where(links == self.loopback, self.loopback_Bps, self.bandwidth_Bps)

    def latency_s(self, links):
        return np.where(links == self.loopback, self.loopback_latency, self.link_latency_s)

    def fatpipe(self, links):
        return links == self.loopback


class _LinkClasses(_Nodes):
    """Links numbered class by class (a fat-tree's levels, a dragonfly's kinds), the
    loopback last: class k holds the ids below ``class_bounds[k]`` and has one
    capacity and one latency (``class_capacity_Bps``, ``class_latency_s``)."""

    def _class_of(self, links):
        return np.searchsorted(self.class_bounds, links, side="right")

    def capacity_Bps(self, links):
        return self.class_capacity_Bps[self._class_of(links)]

    def latency_s(self, links):
        return self.class_latency_s[self._class_of(links)]

    def fatpipe(self, links):
        return links == self.loopback

    def link_properties(self, links):
        from .kernels import class_properties

        return class_properties(np.ascontiguousarray(links, dtype=np.int64),
                                np.asarray(self.class_bounds, dtype=np.int64),
                                np.asarray(self.class_capacity_Bps, dtype=float),
                                np.asarray(self.class_latency_s, dtype=float), self.loopback)


class FatTreeFabric(_LinkClasses):
    """The fat-tree of ``collsim.platforms.fat_tree`` routed d-mod-k (params as the generator's).

    Examples
    --------
    >>> fabric = FatTreeFabric(dict(levels=2, down_ports=[2, 2], up_ports=[1, 2],
    ...                             parallel_links=[1, 1], bandwidth_Bps=[1e9, 1e9],
    ...                             latency_s=[1e-6, 1e-6], tapering=1.0,
    ...                             loopback_bandwidth_Bps=5e10, loopback_latency_s=1e-7,
    ...                             gamma_s_per_byte=1e-10, cores_per_node=1))
    >>> fabric.path_names(0, 3)
    ['node-0', 'switch-1-0', 'switch-2-1', 'switch-1-1', 'node-3']
    """

    def __init__(self, params: dict) -> None:
        self.levels = L = int(params["levels"])
        self.down = [int(x) for x in params["down_ports"]]
        self.up = [int(x) for x in params["up_ports"]]
        parallel = [int(x) for x in params.get("parallel_links") or [1] * L]
        bandwidth = params["bandwidth_Bps"]
        latency = params["latency_s"]
        bandwidth = list(bandwidth) if isinstance(bandwidth, (list, tuple)) else [bandwidth] * L
        latency = list(latency) if isinstance(latency, (list, tuple)) else [latency] * L
        tapering = float(params.get("tapering", 1.0))
        self.gamma_s_per_byte = float(params["gamma_s_per_byte"])
        self.n_hosts = math.prod(self.down)
        # elements of level m: prod(down[m:]) * prod(up[:m]); level l's links leave level l-1
        self.elements = [math.prod(self.down[m:]) * math.prod(self.up[:m]) for m in range(L + 1)]
        self.base = [0]
        for level in range(1, L + 1):
            self.base.append(self.base[-1] + 2 * self.elements[level - 1] * self.up[level - 1])
        self.loopback = self.base[-1]
        self.n_links = self.loopback + 1
        self.class_bounds = np.array(self.base[1:])  # level l's links, then the loopback
        self.class_capacity_Bps = np.array(
            [float(bandwidth[l]) * parallel[l] / (tapering if l > 0 else 1.0) for l in range(L)]
            + [float(params["loopback_bandwidth_Bps"])])
        self.class_latency_s = np.array([float(t) for t in latency]
                                        + [float(params["loopback_latency_s"])])

    def _element(self, node, dst, m):
        """Index of the level-m element above ``node`` on the d-mod-k way to ``dst``."""
        return node // math.prod(self.down[:m]) + math.prod(self.down[m:]) * (
            dst % math.prod(self.up[:m]))

    def _common_level(self, src, dst):
        level = np.full(len(src), self.levels, dtype=np.int64)
        for k in range(self.levels, 0, -1):
            block = math.prod(self.down[:k])
            level = np.where(src // block == dst // block, k, level)
        return level

    def routes(self, src, dst):
        from .route_kernels import fat_tree_routes

        return fat_tree_routes(np.ascontiguousarray(src, dtype=np.int64),
                               np.ascontiguousarray(dst, dtype=np.int64),
                               np.array(self.down, dtype=np.int64), np.array(self.up, dtype=np.int64),
                               np.array(self.base, dtype=np.int64), self.loopback)

    def path_names(self, src: int, dst: int) -> list[str]:
        """The nodes of the route from node ``src`` to node ``dst`` (the graph's names)."""
        if src == dst:
            return [f"node-{src}"]
        top = int(self._common_level(np.array([src]), np.array([dst]))[0])

        def name(m, node):
            return f"node-{node}" if m == 0 else f"switch-{m}-{self._element(node, dst, m)}"

        return ([name(m, src) for m in range(top)] + [name(top, src)]
                + [name(m, dst) for m in range(top - 1, -1, -1)])


class DragonflyFabric(_LinkClasses):
    """The dragonfly of ``collsim.platforms.dragonfly``, SimGrid's routes by rule (module doc)."""

    def __init__(self, params: dict) -> None:
        self.groups = int(params["groups"])
        self.chassis = int(params.get("chassis_per_group", 1))
        self.routers = int(params["routers_per_chassis"])
        self.per_router = int(params["nodes_per_router"])
        self.global_links = int(params.get("global_links", 1))
        self.gamma_s_per_byte = float(params["gamma_s_per_byte"])
        G, C, R = self.groups, self.chassis, self.routers
        self.n_hosts = G * C * R * self.per_router
        self.n_routers = G * C * R
        # id ranges: host links, green (g, c, r -> s), black (g, r, c -> d), global (g -> h, k)
        self.base_green = 2 * self.n_hosts
        self.base_black = self.base_green + G * C * R * R
        self.base_global = self.base_black + G * R * C * C
        self.loopback = self.base_global + G * G * self.global_links
        self.n_links = self.loopback + 1
        self._router_ids = None
        self._where = None
        self.class_bounds = np.array([self.base_green, self.base_global, self.loopback,
                                      self.loopback + 1])
        self.class_capacity_Bps = np.array(
            [params["node_bandwidth_Bps"], params["local_bandwidth_Bps"],
             params["global_bandwidth_Bps"], params["loopback_bandwidth_Bps"]], dtype=float)
        self.class_latency_s = np.array(
            [params["node_latency_s"], params["local_latency_s"], params["global_latency_s"],
             params["loopback_latency_s"]], dtype=float)

    def _gateway(self, g, h, k):
        """The router of group g holding its k-th global link to group h (the generator's rule)."""
        position = np.where(h < g, h, h - 1)
        index = (position + k * (self.groups - 1)) % (self.chassis * self.routers)
        return index // self.routers, index % self.routers

    def router_ids(self) -> np.ndarray:
        """The rank of every router (numbered ``(g * C + c) * R + r``) in SimGrid's
        internal ids, which break the ties between shortest routes.

        The generated platform writes one route per edge of the graph, in
        ``G.edges`` order (``collsim.platforms.routing.simgrid_order``), and a
        node's id is the order it first appears in.  networkx lists a node's
        edges to the nodes not listed before it, in the order they were added:
        a router's hosts, its green links (chassis mates in slot order), its
        black links (slot mates in chassis order), then its global link.  The
        routers come in number order, so router u is named by the first router
        (u itself, or one before it) that lists it: a chassis' first router
        names its mates, a router of a group's first chassis its slot mates,
        every router the far end of a global link to a later group
        (``route_kernels.dragonfly_router_ids``).  Computed once per fabric,
        without the graph; checked against the graph's ``simgrid_order`` in
        ``tests/test_network_model.py``.
        """
        if self._router_ids is None:
            from .route_kernels import dragonfly_router_ids

            self._router_ids = dragonfly_router_ids(self._router_table(), self.groups,
                                                    self.chassis, self.routers, self.global_links)
        return self._router_ids

    def _router_table(self) -> np.ndarray:
        """Each router's group, chassis, slot and global link (``route_kernels``),
        made once."""
        if self._where is None:
            from .route_kernels import dragonfly_router_table

            self._where = dragonfly_router_table(self.groups, self.chassis, self.routers,
                                                 self.global_links)
        return self._where

    def routes(self, src, dst):
        from .route_kernels import dragonfly_routes

        return dragonfly_routes(np.ascontiguousarray(src, dtype=np.int64),
                                np.ascontiguousarray(dst, dtype=np.int64), self.per_router,
                                self.groups, self.chassis, self.routers, self.global_links,
                                self.base_green, self.base_black, self.base_global, self.loopback,
                                self._router_table(), self.router_ids())

    def path_names(self, src: int, dst: int) -> list[str]:
        """The nodes of the route from node ``src`` to node ``dst`` (the graph's names)."""
        if src == dst:
            return [f"node-{src}"]
        row = self.routes(np.array([src]), np.array([dst]))[0]
        links = [int(link) for link in row if link >= 0]   # host up, between routers, host down
        hops = [self.link_names(link) for link in links[1:-1]]
        if not hops:   # two hosts of one router
            return [f"node-{src}", self.link_names(links[0])[1], f"node-{dst}"]
        routers = [hops[0][0]] + [head for _, head in hops]
        return [f"node-{src}", *routers, f"node-{dst}"]

    def link_names(self, link: int) -> tuple[str, str]:
        """The two ends (tail, head) of a link id, as the graph names them."""
        G, C, R, K = self.groups, self.chassis, self.routers, self.global_links

        def router(index):
            g, c, r = index // (C * R), (index // R) % C, index % R
            return f"router-{g}-{c}-{r}"

        if link < self.base_green:
            host, direction = divmod(link, 2)
            ends = (f"node-{host}", router(host // self.per_router))
            return ends if direction == 0 else ends[::-1]
        if link < self.base_black:
            chassis, s = divmod(link - self.base_green, R)
            chassis, r = divmod(chassis, R)
            g, c = divmod(chassis, C)
            return router((g * C + c) * R + r), router((g * C + c) * R + s)
        if link < self.base_global:
            slot, d = divmod(link - self.base_black, C)
            slot, c = divmod(slot, C)
            g, r = divmod(slot, R)
            return router((g * C + c) * R + r), router((g * C + d) * R + r)
        pair, k = divmod(link - self.base_global, K)
        g, h = divmod(pair, G)
        (gc,), (gr,) = self._gateway(np.array([g]), np.array([h]), k)
        (hc,), (hr,) = self._gateway(np.array([h]), np.array([g]), k)
        return router((g * C + gc) * R + gr), router((h * C + hc) * R + hr)

