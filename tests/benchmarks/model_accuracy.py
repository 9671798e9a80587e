"""Benchmark: the network model (``collsim predict``) against simulation, per platform family.

For each cell of a grid (algorithm x platform x ranks x mapping, several
sizes per simulation) it simulates with ``--timing-only`` and predicts, then
prints per family the median, 90th percentile and worst of
``|model / simulated - 1|``, with the flat model's (the closed form of
``collsim.analysis.models``, ``collsim predict``'s ``flat_model_s``) beside
it.  Rows go to a TSV as they come (``--tsv``), so a rerun skips the cells
already there.  Not part of ``make test``.

    .venv/bin/python tests/benchmarks/model_accuracy.py [--full] [--tsv FILE]

The default grid is the one docs/MODELS.md reports; ``--full`` adds 1024
ranks on the machines that have them and the cyclic mapping everywhere.
The families of ``OPT_IN`` (4096 ranks of a dragonfly, where the event loop
keeps sets of flows) run only when ``--families`` names them.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

import collsim
from collsim.analysis.network import PATTERNS
from collsim.errors import CollsimError
from collsim.units import parse_byte_list

ALGORITHMS = list(PATTERNS)
SIZES = [8, 65536, 16 << 20]


def sizes_for(collective: str, p: int, sizes: list[int] = SIZES) -> list[int]:
    """The grid's sizes (``sizes``: a rank's vector) for a collective: a row's bytes
    is one block (collectives.def), so where a rank's buffer holds p blocks
    (allgather, alltoall, gather, scatter, reduce_scatter) a block is the vector over
    p (whole doubles, at least one): the same bytes per rank as the others'; a
    barrier has no data."""
    from collsim.harness import collectives
    from collsim.runner import buffer_blocks

    if collectives()[collective]["recv_blocks"] == "none":
        return [0]
    blocks = buffer_blocks(collective, p)
    return sorted({max(8, n // blocks // 8 * 8) for n in sizes})

FAT_TREE = {"generator": "fat_tree", "levels": 2, "down_ports": [16, 16]}
PLATFORMS = {
    # family label: (platform table or catalog name, process counts, mappings)
    "crossbar": (None, [16, 100], ["block"]),
    "fat-tree 1:1": ({**FAT_TREE, "up_ports": [1, 16]}, [64, 256], ["block", "random"]),
    "fat-tree 2:1": ({**FAT_TREE, "up_ports": [1, 8]}, [64, 256], ["block", "random"]),
    "fat-tree 4:1": ({**FAT_TREE, "up_ports": [1, 4]}, [64, 256], ["block", "random"]),
    "dragonfly": ({"generator": "dragonfly", "groups": 5, "chassis_per_group": 2,
                   "routers_per_chassis": 4, "nodes_per_router": 8}, [64, 256],
                  ["block", "random"]),
    "seed003_hydra": ("seed003_hydra", [100, 256], ["block", "cyclic", "random"]),
    "seed004_graphene": ("seed004_graphene", [100, 256], ["block", "cyclic", "random"]),
    "modern_fat_tree_hdr": ("modern_fat_tree_hdr", [100, 256], ["block", "random"]),
    "modern_dragonfly_slingshot": ("modern_dragonfly_slingshot", [100, 256],
                                   ["block", "random"]),
}
FULL_EXTRA = {"seed003_hydra": [1024], "modern_fat_tree_hdr": [512]}

#: Families outside the default grid, run only when ``--families`` names them:
#: 4096 ranks of a 17-group dragonfly, where the binary and pipelined trees pile
#: hundreds of flows on a global link, so the event loop keeps sets of flows on
#: their bottleneck links (``engine._keeps_sets``), which no default cell reaches
#: (docs/MODELS.md, "Sets from four flows, held against SimGrid at 4096 ranks").
OPT_IN = {
    "dragonfly 4096": ({"generator": "dragonfly", "groups": 17, "chassis_per_group": 1,
                        "routers_per_chassis": 16, "nodes_per_router": 16}, [4096],
                       ["block", "random"]),
}
PLATFORMS.update(OPT_IN)
COLUMNS = ["family", "collective", "algorithm", "np", "mapping", "bytes", "time_s", "model_s",
           "flat_model_s", "predict_s"]


def cells(full: bool, algorithms=None, families=None, counts_given=None, counts_max=None,
          only_mappings=None):
    """The grid's cells; ``algorithms`` ((collective, algorithm) pairs),
    ``families`` (labels of PLATFORMS), ``counts_given`` (process counts, in
    place of the grid's), ``counts_max`` (the most ranks) and ``only_mappings``
    narrow it when given."""
    for family, (platform, counts, mappings) in PLATFORMS.items():
        if (families and family not in families) or (not families and family in OPT_IN):
            continue
        counts = counts + (FULL_EXTRA.get(family, []) if full else [])
        mappings = mappings + (["cyclic"] if full and "cyclic" not in mappings
                               and platform is not None else [])
        counts = counts_given or counts
        for p in counts:
            if counts_max and p > counts_max:
                continue
            for mapping in mappings:
                if only_mappings and mapping not in only_mappings:
                    continue
                for collective, algorithm in algorithms or ALGORITHMS:
                    yield family, platform, p, mapping, collective, algorithm


def _pairs(text: str) -> list[tuple[str, str]]:
    pairs = []
    for item in text.split(","):
        pair = tuple(item.split("/", 1))
        if pair not in PATTERNS:
            raise argparse.ArgumentTypeError(f"no network pattern for {item}")
        pairs.append(pair)
    return pairs


def measure(family, platform, p, mapping, collective, algorithm, vector_sizes=SIZES
            ) -> list[dict]:
    where = {"generator": "crossbar", "nodes": p} if platform is None else platform
    sizes = sizes_for(collective, p, vector_sizes)
    simulated = collsim.run(collective, algorithm, p, sizes, platform=where, mapping=mapping,
                            timing_only=True)
    began = time.perf_counter()
    predicted = collsim.predict(collective, algorithm, p, sizes, platform=where, mapping=mapping)
    predict_s = (time.perf_counter() - began) / len(sizes)
    rows = []
    for sim, model in zip(simulated.to_dict("records"), predicted.to_dict("records")):
        rows.append(dict(family=family, collective=collective, algorithm=algorithm, np=p,
                         mapping=mapping, bytes=sim["bytes"], time_s=sim["time_s"],
                         model_s=model["model_s"], flat_model_s=model["flat_model_s"],
                         predict_s=predict_s))
    return rows


def repredict(rows: list[dict]) -> list[dict]:
    """The rows with ``model_s`` and ``predict_s`` computed again by the current model."""
    cells = {}
    for row in rows:
        key = (row["family"], row["collective"], row["algorithm"], int(row["np"]), row["mapping"])
        cells.setdefault(key, []).append(row)
    for (family, collective, algorithm, p, mapping), chosen in cells.items():
        platform = PLATFORMS[family][0]
        where = {"generator": "crossbar", "nodes": p} if platform is None else platform
        sizes = [int(row["bytes"]) for row in chosen]
        began = time.perf_counter()
        predicted = collsim.predict(collective, algorithm, p, sizes, platform=where,
                                    mapping=mapping)
        elapsed = (time.perf_counter() - began) / len(sizes)
        for row, model_s, flat_s in zip(chosen, predicted["model_s"], predicted["flat_model_s"]):
            row["model_s"], row["flat_model_s"], row["predict_s"] = model_s, flat_s, elapsed
    return rows


def _error(model, simulated):
    return abs(model / simulated - 1) if simulated > 0 else 0.0


def _quantile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def summary(rows: list[dict]) -> str:
    if not rows:
        return "no cells (every cell skipped, or none chosen)\n"
    families = list(dict.fromkeys(row["family"] for row in rows))
    lines = [f"{'family':<28} {'cells':>5}  {'network model: median':>21} {'p90':>7} {'worst':>7}"
             f" {'<1e-6':>6}   {'flat model: median':>18} {'p90':>7} {'worst':>7}"]
    for family in families + ["all"]:
        chosen = [r for r in rows if family in ("all", r["family"])]
        net = [_error(float(r["model_s"]), float(r["time_s"])) for r in chosen]
        flat = [_error(float(r["flat_model_s"]), float(r["time_s"])) for r in chosen]
        exact = sum(error < 1e-6 for error in net) / len(net)
        lines.append(f"{family:<28} {len(chosen):>5}  {statistics.median(net):>21.3f} "
                     f"{_quantile(net, 0.9):>7.3f} {max(net):>7.3f} {exact:>6.0%}   "
                     f"{statistics.median(flat):>18.3f} {_quantile(flat, 0.9):>7.3f} "
                     f"{max(flat):>7.3f}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true")
    parser.add_argument("--tsv", default="model_accuracy.tsv")
    parser.add_argument("--summary-only", action="store_true",
                        help="print the summary of the TSV without running anything")
    parser.add_argument("--repredict", action="store_true",
                        help="recompute the model columns of the TSV's rows (no simulation): "
                             "after a change of the model")
    parser.add_argument("--algorithms", type=_pairs, default=None,
                        help="only these, as collective/algorithm[,collective/algorithm...] "
                             "(default: every algorithm with a network pattern)")
    parser.add_argument("--families", type=lambda text: text.split(","), default=None,
                        help=f"only these platform families ({', '.join(PLATFORMS)})")
    parser.add_argument("--np", type=lambda text: [int(n) for n in text.split(",")],
                        default=None, help="only these process counts (default: the grid's)")
    parser.add_argument("--np-max", type=int, default=None,
                        help="only the cells of at most this many ranks")
    parser.add_argument("--mappings", type=lambda text: text.split(","), default=None,
                        help="only these of the grid's mappings (block, cyclic, random)")
    parser.add_argument("--sizes", type=parse_byte_list, default=SIZES,
                        help="a rank's vector sizes, e.g. 8,64KiB,1MiB "
                             "(default: 8 B, 64 KiB and 16 MiB)")
    args = parser.parse_args()
    for family in args.families or []:
        if family not in PLATFORMS:
            parser.error(f"--families: unknown family {family!r}")
    path = Path(args.tsv)
    rows = list(csv.DictReader(path.open(), delimiter="\t")) if path.exists() else []
    done = {(r["family"], r["collective"], r["algorithm"], int(r["np"]), r["mapping"])
            for r in rows}
    if args.repredict:
        rows = repredict(rows)
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, COLUMNS, delimiter="\t")
            writer.writeheader()
            writer.writerows(rows)
    elif not args.summary_only:
        new_file = not path.exists()
        with path.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, COLUMNS, delimiter="\t")
            if new_file:
                writer.writeheader()
            for cell in cells(args.full, args.algorithms, args.families, args.np, args.np_max,
                              args.mappings):
                family, _, p, mapping, collective, algorithm = cell
                if (family, collective, algorithm, p, mapping) in done:
                    continue
                began = time.perf_counter()
                try:
                    measured = measure(*cell, args.sizes)
                except CollsimError as error:   # e.g. a selector's choice collsim lacks
                    print(f"{family} {collective}/{algorithm} np={p} {mapping}: skipped: "
                          f"{error}", file=sys.stderr, flush=True)
                    continue
                writer.writerows(measured)
                handle.flush()
                rows.extend(measured)
                print(f"{family} {collective}/{algorithm} np={p} {mapping}: "
                      f"{time.perf_counter() - began:.1f} s", file=sys.stderr, flush=True)
    print(summary(rows), end="")


if __name__ == "__main__":
    main()
