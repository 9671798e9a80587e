"""Benchmark: the shift steps' model against the explicit engine (issue 25).

Above ``pattern.MAX_MESSAGES`` messages (4096 ranks) alltoall ``pairwise``
and ``pairwise_xor``, reduce_scatter ``pairwise`` and reduce ``ring`` time
their p - 1 permutation steps by a stratified sample at each member's own
pace (:mod:`collsim.analysis.network.shifts`).  Here, at sizes where the
explicit pattern runs (every step timed by the engine, clocks carried from
step to step), both are computed on the same setting and their ratio
printed: ``model_s`` (``shifts.run_shifts``, as ``collsim predict`` makes
it above 4096 ranks) and its relative error, then that of three
alternatives, each with a sample and with every shift, each shift timed
from clocks 0: the members' clocks at their own pace (``shifts.own_pace``),
coupled to their partners' once per stratum (``coupled``) and in
lockstep (``lockstep``); and ``carried_mean`` (each sampled
shift from the clocks as they stand, the rest of its stratum at that
step's mean time).  Not part of ``make test``.

    nice -n 5 .venv/bin/python tests/benchmarks/shift_accuracy.py [--np 1024,4096]
        [--machines FT,FT4,DF,DF128] [--mappings block,random:7] [--bytes 8,65536]
        [--entries alltoall/pairwise,...] [--lazy] > shifts.tsv

``--lazy``: the explicit engine's steps made one at a time (never the whole
pattern in memory), for sizes above 4096 ranks (its machines then need as
many nodes: ``--machines FT8K,DF8K``).
"""

from __future__ import annotations

import argparse
import functools
import sys
import time

import numpy as np

from collsim.analysis.network import engine
from collsim.analysis.network import pattern as pattern_module
from collsim.analysis.network import shifts
from collsim.analysis.network.engine import pattern_time
from collsim.analysis.network.patterns import pattern_for
from collsim.analysis.network.serial import SerialSteps
from collsim.network_model import network_setting
from collsim.predictions import request_from_table
from collsim.profiles import checked_profile

MACHINES = {
    # 4096 nodes, full bisection; the same with 4:1 tapered upper levels
    "FT": {"generator": "fat_tree", "levels": 3, "down_ports": [16, 16, 16],
           "up_ports": [1, 16, 16]},
    "FT4": {"generator": "fat_tree", "levels": 3, "down_ports": [16, 16, 16],
            "up_ports": [1, 4, 4]},
    # 17 groups of 256 nodes (4096 ranks fill 16 of them, as a million fill 256 of 257)
    "DF": {"generator": "dragonfly", "groups": 17, "chassis_per_group": 1,
           "routers_per_chassis": 16, "nodes_per_router": 16},
    # 8192 and 16,384 nodes, for --lazy above 4096 ranks
    "FT16K": {"generator": "fat_tree", "levels": 3, "down_ports": [16, 32, 32],
              "up_ports": [1, 16, 32]},
    # 33 groups of 32 routers of 8 nodes: each router one global link, as the
    # million-node dragonfly's 257 groups of 256 routers
    "DF8K": {"generator": "dragonfly", "groups": 33, "chassis_per_group": 1,
             "routers_per_chassis": 32, "nodes_per_router": 8},
    # 33 groups of 128 nodes (4096 ranks fill 32 of them)
    "DF128": {"generator": "dragonfly", "groups": 33, "chassis_per_group": 1,
              "routers_per_chassis": 32, "nodes_per_router": 4},
}
ENTRIES = ["alltoall/pairwise", "alltoall/pairwise_xor", "reduce_scatter/pairwise", "reduce/ring"]


