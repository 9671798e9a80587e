"""The event loop of steps run together (kernels.run_together) re-shares only the
components of flows in flight that an event changes: its message ends equal those of
an event loop that re-shares every flow in flight at every event (the loop it replaced),
within 1e-12 relative, on a fat-tree and a dragonfly with flows starting at many
distinct times (merging and splitting components)."""

import heapq

import numba
import numpy as np
import pytest

from collsim.analysis.network import engine, kernels
from collsim.analysis.network.maxmin import LEVEL_RTOL
from collsim.analysis.network.pattern import Step
from collsim.network_model import network_setting
from collsim.platform_cli import PlatformRequest
from collsim.profiles import load_profile

PLATFORMS = {
    "fat-tree": {"levels": 3, "down_ports": [4, 4, 8], "up_ports": [1, 2, 2]},
    "dragonfly": {"groups": 5, "chassis_per_group": 2, "routers_per_chassis": 4,
                  "nodes_per_router": 4},
}


def _global_ends(data_start, flows):
    """Each flow's end by the loop that re-shares every flow in flight at each event."""
    size = flows.size
    left, end = size.copy(), np.full(len(size), np.nan)
    now = data_start.min()
    while np.isnan(end).any():
        waiting = np.isnan(end)
        active = waiting & (data_start <= now)
        later = waiting & ~active
        next_start = data_start[later].min() if later.any() else np.inf
        if not active.any():
            now = next_start
            continue
        rate = kernels.fill(active, *flows.lists, flows.capacity, flows.penalty, flows.bound,
                            LEVEL_RTOL) * flows.rate_factor
        finish = np.where(active, now + left / np.where(active, rate, 1.0), np.inf)
        until = min(finish.min(), next_start)
        ending = active & (finish <= until + abs(until) * engine._DONE_RTOL)
        end[ending] = finish[ending]
        going = active & ~ending
        left[going] = np.maximum(left[going] - rate[going] * (until - now),
                                 size[going] * engine._DONE_RTOL)
        now = until
    return end


