"""``collsim repro``: which algorithms give the same bits across placements, and at what price.

Runs a set of algorithms over platforms x mappings x node exposures x process
counts (the configurations) on the same seeded inputs and prints, per
algorithm and size, the reproducibility matrix: how many distinct results
appear, which configurations agree, the worst distance from the correctly
rounded exact sum in ulps and its spread, the worst error against Higham's
bound, and the simulated time of each configuration.

A node exposure x_k (seed 000's x1/x2/x4/x8) presents k consecutive ranks as
a node to the algorithms that look at nodes (those taking ``node_size``); the
others see the machine as it is, so for them every exposure is the same run.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import sys
from dataclasses import dataclass

import networkx as nx

from collsim.analysis.models import AlgorithmParams
from collsim.errors import CollsimError
from collsim.platform_cli import add_platform_arguments
from collsim.platforms.simgrid import write_atomically
from collsim.profiles import Profile
from collsim.runner import RunSpec, find_algorithm, run
from collsim.units import format_bytes, format_seconds

__all__ = ["Configuration", "repro_rows", "matrix", "format_matrix", "main_repro"]


@dataclass(frozen=True)
class Configuration:
    """One placement of the ranks: platform, mapping, exposure, process count."""

    platform: str
    mapping: str
    exposure: int  # ranks presented as a node; 0 = the real node
    np: int

    @property
    def label(self) -> str:
        exposure = "node" if self.exposure == 0 else f"x{self.exposure}"
        return f"{self.platform}/{self.mapping}/{exposure}/np={self.np}"


def _simulate(job: tuple) -> list[dict]:
    spec, G, profile, platform = job
    rows, _ = run(spec, G, profile, platform=platform)
    return rows


def repro_rows(
    collective: str,
    algorithms: list[str],
    platforms: list[tuple[str, nx.Graph]],
    mappings: list[str],
    exposures: list[int],
    process_counts: list[int],
    sizes_bytes: tuple[int, ...],
    profile: Profile,
    *,
    dist: str = "lognormal",
    seed: int = 1,
    jobs: int = 0,
) -> list[tuple[Configuration, dict]]:
    """Simulate every algorithm in every configuration; return (configuration, row) pairs.

    Raises
    ------
    CollsimError
        On an unknown algorithm, an impossible configuration or a failed run.
    """
    takes_node_size = {
        algorithm: "node_size" in find_algorithm(collective, algorithm).get("parameters", [])
        for algorithm in algorithms
    }
    work: list[tuple[Configuration, tuple]] = []
    for name, G in platforms:
        for mapping in mappings:
            for np in process_counts:
                for algorithm in algorithms:
                    for exposure in exposures if takes_node_size[algorithm] else [0]:
                        spec = RunSpec(
                            collective=collective, algorithm=algorithm, np=np,
                            sizes_bytes=sizes_bytes, dtype="double", op="sum", root=0,
                            seed=seed, dist=dist, mapping=mapping,
                            params=AlgorithmParams(node_size=exposure),
                        )
                        work.append((Configuration(name, mapping, exposure, np),
                                     (spec, G, profile, name)))
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1:
        results = [_simulate(job) for _, job in work]
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(_simulate, [job for _, job in work]))
    pairs = []
    for (configuration, _), rows in zip(work, results):
        for row in rows:
            if row["check"] != "ok":
                raise CollsimError(f"{collective}/{row['algorithm']} gave a wrong result in "
                                   f"{configuration.label} at {format_bytes(row['bytes'])}")
            pairs.append((configuration, row))
    return pairs


def matrix(pairs: list[tuple[Configuration, dict]]) -> list[dict]:
    """The reproducibility matrix: one entry per (algorithm, size)."""
    # Different process counts hold different data (an input depends on the rank), so
    # results are compared only between configurations with the same np.
    groups: dict[tuple[str, int, int], list[tuple[Configuration, dict]]] = {}
    for configuration, row in pairs:
        groups.setdefault((row["algorithm"], row["bytes"], configuration.np), []).append(
            (configuration, row))
    entries = []
    for (algorithm, n_bytes, np), members in groups.items():
        by_hash: dict[str, list[str]] = {}
        for configuration, row in members:
            by_hash.setdefault(row["result_hash"], []).append(configuration.label)
        ulps = [row["max_ulp_error"] for _, row in members]
        entries.append({
            "algorithm": algorithm,
            "bytes": n_bytes,
            "np": np,
            "configurations": len(members),
            "distinct_results": len(by_hash),
            "agreeing": sorted(sorted(labels) for labels in by_hash.values()),
            "worst_ulp_error": max(ulps),
            "ulp_spread": max(ulps) - min(ulps),
            "worst_error_vs_bound": max(row["max_error_ratio"] for _, row in members),
            "times_s": {configuration.label: row["time_s"] for configuration, row in members},
        })
    entries.sort(key=lambda e: (e["np"], e["bytes"], e["algorithm"]))
    return entries


def format_matrix(entries: list[dict]) -> str:
    """The matrix as a table, then the time of each configuration."""
    lines = [f"{'np':>5} {'bytes':>8}  {'algorithm':<20} {'configs':>7} {'distinct':>8} "
             f"{'worst ulps':>12} {'ulp spread':>12} {'err/bound':>9}  "
             f"{'fastest':>10} {'slowest':>10}"]
    for e in entries:
        times = e["times_s"].values()
        lines.append(
            f"{e['np']:>5} {format_bytes(e['bytes']):>8}  {e['algorithm']:<20} "
            f"{e['configurations']:>7} "
            f"{e['distinct_results']:>8} {e['worst_ulp_error']:>12.4g} {e['ulp_spread']:>12.4g} "
            f"{e['worst_error_vs_bound']:>9.3g}  {format_seconds(min(times)):>10} "
            f"{format_seconds(max(times)):>10}")
    lines.append("")
    lines.append("configurations that agree (one group per distinct result):")
    for e in entries:
        if e["distinct_results"] > 1:
            groups = "; ".join(", ".join(g) for g in e["agreeing"])
            lines.append(f"  np={e['np']} {format_bytes(e['bytes'])} {e['algorithm']}: {groups}")
    lines.append("")
    lines.append("simulated time per configuration:")
    for e in entries:
        for label, time_s in sorted(e["times_s"].items()):
            lines.append(f"  {format_bytes(e['bytes']):>8} {e['algorithm']:<20} {label:<40} "
                         f"{format_seconds(time_s)}")
    return "\n".join(lines) + "\n"


def plot(entries: list[dict], path: str) -> None:
    """Time per configuration and algorithm, one panel per size; distinct-result counts in the legend."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted({e["bytes"] for e in entries})
    figure, axes = plt.subplots(1, len(sizes), figsize=(5 * len(sizes), 4.2), squeeze=False)
    for ax, n_bytes in zip(axes[0], sizes):
        for e in (e for e in entries if e["bytes"] == n_bytes):
            labels = sorted(e["times_s"])
            ax.plot(range(len(labels)), [e["times_s"][k] * 1e6 for k in labels], marker="o",
                    label=f"{e['algorithm']} np={e['np']} ({e['distinct_results']} distinct)")
        ax.set_title(f"{format_bytes(n_bytes)} per rank")
        ax.set_xlabel("configuration (index into the sorted configuration list)")
        ax.set_ylabel("simulated time [us]")
        ax.set_yscale("log")
        ax.legend(fontsize=7)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
    plt.close(figure)
    write_atomically(path, buffer.getvalue())


