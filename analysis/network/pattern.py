"""A communication pattern: what an algorithm sends, step by step.

A :class:`Step` is a set of messages posted together (a rank's messages in
a step are its ``MPI_Sendrecv``, ``MPI_Send`` or ``MPI_Recv``, or the
``MPI_Isend``/``MPI_Irecv`` calls one ``MPI_Waitall`` waits for: its part of
the step ends when all of them are done), followed by a local reduction on
some ranks.  A receive may be posted in one of the receiver's earlier steps
and waited for in this one (``post_ahead``: Open MPI's generic tree reduce
keeps two receives in flight).  ``repeat`` > 1 says that the same step happens that many times
in a row (the ring's p - 1 shifts): the engine then times it once and
multiplies, instead of routing it p - 1 times.  Steps of one message each, one
after another (a chain, a token round a ring), are one
:class:`collsim.analysis.network.serial.SerialSteps` (a Step whose message k is
step k: :func:`plain_steps` expands it).  Above :data:`MAX_MESSAGES`
messages the p^2 entries are not explicit: the pairwise ones are shift steps
(``shifts.ShiftSteps``), the all-at-once alltoalls shift batches
(``batches.ShiftBatches``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

import numpy as np

__all__ = ["Step", "Pattern", "exchange", "on_ranks", "in_sequence", "side_by_side",
           "then_combine", "plain_steps", "MAX_MESSAGES", "PatternTooLarge"]


def _ints(values) -> np.ndarray:
    """values as a 1-d int64 array: the very array when it is one already (the engine
    knows a step's pairs again by their arrays' identity: ``engine._step_routing``)."""
    if isinstance(values, np.ndarray) and values.dtype == np.int64 and values.ndim == 1:
        return values
    return np.asarray(values, dtype=np.int64).reshape(-1)


#: The fields of a Step that hold arrays (each made a 1-d int64 array).
_ARRAY_FIELDS = ("src", "dst", "n_bytes", "reduce_ranks", "reduce_bytes", "post_ahead",
                 "synchronous", "receive_first", "nonblocking")


@dataclass(frozen=True)
class Step:
    """Messages posted together, then local reductions.

    Attributes
    ----------
    src, dst : numpy.ndarray of int
        Sender and receiver rank of each message.
    n_bytes : numpy.ndarray of int
        Payload of each message (SMPI adds its envelope).
    reduce_ranks, reduce_bytes : numpy.ndarray of int
        Ranks that combine after the messages, and how many bytes each.
    repeat : int
        Times this step happens in a row.
    post_ahead : numpy.ndarray of int
        Per message, how many of the receiver's steps (those in which it has
        a message) before this one posted the receive (``MPI_Irecv`` then,
        the wait here); 0: posted in this step.  Empty: all 0.  Only the
        event simulation of steps run together reads it (a step timed alone,
        above ``engine.TOGETHER_MESSAGES``, posts every receive in its step).
    synchronous : numpy.ndarray of int
        Per message, 1 for an ``MPI_Ssend``: rendezvous whatever its size (the
        sender pays ``o_s``, then waits for the delivery; the receiver pays no
        ``o_r``), 0 for the others.  Empty: all 0.
    receive_first : numpy.ndarray of int
        Per message, 1 when its receiver posted the receive (``MPI_Irecv``)
        before its sends of the step, so that the receive does not wait for
        the receiver's ``o_s`` (``MPI_Sendrecv`` posts its send first).
        Empty: all 0.
    nonblocking : numpy.ndarray of int
        Per message, 1 when its sender posts it with ``MPI_Isend``, which SMPI's
        ``Request::start`` charges ``o_s`` (``smpi/ois``) whatever its size,
        even when it is the rank's only operation of the step; 0 for a
        blocking ``MPI_Send`` (``o_s`` when eager only).  Empty: all 0.
    """

    src: np.ndarray
    dst: np.ndarray
    n_bytes: np.ndarray
    reduce_ranks: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    reduce_bytes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    repeat: int = 1
    post_ahead: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    synchronous: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    receive_first: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    nonblocking: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __post_init__(self) -> None:
        # (a composite at a million ranks makes a million steps: the checks skip
        # empty arrays and call the arrays' own methods, not numpy's wrappers)
        for name in _ARRAY_FIELDS:
            object.__setattr__(self, name, _ints(getattr(self, name)))
        m = len(self.src)
        if not (m == len(self.dst) == len(self.n_bytes)):
            raise ValueError("src, dst and n_bytes must have one entry per message")
        if len(self.post_ahead) not in (0, m) or (len(self.post_ahead)
                                                 and (self.post_ahead < 0).any()):
            raise ValueError("post_ahead must be empty or one integer >= 0 per message")
        for name in ("synchronous", "receive_first", "nonblocking"):
            flags = getattr(self, name)
            if len(flags) not in (0, m) or (len(flags) and (flags < 0).any()):
                raise ValueError(f"{name} must be empty or one integer >= 0 per message")
        if len(self.post_ahead) and self.repeat > 1:
            raise ValueError("a repeated step posts its receives in each repeat")
        if len(self.reduce_ranks) != len(self.reduce_bytes):
            raise ValueError("reduce_ranks and reduce_bytes must have one entry per rank")
        if (self.src == self.dst).any():
            raise ValueError("a message goes from one rank to another")
        if isinstance(self.repeat, bool) or not isinstance(self.repeat, int) or self.repeat < 1:
            raise ValueError(f"repeat must be an integer >= 1, got {self.repeat!r}")

    @property
    def messages(self) -> int:
        """The messages this step stands for, repeats counted."""
        return len(self.src) * self.repeat


def _checked_steps(src, dst, n_bytes, reduce_ranks, reduce_bytes, post_ahead,
                   cuts, reduce_cuts, nonblocking=(), receive_first=()) -> tuple[Step, ...]:
    """Steps cut out of whole-pattern arrays: step k holds messages ``cuts[k]:cuts[k + 1]``
    and reductions ``reduce_cuts[k]:reduce_cuts[k + 1]`` (``post_ahead``,
    ``nonblocking`` and ``receive_first`` empty: all 0; ``synchronous`` empty).

    The checks of :class:`Step` are made once over the arrays, not once per
    step: a pipeline at a million ranks has hundreds of thousands of steps.
    """
    src, dst, n_bytes, reduce_ranks, reduce_bytes, post_ahead = (
        _ints(a) for a in (src, dst, n_bytes, reduce_ranks, reduce_bytes, post_ahead))
    if not len(src) == len(dst) == len(n_bytes) == cuts[-1]:
        raise ValueError("src, dst and n_bytes must have one entry per message")
    if len(post_ahead) not in (0, len(src)) or np.any(post_ahead < 0):
        raise ValueError("post_ahead must be empty or one integer >= 0 per message")
    nonblocking, receive_first = _ints(nonblocking), _ints(receive_first)
    for name, flags in (("nonblocking", nonblocking), ("receive_first", receive_first)):
        if len(flags) not in (0, len(src)) or np.any(flags < 0):
            raise ValueError(f"{name} must be empty or one integer >= 0 per message")
    if not len(reduce_ranks) == len(reduce_bytes) == reduce_cuts[-1]:
        raise ValueError("reduce_ranks and reduce_bytes must have one entry per rank")
    if np.any(src == dst):
        raise ValueError("a message goes from one rank to another")
    no_ahead = np.zeros(0, dtype=np.int64)
    steps = []
    for k in range(len(cuts) - 1):
        step = object.__new__(Step)
        a, b = cuts[k], cuts[k + 1]
        c, d = reduce_cuts[k], reduce_cuts[k + 1]
        for name, value in (("src", src[a:b]), ("dst", dst[a:b]), ("n_bytes", n_bytes[a:b]),
                            ("reduce_ranks", reduce_ranks[c:d]),
                            ("reduce_bytes", reduce_bytes[c:d]), ("repeat", 1),
                            ("post_ahead", post_ahead[a:b] if len(post_ahead) else no_ahead),
                            ("synchronous", no_ahead),
                            ("receive_first", receive_first[a:b] if len(receive_first)
                             else no_ahead),
                            ("nonblocking", nonblocking[a:b] if len(nonblocking) else no_ahead)):
            object.__setattr__(step, name, value)
        steps.append(step)
    return tuple(steps)


def exchange(a, b, n_bytes_ab, n_bytes_ba=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The messages of ``MPI_Sendrecv`` between the pairs (a[i], b[i]): both directions."""
    a, b = _ints(a), _ints(b)
    forward = np.broadcast_to(_ints(n_bytes_ab) if np.ndim(n_bytes_ab) else n_bytes_ab, a.shape)
    backward = forward if n_bytes_ba is None else np.broadcast_to(
        _ints(n_bytes_ba) if np.ndim(n_bytes_ba) else n_bytes_ba, a.shape)
    return (np.concatenate([a, b]), np.concatenate([b, a]),
            np.concatenate([forward, backward]).astype(np.int64))


