"""Benchmark: the shift batches' model against the explicit engine (issue 25).

Above ``pattern.MAX_MESSAGES`` messages (4096 ranks) alltoall ``linear``
and ``scattered`` time their batches of shifts posted at once by a weighted
sample of each batch's shifts, ``scattered``'s batches sampled at each
member's own pace (:mod:`collsim.analysis.network.batches`; ``linear`` on the
block mapping of a fat-tree or a dragonfly by the fabric's levels, one flow per
member and level).  Here, at sizes
where the explicit pattern runs (every message, each batch one step of the
engine, clocks carried), both are computed on the same setting and their
ratio printed, with the CPU seconds of each.  Not part of ``make test``.

    nice -n 5 .venv/bin/python tests/benchmarks/batch_accuracy.py [--np 1024,4096]
        [--machines FT,DF] [--mappings block] [--bytes 8,65536]
        [--profiles hockney,seed003_openmpi_opa] [--entries linear,scattered]
        [--lazy] > batches.tsv

``--lazy``: the explicit engine's batches made one at a time (never the
whole pattern in memory), for ``scattered`` above 4096 ranks (its machines
then need as many nodes: ``--machines FT16K,DF8K``).  The machines are
``shift_accuracy.py``'s.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from shift_accuracy import MACHINES  # noqa: E402

from collsim.analysis.network import engine  # noqa: E402
from collsim.analysis.network import pattern as pattern_module  # noqa: E402
from collsim.analysis.network.batches import ShiftBatches  # noqa: E402
from collsim.analysis.network.engine import pattern_time  # noqa: E402
from collsim.analysis.network.pattern import Step  # noqa: E402
from collsim.analysis.network.patterns import pattern_for  # noqa: E402
from collsim.network_model import network_setting  # noqa: E402
from collsim.predictions import request_from_table  # noqa: E402
from collsim.profiles import checked_profile  # noqa: E402


def _built(algorithm: str, p: int, n_bytes: int, explicit: bool):
    saved = pattern_module.MAX_MESSAGES
    pattern_module.MAX_MESSAGES = max(saved, p * p) if explicit else 0
    try:
        return pattern_for("alltoall", algorithm)(p, n_bytes // 8, elem_bytes=8, root=0)
    finally:
        pattern_module.MAX_MESSAGES = saved


def _time(algorithm: str, setting, p: int, n_bytes: int, explicit: bool) -> tuple[float, float]:
    """(model_s, CPU s) of the entry with its explicit steps or its shift batches."""
    start = time.process_time()
    built = _built(algorithm, p, n_bytes, explicit)
    model_s = pattern_time(built, setting.rank_hosts, setting.fabric, setting.net,
                           weight_S=setting.weight_S)
    return model_s, time.process_time() - start


def _lazy(algorithm: str, setting, p: int, n_bytes: int) -> tuple[float, float]:
    """(model_s, CPU s) of the explicit engine with the batches made one at a time, each
    timed alone from the ranks' clocks (``engine._run_step``, as ``pattern_time`` times
    steps of more than ``engine.TOGETHER_MESSAGES`` messages)."""
    start = time.process_time()
    steps = _built(algorithm, p, n_bytes, False).steps[0]
    if not isinstance(steps, ShiftBatches):
        raise ValueError(f"alltoall/{algorithm}: not shift batches")
    clock = np.zeros(p)
    for b in range(steps.n_batches):
        clock = engine._run_step(_one_batch(steps, b), clock, setting.rank_hosts,
                                 setting.fabric, setting.net, setting.weight_S)
    return float(clock.max()), time.process_time() - start


def _one_batch(steps: ShiftBatches, b: int):
    """Batch ``b`` as a plain step (``ShiftBatches.explicit``'s, one of them)."""
    p = len(steps.src)
    offsets = steps.batch(b)
    j = np.repeat(np.arange(p, dtype=np.int64), len(offsets))
    t = (j - np.tile(offsets, p)) % p if steps.backward else (j + np.tile(offsets, p)) % p
    return Step(steps.src[j], steps.src[t], np.full(len(j), int(steps.n_bytes[0])),
                       receive_first=np.ones(len(j)))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--np", default="1024,4096")
    parser.add_argument("--machines", default="FT,DF")
    parser.add_argument("--mappings", default="block")
    parser.add_argument("--bytes", default="8,65536")
    parser.add_argument("--profiles", default="hockney,seed003_openmpi_opa")
    parser.add_argument("--entries", default="linear,scattered")
    parser.add_argument("--lazy", action="store_true",
                        help="the explicit engine's batches made one at a time")
    args = parser.parse_args(argv)
    print("entry\tmachine\tmapping\tprofile\tnp\tbytes\texplicit_s\tmodel_s\tmodel_err"
          "\texplicit_cpu_s\tmodel_cpu_s", flush=True)
    for p in map(int, args.np.split(",")):
        for machine in args.machines.split(","):
            for mapping in args.mappings.split(","):
                for profile in args.profiles.split(","):
                    setting = network_setting(request_from_table(MACHINES[machine]),
                                              checked_profile(profile), p, mapping)
                    for n_bytes in map(int, args.bytes.split(",")):
                        for algorithm in args.entries.split(","):
                            explicit_s, explicit_cpu = (
                                _lazy(algorithm, setting, p, n_bytes) if args.lazy
                                else _time(algorithm, setting, p, n_bytes, True))
                            model_s, model_cpu = _time(algorithm, setting, p, n_bytes, False)
                            print("\t".join([
                                f"alltoall/{algorithm}", machine, mapping, profile, str(p),
                                str(n_bytes), f"{explicit_s:.9g}", f"{model_s:.9g}",
                                f"{model_s / explicit_s - 1:+.5f}", f"{explicit_cpu:.1f}",
                                f"{model_cpu:.2f}"]), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
