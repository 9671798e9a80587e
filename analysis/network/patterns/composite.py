"""Composite patterns: the entries that run other entries.

- the libraries' selectors (``openmpi_default``, ``mpich_default``): the
  pattern of the entry the selector picks (``algorithms/common/native.c``,
  asked through :mod:`collsim.analysis.models._native` as the models ask);
- ``hierarchical`` (``algorithms/<coll>/<coll>_hierarchical.c``): the inner
  algorithm in G groups at once, then the outer one across them;
- ``node_aware`` (``<coll>_node_aware.c``, ``common/hier.c``): MPICH's
  topology-aware algorithm over the ranks' nodes, MPICH's flat choices inside
  (:mod:`collsim.analysis.models._composite`);
- ``prerounded`` (``common/prerounded.c``, ``prerounding.c``) and
  ``fixed_order`` (``common/fixed_order.c``), the reproducible ones.

Every part is built through :func:`collsim.analysis.network.patterns.pattern_for`
when the composite is built, never imported by name: a part whose family has
no pattern yet raises pattern_for's KeyError, and works once it has one.
The sub-communicators cost what SMPI 3.32 makes them cost (measured by the
models, :mod:`collsim.analysis.models._composite`): ``MPI_Comm_create_group``
broadcasts the new context id (one int) from the group's rank 0 with SMPI's
default broadcast, a binomial tree (``smpi::colls::bcast`` ->
``bcast__binomial_tree``: the tree and child order of collsim's
``bcast/binomial``); ``MPI_Comm_split`` first gathers (color, key) to rank 0
and sends each member its group (:func:`_comm_split`).
"""

from __future__ import annotations

import numpy as np

from collsim.analysis.models import _composite, _native
from collsim.analysis.models import allreduce as allreduce_models
from collsim.analysis.models import reduce as reduce_models
from collsim.analysis.models._base import ceil_log2
from collsim.analysis.models._lookup import COLLECTIVES as _COLLECTIVES, composite_names
from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ..pattern import Pattern, Step, in_sequence, on_ranks, side_by_side, then_combine
from ._common import nothing_to_send, ranks

__all__ = ["PATTERNS"]

#: Bytes of the context id SMPI broadcasts in a new communicator (an int).
CONTEXT_ID_BYTES = 4
#: Bytes of each (color, key) pair MPI_Comm_split gathers, and of the group
#: pointer SMPI's rank 0 sends back (MPI_PTR).
SPLIT_PAIR_BYTES = 8
SPLIT_GROUP_BYTES = 8


def _part(collective: str, algorithm: str):
    """The builder of a part, looked up now (the package imports this module)."""
    from . import pattern_for

    return pattern_for(collective, algorithm)


def _empty(p: int) -> Pattern:
    return Pattern(p, ())


def _sub_nodes(rank_nodes, members):
    return None if rank_nodes is None else np.asarray(rank_nodes, dtype=np.int64)[members]


def _new_communicator(p: int, members) -> Pattern:
    """``MPI_Comm_create_group`` of ``members`` (in group order): the context id
    broadcast from ``members[0]`` (nothing for fewer than two members)."""
    members = np.asarray(members, dtype=np.int64)
    if len(members) < 2:
        return _empty(p)
    bcast = _part("bcast", "binomial")(len(members), 1, elem_bytes=CONTEXT_ID_BYTES, root=0)
    return on_ranks(bcast, members, p)


def _comm_split(p: int, colors: np.ndarray, keys: np.ndarray) -> Pattern:
    """SMPI 3.32's ``MPI_Comm_split`` of p ranks (``Comm::split``): every rank but 0
    sends its (color, key) to rank 0 (received at once); for each color in the
    order of its lowest rank, rank 0 sends the group to every other member (at
    once, waiting for all before the next color); then each new communicator
    broadcasts its context id.  ``colors`` < 0: MPI_UNDEFINED.  The models'
    ``_composite.comm_split_s`` is this for one color on the crossbar."""
    others = ranks(p)[1:]
    steps = [Step(others, np.zeros(p - 1, dtype=np.int64), np.full(p - 1, SPLIT_PAIR_BYTES))]
    new_comms = []
    for color in dict.fromkeys(int(c) for c in colors if c >= 0):
        members = np.flatnonzero(colors == color)
        members = members[np.lexsort((members, keys[members]))]
        told = members[members != 0]
        if len(told):
            steps.append(Step(np.zeros(len(told), dtype=np.int64), told,
                              np.full(len(told), SPLIT_GROUP_BYTES)))
        new_comms.append(_new_communicator(p, members))
    return in_sequence(Pattern(p, tuple(steps)), side_by_side(*new_comms))


