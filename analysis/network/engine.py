"""The time of a communication pattern on a fabric: routes, latencies, shared links.

Each rank keeps a clock.  A message starts when both its ranks have reached
its step (blocking sends, as the ``hockney`` profile makes every send:
``smpi/send-is-detached-thresh:0``), spends the latency of its route (the sum
of its links' latencies, times SMPI's latency factor of its size), then moves
its bytes plus the 16-byte envelope at the rate max-min fairness gives it
(:mod:`collsim.analysis.network.maxmin`, SimGrid's CM02 sharing with a
flow's route latency as its penalty; times SMPI's bandwidth factor).  The
flows in flight share the links: when one ends, the others are re-shared
from that instant.  A rank leaves a step when its messages are done, then
spends ``bytes * gamma`` on its local reduction.

The steps between two repeated ones run together as one event simulation
(:func:`_run_together`): a rank's next messages compete with the others'
current ones.  A step with ``repeat`` > 1 (a ring's p - 1 shifts) runs a
few repeats as events and goes on at their pace, or in lockstep when even a
few are too many messages (:func:`_repeat`).

An eager message (payload below the profile's eager threshold): its sender
pays ``o_s`` and goes on, the transfer starts once the receive is posted
too, the receiver pays ``o_r`` after the data.  A rank in ``MPI_Sendrecv``
pays its Isend's overhead (``smpi/ois``) before it posts either side.  A
rank's several sends in one step are posted ``o_s`` apart (one ``MPI_Isend``
after another), its several eager receives pay ``o_r`` in turn, in order of
arrival, and not before its last send is posted (:func:`_staggered_sends`,
:func:`_serial_receives`, :func:`_receives_after`: SMPI charges ``o_r`` in the
wait).  An ``MPI_Ssend`` (``Step.synchronous``) is a rendezvous whatever its
size: its sender pays ``o_s``, then waits for the delivery, its receiver pays
no ``o_r``.  A receive posted before the rank's sends
(``Step.receive_first``: an ``MPI_Irecv`` first) does not wait for its ``o_s``.
A lone ``MPI_Isend`` (``Step.nonblocking``) pays ``o_s`` whatever its size.

A step's flows, the filling, its event loop and the event loop of steps
run together run compiled (:mod:`collsim.analysis.network.kernels`, numba,
loaded on first use): at a million ranks a step is a million flows, and
numpy's passes over their crossings, once per round of the filling, were
most of the time; the steps run together made one numpy pass over all
their messages per event.

Above :data:`TOGETHER_MESSAGES` the steps run together in windows of
consecutive steps of at most :data:`WINDOW_MESSAGES` messages, and a step of
a window's messages or more is timed alone (:func:`_run_step`).  A windowed
pattern's (a pipeline's) every window runs as events, the next one's steps,
routes and tasks made in a helper thread meanwhile (:func:`_run_windows`), and
two windows run at once, each in a thread behind the one before, with the
answers of the windows in turn (:func:`_run_piped`).

What it leaves out: SMPI's cross-traffic (the reverse route's 5 % load; off
in the ``hockney`` profile and the catalog's) and, above
:data:`TOGETHER_MESSAGES`, flows of different windows sharing a link (a step
timed alone meets no other step's flows).
"""

from __future__ import annotations

import queue
import threading

import numpy as np

from collsim.analysis.models._base import NetworkParams

from .fabric import Fabric
from .maxmin import LEVEL_RTOL
from .chain import CHAIN_STEP_MESSAGES, ChainSteps
from .pattern import Pattern, PatternTooLarge, Step, plain_steps
from .serial import SerialSteps
from . import batches as _batches
from . import shifts as _shifts
from .batches import ShiftBatches
from .regular import DragonflyFabric
from .shifts import ShiftSteps

__all__ = ["pattern_time", "step_end_times", "factors"]

# A flow whose bytes left are below this fraction of its size has ended
# (rounding of the rate times the time; the compiled event loop's too).
_DONE_RTOL = 1e-12

#: The fabrics on which the steps run together keep the flows on a link that is their
#: bottleneck as a set on one virtual clock (``kernels._reshare_sets``; the same answers
#: within roundings): a dragonfly routed by the rule, whose binary trees pile thousands
#: of flows on one global link (reduce ``binary`` of 1 MiB on 65,536 ranks: 95.7 s of
#: CPU with components kept whole, the rule before, 5.9 s with sets; docs/MODELS.md
#: "Sets of flows on their bottleneck link").  Not the fat-tree, where a step's flows
#: start and end together (measured for the components kept whole: bcast ``binary`` of
#: 1 MiB on 65,536 ranks, 11.8 to 13.6 s without, 17.0 to 21.5 s with).  Nor the
#: other graphs: reduce ``pipeline`` of 1 MiB on 512 random ranks of seed004_graphene,
#: whose 187,026 messages pile on the one inter-switch link, took 27.8 s of wall with
#: sets on every fabric and 19.5 s without (2026-11-30; the same answer to the bit):
#: 75 sets were formed and 75 dissolved, and 32 flows ended on a set's clock, so
#: the loop paid for the sets and hardly used them.
KEEP_SETS_FABRICS = (DragonflyFabric,)

#: ... and only when one of the links the steps share is crossed by at least this many
#: of their flows: the binary trees' global links carry thousands (4096 at 65,536
#: ranks), the in-order and dual-root trees' links at most 38, where the loop without
#: sets is the faster (measured for the components kept whole: allreduce
#: ``pipelined_tree`` of 1 MiB on 262,144 ranks of the dragonfly, 16.2 s of CPU kept,
#: 11.4 s not; docs/MODELS.md "Kept whole only where flows pile up").
KEEP_SETS_FLOWS = 256


def _keeps_sets(fabric: Fabric, link_start: np.ndarray) -> bool:
    """Whether the steps run together keep sets of flows on their bottleneck link
    (``kernels.run_together``, :data:`KEEP_SETS_FABRICS`, :data:`KEEP_SETS_FLOWS`);
    ``link_start``: the CSR of their shared links' flows (``kernels.link_lists``)."""
    return (isinstance(fabric, KEEP_SETS_FABRICS) and len(link_start) > 1
            and int(np.diff(link_start).max()) >= KEEP_SETS_FLOWS)

# Up to this many messages, the steps between two repeated steps are one
# event-driven simulation; above, they run in windows (WINDOW_MESSAGES).
TOGETHER_MESSAGES = 1 << 14

