"""Benchmark: the network model against SimGrid at the largest size this machine simulates.

Issue 25: "at 65,536 ranks, a case the simulation can finish (e.g. an 8 B
recursive-doubling allreduce on a fat-tree) agrees with the prediction
within 10 %".  This runs ``collsim run`` (SimGrid) and ``collsim predict``
(the network model) on one case, each under ``/usr/bin/time -v``, and prints
both times, the error and what each run cost (wall, CPU, peak memory).
Slow (minutes to tens of minutes, gigabytes): not a test.

    nice -n 10 .venv/bin/python tests/benchmarks/large_sim_vs_model.py [--np 65536]
        [--bytes 8] [--algorithm recursive_doubling]

The platform is a three-level fat-tree of full bisection, ``--down-ports
np/4096,64,64 --up-ports 1,np/4096,64`` (one rank per node, block mapping,
``hockney`` profile).  The run is checked, not ``--timing-only``: at these
sizes SMPI's shared buffers would need more memory maps than Linux allows
one process (``vm.max_map_count``, 65,530 by default), and the check of an
8 B allreduce costs little.  Measured on two shared cores (docs/MODELS.md,
"Scale"): 65,536 ranks 2.0 GB and 2.5 CPU minutes, 131,072 ranks 4.0 GB and
5.4 CPU minutes; the simulation's time and memory grow about linearly, so
262,144 would need about 8 GB, more than one run may take here.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
COLLSIM = REPO / ".venv" / "bin" / "collsim"


def timed(arguments: list[str]) -> tuple[dict, dict]:
    """The first JSON row ``collsim ARGUMENTS --json`` prints, and its cost."""
    command = ["/usr/bin/time", "-v", str(COLLSIM), *arguments, "--json"]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{' '.join(command[2:])}: exit {done.returncode}\n{done.stderr[-2000:]}")

    def field(name):
        return re.search(rf"{re.escape(name)}: (.+)", done.stderr).group(1).strip()

    wall_s = 0.0
    for part in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        wall_s = wall_s * 60 + float(part)
    cost = {"wall_s": wall_s,
            "cpu_s": float(field("User time (seconds)")) + float(field("System time (seconds)")),
            "maxrss_MB": int(field("Maximum resident set size (kbytes)")) / 1024}
    return json.loads(done.stdout.splitlines()[0]), cost


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--np", type=int, default=65536)
    parser.add_argument("--bytes", default="8")
    parser.add_argument("--collective", default="allreduce")
    parser.add_argument("--algorithm", default="recursive_doubling")
    args = parser.parse_args()
    if args.np % 4096 or args.np < 4096:
        raise SystemExit("--np must be a multiple of 4096 (the fat-tree's 64 x 64 upper levels)")
    leaf = args.np // 4096
    platform = ["--platform", "fat-tree", "--levels", "3", "--down-ports", f"{leaf},64,64",
                "--up-ports", f"1,{leaf},64"]
    case = ["--np", str(args.np), "--coll", args.collective, "--alg", args.algorithm,
            "--bytes", args.bytes, *platform]
    print("case: collsim {run|predict} " + " ".join(case), flush=True)
    predicted, predict_cost = timed(["predict", *case])
    simulated, run_cost = timed(["run", *case, "--reps", "1", "--timeout-s", "7200"])
    error = predicted["model_s"] / simulated["time_s"] - 1
    print(f"simulated ({simulated['library']}, check {simulated['check']}): "
          f"{simulated['time_s'] * 1e6:.6f} us")
    print(f"predicted (network model): {predicted['model_s'] * 1e6:.6f} us   "
          f"error {error:+.2e}")
    print(f"collsim run's model column ({simulated['model_class']}): "
          f"{simulated['model_s'] * 1e6:.6f} us")
    for name, cost in (("collsim run", run_cost), ("collsim predict", predict_cost)):
        print(f"{name:<16} wall {cost['wall_s']:8.1f} s   cpu {cost['cpu_s']:8.1f} s   "
              f"peak {cost['maxrss_MB']:7.0f} MB")


if __name__ == "__main__":
    sys.exit(main())
