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

The pipelined engines' programs are the models' own
(:mod:`collsim.analysis.models._pipelined`: the same trees, block plans and
order of operations), so the pattern and the model cannot drift apart.
Block counts come from ``params`` as the C code takes them (``--blocks``,
``--segment-bytes``, else the pipelining lemma with the run's
``alpha_over_beta_bytes``).
"""

from __future__ import annotations

import numpy as np

from collsim.analysis.models import _pipelined
from collsim.analysis.models._lookup import parameter_default
from collsim.analysis.models.bcast import (binomial_children, knomial_children,
                                           level_order_binary_children)
from collsim.analysis.models.reduce import in_order_binomial_children
from collsim.analysis.schedule import Op, Step as Task, recv, send
from collsim.params import DEFAULT_PARAMS

from ..pattern import Pattern, Step
from . import rounds
from ._common import nothing_to_send

__all__ = ["PATTERNS", "programs_pattern", "post"]


def post(peer: int, n_bytes: int) -> Op:
    """An ``MPI_Irecv`` from peer posted in this task and waited for in a later one
    (by the first later ``recv`` from peer)."""
    return Op("post", peer, n_bytes)


def _matched_messages(programs: list[list[Task]], first_task: np.ndarray) -> list[tuple]:
    """Each send matched with its receive: (src, src task, dst, dst task, bytes, ahead),
    tasks numbered over all ranks (``first_task``); ``ahead``: the tasks the receive
    was posted before its wait."""
    sends: dict[tuple[int, int], list[tuple[int, int]]] = {}
    receives: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for rank, program in enumerate(programs):
        posted: dict[int, list[int]] = {}
        for index, task in enumerate(program):
            if not any(op.kind in ("send", "recv") for op in task.ops):
                raise ValueError(f"rank {rank} task {index} waits for no message")
            for op in task.ops:
                if op.kind == "post":
                    posted.setdefault(op.peer, []).append(index)
                elif op.kind == "send":
                    sends.setdefault((rank, op.peer), []).append((index, op.n_bytes))
                else:
                    early = posted.get(op.peer)
                    ahead = index - early.pop(0) if early else 0
                    receives.setdefault((op.peer, rank), []).append((index, op.n_bytes, ahead))
    messages = []
    for (src, dst), out in sends.items():
        into = receives.get((src, dst), [])
        if len(into) != len(out):
            raise ValueError(f"{len(out)} sends but {len(into)} receives from {src} to {dst}")
        for (s_task, s_bytes), (r_task, r_bytes, ahead) in zip(out, into):
            if s_bytes != r_bytes:
                raise ValueError(f"message {src} -> {dst} of {s_bytes} bytes received as {r_bytes}")
            messages.append((src, first_task[src] + s_task, dst, first_task[dst] + r_task,
                             s_bytes, ahead))
    if sum(len(into) for into in receives.values()) != len(messages):
        raise ValueError("a receive has no matching send")
    return messages


def programs_pattern(programs: list[list[Task]]) -> Pattern:
    """The pattern of per-rank programs (:class:`collsim.analysis.schedule.Step`
    lists: the operations a rank posts together and waits for, then its
    reduction; ``post`` ops for receives posted ahead).

    Raises
    ------
    ValueError
        If a send has no matching receive or the sizes differ, a task waits
        for nothing, two tasks of one rank would share a step, or the
        programs deadlock.
    """
    p = len(programs)
    first_task = np.cumsum([0] + [len(program) for program in programs])
    n_tasks = int(first_task[-1])
    messages = _matched_messages(programs, first_task)
    # the tasks one message links must run in one step: union them
    group = list(range(n_tasks))

    def find(task: int) -> int:
        while group[task] != task:
            group[task] = group[group[task]]
            task = group[task]
        return task

    for _, a, _, b, _, _ in messages:
        ra, rb = find(a), find(b)
        if ra != rb:
            group[max(ra, rb)] = min(ra, rb)
    task_rank = np.repeat(np.arange(p), np.diff(first_task))
    members: dict[int, list[int]] = {}
    for task in range(n_tasks):
        members.setdefault(find(task), []).append(task)
    # number the groups: a group's step is after every member's previous task
    step_of = np.full(n_tasks, -1, dtype=np.int64)
    waiting = {g: len(tasks) for g, tasks in members.items()}
    ready = [find(int(first_task[r])) for r in range(p) if first_task[r] < first_task[r + 1]]
    for g in ready:
        waiting[g] -= 1
    ready = [g for g in dict.fromkeys(ready) if waiting[g] == 0]
    while ready:
        following = []
        for g in ready:
            tasks = members[g]
            if len(set(task_rank[tasks].tolist())) != len(tasks):
                raise ValueError(f"two tasks of one rank are linked into one step (tasks {tasks})")
            before = [step_of[t - 1] for t in tasks if t > first_task[task_rank[t]]]
            step_of[tasks] = max(before, default=-1) + 1
            for t in tasks:
                if t + 1 < first_task[task_rank[t] + 1]:
                    nxt = find(t + 1)
                    waiting[nxt] -= 1
                    if waiting[nxt] == 0:
                        following.append(nxt)
        ready = following
    if np.any(step_of < 0):
        stuck = sorted(set(task_rank[step_of < 0].tolist()))
        raise ValueError(f"the programs deadlock (ranks {stuck[:8]} cannot progress)")
    src, s_task, dst, d_task, n_bytes, ahead = (np.array(column, dtype=np.int64).reshape(-1)
                                               for column in zip(*messages))
    compute = np.array([task.compute_bytes for program in programs for task in program],
                       dtype=np.int64)
    n_steps = int(step_of.max()) + 1
    by_step = np.argsort(step_of[s_task], kind="stable")
    cuts = np.searchsorted(step_of[s_task][by_step], np.arange(n_steps + 1))
    reducing = np.flatnonzero(compute)
    by_reduce = reducing[np.argsort(step_of[reducing], kind="stable")]
    reduce_cuts = np.searchsorted(step_of[by_reduce], np.arange(n_steps + 1))
    steps = []
    for k in range(n_steps):
        chosen = by_step[cuts[k]:cuts[k + 1]]
        reducers = by_reduce[reduce_cuts[k]:reduce_cuts[k + 1]]
        steps.append(Step(src[chosen], dst[chosen], n_bytes[chosen], task_rank[reducers],
                          compute[reducers], post_ahead=ahead[chosen] if ahead.any() else ()))
    # thousands of short steps for a pipeline: simulated together, in windows when many
    return Pattern(p, tuple(steps), windowed=True)


def _params(params):
    return DEFAULT_PARAMS if params is None else params


# --- Open MPI's generic trees, one segment (common/generic_tree.c) -----------------------

def _generic_bcast_programs(p: int, n_bytes: int, root: int, children) -> list[list[Task]]:
    """collsim_generic_tree_bcast: receive from the parent, then one MPI_Isend per
    child and a Waitall.  ``children(v)``: relative ranks."""
    kids_of = [[(c + root) % p for c in children(v)] for v in range(p)]
    parent_of = {}
    for v in range(p):
        for child in kids_of[v]:
            parent_of[child] = (v + root) % p
    programs: list[list[Task]] = []
    for rank in range(p):
        kids = kids_of[(rank - root) % p]
        program = [Task((recv(parent_of[rank], n_bytes),))] if rank != root else []
        if kids:
            program.append(Task(tuple(send(child, n_bytes) for child in kids)))
        programs.append(program)
    return programs


def _generic_reduce_programs(p: int, n_bytes: int, root: int, children) -> list[list[Task]]:
    """collsim_generic_tree_reduce: receive child 0 and post child 1; each wait
    is followed by a combination and the post of the child after the next;
    then send to the parent.  ``children(v)``: relative ranks."""
    kids_of = [[(c + root) % p for c in children(v)] for v in range(p)]
    parent_of = {}
    for v in range(p):
        for child in kids_of[v]:
            parent_of[child] = (v + root) % p
    programs: list[list[Task]] = []
    for rank in range(p):
        kids = kids_of[(rank - root) % p]
        program = []
        for i, child in enumerate(kids):
            # two receives in flight: child i + 1's is posted before child i is waited for
            ahead = (post(kids[i + 1], n_bytes),) if i + 1 < len(kids) else ()
            program.append(Task(ahead + (recv(child, n_bytes),), compute_bytes=n_bytes))
        if rank != root:
            program.append(Task((send(parent_of[rank], n_bytes),)))
        programs.append(program)
    return programs


def _chain_fanout(collective: str, params) -> int:
    return params.chain_fanout or parameter_default(collective, "chain", "chain_fanout")


def _chain_children(p: int, collective: str, params):
    return _pipelined.chain_children(p, _chain_fanout(collective, params))


@nothing_to_send
def bcast_linear(p: int, count: int, *, elem_bytes: int, root: int = 0,
                 commutative: bool = True, **context) -> Pattern:
    """``bcast_linear.c``: the root's p - 1 MPI_Isend at once, one MPI_Waitall."""
    return programs_pattern(_generic_bcast_programs(
        p, count * elem_bytes, root, lambda v: list(range(1, p)) if v == 0 else []))


