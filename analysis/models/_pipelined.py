"""The message schedules of the pipelined tree algorithms, step for step as the
C code posts them (``algorithms/common/pipeline.c`` and
``algorithms/allreduce/allreduce_dual_root_pipelined.c``), timed exactly by
:mod:`collsim.analysis.schedule`.  The public models in reduce.py, bcast.py and
allreduce.py call these.

Why these models are exact on the crossbar under ``hockney``: each is the
longest path through the steps the C code posts (:mod:`collsim.analysis.schedule`),
with every message ``alpha + (bytes + envelope) beta`` (one-way ones
``f_alpha alpha + (bytes + envelope) f_beta beta``, seed 001 sec. 2.1; the
factors are 1 on the crossbar) and every combination ``bytes gamma``.  On the
crossbar at most one message leaves and one enters a rank at a time, so nothing
shares a link and each step lasts exactly that.  The closed forms in the model
docstrings are what this path gives for equal blocks
(tests/test_schedule_models.py checks it).
"""

from __future__ import annotations

from collsim.params import AlgorithmParams

from ..schedule import Step, recv, schedule_time, send
from ..segments import block_elems
from ..trees import TreeNode, dual_first_size, in_order_root, tree
from ._base import NetworkParams

__all__ = ["chain_children", "plan_bytes", "tree_and_blocks", "in_order_tree_and_blocks",
           "reduce_tree_s", "bcast_tree_s", "allreduce_in_order_tree_s", "dual_root_s",
           "steady_steps", "reduce_tree_programs", "bcast_tree_programs",
           "allreduce_in_order_tree_programs", "dual_root_programs"]


def chain_children(p: int, chain_fanout: int):
    """The children of relative rank v in Open MPI's chain tree with this fan-out
    (:func:`collsim.analysis.trees.tree_node`, root 0), as a function of v: the
    tree of ``bcast.chain`` and ``reduce.chain`` (``common/generic_tree.c`` runs
    them, not the pipelined engine: the root talks to all chain heads at once)."""
    nodes = tree("chain", size=p, chain_fanout=chain_fanout)
    return lambda v: nodes[v].children


def steady_steps(kind: str) -> int:
    """Steps per block at a node: 1 on a chain, 2 on the binary trees."""
    return 1 if kind == "chain" else 2


def plan_bytes(count: int, elem_bytes: int, params: AlgorithmParams, *, segmented: bool,
               fill_steps: float, steady: float) -> list[int]:
    """Bytes in each block, as the C code cuts them."""
    if not segmented:
        return [count * elem_bytes] if count else []
    elems = block_elems(count=count, elem_bytes=elem_bytes, block_count=params.block_count,
                        segment_bytes=params.segment_bytes, fill_steps=fill_steps,
                        steady_steps=steady,
                        alpha_over_beta_bytes=params.alpha_over_beta_bytes)
    return [e * elem_bytes for e in elems]


def engine_reduce(node: TreeNode, blocks: list[int]) -> list[Step]:
    """collsim_tree_reduce_pipelined at one rank."""
    steps: list[Step] = []
    parent, children = node.parent, node.children
    for s, n in enumerate(blocks):
        for j, child in enumerate(children):
            ops = [recv(child, n)]
            if j == 0 and parent >= 0 and s > 0:
                ops.append(send(parent, blocks[s - 1]))
            steps.append(Step(tuple(ops), compute_bytes=n))
        if parent >= 0 and not children:
            steps.append(Step((send(parent, n),)))
    if parent >= 0 and children and blocks:
        steps.append(Step((send(parent, blocks[-1]),)))
    return steps


def engine_bcast(node: TreeNode, blocks: list[int]) -> list[Step]:
    """collsim_tree_bcast_pipelined at one rank."""
    steps: list[Step] = []
    parent, children = node.parent, node.children
    if not blocks or (parent < 0 and not children):
        return steps
    for s in range(len(blocks) + 1):
        ops = []
        if parent >= 0 and s < len(blocks):
            ops.append(recv(parent, blocks[s]))
        if children and s > 0:
            ops.append(send(children[0], blocks[s - 1]))
        if ops:
            steps.append(Step(tuple(ops)))
        if s > 0:
            steps.extend(Step((send(child, blocks[s - 1]),)) for child in children[1:])
    return steps


