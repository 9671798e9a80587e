"""``collsim cc`` / ``cxx`` / ``fc`` and ``collsim app``: an unmodified MPI program with
collsim's algorithms.

``collsim cc`` (``cxx`` or ``c++``, ``fc``) compiles and links a C (C++,
Fortran) program with the interposition library (``sim/interpose``: PMPI
wrappers of every blocking collective of collectives.def, from C and Fortran,
their variants with counts when the blocks are even; the other calls, with
uneven blocks or MPI_Alltoallw, timed and named on their way to the
library), with
``smpicc`` (``smpicxx``, ``smpif90``) for simulation or with the real MPI's
compilers; it stands in for mpicc as a build system's compiler, building the
build system's probes as plain programs.  ``collsim app`` runs the program
under smpirun on a collsim platform with a profile's settings (privatizing
its globals when it has some) or under mpirun, with a rules file
(``collsim.rules``) that says which algorithm takes which call, passes the
program's output through, and summarizes the per-rank trace rows the library
writes (under a real MPI put on rank 0's clock): per collective, algorithm
(a selector's choice) and size, the calls, their total and per-call time
(each call: max end - min start across its ranks), the model's per-call
prediction, and the share of the program's time (MPI_Init to MPI_Finalize)
the ranks spent in them.  A program that fails gets one line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Sequence

from collsim.analysis.models import model_for
from collsim.errors import CollsimError
from collsim.platforms import map_ranks
from collsim.files import check_input_path, check_output_path, write_output
from collsim.realmpi import mpirun_command
from collsim.rules import MPI_LIBRARY, Rule, format_rules, parse_rules, read_rules, rule_from_use
from collsim.harness import (engine_environment, find_algorithm, find_c_part, run_program,
                             simgrid_tool, smpirun_command)
from collsim.runner import model_parameters, validate_spec, RunSpec
from collsim.units import format_bytes, format_seconds, format_table

__all__ = ["clock_correction", "failure_line", "mutable_globals", "DRIVERS", "INTERPOSE_MARKER",
           "NOT_INTERCEPTED", "table_rows", "compile_command", "is_configure_probe", "main_cc",
           "read_trace", "summarize", "format_summary", "add_app_parser"]

_LIBRARIES = ("libcollsim_interpose.a", "libcollsim_algorithms.a")

#: The string the interposition library carries (sim/interpose/interpose.c,
#: ``collsim_interpose_marker``): ``collsim app`` refuses a program without it.
INTERPOSE_MARKER = b"collsim interposition library, linked by collsim cc"


@dataclass(frozen=True)
class Driver:
    """One compiler driver: ``collsim cc``, ``cxx`` (``c++``) or ``fc``.

    ``smpi`` and ``mpi`` are the compilers tried in order (an environment
    variable first: ``mpi_env`` for the real MPI), ``mpi_flags`` what the
    real MPI's compile needs besides (C++: skip the MPI C++ bindings, which
    would need libmpi_cxx), ``link_flags`` what linking the C interposition
    library from that language needs besides.
    """

    command: str
    language: str
    smpi: tuple[str, ...]
    mpi_env: str
    mpi: tuple[str, ...]
    mpi_flags: tuple[str, ...] = ()
    link_flags: tuple[str, ...] = ()


DRIVERS = {
    "cc": Driver("cc", "C", ("smpicc",), "MPICC", ("mpicc.openmpi", "mpicc")),
    "cxx": Driver("cxx", "C++", ("smpicxx",), "MPICXX", ("mpicxx.openmpi", "mpicxx"),
                  mpi_flags=("-DOMPI_SKIP_MPICXX=1", "-DMPICH_SKIP_MPICXX=1"),
                  link_flags=("-lstdc++",)),
    "fc": Driver("fc", "Fortran", ("smpif90",), "MPIFC", ("mpif90.openmpi", "mpif90"),
                 link_flags=("-ldl",)),
}
DRIVERS["c++"] = DRIVERS["cxx"]


def _find_compiler(real_mpi: bool, driver: Driver = DRIVERS["cc"]) -> str:
    if real_mpi:
        name = os.environ.get(driver.mpi_env) or next(
            (found for found in map(shutil.which, driver.mpi) if found), None)
        if not name:
            raise CollsimError(f"{driver.mpi[-1]} not found: install Open MPI (apt-get install "
                               f"openmpi-bin libopenmpi-dev) or set {driver.mpi_env}")
        return name
    name = next((found for found in map(simgrid_tool, driver.smpi) if found), None)
    if name is None:
        hint = " and gfortran" if driver.language == "Fortran" else ""
        raise CollsimError(f"{driver.smpi[0]} not found on PATH: install SimGrid{hint} "
                           "(sim/install-system-deps.sh), or run 'make build'")
    return name


def is_configure_probe(compiler_args: Sequence[str]) -> bool:
    """Whether a compile is a build system's probe, not the program.

    autoconf's checks compile ``conftest.c`` (and run the result), CMake's
    compile ``CMakeCCompilerId.c`` and ``cmTC_*`` test projects: under SMPI
    such a probe is built as a plain program (``SMPI_PRETEND_CC=1``), which
    runs without smpirun, and without the interposition library.

    >>> is_configure_probe(["-o", "conftest", "-g", "conftest.c"])
    True
    >>> is_configure_probe(["-O2", "-o", "cg", "cg.c"])
    False
    """
    for arg in compiler_args:
        name = os.path.basename(arg)
        if (name.startswith(("conftest", "CMakeCCompilerId", "CMakeCXXCompilerId",
                             "CMakeFortranCompilerId", "cmTC_", "CMakeCCompilerABI",
                             "CMakeCXXCompilerABI", "CMakeFortranCompilerABI"))
                or "/CMakeScratch/" in arg or "/CMakeTmp/" in arg):
            return True
    return False


def _is_link(compiler_args: Sequence[str]) -> bool:
    return bool(compiler_args) and not any(arg in ("-c", "-S", "-E", "-M", "-MM", "--version",
                                                   "-v", "-V", "-qversion", "-dumpversion",
                                                   "-dumpmachine") for arg in compiler_args)


def compile_command(compiler_args: Sequence[str], *, real_mpi: bool = False,
                    driver: str = "cc") -> list[str]:
    """The compiler command line of ``collsim cc`` (``cxx``, ``c++``, ``fc``).

    Parameters
    ----------
    compiler_args : sequence of str
        The user's arguments (``-o PROG SRC.c -O2 ...``), passed on unchanged.
    real_mpi : bool
        Build against the real MPI (mpicc, mpicxx, mpif90, the libraries of
        ``make build-mpi``) instead of SMPI (smpicc, smpicxx, smpif90, the
        libraries of ``make build``, or in an installed collsim those ``pip
        install`` put in the package).
    driver : str
        ``cc``, ``cxx`` (or ``c++``) or ``fc``: the language's compiler.

    Returns
    -------
    list of str
        The compiler and the user's arguments, then (when linking) the
        interposition library as a whole archive, the algorithms, libm and
        what the language needs to link C (``-lstdc++``, ``-ldl``).  Under
        SMPI also ``-Wl,-Bsymbolic-functions``: smpicc links a program as a
        shared object, and without it the program's MPI calls bind to
        libsimgrid and never reach the wrappers (under
        ``smpi/privatization:no``).  A build system's probe
        (:func:`is_configure_probe`) gets the compiler and the user's
        arguments only.

    Raises
    ------
    CollsimError
        If the compiler or the built libraries are missing.
    """
    chosen = DRIVERS[driver]
    argv = [_find_compiler(real_mpi, chosen), *compiler_args]
    if real_mpi:
        argv[1:1] = chosen.mpi_flags
    if not _is_link(compiler_args) or (not real_mpi and is_configure_probe(compiler_args)):
        return argv
    interpose, algorithms = (find_c_part(name, real_mpi=real_mpi) for name in _LIBRARIES)
    if not real_mpi:
        argv.append("-Wl,-Bsymbolic-functions")
    return argv + ["-Wl,--whole-archive", str(interpose), "-Wl,--no-whole-archive",
                   str(algorithms), "-lm", *chosen.link_flags]


def main_cc(argv: Sequence[str], driver: str = "cc") -> int:
    """``collsim cc|cxx|c++|fc [--real-mpi] -o PROG SRC [flags]``: the compiler's status.

    Under SMPI a build system's probe (:func:`is_configure_probe`) runs with
    ``SMPI_PRETEND_CC=1``, so that ``./configure CC="collsim cc"`` and
    ``CC="collsim cc" cmake`` work unchanged.
    """
    chosen = DRIVERS[driver]
    args = list(argv)
    if args in (["-h"], ["--help"]):
        print(f"usage: collsim {driver} [--real-mpi] -o PROG SRC [{chosen.language} compiler "
              f"flags]\n\nCompile and link an MPI {chosen.language} program with collsim's "
              f"interposition library:\nwith {chosen.smpi[0]} for collsim app (default), or "
              f"with the real MPI's {chosen.mpi[-1]}\n(--real-mpi) for collsim app --real-mpi.  "
              f"It stands in for {chosen.mpi[-1]} as\nthe compiler and linker of autotools and "
              "CMake projects (README: 'Building a project').")
        return 0
    if not [arg for arg in args if arg != "--real-mpi"]:
        raise CollsimError(f"collsim {driver} needs the compiler's arguments: collsim {driver} "
                           "[--real-mpi] -o PROG SRC [flags]")
    real_mpi = "--real-mpi" in args
    args = [arg for arg in args if arg != "--real-mpi"]
    command = compile_command(args, real_mpi=real_mpi, driver=driver)
    env = None
    if not real_mpi and is_configure_probe(args):
        env = {**os.environ, "SMPI_PRETEND_CC": "1"}
    try:
        if env is not None:
            # smpicc says it pretends on stdout, which a probe may read as the compiler's
            done = subprocess.run(command, env=env, stdout=subprocess.PIPE, text=True)
            sys.stdout.write("".join(line for line in done.stdout.splitlines(keepends=True)
                                     if "SMPI_PRETEND_CC" not in line))
            return done.returncode
        return subprocess.run(command).returncode
    except OSError as error:  # MPICC names no program, or one that cannot run
        raise CollsimError(f"cannot run the compiler {command[0]}: {error.strerror}"
                           + (f" (check {chosen.mpi_env})" if real_mpi
                              and os.environ.get(chosen.mpi_env) else "")) from None


# --- the trace rows of sim/interpose/interpose.c -------------------------------------------

def clock_correction(clocks: list[tuple[float, float, float]]) -> Callable[[float], float]:
    """local time -> rank 0's time, from a rank's clock rows (local, offset, error).

    No row (SMPI: one clock): the identity.  One: its offset.  Two (at
    MPI_Init and MPI_Finalize): the offset interpolated linearly in local
    time, for the clocks' drift.

    >>> to_root = clock_correction([(10.0, 1.0, 1e-6), (20.0, 1.5, 1e-6)])
    >>> to_root(10.0), to_root(15.0), to_root(20.0)
    (11.0, 16.25, 21.5)
    """
    if not clocks:
        return lambda t: t
    (t0, offset0, _), (t1, offset1, _) = clocks[0], clocks[-1]
    if t1 <= t0:
        return lambda t: t + offset0
    slope = (offset1 - offset0) / (t1 - t0)
    return lambda t: t + offset0 + slope * (t - t0)


def read_trace(paths: Sequence[Path]) -> dict:
    """Parse the per-rank trace files of one run.

    Every time is put on rank 0's clock by the rank's clock rows (a real
    MPI: :func:`clock_correction`).

    Returns
    -------
    dict
        ``init_s`` and ``finalize_s`` (per rank, lists), ``comms`` (key -> list
        of world ranks), ``calls`` ((key, seq) -> list of per-rank dicts) and
        ``clock_error_s``: the largest error bound of the clocks' offsets
        (None under SMPI, whose ranks share one clock).

    Raises
    ------
    CollsimError
        If a row is malformed or a rank did not reach MPI_Finalize.
    """
    trace: dict = {"init_s": [], "finalize_s": [], "comms": {}, "calls": defaultdict(list),
                   "clock_error_s": None}
    for path in paths:
        finalized = False
        clocks: list[tuple[float, float, float]] = []
        calls: list[tuple[tuple[str, int], dict]] = []
        init_s = finalize_s = 0.0
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            words = line.split("\t")
            try:
                if words[0] == "init":
                    init_s = float(words[1])
                elif words[0] == "finalize":
                    finalize_s = float(words[1])
                    finalized = True
                elif words[0] == "clock" and len(words) == 4:
                    clocks.append((float(words[1]), float(words[2]), float(words[3])))
                elif words[0] == "comm":
                    trace["comms"][words[1]] = [int(r) for r in words[2].split(",")]
                elif words[0] == "call" and len(words) == 15:
                    (_, collective, function, algorithm, selected, np, n_bytes, elem_bytes, root,
                     commutative, rule_line, key, seq, start, end) = words
                    calls.append(((key, int(seq)), {
                        "collective": collective, "function": function, "algorithm": algorithm,
                        "selected": None if selected == "-" else selected, "np": int(np),
                        "bytes": int(n_bytes), "elem_bytes": int(elem_bytes), "root": int(root),
                        "commutative": commutative == "1", "rule_line": int(rule_line),
                        "start_s": float(start), "end_s": float(end)}))
                else:
                    raise ValueError(line)
            except (ValueError, IndexError):
                raise CollsimError(f"{path}:{number}: malformed trace row {line!r}") from None
        if not finalized:
            raise CollsimError(f"rank trace {path.name} ends before MPI_Finalize")
        to_root = clock_correction(clocks)
        trace["init_s"].append(to_root(init_s))
        trace["finalize_s"].append(to_root(finalize_s))
        for identity, call in calls:
            call["start_s"], call["end_s"] = to_root(call["start_s"]), to_root(call["end_s"])
            trace["calls"][identity].append(call)
        if clocks:
            trace["clock_error_s"] = max(trace["clock_error_s"] or 0.0,
                                         *(error for _, _, error in clocks))
    return trace


def summarize(trace: dict, model: Callable[[dict, str], float | None] | None) -> tuple[list[dict], float]:
    """Per collective, algorithm, np and size: calls, times, model, share.

    Parameters
    ----------
    trace : dict
        As :func:`read_trace` returns it.
    model : callable or None
        ``model(call, comm_key)`` -> the model's time of one call in seconds,
        or None where there is none (the MPI library's own algorithm, a real
        MPI).

    Returns
    -------
    rows, program_s
        The summary rows (keys ``collective`` (collsim's), ``function`` (the
        MPI function called: MPI_Allgatherv for an allgather), ``algorithm``
        (a registry name, ``mpi`` or ``mpi (not intercepted)``), ``np``,
        ``bytes`` (one block), ``calls``, ``time_s``, ``per_call_s``,
        ``model_s``, ``share``) and the program's time: max over ranks of
        MPI_Finalize's start minus min over ranks of MPI_Init's end.

    Notes
    -----
    A call's time is max end - min start across its ranks, so the spans of
    consecutive calls overlap when ranks leave one call at different times,
    and their sum may exceed the program's time.  ``share`` is therefore the
    ranks' view, as MPI profilers give it: the time the ranks spent inside
    the group's calls (end - start on each rank) over the time they spent
    between MPI_Init and MPI_Finalize, summed over ranks; the shares of all
    rows add up to at most 1.
    """
    program_s = max(trace["finalize_s"]) - min(trace["init_s"])
    rank_s = sum(end - start for start, end in zip(trace["init_s"], trace["finalize_s"]))
    groups: dict[tuple, dict] = {}
    for (key, seq), ranks in sorted(trace["calls"].items()):
        first = ranks[0]
        identity = (first["collective"], first["function"], first["algorithm"], first["np"])
        for row in ranks[1:]:
            if (row["collective"], row["function"], row["algorithm"], row["np"]) != identity:
                raise CollsimError(f"call {seq} on communicator {key} is {identity[1]} by "
                                   f"{identity[2]} on one rank, {row['function']} by "
                                   f"{row['algorithm']} on another")
        if len(ranks) != first["np"]:
            raise CollsimError(f"call {seq} on communicator {key} ({identity[1]}) was traced "
                               f"on {len(ranks)} of its {first['np']} ranks")
        n_bytes = max(row["bytes"] for row in ranks)
        identity = identity[:3] + (first.get("selected"), first["np"], n_bytes)
        time_s = max(row["end_s"] for row in ranks) - min(row["start_s"] for row in ranks)
        group = groups.setdefault(identity, {"calls": 0, "time_s": 0.0, "model_s": 0.0,
                                             "modelled": True, "inside_s": 0.0,
                                             "model_note": None})
        group["calls"] += 1
        group["time_s"] += time_s
        group["inside_s"] += sum(row["end_s"] - row["start_s"] for row in ranks)
        if not group["modelled"]:
            continue
        try:
            predicted = model(dict(first, bytes=n_bytes), key) if model else None
        except (ValueError, ArithmeticError) as error:  # a call the model cannot price: a note
            predicted, group["model_note"] = None, str(error)
        if predicted is None:
            group["modelled"] = False
        else:
            group["model_s"] += predicted
    rows = []
    for (collective, function, algorithm, selected, np, n_bytes), group in groups.items():
        rows.append({
            "collective": collective,
            "function": function,
            "algorithm": algorithm,
            "selected": selected,
            "np": np,
            "bytes": n_bytes,
            "calls": group["calls"],
            "time_s": group["time_s"],
            "per_call_s": group["time_s"] / group["calls"],
            "model_s": group["model_s"] / group["calls"] if group["modelled"] else None,
            "model_note": group["model_note"],
            "share": group["inside_s"] / rank_s if rank_s > 0 else None,
        })
    rows.sort(key=lambda r: (r["collective"], r["function"], r["algorithm"], r["selected"] or "",
                             r["np"], r["bytes"]))
    return rows, program_s


#: The algorithm name of the calls collsim takes none of (uneven blocks of a variant with
#: counts, MPI_Alltoallw): the library's, timed and counted (sim/interpose/interpose.c).
NOT_INTERCEPTED = "mpi (not intercepted)"

#: The variants with counts where only the root (or each rank) knows whether the blocks are
#: even: the ranks agree before collsim's algorithm runs (sim/interpose/interpose.c).
_AGREED = ("MPI_Gatherv", "MPI_Scatterv", "MPI_Alltoallv")


def _reduces(collective: str) -> bool:
    """Whether a collective takes an op (collectives.def): its local reductions cost gamma."""
    from collsim.harness import collectives

    return collectives()[collective]["op"]


def table_rows(rows: list[dict]) -> list[dict]:
    """The summary's rows grouped per collective, MPI function, algorithm (and choice) and
    process count.

    Each: the keys of a row of :func:`summarize`, ``bytes_min`` and
    ``bytes_max`` instead of ``bytes``, the calls and times summed,
    ``model_s`` per call (None if a size has none) and the first
    ``model_note``.
    """
    grouped: dict[tuple, dict] = {}
    for r in rows:
        key = (r["collective"], r.get("function"), r["algorithm"], r.get("selected"), r["np"])
        g = grouped.get(key)
        if g is None:
            g = grouped[key] = dict(r, bytes_min=r["bytes"], bytes_max=r["bytes"],
                                    model_total_s=0.0, share=r["share"])
            del g["bytes"]
            g["calls"] = g["time_s"] = 0
            g["share"] = 0.0 if r["share"] is not None else None
        g["bytes_min"] = min(g["bytes_min"], r["bytes"])
        g["bytes_max"] = max(g["bytes_max"], r["bytes"])
        g["calls"] += r["calls"]
        g["time_s"] += r["time_s"]
        if g["share"] is not None and r["share"] is not None:
            g["share"] += r["share"]
        if r["model_s"] is None or g["model_total_s"] is None:
            g["model_total_s"] = None
            g["model_note"] = g.get("model_note") or r.get("model_note")
        else:
            g["model_total_s"] += r["model_s"] * r["calls"]
    out = []
    for g in grouped.values():
        total = g.pop("model_total_s")
        g["per_call_s"] = g["time_s"] / g["calls"]
        g["model_s"] = None if total is None else total / g["calls"]
        out.append(g)
    return out


def _call_name(row: dict) -> str:
    """A row's collective, with the MPI function when it is not the collective's own
    (``allgather (MPI_Allgatherv)``)."""
    from collsim.harness import collectives

    own = collectives()[row["collective"]]["mpi"]
    function = row.get("function") or own
    return row["collective"] if function == own else f"{row['collective']} ({function})"


def format_summary(rows: list[dict], program_s: float, where: str, *,
                   gamma_s_per_byte: float | None = None,
                   clock_error_s: float | None = None) -> str:
    """The summary as a table, with the program's time first.

    One line per collective (with the MPI function when it is a variant:
    ``allgather (MPI_Allgatherv)``), algorithm (a selector's: and what it
    chose) and process count, its sizes as a range; then what the times
    mean, and the
    notes: calls without a model, and, under SMPI on a platform whose
    reductions cost something (``gamma_s_per_byte`` > 0), which lines are
    reductions by SMPI's own algorithms, which charge no gamma; under a real
    MPI (``clock_error_s`` given) how the ranks' clocks were put on one.
    """
    header = ("collective", "algorithm", "np", "bytes", "calls", "time", "per call", "model",
              "share")
    lines = [header]
    notes: list[str] = []
    no_gamma = False
    for r in table_rows(rows):
        algorithm = r["algorithm"] + (f" -> {r['selected']}" if r.get("selected") else "")
        if (gamma_s_per_byte and _reduces(r["collective"])
                and r["algorithm"] in (MPI_LIBRARY, NOT_INTERCEPTED)):
            algorithm += " *"
            no_gamma = True
        sizes = format_bytes(r["bytes_min"]) + ("" if r["bytes_min"] == r["bytes_max"]
                                                else "-" + format_bytes(r["bytes_max"]))
        model_cell = "-" if r["model_s"] is None else format_seconds(r["model_s"])
        if r.get("model_note"):
            notes.append(f"[{len(notes) + 1}] no model for {r['collective']} {algorithm}: "
                         f"{r['model_note']}")
            model_cell = f"- [{len(notes)}]"
        lines.append((_call_name(r), algorithm, str(r["np"]), sizes,
                      str(r["calls"]), format_seconds(r["time_s"]),
                      format_seconds(r["per_call_s"]),
                      model_cell,
                      "-" if r["share"] is None else f"{100 * r['share']:.1f}%"))
    table = format_table(lines)
    if any(r.get("function") in _AGREED and r["algorithm"] not in (MPI_LIBRARY, NOT_INTERCEPTED)
           for r in rows):
        notes.append(f"{', '.join(_AGREED)} by collsim's algorithms: the ranks first agree that "
                     "the blocks are even (one untimed message), whose skew is in their times")
    if no_gamma:
        notes.append(f"* SMPI's own algorithms charge no reduction cost; collsim's charge "
                     f"gamma = {gamma_s_per_byte:.3g} s/B per reduced byte: these times leave "
                     "it out")
    return (f"program: {format_seconds(program_s)} {where} (MPI_Init to MPI_Finalize)\n"
            + table
            + "time: summed over calls, each from its first rank's entry to its last rank's "
            "exit (max end - min start),\n  waiting for late ranks included; calls that "
            "overlap count twice, so times may add up to more than the program's\n"
            "share: the ranks' time inside these calls over their time from MPI_Init to "
            "MPI_Finalize\n"
            + ("" if clock_error_s is None else
               "clocks: each rank's MPI_Wtime put on rank 0's by ping-pong at MPI_Init and "
               f"MPI_Finalize (offset error <= {format_seconds(clock_error_s)})\n")
            + "".join(note + "\n" for note in notes))


# --- collsim app ---------------------------------------------------------------------------

def _collect_rules(uses: list[str], rules_path: str | None) -> list[Rule]:
    """The rules of --use and --rules; a collective given by both is refused."""
    try:
        from_use = [rule_from_use(text) for text in uses]
        from_file = read_rules(rules_path) if rules_path else []
    except ValueError as error:
        raise CollsimError(str(error)) from None
    used = [rule.collective for rule in from_use]
    for collective in used:
        if used.count(collective) > 1:
            raise CollsimError(f"--use gives {collective} twice")
        if any(rule.collective == collective for rule in from_file):
            raise CollsimError(f"{collective} has rules in {rules_path} and a --use")
    return from_use + from_file


def _check_rules(rules: list[Rule], np: int) -> None:
    """Every rule names a registry algorithm and parameters it reads (one-line errors)."""
    for rule in rules:
        if rule.algorithm == MPI_LIBRARY:
            continue
        entry = find_algorithm(rule.collective, rule.algorithm)
        spec = RunSpec(rule.collective, rule.algorithm, np=np, sizes_bytes=(0,),
                       params=rule.params)
        # the checks collsim run makes of the same algorithm and parameters; op and
        # datatype are the program's, checked call by call by the library
        validate_spec(spec, entry, total_cores=np)


def _rank_files(trace_dir: Path) -> list[Path]:
    return sorted(trace_dir.glob("trace.*.tsv"))


def _program(args: argparse.Namespace) -> tuple[list[str], Path]:
    """The program's command line (without a leading ``--``) and its file, checked."""
    program = list(args.program)
    if program[:1] == ["--"]:
        program = program[1:]
    if not program:
        raise CollsimError("no program: collsim app [options] -- PROG [ARGS]")
    if args.np < 1:
        raise CollsimError(f"np must be >= 1, got {args.np}")
    executable = Path(program[0])
    if not (executable.is_file() or shutil.which(program[0])):
        raise CollsimError(f"program {program[0]} not found")
    # the summary's -o must not replace the program (nor any file the command reads)
    check_input_path(executable if executable.is_file() else shutil.which(program[0]),
                     "the program")
    if args.output is not None:
        check_output_path(args.output, "-o")
    return program, executable


