"""``collsim study``: run a scenario's grid, resumably, locally or on Dask.

The main process loads the scenario, works out the key of every measurement,
skips the simulations whose rows are all stored, and hands the others to
workers: a local process pool (default, one worker per core; ``jobs=1`` runs
in this process) or, with ``scheduler="tcp://HOST:PORT"``, an existing Dask
distributed cluster.  Workers only simulate; the main process alone writes,
one transaction per simulation, so a study killed at any moment resumes with
no row lost or duplicated.
"""

from __future__ import annotations

import concurrent.futures
import concurrent.futures.process
import dataclasses
import functools
import hashlib
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Callable, Iterator

import networkx as nx

from collsim import __version__
from collsim.errors import CollsimError
from collsim.lifetime import guarded, pool_options
from collsim.platforms import platform_hash
from collsim.profiles import Profile, load_profile
from collsim.runner import find_collbench, find_smpirun, run
from collsim.scenario import Scenario, Simulation, build_machine, load_scenario, machine_cost
from collsim.store import (claim, insert_rows, measurement_key, open_store, record_study,
                           stored_keys)
from collsim.units import format_bytes

__all__ = ["run_simulation", "simulation_keys", "run_study", "main_study", "Progress"]


@functools.lru_cache(maxsize=1)
def _versions() -> dict:
    """What determines every result beside the inputs: collsim, SimGrid, the collbench program."""
    completed = subprocess.run([find_smpirun(), "-version"], capture_output=True, text=True,
                               check=False)
    simgrid = (completed.stdout + completed.stderr).strip().splitlines()
    program = hashlib.sha256(find_collbench().read_bytes()).hexdigest()
    return {"collsim": __version__, "simgrid": simgrid[0] if simgrid else "",
            "collbench_sha256": program}


def _profile(name: str) -> Profile:
    try:
        return load_profile(name)
    except ValueError as error:
        raise CollsimError(str(error)) from None


def simulation_keys(study: str, simulation: Simulation, platform_id: str,
                    profile: Profile) -> dict[tuple[int, int], str]:
    """The key of each measurement of one simulation: (bytes, rep) -> key."""
    spec = simulation.spec
    # every field of the run (collective, algorithm, params, np, dtype, op, root, seed,
    # mapping, check, and any field RunSpec gains) but the list of sizes: one key per size
    run_fields = {k: v for k, v in dataclasses.asdict(spec).items() if k != "sizes_bytes"}
    common = {
        "study": study,
        "machine": simulation.machine,
        "platform_hash": platform_id,
        "profile": {"name": profile.name, "cfg": profile.all_cfg,
                    "envelope_bytes": profile.envelope_bytes,
                    "exact_models": profile.exact_models},
        "run": run_fields,
        "versions": _versions(),
    }
    return {(n_bytes, rep): measurement_key({**common, "bytes": n_bytes, "rep": rep})
            for n_bytes in spec.sizes_bytes for rep in range(spec.reps)}


def run_simulation(simulation: Simulation) -> list[dict]:
    """Simulate one grid point (in a worker) and return its annotated rows."""
    G = build_machine(simulation.source)
    rows, _ = run(simulation.spec, G, _profile(simulation.profile), platform=simulation.machine,
                  timeout_s=simulation.timeout_s)
    return rows


def describe(simulation: Simulation) -> str:
    """A short name for messages: machine, collective/algorithm, np, sizes."""
    spec = simulation.spec
    return (f"{simulation.machine}: {spec.collective}/{spec.algorithm} np={spec.np} "
            f"{spec.mapping} at {','.join(format_bytes(n) for n in spec.sizes_bytes)}")


