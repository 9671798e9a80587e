"""Benchmark: how far do the ring and Rabenseifner models hold when blocks are uneven?

Runs allreduce ring and rabenseifner on the crossbar under `hockney` for every p in
2..40, 63, 64 and 52 element counts (1..40 and 12 random ones), float and double, and
prints how many simulated times differ from the model (rounded-up blocks) by more than
1e-9.  Not part of `make test` (about 2 minutes on 2 cores).

    .venv/bin/python tests/benchmarks/model_sweep.py
"""

import random
import time

from collsim.platforms import crossbar
from collsim.profiles import load_profile
from collsim.runner import RunSpec, run


def main() -> None:
    profile = load_profile("hockney")
    G = crossbar(nodes=64)
    rng = random.Random(3)
    counts = sorted(set(list(range(1, 41)) + [rng.randrange(1, 200000) for _ in range(12)]))
    started = time.perf_counter()
    cases = deviations = 0
    for algorithm in ("ring", "rabenseifner"):
        for p in list(range(2, 41)) + [63, 64]:
            for dtype, elem_bytes in (("double", 8), ("float", 4)):
                spec = RunSpec("allreduce", algorithm, p, tuple(c * elem_bytes for c in counts),
                               dtype=dtype, check=False)
                rows, _ = run(spec, G, profile, platform="crossbar")
                for row in rows:
                    cases += 1
                    if abs(row["time_s"] / row["model_s"] - 1) > 1e-9:
                        deviations += 1
                        print(f"{algorithm} p={p} {dtype} {row['bytes']} B: "
                              f"simulated {row['time_s']!r} model {row['model_s']!r}")
    print(f"{cases} cases, {deviations} deviations beyond 1e-9, "
          f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
