"""A communication pattern: what an algorithm sends, step by step.

A :class:`Step` is a set of messages posted together (each rank sends at
most one and receives at most one, as the algorithms' ``MPI_Sendrecv``,
``MPI_Send`` and ``MPI_Recv`` calls do), followed by a local reduction on
some ranks.  ``repeat`` > 1 says that the same step happens that many times
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
    """

    src: np.ndarray
    dst: np.ndarray
    n_bytes: np.ndarray
    reduce_ranks: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    reduce_bytes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    repeat: int = 1

    def __post_init__(self) -> None:
        for name in ("src", "dst", "n_bytes", "reduce_ranks", "reduce_bytes"):
            object.__setattr__(self, name, _ints(getattr(self, name)))
        if not (len(self.src) == len(self.dst) == len(self.n_bytes)):
            raise ValueError("src, dst and n_bytes must have one entry per message")
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
    """The steps of one collective on p ranks, in order."""

    p: int
    steps: tuple[Step, ...]

    @property
    def messages(self) -> int:
        """The number of messages, repeats counted."""
        return sum(len(step.src) * step.repeat for step in self.steps)
