"""Seed 003 (Traff 2021), Table 2: pipelined reduce+bcast against the dual-root allreduce on Hydra.

Regenerates ``docs/seeds/seed003.tsv`` and ``docs/seeds/seed003.png`` (about
8 minutes on 2 busy cores)::

    .venv/bin/python docs/seeds/seed003.py          # the page's data
    .venv/bin/python docs/seeds/seed003.py --fit    # re-fit the calibration (about 5 minutes)

288 ranks, 8 on each of Hydra's 36 nodes placed as Open MPI 4's default
``--map-by socket`` places them (ranks alternate between the node's two
sockets), ``MPI_INT`` elements, ``MPI_SUM``.  Experiments:

``table2``
    the catalog machine ``seed003_hydra`` under its calibrated profile
    ``seed003_openmpi_opa``, every count of Table 2 but 0, both algorithms.
``no_overheads``
    the cause experiment for small counts: counts <= 250 under ``hockney``
    (no per-message overhead, no eager protocol).

``--fit`` re-derives the two fitted numbers in one pass: the per-message
overhead o (send = receive) from Table 2's counts <= 250, where time is
latency, at the vendor's NIC rate; then, under that o, the NIC links'
bandwidth from the largest count.  Each is a
least-squares fit in relative error of both algorithms' columns, time being
linear in o and close to linear in the seconds per byte of the NIC links.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from pathlib import Path

from collsim.platforms.catalog import CATALOG, catalog_profile
from collsim.platforms.dual_rail import dual_rail
from collsim.profiles import load_profile
from collsim.runner import RunSpec, run

HERE = Path(__file__).resolve().parent
MACHINE = "seed003_hydra"
NP, PER_NODE, NODES = 288, 8, 36
ALGORITHMS = ("pipelined_tree", "dual_root_pipelined")
# seed 003 Table 2, microseconds: count -> (MPI_Allreduce, MPI_Reduce+MPI_Bcast,
# pipelined, doubly pipelined)
TABLE2 = {
    1: (16.75, 24.44, 29.95, 33.60), 2: (15.55, 19.08, 25.37, 32.41),
    8: (19.96, 27.80, 33.60, 36.18), 15: (19.38, 25.91, 30.82, 35.12),
    21: (20.63, 24.64, 31.45, 35.49), 25: (21.45, 24.98, 30.70, 35.32),
    87: (21.46, 27.82, 37.08, 38.48), 150: (23.77, 29.23, 38.84, 40.88),
    212: (24.96, 31.21, 41.32, 43.41), 250: (25.27, 32.17, 41.82, 44.25),
    875: (42.19, 71.44, 75.20, 73.15), 1500: (63.98, 94.17, 112.31, 104.39),
    2125: (99.07, 124.31, 162.24, 152.74), 2500: (1059.83, 129.21, 172.16, 165.21),
    8750: (1122.91, 456.07, 689.72, 621.82), 15000: (1233.48, 688.99, 775.91, 719.73),
    21250: (1218.00, 1020.46, 862.24, 805.53), 25000: (1211.81, 1146.03, 908.35, 822.63),
    87500: (1563.37, 4294.96, 1630.25, 1412.93), 150000: (1854.84, 6087.61, 2276.29, 1958.36),
    212500: (2472.61, 7106.53, 2941.19, 2489.45), 250000: (2893.00, 7835.16, 3289.41, 2765.93),
    875000: (14083.86, 21566.69, 9392.92, 8158.38),
    1500000: (12421.02, 36192.82, 15557.71, 13434.51),
    2125000: (16154.38, 34915.25, 21776.97, 18955.76),
    2500000: (19579.38, 39681.02, 25773.33, 22346.98),
    4597152: (31391.74, 63723.56, 46497.68, 40701.29),
    6694304: (45622.58, 88317.08, 67372.14, 59036.27),
    8388608: (56249.24, 204326.0, 84081.41, 73116.03),
}
PAPER_COLUMN = {"pipelined_tree": 2, "dual_root_pipelined": 3}
SMALL = tuple(c for c in TABLE2 if c <= 250)
VENDOR_NIC_BPS = 12.5e9    # Intel Omni-Path 100 series, 100 Gb/s per port


def mapping_file(directory: Path) -> str:
    """Open MPI's ``--map-by socket`` with 8 ranks per node: ranks alternate sockets."""
    path = directory / "hydra_8_per_node.txt"
    path.write_text("".join(f"node-{node}.s{slot % 2}\n"
                            for node in range(NODES) for slot in range(PER_NODE)))
    return f"file:{path}"


