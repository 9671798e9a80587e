"""Markdown tables from the ``collsim repro`` outputs of analysis/repro/ (the JSON files).

Usage: .venv/bin/python analysis/repro/summarize.py > analysis/repro/summary.md

For every study: per algorithm and size, the configurations, the distinct
results, the worst ulps from the correctly rounded sum, the error against
gamma_{p-1} sum |x| and against gamma_d sum |x| (d the summation depth); then
the price of reproducibility per process count and size.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from collsim.units import format_bytes, format_seconds

HERE = Path(__file__).resolve().parent


def _g(value, spec=".3g") -> str:
    return "-" if value is None else format(value, spec)


def matrix_table(document: dict) -> list[str]:
    lines = ["| inputs | size | algorithm | configs | distinct | worst ulps | err / bound (any order) "
             "| depth d | err / bound_d |", "|---|---|---|---|---|---|---|---|---|"]
    for e in document["matrix"]:
        distinct = f"**{e['distinct_results']}**" if e["distinct_results"] > 1 else "1"
        lines.append(f"| {e['inputs']} | {format_bytes(e['bytes'])} | {e['algorithm']} | "
                     f"{e['configurations']} | {distinct} | {_g(e['worst_ulp_error'], '.4g')} | "
                     f"{_g(e['worst_error_vs_bound'])} | {_g(e['depth'], 'd')} | "
                     f"{_g(e['worst_error_vs_depth_bound'])} |")
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
            singles = [g[0] for g in e["agreeing"] if len(g) <= 3]
            lines.append(f"- {e['algorithm']} {format_bytes(e['bytes'])} ({e['inputs']} inputs): "
                         f"groups of {sizes} configurations; the small groups: "
                         + "; ".join(", ".join(g) for g in e["agreeing"] if len(g) <= 3))
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
    sys.stdout.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
