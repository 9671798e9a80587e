"""The compiled loop of :mod:`collsim.analysis.network.programs` (numba, loaded on first
use, as :mod:`collsim.analysis.network.kernels`, whose notes on the cache apply)."""

from __future__ import annotations

import numba
import numpy as np

# numba's cache records the module's import name (kernels.py says why).
_CACHE = __name__ == "collsim.analysis.network.program_kernels"

__all__ = ["next_step", "room"]

_RECV = 1


@numba.njit(cache=_CACHE, nogil=True)
def _match(q, r, kind, tq, task_op_first, op_kind, op_role, peers):
    """The op of rank q's task ``tq`` that answers an op of ``kind`` from rank r
    (a receive for a send, a send for a receive), -1 when there is none."""
    for o in range(task_op_first[tq], task_op_first[tq + 1]):
        if peers[q, op_role[o]] == r and (op_kind[o] == _RECV) != (kind == _RECV):
            return o
    return -1


@numba.njit(cache=_CACHE, nogil=True)
def _current(r, cls, cur, cls_task_first):
    """Rank r's current task (global template index), -1 when its program is done."""
    t = cls_task_first[cls[r]] + cur[r]
    return t if t < cls_task_first[cls[r] + 1] else -1


@numba.njit(cache=_CACHE, nogil=True)
def _local_states(cls, peers, cur, cls_task_first, task_op_first, op_kind, op_role, state,
                  task, answer):
    """state[r]: 0 done, 1 every op of r's current task answered by its peer's current
    task, 2 not; ``task[r]`` that task (-1: done) and ``answer[r]`` the peer's op that
    answers its send (-1: none found); returns how many ranks are not done."""
    active = 0
    for r in range(len(cls)):
        t = _current(r, cls, cur, cls_task_first)
        task[r] = t
        answer[r] = -1
        if t < 0:
            state[r] = 0
            continue
        active += 1
        state[r] = 1
        for o in range(task_op_first[t], task_op_first[t + 1]):
            q = peers[r, op_role[o]]
            tq = _current(q, cls, cur, cls_task_first)
            o2 = -1 if tq < 0 else _match(q, r, op_kind[o], tq, task_op_first, op_kind,
                                          op_role, peers)
            if o2 < 0:
                state[r] = 2
                break
            if op_kind[o] != _RECV:
                answer[r] = o2
    return active


@numba.njit(cache=_CACHE, nogil=True)
def _spread_waiting(cls, peers, cur, cls_task_first, task_op_first, op_kind, op_role, state,
                    stack):
    """A task linked (its op answered) to a waiting task waits too: its union is not ready."""
    for start in range(len(cls)):
        if state[start] != 2:
            continue
        top = 0
        stack[top] = start
        top += 1
        while top:
            top -= 1
            x = stack[top]
            t = _current(x, cls, cur, cls_task_first)
            for o in range(task_op_first[t], task_op_first[t + 1]):
                q = peers[x, op_role[o]]
                if state[q] != 1:
                    continue
                if _match(q, x, op_kind[o], _current(q, cls, cur, cls_task_first),
                          task_op_first, op_kind, op_role, peers) >= 0:
                    state[q] = 2
                    stack[top] = q
                    top += 1


@numba.njit(cache=_CACHE, nogil=True)
def next_step(cls, peers, cur, cls_task_first, task_op_first, op_kind, op_role, op_bytes,
              op_early, task_compute, state, stack, out, task, answer):
    """The next step of per-rank programs given as templates: every union of tasks
    (tasks linked by their messages) whose members all stand at it runs now.

    ``cls[r]``: rank r's template, whose tasks are ``cls_task_first[c] ..
    cls_task_first[c + 1] - 1``, task t's ops ``task_op_first[t] ..``; an op's
    kind (0 ``MPI_Send``, 1 receive, 3 ``MPI_Isend``), role (its peer is
    ``peers[r, role]``), bytes and, for a receive, whether no send of its task
    comes before it (``op_early``); ``task_compute[t]`` the task's reduction
    bytes; ``cur[r]``: rank r's next task (advanced here).  A union runs at the
    first step after its members' previous tasks (the longest path of
    ``kernels.program_steps``), so step by step, each step the unions ready at
    its start.  The step's messages, sender by sender (one send per task), go to
    ``out[0:5, :n]`` (src, dst, bytes, nonblocking, receive first), its
    reductions to ``out[5:7, :k]`` (rank, bytes).  ``state``, ``stack``,
    ``task``, ``answer``: room (:func:`room`).

    Returns (n, k, code, rank): code 0, or 1 (the programs deadlock: no union
    ready, ranks left) or 2 (a message's sizes differ at ``rank``'s send).
    """
    active = _local_states(cls, peers, cur, cls_task_first, task_op_first, op_kind, op_role,
                           state, task, answer)
    if active == 0:
        return 0, 0, 0, -1
    _spread_waiting(cls, peers, cur, cls_task_first, task_op_first, op_kind, op_role, state,
                    stack)
    n = 0
    k = 0
    for r in range(len(cls)):
        if state[r] != 1:
            continue
        t = task[r]
        # the task's one send, answered by the peer's op found by _local_states
        for o in range(task_op_first[t], task_op_first[t + 1]):
            if op_kind[o] == _RECV:
                continue
            o2 = answer[r]
            if op_bytes[o2] != op_bytes[o]:
                return n, k, 2, r
            out[0, n] = r
            out[1, n] = peers[r, op_role[o]]
            out[2, n] = op_bytes[o]
            out[3, n] = 1 if op_kind[o] == 3 else 0
            out[4, n] = op_early[o2]
            n += 1
        if task_compute[t] > 0:
            out[5, k] = r
            out[6, k] = task_compute[t]
            k += 1
    if n == 0:
        return 0, 0, 1, -1
    for r in range(len(cls)):
        if state[r] == 1:
            cur[r] += 1
    return n, k, 0, -1


def room(p: int) -> tuple[np.ndarray, ...]:
    """Room for :func:`next_step` on p ranks: (state, stack, out, task, answer)."""
    return (np.zeros(p, dtype=np.int8), np.zeros(p, dtype=np.int64),
            np.zeros((7, p), dtype=np.int64), np.zeros(p, dtype=np.int64),
            np.zeros(p, dtype=np.int64))
