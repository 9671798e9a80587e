"""Shift steps: p - 1 permutation steps, timed by a stratified sample of them.

The pairwise alltoall (``alltoall_pairwise.c``, ``alltoall_pairwise_xor.c``),
the pairwise reduce_scatter and the exchange phase of the ring reduce run
p - 1 steps; in step k member i sends one block to member ``i + k mod p``
(or ``i XOR k``) and receives one from ``i - k`` (or ``i XOR k``).  At a
million ranks that is 10^12 messages: no explicit pattern holds them, and
the engine times a step of a million flows in a few tenths of a second, so
even made one by one the p - 1 steps would take days.

:class:`ShiftSteps` holds the series as its members and the bytes each
member receives and combines.  Up to :data:`pattern.MAX_MESSAGES` messages
the builders make the explicit steps, as before (their answers unchanged);
above, the engine times the series with :func:`run_shifts`, a model of the
step-by-step engine, not the engine itself:

- **Own pace.**  Each sampled step is timed alone from equal clocks (0),
  by the engine's step (``engine._run_step``: routes, max-min sharing,
  overheads, the reduction); member i's clock advances by the sum of its
  own step times, from its clock on entry.  The engine carries each rank's
  clock from step to step: a step's message starts when both its ranks are
  there, so a rank late in one step delays its partners in the next, and
  ranks drifting apart put less of a step's traffic on the links at once.
  Own pace leaves both out.  On a block-mapped fat-tree every member has
  as many partners in its leaf, its pod and beyond, the members' totals
  are equal, and it measured the engine's answer (``tests/
  test_network_shifts.py``; measured, not proven).
- **Stratified sample.**  The shifts are cut into strata
  (:func:`shift_strata`): doubling ones below W (1, 2-3, 4-7, ...: where a
  shift's messages move from the leaf to the pod to the fabric, their time
  changes fast; an XOR shift's class is its highest bit), then equal ones
  of width W up to p - 1; one shift per stratum is timed, at a
  deterministic place within it (the golden-ratio sequence, so that the
  samples fall at unrelated places of the fabric's periods: 16 or 64 nodes
  a switch, 4096 a pod or a group), and stands for every shift of its
  stratum.

Its error against the explicit engine (every shift, carried clocks) is
measured where both run, 1024 to 8192 ranks (``docs/MODELS.md``, "Scale",
"The shift-structured entries at a million ranks"; ``tests/benchmarks/
shift_accuracy.py``): within 1.5 % at 8 B blocks, up to +81 % at 64 KiB
where members' step times differ (own pace, not the sample).
The alternatives measured there (lockstep, partner-coupled and carried clocks)
live in that benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import pattern as _pattern
from .pattern import PatternTooLarge, Step, _ints

__all__ = ["ShiftSteps", "shift_strata", "run_shifts", "sampled_times", "own_pace",
           "beyond_explicit", "SAMPLE_STRATA"]

#: Equal strata of the shifts beyond the first ones (whose strata double: 1, 2-3, ...).
SAMPLE_STRATA = 64

_GOLDEN = (5 ** 0.5 - 1) / 2


@dataclass(frozen=True)
class ShiftSteps(Step):
    """``len(shifts)`` steps: in step k, member j (rank ``src[j]``) sends
    ``dst_bytes[t]`` bytes to member t = ``j + shifts[k] mod p`` (``xor``:
    ``j XOR shifts[k]``), then combines ``combine_bytes[j]`` bytes (empty: none).

    ``src`` is the members (p ranks); ``dst`` and ``n_bytes`` are the first
    step's messages (so the ranks it uses are those of any step);
    ``reduce_ranks`` and ``reduce_bytes`` are reductions after the series,
    on each rank's last step (``pattern.then_combine``'s).
    """

    shifts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    xor: bool = False
    dst_bytes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    combine_bytes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("shifts", "dst_bytes", "combine_bytes"):
            object.__setattr__(self, name, _ints(getattr(self, name)))
        p = len(self.src)
        if len(self.dst_bytes) != p or len(self.combine_bytes) not in (0, p):
            raise ValueError("dst_bytes (and combine_bytes unless empty) hold one entry per member")
        if (not len(self.shifts) or self.shifts.min() < 1 or self.shifts.max() >= p
                or (self.xor and p & (p - 1))):
            raise ValueError("shifts must be in 1 .. p - 1 (xor: p a power of two)")
        if self.repeat != 1 or len(self.post_ahead) or len(self.synchronous) \
                or len(self.receive_first):
            raise ValueError("shift steps neither repeat, post ahead nor flag their messages")

    @classmethod
    def series(cls, members, dst_bytes, combine_bytes=(), *, xor: bool = False) -> "ShiftSteps":
        """Every shift 1 .. p - 1 of ``members``, the first step's messages filled in."""
        members = _ints(members)
        p = len(members)
        dst_bytes = _ints(dst_bytes)
        first = _partner(np.arange(p, dtype=np.int64), 1, p, xor)
        return cls(members, members[first], dst_bytes[first], shifts=np.arange(1, p),
                   xor=xor, dst_bytes=dst_bytes, combine_bytes=combine_bytes)

    @property
    def messages(self) -> int:
        """Messages of every step."""
        return len(self.src) * len(self.shifts)

    def step(self, k: int) -> Step:
        """The plain step of shift ``k`` (its combines as the step's reduction)."""
        p = len(self.src)
        j = np.arange(p, dtype=np.int64)
        t = _partner(j, int(k), p, self.xor)
        combine = self.combine_bytes
        if len(combine):
            return Step(self.src, self.src[t], self.dst_bytes[t], self.src[combine > 0],
                        combine[combine > 0])
        return Step(self.src, self.src[t], self.dst_bytes[t])

    def explicit(self) -> tuple[Step, ...]:
        """Every step, plain (for tests: p (p - 1) messages); the reductions after the
        series are left out."""
        return tuple(self.step(int(k)) for k in self.shifts)

    def parts(self):
        """Refused: the plain steps are the p^2 messages this class stands for
        (``pattern.side_by_side`` and the steps run together expand ``parts``)."""
        raise PatternTooLarge(f"shift steps of {self.messages:,} messages cannot be unrolled "
                              "(run beside other groups or together with other steps)")