# Above TOGETHER_MESSAGES the steps run together in windows of consecutive steps of
# at most this many messages: a step's flows meet those of the steps near it, and an
# event costs time in proportion to the messages simulated together.  A step of a
# window's messages or more is timed alone (one max-min solve per distinct finish
# time), except in a windowed pattern (Pattern.windowed: a pipeline's steps, made
# one at a time, whose receives may be posted steps ahead), whose every window runs
# as events.  (Every step above TOGETHER_MESSAGES was timed alone before 2026-11-29:
# allreduce rabenseifner of 64 KiB on 1024 random ranks of seed003_hydra, 20 steps
# of 1024 messages, was 17.8 % under SimGrid; in one window +0.17 %: docs/MODELS.md
# "Steps in windows, not alone".)  A window's flows do not meet the next window's: a
# rank that leaves a window early starts its next flows beside none of the window's
# still in flight, so a pipeline whose eager senders run steps ahead ran too fast in
# windows of 65,536 messages (2026-11-29: bcast binary of 200 blocks of 1 MiB on 1024
# cyclic ranks of seed003_hydra, 205,000 messages, -14.4 % against SimGrid in 4
# windows, exact in one; allreduce pipelined_tree of 1 MiB there -6.2 %, -0.1 % in one:
# docs/MODELS.md "A slice at 512 and 1024 ranks").
WINDOW_MESSAGES = 1 << 18

# A pipeline's window (``_run_windows``) of at least this many messages goes to the
# event loop with its flows numbered in the order they would end alone, and its
# shared links in the order of those flows' first crossings (``_in_order_of_ends``):
# the loop waits for memory, and flows in flight together then lie together
# (allreduce ``dual_root_pipelined`` of 1 MiB on the dragonfly's 1,048,576 ranks,
# windows of 650,000 messages: 62.4 s of wall before, 45.8 s).  Not below, nor in
# the other calls of the loop: another numbering rounds differently, a pipeline
# or a ring on random ranks can amplify a rounding, and as listed the messages
# round as SimGrid's do (the accuracy grids at 256 to 1024 ranks, numbered in
# this order from 16,384 messages: allreduce ``dual_root_pipelined`` of 64 KiB on
# 1024 random ranks of seed003_hydra, one call of 47,116 messages, +0.12 % against
# SimGrid as listed, +1.58 % renumbered; a ring of 523,264 messages +0.04 %,
# +0.41 %).  From 2^17: the grids' one window above, 147,370 messages of the same
# entry at 1 MiB, +0.05 % as listed, +0.21 % renumbered; at 2^18 the windows of
# 65,536 ranks (252,000 messages on average) would lose the gain (the loop 10.2
# and 10.9 s, against 6.0 and 6.7 s from 2^17; docs/MODELS.md, "Flows numbered
# in the order they are expected to end").
ORDER_MESSAGES = 1 << 17

# A repeated step (a ring's shifts) of few messages runs its first repeats
# together, then at their pace (``_repeat``): up to 1024 ranks.  (Up to 256 ranks
# before: on 512 random ranks of seed004_graphene, scatter_allgather's ring of 8 B
# in lockstep was +55.6 % over SimGrid, with the warm-up +3.7 %, 1.9 s of CPU.)
WARMUP_REPEATS = 16
WARMUP_MESSAGES = 1 << 14

# A fabric of at most this many link ids is solved over all of them when a step
# crosses at least GLOBAL_SHARE as many (times its ids): its properties are read once
# per fabric and a step's links need no numbering (numbering touches every crossing
# once more); else, and on a larger fabric (a million-node dragonfly: 19 million
# ids), over the ids the step uses, numbered in order of first use.
_GLOBAL_LINKS = 1 << 23
# A step solved alone: a quarter (a million-rank Rabenseifner's steps cross all but
# one of the million-node fat-tree's 6.3 million ids: 7.6 s of CPU read as they are,
# 9.8 s numbered).  Steps run together (the event loop): all of them, since the loop
# runs faster on links numbered in the flows' order, and a window of 413,000
# messages (2.5 million crossings) read as they are paid passes over every id in
# ``kernels.link_lists``, 81 ms a window (bcast ``binary`` of 1 MiB on a million
# ranks: 66.8 s of CPU; 63.2 s numbered below half; 56.9 s numbered: MODELS.md).
_GLOBAL_SHARE_ALONE = 0.25
_GLOBAL_SHARE_TOGETHER = 1.0


# A pipeline's windows (``_run_windows``, when there are several) run this many at once,
# each in a thread of its own behind the one before (``_run_piped``): the same answers
# to the bit, and two cores on the loop instead of one.  1: one after another.
PIPED_WINDOWS = 2


def factors(table: tuple[tuple[int, float], ...], size_bytes: np.ndarray) -> np.ndarray:
    """SMPI's piecewise factor of each size (``models._base.factor_at``, vectorised)."""
    if not table:
        return np.ones(len(size_bytes))
    thresholds = np.array([t for t, _ in reversed(table)], dtype=float)   # ascending
    values = np.array([v for _, v in reversed(table)])
    # the largest threshold strictly below the size; at or below all, the smallest's
    index = np.searchsorted(thresholds, size_bytes, side="left") - 1
    return values[np.clip(index, 0, None)]


def _links_read(routes: np.ndarray, fabric: Fabric, global_share: float = _GLOBAL_SHARE_ALONE
                ) -> tuple[np.ndarray, ...]:
    """The routes in the link numbers the kernels read, and those links' capacities,
    latencies and FATPIPE flags: every id as it is on a fabric of few ids whose
    ``global_share`` the routes cross at least (no numbering pass), else the ids the
    routes use, numbered in order of first use (the rule above :data:`_GLOBAL_LINKS`)."""
    from . import kernels

    routes = np.ascontiguousarray(routes, dtype=np.int64)
    if fabric.n_links <= _GLOBAL_LINKS and fabric.n_links * global_share <= routes.size:
        return (routes, *fabric.link_table())
    local, used = kernels.number_links(routes, fabric.link_scratch())
    return (local, *fabric.link_properties(used))


class _Routing:
    """What a step's flows are on their routes, whatever their sizes: each route's
    latency and sharing penalty, and the crossings of the links they share (see
    :class:`_Flows`).  A pattern whose steps repeat the same pairs (the doubling
    phase of Rabenseifner's allreduce retraces its halving phase) makes it once per
    pair set (``pattern_time``'s memo)."""

    def __init__(self, routes: np.ndarray, fabric: Fabric, weight_S: float = 0.0,
                 weight: np.ndarray | None = None,
                 global_share: float = _GLOBAL_SHARE_ALONE) -> None:
        from . import kernels

        local, capacity, link_latency, pipe = _links_read(routes, fabric, global_share)
        # CM02: the flow's penalty is its route's latency (1 when it has none), before the
        # factor, plus weight_S / bandwidth per link (SimGrid's network/weight-S)
        self.latency, self.penalty, bound = kernels.route_sums(
            local, link_latency, capacity, pipe, float(weight_S))
        if weight is not None:
            # a flow standing for `weight` like it: that many times its share of each link
            # and its own bound; a link only it crosses still bounds it at its capacity
            self.penalty, bound = self.penalty / weight, bound * weight
        self.lists, self.capacity, self.bound = kernels.link_lists(local, pipe, capacity, bound)


