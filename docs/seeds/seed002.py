"""Seed 002 (Masella 2025): Open MPI's bcast and reduce algorithms on ORFEO's nodes.

Regenerates ``docs/seeds/seed002.tsv`` and ``docs/seeds/seed002.png``::

    .venv/bin/python docs/seeds/seed002.py

Each machine runs under its calibrated profile (``seed002_openmpi``), ranks
placed in blocks (Open MPI's ``--map-by core``), unless a row says otherwise.
The paper forced each algorithm with the other MCA parameters at their
defaults, so its "chain" is Open MPI's chain with fan-out 4
(``coll_tuned_bcast_algorithm_chain_fanout`` and
``coll_tuned_reduce_algorithm_chain_fanout``, both
``ompi_coll_tuned_init_chain_fanout = 4`` in coll_tuned_component.c, v4.1.4):
collsim's ``chain`` with ``chain_fanout=4``.  Its "pipeline" is Open MPI's
pipeline, always one chain (fan-out 1).  Its "binary" is Open MPI's binary
tree (``ompi_coll_base_bcast_intra_bintree``, ``..._reduce_intra_binary``),
whose ranks send to both children at once / keep both children's receives in
flight: collsim's ``concurrent_binary`` (bcast) and ``overlapped_binary``
(reduce), as ``algorithms/native.def`` maps them; the rows keep the paper's
name ``binary``.

``scaling``
    Fig. 1-4: bcast and reduce on the two EPYC nodes, np = 2 ... 256, 4 B,
    1 KiB and 256 KiB; the paper's four algorithms (linear, chain, pipeline,
    binary) and collsim's binomial for reference.
``nodes``
    Fig. 8: bcast at NP = 10 on THIN, FAT and EPYC, 4 B ... 4 MiB (FAT also
    mapped by socket, the seed's "NUMA" mapping).
``no_overheads``
    the cause experiment for the bcast order at small sizes: the same EPYC
    runs at 4 B under ``hockney`` (no per-message overhead).
``single_chain``
    the cause experiment for the chain: bcast at 4 B on EPYC with collsim's
    default fan-out 1 (one chain of p - 1 messages), as it ran before issue 13.
"""

from __future__ import annotations

import sys
from pathlib import Path

from collsim.platforms.catalog import catalog_platform, catalog_profile
from collsim.params import AlgorithmParams
from collsim.profiles import load_profile
from collsim.runner import RunSpec, run

HERE = Path(__file__).resolve().parent
EPYC = "seed002_orfeo_epyc"
ALGORITHMS = {"bcast": ("linear", "chain", "pipeline", "binary", "binomial"),
              "reduce": ("linear", "chain", "pipeline", "binary", "binomial")}
SCALING_NP = (2, 8, 16, 32, 64, 128, 256)
SCALING_BYTES = (4, 1024, 262144)
NODES_BYTES = tuple(4 ** k for k in range(1, 12))   # 4 B ... 4 MiB
# Open MPI's MCA default for a forced chain (see the module docstring)
OPENMPI_CHAIN_FANOUT = 4
OPENMPI_PARAMS = {"chain": AlgorithmParams(chain_fanout=OPENMPI_CHAIN_FANOUT)}
# the paper's algorithm name -> the registry entry that is Open MPI's algorithm (native.def)
OPENMPI_ENTRY = {("bcast", "binary"): "concurrent_binary", ("reduce", "binary"): "overlapped_binary"}


def times_s(machine, collective, algorithm, np, sizes, profile=None, mapping="block",
            params=None):
    G = catalog_platform(machine)
    profile = load_profile(profile or catalog_profile(machine))
    if params is None:
        params = OPENMPI_PARAMS.get(algorithm, AlgorithmParams())
    entry = OPENMPI_ENTRY.get((collective, algorithm), algorithm)
    spec = RunSpec(collective, entry, np, tuple(sizes), dtype="int32", mapping=mapping,
                   check=False, params=params)
    rows, _ = run(spec, G, profile, platform=machine)
    return {row["bytes"]: row["time_s"] for row in rows}


def main() -> int:
    rows = []   # (experiment, machine, mapping, profile, collective, algorithm, np, bytes, time_s)

    def record(experiment, machine, collective, algorithm, np, sizes, profile=None,
               mapping="block", params=None):
        name = profile or catalog_profile(machine)
        for n, t in times_s(machine, collective, algorithm, np, sizes, profile, mapping,
                            params).items():
            rows.append((experiment, machine, mapping, name, collective, algorithm, np, n, t))

    for collective, algorithms in ALGORITHMS.items():
        for np in SCALING_NP:
            for algorithm in algorithms:
                record("scaling", EPYC, collective, algorithm, np, SCALING_BYTES)
        print(f"scaling {collective} done", flush=True)
    for machine in ("seed002_orfeo_thin", "seed002_orfeo_fat", EPYC):
        for algorithm in ("linear", "binary", "pipeline"):
            record("nodes", machine, "bcast", algorithm, 10, NODES_BYTES)
    for algorithm in ("linear", "binary", "pipeline"):
        record("nodes", "seed002_orfeo_fat", "bcast", algorithm, 10, NODES_BYTES,
               mapping="socket")
    for np in SCALING_NP:
        for algorithm in ALGORITHMS["bcast"]:
            record("no_overheads", EPYC, "bcast", algorithm, np, (4,), profile="hockney")
        record("single_chain", EPYC, "bcast", "chain", np, (4,),
               params=AlgorithmParams(chain_fanout=1))
    with open(HERE / "seed002.tsv", "w") as out:
        out.write("experiment\tmachine\tmapping\tprofile\tcollective\talgorithm\tnp\tbytes\t"
                  "time_s\n")
        for row in rows:
            out.write("\t".join(repr(v) if isinstance(v, float) else str(v) for v in row) + "\n")
    summarize(rows)
    plot(rows)
    return 0