@dataclass
class _Launch:
    """How the program is started, and what the messages call the run."""

    argv: list[str]
    env: dict[str, str]
    where: str  # the summary's line about the run
    what: str  # the program, in error messages
    privatize_hint: str = ""
    # simulated: (G, rank_hosts, profile, net, alpha/beta) for the models; None under mpirun
    platform: tuple | None = None


def _simulated_launch(args: argparse.Namespace, program: list[str], work: Path, env: dict,
                      build_platform: Callable, load_profile: Callable) -> _Launch:
    """The smpirun command of the program on the platform the options name."""
    executable = Path(program[0])
    profile = load_profile(args.profile)
    G, label = build_platform(args, args.np)
    try:
        rank_hosts = map_ranks(G, args.np, args.mapping)
    except ValueError as error:
        raise CollsimError(str(error)) from None
    net, _ = model_parameters(G, rank_hosts, profile)
    ratio = net.alpha_s / net.beta_s_per_byte if net.beta_s_per_byte > 0 else 0.0
    env["COLLSIM_ALPHA_OVER_BETA_BYTES"] = repr(ratio)
    run_env = engine_environment({**os.environ, **env})
    privatize, mutable = args.privatize, []
    if privatize is None:
        mutable = mutable_globals(executable if executable.is_file()
                                  else Path(shutil.which(program[0]) or program[0]))
        privatize = bool(mutable)
    argv = smpirun_command(G, rank_hosts, profile, work, program, privatize=privatize)
    where = (f"simulated on {label}, {args.np} ranks, profile {profile.name}"
             + (f", privatized: the program's globals {', '.join(mutable[:3])}"
                + (", ..." if len(mutable) > 3 else "") if mutable else ""))
    hint = "" if privatize else " (if its ranks keep state in global variables: --privatize)"
    return _Launch(argv, run_env, where, f"{executable.name} on {label}", hint,
                   (G, rank_hosts, profile, net, ratio))