def _time(entry: str, setting, p: int, n_bytes: int, explicit: bool,
          run=None) -> tuple[float, float]:
    """(model_s, CPU s) of ``entry`` with its explicit steps or its shift steps (timed by
    ``run`` in place of ``shifts.run_shifts`` when given)."""
    collective, algorithm = entry.split("/")
    saved = pattern_module.MAX_MESSAGES, engine.run_shifts
    pattern_module.MAX_MESSAGES = saved[0] if explicit else 0
    engine.run_shifts = run or saved[1]
    try:
        start = time.process_time()
        built = pattern_for(collective, algorithm)(p, n_bytes // 8, elem_bytes=8, root=0)
        model_s = pattern_time(built, setting.rank_hosts, setting.fabric, setting.net,
                               weight_S=setting.weight_S)
        return model_s, time.process_time() - start
    finally:
        pattern_module.MAX_MESSAGES, engine.run_shifts = saved


def lockstep(samples, start_s: np.ndarray) -> np.ndarray:
    """Every member's clock after the series in lockstep: each step ends on all at its
    slowest member's time (an upper bound of ``shifts.own_pace``)."""
    return np.full(len(start_s), start_s.max() + sum(w * times.max() for _, w, times in samples))


def coupled(samples, start_s: np.ndarray, xor: bool) -> np.ndarray:
    """Own pace, but a member starts each stratum at the latest of its clock and its two
    partners' in the sampled shift (the engine's coupling, once per stratum rather than
    once per step; for the benchmark's comparison)."""
    clock = start_s.copy()
    j = np.arange(len(clock))
    for k, w, times in samples:
        to, come = (j ^ k, j ^ k) if xor else ((j + k) % len(j), (j - k) % len(j))
        clock = np.maximum(clock, np.maximum(clock[to], clock[come])) + w * times
    return clock


def carried_mean(steps: shifts.ShiftSteps, clock: np.ndarray, hosts: np.ndarray, fabric, net,
                 weight_S: float = 0.0, strata: int | None = None, *, time_step) -> np.ndarray:
    """``shifts.run_shifts``'s alternative (for the benchmark's comparison): each sampled
    shift timed by the engine's step from the clocks as they stand, then the other
    shifts of its stratum advancing every member by that step's mean time.  Nearer the
    engine where ranks drift apart (random ranks, large blocks), further where members'
    times differ by route class (the block-mapped fat-trees), and steps started at
    spread clocks cost many events each (MODELS.md, "Scale")."""
    at, weight = shifts.shift_strata(len(steps.shifts),
                                     shifts.SAMPLE_STRATA if strata is None else strata)
    members = steps.src
    for k, w in zip(steps.shifts[at].tolist(), weight.tolist()):
        after = time_step(steps.step(k), clock, hosts, fabric, net, weight_S)
        if w > 1:
            after[members] += (w - 1) * float(np.mean(after[members] - clock[members]))
        clock = after
    return clock


def _alternative(clocks, strata: int | None, cache: dict):
    """A ``run_shifts`` whose members' clocks are ``clocks(samples, start)`` of the
    shifts sampled from clocks 0 (``shifts.sampled_times``, kept in ``cache``)."""
    def run(steps, clock, hosts, fabric, net, weight_S=0.0):
        if strata not in cache:
            cache[strata] = list(shifts.sampled_times(steps, hosts, fabric, net, weight_S,
                                                      strata, time_step=engine._run_step))
        after = clock.copy()
        after[steps.src] = clocks(cache[strata], clock[steps.src])
        return after
    return run


def _lazy(entry: str, setting, p: int, n_bytes: int) -> tuple[float, float]:
    """(model_s, CPU s) of the explicit engine with the steps made one at a time: each
    step timed alone from the ranks' clocks, as ``engine.pattern_time`` times the steps
    of a pattern of more than ``engine.TOGETHER_MESSAGES`` messages (every shift step
    above 128 ranks), without holding the p (p - 1) messages."""
    collective, algorithm = entry.split("/")
    saved = pattern_module.MAX_MESSAGES
    pattern_module.MAX_MESSAGES = 0
    try:
        built = pattern_for(collective, algorithm)(p, n_bytes // 8, elem_bytes=8, root=0)
    finally:
        pattern_module.MAX_MESSAGES = saved
    start = time.process_time()
    clock = np.zeros(p)
    args = (setting.rank_hosts, setting.fabric, setting.net, setting.weight_S)
    for step in built.steps:
        if isinstance(step, shifts.ShiftSteps):
            for k in step.shifts.tolist():
                clock = engine._run_step(step.step(k), clock, *args)
        elif isinstance(step, SerialSteps):
            clock = engine._run_serial(step, clock, *args)
        else:
            raise ValueError(f"{entry}: a step neither shift nor serial")
    return float(clock.max()), time.process_time() - start


def _row(entry: str, setting, p: int, n_bytes: int, lazy: bool = False) -> list:
    """The explicit engine's time and each model's error: the sample and every shift,
    own pace, coupled once per stratum, lockstep."""
    explicit_s, explicit_cpu = (_lazy if lazy else _time)(entry, setting, p, n_bytes,
                                                          *(() if lazy else (True,)))
    model_s, model_cpu = _time(entry, setting, p, n_bytes, False)
    xor = entry.endswith("xor")
    variants = [shifts.own_pace, lambda s, c: coupled(s, c, xor), lockstep]
    cache: dict = {}
    errors = [_time(entry, setting, p, n_bytes, False, _alternative(clocks, strata, cache))[0]
              / explicit_s - 1 for strata in (None, p) for clocks in variants]
    carried = functools.partial(carried_mean, time_step=engine._run_step)
    carried_s, carried_cpu = _time(entry, setting, p, n_bytes, False, carried)
    return [explicit_s, model_s, model_s / explicit_s - 1, *errors, carried_s / explicit_s - 1,
            explicit_cpu, model_cpu, carried_cpu]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--np", default="1024,4096")
    parser.add_argument("--machines", default="FT,FT4,DF,DF128")
    parser.add_argument("--mappings", default="block,random:7")
    parser.add_argument("--bytes", default="8,65536")
    parser.add_argument("--entries", default=",".join(ENTRIES))
    parser.add_argument("--lazy", action="store_true",
                        help="the explicit engine's steps made one at a time (above 4096 ranks)")
    args = parser.parse_args(argv)
    profile = checked_profile("hockney")
    print("entry\tmachine\tmapping\tnp\tbytes\texplicit_s\tmodel_s\tmodel_err\tsample_own"
          "\tsample_coupled"
          "\tsample_lockstep\tevery_own\tevery_coupled\tevery_lockstep\tcarried_mean"
          "\texplicit_cpu_s\tmodel_cpu_s\tcarried_cpu_s", flush=True)
    for p in map(int, args.np.split(",")):
        for machine in args.machines.split(","):
            for mapping in args.mappings.split(","):
                setting = network_setting(request_from_table(MACHINES[machine]), profile, p,
                                          mapping)
                for n_bytes in map(int, args.bytes.split(",")):
                    for entry in args.entries.split(","):
                        if entry.endswith("xor") and p & (p - 1):
                            continue
                        row = _row(entry, setting, p, n_bytes, args.lazy)
                        print("\t".join([entry, machine, mapping, str(p), str(n_bytes),
                                         f"{row[0]:.9g}", f"{row[1]:.9g}",
                                         *(f"{e:+.5f}" for e in row[2:10]),
                                         f"{row[10]:.1f}", f"{row[11]:.2f}",
                                         f"{row[12]:.2f}"]), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
