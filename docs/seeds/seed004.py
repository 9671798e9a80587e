"""Seed 004 (Hasanov & Lastovetsky 2015): the two-level reduce against G on Graphene, p = 512, 16 MiB.

Regenerates ``docs/seeds/seed004.tsv`` and ``docs/seeds/seed004.png`` (about
8 minutes on 2 busy cores)::

    .venv/bin/python docs/seeds/seed004.py

512 ranks on 128 of Graphene's nodes, 4 per node in blocks (the seed's one
process per core, "grouped by their rank in increasing order"), ``MPI_MAX``
on ``int32``, 16 MiB per rank, ``--timing-only``.  ``reduce hierarchical``
with the same algorithm inside and between the groups (seed 004's Algorithm
1).  Experiments:

``linear``
    Fig. 9's LN: unsegmented linear reduce at both levels, G = 1 ... 256.
``pipeline_32KiB``, ``pipeline_64KiB``
    Fig. 7 and 8: the pipeline reduce with 32 KiB and 64 KiB segments.
``pipeline_32KiB_crossbar``
    the cause experiment for contention: the same 128 nodes on one
    non-blocking switch instead of Graphene's four switches under a router.

Every row carries seed 004's own Hockney cost of the same G, (8) for linear
and (10) for pipeline, with alpha, beta, gamma of the catalog machine, so
that the page can set the simulated gain beside the gain the model allows.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from collsim.analysis.models import AlgorithmParams
from collsim.platforms import crossbar
from collsim.platforms.catalog import CATALOG, catalog_platform, catalog_profile
from collsim.profiles import load_profile
from collsim.runner import RunSpec, run

HERE = Path(__file__).resolve().parent
MACHINE = "seed004_graphene"
P, N_BYTES = 512, 16 * 2 ** 20
LINEAR_GROUPS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
PIPELINE_GROUPS = (1, 16, 32)
# seed 004 sec. 4.1: hierarchical pipeline over flat pipeline at the best G
PAPER_GAIN = {"pipeline_32KiB": 26.5, "pipeline_64KiB": 18.5}


def hockney_s(algorithm: str, groups: int, segment_bytes: int) -> float:
    """Seed 004 (8) / (10): the two-level cost with the catalog's alpha, beta, gamma."""
    params = CATALOG[MACHINE]["params"]
    alpha = 4 * params["latency_s"]                     # host, leaf, router, leaf, host
    beta = 1 / params["bandwidth_Bps"]
    gamma = 1e-10                                       # the platform default
    inner, outer = math.ceil(P / groups), groups
    if algorithm == "linear":
        return (outer + inner - 2) * (alpha + N_BYTES * (beta + gamma))
    x = N_BYTES // segment_bytes
    steps = (inner + x - 2 if inner > 1 else 0) + (outer + x - 2 if outer > 1 else 0)
    return steps * (alpha + segment_bytes * (beta + gamma))


def graphene_on_one_switch():
    params = CATALOG[MACHINE]["params"]
    return crossbar(nodes=P // params["cores_per_node"], cores_per_node=params["cores_per_node"],
                    bandwidth_Bps=params["bandwidth_Bps"], latency_s=params["latency_s"],
                    speed_flops=params["speed_flops"])


def time_s(G, algorithm, groups, segment_bytes, platform):
    params = AlgorithmParams(group_count=groups, inner_algorithm=algorithm,
                             outer_algorithm=algorithm, segment_bytes=segment_bytes)
    spec = RunSpec("reduce", "hierarchical", P, (N_BYTES,), dtype="int32", op="max",
                   check=False, timing_only=True, params=params)
    rows, _ = run(spec, G, load_profile(catalog_profile(MACHINE)), platform=platform)
    return rows[0]["time_s"]


def main() -> int:
    graphene, one_switch = catalog_platform(MACHINE), graphene_on_one_switch()
    experiments = (("linear", "linear", 0, LINEAR_GROUPS, graphene, MACHINE),
                   ("pipeline_32KiB", "pipeline", 32768, PIPELINE_GROUPS, graphene, MACHINE),
                   ("pipeline_64KiB", "pipeline", 65536, PIPELINE_GROUPS, graphene, MACHINE),
                   ("pipeline_32KiB_crossbar", "pipeline", 32768, (1, 32), one_switch,
                    "graphene_one_switch"))
    rows = []   # (experiment, algorithm, segment_bytes, groups, time_s, hockney_s)
    for name, algorithm, segment, groups_list, G, platform in experiments:
        for groups in groups_list:
            t = time_s(G, algorithm, groups, segment, platform)
            rows.append((name, algorithm, segment, groups, t, hockney_s(algorithm, groups, segment)))
            print(f"{name:24} G={groups:3}  {t * 1e3:10.3f} ms  (seed 004's formula "
                  f"{rows[-1][5] * 1e3:10.3f} ms)", flush=True)
    with open(HERE / "seed004.tsv", "w") as out:
        out.write("experiment\talgorithm\tsegment_bytes\tgroups\ttime_s\thockney_s\n")
        for row in rows:
            out.write("\t".join(repr(v) if isinstance(v, float) else str(v) for v in row) + "\n")
    summarize(rows)
    plot(rows)
    return 0


def series(rows, experiment, column=4):
    return {g: row[column] for row in rows if row[0] == experiment for g in (row[3],)}


def summarize(rows) -> None:
    print("\nexperiment               best G  gain over G=1 (collsim)  gain (seed 004's formula)  "
          "paper")
    for experiment in ("linear", "pipeline_32KiB", "pipeline_64KiB", "pipeline_32KiB_crossbar"):
        sim, model = series(rows, experiment), series(rows, experiment, 5)
        best = min(sim, key=sim.get)
        best_model = min(model, key=model.get)
        print(f"  {experiment:24} {best:4}  {sim[1] / sim[best]:8.2f}  "
              f"{model[1] / model[best_model]:8.2f} (G={best_model})  "
              f"{PAPER_GAIN.get(experiment, '-')}")


def plot(rows) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.3))
    for ax, names in zip(axes, (("linear",), ("pipeline_32KiB", "pipeline_64KiB",
                                               "pipeline_32KiB_crossbar"))):
        for name, colour in zip(names, ("tab:blue", "tab:orange", "tab:grey")):
            sim, model = series(rows, name), series(rows, name, 5)
            groups = sorted(sim)
            ax.plot(groups, [sim[g] * 1e3 for g in groups], "-o", ms=3, color=colour,
                    label=f"{name} (collsim)")
            if not name.endswith("crossbar"):
                ax.plot(groups, [model[g] * 1e3 for g in groups], "--", color=colour,
                        alpha=0.6, label=f"{name} (seed 004 formula)")
        ax.axvline(math.sqrt(P), color="grey", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("groups G (p = 512; line at sqrt(p))")
        ax.set_ylabel("reduce time, 16 MiB (ms)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    axes[0].set_yscale("log")
    axes[0].set_title("linear (Fig. 9 LN)")
    axes[1].set_title("pipeline, 32 / 64 KiB segments (Fig. 7, 8)")
    fig.tight_layout()
    fig.savefig(HERE / "seed004.png", dpi=110)


if __name__ == "__main__":
    sys.exit(main())
