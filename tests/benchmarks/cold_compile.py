"""Benchmark: the first prediction after an install, on a cold numba cache.

Runs ``collsim predict`` of reduce ``binary`` on 64 random ranks of
modern_dragonfly_slingshot (the event loop with sets of flows: every kernel of
the loop compiles) with ``NUMBA_CACHE_DIR`` pointing at an empty directory,
then once more on the cache that run wrote, and prints the walls of both::

    .venv/bin/python tests/benchmarks/cold_compile.py [--runs 2]
        [--collsim OTHER/.venv/bin/collsim]

``--collsim`` times another checkout's collsim too (before and after a change,
interleaved run by run so that both see the same load).  The figures and what
the compile spends its time on: docs/MODELS.md, "The loop's compile".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from predict_scale import COLLSIM  # noqa: E402 - this checkout's collsim, one home

PREDICTION = ["predict", "--coll", "reduce", "--alg", "binary", "--np", "64",
              "--bytes", "8,1048576", "--platform", "modern_dragonfly_slingshot",
              "--mapping", "random", "--json"]


def _timed(collsim: str, env: dict) -> tuple[float, list[float]]:
    """The wall of one :data:`PREDICTION` in a new process, and its answers."""
    start = time.perf_counter()
    done = subprocess.run([collsim, *PREDICTION], env=env, capture_output=True, text=True,
                          check=True)
    wall_s = time.perf_counter() - start
    return wall_s, [json.loads(line)["model_s"] for line in done.stdout.splitlines()
                    if line.strip()]


def measure(collsim: str) -> dict:
    """A cold run and a warm run of :data:`PREDICTION`: their walls and answers."""
    with tempfile.TemporaryDirectory(prefix="collsim-numba-") as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        cold_s, answers = _timed(collsim, env)
        warm_s, warm_answers = _timed(collsim, env)
    if warm_answers != answers:
        raise SystemExit(f"{collsim}: {answers} on a cold cache, {warm_answers} on a warm one")
    return {"cold_s": cold_s, "warm_s": warm_s, "model_s": answers}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--collsim", action="append", default=[],
                        help="a collsim to time (repeat for several; default: this checkout's)")
    args = parser.parse_args()
    collsims = args.collsim or [str(COLLSIM)]
    runs = {collsim: [] for collsim in collsims}
    for _ in range(args.runs):
        for collsim in collsims:
            runs[collsim].append(measure(collsim))
    print(f"{'cold_s':>8} {'warm_s':>7}  (medians of {args.runs}; cold walls)  model_s  collsim")
    for collsim, rows in runs.items():
        cold = [row["cold_s"] for row in rows]
        warm = [row["warm_s"] for row in rows]
        print(f"{statistics.median(cold):8.1f} {statistics.median(warm):7.1f}  "
              f"({' '.join(f'{wall:.1f}' for wall in cold)})  {rows[0]['model_s']}  {collsim}",
              flush=True)


if __name__ == "__main__":
    main()