def _on_groups(p: int, groups, build) -> Pattern:
    """``build(members)`` (a pattern on p ranks) for each group of members, all at once."""
    return side_by_side(_empty(p), *(build(members) for members in groups))


# -- the selectors -------------------------------------------------------------


def _selector(collective: str, name: str):
    def build(p: int, count: int, *, elem_bytes: int, root: int = 0, commutative: bool = True,
              params: AlgorithmParams | None = None, rank_nodes=None, **context) -> Pattern:
        params = params or DEFAULT_PARAMS
        if p < 1 or count < 0:
            raise ValueError(f"need p >= 1 and count >= 0, got p={p}, count={count}")
        if p == 1 or (count == 0 and _native._moves_data(collective)):
            return _empty(p)
        # the choice a run recorded, else collbench's (the one table: native.c)
        selected = params.selected or _native._choice(collective, name, p, count * elem_bytes,
                                                      elem_bytes, commutative)
        # what the selector passes on (as _native.selected_model)
        inner = AlgorithmParams(alpha_over_beta_bytes=params.alpha_over_beta_bytes)
        common = dict(elem_bytes=elem_bytes, params=inner, rank_nodes=rank_nodes)
        if collective in _native._COMPOSITIONS and "+" in selected:
            # Open MPI's nonoverlapping allreduce (its reduce to rank 0, then its bcast) and
            # basic_linear reduce_scatter_block (its reduce of the p blocks, then its scatter)
            names = dict(part.split(":", 1) for part in selected.split("+"))
            return in_sequence(*(
                _part(part, names[part])(p, count * p if all_blocks else count, root=0,
                                         commutative=commutative if part == "reduce" else True,
                                         **common)
                for part, all_blocks in _native._COMPOSITIONS[collective]))
        if selected in _native._LIBRARIES:
            raise ValueError(f"{collective}/{name}: selected {selected!r} is a selector")
        return _part(collective, selected)(p, count, root=root, commutative=commutative, **common)

    build.__name__ = build.__qualname__ = f"{collective}_{name}"
    build.__doc__ = (f"``{collective}_{name}.c``: the pattern of the entry the library picks "
                     "(``params.selected``, else collbench's choice).")
    return build


# -- hierarchical ---------------------------------------------------------------


def allreduce_hierarchical(p: int, count: int, *, elem_bytes: int, root: int = 0,
                           commutative: bool = True, params: AlgorithmParams | None = None,
                           rank_nodes=None, **context) -> Pattern:
    """``allreduce_hierarchical.c``: the inner allreduce in the G groups of q = p / G
    consecutive ranks, then the outer one in the q columns; each level's
    communicators made just before it (G = 1, G = p: one algorithm on all)."""
    params = params or DEFAULT_PARAMS
    groups = params.group_count or allreduce_models.default_group_count(p)
    if groups > p or p % groups:
        raise ValueError(f"group_count must divide p={p}, got {groups}")
    inner_name, outer_name = composite_names("allreduce", "hierarchical", params)
    common = dict(elem_bytes=elem_bytes, commutative=commutative,
                  params=_composite.sub_params(params))
    if groups == 1:
        return _part("allreduce", inner_name)(p, count, rank_nodes=rank_nodes, **common)
    if groups == p:
        return _part("allreduce", outer_name)(p, count, rank_nodes=rank_nodes, **common)
    if count == 0:
        return _empty(p)
    q = p // groups
    inner = _part("allreduce", inner_name)
    outer = _part("allreduce", outer_name)

    def level(build, size):
        return lambda members: in_sequence(
            _new_communicator(p, members),
            on_ranks(build(size, count, rank_nodes=_sub_nodes(rank_nodes, members), **common),
                     members, p))

    rows = [g * q + ranks(q) for g in range(groups)]
    columns = [j + q * ranks(groups) for j in range(q)]
    return in_sequence(_on_groups(p, rows, level(inner, q)),
                       _on_groups(p, columns, level(outer, groups)))


