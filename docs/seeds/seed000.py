"""Seed 000 (Balaji & Kimpe 2013), Fig. 2-3: node-aware (x8) against flat (x1) reduce/allreduce.

Regenerates ``docs/seeds/seed000.tsv`` and ``docs/seeds/seed000.png``::

    .venv/bin/python docs/seeds/seed000.py

Two experiments, both under the catalog machine's calibrated profile
(``seed000_mpich_qdr``):

``headline``
    the catalog machine ``seed000_qdr320`` as the catalog gives it: ranks
    placed in blocks (node after node), x8 = ``node_aware --node-size 8``
    (8 consecutive ranks: the real node), x1 = ``--node-size 1`` (MPICH's flat
    algorithm).
``round_robin``
    the cause experiment: the same QDR network and nodes of 8 cores, one
    SimGrid host per node (so that ``--node-size 0`` groups the real node
    whatever the placement; 16 GB/s of memory: the node's two sockets), ranks
    placed round-robin over np / 8 nodes.
``round_robin_loopback``
    the same without the memory element: intra-node messages on SimGrid's
    contention-free loopback (50 GB/s, 0.1 us), as before issue 13.
"""

from __future__ import annotations

import sys
from pathlib import Path

from collsim.params import AlgorithmParams
from collsim.platforms import fat_tree
from collsim.platforms.catalog import CATALOG, catalog_platform, catalog_profile
from collsim.profiles import load_profile
from collsim.runner import RunSpec, run

HERE = Path(__file__).resolve().parent
PROCESS_COUNTS = (16, 64, 128)
COUNTS = (512, 4096, 32768, 262144)          # doubles, as the seed's x-axis
COLLECTIVES = ("reduce", "allreduce")
EXPERIMENTS = ("headline", "round_robin", "round_robin_loopback")
NODE_MEMORY_BPS = 16e9                       # two sockets of the catalog's 8 GB/s


def round_robin_machine(nodes: int, memory: bool = True):
    """The catalog's QDR network, ``nodes`` hosts of 8 cores each, memory shared per node."""
    network = dict(CATALOG["seed000_qdr320"]["network"][1])
    network.update(levels=1, down_ports=[nodes], up_ports=[1], cores_per_node=8)
    G = fat_tree(**network)
    for host, kind in G.nodes(data="kind"):
        if kind == "host" and memory:
            G.nodes[host].update(memory_bandwidth_Bps=NODE_MEMORY_BPS, memory_latency_s=1e-7)
    return G


def times_s(G, profile, collective, np, node_size, mapping):
    spec = RunSpec(collective, "node_aware", np, tuple(8 * c for c in COUNTS), mapping=mapping,
                   check=False, params=AlgorithmParams(node_size=node_size))
    rows, _ = run(spec, G, profile, platform="seed000")
    return {row["bytes"] // 8: row["time_s"] for row in rows}


def main() -> int:
    profile = load_profile(catalog_profile("seed000_qdr320"))
    catalog = catalog_platform("seed000_qdr320")
    rows = []
    for experiment in EXPERIMENTS:
        for collective in COLLECTIVES:
            for np in PROCESS_COUNTS:
                if experiment == "headline":
                    G, mapping, node = catalog, "block", 8
                else:
                    G, mapping, node = (round_robin_machine(np // 8, experiment == "round_robin"),
                                        "cyclic", 0)
                flat = times_s(G, profile, collective, np, 1, mapping)
                aware = times_s(G, profile, collective, np, node, mapping)
                for count in COUNTS:
                    rows.append((experiment, collective, np, count, flat[count], aware[count]))
                    print(f"{experiment:11} {collective:9} np={np:3} {count:7} doubles  "
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
    for ax, collective in zip(axes, COLLECTIVES):
        for experiment, style in (("headline", "-o"), ("round_robin", "--s"),
                                  ("round_robin_loopback", ":^")):
            for np, colour in zip(PROCESS_COUNTS, ("tab:blue", "tab:orange", "tab:green")):
                points = [(c, a / f) for e, coll, n, c, f, a in rows
                          if e == experiment and coll == collective and n == np]
                label = {"headline": "block (catalog)", "round_robin": "round-robin",
                         "round_robin_loopback": "round-robin, free loopback"}[experiment]
                label = f"{label} np={np}"
                ax.plot([c for c, _ in points], [r for _, r in points], style, color=colour,
                        label=label)
        ax.axhline(1.0, color="grey", lw=0.8)
        band = (0.2, 0.4) if collective == "reduce" else (0.45, 0.55)
        ax.axhspan(*band, color="tab:red", alpha=0.12,
                   label="paper at 32768 doubles" if collective == "reduce" else "paper: about 0.5")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("vector length (doubles)")
        ax.set_title(f"MPI_{collective.capitalize()}: node-aware x8 / flat x1")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("time(x8) / time(x1)  (< 1: node-aware faster)")
    axes[1].legend(fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(HERE / "seed000.png", dpi=110)


if __name__ == "__main__":
    sys.exit(main())
