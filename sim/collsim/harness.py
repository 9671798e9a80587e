"""collbench, the C harness, from Python: finding it, running it under smpirun,
and the registry it publishes.

``simulate`` is the only place that starts smpirun: an argument list (no
shell), a private working directory holding the platform XML and the
hostfile, a timeout after which the whole process group is stopped, and one
JSON object per measurement parsed from stdout.  ``registry`` is
``collbench --list --json``: the algorithms with their restrictions,
parameters and composite defaults, decided in C, read here; ``data_catalog``
the datatypes, ops and distributions the same listing publishes
(``sim/collbench/datagen.def``).

This module knows nothing of the models, so that the models can read the
registry (``composite_defaults``) without an import cycle.
"""

from __future__ import annotations

import ctypes.util
import functools
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import networkx as nx

from collsim import lifetime
from collsim.errors import CollsimError
from collsim.files import write_atomically
from collsim.platforms import crossbar, write_hostfile, write_platform
from collsim.profiles import Profile, load_profile
from collsim.resources import memory_map_limit, memory_maps

__all__ = ["REPO_ROOT", "PublishedNames", "PublishedSizes", "collbench_sha256",
           "composite_defaults", "composite_names", "data_catalog", "engine_environment",
           "find_algorithm", "find_c_part", "find_collbench", "find_smpirun", "parameter_table",
           "registry", "run_program", "simgrid_tool", "simgrid_version", "simulate",
           "smpirun_command"]

# The checkout collsim runs from (an editable install), if it does: sim/collsim/..
REPO_ROOT = Path(__file__).resolve().parents[2]
# Where `pip install .` puts the C parts (the install rules of CMakeLists.txt)
PACKAGE_DIR = Path(__file__).resolve().parent
_INSTALLED_FOLDER = {"collbench": "_bin", "simgrid-bin": "_bin", "libcollsim_interpose.a": "_lib",
                     "libcollsim_algorithms.a": "_lib"}
# A long simulation reports its progress this often (wall-clock seconds).
PROGRESS_PERIOD_S = 10.0
_PROGRESS_PREFIX = "collbench: progress: "
# collbench's command line when smpirun runs it (OPTIONS_ENVIRONMENT in sim/collbench/options.h)
COLLBENCH_ARGS_VARIABLE = "COLLBENCH_ARGS"
# "system": smpirun keeps the C library's allocator; "jemalloc": demanded (engine_environment)
ALLOCATOR_VARIABLE = "COLLSIM_ALLOCATOR"


@functools.lru_cache(maxsize=1)
def _jemalloc() -> str | None:
    """The soname of jemalloc when the dynamic linker finds it (``libjemalloc2``), else None."""
    return ctypes.util.find_library("jemalloc")


def engine_environment(env: dict[str, str]) -> dict[str, str]:
    """The environment smpirun runs in: ``env`` with jemalloc preloaded.

    SimGrid's engine spends about a sixth of a large simulation in the C
    library's malloc and free (perf of a 4096-rank ring, tests/benchmarks/
    vs_smpi.py); jemalloc takes a quarter to a third off the CPU time of a
    1024-rank ring allreduce, with the same simulated time to the bit (the
    allocator decides no simulated time: the harness times nothing on the
    host).  ``COLLSIM_ALLOCATOR`` chooses: ``system`` keeps the C library's
    allocator, ``jemalloc`` demands jemalloc, unset takes jemalloc when it is
    installed and the C library's otherwise.

    Parameters
    ----------
    env : dict of str to str
        The environment to start from (not modified).

    Returns
    -------
    dict of str to str
        A copy, ``LD_PRELOAD`` led by jemalloc when it is used.

    Raises
    ------
    CollsimError
        When ``COLLSIM_ALLOCATOR`` is neither ``jemalloc`` nor ``system``, or
        asks for jemalloc where it is not installed.
    """
    env = dict(env)
    wanted = env.get(ALLOCATOR_VARIABLE)
    if wanted not in (None, "jemalloc", "system"):
        raise CollsimError(f"{ALLOCATOR_VARIABLE} must be jemalloc or system, got {wanted!r}")
    library = _jemalloc()
    if wanted == "jemalloc" and library is None:
        raise CollsimError(f"{ALLOCATOR_VARIABLE}=jemalloc, but jemalloc is not installed "
                           "(apt-get install libjemalloc2)")
    if library is None or wanted == "system":
        return env
    preload = env.get("LD_PRELOAD", "").split()
    if library not in preload:
        env["LD_PRELOAD"] = " ".join([library, *preload])
    return env


