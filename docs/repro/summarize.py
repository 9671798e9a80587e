"""Markdown tables from the ``collsim repro`` outputs of docs/repro/ (the JSON files).

Usage: .venv/bin/python docs/repro/summarize.py > docs/repro/summary.md

For every study: per algorithm and size, the configurations, the distinct
results, the worst ulps from the correctly rounded sum, the error against
gamma_{p-1} sum |x| and against gamma_d sum |x| (d the summation depth); then
the price of reproducibility per process count and size; last, the error per
summation depth over the studies of each distribution.  Studies named reduce_*
are of MPI_Reduce, the others of MPI_Allreduce.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from collsim.repro import own_bound_ratio
from collsim.units import format_bytes, format_seconds

HERE = Path(__file__).resolve().parent


def _g(value, spec=".3g") -> str:
    return "-" if value is None else format(value, spec)


def matrix_table(document: dict) -> list[str]:
    """The matrix; err / bound_d is against gamma_d sum |x| for an algorithm with a
    summation depth d, against pre-rounding's own bound for the prerounded ones (depth
    `pr`)."""
    lines = ["| inputs | size | algorithm | configs | distinct | worst ulps | err / bound (any order) "
             "| depth d | err / bound_d |", "|---|---|---|---|---|---|---|---|---|"]
    for e in document["matrix"]:
        distinct = f"**{e['distinct_results']}**" if e["distinct_results"] > 1 else "1"
        own = own_bound_ratio(e)
        depth = "pr" if e["depth"] is None and own is not None else _g(e["depth"], "d")
        lines.append(f"| {e['inputs']} | {format_bytes(e['bytes'])} | {e['algorithm']} | "
                     f"{e['configurations']} | {distinct} | {_g(e['worst_ulp_error'], '.4g')} | "
                     f"{_g(e['worst_error_vs_bound'])} | {depth} | {_g(own)} |")
    return lines


def price_table(document: dict) -> list[str]:
    lines = []
    for row in document["price"]:
        if not row["over_fastest_non_reproducible"]:
            continue
        if not lines:
            lines = ["| np | size | node_aware | fastest other | reproducible: time (x node_aware, "
                     "x fastest other) |", "|---|---|---|---|---|"]
        fastest = row["fastest_s"]
        other = row["fastest_non_reproducible"]
        cells = []
        for algorithm, ratio in row["over_fastest_non_reproducible"].items():
            over_na = row["over_node_aware"].get(algorithm)
            cells.append(f"{algorithm} {format_seconds(fastest[algorithm])} "
                         f"({_g(over_na)}x, {_g(ratio)}x)")
        node_aware = format_seconds(fastest["node_aware"]) if "node_aware" in fastest else "-"
        lines.append(f"| {row['np']} | {format_bytes(row['bytes'])} | {node_aware} | "
                     f"{other} {format_seconds(fastest[other])} | {'; '.join(cells)} |")
    return lines


def groups(document: dict) -> list[str]:
    lines = []
    for e in document["matrix"]:
        if e["distinct_results"] > 1:
            sizes = [len(g) for g in e["agreeing"]]
            lines.append(f"- {e['algorithm']} {format_bytes(e['bytes'])} ({e['inputs']} inputs): "
                         f"groups of {sizes} configurations: "
                         + "; ".join(_group_text(g) for g in e["agreeing"]))
    return lines


def _group_text(members: list[str], shown: int = 3) -> str:
    """A group of agreeing configurations: all of a small one, the first few of a large one."""
    if len(members) <= shown + 1:
        return ", ".join(members)
    return ", ".join(members[:shown]) + f" and {len(members) - shown} more"


def depth_table(documents: dict[str, dict], dist_word: str) -> list[str]:
    """Per algorithm and summation depth d, over the studies whose name contains
    dist_word: the worst error in units of u sum |x_i| against gamma_d / u ~ d."""
    worst: dict[tuple[str, str, int], list] = {}
    for name, document in documents.items():
        # studies named reduce_* are of MPI_Reduce, the others of MPI_Allreduce
        if name.startswith("reduce_"):
            collective, study = "reduce", name[len("reduce_"):]
        else:
            collective, study = "allreduce", name
        if dist_word not in study and not (dist_word == "lognormal" and (
                study.startswith("decompositions") or study.startswith("families")
                or study.startswith("price"))):
            continue
        for e in document["matrix"]:
            if e["depth"] is None:
                continue
            key = (collective, e["algorithm"], e["depth"])
            cell = worst.setdefault(key, [0.0, 0.0, 0])
            cell[0] = max(cell[0], e["worst_error_u_sum_abs"])
            cell[1] = max(cell[1], e["worst_error_vs_depth_bound"])
            cell[2] += 1
    lines = [f"| collective | algorithm | depth d | worst error / (u sum abs x) | gamma_d / u | "
             f"worst error / (gamma_d sum abs x) | cells |", "|---|---|---|---|---|---|---|"]
    for (collective, algorithm, depth), (in_u, ratio, cells) in sorted(worst.items()):
        gamma_over_u = depth / (1 - depth * 2.0 ** -53)
        lines.append(f"| {collective} | {algorithm} | {depth} | {in_u:.3g} | {gamma_over_u:.6g} | "
                     f"{ratio:.3g} | {cells} |")
    return lines


def main(argv: list[str]) -> int:
    names = argv or sorted(p.stem for p in HERE.glob("*.json"))
    out = []
    for name in names:
        path = HERE / f"{name}.json"
        document = json.loads(path.read_text())
        if isinstance(document, list):  # the first page's format: the matrix alone
            continue
        out.append(f"## {name}\n")
        out.extend(matrix_table(document))
        out.append("")
        prices = price_table(document)
        if prices:
            out.extend(prices)
            out.append("")
        differing = groups(document)
        if differing:
            out.append("Configurations that differ:")
            out.extend(differing)
            out.append("")
        if document.get("failures"):
            out.append("Failed configurations:")
            out.extend(f"- {f}" for f in document["failures"])
            out.append("")
    documents = {name: json.loads((HERE / f"{name}.json").read_text()) for name in names}
    for word in ("lognormal", "illcond"):
        table = depth_table(documents, word)
        if len(table) > 2:
            out.append(f"## Error per summation depth, {word} studies (and decompositions: "
                       "lognormal)\n" if word == "lognormal" else f"## Error per summation "
                       f"depth, {word} studies\n")
            out.extend(table)
            out.append("")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
