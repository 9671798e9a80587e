"""``collsim select``: the fastest algorithm per (process count, size), seed 001 Fig. 3.

Every algorithm of one collective runs on the same platform over a grid of process counts
and sizes; per cell the table names the fastest and its margin over the runner-up
(``runner-up time / fastest time - 1``).  Output: a table on stdout, and with ``-o PREFIX``
``PREFIX.csv`` and a heatmap ``PREFIX.png`` (written atomically).

With ``--predict`` (:func:`select_predicted`) the times are the network model's
(``collsim.network_model``; docs/MODELS.md) instead of simulations, for machines
too big to simulate: a crossbar, fat-tree or dragonfly above
``network_model.GRAPH_HOSTS`` hosts is never built as a graph.  The candidates
are then the algorithms that have a network pattern.  The map, its files and
the Open MPI and MPICH tuning files are made from the cells by the same code
either way.
"""

from __future__ import annotations

import csv
import functools
import io
import os
import sys
from typing import Callable

import networkx as nx

from collsim.errors import CollsimError
from collsim.grid import Grid, Job, add_grid_arguments
from collsim.files import check_output_path
from collsim.platforms import map_ranks
from collsim.platforms.draw import figure_bytes
from collsim.resources import check_simulation_memory
from collsim.files import write_output
from collsim.profiles import Profile
from collsim.analysis.models import allreduce as _allreduce_models
from collsim.analysis.models import reduce as _reduce_models
from collsim.harness import collectives, registry
from collsim.runner import RunSpec
from collsim.units import format_bytes, format_seconds, format_table

__all__ = ["select", "select_predicted", "candidate_entries", "format_cells", "cells_csv", "heatmap_png",
           "format_library_cells", "write_native_maps", "write_rules", "add_select_parser"]


def _eligible(entry: dict, p: int) -> bool:
    """Whether an algorithm may run on p ranks with a commutative op (sum) and is not
    another algorithm under a second name.

    ``hierarchical`` with its default group count G = 1 or G = p (allreduce on a
    prime p) calls its inner algorithm unchanged; running it would only tie
    with that algorithm, so the cell leaves it out.
    """
    if "power_of_two" in entry["restrictions"] and p & (p - 1):
        return False
    if entry["algorithm"] == "hierarchical" and entry["collective"] in ("allreduce", "reduce"):
        module = _allreduce_models if entry["collective"] == "allreduce" else _reduce_models
        return module.default_group_count(p) not in (1, p)
    return True


def candidate_entries(collective: str, algorithms: list[str] | None = None) -> list[dict]:
    """The registry entries select compares: every algorithm of the collective
    but the selectors (``openmpi_default``, ``mpich_default``: each runs another
    entry and would only tie with it), or the given names (``--algorithms``).

    Raises
    ------
    ValueError
        If the collective is unknown, or a name is not one of its algorithms
        or is a selector.
    """
    from collsim.native import is_selector

    entries = [e for e in registry() if e["collective"] == collective]
    if not entries:
        raise ValueError(f"collective must be one of {', '.join(collectives())}; "
                         f"got {collective!r}")
    if algorithms is None:
        return [e for e in entries if not is_selector(e["algorithm"])]
    by_name = {e["algorithm"]: e for e in entries}
    chosen = []
    for name in algorithms:
        if name not in by_name:
            raise ValueError(f"unknown algorithm {name!r} for {collective} "
                             f"(known: {', '.join(by_name)})")
        if is_selector(name):
            raise ValueError(f"{collective}/{name} is a selector: it runs another algorithm "
                             "and is not a candidate")
        if by_name[name] not in chosen:
            chosen.append(by_name[name])
    if not chosen:
        raise ValueError("--algorithms names no algorithm")
    return chosen


def _checked_candidates(collective: str, algorithms, process_counts, sizes_bytes) -> list[dict]:
    """The candidates (:func:`candidate_entries`), once the grid is checked: neither list
    empty, every size a whole number of doubles."""
    entries = candidate_entries(collective, algorithms)
    if not process_counts or not sizes_bytes:
        raise ValueError("process_counts and sizes_bytes must not be empty")
    for n in sizes_bytes:
        if n < 0 or n % 8:
            raise ValueError(f"sizes_bytes must be multiples of 8 (double elements), got {n}")
    return entries