def _refuse_failed_run(launch: _Launch, status: int, stderr: str) -> None:
    """A run that failed, deadlocked or aborted is one line naming the reason."""
    what, hint = launch.what, launch.privatize_hint
    reason = next((line[len("collsim: error: "):] for line in stderr.splitlines()
                   if line.startswith("collsim: error: ")), None)
    if status != 0 or reason:
        # (a call refused on some ranks can leave smpirun's status at 0)
        if reason:
            raise CollsimError(f"{what} " + (f"exited with status {status}" if status else
                                             "was stopped") + f": {reason}")
        raise CollsimError(failure_line(what, status, stderr, hint=hint))
    if "deadlock detected" in stderr.lower():
        raise CollsimError(f"{what} deadlocked (SimGrid found no rank able to progress)" + hint)
    if _called_abort(stderr):
        raise CollsimError(failure_line(what, status, stderr, hint=hint))


def _traced_run(args: argparse.Namespace, program: list[str], rules: list[Rule],
                build_platform: Callable, load_profile: Callable
                ) -> tuple[_Launch, dict, list[Rule]]:
    """Run the program with its rules, once: its launch, its ranks' trace and the rules
    as the library read them (their lines in the file it was given)."""
    executable = Path(program[0])
    with tempfile.TemporaryDirectory(prefix="collsim-app-") as workdir:
        work = Path(workdir)
        if args.rules and not args.use:
            # the user's own file, so that the library's messages name its lines
            rules_path = str(Path(args.rules).resolve())
        else:
            rules_path = str(work / "rules")
            Path(rules_path).write_text(format_rules(rules, comment="collsim app --use"))
            rules = parse_rules(Path(rules_path).read_text(), origin=rules_path)
        env = {"COLLSIM_RULES": rules_path, "COLLSIM_TRACE": str(work / "trace")}
        program = [str(executable.resolve()) if executable.is_file() else program[0],
                   *program[1:]]
        if args.real_mpi:
            argv, run_env = mpirun_command(args.np, work, env)
            launch = _Launch(argv + program, run_env,
                             f"measured under mpirun on {args.np} processes",
                             f"{executable.name} under mpirun")
        else:
            launch = _simulated_launch(args, program, work, env, build_platform, load_profile)
        # a refused call aborts the program, and SimGrid may call the ranks left
        # waiting a deadlock: the library's reason comes first
        status, stdout, stderr = run_program(launch.argv, cwd=os.getcwd(), what=launch.what,
                                             timeout_s=args.timeout_s, env=launch.env,
                                             deadlock_is_error=False, scratch=work)
        if status != 0 and not args.real_mpi:
            # smpirun's own echo of its command line after a failure
            stdout = re.sub(r"[^\n]*\nExecution failed with code \d+\.\n?\Z", "", stdout)
        sys.stdout.write(stdout)
        sys.stdout.flush()
        if rules_path == str(work / "rules"):
            # the generated file goes away: name the --use instead of its lines
            for rule in rules:
                stderr = stderr.replace(f"rule at {rules_path}:{rule.line}",
                                        "--use " + ":".join(rule.to_line().split(" ")))
        _pass_stderr(stderr)
        _refuse_failed_run(launch, status, stderr)
        files = _rank_files(work)
        if not files:
            raise CollsimError(f"{executable.name} did not load collsim's interposition "
                               "library: build it with 'collsim cc"
                               + (" --real-mpi" if args.real_mpi else "") + "'")
        if len(files) != args.np:
            raise CollsimError(f"{len(files)} of {args.np} ranks wrote a trace")
        return launch, read_trace(files), rules


