"""Max-min fair rates of flows over shared links, as SimGrid's CM02 solver shares them.

SimGrid's LMM solver (``src/kernel/lmm/maxmin.cpp``; Casanova and Marchal,
"A network model for simulation of grid application", LIP RR 2002-40)
gives each flow a *sharing penalty* (CM02: the sum of the latencies on its
route) and shares a link so that ``rate * penalty`` is the same for the
flows it bottlenecks: a flow's rate is ``level / penalty``, the link's level
``remaining capacity / sum(1 / penalty)`` over its unfixed flows.  Progressive
filling: the link with the lowest level saturates first, its flows are fixed
at that level, their rates are taken off every link they cross, and so on.
A FATPIPE link (SimGrid's loopback) is not shared: it only bounds each flow
crossing it, as a flow's own bound does.

Everything is vectorised: one ``numpy.bincount`` per round of the filling,
whatever the number of flows; the rounds are the distinct bottleneck levels
(one or two on a regular pattern).
"""

from __future__ import annotations

import numpy as np

__all__ = ["max_min_rates"]

# Levels within this relative distance saturate in the same round (SimGrid
# compares them exactly, then with its maxmin/precision of 1e-5 for bounds).
LEVEL_RTOL = 1e-12


def max_min_rates(elem_flow: np.ndarray, elem_link: np.ndarray, capacity_Bps: np.ndarray,
                  penalty: np.ndarray, bound_Bps: np.ndarray) -> np.ndarray:
    """Return each flow's rate (bytes/s) under weighted max-min fairness.

    Parameters
    ----------
    elem_flow, elem_link : numpy.ndarray of int
        One entry per (flow, shared link) crossing: the flow's index and the
        link's index into ``capacity_Bps``.
    capacity_Bps : numpy.ndarray
        Capacity of each link.
    penalty : numpy.ndarray
        Each flow's sharing penalty (> 0): rates on a saturated link are
        inversely proportional to it.
    bound_Bps : numpy.ndarray
        Each flow's own upper bound (``inf``: none).

    Returns
    -------
    numpy.ndarray
        One rate per flow; ``inf`` for a flow that crosses no shared link and
        has no bound.

    Examples
    --------
    Two flows on one link of 10 B/s, a third alone on another:

    >>> max_min_rates(np.array([0, 1, 2]), np.array([0, 0, 1]), np.array([10.0, 10.0]),
    ...               np.ones(3), np.full(3, np.inf)).tolist()
    [5.0, 5.0, 10.0]
    """
    n_flows = len(penalty)
    elem_flow = np.asarray(elem_flow)
    elem_link = np.asarray(elem_link)
    # a link only one flow crosses is that flow's bound, not a shared constraint
    crossings = np.bincount(elem_link, minlength=len(capacity_Bps))
    alone = crossings[elem_link] == 1
    if alone.any():
        bound_Bps = _tighten(bound_Bps, elem_flow[alone], capacity_Bps[elem_link[alone]])
        elem_flow, elem_link = elem_flow[~alone], elem_link[~alone]
    weight = 1.0 / penalty
    rate = np.full(n_flows, np.inf)
    fixed = np.zeros(n_flows, dtype=bool)
    remaining = np.array(capacity_Bps, dtype=float)
    n_links = len(remaining)
    bound_level = bound_Bps * penalty          # the level at which a flow hits its bound
    has_link = np.zeros(n_flows, dtype=bool)
    has_link[elem_flow] = True
    # flows on no shared link: their bound, or unbounded
    rate[~has_link] = bound_Bps[~has_link]
    fixed[~has_link] = True
    while elem_flow.size:
        usage = np.bincount(elem_link, weights=weight[elem_flow], minlength=n_links)
        used = usage > 0
        level = np.full(n_links, np.inf)
        level[used] = np.maximum(remaining[used], 0.0) / usage[used]
        open_flows = ~fixed
        lowest = min(level.min(), bound_level[open_flows].min())
        limit = lowest * (1 + LEVEL_RTOL)
        chosen = open_flows & (bound_level <= limit)
        chosen[elem_flow[level[elem_link] <= limit]] = True
        rate[chosen] = np.minimum(lowest * weight[chosen], bound_Bps[chosen])
        fixed |= chosen
        if fixed.all():
            break
        leaving = chosen[elem_flow]
        remaining -= np.bincount(elem_link[leaving], weights=rate[elem_flow[leaving]],
                                 minlength=n_links)
        elem_flow = elem_flow[~leaving]
        elem_link = elem_link[~leaving]
    return rate


def _tighten(bound_Bps: np.ndarray, flows: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``bound_Bps`` with each flow's bound lowered to the least of its ``values``."""
    bound_Bps = np.array(bound_Bps, dtype=float)
    if flows.size and np.all(flows[1:] >= flows[:-1]):   # grouped by flow: no ufunc.at
        starts = np.flatnonzero(np.r_[True, flows[1:] != flows[:-1]])
        least = np.minimum.reduceat(values, starts)
        bound_Bps[flows[starts]] = np.minimum(bound_Bps[flows[starts]], least)
    else:
        np.minimum.at(bound_Bps, flows, values)
    return bound_Bps
