"""Steps of one message each, one after another: chains and tokens at any size.

A linear scan or exscan passes its prefix down a chain of p - 1 messages,
the double-ring barrier sends an empty token 2p times round the ring: p
steps of one message, each waiting for the one before.  As plain steps
(:class:`collsim.analysis.network.pattern.Step`) the engine pays its numpy
per step: at a million ranks, a million steps.  :class:`SerialSteps` holds
them as one step's arrays (message k is step k) and the engine times them
as it would time the plain steps:

- while all the steps around them can be simulated together
  (``engine.TOGETHER_MESSAGES``), it expands them (:meth:`SerialSteps.parts`)
  and runs them as before, to the bit;
- above, where the engine times each step alone, a step of one message is
  that message alone on the fabric: its rate is the lone flow's max-min rate
  (its route's bottleneck, the FATPIPE bounds, a link it crosses twice
  shared with itself), so :meth:`SerialSteps.run_alone` routes every message
  at once and runs the clocks' recurrence in one compiled loop, with the
  arithmetic of ``engine._run_step`` (the same operations in the same order:
  equal to the bit to the step-by-step engine, ``tests/test_serial_steps.py``).

A pattern whose steps are many and each of several messages (a ring
reduce's p - 1 exchanges) cannot use it: its messages share links.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from .pattern import Step, _ints

__all__ = ["SerialSteps"]

@dataclass(frozen=True)
class SerialSteps(Step):
    """``len(src)`` steps of one message each: step k is ``src[k]`` to ``dst[k]`` of
    ``n_bytes[k]`` bytes, after which ``dst[k]`` combines ``combine_bytes[k]`` bytes
    (0: no reduction in that step).  ``reduce_ranks`` and ``reduce_bytes``
    are reductions after the series, each on its rank's last step
    (``pattern.then_combine``'s).
    """

    combine_bytes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "combine_bytes", _ints(self.combine_bytes))
        if len(self.combine_bytes) not in (0, len(self.src)):
            raise ValueError("combine_bytes must be empty or one entry per message")
        if self.repeat != 1 or len(self.post_ahead):
            raise ValueError("serial steps neither repeat nor post ahead")

    def _combine(self) -> np.ndarray:
        return self.combine_bytes if len(self.combine_bytes) else np.zeros(len(self.src),
                                                                             dtype=np.int64)

    def parts(self) -> tuple[Step, ...]:
        """The plain steps, one message each, in order."""
        from .pattern import _checked_steps

        m = len(self.src)
        combine = self._combine()
        keep = combine > 0
        last = np.full(int(max(self.src.max(initial=-1), self.dst.max(initial=-1),
                               self.reduce_ranks.max(initial=-1))) + 1, -1)
        np.maximum.at(last, self.src, np.arange(m))
        np.maximum.at(last, self.dst, np.arange(m))
        at = np.concatenate([np.flatnonzero(keep), last[self.reduce_ranks]])
        if np.any(at < 0):
            raise ValueError("a rank reduces after serial steps it takes no part in")
        ranks = np.concatenate([self.dst[keep], self.reduce_ranks])
        size = np.concatenate([combine[keep], self.reduce_bytes])
        order = np.argsort(at, kind="stable")
        cuts = np.searchsorted(at[order], np.arange(m + 1))
        steps = _checked_steps(self.src, self.dst, self.n_bytes, ranks[order], size[order], (),
                               np.arange(m + 1), cuts)
        for name in ("synchronous", "receive_first"):
            flags = getattr(self, name)
            if len(flags):
                for k, step in enumerate(steps):
                    object.__setattr__(step, name, flags[k:k + 1])
        return steps

    def run_alone(self, clock: np.ndarray, hosts: np.ndarray, fabric, net,
                  weight_S: float = 0.0) -> np.ndarray:
        """The rank clocks after the steps, each timed alone (``engine._run_step``'s
        arithmetic on a step of one message)."""
        from .engine import factors
        from .serial_kernels import run_serial

        size = (self.n_bytes + net.envelope_bytes).astype(float)
        latency, rate = _lone_flows(fabric.routes(hosts[self.src], hosts[self.dst]), fabric,
                                    weight_S)
        # an MPI_Ssend (synchronous) is no eager send: it pays o_s, waits for the delivery
        # and costs its receiver no o_r, as engine._run_step charges it
        synchronous = (self.synchronous.astype(bool) if len(self.synchronous)
                       else np.zeros(len(self.src), dtype=bool))
        eager = (self.n_bytes < net.eager_threshold_bytes) & ~synchronous
        o_s = net.send_overhead_s
        send_delay = np.where(eager | synchronous, o_s, 0.0) if o_s else np.zeros(len(self.src))
        after = run_serial(clock.copy(), self.src, self.dst, send_delay, eager,
                            latency * factors(net.latency_factors, size), size,
                            rate * factors(net.bandwidth_factors, size),
                            np.where(eager, net.recv_overhead_s, 0.0),
                            self._combine() * float(fabric.gamma_s_per_byte))
        if len(self.reduce_ranks):
            np.add.at(after, self.reduce_ranks, self.reduce_bytes * float(fabric.gamma_s_per_byte))
        return after

    def on(self, ranks: np.ndarray) -> "SerialSteps":
        """The same steps with rank i renamed ``ranks[i]``."""
        return replace(self, src=ranks[self.src], dst=ranks[self.dst],
                       reduce_ranks=ranks[self.reduce_ranks])


def _lone_flows(routes: np.ndarray, fabric, weight_S: float) -> tuple[np.ndarray, np.ndarray]:
    """Each route's latency and the max-min rate of its flow alone on the fabric.

    The links are read as ``engine._Routing`` reads them (every id on a
    fabric of few ids, else the ids the routes use, numbered).
    """
    from . import kernels
    from .engine import _GLOBAL_LINKS
    from .serial_kernels import lone_rates

    routes = np.ascontiguousarray(routes, dtype=np.int64)
    if fabric.n_links <= _GLOBAL_LINKS and fabric.n_links <= 4 * routes.size:
        local = routes
        capacity, link_latency, pipe = fabric.link_table()
    else:
        local, used = kernels.number_links(routes, fabric.link_scratch())
        capacity, link_latency, pipe = fabric.link_properties(used)
    latency, penalty, bound = kernels.route_sums(local, link_latency, capacity, pipe,
                                                 float(weight_S))
    return latency, lone_rates(local, pipe, capacity, penalty, bound)