def reduce_hierarchical(p: int, count: int, *, elem_bytes: int, root: int = 0,
                        commutative: bool = True, params: AlgorithmParams | None = None,
                        rank_nodes=None, **context) -> Pattern:
    """``reduce_hierarchical.c``: G groups (``collsim_block_count`` sizes) reduce to
    their leaders (the first rank; the root in its group) with the inner
    algorithm, then the leaders, in group order, to the root with the outer one."""
    params = params or DEFAULT_PARAMS
    groups = params.group_count or reduce_models.default_group_count(p)
    if groups > p:
        raise ValueError(f"group_count must be in 1..p={p}, got {groups}")
    if not 0 <= root < p:
        raise ValueError(f"root must be in 0..{p - 1}, got {root}")
    inner_name, outer_name = composite_names("reduce", "hierarchical", params)
    common = dict(elem_bytes=elem_bytes, commutative=commutative,
                  params=_composite.sub_params(params))
    if groups == 1:
        return _part("reduce", inner_name)(p, count, root=root, rank_nodes=rank_nodes, **common)
    if groups == p:
        return _part("reduce", outer_name)(p, count, root=root, rank_nodes=rank_nodes, **common)
    if count == 0:
        return _empty(p)
    inner = _part("reduce", inner_name)
    outer = _part("reduce", outer_name)
    firsts = [reduce_models._block_offset(p, groups, g) for g in range(groups)]
    sizes = [reduce_models._block_count(p, groups, g) for g in range(groups)]
    root_group = next(g for g in range(groups) if firsts[g] <= root < firsts[g] + sizes[g])
    leaders = np.array(firsts, dtype=np.int64)
    leaders[root_group] = root

    def first_level(g):
        members = firsts[g] + ranks(sizes[g])
        if sizes[g] < 2:
            return _empty(p)
        sub = inner(sizes[g], count, root=int(leaders[g] - firsts[g]),
                    rank_nodes=_sub_nodes(rank_nodes, members), **common)
        return in_sequence(_new_communicator(p, members), on_ranks(sub, members, p))

    top = outer(groups, count, root=root_group, rank_nodes=_sub_nodes(rank_nodes, leaders),
                **common)
    return in_sequence(side_by_side(_empty(p), *(first_level(g) for g in range(groups))),
                       _new_communicator(p, leaders), on_ranks(top, leaders, p))


# -- node_aware -----------------------------------------------------------------


def _nodes(p: int, params: AlgorithmParams, rank_nodes) -> list[np.ndarray]:
    """The nodes' members (ascending), in the order of their lowest rank (the leader):
    ``node_size`` consecutive ranks, or the ranks' real nodes (``rank_nodes``;
    None: a node per rank)."""
    k = params.node_size
    if k:
        return [np.arange(first, min(first + k, p), dtype=np.int64) for first in range(0, p, k)]
    if rank_nodes is None:
        return [np.array([r], dtype=np.int64) for r in range(p)]
    node_of = np.asarray(rank_nodes, dtype=np.int64)
    if len(node_of) != p:
        raise ValueError(f"rank_nodes has {len(node_of)} entries for p={p}")
    # the ranks grouped by node (a stable sort keeps each node's ascending), the nodes
    # in the order of their lowest rank: one sort, not a pass over the ranks per node
    order = np.argsort(node_of, kind="stable")
    cuts = np.flatnonzero(np.diff(node_of[order])) + 1
    groups = np.split(order, cuts)
    return [groups[i] for i in np.argsort(order[np.concatenate([[0], cuts])], kind="stable")]


