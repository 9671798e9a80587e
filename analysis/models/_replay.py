"""Replaying an algorithm's schedule on per-rank clocks.

Some algorithms cut the vector into blocks whose sizes differ by one element
when the count does not divide evenly, and a closed formula with every block
rounded up (or down) is then only a bound.  These models instead replay the
algorithm's messages in program order on one clock per rank, under the
single-port, full-duplex, contention-free assumptions of the ``hockney``
profile on the crossbar:

* a blocking message of m bytes from a to b starts when both have reached it
  (rendezvous: ``smpi/send-is-detached-thresh:0``) and ends for both
  ``alpha + (m + envelope) beta`` later (``f_alpha alpha + (m + envelope)
  f_beta beta``: one way, seed 001 sec. 2.1);
* an exchange (``MPI_Sendrecv`` with one partner, or with distinct partners to
  the left and right) starts each direction when its two ends have reached it,
  and a rank leaves it when both its directions are done;
* a local reduction of m bytes adds ``m gamma`` to the rank's clock.

When the blocks are even, the replay is the closed formula the docstrings
state; the replay adds nothing but the exact rounding.
"""

from __future__ import annotations

from ._base import NetworkParams, message_s, one_way, reduce_s


class Clocks:
    """One simulated clock per rank, advanced by messages and reductions.

    Parameters
    ----------
    p : int
        Number of ranks.
    net : NetworkParams
        The alpha-beta-gamma parameters.
    elem_bytes : int
        Bytes per element; sizes below are element counts.
    """

    def __init__(self, p: int, net: NetworkParams, elem_bytes: int) -> None:
        if p < 1:
            raise ValueError(f"p must be >= 1, got {p!r}")
        self.t = [0.0] * p
        self.net = net
        self.uni = one_way(net)
        self.elem_bytes = elem_bytes

    def _msg(self, count: int) -> float:
        return message_s(self.net, count * self.elem_bytes)

    def send(self, src: int, dst: int, count: int) -> None:
        """A blocking send of count elements from src, received by dst: one way
        (seed 001's f_alpha, f_beta; 1 on full-duplex links)."""
        end = max(self.t[src], self.t[dst]) + message_s(self.uni, count * self.elem_bytes)
        self.t[src] = self.t[dst] = end

    def exchange(self, a: int, b: int, count_ab: int, count_ba: int) -> None:
        """MPI_Sendrecv between a and b: a sends count_ab, b sends count_ba."""
        end = max(self.t[a], self.t[b]) + max(self._msg(count_ab), self._msg(count_ba))
        self.t[a] = self.t[b] = end

    def shift(self, steps: list[tuple[int, int, int, int]]) -> None:
        """Simultaneous MPI_Sendrecv calls with distinct partners.

        Each step is (rank, dest, count_sent, source); the count each rank
        receives is the count its source sends to it in the same list.
        """
        before = list(self.t)
        sent = {(rank, dest): count for rank, dest, count, _ in steps}
        for rank, dest, count, source in steps:
            out_end = max(before[rank], before[dest]) + self._msg(count)
            in_end = max(before[source], before[rank]) + self._msg(sent[(source, rank)])
            self.t[rank] = max(out_end, in_end)

    def reduce(self, rank: int, count: int) -> None:
        """A local reduction of count elements on rank."""
        self.t[rank] += reduce_s(self.net, count * self.elem_bytes)

    def finish(self) -> float:
        """The collective's time: the latest clock."""
        return max(self.t)