@nothing_to_send
def bcast_chain(p: int, count: int, *, elem_bytes: int, root: int = 0, commutative: bool = True,
                params=None, **context) -> Pattern:
    """``bcast_chain.c``: the root sends to the chains' heads at once, each rank passes on."""
    return programs_pattern(_generic_bcast_programs(
        p, count * elem_bytes, root, _chain_children(p, "bcast", _params(params))))


@nothing_to_send
def bcast_concurrent_binomial(p: int, count: int, *, elem_bytes: int, root: int = 0,
                              commutative: bool = True, **context) -> Pattern:
    """``bcast_concurrent_binomial.c``: Open MPI's binomial tree, all children at once."""
    return programs_pattern(_generic_bcast_programs(p, count * elem_bytes, root,
                                                    lambda v: binomial_children(v, p)))


@nothing_to_send
def bcast_concurrent_knomial(p: int, count: int, *, elem_bytes: int, root: int = 0,
                             commutative: bool = True, **context) -> Pattern:
    """``bcast_concurrent_knomial.c``: Open MPI's radix-4 tree, all children at once."""
    return programs_pattern(_generic_bcast_programs(p, count * elem_bytes, root,
                                                    lambda v: knomial_children(v, p)))


@nothing_to_send
def bcast_concurrent_binary(p: int, count: int, *, elem_bytes: int, root: int = 0,
                            commutative: bool = True, **context) -> Pattern:
    """``bcast_concurrent_binary.c``: Open MPI's level-order binary tree, both children at once."""
    return programs_pattern(_generic_bcast_programs(p, count * elem_bytes, root,
                                                    lambda v: level_order_binary_children(v, p)))


