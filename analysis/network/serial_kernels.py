"""The compiled loops of :mod:`collsim.analysis.network.serial` (numba, loaded on first use,
as :mod:`collsim.analysis.network.kernels`, whose notes on the cache apply)."""

from __future__ import annotations

import numba
import numpy as np

# numba's cache records the module's import name (kernels.py says why).
_CACHE = __name__ == "collsim.analysis.network.serial_kernels"

__all__ = ["lone_rates", "run_serial"]


@numba.njit(cache=_CACHE, nogil=True)
def lone_rates(local, link_pipe, link_capacity, penalty, bound):
    """The rate ``kernels.fill`` gives each flow alone (``kernels.link_lists`` then
    ``fill`` on one flow, the same operations): a link it crosses once bounds it at
    the link's capacity; a link it crosses n >= 2 times (a half-duplex link both
    ways) is shared by its n crossings, level ``capacity / (w + ... + w)``,
    w = 1 / penalty; the lowest level or the bound times the penalty fixes it."""
    m, hops = local.shape
    rate = np.empty(m)
    for f in range(m):
        b = bound[f]
        lowest = np.inf
        shared = False
        w = 1.0 / penalty[f]
        for h in range(hops):
            link = local[f, h]
            if link < 0 or link_pipe[link]:
                continue
            n = 0
            seen = False
            for g in range(hops):
                if local[f, g] == link:
                    n += 1
                    if g < h:
                        seen = True
            if seen:
                continue
            if n == 1:
                if link_capacity[link] < b:
                    b = link_capacity[link]
                continue
            shared = True
            usage = 0.0
            for _ in range(n):
                usage += w
            level = max(link_capacity[link], 0.0) / usage
            if level < lowest:
                lowest = level
        if not shared:
            rate[f] = b
            continue
        if b * penalty[f] < lowest:
            lowest = b * penalty[f]
        value = lowest * w
        rate[f] = value if value < b else b
    return rate


@numba.njit(cache=_CACHE, nogil=True)
def run_serial(clock, src, dst, send_delay, eager, latency, size, rate, receive_cost,
                combine_s):
    """The clocks through the steps in order: message k starts when its sender (after
    its posting delay) and its receiver are both there, spends its latency, moves
    ``size`` at ``rate``; an eager sender goes on after its overhead, the receiver
    after the data and its overhead, then its reduction."""
    for k in range(len(src)):
        s = src[k]
        d = dst[k]
        start = max(clock[s] + send_delay[k], clock[d])
        end = (start + latency[k]) + size[k] / rate[k]
        sent = clock[s] + send_delay[k] if eager[k] else end
        if sent > clock[s]:
            clock[s] = sent
        received = end + receive_cost[k]
        if received > clock[d]:
            clock[d] = received
        if combine_s[k] != 0.0:
            clock[d] += combine_s[k]
    return clock
