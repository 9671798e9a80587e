"""Cost models of the allreduce algorithms, one function per registry entry.

Every function has the same signature::

    f(p, n_bytes, net, *, elem_bytes=8, root=0, commutative=True) -> Prediction

``n_bytes`` is the vector size per process; ``net`` the alpha-beta-gamma
parameters (SMPI's 16-byte envelope included in every message).  Accuracy
classes hold on the crossbar (one rank per node) under the ``hockney`` profile.
"""

from __future__ import annotations

import math

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._base import (NetworkParams, Prediction, check_arguments, exact, floor_log2, message_s,
                    one_way, reduce_s, total)
from . import _blocks, _pipelined, bcast, reduce
from ._composite import (PREROUND_LEVELS, mpich_allreduce_choice, mpich_bcast_choice,
                         mpich_reduce_choice, node_comms_s, preround_bound_s, sub_params,
                         subcomm_creation_s)
from ._lookup import composite_names, model_for, part_model
from ._native import selector
from ._replay import Clocks

__all__ = ["recursive_doubling", "ring", "rabenseifner", "binary_blocks", "reduce_bcast", "hierarchical", "node_aware",
           "prerounded", "fixed_order", "binary_tree", "pipelined_tree", "dual_root_pipelined",
           "linear", "openmpi_default", "mpich_default"]


def recursive_doubling(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                       commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Recursive-doubling allreduce.

    ``T = lg p' (alpha + n beta + n gamma) + [p != p'] (2 (f_alpha alpha + n f_beta beta) + n gamma)``,
    ``p' = 2^floor(lg p)``: the pre- and post-step messages go one way (seed 001
    sec. 2.1's factors, 1 on full-duplex links).

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
        time += 2 * message_s(one_way(net), n_bytes) + reduce_s(net, n_bytes)
    return exact(time)