def table(rows, experiment, collective, n_bytes, profile="seed002_openmpi"):
    """{np: {algorithm: time_s}} of one experiment's EPYC rows."""
    out = {}
    for e, machine, _, prof, coll, alg, np, n, t in rows:
        if e == experiment and coll == collective and n == n_bytes and prof == profile:
            out.setdefault(np, {})[alg] = t
    return out


def summarize(rows) -> None:
    for experiment, collective, n_bytes, profile in (
            ("scaling", "bcast", 4, "seed002_openmpi"), ("scaling", "bcast", 1024, "seed002_openmpi"),
            ("scaling", "bcast", 262144, "seed002_openmpi"), ("scaling", "reduce", 4, "seed002_openmpi"),
            ("scaling", "reduce", 262144, "seed002_openmpi"), ("no_overheads", "bcast", 4, "hockney"),
            ("single_chain", "bcast", 4, "seed002_openmpi")):
        print(f"\n{experiment} {collective} {n_bytes} B ({profile}), us:")
        for np, times in sorted(table(rows, experiment, collective, n_bytes, profile).items()):
            paper = {a: t for a, t in times.items() if a != "binomial"}
            print(f"  np={np:3} " + " ".join(f"{a}={t * 1e6:8.2f}" for a, t in times.items())
                  + f"   best of the paper's four: {min(paper, key=paper.get)}, "
                  f"worst: {max(paper, key=paper.get)}")
    print("\nnodes: bcast NP=10, us (binary):")
    by = {}
    for e, machine, mapping, _, coll, alg, np, n, t in rows:
        if e == "nodes" and alg == "binary":
            by.setdefault((machine, mapping), {})[n] = t
    for key, times in by.items():
        print(f"  {key[0]:20} {key[1]:6} " + " ".join(f"{n}:{t * 1e6:.2f}" for n, t in
                                                      sorted(times.items())))


def plot(rows) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(15, 4.3))
    colours = dict(zip(ALGORITHMS["bcast"], ("tab:red", "tab:purple", "tab:orange", "tab:blue",
                                             "tab:grey")))
    for ax, n_bytes in zip(axes[:2], (4, 262144)):
        data = table(rows, "scaling", "bcast", n_bytes)
        for algorithm in ALGORITHMS["bcast"]:
            nps = sorted(data)
            ax.plot(nps, [data[np][algorithm] * 1e6 for np in nps],
                    ":o" if algorithm == "binomial" else "-o", ms=3,
                    color=colours[algorithm],
                    label=f"chain (fan-out {OPENMPI_CHAIN_FANOUT})" if algorithm == "chain"
                    else algorithm)
        if n_bytes == 4:
            single = table(rows, "single_chain", "bcast", 4)
            ax.plot(sorted(single), [single[np]["chain"] * 1e6 for np in sorted(single)], "--",
                    color="tab:purple", alpha=0.5, label="chain, fan-out 1")
            quiet = table(rows, "no_overheads", "bcast", 4, "hockney")
            ax.plot(sorted(quiet), [quiet[np]["linear"] * 1e6 for np in sorted(quiet)], "--",
                    color="tab:red", alpha=0.5, label="linear, no overheads (hockney)")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("processes (EPYC, 2 nodes)")
        ax.set_ylabel("bcast time (us)")
        ax.set_title(f"MPI_Bcast {n_bytes} B (Fig. 1)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    ax = axes[2]
    for (machine, mapping), style in ((("seed002_orfeo_thin", "block"), "-o"),
                                      (("seed002_orfeo_fat", "block"), "--s"),
                                      (("seed002_orfeo_fat", "socket"), "-.d"),
                                      ((EPYC, "block"), "-^")):
        points = sorted((n, t) for e, m, mp, _, coll, alg, np, n, t in rows
                        if e == "nodes" and m == machine and mp == mapping and alg == "binary")
        ax.plot([n for n, _ in points], [t * 1e6 for _, t in points], style, ms=3,
                label=f"{machine.split('_')[-1].upper()} ({mapping})")
    ax.axvline(65536, color="grey", lw=0.8)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("message size (bytes)")
    ax.set_ylabel("binary-tree bcast time (us)")
    ax.set_title("NP = 10 across node types (Fig. 8)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(HERE / "seed002.png", dpi=110)


if __name__ == "__main__":
    sys.exit(main())