def _run(args: argparse.Namespace, build_platform: Callable, load_profile: Callable) -> int:
    program, executable = _program(args)
    rules = _collect_rules(args.use, args.rules)
    _check_rules(rules, args.np)
    check_interposed(executable if executable.is_file() else Path(shutil.which(program[0])),
                     args.real_mpi)
    launch, trace, rules = _traced_run(args, program, rules, build_platform, load_profile)
    platform = launch.platform
    model = _model(*platform, rules, trace["comms"]) if platform else None
    rows, program_s = summarize(trace, model)
    if args.json:
        text = "".join(json.dumps(row) + "\n" for row in rows)
    else:
        text = format_summary(rows, program_s, launch.where,
                              gamma_s_per_byte=platform[3].gamma_s_per_byte if platform else None,
                              clock_error_s=trace["clock_error_s"])
    if args.output:
        write_output(args.output, text.encode())
    else:
        sys.stdout.write(text)
    return 0


def check_interposed(path: Path, real_mpi: bool) -> None:
    """Refuse an ELF program that does not carry the interposition library.

    The library's marker string (:data:`INTERPOSE_MARKER`) is in every
    program ``collsim cc`` (``cxx``, ``fc``) linked; a script (``#!``) that
    starts the program is let through, and checked after the run by its trace.

    Raises
    ------
    CollsimError
        Naming the fix: the driver to build with, and the autotools and CMake
        recipes.
    """
    try:
        with open(path, "rb") as handle:
            if handle.read(4) != b"\x7fELF":
                return
            handle.seek(0)
            found = INTERPOSE_MARKER in handle.read()
    except OSError as error:
        raise CollsimError(f"cannot read the program {path}: {error.strerror}") from None
    if not found:
        flag = " --real-mpi" if real_mpi else ""
        raise CollsimError(
            f"{path.name} was not linked with collsim's interposition library (its marker is "
            f"missing): build it with 'collsim cc{flag}' (cxx, fc) instead of the MPI compiler, "
            f"e.g. ./configure CC='collsim cc{flag}' or CC='collsim cc{flag}' cmake")