class Progress:
    """A progress line on stderr: done/total, rate, ETA.

    On a terminal the line is redrawn in place after every simulation; into a
    log (not a terminal) a line is written at the start, every tenth of the
    work or every ``log_interval_s`` seconds, whichever comes first, and at the
    end, so that a CI log of a long study stays short.
    """

    def __init__(self, total: int, skipped: int, *, stream=None, clock=time.monotonic,
                 log_interval_s: float = 30.0):
        self.total = total
        self.skipped = skipped
        self.done = 0
        self.failed = 0
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.started = clock()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.log_interval_s = log_interval_s
        self.logged_done = -1
        self.logged_at = self.started

    def line(self) -> str:
        """The current progress line."""
        elapsed = self.clock() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = self.total - self.done
        eta = f"{left / rate:.0f} s" if rate > 0 else "?"
        text = (f"study: {self.done}/{self.total} simulations, {rate:.2f}/s, ETA {eta}")
        if self.skipped:
            text += f" ({self.skipped} already stored)"
        if self.failed:
            text += f", {self.failed} failed"
        return text

    def advance(self, *, failed: bool = False) -> None:
        """Count one finished simulation and redraw."""
        self.done += 1
        self.failed += failed
        self.show()

    def show(self) -> None:
        """Print the line (in place on a terminal; into a log only now and then)."""
        if self.tty:
            self.stream.write("\r\x1b[K" + self.line())
        else:
            now = self.clock()
            step = max(1, self.total // 10)
            due = (self.logged_done < 0 or self.done == self.total
                   or self.done - self.logged_done >= step
                   or now - self.logged_at >= self.log_interval_s)
            if not due or self.done == self.logged_done:
                return
            self.stream.write(self.line() + "\n")
            self.logged_done, self.logged_at = self.done, now
        self.stream.flush()

    def close(self) -> None:
        """End the line on a terminal."""
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


Outcome = tuple[Simulation, "list[dict] | None", "str | None"]


def _turns(todo: list[Simulation],
           decide: Callable[[Simulation, bool], str]) -> Iterator[tuple[Simulation, bool]]:
    """The simulations in the order they are handed out: (simulation, run it?).

    ``decide(simulation, final)`` says "run", "stored" (a concurrent study stored
    it meanwhile) or "later" (a concurrent study has claimed it): those come
    again after the others, and are run then unless stored by that time (so a
    claim of a study that died loses nothing).
    """
    later = []
    for simulation in todo:
        decision = decide(simulation, False)
        if decision == "later":
            later.append(simulation)
        else:
            yield simulation, decision == "run"
    for simulation in later:
        yield simulation, decide(simulation, True) == "run"


def _local(todo: list[Simulation], jobs: int,
           decide: Callable[[Simulation, bool], str]) -> Iterator[Outcome]:
    """Run the simulations here (jobs == 1) or in a process pool.

    A simulation is handed out only when its turn comes (:func:`_turns`): a
    study sharing the database with another one running at the same time takes
    the work the other has not claimed, and skips what the other has stored
    (outcome ``(simulation, None, None)``).
    """
    if jobs == 1:
        for simulation, run_it in _turns(todo, decide):
            if not run_it:
                yield simulation, None, None
                continue
            try:
                yield simulation, run_simulation(simulation), None
            except CollsimError as error:
                yield simulation, None, str(error)
        return
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, **pool_options()) as pool:
        turns = _turns(todo, decide)
        exhausted = False
        running: dict[concurrent.futures.Future, Simulation] = {}
        try:
            while not exhausted or running:
                while not exhausted and len(running) < 2 * jobs:
                    turn = next(turns, None)
                    if turn is None:
                        exhausted = True
                        break
                    simulation, run_it = turn
                    if not run_it:
                        yield simulation, None, None
                        continue
                    try:
                        running[pool.submit(guarded, run_simulation, simulation)] = simulation
                    except concurrent.futures.process.BrokenProcessPool:
                        yield simulation, None, "its worker process died"
                if not running:
                    continue
                done, _ = concurrent.futures.wait(
                    running, return_when=concurrent.futures.FIRST_COMPLETED)
                for future in done:
                    simulation = running.pop(future)
                    try:
                        yield simulation, future.result(), None
                    except CollsimError as error:
                        yield simulation, None, str(error)
                    except concurrent.futures.process.BrokenProcessPool:
                        yield simulation, None, "its worker process died"
        finally:
            for future in running:
                future.cancel()


def _connect(address: str):
    """A client of the Dask scheduler at address (before anything is written)."""
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - distributed is a dependency
        raise CollsimError("--scheduler needs the 'distributed' package") from None
    try:
        return Client(address, timeout="20s")
    except (OSError, TimeoutError) as error:
        raise CollsimError(f"cannot reach the Dask scheduler at {address}: {error}") from None


def _dask(todo: list[Simulation], client) -> Iterator[Outcome]:
    from distributed import as_completed

    try:
        futures = client.map(run_simulation, todo, pure=False, retries=0)
        owner = dict(zip((f.key for f in futures), todo))
        for future in as_completed(futures):
            simulation = owner[future.key]
            try:
                yield simulation, future.result(), None
            except CollsimError as error:
                yield simulation, None, str(error)
            except Exception as error:  # noqa: BLE001 - a lost worker (KilledWorker), a lost
                # connection: a failure of this simulation, retried by a rerun
                yield simulation, None, f"on the Dask cluster: {type(error).__name__}: {error}"
            future.release()
    finally:
        client.close()


def _graph_document(G: nx.Graph) -> dict:
    """The graph as node-link data, without private caches (``G.graph["_..."]``,
    e.g. the route order platforms/routing.py keeps)."""
    public = G.copy()
    for key in [k for k in public.graph if k.startswith("_")]:
        del public.graph[key]
    return nx.node_link_data(public, edges="edges")


