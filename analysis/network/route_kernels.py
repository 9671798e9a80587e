"""Routes by arithmetic, compiled (numba, loaded on first use, as
:mod:`collsim.analysis.network.kernels`, whose notes on the cache apply): a route
table per message list, one row per message, one link id per column (-1 where a
route has fewer links).

:func:`fat_tree_routes` is SimGrid's d-mod-k.  :func:`dragonfly_routes` is
SimGrid's choice among a dragonfly's shortest routes: its Dijkstra zone keeps, for
every router, the predecessor of lowest internal id among those one hop nearer
the source, so the route is the one whose routers, read from the destination
back, have the lowest ids.  The shortest routes of a dragonfly are few and have
a known form (:func:`dragonfly_routes` lists them), so the choice costs a few
comparisons a message; the ids come from
:meth:`collsim.analysis.network.regular.DragonflyFabric.router_ids`.
"""

from __future__ import annotations

import numba
import numpy as np

# numba's cache records the module's import name (kernels.py says why).
_CACHE = __name__ == "collsim.analysis.network.route_kernels"

__all__ = ["fat_tree_routes", "dragonfly_routes", "dragonfly_router_table", "dragonfly_router_ids"]


@numba.njit(cache=_CACHE, nogil=True)
def fat_tree_routes(src, dst, down, up, base, loopback):
    """d-mod-k routes of a fat-tree (:class:`collsim.analysis.network.regular.FatTreeFabric`):
    the up-links in columns 0..L-1, the down-links in L..2L-1, -1 where a route
    turns lower; a host to itself takes the loopback."""
    m = len(src)
    L = len(down)
    below = np.ones(L + 1, dtype=np.int64)       # prod(down[:l])
    above = np.ones(L + 1, dtype=np.int64)       # prod(down[l:])
    ports_below = np.ones(L + 1, dtype=np.int64)  # prod(up[:l])
    for level in range(1, L + 1):
        below[level] = below[level - 1] * down[level - 1]
        ports_below[level] = ports_below[level - 1] * up[level - 1]
    for level in range(L - 1, -1, -1):
        above[level] = above[level + 1] * down[level]
    table = np.full((m, 2 * L), -1, dtype=np.int64)
    for f in range(m):
        s, d = src[f], dst[f]
        if s == d:
            table[f, 0] = loopback
            continue
        top = L
        for level in range(L, 0, -1):
            if s // below[level] == d // below[level]:
                top = level
        for level in range(1, top + 1):
            m1 = level - 1
            port = (d // ports_below[m1]) % up[m1]
            turn = above[m1] * (d % ports_below[m1])
            up_child = s // below[m1] + turn
            down_child = d // below[m1] + turn
            table[f, m1] = base[m1] + 2 * (up_child * up[m1] + port)
            table[f, L + m1] = base[m1] + 2 * (down_child * up[m1] + port) + 1
    return table


# A dragonfly's routers are numbered u = (g * C + c) * R + r (group g, chassis c,
# router r of the chassis); within a group, two routers are linked when they share
# the chassis (green) or the router slot (black), so their distance is
# [chassis differ] + [slots differ], 0 to 2.  Router j of a group (j = c * R + r)
# holds global link k to the p-th other group when j = p + k * (G - 1) (the
# generator's rule, with no wrap since K * (G - 1) <= C * R), so a router holds at
# most one global link.  The kernels read a router's group, chassis, slot and
# global link from a table (:func:`dragonfly_router_table`, made once per fabric)
# rather than dividing: a route asks for them dozens of times, and a division costs
# tens of cycles (a million random routes listed took 0.40 s dividing, 0.23 s
# reading the table).

GROUP, CHASSIS, SLOT, PEER, PEER_K = range(5)


@numba.njit(cache=_CACHE, nogil=True)
def dragonfly_router_table(G, C, R, K):
    """Per router: group, chassis, slot, and the group and k of its global link
    (-1, -1 when it holds none)."""
    CR = C * R
    where = np.empty((G * CR, 5), dtype=np.int32)
    for u in range(G * CR):
        g, j = divmod(u, CR)
        where[u, GROUP], where[u, CHASSIS], where[u, SLOT] = g, j // R, j % R
        if j < K * (G - 1):
            k, position = divmod(j, G - 1)
            where[u, PEER], where[u, PEER_K] = (position if position < g else position + 1), k
        else:
            where[u, PEER], where[u, PEER_K] = -1, -1
    return where


@numba.njit(cache=_CACHE, nogil=True, inline="always")
def _local_hops(where, u, v):
    """Hops between two routers of one group: 0, 1 or 2."""
    return int(where[u, CHASSIS] != where[v, CHASSIS]) + int(where[u, SLOT] != where[v, SLOT])


@numba.njit(cache=_CACHE, nogil=True, inline="always")
def _gate(g, h, k, G, CR):
    """The router of group g holding its k-th global link to group h."""
    position = h if h < g else h - 1
    return g * CR + position + k * (G - 1)


@numba.njit(cache=_CACHE, nogil=True)
def dragonfly_router_ids(where, G, C, R, K):
    """Every router's rank in SimGrid's internal ids (``DragonflyFabric.router_ids``
    says why): router u is named by itself, by the first router of its chassis
    (its green links), by the router of its slot in the group's first chassis
    (black), or as the far end of a global link from an earlier group."""
    CR = C * R
    ids = np.full(G * CR, -1, dtype=np.int64)
    count = 0
    for u in range(G * CR):
        last = u + R - 1 if where[u, SLOT] == 0 else u   # a chassis' first router: its mates
        for v in range(u, last + 1):
            if ids[v] < 0:
                ids[v] = count
                count += 1
        if where[u, CHASSIS] == 0:       # the first chassis: the slot's mates
            for c in range(1, C):
                v = u + c * R
                if ids[v] < 0:
                    ids[v] = count
                    count += 1
        h, g = where[u, PEER], where[u, GROUP]
        if h > g:                        # the far end of a global link to a later group
            v = _gate(h, g, where[u, PEER_K], G, CR)
            if ids[v] < 0:
                ids[v] = count
                count += 1
    return ids


@numba.njit(cache=_CACHE, nogil=True, inline="always")
def _push(ways, n_ways, where, C, R, bound, paths, lengths, n):
    """Append to ``paths`` every shortest route through the waypoints ``ways``
    (routers; ways[2i] to ways[2i+1] within a group, ways[2i+1] to ways[2i+2] a
    global link) when it is no longer than ``bound`` hops; returns the new count.
    Two routers two hops apart in a group are joined by two routes: through the
    first's chassis and the second's slot, or the other way round."""
    length = n_ways // 2 - 1
    two = 0
    for s in range(0, n_ways, 2):
        hops = _local_hops(where, ways[s], ways[s + 1])
        length += hops
        two += int(hops == 2)
    if length > bound:
        return n
    for choice in range(1 << two):
        bit = 0
        at = 0
        paths[n, 0] = ways[0]
        for s in range(0, n_ways, 2):
            u, v = ways[s], ways[s + 1]
            hops = _local_hops(where, u, v)
            if hops == 2:
                group = where[u, GROUP] * C * R
                if (choice >> bit) & 1:   # v's chassis, u's slot: black, then green
                    middle = group + where[v, CHASSIS] * R + where[u, SLOT]
                else:                     # u's chassis, v's slot: green, then black
                    middle = group + where[u, CHASSIS] * R + where[v, SLOT]
                bit += 1
                at += 1
                paths[n, at] = middle
            if hops >= 1:
                at += 1
                paths[n, at] = v
            if s + 2 < n_ways:
                at += 1
                paths[n, at] = ways[s + 2]
        lengths[n] = length
        n += 1
    return n


@numba.njit(cache=_CACHE, nogil=True)
def _shortest_routes(a, b, D1, where, G, C, R, K, paths, lengths, ways, thirds):
    """Every shortest route from router a to router b of another group, in ``paths``
    (the count returned; rows longer than the shortest may follow, ``lengths`` says).

    Direct routes cross one global link: D1 (the caller's) = min over k of the hops
    to the gate, 1, and the hops from the far gate, at most 2 + 1 + 2.  A route through a third
    group i crosses two global links and at least one hop in i (i's gates to g
    and h are different routers), so it is 3 hops or more, and it ties or beats
    D1 only if its hops in g and h add up to D1 - 3 or less: for D1 = 3, a holds
    the link to i and b the link from it; for 4, one of them does; for 5, a router
    next to a does, or b does.  A route through two other groups is 5 hops or more
    (a holds the link to the first, b the link from the second).  Routes back into
    a group already left are never shortest (a group's routers are 2 hops apart
    at most)."""
    CR = C * R
    ga, gb = where[a, GROUP], where[b, GROUP]
    n = 0
    for k in range(K):
        ways[0], ways[1] = a, _gate(ga, gb, k, G, CR)
        ways[2], ways[3] = _gate(gb, ga, k, G, CR), b
        n = _push(ways, 4, where, C, R, D1, paths, lengths, n)
    if D1 < 3:
        return n
    ia, ka = where[a, PEER], where[a, PEER_K]
    ib, kb = where[b, PEER], where[b, PEER_K]
    if D1 == 3 and ia != ib:
        return n
    thirds[0] = ia
    n_thirds = 1
    if D1 >= 4:
        thirds[1] = ib
        n_thirds = 2
    if D1 == 5:   # the groups the routers next to a reach
        group, chassis, slot = ga * CR, where[a, CHASSIS] * R, where[a, SLOT]
        for r in range(R):
            if r != slot:
                thirds[n_thirds] = where[group + chassis + r, PEER]
                n_thirds += 1
        for c in range(C):
            if c * R != chassis:
                thirds[n_thirds] = where[group + c * R + slot, PEER]
                n_thirds += 1
    for t in range(n_thirds):
        i = thirds[t]
        if i < 0 or i == ga or i == gb:
            continue
        for k1 in range(K):
            for k2 in range(K):
                ways[0], ways[1] = a, _gate(ga, i, k1, G, CR)
                ways[2], ways[3] = _gate(i, ga, k1, G, CR), _gate(i, gb, k2, G, CR)
                ways[4], ways[5] = _gate(gb, i, k2, G, CR), b
                n = _push(ways, 6, where, C, R, D1, paths, lengths, n)
    if D1 == 5 and ia >= 0 and ib >= 0 and ia != ib and ia != gb and ib != ga:
        for k in range(K):
            ways[0], ways[1] = a, a
            ways[2], ways[3] = _gate(ia, ga, ka, G, CR), _gate(ia, ib, k, G, CR)
            ways[4], ways[5] = _gate(ib, ia, k, G, CR), _gate(ib, gb, kb, G, CR)
            ways[6], ways[7] = b, b
            n = _push(ways, 8, where, C, R, D1, paths, lengths, n)
    return n


@numba.njit(cache=_CACHE, nogil=True, inline="always")
def _link(u, v, where, G, C, R, K, base_green, base_black, base_global):
    """The id of the link from router u to router v (neighbours)."""
    g, h = where[u, GROUP], where[v, GROUP]
    if g != h:
        return base_global + (g * G + h) * K + where[u, PEER_K]
    if where[u, CHASSIS] == where[v, CHASSIS]:
        return base_green + u * R + where[v, SLOT]
    return base_black + ((g * R + where[u, SLOT]) * C + where[u, CHASSIS]) * C + where[v, CHASSIS]


@numba.njit(cache=_CACHE, nogil=True)
def _simgrids_choice(paths, lengths, n, router_id, alive):
    """The row of ``paths`` (of ``n``) SimGrid's Dijkstra zone takes: a shortest one and,
    read from the destination back, the router of lowest ``router_id`` at each hop
    (``alive``: scratch of at least ``n`` booleans)."""
    shortest = 6
    for q in range(n):
        shortest = min(shortest, lengths[q])
    for q in range(n):
        alive[q] = lengths[q] == shortest
    for at in range(shortest - 1, 0, -1):
        lowest = router_id.shape[0]
        for q in range(n):
            if alive[q]:
                lowest = min(lowest, router_id[paths[q, at]])
        for q in range(n):
            alive[q] = alive[q] and router_id[paths[q, at]] == lowest
    p = 0
    while not alive[p]:
        p += 1
    return p


@numba.njit(cache=_CACHE, nogil=True)
def dragonfly_routes(src, dst, per_router, G, C, R, K, base_green, base_black, base_global,
                     loopback, where, router_id):
    """SimGrid's routes on a dragonfly (:class:`collsim.analysis.network.regular.DragonflyFabric`):
    the links in the route's order (host up, up to five between routers, host down),
    so that their latencies add up as the graph's do (``GraphFabric``), to the bit.

    Among the shortest routes (:func:`_shortest_routes`; within a group the one or
    two of the distance), the one SimGrid's Dijkstra zone takes: from the
    destination back, the router of lowest ``router_id`` at each hop.  ``where``:
    :func:`dragonfly_router_table`."""
    m = len(src)
    table = np.full((m, 7), -1, dtype=np.int64)
    # routes held at once: 4 a global link direct, 8 a pair of links through each of
    # at most C + R third groups, 1 a link between two third groups; 2 within a group
    capacity = 4 * K + 8 * K * K * (C + R) + K + 2
    paths = np.empty((capacity, 6), dtype=np.int64)
    lengths = np.empty(capacity, dtype=np.int64)
    alive = np.empty(capacity, dtype=np.bool_)
    ways = np.empty(8, dtype=np.int64)
    thirds = np.empty(C + R, dtype=np.int64)
    CR = C * R
    for f in range(m):
        s, d = src[f], dst[f]
        if s == d:
            table[f, 0] = loopback
            continue
        table[f, 0] = 2 * s
        a, b = s // per_router, d // per_router
        if a == b:
            table[f, 1] = 2 * d + 1
            continue
        ga, gb = where[a, GROUP], where[b, GROUP]
        if ga == gb:
            if _local_hops(where, a, b) == 1:
                table[f, 1] = _link(a, b, where, G, C, R, K, base_green, base_black, base_global)
                table[f, 2] = 2 * d + 1
                continue
            ways[0], ways[1] = a, b
            n = _push(ways, 2, where, C, R, 2, paths, lengths, 0)
        else:
            # most messages between groups have one shortest route: over the one
            # global link of fewest hops, one local hop or none at each end, and
            # no third group as short (at 3 hops, one both ends link to); written
            # as is, without listing routes (a million random routes in 0.063 s,
            # 0.23 s listed)
            D1, ties, best = 6, 0, 0
            for k in range(K):
                hops = (_local_hops(where, a, _gate(ga, gb, k, G, CR)) + 1
                        + _local_hops(where, _gate(gb, ga, k, G, CR), b))
                if hops < D1:
                    D1, ties, best = hops, 1, k
                elif hops == D1:
                    ties += 1
            x, y = _gate(ga, gb, best, G, CR), _gate(gb, ga, best, G, CR)
            if (ties == 1 and (D1 < 3 or (D1 == 3 and where[a, PEER] != where[b, PEER]))
                    and _local_hops(where, a, x) < 2 and _local_hops(where, y, b) < 2):
                at = 1
                if a != x:
                    table[f, at] = _link(a, x, where, G, C, R, K, base_green, base_black,
                                         base_global)
                    at += 1
                table[f, at] = base_global + (ga * G + gb) * K + best
                at += 1
                if b != y:
                    table[f, at] = _link(y, b, where, G, C, R, K, base_green, base_black,
                                         base_global)
                    at += 1
                table[f, at] = 2 * d + 1
                continue
            n = _shortest_routes(a, b, D1, where, G, C, R, K, paths, lengths, ways, thirds)
        p = _simgrids_choice(paths, lengths, n, router_id, alive) if n > 1 else 0
        for hop in range(lengths[p]):
            table[f, 1 + hop] = _link(paths[p, hop], paths[p, hop + 1], where, G, C, R, K,
                                      base_green, base_black, base_global)
        table[f, 1 + lengths[p]] = 2 * d + 1
    return table
