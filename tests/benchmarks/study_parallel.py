"""Benchmark: does the local runner keep every core busy?

Runs one 40-simulation study (2 crossbars x 4 allreduce algorithms x 5 process
counts, 3 sizes each) with `collsim study --jobs 1` and `--jobs 2`, each into a
fresh database, and prints the wall times and the speed-up.  The issue asks for
at least 1.7x on 2 cores.  Not part of `make test` (about 1 minute on 2 cores).

    .venv/bin/python tests/benchmarks/study_parallel.py [--jobs 1,2]
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SCENARIO = """\
[study]
name = "parallel-benchmark"
np = [32, 40, 48, 63, 64]

[[machine]]
name = "xbar-100G"
platform = { generator = "crossbar", nodes = 64, bandwidth_Bps = 12.5e9 }

[[machine]]
name = "xbar-200G"
platform = { generator = "crossbar", nodes = 64, bandwidth_Bps = 25e9 }

[[workload]]
collective = "allreduce"
sizes = ["8", "64KiB", "1MiB"]
algorithms = ["recursive_doubling", "ring", "rabenseifner", "reduce_bcast"]
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="1,2", help="worker counts to compare")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="collsim-bench-") as directory:
        scenario = Path(directory) / "bench.toml"
        scenario.write_text(SCENARIO)
        times = {}
        for jobs in (int(j) for j in args.jobs.split(",")):
            db = Path(directory) / f"jobs{jobs}.db"
            started = time.perf_counter()
            completed = subprocess.run(
                [sys.executable, "-m", "collsim", "study", str(scenario), "--db", str(db),
                 "--jobs", str(jobs)], capture_output=True, text=True, check=True)
            times[jobs] = time.perf_counter() - started
            print(f"--jobs {jobs}: {times[jobs]:.1f} s  ({completed.stdout.strip()})")
        base = times[min(times)]
        for jobs, seconds in sorted(times.items()):
            print(f"speed-up with {jobs} workers: {base / seconds:.2f}x")


if __name__ == "__main__":
    main()