@dataclass(frozen=True)
class Pattern:
    """The steps of one collective on p ranks, in order.

    ``windowed``: the steps are a pipeline's (thousands of steps of a few
    messages, made one at a time, a receive posted steps ahead); when too many
    to run together (``engine.TOGETHER_MESSAGES``), every window of consecutive
    steps (``engine.WINDOW_MESSAGES``) runs as events, even one of a single
    step, which any other pattern's engine times alone.  ``together``: its
    steps run together as one event simulation whatever their count (their
    builder bounds it: the ranks of a neighbour exchange drift apart over many
    steps, which steps timed alone or in windows leave out).
    """

    p: int
    steps: tuple[Step, ...]
    windowed: bool = False
    together: bool = False

    @property
    def messages(self) -> int:
        """The number of messages, repeats counted."""
        return sum(step.messages for step in self.steps)


#: The most messages a pattern whose every message is its own (no repeated step, no
#: serial or shift steps) is built with: p (p - 1) at 4096 ranks.  Above, an alltoall's
#: p^2 messages (10^12 at a million ranks) cannot be held, routed or shared: the
#: pairwise ones become shift steps (``shifts.ShiftSteps``), the all-at-once ones shift
#: batches (``batches.ShiftBatches``).
MAX_MESSAGES = 1 << 24


