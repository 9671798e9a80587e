"""Seed 000 (Balaji & Kimpe 2013), Fig. 2-3: node-aware (x8) against flat (x1) reduce/allreduce.

Regenerates ``docs/seeds/seed000.tsv`` and ``docs/seeds/seed000.png``::

    .venv/bin/python docs/seeds/seed000.py

Every experiment runs on the catalog machine ``seed000_qdr320`` under its
calibrated profile (``seed000_mpich_qdr``), ``--timing-only``; x8 is
``node_aware --node-size 0`` (the real node of 8 cores: 2 sockets of 4),
x1 ``--node-size 1`` (each rank its own node: MPICH's flat algorithm among
all ranks).  A job of np ranks gets np / 8 nodes.

``headline``
    the paper's run as collsim reads it: ranks dealt round-robin over the
    job's nodes (``--mapping cyclic:N``, Hydra's default with a host list),
    the node and leader communicators made once (``--cached-comms``: MPICH
    makes them with the communicator; the paper times a loop of 10,000 calls).
``block``
    the same with ranks in blocks (node after node: ``--mapping block``).
``per_call``
    round-robin, the communicators made and timed in every call.
``copy_in_memory``
    round-robin and cached, with the socket's memory at 8 GB/s (MPICH's copy
    buffer in DRAM: 4 bytes of memory traffic per byte moved) instead of the
    catalog's 16 GB/s (copy buffer in cache: 2 bytes).
``one_switch_256``
    the headline at 256 ranks (32 nodes) with leaf switches of 32 nodes
    instead of 16, so that no message crosses a spine: the check that the
    catalog's two-level tree (d-mod-k routes over its 16 spines) behaves as
    the non-blocking tree it is meant to be.
"""

from __future__ import annotations

import sys
from pathlib import Path

from collsim.params import AlgorithmParams
from collsim.platforms import fat_tree, multicore
from collsim.platforms.catalog import CATALOG, catalog_platform, catalog_profile
from collsim.profiles import load_profile
from collsim.runner import RunSpec, run

HERE = Path(__file__).resolve().parent
PROCESS_COUNTS = (16, 64, 128, 256)
COUNTS = (512, 4096, 32768, 262144)          # doubles, as the seed's x-axis
COLLECTIVES = ("reduce", "allreduce")
CORES_PER_NODE = 8
# experiment: (mapping kind, communicators cached, socket memory B/s or None = the catalog's,
#              nodes per leaf switch or None = the catalog's 16, process counts)
EXPERIMENTS = {
    "headline": ("cyclic", True, None, None, PROCESS_COUNTS),
    "block": ("block", True, None, None, PROCESS_COUNTS),
    "per_call": ("cyclic", False, None, None, PROCESS_COUNTS),
    "copy_in_memory": ("cyclic", True, 8e9, None, PROCESS_COUNTS),
    "one_switch_256": ("cyclic", True, None, 32, (256,)),
}


def machine(memory_Bps: float | None, leaf_nodes: int | None = None):
    """The catalog machine, with the sockets' memory bandwidth or the leaf switches' node
    count (the spines then adjusted to keep 320 nodes) replaced when given."""
    if leaf_nodes is None:
        G = catalog_platform("seed000_qdr320")
    else:
        entry = CATALOG["seed000_qdr320"]
        network = dict(entry["network"][1], down_ports=[leaf_nodes, 320 // leaf_nodes])
        G = multicore(fat_tree(**network), **entry["params"])
    if memory_Bps is not None:
        for host, kind in G.nodes(data="kind"):
            if kind == "host":
                G.nodes[host]["memory_bandwidth_Bps"] = memory_Bps
    return G


def times_s(G, profile, collective, np, node_size, mapping, cached):
    spec = RunSpec(collective, "node_aware", np, tuple(8 * c for c in COUNTS), mapping=mapping,
                   check=False, timing_only=True,
                   params=AlgorithmParams(node_size=node_size, cached_comms=cached))
    rows, _ = run(spec, G, profile, platform="seed000_qdr320")
    return {row["bytes"] // 8: row["time_s"] for row in rows}


def main() -> int:
    profile = load_profile(catalog_profile("seed000_qdr320"))
    rows = []
    for experiment, (kind, cached, memory, leaf_nodes, counts) in EXPERIMENTS.items():
        G = machine(memory, leaf_nodes)
        for collective in COLLECTIVES:
            for np in counts:
                mapping = f"cyclic:{np // CORES_PER_NODE}" if kind == "cyclic" else kind
                flat = times_s(G, profile, collective, np, 1, mapping, cached)
                aware = times_s(G, profile, collective, np, 0, mapping, cached)
                for count in COUNTS:
                    rows.append((experiment, collective, np, count, flat[count], aware[count]))
                    print(f"{experiment:14} {collective:9} np={np:3} {count:7} doubles  "
                          f"x1 {flat[count] * 1e6:9.1f} us  x8 {aware[count] * 1e6:9.1f} us  "
                          f"x8/x1 {aware[count] / flat[count]:.2f}", flush=True)
    with open(HERE / "seed000.tsv", "w") as out:
        out.write("experiment\tcollective\tnp\tdoubles\tx1_s\tx8_s\tx8_over_x1\n")
        for experiment, collective, np, count, flat_s, aware_s in rows:
            out.write(f"{experiment}\t{collective}\t{np}\t{count}\t{flat_s!r}\t{aware_s!r}\t"
                      f"{aware_s / flat_s:.4f}\n")
    plot(rows)
    return 0


def plot(rows) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    colours = ("tab:blue", "tab:orange", "tab:green", "tab:purple")
    for ax, collective in zip(axes, COLLECTIVES):
        for experiment, style in (("headline", "-o"), ("block", ":s")):
            for np, colour in zip(PROCESS_COUNTS, colours):
                points = [(c, a / f) for e, coll, n, c, f, a in rows
                          if e == experiment and coll == collective and n == np]
                label = {"headline": "round-robin (headline)", "block": "block"}[experiment]
                ax.plot([c for c, _ in points], [r for _, r in points], style, color=colour,
                        label=f"{label} np={np}")
        ax.axhline(1.0, color="grey", lw=0.8)
        band = (0.2, 0.4) if collective == "reduce" else (0.45, 0.55)
        ax.axhspan(*band, color="tab:red", alpha=0.12,
                   label="paper at 32768 doubles" if collective == "reduce" else "paper: about 0.5")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xlabel("vector length (doubles)")
        ax.set_title(f"MPI_{collective.capitalize()}: node-aware x8 / flat x1")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("time(x8) / time(x1)  (< 1: node-aware faster)")
    axes[1].legend(fontsize=7, loc="lower left", ncol=2)
    fig.tight_layout()
    fig.savefig(HERE / "seed000.png", dpi=110)


if __name__ == "__main__":
    sys.exit(main())