def beyond_explicit(p: int) -> bool:
    """Whether the p (p - 1) messages of a shift series are more than the explicit
    patterns hold (``pattern.MAX_MESSAGES``, read at each call: a benchmark lowers it to
    hold the model against the explicit engine)."""
    return p * (p - 1) > _pattern.MAX_MESSAGES


def _partner(j: np.ndarray, k: int, p: int, xor: bool) -> np.ndarray:
    return j ^ k if xor else (j + k) % p


def shift_strata(n: int, strata: int = SAMPLE_STRATA, ratio: int = 2
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The sampled positions among ``n`` shifts (shift k at position k - 1) and how many
    shifts each stands for.

    With W the power of two nearest above ``n / strata``: the shifts
    ``[1, 2), [2, 4), [4, 8), ...`` below W, then ``[W, 2W), [2W, 3W), ...``
    up to ``n``: a stratum never straddles a power of two below W or a
    multiple of W (a switch's, a pod's or a group's nodes on the fabrics of
    powers of two; the XOR shifts' classes, their highest bit).  In stratum s
    of width w, the shift at ``floor(frac((s + 1) * golden) * w)`` in it.
    Every shift is in one stratum: the weights add up to ``n``.  ``ratio``:
    the strata below W grow by that factor (1 .. ratio - 1, ratio .. ratio^2 -
    1, ...; W a power of it), fewer strata (``batches``'s).

    Examples
    --------
    >>> at, weight = shift_strata(10, 4)
    >>> (at + 1).tolist(), weight.tolist()
    ([1, 2, 7, 9], [1, 2, 4, 3])
    """
    width = 1 << max(0, (-(-n // strata) - 1).bit_length())
    edges = [1 << m for m in range(width.bit_length() - 1)]
    if ratio != 2:
        width, edges = 1, []
        while width * strata < n:
            edges.append(width)
            width *= ratio
    edges = np.asarray(edges + list(range(width, n + 1, width)) + [n + 1], dtype=np.int64)
    edges = np.unique(np.minimum(edges, n + 1)) - 1
    low, high = edges[:-1], edges[1:]
    s = np.arange(1, len(low) + 1, dtype=float)
    offset = np.floor(np.modf(s * _GOLDEN)[0] * (high - low)).astype(np.int64)
    return low + offset, high - low


def sampled_times(steps: ShiftSteps, hosts: np.ndarray, fabric, net, weight_S: float = 0.0,
                  strata: int | None = None, *, time_step):
    """The sampled shifts: (shift, how many shifts it stands for, each member's time in
    its step from clocks 0 with its reduction: ``engine._run_step``) for each stratum
    (:func:`shift_strata`; ``strata``: :data:`SAMPLE_STRATA` unless given, read at the
    call; p or more: every shift).  ``time_step``: the engine's timing of one step
    from the ranks' clocks (``engine._run_step``, passed in: the engine imports this
    module)."""
    at, weight = shift_strata(len(steps.shifts), SAMPLE_STRATA if strata is None else strata)
    zero = np.zeros(len(hosts))
    for k, w in zip(steps.shifts[at].tolist(), weight.tolist()):
        yield k, w, time_step(steps.step(k), zero, hosts, fabric, net, weight_S)[steps.src]


def own_pace(samples, start_s: np.ndarray) -> np.ndarray:
    """Each member's clock after the series from ``start_s``: its own times, each
    sample's times its weight (the model's clocks, the module's docstring)."""
    spent = np.zeros(len(start_s))
    for _, w, times in samples:
        spent += w * times
    return start_s + spent


def run_shifts(steps: ShiftSteps, clock: np.ndarray, hosts: np.ndarray, fabric, net,
               weight_S: float = 0.0, strata: int | None = None, *, time_step) -> np.ndarray:
    """The rank clocks after the series: each member at its own pace (:func:`own_pace`
    of :func:`sampled_times`), from its clock on entry (the module's docstring)."""
    after = clock.copy()
    members = steps.src
    after[members] = own_pace(sampled_times(steps, hosts, fabric, net, weight_S, strata,
                                            time_step=time_step),
                              clock[members])
    if len(steps.reduce_ranks):
        np.add.at(after, steps.reduce_ranks, steps.reduce_bytes * float(fabric.gamma_s_per_byte))
    return after