class PatternTooLarge(ValueError):
    """The network model does not answer: the pattern or the model standing for it
    would hold more than it can (p^2 messages unrolled, a sample beyond
    ``batches.SAMPLE_FLOWS``), or that model is neither exact nor measured there (a
    chain whose hops share links, shift batches on ranks out of their hosts' order).
    No smaller stand-in is made: it would be another algorithm."""


# -- composing patterns -------------------------------------------------------
# The composite algorithms (two-level, node-aware, pre-rounded, the selectors)
# run other entries on sub-communicators, one after another or several at once
# on disjoint ranks.  The engine orders a rank's steps by their index only
# (a rank takes part in the steps that name it, in order), so any interleaving
# that keeps each part's steps in order is the same program.  The helpers
# carry every field of a step (``dataclasses.replace``), so a field added to
# Step for one family survives composition.

# The fields that name ranks, and the per-rank reduction fields; every other
# array field holds one entry per message (or none: all zero).
_RANK_FIELDS = ("src", "dst", "reduce_ranks")
_KNOWN_FIELDS = ("src", "dst", "n_bytes", "reduce_ranks", "reduce_bytes", "repeat")


#: Groups side by side with repeated steps are unrolled up to this many messages.
SIDE_BY_SIDE_UNROLL_MESSAGES = 1 << 14

#: A composition one of whose parts runs together (``Pattern.together``: a ring phase
#: of its real shifts) runs together as a whole up to this many messages (the bound of
#: one such ring, ``patterns._common.RING_EVENT_MESSAGES``), in windows above.
COMPOSED_TOGETHER_MESSAGES = 1 << 18