class _Flows:
    """The messages of a step (or of several) on their routes: latencies, links, bounds.

    The crossings of shared links are kept by flow and by link
    (:func:`collsim.analysis.network.kernels.link_lists`) over the links two
    or more of the flows cross, numbered from 0 (a million-node dragonfly has
    19 million link ids; a step uses a few million, and shares a few hundred
    thousand of them).  The routes' link ids are numbered first on a fabric
    of more than :data:`_GLOBAL_LINKS` ids.
    """

    def __init__(self, size_bytes: np.ndarray, routes: np.ndarray | _Routing, fabric: Fabric,
                 net: NetworkParams, weight_S: float = 0.0) -> None:
        routing = routes if isinstance(routes, _Routing) else _Routing(routes, fabric, weight_S)
        self.size = size_bytes
        self.penalty, self.lists = routing.penalty, routing.lists
        self.capacity, self.bound = routing.capacity, routing.bound
        self.latency = routing.latency * factors(net.latency_factors, size_bytes)
        self.rate_factor = factors(net.bandwidth_factors, size_bytes)

    def rates(self, index: np.ndarray, active: np.ndarray) -> np.ndarray:
        """The rates (payload bytes/s) of the flows ``index`` (``active`` as a mask) sharing the links."""
        from . import kernels

        rate = kernels.fill(active, *self.lists, self.capacity, self.penalty, self.bound,
                            LEVEL_RTOL)
        return rate[index] * self.rate_factor[index]


def step_end_times(start_s: np.ndarray, size_bytes: np.ndarray, routes: np.ndarray | _Routing,
                   fabric: Fabric, net: NetworkParams, weight_S: float = 0.0,
                   weight: np.ndarray | None = None) -> np.ndarray:
    """When each message of one step ends (its data delivered), messages starting at ``start_s``.

    Parameters
    ----------
    start_s : numpy.ndarray
        When each message's send and receive are both posted.
    size_bytes : numpy.ndarray
        Bytes on the wire (payload plus envelope).
    routes : numpy.ndarray or _Routing
        Link ids per message (``Fabric.routes``), or what they make (a memo's).
    fabric : Fabric
    net : NetworkParams
        Its latency and bandwidth factors (``alpha`` and ``beta`` are unused:
        they come from the route).
    weight_S : float
        SimGrid's ``network/weight-S`` (0 under CM02, 8775 under SMPI).
    weight : numpy.ndarray, optional
        Message i stands for ``weight[i]`` messages like it (``batches``: a sampled
        shift for its stratum's): ``weight`` times its bytes at ``weight`` times the
        rate (its penalty divided by the weight, its own bound multiplied), its
        factors those of one message.  ``routes`` is then the link ids.

    The flows are re-shared whenever one of the flows they share links with,
    directly or through others, ends or starts
    (:func:`collsim.analysis.network.kernels.step_end_times`).
    """
    from . import kernels

    if len(start_s) == 0:
        return np.zeros(0)
    size = np.asarray(size_bytes, dtype=float)
    if weight is not None:
        weight = np.asarray(weight, dtype=float)
        routes = _Routing(routes, fabric, weight_S, weight)
    flows = _Flows(size, routes, fabric, net, weight_S)
    return kernels.step_end_times(np.asarray(start_s + flows.latency, dtype=float),
                                  size if weight is None else size * weight,
                                  flows.rate_factor, *flows.lists, flows.capacity,
                                  flows.penalty, flows.bound, LEVEL_RTOL, _DONE_RTOL)


def _nth_in_group(group: np.ndarray) -> np.ndarray:
    """1, 2, ... for each entry in the order it comes among the entries of its group."""
    order = np.argsort(group, kind="stable")
    first = np.searchsorted(group[order], group[order])
    nth = np.empty(len(group), dtype=np.int64)
    nth[order] = np.arange(len(group)) - first + 1
    return nth


def _serial_receives(receiver: np.ndarray, arrival_s: np.ndarray, receive_cost_s: np.ndarray,
                     free_s: np.ndarray) -> np.ndarray:
    """When each receive is done where a receiver pays ``o_r`` per message, one after
    another in arrival order (SMPI charges a process's receive overheads in turn);
    ``free_s`` is each receiver's clock of its previous receive, updated in place."""
    done_s = arrival_s + receive_cost_s
    for i in np.argsort(arrival_s, kind="stable"):
        r = receiver[i]
        free_s[r] = max(free_s[r], arrival_s[i]) + receive_cost_s[i]
        done_s[i] = free_s[r]
    return done_s


def _staggered_sends(sender: np.ndarray, eager: np.ndarray, sendrecv: np.ndarray,
                     o_s: float, synchronous: np.ndarray | None = None,
                     nonblocking: np.ndarray | None = None
                     ) -> tuple[np.ndarray, np.ndarray]:
    """(each message's posting delay on the sender's side, the sender's cost of an eager
    send): a process posting several sends in one step makes one MPI_Isend after the
    other, each paying ``o_s``, so the i-th is posted i o_s after its part starts; a
    lone send pays ``o_s`` before posting when eager, inside an MPI_Sendrecv, an
    MPI_Ssend (``synchronous``) or an MPI_Isend (``nonblocking``): SMPI's
    ``Request::start`` sleeps ``smpi/os`` for a detached send, an MPI_Isend and an
    MPI_Ssend, not for a blocking rendezvous send."""
    paying = eager | sendrecv
    if synchronous is not None:
        paying = paying | synchronous
    if nonblocking is not None:
        paying = paying | nonblocking
    single = np.where(paying, o_s, 0.0)
    if not o_s:
        return single, single
    nth = _nth_in_group(sender)
    several = np.bincount(sender)[sender] > 1
    delay = np.where(several, nth * o_s, single)
    return delay, np.where(eager, np.where(several, nth * o_s, o_s), 0.0)


def _receives_after(sender: np.ndarray, send_delay: np.ndarray, n: int) -> np.ndarray:
    """Per rank (or task) of ``n``, how long after its part starts it begins to pay its
    receives' ``o_r``: when its last send is posted.  SMPI charges ``o_r`` in the wait
    (``Request::finish_wait``), which the process enters after its MPI_Isend calls, each
    of which slept ``o_s``; an alltoall's p - 1 receives that arrived meanwhile wait."""
    after = np.zeros(n)
    if len(sender):
        from . import kernels

        kernels.scatter_max(after, sender, np.asarray(send_delay, dtype=float))
    return after