#: Symbols of writable data every program has (the toolchain's, the C++
#: runtime's), which are no per-rank state of the program.
_TOOLCHAIN_DATA = frozenset({"_DYNAMIC", "_GLOBAL_OFFSET_TABLE_", "__TMC_END__", "__dso_handle",
                             "__do_global_dtors_aux_fini_array_entry", "completed.0",
                             "__frame_dummy_init_array_entry", "_ZStL8__ioinit", "__data_start",
                             "data_start", "_edata", "__bss_start", "_end"})


def _library_data() -> frozenset[str]:
    """The writable data symbols of collsim's own archives (SMPI-safe by design)."""
    names = set()
    for archive in _LIBRARIES:
        done = subprocess.run(["nm", "--defined-only", str(find_c_part(archive))],
                              capture_output=True, text=True)
        names.update(line.split()[-1] for line in done.stdout.splitlines()
                     if len(line.split()) == 3 and line.split()[1] in "DdBbGgSsVv")
    return frozenset(names)


def mutable_globals(path: Path) -> list[str]:
    """The program's own writable global and static variables (``nm``), sorted.

    Under ``smpi/privatization:no`` the ranks, threads of one process, share
    them: a program that keeps per-rank state there (``static int my_rank``,
    Fortran SAVE and COMMON data, NPB's globals) needs
    ``smpi/privatization:dlopen``, which ``collsim app`` then chooses.
    Symbols of collsim's libraries and of the toolchain are left out.

    Raises
    ------
    CollsimError
        If ``nm`` (binutils) cannot read the program, or it has no symbols
        (stripped): the user decides then.
    """
    try:
        done = subprocess.run(["nm", "--defined-only", str(path)], capture_output=True,
                              text=True)
    except OSError as error:
        raise CollsimError(f"cannot run nm to find the program's globals ({error.strerror}): "
                           "install binutils, or give --privatize or --no-privatize") from None
    if done.returncode != 0:
        raise CollsimError(f"nm cannot read {path}: {done.stderr.strip().splitlines()[-1:]}; "
                           "give --privatize or --no-privatize")
    if not done.stdout.strip():
        raise CollsimError(f"{path.name} has no symbol table (stripped): collsim app cannot "
                           "tell whether it keeps state in global variables; give --privatize "
                           "or --no-privatize")
    ours = _library_data()
    found = set()
    for line in done.stdout.splitlines():
        words = line.split()
        if len(words) != 3 or words[1] not in "DdBbGgSsVv":
            continue
        name = words[2]
        if (name in ours or name in _TOOLCHAIN_DATA or name.startswith(("DW.ref.", "_ZGV"))
                or (name.startswith("__") and "_MOD_" not in name)):
            continue
        found.add(name)
    return sorted(found)


