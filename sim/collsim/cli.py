"""The ``collsim`` command line.

    collsim run --platform crossbar --nodes 16 --np 16 --coll allreduce --alg ring \\
                --bytes 8,64KiB,1MiB
    collsim list
    collsim pingpong --platform crossbar --nodes 2 --bytes 0,1MiB
    collsim select --platform crossbar --nodes 64 --coll allreduce -o allreduce-map
    collsim cc -o cg cg.c && collsim app --platform seed003_hydra --np 32 \\
                --use allreduce:ring -- ./cg

Bad input gives one line on stderr and exit status 2; a wrong result exit
status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Sequence


from collsim import __version__
from collsim.native import is_selector
from collsim.errors import CollsimError
from collsim.grid import add_grid_arguments
from collsim.files import STDOUT, check_output_path, command_files, write_output
from collsim.lifetime import terminate_like_interrupt
from collsim.limits import argument_type
from collsim.resources import check_simulation_memory
from collsim.platform_cli import add_platform_arguments, build_platform, register_platform_command
from collsim.platforms import map_ranks, pair_parameters
from collsim.profiles import builtin_profiles, checked_profile, default_profile
from collsim.repro import add_repro_command
from collsim.harness import collectives, find_algorithm, registry, simulate
from collsim.runner import (DISTRIBUTIONS, DTYPE_BYTES, OPS, RunSpec, buffer_blocks, run,
                            validate_run)
from collsim.analysis.models import message_s
from collsim.params import AlgorithmParams, user_parameters
from collsim.units import (
    format_bytes,
    parse_bytes,
    format_seconds,
    format_table,
    parse_byte_list,
)

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line with exit status 2."""

    def error(self, message: str) -> None:  # noqa: D401 - argparse API
        raise CollsimError(message)


def _add_platform_arguments(parser: argparse.ArgumentParser) -> None:
    # The platform options live in platform_cli (generators, catalog, XML files).
    add_platform_arguments(parser)
    parser.add_argument("--mapping", default="block",
                        help="ranks to hosts: block, cyclic[:NODES], socket, random[:SEED] or file:PATH "
                        "(default block)")
    parser.add_argument("--profile", default=None,
                        help=f"SMPI profile: {', '.join(builtin_profiles())} or a .toml file "
                        "(default: a catalog machine's own profile, else hockney)")
    parser.add_argument("--timeout-s", type=argument_type("timeout_s"), default=600.0,
                        help="stop a simulation after this many wall-clock seconds")


def _parse_sizes(text: str) -> tuple[int, ...]:
    try:
        return tuple(parse_byte_list(text))
    except ValueError as error:
        raise CollsimError(str(error)) from None


def _format_table(rows: list[dict]) -> str:
    header = ("collective", "algorithm", "np", "bytes", "simulated", "model", "ratio",
              "class", "agrees", "check")
    lines = [header]
    for row in rows:
        ratio = row["ratio"]
        agrees = row["model_agrees"]
        lines.append((
            row["collective"],
            # a selector: the algorithm it chose after a colon
            row["algorithm"] + (f":{row['selected']}" if row.get("selected") else ""),
            str(row["np"]),
            format_bytes(row["bytes"]),
            format_seconds(row["time_s"]),
            format_seconds(row["model_s"]),
            "-" if ratio is None else f"{ratio:.6f}",
            row["model_class"],
            "-" if agrees is None else ("yes" if agrees else "NO"),
            row.get("check", "-"),
        ))
    return format_table(lines)


def _emit(text: str, output: str | None) -> None:
    if output:
        write_output(output, text.encode())
    else:
        sys.stdout.write(text)


