"""Benchmark: ``collsim predict`` at 1,048,576 ranks (issue 25's speed targets).

Runs ``collsim predict ... --json`` under ``/usr/bin/time -v`` for each
(machine, entry) and prints the model's answer, the median wall time,
CPU time (user + system) and peak memory over ``--runs`` runs.  The issue
asks for <= 10 s each for ring, recursive doubling and Rabenseifner allreduce
of 1 MiB, every registry entry <= 60 s, within 4 GB.  The machine is
shared: CPU seconds are the steadier figure.  Not part of ``make test``.

    nice -n 5 .venv/bin/python tests/benchmarks/predict_scale.py [--runs 3]
        [--entries all | allreduce/ring,bcast/linear,scan/linear@8,...]
        [--algorithms ring,recursive_doubling,rabenseifner --collective allreduce]
        [--machines FT,DF] [--bytes 1MiB] [--timeout 120] [--markdown]
        [--collsim OTHER/.venv/bin/collsim]

``--entries all`` times every registry entry (``collsim list``, the
selectors included) with one command; ``entry@SIZE`` times that entry at
SIZE instead of ``--bytes`` (one command for sizes per entry); ``--timeout`` stops a run after that
many wall seconds (its row says ``> T``).  ``--markdown`` prints the table
ready for the README or a closing note (entry, machine, model_s, CPU s,
wall s, peak RSS GB).  ``--collsim`` times another checkout's collsim
(before and after a change, interleaved run by run so that both see the
same load).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
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


def _registry_entries(collsim: str) -> list[str]:
    """Every ``collective/algorithm`` of ``collsim list --json``."""
    done = subprocess.run([collsim, "list", "--json"], capture_output=True, text=True, check=True)
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return [f"{row['collective']}/{row['algorithm']}" for row in rows]


def measure(collsim: str, machine: str, collective: str, algorithm: str, np_ranks: int,
            size: str, timeout_s: float | None = None) -> dict:
    """One run: the model's answer and what ``/usr/bin/time -v`` says of it
    (``timed_out`` when it ran past ``timeout_s``: then no answer)."""
    command = ["/usr/bin/time", "-v", collsim, "predict", *MACHINES[machine],
               "--np", str(np_ranks), "--coll", collective, "--alg", algorithm,
               "--bytes", size, "--json"]
    # a session of its own: on timeout, time -v and collsim under it stop together
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        stdout, report = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return {"model_s": None, "wall_s": timeout_s, "cpu_s": None, "maxrss_MB": None,
                "timed_out": True, "failed": 0}
    if process.returncode:   # a row that says so (out of memory under ulimit -v, say)
        print(f"{' '.join(command[2:])}: exit {process.returncode}\n{report[-2000:]}",
              file=sys.stderr)
        return {"model_s": None, "wall_s": None, "cpu_s": None, "maxrss_MB": None,
                "timed_out": False, "failed": process.returncode}
    row = json.loads(stdout.splitlines()[0])

    def field(name):
        return re.search(rf"{re.escape(name)}: (.+)", report).group(1).strip()

    return {"failed": 0, "model_s": row["model_s"],
            "wall_s": _wall_s(field("Elapsed (wall clock) time (h:mm:ss or m:ss)")),
            "cpu_s": float(field("User time (seconds)")) + float(field("System time (seconds)")),
            "maxrss_MB": int(field("Maximum resident set size (kbytes)")) / 1024,
            "timed_out": False}


def _median(rows: list[dict], key: str) -> float | None:
    values = [row[key] for row in rows if row[key] is not None]
    return statistics.median(values) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--np", type=int, default=1 << 20)
    parser.add_argument("--bytes", default="1MiB")
    parser.add_argument("--collective", default="allreduce")
    parser.add_argument("--algorithms", default="ring,recursive_doubling,rabenseifner")
    parser.add_argument("--entries", default=None,
                        help="'all' (every registry entry) or collective/algorithm,... "
                             "(instead of --collective/--algorithms)")
    parser.add_argument("--machines", default="FT,DF")
    parser.add_argument("--timeout", type=float, default=None,
                        help="stop a run after this many wall seconds")
    parser.add_argument("--markdown", action="store_true",
                        help="print a markdown table (entry, machine, model_s, CPU s, wall s, "
                             "peak RSS GB)")
    parser.add_argument("--collsim", action="append", default=[],
                        help="a collsim to time (repeat for several; default: this checkout's)")
    args = parser.parse_args()
    collsims = args.collsim or [str(COLLSIM)]
    if args.entries == "all":
        entries = _registry_entries(collsims[0])
    elif args.entries:
        entries = args.entries.split(",")
    else:
        entries = [f"{args.collective}/{a}" for a in args.algorithms.split(",")]
    if args.markdown:
        print(f"{args.np:,} ranks, {args.bytes}; medians of {args.runs} run(s)"
              + (f", stopped after {args.timeout:g} s" if args.timeout else ""))
        print("\n| entry | machine | model_s | CPU s | wall s | peak RSS GB |"
              + (" collsim |" if len(collsims) > 1 else ""))
        print("|---|---|---|---|---|---|" + ("---|" if len(collsims) > 1 else ""), flush=True)
    else:
        print(f"{'machine':<8} {'entry':<46} {'np':>8} {'model_s':>12} {'wall_s':>7} "
              f"{'cpu_s':>7} {'maxrss_MB':>9}  (medians of {args.runs}; walls: ...)  collsim")
    for machine in args.machines.split(","):
        for entry in entries:
            entry, _, size = entry.partition("@")
            size = size or args.bytes
            collective, algorithm = entry.split("/")
            entry = entry if size == args.bytes else f"{entry} @ {size}"
            runs = {collsim: [] for collsim in collsims}
            for _ in range(args.runs):
                for collsim in collsims:
                    runs[collsim].append(measure(collsim, machine, collective, algorithm,
                                                 args.np, size, args.timeout))
            for collsim, rows in runs.items():
                model_s = next((r["model_s"] for r in rows if r["model_s"] is not None), None)
                over = any(r["timed_out"] for r in rows)
                wall, cpu, peak = (_median(rows, k) for k in ("wall_s", "cpu_s", "maxrss_MB"))
                failed = next((r["failed"] for r in rows if r["failed"]), 0)
                if failed:
                    print(f"| {entry} | {machine} | failed (exit {failed}) | - | - | - |"
                          if args.markdown else
                          f"{machine:<8} {entry:<46} {args.np:>8} failed (exit {failed})  "
                          f"{collsim}", flush=True)
                    continue
                if args.markdown:
                    cells = ["-" if model_s is None else f"{model_s:.9g}",
                             f"> {args.timeout:g}" if over else f"{cpu:.1f}",
                             f"> {args.timeout:g}" if over else f"{wall:.1f}",
                             "-" if over else f"{peak / 1024:.2f}"]
                    print(f"| {entry} | {machine} | " + " | ".join(cells) + " |"
                          + (f" {collsim} |" if len(collsims) > 1 else ""), flush=True)
                    continue
                walls = " ".join("timeout" if r["timed_out"] else f"{r['wall_s']:.2f}"
                                 for r in rows)
                print(f"{machine:<8} {entry:<46} {args.np:>8} "
                      + (f"{'-':>12} " if model_s is None else f"{model_s:>12.6g} ")
                      + (f"{'> ' + format(args.timeout, 'g'):>7} {'-':>7} {'-':>9}" if over else
                         f"{wall:>7.2f} {cpu:>7.2f} {peak:>9.0f}")
                      + f"  ({walls})  {collsim}", flush=True)
            answers = {row["model_s"] for rows in runs.values() for row in rows
                       if row["model_s"] is not None}
            if len(answers) > 1:
                print(f"  {machine} {entry}: the answers differ: {sorted(answers)}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