def _flags(steps: list[Step], name: str) -> np.ndarray:
    """Per message of ``steps`` (concatenated), a flag field of theirs as booleans
    (``synchronous``: an MPI_Ssend; ``receive_first``: posted before the receiver's
    sends; ``nonblocking``: an MPI_Isend)."""
    return np.concatenate([getattr(step, name).astype(bool) if len(getattr(step, name))
                           else np.zeros(len(step.src), dtype=bool) for step in steps])


def _step_routing(step: Step, hosts: np.ndarray, fabric: Fabric, weight_S: float,
                  memo: dict | None) -> _Routing:
    """The step's routing, from ``memo`` when an earlier step had the same sender and
    receiver arrays (the same objects: a builder that retraces its pairs passes them
    again), else made and kept there."""
    key = (id(step.src), id(step.dst))
    if memo is not None and key in memo:
        return memo[key][2]
    routing = _Routing(fabric.routes(hosts[step.src], hosts[step.dst]), fabric, weight_S)
    if memo is not None:
        memo[key] = (step.src, step.dst, routing)   # the arrays held: their ids stay theirs
    return routing


def _run_step(step: Step, clock: np.ndarray, hosts: np.ndarray, fabric: Fabric,
              net: NetworkParams, weight_S: float = 0.0, memo: dict | None = None) -> np.ndarray:
    from . import kernels

    synchronous = _flags([step], "synchronous")
    eager = (step.n_bytes < net.eager_threshold_bytes) & ~synchronous
    # MPI_Sendrecv: the rank pays its MPI_Isend's overhead before it posts either side;
    # several sends of one rank are posted o_s apart (_staggered_sends)
    o_s = net.send_overhead_s
    receive_from = np.full(len(clock), -np.inf)
    if o_s:
        sends, receives = np.zeros(len(clock), dtype=bool), np.zeros(len(clock), dtype=bool)
        sends[step.src] = True
        receives[step.dst] = True
        sendrecv = sends & receives
        send_delay, send_cost = _staggered_sends(step.src, eager, sendrecv[step.src], o_s,
                                                 synchronous, _flags([step], "nonblocking"))
        first = _flags([step], "receive_first")
        start = np.maximum(clock[step.src] + send_delay,
                           clock[step.dst] + np.where(sendrecv[step.dst] & ~first, o_s, 0.0))
        several_sends = np.bincount(step.src, minlength=len(clock)) > 1
        if np.any(several_sends & receives) or np.any(first & sendrecv[step.dst]):
            # its receives' o_r wait for its last MPI_Isend (_receives_after)
            receive_from = clock + _receives_after(step.src, send_delay, len(clock))
    else:
        send_cost = np.zeros(len(step.src))
        start = np.maximum(clock[step.src], clock[step.dst])
    size = (step.n_bytes + net.envelope_bytes).astype(float)
    routing = _step_routing(step, hosts, fabric, weight_S, memo)
    end = step_end_times(start, size, routing, fabric, net, weight_S)
    after = clock.copy()
    # an eager sender goes on after its o_s; its receiver pays o_r after the data, in turn
    kernels.scatter_max(after, step.src, np.where(eager, clock[step.src] + send_cost, end))
    receive_cost = np.where(eager, net.recv_overhead_s, 0.0)
    if net.recv_overhead_s and (np.bincount(step.dst).max(initial=0) > 1
                                or np.isfinite(receive_from).any()):
        received = _serial_receives(step.dst, end, receive_cost, receive_from)
    else:
        received = end + receive_cost
    kernels.scatter_max(after, step.dst, np.asarray(received, dtype=float))
    if len(step.reduce_ranks):
        kernels.scatter_add(after, step.reduce_ranks,
                            step.reduce_bytes * float(fabric.gamma_s_per_byte))
    return after


def _overheads(steps: list[Step], n_bytes: np.ndarray, msg_tasks: np.ndarray,
               post_tasks: np.ndarray, n_tasks: int, net: NetworkParams) -> tuple:
    """What SMPI's overheads make of the messages of steps run together (per message:
    eager, the two sides' posting delays, the sender's cost, the receiver's ``o_r``;
    per task: whether its receives pay ``o_r`` in turn, from when).

    An eager message (under the eager threshold, not an MPI_Ssend): its sender pays
    o_s and goes on, the transfer starts once the receive is posted too, the receiver
    pays o_r after it.  A rank that sends and receives in one step (MPI_Sendrecv) pays
    its MPI_Isend's overhead (smpi/ois) before it posts either; a part's several sends
    are posted o_s apart, and its receives pay o_r in turn once its last send is
    posted (:func:`_staggered_sends`, :func:`_receives_after`), as SMPI charges them.
    """
    synchronous, first = _flags(steps, "synchronous"), _flags(steps, "receive_first")
    eager = (n_bytes < net.eager_threshold_bytes) & ~synchronous
    receive_cost = np.where(eager, net.recv_overhead_s, 0.0)
    sends = np.bincount(post_tasks[0], minlength=n_tasks)
    sendrecv = (sends > 0) & (np.bincount(post_tasks[1], minlength=n_tasks) > 0)
    send_delay, send_cost = _staggered_sends(post_tasks[0], eager, sendrecv[post_tasks[0]],
                                             net.send_overhead_s, synchronous,
                                             _flags(steps, "nonblocking"))
    post_delay = np.stack([send_delay, np.where(sendrecv[post_tasks[1]] & ~first,
                                                net.send_overhead_s, 0.0)])
    # a part's receives pay o_r from its last send on: in turn when there are several,
    # or it sends several, or one posted before its send may arrive before it
    receives = np.bincount(msg_tasks[1], minlength=n_tasks)
    early = np.bincount(msg_tasks[1], weights=first & sendrecv[msg_tasks[1]],
                        minlength=n_tasks) > 0
    serial_receiver = (((receives > 1) | ((receives > 0) & (sends > 1)) | early)
                       if net.recv_overhead_s else np.zeros(n_tasks, dtype=bool))
    receive_after = _receives_after(msg_tasks[0], send_delay, n_tasks)
    return eager, post_delay, send_cost, receive_cost, serial_receiver, receive_after


