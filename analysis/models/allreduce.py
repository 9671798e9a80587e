"""Cost models of the allreduce algorithms, one function per registry entry.

Every function has the same signature::

    f(p, n_bytes, net, *, elem_bytes=8, root=0, commutative=True) -> Prediction

``n_bytes`` is the vector size per process; ``net`` the alpha-beta-gamma
parameters (SMPI's 16-byte envelope included in every message).  Accuracy
classes hold on the crossbar (one rank per node) under the ``hockney`` profile.
"""

from __future__ import annotations

from ._base import (
    DEFAULT_PARAMS,
    AlgorithmParams,
    NetworkParams,
    Prediction,
    check_arguments,
    exact,
    floor_log2,
    message_s,
    reduce_s,
)
from . import _pipelined
from . import bcast as _bcast
from . import reduce as _reduce

__all__ = ["recursive_doubling", "ring", "rabenseifner", "reduce_bcast", "binary_tree",
           "pipelined_tree", "dual_root_pipelined"]


def recursive_doubling(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Recursive-doubling allreduce.

    ``T = lg p' (alpha + n beta + n gamma) + [p != p'] (2 (alpha + n beta) + n gamma)``,
    ``p' = 2^floor(lg p)``.

    Seed 001 sec. 2.4 gives ``lg p (alpha + n beta + n gamma)`` plus one
    uni-directional message when p is not a power of two; the implementation
    needs two (the pre-step folding 2r ranks into r, and the post-step
    returning the result), and the receiving rank of the pre-step combines
    once more, so both appear here.

    Accuracy: exact.  Every message carries the whole vector, partners
    exchange over separate directions of full-duplex links, and the ranks
    outside the pre-step wait for their partners, so every step lies on the
    critical path.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    step = message_s(net, n_bytes) + reduce_s(net, n_bytes)
    time = floor_log2(p) * step
    if p & (p - 1):
        time += 2 * message_s(net, n_bytes) + reduce_s(net, n_bytes)
    return exact(time)