_SIGNALS = {4: "SIGILL", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE", 9: "SIGKILL", 11: "SIGSEGV",
            15: "SIGTERM"}


#: Open MPI's mpirun's own lines after a failure (should its dashes be missing).
_LAUNCHER_LINES = ("Primary job", "a non-zero exit code", "MPI_ABORT was invoked",
                   "with errorcode", "NOTE: invoking MPI_ABORT", "You may or may not see output",
                   "exactly when Open MPI kills them")


def _called_abort(stderr: str) -> bool:
    return "MPI_Abort was called" in stderr or "MPI_ABORT was invoked" in stderr


def failure_line(what: str, status: int, stderr: str, *, hint: str = "") -> str:
    """One line for a program that failed: its exit status (a signal named), whether it
    called MPI_Abort, and the first line of its error output; ``hint`` after a crash
    (a signal, MPI_Abort) only, where shared globals are a likely cause.

    >>> failure_line("is on crossbar", 134, "[0.0] [smpi/INFO] x\\nis.c:9: Assertion failed.")
    'is on crossbar was killed by SIGABRT (status 134): is.c:9: Assertion failed.'
    """
    if _called_abort(stderr):
        code = re.search(r"MPI_ABORT was invoked.*?errorcode (\d+)", stderr, re.DOTALL)
        head = f"{what} called MPI_Abort" + (f" (error code {code.group(1)})" if code else "")
    elif status > 128 and status - 128 in _SIGNALS:
        head = f"{what} was killed by {_SIGNALS[status - 128]} (status {status})"
    elif status < 0 and -status in _SIGNALS:
        head = f"{what} was killed by {_SIGNALS[-status]}"
    else:
        head = f"{what} exited with status {status}"
    # Open MPI's own messages come between lines of dashes
    program_lines = re.sub(r"^-{20,}\n.*?^-{20,}$", "", stderr, flags=re.DOTALL | re.MULTILINE)
    first = next((line.strip() for line in program_lines.splitlines()
                  if line.strip() and not line.startswith(("[", "-", "*", " "))
                  and "privatization" not in line and not line.startswith("Execution failed")
                  and not line.startswith(_LAUNCHER_LINES)
                  and "mpirun" not in line.lower() and "prterun" not in line.lower()), None)
    if first is None:  # Open MPI's report of a signal: "[host:pid] Signal: Segmentation fault (11)"
        signal_line = re.search(r"^\[[^\]]*\] Signal: (.+)$", stderr, re.MULTILINE)
        first = signal_line.group(1).strip() if signal_line else None
    crashed = _called_abort(stderr) or status > 128 or status < 0
    return head + (f": {first}" if first else "") + (hint if crashed else "")