def select(*, collective: str, process_counts: list[int], sizes_bytes: tuple[int, ...],
           G: nx.Graph, profile: Profile, platform: str, timeout_s: float = 600.0,
           mapping: str = "block", algorithms: list[str] | None = None, jobs: int = 0,
           scheduler: str | None = None) -> list[dict]:
    """Run every algorithm of a collective over the grid and rank them per cell.

    Parameters
    ----------
    collective : str
        A collective of ``collsim list`` (allreduce, ..., alltoall, barrier, ...).
    process_counts : list of int
        The process counts (each at most the platform's cores).
    sizes_bytes : tuple of int
        Sizes of one block (collectives.def: a row's bytes), multiples of 8
        (double elements, op sum, root 0); a barrier's time does not depend on
        them.
    G : networkx.Graph
        The platform.
    profile : Profile
        The SMPI profile.
    platform : str
        The platform's name, for the rows.
    timeout_s : float
        Wall-clock limit of one simulation.
    mapping : str
        Ranks to hosts (``collsim.platforms.map_ranks``).
    algorithms : list of str, optional
        The candidates (default: every algorithm of the collective but the
        selectors; see :func:`candidate_entries`).
    jobs : int
        Local worker processes (0: one per core; 1: in this process).
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://HOST:PORT``) to run on.

    Returns
    -------
    list of dict
        One cell per (np, bytes): ``fastest``, ``fastest_s``, ``runner_up``,
        ``runner_up_s``, ``margin`` (None with a single candidate) and ``times_s``
        (algorithm -> simulated time).

    Raises
    ------
    ValueError
        If the collective is unknown, a list is empty, or a size is not a multiple of 8.
    """
    entries = _checked_candidates(collective, algorithms, process_counts, sizes_bytes)
    simulations = [Job(RunSpec(collective, entry["algorithm"], p, tuple(sizes_bytes),
                               mapping=mapping), G, profile, platform, timeout_s)
                   for p in process_counts for entry in entries if _eligible(entry, p)]
    with Grid("select", jobs=jobs, scheduler=scheduler) as grid:
        results = grid.run(simulations, fail_fast=True)
    times: dict[tuple[int, int], dict[str, float]] = {}
    for result in results:
        spec = result.job.spec
        if any(row.get("check") == "wrong" for row in result.rows):
            raise CollsimError(f"{collective}/{spec.algorithm} gave a wrong result "
                               f"on {spec.np} ranks")
        for row in result.rows:
            times.setdefault((spec.np, row["bytes"]), {})[spec.algorithm] = row["time_s"]
    return _ranked_cells(collective, process_counts, sizes_bytes, times)


def select_predicted(*, collective: str, process_counts: list[int],
                     sizes_bytes: tuple[int, ...], request, profile: Profile,
                     mapping: str = "block", algorithms: list[str] | None = None,
                     graph: nx.Graph | None = None) -> tuple[list[dict], list[str]]:
    """:func:`select` with the network model's times instead of simulations.

    Parameters
    ----------
    request : collsim.platform_cli.PlatformRequest
        The platform, resolved but not built: a crossbar, fat-tree or
        dragonfly above ``network_model.GRAPH_HOSTS`` hosts is never built.
    graph : networkx.Graph, optional
        The platform's graph, when the caller has built it.

    Other parameters are :func:`select`'s.

    Returns
    -------
    cells, left_out
        The cells (as :func:`select`'s; ``times_s`` are predicted), and the
        candidates left out for want of a network pattern.

    Raises
    ------
    ValueError
        As :func:`select`; also when a candidate named in ``algorithms`` has
        no network pattern, or no candidate has one.
    """
    from collsim.network_model import NoNetworkPattern, has_pattern
    from collsim.predictions import predict_rows

    entries = _checked_candidates(collective, algorithms, process_counts, sizes_bytes)
    left_out = [e["algorithm"] for e in entries if not has_pattern(collective, e["algorithm"])]
    if algorithms is not None and left_out:
        raise ValueError(f"{collective}/{left_out[0]} has no network pattern: --predict "
                         "cannot rank it")
    entries = [e for e in entries if e["algorithm"] not in left_out]
    if not entries:
        raise ValueError(f"no {collective} algorithm has a network pattern")
    times: dict[tuple[int, int], dict[str, float]] = {}
    for p in process_counts:
        chosen = [(collective, e["algorithm"]) for e in entries if _eligible(e, p)]

        def predicted(pairs):
            return predict_rows(request, profile, algorithms=pairs, np_ranks=p,
                                sizes=sizes_bytes, mapping=mapping, flat=False, graph=graph)

        try:
            rows = predicted(chosen) if chosen else []
        except NoNetworkPattern:  # a part some composite runs has none: one at a time
            rows = []
            for pair in chosen:
                try:
                    rows += predicted([pair])
                except NoNetworkPattern:
                    left_out.append(pair[1])
        for row in rows:
            times.setdefault((p, row["bytes"]), {})[row["algorithm"]] = row["model_s"]
    if algorithms is not None and left_out:
        raise ValueError(f"{collective}/{left_out[0]} has no network pattern (for a part it "
                         "runs): --predict cannot rank it")
    return _ranked_cells(collective, process_counts, sizes_bytes, times), left_out