def _composed(p: int, steps: tuple, parts) -> Pattern:
    """The pattern of ``steps`` made of ``parts``, with what their flags ask of it.

    A part that runs together (a ring whose ranks drift apart over its shifts)
    or in windows (a pipeline) asks the same of the whole: its steps timed
    each alone would lose the drift (allreduce ``hierarchical``, ring inside and
    ring outside, 1 MiB on 512 random ranks of seed004_graphene: 58.5 ms, where
    SimGrid takes 201.1 ms and the steps run together 201.05 ms).  The whole
    runs together up to :data:`COMPOSED_TOGETHER_MESSAGES` messages, in windows
    above.
    """
    parts = list(parts)
    together = any(part.together for part in parts)
    windowed = together or any(part.windowed for part in parts)
    # (counted only when a part runs together: a composite of a million steps composes
    # each group's part, then the groups, then the levels)
    together = together and sum(step.messages for step in steps) <= COMPOSED_TOGETHER_MESSAGES
    return Pattern(p, steps, windowed=windowed, together=together)


def on_ranks(pattern: Pattern, ranks, p: int) -> Pattern:
    """A pattern of a sub-communicator, its rank i being rank ``ranks[i]`` of p.

    Parameters
    ----------
    pattern : Pattern
        The pattern on the sub-communicator's ``pattern.p`` ranks.
    ranks : sequence of int
        The communicator rank of each sub-communicator rank (``MPI_Group_incl``
        order), distinct, in ``0 .. p - 1``.
    p : int
        The communicator's size.

    Examples
    --------
    >>> sub = Pattern(2, (Step([0], [1], [8]),))
    >>> step = on_ranks(sub, [5, 3], 6).steps[0]
    >>> int(step.src[0]), int(step.dst[0])
    (5, 3)
    """
    ranks = _ints(ranks)
    if len(ranks) != pattern.p:
        raise ValueError(f"{len(ranks)} ranks for a pattern of {pattern.p}")
    if len(np.unique(ranks)) != len(ranks) or (len(ranks) and (ranks.min() < 0 or ranks.max() >= p)):
        raise ValueError(f"the ranks must be distinct and in 0..{p - 1}")
    return _composed(p, tuple(replace(s, **{name: ranks[getattr(s, name)] for name in _RANK_FIELDS})
                              for s in _held(pattern.steps)), [pattern])


def in_sequence(*patterns: Pattern) -> Pattern:
    """Patterns on the same p ranks, each rank running its part of one after the other's."""
    if not patterns:
        raise ValueError("need at least one pattern")
    p = patterns[0].p
    if any(part.p != p for part in patterns):
        raise ValueError(f"patterns of {sorted({part.p for part in patterns})} ranks in one sequence")
    return _composed(p, tuple(step for part in patterns for step in part.steps), patterns)


def plain_steps(steps) -> list[Step]:
    """``steps`` with each step that stands for several (``serial.SerialSteps``: a
    ``parts`` method) replaced by its plain steps, in order."""
    return [part for s in steps for part in (s.parts() if hasattr(s, "parts") else (s,))]


def _held(steps) -> tuple:
    """``steps`` with those made one at a time (``programs.ProgramSteps``) made."""
    return tuple(part for s in steps
                 for part in (s.parts() if getattr(s, "lazy", False) else (s,)))


def _unrolled(pattern: Pattern) -> tuple[Step, ...]:
    return tuple(replace(s, repeat=1) for s in plain_steps(pattern.steps)
                 for _ in range(s.repeat))


def _merged(here: list[Step]) -> Step:
    """Steps of disjoint ranks as one step (every array field concatenated)."""
    values = {}
    for f in fields(Step):
        if f.name == "repeat":
            continue
        arrays = [getattr(s, f.name) for s in here]
        if f.name not in _KNOWN_FIELDS and any(len(a) for a in arrays):
            # a per-message field left empty (all zero) in some step
            arrays = [a if len(a) else np.zeros(len(s.src), dtype=np.int64)
                      for a, s in zip(arrays, here)]
        values[f.name] = np.concatenate(arrays)
    return Step(repeat=here[0].repeat, **values)


