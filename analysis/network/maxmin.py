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

The filling is compiled (:func:`collsim.analysis.network.kernels.fill`): a
heap gives the lowest level, and a round touches only the links of the flows
it fixes.
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
    from . import kernels

    elem_flow = np.asarray(elem_flow, dtype=np.int64)
    elem_link = np.asarray(elem_link, dtype=np.int64)
    n_flows = len(penalty)
    # each flow's links as a row of a table (-1 padded), in the order given
    order = np.argsort(elem_flow, kind="stable")
    per_flow = np.bincount(elem_flow, minlength=n_flows)
    table = np.full((n_flows, max(int(per_flow.max(initial=0)), 1)), -1, dtype=np.int32)
    column = np.arange(len(order)) - np.repeat(np.cumsum(per_flow) - per_flow, per_flow)
    table[elem_flow[order], column] = elem_link[order]
    lists, capacity, bound = kernels.link_lists(
        table, np.zeros(len(capacity_Bps), dtype=bool), np.asarray(capacity_Bps, dtype=float),
        np.asarray(bound_Bps, dtype=float))
    return kernels.fill(np.ones(n_flows, dtype=bool), *lists, capacity,
                        np.asarray(penalty, dtype=float), bound, LEVEL_RTOL)