def _node_comms(p: int, params: AlgorithmParams, nodes, root_node: int | None,
                rank_sockets) -> tuple[Pattern, bool]:
    """What ``collsim_node_split`` sends in the timed call, and whether the leaders'
    communicator is still to be made (exposed nodes: ``collsim_node_leaders``).

    Nothing with ``cached_comms`` (made in the untimed first call).  Exposed
    nodes: each node's communicator by MPI_Comm_create_group.  Real nodes:
    the node's communicator (``real_node_comm``: SMPI's
    MPI_Comm_split_type(SHARED) sends nothing; where nodes are several hosts,
    ``rank_sockets`` given, an MPI_Comm_split by node), then the leaders'
    MPI_Comm_split, the root's node's leader first (key -1), the others by rank.
    """
    if params.cached_comms:
        return _empty(p), False
    if params.node_size:
        return _on_groups(p, nodes, lambda members: _new_communicator(p, members)), True
    node_split = _empty(p)
    if rank_sockets is not None:
        node_of = np.zeros(p, dtype=np.int64)
        for index, members in enumerate(nodes):
            node_of[members] = index
        node_split = _comm_split(p, node_of, ranks(p))
    colors = np.full(p, -1, dtype=np.int64)
    keys = ranks(p)
    for index, members in enumerate(nodes):
        colors[members[0]] = 0
        if index == root_node:
            keys[members[0]] = -1
    return in_sequence(node_split, _comm_split(p, colors, keys)), False


def _mpich(collective: str, q: int, count: int, elem_bytes: int) -> str:
    n_bytes = count * elem_bytes
    if collective == "bcast":
        return _composite.mpich_bcast_choice(q, n_bytes)
    choice = (_composite.mpich_reduce_choice if collective == "reduce"
              else _composite.mpich_allreduce_choice)
    return choice(q, n_bytes, elem_bytes)


def _mpich_on(p: int, collective: str, members, count: int, elem_bytes: int, root_index: int,
              rank_nodes) -> Pattern:
    """MPICH's flat ``collective`` on the communicator of ``members``, rooted at
    ``members[root_index]`` (``collsim_plain_params``: no parameters)."""
    q = len(members)
    if q < 2:
        return _empty(p)
    sub = _part(collective, _mpich(collective, q, count, elem_bytes))(
        q, count, elem_bytes=elem_bytes, root=root_index, commutative=True,
        params=DEFAULT_PARAMS, rank_nodes=_sub_nodes(rank_nodes, members))
    return on_ranks(sub, members, p)


def _check_node_aware(p: int, count: int, commutative: bool):
    if p < 1 or count < 0:
        raise ValueError(f"need p >= 1 and count >= 0, got p={p}, count={count}")
    if not commutative:
        raise ValueError("node_aware needs a commutative op (commutative=True)")


def allreduce_node_aware(p: int, count: int, *, elem_bytes: int, root: int = 0,
                         commutative: bool = True, params: AlgorithmParams | None = None,
                         rank_nodes=None, **context) -> Pattern:
    """``allreduce_node_aware.c``: MPICH's reduce in every node to its leader (the
    lowest rank), MPICH's allreduce across the leaders, MPICH's bcast in every node."""
    params = params or DEFAULT_PARAMS
    _check_node_aware(p, count, commutative)
    if p == 1 or count == 0:
        return _empty(p)
    nodes = _nodes(p, params, rank_nodes)
    leaders = np.array([members[0] for members in nodes], dtype=np.int64)
    made, leaders_to_make = _node_comms(p, params, nodes, None, context.get("rank_sockets"))
    inside = [members for members in nodes if len(members) > 1]
    return in_sequence(
        made,
        side_by_side(_empty(p), *(_mpich_on(p, "reduce", members, count, elem_bytes, 0, rank_nodes)
                                  for members in inside)),
        _new_communicator(p, leaders) if leaders_to_make else _empty(p),
        _mpich_on(p, "allreduce", leaders, count, elem_bytes, 0, rank_nodes),
        side_by_side(_empty(p), *(_mpich_on(p, "bcast", members, count, elem_bytes, 0, rank_nodes)
                                  for members in inside)))


