"""Tree and pipelined patterns: linear, chains, Open MPI's generic trees, the
pipelined tree engine, the dual-root allreduce.

Each builder writes the algorithm as one program per rank, in the order the
C code posts its operations (``algorithms/common/generic_tree.c``,
``pipeline.c``, the linear and dual-root files), and :func:`programs_pattern`
turns the programs into steps: the k-th send from a to b is the k-th
receive at b from a (MPI's non-overtaking order), and a message's two tasks
(a rank's operations waited for together) get one step number, the lowest
after both ranks' previous tasks.  The engine keeps each rank's tasks in
order whatever the numbering; the numbers group messages for it.  The
patterns are windowed (``Pattern.windowed``): a pipeline's thousands of
short steps run together in windows rather than each step alone.

The generic trees, the linear reduce and allreduce and the pipelined
engine (bcast and reduce along a tree, the in-order allreduce) are written
as op arrays with numpy over ranks (:func:`arrays_pattern`'s form: a
program of Python objects per rank was most of a million-rank prediction);
the dual-root allreduce's programs are flattened into the same arrays
(up to :data:`.pipetrees.PROGRAM_STEP_MESSAGES` messages).
Matching sends to receives, the receives posted ahead and the step numbers
are numpy and compiled loops (:mod:`collsim.analysis.network.kernels`), in
the order the per-rank version took them, so the steps are the same,
message for message.

Above :data:`.pipetrees.PROGRAM_STEP_MESSAGES` messages the pipelined engine's
patterns and the dual root's are :class:`..programs.ProgramSteps` instead
(:mod:`.pipetrees`): each shape of program held once, the steps made one at a
time as the engine takes them, the same steps as the arrays' below.

The pipelined engine's arrays take the models' trees and block plans
(:mod:`collsim.analysis.models._pipelined`: ``tree_and_blocks``,
``in_order_tree_and_blocks``) and are held to the models' own programs,
message for message, by ``tests/test_network_patterns_trees.py``, so the
pattern and the model cannot drift apart.
Block counts come from ``params`` as the C code takes them (``--blocks``,
``--segment-bytes``, else the pipelining lemma with the run's
``alpha_over_beta_bytes``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import NamedTuple

import numpy as np

from collsim.analysis.models import _pipelined
from collsim.analysis.models._lookup import parameter_default
from collsim.analysis.models.bcast import (binomial_children, knomial_children,
                                           level_order_binary_children)
from collsim.analysis.models.reduce import in_order_binomial_children
from collsim.analysis.schedule import Op, Step as Task
from collsim.analysis.trees import tree_node
from collsim.params import DEFAULT_PARAMS

from ..chain import CHAIN_STEP_MESSAGES, CHAIN_TOGETHER_MESSAGES, ChainSteps
from ..pattern import Pattern, _checked_steps
from . import pipetrees, rounds
from ._common import nothing_to_send

__all__ = ["PATTERNS", "programs_pattern", "arrays_pattern", "post"]


def post(peer: int, n_bytes: int) -> Op:
    """An ``MPI_Irecv`` from peer posted in this task and waited for in a later one
    (by the first later ``recv`` from peer)."""
    return Op("post", peer, n_bytes)


_KINDS = {"send": 0, "recv": 1, "post": 2}


def programs_pattern(programs: list[list[Task]]) -> Pattern:
    """The pattern of per-rank programs (:class:`collsim.analysis.schedule.Step`
    lists: the operations a rank posts together and waits for, then its
    reduction; ``post`` ops for receives posted ahead).

    The programs are flattened into op arrays (:func:`arrays_pattern`).

    Raises
    ------
    ValueError
        If a send has no matching receive or the sizes differ, a task waits
        for nothing, two tasks of one rank would share a step, or the
        programs deadlock.
    """
    n_tasks_of, compute, columns = [], [], []
    kinds = _KINDS
    for rank, program in enumerate(programs):
        n_tasks_of.append(len(program))
        for index, task in enumerate(program):
            compute.append(task.compute_bytes)
            columns.extend((rank, index, kinds[op.kind], op.peer, op.n_bytes) for op in task.ops)
    ops = np.array(columns, dtype=np.int64).reshape(-1, 5)
    return arrays_pattern(len(programs), np.array(n_tasks_of, dtype=np.int64),
                          np.array(compute, dtype=np.int64), *ops.T)


def arrays_pattern(p: int, n_tasks_of: np.ndarray, compute: np.ndarray, op_rank: np.ndarray,
                   op_task: np.ndarray, op_kind: np.ndarray, op_peer: np.ndarray,
                   op_bytes: np.ndarray) -> Pattern:
    """The pattern of per-rank programs given as arrays, one entry per operation in
    program order (rank by rank, task by task): its rank, its task's index in the
    rank's program, its kind (0 send, 1 receive, 2 ``post``, 3 ``MPI_Isend``: a send
    that pays ``o_s`` whatever its size, ``Step.nonblocking``), its peer and bytes;
    ``n_tasks_of`` each rank's number of tasks, ``compute`` each task's
    reduction bytes (tasks rank by rank).

    The k-th send from a to b is the k-th receive at b from a; a receive
    posted ahead is waited for by the first later receive from its peer;
    the messages are ordered pair by pair, in order of each pair's first
    send, then by k (:func:`programs_pattern`'s order, which fixes the
    order of the engine's sums); a message's two tasks get one step, the
    lowest after both ranks' previous tasks
    (:func:`collsim.analysis.network.kernels.program_steps`).
    """
    from .. import kernels

    first_task = np.concatenate([[0], np.cumsum(n_tasks_of)]).astype(np.int64)
    n_tasks = int(first_task[-1])
    op_rank, op_task, op_kind, op_peer, op_bytes = (
        np.asarray(a, dtype=np.int64) for a in (op_rank, op_task, op_kind, op_peer, op_bytes))
    global_task = first_task[op_rank] + op_task
    waits = np.zeros(n_tasks, dtype=bool)
    waits[global_task[op_kind != 2]] = True
    if not waits.all():
        task = int(np.argmin(waits))
        rank = int(np.searchsorted(first_task, task, side="right") - 1)
        raise ValueError(f"rank {rank} task {task - first_task[rank]} waits for no message")
    sends = np.flatnonzero((op_kind == 0) | (op_kind == 3))
    receives = np.flatnonzero(op_kind == 1)
    send_key = op_rank[sends] * p + op_peer[sends]
    receive_key = op_peer[receives] * p + op_rank[receives]
    send_order = np.argsort(send_key, kind="stable")
    receive_order = np.argsort(receive_key, kind="stable")
    sorted_send_key = send_key[send_order]
    if len(sends) != len(receives) or np.any(sorted_send_key != receive_key[receive_order]):
        pairs, first, out = np.unique(send_key, return_index=True, return_counts=True)
        into = dict(zip(*(a.tolist() for a in np.unique(receive_key, return_counts=True))))
        for index in np.argsort(first, kind="stable"):
            key, count = int(pairs[index]), int(out[index])
            if into.get(key, 0) != count:
                raise ValueError(f"{count} sends but {into.get(key, 0)} receives "
                                 f"from {key // p} to {key % p}")
        raise ValueError("a receive has no matching send")
    # a receive's ahead: the earliest post from its peer not yet waited for
    ends = np.flatnonzero((op_kind == 1) | (op_kind == 2))
    end_key = op_rank[ends] * p + op_peer[ends]
    ahead_of = kernels.receives_ahead(op_kind[ends] == 2, end_key, op_task[ends],
                                      np.argsort(end_key, kind="stable"))
    ahead = np.zeros(len(op_kind), dtype=np.int64)
    ahead[ends] = ahead_of
    # the messages pair by pair in order of each pair's first send, then by k
    new_pair = np.ones(len(sends), dtype=bool)
    new_pair[1:] = sorted_send_key[1:] != sorted_send_key[:-1]
    pair_first = send_order[np.flatnonzero(new_pair)][np.cumsum(new_pair) - 1]
    by_message = np.argsort(pair_first, kind="stable")
    sent, taken = sends[send_order[by_message]], receives[receive_order[by_message]]
    src, dst = op_rank[sent], op_rank[taken]
    s_task, d_task = global_task[sent], global_task[taken]
    n_bytes, ahead, isend = op_bytes[sent], ahead[taken], op_kind[sent] == 3
    # a receive before its task's first send (pipeline.c's MPI_Irecv, then MPI_Isend)
    # does not wait for that send's o_s, as MPI_Sendrecv's does (Step.receive_first)
    first_send = np.full(n_tasks, len(op_kind), dtype=np.int64)
    np.minimum.at(first_send, global_task[sends], sends)
    early = taken < first_send[d_task]
    wrong = np.flatnonzero(n_bytes != op_bytes[taken])
    if len(wrong):
        i = wrong[0]
        raise ValueError(f"message {src[i]} -> {dst[i]} of {n_bytes[i]} bytes "
                         f"received as {op_bytes[taken][i]}")
    step_of, shared = kernels.program_steps(first_task, s_task, d_task)
    if shared >= 0:
        raise ValueError(f"two tasks of one rank are linked into one step (task {shared})")
    task_rank = np.repeat(np.arange(p), np.diff(first_task))
    if np.any(step_of < 0):
        stuck = np.unique(task_rank[step_of < 0]).tolist()
        raise ValueError(f"the programs deadlock (ranks {stuck[:8]} cannot progress)")
    compute = np.asarray(compute, dtype=np.int64)
    n_steps = int(step_of.max()) + 1
    by_step = np.argsort(step_of[s_task], kind="stable")
    cuts = np.searchsorted(step_of[s_task][by_step], np.arange(n_steps + 1))
    reducing = np.flatnonzero(compute)
    by_reduce = reducing[np.argsort(step_of[reducing], kind="stable")]
    reduce_cuts = np.searchsorted(step_of[by_reduce], np.arange(n_steps + 1))
    steps = _checked_steps(src[by_step], dst[by_step], n_bytes[by_step], task_rank[by_reduce],
                           compute[by_reduce], ahead[by_step] if ahead.any() else (),
                           cuts, reduce_cuts, isend[by_step] if isend.any() else (),
                           early[by_step] if early.any() else ())
    # thousands of short steps for a pipeline: simulated together, in windows when many
    return Pattern(p, steps, windowed=True)


def _params(params):
    return DEFAULT_PARAMS if params is None else params


# --- Open MPI's generic trees, one segment (common/generic_tree.c) -----------------------
# Written as op arrays (arrays_pattern's form) with numpy over ranks: at a million
# ranks a program of Python objects per rank took most of the prediction.

_SEND, _RECV, _POST, _ISEND = 0, 1, 2, 3


class _Programs(NamedTuple):
    """Per-rank programs as arrays (:func:`arrays_pattern`'s arguments but p)."""

    n_tasks_of: np.ndarray
    compute: np.ndarray
    rank: np.ndarray
    task: np.ndarray
    kind: np.ndarray
    peer: np.ndarray
    n_bytes: np.ndarray


def _pattern(p: int, programs: _Programs) -> Pattern:
    return arrays_pattern(p, *programs)


def _ops(p, n_tasks_of, compute, rank, order, task, kind, peer, n_bytes) -> _Programs:
    """Programs from ops in any order: ``order`` ranks a rank's ops (program order)."""
    by = np.lexsort((order, rank))
    n_bytes = np.broadcast_to(np.asarray(n_bytes, dtype=np.int64), rank.shape)
    return _Programs(np.asarray(n_tasks_of, dtype=np.int64), np.asarray(compute, dtype=np.int64),
                     rank[by], task[by], kind[by], peer[by], n_bytes[by])


def _children_csr(p: int, children) -> tuple[np.ndarray, np.ndarray]:
    """(start, kids): relative rank v's children ``kids[start[v]:start[v + 1]]``, in order."""
    lists = [children(v) for v in range(p)]
    start = np.zeros(p + 1, dtype=np.int64)
    start[1:] = np.cumsum([len(kids) for kids in lists])
    kids = np.fromiter((c for kids in lists for c in kids), dtype=np.int64, count=int(start[-1]))
    return start, kids


def _linear_csr(p: int) -> tuple[np.ndarray, np.ndarray]:
    """The linear tree's CSR: relative rank 0's children are 1 .. p - 1."""
    start = np.full(p + 1, p - 1, dtype=np.int64)
    start[0] = 0
    return start, np.arange(1, p, dtype=np.int64)


def _kid_entries(p: int, root: int, csr):
    """Per child entry: its parent's absolute rank, its index among the parent's
    children, the parent's number of children, the child's absolute rank."""
    start, kids = csr
    n_kids = np.diff(start)
    parent_rel = np.repeat(np.arange(p, dtype=np.int64), n_kids)
    index = np.arange(len(kids), dtype=np.int64) - start[parent_rel]
    return (parent_rel + root) % p, index, n_kids[parent_rel], (kids + root) % p


def _generic_bcast_arrays(p: int, n_bytes: int, root: int, csr) -> _Programs:
    """collsim_generic_tree_bcast: receive from the parent, then one MPI_Isend per
    child and a Waitall (``csr``: :func:`_children_csr` of relative ranks)."""
    parent, index, _, child = _kid_entries(p, root, csr)
    rank = np.arange(p, dtype=np.int64)
    has_kids = np.zeros(p, dtype=bool)
    has_kids[parent] = True
    not_root = rank != root
    return _ops(p, not_root.astype(np.int64) + has_kids, np.zeros(p, dtype=np.int64),
                np.concatenate([child, parent]),
                np.concatenate([np.full(len(child), -1), index]),
                np.concatenate([np.zeros(len(child), dtype=np.int64),
                                not_root[parent].astype(np.int64)]),
                np.concatenate([np.full(len(child), _RECV), np.full(len(child), _ISEND)]),
                np.concatenate([parent, child]), n_bytes)


def _generic_reduce_arrays(p: int, n_bytes: int, root: int, csr) -> _Programs:
    """collsim_generic_tree_reduce: receive child 0 and post child 1; each wait
    is followed by a combination and the post of the child after the next;
    then send to the parent (``csr``: relative ranks)."""
    parent, index, n_kids, child = _kid_entries(p, root, csr)
    start, kids = csr
    # task i of a parent: post child i + 1 (two receives in flight), receive child i
    ahead = index + 1 < n_kids
    rank = np.arange(p, dtype=np.int64)
    n_kids_of = np.zeros(p, dtype=np.int64)
    n_kids_of[(np.arange(p) + root) % p] = np.diff(start)
    not_root = rank != root
    n_tasks_of = n_kids_of + not_root
    first = np.concatenate([[0], np.cumsum(n_tasks_of)[:-1]])
    compute = np.zeros(int(n_tasks_of.sum()), dtype=np.int64)
    compute[first[parent] + index] = n_bytes
    following = np.flatnonzero(ahead)
    return _ops(p, n_tasks_of, compute,
                np.concatenate([parent[following], parent, child]),
                np.concatenate([2 * index[following], 2 * index + 1, 2 * n_kids_of[child]]),
                np.concatenate([index[following], index, n_kids_of[child]]),
                np.concatenate([np.full(len(following), _POST), np.full(len(child), _RECV),
                                np.full(len(child), _SEND)]),
                np.concatenate([child[following + 1], child, parent]), n_bytes)


def _chain_fanout(collective: str, params) -> int:
    return params.chain_fanout or parameter_default(collective, "chain", "chain_fanout")


def _chain_children(p: int, collective: str, params):
    return _pipelined.chain_children(p, _chain_fanout(collective, params))


@nothing_to_send
def bcast_linear(p: int, count: int, *, elem_bytes: int, root: int = 0,
                 commutative: bool = True, **context) -> Pattern:
    """``bcast_linear.c``: the root's p - 1 MPI_Isend at once, one MPI_Waitall."""
    return _pattern(p, _generic_bcast_arrays(p, count * elem_bytes, root, _linear_csr(p)))


@nothing_to_send
def bcast_chain(p: int, count: int, *, elem_bytes: int, root: int = 0, commutative: bool = True,
                params=None, **context) -> Pattern:
    """``bcast_chain.c``: the root sends to the chains' heads at once, each rank passes on."""
    return _pattern(p, _generic_bcast_arrays(
        p, count * elem_bytes, root, _children_csr(p, _chain_children(p, "bcast", _params(params)))))


@nothing_to_send
def bcast_concurrent_binomial(p: int, count: int, *, elem_bytes: int, root: int = 0,
                              commutative: bool = True, **context) -> Pattern:
    """``bcast_concurrent_binomial.c``: Open MPI's binomial tree, all children at once."""
    return _pattern(p, _generic_bcast_arrays(p, count * elem_bytes, root,
                                             _children_csr(p, lambda v: binomial_children(v, p))))


@nothing_to_send
def bcast_concurrent_knomial(p: int, count: int, *, elem_bytes: int, root: int = 0,
                             commutative: bool = True, **context) -> Pattern:
    """``bcast_concurrent_knomial.c``: Open MPI's radix-4 tree, all children at once."""
    return _pattern(p, _generic_bcast_arrays(p, count * elem_bytes, root,
                                             _children_csr(p, lambda v: knomial_children(v, p))))


@nothing_to_send
def bcast_concurrent_binary(p: int, count: int, *, elem_bytes: int, root: int = 0,
                            commutative: bool = True, **context) -> Pattern:
    """``bcast_concurrent_binary.c``: Open MPI's level-order binary tree, both children at once."""
    return _pattern(p, _generic_bcast_arrays(
        p, count * elem_bytes, root, _children_csr(p, lambda v: level_order_binary_children(v, p))))


@nothing_to_send
def reduce_chain(p: int, count: int, *, elem_bytes: int, root: int = 0, commutative: bool = True,
                 params=None, **context) -> Pattern:
    """``reduce_chain.c``: the chains end at the root, which has their heads' receives in flight."""
    return _pattern(p, _generic_reduce_arrays(
        p, count * elem_bytes, root, _children_csr(p, _chain_children(p, "reduce", _params(params)))))


@nothing_to_send
def reduce_overlapped_binomial(p: int, count: int, *, elem_bytes: int, root: int = 0,
                               commutative: bool = True, **context) -> Pattern:
    """``reduce_overlapped_binomial.c``: in-order binomial tree, two receives in flight."""
    return _pattern(p, _generic_reduce_arrays(
        p, count * elem_bytes, root, _children_csr(p, lambda v: in_order_binomial_children(v, p))))


@nothing_to_send
def reduce_overlapped_binary(p: int, count: int, *, elem_bytes: int, root: int = 0,
                             commutative: bool = True, **context) -> Pattern:
    """``reduce_overlapped_binary.c``: level-order binary tree, both receives in flight."""
    return _pattern(p, _generic_reduce_arrays(
        p, count * elem_bytes, root, _children_csr(p, lambda v: level_order_binary_children(v, p))))


# --- linear reduce (reduce_linear.c) and the allreduces built of two halves ---------------

def _linear_reduce_arrays(p: int, n_bytes: int, root: int) -> _Programs:
    """collsim_reduce_linear: every rank sends to the root, which receives them in
    rank order, one at a time, combining each (its own vector too, at its turn)."""
    rank = np.arange(p, dtype=np.int64)
    others = rank[rank != root]
    n_tasks_of = np.ones(p, dtype=np.int64)
    n_tasks_of[root] = p - 1
    # rank 0's vector (root != 0) is received into the accumulator, not combined; the
    # root's own is combined at its turn, after the previous receive's combination
    at_root = np.where(others > 0, n_bytes, 0)
    if root:
        at_root[root - 1] += n_bytes
    compute = np.concatenate([np.zeros(root, dtype=np.int64), at_root,
                              np.zeros(p - 1 - root, dtype=np.int64)])
    index = np.arange(p - 1, dtype=np.int64)
    return _ops(p, n_tasks_of, compute, np.concatenate([others, np.full(p - 1, root)]),
                np.concatenate([np.zeros(p - 1, dtype=np.int64), index]),
                np.concatenate([np.zeros(p - 1, dtype=np.int64), index]),
                np.concatenate([np.full(p - 1, _SEND), np.full(p - 1, _RECV)]),
                np.concatenate([np.full(p - 1, root), others]), n_bytes)


def _one_after_other(p: int, first: _Programs, then: _Programs) -> _Programs:
    """Each rank runs its program of ``first``, then its program of ``then``."""
    n_tasks_of = first.n_tasks_of + then.n_tasks_of
    starts = np.concatenate([[0], np.cumsum(n_tasks_of)[:-1]])
    compute = np.zeros(int(n_tasks_of.sum()), dtype=np.int64)
    for part, offset in ((first, starts), (then, starts + first.n_tasks_of)):
        task_rank = np.repeat(np.arange(p), part.n_tasks_of)
        local = np.arange(len(task_rank)) - np.repeat(
            np.concatenate([[0], np.cumsum(part.n_tasks_of)[:-1]]), part.n_tasks_of)
        compute[offset[task_rank] + local] = part.compute
    return _ops(p, n_tasks_of, compute, np.concatenate([first.rank, then.rank]),
                np.arange(len(first.rank) + len(then.rank)),
                np.concatenate([first.task, then.task + first.n_tasks_of[then.rank]]),
                np.concatenate([first.kind, then.kind]), np.concatenate([first.peer, then.peer]),
                np.concatenate([first.n_bytes, then.n_bytes]))


@nothing_to_send
def reduce_linear(p: int, count: int, *, elem_bytes: int, root: int = 0,
                  commutative: bool = True, **context) -> Pattern:
    """``reduce_linear.c``: p - 1 blocking receives at the root, in rank order."""
    return _pattern(p, _linear_reduce_arrays(p, count * elem_bytes, root))


@nothing_to_send
def allreduce_linear(p: int, count: int, *, elem_bytes: int, root: int = 0,
                     commutative: bool = True, **context) -> Pattern:
    """``allreduce_linear.c``: the linear reduce to rank 0, then the linear bcast from it."""
    n_bytes = count * elem_bytes
    return _pattern(p, _one_after_other(p, _linear_reduce_arrays(p, n_bytes, 0),
                                        _generic_bcast_arrays(p, n_bytes, 0, _linear_csr(p))))


@nothing_to_send
def allreduce_reduce_bcast(p: int, count: int, *, elem_bytes: int, root: int = 0,
                           commutative: bool = True, **context) -> Pattern:
    """``allreduce_reduce_bcast.c``: the binomial reduce to rank 0 (rank order kept
    there, any op), then the binomial bcast from it."""
    up = rounds.reduce_binomial(p, count, elem_bytes=elem_bytes, root=0, commutative=True)
    down = rounds.bcast_binomial(p, count, elem_bytes=elem_bytes, root=0)
    return Pattern(p, up.steps + down.steps)


# --- the pipelined tree engine (pipeline.c) and the dual-root allreduce -------------------
# The engine's programs (models._pipelined.engine_reduce, engine_bcast) written as op
# arrays over ranks and blocks: each rank's tasks sit in fixed slots, a slot holding a
# task on the ranks where the program has one; an op's place in its program is its
# slot, then its place in the task.  tests/test_network_patterns_trees.py holds them to
# the models' programs, message for message.

class _Slots:
    """Ops gathered slot by slot: ``add(where, slot, kind, peer, n_bytes, compute)``
    puts one op in slot ``slot`` (a task there) of the ranks where ``where`` holds;
    ``peer`` is per rank or one number, ``compute`` the task's reduction bytes.
    :meth:`programs` numbers each rank's occupied slots as its tasks, in slot
    order, and a task's ops in the order they were added."""

    def __init__(self, p: int, n_slots: int) -> None:
        self.p, self.n_slots = p, n_slots
        self.columns: list[tuple] = []

    def add(self, where, slot: int, kind: int, peer, n_bytes: int, compute: int = 0) -> None:
        ranks = np.flatnonzero(where)
        peer = peer[ranks] if np.ndim(peer) else np.full(len(ranks), peer, dtype=np.int64)
        self.columns.append((ranks, slot, kind, peer, n_bytes, compute))

    def programs(self) -> _Programs:
        def column(i):
            return np.concatenate([np.broadcast_to(np.asarray(c[i], dtype=np.int64), c[0].shape)
                                   for c in self.columns])

        rank, slot, kind, peer, n_bytes, compute = (column(i) for i in range(6))
        part = np.repeat(np.arange(len(self.columns)), [len(c[0]) for c in self.columns])
        key = rank * self.n_slots + slot
        tasks, task_of = np.unique(key, return_inverse=True)
        task_of = task_of.reshape(-1)
        n_tasks_of = np.bincount(tasks // self.n_slots, minlength=self.p)
        first = np.concatenate([[0], np.cumsum(n_tasks_of)[:-1]])
        task_compute = np.zeros(len(tasks), dtype=np.int64)
        reducing = compute > 0
        task_compute[task_of[reducing]] = compute[reducing]
        return _ops(self.p, n_tasks_of, task_compute, rank, key * len(self.columns) + part,
                    task_of - first[rank], kind, peer, n_bytes)


def _engine_bcast(slots: _Slots, offset: int, parent, kids, blocks) -> None:
    """collsim_tree_bcast_pipelined's ops (``models._pipelined.engine_bcast``) in slots
    ``offset + 2 s`` (receive block s, send block s - 1 to child 0) and
    ``offset + 2 s + 1`` (block s - 1 to child 1), s = 0 .. len(blocks)."""
    n = len(blocks)
    has_parent, n_kids = parent >= 0, (kids >= 0).sum(axis=1)
    if not n:
        return
    for s in range(n + 1):
        if s < n:
            slots.add(has_parent, offset + 2 * s, _RECV, parent, blocks[s])
        if s > 0:
            slots.add(n_kids > 0, offset + 2 * s, _ISEND, kids[:, 0], blocks[s - 1])
            slots.add(n_kids > 1, offset + 2 * s + 1, _SEND, kids[:, 1], blocks[s - 1])


def _engine_reduce(slots: _Slots, parent, kids, blocks) -> None:
    """collsim_tree_reduce_pipelined's ops (``models._pipelined.engine_reduce``) in
    slots ``3 s + j`` (receive block s from child j, with block s - 1 to the parent
    at j = 0), ``3 s + 2`` (a leaf's block s to the parent) and ``3 len(blocks)``
    (the last block to the parent)."""
    n = len(blocks)
    has_parent, n_kids = parent >= 0, (kids >= 0).sum(axis=1)
    for s in range(n):
        for j in range(2):
            slots.add(n_kids > j, 3 * s + j, _RECV, kids[:, j], blocks[s], blocks[s])
            if j == 0 and s > 0:
                slots.add(has_parent & (n_kids > 0), 3 * s, _ISEND, parent, blocks[s - 1])
        slots.add(has_parent & (n_kids == 0), 3 * s + 2, _SEND, parent, blocks[s])
    if n:
        slots.add(has_parent & (n_kids > 0), 3 * n, _SEND, parent, blocks[-1])


def _reduce_along(kind: str, p: int, count: int, *, elem_bytes: int, root: int,
                  params, segmented: bool) -> _Programs:
    """``models._pipelined.reduce_tree_programs`` as arrays (slots of
    :func:`_engine_reduce`, then the in-order root's result to ``root``)."""
    nodes, blocks = _pipelined.tree_and_blocks(kind, p, count, elem_bytes=elem_bytes, root=root,
                                                params=params, segmented=segmented)
    parent, kids = pipetrees.tree_arrays(nodes)
    slots = _Slots(p, 3 * len(blocks) + 2)
    _engine_reduce(slots, parent, kids, blocks)
    tree_root = _pipelined.in_order_root(p) if kind == "in_order_binary" else root
    if tree_root != root:
        rank = np.arange(p)
        slots.add(rank == tree_root, 3 * len(blocks) + 1, _SEND, root, count * elem_bytes)
        slots.add(rank == root, 3 * len(blocks) + 1, _RECV, tree_root, count * elem_bytes)
    return slots.programs()


def _bcast_along(kind: str, p: int, count: int, *, elem_bytes: int, root: int,
                 params, segmented: bool) -> _Programs:
    """``models._pipelined.bcast_tree_programs`` as arrays (:func:`_engine_bcast`)."""
    nodes, blocks = _pipelined.tree_and_blocks(kind, p, count, elem_bytes=elem_bytes, root=root,
                                                params=params, segmented=segmented)
    parent, kids = pipetrees.tree_arrays(nodes)
    slots = _Slots(p, 2 * len(blocks) + 2)
    _engine_bcast(slots, 0, parent, kids, blocks)
    return slots.programs()


def _allreduce_in_order_arrays(p: int, count: int, *, elem_bytes: int, params,
                               segmented: bool) -> _Programs:
    """``models._pipelined.allreduce_in_order_tree_programs`` as arrays: each rank's
    reduce slots, then its bcast slots."""
    nodes, blocks = _pipelined.in_order_tree_and_blocks(p, count, elem_bytes=elem_bytes,
                                                        params=params, segmented=segmented)
    parent, kids = pipetrees.tree_arrays(nodes)
    n = len(blocks)
    slots = _Slots(p, 3 * n + 1 + 2 * n + 2)
    _engine_reduce(slots, parent, kids, blocks)
    _engine_bcast(slots, 3 * n + 1, parent, kids, blocks)
    return slots.programs()


def _height(kind: str, p: int, root: int) -> int:
    """The height ``tree(kind, size=p, root=root)[0]`` has (its node alone)."""
    return tree_node(kind, rank=0, size=p, root=root).height


def _stepwise(p: int, steps, whole) -> Pattern:
    """``steps`` (:class:`..programs.ProgramSteps`) as a windowed pattern above
    :data:`.pipetrees.PROGRAM_STEP_MESSAGES` messages, else ``whole()`` (the same
    steps held at once, for composites and the steps run together)."""
    if steps.messages > pipetrees.PROGRAM_STEP_MESSAGES:
        return Pattern(p, (steps,), windowed=True)
    return whole()


def _along_tree(collective: str, kind: str, segmented: bool = True):
    along = _reduce_along if collective == "reduce" else _bcast_along

    @nothing_to_send
    def build(p: int, count: int, *, elem_bytes: int, root: int = 0, commutative: bool = True,
              params=None, **context) -> Pattern:
        params = _params(params)
        blocks = _pipelined.tree_blocks(kind, _height(kind, p, root), count,
                                        elem_bytes=elem_bytes, params=params, segmented=segmented)
        steps = pipetrees.engine_steps(p, kind, root, blocks, (collective,),
                                       root if kind == "in_order_binary" else None,
                                       count * elem_bytes)
        return _stepwise(p, steps, lambda: _pattern(p, along(
            kind, p, count, elem_bytes=elem_bytes, root=root, params=params,
            segmented=segmented)))

    build.__name__ = f"{collective}_{kind}"
    build.__doc__ = (f"``pipeline.c``'s {collective} along the {kind} tree, the blocks of "
                     f"``segment.c`` (``models._pipelined.{collective}_tree_programs``).")
    return build


def _chain_pipeline(collective: str):
    """``pipeline.c``'s bcast or reduce along the chain: the explicit steps up to
    :data:`chain.CHAIN_STEP_MESSAGES` messages (run together up to
    :data:`chain.CHAIN_TOGETHER_MESSAGES`), above one :class:`chain.ChainSteps`
    (its hops root, root + 1, ... as ``tree("chain")`` orders them; a reduce's data
    goes the other way, into the root)."""
    explicit = _along_tree(collective, "chain")

    @nothing_to_send
    def build(p: int, count: int, *, elem_bytes: int, root: int = 0, commutative: bool = True,
              params=None, **context) -> Pattern:
        blocks = _pipelined.plan_bytes(count, elem_bytes, _params(params), segmented=True,
                                       fill_steps=_pipelined.steady_steps("chain") * (p - 1),
                                       steady=_pipelined.steady_steps("chain"))
        if (p - 1) * len(blocks) <= CHAIN_STEP_MESSAGES:
            pattern = explicit(p, count, elem_bytes=elem_bytes, root=root,
                               commutative=commutative, params=params, **context)
            if pattern.messages <= CHAIN_TOGETHER_MESSAGES:   # its hops run at once
                return replace(pattern, together=True)
            return pattern
        order = (root + np.arange(p, dtype=np.int64)) % p
        if collective == "reduce":
            order = order[::-1]
        return Pattern(p, (ChainSteps(order[:-1], order[1:], np.full(p - 1, max(blocks)),
                                      block_bytes=blocks, combine=collective == "reduce"),))

    build.__name__, build.__doc__ = explicit.__name__, explicit.__doc__
    return build


def _allreduce_in_order(segmented: bool):
    @nothing_to_send
    def build(p: int, count: int, *, elem_bytes: int, root: int = 0, commutative: bool = True,
              params=None, **context) -> Pattern:
        params = _params(params)
        blocks = _pipelined.in_order_blocks(_height("in_order_binary", p, 0), count,
                                            elem_bytes=elem_bytes, params=params,
                                            segmented=segmented)
        steps = pipetrees.engine_steps(p, "in_order_binary", 0, blocks, ("reduce", "bcast"))
        return _stepwise(p, steps, lambda: _pattern(p, _allreduce_in_order_arrays(
            p, count, elem_bytes=elem_bytes, params=params, segmented=segmented)))

    build.__name__ = "allreduce_pipelined_tree" if segmented else "allreduce_binary_tree"
    build.__doc__ = ("``pipeline.c``'s reduce up the in-order binary tree, then its bcast down, "
                     + ("in blocks" if segmented else "one block")
                     + " (``models._pipelined.allreduce_in_order_tree_programs``).")
    return build


@nothing_to_send
def allreduce_dual_root_pipelined(p: int, count: int, *, elem_bytes: int, root: int = 0,
                                  commutative: bool = True, params=None, **context) -> Pattern:
    """``allreduce_dual_root_pipelined.c``: rounds of bidirectional MPI_Sendrecv with
    each child and the parent (``models._pipelined.dual_root_programs``)."""
    params = _params(params)
    steps = pipetrees.dual_root_steps(p, count, elem_bytes=elem_bytes, params=params)
    return _stepwise(p, steps, lambda: programs_pattern(_pipelined.dual_root_programs(
        p, count, elem_bytes=elem_bytes, params=params)))


PATTERNS = {
    ("bcast", "linear"): bcast_linear,
    ("bcast", "chain"): bcast_chain,
    ("bcast", "pipeline"): _chain_pipeline("bcast"),
    ("bcast", "binary"): _along_tree("bcast", "binary"),
    ("bcast", "concurrent_binomial"): bcast_concurrent_binomial,
    ("bcast", "concurrent_knomial"): bcast_concurrent_knomial,
    ("bcast", "concurrent_binary"): bcast_concurrent_binary,
    ("reduce", "linear"): reduce_linear,
    ("reduce", "chain"): reduce_chain,
    ("reduce", "pipeline"): _chain_pipeline("reduce"),
    ("reduce", "binary"): _along_tree("reduce", "binary"),
    ("reduce", "in_order_binary"): _along_tree("reduce", "in_order_binary"),
    ("reduce", "overlapped_binomial"): reduce_overlapped_binomial,
    ("reduce", "overlapped_binary"): reduce_overlapped_binary,
    ("allreduce", "linear"): allreduce_linear,
    ("allreduce", "reduce_bcast"): allreduce_reduce_bcast,
    ("allreduce", "binary_tree"): _allreduce_in_order(segmented=False),
    ("allreduce", "pipelined_tree"): _allreduce_in_order(segmented=True),
    ("allreduce", "dual_root_pipelined"): allreduce_dual_root_pipelined,
}
