"""A pipeline's windows run at once (engine._run_piped, kernels.run_piped): each window
takes an event only once the window before has passed its time, so the clocks are
those of the windows run one after another, to the bit; a window that fails stops
the ones after it, and the flag to stop ends a window that waits."""

import threading
import time
from dataclasses import replace

import numpy as np
import pytest

from collsim.analysis.network import engine, kernels, pattern_time
from collsim.analysis.network.patterns import trees
from collsim.network_model import network_setting
from collsim.params import DEFAULT_PARAMS
from collsim.platform_cli import PlatformRequest
from collsim.profiles import load_profile

MACHINES = {
    # (family, platform kwargs, mapping): sets kept on the dragonfly's global links
    "dragonfly": ("dragonfly", {"groups": 5, "chassis_per_group": 1, "routers_per_chassis": 8,
                                "nodes_per_router": 8}, "block"),
    "fat-tree 4:1": ("fat_tree", {"levels": 2, "down_ports": [16, 16], "up_ports": [1, 4]},
                     "random:3"),
}
ENTRIES = [("bcast", "binary"), ("reduce", "binary"), ("allreduce", "pipelined_tree"),
           ("allreduce", "dual_root_pipelined")]


def _setting(machine: str, p: int):
    family, kwargs, mapping = MACHINES[machine]
    request = PlatformRequest(label=machine, family=family, kwargs=kwargs)
    setting = network_setting(request, load_profile("hockney"), p, mapping)
    return setting.rank_hosts, setting.fabric, setting.net


def _windows_alive() -> list:
    return [t for t in threading.enumerate() if t.name == "collsim window"]


@pytest.mark.parametrize("machine", MACHINES)
def test_windows_run_at_once_give_the_clocks_of_windows_in_turn(monkeypatch, machine):
    p = 256
    hosts, fabric, net = _setting(machine, p)
    monkeypatch.setattr(engine, "WINDOW_MESSAGES", 1 << 11)
    if machine == "dragonfly":   # sets kept on the small dragonfly (routed on its graph)
        monkeypatch.setattr(engine, "KEEP_SETS_FABRICS", (type(fabric),))
        monkeypatch.setattr(engine, "KEEP_SETS_FLOWS", 16)
    piped, sets = [], []
    run_piped = kernels.run_piped
    monkeypatch.setattr(kernels, "run_piped", lambda pipe, *arguments: piped.append(
        1) or sets.append(arguments[-1]) or run_piped(pipe, *arguments))
    for collective, algorithm in ENTRIES:
        pattern = trees.PATTERNS[(collective, algorithm)](
            p, 1 << 17, elem_bytes=8, root=5, params=replace(DEFAULT_PARAMS, block_count=40))
        piped.clear()
        monkeypatch.setattr(engine, "PIPED_WINDOWS", 2)
        at_once = pattern_time(pattern, hosts, fabric, net, together_messages=0)
        assert len(piped) >= 4   # several windows, each through the pipe
        monkeypatch.setattr(engine, "PIPED_WINDOWS", 1)
        assert pattern_time(pattern, hosts, fabric, net, together_messages=0) == at_once
    assert any(sets) == (machine == "dragonfly")
    assert not _windows_alive()


def _second_window_fails(monkeypatch, collective: str, second) -> float:
    """pattern_time of ``collective`` ``binary`` in windows of 2048 messages on the 4:1
    fat-tree, the second window's kernels.run_piped replaced by ``second(pipe)``."""
    hosts, fabric, net = _setting("fat-tree 4:1", 256)
    monkeypatch.setattr(engine, "WINDOW_MESSAGES", 1 << 11)
    pattern = trees.PATTERNS[(collective, "binary")](
        256, 1 << 17, elem_bytes=8, params=replace(DEFAULT_PARAMS, block_count=40))
    calls = []
    run_piped = kernels.run_piped

    def piped(pipe, *arguments):
        calls.append(1)
        return second(pipe) if len(calls) == 2 else run_piped(pipe, *arguments)

    monkeypatch.setattr(kernels, "run_piped", piped)
    return pattern_time(pattern, hosts, fabric, net, together_messages=0)


