"""The time of a communication pattern on a fabric: routes, latencies, shared links.

Each rank keeps a clock.  A message starts when both its ranks have reached
its step (blocking sends, as the ``hockney`` profile makes every send:
``smpi/send-is-detached-thresh:0``), spends the latency of its route (the sum
of its links' latencies, times SMPI's latency factor of its size), then moves
its bytes plus the 16-byte envelope at the rate max-min fairness gives it
(:mod:`collsim.analysis.network.maxmin`, SimGrid's CM02 sharing with a
flow's route latency as its penalty; times SMPI's bandwidth factor).  The
flows of a step share the links while they overlap: when one ends, the
others are re-shared from that instant (:func:`step_end_times`).  A rank
leaves a step when its messages are done, then spends ``bytes * gamma`` on
its local reduction.  An eager message (below the profile's eager
threshold) adds the send and receive overheads, as the flat models do.

What it leaves out: flows of different steps never share a link (a step is
timed from the ranks' clocks, alone), SMPI's cross-traffic (the reverse
route's 5 % load; off in the ``hockney`` profile and the catalog's), and
eager senders running ahead of their receivers.  A step with ``repeat`` > 1
is timed once from the latest clock and multiplied.
"""

from __future__ import annotations

import numpy as np

from collsim.analysis.models._base import NetworkParams

from .fabric import NO_LINK, Fabric
from .maxmin import max_min_rates
from .pattern import Pattern, Step

__all__ = ["pattern_time", "step_end_times", "factors"]

# A flow whose bytes left are below this fraction of its size has ended
# (rounding of the rate times the time).
_DONE_RTOL = 1e-12


def factors(table: tuple[tuple[int, float], ...], size_bytes: np.ndarray) -> np.ndarray:
    """SMPI's piecewise factor of each size (``models._base.factor_at``, vectorised)."""
    if not table:
        return np.ones(len(size_bytes))
    thresholds = np.array([t for t, _ in reversed(table)], dtype=float)   # ascending
    values = np.array([v for _, v in reversed(table)])
    # the largest threshold strictly below the size; at or below all, the smallest's
    index = np.searchsorted(thresholds, size_bytes, side="left") - 1
    return values[np.clip(index, 0, None)]


def step_end_times(start_s: np.ndarray, size_bytes: np.ndarray, routes: np.ndarray,
                   fabric: Fabric, net: NetworkParams) -> np.ndarray:
    """When each message of one step ends (its data delivered), messages starting at ``start_s``.

    Parameters
    ----------
    start_s : numpy.ndarray
        When each message's send and receive are both posted.
    size_bytes : numpy.ndarray
        Bytes on the wire (payload plus envelope).
    routes : numpy.ndarray
        Link ids per message (``Fabric.routes``).
    fabric : Fabric
    net : NetworkParams
        Its latency and bandwidth factors (``alpha`` and ``beta`` are unused:
        they come from the route).
    """
    m = len(start_s)
    if m == 0:
        return np.zeros(0)
    valid = routes != NO_LINK
    link_ids = np.where(valid, routes, 0)
    latency = np.where(valid, fabric.latency_s(link_ids), 0.0).sum(axis=1)
    # CM02: the flow's weight is its route's latency (1 when it has none), before the factor
    penalty = np.where(latency > 0, latency, 1.0)
    data_start = start_s + latency * factors(net.latency_factors, size_bytes)
    rate_factor = factors(net.bandwidth_factors, size_bytes)
    elem_flow, hop = np.nonzero(valid)
    elem_links = routes[elem_flow, hop]
    used, elem_link = np.unique(elem_links, return_inverse=True)
    elem_link = elem_link.reshape(-1)
    capacity = fabric.capacity_Bps(used)
    pipe = fabric.fatpipe(used)
    bound = np.full(m, np.inf)
    on_pipe = pipe[elem_link]
    np.minimum.at(bound, elem_flow[on_pipe], capacity[elem_link[on_pipe]])
    elem_flow, elem_link = elem_flow[~on_pipe], elem_link[~on_pipe]

    left = size_bytes.astype(float)
    end = np.full(m, np.nan)
    pending = np.ones(m, dtype=bool)
    now = data_start.min()
    while pending.any():
        active = pending & (data_start <= now)
        waiting = pending & ~active
        next_start = data_start[waiting].min() if waiting.any() else np.inf
        if not active.any():
            now = next_start
            continue
        index = np.nonzero(active)[0]
        keep = active[elem_flow]
        local = np.full(m, -1, dtype=np.int64)
        local[index] = np.arange(len(index))
        rate = max_min_rates(local[elem_flow[keep]], elem_link[keep], capacity,
                             penalty[index], bound[index]) * rate_factor[index]
        finish = now + left[index] / rate
        first_end = finish.min()
        until = min(first_end, next_start)
        ends = finish <= until + abs(until) * _DONE_RTOL
        done = index[ends]
        end[done] = finish[ends]
        pending[done] = False
        going = index[~ends]
        left[going] = np.maximum(left[going] - rate[~ends] * (until - now),
                                 size_bytes[going] * _DONE_RTOL)
        now = until
    return end


def _run_step(step: Step, clock: np.ndarray, hosts: np.ndarray, fabric: Fabric,
              net: NetworkParams) -> np.ndarray:
    start = np.maximum(clock[step.src], clock[step.dst])
    size = (step.n_bytes + net.envelope_bytes).astype(float)
    routes = fabric.routes(hosts[step.src], hosts[step.dst])
    end = step_end_times(start, size, routes, fabric, net)
    eager = step.n_bytes < net.eager_threshold_bytes
    end = end + np.where(eager, net.send_overhead_s + net.recv_overhead_s, 0.0)
    after = clock.copy()
    np.maximum.at(after, step.src, end)
    np.maximum.at(after, step.dst, end)
    if len(step.reduce_ranks):
        np.add.at(after, step.reduce_ranks, step.reduce_bytes * fabric.gamma_s_per_byte)
    return after


def pattern_time(pattern: Pattern, rank_hosts: np.ndarray, fabric: Fabric,
                 net: NetworkParams) -> float:
    """The collective's time: the latest rank clock after the last step.

    Parameters
    ----------
    pattern : Pattern
        The algorithm's steps (:mod:`collsim.analysis.network.patterns`).
    rank_hosts : numpy.ndarray of int
        The host index (``fabric``'s numbering) of each rank.
    fabric : Fabric
        Links and routes.
    net : NetworkParams
        The profile's envelope, factors and overheads (``Profile.model_network``).
    """
    hosts = np.asarray(rank_hosts, dtype=np.int64)
    if len(hosts) != pattern.p:
        raise ValueError(f"{len(hosts)} rank hosts for a pattern of {pattern.p} ranks")
    clock = np.zeros(pattern.p)
    for step in pattern.steps:
        if step.repeat == 1:
            clock = _run_step(step, clock, hosts, fabric, net)
            continue
        begin = clock.max()
        once = _run_step(step, np.full(pattern.p, begin), hosts, fabric, net)
        clock = np.full(pattern.p, begin + step.repeat * (once.max() - begin))
    return float(clock.max()) if pattern.p else 0.0