def tree_and_blocks(kind: str, p: int, count: int, *, elem_bytes: int, root: int,
                     params: AlgorithmParams, segmented: bool) -> tuple[list[TreeNode], list[int]]:
    """The tree's nodes and the block sizes the engine moves along it (pipeline.c's plan)."""
    nodes = tree(kind, size=p, root=root)
    return nodes, tree_blocks(kind, nodes[0].height, count, elem_bytes=elem_bytes, params=params,
                              segmented=segmented)


def tree_blocks(kind: str, height: int, count: int, *, elem_bytes: int, params: AlgorithmParams,
                segmented: bool) -> list[int]:
    """The blocks of :func:`tree_and_blocks` along a tree of ``height``."""
    steady = steady_steps(kind)
    return plan_bytes(count, elem_bytes, params, segmented=segmented,
                      fill_steps=steady * height, steady=steady)


def reduce_tree_programs(kind: str, p: int, count: int, *, elem_bytes: int, root: int,
                         params: AlgorithmParams, segmented: bool) -> list[list[Step]]:
    """collsim_reduce_along_tree, one program per rank: reduce to root along a
    chain, binary or in-order binary tree (whose root p // 2 then sends the
    result to root).  The network model's patterns are these programs too."""
    nodes, blocks = tree_and_blocks(kind, p, count, elem_bytes=elem_bytes, root=root, params=params,
                                     segmented=segmented)
    programs = [engine_reduce(node, blocks) for node in nodes]
    tree_root = in_order_root(p) if kind == "in_order_binary" else root
    if tree_root != root:
        programs[tree_root].append(Step((send(root, count * elem_bytes),)))
        programs[root].append(Step((recv(tree_root, count * elem_bytes),)))
    return programs


def reduce_tree_s(kind: str, p: int, count: int, net: NetworkParams, *, elem_bytes: int,
                  root: int, params: AlgorithmParams, segmented: bool) -> float:
    """The time of :func:`reduce_tree_programs`."""
    if p == 1 or count == 0:
        return 0.0
    return schedule_time(reduce_tree_programs(kind, p, count, elem_bytes=elem_bytes, root=root,
                                              params=params, segmented=segmented), net)


def bcast_tree_programs(kind: str, p: int, count: int, *, elem_bytes: int, root: int,
                        params: AlgorithmParams, segmented: bool) -> list[list[Step]]:
    """collsim_bcast_along_tree, one program per rank: bcast from root along a
    chain or binary tree."""
    nodes, blocks = tree_and_blocks(kind, p, count, elem_bytes=elem_bytes, root=root, params=params,
                                     segmented=segmented)
    return [engine_bcast(node, blocks) for node in nodes]


def bcast_tree_s(kind: str, p: int, count: int, net: NetworkParams, *, elem_bytes: int,
                 root: int, params: AlgorithmParams, segmented: bool) -> float:
    """The time of :func:`bcast_tree_programs`."""
    if p == 1 or count == 0:
        return 0.0
    return schedule_time(bcast_tree_programs(kind, p, count, elem_bytes=elem_bytes, root=root,
                                             params=params, segmented=segmented), net)


def allreduce_in_order_tree_programs(p: int, count: int, *, elem_bytes: int,
                                     params: AlgorithmParams, segmented: bool) -> list[list[Step]]:
    """collsim_allreduce_along_in_order_tree, one program per rank: reduce up,
    then bcast down."""
    nodes, blocks = in_order_tree_and_blocks(p, count, elem_bytes=elem_bytes, params=params,
                                             segmented=segmented)
    return [engine_reduce(node, blocks) + engine_bcast(node, blocks) for node in nodes]


