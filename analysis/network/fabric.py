"""A platform as the network model sees it: links, and the route between two hosts.

A :class:`Fabric` numbers every *directed* resource SimGrid shares: each
direction of a full-duplex (SPLITDUPLEX) link is one resource, a half-duplex
(SHARED) link or a socket's memory is one resource for both directions, and
the loopback is a FATPIPE (it bounds each flow, it is never shared).  Routes
are arrays of those ids, one row per message, padded with -1, so that a step
of a million messages is routed and loaded without a Python loop.

:class:`GraphFabric` reads a platform graph and routes with
``collsim.platforms.routing.router`` (SimGrid's own choice of links, every
family), one route per distinct host pair.  The regular families also have
routes by arithmetic (:mod:`collsim.analysis.network.regular`), which need no
graph at all.
"""

from __future__ import annotations

import numpy as np
import networkx as nx

__all__ = ["Fabric", "GraphFabric", "NO_LINK"]

NO_LINK = -1


class Fabric:
    """Links and routes of a platform (the interface the engine uses).

    Subclasses set ``n_hosts``, ``host_names`` (or override
    :meth:`host_index`) and implement :meth:`routes` and the per-link
    properties.
    """

    n_hosts: int
    n_links: int
    gamma_s_per_byte: float = 0.0

    def routes(self, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        """Link ids of the route of each (src, dst) host pair: an (m, hops) int array, -1 padded."""
        raise NotImplementedError

    def capacity_Bps(self, links: np.ndarray) -> np.ndarray:
        """Capacity of each link id."""
        raise NotImplementedError

    def latency_s(self, links: np.ndarray) -> np.ndarray:
        """Latency of each link id."""
        raise NotImplementedError

    def fatpipe(self, links: np.ndarray) -> np.ndarray:
        """Whether each link id is a FATPIPE (bounds each flow, shared by none)."""
        raise NotImplementedError

    def link_properties(self, links: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(capacity, latency, FATPIPE flag) of each link id, as float, float, bool arrays."""
        return (np.asarray(self.capacity_Bps(links), dtype=float),
                np.asarray(self.latency_s(links), dtype=float),
                np.asarray(self.fatpipe(links), dtype=bool))

    def link_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`link_properties` of every link id, computed once."""
        table = getattr(self, "_link_table", None)
        if table is None:
            table = self._link_table = self.link_properties(np.arange(self.n_links,
                                                                      dtype=np.int64))
        return table

    def link_scratch(self) -> np.ndarray:
        """One int32 per link id, all -1, kept between steps: the engine numbers the
        links a step uses through it (and leaves it all -1), instead of allocating
        an array of every link id per step (19 million on a million-node dragonfly)."""
        scratch = getattr(self, "_link_scratch", None)
        if scratch is None:
            scratch = self._link_scratch = np.full(self.n_links, -1, dtype=np.int32)
        return scratch

    def host_index(self, names) -> np.ndarray:
        """The host index of each host name."""
        index = {name: i for i, name in enumerate(self.host_names)}
        return np.array([index[name] for name in names], dtype=np.int64)


class GraphFabric(Fabric):
    """The links and SimGrid's routes of a generated platform graph.

    Parameters
    ----------
    G : networkx.Graph
        A platform from ``collsim.platforms`` (any family, catalog machines
        included).

    Examples
    --------
    >>> from collsim.platforms import crossbar
    >>> fabric = GraphFabric(crossbar(nodes=2, latency_s=1e-6))
    >>> fabric.routes(np.array([0, 1]), np.array([1, 1])).tolist()
    [[1, 2], [4, -1]]
    >>> fabric.latency_s(np.array([0, 3, 4])).tolist()
    [1e-06, 1e-06, 1e-07]
    """

    def __init__(self, G: nx.Graph) -> None:
        from collsim.platforms.mapping import hosts
        from collsim.platforms.routing import router

        if G.graph.get("routing") == "opaque":
            raise ValueError("a platform read from an XML file has no known routes")
        self.G = G
        self.gamma_s_per_byte = float(G.graph.get("gamma_s_per_byte", 0.0))
        self.host_names = hosts(G)
        self.n_hosts = len(self.host_names)
        self._route_pair = router(G)
        half_duplex = bool(G.graph.get("half_duplex"))
        capacity, latency, fatpipe = [], [], []
        self._hop = {}
        for e, (u, v, data) in enumerate(G.edges(data=True)):
            tail = data.get("tail", u)
            head = v if tail == u else u
            forward, backward = 2 * e, 2 * e + (0 if half_duplex else 1)
            self._hop[(tail, head)] = forward
            self._hop[(head, tail)] = backward
            capacity += [data["bandwidth_Bps"]] * 2
            latency += [data["latency_s"]] * 2
            fatpipe += [False, False]
        self._loopback = len(capacity)
        capacity.append(G.graph["loopback_bandwidth_Bps"])
        latency.append(G.graph["loopback_latency_s"])
        fatpipe.append(True)
        self._memory = {}
        for name in self.host_names:
            data = G.nodes[name]
            if data.get("memory_bandwidth_Bps") is not None:
                self._memory[name] = len(capacity)
                capacity.append(data["memory_bandwidth_Bps"])
                latency.append(data["memory_latency_s"])
                fatpipe.append(False)
        self._capacity = np.array(capacity, dtype=float)
        self._latency = np.array(latency, dtype=float)
        self._fatpipe = np.array(fatpipe, dtype=bool)
        self.n_links = len(capacity)
        self._cache: dict[tuple[int, int], tuple[int, ...]] = {}

    def _route(self, a: int, b: int) -> tuple[int, ...]:
        key = (a, b)
        route = self._cache.get(key)
        if route is None:
            source, target = self.host_names[a], self.host_names[b]
            if a == b:
                route = (self._memory.get(source, self._loopback),)
            else:
                path = self._route_pair(source, target)
                route = tuple(self._hop[(x, y)] for x, y in zip(path, path[1:]))
            self._cache[key] = route
        return route

    def routes(self, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
        pairs = np.stack([np.asarray(src, dtype=np.int64), np.asarray(dst, dtype=np.int64)], axis=1)
        unique, inverse = np.unique(pairs, axis=0, return_inverse=True)
        found = [self._route(int(a), int(b)) for a, b in unique]
        hops = max((len(r) for r in found), default=1)
        table = np.full((len(found), hops), NO_LINK, dtype=np.int64)
        for i, route in enumerate(found):
            table[i, :len(route)] = route
        return table[np.asarray(inverse).reshape(-1)]

    def capacity_Bps(self, links: np.ndarray) -> np.ndarray:
        return self._capacity[links]

    def latency_s(self, links: np.ndarray) -> np.ndarray:
        return self._latency[links]

    def fatpipe(self, links: np.ndarray) -> np.ndarray:
        return self._fatpipe[links]