def _pass_stderr(stderr: str) -> None:
    """The program's stderr up to the interposition library's first error, if any.

    Every rank prints that error, and SimGrid's report of the abort that
    follows says nothing more: the error is repeated once, as the reason of
    collsim's own one-line message.
    """
    for line in stderr.splitlines(keepends=True):
        if line.startswith("collsim: error: "):
            break
        sys.stderr.write(line)


def _model(G, rank_hosts, profile, net, ratio, rules: list[Rule],
           comms: dict[str, list[int]]) -> Callable[[dict, str], float | None]:
    """model(call, comm_key): the model's time of one traced call on the platform.

    The network parameters are those of the call's communicator (its members'
    hosts); the algorithm's parameters those of the rule that took the call.
    """
    networks = {}
    by_line = {rule.line: rule for rule in rules}

    def predict(call: dict, key: str) -> float | None:
        if call["algorithm"] in (MPI_LIBRARY, NOT_INTERCEPTED):
            return None
        if call["selected"] == "?":
            raise ValueError(f"{call['collective']}/{call['algorithm']} ran an algorithm "
                             "collsim lacks")
        if key not in networks:
            hosts = [rank_hosts[r] for r in comms[key]]
            networks[key] = net if hosts == rank_hosts else model_parameters(G, hosts, profile)[0]
        params = replace(by_line[call["rule_line"]].params, alpha_over_beta_bytes=ratio,
                         selected=call["selected"])
        return model_for(call["collective"], call["algorithm"])(
            call["np"], call["bytes"], networks[key], elem_bytes=call["elem_bytes"],
            root=max(call["root"], 0), commutative=call["commutative"],
            params=params).time_s

    return predict