def ring(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Ring allreduce: ring reduce-scatter and ring allgather.

    ``T = 2 (p - 1) (alpha + b beta) + (p - 1) b gamma``, with ``b`` the
    largest block, ``ceil(count / p)`` elements (seed 001 sec. 2.7:
    ``2 (p-1) alpha + 2 n beta + n gamma - (2 n beta + n gamma) / p`` when p
    divides the count).

    Accuracy: exact.  When p does not divide the count, a largest block
    travels through all 2 (p - 1) steps of its chain (reduce-scatter, then
    allgather from the rank that completed it) and never waits, because every
    other transfer a rank takes part in is at most as large; so the largest
    block sets the time.  Checked against the simulation for every p in
    2..40, 63, 64 and 52 counts including 1..40 elements (float and double).
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    block = -(-count // p) * elem_bytes
    return exact((p - 1) * (2 * message_s(net, block) + reduce_s(net, block)))


def rabenseifner(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Rabenseifner's allreduce (recursive halving, then recursive doubling).

    Seed 001 sec. 2.5, with ``p' = 2^floor(lg p)`` and ``f_alpha = f_beta = 1``:

    * power of two: ``2 lg p alpha + 2 n beta + n gamma - (2 n beta + n gamma) / p``;
    * otherwise the pre-step ``(1 + f_alpha) alpha + (1 + f_beta)/2 n beta + n/2 gamma``
      and the final ``alpha + n beta`` are added, and the halving runs on p'.

    Here every term is written per step so that block sizes are whole
    elements: the step at distance ``2^(k-1)`` moves and combines
    ``ceil(count / 2^k)`` elements; with the 16-byte envelope on each of the
    ``2 lg p'`` (+3) messages.

    Accuracy: exact.  When the halvings are uneven, the partner that keeps
    the larger half of a range (``ceil``) is on the critical path at every
    step, and each exchange takes as long as its larger direction, so every
    step costs its rounded-up block.  Rounding every block down instead gives
    a lower bound, which is what a proof alone guarantees; the simulation
    equals the rounded-up sum for every p in 2..40, 63, 64 and 52 counts
    including 1..40 elements (float and double), so exactness is claimed.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    levels = floor_log2(p)

    def halving_and_doubling() -> float:
        total = 0.0
        for k in range(1, levels + 1):
            b = -(-count // 2**k) * elem_bytes
            total += 2 * message_s(net, b) + reduce_s(net, b)
        return total

    extra = 0.0
    if p & (p - 1):
        half = -(-count // 2) * elem_bytes
        extra = 2 * message_s(net, half) + reduce_s(net, half) + message_s(net, n_bytes)
    return exact(extra + halving_and_doubling())


def reduce_bcast(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Binomial reduce to rank 0, then binomial broadcast from rank 0.

    ``T = ceil(lg p) (alpha + n beta + n gamma) + ceil(lg p) (alpha + n beta)``
    (seed 001 sec. 2.3 with a binomial instead of a binary tree; seed 004
    formula (6) for the reduce part).

    Accuracy: exact (sum of the two exact parts: the broadcast starts when
    the root has the result, and every other rank is waiting by then).
    """
    reduce_part = _reduce.binomial(p, n_bytes, net, elem_bytes=elem_bytes, root=0)
    bcast_part = _bcast.binomial(p, n_bytes, net, elem_bytes=elem_bytes, root=0)
    return exact(reduce_part.time_s + bcast_part.time_s)


def binary_tree(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Binary-tree reduce followed by binary-tree bcast (seed 001 sec. 2.2),
    both on the in-order tree rooted at p // 2, unsegmented.

    About ``2 h (alpha + n beta + n gamma) + 2 h (alpha + n beta)``, h = floor(lg p)
    (seed 004 formula (5) with one block, twice)
    Accuracy: exact.  The model is the longest path through the steps the C
    code posts (:mod:`collsim.analysis.schedule`, generated by
    ``_pipelined``), with every message ``alpha + (bytes + envelope) beta``
    (one-way ones ``f_alpha alpha + (bytes + envelope) f_beta beta``, seed 001
    sec. 2.1; the factors are 1 on the crossbar) and every combination
    ``bytes gamma``: on the crossbar at most one message
    leaves and one enters a rank at a time, so nothing shares a link and each
    step lasts exactly that.  The closed form above is what this path gives for
    equal blocks (tests/test_schedule_models.py checks it).
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    return exact(_pipelined.allreduce_in_order_tree_s(p, count, net, elem_bytes=elem_bytes,
                                                      params=params, segmented=False))


def pipelined_tree(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Pipelined binary-tree reduce followed by pipelined bcast with the same
    B blocks (seed 003's "UserAllreduce1").

    Seed 003 sec. 1.2: with one-way steps a block needs two steps up and two
    down at every level, ``T(B) ~ (4 h + 4 (B - 1)) (alpha + n/B beta)``, and with
    the best B (pipelining lemma) ``4 n beta + O(sqrt(h n alpha beta))``; plus
    ``2 (h + B - 1) n/B gamma`` of reductions on the path
    Accuracy: exact.  The model is the longest path through the steps the C
    code posts (:mod:`collsim.analysis.schedule`, generated by
    ``_pipelined``), with every message ``alpha + (bytes + envelope) beta``
    (one-way ones ``f_alpha alpha + (bytes + envelope) f_beta beta``, seed 001
    sec. 2.1; the factors are 1 on the crossbar) and every combination
    ``bytes gamma``: on the crossbar at most one message
    leaves and one enters a rank at a time, so nothing shares a link and each
    step lasts exactly that.  The closed form above is what this path gives for
    equal blocks (tests/test_schedule_models.py checks it).
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    return exact(_pipelined.allreduce_in_order_tree_s(p, count, net, elem_bytes=elem_bytes,
                                                      params=params, segmented=True))


def dual_root_pipelined(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Traff's doubly pipelined dual-root allreduce (seed 003, Algorithm 1).

    Seed 003 sec. 1.2: three bidirectional steps per round, the first block
    done after at most ``6 H + 1`` steps (H the trees' height: 3 per level up,
    1 between the roots, 3 per level down; fewer here, as exchanges whose both
    blocks are empty are skipped instead of sent as empty messages), so
    ``T(B) ~ (6 H + 1 + 3 (B - 1)) (alpha + n/B beta)`` and with the best B
    ``3 n beta + O(sqrt(H n alpha beta))``: the factor 4 of ``pipelined_tree``
    becomes 3 on a network with bidirectional links (f_beta = 1 on the
    crossbar; a bidirectional step costs ``alpha + n/B beta`` there).  Plus at
    most ``3 n/B gamma`` per round at a root
    Accuracy: exact.  The model is the longest path through the steps the C
    code posts (:mod:`collsim.analysis.schedule`, generated by
    ``_pipelined``), with every message ``alpha + (bytes + envelope) beta``
    (one-way ones ``f_alpha alpha + (bytes + envelope) f_beta beta``, seed 001
    sec. 2.1; the factors are 1 on the crossbar) and every combination
    ``bytes gamma``: on the crossbar at most one message
    leaves and one enters a rank at a time, so nothing shares a link and each
    step lasts exactly that.  The closed form above is what this path gives for
    equal blocks (tests/test_schedule_models.py checks it).
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    return exact(_pipelined.dual_root_s(p, count, net, elem_bytes=elem_bytes, params=params))
