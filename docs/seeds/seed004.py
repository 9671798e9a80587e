"""Seed 004 (Hasanov & Lastovetsky 2015): the two-level reduce against G on Graphene, p = 512.

Regenerates ``docs/seeds/seed004.tsv`` and ``docs/seeds/seed004.png`` (about
10 minutes on 2 cores at load 5, 17 at load 12)::

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
``table1_smpi``, ``table1_seed002_openmpi``
    cause experiments for the flat pipeline, at Table 1's choices where both
    levels share a segment size (G = 1: 32 KiB, G = 16: 64 KiB), under
    SMPI's own network model and under rendezvous above 4 KiB with per-message
    overheads (profile ``seed002_openmpi``) instead of Graphene's ``hockney``.
``native_16KiB``, ``native_16MiB``
    Fig. 3 and 4, the "hierarchical native reduce": ``openmpi_default``
    (Open MPI 4.1's fixed decision, ``algorithms/common/native.c``) inside
    and between the groups, G = 1 ... 512, at 16 KiB and 16 MiB.  A row of
    ``reduce hierarchical`` does not record what a selector chose at each
    level, so ``inner_selected`` / ``outer_selected`` are the choice of the
    same C code for the level's communicator (``collbench --native-choice``
    with p/G and G ranks); at 16 KiB the script reruns every G with those
    algorithms named and requires the same time to the bit.

Every row carries a Hockney cost with alpha, beta, gamma of the catalog
machine (``hockney_s``): seed 004's own, (8) for linear and (10) for
pipeline; for the native rows collsim's model of the two algorithms chosen
(``collsim.analysis.models``, every pair charged Graphene's inter-node alpha
and beta, so an upper estimate where hops stay inside a node).  The page sets
the simulated gain beside the gain the model allows.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from collsim.analysis.models import AlgorithmParams, model_for
from collsim.native import choices
from collsim.platforms import crossbar
from collsim.platforms.catalog import CATALOG, catalog_platform, catalog_profile
from collsim.profiles import load_profile
from collsim.harness import simulate
from collsim.platforms import map_ranks
from collsim.runner import RunSpec, collbench_args, model_parameters, run

HERE = Path(__file__).resolve().parent
MACHINE = "seed004_graphene"
P, N_BYTES = 512, 16 * 2 ** 20
LINEAR_GROUPS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
PIPELINE_GROUPS = (1, 16, 32)
NATIVE_GROUPS = tuple(2 ** k for k in range(10))          # 1 ... 512
NATIVE_BYTES = {"native_16KiB": 16 * 2 ** 10, "native_16MiB": N_BYTES}
SELECTOR = "openmpi_default"
# Table 1 where both levels get the same segment: G = 1 (32 KB), G = 16 (64 KB)
TABLE1_SAME_SEGMENT = ((1, 32768), (16, 65536))
# the cause experiments for the flat pipeline: SMPI's own network model, and
# rendezvous above 4 KiB with 0.1 us per-message overheads
CAUSE_PROFILES = ("smpi", "seed002_openmpi")
# seed 004 sec. 4.1: hierarchical over flat at the best G
PAPER_GAIN = {"pipeline_32KiB": 26.5, "pipeline_64KiB": 18.5, "native_16MiB": 30.0,
              "native_16KiB": 1.0}


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


def time_s(G, algorithm, groups, segment_bytes, platform, profile=None):
    params = AlgorithmParams(group_count=groups, inner_algorithm=algorithm,
                             outer_algorithm=algorithm, segment_bytes=segment_bytes)
    spec = RunSpec("reduce", "hierarchical", P, (N_BYTES,), dtype="int32", op="max",
                   check=False, timing_only=True, params=params)
    rows, _ = run(spec, G, load_profile(profile or catalog_profile(MACHINE)), platform=platform)
    return rows[0]["time_s"]


def level_choice(ranks: int, n_bytes: int) -> tuple[str, str]:
    """What openmpi_default runs on a communicator of ``ranks``: (collsim's name, Open MPI's)."""
    if ranks == 1:
        return "-", "-"
    choice, = choices("reduce", "openmpi", ranks, (n_bytes,), op="max", dtype="int32")
    if choice["error"] is not None:
        raise RuntimeError(choice["error"])
    return choice["selected"], f"{choice['native_algorithm']} ({choice['native_id']})"


def native_time_s(G, groups, n_bytes, inner, outer) -> float:
    """One hierarchical reduce with the given level algorithms (selectors allowed).

    Through ``simulate``, not ``run``: ``run`` annotates the row with the model
    of ``reduce hierarchical``, which raises ValueError ("reduce/openmpi_default:
    the model needs the algorithm the selector chose") for a selector as a
    level, since the row has no ``selected`` for the levels; the script prices
    the choices itself (``native_model_s``).
    """
    params = AlgorithmParams(group_count=groups, inner_algorithm=inner, outer_algorithm=outer)
    spec = RunSpec("reduce", "hierarchical", P, (n_bytes,), dtype="int32", op="max",
                   check=False, timing_only=True, params=params)
    rows, _ = simulate(G, map_ranks(G, P, "block"), load_profile(catalog_profile(MACHINE)),
                       collbench_args(spec), what=f"hierarchical {inner}/{outer} G={groups}")
    return rows[0]["time_s"]


def native_model_s(G, groups, n_bytes, inner, outer) -> float:
    """collsim's model of the hierarchical reduce with the two algorithms chosen."""
    net, _ = model_parameters(G, map_ranks(G, P, "block"), load_profile(catalog_profile(MACHINE)))
    params = AlgorithmParams(group_count=groups, inner_algorithm=inner if inner != "-" else outer,
                             outer_algorithm=outer if outer != "-" else inner)
    return model_for("reduce", "hierarchical")(P, n_bytes, net, elem_bytes=4, params=params).time_s


def native_rows(graphene):
    """Fig. 3 and 4: openmpi_default at both levels, G = 1 ... 512."""
    rows = []
    for name, n_bytes in NATIVE_BYTES.items():
        for groups in NATIVE_GROUPS:
            inner, inner_ompi = level_choice(P // groups, n_bytes)
            outer, outer_ompi = level_choice(groups, n_bytes)
            t = native_time_s(graphene, groups, n_bytes, SELECTOR, SELECTOR)
            if n_bytes < 2 ** 20:   # cheap: the choices above are what ran, to the bit
                named = native_time_s(graphene, groups, n_bytes, inner if inner != "-" else outer,
                                      outer if outer != "-" else inner)
                if named != t:
                    raise RuntimeError(f"{name} G={groups}: {SELECTOR} took {t!r} s, "
                                       f"{inner}/{outer} named took {named!r} s")
            model = native_model_s(graphene, groups, n_bytes, inner, outer)
            rows.append((name, SELECTOR, 0, groups, t, model, n_bytes, inner, outer,
                         inner_ompi, outer_ompi))
            print(f"{name:24} G={groups:3}  {t * 1e3:10.3f} ms  inside: {inner_ompi:16} "
                  f"between: {outer_ompi:16} (model {model * 1e3:10.3f} ms)", flush=True)
    return rows


def main() -> int:
    graphene, one_switch = catalog_platform(MACHINE), graphene_on_one_switch()
    experiments = (("linear", "linear", 0, LINEAR_GROUPS, graphene, MACHINE),
                   ("pipeline_32KiB", "pipeline", 32768, PIPELINE_GROUPS, graphene, MACHINE),
                   ("pipeline_64KiB", "pipeline", 65536, PIPELINE_GROUPS, graphene, MACHINE),
                   ("pipeline_32KiB_crossbar", "pipeline", 32768, (1, 32), one_switch,
                    "graphene_one_switch"))
    # (experiment, algorithm, segment_bytes, groups, time_s, hockney_s, bytes,
    #  inner_selected, outer_selected, inner_openmpi, outer_openmpi)
    rows = []
    for name, algorithm, segment, groups_list, G, platform in experiments:
        for groups in groups_list:
            t = time_s(G, algorithm, groups, segment, platform)
            rows.append((name, algorithm, segment, groups, t, hockney_s(algorithm, groups, segment),
                         N_BYTES, algorithm, algorithm, "-", "-"))
            print(f"{name:24} G={groups:3}  {t * 1e3:10.3f} ms  (seed 004's formula "
                  f"{rows[-1][5] * 1e3:10.3f} ms)", flush=True)
    for profile in CAUSE_PROFILES:
        for groups, segment in TABLE1_SAME_SEGMENT:
            t = time_s(graphene, "pipeline", groups, segment, MACHINE, profile)
            rows.append((f"table1_{profile}", "pipeline", segment, groups, t,
                         hockney_s("pipeline", groups, segment), N_BYTES, "pipeline", "pipeline",
                         "-", "-"))
            print(f"table1_{profile:18} G={groups:3}  {t * 1e3:10.3f} ms  ({segment} B segments)",
                  flush=True)
    rows += native_rows(graphene)
    with open(HERE / "seed004.tsv", "w") as out:
        out.write("experiment\talgorithm\tsegment_bytes\tgroups\ttime_s\thockney_s\tbytes\t"
                  "inner_selected\touter_selected\tinner_openmpi\touter_openmpi\n")
        for row in rows:
            out.write("\t".join(repr(v) if isinstance(v, float) else str(v) for v in row) + "\n")
    summarize(rows)
    plot(rows)
    return 0


def series(rows, experiment, column=4):
    return {g: row[column] for row in rows if row[0] == experiment for g in (row[3],)}


def summarize(rows) -> None:
    print("\nexperiment               best G  gain over G=1 (collsim)  gain (model: seed 004's "
          "formula; native: collsim's)  paper")
    for experiment in ("linear", "pipeline_32KiB", "pipeline_64KiB", "pipeline_32KiB_crossbar",
                       *(f"table1_{profile}" for profile in CAUSE_PROFILES), *NATIVE_BYTES):
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

    fig, axes = plt.subplots(1, 3, figsize=(18, 4.3))
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
    plot_native(axes[2], rows)
    fig.tight_layout()
    fig.savefig(HERE / "seed004.png", dpi=110)


SHORT = {"-": "-", "linear": "lin", "chain": "chain", "overlapped_binomial": "bnm",
         "overlapped_binary": "bin"}


def plot_native(ax, rows) -> None:
    """Fig. 3 and 4: time over the time at G = 1, each point labelled inside/between."""
    for name, colour, dy in zip(NATIVE_BYTES, ("tab:green", "tab:red"), (-14, 6)):
        native = [row for row in rows if row[0] == name]
        flat_s, flat_model_s = native[0][4], native[0][5]
        groups = [row[3] for row in native]
        ax.plot(groups, [row[4] / flat_s for row in native], "-o", ms=3, color=colour,
                label=f"{name} (collsim; G = 1: {flat_s * 1e3:.3g} ms)")
        ax.plot(groups, [row[5] / flat_model_s for row in native], "--", color=colour, alpha=0.6,
                label=f"{name} (model of the choices)")
        for row in native:
            ax.annotate(f"{SHORT.get(row[7], row[7])}/{SHORT.get(row[8], row[8])}",
                        (row[3], row[4] / flat_s), fontsize=6, rotation=30,
                        xytext=(2, dy), textcoords="offset points", color=colour)
    ax.axhline(1 / PAPER_GAIN["native_16MiB"], color="tab:red", lw=0.8, ls=":",
               label="paper, 16 MB: 1/30 at the best G")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_ylim(0.02, 2)
    ax.set_xlabel("groups G (p = 512; labels: Open MPI 4.1's choice inside / between)")
    ax.set_ylabel("reduce time / time at G = 1")
    ax.set_title("native: Open MPI 4.1 default at both levels (Fig. 3, 4)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")


if __name__ == "__main__":
    sys.exit(main())