def run_study(scenario: Scenario, db_path: str, *, jobs: int = 0, scheduler: str | None = None,
              progress_stream=None) -> tuple[int, int, int, list[str]]:
    """Run every simulation of a scenario whose rows are not yet stored.

    Parameters
    ----------
    scenario : Scenario
        A loaded scenario.
    db_path : str
        The results database (created if missing).
    jobs : int
        Local worker processes (0: one per core; 1: in this process).
        Ignored with ``scheduler``.
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://HOST:PORT``).

    Returns
    -------
    ran, skipped, rows, failures
        Simulations run now, simulations found stored, rows written now, and
        one message per failed simulation or wrong result.
    """
    client = _connect(scheduler) if scheduler else None  # unreachable: no database left
    try:
        connection = open_store(db_path)
    except CollsimError:
        if client is not None:
            client.close()
        raise
    graphs: dict[str, nx.Graph] = {m.name: build_machine(m.source) for m in scenario.machines}
    hashes = {name: platform_hash(G) for name, G in graphs.items()}
    record_study(
        connection, name=scenario.name, scenario=scenario.text, profile=scenario.profile,
        nps=list(scenario.nps),
        machines=[{"name": m.name, "source": m.source, "platform_hash": hashes[m.name],
                   "price": m.price, "cost": machine_cost(graphs[m.name], m.price),
                   "graph": _graph_document(graphs[m.name])}
                  for m in scenario.machines],
        workloads=[dataclasses.asdict(w) for w in scenario.workloads])
    profile = _profile(scenario.profile)
    keys = {s: simulation_keys(scenario.name, s, hashes[s.machine], profile)
            for s in scenario.simulations}
    present = stored_keys(connection, [k for ks in keys.values() for k in ks.values()])
    todo = [s for s in scenario.simulations if not set(keys[s].values()) <= present]
    skipped = len(scenario.simulations) - len(todo)
    progress = Progress(len(todo), skipped, stream=progress_stream)
    progress.show()
    def decide(simulation: Simulation, final: bool) -> str:
        wanted = sorted(keys[simulation].values())
        if set(wanted) <= stored_keys(connection, wanted):
            return "stored"
        if final or claim(connection, measurement_key({"simulation": wanted})):
            return "run"
        return "later"

    outcomes = (_dask(todo, client) if client is not None
                else _local(todo, jobs or _cores(), decide))
    failures: list[str] = []
    written = 0
    taken = 0  # simulations a concurrent study stored meanwhile
    try:
        for simulation, rows, error in outcomes:
            if error is None and rows is None:
                taken += 1
            elif error is None:
                by_point = keys[simulation]
                stored = []
                for row in rows:
                    key = by_point.get((row["bytes"], row["rep"]))
                    if key is None:
                        raise CollsimError(f"{describe(simulation)} returned an unexpected "
                                           f"measurement ({row['bytes']} bytes)")
                    stored.append({**row, "key": key, "study": scenario.name,
                                   "machine": simulation.machine})
                if {r["key"] for r in stored} != set(by_point.values()):
                    raise CollsimError(f"{describe(simulation)} returned "
                                       f"{len(stored)} of its {len(by_point)} measurements")
                # a simulation whose sizes grew since the last run has some rows already
                new = [r for r in stored if r["key"] not in present]
                written += insert_rows(connection, new, skip_stored=True)
                failures += [f"{describe(simulation)}: wrong result at "
                             f"{format_bytes(r['bytes'])} (stored, check = wrong)"
                             for r in new if r.get("check") == "wrong"]
            else:
                failures.append(f"{describe(simulation)}: {error}")
            progress.advance(failed=error is not None)
    finally:
        progress.close()
        connection.close()
    return len(todo) - taken, skipped + taken, written, failures


def _cores() -> int:
    import os

    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def main_study(scenario_path: str, *, db: str | None, jobs: int, scheduler: str | None,
               timing_only: bool = False) -> int:
    """The ``collsim study`` command; returns its exit status."""
    if jobs < 0:
        raise CollsimError(f"--jobs must be >= 0, got {jobs}")
    if scheduler is not None and not scheduler.startswith(("tcp://", "tls://", "inproc://")):
        raise CollsimError(f"--scheduler must be an address such as tcp://HOST:PORT, "
                           f"got {scheduler!r}")
    scenario = load_scenario(scenario_path, timing_only=timing_only)
    db_path = db or str(scenario.path.with_suffix(".db"))
    started = time.monotonic()
    ran, skipped, written, failures = run_study(scenario, db_path, jobs=jobs,
                                                scheduler=scheduler)
    for failure in failures:
        print(f"collsim: failed: {failure}", file=sys.stderr)
    print(f"study {scenario.name}: {ran} simulations run, {skipped} already stored, "
          f"{written} rows written to {db_path} in {time.monotonic() - started:.1f} s")
    if failures:
        print(f"{len(failures)} failures (failed simulations are retried by a rerun)")
        return 1
    return 0

