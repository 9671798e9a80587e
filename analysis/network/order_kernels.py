"""The compiled loops that number the flows of steps run together in the order they are
expected to end (numba, loaded on first use, as :mod:`collsim.analysis.network.kernels`,
whose notes on the cache apply).

The event loop (``kernels.run_together``) waits for memory: each event reads the
state of the flows it starts and ends, of their links and of their tasks, at indexes
the messages give.  Numbered as the steps list them, the flows in flight at one
time lie far apart in every array.  Numbered in the order they end, they lie
together (docs/MODELS.md, "Flows numbered in the order they are expected to end").
"""

from __future__ import annotations

import numba
import numpy as np

# numba's cache records the module's import name (kernels.py says why).
_CACHE = __name__ == "collsim.analysis.network.order_kernels"

__all__ = ["lone_ends", "in_order", "renumbered_lists", "renumbered_messages"]


@numba.njit(cache=_CACHE, nogil=True)
def lone_ends(first_tasks, first_times, task_rank, pending, reduce_s, task_first, task_msg, msg_tasks,
              post_tasks, post_delay, eager, send_cost, receive_cost, data_latency, size,
              rate_factor, flow_start, flow_link, capacity, bound):
    """When each message and each task would end were every flow alone on the
    network, the first tasks starting at ``first_times``: an estimate of the event
    loop's order, not of its times.

    The arguments are ``kernels.run_together``'s of the same names.  The tasks
    and messages follow the loop's rules (a message is posted when both its
    posting tasks have started, each plus its delay; its data start a route
    latency later; a task ends when it has started and its messages are done,
    the receiver's o_r after the data, an eager send at its start plus o_s;
    its rank's next task starts after its reduction), except that a message
    moves at its lone rate (its bound or its shared links' lowest capacity,
    times its rate factor) and a rank's receives do not wait for each other.
    Every update is a maximum or a count, so the tasks and messages are taken
    from two stacks, in no order of time.  A message whose tasks never start
    (a deadlock, which the loop reports) ends at infinity, a task at -infinity.
    ``pending`` is not changed.
    """
    n_tasks = len(task_rank)
    m = len(size)
    left = pending.copy()
    task_start = np.full(n_tasks, np.inf)
    task_last = np.full(n_tasks, -np.inf)
    end = np.full(m, np.inf)
    stack_task = np.empty(n_tasks, dtype=np.int64)
    stack_time = np.empty(n_tasks)
    n_stack = 0
    for i in range(len(first_tasks) - 1, -1, -1):
        stack_task[n_stack] = first_tasks[i]
        stack_time[n_stack] = first_times[i]
        n_stack += 1
    ended = np.empty(m, dtype=np.int64)
    n_ended = 0
    while n_stack > 0 or n_ended > 0:
        while n_stack > 0:
            n_stack -= 1
            t = stack_task[n_stack]
            task_start[t] = stack_time[n_stack]
            for e in range(task_first[t], task_first[t + 1]):
                msg = task_msg[e]
                if end[msg] == np.inf:
                    a = task_start[post_tasks[0, msg]] + post_delay[0, msg]
                    b = task_start[post_tasks[1, msg]] + post_delay[1, msg]
                    if a < np.inf and b < np.inf:
                        rate = bound[msg]
                        for h in range(flow_start[msg], flow_start[msg + 1]):
                            rate = min(rate, capacity[flow_link[h]])
                        end[msg] = (max(a, b) + data_latency[msg]
                                    + size[msg] / (rate * rate_factor[msg]))
                        ended[n_ended] = msg
                        n_ended += 1
                if eager[msg] and msg_tasks[0, msg] == t:
                    task_last[t] = max(task_last[t], task_start[t] + send_cost[msg])
                    left[t] -= 1
            if left[t] == 0:
                n_stack = _next_task(t, task_start, task_last, task_rank, reduce_s,
                                     stack_task, stack_time, n_stack)
        if n_ended > 0:
            n_ended -= 1
            msg = ended[n_ended]
            r = msg_tasks[1, msg]
            task_last[r] = max(task_last[r], end[msg] + receive_cost[msg])
            left[r] -= 1
            if left[r] == 0 and task_start[r] < np.inf:
                n_stack = _next_task(r, task_start, task_last, task_rank, reduce_s,
                                     stack_task, stack_time, n_stack)
            if not eager[msg]:
                s = msg_tasks[0, msg]
                task_last[s] = max(task_last[s], end[msg])
                left[s] -= 1
                if left[s] == 0 and task_start[s] < np.inf:
                    n_stack = _next_task(s, task_start, task_last, task_rank, reduce_s,
                                         stack_task, stack_time, n_stack)
    return end, task_last


@numba.njit(cache=_CACHE, inline="always")
def _next_task(t, task_start, task_last, task_rank, reduce_s, stack_task, stack_time,
               n_stack):
    """Task ``t`` waits for nothing more: it ends (no earlier than its start), and its
    rank's next task, if any, goes on the stack to start after ``t``'s reduction.
    Returns the stack's new height.  The loop's rule (``kernels._start_tasks`` and
    ``kernels._event_loop`` write it out, with the deferred o_r this estimate
    leaves out): a change to it there is a change here."""
    task_last[t] = max(task_last[t], task_start[t])
    if t + 1 < len(task_rank) and task_rank[t + 1] == task_rank[t]:
        stack_task[n_stack] = t + 1
        stack_time[n_stack] = task_last[t] + reduce_s[t]
        n_stack += 1
    return n_stack