def _size_bytes(text: str) -> int:
    """argparse type of a size option (``32KiB``): its bytes, or the reason it is not one."""
    try:
        return parse_bytes(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _parameter_type(entry: dict):
    """argparse type of a parameter's option, from its published type and range."""
    def convert(text: str):
        if entry["type"] == "bytes":
            value = _size_bytes(text)
        elif entry["type"] == "int":
            try:
                value = int(text)
            except ValueError:
                value = None
        else:
            value = text
        if entry["type"] in ("bytes", "int") and (
                value is None or not entry["min"] <= value <= entry["max"]):
            high = "" if entry["max"] >= 2**63 - 1 else f"..{entry['max']}"
            raise argparse.ArgumentTypeError(
                f"{entry['what']} must be a whole number {entry['min']}{high}"
                f"{'' if high else ' or more'}, got {text!r}")
        return value
    return convert


def _add_parameter_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the algorithm parameters, one per line of
    ``algorithms/params.def`` a user sets (:func:`collsim.params.user_parameters`)."""
    tuning = parser.add_argument_group("algorithm parameters (0: the algorithm's default)")
    try:
        entries = user_parameters()
    except CollsimError as error:  # no collbench: `collsim run` says so when it runs
        parser.set_defaults(parameter_table_error=str(error))
        return
    for entry in entries:
        text = entry["help"] + (", e.g. 32KiB" if entry["type"] == "bytes" else "")
        if entry["type"] == "bool":
            tuning.add_argument(entry["option"], dest=entry["name"], action="store_true",
                                help=text)
        else:
            tuning.add_argument(entry["option"], dest=entry["name"], default=None,
                                type=_parameter_type(entry), help=text)


def _algorithm_params(args: argparse.Namespace) -> AlgorithmParams:
    """The algorithm parameters given on the command line."""
    if getattr(args, "parameter_table_error", None):
        raise CollsimError(args.parameter_table_error)
    try:
        given = {entry["name"]: getattr(args, entry["name"]) for entry in user_parameters()}
        return AlgorithmParams.from_values({k: v for k, v in given.items() if v is not None})
    except ValueError as error:
        raise CollsimError(str(error)) from None


def _selected_algorithms(collectives: str, algorithms: str) -> list[tuple[str, str]]:
    """Expand --coll/--alg (names, comma lists or 'all') into registry entries."""
    entries = registry()
    known_collectives = list(dict.fromkeys(entry["collective"] for entry in entries))
    wanted = known_collectives if collectives == "all" else collectives.split(",")
    selected = []
    for collective in wanted:
        # "all": every algorithm but the selectors (each runs one of the others)
        names = [e["algorithm"] for e in entries
                 if e["collective"] == collective and not is_selector(e["algorithm"])]
        for algorithm in names if algorithms == "all" else algorithms.split(","):
            find_algorithm(collective, algorithm)  # one-line error when unknown
            selected.append((collective, algorithm))
    return selected


def _progress_line(line: str) -> None:
    print(f"collsim: {line}", file=sys.stderr, flush=True)


def _cmd_run(args: argparse.Namespace) -> int:
    if args.np < 1:
        raise CollsimError(f"np must be >= 1, got {args.np}")
    if args.output:
        check_output_path(args.output, "-o", stdout_ok=True)
    sizes = _parse_sizes(args.bytes)
    profile = checked_profile(args.profile)
    params = _algorithm_params(args)
    selected = _selected_algorithms(args.coll, args.alg)
    if sizes:
        blocks = max(buffer_blocks(collective, args.np) for collective, _ in selected)
        check_simulation_memory(args.np, max(sizes) * blocks, timing_only=args.timing_only)
    G, platform_label = build_platform(args, args.np)
    specs = [
        RunSpec(
            collective=collective,
            algorithm=algorithm,
            np=args.np,
            sizes_bytes=sizes,
            dtype=args.dtype,
            op=args.op,
            root=args.root,
            seed=args.seed,
            dist=args.dist,
            reps=args.reps,
            params=params,
            mapping=args.mapping,
            timing_only=args.timing_only,
        )
        for collective, algorithm in selected
        # --alg all: not the algorithms restricted to power-of-two process counts on others
        if not (args.alg == "all" and args.np & (args.np - 1)
                and "power_of_two" in find_algorithm(collective, algorithm)["restrictions"])
    ]
    for spec in specs:  # every run is checked before the first starts
        validate_run(spec, G)
    rows, status = [], 0
    for spec in specs:
        spec_rows, spec_status = run(spec, G, profile, platform=platform_label,
                                     timeout_s=args.timeout_s, progress=_progress_line)
        rows.extend(spec_rows)
        status = max(status, spec_status)
    if args.json:
        text = "".join(json.dumps(row) + "\n" for row in rows)
    else:
        text = _format_table(rows)
    _emit(text, args.output)
    if status != 0:
        print("collsim: a result was wrong (check column)", file=sys.stderr)
    return status


def _cmd_predict(args: argparse.Namespace) -> int:
    from collsim.platform_cli import resolve_platform
    from collsim.predictions import format_table, predict_rows

    if args.output:
        check_output_path(args.output, "-o")
    sizes = _parse_sizes(args.bytes)
    profile = checked_profile(args.profile)
    selected = [(c, a) for c, a in _selected_algorithms(args.coll, args.alg)
                if not (args.alg == "all" and not _has_pattern(c, a))]
    params = _algorithm_params(args)
    request = resolve_platform(args, args.np)
    rows = predict_rows(request, profile, algorithms=selected, np_ranks=args.np, sizes=sizes,
                        mapping=args.mapping, dtype=args.dtype, op=args.op, root=args.root,
                        params=params)
    text = ("".join(json.dumps(row) + "\n" for row in rows) if args.json
            else format_table(rows))
    _emit(text, args.output)
    return 0


def _has_pattern(collective: str, algorithm: str) -> bool:
    from collsim.analysis.network import PATTERNS

    return (collective, algorithm) in PATTERNS


def _keeps_rank_order(entry: dict) -> str:
    """Whether an entry's result keeps the ranks' order, from what the registry says
    of it: collbench checks a non-commutative op's result bit for bit, so an entry
    that accepts one keeps the order."""
    if not collectives()[entry["collective"]]["op"]:
        return "n/a"
    if is_selector(entry["algorithm"]):
        return "that of the algorithm chosen"
    if "float_sum" in entry["restrictions"]:
        return "n/a (a sum of floats: the same bits in any order)"
    if "commutative" in entry["restrictions"]:
        return "-"
    if "inner_outer" in entry["parameters"]:
        return "if its inner and outer algorithms do"
    return "yes"


def registry_markdown() -> str:
    """The registry as a Markdown table: each entry's restrictions and whether it keeps
    the ranks' order (``collsim list --markdown``; the README's table is this output,
    ``tests/test_readme_registry.py`` holds the two together)."""
    lines = ["| collective | algorithm | restrictions | keeps rank order |", "|---|---|---|---|"]
    for entry in registry():
        requires = [sentence.removeprefix("requires ") for sentence in entry["requires"].values()]
        if "inner_outer" in entry["parameters"]:
            requires.append("those of its inner and outer algorithms")
        if is_selector(entry["algorithm"]):
            requires.append("those of the algorithm chosen")
        lines.append(f"| {entry['collective']} | `{entry['algorithm']}` | {'; '.join(requires) or '-'} | "
                     f"{_keeps_rank_order(entry)} |")
    return "\n".join(lines) + "\n"


def _collectives_table() -> str:
    """The collectives (algorithms/collectives.def, as collbench publishes them) as a text
    table: each with its MPI function, whether it takes an op and a root, and what a
    row's ``bytes`` is (``collsim list --collectives``)."""
    lines = [("collective", "mpi", "op", "root", "algorithms", "summary")]
    counts: dict[str, int] = {}
    for entry in registry():
        counts[entry["collective"]] = counts.get(entry["collective"], 0) + 1
    for name, shape in collectives().items():
        lines.append((name, shape["mpi"], "yes" if shape["op"] else "-",
                      "yes" if shape["root"] else "-", str(counts.get(name, 0)),
                      shape["summary"]))
    return format_table(lines)