def add_app_parser(commands, parser_class, add_platform_arguments: Callable,
                   build_platform: Callable, load_profile: Callable) -> None:
    """Register ``collsim app`` (and ``collsim cc``'s help entry) on the CLI's subcommands."""
    commands.add_parser("cc", help="compile an MPI C program with collsim's interposition "
                        "library: collsim cc [--real-mpi] -o PROG SRC.c [cc flags]",
                        add_help=False)
    commands.add_parser("cxx", aliases=["c++"], help="the same for C++ (smpicxx, mpicxx)",
                        add_help=False)
    commands.add_parser("fc", help="the same for Fortran (smpif90, mpif90)", add_help=False)
    parser = commands.add_parser(
        "app", help="run an unmodified MPI program with collsim's algorithms and summarize "
        "its collectives: collsim app [options] -- PROG [ARGS]")
    parser.add_argument("--np", type=int, required=True, help="number of ranks")
    parser.add_argument("--use", action="append", default=[], metavar="COLL:ALG[:param=value...]",
                        help="algorithm for every call of a collective, e.g. allreduce:ring "
                        "(repeatable)")
    parser.add_argument("--rules", help="rules file (collsim.rules; collsim select --rules "
                        "writes one)")
    parser.add_argument("--json", action="store_true",
                        help="the summary as JSON Lines instead of a table")
    parser.add_argument("-o", "--output", help="write the summary to this file")
    parser.add_argument("--real-mpi", action="store_true",
                        help="run under mpirun with the real MPI (collsim cc --real-mpi)")
    privatize = parser.add_mutually_exclusive_group()
    privatize.add_argument("--privatize", action="store_true", default=None,
                           help="give every rank its own global variables (smpi/privatization:"
                           "dlopen); default: when the program has writable globals (nm)")
    privatize.add_argument("--no-privatize", dest="privatize", action="store_false", default=None,
                           help="let the ranks share the program's globals (smpi/privatization:"
                           "no), even if it has writable ones")
    add_platform_arguments(parser)
    parser.add_argument("program", nargs=argparse.REMAINDER,
                        help="-- then the program (built with collsim cc) and its arguments")

    simulation_only = [action.dest for action in parser._actions
                       if action.dest not in ("help", "np", "use", "rules", "json", "output",
                                              "real_mpi", "program", "timeout_s")]

    def handler(args: argparse.Namespace) -> int:
        if args.real_mpi:
            # no silent ignoring: a platform, mapping or profile means a simulation
            for dest in simulation_only:
                if getattr(args, dest) != parser.get_default(dest):
                    raise CollsimError(f"--{dest.replace('_', '-')} describes a simulated "
                                       "machine; --real-mpi runs on this one")
        return _run(args, build_platform, load_profile)

    parser.set_defaults(handler=handler)