def machine(nic_bandwidth_Bps=None):
    params = dict(CATALOG[MACHINE]["params"])
    if nic_bandwidth_Bps is not None:
        params["nic_bandwidth_Bps"] = nic_bandwidth_Bps
    return dual_rail(**params)


def times_us(algorithm, counts, profile, mapping, nic_bandwidth_Bps=None):
    spec = RunSpec("allreduce", algorithm, NP, tuple(4 * c for c in counts), dtype="int32",
                   mapping=mapping, check=False, timing_only=True)
    rows, _ = run(spec, machine(nic_bandwidth_Bps), profile, platform=MACHINE)
    return {row["bytes"] // 4: row["time_s"] * 1e6 for row in rows}


def linear_fit(at0, at1, x1, targets):
    """x minimizing sum((t0 + (t1 - t0) x / x1) / paper - 1)^2 over the cells."""
    num = den = 0.0
    for key, paper in targets.items():
        slope = (at1[key] - at0[key]) / x1 / paper
        num += slope * (1.0 - at0[key] / paper)
        den += slope * slope
    return num / den


def fit(mapping) -> int:
    base = load_profile(catalog_profile(MACHINE))
    quiet = dataclasses.replace(base, send_overhead_s=0.0, recv_overhead_s=0.0)
    probe_o = 5e-7
    loud = dataclasses.replace(base, send_overhead_s=probe_o, recv_overhead_s=probe_o)
    at0, at1, targets = {}, {}, {}
    for algorithm in ALGORITHMS:   # one pass: o first, at the vendor's NIC rate
        t0 = times_us(algorithm, SMALL, quiet, mapping, VENDOR_NIC_BPS)
        t1 = times_us(algorithm, SMALL, loud, mapping, VENDOR_NIC_BPS)
        for count in SMALL:
            key = (algorithm, count)
            at0[key], at1[key] = t0[count], t1[count]
            targets[key] = TABLE2[count][PAPER_COLUMN[algorithm]]
    o = linear_fit(at0, at1, probe_o, targets)
    print(f"o (send = receive overhead): {o * 1e9:.0f} ns", flush=True)
    fitted = dataclasses.replace(base, send_overhead_s=o, recv_overhead_s=o)
    largest = max(TABLE2)
    # seconds per byte of the NIC links: the time is close to linear in it
    b0, b1 = 1 / VENDOR_NIC_BPS, 1 / 2e9
    at0, at1, targets = {}, {}, {}
    for algorithm in ALGORITHMS:
        at0[algorithm] = times_us(algorithm, (largest,), fitted, mapping, 1 / b0)[largest]
        at1[algorithm] = times_us(algorithm, (largest,), fitted, mapping, 1 / b1)[largest]
        targets[algorithm] = TABLE2[largest][PAPER_COLUMN[algorithm]]
    beta = b0 + linear_fit(at0, at1, b1 - b0, targets)
    print(f"NIC bandwidth: {1 / beta / 1e9:.2f} GB/s", flush=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true", help="re-fit o and the NIC bandwidth, print them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        mapping = mapping_file(Path(tmp))
        if args.fit:
            return fit(mapping)
        calibrated = load_profile(catalog_profile(MACHINE))
        hockney = load_profile("hockney")
        rows = []   # (experiment, profile, algorithm, count, time_us, paper_us)
        for algorithm in ALGORITHMS:
            for count, t in times_us(algorithm, tuple(TABLE2), calibrated, mapping).items():
                rows.append(("table2", calibrated.name, algorithm, count, t,
                             TABLE2[count][PAPER_COLUMN[algorithm]]))
            print(f"table2 {algorithm} done", flush=True)
            for count, t in times_us(algorithm, SMALL, hockney, mapping).items():
                rows.append(("no_overheads", "hockney", algorithm, count, t,
                             TABLE2[count][PAPER_COLUMN[algorithm]]))
    with open(HERE / "seed003.tsv", "w") as out:
        out.write("experiment\tprofile\talgorithm\tcount\ttime_us\tpaper_us\n")
        for row in rows:
            out.write("\t".join(f"{v:.6g}" if isinstance(v, float) else str(v) for v in row)
                      + "\n")
    summarize(rows)
    plot(rows)
    return 0


def by_count(rows, experiment):
    out = {}
    for e, _, algorithm, count, t, paper in rows:
        if e == experiment:
            out.setdefault(count, {})[algorithm] = (t, paper)
    return out


def summarize(rows) -> None:
    for experiment in ("table2", "no_overheads"):
        print(f"\n{experiment}: count  pipelined (us, paper)  dual root (us, paper)  "
              "ratio pipelined/dual (collsim, paper)")
        for count, cell in sorted(by_count(rows, experiment).items()):
            (tp, pp), (td, pd) = cell["pipelined_tree"], cell["dual_root_pipelined"]
            print(f"  {count:8} {tp:10.2f} {pp:10.2f}  {td:10.2f} {pd:10.2f}   "
                  f"{tp / td:.2f} {pp / pd:.2f}")
    errors = [t / paper - 1.0 for e, _, _, _, t, paper in rows if e == "table2"]
    small = [t / paper - 1.0 for e, _, _, c, t, paper in rows if e == "table2" and c <= 250]
    print(f"\nfit error over Table 2 (both columns, {len(errors)} cells): mean |rel| "
          f"{sum(map(abs, errors)) / len(errors):.1%}, max |rel| {max(map(abs, errors)):.1%}; "
          f"counts <= 250: mean |rel| {sum(map(abs, small)) / len(small):.1%}")


def plot(rows) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.3))
    table = by_count(rows, "table2")
    counts = sorted(table)
    ax = axes[0]
    for algorithm, colour in zip(ALGORITHMS, ("tab:orange", "tab:blue")):
        ax.plot(counts, [table[c][algorithm][0] for c in counts], "-o", ms=3, color=colour,
                label=f"{algorithm} (collsim)")
        ax.plot(counts, [table[c][algorithm][1] for c in counts], "--s", ms=3, color=colour,
                alpha=0.6, label=f"{algorithm} (paper)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("count (MPI_INT per rank)")
    ax.set_ylabel("time (us)")
    ax.set_title("Hydra, 288 ranks: Table 2")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax = axes[1]
    quiet = by_count(rows, "no_overheads")

    def ratio(cells, c, which):
        return cells[c]["pipelined_tree"][which] / cells[c]["dual_root_pipelined"][which]

    ax.plot(counts, [ratio(table, c, 1) for c in counts], "--s", ms=3, color="black",
            label="paper")
    ax.plot(counts, [ratio(table, c, 0) for c in counts], "-o", ms=3, color="tab:green",
            label="collsim, seed003_openmpi_opa")
    ax.plot(sorted(quiet), [ratio(quiet, c, 0) for c in sorted(quiet)], ":^", ms=3,
            color="tab:red", label="collsim, hockney (no overheads)")
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("count (MPI_INT per rank)")
    ax.set_ylabel("time(pipelined) / time(dual root)")
    ax.set_title("> 1: dual root faster")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(HERE / "seed003.png", dpi=110)


if __name__ == "__main__":
    sys.exit(main())