def ring(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
         commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
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


def rabenseifner(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                 commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Rabenseifner's allreduce (recursive halving, then recursive doubling).

    Seed 001 sec. 2.5, with ``p' = 2^floor(lg p)``:

    * power of two: ``2 lg p alpha + 2 n beta + n gamma - (2 n beta + n gamma) / p``;
    * otherwise the pre-step ``(1 + f_alpha) alpha + (1 + f_beta)/2 n beta + n/2 gamma``
      (an exchange of halves, then one half back one way) and the final
      ``f_alpha alpha + n f_beta beta`` are added, and the halving runs on p'.

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
        uni = one_way(net)
        extra = (message_s(net, half) + message_s(uni, half) + reduce_s(net, half)
                 + message_s(uni, n_bytes))
    return exact(extra + halving_and_doubling())


def binary_blocks(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                  commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Rabenseifner's binary blocks allreduce (seed 001 sec. 2.6).

    For a power of two it is the halving and doubling of :func:`rabenseifner`:
    ``2 lg p alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma``.  For
    ``p = 2^k + 2^m`` (two blocks) the smaller block's result joins the
    larger block at its step m and comes back after the mirror step, which
    puts ``2 (alpha + n/2^m beta) + n/2^m gamma`` on the critical path:

    ``T = 2 k alpha + 2 (1 - 1/2^k) n beta + (1 - 1/2^k) n gamma
    + 2 alpha + 2 n/2^m beta + n/2^m gamma``

    against ``3 alpha + 2 n beta + n/2 gamma`` for folding ranks in
    :func:`rabenseifner`: better whenever the smaller block has two ranks or
    more (m >= 1); for ``p = 2^k + 1`` it saves one alpha but combines n/2
    more elements.
    The seed gives no formula for more than two blocks, where the joins
    chain (each block's result is ready only after the smaller ones joined);
    the model replays the schedule of ``algorithms/common/blocks.c`` on
    per-rank clocks (``_replay.Clocks``), with every block in whole elements.

    Accuracy: exact.  Every message is a blocking send or exchange between
    two ranks, and no rank takes part in two at once, so on the crossbar the
    replay is the simulation's critical path (the same argument as
    :func:`rabenseifner`); checked for p in 1..33 and 64 at the agreement
    test's sizes.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    blocks = _blocks.layout(p)
    clocks = Clocks(p, net, elem_bytes)
    _blocks.replay_reduce_scatter(clocks, blocks, count)
    _blocks.replay_allgather(clocks, blocks, count)
    return exact(clocks.finish())


def reduce_bcast(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                 commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Binomial reduce to rank 0, then binomial broadcast from rank 0.

    ``T = ceil(lg p) (alpha + n beta + n gamma) + ceil(lg p) (alpha + n beta)``
    (seed 001 sec. 2.3 with a binomial instead of a binary tree; seed 004
    formula (6) for the reduce part).

    Accuracy: exact (sum of the two exact parts: the broadcast starts when
    the root has the result, and every other rank is waiting by then).
    """
    reduce_part = reduce.binomial(p, n_bytes, net, elem_bytes=elem_bytes, root=0)
    bcast_part = bcast.binomial(p, n_bytes, net, elem_bytes=elem_bytes, root=0)
    return exact(reduce_part.time_s + bcast_part.time_s)


def default_group_count(p: int) -> int:
    """The divisor of p nearest sqrt(p) (the smaller one on a tie)."""
    root = math.sqrt(p)
    return min((g for g in range(1, p + 1) if p % g == 0), key=lambda g: (abs(g - root), g))


def hierarchical(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                 commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Two-level (hierarchical) allreduce on a G x q grid, q = p / G.

    Seed 004's transform applied to allreduce: the inner algorithm inside each
    group of q consecutive ranks, then the outer one across each column of G,
    ``T = C(q) + T_inner(q, n) + C(G) + T_outer(G, n)`` with
    ``C(q) = ceil(lg q)(alpha + (4 + 16) beta)`` the simulated cost of a new
    communicator (``reduce.subcomm_creation_s``).  For ``ring`` at both levels:
    ``2 (q - 1 + G - 1) alpha + ...``, least latency at G = sqrt(p); for
    ``recursive_doubling`` (the default) ``lg q + lg G = lg p`` steps: G only
    adds the communicators.  G = 1 and G = p are the inner and the outer
    algorithm on all ranks.  Default G: the divisor of p nearest sqrt(p).

    Accuracy: exact when both levels' models are exact: the groups are equal
    and run the same schedule, so all columns start together; bounds of the
    levels carry over.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    groups = params.group_count or default_group_count(p)
    if groups > p or p % groups:
        raise ValueError(f"group_count must divide p={p}, got {groups}")
    inner_name, outer_name = composite_names("allreduce", "hierarchical", params)
    inner = part_model("allreduce", inner_name, "inner")
    outer = part_model("allreduce", outer_name, "outer")
    common = dict(elem_bytes=elem_bytes, commutative=commutative, params=sub_params(params))
    if groups == 1:
        return inner(p, n_bytes, net, **common)
    if groups == p:
        return outer(p, n_bytes, net, **common)
    if count == 0:
        return exact(0.0)
    q = p // groups
    first = inner(q, n_bytes, net, **common)
    second = outer(groups, n_bytes, net, **common)
    creation = subcomm_creation_s(net, q) + subcomm_creation_s(net, groups)
    low = creation + first.low_s + second.low_s
    high = creation + first.high_s + second.high_s
    return Prediction(high, low, high) if low < high else exact(high)


def node_aware(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
               commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """MPICH's topology-aware allreduce: reduce in each node, allreduce across leaders, bcast.

    Seed 000 sec. III-B.  With N nodes of k ranks (``node_size`` k; the last
    may be smaller): ``T = max(C(k) + T_r(k)) + C(N) + T_a(N) + T_b(k)``,
    T_r MPICH's reduce choice, T_a its allreduce choice, T_b its broadcast
    choice (``_composite.mpich_reduce_choice``, ``mpich_allreduce_choice``,
    ``mpich_bcast_choice``: MPICH 3.0's rules), ``C(q) = ceil(lg q)(alpha + 20 beta)`` a sub-communicator (0
    with ``cached_comms``: made once, untimed; ``_composite.node_comms_s``).
    ``node_size`` 0 is modelled for one rank per node: the leaders'
    MPI_Comm_split (``reduce.comm_split_s``) and ``T_a(p)``.

    Accuracy: exact when all nodes have the same size; else the bound between
    the smallest and the largest node (first and last level).  With several
    ranks per host the runner reports ``approx``.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if not commutative:
        raise ValueError("node_aware needs a commutative op (commutative=True)")
    if p == 1 or count == 0:
        return exact(0.0)

    def t_allreduce(q: int) -> Prediction:
        if q < 2:
            return exact(0.0)
        return model_for("allreduce", mpich_allreduce_choice(q, n_bytes, elem_bytes))(
            q, n_bytes, net, elem_bytes=elem_bytes)

    def t_reduce(q: int) -> Prediction:
        if q < 2:
            return exact(0.0)
        return model_for("reduce", mpich_reduce_choice(q, n_bytes, elem_bytes))(q, n_bytes, net,
                                                                  elem_bytes=elem_bytes)

    k = params.node_size
    if k == 0:
        across = t_allreduce(p)
        split = node_comms_s(net, params, split=(p, p))
        return Prediction(split + across.time_s, split + across.low_s, split + across.high_s)
    nodes = -(-p // k)
    sizes = sorted({min(k, p - i * k) for i in range(nodes)})
    firsts = [(node_comms_s(net, params, create=q) + t_reduce(q).low_s,
               node_comms_s(net, params, create=q) + t_reduce(q).high_s) for q in sizes]
    lasts = [model_for("bcast", mpich_bcast_choice(q, n_bytes))(q, n_bytes, net,
                                                                 elem_bytes=elem_bytes)
             if q > 1 else exact(0.0) for q in sizes]
    across = t_allreduce(nodes)
    middle_low = node_comms_s(net, params, create=nodes) + across.low_s
    middle_high = node_comms_s(net, params, create=nodes) + across.high_s
    low = min(f[0] for f in firsts) + middle_low + min(b.low_s for b in lasts)
    high = max(f[1] for f in firsts) + middle_high + max(b.high_s for b in lasts)
    return Prediction(high, low, high) if low < high else exact(high)


def prerounded(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
               commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Reproducible allreduce by pre-rounding (Demmel and Nguyen, IEEE TC 2015).

    ``T = T_outer(8 count, max) + T_inner(2 * 8 count, sum) + 2 * 8 count gamma``:
    an allreduce of the per-element bound (count doubles, whatever the input
    type), an allreduce of the two extracted levels (2 count doubles), and
    the splitting, charged as one gamma per extracted byte.  ``inner`` is
    params.inner_algorithm (default recursive_doubling), ``outer``
    params.outer_algorithm (default the inner one).

    Accuracy: exact when the first allreduce ends on every rank at the same
    instant, so the second starts together (recursive_doubling,
    rabenseifner; reduce_bcast because its last rank to finish is the first
    the next reduce waits for): checked by the model-agreement test.  With
    ``ring`` first and a count that p does not divide, ranks leave it up to
    (p - 1)(2 beta + gamma) per element apart, and the second allreduce can
    start that much earlier on its critical path: the time is then bounded
    below by the sum minus that skew (``preround_bound_s``).
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    inner_name, outer_name = composite_names("allreduce", "prerounded", params)
    bound, skew_s = preround_bound_s(p, count, net, outer_name)
    levels = part_model("allreduce", inner_name, "inner")(p, 8 * count * PREROUND_LEVELS, net, elem_bytes=8)
    sequential = total(bound, levels, extra_s=reduce_s(net, 8 * count * PREROUND_LEVELS))
    if skew_s:
        return Prediction(sequential.time_s, sequential.low_s - skew_s, sequential.high_s)
    return sequential


def fixed_order(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Reproducible topology-aware allreduce: reduce fixed_order to rank 0, binomial bcast.

    ``T = T_reduce_fixed_order(root 0) + ceil(lg p) (alpha + n beta)``.

    Accuracy: exact on the crossbar with one rank per host, any node size
    (the sum of two exact parts; the broadcast starts when rank 0 has the
    result, the last to finish the reduce, and the others wait for it).
    """
    reduce_part = reduce.fixed_order(p, n_bytes, net, elem_bytes=elem_bytes, root=0,
                                      params=params)
    bcast_part = bcast.binomial(p, n_bytes, net, elem_bytes=elem_bytes, root=0)
    return total(reduce_part, bcast_part)


def binary_tree(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Binary-tree reduce followed by binary-tree bcast (seed 001 sec. 2.2),
    both on the in-order tree rooted at p // 2, unsegmented.

    About ``2 h (alpha + n beta + n gamma) + 2 h (alpha + n beta)``, h = floor(lg p)
    (seed 004 formula (5) with one block, twice)
    Accuracy: exact (the replayed schedule, :mod:`collsim.analysis.models._pipelined`).
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    return exact(_pipelined.allreduce_in_order_tree_s(p, count, net, elem_bytes=elem_bytes,
                                                      params=params, segmented=False))


def pipelined_tree(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                   commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Pipelined binary-tree reduce followed by pipelined bcast with the same
    B blocks (seed 003's "UserAllreduce1").

    Seed 003 sec. 1.2: with one-way steps a block needs two steps up and two
    down at every level, ``T(B) ~ (4 h + 4 (B - 1)) (alpha + n/B beta)``, and with
    the best B (pipelining lemma) ``4 n beta + O(sqrt(h n alpha beta))``; plus
    ``2 (h + B - 1) n/B gamma`` of reductions on the path
    Accuracy: exact (the replayed schedule, :mod:`collsim.analysis.models._pipelined`).
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    return exact(_pipelined.allreduce_in_order_tree_s(p, count, net, elem_bytes=elem_bytes,
                                                      params=params, segmented=True))


def dual_root_pipelined(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                        commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Traff's doubly pipelined dual-root allreduce (seed 003, Algorithm 1).

    Seed 003 sec. 1.2: three bidirectional steps per round, the first block
    done after at most ``6 H + 1`` steps (H the trees' height: 3 per level up,
    1 between the roots, 3 per level down; as in the seed's implementation,
    sec. 1.3, the exchanges of the fill and drain rounds are sent even when a
    block is empty, a zero-byte message costing a start-up; without rounds in
    lock step the longest path on a uniform network is 4 H + 1 exchanges), so
    ``T(B) ~ (6 H + 1 + 3 (B - 1)) (alpha + n/B beta)`` and with the best B
    ``3 n beta + O(sqrt(H n alpha beta))``: the factor 4 of ``pipelined_tree``
    becomes 3 on a network with bidirectional links (f_beta = 1 on the
    crossbar; a bidirectional step costs ``alpha + n/B beta`` there).  Plus at
    most ``3 n/B gamma`` per round at a root
    Accuracy: exact (the replayed schedule, :mod:`collsim.analysis.models._pipelined`).
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    return exact(_pipelined.dual_root_s(p, count, net, elem_bytes=elem_bytes, params=params))


def linear(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
           commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Linear reduce to rank 0, then linear broadcast from rank 0 (Open MPI's
    allreduce ``basic_linear``).

    ``T = (p - 1)(alpha + n beta + n gamma) + alpha + (p - 1)(n + envelope) beta``.

    Accuracy: exact (the sum of two exact parts: the broadcast starts when
    rank 0 has combined the last vector, and every other rank waits for it).
    """
    reduce_part = reduce.linear(p, n_bytes, net, elem_bytes=elem_bytes, root=0)
    bcast_part = bcast.linear(p, n_bytes, net, elem_bytes=elem_bytes, root=0)
    return total(reduce_part, bcast_part)


openmpi_default = selector("allreduce", "openmpi_default")
mpich_default = selector("allreduce", "mpich_default")
