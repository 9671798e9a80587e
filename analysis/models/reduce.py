"""Cost models of the reduce algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``).  Accuracy
classes hold on the crossbar (one rank per node) under the ``hockney`` profile.
"""

from __future__ import annotations

import math

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from . import _blocks, _pipelined
from ._base import (NetworkParams, Prediction, ceil_log2, check_arguments, exact, message_s,
                    one_way, shared_link_s, reduce_s, total)
from ._composite import (PREROUND_LEVELS, mpich_reduce_choice, node_comms_s, preround_bound_s,
                         sub_params, subcomm_creation_s)
from ._lookup import composite_names, model_for, parameter_default, part_model
from ._native import selector
from ._replay import Clocks
from .bcast import level_order_binary_children

__all__ = ["binomial", "linear", "rabenseifner", "binary_blocks", "hierarchical", "node_aware", "ring",
           "prerounded", "fixed_order", "chain", "pipeline", "binary", "in_order_binary",
           "overlapped_binomial", "overlapped_binary", "openmpi_default", "mpich_default"]


def binomial(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
             commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Binomial-tree reduce.

    ``T = ceil(lg p) (alpha + n beta + n gamma) + [not commutative and root != 0] (alpha + n beta)``
    (seed 004 formula (6) with ``ceil``; the extra message carries the result
    from rank 0, where a non-commutative reduction ends in rank order, to the
    root).

    Accuracy: exact.  The root receives ceil(lg p) messages one after the
    other, and each child has finished its own subtree by the time the root
    asks for it.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    uni = one_way(net)
    time = ceil_log2(p) * (message_s(uni, n_bytes) + reduce_s(net, n_bytes))
    if not commutative and root != 0:
        time += message_s(uni, n_bytes)
    return exact(time)


def linear(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
           commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Linear (flat-tree) reduce with in-order blocking receives.

    ``T = (p - 1) (alpha + n beta + n gamma)`` (seed 004 formulas (1), (3)).

    Accuracy: exact.  The root posts one receive at a time, so the p - 1
    transfers and reductions are serialized.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact((p - 1) * (message_s(one_way(net), n_bytes) + reduce_s(net, n_bytes)))


def _halving_ranges(count: int, pof2: int) -> tuple[list[int], list[int], list[list[tuple[int, int]]]]:
    """Ranges of recursive vector halving on pof2 ranks.

    Returns the final (lo, hi) of every new rank, and per level the (lo, hi)
    every rank held before that level's step (as in the C code: at distance
    d the rank whose bit d is 0 keeps the lower half ``[lo, lo + (hi-lo)//2)``).
    """
    lo, hi = [0] * pof2, [count] * pof2
    before: list[list[tuple[int, int]]] = []
    mask = 1
    while mask < pof2:
        before.append(list(zip(lo, hi)))
        for v in range(pof2):
            mid = lo[v] + (hi[v] - lo[v]) // 2
            if v & mask:
                lo[v] = mid
            else:
                hi[v] = mid
        mask <<= 1
    return lo, hi, before


def _rabenseifner_reduce_scatter(clocks: Clocks, p: int, count: int, rank_of, levels_ranges) -> None:
    """Replay the recursive-halving reduce-scatter on the p' new ranks."""
    for level, ranges in enumerate(levels_ranges):
        mask = 1 << level
        for v, (lo, hi) in enumerate(ranges):
            u = v ^ mask
            if v & mask:
                continue
            mid = lo + (hi - lo) // 2
            clocks.exchange(rank_of(v), rank_of(u), hi - mid, mid - lo)
            clocks.reduce(rank_of(v), mid - lo)
            clocks.reduce(rank_of(u), hi - mid)


def rabenseifner(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                 commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Rabenseifner's reduce: recursive-halving reduce-scatter + binomial gather.

    Seed 001 sec. 2.5 (reduce-scatter + gather), with ``p' = 2^floor(lg p)``
    and ``f_alpha = f_beta = 1``:

    ``T = 2 lg p' alpha + 2 (1 - 1/p') n beta + (1 - 1/p') n gamma``
    ``    + [p != p'] (2 alpha + n beta + n/2 gamma)``

    (the pre-step folding 2r = 2(p - p') ranks into r: one exchange of halves,
    a reduction of a half, and the half sent back; the root always takes part,
    so no final message).  Every message carries SMPI's 16-byte envelope.

    The blocks are whole elements: when halvings are uneven, the sizes are
    replayed exactly on per-rank clocks (``_replay.Clocks``), which equals the
    formula above when p' divides the count.

    Accuracy: exact.  Every step is a blocking exchange or message between
    two ranks on separate full-duplex links, so the replay of the schedule is
    the simulation's critical path.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    pof2 = 1 << (p.bit_length() - 1)
    r = p - pof2
    half = count // 2

    def rank_of(v: int) -> int:
        if v >= r:
            return v + r
        return root if root == 2 * v + 1 else 2 * v

    clocks = Clocks(p, net, elem_bytes)
    for i in range(r):
        even, odd = 2 * i, 2 * i + 1
        clocks.exchange(even, odd, count - half, half)
        clocks.reduce(even, half)
        clocks.reduce(odd, count - half)
        if root == odd:
            clocks.send(even, odd, half)
        else:
            clocks.send(odd, even, count - half)
    lo, hi, before = _halving_ranges(count, pof2)
    _rabenseifner_reduce_scatter(clocks, p, count, rank_of, before)
    root_new = root // 2 if root < 2 * r else root - r
    cur_lo, cur_hi = list(lo), list(hi)
    for level in reversed(range(len(before))):
        mask = 1 << level
        for v in range(pof2):
            if (v ^ root_new) >> level != 1:
                continue  # a sender differs from the root in bit `level`, agrees above
            u = v ^ mask
            clocks.send(rank_of(v), rank_of(u), cur_hi[v] - cur_lo[v])
            cur_lo[u], cur_hi[u] = before[level][u]
    return exact(clocks.finish())


def binary_blocks(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                  commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Rabenseifner's binary blocks reduce (seed 001 sec. 2.6).

    The binary blocks reduce-scatter (see the allreduce model) followed by a
    binomial gather inside the largest block (2^k0 ranks).  For a power of
    two it is :func:`rabenseifner`:
    ``2 lg p alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma``; two blocks
    ``2^k + 2^m`` add one join, ``alpha + n/2^m (beta + gamma)``; a root
    outside block 0 adds ``alpha + n/2^k beta`` (rank 0 sends it its range and
    it plays rank 0 in the gather, the seed's rule).  More blocks: the
    schedule is replayed on per-rank clocks (``_replay.Clocks``) with every
    block in whole elements.

    Accuracy: exact, by the argument of :func:`rabenseifner` (blocking
    messages between pairs, no rank in two at once).
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    blocks = _blocks.layout(p)
    clocks = Clocks(p, net, elem_bytes)
    _blocks.replay_reduce_scatter(clocks, blocks, count)
    _blocks.replay_gather(clocks, blocks, count, root)
    return exact(clocks.finish())


def default_group_count(p: int) -> int:
    """round(sqrt(p)): the optimum of seed 004 (8) for the flat algorithm."""
    return max(1, math.floor(math.sqrt(p) + 0.5))


def hierarchical(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                 commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Two-level (hierarchical) reduce: G groups, inner then outer algorithm.

    Seed 004 sec. 3: the groups reduce in parallel to their leaders with the
    inner algorithm on ``q = p/G`` ranks, then the G leaders with the outer
    one, so ``T = C(q) + T_inner(q, n) + C(G) + T_outer(G, n)``, with
    ``C(q) = ceil(lg q) (alpha + (4 + 16) beta)`` the simulated cost of making
    a sub-communicator (see :func:`subcomm_creation_s`).  For ``linear`` at
    both levels this is seed 004 (8), ``(G + p/G - 2)(alpha + n beta + n gamma)``,
    minimal at ``G = sqrt(p)`` (9); for ``binomial`` ``ceil(lg q) + ceil(lg G)
    = ceil(lg p)`` steps when q and G are powers of two: G changes nothing
    (sec. 3.4).  G = 1 and G = p are the inner and the outer algorithm on all
    ranks (no sub-communicator).  Defaults: G = round(sqrt(p)),
    inner = outer = ``linear``.

    Accuracy: exact when every group's inner reduce ends at the same time
    (G divides p and the inner algorithm's time does not depend on where its
    root is) and both levels' models are exact; otherwise the bound between
    the earliest and the latest leader starting the outer level at once (the
    leaders that finish early can only shorten the outer level).  Inner and
    outer bounds carry over.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    groups = params.group_count or default_group_count(p)
    if groups > p:
        raise ValueError(f"group_count must be in 1..p={p}, got {groups}")
    inner_name, outer_name = composite_names("reduce", "hierarchical", params)
    inner = part_model("reduce", inner_name, "inner")
    outer = part_model("reduce", outer_name, "outer")
    sub = sub_params(params)
    common = dict(elem_bytes=elem_bytes, commutative=commutative, params=sub)
    if groups == 1:
        return inner(p, n_bytes, net, root=root, **common)
    if groups == p:
        return outer(p, n_bytes, net, root=root, **common)
    if count == 0:
        return exact(0.0)
    lows, highs = [], []
    root_group = 0
    for g in range(groups):
        first, members = _block_offset(p, groups, g), _block_count(p, groups, g)
        if first <= root < first + members:
            root_group = g
            leader = root - first
        else:
            leader = 0
        if members == 1:
            lows.append(0.0)
            highs.append(0.0)
            continue
        level = inner(members, n_bytes, net, root=leader, **common)
        creation = subcomm_creation_s(net, members)
        lows.append(creation + level.low_s)
        highs.append(creation + level.high_s)
    top = outer(groups, n_bytes, net, root=root_group, **common)
    tail_low = subcomm_creation_s(net, groups) + top.low_s
    tail_high = subcomm_creation_s(net, groups) + top.high_s
    low, high = min(lows) + tail_low, max(highs) + tail_high
    return Prediction(high, low, high) if low < high else exact(high)


def _block_count(count: int, nblocks: int, i: int) -> int:
    """Elements in block i of count cut into nblocks (the first count % nblocks get one more)."""
    return count // nblocks + (1 if i < count % nblocks else 0)


def _block_offset(count: int, nblocks: int, i: int) -> int:
    """First element of block i in the same partition."""
    rem = count % nblocks
    return i * (count // nblocks) + min(i, rem)


def node_aware(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
               commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """MPICH's topology-aware reduce: in each node, across the leaders, in the root's node.

    Seed 000 sec. III-A.  With N nodes of k ranks (``node_size`` k; the last
    node may be smaller), every node but the root's reduces to its leader
    (the lowest rank), the N leaders reduce onto the root's node's leader,
    and the root's node reduces to the root:
    ``T = max(C(k) + T_r(k)) + C(N) + T_r(N) + T_r(k_root)``, each ``T_r``
    being MPICH's choice (binomial below 2 KiB or p not a power of two, else
    ``rabenseifner``) and ``C(q) = ceil(lg q)(alpha + 20 beta)`` the cost of a
    sub-communicator (0 with ``cached_comms``: made once, untimed;
    :func:`node_comms_s`).  ``node_size`` 0 (the real nodes) is modelled for one
    rank per node: no reduction inside nodes, the leaders' MPI_Comm_split
    (:func:`comm_split_s`) and ``T_r(p)`` to rank 0 of the leaders, which is
    the root.

    Accuracy: exact when every node but the root's has the same size; else the
    bound between the earliest and the latest node finishing the first level.
    With several ranks per host the flat parameters do not hold (loopback
    inside a host): the runner reports ``approx``.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if not commutative:
        raise ValueError("node_aware needs a commutative op (commutative=True)")
    if p == 1 or count == 0:
        return exact(0.0)
    def t_reduce(q: int, at: int) -> Prediction:
        if q < 2:
            return exact(0.0)
        return model_for("reduce", mpich_reduce_choice(q, n_bytes, elem_bytes))(q, n_bytes, net,
                                                                 elem_bytes=elem_bytes, root=at)

    k = params.node_size
    if k == 0:
        outer = t_reduce(p, 0)
        split = node_comms_s(net, params, split=(p, p))
        return Prediction(split + outer.time_s, split + outer.low_s, split + outer.high_s)
    nodes = -(-p // k)
    root_node = root // k
    sizes = [min(k, p - i * k) for i in range(nodes)]
    firsts_low, firsts_high = [], []
    for i, q in enumerate(sizes):
        if i == root_node:
            start = node_comms_s(net, params, create=q)
            firsts_low.append(start)
            firsts_high.append(start)
        else:
            level = t_reduce(q, 0)
            firsts_low.append(node_comms_s(net, params, create=q) + level.low_s)
            firsts_high.append(node_comms_s(net, params, create=q) + level.high_s)
    across = t_reduce(nodes, root_node)
    inside = t_reduce(sizes[root_node], root - root_node * k)
    tail_low = node_comms_s(net, params, create=nodes) + across.low_s + inside.low_s
    tail_high = node_comms_s(net, params, create=nodes) + across.high_s + inside.high_s
    low, high = min(firsts_low) + tail_low, max(firsts_high) + tail_high
    return Prediction(high, low, high) if low < high else exact(high)


def ring(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
         commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Pairwise-exchange reduce-scatter, then every block sent straight to the root.

    Seed 001 sec. 2.7 with ``f_alpha = f_beta = 1``:
    ``T = (p - 1)(alpha + n/p beta + n/p gamma) + (p - 1)(alpha + n/p beta)``
    (the root receives the p - 1 blocks one after the other).  Blocks are
    whole elements (the first ``count mod p`` one element larger); their
    sizes are replayed exactly on per-rank clocks.

    Accuracy: exact.  Each step is one MPI_Sendrecv per rank with distinct
    partners on full-duplex links, and the gather is a sequence of blocking
    messages into the root.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if not commutative:
        raise ValueError("ring needs a commutative op (commutative=True)")
    if p == 1 or count == 0:
        return exact(0.0)
    block = [_block_count(count, p, r) for r in range(p)]
    clocks = Clocks(p, net, elem_bytes)
    for step in range(1, p):
        clocks.shift([(r, (r + step) % p, block[(r + step) % p], (r - step) % p)
                      for r in range(p)])
        for r in range(p):
            clocks.reduce(r, block[r])
    for src in range(p):
        if src != root:
            clocks.send(src, root, block[src])
    return exact(clocks.finish())


def prerounded(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
               commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Reproducible reduce by pre-rounding (Demmel and Nguyen, IEEE TC 2015).

    ``T = T_allreduce_outer(8 count, max) + T_inner(2 * 8 count)
    + 2 * 8 count gamma``: every rank needs the per-element bound, so it
    comes from an allreduce (params.outer_algorithm, default
    recursive_doubling); the two extracted levels (2 count doubles) go to the
    root with params.inner_algorithm (default binomial).

    Accuracy: that of the inner model (exact for the exact ones); with a
    ``ring`` outer and a count p does not divide, bounded below by the sum
    minus the skew of ``allreduce.preround_bound_s``.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    inner_name, outer_name = composite_names("reduce", "prerounded", params)
    inner = part_model("reduce", inner_name, "inner")
    bound, skew_s = preround_bound_s(p, count, net, outer_name)
    levels = inner(p, 8 * count * PREROUND_LEVELS, net, elem_bytes=8, root=root)
    sequential = total(bound, levels,
                       extra_s=reduce_s(net, 8 * count * PREROUND_LEVELS))
    if skew_s:
        return Prediction(sequential.time_s, sequential.low_s - skew_s, sequential.high_s)
    return sequential


def fixed_order(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Reproducible topology-aware reduce (fixed summation tree, node-aware messages).

    The schedule of common/fixed_order.c replayed on per-rank clocks
    (``_replay.Clocks``): the dissemination allgather of the leader flags (one
    byte per rank, ceil(lg p) rounds, ``sum_k T(min(2^k, p - 2^k))``), a
    binomial tree inside every node of ``params.node_size`` consecutive ranks
    (0: one rank per node, as on a platform with one rank per host), a
    binomial tree over the node leaders, and the final message from rank 0 to
    the root.  Every edge carries the sender's set of summation-tree nodes: a
    header of 4 (1 + 2 c) bytes, then c vectors; the receiver combines
    siblings (n gamma each).  On aligned power-of-two nodes every set is one
    tree node and the closed form is
    ``T = sum_k T(min(2^k, p - 2^k)) + ceil(lg p) (T(12) + T(n) + n gamma) + [root != 0] T(n)``,
    ``T(m) = alpha + (m + 16) beta``; nodes that are not aligned blocks send
    several tree nodes at once.  Derived here (no seed gives it).

    Accuracy: exact on the crossbar with one rank per host, any node size: the
    allgather rounds are symmetric and the trees are blocking messages between
    distinct pairs.  With several ranks per node the runner marks it
    approximate (the real node is the hosts of one ``node`` property, as
    ``collsim_node_members`` finds it, whose messages cost otherwise; on
    nodes of several socket hosts finding it is an ``MPI_Comm_split`` too).
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    clocks = Clocks(p, net, 1)  # sizes in bytes
    discovery = sum(message_s(net, min(2**k, p - 2**k)) for k in range(ceil_log2(p)))
    clocks.t = [discovery] * p
    sets = [{(0, rank)} for rank in range(p)]
    top_level = ceil_log2(p)

    def merge(dst: int, src: int) -> None:
        clocks.send(src, dst, 4 * (1 + 2 * len(sets[src])))
        clocks.send(src, dst, len(sets[src]) * n_bytes)
        before = len(sets[dst]) + len(sets[src])
        for level, index in sorted(sets[src]):
            _fixed_order_add(sets[dst], level, index, p, top_level)
        sets[src] = set()
        clocks.reduce(dst, (before - len(sets[dst])) * n_bytes)

    def binomial(ranks: list[int]) -> None:
        mask = 1
        while mask < len(ranks):
            for pos in range(mask, len(ranks), 2 * mask):
                merge(ranks[pos - mask], ranks[pos])
            mask *= 2

    node_size = params.node_size if params.node_size > 0 else 1
    nodes = [list(range(first, min(first + node_size, p))) for first in range(0, p, node_size)]
    for members in nodes:
        binomial(members)
    binomial([members[0] for members in nodes])
    if root != 0:
        clocks.send(0, root, n_bytes)
    return exact(clocks.finish())


def _fixed_order_add(held: set, level: int, index: int, leaves: int, top_level: int) -> None:
    """Adds summation-tree node (level, index) to held, combining it with every sibling
    held (common/fixed_order.c, set_add); an empty sibling promotes it as is."""
    while level < top_level:
        sibling = index ^ 1
        if (sibling << level) >= leaves:
            level, index = level + 1, index >> 1
            continue
        if (level, sibling) not in held:
            break
        held.remove((level, sibling))
        level, index = level + 1, index >> 1
    held.add((level, index))


def chain(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
          commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Unsegmented chain reduce with fan-out f (Open MPI's chain; seed 004 "linear tree").

    f' = min(f, p - 1) chains end at the root (Open MPI's build_chain,
    :mod:`collsim.analysis.trees`), the longest holding L = ceil((p - 1) / f')
    ranks; the root receives from the chain heads two at a time
    (:func:`_two_in_flight_s`), combining in head order.  With equal chains
    ``T ~ L (alpha + n beta + n gamma) + (f' - 1)(n beta + n gamma)``;
    f = 1: ``T = (p - 1) (alpha + n beta + n gamma)`` (seed 004 formula (3)).

    f = ``params.chain_fanout``, else the registry's default (1).  Open MPI's
    forced chain takes f = 4.

    Accuracy: exact on a full-duplex crossbar, for the reason given in
    :func:`overlapped_binomial`.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    fanout = params.chain_fanout or parameter_default("reduce", "chain", "chain_fanout")
    return exact(_generic_tree_reduce_s(p, n_bytes, net,
                                        _pipelined.chain_children(p, fanout)))


def pipeline(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
             commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Segmented chain reduce with B blocks of about n/B bytes.

    ``T = (p + B - 2) (alpha + n/B beta + n/B gamma)`` (seed 004 formula (4)),
    B from ``params`` or the pipelining lemma (``collsim.analysis.segments``).

    Accuracy: exact (the replayed schedule, :mod:`collsim.analysis.models._pipelined`).
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    return exact(_pipelined.reduce_tree_s("chain", p, count, net, elem_bytes=elem_bytes, root=root,
                                   params=params, segmented=True))


def binary(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
           commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Segmented binary-tree reduce (heap order rooted at the root).

    Seed 004 formula (5), ``2 (lg(p + 1) + B - 2) (alpha + n/B beta + n/B gamma)``
    for a full tree of height h = lg(p + 1) - 1, i.e. ``2 (h + B - 1)`` steps: a
    node takes one step per child per block, and sends upward while receiving
    from its first child.  B from ``params`` or the pipelining lemma.

    Accuracy: exact (the replayed schedule, :mod:`collsim.analysis.models._pipelined`).
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    return exact(_pipelined.reduce_tree_s("binary", p, count, net, elem_bytes=elem_bytes, root=root,
                                   params=params, segmented=True))


def in_order_binary(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                    commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Segmented in-order binary-tree reduce (any op; rank order kept).

    As ``binary`` (seed 004 formula (5), same height floor(lg p)) plus
    ``[root != p // 2] (alpha + n beta)``: the in-order tree's root sends the
    result to the root in one message (seed 004 describes the algorithm;
    the extra message is Open MPI's, derived here).

    Accuracy: exact (the replayed schedule, :mod:`collsim.analysis.models._pipelined`).
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    return exact(_pipelined.reduce_tree_s("in_order_binary", p, count, net, elem_bytes=elem_bytes, root=root,
                                   params=params, segmented=True))


openmpi_default = selector("reduce", "openmpi_default")
mpich_default = selector("reduce", "mpich_default")


def _two_in_flight_s(ready_s: list[float], latency_s: float, work_s: float,
                     reduce_time_s: float) -> float:
    """When a rank of Open MPI's generic tree reduce (one segment) has combined
    its last child.

    Child i's vector leaves when the child is ready (``ready_s[i]``) and its
    receive is posted: children 0 and 1 at once, child i >= 2 once child i - 2
    is combined.  A message is active ``latency_s`` after it starts and then
    needs ``work_s`` of the rank's link, shared equally by the active messages;
    child j is combined (``reduce_time_s``) after it arrived and child j - 1
    was combined.
    """
    k = len(ready_s)
    combined: list[float] = []
    done: dict[int, float] = {}
    pending = {i: ready_s[i] + latency_s for i in range(min(k, 2))}
    active: dict[int, float] = {}
    t = 0.0
    while len(combined) < k:
        share = len(active)
        least = min(active.values()) if active else float("inf")
        next_done = t + least * share if active else float("inf")
        next_start = min(pending.values()) if pending else float("inf")
        step = min(next_done, next_start)
        if step == float("inf"):
            raise AssertionError("a message is neither active nor pending")
        # the messages with the least work left end at next_done: marked so, not
        # left to the subtraction, which cannot move a late clock (t >> work_s)
        # past t and would loop forever
        ending = ({i for i, left in active.items() if left - least <= 1e-12 * work_s}
                  if next_done <= next_start else set())
        for i in active:
            active[i] = 0.0 if i in ending else active[i] - (step - t) / share
        t = step
        for i in [i for i, when in pending.items() if when <= t]:
            active[i] = work_s
            del pending[i]
        for i in [i for i, left in active.items() if left <= 1e-12 * work_s]:
            done[i] = t
            del active[i]
        while len(combined) < k and len(combined) in done:
            j = len(combined)
            combined.append(max(done[j], combined[-1] if combined else 0.0) + reduce_time_s)
            if j + 2 < k:
                pending[j + 2] = max(combined[j], ready_s[j + 2]) + latency_s
    return combined[-1]


def overlapped_binomial(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                        commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Open MPI's binomial reduce: in-order binomial tree, two receives in flight.

    On full subtrees the children's vectors arrive one after the other and the
    time is the binomial's ``ceil(lg p) (alpha + n beta + n gamma)``; where a
    truncated subtree is ready while its left sibling's vector is on the way,
    the two messages share the parent's link.  Replayed rank by rank from the
    leaves up (children v + 1, v + 2, v + 4, ... of relative rank v), each rank
    with the fluid sharing of :func:`_two_in_flight_s`.

    Accuracy: exact on a full-duplex crossbar: a rank's link carries only its
    children's messages, shared equally while they overlap, and its own send
    to its parent starts once it is done receiving.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact(_generic_tree_reduce_s(p, n_bytes, net, lambda v: in_order_binomial_children(v, p)))


def in_order_binomial_children(v: int, p: int) -> list[int]:
    """Open MPI's in-order binomial tree (reduce_overlapped_binomial.c):
    relative rank v's children v + 2^j for every 2^j below v's lowest set bit
    (every one for v = 0), below p, nearest first."""
    kids = []
    mask = 1
    while mask < p and not v & mask:
        if v + mask < p:
            kids.append(v + mask)
        mask <<= 1
    return kids


def _generic_tree_reduce_s(p: int, n_bytes: int, net: NetworkParams, children) -> float:
    """Open MPI's generic tree reduce over a tree whose children have larger
    relative ranks than their parent: each rank's finish from its children's
    (:func:`_two_in_flight_s`), from the last rank up.  A rank sends only once
    its children's vectors are in: every message is one way."""
    uni = one_way(net)
    one = shared_link_s(uni, n_bytes, 1)
    work_s = shared_link_s(uni, n_bytes, 2) - one
    latency_s = one - work_s
    ready: dict[int, float] = {}
    for v in reversed(range(p)):
        kids = children(v)
        ready[v] = (_two_in_flight_s([ready[c] for c in kids], latency_s, work_s,
                                     reduce_s(net, n_bytes)) if kids else 0.0)
    return ready[0]


def overlapped_binary(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                      commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Open MPI's binary-tree reduce: level-order binary tree, both children's
    receives in flight at once.

    The tree of ``bcast.level_order_binary_children``; each rank's finish
    replayed from its children's with the fluid sharing of
    :func:`_two_in_flight_s` (two children of equal subtrees arrive together
    and share the parent's link: about ``alpha + 2 n beta + 2 n gamma`` per
    level).

    Accuracy: exact on a full-duplex crossbar, for the reason given in
    :func:`overlapped_binomial`.
    """

    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact(_generic_tree_reduce_s(p, n_bytes, net,
                                        lambda v: level_order_binary_children(v, p)))
