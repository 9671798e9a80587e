"""The network model's inner loops, compiled (numba): link numbering, a step's flows, max-min.

At a million ranks a step is a million flows over six or seven links each;
in numpy each pass over its crossings is a full array operation, and the
progressive filling makes one such pass per round (one round per distinct
bottleneck level: tens on a dragonfly) and the event loop one filling per
distinct finish time.  Here the filling touches only the links whose flows
were fixed in a round (a heap gives the lowest level), so its cost is the
crossings plus what each round changes, not crossings times rounds.  A step
timed alone is solved component by component (flows that share no link,
directly or through others, never change each other's rates): an event
refills the flows of its component only, and a component whose flows all
cross one link that is their bottleneck runs on one clock (virtual time at
that link's level): an event costs the flows that start or end at it.  The steps run together do the
same over the flows in flight (:func:`run_together`): an event re-shares
the components it touches, found by a search over the links' flows in
flight; where flows pile up on a link that is their bottleneck, they are
kept there as a set on one virtual clock, with room reserved on their other
links, and only the free flows are filled (:func:`_reshare_sets`).

Every sum is taken in the order the numpy version took it (``numpy.bincount``
over crossings in flow order): per link, over its flows in ascending flow
index; per flow, over its route's links in route order.  The answers are
therefore the numpy version's to the bit, except where the flows in flight
fall into several components with events of their own: a flow's bytes left
are then updated at its component's events only, which rounds differently
(within about 1e-15), and levels of different components within the
filling's ``level_rtol`` no longer saturate in one round; and where a component
runs on one clock (:func:`_one_link_end_times`) or a set does
(:func:`_reshare_sets`), its level's sum is kept as flows come and go (a
two-sum) and each flow's end is read from virtual time, which rounds
differently again (within about 1e-15 on the cases measured for a step;
within 1e-9 in the tests of the sets, 1.7e-11 on the dragonfly's reduce
``binary`` at 65,536 ranks, whose answers amplify roundings).

This module imports numba: :mod:`collsim.analysis.network.engine` and
:mod:`.maxmin` import it inside their functions, so that commands that do not
compute a network model (``collsim list``) do not pay numba's start-up.
Compiled functions are cached on disk (``cache=True``: about 10 s of
compilation on the first run after an install, then none); numba's cache knows
this file only, so the tolerances the callers own come in as arguments.  Every
kernel called from Python releases the GIL (``nogil=True``, here and in the
other ``*_kernels.py``): a prediction runs in a thread while the main thread
waits for it, so Ctrl-C and SIGTERM stop a loop of minutes at once
(``collsim.lifetime.interruptible``).  A pipeline's windows run at once, each
in a thread behind the one before, their clocks passed on through arrays read
and written with acquire and release order (:func:`run_piped`).
"""

from __future__ import annotations

import heapq

import numba
import numpy as np
from llvmlite import ir as llvm_ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

# numba's cache records the module's import name and imports it by that name when
# it loads a compiled function: a cache written while this file was imported under
# another name (pytest --doctest-modules analysis/ imports ``analysis.network.kernels``)
# would break every later run.  Only the package's own name reads and writes it.
_CACHE = __name__ == "collsim.analysis.network.kernels"

__all__ = ["number_links", "route_sums", "link_lists", "workspace", "fill_listed", "fill",
           "components", "step_end_times", "scatter_max", "scatter_add", "halving_blocks"]


def _without_owner(context, builder, ty, value):
    """``value`` of numba type ``ty`` with each array in it (nested in tuples too)
    rid of its owner (meminfo and parent null); other values as they are."""
    if isinstance(ty, types.Array):
        array = make_array(ty)(context, builder, value=value)
        array.meminfo = cgutils.get_null_value(array.meminfo.type)
        array.parent = cgutils.get_null_value(array.parent.type)
        return array._getvalue()
    if isinstance(ty, types.BaseTuple):
        for i, item_ty in enumerate(ty.types):
            item = _without_owner(context, builder, item_ty, builder.extract_value(value, i))
            value = builder.insert_value(value, item, i)
    return value


@intrinsic
def _borrowed(typingctx, x):
    """The arrays of ``x`` (an array or a tuple of them, nested) as views that own
    nothing: the same data, shapes and strides, no reference count.

    numba counts references atomically (``NRT_incref``, ``NRT_decref``), and an
    inlined function's array arguments, a tuple's each, are counted at each call:
    in :func:`_together`'s event loop about 130 pairs an event, a third of its
    time on the dragonfly's binary trees (measured by ``perf``).  A borrowed
    view's counts are a test of a null pointer.  The owner must outlive every
    view, and no view may leave the function that holds the owner (to Python or
    into a container): :func:`_together` holds its arrays' owners in ``owned``
    until it returns them.
    """
    def codegen(context, builder, signature, args):
        return _without_owner(context, builder, signature.args[0], args[0])
    return x(x), codegen


def _item_pointer(context, builder, array_ty, array, index):
    array = make_array(array_ty)(context, builder, array)
    return cgutils.get_item_pointer(context, builder, array_ty, array, [index], wraparound=False)


