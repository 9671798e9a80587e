"""Cost models of the reduce algorithms, one function per registry entry.

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
    reduce_s,
    total,
)

__all__ = ["binomial", "linear", "prerounded", "fixed_order"]


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
    """Binomial-tree reduce.

    ``T = ceil(lg p) (alpha + n beta + n gamma) + [not commutative and root != 0] (alpha + n beta)``
    (seed 004 formula (6) with ``ceil``; the extra message carries the result
    from rank 0, where a non-commutative reduction ends in rank order, to the
    root).

    Accuracy: exact.  The root receives ceil(lg p) messages one after the
    other, and each child has finished its own subtree by the time the root
    asks for it.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    time = ceil_log2(p) * (message_s(net, n_bytes) + reduce_s(net, n_bytes))
    if not commutative and root != 0:
        time += message_s(net, n_bytes)
    return exact(time)


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
    """Linear (flat-tree) reduce with in-order blocking receives.

    ``T = (p - 1) (alpha + n beta + n gamma)`` (seed 004 formulas (1), (3)).

    Accuracy: exact.  The root posts one receive at a time, so the p - 1
    transfers and reductions are serialized.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact((p - 1) * (message_s(net, n_bytes) + reduce_s(net, n_bytes)))


def prerounded(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Reproducible reduce by pre-rounding (Demmel and Nguyen, IEEE TC 2015).

    ``T = T_allreduce_recursive_doubling(8 count, max) + T_inner(2 * 8 count)
    + 2 * 8 count gamma``: every rank needs the per-element bound, so it
    comes from an allreduce; the two extracted levels (2 count doubles) go
    to the root with params.inner_algorithm (default binomial).

    Accuracy: that of the inner model (exact for the exact ones).
    """
    from . import allreduce as _allreduce

    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    inner = _inner_model(params.inner_algorithm or "binomial")
    bound = _allreduce.recursive_doubling(p, 8 * count, net, elem_bytes=8)
    levels = inner(p, 8 * count * _allreduce.PREROUND_LEVELS, net, elem_bytes=8, root=root)
    return total(bound, levels, extra_s=reduce_s(net, 8 * count * _allreduce.PREROUND_LEVELS))


def fixed_order(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Reproducible topology-aware reduce (fixed summation tree, node-aware messages).

    With one rank per node (every rank its node's leader):
    ``T = sum_k T(min(2^k, p - 2^k)) + ceil(lg p) (T(12) + T(n) + n gamma) + [root != 0] T(n)``,
    ``T(m) = alpha + (m + 16) beta``: the dissemination allgather of the
    leader flags (one byte per rank, ceil(lg p) rounds), then a binomial tree
    whose every edge carries one tree node (a 12-byte header: count, level,
    index; then the vector), which the receiver combines with its own, and
    the final message from rank 0 to the root.  Derived here (no seed gives
    it); with several ranks per node the messages depend on the mapping and
    the runner marks the model approximate.

    Accuracy: exact on the crossbar, one rank per node: the allgather rounds
    are symmetric, and the binomial part is the binomial reduce with one more
    message per edge.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    lg = ceil_log2(p)
    discovery = sum(message_s(net, min(2**k, p - 2**k)) for k in range(lg))
    tree = lg * (message_s(net, 12) + message_s(net, n_bytes) + reduce_s(net, n_bytes))
    return exact(discovery + tree + (message_s(net, n_bytes) if root != 0 else 0.0))


def _inner_model(name: str):
    """The model of the reduce algorithm `name` used inside a two-phase algorithm."""
    if name not in __all__ or name == "prerounded":
        raise ValueError(f"no reduce algorithm {name!r} to use as the inner algorithm")
    return globals()[name]
