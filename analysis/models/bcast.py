"""Cost models of the broadcast algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``).  Accuracy
classes hold on the crossbar (one rank per node) under the ``hockney`` profile.
"""

from __future__ import annotations

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from . import _pipelined
from ._lookup import parameter_default
from ._native import selector
from ._replay import Clocks
from ._base import (NetworkParams, Prediction, ceil_log2, check_arguments, exact, message_s,
                    one_way, shared_link_s, staggered_shared_link_s)

__all__ = ["binomial", "linear", "chain", "pipeline", "binary", "scatter_allgather",
           "scatter_recursive_doubling_allgather", "concurrent_binomial", "concurrent_knomial", "concurrent_binary",
           "openmpi_default", "mpich_default"]


def binomial(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
             commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Binomial-tree broadcast, farthest child first.

    ``T = ceil(lg p) (alpha + n beta)`` (the broadcast half of seed 001
    sec. 2.3 with a binomial tree).

    Accuracy: exact.  Sends are blocking and a rank that received forwards at
    once; the root's last child and the chain of first children both end
    after ceil(lg p) messages.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact(ceil_log2(p) * message_s(one_way(net), n_bytes))


def linear(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
           commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Linear broadcast: p - 1 concurrent sends from the root.

    ``T = alpha + (p - 1) (n + envelope) beta``.  Seeds 002 and 004 count
    ``(p - 1)(alpha + n beta)`` for a root that sends one message after the
    other; this implementation posts all sends at once (Open MPI's basic
    linear), so they pay the latency once and share the root's link, which
    serializes the bytes instead.

    With a send overhead o_s (a calibrated profile) the root's sends start
    o_s apart and overlap on its link
    (:func:`~collsim.analysis.models._base.staggered_shared_link_s`): from
    (p - 1) o_s + alpha + n beta (+ o_r when eager) when o_s exceeds a
    message's time to alpha + (p - 1) n beta when it is small.

    Accuracy: exact on a full-duplex crossbar: the p - 1 flows have the same
    route latency, so the root's link is shared equally and they all end
    together.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact(staggered_shared_link_s(one_way(net), n_bytes, p - 1))


def chain(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
          commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Unsegmented chain broadcast with fan-out f (Open MPI's chain).

    The root sends to the heads of f' = min(f, p - 1) chains at once (they
    share its link), each chain then passes the vector on; the longest chain
    holds L = ceil((p - 1) / f') ranks (Open MPI's build_chain,
    :mod:`collsim.analysis.trees`):

    ``T = alpha + f' (n + envelope) beta + (L - 1) (alpha + (n + envelope) beta)``

    f = ``params.chain_fanout``, else the registry's default (1: ``T = (p - 1)
    (alpha + n beta)``, seed 004 formula (3) without gamma; seed 002 "chain"
    with fan-out 1).  Open MPI's forced chain takes f = 4.

    Accuracy: exact on a full-duplex crossbar, for the reason given in
    :func:`concurrent_binomial`.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    fanout = params.chain_fanout or parameter_default("bcast", "chain", "chain_fanout")
    return exact(_concurrent_tree_s(p, n_bytes, net,
                                    _pipelined.chain_children(p, fanout)))


def pipeline(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
             commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Segmented chain broadcast with B blocks.

    ``T = (p + B - 2) (alpha + n/B beta)`` (seed 004 formula (4) without gamma;
    seed 002 "pipeline"), B from ``params`` or the pipelining lemma.

    Accuracy: exact (the replayed schedule, :mod:`collsim.analysis.models._pipelined`).
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    return exact(_pipelined.bcast_tree_s("chain", p, count, net, elem_bytes=elem_bytes, root=root,
                                   params=params, segmented=True))


def binary(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
           commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Segmented binary-tree broadcast (heap order rooted at the root).

    Seed 004 formula (5) without gamma, read as a bcast (seed 002 "binary
    tree"): two steps per block, ``T ~ (2 (B - 1) + fill) (alpha + n/B beta)``.
    The fill is 2h for B = 1 (full tree of height h) and somewhat more for
    B > 1: a node sends block s to its second child only after it has received
    block s + 1 (it forwards block s - 1 while receiving block s), so the
    second-child path takes three steps per level; the schedule below counts
    this exactly.

    Accuracy: exact (the replayed schedule, :mod:`collsim.analysis.models._pipelined`).
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    return exact(_pipelined.bcast_tree_s("binary", p, count, net, elem_bytes=elem_bytes, root=root,
                                   params=params, segmented=True))


def scatter_allgather(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                      commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
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

    count = check_arguments(p, n_bytes, elem_bytes, root=root)
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


def scatter_recursive_doubling_allgather(
        p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
        commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Binomial scatter of p chunks, then recursive-doubling allgather (MPICH's
    medium-message broadcast; p a power of two).

    ``T = 2 lg p alpha + 2 (p - 1)/p n beta`` when p divides the count: the
    scatter as in :func:`scatter_allgather`, then lg p exchanges of 1, 2, 4,
    ... chunks.  Chunks are ``ceil(count / p)`` elements, the last ones shorter
    or empty; their sizes are replayed exactly on per-rank clocks
    (``_replay.Clocks``), with SMPI's 16-byte envelope on every message.

    Accuracy: exact.  Every message is blocking between two ranks (the
    exchanges are ``MPI_Sendrecv`` with one partner) on full-duplex links of
    the crossbar, so the replay is the simulation's schedule.
    """

    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    if p & (p - 1):
        raise ValueError(f"p must be a power of two, got {p!r}")
    c = -(-count // p)

    def span(first: int, last: int) -> int:
        return min(last * c, count) - min(first * c, count)

    clocks = Clocks(p, net, elem_bytes)  # indexed by v = (rank - root) mod p
    mask = p >> 1
    while mask:
        for v in range(0, p, 2 * mask):
            clocks.send(v, v + mask, span(v + mask, v + 2 * mask))
        mask >>= 1
    m = 1
    while m < p:
        for v in range(p):
            partner = v ^ m
            if v < partner:
                mine, theirs = v & ~(m - 1), partner & ~(m - 1)
                clocks.exchange(v, partner, span(mine, mine + m), span(theirs, theirs + m))
        m <<= 1
    return exact(clocks.finish())


openmpi_default = selector("bcast", "openmpi_default")
mpich_default = selector("bcast", "mpich_default")


def _concurrent_tree_s(p: int, n_bytes: int, net: NetworkParams, children) -> float:
    """A broadcast down a tree whose ranks send to all their children at once:
    a parent with k children reaches them all ``alpha + k (n + envelope) beta``
    after it got the vector (the k flows share its link and end together).  A
    rank sends only once it has received: every message is one way."""
    net = one_way(net)
    done = {0: 0.0}
    order = [0]
    for v in order:
        kids = children(v)
        for child in kids:
            done[child] = done[v] + shared_link_s(net, n_bytes, len(kids))
        order.extend(kids)
    assert len(done) == p
    return max(done.values())


def binomial_children(v: int, p: int) -> list[int]:
    """Open MPI's binomial tree (ompi_coll_base_topo_build_bmtree): relative rank
    v's children v + 2^j for every 2^j > v, below p, nearest first."""
    high = 1
    while high <= v:
        high <<= 1
    out = []
    while high < p and v + high < p:
        out.append(v + high)
        high <<= 1
    return out


def knomial_children(v: int, p: int, radix: int = 4) -> list[int]:
    """Open MPI's k-nomial tree (ompi_coll_base_topo_build_kmtree): relative
    rank v's children v + r radix^l (r = 1..radix-1) for every radix^l below
    v's lowest non-zero base-radix digit, below p, farthest level first."""
    mask = 1
    while mask < p and not v % (radix * mask):
        mask *= radix
    out = []
    mask //= radix
    while mask > 0:
        out.extend(v + mask * r for r in range(1, radix) if v + mask * r < p)
        mask //= radix
    return out


def concurrent_binomial(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                        commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Open MPI's binomial broadcast: each rank sends to all its children at once.

    Relative rank v's children are v + 2^j for 2^j > v (Open MPI's bmtree); a
    parent with k children reaches them ``alpha + k (n + envelope) beta`` after
    it got the vector.  On p = 2^m ranks: ``m alpha + m (m + 1) / 2 n beta``.

    Accuracy: exact on a full-duplex crossbar: a parent's flows start together
    (the children wait in MPI_Recv), have the same route latency and share only
    the parent's link, so they end together (as :func:`linear`'s).
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact(_concurrent_tree_s(p, n_bytes, net, lambda v: binomial_children(v, p)))


def concurrent_knomial(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                       commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Open MPI's k-nomial broadcast, radix 4: each rank sends to all its children at once.

    Relative rank v's children are v + r 4^l (r = 1..3) for every 4^l below
    v's lowest non-zero base-4 digit (Open MPI's kmtree); a parent with k
    children reaches them ``alpha + k (n + envelope) beta`` after it got the
    vector.

    Accuracy: exact on a full-duplex crossbar, for the reason given in
    :func:`concurrent_binomial`.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact(_concurrent_tree_s(p, n_bytes, net, lambda v: knomial_children(v, p)))


def level_order_binary_children(v: int, p: int) -> list[int]:
    """Open MPI's binary tree (ompi_coll_base_topo_build_tree(2)): relative rank
    v on level L = floor(lg(v + 1)) has children v + 2^L and v + 2^(L+1) below p."""
    level_size = 1
    while 2 * level_size - 1 <= v:
        level_size *= 2
    return [v + level_size * i for i in (1, 2) if v + level_size * i < p]


def concurrent_binary(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                      commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Open MPI's binary-tree broadcast: each rank sends to both children at once.

    Level-order binary tree (:func:`level_order_binary_children`); a parent
    with k children reaches them ``alpha + k (n + envelope) beta`` after it
    got the vector.

    Accuracy: exact on a full-duplex crossbar, for the reason given in
    :func:`concurrent_binomial`.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact(_concurrent_tree_s(p, n_bytes, net,
                                    lambda v: level_order_binary_children(v, p)))