def in_order_tree_and_blocks(p: int, count: int, *, elem_bytes: int, params: AlgorithmParams,
                             segmented: bool) -> tuple[list[TreeNode], list[int]]:
    """The in-order binary tree and the blocks of collsim_allreduce_along_in_order_tree."""
    nodes = tree("in_order_binary", size=p)
    return nodes, in_order_blocks(nodes[0].height, count, elem_bytes=elem_bytes, params=params,
                                  segmented=segmented)


def in_order_blocks(height: int, count: int, *, elem_bytes: int, params: AlgorithmParams,
                    segmented: bool) -> list[int]:
    """The blocks of :func:`in_order_tree_and_blocks` along a tree of ``height``."""
    return plan_bytes(count, elem_bytes, params, segmented=segmented,
                      fill_steps=4.0 * height, steady=4.0)


def allreduce_in_order_tree_s(p: int, count: int, net: NetworkParams, *, elem_bytes: int,
                              params: AlgorithmParams, segmented: bool) -> float:
    """The time of :func:`allreduce_in_order_tree_programs`."""
    if p == 1 or count == 0:
        return 0.0
    return schedule_time(allreduce_in_order_tree_programs(p, count, elem_bytes=elem_bytes,
                                                          params=params, segmented=segmented), net)


def dual_root_program(rank: int, p: int, node: TreeNode, blocks: list[int]) -> list[Step]:
    """collsim_allreduce_dual_root_pipelined at one rank."""
    first = dual_first_size(p)
    is_root = node.parent < 0
    parent = ((p - 1) if rank < first else (first - 1)) if is_root else node.parent
    nblocks, depth = len(blocks), node.depth

    def size(i: int) -> int:
        return blocks[i] if 0 <= i < nblocks else 0

    def exchange(peer: int, out_bytes: int, in_bytes: int, compute: int) -> list[Step]:
        # both directions, empty or not: a zero-byte message still costs a start-up
        return [Step((send(peer, out_bytes), recv(peer, in_bytes)), compute_bytes=compute)]

    steps: list[Step] = []
    last_round = nblocks - 1 + depth + (1 if node.children else 0)
    for k in range(last_round + 1):
        partial = size(k)
        for child in node.children:
            steps += exchange(child, size(k - depth - 1), partial, partial)
        if not is_root and k < nblocks + depth:
            steps += exchange(parent, partial, size(k - depth), 0)
        elif is_root and partial:
            steps += exchange(parent, partial, partial, partial)
    return steps


def dual_root_tree_and_blocks(p: int, count: int, *, elem_bytes: int, params: AlgorithmParams
                              ) -> tuple[list[TreeNode], list[int]]:
    """The two post-order trees and the blocks of the dual-root allreduce."""
    nodes = tree("dual_postorder", size=p)
    return nodes, dual_root_blocks(nodes[0].height, count, elem_bytes=elem_bytes, params=params)


def dual_root_blocks(height: int, count: int, *, elem_bytes: int,
                     params: AlgorithmParams) -> list[int]:
    """The blocks of the dual-root allreduce along trees of ``height``."""
    return plan_bytes(count, elem_bytes, params, segmented=True,
                      fill_steps=6.0 * height + 1.0, steady=3.0)


def dual_root_programs(p: int, count: int, *, elem_bytes: int,
                       params: AlgorithmParams) -> list[list[Step]]:
    """The doubly pipelined dual-root allreduce of seed 003, one program per rank."""
    nodes, blocks = dual_root_tree_and_blocks(p, count, elem_bytes=elem_bytes, params=params)
    return [dual_root_program(rank, p, node, blocks) for rank, node in enumerate(nodes)]


def dual_root_s(p: int, count: int, net: NetworkParams, *, elem_bytes: int,
                params: AlgorithmParams) -> float:
    """The time of :func:`dual_root_programs`."""
    if p == 1 or count == 0:
        return 0.0
    return schedule_time(dual_root_programs(p, count, elem_bytes=elem_bytes, params=params), net)