@nothing_to_send
def reduce_chain(p: int, count: int, *, elem_bytes: int, root: int = 0, commutative: bool = True,
                 params=None, **context) -> Pattern:
    """``reduce_chain.c``: the chains end at the root, which has their heads' receives in flight."""
    return programs_pattern(_generic_reduce_programs(
        p, count * elem_bytes, root, _chain_children(p, "reduce", _params(params))))


@nothing_to_send
def reduce_overlapped_binomial(p: int, count: int, *, elem_bytes: int, root: int = 0,
                               commutative: bool = True, **context) -> Pattern:
    """``reduce_overlapped_binomial.c``: in-order binomial tree, two receives in flight."""
    return programs_pattern(_generic_reduce_programs(p, count * elem_bytes, root,
                                                     lambda v: in_order_binomial_children(v, p)))


@nothing_to_send
def reduce_overlapped_binary(p: int, count: int, *, elem_bytes: int, root: int = 0,
                             commutative: bool = True, **context) -> Pattern:
    """``reduce_overlapped_binary.c``: level-order binary tree, both receives in flight."""
    return programs_pattern(_generic_reduce_programs(p, count * elem_bytes, root,
                                                     lambda v: level_order_binary_children(v, p)))


# --- linear reduce (reduce_linear.c) and the allreduces built of two halves ---------------

def _linear_reduce_programs(p: int, n_bytes: int, root: int) -> list[list[Task]]:
    """collsim_reduce_linear: every rank sends to the root, which receives them in
    rank order, one at a time, combining each (its own vector too, at its turn)."""
    programs: list[list[Task]] = [[Task((send(root, n_bytes),))] for _ in range(p)]
    tasks: list[Task] = []
    for src in range(p):
        if src == root:
            if src:   # combined at its turn: after the previous receive's combination
                last = tasks[-1]
                tasks[-1] = Task(last.ops, last.compute_bytes + n_bytes)
            continue
        # rank 0's vector (root != 0) is received into the accumulator, not combined
        tasks.append(Task((recv(src, n_bytes),), compute_bytes=n_bytes if src else 0))
    programs[root] = tasks
    return programs


@nothing_to_send
def reduce_linear(p: int, count: int, *, elem_bytes: int, root: int = 0,
                  commutative: bool = True, **context) -> Pattern:
    """``reduce_linear.c``: p - 1 blocking receives at the root, in rank order."""
    return programs_pattern(_linear_reduce_programs(p, count * elem_bytes, root))