def _run_serial(steps: SerialSteps, clock: np.ndarray, hosts: np.ndarray, fabric: Fabric,
                net: NetworkParams, weight_S: float = 0.0) -> np.ndarray:
    """The rank clocks after serial steps, each timed alone: :func:`_run_step`'s
    arithmetic on a step of one message, its flow alone on the fabric (its route's
    bottleneck: :func:`_lone_flows`), the clocks' recurrence in one compiled loop
    (``serial_kernels.run_serial``)."""
    from .serial_kernels import run_serial

    size = (steps.n_bytes + net.envelope_bytes).astype(float)
    latency, rate = _lone_flows(fabric.routes(hosts[steps.src], hosts[steps.dst]), fabric,
                                weight_S)
    # an MPI_Ssend (synchronous) is no eager send: it pays o_s, waits for the delivery
    # and costs its receiver no o_r, as _run_step charges it
    synchronous = (steps.synchronous.astype(bool) if len(steps.synchronous)
                   else np.zeros(len(steps.src), dtype=bool))
    eager = (steps.n_bytes < net.eager_threshold_bytes) & ~synchronous
    o_s = net.send_overhead_s
    send_delay = np.where(eager | synchronous, o_s, 0.0) if o_s else np.zeros(len(steps.src))
    gamma = float(fabric.gamma_s_per_byte)
    after = run_serial(clock.copy(), steps.src, steps.dst, send_delay, eager,
                       latency * factors(net.latency_factors, size), size,
                       rate * factors(net.bandwidth_factors, size),
                       np.where(eager, net.recv_overhead_s, 0.0), steps.combine() * gamma)
    if len(steps.reduce_ranks):
        np.add.at(after, steps.reduce_ranks, steps.reduce_bytes * gamma)
    return after


def _run_chain(chain: ChainSteps, clock: np.ndarray, hosts: np.ndarray, fabric: Fabric,
               net: NetworkParams, weight_S: float = 0.0) -> np.ndarray:
    """The rank clocks after a chain pipeline (:mod:`collsim.analysis.network.chain`):
    each hop, sharing no link, at its route's bottleneck, its time per block
    class as :func:`step_end_times` charges a message (route latency times the
    latency factor, bytes over the rate times the bandwidth factor), then the
    C code's recurrence over (hop, block) (``chain_kernels.chain_clocks``), each
    ``MPI_Isend`` posted ``o_s`` after its step starts (``Step.nonblocking``), the
    reduce's ``MPI_Send`` s (its leaf's, every rank's last block) at once.

    Raises
    ------
    PatternTooLarge
        If a block is eager under the profile (below its eager threshold: the
        recurrence holds a sender until the delivery), or if hops share a link
        (their flows' overlap is what the event simulation times).
    """
    from .chain_kernels import chain_clocks

    if not len(chain.src) or not len(chain.block_bytes):
        return clock
    sizes, block_class = np.unique(chain.block_bytes, return_inverse=True)
    if sizes[0] < net.eager_threshold_bytes:
        raise PatternTooLarge(
            f"a pipeline of {chain.messages:,} messages with eager blocks ({int(sizes[0])} B, "
            f"under the profile's eager threshold of {net.eager_threshold_bytes} B) is not "
            "modelled: give --segment-bytes or --blocks for blocks of at least the threshold")
    routing = _Routing(fabric.routes(hosts[chain.src], hosts[chain.dst]), fabric, weight_S)
    if len(routing.capacity):
        raise PatternTooLarge(
            f"a pipeline of {chain.messages:,} messages whose hops share links (here "
            f"{len(routing.capacity):,} links carry two or more hops: ranks not consecutive "
            "on the machine, or half-duplex links) is not modelled: the explicit pattern "
            f"answers up to {CHAIN_STEP_MESSAGES:,} messages")
    # no link shared: each hop at its route's bottleneck (what max-min gives it alone)
    wire = (sizes + net.envelope_bytes).astype(float)
    hop_s = (factors(net.latency_factors, wire)[:, None] * routing.latency[None, :]
             + wire[:, None] / (routing.bound[None, :]
                                * factors(net.bandwidth_factors, wire)[:, None]))
    combine_s = (chain.block_bytes * float(fabric.gamma_s_per_byte) if chain.combine
                 else np.zeros(len(chain.block_bytes)))
    order = np.concatenate([chain.src[:1], chain.dst])
    # pipeline.c's MPI_Isends pay o_s (Step.nonblocking); its reduce's leaf and last
    # blocks go by MPI_Send, a blocking rendezvous that pays none
    o_s = float(net.send_overhead_s)
    after = clock.copy()
    after[order] = chain_clocks(np.ascontiguousarray(clock[order], dtype=float),
                                np.ascontiguousarray(hop_s), block_class.astype(np.int64),
                                np.asarray(combine_s, dtype=float), o_s,
                                0.0 if chain.combine else o_s, 0.0 if chain.combine else o_s)
    return after


def run_shifts(steps: ShiftSteps, clock: np.ndarray, hosts: np.ndarray, fabric: Fabric,
               net: NetworkParams, weight_S: float = 0.0, strata: int | None = None
               ) -> np.ndarray:
    """The rank clocks after shift steps: ``shifts.run_shifts`` with each sampled
    shift timed by :func:`_run_step`."""
    return _shifts.run_shifts(steps, clock, hosts, fabric, net, weight_S, strata,
                              time_step=_run_step)


def run_batches(steps: ShiftBatches, clock: np.ndarray, hosts: np.ndarray, fabric: Fabric,
                net: NetworkParams, weight_S: float = 0.0) -> np.ndarray:
    """The rank clocks after shift batches: ``batches.run_batches`` with the sampled
    flows timed by :func:`step_end_times` with their weights."""
    return _batches.run_batches(steps, clock, hosts, fabric, net, weight_S,
                                end_times=step_end_times)


def _lone_flows(routes: np.ndarray, fabric: Fabric, weight_S: float
                ) -> tuple[np.ndarray, np.ndarray]:
    """Each route's latency and the max-min rate of its flow alone on the fabric.

    The links are read as :class:`_Routing` reads them (every id on a fabric of
    few ids, else the ids the routes use, numbered).
    """
    from . import kernels
    from .serial_kernels import lone_rates

    local, capacity, link_latency, pipe = _links_read(routes, fabric)
    latency, penalty, bound = kernels.route_sums(local, link_latency, capacity, pipe,
                                                 float(weight_S))
    return latency, lone_rates(local, pipe, capacity, penalty, bound)