def reduce_node_aware(p: int, count: int, *, elem_bytes: int, root: int = 0,
                      commutative: bool = True, params: AlgorithmParams | None = None,
                      rank_nodes=None, **context) -> Pattern:
    """``reduce_node_aware.c``: MPICH's reduce in every node but the root's to its
    leader, across the leaders to the root's node's leader, then in the root's
    node to the root."""
    params = params or DEFAULT_PARAMS
    _check_node_aware(p, count, commutative)
    if not 0 <= root < p:
        raise ValueError(f"root must be in 0..{p - 1}, got {root}")
    if p == 1 or count == 0:
        return _empty(p)
    nodes = _nodes(p, params, rank_nodes)
    root_node = next(i for i, members in enumerate(nodes) if root in members)
    made, leaders_to_make = _node_comms(p, params, nodes, root_node,
                                         context.get("rank_sockets"))
    leaders = np.array([members[0] for members in nodes], dtype=np.int64)
    if not params.node_size and not params.cached_comms:
        # the split put the root's node's leader first (key -1)
        leaders = np.concatenate([leaders[root_node:root_node + 1],
                                  np.delete(leaders, root_node)])
    root_position = int(np.flatnonzero(leaders == nodes[root_node][0])[0])
    root_members = nodes[root_node]
    return in_sequence(
        made,
        side_by_side(_empty(p), *(_mpich_on(p, "reduce", members, count, elem_bytes, 0, rank_nodes)
                                  for i, members in enumerate(nodes)
                                  if i != root_node and len(members) > 1)),
        _new_communicator(p, leaders) if leaders_to_make else _empty(p),
        _mpich_on(p, "reduce", leaders, count, elem_bytes, root_position, rank_nodes),
        _mpich_on(p, "reduce", root_members, count, elem_bytes,
                  int(np.flatnonzero(root_members == root)[0]), rank_nodes))


# -- the reproducible ones --------------------------------------------------------


def _preround_parts_params(params: AlgorithmParams) -> AlgorithmParams:
    """What ``collsim_preround_run`` passes its parts: its own parameters without the
    levels' names (the network's alpha / beta among them: a pipelined part's blocks)."""
    return AlgorithmParams(alpha_over_beta_bytes=params.alpha_over_beta_bytes)


def _preround_bound(p: int, count: int, outer_name: str, params: AlgorithmParams) -> Pattern:
    """``collsim_preround_prepare``: the allreduce (MPI_MAX) of count doubles of
    bounds, then the splitting on every rank (PREROUND_LEVELS doubles per element,
    charged as a reduction: ``collsim_charge_compute``)."""
    bound = _part("allreduce", outer_name)(p, count, elem_bytes=8, commutative=True,
                                           params=_preround_parts_params(params))
    return then_combine(bound, ranks(p), 8 * count * _composite.PREROUND_LEVELS)


@nothing_to_send
def allreduce_prerounded(p: int, count: int, *, elem_bytes: int, root: int = 0,
                         commutative: bool = True, params: AlgorithmParams | None = None,
                         rank_nodes=None, **context) -> Pattern:
    """``prerounded.c``: the bounds' allreduce (outer), the split, then the inner
    allreduce of PREROUND_LEVELS doubles per element."""
    params = params or DEFAULT_PARAMS
    inner_name, outer_name = composite_names("allreduce", "prerounded", params)
    levels = _part("allreduce", inner_name)(p, count * _composite.PREROUND_LEVELS, elem_bytes=8,
                                            commutative=True,
                                            params=_preround_parts_params(params),
                                            rank_nodes=rank_nodes)
    return in_sequence(_preround_bound(p, count, outer_name, params), levels)


@nothing_to_send
def reduce_prerounded(p: int, count: int, *, elem_bytes: int, root: int = 0,
                      commutative: bool = True, params: AlgorithmParams | None = None,
                      rank_nodes=None, **context) -> Pattern:
    """``prerounded.c``: the bounds' allreduce (outer), the split, then the inner
    reduce of PREROUND_LEVELS doubles per element to the root."""
    params = params or DEFAULT_PARAMS
    inner_name, outer_name = composite_names("reduce", "prerounded", params)
    levels = _part("reduce", inner_name)(p, count * _composite.PREROUND_LEVELS, elem_bytes=8,
                                         root=root, commutative=True,
                                         params=_preround_parts_params(params),
                                         rank_nodes=rank_nodes)
    return in_sequence(_preround_bound(p, count, outer_name, params), levels)


