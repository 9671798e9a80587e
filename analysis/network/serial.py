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
  shared with itself), so ``engine._run_serial`` routes every message
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

    def combine(self) -> np.ndarray:
        """Bytes the receiver of each message combines after it (0: none)."""
        return self.combine_bytes if len(self.combine_bytes) else np.zeros(len(self.src),
                                                                             dtype=np.int64)

    def parts(self) -> tuple[Step, ...]:
        """The plain steps, one message each, in order."""
        from .pattern import _checked_steps

        m = len(self.src)
        combine = self.combine()
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

    def on(self, ranks: np.ndarray) -> "SerialSteps":
        """The same steps with rank i renamed ``ranks[i]``."""
        return replace(self, src=ranks[self.src], dst=ranks[self.dst],
                       reduce_ranks=ranks[self.reduce_ranks])

