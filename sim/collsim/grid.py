"""The one grid runner: independent simulations on local workers or a Dask cluster.

``collsim study``, ``check``, ``repro`` and ``select`` each expand their input
into a list of :class:`Job` (one smpirun each) and hand it to a :class:`Grid`:

- where: a local process pool (``--jobs N``, 0: one worker per core, 1: in
  this process) or an existing Dask distributed cluster (``--scheduler
  tcp://HOST:PORT``); workers only simulate, the main process alone writes;
- progress on stderr (:class:`Progress`): a bar on a terminal, into a log a
  line every tenth of the work or every 30 s;
- a wall-clock limit per simulation (``Job.timeout_s``, enforced where every
  simulation runs: :func:`collsim.runner.run`);
- with a :class:`GridStore`, results in the results database
  (:mod:`collsim.store`), one transaction per simulation: a rerun skips what
  is stored, and a grid killed at any moment resumes with no row lost or
  duplicated.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import functools
import math
import os
import sqlite3
import subprocess
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

import networkx as nx
from tqdm import tqdm

from collsim.errors import CollsimError
from collsim.lifetime import guarded, pool_options
from collsim.limits import argument_type, check
from collsim.platforms import platform_from_spec
from collsim.profiles import Profile, load_profile
from collsim.harness import collbench_sha256, find_smpirun
from collsim.runner import RunSpec, run
from collsim.store import claim, insert_rows, measurement_key, read_measurements, stored_keys
from collsim.units import format_bytes

__all__ = ["Job", "Result", "Grid", "GridStore", "Progress", "simulate", "describe",
           "measurement_keys", "add_grid_arguments"]

_SCHEDULER_SCHEMES = ("tcp://", "tls://", "inproc://")


def _scheduler(text: str) -> str:
    """A Dask scheduler's address: SCHEME://HOST[:PORT] that parses (``tcp://[::1`` does not)."""
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError on a port out of range or not a number
        valid = text.startswith(_SCHEDULER_SCHEMES) and bool(parts.hostname or parts.scheme == "inproc")
    except ValueError:
        valid = False
    if not valid:
        raise argparse.ArgumentTypeError(f"must be an address such as tcp://HOST:PORT, "
                                         f"got {text!r}")
    return text


def add_grid_arguments(parser: argparse.ArgumentParser, *, timeout: bool = False) -> None:
    """Add ``--jobs`` and ``--scheduler`` (and with ``timeout``, ``--timeout-s``) to a
    command that runs a grid; a bad value is a one-line error at parse time."""
    parser.add_argument("--jobs", type=argument_type("jobs"), default=0,
                        help="local worker processes (default 0: one per core; 1: in this "
                        "process)")
    parser.add_argument("--scheduler", type=_scheduler, default=None,
                        help="run on the Dask distributed cluster at this address "
                        "(tcp://HOST:PORT) instead of locally")
    if timeout:
        parser.add_argument("--timeout-s", type=argument_type("timeout_s"), default=600.0,
                            help="stop a simulation after this many wall-clock seconds")


@dataclass(frozen=True, eq=False)  # identity: a grid maps each job to its result and keys
class Job:
    """One independent simulation of a grid: one smpirun.

    Attributes
    ----------
    spec : RunSpec
        What to run.
    platform : dict or networkx.Graph
        The machine: a platform table (``collsim.platforms.platform_from_spec``,
        built in the worker) or a graph.
    profile : str or Profile
        The SMPI profile, by name (loaded in the worker) or loaded.
    label : str
        The machine's name in rows (``platform``) and messages.
    timeout_s : float
        Wall-clock limit of the simulation.
    """

    spec: RunSpec
    platform: dict | nx.Graph
    profile: str | Profile
    label: str
    timeout_s: float = 600.0


def simulate(job: Job) -> tuple[list[dict], float]:
    """Run one job (in a worker): its annotated rows and its wall time in seconds.

    Raises
    ------
    CollsimError
        On a failed simulation: a crash, a deadlock, a timeout.
    """
    started = time.perf_counter()
    try:
        G = (job.platform if isinstance(job.platform, nx.Graph)
             else platform_from_spec(dict(job.platform)))
        profile = job.profile if isinstance(job.profile, Profile) else load_profile(job.profile)
    except ValueError as error:
        raise CollsimError(str(error)) from None
    rows, _ = run(job.spec, G, profile, platform=job.label, timeout_s=job.timeout_s)
    return rows, time.perf_counter() - started


def describe(job: Job) -> str:
    """A short name for messages: machine, collective/algorithm, np, mapping, sizes."""
    spec = job.spec
    return (f"{job.label}: {spec.collective}/{spec.algorithm} np={spec.np} "
            f"{spec.mapping} at {','.join(format_bytes(n) for n in spec.sizes_bytes)}")