def _ranked_cells(collective: str, process_counts: list[int], sizes_bytes: tuple[int, ...],
                  times: dict[tuple[int, int], dict[str, float]]) -> list[dict]:
    """Per (np, bytes): the fastest algorithm, the runner-up and the margin."""
    cells = []
    for p in process_counts:
        for n in sizes_bytes:
            if (p, n) not in times:
                raise ValueError(f"no candidate algorithm runs on {p} ranks")
            ranked = sorted(times[p, n].items(), key=lambda item: (item[1], item[0]))
            (fastest, fastest_s), runner = ranked[0], ranked[1] if len(ranked) > 1 else None
            margin = None
            if runner is not None:
                margin = runner[1] / fastest_s - 1 if fastest_s > 0 else 0.0
            cells.append({
                "collective": collective, "np": p, "bytes": n,
                "fastest": fastest, "fastest_s": fastest_s,
                "runner_up": runner[0] if runner else None,
                "runner_up_s": runner[1] if runner else None,
                "margin": margin, "times_s": dict(times[p, n]),
            })
    return cells


def format_cells(cells: list[dict]) -> str:
    """A table: one line per cell."""
    header = ["np", "bytes", "fastest", "time", "runner-up", "time", "margin"]
    lines = [header]
    for c in cells:
        lines.append([
            str(c["np"]), format_bytes(c["bytes"]), c["fastest"], format_seconds(c["fastest_s"]),
            c["runner_up"] or "-",
            format_seconds(c["runner_up_s"]) if c["runner_up_s"] is not None else "-",
            f"{100 * c['margin']:.1f}%" if c["margin"] is not None else "-",
        ])
    return format_table(lines)


def cells_csv(cells: list[dict]) -> str:
    """CSV: one row per cell, then the time of every algorithm in its own column."""
    algorithms = sorted({a for c in cells for a in c["times_s"]})
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["collective", "np", "bytes", "fastest", "fastest_s", "runner_up",
                     "runner_up_s", "margin"] + [f"{a}_s" for a in algorithms])
    for c in cells:
        writer.writerow([c["collective"], c["np"], c["bytes"], c["fastest"],
                         repr(c["fastest_s"]), c["runner_up"] or "",
                         "" if c["runner_up_s"] is None else repr(c["runner_up_s"]),
                         "" if c["margin"] is None else repr(c["margin"])]
                        + [repr(c["times_s"][a]) if a in c["times_s"] else "" for a in algorithms])
    return out.getvalue()


