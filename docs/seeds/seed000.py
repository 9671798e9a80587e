"""Seed 000 (Balaji & Kimpe 2013), Fig. 2-3: node-aware (x8) against flat (x1) reduce/allreduce.

Regenerates ``docs/seeds/seed000.tsv`` and ``docs/seeds/seed000.png``::

    .venv/bin/python docs/seeds/seed000.py

and, with ``--fit``, the fit of the network's bandwidth to the paper's Fig. 2
(``docs/seeds/seed000_fit.tsv``; the catalog's value is its minimum)::

    .venv/bin/python docs/seeds/seed000.py --fit

Every experiment runs on the catalog machine ``seed000_qdr320`` under its
calibrated profile (``seed000_mpich_qdr``), ``--timing-only``; x8 is
``node_aware --node-size 0`` (the real node of 8 cores: 2 sockets of 4),
x1 ``--node-size 1`` (each rank its own node: MPICH's flat algorithm among
all ranks).  A job of np ranks gets np / 8 nodes.

``headline``
    the paper's run as collsim reads it (16 to 1,024 ranks): ranks dealt
    round-robin over the job's nodes (``--mapping cyclic:N``, Hydra's default with a host list),
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
``qdr_wire``
    the headline with the network at QDR's 4 GB/s of data instead of the
    catalog's fitted 2.4 GB/s (what MPICH's TCP netmod over IPoIB is taken
    to deliver): the machine as it would be with an InfiniBand netmod.
``one_switch_256``
    the headline at 256 ranks (32 nodes) with leaf switches of 32 nodes
    instead of 16, so that no message crosses a spine: the check that the
    catalog's two-level tree (d-mod-k routes over its 16 spines) behaves as
    the non-blocking tree it is meant to be.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from collsim.params import AlgorithmParams
from collsim.platforms import fat_tree, multicore
from collsim.platforms.catalog import CATALOG, catalog_platform, catalog_profile
from collsim.profiles import load_profile
from collsim.runner import RunSpec, run

HERE = Path(__file__).resolve().parent
PROCESS_COUNTS = (16, 64, 128, 256)
LARGE_COUNTS = PROCESS_COUNTS + (512, 1024)  # the headline only: the paper's growth to 1,024
COUNTS = (512, 4096, 32768, 524288)          # doubles, as the seed's x-axis
COLLECTIVES = ("reduce", "allreduce")
CORES_PER_NODE = 8
# experiment: (mapping kind, communicators cached, socket memory B/s or None = the catalog's,
#              nodes per leaf switch or None = the catalog's 16, network B/s or None = the
#              catalog's, process counts)
EXPERIMENTS = {
    "headline": ("cyclic", True, None, None, None, LARGE_COUNTS),
    "block": ("block", True, None, None, None, PROCESS_COUNTS),
    "per_call": ("cyclic", False, None, None, None, PROCESS_COUNTS),
    "copy_in_memory": ("cyclic", True, 8e9, None, None, PROCESS_COUNTS),
    "qdr_wire": ("cyclic", True, None, None, 4e9, PROCESS_COUNTS),
    "one_switch_256": ("cyclic", True, None, 32, None, (256,)),
}
# The fit (--fit): the network bandwidths tried, and the paper's Fig. 2 magnitudes it is
# fitted to: (collective, np, doubles, lowest and highest x8/x1 the paper states).
FIT_BANDWIDTHS_BPS = tuple(b * 1e8 for b in range(16, 42, 2))
FIT_TARGETS = (
    ("reduce", 64, 32768, 0.20, 0.40),    # "2.5 to 5 times faster" at 32,768 doubles
    ("reduce", 16, 524288, 0.65, 0.65),   # "approximately 65% ... at 16 ranks", 512k doubles
)


def machine(memory_Bps: float | None, leaf_nodes: int | None = None,
            network_Bps: float | None = None):
    """The catalog machine, with the sockets' memory bandwidth, the leaf switches' node
    count (the spines then adjusted to keep 320 nodes) or the network links' bandwidth
    replaced when given."""
    if leaf_nodes is None and network_Bps is None:
        G = catalog_platform("seed000_qdr320")
    else:
        entry = CATALOG["seed000_qdr320"]
        network = dict(entry["network"][1])
        if leaf_nodes is not None:
            network["down_ports"] = [leaf_nodes, 320 // leaf_nodes]
        if network_Bps is not None:
            network["bandwidth_Bps"] = network_Bps
        G = multicore(fat_tree(**network), **entry["params"])
    if memory_Bps is not None:
        for host, kind in G.nodes(data="kind"):
            if kind == "host":
                G.nodes[host]["memory_bandwidth_Bps"] = memory_Bps
    return G


def times_s(G, profile, collective, np, node_size, mapping, cached, counts=COUNTS):
    spec = RunSpec(collective, "node_aware", np, tuple(8 * c for c in counts), mapping=mapping,
                   check=False, timing_only=True,
                   params=AlgorithmParams(node_size=node_size, cached_comms=cached))
    rows, _ = run(spec, G, profile, platform="seed000_qdr320")
    return {row["bytes"] // 8: row["time_s"] for row in rows}


def log_error(ratio: float, low: float, high: float) -> float:
    """How far a ratio is outside the paper's range, in natural log (0 inside)."""
    return math.log(ratio / low) if ratio < low else max(0.0, math.log(ratio / high))


