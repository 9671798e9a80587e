"""``collsim repro``: which algorithms give the same bits across placements, and at what price.

Runs a set of algorithms over platforms x mappings x node exposures x process
counts (the configurations) on the same seeded inputs and prints, per
algorithm and size, the reproducibility matrix: how many distinct results
appear, which configurations agree, the worst distance from the correctly
rounded exact sum in ulps and its spread, the worst error against Higham's
bound (of any order, and of the algorithm's own summation depth), and the
simulated time of each configuration; then the price of reproducibility per
size.

A node exposure x_k (seed 000's x1/x2/x4/x8) presents k consecutive ranks as
a node to the algorithms that look at nodes (those taking ``node_size``); the
others see the machine as it is, so for them every exposure is the same run.

Results are compared between configurations that hold the same data: an input
depends on (seed, global rank, index), so different process counts hold
different data, unless ``--inputs C`` spreads the inputs of C ranks over each
process count np (C / np virtual contributors per rank, collbench
``--contributors``).

Every finished configuration is stored in a results database (``--db``; by
default ``PREFIX.db`` next to the outputs; :mod:`collsim.store`), keyed by
everything that determines it (the run, the platform, the profile, the
versions and the collbench program: :func:`collsim.grid.measurement_keys`): a
rerun simulates only what is missing, and a configuration that fails costs one
line of the report, not the others.  The simulations run on the grid runner
(:mod:`collsim.grid`): local workers or a Dask cluster.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from dataclasses import dataclass

import networkx as nx

from collsim.params import AlgorithmParams
from collsim.analysis.trees import in_order_root, tree
from collsim.errors import CollsimError
from collsim.limits import argument_type
from collsim.platform_cli import add_platform_arguments, refuse_shape_options
from collsim.platforms import map_ranks, platform_hash
from collsim.platforms.draw import figure_bytes
from collsim.files import write_output
from collsim.profiles import Profile
from collsim.grid import Grid, GridStore, Job, add_grid_arguments, measurement_keys
from collsim.files import check_output_path, read_toml
from collsim.harness import collectives, find_algorithm, registry
from collsim.runner import DISTRIBUTIONS, RunSpec, validate_run
from collsim.store import close_store, open_store
from collsim.units import format_bytes, format_seconds

__all__ = ["Variant", "Configuration", "parse_variants", "summation_depth", "own_bound_ratio",
           "repro_rows", "matrix", "price", "format_matrix", "load_machines", "main_repro"]

# unit roundoff of double
_U = 2.0 ** -53


@dataclass(frozen=True)
class Variant:
    """An algorithm as named on the command line: ``prerounded:inner=rabenseifner``."""

    label: str
    name: str
    inner: str | None = None
    outer: str | None = None


def parse_variants(text: str) -> list[Variant]:
    """``a,b:inner=x,c:inner=y:outer=z`` -> variants (keys: inner, outer).

    Examples
    --------
    >>> [v.label for v in parse_variants("binomial,prerounded:inner=rabenseifner")]
    ['binomial', 'prerounded:inner=rabenseifner']
    """
    variants = []
    for item in text.split(","):
        name, *options = item.split(":")
        fields = {}
        for option in options:
            key, _, value = option.partition("=")
            if key not in ("inner", "outer") or not value or key in fields:
                raise CollsimError(f"--alg: {item!r}: expected NAME[:inner=ALG][:outer=ALG]")
            fields[key] = value
        if not name:
            raise CollsimError(f"--alg: empty algorithm name in {text!r}")
        variants.append(Variant(label=item, name=name, **fields))
    if len({v.label for v in variants}) != len(variants):
        raise CollsimError(f"--alg: an algorithm is listed twice in {text!r}")
    return variants


@dataclass(frozen=True)
class Configuration:
    """One placement of the data: platform, mapping, exposure, process count, contributors."""

    platform: str
    mapping: str
    exposure: int  # ranks presented as a node; 0 = the real node
    np: int
    contributors: int = 1  # inputs per rank (virtual ranks)

    @property
    def inputs(self) -> int:
        """The number of inputs (ranks' worth of data) reduced."""
        return self.np * self.contributors

    @property
    def label(self) -> str:
        exposure = "node" if self.exposure == 0 else f"x{self.exposure}"
        counts = f"np={self.np}" if self.contributors == 1 else f"np={self.np}*{self.contributors}"
        return f"{self.platform}/{self.mapping}/{exposure}/{counts}"


def _ceil_lg(n: int) -> int:
    return max(n - 1, 0).bit_length()


def summation_depth(collective: str, algorithm: str, np: int, *, contributors: int = 1,
                    node_size: int = 0, reads_contributors: bool = False) -> int | None:
    """The summation depth d of a reduction algorithm: the most additions any input goes
    through (into any rank's result: a reduce-scatter's block, a scan's prefix), for
    Higham's bound gamma_d sum |x_i| (seed 000 eq. 1-2).

    ``node_size`` is the node of a node-aware algorithm (ranks per node; the
    caller resolves the real node).  The node-aware reduce adds the other nodes'
    result into the root's node after the leaders' reduction, so their inputs go
    through a node's tree twice: 2 ceil(lg k) + ceil(lg N) for N nodes of k.  Contributors an algorithm does not read are
    folded in rank order first (contributors - 1 more additions).  None for an
    algorithm without a stated depth (pre-rounding has no summation error before
    its last rounding; the two-level and pipelined trees are not tabulated here).

    Examples
    --------
    >>> summation_depth("allreduce", "recursive_doubling", 512)
    9
    >>> summation_depth("allreduce", "ring", 8)
    7
    >>> summation_depth("allreduce", "node_aware", 512, node_size=4)
    9
    >>> summation_depth("reduce", "node_aware", 512, node_size=4)
    11
    >>> summation_depth("allreduce", "node_aware", 48, node_size=3)
    6
    >>> summation_depth("reduce_scatter", "butterfly", 13)
    4
    """
    if algorithm == "fixed_order":
        return _ceil_lg(np * contributors) if reads_contributors else _ceil_lg(np) + contributors - 1
    local = contributors - 1
    # a fold to a power of two adds one level: ceil(lg np) in all
    if algorithm in ("recursive_doubling", "rabenseifner", "reduce_bcast", "binomial",
                     "recursive_halving", "butterfly", "reduce_then_scatter"):
        return local + _ceil_lg(np)
    if algorithm in ("ring", "linear", "chain", "pipeline", "pairwise"):
        return local + np - 1
    if (collective, algorithm) in (("reduce", "in_order_binary"), ("allreduce", "binary_tree"),
                                   ("allreduce", "pipelined_tree")):
        return local + _in_order_depth(np)
    if algorithm == "node_aware" and node_size > 0:
        nodes = -(-np // node_size)
        in_node = _ceil_lg(min(node_size, np))
        root_node = in_node if collective == "reduce" and nodes > 1 else 0
        return local + in_node + _ceil_lg(nodes) + root_node
    return None


def _in_order_depth(np: int) -> int:
    """The summation depth of the in-order binary tree on np ranks (analysis/trees.py),
    where every node computes (left + own) + right."""
    nodes = tree("in_order_binary", size=np)

    def depth(rank: int) -> int:
        children = nodes[rank].children
        if not children:
            return 0
        # the operands in the order they are combined; the first is added len - 1 times,
        # the j-th (j >= 1) len - j times
        if len(children) == 2:
            operands = [depth(children[0]), 0, depth(children[1])]
        elif children[0] < rank:
            operands = [depth(children[0]), 0]
        else:
            operands = [0, depth(children[0])]
        last = len(operands) - 1
        return max(d + (last if j == 0 else last - j + 1) for j, d in enumerate(operands))

    return depth(in_order_root(np))


def _node_size(G: nx.Graph, np: int, mapping: str, exposure: int) -> int:
    """Ranks per node as a node-aware algorithm sees it (the real node: the most
    ranks any host holds)."""
    if exposure:
        return exposure
    hosts = map_ranks(G, np, mapping)
    return max(hosts.count(h) for h in set(hosts))


def repro_rows(
    collective: str,
    variants: list[Variant],
    platforms: list[tuple[str, nx.Graph]],
    mappings: list[str],
    exposures: list[int],
    process_counts: list[int],
    sizes_bytes: tuple[int, ...],
    profile: Profile,
    *,
    dist: str = "lognormal",
    seed: int = 1,
    inputs: int = 0,
    jobs: int = 0,
    scheduler: str | None = None,
    timeout_s: float = 600.0,
    db: str | None = None,
) -> tuple[list[tuple[Configuration, dict]], list[str]]:
    """Simulate every algorithm in every configuration.

    ``jobs``, ``scheduler``: where the simulations run (:class:`collsim.grid.Grid`);
    ``timeout_s``: the wall-clock limit of one; ``db``: the results database
    that keeps finished configurations (a rerun simulates only what is missing).

    Returns
    -------
    pairs, failures
        (configuration, row) for every measurement of every configuration that
        ran, each row with ``variant`` (the algorithm as named) and ``depth``
        (its summation depth, or None); one line per configuration that failed.

    Raises
    ------
    CollsimError
        On an unknown algorithm or an impossible grid (checked before anything runs).
    """
    entries = {v.label: find_algorithm(collective, v.name) for v in variants}
    if inputs:
        bad = [np for np in process_counts if inputs % np]
        if bad:
            raise CollsimError(f"--inputs {inputs} is not a multiple of np={bad[0]}")
    work: list[tuple[Configuration, Variant, Job]] = []
    for name, G in platforms:
        for mapping in mappings:
            for np in process_counts:
                contributors = inputs // np if inputs else 1
                for variant in variants:
                    parameters = entries[variant.label].get("parameters", [])
                    for exposure in exposures if "node_size" in parameters else [0]:
                        spec = RunSpec(
                            collective=collective, algorithm=variant.name, np=np,
                            sizes_bytes=sizes_bytes, dtype="double", op="sum", root=0,
                            seed=seed, dist=dist, mapping=mapping,
                            params=AlgorithmParams(node_size=exposure,
                                                   inner_algorithm=variant.inner,
                                                   outer_algorithm=variant.outer),
                            contributors=contributors,
                        )
                        validate_run(spec, G)  # every run checked before the first starts
                        work.append((Configuration(name, mapping, exposure, np, contributors),
                                     variant, Job(spec, G, profile, name, timeout_s)))

    with Grid("repro", jobs=jobs, scheduler=scheduler) as grid:
        simulations = [job for _, _, job in work]
        if not db:
            results = grid.run(simulations)
        else:
            connection = open_store(db)
            try:
                hashes = {name: platform_hash(G) for name, G in platforms}
                keys = {job: measurement_keys(job, study="repro", platform_hash=hashes[job.label],
                                              profile=profile) for job in simulations}
                results = grid.run(simulations,
                                   store=GridStore(connection, "repro", keys, read_back=True))
            finally:
                close_store(connection)

    pairs, failures = [], []
    for (configuration, variant, job), result in zip(work, results):
        what = f"{variant.label} in {configuration.label}"
        if result.error is not None:
            failures.append(f"{what}: {result.error}")
            continue
        wrong = [row for row in result.rows if row.get("check") != "ok"]
        if wrong:
            failures.append(f"{what}: wrong result at {format_bytes(wrong[0]['bytes'])} "
                            f"(error/bound {wrong[0].get('max_error_ratio')})")
            continue
        spec, G = job.spec, job.platform
        node_size = (_node_size(G, spec.np, spec.mapping, spec.params.node_size)
                     if variant.name == "node_aware" else 0)
        depth = summation_depth(
            spec.collective, variant.name, spec.np, contributors=spec.contributors,
            node_size=node_size,
            reads_contributors="contributors" in entries[variant.label].get("parameters", []))
        for row in result.rows:
            pairs.append((configuration, {**row, "variant": variant.label, "depth": depth}))
    return pairs, failures


def _depth_ratio(row: dict) -> float | None:
    """error / (gamma_d sum |x_i|) for the row's depth d (None without a depth)."""
    depth, in_u = row.get("depth"), row.get("max_error_u_sum_abs")
    if depth is None or in_u is None:
        return None
    if depth == 0:
        return 0.0 if in_u == 0 else math.inf
    return in_u * (1.0 - depth * _U) / depth


def matrix(pairs: list[tuple[Configuration, dict]]) -> list[dict]:
    """The reproducibility matrix: one entry per (algorithm, inputs, size)."""
    # only configurations holding the same data are compared: the same number of inputs
    groups: dict[tuple[str, int, int], list[tuple[Configuration, dict]]] = {}
    for configuration, row in pairs:
        groups.setdefault((row["variant"], row["bytes"], configuration.inputs), []).append(
            (configuration, row))
    entries = []
    for (variant, n_bytes, inputs), members in groups.items():
        by_hash: dict[str, list[str]] = {}
        for configuration, row in members:
            by_hash.setdefault(row["result_hash"], []).append(configuration.label)
        ulps = [row["max_ulp_error"] for _, row in members]
        depths = [row["depth"] for _, row in members]
        depth_ratios = [_depth_ratio(row) for _, row in members]
        # collbench reports it for the pre-rounded algorithms only
        prerounded_ratios = [row.get("max_error_prerounded_ratio") for _, row in members]
        entries.append({
            "algorithm": variant,
            "bytes": n_bytes,
            "inputs": inputs,
            "configurations": len(members),
            "distinct_results": len(by_hash),
            "agreeing": sorted(sorted(labels) for labels in by_hash.values()),
            "worst_ulp_error": max(ulps),
            "ulp_spread": max(ulps) - min(ulps),
            "worst_error_vs_bound": max(row["max_error_ratio"] for _, row in members),
            "worst_error_u_sum_abs": max(row["max_error_u_sum_abs"] for _, row in members),
            "depth": None if None in depths else max(depths),
            "worst_error_vs_depth_bound": (None if None in depth_ratios
                                           else max(depth_ratios)),
            "worst_error_vs_prerounded_bound": (None if None in prerounded_ratios
                                                else max(prerounded_ratios)),
            "times_s": {configuration.label: row["time_s"]
                        for configuration, row in sorted(members, key=lambda m: m[0].label)},
        })
    entries.sort(key=lambda e: (e["inputs"], e["bytes"], e["algorithm"]))
    return entries


def price(pairs: list[tuple[Configuration, dict]], reproducible: list[str]) -> list[dict]:
    """Per (inputs, np, size): the fastest configuration of every algorithm, and each
    reproducible algorithm's time over node_aware's and over the fastest other one."""
    table: dict[tuple[int, int, int], dict] = {}
    for configuration, row in pairs:
        cell = table.setdefault((configuration.inputs, configuration.np, row["bytes"]), {})
        variant = row["variant"]
        cell[variant] = min(cell.get(variant, math.inf), row["time_s"])
    out = []
    for (inputs, np, n_bytes), fastest in sorted(table.items()):
        others = {a: t for a, t in fastest.items() if a not in reproducible}
        best_other = min(others, key=lambda a: (others[a], a)) if others else None
        row = {"inputs": inputs, "np": np, "bytes": n_bytes,
               "fastest_s": dict(sorted(fastest.items())),
               "fastest_non_reproducible": best_other, "over_node_aware": {},
               "over_fastest_non_reproducible": {}}
        for algorithm in reproducible:
            if algorithm not in fastest:
                continue
            if "node_aware" in fastest:
                row["over_node_aware"][algorithm] = fastest[algorithm] / fastest["node_aware"]
            if best_other is not None:
                row["over_fastest_non_reproducible"][algorithm] = (
                    fastest[algorithm] / fastest[best_other])
        out.append(row)
    return out


def own_bound_ratio(entry: dict) -> float | None:
    """The error against the algorithm's own bound: that of its summation depth, or
    for a pre-rounded algorithm that of pre-rounding.

    Parameters
    ----------
    entry : dict
        A matrix entry (``matrix``).

    Returns
    -------
    float or None
        Its worst error over that bound, None for an algorithm with neither.
    """
    if entry["worst_error_vs_depth_bound"] is not None:
        return entry["worst_error_vs_depth_bound"]
    return entry.get("worst_error_vs_prerounded_bound")


def _number(value, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def format_matrix(entries: list[dict], prices: list[dict] | None = None,
                  failures: list[str] | None = None) -> str:
    """The matrix as a table, the price table, failures, then the time of each configuration."""
    width = max([30] + [len(e["algorithm"]) for e in entries])  # the algorithm column
    lines = [f"{'inputs':>6} {'bytes':>8}  {'algorithm':<{width}} {'configs':>7} {'distinct':>8} "
             f"{'worst ulps':>10} {'spread':>10} {'err/bound':>9} {'depth':>5} "
             f"{'err/bound_d':>11}  {'fastest':>10} {'slowest':>10}"]
    for e in entries:
        times = e["times_s"].values()
        lines.append(
            f"{e['inputs']:>6} {format_bytes(e['bytes']):>8}  {e['algorithm']:<{width}} "
            f"{e['configurations']:>7} {e['distinct_results']:>8} "
            f"{e['worst_ulp_error']:>10.4g} {e['ulp_spread']:>10.4g} "
            f"{e['worst_error_vs_bound']:>9.3g} {_number(e['depth'], 'd'):>5} "
            f"{_number(own_bound_ratio(e), '.3g'):>11}  "
            f"{format_seconds(min(times)):>10} {format_seconds(max(times)):>10}")
    lines.append("")
    lines.append("err/bound: against gamma_{p-1} sum|x| (any order); err/bound_d: against "
                 "gamma_d sum|x|, d = the algorithm's summation depth")
    if any(e.get("worst_error_vs_prerounded_bound") is not None for e in entries):
        lines.append("  (prerounded: against its own bound, u|s| + (1+u) n 2^(e+2L-104), n "
                     "inputs below 2^e, L = ceil(lg n))")
    if prices:
        lines.append("")
        lines.append("price of reproducibility (per process count, the fastest configuration "
                     "of each algorithm):")
        for row in prices:
            parts = [f"{a} {format_seconds(t)}" for a, t in row["fastest_s"].items()]
            lines.append(f"  inputs={row['inputs']} np={row['np']} {format_bytes(row['bytes'])}: "
                         + ", ".join(parts))
            for algorithm in sorted(set(row["over_node_aware"])
                                    | set(row["over_fastest_non_reproducible"])):
                ratios = []
                if algorithm in row["over_node_aware"]:
                    ratios.append(f"{row['over_node_aware'][algorithm]:.3g}x node_aware")
                if algorithm in row["over_fastest_non_reproducible"]:
                    ratios.append(f"{row['over_fastest_non_reproducible'][algorithm]:.3g}x "
                                  f"{row['fastest_non_reproducible']}")
                lines.append(f"    {algorithm}: " + ", ".join(ratios))
    lines.append("")
    lines.append("configurations that agree (one group per distinct result):")
    for e in entries:
        if e["distinct_results"] > 1:
            groups = "; ".join(", ".join(g) for g in e["agreeing"])
            lines.append(f"  inputs={e['inputs']} {format_bytes(e['bytes'])} "
                         f"{e['algorithm']}: {groups}")
    if failures:
        lines.append("")
        lines.append(f"failed configurations ({len(failures)}):")
        lines.extend(f"  {failure}" for failure in failures)
    lines.append("")
    lines.append("simulated time per configuration:")
    for e in entries:
        for label, time_s in e["times_s"].items():
            lines.append(f"  {format_bytes(e['bytes']):>8} {e['algorithm']:<{width}} {label:<44} "
                         f"{format_seconds(time_s)}")
    return "\n".join(lines) + "\n"


def plot(entries: list[dict], path: str) -> None:
    """Time per configuration and algorithm, one panel per size; distinct-result counts in the legend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted({e["bytes"] for e in entries})
    figure, axes = plt.subplots(1, len(sizes), figsize=(5 * len(sizes), 4.2), squeeze=False)
    for ax, n_bytes in zip(axes[0], sizes):
        for e in (e for e in entries if e["bytes"] == n_bytes):
            labels = sorted(e["times_s"])
            ax.plot(range(len(labels)), [e["times_s"][k] * 1e6 for k in labels], marker="o",
                    label=f"{e['algorithm']} {e['inputs']} inputs "
                          f"({e['distinct_results']} distinct)")
        ax.set_title(f"{format_bytes(n_bytes)} per rank")
        ax.set_xlabel("configuration (index into the sorted configuration list)")
        ax.set_ylabel("simulated time [us]")
        ax.set_yscale("log")
        ax.legend(fontsize=6)
    figure.tight_layout()
    data = figure_bytes(figure, "png", dpi=110)
    plt.close(figure)
    write_output(path, data)


def load_machines(path: str) -> list[tuple[str, nx.Graph]]:
    """The ``[[machine]]`` tables of a TOML file: ``name`` and ``platform`` (a
    platform table, as in scenario files: generator parameters or a catalog name)."""
    from collsim.platforms.spec import platform_from_spec

    data, _ = read_toml(path, "--machines file")
    if set(data) - {"machine"}:
        raise CollsimError(f"--machines: {path}: unknown key {sorted(set(data) - {'machine'})[0]!r} "
                           "(expected [[machine]] tables)")
    machines = data.get("machine")
    if not isinstance(machines, list) or not machines:
        raise CollsimError(f"--machines: {path} has no [[machine]] tables")
    out = []
    for index, table in enumerate(machines):
        if not isinstance(table, dict) or "platform" not in table:
            raise CollsimError(f"--machines: {path}: machine[{index}] must be a table with a "
                               "platform (and a name)")
        unknown = sorted(set(table) - {"name", "platform"})
        if unknown:
            raise CollsimError(f"--machines: {path}: machine[{index}].{unknown[0]}: unknown key "
                               "(a machine takes name and platform)")
        try:
            G = platform_from_spec(table["platform"])
            label = G.graph["label"]
        except ValueError as error:
            raise CollsimError(f"--machines: {path}: machine[{index}].platform: {error}") from None
        name = table.get("name", label)
        if not isinstance(name, str) or not name:
            raise CollsimError(f"--machines: {path}: machine[{index}].name must be a non-empty "
                               f"string, got {name!r}")
        out.append((name, G))
    names = [name for name, _ in out]
    if len(set(names)) != len(names):
        raise CollsimError(f"--machines: {path}: two machines share a name")
    return out


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
    if args.inputs < 0:
        raise CollsimError("--inputs: must be >= 0")
    variants = parse_variants(args.alg)
    reproducible = args.reproducible.split(",") if args.reproducible else []
    for name in reproducible:
        find_algorithm(args.coll, name.split(":")[0])  # one line naming the known ones
    if args.output:
        if args.output.endswith(os.sep) or os.path.isdir(args.output):
            raise CollsimError(f"-o {args.output}: a prefix of file names, not a directory")
        for suffix in (".txt", ".json", ".png"):
            check_output_path(f"{args.output}{suffix}", "-o")
    reproducible = [v.label for v in variants if v.name in reproducible or v.label in reproducible]
    mappings = args.mappings.split(",")
    db = args.db if args.db is not None else (f"{args.output}.db" if args.output else None)
    pairs, failures = repro_rows(args.coll, variants, platforms, mappings, exposures,
                                 process_counts, sizes, profile, dist=args.dist, seed=args.seed,
                                 inputs=args.inputs, jobs=args.jobs, scheduler=args.scheduler,
                                 timeout_s=args.timeout_s, db=db or None)
    entries = matrix(pairs)
    prices = price(pairs, reproducible)
    text = format_matrix(entries, prices, failures)
    if args.output:
        document = {"matrix": entries, "price": prices, "failures": failures}
        write_output(f"{args.output}.txt", text.encode())
        write_output(f"{args.output}.json",
                         (json.dumps(document, indent=1) + "\n").encode())
        if entries:
            plot(entries, f"{args.output}.png")
        text += f"wrote {args.output}.txt, {args.output}.json, {args.output}.png\n"
    sys.stdout.write(text)
    if failures:
        sys.stderr.write(f"collsim repro: {len(failures)} configuration(s) failed; "
                         "rerun to retry them (finished ones are kept"
                         f"{' in ' + db if db else ''})\n")
        return 1
    return 0


def _default_reproducible(collective: str) -> list[str]:
    """The bitwise-reproducible algorithms whose price is reported by default: those of
    fixed_order and prerounded the collective has."""
    names = {entry["algorithm"] for entry in registry() if entry["collective"] == collective}
    return [name for name in ("fixed_order", "prerounded") if name in names]


def add_repro_command(commands, parser_class, build_platform, load_profile, parse_sizes) -> None:
    """Register ``collsim repro``."""
    parser = commands.add_parser(
        "repro", help="reproducibility matrix: distinct results and times across placements")
    parser.add_argument("--coll", default="reduce",
                        help="a reduction: reduce, allreduce, reduce_scatter, scan or exscan "
                        "(default reduce)")
    parser.add_argument("--alg", required=True,
                        help="comma-separated algorithms, each NAME[:inner=ALG][:outer=ALG]")
    parser.add_argument("--platforms", default=None,
                        help="comma-separated catalog names or generators (collsim platform "
                        "list); generators take the shape options below")
    parser.add_argument("--machines", default=None,
                        help="a TOML file of [[machine]] tables (name, platform = a platform "
                        "table as in scenario files), added to --platforms")
    parser.add_argument("--mappings", default="block", help="comma-separated (default block)")
    parser.add_argument("--exposures", default="0",
                        help="ranks presented as a node, e.g. 1,2,4,8 (0: the real node)")
    parser.add_argument("--np", required=True, help="comma-separated process counts")
    parser.add_argument("--inputs", type=int, default=0,
                        help="spread the inputs of this many ranks over every --np (each rank "
                        "holds inputs/np of them), so that all process counts reduce the same "
                        "data (0: one input per rank)")
    parser.add_argument("--bytes", default="8,8KiB,256KiB")
    parser.add_argument("--dist", default="lognormal", choices=DISTRIBUTIONS, metavar="DIST",
                        help="distribution of floating-point inputs: %(choices)s "
                        "(default lognormal)")
    parser.add_argument("--seed", type=argument_type("seed"), default=1)
    parser.add_argument("--profile", default="hockney")
    parser.add_argument("--reproducible", default=None,
                        help="the algorithms whose price is reported (default those of "
                        "fixed_order,prerounded the collective has, with their variants)")
    add_grid_arguments(parser, timeout=True)
    parser.add_argument("--db", default=None,
                        help="results database of finished configurations (default PREFIX.db "
                        "with -o; '' for none)")
    parser.add_argument("-o", "--output", help="also write PREFIX.txt, PREFIX.json, PREFIX.png")

    def handler(args: argparse.Namespace) -> int:
        reductions = [name for name, c in collectives().items() if c["op"]]
        if args.coll not in reductions:
            raise CollsimError(f"--coll: repro compares reductions: {', '.join(reductions)}; "
                               f"got {args.coll!r}")
        if args.reproducible is None:
            args.reproducible = ",".join(_default_reproducible(args.coll))
        profile = load_profile(args.profile)
        sizes = parse_sizes(args.bytes)
        if not args.platforms and not args.machines:
            raise CollsimError("give --platforms or --machines")
        counts = [int(v) for v in args.np.split(",") if v.strip().isdigit()]
        largest_np = max(counts) if counts else 2
        platforms = []
        names = args.platforms.split(",") if args.platforms else []
        for name in names:
            # a shape option may apply to only some of several platforms
            G, label = build_platform(replace_namespace(args, platform=name), largest_np,
                                      strict_options=len(names) == 1)
            platforms.append((label, G))
        if args.machines:
            if not names:  # the machines file says everything about its machines
                refuse_shape_options(args, set(), "the machines of --machines (give their "
                                     "shape in the file)")
            platforms += load_machines(args.machines)
        labels = [label for label, _ in platforms]
        if len(set(labels)) != len(labels):
            raise CollsimError("two platforms share a label")
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