def side_by_side(*patterns: Pattern) -> Pattern:
    """Patterns on disjoint ranks of the same p, running at once (groups in parallel).

    Step i of the result holds step i of every part.  Repeated steps are
    unrolled first (a part's ring of 3 shifts beside another's of 5 cannot
    share one repeated step, and the engine would end a shared one on every
    rank at once), except above :data:`SIDE_BY_SIDE_UNROLL_MESSAGES` when the
    parts repeat alike (equal groups running one algorithm).

    Raises
    ------
    ValueError
        If two parts share a rank (they would run at once on one process).

    Examples
    --------
    >>> a = Pattern(4, (Step([0], [1], [8]),))
    >>> b = Pattern(4, (Step([2], [3], [16]), Step([3], [2], [16])))
    >>> [len(step.src) for step in side_by_side(a, b).steps]
    [2, 1]
    """
    if not patterns:
        raise ValueError("need at least one pattern")
    p = patterns[0].p
    if any(part.p != p for part in patterns):
        raise ValueError(f"patterns of {sorted({part.p for part in patterns})} ranks side by side")
    parts = [Pattern(part.p, _held(part.steps)) for part in patterns if part.steps]
    owner = np.full(p, -1, dtype=np.int64)
    for index, part in enumerate(parts):
        used = np.unique(np.concatenate([np.concatenate([s.src, s.dst]) for s in part.steps]))
        if np.any(owner[used] >= 0):
            raise ValueError("patterns side by side must run on disjoint ranks")
        owner[used] = index
    alike = len({tuple(s.repeat for s in part.steps) for part in parts}) <= 1
    repeated = any(s.repeat > 1 for part in parts for s in part.steps)
    # The engine ends a repeated step on every rank at once (its last rank's
    # end): groups side by side in one repeated step would wait for the
    # slowest group before their next level (+5 % on a hierarchical ring of
    # 8 x 8 random ranks of a 4:1 fat-tree).  Unrolled, each group goes on
    # when its own ranks are done; above SIDE_BY_SIDE_UNROLL_MESSAGES the
    # repeats are kept (the engine runs so many steps one by one anyway).
    unrolled_messages = sum(part.messages for part in parts)
    if alike and not (repeated and len(parts) > 1
                      and unrolled_messages <= SIDE_BY_SIDE_UNROLL_MESSAGES):
        columns = [plain_steps(part.steps) for part in parts]
    else:
        columns = [_unrolled(part) for part in parts]
    steps = [_merged([c[i] for c in columns if i < len(c)])
             for i in range(max((len(c) for c in columns), default=0))]
    return _composed(p, tuple(steps), patterns)


def then_combine(pattern: Pattern, ranks, n_bytes) -> Pattern:
    """The pattern with a local computation of ``n_bytes`` (charged as a reduction,
    ``bytes * gamma``) on each of ``ranks`` after its last message.

    The engine charges a reduction to a rank that has a message in the same
    step, so the work goes onto each rank's last step (split off a repeated
    one).

    Raises
    ------
    ValueError
        If one of ``ranks`` has no message in the pattern.
    """
    ranks = _ints(ranks)
    n_bytes = np.broadcast_to(_ints(n_bytes) if np.ndim(n_bytes) else n_bytes, ranks.shape)
    steps = list(_held(pattern.steps))
    last = np.full(pattern.p, -1, dtype=np.int64)
    for index, s in enumerate(steps):
        last[s.src] = index
        last[s.dst] = index
    if np.any(last[ranks] < 0):
        raise ValueError("a rank computes after a pattern it takes no part in")
    for index in np.unique(last[ranks])[::-1]:
        here = last[ranks] == index
        s = steps[index]
        tail = replace(s, repeat=1, reduce_ranks=np.concatenate([s.reduce_ranks, ranks[here]]),
                       reduce_bytes=np.concatenate([s.reduce_bytes, n_bytes[here]]))
        steps[index:index + 1] = [replace(s, repeat=s.repeat - 1), tail] if s.repeat > 1 else [tail]
    return _composed(pattern.p, tuple(steps), [pattern])
