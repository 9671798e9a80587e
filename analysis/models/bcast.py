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

__all__ = ["binomial", "linear"]


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
