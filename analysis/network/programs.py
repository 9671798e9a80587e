"""Per-rank programs of few shapes, their steps made one at a time.

A pipelined tree's ranks run one of a handful of programs: the engine of
``pipeline.c`` at a rank depends on whether it has a parent and how many
children (and, for the dual-root allreduce, on its depth), its peers aside.
:class:`ProgramSteps` holds each shape once (a *template*: tasks of ops whose
peer is a *role*: the rank's parent, its first or second child, one more)
and each rank's shape and peers, p x 4 numbers, where the steps of
``patterns.trees.arrays_pattern`` hold every message (28 to 112 million at a
million ranks, about 10 GB with their intermediates).

Its steps are those of ``arrays_pattern`` on the same programs, message for
message and in the same order (``tests/test_network_programs.py``): a union
of tasks (tasks linked by their messages) runs at the first step after its
members' previous tasks, so the steps can be made in order, each the unions
ready at its start (``program_kernels.next_step``, a pass over the ranks);
the messages of a step sender by sender, as ``arrays_pattern`` orders them
when every task sends at most once.  The engine takes them window by window
(``engine.pattern_time``) and never holds them whole.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .pattern import _checked_steps

__all__ = ["ProgramSteps", "templates", "SEND", "RECV", "ISEND", "ROLES"]

SEND, RECV, ISEND = 0, 1, 3

#: Peers a template's ops name: the rank's parent, its children 0 and 1, one more.
ROLES = 4


@dataclass(frozen=True, eq=False)
class ProgramSteps:
    """The steps of p ranks' programs, each rank running template ``cls[r]`` with
    peers ``peers[r]`` (:func:`templates` makes them).

    ``cls_task_first``, ``task_op_first``: the templates' tasks and ops (CSR);
    ``op_kind`` (``SEND``, ``RECV``, ``ISEND``), ``op_role``, ``op_bytes``,
    ``op_early`` (a receive no send of its task comes before), ``task_compute``;
    ``nonblocking``, ``receive_first``: whether the steps carry those flags
    (``arrays_pattern`` leaves a flag out when no message has it);
    ``messages``: how many in all.
    """

    p: int
    cls: np.ndarray
    peers: np.ndarray
    cls_task_first: np.ndarray
    task_op_first: np.ndarray
    op_kind: np.ndarray
    op_role: np.ndarray
    op_bytes: np.ndarray
    op_early: np.ndarray
    task_compute: np.ndarray
    nonblocking: bool
    receive_first: bool
    messages: int
    repeat: int = 1
    lazy: bool = True

    def iter_parts(self):
        """The plain steps (:class:`collsim.analysis.network.pattern.Step`), one at a time.

        Raises
        ------
        ValueError
            If the programs deadlock or a message's sizes differ at its two ends.
        """
        from . import program_kernels

        cur = np.zeros(self.p, dtype=np.int64)
        state, stack, out, task, answer = program_kernels.room(self.p)
        args = (self.cls, self.peers, cur, self.cls_task_first, self.task_op_first, self.op_kind,
                self.op_role, self.op_bytes, self.op_early, self.task_compute, state, stack, out,
                task, answer)
        made = 0
        while made < self.messages:
            n, k, code, rank = program_kernels.next_step(*args)
            if code == 1 or (code == 0 and n == 0):
                stuck = np.flatnonzero(state != 0)[:8].tolist()
                raise ValueError(f"the programs deadlock (ranks {stuck} cannot progress)")
            if code == 2:
                raise ValueError(f"a message from rank {rank} is received with another size")
            made += n
            yield _checked_steps(out[0, :n].copy(), out[1, :n].copy(), out[2, :n].copy(),
                                 out[5, :k].copy(), out[6, :k].copy(), (), [0, n], [0, k],
                                 out[3, :n].copy() if self.nonblocking else (),
                                 out[4, :n].copy() if self.receive_first else ())[0]

    def parts(self) -> tuple:
        """Every plain step at once (:func:`collsim.analysis.network.pattern.plain_steps`)."""
        return tuple(self.iter_parts())


def _template(program, roles: np.ndarray) -> list[tuple[int, list[tuple[int, int, int]]]]:
    """A program (tasks: (compute bytes, [(kind, peer, bytes), ...])) with each
    peer replaced by its role among ``roles`` (the rank's peers; the first that
    names it)."""
    out = []
    for compute, ops in program:
        row = []
        for kind, peer, n_bytes in ops:
            found = np.flatnonzero(roles == peer)
            if not len(found):
                raise ValueError(f"a program names peer {peer}, none of its roles {roles}")
            row.append((kind, int(found[0]), n_bytes))
        out.append((compute, row))
    return out


def _early(ops) -> list[int]:
    """Per op: 1 for a receive no send of its task comes before."""
    flags, sent = [], False
    for kind, _, _ in ops:
        flags.append(int(kind == RECV and not sent))
        sent = sent or kind != RECV
    return flags


def templates(p: int, key: np.ndarray, peers: np.ndarray, program_of) -> ProgramSteps:
    """The :class:`ProgramSteps` of ranks that run one program per ``key``.

    ``program_of(rank)``: the rank's program, a list of tasks
    ``(compute_bytes, [(kind, peer, n_bytes), ...])`` (kinds ``SEND``, ``RECV``,
    ``ISEND``); ``peers[r]``: rank r's ``ROLES`` peers (-1: none).  Ranks of one
    key must run the same program, their peers aside: each key's first and
    last rank are both asked and must agree.

    Raises
    ------
    ValueError
        If two ranks of one key run different programs, a task waits for no
        message, or a task sends more than once (the steps' order, sender by
        sender, would not be ``arrays_pattern``'s).
    """
    keys, first, cls, count = np.unique(key, return_index=True, return_inverse=True,
                                        return_counts=True)
    last = len(key) - 1 - np.unique(key[::-1], return_index=True)[1]
    cls_task_first, task_op_first, ops, compute = [0], [0], [], []
    messages = 0
    for c in range(len(keys)):
        shape = _template(program_of(int(first[c])), peers[first[c]])
        if last[c] != first[c] and _template(program_of(int(last[c])), peers[last[c]]) != shape:
            raise ValueError(f"ranks {first[c]} and {last[c]} run different programs")
        for task_compute, row in shape:
            if not row or sum(kind != RECV for kind, _, _ in row) > 1:
                raise ValueError("a task waits for no message or sends more than once")
            ops.extend((kind, role, n_bytes, early)
                       for (kind, role, n_bytes), early in zip(row, _early(row)))
            compute.append(task_compute)
            task_op_first.append(len(ops))
            messages += int(count[c]) * sum(kind != RECV for kind, _, _ in row)
        cls_task_first.append(len(compute))
    table = np.array(ops, dtype=np.int64).reshape(-1, 4)
    kind, receive = table[:, 0], table[:, 0] == RECV
    return ProgramSteps(p, cls.reshape(-1).astype(np.int64), np.ascontiguousarray(peers,
                                                                                  dtype=np.int64),
                        np.array(cls_task_first, dtype=np.int64),
                        np.array(task_op_first, dtype=np.int64), np.ascontiguousarray(kind),
                        np.ascontiguousarray(table[:, 1]), np.ascontiguousarray(table[:, 2]),
                        np.ascontiguousarray(table[:, 3]), np.array(compute, dtype=np.int64),
                        nonblocking=bool(np.any(kind == ISEND)),
                        receive_first=bool(np.any(table[receive, 3])), messages=messages)