@nothing_to_send
def allreduce_linear(p: int, count: int, *, elem_bytes: int, root: int = 0,
                     commutative: bool = True, **context) -> Pattern:
    """``allreduce_linear.c``: the linear reduce to rank 0, then the linear bcast from it."""
    n_bytes = count * elem_bytes
    up = _linear_reduce_programs(p, n_bytes, 0)
    down = _generic_bcast_programs(p, n_bytes, 0, lambda v: list(range(1, p)) if v == 0 else [])
    return programs_pattern([a + b for a, b in zip(up, down)])


@nothing_to_send
def allreduce_reduce_bcast(p: int, count: int, *, elem_bytes: int, root: int = 0,
                           commutative: bool = True, **context) -> Pattern:
    """``allreduce_reduce_bcast.c``: the binomial reduce to rank 0 (rank order kept
    there, any op), then the binomial bcast from it."""
    up = rounds.reduce_binomial(p, count, elem_bytes=elem_bytes, root=0, commutative=True)
    down = rounds.bcast_binomial(p, count, elem_bytes=elem_bytes, root=0)
    return Pattern(p, up.steps + down.steps)


# --- the pipelined tree engine (pipeline.c) and the dual-root allreduce -------------------

def _segment_pattern(build):
    """A builder of the models' programs (``models._pipelined``) as a pattern builder."""
    @nothing_to_send
    def wrapped(p: int, count: int, *, elem_bytes: int, root: int = 0, commutative: bool = True,
                params=None, **context) -> Pattern:
        return programs_pattern(build(p, count, elem_bytes=elem_bytes, root=root,
                                      params=_params(params)))

    wrapped.__name__, wrapped.__doc__ = build.__name__, build.__doc__
    return wrapped


def _along_tree(collective: str, kind: str, segmented: bool = True):
    programs = (_pipelined.reduce_tree_programs if collective == "reduce"
                else _pipelined.bcast_tree_programs)

    def build(p, count, *, elem_bytes, root, params):
        return programs(kind, p, count, elem_bytes=elem_bytes, root=root, params=params,
                        segmented=segmented)

    build.__name__ = f"{collective}_{kind}"
    build.__doc__ = (f"``pipeline.c``'s {collective} along the {kind} tree, the blocks of "
                     f"``segment.c`` (``models._pipelined.{programs.__name__}``).")
    return _segment_pattern(build)


def _allreduce_in_order(segmented: bool):
    def build(p, count, *, elem_bytes, root, params):
        return _pipelined.allreduce_in_order_tree_programs(p, count, elem_bytes=elem_bytes,
                                                           params=params, segmented=segmented)

    build.__name__ = "allreduce_pipelined_tree" if segmented else "allreduce_binary_tree"
    build.__doc__ = ("``pipeline.c``'s reduce up the in-order binary tree, then its bcast down, "
                     + ("in blocks" if segmented else "one block")
                     + " (``models._pipelined.allreduce_in_order_tree_programs``).")
    return _segment_pattern(build)


def _dual_root(p, count, *, elem_bytes, root, params):
    """``allreduce_dual_root_pipelined.c``: rounds of bidirectional MPI_Sendrecv with
    each child and the parent (``models._pipelined.dual_root_programs``)."""
    return _pipelined.dual_root_programs(p, count, elem_bytes=elem_bytes, params=params)


PATTERNS = {
    ("bcast", "linear"): bcast_linear,
    ("bcast", "chain"): bcast_chain,
    ("bcast", "pipeline"): _along_tree("bcast", "chain"),
    ("bcast", "binary"): _along_tree("bcast", "binary"),
    ("bcast", "concurrent_binomial"): bcast_concurrent_binomial,
    ("bcast", "concurrent_knomial"): bcast_concurrent_knomial,
    ("bcast", "concurrent_binary"): bcast_concurrent_binary,
    ("reduce", "linear"): reduce_linear,
    ("reduce", "chain"): reduce_chain,
    ("reduce", "pipeline"): _along_tree("reduce", "chain"),
    ("reduce", "binary"): _along_tree("reduce", "binary"),
    ("reduce", "in_order_binary"): _along_tree("reduce", "in_order_binary"),
    ("reduce", "overlapped_binomial"): reduce_overlapped_binomial,
    ("reduce", "overlapped_binary"): reduce_overlapped_binary,
    ("allreduce", "linear"): allreduce_linear,
    ("allreduce", "reduce_bcast"): allreduce_reduce_bcast,
    ("allreduce", "binary_tree"): _allreduce_in_order(segmented=False),
    ("allreduce", "pipelined_tree"): _allreduce_in_order(segmented=True),
    ("allreduce", "dual_root_pipelined"): _segment_pattern(_dual_root),
}