def _cmd_list(args: argparse.Namespace) -> int:
    entries = registry()
    if args.collectives:
        if args.json:
            _emit("".join(json.dumps(shape) + "\n" for shape in collectives().values()), None)
        else:
            _emit(_collectives_table(), None)
        return 0
    if args.json:
        _emit("".join(json.dumps(entry) + "\n" for entry in entries), None)
        return 0
    if args.markdown:
        _emit(registry_markdown(), None)
        return 0
    lines = [("collective", "algorithm", "restrictions", "summary")]
    lines += [(entry["collective"], entry["algorithm"], ",".join(entry["restrictions"]) or "-",
               entry["summary"]) for entry in entries]
    _emit(format_table(lines), None)
    return 0


def _cmd_pingpong(args: argparse.Namespace) -> int:
    if args.output:
        check_output_path(args.output, "-o", stdout_ok=True)
    sizes = _parse_sizes(args.bytes)
    profile = checked_profile(args.profile)
    if args.np < 2:
        raise CollsimError(f"a ping-pong needs np >= 2, got {args.np}")
    if sizes:
        check_simulation_memory(args.np, max(sizes))
    G, _ = build_platform(args, args.np)
    if G.graph.get("routing") == "opaque":
        raise CollsimError("pingpong compares with the routes of a generated platform; "
                           "an XML file has none (use collsim run on it)")
    try:
        rank_hosts = map_ranks(G, args.np, args.mapping)
    except ValueError as error:
        raise CollsimError(str(error)) from None
    peer = len(rank_hosts) - 1
    rows, _ = simulate(
        G, rank_hosts, profile,
        ["--pingpong", "--bytes", ",".join(map(str, sizes)), "--peer", str(peer)],
        what="ping-pong",
        timeout_s=args.timeout_s,
    )
    pair = pair_parameters(G, rank_hosts[0], rank_hosts[peer])
    latency_factors, bandwidth_factors = profile.network_factors
    net = profile.model_network(pair.alpha_s, pair.beta_s_per_byte)
    out = []
    for row in rows:
        predicted = message_s(net, row["bytes"])
        out.append({
            "bytes": row["bytes"],
            "time_s": row["time_s"],
            "model_s": predicted,
            "ratio": row["time_s"] / predicted,
            "alpha_s": pair.alpha_s,
            "beta_s_per_byte": pair.beta_s_per_byte,
            "hops": pair.hops,
        })
    if args.json:
        _emit("".join(json.dumps(row) + "\n" for row in out), args.output)
    else:
        model_label = f"alpha+(n+{profile.envelope_bytes})beta"
        if latency_factors or bandwidth_factors:
            model_label = "with SMPI factors"
        elif profile.eager_threshold_bytes:
            model_label = "with overheads"
        text = "".join(
            f"{format_bytes(row['bytes']):>8}  simulated {format_seconds(row['time_s']):>10}  "
            f"{model_label} {format_seconds(row['model_s']):>10}  "
            f"ratio {row['ratio']:.9f}\n"
            for row in out
        )
        _emit(text, args.output)
    return 0