def _run_together(steps: list[Step], clock: np.ndarray, hosts: np.ndarray, fabric: Fabric,
                  net: NetworkParams, weight_S: float = 0.0) -> np.ndarray:
    """Several steps as one event-driven flow simulation: each rank runs its own steps in order.

    A rank's part in a step (a *task*) starts when its previous task ended
    (plus that task's reduction); a message is posted when both its ranks'
    tasks have started (the receiver's posting task: ``Step.post_ahead`` of
    its tasks earlier); a task ends when it has started and the messages it
    waits for are done; every flow in flight, whatever its step, shares the
    links with every other (the early finishers' next messages compete with
    the late ones' current messages, as in SimGrid).  What the clocks do not
    change is made first (:func:`_prepare_together`), then the event loop
    runs from the clocks (:func:`_run_prepared`).
    """
    return _run_prepared(_prepare_together(steps, hosts, fabric, net, weight_S), clock)


def _prepare_together(steps: list[Step], hosts: np.ndarray, fabric: Fabric,
                      net: NetworkParams, weight_S: float = 0.0,
                      expected: np.ndarray | None = None) -> tuple:
    """What :func:`_run_together` makes of its steps before the clocks matter: the
    tasks, the routes and their shared links, the overheads, as the arguments of
    ``kernels.run_together`` after its first two (the first tasks' start times
    come from the clocks), and the tasks' ranks and reductions.  Given the clocks
    ``expected`` at the steps' start, the messages are numbered in the order they
    would then end alone (:func:`_in_order_of_ends`, which brings ``expected`` to
    the steps' end)."""
    from . import kernels

    n_steps = len(steps)
    src = np.concatenate([step.src for step in steps])
    dst = np.concatenate([step.dst for step in steps])
    n_bytes = np.concatenate([step.n_bytes for step in steps])
    step_of = np.repeat(np.arange(n_steps, dtype=np.int64), [len(step.src) for step in steps])
    m = len(src)
    # tasks: (rank, step) pairs in rank-major order, so a rank's next task is the next index
    task_rank, task_step, end_task = kernels.task_numbers(src, dst, step_of, len(hosts))
    task_keys = task_rank * n_steps + task_step
    n_tasks = len(task_keys)
    msg_tasks = np.stack([end_task[:m], end_task[m:]])
    # the tasks that post each message: the receiver's may be an earlier one (an MPI_Irecv
    # waited for later); a rank's tasks are consecutive, so earlier is a smaller index
    post_ahead = np.concatenate([step.post_ahead if len(step.post_ahead)
                                 else np.zeros(len(step.src), dtype=np.int64) for step in steps])
    post_tasks = msg_tasks
    if post_ahead.any():
        # a receive posted before these steps (an earlier window) is posted at the first
        posted_in = np.maximum(msg_tasks[1] - post_ahead, 0)
        earlier = task_rank[posted_in] != dst
        posted_in[earlier] = np.searchsorted(task_rank, dst[earlier])
        post_tasks = np.stack([msg_tasks[0], posted_in])
    pending = np.bincount(end_task, minlength=n_tasks)
    reduce_s = np.zeros(n_tasks)
    reducing = [(k, step) for k, step in enumerate(steps) if len(step.reduce_ranks)]
    if reducing:
        # every step's reductions at once, added step by step as before
        keys = np.concatenate([step.reduce_ranks * n_steps + k for k, step in reducing])
        where = np.searchsorted(task_keys, keys)
        wrong = (where >= n_tasks) | (task_keys[np.minimum(where, n_tasks - 1)] != keys)
        if np.any(wrong):
            raise ValueError(f"step {int(keys[np.argmax(wrong)] % n_steps)}: a rank reduces "
                             "without a message in the step")
        kernels.scatter_add(reduce_s, where,
                            np.concatenate([step.reduce_bytes for _, step in reducing])
                            * float(fabric.gamma_s_per_byte))
    task_first, order = kernels.group_by(post_tasks.reshape(-1), n_tasks)
    end_msg = np.concatenate([np.arange(m), np.arange(m)])[order]

    first = np.ones(n_tasks, dtype=bool)
    first[1:] = task_rank[1:] != task_rank[:-1]
    eager, post_delay, send_cost, receive_cost, serial_receiver, receive_after = _overheads(
        steps, n_bytes, msg_tasks, post_tasks, n_tasks, net)
    size = (n_bytes + net.envelope_bytes).astype(float)
    flows = _Flows(size, _Routing(fabric.routes(hosts[src], hosts[dst]), fabric, weight_S,
                                  global_share=_GLOBAL_SHARE_TOGETHER), fabric, net, weight_S)
    arguments = (
        task_rank, np.asarray(pending, dtype=np.int64), reduce_s,
        np.asarray(task_first, dtype=np.int64), np.asarray(end_msg, dtype=np.int64),
        np.ascontiguousarray(msg_tasks, dtype=np.int64),
        np.ascontiguousarray(post_tasks, dtype=np.int64),
        np.ascontiguousarray(post_delay, dtype=float), eager, np.asarray(send_cost, dtype=float),
        np.asarray(receive_cost, dtype=float), serial_receiver, receive_after,
        np.asarray(flows.latency, dtype=float), size, np.asarray(flows.rate_factor, dtype=float),
        *flows.lists, flows.capacity, flows.penalty, flows.bound, LEVEL_RTOL, _DONE_RTOL,
        _keeps_sets(fabric, flows.lists[2]))
    first_tasks = np.flatnonzero(first)
    if expected is not None:
        arguments = _in_order_of_ends(first_tasks, task_rank, arguments, expected)
    return first_tasks, task_rank, reduce_s, arguments


def _in_order_of_ends(first_tasks: np.ndarray, task_rank: np.ndarray, arguments: tuple,
                      expected: np.ndarray) -> tuple:
    """``kernels.run_together``'s arguments after its first two (as
    :func:`_prepare_together` makes them) with the messages numbered in the order
    they would end alone from the clocks ``expected`` (``order_kernels.lone_ends``,
    by slices of time: ``order_kernels.in_order``) and the shared links in the
    order the messages so numbered first cross them, when there are
    :data:`ORDER_MESSAGES` or more; ``expected`` is brought to the clocks after
    the steps were every flow alone (the next window's estimate).

    Another numbering changes the answers by roundings only (the loop sums a
    link's flows in ascending flow number and breaks ties in message order):
    the same to the bit for allreduce ``dual_root_pipelined`` of 1 MiB on the
    dragonfly's 1,048,576 ranks, where the loop took a third less time.  But a
    pipeline whose flows end in ties can amplify a rounding: bcast ``binary`` of
    64 blocks of 16 KiB on 128 random ranks of a small dragonfly moves by up to
    0.7 % between numberings (docs/MODELS.md, "Flows numbered in the order they
    are expected to end").
    """
    from . import kernels
    from .order_kernels import in_order, lone_ends, renumbered_lists, renumbered_messages

    (_, pending, reduce_s, task_first, task_msg, msg_tasks, post_tasks, post_delay, eager,
     send_cost, receive_cost, serial_receiver, receive_after, data_latency, size,
     rate_factor, flow_start, flow_link, link_start, link_flow, capacity, penalty, bound,
     *tolerances) = arguments
    ends, task_last = lone_ends(
        first_tasks, expected[task_rank[first_tasks]], task_rank, pending, reduce_s,
        task_first, task_msg, msg_tasks, post_tasks, post_delay, eager, send_cost,
        receive_cost, data_latency, size, rate_factor, flow_start, flow_link, capacity,
        bound)
    kernels.scatter_max(expected, task_rank, task_last + reduce_s)
    if len(size) < ORDER_MESSAGES:
        return arguments
    order = in_order(ends)
    lists, old_link = renumbered_lists(order, flow_start, flow_link, len(capacity))
    (task_msg, msg_tasks, post_tasks, post_delay, eager, send_cost, receive_cost, data_latency,
     size, rate_factor, penalty, bound) = renumbered_messages(
        order, task_msg, msg_tasks, post_tasks, post_delay, eager, send_cost, receive_cost,
        data_latency, size, rate_factor, penalty, bound)
    return (task_rank, pending, reduce_s, task_first, task_msg, msg_tasks, post_tasks,
            post_delay, eager, send_cost, receive_cost, serial_receiver, receive_after,
            data_latency, size, rate_factor, *lists, capacity[old_link], penalty, bound,
            *tolerances)