def test_a_window_that_fails_stops_the_ones_after_it_and_raises(monkeypatch):
    def fails(pipe):
        raise RuntimeError("window two")

    with pytest.raises(RuntimeError, match="window two"):
        _second_window_fails(monkeypatch, "bcast", fails)
    assert not _windows_alive()   # the third, waiting for the second, stopped


def test_a_window_that_deadlocks_raises_the_engine_s_error(monkeypatch):
    def deadlocks(pipe):   # the kernel's answer: True, the windows after told to stop
        pipe[7][1] = 1
        return True

    with pytest.raises(ValueError, match="the steps deadlock"):
        _second_window_fails(monkeypatch, "reduce", deadlocks)
    assert not _windows_alive()


def _one_window(p: int = 64):
    hosts, fabric, net = _setting("fat-tree 4:1", p)
    pattern = trees.PATTERNS[("bcast", "binary")](p, 1 << 12, elem_bytes=8)
    first_tasks, task_rank, _, arguments = engine._prepare_together(
        list(pattern.steps), hosts, fabric, net)
    first_of_rank = np.full(p, -1, dtype=np.int64)
    first_of_rank[task_rank[first_tasks]] = first_tasks
    return first_of_rank, arguments


def test_a_window_stops_when_the_one_before_stopped_or_the_flag_is_raised():
    p = 64
    first_of_rank, arguments = _one_window(p)
    # the window before stopped: this one stops, and tells the next
    before = (np.zeros(p, dtype=np.int64), np.zeros(p), np.array([0, 1]), np.full(1, -np.inf))
    after = engine._pipe_ends(p)
    stop = np.zeros(1, dtype=np.int64)
    assert kernels.run_piped((first_of_rank, *before, *after, stop), *arguments)
    assert after[2][1] == 1
    # the window before gives nothing: this one waits until the flag to stop is raised
    first_of_rank, arguments = _one_window(p)
    before = (np.zeros(p, dtype=np.int64), np.zeros(p), np.array([0, 0]), np.full(1, -np.inf))
    after = engine._pipe_ends(p)
    stopped = []
    waiting = threading.Thread(target=lambda: stopped.append(kernels.run_piped(
        (first_of_rank, *before, *after, stop), *arguments)))
    waiting.start()
    time.sleep(0.2)
    assert waiting.is_alive() and after[2][0] == 0
    stop[0] = 1
    waiting.join(10)
    assert not waiting.is_alive() and stopped == [True] and after[2][1] == 1


def test_clocks_come_in_a_few_at_a_time_and_pass_through():
    # the window's 64 ranks and 16 more without a task in it; the clocks come in, in the
    # order of their values, in batches with the progress at the next one to come: the
    # clocks out are those of the window run alone from all of them, to the bit, and the
    # 16 others' pass through as they came
    p, extra = 64, 16
    first_of_rank, arguments = _one_window(p)
    first_of_rank = np.concatenate([first_of_rank, np.full(extra, -1, dtype=np.int64)])
    rng = np.random.default_rng(11)
    clock = rng.random(p + extra) * 1e-4
    clock[::7] = 0.0
    ranks = np.flatnonzero(first_of_rank >= 0)
    task_last, deadlock = kernels.run_together(first_of_rank[ranks], clock[ranks],
                                               *_one_window(p)[1])
    assert not deadlock
    alone = clock.copy()
    kernels.scatter_max(alone, arguments[0], task_last + arguments[2])
    before, after = engine._pipe_ends(p + extra), engine._pipe_ends(p + extra)
    stop = np.zeros(1, dtype=np.int64)
    result = []
    window = threading.Thread(target=lambda: result.append(kernels.run_piped(
        (first_of_rank, *before, *after, stop), *arguments)))
    window.start()
    order = np.argsort(clock, kind="stable")
    for batch in np.array_split(np.arange(p + extra), 6):
        before[1][order[batch]] = clock[order[batch]]
        before[0][batch] = order[batch]
        before[2][0] = batch[-1] + 1
        rest = batch[-1] + 1
        before[3][0] = clock[order[rest]] if rest < p + extra else np.inf
        time.sleep(0.05)
    window.join(10)
    assert result == [False]
    assert after[2][0] == p + extra and after[3][0] == np.inf
    assert np.array_equal(after[1], alone)
    assert sorted(after[0]) == list(range(p + extra))