@pytest.mark.parametrize("name", PLATFORMS)
def test_components_re_shared_alone_equal_every_flow_re_shared(name):
    p = 128
    request = PlatformRequest(label=name, family=name.replace("-", "_"),
                              kwargs=PLATFORMS[name])
    setting = network_setting(request, load_profile("hockney"), p, "random:5")
    hosts, fabric, net = setting.rank_hosts, setting.fabric, setting.net
    rng = np.random.default_rng(7)
    for _ in range(3):
        ranks = rng.permutation(p)
        src, dst = ranks[:p // 2], ranks[p // 2:]
        n_bytes = rng.integers(1, 1 << 20, size=p // 2)
        clock = rng.uniform(0.0, 2e-4, size=p) * (rng.random(p) < 0.7)
        after = engine._run_together([Step(src, dst, n_bytes)], clock, hosts, fabric, net,
                                     setting.weight_S)
        size = (n_bytes + net.envelope_bytes).astype(float)
        flows = engine._Flows(size, fabric.routes(hosts[src], hosts[dst]), fabric, net,
                              setting.weight_S)
        start = np.maximum(clock[src], clock[dst]) + flows.latency
        assert len(np.unique(start)) > p // 4   # many events: components merge and split
        expected = _global_ends(start, flows)
        np.testing.assert_allclose(after[dst], expected, rtol=1e-12, atol=0)


def test_task_numbers_and_groups_are_numpy_unique_and_stable_argsort():
    rng = np.random.default_rng(3)
    for p, m, n_steps in ((7, 40, 5), (300, 2000, 30), (2, 1, 1)):
        src = rng.integers(0, p, size=m)
        dst = (src + rng.integers(1, p, size=m)) % p if p > 1 else src
        step_of = np.sort(rng.integers(0, n_steps, size=m))
        task_rank, task_step, end_task = kernels.task_numbers(src, dst, step_of, p)
        keys, inverse = np.unique(np.concatenate([src, dst]) * n_steps
                                  + np.concatenate([step_of, step_of]), return_inverse=True)
        assert np.array_equal(task_rank * n_steps + task_step, keys)
        assert np.array_equal(end_task, inverse.reshape(-1))
        first, order = kernels.group_by(end_task, len(keys))
        assert np.array_equal(order, np.argsort(end_task, kind="stable"))
        assert np.array_equal(first, np.searchsorted(end_task[order], np.arange(len(keys) + 1)))


@numba.njit
def _runs_popped(groups, bounds, ends_at, versions_at, m, in_flight, purge):
    """Each group of flows pushed as a run (kernels._push_ends) at its ends and versions,
    the stale entries dropped (kernels._drop_stale, purge: at once; else never), then
    every live entry popped (kernels._pop_end): the live (end, flow, version), in
    order, the arena's entries used, and the purge's next limit."""
    finish = np.zeros(m)
    version = np.zeros(m, dtype=np.int64)
    ends, arena = kernels._ends_heap(len(groups) + 1)
    for j in range(len(bounds) - 1):
        for i in range(bounds[j], bounds[j + 1]):
            finish[groups[i]] = ends_at[i]
            version[groups[i]] = versions_at[i]
        kernels._push_ends(ends, arena, groups[bounds[j]:bounds[j + 1]], finish, version)
    purge_at = np.zeros(1, dtype=np.int64) if purge else np.full(1, 1 << 40, dtype=np.int64)
    kernels._drop_stale(ends, arena, version, in_flight, purge_at)
    used = arena[3][0]
    live = [(0.0, 0, 0)]
    live.pop()
    while kernels._size(ends):
        end, f, v = kernels._pop_end(ends, arena)
        if in_flight[f] and v == version[f]:
            live.append((end, f, v))
    return live, used, purge_at[0]


@numba.njit
def _starts_popped(times, msgs, pops_after):
    """Push the data starts (time, message) one by one onto the loop's heap of starts
    (kernels._push_start), taking the next start (kernels._first_start,
    kernels._pop_start, no sorted front) after each push that ``pops_after`` marks,
    then the rest; returns the (time, message) of each start taken, in order."""
    n = len(times)
    heap = kernels._starts_heap(n)
    front, cursor = np.empty(0), np.zeros(1, dtype=np.int64)
    none = np.empty(0, dtype=np.int64)
    out_times, out_msgs = np.empty(n), np.empty(n, dtype=np.int64)
    k = 0
    for i in range(n + n):
        if i < n:
            kernels._push_start(heap, times[i], msgs[i])
            if not pops_after[i]:
                continue
        if kernels._size(heap) == 0:
            break
        out_times[k] = kernels._first_start(heap, front, cursor)
        out_msgs[k] = kernels._pop_start(heap, front, none, cursor)
        k += 1
    return out_times[:k], out_msgs[:k]


def test_the_heap_of_starts_gives_heapqs_order():
    """The loop's heap of data starts (arrays, not a list of tuples) gives its entries in
    the order Python's heapq gives the same (time, message) tuples, pushes and pops
    interleaved, with tied times."""
    rng = np.random.default_rng(3)
    n = 3000
    times = rng.integers(0, 40, n) * 1e-6
    msgs = rng.permutation(n).astype(np.int64)
    pops_after = rng.random(n) < 0.4
    reference, heap = [], []
    for i in range(n):
        heapq.heappush(heap, (times[i], int(msgs[i])))
        if pops_after[i]:
            reference.append(heapq.heappop(heap))
    reference += [heapq.heappop(heap) for _ in range(len(heap))]
    got_times, got_msgs = _starts_popped(times, msgs, pops_after)
    assert list(zip(got_times.tolist(), got_msgs.tolist())) == reference


def test_a_full_array_heap_refuses_another_entry():
    """A full array heap raises instead of writing past its arrays."""
    with pytest.raises(RuntimeError, match="heap is full"):
        _overfill()


@numba.njit
def _overfill():
    """Three starts pushed onto a heap of data starts with room for two."""
    heap = kernels._starts_heap(2)
    for i in range(3):
        kernels._push_start(heap, 0.0, np.int64(i))


@pytest.mark.parametrize("purge", [False, True])
def test_the_heap_of_runs_gives_the_live_ends_in_their_order(purge):
    # 300 flows re-shared in 400 groups of 1 to 120 flows in no order (runs sorted by
    # insertion and by _time_order), ends with ties: the live entries (the flow in
    # flight, at its last version) come off in (end, flow, version) order, as the heap of
    # every entry gave them; the purge leaves one run of exactly them
    rng = np.random.default_rng(11)
    m = 300
    sizes = rng.integers(1, 121, size=400)
    groups = np.concatenate([rng.choice(m, size=n, replace=False) for n in sizes])
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    versions_at = np.empty(len(groups), dtype=np.int64)
    seen = np.zeros(m, dtype=np.int64)
    for i, f in enumerate(groups):
        seen[f] += 1
        versions_at[i] = seen[f]
    ends_at = rng.integers(0, 50, size=len(groups)) * 1e-6
    in_flight = rng.random(m) < 0.8
    every = sorted(zip(ends_at.tolist(), groups.tolist(), versions_at.tolist()))
    expected = [e for e in every if in_flight[e[1]] and e[2] == seen[e[1]]]
    live, used, limit = _runs_popped(groups, bounds, ends_at, versions_at, m, in_flight,
                                     purge)
    assert [tuple(e) for e in live] == expected
    if purge:
        assert used == len(expected) and limit == 2 * len(expected) + 1024
    else:
        assert used == len(groups)


def test_a_flow_alone_on_its_links_gets_the_fillings_rate_to_the_bit():
    """The loop's shortcut for a component of one flow (kernels._lone_rate) gives the
    rate the filling gives it alone, and declines (-1) a route that crosses a link
    twice, which the filling shares between its two crossings."""
    rng = np.random.default_rng(11)
    n_links = 6
    capacity = rng.uniform(1e9, 1e10, n_links)
    for trial in range(300):
        hops = rng.integers(1, 5)
        route = rng.choice(n_links, hops, replace=trial % 3 == 0)
        flow_start = np.array([0, hops], dtype=np.int64)
        flow_link = route.astype(np.int64)
        link_start, link_flow = _lists_of_one(flow_link, n_links)
        bound = np.array([rng.choice([np.inf, rng.uniform(1e9, 1e10)])])
        penalty = np.array([rng.uniform(1.0, 3.0)])
        lone = kernels._lone_rate(0, flow_start, flow_link, capacity, bound)
        filled = kernels.fill(np.ones(1, bool), flow_start, flow_link, link_start, link_flow,
                              capacity, penalty, bound, LEVEL_RTOL)[0]
        if len(set(route.tolist())) < hops:
            assert lone == -1.0
        else:
            assert lone == filled


def _lists_of_one(flow_link, n_links):
    """Per link the crossings of one flow (kernels.fill's link_start, link_flow)."""
    counts = np.bincount(flow_link, minlength=n_links)
    link_start = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    link_flow = np.zeros(len(flow_link), dtype=np.int64)
    return link_start, link_flow


@pytest.mark.parametrize("seed", range(4))
def test_the_first_starts_sorted_in_the_order_a_heap_gives(seed):
    """kernels._time_order (the radix sort of a window's first data starts, taken in
    message order) is numpy's stable argsort: the (start, message) order the heap of
    starts gave them, with ties, 0.0 and -0.0 (equal), infinities, denormals and
    negative times; and empty."""
    rng = np.random.default_rng(seed)
    pool = np.concatenate([rng.random(6) * 1e-3, [0.0, -0.0, np.inf, 5e-324, 1e-300, -2.5]])
    for n in (0, 1, 2, 17, 300, 5000):
        for times in (rng.choice(pool, n), rng.random(n) * 10.0 ** rng.integers(-9, 3),
                      1e-6 + rng.integers(0, 4, n) * 1e-9):
            np.testing.assert_array_equal(kernels._time_order(times),
                                          np.argsort(times, kind="stable"))


@numba.njit
def _write_through_borrowed(a, pair):
    """Writes through borrowed views of ``a`` and the arrays of ``pair``; returns
    whether each view has its owner's shape and strides."""
    b, (c, d) = kernels._borrowed((a, pair))
    b[1, 2] = 7.0
    c[3] = 5
    d[0] = True
    return (b.shape == a.shape and b.strides == a.strides and c.shape == pair[0].shape
            and d.strides == pair[1].strides)


def test_borrowed_views_are_their_owners_data():
    """The loop's borrowed views (kernels._borrowed: no reference counts) read and write
    their owners' data, with their shapes and strides, nested in tuples and strided."""
    a = np.zeros((4, 6))[:, ::2]
    pair = (np.zeros(5, dtype=np.int64), np.zeros(3, dtype=np.bool_))
    assert _write_through_borrowed(a, pair)
    assert a[1, 2] == 7.0 and pair[0][3] == 5 and pair[1][0]
    assert a.sum() == 7.0 and pair[0].sum() == 5 and pair[1].sum() == 1
