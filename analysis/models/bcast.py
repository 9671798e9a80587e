"""Cost models of the broadcast algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``).  Accuracy
classes hold on the crossbar (one rank per node) under the ``hockney`` profile.
"""

from __future__ import annotations

from ._base import (
    DEFAULT_PARAMS,
    AlgorithmParams,
    NetworkParams,
    Prediction,
    ceil_log2,
    check_arguments,
    exact,
    message_s,
)

__all__ = ["binomial", "linear", "scatter_allgather"]


def binomial(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Binomial-tree broadcast, farthest child first.

    ``T = ceil(lg p) (alpha + n beta)`` (the broadcast half of seed 001
    sec. 2.3 with a binomial tree).

    Accuracy: exact.  Sends are blocking and a rank that received forwards at
    once; the root's last child and the chain of first children both end
    after ceil(lg p) messages.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact(ceil_log2(p) * message_s(net, n_bytes))


def linear(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Linear broadcast: p - 1 concurrent sends from the root.

    ``T = alpha + (p - 1) (n + envelope) beta``.  Seeds 002 and 004 count
    ``(p - 1)(alpha + n beta)`` for a root that sends one message after the
    other; this implementation posts all sends at once (Open MPI's basic
    linear), so they pay the latency once and share the root's link, which
    serializes the bytes instead.

    Accuracy: exact on a full-duplex crossbar: the p - 1 flows have the same
    route latency, so the root's link is shared equally and they all end
    together.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact(net.alpha_s + (p - 1) * (n_bytes + net.envelope_bytes) * net.beta_s_per_byte)


def scatter_allgather(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Binomial scatter of p chunks, then ring allgather (van de Geijn).

    ``T = ceil(lg p) alpha + (p - 1)/p n beta + (p - 1)(alpha + n/p beta)`` when
    p divides the count: the root sends half, a quarter, ... of the vector down
    the binomial tree (its messages are the critical path of the scatter), then
    p - 1 ring steps of one chunk.  Chunks are ``ceil(count / p)`` elements, the
    last ones shorter or empty; their sizes are replayed exactly on per-rank
    clocks (``_replay.Clocks``), with SMPI's 16-byte envelope on every message.

    Accuracy: exact.  Every message is blocking between two ranks on
    full-duplex links of the crossbar, so the replay is the simulation's
    schedule.
    """
    from ._replay import Clocks

    count = check_arguments(p, n_bytes, elem_bytes)
    if not 0 <= root < p:
        raise ValueError(f"root must be in 0..{p - 1}, got {root!r}")
    if p == 1 or count == 0:
        return exact(0.0)
    c = -(-count // p)

    def span(first: int, last: int) -> int:
        return min(last * c, count) - min(first * c, count)

    clocks = Clocks(p, net, elem_bytes)  # indexed by v = (rank - root) mod p
    mask = 1 << ((p - 1).bit_length() - 1)
    while mask:
        for v in range(0, p, 2 * mask):
            if v + mask < p:
                clocks.send(v, v + mask, span(v + mask, min(v + 2 * mask, p)))
        mask >>= 1
    for step in range(1, p):
        clocks.shift([(v, (v + 1) % p, span((v - step + 1) % p, (v - step + 1) % p + 1),
                       (v - 1) % p) for v in range(p)])
    return exact(clocks.finish())