@functools.lru_cache(maxsize=1)
def _versions() -> dict:
    """What determines every result beside the inputs: collsim, SimGrid, the collbench program.

    collsim's version is the installed distribution's (not ``collsim.__version__``: the
    package imports its API, which imports this module)."""
    import importlib.metadata  # here, not at the top: 20 ms of every command's start-up

    completed = subprocess.run([find_smpirun(), "-version"], capture_output=True, text=True,
                               check=False)
    simgrid = (completed.stdout + completed.stderr).strip().splitlines()
    program = collbench_sha256()
    return {"collsim": importlib.metadata.version("collsim"), "simgrid": simgrid[0] if simgrid else "",
            "collbench_sha256": program}


def measurement_keys(job: Job, *, study: str, platform_hash: str,
                     profile: Profile) -> dict[tuple[int, int], str]:
    """The key of each measurement of one job: (bytes, rep) -> key.

    A key is a hash of everything that determines the measurement: the study
    and machine it is filed under, the platform hash, the profile's settings,
    every field of the run but the list of sizes (collective, algorithm,
    params, np, dtype, op, root, seed, mapping, ...), the size and the
    repetition, and the collsim and SimGrid versions and the collbench
    program.
    """
    spec = job.spec
    run_fields = {k: v for k, v in dataclasses.asdict(spec).items() if k != "sizes_bytes"}
    common = {
        "study": study,
        "machine": job.label,
        "platform_hash": platform_hash,
        "profile": {"name": profile.name, "cfg": profile.all_cfg,
                    "envelope_bytes": profile.envelope_bytes,
                    "exact_models": profile.exact_models},
        "run": run_fields,
        "versions": _versions(),
    }
    return {(n_bytes, rep): measurement_key({**common, "bytes": n_bytes, "rep": rep})
            for n_bytes in spec.sizes_bytes for rep in range(spec.reps)}


class GridStore:
    """The results database as a grid uses it: what is stored, claims, writes.

    Parameters
    ----------
    connection : sqlite3.Connection
        An open results database (:func:`collsim.store.open_store`).
    study : str
        The name rows are filed under (``study`` column).
    keys : dict
        Job -> its measurement keys (:func:`measurement_keys`).
    read_back : bool
        Give the rows of the jobs found stored (read from the database), not
        only of those simulated now.
    """

    def __init__(self, connection: sqlite3.Connection, study: str,
                 keys: dict[Job, dict[tuple[int, int], str]], *, read_back: bool = False):
        self.connection = connection
        self.study = study
        self.keys = keys
        self.read_back = read_back
        self.present = stored_keys(connection, [k for ks in keys.values() for k in ks.values()])

    def complete(self, job: Job) -> bool:
        """Whether every row of the job was stored when the grid started."""
        return set(self.keys[job].values()) <= self.present

    def decide(self, job: Job, final: bool) -> str:
        """"run" the job now, or it is "stored" meanwhile, or run it "later" (another
        process sharing the database has claimed it)."""
        wanted = sorted(self.keys[job].values())
        if set(wanted) <= stored_keys(self.connection, wanted):
            return "stored"
        if final or claim(self.connection, measurement_key({"simulation": wanted})):
            return "run"
        return "later"

    def read(self, job: Job) -> list[dict] | None:
        """The stored rows of a job, in the order of its keys (None without read_back)."""
        if not self.read_back:
            return None
        found = read_measurements(self.connection, list(self.keys[job].values()))
        return [found[key] for key in self.keys[job].values()]

    def write(self, job: Job, rows: list[dict]) -> list[dict]:
        """Store the rows of a job simulated now, in one transaction; return those written
        (a job whose sizes grew since the last run has some rows already; another run
        sharing the database may have stored them meanwhile).

        Raises
        ------
        CollsimError
            If the rows are not exactly the job's measurements.
        """
        by_point = self.keys[job]
        filed = []
        for row in rows:
            key = by_point.get((row["bytes"], row["rep"]))
            if key is None:
                raise CollsimError(f"{describe(job)} returned an unexpected measurement "
                                   f"({row['bytes']} bytes)")
            filed.append({**row, "key": key, "study": self.study, "machine": job.label})
        if {r["key"] for r in filed} != set(by_point.values()):
            raise CollsimError(f"{describe(job)} returned {len(filed)} of its "
                               f"{len(by_point)} measurements")
        return insert_rows(self.connection, [r for r in filed if r["key"] not in self.present],
                           skip_stored=True)