def fit() -> int:
    """The network bandwidth that best reproduces the paper's Fig. 2 magnitudes: root mean
    square of the log errors over FIT_TARGETS, for each bandwidth tried."""
    profile = load_profile(catalog_profile("seed000_qdr320"))
    lines = ["network_Bps\t" + "\t".join(f"{c}_{n}_{d}" for c, n, d, _, _ in FIT_TARGETS)
             + "\trms_log_error"]
    best = None
    for bandwidth_Bps in FIT_BANDWIDTHS_BPS:
        G = machine(None, None, bandwidth_Bps)
        ratios = []
        for collective, np, count, low, high in FIT_TARGETS:
            mapping = f"cyclic:{np // CORES_PER_NODE}"
            flat = times_s(G, profile, collective, np, 1, mapping, True, (count,))[count]
            aware = times_s(G, profile, collective, np, 0, mapping, True, (count,))[count]
            ratios.append(aware / flat)
        rms = math.sqrt(sum(log_error(r, t[3], t[4]) ** 2 for r, t in zip(ratios, FIT_TARGETS))
                        / len(FIT_TARGETS))
        lines.append(f"{bandwidth_Bps:.3g}\t" + "\t".join(f"{r:.4f}" for r in ratios)
                     + f"\t{rms:.4f}")
        print(lines[-1], flush=True)
        if best is None or rms < best[1]:
            best = (bandwidth_Bps, rms)
    (HERE / "seed000_fit.tsv").write_text("\n".join(lines) + "\n")
    print(f"best: {best[0]:.3g} B/s, rms log error {best[1]:.3f} (a factor {math.exp(best[1]):.2f})")
    return 0


def main() -> int:
    if sys.argv[1:] == ["--fit"]:
        return fit()
    profile = load_profile(catalog_profile("seed000_qdr320"))
    rows = []
    for experiment, (kind, cached, memory, leaf_nodes, network, counts) in EXPERIMENTS.items():
        G = machine(memory, leaf_nodes, network)
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

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8), sharey=True)
    colours = ("tab:blue", "tab:orange", "tab:green", "tab:purple", "tab:brown", "tab:pink")
    for ax, collective in zip(axes, COLLECTIVES):
        for experiment, style, counts in (("headline", "-o", LARGE_COUNTS),
                                          ("block", ":s", PROCESS_COUNTS)):
            for np, colour in zip(counts, colours):
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
    handles, labels = axes[0].get_legend_handles_labels()
    extra = axes[1].get_legend_handles_labels()
    fig.legend(handles + extra[0][-1:], labels + extra[1][-1:], fontsize=7, ncol=6,
               loc="lower center")
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    fig.savefig(HERE / "seed000.png", dpi=110)


if __name__ == "__main__":
    sys.exit(main())
