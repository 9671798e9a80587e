"""Benchmark: ``collsim predict`` at 1,048,576 ranks (issue 25's speed targets).

Runs ``collsim predict ... --json`` under ``/usr/bin/time -v`` for each
(machine, algorithm) and prints the model's answer, the median wall time,
CPU time (user + system) and peak memory over ``--runs`` runs.  The issue
asks for <= 10 s each for ring, recursive doubling and Rabenseifner allreduce
of 1 MiB, every registry algorithm <= 60 s, within 4 GB.  The machine is
shared: CPU seconds are the steadier figure.  Not part of ``make test``.

    nice -n 5 .venv/bin/python tests/benchmarks/predict_scale.py [--runs 3]
        [--algorithms ring,recursive_doubling,rabenseifner] [--machines FT,DF]
        [--collsim OTHER/.venv/bin/collsim]

``--collsim`` times another checkout's collsim (before and after a change,
interleaved run by run so that both see the same load).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
COLLSIM = REPO / ".venv" / "bin" / "collsim"

MACHINES = {
    "FT": ["--platform", "fat-tree", "--levels", "3", "--down-ports", "64,64,256",
           "--up-ports", "1,64,64"],
    "DF": ["--platform", "dragonfly", "--dragonfly-groups", "257", "--chassis-per-group", "1",
           "--routers-per-chassis", "256", "--nodes-per-router", "16"],
}


def _wall_s(text: str) -> float:
    """``h:mm:ss`` or ``m:ss.ss`` of time -v's elapsed line, in seconds."""
    seconds = 0.0
    for part in text.split(":"):
        seconds = seconds * 60 + float(part)
    return seconds


def measure(collsim: str, machine: str, collective: str, algorithm: str, np_ranks: int,
            size: str) -> dict:
    """One run: the model's answer and what ``/usr/bin/time -v`` says of it."""
    command = ["/usr/bin/time", "-v", collsim, "predict", *MACHINES[machine],
               "--np", str(np_ranks), "--coll", collective, "--alg", algorithm,
               "--bytes", size, "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{' '.join(command[2:])}: exit {done.returncode}\n{done.stderr}")
    row = json.loads(done.stdout.splitlines()[0])
    report = done.stderr

    def field(name):
        return re.search(rf"{re.escape(name)}: (.+)", report).group(1).strip()

    return {"model_s": row["model_s"],
            "wall_s": _wall_s(field("Elapsed (wall clock) time (h:mm:ss or m:ss)")),
            "cpu_s": float(field("User time (seconds)")) + float(field("System time (seconds)")),
            "maxrss_MB": int(field("Maximum resident set size (kbytes)")) / 1024}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--np", type=int, default=1 << 20)
    parser.add_argument("--bytes", default="1MiB")
    parser.add_argument("--collective", default="allreduce")
    parser.add_argument("--algorithms", default="ring,recursive_doubling,rabenseifner")
    parser.add_argument("--machines", default="FT,DF")
    parser.add_argument("--collsim", action="append", default=[],
                        help="a collsim to time (repeat for several; default: this checkout's)")
    args = parser.parse_args()
    collsims = args.collsim or [str(COLLSIM)]
    print(f"{'machine':<8} {'algorithm':<22} {'np':>8} {'model_s':>12} {'wall_s':>7} "
          f"{'cpu_s':>7} {'maxrss_MB':>9}  (medians of {args.runs}; walls: ...)  collsim")
    for machine in args.machines.split(","):
        for algorithm in args.algorithms.split(","):
            runs = {collsim: [] for collsim in collsims}
            for _ in range(args.runs):
                for collsim in collsims:
                    runs[collsim].append(measure(collsim, machine, args.collective, algorithm,
                                                 args.np, args.bytes))
            for collsim, rows in runs.items():
                walls = " ".join(f"{row['wall_s']:.2f}" for row in rows)
                print(f"{machine:<8} {algorithm:<22} {args.np:>8} {rows[0]['model_s']:>12.6g} "
                      f"{statistics.median(r['wall_s'] for r in rows):>7.2f} "
                      f"{statistics.median(r['cpu_s'] for r in rows):>7.2f} "
                      f"{statistics.median(r['maxrss_MB'] for r in rows):>9.0f}  ({walls})  "
                      f"{collsim}", flush=True)
            answers = {row["model_s"] for rows in runs.values() for row in rows}
            if len(answers) != 1:
                print(f"  the answers differ: {sorted(answers)}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
