"""A communication pattern: what an algorithm sends, step by step.

A :class:`Step` is a set of messages posted together (a rank's messages in
a step are its ``MPI_Sendrecv``, ``MPI_Send`` or ``MPI_Recv``, or the
``MPI_Isend``/``MPI_Irecv`` calls one ``MPI_Waitall`` waits for: its part of
the step ends when all of them are done), followed by a local reduction on
some ranks.  A receive may be posted in one of the receiver's earlier steps
and waited for in this one (``post_ahead``: Open MPI's generic tree reduce
keeps two receives in flight).  ``repeat`` > 1 says that the same step happens that many times
in a row (the ring's p - 1 shifts): the engine then times it once and
multiplies, instead of routing it p - 1 times.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["Step", "Pattern"]


def _ints(values) -> np.ndarray:
    return np.asarray(values, dtype=np.int64).reshape(-1)


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
    """

    src: np.ndarray
    dst: np.ndarray
    n_bytes: np.ndarray
    reduce_ranks: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    reduce_bytes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    repeat: int = 1
    post_ahead: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __post_init__(self) -> None:
        for name in ("src", "dst", "n_bytes", "reduce_ranks", "reduce_bytes", "post_ahead"):
            object.__setattr__(self, name, _ints(getattr(self, name)))
        if not (len(self.src) == len(self.dst) == len(self.n_bytes)):
            raise ValueError("src, dst and n_bytes must have one entry per message")
        if len(self.post_ahead) not in (0, len(self.src)) or np.any(self.post_ahead < 0):
            raise ValueError("post_ahead must be empty or one integer >= 0 per message")
        if len(self.post_ahead) and self.repeat > 1:
            raise ValueError("a repeated step posts its receives in each repeat")
        if len(self.reduce_ranks) != len(self.reduce_bytes):
            raise ValueError("reduce_ranks and reduce_bytes must have one entry per rank")
        if np.any(self.src == self.dst):
            raise ValueError("a message goes from one rank to another")
        if isinstance(self.repeat, bool) or not isinstance(self.repeat, int) or self.repeat < 1:
            raise ValueError(f"repeat must be an integer >= 1, got {self.repeat!r}")


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

    ``windowed``: the steps are many and short (a pipeline's: thousands of
    steps of a few messages, whose flows meet those of the steps near them);
    when too many to run together (``engine.TOGETHER_MESSAGES``), they run
    together in windows of consecutive steps (``engine.WINDOW_MESSAGES``)
    rather than each step alone.
    """

    p: int
    steps: tuple[Step, ...]
    windowed: bool = False

    @property
    def messages(self) -> int:
        """The number of messages, repeats counted."""
        return sum(len(step.src) * step.repeat for step in self.steps)