def _add_run_arguments(run_parser: argparse.ArgumentParser) -> None:
    """The flags of ``collsim run``, which ``collsim predict`` takes too."""
    run_parser.add_argument("--coll", required=True,
                            help="allreduce, reduce or bcast; a comma list, or all")
    run_parser.add_argument("--alg", required=True,
                            help="algorithm name (collsim list); a comma list, or all")
    run_parser.add_argument("--np", type=int, required=True, help="number of ranks")
    run_parser.add_argument("--bytes", required=True,
                            help="comma-separated sizes per rank, e.g. 8,64KiB,1MiB")
    # the choices are collbench's (sim/collbench/datagen.def), read when first
    # used: a metavar, so that building the parser does not list them
    run_parser.add_argument("--dtype", default="double", choices=DTYPE_BYTES, metavar="DTYPE",
                            help="%(choices)s (default double)")
    run_parser.add_argument("--op", default="sum", choices=OPS, metavar="OP",
                            help="%(choices)s (default sum)")
    run_parser.add_argument("--root", type=int, default=0)
    run_parser.add_argument("--seed", type=argument_type("seed"), default=1)
    run_parser.add_argument("--dist", default="uniform", choices=DISTRIBUTIONS, metavar="DIST",
                            help="distribution of floating-point inputs: %(choices)s "
                            "(default uniform)")
    run_parser.add_argument("--reps", type=argument_type("reps"), default=1)
    run_parser.add_argument("--timing-only", action="store_true",
                            help="buffers shared by all ranks and no result check: the same "
                                 "simulated time in a fraction of the memory (the check "
                                 "column says skipped)")
    _add_parameter_arguments(run_parser)
    run_parser.add_argument("--json", action="store_true", help="JSON Lines instead of a table")
    run_parser.add_argument("-o", "--output", help="write the output to this file")
    _add_platform_arguments(run_parser)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``collsim``."""
    parser = _Parser(prog="collsim", description="Simulate MPI collective algorithms in SMPI "
                     "and hold them against their cost models.")
    parser.add_argument("--version", action="version", version=f"collsim {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run_parser = commands.add_parser("run", help="simulate one algorithm at several sizes")
    _add_run_arguments(run_parser)
    run_parser.set_defaults(handler=_cmd_run)

    predict_parser = commands.add_parser(
        "predict", help="the network model's time (routes, shared links), without simulating")
    _add_run_arguments(predict_parser)
    predict_parser.set_defaults(handler=_cmd_predict)

    list_parser = commands.add_parser("list", help="print the registry of algorithms")
    list_parser.add_argument("--json", action="store_true")
    list_parser.add_argument("--collectives", action="store_true",
                             help="the collectives instead: their MPI function, op, root, "
                                  "and what a row's bytes is")
    list_parser.add_argument("--markdown", action="store_true",
                             help="a Markdown table: restrictions, and whether each entry "
                             "keeps the ranks' order (the README's table)")
    list_parser.set_defaults(handler=_cmd_list)

    pingpong_parser = commands.add_parser(
        "pingpong", help="simulated ping-pong: check alpha and beta read off the platform")
    pingpong_parser.add_argument("--bytes", default="0,1KiB,1MiB")
    pingpong_parser.add_argument("--np", type=int, default=2,
                                 help="ranks; the ping-pong runs between the first and the last")
    pingpong_parser.add_argument("--json", action="store_true")
    pingpong_parser.add_argument("-o", "--output")
    _add_platform_arguments(pingpong_parser)
    pingpong_parser.set_defaults(handler=_cmd_pingpong)
    check_parser = commands.add_parser(
        "check", help="CI gate: fail when simulated times drift from models or baselines")
    check_parser.add_argument("suite", help="suite file (TOML), e.g. scenarios/ci.toml")
    check_parser.add_argument("--junit", help="write a JUnit XML report to this file")
    check_parser.add_argument("--json", dest="json_path", help="write a JSON report to this file")
    check_parser.add_argument("--update-baseline", action="store_true",
                              help="rewrite the suite's baseline from this run")
    add_grid_arguments(check_parser, timeout=True)
    check_parser.add_argument("--timing-only", action="store_true",
                              help="shared buffers and no result check in every case (as "
                                   "timing_only = true in a case); the times are the same")
    check_parser.set_defaults(handler=_cmd_check)

    register_platform_command(commands, _Parser)
    add_repro_command(commands, _Parser, build_platform, checked_profile, _parse_sizes)
    _add_study_commands(commands)
    # collsim select lives in its own module (collsim.select)
    from collsim.select import add_select_parser

    add_select_parser(commands, _add_platform_arguments, build_platform, checked_profile,
                      _parse_sizes)
    # collsim cc and collsim app live in collsim.app
    from collsim.app import add_app_parser

    add_app_parser(commands, _Parser, _add_platform_arguments, build_platform, checked_profile)
    return parser


def _cmd_check(args: argparse.Namespace) -> int:
    from collsim.checks import main_check

    return main_check(args.suite, junit=args.junit, json_path=args.json_path,
                      update_baseline=args.update_baseline, jobs=args.jobs,
                      scheduler=args.scheduler, timeout_s=args.timeout_s,
                      timing_only=args.timing_only)


# --- studies: collsim study / export / report (collsim.studies, .store, .report) ---

def _add_study_commands(commands) -> None:
    study_parser = commands.add_parser(
        "study", help="run a scenario's grid of simulations into a results database")
    study_parser.add_argument("scenario", help="scenario file (TOML), e.g. scenarios/quickstart.toml")
    study_parser.add_argument("--db", help="results database (default: the scenario's name "
                              "with .db, beside it)")
    add_grid_arguments(study_parser)
    study_parser.add_argument("--timing-only", action="store_true",
                              help="shared buffers and no result check in every simulation "
                                   "(as timing_only = true in [study]); rows say check skipped")
    study_parser.set_defaults(handler=_cmd_study)
    export_parser = commands.add_parser("export", help="write a results database as CSV/Parquet")
    export_parser.add_argument("db", help="results database")
    export_parser.add_argument("--csv", help="write CSV to this file")
    export_parser.add_argument("--parquet", help="write Parquet to this file")
    export_parser.set_defaults(handler=_cmd_export)
    report_parser = commands.add_parser("report", help="write a results database's HTML report")
    report_parser.add_argument("db", help="results database")
    report_parser.add_argument("-o", "--output", default="report.html",
                               help="the HTML file (default: report.html)")
    report_parser.set_defaults(handler=_cmd_report)


def _cmd_study(args: argparse.Namespace) -> int:
    from collsim.studies import main_study

    return main_study(args.scenario, db=args.db, jobs=args.jobs, scheduler=args.scheduler,
                      timing_only=args.timing_only)


def _cmd_export(args: argparse.Namespace) -> int:
    from collsim.store import export_csv, export_parquet, close_store, open_store, read_rows

    if not args.csv and not args.parquet:
        raise CollsimError("export: give --csv FILE and/or --parquet FILE")
    for option, path in (("--csv", args.csv), ("--parquet", args.parquet)):
        if path:
            check_output_path(path, option, stdout_ok=True)
    connection = open_store(args.db, create=False)
    rows = read_rows(connection)
    close_store(connection)
    for path, write in ((args.csv, export_csv), (args.parquet, export_parquet)):
        if path:
            try:
                write(rows, path)
            except OSError as error:
                raise CollsimError(f"cannot write {path}: {error.strerror}") from None
            print(f"{len(rows)} rows written to {path}",
                  file=sys.stderr if path == STDOUT else sys.stdout)
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    from collsim.report import main_report

    return main_report(args.db, output=args.output)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: returns the exit status."""
    if argv is None:  # the collsim program, not a call from Python: SIGTERM unwinds
        terminate_like_interrupt()
    if sys.stdout is None or sys.stderr is None:  # started with a standard stream closed
        return _closed_stream()
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        # within one command no output may name a file it reads or another output
        with command_files():
            if argv[:1] and argv[0] in ("cc", "cxx", "c++", "fc"):
                # compiler arguments (-o, -O2, ...) are not collsim's options: no argparse
                from collsim.app import main_cc

                return main_cc(argv[1:], driver=argv[0])
            args = build_parser().parse_args(argv)
            # the catalog machine's own profile unless one is given; not for a real machine
            if (hasattr(args, "profile") and args.profile is None
                    and not getattr(args, "real_mpi", False)):
                args.profile = default_profile(getattr(args, "platform", None))
            _refuse_empty_file_names(args)
            status = args.handler(args)
            sys.stdout.flush()
            return status
    except CollsimError as error:
        print(f"collsim: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("collsim: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _quiet_stdout()
        return 0
    except OSError as error:  # standard output closed or full, a device gone
        _quiet_stdout()
        where = f" ({error.filename})" if error.filename else ""
        print(f"collsim: error: {error.strerror or error}{where}", file=sys.stderr)
        return 2
    except MemoryError:
        print("collsim: error: out of memory", file=sys.stderr)
        return 2


# The options that name files (argparse dest -> option); an empty name is refused
# rather than read as "not given" (-o '' would print to standard output).
_FILE_OPTIONS = {"output": "-o", "hostfile": "--hostfile", "junit": "--junit",
                 "json_path": "--json", "csv": "--csv", "parquet": "--parquet", "db": "--db",
                 "rules": "--rules", "openmpi_rules": "--openmpi-rules",
                 "mpich_json": "--mpich-json", "machines": "--machines", "scenario": "scenario",
                 "suite": "suite", "profile": "--profile", "platform": "--platform"}


def _refuse_empty_file_names(args: argparse.Namespace) -> None:
    for dest, option in _FILE_OPTIONS.items():
        # collsim repro --db '': its documented "no database"
        if getattr(args, dest, None) == "" and not (args.command == "repro" and dest == "db"):
            raise CollsimError(f"{option}: empty file name")


def _quiet_stdout() -> None:
    """Point standard output at /dev/null, so that the interpreter's final flush of
    what could not be written raises nothing more."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass


def _closed_stream() -> int:
    if sys.stderr is not None:
        print("collsim: error: standard output is closed", file=sys.stderr)
    return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