def find_c_part(name: str, *, real_mpi: bool = False) -> Path:
    """Return one of the built C parts: collbench or a library ``collsim cc`` links.

    Parameters
    ----------
    name : str
        ``collbench``, ``libcollsim_interpose.a`` or ``libcollsim_algorithms.a``.
    real_mpi : bool
        The build against a real MPI (``make build-mpi``) instead of SMPI.

    Returns
    -------
    Path
        In a source tree (a checkout with ``CMakeLists.txt``, as an editable
        install runs from), ``make build``'s: ``build/NAME`` (``build-mpi/NAME``).
        Otherwise what ``pip install`` put in the package: ``collsim/_bin/``
        (collbench), ``collsim/_lib/`` (the libraries).

    Raises
    ------
    CollsimError
        If the part is missing, saying how to build it.
    """
    if (REPO_ROOT / "CMakeLists.txt").is_file():
        build = REPO_ROOT / ("build-mpi" if real_mpi else "build")
        path, hint = build / name, f"run 'make {build.name}' in {REPO_ROOT} first"
    elif real_mpi:
        raise CollsimError(f"{name} for a real MPI is built in a collsim source tree with "
                           "'make build-mpi' (pip install builds the SimGrid one only)")
    else:
        path = PACKAGE_DIR / _INSTALLED_FOLDER[name] / name
        hint = ("this collsim was installed without its C parts: reinstall it with "
                "'pip install' from a collsim source tree, with SimGrid's smpicc on PATH")
    if not path.is_file():
        raise CollsimError(f"{name} not found at {path}: {hint}")
    return path


def find_collbench() -> Path:
    """Return the collbench program: $COLLSIM_COLLBENCH, else :func:`find_c_part`'s."""
    if "COLLSIM_COLLBENCH" in os.environ:
        candidate = Path(os.environ["COLLSIM_COLLBENCH"])
        if not candidate.is_file():
            raise CollsimError(f"collbench not found at {candidate} (COLLSIM_COLLBENCH)")
        return candidate
    return find_c_part("collbench")


def collbench_sha256() -> str:
    """The SHA-256 of the collbench that runs: what the registry listing kept beside
    it and every stored result (``grid``) are tied to."""
    return hashlib.sha256(find_collbench().read_bytes()).hexdigest()


def simgrid_tool(name: str) -> str | None:
    """The path of one of SimGrid's programs (``smpirun``, ``smpicc``, ``smpicxx``,
    ``smpif90``): the one of the SimGrid that built collbench, else PATH's.

    The build records its SimGrid's ``bin`` folder beside collbench
    (``simgrid-bin``, written by CMakeLists.txt), so a checkout built with
    ``make SIMGRID=4.1`` runs 4.1's smpirun and compiles with 4.1's smpicc
    whatever PATH says; collbench runs only under the SimGrid it was built with.
    None when neither has it.
    """
    try:
        recorded = find_c_part("simgrid-bin")
    except CollsimError:
        recorded = None
    if recorded is not None:
        candidate = Path(recorded.read_text().strip()) / name
        if os.access(candidate, os.X_OK):
            return str(candidate)
    return shutil.which(name)


@functools.lru_cache(maxsize=None)
def _smpirun_version(smpirun: str) -> tuple[int, int]:
    done = subprocess.run([smpirun, "-version"], capture_output=True, text=True, check=False)
    found = re.search(r"SimGrid version (\d+)\.(\d+)", done.stdout)
    if found is None:
        raise CollsimError(f"{smpirun} -version does not name a SimGrid version")
    return int(found.group(1)), int(found.group(2))