def heatmap_png(cells: list[dict], *, title: str) -> bytes:
    """A heatmap (process counts x sizes) colored by the fastest algorithm, margins written in."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    nps = sorted({c["np"] for c in cells})
    sizes = sorted({c["bytes"] for c in cells})
    winners = sorted({c["fastest"] for c in cells})
    index = {a: i for i, a in enumerate(winners)}
    grid = [[0] * len(sizes) for _ in nps]
    fig, ax = plt.subplots(figsize=(1.2 * len(sizes) + 3, 0.45 * len(nps) + 2), dpi=100)
    for c in cells:
        i, j = nps.index(c["np"]), sizes.index(c["bytes"])
        grid[i][j] = index[c["fastest"]]
        label = "-" if c["margin"] is None else f"{100 * c['margin']:.0f}%"
        ax.text(j, i, label, ha="center", va="center", fontsize=7)
    palette = plt.get_cmap("tab20").colors
    cmap = ListedColormap([palette[k % len(palette)] for k in range(len(winners))])
    ax.imshow(grid, cmap=cmap, vmin=-0.5, vmax=len(winners) - 0.5, aspect="auto",
              origin="lower")
    ax.set_xticks(range(len(sizes)), [format_bytes(n) for n in sizes], rotation=45)
    ax.set_yticks(range(len(nps)), [str(p) for p in nps])
    ax.set_xlabel("bytes per process")
    ax.set_ylabel("processes")
    ax.set_title(title)
    handles = [plt.Rectangle((0, 0), 1, 1, color=cmap(index[a])) for a in winners]
    ax.legend(handles, winners, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8,
              title="fastest (margin over runner-up)", title_fontsize=8)
    fig.tight_layout()
    data = figure_bytes(fig, "png")
    plt.close(fig)
    return data


def write_rules(cells: list[dict], path: str, *, origin: str) -> None:
    """Write the cells' fastest algorithms as a rules file for ``collsim app --rules``.

    The format is ``collsim.rules``'s; ``origin`` (the select command's
    platform and profile) goes into the file's comment.
    """
    from collsim.rules import format_rules, rules_from_cells

    comment = (f"collsim select: fastest algorithm per process count and size, {origin}\n"
               "(op sum on double; a cell's rule holds up to the next measured np and size)")
    write_output(path, format_rules(rules_from_cells(cells), comment=comment).encode())


def format_library_cells(library_cells: list[dict], library: str) -> str:
    """A table of the map restricted to a library's algorithms: per cell its
    fastest algorithm, the library's name and id for it, and what it loses
    against collsim's overall fastest."""
    header = ["np", "bytes", f"fastest in {library}", "as", "time", "collsim best", "time",
              "lost"]
    lines = [header]
    for c in library_cells:
        native = c["native_name"] + (f" ({c['native_id']})" if c["native_id"] else "")
        lines.append([str(c["np"]), format_bytes(c["bytes"]), c["algorithm"], native,
                      format_seconds(c["time_s"]), c["best"], format_seconds(c["best_s"]),
                      f"{100 * c['lost']:.1f}%"])
    return format_table(lines)


def write_native_maps(cells: list[dict], *, openmpi_rules: str | None = None,
                      mpich_json: str | None = None) -> str:
    """Write the map in Open MPI's and/or MPICH's format (``--openmpi-rules``,
    ``--mpich-json``), restricted per cell to the algorithms each library has;
    return the tables saying what each lost against collsim's best."""
    from collsim import native

    out = []
    for library, path, write in (("openmpi", openmpi_rules, native.openmpi_rules),
                                 ("mpich", mpich_json, native.mpich_json)):
        if path is None:
            continue
        library_cells = native.library_cells(cells, library)
        write_output(path, write(library_cells).encode())
        out.append(f"{library}: {path}\n" + format_library_cells(library_cells, library))
    return "".join(out)


DEFAULT_SIZES = "8,1KiB,16KiB,256KiB,1MiB,4MiB"


def add_select_parser(commands, add_platform_arguments: Callable, build_platform: Callable,
                      load_profile: Callable, parse_sizes: Callable) -> None:
    """Register ``collsim select`` on the CLI's subcommands (helpers passed in by cli.py)."""
    parser = commands.add_parser(
        "select", help="fastest algorithm per process count and size (seed 001 Fig. 3)")
    parser.add_argument("--coll", required=True,
                        help="the collective (collsim list: allreduce, alltoall, barrier, ...)")
    parser.add_argument("--np", default=None,
                        help="comma-separated process counts (default: 2, 3, 4, 6, 8, ... "
                        "up to the platform's cores)")
    parser.add_argument("--bytes", default=DEFAULT_SIZES,
                        help=f"comma-separated sizes of one block, a row's bytes (default "
                        f"{DEFAULT_SIZES})")
    parser.add_argument("-o", "--output", metavar="PREFIX",
                        help="also write PREFIX.csv and PREFIX.png")
    parser.add_argument("--rules", metavar="FILE",
                        help="also write the winners as a rules file for collsim app")
    parser.add_argument("--algorithms", metavar="A,B,...",
                        help="the candidates (default: every algorithm but the selectors)")
    parser.add_argument("--openmpi-rules", metavar="FILE",
                        help="also write the map as an Open MPI coll/tuned dynamic rules file "
                        "(algorithms Open MPI 4.1 has)")
    parser.add_argument("--mpich-json", metavar="FILE",
                        help="also write the map as an MPICH collective selection JSON "
                        "(algorithms MPICH 4.0 has)")
    parser.add_argument("--predict", action="store_true",
                        help="rank the network model's times (collsim predict) instead of "
                        "simulating: for machines too big to simulate; the candidates are "
                        "the algorithms with a network pattern")
    add_platform_arguments(parser)
    add_grid_arguments(parser)

    parser.set_defaults(handler=functools.partial(
        _select_command, build_platform=build_platform, load_profile=load_profile,
        parse_sizes=parse_sizes))


