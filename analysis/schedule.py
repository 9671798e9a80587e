"""Exact timing of a message schedule on a contention-free network.

The pipelined tree algorithms are written so that, at any moment, at most one
message leaves and one enters each rank (full-duplex links).  On such a
network, under the ``hockney`` profile, a message of n bytes takes
``alpha + (n + envelope) beta`` from the moment both its send and its receive
are posted (blocking sends return only on delivery).  Following seed 001
sec. 2.1, that is the cost of a bidirectional exchange (a step that also moves
a message the other way between the same ranks); a one-way message costs
``f_alpha alpha + (n + envelope) f_beta beta`` (the factors are 1 on the
full-duplex crossbar, where the simulation is exact).  On links whose two
directions share one bandwidth (``NetworkParams.links_shared_both_ways``,
``crossbar(half_duplex=True)``) a message is also bidirectional when its
sender's or receiver's step both sends and receives, whoever the peers are.
The time of the whole algorithm is the longest path through its steps.  This
module evaluates that path (a max-plus recursion), which is how the models of
the pipelined algorithms stay exact for any tree shape, uneven blocks and
gamma; their docstrings give the closed forms of the seeds, which the
schedules reproduce in the regular cases (tests/test_schedule_models.py).

A program is one list of steps per rank.  A step posts its operations at
once, waits for all of them, then spends ``compute_bytes * gamma`` on a local
reduction.  The k-th send from a to b matches the k-th receive at b from a
(MPI's non-overtaking order for one tag).

Examples
--------
>>> from collsim.analysis.models import NetworkParams
>>> net = NetworkParams(alpha_s=1.0, beta_s_per_byte=0.0, envelope_bytes=0)
>>> programs = [[Step((send(1, 8),))], [Step((recv(0, 8),)), Step((send(2, 8),))],
...             [Step((recv(1, 8),))]]
>>> finish_times(programs, net)
[1.0, 2.0, 2.0]
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Op", "Step", "send", "recv", "finish_times", "schedule_time"]


@dataclass(frozen=True)
class Op:
    """One message end: ``kind`` is "send" or "recv", ``peer`` the other rank."""

    kind: str
    peer: int
    n_bytes: int


@dataclass(frozen=True)
class Step:
    """Operations posted together and waited for, then a local reduction."""

    ops: tuple[Op, ...]
    compute_bytes: int = 0


def send(peer: int, n_bytes: int) -> Op:
    """A send of n_bytes to peer."""
    return Op("send", peer, n_bytes)


def recv(peer: int, n_bytes: int) -> Op:
    """A receive of n_bytes from peer."""
    return Op("recv", peer, n_bytes)


def finish_times(programs: list[list[Step]], net) -> list[float]:
    """Return the time at which each rank finishes its program (all start at 0).

    Raises
    ------
    ValueError
        If a send has no matching receive (or the sizes differ), or the
        programs deadlock.
    """
    size = len(programs)
    # Where the k-th message of every (src, dst) pair is posted on each side.
    sends: dict[tuple[int, int], list[tuple[int, int]]] = {}
    recvs: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for rank, program in enumerate(programs):
        for index, step in enumerate(program):
            for op in step.ops:
                if not 0 <= op.peer < size or op.peer == rank:
                    raise ValueError(f"rank {rank} step {index}: bad peer {op.peer}")
                key = (rank, op.peer) if op.kind == "send" else (op.peer, rank)
                (sends if op.kind == "send" else recvs).setdefault(key, []).append(
                    (rank, index, op.n_bytes))
    partners: list[list[list[tuple[int, int, int]]]] = [
        [[] for _ in program] for program in programs]
    for key, posted in sends.items():
        matched = recvs.get(key, [])
        if len(matched) != len(posted):
            raise ValueError(f"{len(posted)} sends but {len(matched)} receives from {key[0]} to {key[1]}")
        for (s_rank, s_step, s_bytes), (r_rank, r_step, r_bytes) in zip(posted, matched):
            if s_bytes != r_bytes:
                raise ValueError(f"message {key} of {s_bytes} bytes received as {r_bytes}")
            partners[s_rank][s_step].append((r_rank, r_step, s_bytes))
            partners[r_rank][r_step].append((s_rank, s_step, s_bytes))
    for key in recvs:
        if key not in sends:
            raise ValueError(f"receives from {key[0]} at {key[1]} without sends")

    from .models._base import message_s, one_way  # here: the models import this module

    gamma = net.gamma_s_per_byte
    uni = one_way(net)
    # A message is bidirectional when its step also moves one the other way
    # between the same two ranks (a Sendrecv); otherwise it is one-way.
    talks_both_ways = [[{op.peer for op in step.ops if op.kind == "send"}
                        & {op.peer for op in step.ops if op.kind == "recv"}
                        for step in program] for program in programs]
    # On links shared by both directions a step that sends and receives, to any
    # ranks, makes all its messages bidirectional (None: the seeds' networks).
    link_both_ways = ([[{op.kind for op in step.ops} >= {"send", "recv"} for step in program]
                       for program in programs] if net.links_shared_both_ways else None)
    position = [0] * size          # index of each rank's current step
    start = [[0.0] * len(program) for program in programs]
    clock = [0.0] * size           # start time of the current step
    remaining = sum(len(program) for program in programs)
    while remaining:
        progressed = False
        for rank in range(size):
            program = programs[rank]
            while position[rank] < len(program):
                index = position[rank]
                if any(position[peer] < peer_step for peer, peer_step, _ in partners[rank][index]):
                    break
                begin = clock[rank]
                start[rank][index] = begin
                end = begin
                for peer, peer_step, n_bytes in partners[rank][index]:
                    posted = start[peer][peer_step] if position[peer] > peer_step else clock[peer]
                    cost = message_s(net, n_bytes)
                    if not (peer in talks_both_ways[rank][index] or link_both_ways and (
                            link_both_ways[rank][index] or link_both_ways[peer][peer_step])):
                        cost = message_s(uni, n_bytes)
                    message_end = max(begin, posted) + cost
                    end = max(end, message_end)
                clock[rank] = end + program[index].compute_bytes * gamma
                position[rank] += 1
                remaining -= 1
                progressed = True
        if not progressed:
            stuck = [rank for rank in range(size) if position[rank] < len(programs[rank])]
            raise ValueError(f"the programs deadlock (ranks {stuck[:8]} cannot progress)")
    return clock


def schedule_time(programs: list[list[Step]], net) -> float:
    """The collective's time: the latest finish over ranks."""
    return max(finish_times(programs, net), default=0.0)
