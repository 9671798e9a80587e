"""Benchmark: SimGrid's engine settings, each against SimGrid's default (issue 14).

Runs the same simulation (ring allreduce of 1 MiB, timing-only, on a 16x16
fat-tree; and recursive doubling of 8 B on a 4096-node crossbar) under
collsim's settings (``collsim.profiles.HARNESS_CFG``) with one engine option
changed at a time, and prints the wall time of each (best of ``--reps``) and
its simulated time, which must not move.  The settings collsim fixes in
HARNESS_CFG were chosen with it.  Not part of ``make test``.

    .venv/bin/python tests/benchmarks/engine_settings.py [--reps 2]
"""

from __future__ import annotations

import argparse
import dataclasses
import time

from collsim.errors import CollsimError
from collsim.platforms import crossbar, fat_tree
from collsim.profiles import HARNESS_CFG, load_profile
from collsim.harness import simulate

# (option, value) pairs tried one at a time; None: collsim's settings as they are.
VARIANTS = [
    None,
    ("contexts/stack-size", "8192"),      # SimGrid's default stack of 8 MiB
    ("contexts/stack-size", "64"),
    ("network/optim", "Full"),
    ("network/optim", "Lazy"),
    ("contexts/nthreads", "2"),
    ("contexts/factory", "ucontext"),
    ("cpu/optim", "Full"),
]

CASES = {
    "ring 1MiB, 256 ranks, fat-tree 16x16": (
        lambda: fat_tree(levels=2, down_ports=[16, 16], up_ports=[1, 16]), 256,
        ["--coll", "allreduce", "--alg", "ring", "--bytes", "1048576", "--timing-only"]),
    "recursive doubling 8B, 4096 ranks, crossbar": (
        lambda: crossbar(nodes=4096), 4096,
        ["--coll", "allreduce", "--alg", "recursive_doubling", "--bytes", "8"]),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2)
    args = parser.parse_args()
    hockney = load_profile("hockney")
    print(f"collsim's engine settings: {HARNESS_CFG}")
    for case, (make, np, collbench_args) in CASES.items():
        G = make()
        hosts = [n for n, k in G.nodes(data="kind") if k == "host"][:np]
        for variant in VARIANTS:
            cfg = dict(hockney.cfg)
            label = "collsim's settings"
            if variant is not None:
                cfg[variant[0]] = variant[1]
                label = f"{variant[0]}:{variant[1]}"
            profile = dataclasses.replace(hockney, cfg=cfg)
            if variant is not None and variant[0] in HARNESS_CFG:
                # the harness's own value wins in smpirun_args: put the variant last
                profile = _Overriding(profile, variant)
            best = float("inf")
            try:
                for _ in range(args.reps):
                    started = time.perf_counter()
                    rows, _ = simulate(G, hosts, profile, collbench_args, what=case,
                                       timeout_s=3600)
                    best = min(best, time.perf_counter() - started)
            except CollsimError as error:
                print(f"{case:<46} {label:<28} failed: {error}", flush=True)
                continue
            print(f"{case:<46} {label:<28} {best:>7.2f} s  simulated {rows[0]['time_s']!r}",
                  flush=True)


class _Overriding:
    """A profile whose smpirun arguments end with one harness option changed."""

    def __init__(self, profile, variant):
        self._profile, self._variant = profile, variant

    def __getattr__(self, name):
        return getattr(self._profile, name)

    def smpirun_args(self):
        return self._profile.smpirun_args() + [f"--cfg={self._variant[0]}:{self._variant[1]}"]


if __name__ == "__main__":
    main()