def main_repro(args: argparse.Namespace, platforms: list[tuple[str, nx.Graph]],
               profile: Profile, sizes: tuple[int, ...]) -> int:
    """The ``collsim repro`` command (arguments parsed by the CLI)."""
    def int_list(text: str, what: str) -> list[int]:
        try:
            values = [int(v) for v in text.split(",")]
        except ValueError:
            raise CollsimError(f"--{what}: expected comma-separated integers, got {text!r}") from None
        if not values or any(v < 0 for v in values):
            raise CollsimError(f"--{what}: values must be >= 0, got {text!r}")
        return values

    exposures = int_list(args.exposures, "exposures")
    process_counts = int_list(args.np, "np")
    if 0 in process_counts:
        raise CollsimError("--np: process counts must be >= 1")
    algorithms = args.alg.split(",")
    mappings = args.mappings.split(",")
    pairs = repro_rows(args.coll, algorithms, platforms, mappings, exposures, process_counts,
                       sizes, profile, dist=args.dist, seed=args.seed, jobs=args.jobs)
    entries = matrix(pairs)
    text = format_matrix(entries)
    if args.output:
        write_atomically(f"{args.output}.txt", text.encode())
        write_atomically(f"{args.output}.json", (json.dumps(entries, indent=1) + "\n").encode())
        plot(entries, f"{args.output}.png")
        text += f"wrote {args.output}.txt, {args.output}.json, {args.output}.png\n"
    sys.stdout.write(text)
    return 0


def add_repro_command(commands, parser_class, build_platform, load_profile, parse_sizes) -> None:
    """Register ``collsim repro``."""
    parser = commands.add_parser(
        "repro", help="reproducibility matrix: distinct results and times across placements")
    parser.add_argument("--coll", default="reduce", help="reduce or allreduce (default reduce)")
    parser.add_argument("--alg", required=True, help="comma-separated algorithms")
    parser.add_argument("--platforms", required=True,
                        help="comma-separated catalog names or generators (collsim platform "
                        "list); generators take the shape options below")
    parser.add_argument("--mappings", default="block", help="comma-separated (default block)")
    parser.add_argument("--exposures", default="0",
                        help="ranks presented as a node, e.g. 1,2,4,8 (0: the real node)")
    parser.add_argument("--np", required=True, help="comma-separated process counts")
    parser.add_argument("--bytes", default="8,8KiB,256KiB")
    parser.add_argument("--dist", default="lognormal", choices=("uniform", "lognormal", "illcond"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", default="hockney")
    parser.add_argument("--jobs", type=int, default=0, help="worker processes (0: all cores)")
    parser.add_argument("-o", "--output", help="also write PREFIX.txt, PREFIX.json, PREFIX.png")

    def handler(args: argparse.Namespace) -> int:
        profile = load_profile(args.profile)
        sizes = parse_sizes(args.bytes)
        counts = [int(v) for v in args.np.split(",") if v.strip().isdigit()]
        largest_np = max(counts) if counts else 2
        platforms = []
        for name in args.platforms.split(","):
            G, label = build_platform(replace_namespace(args, platform=name), largest_np)
            platforms.append((label, G))
        return main_repro(args, platforms, profile, sizes)

    parser.set_defaults(handler=handler)
    # the shape options (--nodes, --cores-per-node, ...) for generator names
    add_platform_arguments(parser)


def replace_namespace(args: argparse.Namespace, **changes) -> argparse.Namespace:
    """A copy of args with some attributes changed."""
    copy = argparse.Namespace(**vars(args))
    for key, value in changes.items():
        setattr(copy, key, value)
    return copy