_DEADLOCK = "the steps deadlock (a message's ranks never reach its step)"


def _run_prepared(prepared: tuple, clock: np.ndarray) -> np.ndarray:
    """The rank clocks after steps :func:`_prepare_together` made ready, from ``clock``."""
    from . import kernels

    first_tasks, task_rank, reduce_s, arguments = prepared
    task_last, deadlock = kernels.run_together(first_tasks, clock[task_rank[first_tasks]],
                                               *arguments)
    if deadlock:
        raise ValueError(_DEADLOCK)
    after = clock.copy()
    kernels.scatter_max(after, task_rank, np.asarray(task_last + reduce_s, dtype=float))
    return after


def _repeat(step: Step, clock: np.ndarray, hosts: np.ndarray, fabric: Fabric, net: NetworkParams,
            weight_S: float) -> np.ndarray:
    """A step repeated ``step.repeat`` times (a ring's shifts) from the ranks' clocks.

    When a few of its repeats fit in :data:`WARMUP_MESSAGES`, the first
    :data:`WARMUP_REPEATS` run together (the ranks drift apart, and flows
    that share a link stop overlapping fully, as in SimGrid) and the rest go
    at the pace of the second half of them.  Otherwise every rank runs the
    repeats in lockstep at its pace when all start a repeat together, from
    its own clock.
    """
    repeats = min(step.repeat, WARMUP_REPEATS)
    if len(step.src) * repeats <= WARMUP_MESSAGES:
        ended = _run_together([step] * repeats, clock, hosts, fabric, net, weight_S).max()
        if repeats == step.repeat:
            return np.full(len(clock), ended)
        half = _run_together([step] * (repeats // 2), clock, hosts, fabric, net, weight_S).max()
        pace = (ended - half) / (repeats - repeats // 2)
        return np.full(len(clock), ended + (step.repeat - repeats) * pace)
    steady = _run_step(step, np.zeros(len(clock)), hosts, fabric, net, weight_S)
    return np.full(len(clock), (clock + step.repeat * steady).max())


def _windows(steps, messages: int, alone: type | tuple = ()):
    """Consecutive runs of steps of at most ``messages`` messages (at least one step
    each); a step of type ``alone`` is a run of its own."""
    window, held = [], 0
    for step in steps:
        if window and (held + step.messages > messages or isinstance(step, alone)
                       or isinstance(window[-1], alone)):
            yield window
            window, held = [], 0
        window.append(step)
        held += step.messages
    if window:
        yield window


def _made_ahead(items, make):
    """``make(item)`` of each item in order, each made in a helper thread while the
    caller works on the one before: one ahead, no more (two made items are held at
    once).  ``make``'s exception is raised here.  A caller that stops early waits for
    the item in the making, if any, and the helper makes no more: what ``make``
    shares (the fabric's link scratch) is free again when this returns.  A daemon
    thread: a stopped process does not wait for it.  The same answers as making
    them in turn: only the order of the work in time changes."""
    results: queue.SimpleQueue = queue.SimpleQueue()
    turn = threading.Semaphore(1)
    stopped = threading.Event()

    def work():
        try:
            for item in items:
                turn.acquire()   # the caller's turn back, or its stop
                if stopped.is_set():
                    return
                results.put((True, make(item)))
            results.put((False, None))
        except BaseException as error:   # the caller's to see
            results.put((False, error))

    helper = threading.Thread(target=work, name="collsim windows ahead", daemon=True)
    helper.start()
    try:
        while True:
            made, value = results.get()
            if not made:
                if value is not None:
                    raise value
                return
            turn.release()   # the helper makes the next while the caller uses this one
            yield value
    finally:
        stopped.set()
        turn.release()   # a helper waiting for its turn sees the stop
        helper.join()


def _made(steps: list, every: bool):
    """The steps, those made one at a time (``programs.ProgramSteps``) made as they
    are taken; with ``every`` each step that stands for several as its plain
    steps (``pattern.plain_steps``), without holding them all at once."""
    for step in steps:
        if getattr(step, "lazy", False):
            yield from step.iter_parts()
        elif every and hasattr(step, "parts"):
            yield from step.parts()
        else:
            yield step


def _run_windows(steps: list, clock: np.ndarray, hosts: np.ndarray, fabric: Fabric,
                 net: NetworkParams, weight_S: float) -> np.ndarray:
    """The rank clocks after a windowed pattern's steps (``Pattern.windowed``: a
    pipeline's, its serial steps as their plain ones): every window of
    :data:`WINDOW_MESSAGES` messages run as events, whatever its size.  When there
    are several, the next window's steps, routes and tasks (:func:`_prepare_together`,
    what the clocks do not change) are made in a helper thread while the event loop
    runs this one (:func:`_made_ahead`): the same answers, and the loop's time only
    on the wall (allreduce ``dual_root_pipelined`` of 1 MiB on the million-rank
    fat-tree: docs/MODELS.md "The next window made while this one runs").  A
    window of :data:`ORDER_MESSAGES` or more is numbered in the order its flows
    would end alone (:func:`_in_order_of_ends`), from clocks that estimate carries
    from window to window: the helper never reads the loop's clocks, so the
    answers do not depend on which thread runs first.  Several windows run
    :data:`PIPED_WINDOWS` at once (:func:`_run_piped`)."""
    messages = sum(step.messages for step in steps)
    several = messages > WINDOW_MESSAGES
    # the clocks were every flow alone, window after window (none for one window
    # too small to be renumbered)
    expected = clock.copy() if several or messages >= ORDER_MESSAGES else None

    def prepare(window):
        return _prepare_together(window, hosts, fabric, net, weight_S, expected)

    windows = _windows(_made(steps, every=True), WINDOW_MESSAGES)
    if several and PIPED_WINDOWS > 1:
        return _run_piped(_made_ahead(windows, prepare), clock)
    for ready in (_made_ahead(windows, prepare) if several else map(prepare, windows)):
        clock = _run_prepared(ready, clock)
    return clock


def _pipe_ends(p: int) -> tuple:
    """One window's clocks on their way to the next (``kernels.run_piped``): the ranks
    in the order they became known, the clocks by rank, [how many known, stopped],
    [progress: every clock still to come is at least this]."""
    return (np.zeros(p, dtype=np.int64), np.zeros(p), np.zeros(2, dtype=np.int64),
            np.full(1, -np.inf))


def _run_piped(prepared, clock: np.ndarray) -> np.ndarray:
    """The rank clocks after the windows ``prepared`` (each as :func:`_prepare_together`
    makes it), :data:`PIPED_WINDOWS` of them run at once, each in a thread of its own
    behind the one before (``kernels.run_piped``): a window takes an event at time t
    once the window before has passed t, so every window takes the same events in
    the same order as run after the one before, and the clocks are the same to the
    bit.  The second core works on the next window instead of waiting (bcast
    ``binary`` of 1 MiB on the million-rank dragonfly: docs/MODELS.md, "The windows
    of a pipeline run at once").  A window that deadlocks stops the ones after it,
    and raises here; so does an exception in a thread.  Leaving early (an exception,
    Ctrl-C) raises the flag that stops the threads waiting for a window before."""
    from . import kernels

    p = len(clock)
    before = (np.arange(p, dtype=np.int64), np.asarray(clock, dtype=float).copy(),
              np.array([p, 0], dtype=np.int64), np.full(1, np.inf))
    stop = np.zeros(1, dtype=np.int64)
    slots = threading.Semaphore(PIPED_WINDOWS)
    failures: list = []
    threads = []

    def run(k, ready, pipe):
        try:
            first_tasks, task_rank, _, arguments = ready
            first_of_rank = np.full(p, -1, dtype=np.int64)
            first_of_rank[task_rank[first_tasks]] = first_tasks
            if kernels.run_piped((first_of_rank, *pipe, stop), *arguments):
                failures.append((k, ValueError(_DEADLOCK)))
        except BaseException as error:   # the caller's to see
            failures.append((k, error))
            pipe[6][1] = 1   # the windows after this one stop
        finally:
            slots.release()

    try:
        for k, ready in enumerate(prepared):
            slots.acquire()
            if failures:
                break
            after = _pipe_ends(p)
            thread = threading.Thread(target=run, args=(k, ready, (*before, *after)),
                                      name="collsim window", daemon=True)
            thread.start()
            threads.append(thread)
            before = after
        for thread in threads:
            thread.join()
    finally:
        if failures or any(thread.is_alive() for thread in threads):
            stop[0] = 1
    if failures:
        # a window that fails stops the ones after it, which report it too: the first is the cause
        raise min(failures, key=lambda failure: failure[0])[1]
    return before[1]


def pattern_time(pattern: Pattern, rank_hosts: np.ndarray, fabric: Fabric,
                 net: NetworkParams, *, weight_S: float = 0.0,
                 together_messages: int = TOGETHER_MESSAGES) -> float:
    """The collective's time: the latest rank clock after the last step.

    Parameters
    ----------
    pattern : Pattern
        The algorithm's steps (:mod:`collsim.analysis.network.patterns`).
    rank_hosts : numpy.ndarray of int
        The host index (``fabric``'s numbering) of each rank.
    fabric : Fabric
        Links and routes.
    net : NetworkParams
        The profile's envelope, factors and overheads (``Profile.model_network``).
    weight_S : float
        SimGrid's ``network/weight-S``: each link adds ``weight_S / bandwidth``
        to a flow's sharing penalty (0 under CM02, the ``hockney`` profile's
        model; 8775 under SMPI's).
    together_messages : int
        Consecutive steps of at most this many messages in all are simulated
        together (:func:`_run_together`); larger ones step by step, each
        alone (:func:`_run_step`), which leaves out how flows of different
        steps compete; those of a windowed pattern (``Pattern.windowed``) in
        windows of consecutive steps of :data:`WINDOW_MESSAGES` messages,
        which leaves it out only between windows.
    """
    hosts = np.asarray(rank_hosts, dtype=np.int64)
    if len(hosts) != pattern.p:
        raise ValueError(f"{len(hosts)} rank hosts for a pattern of {pattern.p} ranks")
    clock = np.zeros(pattern.p)
    together: list[Step] = []
    memo: dict = {}   # the routing of each (senders, receivers) of the steps run alone

    def flush(clock):
        if together and (pattern.together
                         or sum(step.messages for step in together) <= together_messages):
            clock = _run_together(plain_steps(together), clock, hosts, fabric, net, weight_S)
        elif pattern.windowed:
            clock = _run_windows(together, clock, hosts, fabric, net, weight_S)
        else:
            for window in _windows(_made(together, every=False), WINDOW_MESSAGES,
                                   alone=SerialSteps):
                if len(window) > 1:   # steps that fit a window: their flows meet
                    clock = _run_together(window, clock, hosts, fabric, net, weight_S)
                elif isinstance(window[0], SerialSteps):   # steps of one message each
                    clock = _run_serial(window[0], clock, hosts, fabric, net, weight_S)
                else:   # a step of a window's messages or more, alone
                    clock = _run_step(window[0], clock, hosts, fabric, net, weight_S, memo)
        together.clear()
        return clock

    for step in pattern.steps:
        if isinstance(step, ShiftSteps):   # p - 1 permutations, a sample of them timed
            clock = run_shifts(step, flush(clock), hosts, fabric, net, weight_S)
            continue
        if isinstance(step, ShiftBatches):   # many shifts posted at once, a sample timed
            clock = run_batches(step, flush(clock), hosts, fabric, net, weight_S)
            continue
        if isinstance(step, ChainSteps):
            clock = _run_chain(step, flush(clock), hosts, fabric, net, weight_S)
            continue
        if step.repeat == 1:
            together.append(step)
            continue
        clock = flush(clock)
        clock = _repeat(step, clock, hosts, fabric, net, weight_S)
    clock = flush(clock)
    return float(clock.max()) if pattern.p else 0.0