def _fixed_order_reduce(p: int, count: int, elem_bytes: int, root: int,
                        params: AlgorithmParams, rank_nodes, rank_sockets) -> Pattern:
    """``collsim_fixed_order_reduce``: the node (``collsim_node_members``, as
    :func:`_node_comms` finds it), the leader flags' dissemination allgather, a
    binomial tree of summation-tree sets in every node, one over the leaders, the
    result from rank 0 to the root.  Each merge is two messages (the header of
    4 (1 + 2 c) bytes, then c vectors) and combines what becomes siblings
    (``reduce._fixed_order_add``, the twin of ``set_add``)."""
    n_bytes = count * elem_bytes
    rank = ranks(p)
    steps = []
    have, distance = 1, 1
    while distance < p:
        amount = min(have, p - have)
        steps.append(Step(rank, (rank - distance) % p, np.full(p, amount)))
        have += amount
        distance <<= 1
    sets = [{(0, r)} for r in range(p)]
    top_level = ceil_log2(p)

    def gather(trees: list[np.ndarray]) -> None:
        # every tree's mask-m merges at once: position pos + m into pos
        for mask in (1 << s for s in range(ceil_log2(max(len(t) for t in trees)))):
            pairs = [(int(t[pos]), int(t[pos + mask])) for t in trees
                     for pos in range(0, len(t) - mask, 2 * mask)]
            if not pairs:
                continue
            dst = np.array([d for d, _ in pairs], dtype=np.int64)
            src = np.array([s for _, s in pairs], dtype=np.int64)
            carried = np.array([len(sets[s]) for s in src], dtype=np.int64)
            combined = []
            for d, s in pairs:
                before = len(sets[d]) + len(sets[s])
                for level, index in sorted(sets[s]):
                    reduce_models._fixed_order_add(sets[d], level, index, p, top_level)
                sets[s] = set()
                combined.append(before - len(sets[d]))
            steps.append(Step(src, dst, 4 * (1 + 2 * carried)))
            steps.append(Step(src, dst, carried * n_bytes, dst,
                              np.array(combined, dtype=np.int64) * n_bytes))

    nodes = _nodes(p, params, rank_nodes)
    node_split = _empty(p)
    if rank_sockets is not None and not params.node_size:
        # collsim_node_members: where nodes are several hosts, an MPI_Comm_split by
        # node (real_node_comm), before the leader flags
        node_of = np.zeros(p, dtype=np.int64)
        for index, members in enumerate(nodes):
            node_of[members] = index
        node_split = _comm_split(p, node_of, ranks(p))
    gather(nodes)
    gather([np.array([members[0] for members in nodes], dtype=np.int64)])
    if root != 0:
        steps.append(Step([0], [root], [n_bytes]))
    return in_sequence(node_split, Pattern(p, tuple(steps)))


@nothing_to_send
def reduce_fixed_order(p: int, count: int, *, elem_bytes: int, root: int = 0,
                       commutative: bool = True, params: AlgorithmParams | None = None,
                       rank_nodes=None, **context) -> Pattern:
    """``reduce_fixed_order.c``: :func:`_fixed_order_reduce`."""
    if not 0 <= root < p:
        raise ValueError(f"root must be in 0..{p - 1}, got {root}")
    return _fixed_order_reduce(p, count, elem_bytes, root, params or DEFAULT_PARAMS, rank_nodes,
                               context.get("rank_sockets"))


@nothing_to_send
def allreduce_fixed_order(p: int, count: int, *, elem_bytes: int, root: int = 0,
                          commutative: bool = True, params: AlgorithmParams | None = None,
                          rank_nodes=None, **context) -> Pattern:
    """``allreduce_fixed_order.c``: the fixed-order reduce to rank 0, then
    ``collsim_bcast_binomial`` from rank 0."""
    return in_sequence(
        _fixed_order_reduce(p, count, elem_bytes, 0, params or DEFAULT_PARAMS, rank_nodes,
                            context.get("rank_sockets")),
        _part("bcast", "binomial")(p, count, elem_bytes=elem_bytes, root=0))


PATTERNS = {
    ("allreduce", "hierarchical"): allreduce_hierarchical,
    ("reduce", "hierarchical"): reduce_hierarchical,
    ("allreduce", "node_aware"): allreduce_node_aware,
    ("reduce", "node_aware"): reduce_node_aware,
    ("allreduce", "prerounded"): allreduce_prerounded,
    ("reduce", "prerounded"): reduce_prerounded,
    ("allreduce", "fixed_order"): allreduce_fixed_order,
    ("reduce", "fixed_order"): reduce_fixed_order,
    **{(collective, name): _selector(collective, name)
       for collective in _COLLECTIVES
       for name in ("openmpi_default", "mpich_default")},
}
