"""Shift batches: every rank posts many shifts at once, timed by a weighted sample.

alltoall ``linear`` (``alltoall_linear.c``) posts each rank's p - 1
receives, then its p - 1 ``MPI_Isend`` s to ``rank + k mod p``, k = 1 ..
p - 1, and waits for all: one step of p (p - 1) concurrent flows.
``scattered`` (``alltoall_scattered.c``) does the same in batches of 32
offsets (to ``rank - k``), a wait per batch.  At a million ranks that is
10^12 flows in one step, which max-min cannot share without holding them.

:class:`ShiftBatches` holds the members, the offsets in posting order and
the batch size.  Up to :data:`pattern.MAX_MESSAGES` messages the builders
make the explicit steps, as before (their answers unchanged); above, the
engine times the batches with :func:`run_batches`, **a model of the
engine's step** (``engine._run_step``), not the engine:

- **Weighted sample of a batch's shifts.**  The offsets of a batch are cut
  into strata (``shifts.shift_strata`` for ``linear``; one stratum of the
  32 for a batch of ``scattered``); each member sends one sampled flow per
  stratum, standing for the w flows of the stratum's offsets from it: w
  times the bytes and w times its share of each link it crosses (its CM02
  penalty divided by w, its own bound times w:
  ``engine.step_end_times`` with ``weight``).  A link's load is then the sum of the
  weights of the sampled flows crossing it, an estimate of the flows of
  the whole batch that cross it; the sampled flows are shared by max-min
  as one step (the engine's event loop).  Where the stratum's width is a
  power of two dividing p, the members' sampled offsets are spread over
  it (:func:`_spread`: a permutation), so that a switch's or a group's
  members send across the whole stratum as its shifts do; else all take
  the offset at its golden-ratio place.
- **Overheads.**  A rank's sends are posted ``o_s`` apart in order: the
  sampled flow of the shift posted n-th starts at n ``o_s`` (as in the
  engine); an eager sender leaves after its last posting; a receiver pays
  ``o_r`` for each of the w receives a sampled flow stands for, in the
  order of the flows' arrivals, from its last posting on
  (:func:`_receives_done`, the engine's ``_serial_receives`` recurrence).
- **Batches at their own pace.**  For ``scattered``, the batches are
  sampled as ``shifts`` samples shifts (:func:`batch_samples`, strata
  growing by 4): a stratum of the offsets of width w >= 32 is w / 32
  batches, the batch of its sampled offset timed from clocks 0 and each
  member's clock advanced by its time times w / 32 (the first batches,
  offsets below 64, their own).
- **By levels** (``linear`` where its ranks fill a fat-tree's or a
  dragonfly's nodes in order: :func:`level_blocks`).  Instead of strata of
  offsets, one flow per member and level of the fabric (its node, leaf or
  router, pod or group, the rest): to the same place in another block of
  the level below within its own block, standing for that level's
  destinations (:func:`_level_flows`).  Every member then sends and receives
  as many flows of each level as the pattern does; on a fat-tree routed
  d-mod-k each link carries the pattern's weight (equal to the explicit
  engine), on a dragonfly every global link does (the flows weighted by block
  pairs).  Three or four flows per member: a million ranks in seconds.
- **A dragonfly's global level apart.**  The flows between groups are shared
  by max-min apart from those within a group (:func:`_level_flows`' parts):
  a group pair's global link carries every flow between the two groups
  (4096 x 4096 of the pattern's at a million ranks), so on a large
  dragonfly it is their lowest level from start to end, and the flows
  within a group, which end long before them, cannot move their rates.
  Shared together, the group level's flows end at hundreds of instants (the
  global flows' transit loads the local links unevenly), each an event of
  one max-min over every flow: 141 s of CPU at 262,144 ranks and over 16
  minutes at a million; apart, seconds, and the same answers (to 1e-15 from
  8192 to 262,144 ranks, with and without overheads).  On a small one the
  two can differ, apart the nearer the explicit engine (-0.55 % on 1024
  ranks in 8 groups of 128: ``docs/MODELS.md``).

``linear`` refuses on a fat-tree's ranks that do not fill whole blocks of its nodes
(:func:`_refuse_strata_on_a_fat_tree`: the strata there take more than 13
minutes), elsewhere (:func:`check_sample`) where its sample would exceed
:data:`SAMPLE_FLOWS` flows; both refuse ranks out of their hosts' order (a
random mapping: :func:`run_batches`).  Its error against the explicit engine is
measured where both run (1024 to 4096 ranks:
``tests/benchmarks/batch_accuracy.py``, ``docs/MODELS.md``, "Scale",
"alltoall linear and scattered at a million ranks", and "alltoall linear by the
fabric's levels").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .pattern import MAX_MESSAGES, PatternTooLarge, Step, _ints
from .shifts import _GOLDEN, shift_strata

__all__ = ["ShiftBatches", "batch_samples", "run_batches", "check_sample", "sample_flows",
           "level_blocks", "SHIFT_STRATA", "SAMPLE_FLOWS", "BATCH_STRATA", "BATCH_SHIFT_STRATA"]

#: Equal strata of a batch's shifts beyond the doubling ones (``linear`` where its
#: ranks do not fill a fat-tree's nodes in order: :func:`level_blocks`).
SHIFT_STRATA = 16

#: The most flows ``linear``'s sample in :data:`SHIFT_STRATA` strata holds (one per
#: member and stratum, 29 strata at 262,144 ranks; 31 at a million, where 12.6 million
#: flows already took more than 5 GB): above, it refuses.
SAMPLE_FLOWS = 1 << 23

#: Equal strata of the batches beyond the growing ones (``scattered``'s series: 22
#: batches sampled at a million ranks, 17 at 1024).
BATCH_STRATA = 16


#: Equal strata of the shifts of each sampled batch of ``scattered`` (its 32 shifts: one
#: stratum, its offsets spread over the members, p flows).
BATCH_SHIFT_STRATA = 1


@dataclass(frozen=True)
class ShiftBatches(Step):
    """Every offset k = 1 .. p - 1 in batches of the offsets with the same ``k //
    throttle`` (1 .. throttle - 1, throttle .. 2 throttle - 1, ...): in each batch, member
    j (rank ``src[j]``) posts every receive, then one ``MPI_Isend`` of ``n_bytes[0]``
    bytes per offset, in ascending order, to member ``j + k mod p`` (``backward``:
    ``j - k``), and waits for all.  A throttle of p or more: one batch.

    ``src`` is the members (p ranks); ``dst`` and ``n_bytes`` the first offset's
    messages.
    """

    throttle: int = 1
    backward: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        if len(self.src) < 2 or self.throttle < 2 or len(set(self.n_bytes.tolist())) != 1:
            raise ValueError("two members or more, batches of 2 offsets or more, equal blocks")
        if self.repeat != 1 or len(self.post_ahead) or len(self.synchronous) \
                or len(self.reduce_ranks):
            raise ValueError("shift batches neither repeat, post ahead, synchronise nor reduce")

    @classmethod
    def of(cls, members, n_bytes: int, throttle: int, backward: bool = False) -> "ShiftBatches":
        """The batches of ``members``, ``throttle`` offsets at a time."""
        members = _ints(members)
        first = _partner(np.arange(len(members), dtype=np.int64), 1, len(members), backward)
        return cls(members, members[first], np.full(len(members), n_bytes),
                   throttle=int(throttle), backward=backward)

    @property
    def messages(self) -> int:
        """Messages of every batch."""
        return len(self.src) * (len(self.src) - 1)

    @property
    def n_batches(self) -> int:
        """How many batches (waits)."""
        return -(-len(self.src) // self.throttle)

    def batch(self, b: int) -> np.ndarray:
        """The offsets of batch ``b``, in posting order."""
        return np.arange(max(b * self.throttle, 1), min((b + 1) * self.throttle, len(self.src)),
                         dtype=np.int64)

    def explicit(self) -> tuple[Step, ...]:
        """Every batch as a plain step (for tests: p (p - 1) messages)."""
        p = len(self.src)
        steps = []
        for b in range(self.n_batches):
            offsets = self.batch(b)
            j = np.repeat(np.arange(p, dtype=np.int64), len(offsets))
            t = _partner(j, np.tile(offsets, p), p, self.backward)
            steps.append(Step(self.src[j], self.src[t], np.full(len(j), int(self.n_bytes[0])),
                              receive_first=np.ones(len(j))))
        return tuple(steps)

    def parts(self):
        """Refused: the plain steps are the messages this class stands for."""
        raise PatternTooLarge(f"shift batches of {self.messages:,} messages cannot be unrolled "
                              "(run beside other groups or together with other steps)")


def sample_flows(p: int) -> int:
    """The flows of ``linear``'s sample on p ranks in :data:`SHIFT_STRATA` strata (the
    doubling ones, then equal ones): one per member and stratum."""
    return p * len(shift_strata(p - 1, SHIFT_STRATA)[0]) if p > 1 else 0


def check_sample(name: str, p: int) -> None:
    """Refuse ``linear`` on p ranks when its sample would hold more than
    :data:`SAMPLE_FLOWS` flows, naming the largest p it answers.

    Raises
    ------
    PatternTooLarge
    """
    if sample_flows(p) <= SAMPLE_FLOWS:
        return
    low = 2
    while sample_flows(low * 2) <= SAMPLE_FLOWS:
        low *= 2
    high = low * 2
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (mid, high) if sample_flows(mid) <= SAMPLE_FLOWS else (low, mid)
    raise PatternTooLarge(
        f"{name} on {p:,} ranks posts {p * (p - 1):,} messages at once; its model's sample "
        f"would be {sample_flows(p):,} flows in one max-min, more than the "
        f"{SAMPLE_FLOWS:,} it holds (the largest it answers: {low:,} ranks; any size on "
        "a fat-tree or a dragonfly whose nodes its ranks fill in order from the first)")


def _partner(j: np.ndarray, k, p: int, backward: bool) -> np.ndarray:
    return (j - k) % p if backward else (j + k) % p


def batch_samples(steps: ShiftBatches, batch_strata: int | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The sampled batches and how many batches each stands for: one batch when there is
    one; else the batch of each sampled offset of ``shifts.shift_strata`` over the
    offsets 1 .. p - 1 (``batch_strata`` equal strata, :data:`BATCH_STRATA` unless
    given) whose stratum holds whole batches (it starts at a multiple of the throttle and
    ends at one or at p), standing for those; each batch the other strata fall in (the
    first two here: offsets below 64, in strata growing by 4) for itself.

    Examples
    --------
    >>> steps = ShiftBatches.of(np.arange(1000), 8, 32)
    >>> batches, counts = batch_samples(steps, 4)
    >>> batches.tolist(), counts.tolist(), int(counts.sum()) == steps.n_batches
    ([0, 1, 4, 8, 21, 26], [1.0, 1.0, 6.0, 8.0, 8.0, 8.0], True)
    """
    p, t = len(steps.src), steps.throttle
    if steps.n_batches == 1:
        return np.zeros(1, dtype=np.int64), np.ones(1)
    at, weight = shift_strata(p - 1, BATCH_STRATA if batch_strata is None else batch_strata, 4)
    first = np.concatenate([[0], np.cumsum(weight)[:-1]]) + 1   # each stratum's first offset
    end = first + weight
    whole = (first % t == 0) & ((end % t == 0) | (end == p))
    batches = ((at[whole] + 1) // t).tolist()
    counts = (-(-end[whole] // t) - first[whole] // t).tolist()
    covered = {b for lo, hi in zip(first[whole].tolist(), end[whole].tolist())
               for b in range(lo // t, -(-hi // t))}
    for b in sorted(set(range(steps.n_batches)) - covered):
        batches.append(b)
        counts.append(1)
    order = np.argsort(batches, kind="stable")
    return np.asarray(batches, dtype=np.int64)[order], np.asarray(counts, dtype=float)[order]


def _spread(p: int, first: int, w: int, at: int) -> np.ndarray:
    """Each member's sampled offset in the stratum of the ``w`` offsets from ``first``:
    when w is a power of two dividing p, member j's is ``first + (a j mod w)`` (a even,
    near the golden ratio of w: a permutation whose offsets cover the stratum evenly,
    consecutive members' far apart, so that a switch's or a group's members send across
    the whole stratum as its shifts do); else every member's the offset at ``at``."""
    if w & (w - 1) or p % w:
        return np.full(p, first + at, dtype=np.int64)
    a = 2 * int(round(_GOLDEN * w / 2))
    return first + (a * np.arange(p, dtype=np.int64)) % w


def _strata(n: int, strata: int, ratio: int) -> tuple[np.ndarray, np.ndarray]:
    """``shifts.shift_strata``; ``ratio`` 0: ``strata`` equal strata (the last the rest),
    each sampled at its golden-ratio place."""
    if ratio:
        return shift_strata(n, strata, ratio)
    width = -(-n // strata)
    low = np.arange(0, n, width, dtype=np.int64)
    w = np.minimum(width, n - low)
    s = np.arange(1, len(low) + 1, dtype=float)
    return low + np.floor(np.modf(s * _GOLDEN)[0] * w).astype(np.int64), w


def _sampled_flows(steps: ShiftBatches, offsets: np.ndarray, strata: int, ratio: int):
    """The sampled flows of a batch of ``offsets`` (consecutive) in :func:`_strata`'s
    strata: (sender members, receiver members, each flow's weight, the
    position among its sender's postings it is posted at (1 ..), its receives' arrivals:
    ((posting position, receives), ...), its stratum's first offset w - 1 times and its
    last once); one offset per member and stratum, :func:`_spread`'s."""
    p = len(steps.src)
    at, weight = _strata(len(offsets), strata, ratio)
    low = np.concatenate([[0], np.cumsum(weight)[:-1]])
    j = np.tile(np.arange(p, dtype=np.int64), len(at))
    k = np.concatenate([_spread(p, int(offsets[lo]), w, a - lo) for lo, w, a
                        in zip(low.tolist(), weight.tolist(), at.tolist())])
    w = np.repeat(weight.astype(float), p)
    arrivals = ((np.repeat(low + 1, p).astype(float), w - 1),
                (np.repeat(low + weight, p).astype(float), np.ones(len(j))))
    return (j, _partner(j, k, p, steps.backward), w, (k - offsets[0] + 1).astype(float),
            arrivals, [0, len(j)])


def _node_blocks(fabric) -> tuple[list[int], bool] | None:
    """The nested blocks of nodes of a fat-tree (a leaf's, a pod's, ...: ``fabric.down``)
    or a dragonfly (a router's, a chassis', a group's), innermost first, and whether
    :func:`_level_flows` weights its flows by block pairs; None on other fabrics."""
    if hasattr(fabric, "down"):
        return [int(np.prod(fabric.down[:level])) for level in range(len(fabric.down))], False
    if hasattr(fabric, "per_router"):
        router = fabric.per_router
        return [1, router, router * fabric.routers, router * fabric.routers * fabric.chassis], True
    return None


def _refuse_strata_on_a_fat_tree(fabric, hosts: np.ndarray, p: int) -> None:
    """Refuse ``linear`` in strata on a fat-tree (its ranks do not fill whole blocks of
    the fabric's nodes in order from node 0: :func:`level_blocks` is None), naming the
    sizes that answer there.  Its strata's flows end at many distinct instants, each an
    event of one max-min over all of them: 5000 ranks of the million-rank fat-tree ran
    more than 13 minutes of CPU without an answer, 8192 and 65,536 (levels forced off)
    more than 185 and 321 s.  (On the dragonfly they answered 5000 ranks in 172 s.)

    Raises
    ------
    PatternTooLarge
    """
    nodes, _ = _node_blocks(fabric)
    per_node = max(int(np.searchsorted(hosts, hosts[0] + 1)), 1)
    if hosts[0] != 0 or not np.array_equal(hosts, np.arange(p, dtype=np.int64) // per_node):
        where = "ranks that fill the nodes in order from node 0 (a block mapping)"
    else:
        block = max(per_node * b for b in nodes if per_node * b < p)
        where = (f"whole blocks of {block:,} ranks from node 0 ({p // block * block:,} or "
                 f"{-(-p // block) * block:,} ranks here)")
    raise PatternTooLarge(
        f"alltoall/linear on {p:,} ranks of a fat-tree: its model answers above 4,096 "
        f"ranks by the fabric's levels, for {where}; its sample in strata would take "
        "more than 13 minutes")


def level_blocks(fabric, hosts: np.ndarray) -> tuple[list[int], bool] | None:
    """The nested blocks of ranks ``linear``'s level sample follows, innermost first, the
    last all p ranks, and whether its flows are weighted by block pairs: a node's ranks,
    then a leaf's, a pod's, ... of a fat-tree (``fabric.down``; by member), a router's,
    a chassis', a group's of a dragonfly (by block pairs: its global links); when the
    ranks fill the nodes in order from node 0 (``hosts``: the members' nodes) and each
    block size divides the next; else None."""
    p = len(hosts)
    if _node_blocks(fabric) is None:
        return None
    nodes, pairs = _node_blocks(fabric)
    if p < 2 or hosts[0] != 0:
        return None
    per_node = int(np.searchsorted(hosts, 1))
    if not np.array_equal(hosts, np.arange(p, dtype=np.int64) // per_node):
        return None
    blocks = sorted({per_node * b for b in nodes if 1 < per_node * b < p} | {per_node, p} - {1})
    if any(b % a for a, b in zip([1] + blocks, blocks)):
        return None
    return blocks, pairs


def _group_ranks(fabric, hosts: np.ndarray) -> int:
    """The ranks of a dragonfly's group when ``hosts`` (the members' nodes) fill its
    nodes in order (:func:`level_blocks`), else 0."""
    blocks = _node_blocks(fabric)
    if blocks is None or not blocks[1]:
        return 0
    return blocks[0][-1] * int(np.searchsorted(hosts, 1))


def _coprime_near(n: int, fraction: float) -> int:
    """The least integer from ``fraction * n`` up that is coprime to ``n`` (so that
    ``i * m mod n`` permutes ``range(n)``)."""
    m = max(1, int(fraction * n))
    while math.gcd(m, n) != 1:
        m += 1
    return m


def _level_flows(steps: ShiftBatches, blocks: list[int], pairs: bool,
                 global_ranks: int = 0) -> tuple:
    """``linear``'s sampled flows on nested blocks (:func:`level_blocks`), as
    :func:`_sampled_flows`': one flow per member and level, to the same place in another
    block of the level below within its own block (between a dragonfly's groups, to
    places scrambled; the sub-block rotated by s: a permutation; s 1 + ``frac((i + 1)
    golden)`` of the others for the member at place i of its sub-block, or with
    ``pairs`` 1 + i mod the others where that misses some and the places are enough
    for all; one s for the whole block within the innermost block, and with
    ``pairs`` where the places do not reach every other sub-block: a dragonfly's
    routers at a million ranks, each router's members then all to one router, so that
    every router's flows end alike), standing for the B - b destinations of that level
    (B its block's size, b the sub-block's).  Every member sends and receives exactly
    as many flows of each level as the pattern does, and on a fat-tree routed d-mod-k
    (a leaf's, a pod's members keep their place) each link
    carries the weight of the flows the pattern puts on it.  ``pairs``: each flow's
    weight is instead that of its block pair (sub-block to sub-block, ``b * b`` flows of
    the pattern) shared by the places rotated by the same s, where every shift has
    places, so that every pair of blocks (a dragonfly's groups: one global link)
    carries the pattern's weight when the places do not divide evenly among the
    shifts; a member's total then is not exact (within the places' rounding).

    The flows come with the bounds of the parts :func:`_crowd_step` times apart: the
    outermost level's apart from the others when its sub-blocks are of
    ``global_ranks`` (a dragonfly's groups: its flows cross the global links), else
    all in one."""
    p = len(steps.src)
    member = np.arange(p, dtype=np.int64)
    js, ks, ts, ws, arrivals = [], [], [], [], [([], []) for _ in range(4)]
    for level, (sub, block) in enumerate(zip([1] + blocks, blocks)):
        n = block // sub
        if n < 2:
            continue
        place, base = member % sub, member - member % block
        shift = 1 + np.floor(np.modf((place + 1) * _GOLDEN)[0] * (n - 1)).astype(np.int64)
        if pairs and sub >= n - 1 and len(np.unique(shift[:sub])) < n - 1:
            # places enough for every other sub-block, but the golden spread misses
            # some: each reached in turn instead (rotating the whole block put all of its
            # flows on one global link: 16 groups of 16 ranks, +1318 % at 64 KiB)
            shift = 1 + place % (n - 1)
        per_shift = np.bincount(shift[:sub], minlength=n)
        whole = np.count_nonzero(per_shift) < n - 1
        if sub == 1 or (pairs and whole):   # the whole block rotated by one s
            shift = np.full(p, 1 + int(np.modf((level + 1) * _GOLDEN)[0] * (n - 1)))
        # A dragonfly's flows between groups go to places scrambled (place * m mod the
        # group's ranks, m coprime to them): the same place, the same router slot,
        # meets SimGrid's tie-break on most flows (both ends' global links reach one
        # third group, and the route goes through it), where the pattern's
        # destinations, every router of the group, meet it on about one in R; the
        # scrambled places meet it as often (docs/MODELS.md "The tie-break, by rule").
        if global_ranks and sub == global_ranks:
            place_to = place * _coprime_near(sub, _GOLDEN) % sub
        else:
            place_to = place
        t = base + ((member // sub % n + shift) % n) * sub + place_to
        k = (t - member) % p
        js.append(member)
        ts.append(t)
        ks.append(k)
        weight = np.full(p, float(block - sub))
        if pairs and not whole:
            weight = weight * (sub / (n - 1)) / per_shift[shift]
        ws.append(weight)
        # its receives: the level's offsets after the member's sub-block, then before it
        own = member - place
        runs = (((own + sub - member) % p, (base + block - 1 - member) % p,
                 base + block - own - sub),
                ((base - member) % p, (own - 1 - member) % p, own - base))
        for i, (first, last, width) in enumerate(runs):
            for n_run, (at, count) in enumerate(((first, np.maximum(width - 1, 0)),
                                                 (last, np.minimum(width, 1)))):
                arrivals[2 * i + n_run][0].append(at.astype(float))
                arrivals[2 * i + n_run][1].append(count.astype(float))
    k = np.concatenate(ks)
    parts = [0, len(k)]
    if global_ranks and len(blocks) > 1 and blocks[-2] == global_ranks:
        parts.insert(1, len(k) - p)
    return (np.concatenate(js), np.concatenate(ts), np.concatenate(ws), k.astype(float),
            tuple((np.concatenate(at), np.concatenate(count)) for at, count in arrivals),
            parts)


def _receives_done(receiver: np.ndarray, arrival_s: np.ndarray, cost_s: np.ndarray,
                   free_s: np.ndarray) -> np.ndarray:
    """Per rank, when its last receive is paid for when it pays ``cost_s`` for each
    arrival in turn, in arrival order, from ``free_s`` on: the recurrence ``free =
    max(free, arrival) + cost`` of ``engine._serial_receives``, in closed form (the
    latest of ``free_s`` plus every cost and each arrival plus the costs from it on)."""
    order = np.lexsort((arrival_s, receiver))
    r, a, c = receiver[order], arrival_s[order], cost_s[order]
    total = np.bincount(r, weights=c, minlength=len(free_s))
    before = np.cumsum(c) - c
    first = np.searchsorted(r, r)
    from_here = total[r] - (before - before[first])
    done = free_s + total
    np.maximum.at(done, r, a + from_here)
    return done


def _crowd_step(steps: ShiftBatches, offsets: np.ndarray, flows: tuple, clock: np.ndarray,
                hosts: np.ndarray, fabric, net, weight_S: float, end_times) -> np.ndarray:
    """Each member's clock after one batch of ``offsets`` from ``clock`` (members'), its
    shifts sampled and weighted (``flows``: :func:`_sampled_flows`' or
    :func:`_level_flows`'; the module's docstring; ``end_times``:
    ``engine.step_end_times`` with ``weight``), each of their parts shared apart."""
    j, t, weight, nth, arrivals, parts = flows
    p, n_bytes = len(clock), int(steps.n_bytes[0])
    eager = n_bytes < net.eager_threshold_bytes
    o_s, o_r = float(net.send_overhead_s), float(net.recv_overhead_s)
    posted_s = nth * o_s   # every receive is posted before the sends (MPI_Irecv first)
    start = np.maximum(clock[j] + posted_s, clock[t])
    size = np.full(len(j), float(n_bytes + net.envelope_bytes))
    members = steps.src
    end = np.concatenate([
        end_times(start[a:b], size[a:b],
                  fabric.routes(hosts[members[j[a:b]]], hosts[members[t[a:b]]]), fabric, net,
                  weight_S, weight=weight[a:b])
        for a, b in zip(parts, parts[1:])])
    # a sender leaves after its last posting (eager) or when its flows end
    last_post_s = len(offsets) * o_s
    after = clock + last_post_s
    if not eager:
        np.maximum.at(after, j, end)
    if eager and o_r:
        # the flows a sampled one stands for arrive as they were posted, o_s apart
        free = clock + last_post_s if o_s else np.full(p, -np.inf)
        arrive = np.concatenate([end + (at - nth) * o_s for at, _ in arrivals])
        cost = np.concatenate([count * o_r for _, count in arrivals])
        return np.maximum(after, _receives_done(np.tile(t, len(arrivals)), arrive, cost,
                                                free))
    np.maximum.at(after, t, end)
    return after


def run_batches(steps: ShiftBatches, clock: np.ndarray, hosts: np.ndarray, fabric, net,
                weight_S: float = 0.0, *, end_times) -> np.ndarray:
    """The rank clocks after the batches (the module's docstring): one batch from the
    members' clocks; several, each sampled batch from clocks 0, each member at its own
    pace from its clock on entry.  ``end_times``: ``engine.step_end_times`` with ``weight`` (passed
    in: the engine imports this module)."""
    members = steps.src
    if np.any(np.diff(hosts[members]) < 0):
        raise PatternTooLarge(
            f"{steps.messages:,} messages posted in batches of "
            f"{min(steps.throttle, len(members) - 1):,} shifts on ranks out of their hosts' "
            "order (a cyclic or random mapping): the model of shift batches is measured on "
            "block mappings only (linear on random ranks of a fat-tree: +5 % at 1024 ranks)")
    batches, counts = batch_samples(steps)
    after = clock.copy()
    if len(batches) == 1 and counts[0] == 1:
        levels = None if steps.backward else level_blocks(fabric, hosts[members])
        if levels is None and hasattr(fabric, "down") and steps.messages > MAX_MESSAGES:
            _refuse_strata_on_a_fat_tree(fabric, hosts[members], len(members))
        if levels is None:
            check_sample("alltoall/linear", len(members))
        flows = (_sampled_flows(steps, steps.batch(0), SHIFT_STRATA, 2) if levels is None
                 else _level_flows(steps, *levels, _group_ranks(fabric, hosts[members])))
        after[members] = _crowd_step(steps, steps.batch(0), flows, clock[members],
                                     hosts, fabric, net, weight_S, end_times)
        return after
    spent = np.zeros(len(members))
    zero = np.zeros(len(members))
    for b, count in zip(batches.tolist(), counts.tolist()):
        offsets = steps.batch(b)
        spent += count * _crowd_step(steps, offsets,
                                     _sampled_flows(steps, offsets, BATCH_SHIFT_STRATA, 0), zero,
                                     hosts, fabric, net, weight_S, end_times)
    after[members] = clock[members] + spent
    return after