@intrinsic
def _load_acquire(typingctx, array, index):
    """``array[index]`` read with acquire order: what another thread stored before its
    release of it (:func:`_store_release`) is seen after, and the read is never
    hoisted out of a loop that waits for it (the windows run at once:
    :func:`run_piped`)."""
    def codegen(context, builder, signature, args):
        pointer = _item_pointer(context, builder, signature.args[0], args[0], args[1])
        return builder.load_atomic(pointer, "acquire", array.dtype.bitwidth // 8)
    return array.dtype(array, index), codegen


@intrinsic
def _store_release(typingctx, array, index, value):
    """``array[index] = value`` with release order: every store before it is seen by a
    thread that reads this one with :func:`_load_acquire`."""
    def codegen(context, builder, signature, args):
        array_ty = signature.args[0]
        pointer = _item_pointer(context, builder, array_ty, args[0], args[1])
        item = context.cast(builder, args[2], signature.args[2], array_ty.dtype)
        builder.store_atomic(item, pointer, "release", array_ty.dtype.bitwidth // 8)
        return context.get_dummy_value()
    return types.none(array, index, value), codegen


@intrinsic
def _yield_cpu(typingctx):
    """libc's ``sched_yield()``: a thread that waits for another gives its core to any
    other thread ready to run (a libc symbol: numba's cache keeps the function)."""
    def codegen(context, builder, signature, args):
        function = cgutils.get_or_insert_function(
            builder.module, llvm_ir.FunctionType(llvm_ir.IntType(32), []), "sched_yield")
        builder.call(function, [])
        return context.get_dummy_value()
    return types.none(), codegen


@numba.njit(cache=_CACHE, nogil=True)
def scatter_max(out, index, values):
    """``numpy.maximum.at(out, index, values)``: out[index[i]] = max(out[index[i]], values[i]),
    i in order (numpy's ufunc.at is a slow generic loop at a million indexes)."""
    for i in range(len(index)):
        if values[i] > out[index[i]]:
            out[index[i]] = values[i]


@numba.njit(cache=_CACHE, nogil=True)
def scatter_add(out, index, values):
    """``numpy.add.at(out, index, values)``: out[index[i]] += values[i], i in order (the
    same sums to the bit)."""
    for i in range(len(index)):
        out[index[i]] += values[i]


@numba.njit(cache=_CACHE, nogil=True)
def number_links(routes, scratch):
    """Number the links a routes table uses 0..k-1, in order of first use.

    ``scratch`` is an int32 array of one entry per link id of the fabric,
    all -1; it is left so.  Returns (the table in local numbers, -1 kept;
    the global id of each local number).
    """
    m, hops = routes.shape
    local = np.full((m, hops), -1, dtype=np.int32)
    used = np.empty(m * hops, dtype=np.int64)
    k = 0
    for f in range(m):
        for h in range(hops):
            link = routes[f, h]
            if link < 0:
                continue
            number = scratch[link]
            if number < 0:
                number = k
                scratch[link] = k
                used[k] = link
                k += 1
            local[f, h] = number
    for i in range(k):
        scratch[used[i]] = -1
    return local, used[:k].copy()


@numba.njit(cache=_CACHE, nogil=True)
def route_sums(local, link_latency, link_capacity, link_pipe, weight_S):
    """Per flow: its route's latency, its CM02 sharing penalty, its FATPIPE bound.

    The latency is summed over the route's links in order (as
    ``numpy.bincount`` over the crossings did); the penalty is that latency
    plus, under ``weight_S`` > 0, the sum of ``weight_S / capacity`` over the
    same links (1 where it is 0); a FATPIPE link bounds its flows at its
    capacity.
    """
    m, hops = local.shape
    latency = np.zeros(m)
    penalty = np.empty(m)
    bound = np.full(m, np.inf)
    for f in range(m):
        total = 0.0
        weighted = 0.0
        for h in range(hops):
            link = local[f, h]
            if link < 0:
                continue
            total += link_latency[link]
            if weight_S != 0.0:
                weighted += weight_S / link_capacity[link]
            if link_pipe[link] and link_capacity[link] < bound[f]:
                bound[f] = link_capacity[link]
        latency[f] = total
        value = total + weighted if weight_S != 0.0 else total
        penalty[f] = value if value > 0 else 1.0
    return latency, penalty, bound


@numba.njit(cache=_CACHE, nogil=True)
def link_lists(local, link_pipe, link_capacity, bound):
    """The crossings of shared links twice: by flow (route order) and by link (ascending
    flow), as CSR arrays over the links two or more crossings share, numbered anew.

    A link one crossing uses (a host's own link) can never be shared: it is
    its flow's bound from the start, as :func:`fill` would find each time.
    Returns ``(flow_start, flow_link, link_start, link_flow)``, the shared
    links' capacities and the flows' bounds with those links folded in.
    """
    m, hops = local.shape
    n_links = len(link_capacity)
    crossings = np.zeros(n_links, dtype=np.int32)
    for f in range(m):
        for h in range(hops):
            link = local[f, h]
            if link >= 0 and not link_pipe[link]:
                crossings[link] += 1
    shared = np.full(n_links, -1, dtype=np.int32)
    k = 0
    for link in range(n_links):
        if crossings[link] >= 2:
            shared[link] = k
            k += 1
    capacity = np.empty(k)
    link_start = np.zeros(k + 1, dtype=np.int64)
    for link in range(n_links):
        if shared[link] >= 0:
            capacity[shared[link]] = link_capacity[link]
            link_start[shared[link] + 1] = crossings[link]
    link_start = np.cumsum(link_start)
    folded = bound.copy()
    flow_start = np.zeros(m + 1, dtype=np.int64)
    for f in range(m):
        n = 0
        for h in range(hops):
            link = local[f, h]
            if link < 0 or link_pipe[link]:
                continue
            if shared[link] >= 0:
                n += 1
            elif link_capacity[link] < folded[f]:
                folded[f] = link_capacity[link]
        flow_start[f + 1] = flow_start[f] + n
    flow_link = np.empty(flow_start[m], dtype=np.int32)
    link_flow = np.empty(flow_start[m], dtype=np.int32)
    cursor = link_start[:-1].copy()
    for f in range(m):
        e = flow_start[f]
        for h in range(hops):
            link = local[f, h]
            if link < 0 or link_pipe[link] or shared[link] < 0:
                continue
            j = shared[link]
            flow_link[e] = j
            e += 1
            link_flow[cursor[j]] = f
            cursor[j] += 1
    return (flow_start, flow_link, link_start, link_flow), capacity, folded


@numba.njit(cache=_CACHE, nogil=True)
def _usage(link, link_start, link_flow, open_flow, weight):
    """The sum of 1 / penalty over the link's open flows, in ascending flow order."""
    total = 0.0
    for e in range(link_start[link], link_start[link + 1]):
        f = link_flow[e]
        if open_flow[f]:
            total += weight[f]
    return total


@numba.njit(cache=_CACHE, nogil=True)
def workspace(m, k):
    """Scratch arrays for :func:`fill_listed` over m flows and k shared links, left
    clean by each filling (so one serves every filling of a step): per flow the rate,
    1 / penalty, own bound, bound level, open and chosen flags and a list; per link
    the crossings, usage, remaining capacity, rate taken, version, touched flag, and
    two lists."""
    return (np.zeros(m), np.empty(m), np.empty(m), np.empty(m),
            np.zeros(m, dtype=np.bool_), np.zeros(m, dtype=np.bool_), np.empty(m, dtype=np.int64),
            np.zeros(k, dtype=np.int64), np.zeros(k), np.empty(k), np.zeros(k),
            np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.bool_), np.empty(k, dtype=np.int64),
            np.empty(k, dtype=np.int64))


@numba.njit(cache=_CACHE, nogil=True)
def _crossings(flows, n, flow_start, flow_link, crossings, links):
    """Count how many of the n listed flows cross each link (into ``crossings``, all 0
    before) and list the links they cross (into ``links``).  Returns how many links."""
    n_links = 0
    for i in range(n):
        f = flows[i]
        for e in range(flow_start[f], flow_start[f + 1]):
            link = flow_link[e]
            if crossings[link] == 0:
                links[n_links] = link
                n_links += 1
            crossings[link] += 1
    return n_links


@numba.njit(cache=_CACHE, nogil=True)
def _own_bounds(flows, n, flow_start, flow_link, crossings, capacity, penalty, bound, rate,
                weight, own_bound, open_flow):
    """Each listed flow's own bound (its bound, and the links only it crosses): the rate
    of a flow that shares no link, which is fixed at once; the others stay open (their
    rate 0 until fixed).  Sets ``weight`` = 1 / penalty; returns the number open."""
    n_open = 0
    for i in range(n):
        f = flows[i]
        weight[f] = 1.0 / penalty[f]
        b = bound[f]
        shared = False
        for e in range(flow_start[f], flow_start[f + 1]):
            link = flow_link[e]
            if crossings[link] == 1:
                if capacity[link] < b:
                    b = capacity[link]
            else:
                shared = True
        own_bound[f] = b
        if shared:
            open_flow[f] = True
            rate[f] = 0.0
            n_open += 1
        else:
            rate[f] = b
    return n_open


@numba.njit(cache=_CACHE, nogil=True)
def _bounds_by_level(flows, n, open_flow, own_bound, penalty, bound_level, n_open):
    """The open flows with a finite bound (ascending) and the lowest of their levels
    (bound times penalty), every open flow's level into ``bound_level``."""
    bounded = np.empty(n_open, dtype=np.int64)
    nb = 0
    lowest = np.inf
    for i in range(n):
        f = flows[i]
        if open_flow[f]:
            bound_level[f] = own_bound[f] * penalty[f]
            if bound_level[f] < np.inf:
                bounded[nb] = f
                nb += 1
                if bound_level[f] < lowest:
                    lowest = bound_level[f]
    return bounded[:nb], lowest


@numba.njit(cache=_CACHE, nogil=True)
def _first_levels(flows, n, crossings, open_flow, weight, flow_start, flow_link, usage_of,
                  remaining, capacity, version, links, n_links):
    """The heap of the shared links' first levels: remaining capacity over the sum of
    1 / penalty of their open flows, summed in ascending flow order as :func:`_usage`
    adds them, over the open flows' crossings only (one pass, not one per link).
    Sets the listed links' remaining capacity and version afresh."""
    for i in range(n):
        f = flows[i]
        if open_flow[f]:
            for e in range(flow_start[f], flow_start[f + 1]):
                link = flow_link[e]
                if crossings[link] >= 2:
                    usage_of[link] += weight[f]
    heap = [(np.inf, np.int64(-1), np.int64(-1))]
    heap.pop()
    for i in range(n_links):
        link = links[i]
        remaining[link] = capacity[link]
        version[link] = 0
        if crossings[link] >= 2:
            usage = usage_of[link]
            usage_of[link] = 0.0
            if usage > 0:
                heap.append((max(remaining[link], 0.0) / usage, np.int64(link), np.int64(0)))
    heapq.heapify(heap)
    return heap


@numba.njit(cache=_CACHE, nogil=True)
def _give_back(fixed_now, rate, flow_start, flow_link, crossings, taken, touched,
               touched_list, remaining, version, link_start, link_flow, open_flow, weight,
               heap):
    """The fixed flows' rates come off their shared links (summed in ascending flow
    order), and each such link's new level goes on the heap."""
    n_touched = 0
    for f in fixed_now:
        for e in range(flow_start[f], flow_start[f + 1]):
            link = flow_link[e]
            if crossings[link] < 2:
                continue
            taken[link] += rate[f]
            if not touched[link]:
                touched[link] = True
                touched_list[n_touched] = link
                n_touched += 1
    for i in range(n_touched):
        link = touched_list[i]
        remaining[link] -= taken[link]
        taken[link] = 0.0
        touched[link] = False
        version[link] += 1
        usage = _usage(link, link_start, link_flow, open_flow, weight)
        if usage > 0:
            heapq.heappush(heap, (max(remaining[link], 0.0) / usage, link, version[link]))


@numba.njit(cache=_CACHE, nogil=True)
def _choose(heap, version, bounded, next_bound, bound_level, open_flow, chosen, chosen_list,
            link_start, link_flow, flows, n, level_rtol):
    """One round's lowest level and the open flows it fixes: those of every link and
    bound within ``level_rtol`` of it (every open flow when nothing limits them).
    Returns (the level, how many chosen, the next bound to look at)."""
    nb = len(bounded)
    while len(heap) and heap[0][2] != version[heap[0][1]]:
        heapq.heappop(heap)
    while next_bound < nb and not open_flow[bounded[next_bound]]:
        next_bound += 1
    lowest = np.inf
    if len(heap):
        lowest = heap[0][0]
    if next_bound < nb and bound_level[bounded[next_bound]] < lowest:
        lowest = bound_level[bounded[next_bound]]
    limit = lowest * (1 + level_rtol)
    n_chosen = 0
    if lowest == np.inf:   # nothing limits the rest (the numpy version's inf level)
        for i in range(n):
            if open_flow[flows[i]]:
                chosen[flows[i]] = True
                chosen_list[n_chosen] = flows[i]
                n_chosen += 1
    while len(heap) and heap[0][0] <= limit:
        level, link, stamp = heapq.heappop(heap)
        if stamp != version[link]:
            continue
        version[link] += 1   # saturated: every open flow on it is fixed now
        for e in range(link_start[link], link_start[link + 1]):
            f = link_flow[e]
            if open_flow[f] and not chosen[f]:
                chosen[f] = True
                chosen_list[n_chosen] = f
                n_chosen += 1
    while next_bound < nb and bound_level[bounded[next_bound]] <= limit:
        f = bounded[next_bound]
        if open_flow[f] and not chosen[f]:
            chosen[f] = True
            chosen_list[n_chosen] = f
            n_chosen += 1
        next_bound += 1
    return lowest, n_chosen, next_bound


@numba.njit(cache=_CACHE, nogil=True)
def fill_listed(flows, n, flow_start, flow_link, link_start, link_flow, capacity, penalty,
                bound, level_rtol, ws):
    """Max-min fair rates of the n flows ``flows[:n]`` (ascending), into ``ws[0]`` at
    their indexes (the rest of it untouched), by progressive filling (:func:`fill`).

    ``ws`` is a :func:`workspace`, clean before and after: the cost is the
    listed flows' crossings plus what each round changes, whatever the
    number of flows and links of the step.
    """
    (rate, weight, own_bound, bound_level, open_flow, chosen, chosen_list, crossings,
     usage_of, remaining, taken, version, touched, touched_list, links) = ws
    n_links = _crossings(flows, n, flow_start, flow_link, crossings, links)
    n_open = _own_bounds(flows, n, flow_start, flow_link, crossings, capacity, penalty, bound,
                         rate, weight, own_bound, open_flow)
    bounded, lowest_bound = _bounds_by_level(flows, n, open_flow, own_bound, penalty,
                                             bound_level, n_open)
    ranked = bounded[:0]   # the bounds by level, sorted once one may be reached
    next_bound = 0
    heap = _first_levels(flows, n, crossings, open_flow, weight, flow_start, flow_link,
                         usage_of, remaining, capacity, version, links, n_links)
    while n_open > 0:
        if len(ranked) < len(bounded):
            while len(heap) and heap[0][2] != version[heap[0][1]]:
                heapq.heappop(heap)
            top = heap[0][0] if len(heap) else np.inf
            if not top * (1 + level_rtol) < lowest_bound:
                ranked = bounded[np.argsort(bound_level[bounded], kind="mergesort")]
        lowest, n_chosen, next_bound = _choose(
            heap, version, ranked, next_bound, bound_level, open_flow, chosen, chosen_list,
            link_start, link_flow, flows, n, level_rtol)
        # the leaving flows' rates come off their links, summed in ascending flow order
        # (a scan of the list when they are many: cheaper than sorting them)
        if n_chosen * 16 > n:
            fixed_now = np.empty(n_chosen, dtype=np.int64)
            j = 0
            for i in range(n):
                if chosen[flows[i]]:
                    fixed_now[j] = flows[i]
                    j += 1
        else:
            fixed_now = np.sort(chosen_list[:n_chosen])
        for f in fixed_now:
            value = lowest * weight[f]
            rate[f] = value if value < own_bound[f] else own_bound[f]
            open_flow[f] = False
            chosen[f] = False
            n_open -= 1
        if n_open == 0:
            break
        _give_back(fixed_now, rate, flow_start, flow_link, crossings, taken, touched,
                   touched_list, remaining, version, link_start, link_flow, open_flow, weight,
                   heap)
    for i in range(n_links):
        crossings[links[i]] = 0


@numba.njit(cache=_CACHE, nogil=True)
def fill(active, flow_start, flow_link, link_start, link_flow, capacity, penalty, bound,
         level_rtol):
    """Max-min fair rates of the ``active`` flows (CM02: ``rate * penalty`` equal on a
    saturated link), by progressive filling; 0 for the others.

    The rounds (:mod:`collsim.analysis.network.maxmin` says why): a link
    only one active flow crosses is that flow's bound; the lowest
    level (a link's remaining capacity over the sum of 1 / penalty of its
    open flows, or an open flow's bound times its penalty) and every link or
    bound within ``level_rtol`` of it saturate together; their flows are
    fixed at ``min(level / penalty, bound)``.  A heap gives the lowest level
    (:func:`fill_listed`).
    """
    flows = np.flatnonzero(active)
    ws = workspace(len(penalty), len(capacity))
    fill_listed(flows, len(flows), flow_start, flow_link, link_start, link_flow, capacity,
                penalty, bound, level_rtol, ws)
    return ws[0]


@numba.njit(cache=_CACHE, nogil=True)
def components(m, link_start, link_flow):
    """The flows that share links, directly or through others (the connected components
    of flows and shared links): ``(start, flows)``, CSR of the components in order of
    their lowest flow, each component's flows ascending.  Flows of different
    components never meet on a link, so each shares its links as if alone."""
    parent = np.arange(m)
    for link in range(len(link_start) - 1):
        a = link_flow[link_start[link]]
        while parent[a] != a:
            a = parent[a]
        for e in range(link_start[link] + 1, link_start[link + 1]):
            b = link_flow[e]
            while parent[b] != b:
                parent[b] = parent[parent[b]]
                b = parent[b]
            if a < b:
                parent[b] = a
            elif b < a:
                parent[a] = b
                a = b
    number = np.empty(m, dtype=np.int64)
    size = np.zeros(m + 1, dtype=np.int64)
    n_comp = 0
    for f in range(m):   # a root is its component's lowest flow: it comes first
        r = f
        while parent[r] != r:
            r = parent[r]
        parent[f] = r
        if r == f:
            number[f] = n_comp
            n_comp += 1
        size[number[r] + 1] += 1
    start = np.cumsum(size[:n_comp + 1])
    cursor = start[:-1].copy()
    flows = np.empty(m, dtype=np.int64)
    for f in range(m):
        c = number[parent[f]]
        flows[cursor[c]] = f
        cursor[c] += 1
    return start, flows


@numba.njit(cache=_CACHE, nogil=True)
def _by_component(flows, flow_start, flow_link, capacity):
    """The crossings renumbered so that each component is contiguous: flow i is
    ``flows[i]``, links numbered in order of first crossing (a component's links
    contiguous, in the order its flows first cross them).  Returns (flow_start,
    flow_link, link_start, link_flow, capacity) of the renumbered step; a link's
    flows stay ascending, a flow's links in route order."""
    m = len(flows)
    k = len(capacity)
    number = np.full(k, -1, dtype=np.int64)
    new_start = np.empty(m + 1, dtype=np.int64)
    new_link = np.empty(len(flow_link), dtype=np.int64)
    new_capacity = np.empty(k)
    crossings = np.zeros(k + 1, dtype=np.int64)
    n_links = 0
    new_start[0] = 0
    for i in range(m):
        f = flows[i]
        e0 = new_start[i]
        for j in range(flow_start[f + 1] - flow_start[f]):
            link = flow_link[flow_start[f] + j]
            if number[link] < 0:
                number[link] = n_links
                new_capacity[n_links] = capacity[link]
                n_links += 1
            new_link[e0 + j] = number[link]
            crossings[number[link] + 1] += 1
        new_start[i + 1] = e0 + flow_start[f + 1] - flow_start[f]
    link_start = np.cumsum(crossings)
    cursor = link_start[:-1].copy()
    link_flow = np.empty(len(flow_link), dtype=np.int64)
    for i in range(m):
        for e in range(new_start[i], new_start[i + 1]):
            link_flow[cursor[new_link[e]]] = i
            cursor[new_link[e]] += 1
    return new_start, new_link, link_start, link_flow, new_capacity


@numba.njit(cache=_CACHE, nogil=True)
def _signature(a, b, values, flow_start, flow_link, capacity_bits):
    """A hash of what the event simulation of the contiguous component of flows a..b-1
    reads: per flow its values' bits (``values``: start, size, rate factor, penalty,
    bound as int64 views) and its crossings (the link's number from the component's
    first, and its capacity)."""
    prime = np.int64(1099511628211)
    h = np.int64(b - a)
    first_link = flow_link[flow_start[a]]
    for f in range(a, b):
        for column in values:
            h = (h ^ column[f]) * prime
        h = (h ^ (flow_start[f + 1] - flow_start[f])) * prime
        for e in range(flow_start[f], flow_start[f + 1]):
            h = (h ^ (flow_link[e] - first_link)) * prime
            h = (h ^ capacity_bits[flow_link[e]]) * prime
    return h


@numba.njit(cache=_CACHE, nogil=True)
def _same_component(a, b, c, values, flow_start, flow_link, capacity_bits):
    """Whether the contiguous components of flows a..b-1 and c..c+b-a-1 are the same
    problem: every value equal to the bit, their crossings alike, the links'
    capacities equal.  Their event simulations make the same operations on the same
    numbers."""
    link_a = flow_link[flow_start[a]]
    link_c = flow_link[flow_start[c]]
    for i in range(b - a):
        f, g = a + i, c + i
        for column in values:
            if column[f] != column[g]:
                return False
        if flow_start[f + 1] - flow_start[f] != flow_start[g + 1] - flow_start[g]:
            return False
        for j in range(flow_start[f + 1] - flow_start[f]):
            e, d = flow_start[f] + j, flow_start[g] + j
            if (flow_link[e] - link_a != flow_link[d] - link_c
                    or capacity_bits[flow_link[e]] != capacity_bits[flow_link[d]]):
                return False
    return True


@numba.njit(cache=_CACHE, nogil=True)
def _filled_event(now, next_start, active, n_active, size, rate_factor, flow_start, flow_link,
                  link_start, link_flow, capacity, penalty, bound, level_rtol, done_rtol, left,
                  end, finish, ws):
    """One event of a component's simulation by a filling: the flows ``active[:n_active]``
    (ascending, in flight at ``now``) are re-shared (:func:`fill_listed`) and move on at
    their rates to their first end or ``next_start``; those that end then get their
    ``end``, the others their bytes left.  Returns the event's time."""
    fill_listed(active, n_active, flow_start, flow_link, link_start, link_flow, capacity,
                penalty, bound, level_rtol, ws)
    rate = ws[0]
    until = next_start
    for i in range(n_active):
        f = active[i]
        rate[f] = rate[f] * rate_factor[f]
        finish[f] = now + left[f] / rate[f]
        if finish[f] < until:
            until = finish[f]
    threshold = until + abs(until) * done_rtol
    for i in range(n_active):
        f = active[i]
        if finish[f] <= threshold:
            end[f] = finish[f]
        else:
            left[f] = max(left[f] - rate[f] * (until - now), size[f] * done_rtol)
    return until


@numba.njit(cache=_CACHE, nogil=True)
def _component_end_times(a, b, data_start, size, rate_factor, flow_start, flow_link,
                         link_start, link_flow, capacity, penalty, bound, level_rtol,
                         done_rtol, left, end, active, finish, ws):
    """The event simulation of the component of flows a..b-1, into ``end``: at each
    start or end of one of them, its flows in flight are re-shared (:func:`_filled_event`)
    and move on at their rates to the next."""
    n_pending = b - a
    now = np.inf
    for f in range(a, b):
        left[f] = size[f]
        if data_start[f] < now:
            now = data_start[f]
    while n_pending > 0:
        next_start = np.inf
        n_active = 0
        for f in range(a, b):
            if end[f] == end[f]:   # ended (end is nan until then)
                continue
            if data_start[f] <= now:
                active[n_active] = f
                n_active += 1
            elif data_start[f] < next_start:
                next_start = data_start[f]
        if n_active == 0:
            now = next_start
            continue
        now = _filled_event(now, next_start, active, n_active, size, rate_factor, flow_start,
                            flow_link, link_start, link_flow, capacity, penalty, bound,
                            level_rtol, done_rtol, left, end, finish, ws)
        for i in range(n_active):
            if end[active[i]] == end[active[i]]:
                n_pending -= 1


@numba.njit(cache=_CACHE, nogil=True)
def _common_link(a, b, flow_start, flow_link, link_start):
    """A link every flow of the contiguous component a..b-1 crosses (the first on flow
    a's route), or -1."""
    for e in range(flow_start[a], flow_start[a + 1]):
        link = flow_link[e]
        if link_start[link + 1] - link_start[link] == b - a:
            return link
    return -1


@numba.njit(cache=_CACHE, nogil=True)
def _tally_workspace(m, k):
    """Per link: the sum of 1 / penalty of its flows in flight (a sum and its rounding
    errors, :func:`_cross`), how many, a version; per flow: in flight, its virtual end
    (:func:`_one_link_end_times`).  Left clean by each component."""
    return (np.zeros(k), np.zeros(k), np.zeros(k, dtype=np.int64), np.zeros(k, dtype=np.int64),
            np.zeros(m, dtype=np.bool_), np.empty(m))


@numba.njit(cache=_CACHE, nogil=True)
def _two_sum(total, error, x):
    """``total + x`` and ``error`` plus that addition's rounding error (Knuth's two-sum):
    a running sum whose ``total + error`` stays within a rounding of the exact sum,
    however many terms came and went."""
    s = total + x
    back = s - total
    return s, error + ((total - (s - back)) + (x - back))


@numba.njit(cache=_CACHE, nogil=True)
def _cross(f, sign, common, flow_start, flow_link, capacity, penalty, tally, link_heap):
    """Flow f goes in flight (sign 1) or ends (-1): 1 / penalty[f] joins or leaves the
    sums of its links, each a sum and the sum of its additions' rounding errors (Knuth's
    two-sum: the sum stays within a rounding of the exact one however many flows came
    and went).  A link of less capacity than ``common`` puts its new level (capacity
    over the sum) on ``link_heap``, stamped with its version: the others' flows are
    among ``common``'s, so their levels are never below its."""
    total, error, count, version = tally[0], tally[1], tally[2], tally[3]
    x = sign / penalty[f]
    for e in range(flow_start[f], flow_start[f + 1]):
        link = flow_link[e]
        count[link] += sign
        version[link] += 1
        if count[link] == 0:
            total[link] = 0.0
            error[link] = 0.0
            continue
        total[link], error[link] = _two_sum(total[link], error[link], x)
        if capacity[link] < capacity[common]:
            heapq.heappush(link_heap, (capacity[link] / (total[link] + error[link]), link,
                                       version[link]))


@numba.njit(cache=_CACHE, nogil=True)
def _one_link_level(common, capacity, tally, link_heap, bound_heap):
    """The level of link ``common`` (its capacity over the sum of 1 / penalty of its
    flows in flight) when it is the lowest of every link's and every flow's bound level
    (the filling would then fix every flow in flight at it in its first round), else
    -1."""
    total, error, version, in_flight = tally[0], tally[1], tally[3], tally[4]
    level = capacity[common] / (total[common] + error[common])
    while len(link_heap) and link_heap[0][2] != version[link_heap[0][1]]:
        heapq.heappop(link_heap)
    while len(bound_heap) and not in_flight[bound_heap[0][1]]:
        heapq.heappop(bound_heap)
    if len(link_heap) and link_heap[0][0] < level:
        return -1.0
    if len(bound_heap) and bound_heap[0][0] < level:
        return -1.0
    return level


@numba.njit(cache=_CACHE, nogil=True)
def _virtual_switch(a, b, to_virtual, virtual_time, size, rate_factor, penalty, left,
                    tally, done_rtol):
    """The flows in flight of a..b-1 change clocks: to virtual ends (their bytes left
    over 1 / penalty times their rate factor, from virtual time 0) or back to bytes left
    at ``virtual_time``.  Returns the heap of virtual ends (empty going back)."""
    in_flight, virtual_end = tally[4], tally[5]
    heap = [(np.inf, np.int64(-1))]
    heap.pop()
    for f in range(a, b):
        if not in_flight[f]:
            continue
        k = (1.0 / penalty[f]) * rate_factor[f]
        if to_virtual:
            virtual_end[f] = left[f] / k
            heap.append((virtual_end[f], np.int64(f)))
        else:
            left[f] = max((virtual_end[f] - virtual_time) * k, size[f] * done_rtol)
    heapq.heapify(heap)
    return heap


@numba.njit(cache=_CACHE, nogil=True)
def _virtual_event(now, virtual_time, level, next_start, heap, end, common, flow_start,
                   flow_link, capacity, penalty, tally, link_heap, done_rtol):
    """One event of a component every flow in flight of which moves at ``level`` /
    penalty times its rate factor (link ``common`` its only bottleneck): virtual time
    runs at ``level``, a flow ends when it reaches its virtual end.  The flows that end
    by the first end or ``next_start`` (within ``done_rtol``) get their ``end`` and leave
    their links.  Returns (the event's time, its virtual time, how many ended)."""
    until = now + (heap[0][0] - virtual_time) / level
    if next_start < until:
        until = next_start
    threshold = until + abs(until) * done_rtol
    n_ended = 0
    while len(heap):
        ends_at = now + (heap[0][0] - virtual_time) / level
        if ends_at > threshold:
            break
        f = heapq.heappop(heap)[1]
        end[f] = ends_at
        tally[4][f] = False
        _cross(f, -1, common, flow_start, flow_link, capacity, penalty, tally, link_heap)
        n_ended += 1
    return until, virtual_time + level * (until - now), n_ended


@numba.njit(cache=_CACHE, nogil=True)
def _lowest_always(a, b, common, flow_start, flow_link, capacity, bound):
    """Whether link ``common`` of the component a..b-1 (every flow crosses it) has the
    lowest level whatever flows are in flight: every other link has as much capacity or
    more and carries some of its flows, each once (a sum of 1 / penalty no larger), and
    no flow's bound is below its capacity (a flow's level on it is at most its capacity
    times the flow's penalty)."""
    for f in range(a, b):
        if bound[f] < capacity[common]:
            return False
        for e in range(flow_start[f], flow_start[f + 1]):
            if capacity[flow_link[e]] < capacity[common]:
                return False
            for d in range(flow_start[f], e):
                if flow_link[d] == flow_link[e]:
                    return False
    return True


@numba.njit(cache=_CACHE, nogil=True)
def _virtual_end(size, rate_factor, penalty, f, clock, clock_error):
    """Flow f's virtual end started at virtual time ``clock + clock_error`` (a two-sum):
    that plus its size over 1 / penalty times its rate factor, as a two-sum."""
    return _two_sum(clock, clock_error, size[f] / ((1.0 / penalty[f]) * rate_factor[f]))


@numba.njit(cache=_CACHE, nogil=True)
def _one_clock_end_times(a, b, common, data_start, size, rate_factor, penalty, capacity, end,
                         done_rtol):
    """:func:`_one_link_end_times` of a component whose link ``common`` has the lowest
    level at every event (:func:`_lowest_always`): every flow in flight moves at that
    level over its penalty, times its rate factor, from its start to its end.

    Virtual time runs at the level (its capacity over the sum of 1 / penalty
    of the flows in flight, a two-sum); a flow ends when virtual time has
    grown by its size over 1 / penalty times its rate factor since it
    started (:func:`_virtual_end`).  The clock is a two-sum too, so that a
    flow's virtual time left is not the difference of two large rounded
    numbers, and starts again from 0 whenever no flow is in flight.  The
    flows that start at one event with the same virtual end are one run on
    the heap: an event costs its runs and the flows that start or end at it.
    """
    order = a + np.argsort(data_start[a:b], kind="mergesort")
    n = b - a
    runs = [(np.inf, 0.0, np.int64(-1), np.int64(-1))]   # (virtual end, its flows in order)
    runs.pop()
    total, error, clock, clock_error = 0.0, 0.0, 0.0, 0.0
    n_started, n_ended = 0, 0
    now = data_start[order[0]]
    while n_ended < n:
        while n_started < n and data_start[order[n_started]] <= now:
            first = n_started
            key = _virtual_end(size, rate_factor, penalty, order[first], clock, clock_error)
            while (n_started < n and data_start[order[n_started]] <= now
                   and _virtual_end(size, rate_factor, penalty, order[n_started], clock,
                                    clock_error) == key):
                total, error = _two_sum(total, error, 1.0 / penalty[order[n_started]])
                n_started += 1
            heapq.heappush(runs, (key[0], key[1], np.int64(first), np.int64(n_started)))
        next_start = data_start[order[n_started]] if n_started < n else np.inf
        if len(runs) == 0:
            now = next_start
            continue
        level = capacity[common] / (total + error)
        until = now + ((runs[0][0] - clock) + (runs[0][1] - clock_error)) / level
        if next_start < until:
            until = next_start
        threshold = until + abs(until) * done_rtol
        while len(runs):
            ends_at = now + ((runs[0][0] - clock) + (runs[0][1] - clock_error)) / level
            if ends_at > threshold:
                break
            first, last = heapq.heappop(runs)[2:]
            for i in range(first, last):
                end[order[i]] = ends_at
                total, error = _two_sum(total, error, -1.0 / penalty[order[i]])
            n_ended += last - first
        clock, clock_error = _two_sum(clock, clock_error, level * (until - now))
        if n_ended == n_started:   # none in flight: the sum is 0, the clock starts again
            total, error, clock, clock_error = 0.0, 0.0, 0.0, 0.0
        now = until


@numba.njit(cache=_CACHE, nogil=True)
def _one_link_end_times(a, b, common, data_start, size, rate_factor, flow_start, flow_link,
                        link_start, link_flow, capacity, penalty, bound, level_rtol, done_rtol,
                        left, end, active, finish, ws, tally):
    """:func:`_component_end_times` of a component whose flows all cross link ``common``.

    While that link's level is the lowest (:func:`_one_link_level`), the
    filling would fix every flow in flight at it: each moves at the level
    over its penalty, times its rate factor, and one clock (virtual time,
    running at the level) serves them all.  An event then costs the flows
    that start or end at it (:func:`_virtual_event`), not a filling of every
    flow in flight; otherwise it is a filling (:func:`_filled_event`), the
    same arithmetic as :func:`_component_end_times`.
    """
    order = a + np.argsort(data_start[a:b], kind="mergesort")
    in_flight, virtual_end = tally[4], tally[5]
    link_heap = [(np.inf, np.int64(-1), np.int64(-1))]   # (level, link, version)
    link_heap.pop()
    bound_heap = [(np.inf, np.int64(-1))]                 # (bound times penalty, flow)
    bound_heap.pop()
    heap = _virtual_switch(a, a, True, 0.0, size, rate_factor, penalty, left, tally,
                           done_rtol)                     # (virtual end, flow)
    virtual = False
    virtual_time = 0.0
    n_pending = b - a
    n_started = 0
    now = data_start[order[0]]
    while n_pending > 0:
        while n_started < b - a and data_start[order[n_started]] <= now:
            f = order[n_started]
            n_started += 1
            in_flight[f] = True
            left[f] = size[f]
            _cross(f, 1, common, flow_start, flow_link, capacity, penalty, tally, link_heap)
            if bound[f] < capacity[common]:
                heapq.heappush(bound_heap, (bound[f] * penalty[f], f))
            if virtual:
                virtual_end[f] = virtual_time + size[f] / ((1.0 / penalty[f]) * rate_factor[f])
                heapq.heappush(heap, (virtual_end[f], f))
        next_start = data_start[order[n_started]] if n_started < b - a else np.inf
        if tally[2][common] == 0:
            now = next_start
            continue
        level = _one_link_level(common, capacity, tally, link_heap, bound_heap)
        if (level > 0) != virtual:
            virtual = level > 0
            heap = _virtual_switch(a, b, virtual, virtual_time, size, rate_factor, penalty,
                                   left, tally, done_rtol)
            virtual_time = 0.0
        if virtual:
            now, virtual_time, n_ended = _virtual_event(
                now, virtual_time, level, next_start, heap, end, common, flow_start, flow_link,
                capacity, penalty, tally, link_heap, done_rtol)
            n_pending -= n_ended
            continue
        n_active = 0
        for f in range(a, b):
            if in_flight[f]:
                active[n_active] = f
                n_active += 1
        now = _filled_event(now, next_start, active, n_active, size, rate_factor, flow_start,
                            flow_link, link_start, link_flow, capacity, penalty, bound,
                            level_rtol, done_rtol, left, end, finish, ws)
        for i in range(n_active):
            f = active[i]
            if end[f] == end[f]:
                in_flight[f] = False
                _cross(f, -1, common, flow_start, flow_link, capacity, penalty, tally,
                       link_heap)
                n_pending -= 1


@numba.njit(cache=_CACHE, nogil=True)
def _ends_by_component(start, data_start, size, rate_factor, flow_start, flow_link,
                       link_start, link_flow, capacity, penalty, bound, level_rtol, done_rtol):
    """:func:`step_end_times` of a step whose components are contiguous (flows
    ``start[c]..start[c + 1] - 1``, :func:`_by_component`)."""
    m = len(size)
    end = np.full(m, np.nan)
    values = (data_start.view(np.int64), size.view(np.int64), rate_factor.view(np.int64),
              penalty.view(np.int64), bound.view(np.int64))
    capacity_bits = capacity.view(np.int64)
    seen = numba.typed.Dict.empty(numba.types.int64, numba.types.int64)
    left = np.empty(m)
    active = np.empty(m, dtype=np.int64)
    finish = np.empty(m)
    ws = workspace(m, len(capacity))
    tally = _tally_workspace(m, len(capacity))
    for c in range(len(start) - 1):
        a, b = start[c], start[c + 1]
        if b - a == 1 and flow_start[a] == flow_start[a + 1]:
            # shares no link: its bound from its start
            end[a] = data_start[a] + size[a] / (bound[a] * rate_factor[a])
            continue
        key = _signature(a, b, values, flow_start, flow_link, capacity_bits)
        if key in seen:
            first = start[seen[key]]
            if (start[seen[key] + 1] - first == b - a
                    and _same_component(a, b, first, values, flow_start, flow_link,
                                        capacity_bits)):
                end[a:b] = end[first:first + b - a]
                continue
        else:
            seen[key] = c
        common = _common_link(a, b, flow_start, flow_link, link_start)
        if common >= 0 and _lowest_always(a, b, common, flow_start, flow_link, capacity, bound):
            _one_clock_end_times(a, b, common, data_start, size, rate_factor, penalty,
                                 capacity, end, done_rtol)
        elif common < 0:
            _component_end_times(a, b, data_start, size, rate_factor, flow_start, flow_link,
                                 link_start, link_flow, capacity, penalty, bound, level_rtol,
                                 done_rtol, left, end, active, finish, ws)
        else:
            _one_link_end_times(a, b, common, data_start, size, rate_factor, flow_start,
                                flow_link, link_start, link_flow, capacity, penalty, bound,
                                level_rtol, done_rtol, left, end, active, finish, ws, tally)
    return end


@numba.njit(cache=_CACHE, nogil=True)
def step_end_times(data_start, size, rate_factor, flow_start, flow_link, link_start, link_flow,
                   capacity, penalty, bound, level_rtol, done_rtol):
    """When each flow of one step ends: its data starts at ``data_start`` and moves
    ``size`` bytes at its max-min rate times ``rate_factor``, re-shared whenever a
    flow of its component (:func:`components`) ends or starts, event by event.

    A flow that shares no link moves at its bound from its start.  Each
    component is its own event simulation, over its flows and links
    renumbered contiguously (:func:`_by_component`): a step of many small
    components (the exchanges under one switch, one pair of dragonfly
    groups) costs each component's events times its flows, not every event
    of the step times all of them.  A component equal to an earlier one to
    the bit (:func:`_same_component`: the translates of a block mapping on a
    regular fabric) takes that one's end times, which its simulation would
    repeat.
    """
    m = len(size)
    if len(flow_link) == 0:   # no flow shares a link: each at its bound from its start
        return data_start + size / (bound * rate_factor)
    start, flows = components(m, link_start, link_flow)
    lists = _by_component(flows, flow_start, flow_link, capacity)
    ends = _ends_by_component(start, data_start[flows], size[flows], rate_factor[flows],
                              *lists, penalty[flows], bound[flows], level_rtol, done_rtol)
    end = np.empty(m)
    end[flows] = ends
    return end


@numba.njit(cache=_CACHE, nogil=True)
def halving_blocks(pof2, count, elem_bytes):
    """Rabenseifner's recursive halving (``allreduce_rabenseifner.c``) for every new
    rank v < pof2 at once: per level (mask 1, 2, ...), the bytes v sends, the bytes
    it keeps (and combines), and the bytes of its range after the level (what the
    doubling sends back at that level).  The halves are the C code's: ``mid = lo +
    (hi - lo) / 2``, the lower half kept by the rank whose mask bit is 0."""
    levels = 0
    while (1 << levels) < pof2:
        levels += 1
    sent = np.empty((levels, pof2), dtype=np.int64)
    kept = np.empty((levels, pof2), dtype=np.int64)
    after = np.empty((levels, pof2), dtype=np.int64)
    for v in range(pof2):
        lo = 0
        hi = count
        for level in range(levels):
            mid = lo + (hi - lo) // 2
            if v & (1 << level) == 0:
                sent[level, v] = (hi - mid) * elem_bytes
                kept[level, v] = (mid - lo) * elem_bytes
                hi = mid
            else:
                sent[level, v] = (mid - lo) * elem_bytes
                kept[level, v] = (hi - mid) * elem_bytes
                lo = mid
            after[level, v] = (hi - lo) * elem_bytes
    return sent, kept, after


@numba.njit(cache=_CACHE, nogil=True)
def class_properties(links, class_bounds, class_capacity, class_latency, loopback):
    """(capacity, latency, FATPIPE flag) of link ids numbered class by class: class c
    holds the ids below ``class_bounds[c]`` (a few classes: a scan beats a search)."""
    n = len(links)
    capacity = np.empty(n)
    latency = np.empty(n)
    pipe = np.empty(n, dtype=np.bool_)
    n_classes = len(class_bounds)
    for i in range(n):
        link = links[i]
        c = 0
        while c < n_classes and class_bounds[c] <= link:
            c += 1
        capacity[i] = class_capacity[c]
        latency[i] = class_latency[c]
        pipe[i] = link == loopback
    return capacity, latency, pipe


# The event loop's two heaps (the data starts, the runs of ends) are arrays: per entry
# a float key and a row of integers, and a count: ``(keys, ints, [n])``, ordered as
# the tuples (key, *row).  Typed lists of tuples did the same before 2026-11-30, but a
# list owns a reference count, which every inlined use of it raised and lowered with
# an atomic instruction in a call of its own: 21 of those and 62 of their releases in
# the compiled loop, where perf put about a fifth of the loop's samples (the
# dragonfly's bcast ``binary`` on 65,536 ranks; docs/MODELS.md "The loop's heaps in
# arrays").  :func:`_event_loop` borrows them (:func:`_borrowed`) as its other
# arrays.  The entries are distinct, so any heap gives them in the same order, and
# the answers are the same to the bit.  The sifts are called, not inlined: inlined
# at each of their uses, they made a cold cache compile 178 s instead of 129 s.


@numba.njit(cache=_CACHE)
def _heap_room(n, width):
    """An empty array heap with room for ``n`` entries of a key and ``width`` integers."""
    return np.empty(n), np.empty((n, width), dtype=np.int64), np.zeros(1, dtype=np.int64)


@numba.njit(cache=_CACHE, inline="always")
def _size(heap):
    """How many entries an array heap holds."""
    return heap[2][0]


@numba.njit(cache=_CACHE, inline="always")
def _less(heap, a, b):
    """Whether entry ``a`` comes before entry ``b``: (key, *row) compared as tuples."""
    keys, ints = heap[0], heap[1]
    if keys[a] != keys[b]:
        return keys[a] < keys[b]
    for c in range(ints.shape[1]):
        if ints[a, c] != ints[b, c]:
            return ints[a, c] < ints[b, c]
    return False


@numba.njit(cache=_CACHE, inline="always")
def _swap(heap, a, b):
    """Entries ``a`` and ``b`` change places."""
    keys, ints = heap[0], heap[1]
    keys[a], keys[b] = keys[b], keys[a]
    for c in range(ints.shape[1]):
        ints[a, c], ints[b, c] = ints[b, c], ints[a, c]


@numba.njit(cache=_CACHE, nogil=True)
def _sift_up(heap, pos):
    """Entry ``pos`` moved up past its parents that come after it."""
    while pos > 0:
        parent = (pos - 1) >> 1
        if not _less(heap, pos, parent):
            break
        _swap(heap, pos, parent)
        pos = parent


@numba.njit(cache=_CACHE, nogil=True)
def _sift_down(heap, pos):
    """Entry ``pos`` moved down past its lesser child while that child comes first."""
    n = heap[2][0]
    while True:
        child = 2 * pos + 1
        if child >= n:
            break
        if child + 1 < n and _less(heap, child + 1, child):
            child += 1
        if not _less(heap, child, pos):
            break
        _swap(heap, pos, child)
        pos = child


@numba.njit(cache=_CACHE, inline="always")
def _new_slot(heap):
    """The place of a new entry at the heap's end (the caller writes it there, then
    sifts it up: :func:`_sift_up`)."""
    n = heap[2][0]
    if n == len(heap[0]):
        raise RuntimeError("an event loop's heap is full")
    heap[2][0] = n + 1
    return n


@numba.njit(cache=_CACHE, nogil=True)
def _drop_top(heap):
    """The least entry removed: the last one takes its place and sifts down."""
    keys, ints = heap[0], heap[1]
    n = heap[2][0] - 1
    heap[2][0] = n
    if n > 0:
        keys[0] = keys[n]
        for c in range(ints.shape[1]):
            ints[0, c] = ints[n, c]
        _sift_down(heap, 0)


@numba.njit(cache=_CACHE, nogil=True)
def _heapify(heap):
    """``heapq.heapify`` of an array heap's entries."""
    for i in range(heap[2][0] // 2 - 1, -1, -1):
        _sift_down(heap, i)


@numba.njit(cache=_CACHE, inline="always")
def _push_start(starts, time, msg):
    """Message ``msg``'s data start at ``time`` onto the heap of starts."""
    j = _new_slot(starts)
    starts[0][j] = time
    starts[1][j, 0] = msg
    _sift_up(starts, j)


@numba.njit(cache=_CACHE)
def _starts_heap(m):
    """The heap of data starts, empty: room for ``m`` entries (data start; message)."""
    return _heap_room(m, 1)


@numba.njit(cache=_CACHE)
def _ends_heap(n_entries):
    """The heap of ends, empty: an array heap of runs (their first entry's end; its
    flow and version, where the run goes on, where it stops; a run holds an entry at
    least, so ``n_entries`` of them fit), and the arena of the runs
    (:func:`_push_ends`): each entry's end, flow and version, and how many are used."""
    return _heap_room(n_entries, 4), (np.empty(n_entries), np.empty(n_entries, dtype=np.int64),
                                      np.empty(n_entries, dtype=np.int64),
                                      np.zeros(1, dtype=np.int64))


@numba.njit(cache=_CACHE, inline="always")
def _push_ends(ends, arena, flows, finish, version):
    """The ends of ``flows`` (each (end, flow, version)) as one run: sorted by (end, flow)
    into the arena, the run's first entry, where it lies and where it stops on the heap
    ``ends``.  A re-sharing's flows go on in one push, not one each: the heap holds a
    run per re-sharing (hundreds, in cache) instead of an entry per flow (tens of
    thousands), and it gives the entries in the same order (:func:`_pop_end`)."""
    E, F, V, used = arena
    n = len(flows)
    if n == 0:
        return
    base = _arena_room(arena, n)
    if n <= 32:   # an insertion sort by (end, flow)
        for i in range(n):
            f = flows[i]
            e = finish[f]
            j = base + i
            while j > base and (E[j - 1] > e or (E[j - 1] == e and F[j - 1] > f)):
                E[j] = E[j - 1]
                F[j] = F[j - 1]
                V[j] = V[j - 1]
                j -= 1
            E[j] = e
            F[j] = f
            V[j] = version[f]
    else:   # by flow, then stably by end (_time_order)
        ascending = True
        for i in range(1, n):
            if flows[i] < flows[i - 1]:
                ascending = False
                break
        by_flow = np.arange(n) if ascending else np.argsort(flows)
        ends_of = np.empty(n)
        for i in range(n):
            ends_of[i] = finish[flows[by_flow[i]]]
        order = _time_order(ends_of)
        for i in range(n):
            f = flows[by_flow[order[i]]]
            E[base + i] = finish[f]
            F[base + i] = f
            V[base + i] = version[f]
    _push_run(ends, arena, base, n)


@numba.njit(cache=_CACHE, inline="always")
def _arena_room(arena, n):
    """Where the next run of ``n`` entries goes in the arena of the heap of ends."""
    base = arena[3][0]
    if base + n > len(arena[0]):
        raise RuntimeError("the arena of the heap of ends is full")
    return base


@numba.njit(cache=_CACHE, inline="always")
def _write_run(ends, j, arena, first, stop):
    """Entry ``j`` of the heap of ends made the run of the arena's entries ``first`` to
    ``stop``: its first entry's end, flow and version, where it goes on and stops."""
    E, F, V = arena[0], arena[1], arena[2]
    ends[0][j] = E[first]
    row = ends[1][j]
    row[0], row[1], row[2], row[3] = F[first], V[first], first, stop


@numba.njit(cache=_CACHE, inline="always")
def _push_run(ends, arena, base, n):
    """The run of ``n`` entries written at ``base`` of the arena: used, its first entry
    and its place on the heap of ends."""
    arena[3][0] = base + n
    j = _new_slot(ends)
    _write_run(ends, j, arena, base, base + n)
    _sift_up(ends, j)


@numba.njit(cache=_CACHE, inline="always")
def _pop_end(ends, arena):
    """The least entry of the heap of ends (:func:`_push_ends`), as (end, flow, version);
    its run's next entry, if any, takes its place."""
    E, F, V, used = arena
    keys, ints = ends[0], ends[1]
    top = (keys[0], ints[0, 0], ints[0, 1])
    i = ints[0, 2] + 1
    if i < ints[0, 3]:
        keys[0] = E[i]
        ints[0, 0], ints[0, 1], ints[0, 2] = F[i], V[i], i
        _sift_down(ends, 0)
    else:
        _drop_top(ends)
    return top


@numba.njit(cache=_CACHE, nogil=True)
def _time_order(times):
    """The stable ascending order of ``times`` (no NaN): a least-significant-digit radix
    sort, a byte a pass, over each float's bits made an unsigned key that orders as the
    floats do (-0.0 read as 0.0, as a comparison does), a pass skipped where every key
    has the same byte.  A few passes over a window's starts, where numba's merge sort
    or a heap costs a dozen times more."""
    n = len(times)
    keys = (times + 0.0).view(np.uint64)   # a new array: -0.0 + 0.0 is 0.0
    sign = np.uint64(1) << np.uint64(63)
    for i in range(n):
        keys[i] = keys[i] ^ sign if times[i] >= 0 else ~keys[i]
    counts = np.zeros((8, 256), dtype=np.int64)   # every byte's counts in one pass
    for i in range(n):
        key = keys[i]
        for d in range(8):
            counts[d, np.int64((key >> np.uint64(8 * d)) & np.uint64(255))] += 1
    order = np.arange(n)
    other = np.empty(n, dtype=np.int64)
    for d in range(8):
        count = counts[d]
        if n == 0 or count[np.int64((keys[0] >> np.uint64(8 * d)) & np.uint64(255))] == n:
            continue
        total = 0
        for b in range(256):
            total, count[b] = total + count[b], total
        shift = np.uint64(8 * d)
        for i in range(n):
            j = order[i]
            b = np.int64((keys[j] >> shift) & np.uint64(255))
            other[count[b]] = j
            count[b] += 1
        order, other = other, order
    return order


@numba.njit(cache=_CACHE, inline="always")
def _sorted_front(posted, data_latency):
    """The data starts of the messages posted so far (a window's first cascade: in a
    pipelined tree's step, nearly all of them), sorted by (start, message) as the heap of
    starts would give them, and a cursor: taken in order at no heap's cost, the starts
    posted later merged from the heap (:func:`_pop_start`)."""
    msgs = np.flatnonzero(posted < np.inf)
    times = posted[msgs] + data_latency[msgs]
    order = _time_order(times)
    return times[order], msgs[order], np.zeros(1, dtype=np.int64)


@numba.njit(cache=_CACHE, inline="always")
def _first_start(starts, times, cursor):
    """The time of the next data start (inf: none): the least of the heap ``starts`` and
    of the sorted front's ``times`` from its ``cursor`` (:func:`_sorted_front`)."""
    t = times[cursor[0]] if cursor[0] < len(times) else np.inf
    if _size(starts) and starts[0][0] < t:
        return starts[0][0]
    return t


@numba.njit(cache=_CACHE, inline="always")
def _pop_start(starts, times, msgs, cursor):
    """The next data start's message, off the heap ``starts`` or the sorted front
    (:func:`_sorted_front`), whichever holds the least (start, message): the order one
    heap of both gives."""
    i = cursor[0]
    if i < len(times) and (_size(starts) == 0 or (times[i], msgs[i]) < (starts[0][0],
                                                                         starts[1][0, 0])):
        cursor[0] = i + 1
        return msgs[i]
    msg = starts[1][0, 0]
    _drop_top(starts)
    return msg


@numba.njit(cache=_CACHE, inline="always")
def _start_tasks(stack_task, stack_time, n_stack, task_start, task_last, pending, task_rank,
                 reduce_s, task_first, task_msg, post_tasks, post_delay, msg_tasks, eager,
                 send_cost, posted, data_latency, starts, deferred, pushed, piped, pipe):
    """Start the tasks on the stack at their times and every task that follows from them.

    A started task posts its messages whose two posting tasks have both
    started (each at the later of its side's start plus delay; its data's
    start, a route latency later, goes on the heap ``starts`` when ``pushed``;
    the first cascade's are read off ``posted``: :func:`_sorted_front`), settles its
    eager sends (done ``send_cost`` after it started), and, when it then waits
    for nothing, ends: its rank's next task starts when it ended, plus its
    reduction.  The engine's ``start`` cascade, task by task: every update
    is a maximum or a count, so the order does not change the times.  A rank's
    last task that ends gives its clock to the next window (``piped``:
    :func:`_publish`).
    """
    while n_stack > 0:
        n_stack -= 1
        t = stack_task[n_stack]
        task_start[t] = stack_time[n_stack]
        for e in range(task_first[t], task_first[t + 1]):
            msg = task_msg[e]
            if posted[msg] == np.inf:
                a = task_start[post_tasks[0, msg]]
                b = task_start[post_tasks[1, msg]]
                if a < np.inf and b < np.inf:
                    a += post_delay[0, msg]
                    b += post_delay[1, msg]
                    posted[msg] = a if a > b else b
                    if pushed:
                        _push_start(starts, posted[msg] + data_latency[msg], msg)
            if eager[msg] and msg_tasks[0, msg] == t:
                settled = task_start[t] + send_cost[msg]
                if settled > task_last[t]:
                    task_last[t] = settled
                pending[t] -= 1
        if pending[t] == 0:
            # task t has nothing pending: it ends no earlier than it started plus the o_r of
            # its receives whose data came before it started (deferred: SMPI charges o_r in the
            # wait), and its rank's next task, if any, goes on the stack to start after t's
            # local reduction (written out here and in _event_loop: a call costs a reference
            # count per array, per task)
            if task_start[t] + deferred[t] > task_last[t]:
                task_last[t] = task_start[t] + deferred[t]
            if t + 1 < len(task_rank) and task_rank[t + 1] == task_rank[t]:
                stack_task[n_stack] = t + 1
                stack_time[n_stack] = task_last[t] + reduce_s[t]
                n_stack += 1
            elif piped:
                _publish(task_rank[t], task_last[t] + reduce_s[t], pipe)
    return n_stack


# The windows of a pipeline run at once (:func:`run_piped`), each in a thread of its
# own, window k + 1 behind window k: ``pipe`` holds each rank's first task in a window
# (-1: none), the clocks coming in (``in_ranks[:in_state[0]]`` known, in the order
# they became known, at ``in_clocks[rank]``; ``in_state[1]``: the window before
# stopped; ``in_progress[0]``: every clock not yet known will be at least this), the
# same going out to the next window, and a flag to stop.


@numba.njit(cache=_CACHE, inline="always")
def _publish(rank, clock, pipe):
    """Give ``rank``'s clock after this window to the next one."""
    out_ranks, out_clocks, out_state = pipe[5], pipe[6], pipe[7]
    n = out_state[0]   # this thread's alone to write
    out_clocks[rank] = clock
    out_ranks[n] = rank
    _store_release(out_state, 0, n + 1)


@numba.njit(cache=_CACHE, inline="always")
def _absorb(absorbed, stack_task, stack_time, n_stack, pipe):
    """The clocks the window before made known since ``absorbed`` of them: a rank with a
    task here has its first task put on the stack to start at its clock, another's
    clock goes on to the next window as it came.  Returns (how many absorbed, the
    stack's size, the limit: every clock still to come is at least this; inf when
    all are known)."""
    first_of_rank, in_ranks, in_clocks, in_state, in_progress = pipe[:5]
    # the progress before the count: a rank past the count read after it was not yet
    # known when that progress was given, so its clock is at least the progress
    progress = _load_acquire(in_progress, 0)
    n = _load_acquire(in_state, 0)
    for i in range(absorbed, n):
        rank = in_ranks[i]
        t = first_of_rank[rank]
        if t < 0:
            _publish(rank, in_clocks[rank], pipe)
        else:
            stack_task[n_stack] = t
            stack_time[n_stack] = in_clocks[rank]
            n_stack += 1
    return n, n_stack, np.inf if n == len(first_of_rank) else progress


@numba.njit(cache=_CACHE, inline="always")
def _wait(absorbed, limit, pipe):
    """Wait until the window before made more clocks known than ``absorbed`` or moved
    its progress past ``limit``; False when it stopped, or the flag to stop is up."""
    in_state, in_progress, stop = pipe[3], pipe[4], pipe[9]
    while True:
        if _load_acquire(stop, 0) or _load_acquire(in_state, 1):
            return False
        if _load_acquire(in_state, 0) > absorbed or _load_acquire(in_progress, 0) > limit:
            return True
        _yield_cpu()


@numba.njit(cache=_CACHE, nogil=True)
def _local_problem(m, k, n_crossings):
    """Room for :func:`_flight_rates`' problems of up to m flows, k links and
    ``n_crossings`` crossings, made once per :func:`run_together`: per link a local
    number (-1), the link of each local number, counts and cursors; the local
    crossings by flow and by link, capacities, penalties, bounds, the flows 0..m-1 and
    a :func:`workspace`."""
    return (np.full(k, -1, dtype=np.int64), np.empty(k, dtype=np.int64),
            np.zeros(k + 1, dtype=np.int64), np.empty(k, dtype=np.int64),
            np.zeros(m + 1, dtype=np.int64), np.empty(n_crossings, dtype=np.int64),
            np.empty(n_crossings, dtype=np.int64), np.empty(k), np.empty(m), np.empty(m),
            np.arange(m), workspace(m, k))


@numba.njit(cache=_CACHE, inline="always")
def _flight_rates(flight, flow_start, flow_link, capacity, penalty, bound, room, level_rtol):
    """The max-min rates (:func:`fill`) of the flows ``flight`` (ascending), solved over
    them and the shared links they cross alone: the same problem as :func:`fill` with
    the others inactive, its flows in the same order and each link's in ascending
    order, so the same sums (:func:`fill_listed` over flows 0..a-1).  ``room`` is a
    :func:`_local_problem`, left as it came; the rates are its workspace's first
    array, valid until the next call."""
    (local, used, link_start_a, cursor, flow_start_a, flow_link_a, link_flow_a, capacity_a,
     penalty_a, bound_a, every, ws) = room
    a = len(flight)
    k = 0
    for i in range(a):
        f = flight[i]
        for e in range(flow_start[f], flow_start[f + 1]):
            link = flow_link[e]
            if local[link] < 0:
                local[link] = k
                used[k] = link
                capacity_a[k] = capacity[link]
                link_start_a[k + 1] = 0
                k += 1
            link_start_a[local[link] + 1] += 1
        flow_start_a[i + 1] = flow_start_a[i] + flow_start[f + 1] - flow_start[f]
        penalty_a[i] = penalty[f]
        bound_a[i] = bound[f]
    for j in range(k):
        link_start_a[j + 1] += link_start_a[j]
        cursor[j] = link_start_a[j]
    for i in range(a):
        f = flight[i]
        e_a = flow_start_a[i]
        for e in range(flow_start[f], flow_start[f + 1]):
            j = local[flow_link[e]]
            flow_link_a[e_a] = j
            e_a += 1
            link_flow_a[cursor[j]] = i
            cursor[j] += 1
    for j in range(k):
        local[used[j]] = -1
    fill_listed(every, a, flow_start_a[:a + 1], flow_link_a, link_start_a[:k + 1],
                link_flow_a, capacity_a[:k], penalty_a[:a], bound_a[:a], level_rtol, ws)
    return ws[0]


@numba.njit(cache=_CACHE, nogil=True)
def _live_lists(m, flow_start, flow_link, n_links):
    """The crossings of the flows in flight, per link: ``live[link_start[l]:][:n_live[l]]``
    holds the crossings (indexes into ``flow_link``) of link l's flows in flight, in no
    order; ``slot`` is each crossing's place there, ``flow_of`` its flow.  Also a mark
    per flow and per link (the event that last reached it) for :func:`_component`."""
    n = len(flow_link)
    flow_of = np.empty(n, dtype=np.int64)
    for f in range(m):
        for e in range(flow_start[f], flow_start[f + 1]):
            flow_of[e] = f
    return (flow_of, np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64),
            np.zeros(n_links, dtype=np.int64), np.zeros(m, dtype=np.int64),
            np.zeros(n_links, dtype=np.int64))


@numba.njit(cache=_CACHE, inline="always")
def _component(seeds, n_seeds, stamp, in_flight, kept, flow_start, flow_link, link_start,
               lists, group, bounds):
    """The flows in flight that share links, directly or through others, with the seeds
    in flight (their connected components, :func:`_components_apart`), into ``group``
    ascending.  ``stamp`` is this event's mark.  Returns how many: the cost is theirs,
    not every flow's."""
    n = bounds[_components_apart(seeds, n_seeds, stamp, in_flight, kept, flow_start,
                                 flow_link, link_start, lists, group, bounds)]
    group[:n].sort()
    return n


@numba.njit(cache=_CACHE, inline="always")
def _lone_rate(f, flow_start, flow_link, capacity, bound):
    """The max-min rate of flow ``f`` alone on its links (:func:`fill_listed` over it
    alone, the same comparisons): its bound and the capacity of each link it crosses,
    the lowest; -1 when its route crosses a link twice (then the filling shares it)."""
    rate = bound[f]
    for e in range(flow_start[f], flow_start[f + 1]):
        link = flow_link[e]
        for d in range(flow_start[f], e):
            if flow_link[d] == link:
                return -1.0
        if capacity[link] < rate:
            rate = capacity[link]
    return rate


@numba.njit(cache=_CACHE, inline="always")
def _reshare(now, group, left, since, rate, finish, version, ends, arena, size, rate_factor,
             flow_start, flow_link, capacity, penalty, bound, room, level_rtol, done_rtol):
    """The flows ``group`` (ascending: whole components of the flows in flight) move on
    at new max-min rates (:func:`_rates_only`) from ``now``, and their new ends go on
    the heap ``ends`` as one run (:func:`_push_ends`; stamped with each flow's version:
    an older entry is stale)."""
    _rates_only(now, group, left, since, rate, finish, version, size, rate_factor,
                flow_start, flow_link, capacity, penalty, bound, room, level_rtol, done_rtol)
    _push_ends(ends, arena, group, finish, version)


@numba.njit(cache=_CACHE, inline="always")
def _drop_stale(ends, arena, version, in_flight, purge_at):
    """The runs of the heap ``ends`` (:func:`_push_ends`) rid of their stale entries (an
    older version of a flow, or a flow no longer in flight) once the arena holds more
    than ``purge_at[0]``: each run's entries left moved down to the arena's start in
    their order (a run, sorted, stays sorted), and that limit set to twice what is
    left (plus 1024).  A flow re-shared many times leaves an entry each time; the
    arena, of 3 (m + k) + 1024 entries, never fills, as an event pushes at most one
    entry per flow and kept link.
    The entries left and so the order they come off in are the same."""
    E, F, V, used = arena
    if used[0] <= purge_at[0]:
        return
    n_runs = _size(ends)
    where = ends[1][:n_runs, 2].copy()
    stop = ends[1][:n_runs, 3].copy()
    n = 0
    n_kept = 0
    for r in np.argsort(where):   # by place in the arena: each moved down in turn
        first = n
        for i in range(where[r], stop[r]):
            if in_flight[F[i]] and V[i] == version[F[i]]:
                E[n] = E[i]
                F[n] = F[i]
                V[n] = V[i]
                n += 1
        if n > first:
            _write_run(ends, n_kept, arena, first, n)
            n_kept += 1
    ends[2][0] = n_kept
    _heapify(ends)
    used[0] = n
    purge_at[0] = 2 * n + 1024


@numba.njit(cache=_CACHE, nogil=True)
def _link_room(m, k):
    """Room for the sets of :func:`run_together` kept on a link (:func:`_reshare_sets`):
    per flow the link of its set when it was last kept in one (-1: never); per link
    whether an event touched its set and the list of those links (its size last); the
    bounds of an event's components (:func:`_components_apart`) and a list; how many
    sets were formed, how many of their flows ended and how many were dissolved."""
    touched = np.empty(k + 1, dtype=np.int64)
    touched[-1] = 0
    return (np.full(m, -1, dtype=np.int64), np.zeros(k, dtype=np.bool_), touched,
            np.empty(m + 1, dtype=np.int64), np.empty(m, dtype=np.int64),
            np.zeros(3, dtype=np.int64))


@numba.njit(cache=_CACHE, inline="always")
def _components_apart(seeds, n_seeds, stamp, in_flight, kept, flow_start, flow_link,
                      link_start, lists, group, bounds):
    """:func:`_component` one component at a time, unsorted: the flows of component i in
    ``group[bounds[i]:bounds[i + 1]]``.  Returns how many components.  The flows kept
    in a set (``kept``, :func:`_reshare_sets`) are left out: the components are of the
    free flows."""
    flow_of, live, n_live, flow_mark, link_mark = (lists[0], lists[1], lists[3], lists[4],
                                                   lists[5])
    m = len(kept)
    n = 0
    n_comps = 0
    bounds[0] = 0
    for i in range(n_seeds):
        f = seeds[i]
        if not in_flight[f] or flow_mark[f] == stamp or (kept[f] >= 0
                                                         and in_flight[m + kept[f]]):
            continue
        flow_mark[f] = stamp
        group[n] = f
        head = n
        n += 1
        while head < n:
            f = group[head]
            head += 1
            for e in range(flow_start[f], flow_start[f + 1]):
                link = flow_link[e]
                if link_mark[link] == stamp:
                    continue
                link_mark[link] = stamp
                for j in range(link_start[link], link_start[link] + n_live[link]):
                    g = flow_of[live[j]]
                    if flow_mark[g] != stamp and not (kept[g] >= 0 and in_flight[m + kept[g]]):
                        flow_mark[g] = stamp
                        group[n] = g
                        n += 1
        n_comps += 1
        bounds[n_comps] = n
    return n_comps


@numba.njit(cache=_CACHE, inline="always")
def _bring(now, flows, left, since, rate, size, done_rtol):
    """The bytes left of ``flows`` brought to ``now`` at their rates (as :func:`_reshare`)."""
    for f in flows:
        if now > since[f]:
            left[f] = max(left[f] - rate[f] * (now - since[f]), size[f] * done_rtol)
        since[f] = now


@numba.njit(cache=_CACHE, nogil=True)
def _touch_link(link, whole):
    """The component kept on ``link`` changed at this event (a flow joined or ended)."""
    flag, touched = whole[1], whole[2]
    if not flag[link]:
        flag[link] = True
        touched[touched[-1]] = link
        touched[-1] += 1


@numba.njit(cache=_CACHE, inline="always")
def _rates_only(now, group, left, since, rate, finish, version, size, rate_factor, flow_start,
                flow_link, capacity, penalty, bound, room, level_rtol, done_rtol):
    """The flows ``group`` (ascending: whole components of the flows in flight) at new
    max-min rates (:func:`_flight_rates`) from ``now``: their bytes left brought to
    ``now`` at their old rates (:func:`_bring`), their ends and versions set, not pushed
    (:func:`_reshare` and :func:`_reshare_sets` push them).  A flow alone on its links
    takes :func:`_lone_rate` (the same rate, without the filling: half the re-sharings
    of a tree's pipeline)."""
    _bring(now, group, left, since, rate, size, done_rtol)
    lone = _lone_rate(group[0], flow_start, flow_link, capacity, bound) if len(group) == 1 \
        else -1.0
    if lone >= 0:
        rate[group[0]] = lone * rate_factor[group[0]]
    else:
        shared = _flight_rates(group, flow_start, flow_link, capacity, penalty, bound, room,
                               level_rtol)
        for i in range(len(group)):
            rate[group[i]] = shared[i] * rate_factor[group[i]]
    for f in group:
        finish[f] = now + left[f] / rate[f]
        version[f] += 1


#: A set of flows kept on a link (:func:`_reshare_sets`) is formed only of this many
#: flows or more: below, the filling is as cheap as the set's bookkeeping.  Four, not
#: 16: the dragonfly's bcast ``binary`` of 1 MiB on 1,048,576 ranks took 55.6 s of wall
#: against 61.3 s, reduce ``binary`` 51.0 against 57.0 s; the answers move by roundings
#: the trees amplify (at most 0.37 % from the filling without sets on 84 cells of 4096
#: ranks, where 16 gave 0.20 % and SimGrid differs from both by up to 7.4 %;
#: docs/MODELS.md, "Sets from four flows, held against SimGrid at 4096 ranks").
SET_FLOWS = 4

#: The slack a set's other links keep: the most the flows on such a link may take
#: (the sets' reservations and the other flows' rates) is its capacity times
#: 1 - SET_SLACK, so that rounding never makes it a bottleneck unseen.
SET_SLACK = 1e-6


@numba.njit(cache=_CACHE, nogil=True)
def _sets_room(m, capacity, n_crossings):
    """The state of the sets of flows kept on a link (:func:`_reshare_sets`), none yet:
    per link its set's usage (the sum of 1 / penalty of its flows, a two-sum), its
    virtual clock (a two-sum) and when it was last brought up, its cap (the level
    past which the set is dissolved), its size, and the set's heap of virtual ends in
    the link's crossings' places (ends, flows); per link the reservations of the sets
    whose flows cross it elsewhere (a sum, how many) and its capacity less them;
    per link the rates of the free flows on it and per flow the rate counted there;
    a stamp for the searches; scratch per link (two sums, a count, a list) and per
    flow (a mark); the links on which a filling was bound by the reservations."""
    k = len(capacity)
    return (np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(k), np.zeros(k),
            np.zeros(k, dtype=np.int64), np.empty(n_crossings),
            np.empty(n_crossings, dtype=np.int64), np.zeros(k), np.zeros(k, dtype=np.int64),
            capacity.copy(), np.zeros(k), np.zeros(m), np.zeros(1, dtype=np.int64),
            np.zeros(k), np.zeros(k), np.zeros(k, dtype=np.int64),
            np.empty(k, dtype=np.int64), np.zeros(m, dtype=np.bool_),
            np.empty(k, dtype=np.int64))


@numba.njit(cache=_CACHE, inline="always")
def _set_before(k1, f1, k2, f2):
    """Whether virtual end (k1, flow f1) comes before (k2, f2): by end, then flow."""
    return k1 < k2 or (k1 == k2 and f1 < f2)


@numba.njit(cache=_CACHE, inline="always")
def _set_push(keys, flows, base, n, key, f):
    """(key, f) onto the heap of n entries at ``base`` of ``keys`` and ``flows``."""
    i = n
    while i > 0:
        up = (i - 1) >> 1
        if _set_before(keys[base + up], flows[base + up], key, f):
            break
        keys[base + i] = keys[base + up]
        flows[base + i] = flows[base + up]
        i = up
    keys[base + i] = key
    flows[base + i] = f


@numba.njit(cache=_CACHE, inline="always")
def _set_pop(keys, flows, base, n):
    """The least entry off the heap of n entries at ``base`` (:func:`_set_push`)."""
    n -= 1
    key = keys[base + n]
    f = flows[base + n]
    i = 0
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and _set_before(keys[base + c + 1], flows[base + c + 1], keys[base + c],
                                     flows[base + c]):
            c += 1
        if not _set_before(keys[base + c], flows[base + c], key, f):
            break
        keys[base + i] = keys[base + c]
        flows[base + i] = flows[base + c]
        i = c
    if n > 0:
        keys[base + i] = key
        flows[base + i] = f


@numba.njit(cache=_CACHE, inline="always")
def _set_level(link, capacity, sets):
    """The level of the set kept on ``link``: its capacity over its usage."""
    return capacity[link] / (sets[0][link] + sets[1][link])


@numba.njit(cache=_CACHE, inline="always")
def _set_clear(link, sets):
    """The usage and clock of the set on ``link`` back to 0 (no set there)."""
    sets[0][link] = 0.0
    sets[1][link] = 0.0
    sets[2][link] = 0.0
    sets[3][link] = 0.0


@numba.njit(cache=_CACHE, inline="always")
def _set_advance(link, now, capacity, sets):
    """The virtual clock of the set on ``link`` brought up to ``now`` at its level."""
    since = sets[4]
    if now > since[link]:
        sets[2][link], sets[3][link] = _two_sum(sets[2][link], sets[3][link],
                                               _set_level(link, capacity, sets)
                                               * (now - since[link]))
        since[link] = now


@numba.njit(cache=_CACHE, inline="always")
def _set_first_end(link, capacity, sets, link_start):
    """When the first flow of the set on ``link`` ends, at its level now (its clock
    brought up to its last change)."""
    key = sets[7][link_start[link]]
    return sets[4][link] + ((key - sets[2][link]) - sets[3][link]) / _set_level(
        link, capacity, sets)


@numba.njit(cache=_CACHE, inline="always")
def _set_eligible(f, link, flow_start, flow_link, capacity, bound):
    """Whether flow f may be kept on ``link``: it crosses it, no link of it has less
    capacity, its bound is not below it and it crosses no link twice (then the link's
    level is the lowest of f's whatever else is in flight)."""
    floor = capacity[link]
    if bound[f] < floor:
        return False
    crosses = False
    for e in range(flow_start[f], flow_start[f + 1]):
        other = flow_link[e]
        crosses = crosses or other == link
        if capacity[other] < floor:
            return False
        for d in range(flow_start[f], e):
            if flow_link[d] == other:
                return False
    return crosses


@numba.njit(cache=_CACHE, inline="always")
def _set_reserve(f, link, sign, flow_start, flow_link, capacity, penalty, sets):
    """Flow f of the set on ``link`` reserves (sign 1) or frees (-1) the set's cap over
    its penalty on each of its other links."""
    cap, reserved, n_reserved, residual = sets[5], sets[9], sets[10], sets[11]
    x = cap[link] / penalty[f]
    for e in range(flow_start[f], flow_start[f + 1]):
        other = flow_link[e]
        if other == link:
            continue
        n_reserved[other] += sign
        if n_reserved[other] == 0:
            reserved[other] = 0.0
            residual[other] = capacity[other]
        else:
            reserved[other] += sign * x
            residual[other] = capacity[other] - reserved[other]


@numba.njit(cache=_CACHE, inline="always")
def _set_room_for(f, link, cap, m, in_flight, flow_start, flow_link, capacity, penalty,
                  sets):
    """Whether flow f's other links (none kept a set) leave room for it in the set on
    ``link`` at ``cap``: each link's reservations, f's and the free flows' rates within
    its capacity times 1 - SET_SLACK."""
    reserved, free_load = sets[9], sets[12]
    x = cap / penalty[f]
    for e in range(flow_start[f], flow_start[f + 1]):
        other = flow_link[e]
        if other == link:
            continue
        if in_flight[m + other]:
            return False
        if reserved[other] + x + free_load[other] > capacity[other] * (1.0 - SET_SLACK):
            return False
    return True


@numba.njit(cache=_CACHE, inline="always")
def _set_join(f, link, now, left_bytes, size, rate_factor, penalty, flow_start, flow_link,
              capacity, kept, sets, link_start):
    """Flow f, ``left_bytes`` to go, joins the set on ``link`` at ``now``."""
    _set_advance(link, now, capacity, sets)
    sets[0][link], sets[1][link] = _two_sum(sets[0][link], sets[1][link], 1.0 / penalty[f])
    n = sets[6][link]
    key = sets[2][link] + (sets[3][link] + left_bytes * penalty[f] / rate_factor[f])
    _set_push(sets[7], sets[8], link_start[link], n, key, f)
    sets[6][link] = n + 1
    kept[f] = link
    _set_reserve(f, link, 1, flow_start, flow_link, capacity, penalty, sets)


@numba.njit(cache=_CACHE, nogil=True)
def _dissolve(link, now, state, seeds, n_seeds, size, rate_factor, penalty, flow_start,
              flow_link, capacity, kept, sets, link_start, done_rtol):
    """The set on ``link`` is no more: each flow's bytes left, rate and start of account
    at ``now`` from its virtual end, and it becomes a seed of the re-sharing (its
    reservations freed).  Returns the number of seeds."""
    in_flight, left, since, rate, version = state[0], state[1], state[2], state[3], state[5]
    m = len(size)
    _set_advance(link, now, capacity, sets)
    level = _set_level(link, capacity, sets)
    base = link_start[link]
    keys, owners = sets[7], sets[8]
    clock, clock_error = sets[2][link], sets[3][link]
    for i in range(sets[6][link]):
        f = owners[base + i]
        work = (keys[base + i] - clock) - clock_error
        left[f] = max(work * rate_factor[f] / penalty[f], size[f] * done_rtol)
        since[f] = now
        rate[f] = level / penalty[f] * rate_factor[f]
        version[f] += 1
        _set_reserve(f, link, -1, flow_start, flow_link, capacity, penalty, sets)
        kept[f] = -1
        seeds[n_seeds] = f
        n_seeds += 1
    sets[6][link] = 0
    _set_clear(link, sets)
    in_flight[m + link] = False
    version[m + link] += 1
    return n_seeds


@numba.njit(cache=_CACHE, inline="always")
def _start_set(f, now, state, flow_start, flow_link, link_start, capacity, penalty, bound,
               size, rate_factor, lists, seeds, n_seeds, whole, sets, done_rtol):
    """Flow f starts (before it joins its links' lists): it joins the set kept on one of
    its links when that is the only set among them, f is eligible (:func:`_set_eligible`)
    and its other links have room (:func:`_set_room_for`); otherwise every set on its
    links is dissolved (:func:`_dissolve`) and f is a seed.  Returns the number of
    seeds."""
    in_flight = state[0]
    m = len(size)
    kept = whole[0]
    target = -1
    several = False
    for e in range(flow_start[f], flow_start[f + 1]):
        link = flow_link[e]
        if in_flight[m + link]:
            several = several or target >= 0
            target = link
    if target >= 0 and not several and _set_eligible(f, target, flow_start, flow_link,
                                                     capacity, bound) \
            and _set_room_for(f, target, sets[5][target], m, in_flight, flow_start, flow_link,
                              capacity, penalty, sets):
        _set_join(f, target, now, size[f], size, rate_factor, penalty, flow_start, flow_link,
                  capacity, kept, sets, link_start)
        _touch_link(target, whole)
        return n_seeds
    for e in range(flow_start[f], flow_start[f + 1]):
        link = flow_link[e]
        if in_flight[m + link]:
            whole[5][2] += 1
            n_seeds = _dissolve(link, now, state, seeds, n_seeds, size, rate_factor, penalty,
                                flow_start, flow_link, capacity, kept, sets, link_start,
                                done_rtol)
    seeds[n_seeds] = f
    return n_seeds + 1


@numba.njit(cache=_CACHE, inline="always")
def _bound_by_a_set(flows, rate, rate_factor, flow_start, flow_link, sets, links):
    """The links of the free ``flows`` that sets' flows cross too (a reservation) and on
    which the free flows' rates reach their room (capacity less the reservations, times
    1 - SET_SLACK): there the filling was bound by the sets, whose flows must be shared
    with them.  Into ``links``; returns how many."""
    n_reserved, residual, acc, listed = sets[10], sets[11], sets[16], sets[18]
    n_listed = 0
    for f in flows:
        share = rate[f] / rate_factor[f]
        for e in range(flow_start[f], flow_start[f + 1]):
            link = flow_link[e]
            if n_reserved[link] == 0:
                continue
            if acc[link] == 0.0:
                listed[n_listed] = link
                n_listed += 1
            acc[link] += share
    n = 0
    for i in range(n_listed):
        link = listed[i]
        if acc[link] >= residual[link] * (1.0 - SET_SLACK):
            links[n] = link
            n += 1
        acc[link] = 0.0
    return n


@numba.njit(cache=_CACHE, inline="always")
def _count_free(flows, rate, rate_factor, flow_start, flow_link, sets):
    """The free ``flows``' new rates counted on their links (the free flows' rates per
    link, :func:`_set_room_for`)."""
    free_load, counted = sets[12], sets[13]
    for f in flows:
        share = rate[f] / rate_factor[f]
        change = share - counted[f]
        counted[f] = share
        for e in range(flow_start[f], flow_start[f + 1]):
            free_load[flow_link[e]] += change


@numba.njit(cache=_CACHE, nogil=True)
def _set_candidates(flows, m, in_flight, flow_start, flow_link, n_live, sets):
    """The links that SET_FLOWS or more of the free ``flows`` cross, every flow in flight
    on each among them, no set's reservation on it and no set kept on it, into
    ``sets[18][:n]``.  Returns n."""
    count, listed, n_reserved = sets[17], sets[18], sets[10]
    n_listed = _crossings(flows, len(flows), flow_start, flow_link, count, listed)
    n = 0
    for i in range(n_listed):
        link = listed[i]
        if count[link] >= SET_FLOWS and count[link] == n_live[link] and n_reserved[link] == 0 \
                and not in_flight[m + link]:
            listed[n] = link
            n += 1
        count[link] = 0
    return n


@numba.njit(cache=_CACHE, nogil=True)
def _one_level(link, members, kept, rate, rate_factor, penalty, flow_start, flow_link,
               capacity, bound):
    """The level of ``link`` over ``members`` (ascending, every flow in flight on it) when
    each is free and eligible (:func:`_set_eligible`), the link saturated and every one
    at that level (the filling fixed them all there); else -1."""
    usage_hi = 0.0
    usage_lo = 0.0
    load = 0.0
    for f in members:
        if kept[f] >= 0 or not _set_eligible(f, link, flow_start, flow_link, capacity, bound):
            return -1.0
        usage_hi, usage_lo = _two_sum(usage_hi, usage_lo, 1.0 / penalty[f])
        load += rate[f] / rate_factor[f]
    level = capacity[link] / (usage_hi + usage_lo)
    if load < capacity[link] * (1.0 - SET_SLACK):
        return -1.0   # not saturated: its flows are bound elsewhere
    for f in members:
        if abs(rate[f] / rate_factor[f] * penalty[f] - level) > SET_SLACK * level:
            return -1.0
    return level


@numba.njit(cache=_CACHE, nogil=True)
def _set_has_room(link, members, cap, m, in_flight, flow_start, flow_link, capacity, penalty,
                  sets):
    """Whether the other links of ``members`` have room for them as a set on ``link`` at
    ``cap``: on each, its reservations, theirs at the cap and the free flows' rates but
    theirs within its capacity times 1 - SET_SLACK, and no set kept on it."""
    add_ub, add_free, counted, free_load, reserved = (sets[15], sets[16], sets[13], sets[12],
                                                      sets[9])
    n_other = 0
    other_links = np.empty(len(members) * 8, dtype=np.int64)
    for f in members:
        for e in range(flow_start[f], flow_start[f + 1]):
            other = flow_link[e]
            if other == link:
                continue
            if add_ub[other] == 0.0 and add_free[other] == 0.0:
                if n_other == len(other_links):
                    other_links = np.concatenate((other_links, other_links))
                other_links[n_other] = other
                n_other += 1
            add_ub[other] += cap / penalty[f]
            add_free[other] += counted[f]
    room = True
    for q in range(n_other):
        other = other_links[q]
        if in_flight[m + other] or reserved[other] + add_ub[other] + (
                free_load[other] - add_free[other]) > capacity[other] * (1.0 - SET_SLACK):
            room = False
        add_ub[other] = 0.0
        add_free[other] = 0.0
    return room


@numba.njit(cache=_CACHE, nogil=True)
def _form_sets(now, flows, state, size, rate_factor, penalty, flow_start, flow_link,
               capacity, bound, lists, link_start, whole, sets):
    """After a filling of the free ``flows`` (ascending, whole free components): a link
    that SET_FLOWS of them or more cross (:func:`_set_candidates`), every flow on it
    eligible and at one level (:func:`_one_level`), keeps them as a set when their other
    links have room at twice that level (:func:`_set_has_room`; the set's cap: past it,
    the set is dissolved and filled again).  Marks the flows kept (``sets[19]``) and
    touches the new sets' links."""
    in_flight, left, rate = state[0], state[1], state[3]
    m = len(size)
    kept = whole[0]
    flow_of, live, n_live = lists[0], lists[1], lists[3]
    counted, free_load, marked, listed = sets[13], sets[12], sets[19], sets[18]
    for i in range(_set_candidates(flows, m, in_flight, flow_start, flow_link, n_live, sets)):
        link = listed[i]
        members = np.empty(n_live[link], dtype=np.int64)
        for j in range(n_live[link]):
            members[j] = flow_of[live[link_start[link] + j]]
        members.sort()
        level = _one_level(link, members, kept, rate, rate_factor, penalty, flow_start,
                           flow_link, capacity, bound)
        if level < 0 or not _set_has_room(link, members, 2.0 * level, m, in_flight,
                                          flow_start, flow_link, capacity, penalty, sets):
            continue
        _set_clear(link, sets)
        sets[4][link] = now
        sets[5][link] = 2.0 * level
        sets[6][link] = 0
        in_flight[m + link] = True
        for f in members:
            for e in range(flow_start[f], flow_start[f + 1]):
                free_load[flow_link[e]] -= counted[f]
            counted[f] = 0.0
            _set_join(f, link, now, left[f], size, rate_factor, penalty, flow_start,
                      flow_link, capacity, kept, sets, link_start)
            marked[f] = True
        _touch_link(link, whole)
        whole[5][0] += 1


@numba.njit(cache=_CACHE, inline="always")
def _reshare_sets(now, ends, arena, state, seeds, n_seeds, flow_start, flow_link, link_start,
                  capacity, penalty, bound, size, rate_factor, room, lists, level_rtol,
                  done_rtol, whole, sets):
    """The re-sharing of an event with sets of flows kept on a link.

    A *set* is the flows in flight on a link L that is their bottleneck:
    they move at L's level over their penalty, on one virtual clock for all
    (an event of the set costs a heap's push or pop, not its flows), and
    their other links keep room for them at a cap of twice the level they
    had when the set was formed (reservations: those links are never
    saturated while the set lives, so the set's flows and the others
    sharing those links do not change each other's rates).  Every other flow
    is *free*: the components of the seeds over the free flows are filled
    as before (:func:`_rates_only`), with each link's capacity less the
    sets' reservations on it.  When that filling is bound on a link by the
    reservations, the sets crossing it are dissolved and the filling made
    again with their flows.  Afterwards, a link the filled flows saturate
    at one level, SET_FLOWS of them or more, becomes a set when the room
    is there (:func:`_form_sets`).  The answers are the filling's to within
    roundings, not to the bit.
    """
    in_flight, left, since, rate, finish, version, group = (state[0], state[1], state[2],
                                                            state[3], state[4], state[5],
                                                            state[6])
    kept = whole[0]
    order = whole[4]
    residual, binding = sets[11], sets[20]
    while True:
        sets[14][0] -= 1
        stamp = sets[14][0]
        bounds = whole[3]
        n = bounds[_components_apart(seeds, n_seeds, stamp, in_flight, kept, flow_start,
                                     flow_link, link_start, lists, group, bounds)]
        if n == 0:
            return
        order[:n] = group[:n]
        order[:n].sort()
        flows = order[:n]
        _rates_only(now, flows, left, since, rate, finish, version, size, rate_factor,
                    flow_start, flow_link, residual, penalty, bound, room, level_rtol,
                    done_rtol)
        n_binding = _bound_by_a_set(flows, rate, rate_factor, flow_start, flow_link, sets,
                                    binding)
        if n_binding == 0:
            break
        flow_of, live, n_live = lists[0], lists[1], lists[3]
        m = len(size)
        for i in range(n_binding):
            link = binding[i]
            for j in range(link_start[link], link_start[link] + n_live[link]):
                g = flow_of[live[j]]
                if kept[g] >= 0 and in_flight[m + kept[g]]:
                    whole[5][2] += 1
                    n_seeds = _dissolve(kept[g], now, state, seeds, n_seeds, size,
                                        rate_factor, penalty, flow_start, flow_link, capacity,
                                        kept, sets, link_start, done_rtol)
    _count_free(flows, rate, rate_factor, flow_start, flow_link, sets)
    marked = sets[19]
    if n >= SET_FLOWS:
        _form_sets(now, flows, state, size, rate_factor, penalty, flow_start, flow_link,
                   capacity, bound, lists, link_start, whole, sets)
    n_free = 0
    for f in flows:
        if marked[f]:
            marked[f] = False
            version[f] += 1
        else:
            group[n_free] = f
            n_free += 1
    _push_ends(ends, arena, group[:n_free], finish, version)


@numba.njit(cache=_CACHE, inline="always")
def _refresh_sets(now, ends, arena, state, capacity, whole, sets, link_start):
    """The sets an event touched (a flow joined, ended or a set was formed) that still
    have flows: their first end on the heap of ends (entry m + link, a new version);
    the list emptied."""
    in_flight, version = state[0], state[5]
    m = len(state[2])
    flag, touched = whole[1], whole[2]
    for i in range(touched[-1]):
        link = touched[i]
        flag[link] = False
        if not in_flight[m + link]:
            continue
        version[m + link] += 1
        j = _arena_room(arena, 1)
        arena[0][j] = _set_first_end(link, capacity, sets, link_start)
        arena[1][j] = m + link
        arena[2][j] = version[m + link]
        _push_run(ends, arena, j, 1)
    touched[-1] = 0


@numba.njit(cache=_CACHE, inline="always")
def _set_ends(link, until, threshold, finished, n_finished, state, capacity, penalty, flow_start,
              flow_link, whole, sets, link_start):
    """The flows of the set on ``link`` whose ends reach ``threshold`` end (their end
    times into ``finish``) and leave it; the set is touched.  Returns how many finished
    now."""
    in_flight, finish = state[0], state[4]
    keys, owners, n_mem = sets[7], sets[8], sets[6]
    base = link_start[link]
    level = _set_level(link, capacity, sets)
    since, clock, clock_error = sets[4][link], sets[2][link], sets[3][link]
    gone = 0
    while n_mem[link] > 0:
        at = since + ((keys[base] - clock) - clock_error) / level
        if at > threshold:
            break
        f = owners[base]
        _set_pop(keys, owners, base, n_mem[link])
        n_mem[link] -= 1
        finish[f] = at
        in_flight[f] = False
        finished[n_finished] = f
        n_finished += 1
        gone += 1
    whole[5][1] += gone
    if gone:
        # the clock to the ends' time at the old level, then the level rises
        _set_advance(link, until, capacity, sets)
        for i in range(n_finished - gone, n_finished):
            f = finished[i]
            sets[0][link], sets[1][link] = _two_sum(sets[0][link], sets[1][link],
                                                   -1.0 / penalty[f])
            _set_reserve(f, link, -1, flow_start, flow_link, capacity, penalty, sets)
    _touch_link(link, whole)
    return n_finished


@numba.njit(cache=_CACHE, inline="always")
def _sets_after_ends(now, state, seeds, n_seeds, size, rate_factor, penalty, flow_start,
                     flow_link, capacity, whole, sets, link_start, done_rtol):
    """After an event's ends: a touched set left without flows is gone, one whose level
    rose past its cap is dissolved (:func:`_dissolve`: its flows are seeds).  Returns
    the number of seeds."""
    in_flight = state[0]
    m = len(size)
    touched = whole[2]
    for i in range(touched[-1]):
        link = touched[i]
        if not in_flight[m + link]:
            continue
        if sets[6][link] == 0:
            in_flight[m + link] = False
            _set_clear(link, sets)
        elif _set_level(link, capacity, sets) > sets[5][link]:
            whole[5][2] += 1
            n_seeds = _dissolve(link, now, state, seeds, n_seeds, size, rate_factor, penalty,
                                flow_start, flow_link, capacity, whole[0], sets, link_start,
                                done_rtol)
    return n_seeds


@numba.njit(cache=_CACHE, inline="always")
def _start_data(now, starts, front, state, seeds, n_seeds, flow_start, flow_link,
                link_start, capacity, penalty, bound, size, rate_factor, lists, whole, sets,
                keep_sets, done_rtol):
    """The data that start by ``now`` go in flight: each joins a set (``keep_sets``,
    :func:`_start_set`) or becomes a seed, and joins its links' lists.  Returns the
    number of seeds."""
    in_flight, since = state[0], state[2]
    live, slot, n_live = lists[1], lists[2], lists[3]
    m = len(since)
    times, msgs, cursor = front
    while _first_start(starts, times, cursor) <= now:
        f = _pop_start(starts, times, msgs, cursor)
        in_flight[f] = True
        since[f] = now
        if keep_sets:
            n_seeds = _start_set(f, now, state, flow_start, flow_link, link_start, capacity,
                                 penalty, bound, size, rate_factor, lists, seeds, n_seeds,
                                 whole, sets, done_rtol)
        else:
            seeds[n_seeds] = f
            n_seeds += 1
        # its crossings join their links' lists (written out: a call per flow costs a
        # reference count per array)
        for e in range(flow_start[f], flow_start[f + 1]):
            link = flow_link[e]
            j = link_start[link] + n_live[link]
            live[j] = e
            slot[e] = j
            n_live[link] += 1
    return n_seeds


@numba.njit(cache=_CACHE, inline="always")
def _stale_top(ends, in_flight, version):
    """Whether the heap of ends has an entry first that is stale: its flow no longer in
    flight, or re-shared since (another version)."""
    if _size(ends) == 0:
        return False
    f = ends[1][0, 0]
    return not in_flight[f] or ends[1][0, 1] != version[f]


@numba.njit(cache=_CACHE, inline="always")
def _next_events(now, starts, front, ends, arena, state, seeds, n_seeds, stamp, flow_start,
                 flow_link, link_start, capacity, penalty, bound, size, rate_factor, room, lists,
                 finished, level_rtol, done_rtol, whole, sets, keep_sets, piped, limit):
    """From ``now``: the data that start then go in flight, the components of the flows
    in flight that changed (those of the new flows and of the ``seeds``, the neighbours
    of the flows that ended) are re-shared (:func:`_reshare`), and the flows in flight
    move on to the first end or start.  The flows that end then, ascending, go into
    ``finished``, and their neighbours into ``seeds``.  Returns (until, how many
    finished, how many seeds, deadlocked: nothing in flight and nothing to start,
    paused).

    ``piped`` (:func:`run_piped`): a start not yet known is at ``limit`` or later, so
    when the next event is there or later, nothing moves on: the call returns
    paused, its starts and re-sharing done, and is made again from the same ``now``
    once more is known (it then starts nothing and re-shares nothing again).

    A component that did not change keeps its rates and ends: an event costs the
    flows of the components it touches, not every flow in flight.  With
    ``keep_sets``, the flows on a link that is their bottleneck are kept there as a set
    on one virtual clock (:func:`_reshare_sets`): an event of a set costs a heap's push
    or pop, and the fillings are of the free flows only."""
    in_flight, left, since, rate, finish, version, group, purge_at = state
    m = len(size)
    n_seeds = _start_data(now, starts, front, state, seeds, n_seeds, flow_start, flow_link,
                          link_start, capacity, penalty, bound, size, rate_factor, lists,
                          whole, sets, keep_sets, done_rtol)
    if keep_sets:
        if n_seeds:
            _reshare_sets(now, ends, arena, state, seeds, n_seeds, flow_start, flow_link,
                          link_start, capacity, penalty, bound, size, rate_factor, room, lists,
                          level_rtol, done_rtol, whole, sets)
        if whole[2][-1]:
            _refresh_sets(now, ends, arena, state, capacity, whole, sets, link_start)
        _drop_stale(ends, arena, version, in_flight, purge_at)
    elif n_seeds:
        n = _component(seeds, n_seeds, stamp, in_flight, whole[0], flow_start, flow_link,
                       link_start, lists, group, whole[3])
        _reshare(now, group[:n], left, since, rate, finish, version, ends, arena, size,
                 rate_factor, flow_start, flow_link, capacity, penalty, bound, room, level_rtol,
                 done_rtol)
        _drop_stale(ends, arena, version, in_flight, purge_at)
    next_start = _first_start(starts, front[0], front[2])
    # the heap rid of stale entries at its top; the first end (inf: none)
    while _stale_top(ends, in_flight, version):
        _pop_end(ends, arena)
    first_end = ends[0][0] if _size(ends) else np.inf
    until = min(first_end, next_start)
    if piped and limit <= until and limit < np.inf:
        return until, 0, 0, False, True
    if _size(ends) == 0 and next_start == np.inf:
        return np.inf, 0, 0, True, False
    threshold = until + abs(until) * done_rtol
    n_finished = 0
    while _size(ends) and first_end <= threshold:
        f = _pop_end(ends, arena)[1]
        if f >= m:   # a set's flows
            n_finished = _set_ends(f - m, until, threshold, finished, n_finished, state,
                                   capacity, penalty, flow_start, flow_link, whole, sets,
                                   link_start)
        else:
            in_flight[f] = False
            finished[n_finished] = f
            n_finished += 1
        while _stale_top(ends, in_flight, version):
            _pop_end(ends, arena)
        first_end = ends[0][0] if _size(ends) else np.inf
    finished[:n_finished].sort()
    n_seeds = 0
    kept = whole[0]
    flow_of, live, slot, n_live = lists[0], lists[1], lists[2], lists[3]
    free_load, counted, n_reserved = sets[12], sets[13], sets[10]
    for i in range(n_finished):
        f = finished[i]
        # a set's flow changes no other flow's rate: its other links keep room for it
        seed = not (keep_sets and kept[f] >= 0)
        free = keep_sets and seed
        # its crossings leave their links' lists (a swap with the list's last), and (seed:
        # not a set's) one flow in flight on each of its links (one component with it)
        # seeds the next re-sharing (written out: a call costs a reference count per array)
        for e in range(flow_start[f], flow_start[f + 1]):
            link = flow_link[e]
            moved = live[link_start[link] + n_live[link] - 1]
            live[slot[e]] = moved
            slot[moved] = slot[e]
            n_live[link] -= 1
            if free:
                # the free flows' rates on the link; a link with a set's reservation is
                # no free flow's bottleneck: its other free flows keep their rates
                free_load[link] = free_load[link] - counted[f] if n_live[link] else 0.0
                if n_reserved[link]:
                    continue
            if seed and n_live[link] > 0:
                seeds[n_seeds] = flow_of[live[link_start[link]]]
                n_seeds += 1
        if free:
            counted[f] = 0.0
    if keep_sets and whole[2][-1]:
        n_seeds = _sets_after_ends(until, state, seeds, n_seeds, size, rate_factor, penalty,
                                   flow_start, flow_link, capacity, whole, sets, link_start,
                                   done_rtol)
    return until, n_finished, n_seeds, False, False


@numba.njit(cache=_CACHE, inline="always")
def _by_arrival(serial, finished_at):
    """``serial`` (indexes into ``finished_at``, ascending) sorted stably by
    ``finished_at``: in place by insertion for up to 32 (an event of a tree ends one
    or two messages; a merge sort allocates three arrays), else a merge sort."""
    n = len(serial)
    if n > 32:
        serial[:] = serial[np.argsort(finished_at[serial], kind="mergesort")]
        return
    for j in range(1, n):
        i = serial[j]
        k = j
        while k > 0 and finished_at[serial[k - 1]] > finished_at[i]:
            serial[k] = serial[k - 1]
            k -= 1
        serial[k] = i


@numba.njit(cache=_CACHE, inline="always")
def _end_messages(n_finished, finished, finished_at, done, received, receive_cost,
                  serial_receiver, msg_tasks, receiver_free, task_last, pending, touched,
                  eager, task_start, receive_after, deferred, serial):
    """The finished messages end their receiver's task side (o_r after the data, in
    turn of arrival for a rank receiving several in its part, from ``receive_after``
    past its start: when its last send is posted) and, when it waited (rendezvous),
    their sender's.  A receive posted ahead whose data come before the task that waits
    for it has started pays its o_r from that start (``deferred``: SMPI charges it in
    the wait, ``Request::finish_wait``).  ``serial`` is scratch for the serial
    receivers' messages.  Returns the tasks they touched, ascending."""
    n_serial = 0
    for i in range(n_finished):
        f = finished[i]
        done[f] = True
        r = msg_tasks[1, f]
        if task_start[r] == np.inf:
            deferred[r] += receive_cost[f]
            received[i] = finished_at[i]
            continue
        # o_r from the later of the data and the waiting task's start (a start may be
        # set ahead of now: its previous task's end plus that task's reduction)
        received[i] = max(finished_at[i], task_start[r]) + receive_cost[f]
        if serial_receiver[r]:
            n_serial += 1
    if n_serial:
        j = 0
        for i in range(n_finished):
            r = msg_tasks[1, finished[i]]
            if serial_receiver[r] and task_start[r] < np.inf:
                serial[j] = i
                j += 1
        _by_arrival(serial[:j], finished_at)
        for i in serial[:j]:
            f = finished[i]
            r = msg_tasks[1, f]
            free = receiver_free[r]
            if task_start[r] + receive_after[r] > free:
                free = task_start[r] + receive_after[r]
            if finished_at[i] > free:
                free = finished_at[i]
            receiver_free[r] = free + receive_cost[f]
            received[i] = receiver_free[r]
    n_touched = 0
    for i in range(n_finished):
        f = finished[i]
        r = msg_tasks[1, f]
        if received[i] > task_last[r]:
            task_last[r] = received[i]
        pending[r] -= 1
        touched[n_touched] = r
        n_touched += 1
        if not eager[f]:
            s = msg_tasks[0, f]
            if finished_at[i] > task_last[s]:
                task_last[s] = finished_at[i]
            pending[s] -= 1
            touched[n_touched] = s
            n_touched += 1
    # ascending, each once (numpy.unique's answer, in place: no array made per event)
    touched[:n_touched].sort()
    n_unique = 0
    for i in range(n_touched):
        if n_unique == 0 or touched[i] != touched[n_unique - 1]:
            touched[n_unique] = touched[i]
            n_unique += 1
    return touched[:n_unique]


@numba.njit(cache=_CACHE, nogil=True)
def run_together(first_tasks, first_times, task_rank, pending, reduce_s, task_first, task_msg,
                 msg_tasks, post_tasks, post_delay, eager, send_cost, receive_cost,
                 serial_receiver, receive_after, data_latency, size, rate_factor, flow_start,
                 flow_link, link_start, link_flow, capacity, penalty, bound, level_rtol,
                 done_rtol, keep_sets):
    """:func:`_together`: every component an event changes filled, or (``keep_sets``)
    the flows on a link that is their bottleneck kept as a set on one virtual clock
    and the free flows filled (:func:`_reshare_sets`; the same numbers within
    roundings)."""
    return _together(first_tasks, first_times, task_rank, pending, reduce_s, task_first,
                     task_msg, msg_tasks, post_tasks, post_delay, eager, send_cost,
                     receive_cost, serial_receiver, receive_after, data_latency, size,
                     rate_factor, flow_start, flow_link, link_start, link_flow, capacity,
                     penalty, bound, level_rtol, done_rtol, keep_sets, _no_pipe())[:2]


@numba.njit(cache=_CACHE, inline="always")
def _no_pipe():
    """A ``pipe`` of empty arrays, for a window run alone (:func:`run_together`)."""
    ranks, clocks, flags = np.empty(0, np.int64), np.empty(0), np.zeros(2, np.int64)
    return (ranks, ranks, clocks, flags, clocks, ranks, clocks, flags, clocks, flags)


@numba.njit(cache=_CACHE, nogil=True)
def run_piped(pipe, task_rank, pending, reduce_s, task_first, task_msg, msg_tasks, post_tasks,
              post_delay, eager, send_cost, receive_cost, serial_receiver, receive_after,
              data_latency, size, rate_factor, flow_start, flow_link, link_start, link_flow,
              capacity, penalty, bound, level_rtol, done_rtol, keep_sets):
    """:func:`run_together` of one window of a pipeline while the window before runs in
    another thread: the rank clocks come in through ``pipe`` as that window makes them
    known, and this window's go out through it to the next (``engine._run_piped``).

    ``pipe``: (first task of each rank here, -1 for none; the ranks made known, in
    order, their clocks by rank, [how many known, stopped], [progress]: the clocks
    coming in; the same going out; [stop]).  An event at a time t is taken only
    once every clock below t is known (the window before has passed t: its progress,
    the time of its own events, bounds every clock it has still to give), so this
    window takes the same events in the same order as run alone from the clocks at
    once, and its answers are the same to the bit.  Returns whether the tasks
    deadlocked, the window before stopped, or the flag to stop was raised (then the
    windows after stop too).
    """
    empty = np.empty(0, dtype=np.int64)
    return _together(empty, np.empty(0), task_rank, pending, reduce_s, task_first, task_msg,
                     msg_tasks, post_tasks, post_delay, eager, send_cost, receive_cost,
                     serial_receiver, receive_after, data_latency, size, rate_factor,
                     flow_start, flow_link, link_start, link_flow, capacity, penalty, bound,
                     level_rtol, done_rtol, keep_sets, pipe)[1]


@numba.njit(cache=_CACHE, nogil=True)
def _together(first_tasks, first_times, task_rank, pending, reduce_s, task_first, task_msg,
              msg_tasks, post_tasks, post_delay, eager, send_cost, receive_cost,
              serial_receiver, receive_after, data_latency, size, rate_factor, flow_start,
              flow_link, link_start, link_flow, capacity, penalty, bound, level_rtol,
              done_rtol, keep_sets, pipe):
    """The event simulation of several steps (the engine's ``_run_together``), compiled.

    Tasks are (rank, step) pairs, a rank's in order; a message is posted
    when both its posting tasks have started, its data starts a route
    latency later and moves at its max-min rate (:func:`fill`) among every
    flow in flight, re-shared whenever one ends or starts: the components
    of the flows in flight that the event changes only (:func:`_next_events`:
    the others' rates do not change).  A finished
    message ends its receiver's task side (after ``receive_cost``, in turn
    of arrival for a ``serial_receiver``, from ``receive_after`` past the
    task's start) and, rendezvous, its sender's.
    Returns (each task's end, False) or, when the tasks deadlock, (.., True), and
    (``keep_sets``) how many sets were formed, how many of their flows ended on their
    clocks and how many sets were dissolved (:func:`_reshare_sets`).  ``pending`` is
    consumed.  The loop (:func:`_event_loop`) works on borrowed views of every array
    (:func:`_borrowed`): ``owned`` here keeps their owners until the return.
    With a ``pipe`` of ranks (:func:`run_piped`; :func:`_no_pipe`: none), the first tasks
    come in through it instead, and the ranks' clocks go out through it.
    """
    n_tasks = len(task_rank)
    m = len(size)
    task_start = np.full(n_tasks, np.inf)
    task_last = np.full(n_tasks, -np.inf)
    posted = np.full(m, np.inf)
    deferred = np.zeros(n_tasks)   # o_r of data come before their waiting task started
    stack_task = np.empty(n_tasks, dtype=np.int64)
    stack_time = np.empty(n_tasks)
    n_stack = 0
    for i in range(len(first_tasks) - 1, -1, -1):
        stack_task[n_stack] = first_tasks[i]
        stack_time[n_stack] = first_times[i]
        n_stack += 1
    starts = _starts_heap(m)   # (data start, message)
    # (piped is a value, not a literal argument: one compilation for both callers)
    piped = len(pipe[0]) > 0
    absorbed, limit = 0, np.inf
    if piped:   # the first tasks whose clocks are known already
        absorbed, n_stack, limit = _absorb(0, stack_task, stack_time, n_stack, pipe)
    n_stack = _start_tasks(stack_task, stack_time, n_stack, task_start, task_last, pending,
                           task_rank, reduce_s, task_first, task_msg, post_tasks, post_delay,
                           msg_tasks, eager, send_cost, posted, data_latency, starts,
                           deferred, False, piped, pipe)
    # per flow: in flight, bytes left, when left was last brought up to date, rate,
    # end, version (of its entry on the heap of ends), a list for the components, and
    # the arena's fill at which its stale entries go (:func:`_drop_stale`) (flows m + a
    # link: the set kept on it, :func:`_reshare_sets`: in flight and version only)
    k = len(capacity) if keep_sets else 0
    state = (np.zeros(m + k, dtype=np.bool_), size.copy(), np.zeros(m), np.zeros(m),
             np.empty(m), np.zeros(m + k, dtype=np.int64), np.empty(m, dtype=np.int64),
             np.full(1, 1024, dtype=np.int64))
    whole = _link_room(m, k)
    sets = (_sets_room(m, capacity, len(flow_link)) if keep_sets
            else _sets_room(0, capacity[:0], 0))
    ends, arena = _ends_heap(3 * (m + k) + 1024)   # a heap of runs (:func:`_push_ends`)
    receiver_free = np.full(n_tasks, -np.inf)
    done = np.zeros(m, dtype=np.bool_)
    finished = np.empty(m, dtype=np.int64)
    received = np.empty(m)
    finished_at = np.empty(m)
    touched = np.empty(2 * m, dtype=np.int64)
    serial = np.empty(m, dtype=np.int64)
    lists = _live_lists(m, flow_start, flow_link, len(capacity))
    seeds = np.empty(m + len(flow_link), dtype=np.int64)
    problem = _local_problem(m, len(capacity), len(flow_link))
    front = _sorted_front(posted, data_latency)
    owned = ((task_start, task_last, posted, receiver_free, deferred, stack_task, stack_time,
              done, finished, received, finished_at, touched, serial),
             (state, whole, sets, arena, lists, seeds, problem, front))
    deadlocked = _event_loop(_borrowed(owned), _borrowed(
        (task_rank, pending, reduce_s, task_first, task_msg, msg_tasks, post_tasks,
         post_delay, eager, send_cost, receive_cost, serial_receiver, receive_after,
         data_latency)), _borrowed((size, rate_factor, flow_start, flow_link, link_start,
                                    capacity, penalty, bound)),
        starts, ends, n_stack, level_rtol, done_rtol, keep_sets, piped, pipe, absorbed, limit)
    return owned[0][1], deadlocked, owned[1][1][5]   # owned: alive until here


@numba.njit(cache=_CACHE)
def _event_loop(room, tasks, flows, starts, ends, n_stack, level_rtol, done_rtol, keep_sets,
                piped, pipe, absorbed, limit):
    """The event loop of :func:`_together`, over its arrays' borrowed views ``room`` (the
    tasks' and the flows' state), ``tasks`` (the tasks and messages) and ``flows``
    (their routes and rates), and the heaps of starts and ends.  Returns whether the
    tasks deadlocked (``piped``: or the window before stopped, or the flag to stop).

    Compiled on its own and called once per call of :func:`_together`, not inlined:
    numba copies an inlined function's code block by block, each block with every
    variable of the function, and this one's copy was 25 s of the 143 s that a cold
    cache took to compile (docs/MODELS.md, "The loop's compile").  Its arrays are
    borrowed again here: a called function does not know that its arguments own
    nothing, and counted their references at every inlined call (the loop 75 %
    longer, the dragonfly's reduce ``binary`` on 262,144 ranks, 42.5 s against
    24.2 s); borrowed here, it runs as fast as inlined, and its answers are the same
    to the bit.

    ``piped`` (:func:`run_piped`): ``absorbed`` clocks of the window before are known,
    every other is at least ``limit``.  Before an event at ``limit`` or later the
    loop waits for more (:func:`_wait`), takes them (:func:`_absorb`) and starts
    their tasks.  After each event it gives the next window its progress: its
    clocks still to come are at least the event's time and ``limit``.  Once its
    messages are done, it passes the rest of the clocks on as they come."""
    room, tasks, flows, pipe, starts, ends = _borrowed((room, tasks, flows, pipe, starts, ends))
    ((task_start, task_last, posted, receiver_free, deferred, stack_task, stack_time, done,
      finished, received, finished_at, touched, serial),
     (state, whole, sets, arena, lists, seeds, problem, front)) = room
    (task_rank, pending, reduce_s, task_first, task_msg, msg_tasks, post_tasks, post_delay,
     eager, send_cost, receive_cost, serial_receiver, receive_after, data_latency) = tasks
    size, rate_factor, flow_start, flow_link, link_start, capacity, penalty, bound = flows
    out_state, out_progress = pipe[7], pipe[8]
    m = len(size)
    n_seeds = 0
    n_done = 0
    now = _first_start(starts, front[0], front[2])
    begun = False   # piped: before the first event, a start to come may be earlier than now
    stamp = 0
    n_finished, deadlocked = 0, False
    while n_done < m:
        until = now
        paused = piped and not begun and limit <= now and limit < np.inf
        if not paused:
            begun = True
            stamp += 1
            until, n_finished, n_seeds, deadlocked, paused = _next_events(
                now, starts, front, ends, arena, state, seeds, n_seeds, stamp, flow_start,
                flow_link, link_start, capacity, penalty, bound, size, rate_factor, problem,
                lists, finished, level_rtol, done_rtol, whole, sets, keep_sets, piped, limit)
        if deadlocked and not paused:
            if piped:
                _store_release(out_state, 1, 1)
            return True
        if paused:
            # no earlier clock to come: wait, start the tasks they let start, take it again
            _store_release(out_progress, 0, min(limit, until))
            if not _wait(absorbed, limit, pipe):
                _store_release(out_state, 1, 1)
                return True
            absorbed, n_stack, limit = _absorb(absorbed, stack_task, stack_time, n_stack, pipe)
        elif n_finished:
            now = until
            n_done += n_finished
            for i in range(n_finished):
                finished_at[i] = state[4][finished[i]]
            completed = _end_messages(n_finished, finished, finished_at, done, received,
                                      receive_cost, serial_receiver, msg_tasks, receiver_free,
                                      task_last, pending, touched, eager, task_start,
                                      receive_after, deferred, serial)
            # a receive posted ahead may complete a task before it starts (it then ends
            # when it starts), or before the start its previous task set for it, later
            # than now
            for t in completed[::-1]:
                if pending[t] != 0 or task_start[t] == np.inf:
                    continue
                # task t has nothing pending (as in _start_tasks, written out there too)
                if task_start[t] + deferred[t] > task_last[t]:
                    task_last[t] = task_start[t] + deferred[t]
                if t + 1 < len(task_rank) and task_rank[t + 1] == task_rank[t]:
                    stack_task[n_stack] = t + 1
                    stack_time[n_stack] = task_last[t] + reduce_s[t]
                    n_stack += 1
                elif piped:
                    _publish(task_rank[t], task_last[t] + reduce_s[t], pipe)
        else:
            now = until
        n_stack = _start_tasks(stack_task, stack_time, n_stack, task_start, task_last, pending,
                               task_rank, reduce_s, task_first, task_msg, post_tasks, post_delay,
                               msg_tasks, eager, send_cost, posted, data_latency, starts,
                               deferred, True, piped, pipe)
        if not begun:
            now = _first_start(starts, front[0], front[2])
        elif piped and not paused:   # what is still to come here is at least now (and limit)
            _store_release(out_progress, 0, min(limit, now))
    # piped: the clocks of the ranks without a task here still to pass on
    while piped and absorbed < len(pipe[0]):
        _store_release(out_progress, 0, limit)
        if not _wait(absorbed, limit, pipe):
            _store_release(out_state, 1, 1)
            return True
        absorbed, n_stack, limit = _absorb(absorbed, stack_task, stack_time, n_stack, pipe)
    if piped:
        _store_release(out_progress, 0, np.inf)
    return False


@numba.njit(cache=_CACHE, nogil=True)
def task_numbers(src, dst, step_of, n_ranks):
    """The tasks of steps run together: (rank, step) pairs numbered rank-major, as
    ``numpy.unique`` of ``rank * n_steps + step`` over both ends of every message
    numbers them, by a counting sort over the ranks (the messages come in ascending
    step).  Returns (each task's rank, its step, each end's task: the senders' m,
    then the receivers' m)."""
    m = len(src)
    count = np.zeros(n_ranks + 1, dtype=np.int64)
    for i in range(m):
        count[src[i] + 1] += 1
        count[dst[i] + 1] += 1
    for r in range(n_ranks):
        count[r + 1] += count[r]
    placed = np.empty(2 * m, dtype=np.int64)   # ends by rank, each rank's by step
    for i in range(m):
        placed[count[src[i]]] = i
        count[src[i]] += 1
        placed[count[dst[i]]] = m + i
        count[dst[i]] += 1
    end_task = np.empty(2 * m, dtype=np.int64)
    task_rank = np.empty(2 * m, dtype=np.int64)
    task_step = np.empty(2 * m, dtype=np.int64)
    n_tasks = 0
    for j in range(2 * m):
        e = placed[j]
        i = e if e < m else e - m
        rank = src[i] if e < m else dst[i]
        if n_tasks == 0 or task_rank[n_tasks - 1] != rank or task_step[n_tasks - 1] != step_of[i]:
            task_rank[n_tasks] = rank
            task_step[n_tasks] = step_of[i]
            n_tasks += 1
        end_task[e] = n_tasks - 1
    return task_rank[:n_tasks].copy(), task_step[:n_tasks].copy(), end_task


@numba.njit(cache=_CACHE, nogil=True)
def group_by(keys, n):
    """The indexes of ``keys`` (each in 0..n-1) grouped by key, in index order within a
    key (a stable argsort, by counting), and where each key's group starts (n + 1)."""
    first = np.zeros(n + 1, dtype=np.int64)
    for k in keys:
        first[k + 1] += 1
    for k in range(n):
        first[k + 1] += first[k]
    cursor = first[:n].copy()
    order = np.empty(len(keys), dtype=np.int64)
    for i in range(len(keys)):
        order[cursor[keys[i]]] = i
        cursor[keys[i]] += 1
    return first, order


@numba.njit(cache=_CACHE, nogil=True)
def receives_ahead(is_post, key, task, order):
    """Per receive op, how many of its rank's tasks before the one that waits for it
    posted it: the earliest ``post`` from the same peer not yet waited for (0: none).

    ``is_post`` (else a receive), ``key`` (rank and peer in one number) and
    ``task`` (the op's task index in its rank's program) per op; ``order``
    lists the ops grouped by key, each group in program order.
    """
    ahead = np.zeros(len(task), dtype=np.int64)
    queue = np.empty(len(order), dtype=np.int64)
    head = 0
    tail = 0
    for j in range(len(order)):
        i = order[j]
        if j == 0 or key[order[j - 1]] != key[i]:
            head = 0
            tail = 0
        if is_post[i]:
            queue[tail] = task[i]
            tail += 1
        elif head < tail:
            ahead[i] = task[i] - queue[head]
            head += 1
    return ahead


@numba.njit(cache=_CACHE, nogil=True)
def program_steps(first_task, send_task, recv_task):
    """The step of each task of per-rank programs whose messages link a sender's task
    to a receiver's (``send_task[i]``, ``recv_task[i]``: global task ids, a rank's
    tasks numbered consecutively from ``first_task[rank]``).

    The tasks one message links run in one step (their union); a union's
    step is one after the latest step of its members' previous tasks (the
    longest path, so any order of evaluation gives it).  Returns (step per
    task, -1 where the programs deadlock; a task id of a union holding two
    tasks of one rank, else -1).
    """
    p = len(first_task) - 1
    n_tasks = first_task[p]
    group = np.arange(n_tasks)
    for i in range(len(send_task)):
        a = send_task[i]
        while group[a] != a:
            group[a] = group[group[a]]
            a = group[a]
        b = recv_task[i]
        while group[b] != b:
            group[b] = group[group[b]]
            b = group[b]
        if a != b:
            if a < b:
                group[b] = a
            else:
                group[a] = b
    for t in range(n_tasks):
        r = t
        while group[r] != r:
            r = group[r]
        group[t] = r
    task_rank = np.empty(n_tasks, dtype=np.int64)
    for rank in range(p):
        for t in range(first_task[rank], first_task[rank + 1]):
            task_rank[t] = rank
    # members of each union (CSR by representative)
    size = np.zeros(n_tasks + 1, dtype=np.int64)
    for t in range(n_tasks):
        size[group[t] + 1] += 1
    start = np.cumsum(size)
    cursor = start[:-1].copy()
    members = np.empty(n_tasks, dtype=np.int64)
    for t in range(n_tasks):
        members[cursor[group[t]]] = t
        cursor[group[t]] += 1
    # a union waits for each member's previous task
    waiting = np.zeros(n_tasks, dtype=np.int64)
    for t in range(n_tasks):
        if t > first_task[task_rank[t]]:
            waiting[group[t]] += 1
    step_of = np.full(n_tasks, -1, dtype=np.int64)
    latest = np.full(n_tasks, -1, dtype=np.int64)   # per union: its members' previous steps
    ready = np.empty(n_tasks, dtype=np.int64)
    n_ready = 0
    for g in range(n_tasks):
        if group[g] == g and waiting[g] == 0:
            ready[n_ready] = g
            n_ready += 1
    seen = np.full(p, -1, dtype=np.int64)
    while n_ready > 0:
        n_ready -= 1
        g = ready[n_ready]
        step = latest[g] + 1
        for e in range(start[g], start[g + 1]):
            t = members[e]
            if seen[task_rank[t]] == g:
                return step_of, t
            seen[task_rank[t]] = g
            step_of[t] = step
        for e in range(start[g], start[g + 1]):
            t = members[e]
            following = t + 1
            if following < first_task[task_rank[t] + 1]:
                h = group[following]
                if step > latest[h]:
                    latest[h] = step
                waiting[h] -= 1
                if waiting[h] == 0:
                    ready[n_ready] = h
                    n_ready += 1
    return step_of, -1