class Progress:
    """Done/total, rate and ETA of a grid on stderr, drawn by tqdm.

    On a terminal a bar redrawn in place; into a log (not a terminal) a line
    at the start, after every tenth of the work or ``log_interval_s`` seconds,
    whichever comes first, and at the end, so that a CI log stays short.
    """

    _LINE = "{desc}: {n}/{total} simulations, {rate_noinv_fmt}, ETA {remaining}{postfix}"
    _BAR = "{desc}: {n}/{total} simulations |{bar}| {rate_noinv_fmt}, ETA {remaining}{postfix}"

    def __init__(self, what: str, total: int, *, skipped: int = 0, stream=None,
                 log_interval_s: float = 30.0):
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.log_interval_s = log_interval_s
        self.skipped = skipped
        self.failed = 0
        # into a log tqdm never draws itself (delay=inf): self.log() writes whole lines
        self.bar = tqdm(total=total, desc=what, file=self.stream, unit="", unit_scale=True,
                        smoothing=0, bar_format=self._BAR if self.tty else self._LINE,
                        delay=0 if self.tty else math.inf, dynamic_ncols=True)
        self._set_postfix()
        self.logged: tuple[int, float] | None = None  # (done, elapsed_s) of the last line
        self.log()

    def _set_postfix(self) -> None:
        parts = []
        if self.skipped:
            parts.append(f"{self.skipped} already stored")
        if self.failed:
            parts.append(f"{self.failed} failed")
        self.bar.set_postfix_str(", ".join(parts), refresh=False)

    def advance(self, *, failed: bool = False) -> None:
        """Count one finished simulation."""
        if failed:
            self.failed += 1
            self._set_postfix()
        self.bar.update()
        self.log()

    def log(self) -> None:
        """Into a log, write the line if one is due."""
        if self.tty:
            return
        done, elapsed_s = self.bar.n, self.bar.format_dict["elapsed"]
        if self.logged is not None:
            logged_done, logged_s = self.logged
            due = (done == self.bar.total or done - logged_done >= max(1, self.bar.total // 10)
                   or elapsed_s - logged_s >= self.log_interval_s)
            if done == logged_done or not due:
                return
        self.stream.write(f"{self.bar}\n")
        self.stream.flush()
        self.logged = (done, elapsed_s)

    def close(self) -> None:
        """End the bar on a terminal."""
        self.bar.close()


@dataclass(eq=False)
class Result:
    """What became of one job.

    ``rows``: its rows (simulated now, or read from the store with
    ``read_back``), None if it failed; ``error``: why it failed;
    ``stored``: found in the store, not simulated now; ``written``: the rows
    this run stored; ``duration_s``: the simulation's wall time.
    """

    job: Job
    rows: list[dict] | None = None
    error: str | None = None
    stored: bool = False
    written: list[dict] = field(default_factory=list)
    duration_s: float = 0.0


Outcome = tuple[Job, "tuple[list[dict], float] | None", "str | None"]


def _turns(todo: list[Job], decide: Callable[[Job, bool], str]) -> Iterator[tuple[Job, bool]]:
    """The jobs in the order they are handed out: (job, run it?).

    ``decide(job, final)`` says "run", "stored" (a concurrent run stored it
    meanwhile) or "later" (a concurrent run has claimed it): those come again
    after the others, and are run then unless stored by that time (so a claim
    of a run that died loses nothing).
    """
    later = []
    for job in todo:
        decision = decide(job, False)
        if decision == "later":
            later.append(job)
        else:
            yield job, decision == "run"
    for job in later:
        yield job, decide(job, True) == "run"


def _in_process(todo: list[Job], decide: Callable[[Job, bool], str]) -> Iterator[Outcome]:
    for job, run_it in _turns(todo, decide):
        if not run_it:
            yield job, None, None
            continue
        try:
            yield job, simulate(job), None
        except CollsimError as error:
            yield job, None, str(error)


def _pool(todo: list[Job], workers: int, decide: Callable[[Job, bool], str]) -> Iterator[Outcome]:
    """Run the jobs in a process pool, each handed out only when its turn comes
    (:func:`_turns`): a run sharing the database with another one takes the work
    the other has not claimed, and skips what the other has stored (outcome
    ``(job, None, None)``)."""
    workers = max(1, min(workers, len(todo)))  # no idle worker processes
    with concurrent.futures.ProcessPoolExecutor(max_workers=workers, **pool_options()) as pool:
        turns = _turns(todo, decide)
        exhausted = False
        running: dict[concurrent.futures.Future, Job] = {}
        try:
            while not exhausted or running:
                while not exhausted and len(running) < 2 * workers:
                    turn = next(turns, None)
                    if turn is None:
                        exhausted = True
                        break
                    job, run_it = turn
                    if not run_it:
                        yield job, None, None
                        continue
                    try:
                        running[pool.submit(guarded, simulate, job)] = job
                    except concurrent.futures.BrokenExecutor:  # the pool's, a worker died
                        yield job, None, "its worker process died"
                if not running:
                    continue
                done, _ = concurrent.futures.wait(
                    running, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    job = running.pop(future)
                    try:
                        yield job, future.result(), None
                    except CollsimError as error:
                        yield job, None, str(error)
                    except concurrent.futures.BrokenExecutor:  # the pool's, a worker died
                        yield job, None, "its worker process died"
        finally:
            for future in running:
                future.cancel()


def _dask(todo: list[Job], client) -> Iterator[Outcome]:
    from distributed import as_completed

    futures = client.map(simulate, todo, pure=False, retries=0)
    owner = dict(zip((f.key for f in futures), todo))
    try:
        for future in as_completed(futures):
            job = owner[future.key]
            try:
                yield job, future.result(), None
            except CollsimError as error:
                yield job, None, str(error)
            except Exception as error:  # noqa: BLE001 - a lost worker (KilledWorker), a lost
                # connection: a failure of this simulation, retried by a rerun
                yield job, None, f"on the Dask cluster: {type(error).__name__}: {error}"
            future.release()
    finally:
        client.cancel(futures)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class Grid:
    """Where a grid runs: local workers or a Dask cluster, and its progress.

    Parameters
    ----------
    what : str
        The command, first word of the progress line.
    jobs : int
        Local worker processes (0: one per core; 1: in this process).
        Ignored with ``scheduler``.
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://HOST:PORT``),
        connected to at once, so that an unreachable one fails before
        anything is written.
    stream : file, optional
        Where progress goes (default stderr).

    Examples
    --------
    >>> with Grid("select", jobs=1) as grid:
    ...     grid.run([])
    []
    """

    def __init__(self, what: str, *, jobs: int = 0, scheduler: str | None = None, stream=None):
        self.what = what
        self.workers = check("jobs", jobs) or _cores()
        self.stream = stream
        self.client = _connect(scheduler) if scheduler else None

    def __enter__(self) -> "Grid":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Disconnect from the Dask scheduler."""
        if self.client is not None:
            self.client.close()
            self.client = None

    def _outcomes(self, todo: list[Job], decide: Callable[[Job, bool], str]) -> Iterator[Outcome]:
        if self.client is not None:
            return _dask(todo, self.client)
        if self.workers == 1:
            return _in_process(todo, decide)
        return _pool(todo, self.workers, decide)

    def run(self, jobs: Sequence[Job], *, store: GridStore | None = None,
            fail_fast: bool = False) -> list[Result]:
        """Run every job not stored yet; return one result per job, in order.

        Parameters
        ----------
        jobs : sequence of Job
            The grid.
        store : GridStore, optional
            Skip the jobs whose rows are stored; store the rows of the others
            as each finishes.
        fail_fast : bool
            On the first failed simulation stop (the running ones finish)
            and raise its one-line error.

        Raises
        ------
        CollsimError
            With ``fail_fast``, the first failure; with a store, rows that are
            not a job's measurements.
        """
        results = {job: Result(job) for job in jobs}
        todo = []
        for job in jobs:
            if store is not None and store.complete(job):
                results[job].stored = True
                results[job].rows = store.read(job)
            else:
                todo.append(job)
        decide = store.decide if store is not None else (lambda job, final: "run")
        progress = Progress(self.what, len(todo), skipped=len(jobs) - len(todo),
                            stream=self.stream)
        outcomes = self._outcomes(todo, decide)
        try:
            for job, simulated, error in outcomes:
                result = results[job]
                if error is not None:
                    if fail_fast:
                        raise CollsimError(error)
                    result.error = error
                elif simulated is None:  # stored meanwhile by a run sharing the database
                    result.stored = True
                    result.rows = store.read(job)
                else:
                    result.rows, result.duration_s = simulated
                    if store is not None:
                        result.written = store.write(job, result.rows)
                progress.advance(failed=error is not None)
        finally:
            outcomes.close()
            progress.close()
        return [results[job] for job in jobs]


def _connect(address: str):
    """A client of the Dask scheduler at address."""
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - distributed is a dependency
        raise CollsimError("--scheduler needs the 'distributed' package") from None
    try:
        return Client(address, timeout="20s")
    except (OSError, TimeoutError, ValueError) as error:
        raise CollsimError(f"cannot reach the Dask scheduler at {address}: {error}") from None