def simgrid_version() -> tuple[int, int]:
    """The (major, minor) version of the SimGrid that runs the simulations
    (``smpirun -version`` of :func:`find_smpirun`), read once per process.

    Used only where SimGrid versions read the same option differently
    (``profiles.overhead_cfg_value``).
    """
    return _smpirun_version(find_smpirun())


def find_smpirun() -> str:
    """Return the path of smpirun (:func:`simgrid_tool`), or explain how to get it."""
    path = simgrid_tool("smpirun")
    if path is None:
        raise CollsimError(
            "smpirun not found on PATH: install SimGrid (apt-get install libsimgrid-dev), "
            "or run 'make build'"
        )
    return path


# a SimGrid log line: "[0.000000] ./src/surf/network_cm02.cpp:322: [root/CRITICAL] text"
_SIMGRID_ERROR = re.compile(r"^\[[^\]]*\] (?:\S+:\d+: )?\[[\w.]+/(?:CRITICAL|ERROR)\] (.+)$")


def _failure_message(what: str, returncode: int, stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("collbench: error: "):
            return line[len("collbench: error: ") :]
    reasons = [match.group(1) for match in map(_SIMGRID_ERROR.match, lines) if match]
    if reasons:  # SimGrid's own reason, not the "Aborted" of the shell after it
        return f"{what} crashed (exit status {returncode}): SimGrid: {reasons[-1]}"
    detail = next(
        (line for line in reversed(lines) if "did not return 0" not in line),
        "no message",
    )
    return f"{what} crashed (exit status {returncode}): {detail}"


def smpirun_command(G: nx.Graph, rank_hosts: list[str], profile: Profile, workdir: Path,
                    program: list[str], *, privatize: bool = False,
                    shared_buffers: bool | None = None) -> list[str]:
    """The smpirun command line that runs ``program`` on the platform.

    Writes the platform XML and the hostfile into ``workdir`` (which also
    becomes SMPI's temporary directory) and returns the argument list: the
    profile's ``--cfg`` options, the harness requirements among them.  With
    ``privatize``, every rank gets its own copy of the program's global
    variables (``smpi/privatization:dlopen``; simulated times do not change):
    for programs that are not collsim's own.  ``shared_buffers``: the program
    allocates its buffers with SMPI's shared malloc (collbench
    ``--timing-only``; by default, whether ``program`` holds that option).
    """
    if shared_buffers is None:
        shared_buffers = "--timing-only" in program
    platform_path = write_platform(G, workdir / "platform.xml")
    hostfile_path = write_hostfile(rank_hosts, workdir / "hostfile")
    return [
        find_smpirun(),
        "-np",
        str(len(rank_hosts)),
        "-platform",
        str(platform_path),
        "-hostfile",
        str(hostfile_path),
        *profile.smpirun_args(simgrid_version()),
        *_stack_guard_args(len(rank_hosts), shared_buffers=shared_buffers),
        *(["--cfg=smpi/privatization:dlopen"] if privatize else []),
        "--cfg=smpi/tmpdir:" + str(workdir),
        "--log=root.thres:warning",
        *program,
    ]


def _stack_guard_args(np: int, *, shared_buffers: bool = False) -> list[str]:
    """``contexts/guard-size:0`` when the ranks' memory maps would exceed the kernel's limit.

    SimGrid protects each rank's stack with a guard page: two memory maps per
    rank, and Linux refuses more than ``vm.max_map_count`` of them (65530 by
    default), so 65,536 ranks abort with "Failed to protect stack".  With
    ``shared_buffers`` (``--timing-only``) the ranks' shared buffers count too
    (``collsim.resources``, which refuses a run that would not fit even then).
    Without the guard a stack overflow corrupts memory instead of faulting;
    simulated times do not change.
    """
    maps = memory_maps(np, shared_bytes=0 if shared_buffers else None)
    return ["--cfg=contexts/guard-size:0"] if maps > memory_map_limit() else []


def _kill_group(pid: int) -> None:
    """SIGKILL the process group ``pid`` leads (gone already: nothing to do)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _start_watchdog(group: int, scratch: Path | None) -> tuple[subprocess.Popen, int]:
    """A process that SIGKILLs process group ``group`` when this process dies.

    It waits on a pipe whose only write end this process holds: when this
    process ends, however it ends (SIGKILL included, which no handler sees),
    the kernel closes the pipe, the read returns, and the group is killed, so
    no smpirun, simulator or MPI program outlives collsim; then it removes
    the temporary directory ``scratch`` (None: nothing to remove), which the
    dead process can no longer.  Returns the watchdog and the write end,
    which :func:`_stop_watchdog` closes.
    """
    read_end, write_end = os.pipe()  # not inherited by other children (close-on-exec)
    try:
        watchdog = subprocess.Popen(
            # (dash's kill takes no "--": -KILL then the negative group id)
            ["/bin/sh", "-c", 'read _ignored; kill -KILL "-$1" 2>/dev/null; '
             'if [ -n "$2" ]; then sleep 0.2; rm -rf -- "$2"; fi', "collsim-watchdog",
             str(group), "" if scratch is None else str(scratch)],
            stdin=read_end, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True)
    except BaseException:
        os.close(write_end)
        raise
    finally:
        os.close(read_end)
    return watchdog, write_end


def _stop_watchdog(watchdog: subprocess.Popen, write_end: int) -> None:
    """Stop the watchdog without letting it signal (the group may be reaped next)."""
    watchdog.kill()
    watchdog.wait()
    os.close(write_end)


def run_program(argv: list[str], *, cwd: str | Path, what: str, timeout_s: float,
                env: dict[str, str] | None = None, deadlock_is_error: bool = True,
                progress=None, scratch: Path | None = None) -> tuple[int, str, str]:
    """Run argv (no shell) in its own process group; return (status, stdout, stderr).

    Both streams are read as the program writes them (bytes that are not
    UTF-8 are replaced, never a traceback); with ``progress``, each stderr
    line that collbench's progress reporter writes goes to ``progress(line)``
    at once (prefixed with ``what``) instead of into stderr.  The group is
    stopped at the timeout, when this process is interrupted, and by a
    watchdog process when this process dies (:func:`_start_watchdog`), which
    then also removes the temporary directory ``scratch`` the run uses.

    Raises
    ------
    CollsimError
        When it runs past ``timeout_s`` (the whole group is stopped), or, with
        ``deadlock_is_error``, when SimGrid reports a deadlock (smpirun still
        exits with 0 then).
    """
    started = time.monotonic()
    try:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,
            env=env,
        )
    except OSError as error:
        raise CollsimError(f"cannot start {argv[0]}: {error.strerror}") from None
    try:
        watchdog, watchdog_pipe = _start_watchdog(process.pid, scratch)
    except BaseException:
        _kill_group(process.pid)
        process.wait()
        raise
    stdout_lines: list[str] = []
    stderr_lines: list[str] = []

    def drain(stream, lines, forward):
        for line in stream:
            if forward is not None and line.startswith(_PROGRESS_PREFIX):
                forward(f"{what}: {line[len(_PROGRESS_PREFIX):].strip()}")
            else:
                lines.append(line)

    readers = [threading.Thread(target=drain, args=(process.stdout, stdout_lines, None)),
               threading.Thread(target=drain, args=(process.stderr, stderr_lines, progress))]
    for reader in readers:
        reader.start()
    # A timer stops the group at the timeout, and the wait blocks until the
    # program exits (Popen.wait with a timeout polls, every 50 ms at most, which
    # a short simulation pays on its end).  The timer and the watchdog are
    # stopped before the process is reaped, so neither signals a group id the
    # system gave away.
    timed_out = threading.Event()

    def stop():
        timed_out.set()
        _kill_group(process.pid)

    timer = threading.Timer(timeout_s, stop)
    timer.daemon = True
    timer.start()
    try:
        os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)  # exited, not yet reaped
        timer.cancel()
        timer.join()
        _stop_watchdog(watchdog, watchdog_pipe)  # before the group id can be given away
        process.wait()
    except BaseException:  # interrupted, or the main process died: no smpirun left behind
        timer.cancel()
        _kill_group(process.pid)
        _stop_watchdog(watchdog, watchdog_pipe)
        process.wait()
        raise
    finally:
        for reader in readers:
            reader.join()
    # past the limit, whether or not the timer thread got to run first (on a loaded
    # machine it may not, for a program that ends soon after its limit)
    if timed_out.is_set() or time.monotonic() - started > timeout_s:
        raise CollsimError(
            f"{what} did not finish within {timeout_s:g} s and was stopped "
            "(a deadlock, or too large for this timeout: see --timeout-s)"
        )
    stdout, stderr = "".join(stdout_lines), "".join(stderr_lines)
    if deadlock_is_error and "deadlock detected" in stderr.lower():
        raise CollsimError(f"{what} deadlocked (SimGrid found no rank able to progress)")
    return process.returncode, stdout, stderr


def simulate(
    G: nx.Graph,
    rank_hosts: list[str],
    profile: Profile,
    collbench_args: list[str],
    *,
    what: str,
    timeout_s: float = 600.0,
    progress=None,
) -> tuple[list[dict], int]:
    """Run collbench under smpirun and return its rows and exit status.

    Parameters
    ----------
    G : networkx.Graph
        The platform.
    rank_hosts : list of str
        Host of each rank (its length is the number of ranks).
    profile : Profile
        The SMPI profile.
    collbench_args : list of str
        Arguments for collbench.
    what : str
        What is being simulated, for error messages ("allreduce/ring at 1MiB").
    timeout_s : float
        Wall-clock limit; the simulation is stopped after it.
    progress : callable, optional
        Called with one line (``what``, the wall time so far and the simulated
        time reached) every ``PROGRESS_PERIOD_S`` seconds of a long simulation.

    Returns
    -------
    rows, returncode
        The parsed JSON rows and collbench's exit status (0 ok, 1 a wrong
        result).

    Raises
    ------
    CollsimError
        On bad input detected by collbench, a deadlock, a crash or a timeout.
    """
    collbench = find_collbench()
    if any("\n" in arg for arg in collbench_args):
        raise ValueError(f"a collbench argument holds a newline: {collbench_args!r}")
    # (ignore_cleanup_errors: a worker whose main process died may have removed it
    # already, lifetime.scratch_dirs)
    with tempfile.TemporaryDirectory(prefix="collsim-", ignore_cleanup_errors=True) as workdir:
        lifetime.scratch_dirs.add(workdir)
        try:
            argv = smpirun_command(G, rank_hosts, profile, Path(workdir), [str(collbench)],
                                   shared_buffers="--timing-only" in collbench_args)
            env = engine_environment(os.environ)
            # the arguments through the environment, one a line, not argv: SMPI
            # copies argv for every rank (36 MB for 22 arguments at 16384 ranks),
            # the environment is the process's (sim/collbench/options.h)
            env[COLLBENCH_ARGS_VARIABLE] = "\n".join(collbench_args)
            if progress is not None:
                env["COLLSIM_PROGRESS_S"] = repr(float(PROGRESS_PERIOD_S))
            else:
                env.pop("COLLSIM_PROGRESS_S", None)
            returncode, stdout, stderr = run_program(argv, cwd=workdir, what=what,
                                                     timeout_s=timeout_s, env=env,
                                                     progress=progress, scratch=Path(workdir))
        finally:
            lifetime.scratch_dirs.discard(workdir)
    rows = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    if returncode not in (0, 1):
        raise CollsimError(_failure_message(what, returncode, stderr))
    if returncode == 1 and not any(row.get("check") == "wrong" for row in rows):
        raise CollsimError(_failure_message(what, returncode, stderr))
    return rows, returncode


def registry() -> tuple[dict, ...]:
    """Return the registry as printed by ``collbench --list --json``: one
    entry per algorithm (its lines with a ``collective``)."""
    return tuple(row for row in _listing() if "collective" in row)


def parameter_table() -> tuple[dict, ...]:
    """Return the algorithm parameters as ``collbench --list --json`` publishes them.

    One dict per line of ``algorithms/params.def``, in its order: ``name``
    (the ``collsim_params`` field, the :class:`~collsim.params.AlgorithmParams`
    field, the key of rules files, scenarios and the API), ``option``
    (``--segment-bytes``), ``type`` (bytes, int, name, bool, real), ``unit``,
    ``what`` (the noun of its errors), ``min`` and ``max`` (the range of a
    given value; None: unbounded), ``group`` (the ``parameters`` name an
    algorithm declares; None: a hint the harness sets from the platform) and
    ``help``.

    Examples
    --------
    >>> [p["name"] for p in parameter_table()][:2]
    ['segment_bytes', 'block_count']
    """
    for row in _listing():
        if "parameters" in row and "collective" not in row:
            return tuple(row["parameters"])
    raise CollsimError(f"{find_collbench()} publishes no parameter table (rebuild it: make build)")


@functools.lru_cache(maxsize=1)
def _listing() -> tuple[dict, ...]:
    """Every line of ``collbench --list --json``.

    The listing is kept beside collbench (``collbench.registry.json``) with the
    SHA-256 of the collbench it came from, and read from there while that
    collbench is the one installed: a listing is a whole smpirun, a tenth of a
    second, which every command would pay.  A build directory that cannot be
    written keeps no copy.
    """
    collbench = find_collbench()
    digest = collbench_sha256()
    kept = collbench.with_name(collbench.name + ".registry.json")
    try:
        saved = json.loads(kept.read_text())
        if saved["collbench_sha256"] == digest:
            return tuple(saved["rows"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    G = crossbar(nodes=1)
    rows, _ = simulate(
        G, ["node-0"], load_profile("hockney"), ["--list", "--json"], what="collbench --list"
    )
    try:
        write_atomically(kept, json.dumps({"collbench_sha256": digest, "rows": rows}).encode())
    except OSError:
        pass
    return tuple(rows)


def collectives() -> dict[str, dict]:
    """The collectives collbench knows, as it publishes them, by name.

    ``algorithms/collectives.def`` lists each once; ``collbench --list --json``
    prints them on one line.  Each is a dict with ``name``, ``op`` (the call
    takes an ``MPI_Op``), ``root`` (it takes a root), ``send_blocks`` and
    ``recv_blocks`` (``none``, ``one``, ``one_at_root``, ``all``,
    ``all_at_root``: a buffer's blocks of ``count`` elements; a row's
    ``bytes`` is one block), ``holders`` (``every``, ``root``,
    ``not_first``), ``mpi`` (the MPI function) and ``summary``, in the
    table's order.

    Examples
    --------
    >>> [name for name, c in collectives().items() if c["root"]]
    ['reduce', 'bcast', 'gather', 'scatter']
    >>> collectives()["reduce_scatter"]["mpi"]
    'MPI_Reduce_scatter_block'
    """
    for row in _listing():
        if "collectives" in row:
            return {c["name"]: c for c in row["collectives"]}
    raise CollsimError("collbench --list --json published no collectives "
                       "(an older collbench: run make build)")


def data_catalog() -> dict[str, tuple[dict, ...]]:
    """The datatypes, ops and input distributions collbench knows, as it publishes them.

    ``sim/collbench/datagen.def`` lists each once; ``collbench --list --json``
    prints them on one line, which this returns as ``{"types": ..., "ops": ...,
    "distributions": ...}``: a type's ``name``, ``size_bytes`` and ``is_float``,
    an op's ``name``, ``commutative`` and ``summary``, a distribution's
    ``name`` and ``summary``, each in the table's order.

    Examples
    --------
    >>> [op["name"] for op in data_catalog()["ops"] if not op["commutative"]]
    ['first_nonzero']
    """
    for row in _listing():
        if "ops" in row:
            return {kind: tuple(row[kind]) for kind in ("types", "ops", "distributions")}
    raise CollsimError("collbench --list --json published no datatypes, ops or distributions "
                       "(an older collbench: run make build)")


class PublishedNames(Sequence):
    """The names of one kind of :func:`data_catalog` (those whose ``where``
    holds), read when first used: importing a module that holds one runs no
    collbench, so ``collsim --help`` needs no build.

    Examples
    --------
    >>> list(PublishedNames("distributions"))
    ['uniform', 'lognormal', 'illcond']
    >>> "first_nonzero" in PublishedNames("ops", where=lambda op: not op["commutative"])
    True
    """

    def __init__(self, kind: str, where=None):
        self._kind, self._where = kind, where

    def _names(self) -> tuple[str, ...]:
        return tuple(item["name"] for item in data_catalog()[self._kind]
                     if self._where is None or self._where(item))

    def __getitem__(self, index):
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __contains__(self, name) -> bool:
        return name in self._names()

    def __repr__(self) -> str:
        return f"PublishedNames({self._kind!r})"


class PublishedSizes(Mapping):
    """Datatype name -> size in bytes, from :func:`data_catalog`, read when first used.

    Examples
    --------
    >>> PublishedSizes()["int32"]
    4
    """

    def _sizes(self) -> dict[str, int]:
        return {item["name"]: item["size_bytes"] for item in data_catalog()["types"]}

    def __getitem__(self, name: str) -> int:
        return self._sizes()[name]

    def __iter__(self):
        return iter(self._sizes())

    def __len__(self) -> int:
        return len(self._sizes())

    def __repr__(self) -> str:
        return "PublishedSizes()"


# registry() and parameter_table() read one memo: clearing either's clears it
registry.cache_clear = _listing.cache_clear  # type: ignore[attr-defined]
parameter_table.cache_clear = _listing.cache_clear  # type: ignore[attr-defined]


def find_algorithm(collective: str, algorithm: str) -> dict:
    """Return the registry entry, or a one-line error naming the known ones."""
    entries = registry()
    known = list(collectives())
    if collective not in known:
        raise CollsimError(f"unknown collective {collective!r} (known: {', '.join(known)})")
    names = [entry["algorithm"] for entry in entries if entry["collective"] == collective]
    for entry in entries:
        if entry["collective"] == collective and entry["algorithm"] == algorithm:
            return entry
    raise CollsimError(
        f"unknown algorithm {algorithm!r} for {collective} (known: {', '.join(names)})"
    )


def composite_defaults(collective: str, algorithm: str) -> dict:
    """The inner and outer algorithms a composite entry runs when given none.

    As collbench publishes them (``defaults`` of ``collbench --list --json``;
    ``algorithms/common/hier.c`` holds them), for a model predicting without a
    run: a run's rows carry what collbench resolved (``resolved``).

    Examples
    --------
    >>> composite_defaults("reduce", "prerounded")
    {'inner_algorithm': 'binomial', 'outer_algorithm': 'recursive_doubling'}
    """
    published = find_algorithm(collective, algorithm).get("defaults", {})
    return {name: published[name] for name in ("inner_algorithm", "outer_algorithm") if name in published}


def composite_names(collective: str, algorithm: str, inner: str | None = None,
                    outer: str | None = None) -> tuple[str, str]:
    """The (inner, outer) algorithms a composite entry runs given these, as C resolves them.

    ``collsim_composite_names`` (``algorithms/common/hier.c``) decides, and
    ``collbench --list --json`` publishes the defaults and which level follows
    the other when only one is given (``outer_from_inner``,
    ``inner_from_outer``); the registry is read only when a level is missing.

    Examples
    --------
    >>> composite_names("reduce", "hierarchical", outer="binomial")
    ('binomial', 'binomial')
    >>> composite_names("reduce", "prerounded", inner="linear")
    ('linear', 'recursive_doubling')
    """
    if inner and outer:
        return inner, outer
    published = find_algorithm(collective, algorithm)["defaults"]
    inner = inner or (outer if published["inner_from_outer"] else None) or published["inner_algorithm"]
    outer = outer or (inner if published["outer_from_inner"] else published["outer_algorithm"])
    return inner, outer