@numba.njit(cache=_CACHE, nogil=True)
def renumbered_lists(order, flow_start, flow_link, n_links):
    """``kernels.link_lists``'s CSR lists with flow ``order[i]`` numbered ``i`` and the
    shared links numbered in the order the flows so numbered first cross them.

    Returns ``(flow_start, flow_link, link_start, link_flow)`` (each flow's
    links in route order, each link's flows ascending, as ``link_lists``
    makes them) and each new link's old number.
    """
    m = len(order)
    new_link = np.full(n_links, -1, dtype=np.int64)
    old_link = np.empty(n_links, dtype=np.int64)
    new_start = np.zeros(m + 1, dtype=np.int64)
    new_flow_link = np.empty(len(flow_link), dtype=flow_link.dtype)
    link_start = np.zeros(n_links + 1, dtype=np.int64)
    k = 0
    for i in range(m):
        f = order[i]
        e = new_start[i]
        for h in range(flow_start[f], flow_start[f + 1]):
            link = flow_link[h]
            if new_link[link] < 0:
                new_link[link] = k
                old_link[k] = link
                k += 1
            new_flow_link[e] = new_link[link]
            link_start[new_link[link] + 1] += 1
            e += 1
        new_start[i + 1] = e
    if k != n_links:
        raise ValueError("a shared link no flow crosses")
    for j in range(n_links):
        link_start[j + 1] += link_start[j]
    cursor = link_start[:-1].copy()
    link_flow = np.empty(len(flow_link), dtype=flow_link.dtype)
    for i in range(m):
        for e in range(new_start[i], new_start[i + 1]):
            j = new_flow_link[e]
            link_flow[cursor[j]] = i
            cursor[j] += 1
    return (new_start, new_flow_link, link_start, link_flow), old_link


@numba.njit(cache=_CACHE, nogil=True)
def in_order(times):
    """The indexes of ``times`` in ascending order of time, by a counting sort over
    ``len(times)`` equal slices of their finite range (within a slice, and among
    the infinite, in index order): an order for the loop's arrays, which need not
    be exact, in two passes over the times rather than a sort's."""
    n = len(times)
    low = np.inf
    high = -np.inf
    for t in times:
        if t < np.inf:
            low = min(low, t)
            high = max(high, t)
    scale = n / (high - low) if high > low else 0.0
    slot = np.empty(n, dtype=np.int64)
    first = np.zeros(n + 2, dtype=np.int64)
    for i in range(n):
        t = times[i]
        s = n if t == np.inf else min(int((t - low) * scale), n - 1)
        slot[i] = s
        first[s + 1] += 1
    for s in range(n + 1):
        first[s + 1] += first[s]
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[first[slot[i]]] = i
        first[slot[i]] += 1
    return order


@numba.njit(cache=_CACHE, nogil=True)
def renumbered_messages(order, task_msg, msg_tasks, post_tasks, post_delay, eager, send_cost,
                        receive_cost, data_latency, size, rate_factor, penalty, bound):
    """``kernels.run_together``'s arrays of the messages with message ``order[i]``
    numbered ``i``: the tasks' lists of messages (``task_msg``) renumbered, every
    per-message array (its columns, for the two-row ones) taken in ``order``."""
    m = len(order)
    number = np.empty(m, dtype=np.int64)
    new_tasks = np.empty((2, m), dtype=msg_tasks.dtype)
    new_post = np.empty((2, m), dtype=post_tasks.dtype)
    new_delay = np.empty((2, m))
    new_eager = np.empty(m, dtype=eager.dtype)
    per_message = np.empty((7, m))
    for i in range(m):
        number[order[i]] = i
    for f in range(m):
        i = number[f]
        new_tasks[0, i] = msg_tasks[0, f]
        new_tasks[1, i] = msg_tasks[1, f]
        new_post[0, i] = post_tasks[0, f]
        new_post[1, i] = post_tasks[1, f]
        new_delay[0, i] = post_delay[0, f]
        new_delay[1, i] = post_delay[1, f]
        new_eager[i] = eager[f]
        per_message[0, i] = send_cost[f]
        per_message[1, i] = receive_cost[f]
        per_message[2, i] = data_latency[f]
        per_message[3, i] = size[f]
        per_message[4, i] = rate_factor[f]
        per_message[5, i] = penalty[f]
        per_message[6, i] = bound[f]
    new_msg = np.empty(len(task_msg), dtype=task_msg.dtype)
    for e in range(len(task_msg)):
        new_msg[e] = number[task_msg[e]]
    return (new_msg, new_tasks, new_post, new_delay, new_eager, per_message[0], per_message[1],
            per_message[2], per_message[3], per_message[4], per_message[5], per_message[6])