def _check_select_outputs(args) -> None:
    """Every file ``collsim select`` will write, checked before the first simulation."""
    if args.output:
        if args.output.endswith(os.sep) or os.path.isdir(args.output):
            raise CollsimError(f"-o {args.output}: a prefix of file names, not a directory")
        for suffix in (".csv", ".png"):
            check_output_path(args.output + suffix, "-o")
    for path, option in ((args.rules, "--rules"), (args.openmpi_rules, "--openmpi-rules"),
                         (args.mpich_json, "--mpich-json")):
        if path:
            check_output_path(path, option)


def _select_nps(args) -> list[int]:
    """The process counts of ``--np``, or 2, 3, 4, 6, 8, ... up to the platform's cores."""
    if args.np is not None:
        try:
            nps = [int(x) for x in args.np.split(",")]
        except ValueError:
            raise CollsimError(f"malformed --np list {args.np!r}") from None
    else:
        total = (args.nodes or 64) * max(args.cores_per_node or 1, 1)
        nps = sorted({q for k in range(1, 20) for q in (2 ** k, 3 * 2 ** (k - 1))
                      if 2 <= q <= total})
    if min(nps) < 1:
        raise CollsimError("process counts must be >= 1")
    return nps


def _select_command(args, *, build_platform: Callable, load_profile: Callable,
                    parse_sizes: Callable) -> int:
    """``collsim select``: rank the candidates, print the map, write what was asked."""
    if args.coll not in collectives():
        raise CollsimError(f"unknown collective {args.coll!r} ({', '.join(collectives())})")
    _check_select_outputs(args)
    sizes = parse_sizes(args.bytes)
    nps = _select_nps(args)
    for n in sizes:
        if n < 0 or n % 8:
            raise CollsimError(f"sizes must be multiples of 8 (double elements), got {n}")
    candidates = None if args.algorithms is None else args.algorithms.split(",")
    how = ""
    try:
        if args.predict:
            from collsim.network_model import model_graph
            from collsim.platform_cli import resolve_platform

            request = resolve_platform(args, max(nps))
            cells, left_out = select_predicted(
                collective=args.coll, process_counts=nps, sizes_bytes=sizes,
                request=request, profile=load_profile(args.profile), mapping=args.mapping,
                algorithms=candidates, graph=model_graph(request))
            if left_out:
                print(f"collsim: select --predict: no network pattern yet for "
                      f"{', '.join(left_out)}: not ranked", file=sys.stderr)
            how = ", predicted by the network model"
        else:
            cells = _simulated_cells(args, nps, sizes, candidates, build_platform, load_profile)
    except ValueError as error:
        raise CollsimError(str(error)) from None
    print(format_cells(cells), end="")
    print(write_native_maps(cells, openmpi_rules=args.openmpi_rules,
                            mpich_json=args.mpich_json), end="")
    if args.output:
        write_output(args.output + ".csv", cells_csv(cells).encode())
        title = f"{args.coll}: fastest algorithm on {args.platform}" + (
            " (predicted)" if args.predict else "")
        write_output(args.output + ".png", heatmap_png(cells, title=title))
    if args.rules:
        write_rules(cells, args.rules, origin=f"platform {args.platform}, profile "
                    f"{args.profile}{how}")
    return 0


def _simulated_cells(args, nps: list[int], sizes: tuple[int, ...], candidates,
                     build_platform: Callable, load_profile: Callable) -> list[dict]:
    """The cells of ``collsim select`` without ``--predict``: every candidate simulated."""
    if sizes:
        check_simulation_memory(max(nps), max(sizes))
    G, platform_label = build_platform(args, max(nps))
    cores = sum(c for _, c in G.nodes(data="cores") if c)
    if max(nps) > cores:
        raise CollsimError(f"np={max(nps)} is larger than the platform's {cores} cores")
    try:
        map_ranks(G, max(nps), args.mapping)
    except ValueError as error:
        raise CollsimError(str(error)) from None
    return select(collective=args.coll, process_counts=nps, sizes_bytes=sizes, G=G,
                  profile=load_profile(args.profile), platform=platform_label,
                  timeout_s=args.timeout_s, mapping=args.mapping, algorithms=candidates,
                  jobs=args.jobs, scheduler=args.scheduler)
