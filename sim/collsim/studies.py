"""``collsim study``: run a scenario's grid, resumably, locally or on Dask.

The main process loads the scenario, records it in the results database and
hands its simulations to the grid runner (:mod:`collsim.grid`): those whose
rows are all stored are skipped, the others run on local workers or an
existing Dask distributed cluster, and their rows are stored one transaction
per simulation, so a study killed at any moment resumes with no row lost or
duplicated.

Process counts above the scenario's ``predict_above_np`` are predicted by
the network model (``collsim.predictions.predict_rows``) in the main
process, after the simulations, and stored the same way: one row per size,
``model_class`` ``predicted``, ``time_s`` the model's time, ``library``
``network model``.
"""

from __future__ import annotations

import dataclasses
import sys
import time

import networkx as nx

from collsim.errors import CollsimError
from collsim.grid import Grid, GridStore, Job, describe, measurement_keys
from collsim.platforms import platform_hash
from collsim.profiles import load_profile
from collsim.scenario import (PREDICTED_CLASS, PREDICTED_LIBRARY, Scenario, Simulation,
                              build_machine, load_scenario, machine_cost)
from collsim.store import close_store, insert_rows, measurement_key, open_store, record_study
from collsim.store import stored_keys
from collsim.units import format_bytes

__all__ = ["run_study", "main_study"]


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
    progress_stream : file, optional
        Where progress goes (default stderr).

    Returns
    -------
    ran, skipped, rows, failures
        Simulations run now, simulations found stored, rows written now, and
        one message per failed simulation or wrong result.
    """
    # an unreachable scheduler fails before the database is created
    with Grid("study", jobs=jobs, scheduler=scheduler, stream=progress_stream) as grid:
        connection = open_store(db_path)
        try:
            return _run(scenario, connection, grid)
        finally:
            close_store(connection)


def _run(scenario: Scenario, connection, grid: Grid) -> tuple[int, int, int, list[str]]:
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
    try:
        profile = load_profile(scenario.profile)
    except ValueError as error:
        raise CollsimError(str(error)) from None
    jobs = [Job(spec=s.spec, platform=s.source, profile=s.profile, label=s.machine,
                timeout_s=s.timeout_s) for s in scenario.simulations]
    keys = {job: measurement_keys(job, study=scenario.name, platform_hash=hashes[job.label],
                                  profile=profile) for job in jobs}
    results = grid.run(jobs, store=GridStore(connection, scenario.name, keys))
    failures = []
    for result in results:
        if result.error is not None:
            failures.append(f"{describe(result.job)}: {result.error}")
        failures += [f"{describe(result.job)}: wrong result at {format_bytes(r['bytes'])} "
                     "(stored, check = wrong)" for r in result.written if r.get("check") == "wrong"]
    ran = sum(not r.stored for r in results)
    written = sum(len(r.written) for r in results)
    written += _predict(scenario, connection, graphs, hashes, profile)
    return ran, len(results) - ran, written, failures


def _predict(scenario: Scenario, connection, graphs: dict[str, nx.Graph],
             hashes: dict[str, str], profile) -> int:
    """Predict and store the cells above ``predict_above_np`` not stored yet; the rows
    written.  One transaction per cell's sizes, as a simulation's rows."""
    import importlib.metadata

    from collsim.network_model import NoNetworkPattern
    from collsim.platform_cli import PlatformRequest
    from collsim.predictions import predict_rows

    version = importlib.metadata.version("collsim")
    written = 0
    for cell in scenario.predictions:
        keys = _predicted_keys(cell, scenario.name, hashes[cell.machine], profile, version)
        if set(keys.values()) <= stored_keys(connection, list(keys.values())):
            continue
        spec = cell.spec
        try:
            rows = predict_rows(PlatformRequest(label=cell.machine), profile,
                                algorithms=[(spec.collective, spec.algorithm)],
                                np_ranks=spec.np, sizes=spec.sizes_bytes, mapping=spec.mapping,
                                dtype=spec.dtype, op=spec.op, root=spec.root,
                                graph=graphs[cell.machine], params=spec.params)
        except NoNetworkPattern as error:  # a part a composite entry runs has none
            print(f"collsim: not predicted: {cell.machine}: {spec.collective}/"
                  f"{spec.algorithm} np={spec.np}: {error}", file=sys.stderr)
            continue
        stored = [_predicted_row(row, cell, keys[row["bytes"]], scenario.name,
                                 hashes[cell.machine], version) for row in rows]
        written += len(insert_rows(connection, stored, skip_stored=True))
    return written


def _predicted_keys(cell: Simulation, study: str, platform_id: str, profile,
                    version: str) -> dict[int, str]:
    """The key of each predicted size: what determines the prediction (the collsim
    version, not SimGrid's), never a simulated row's key."""
    run_fields = {k: v for k, v in dataclasses.asdict(cell.spec).items() if k != "sizes_bytes"}
    common = {"predicted": True, "study": study, "machine": cell.machine,
              "platform_hash": platform_id,
              "profile": {"name": profile.name, "cfg": profile.all_cfg,
                          "envelope_bytes": profile.envelope_bytes},
              "run": run_fields, "collsim": version}
    return {n: measurement_key({**common, "bytes": n}) for n in cell.spec.sizes_bytes}


def _predicted_row(row: dict, cell: Simulation, key: str, study: str, platform_id: str,
                   version: str) -> dict:
    """A prediction as a stored row: the model's time as the cell's time, its class
    ``predicted``; no simulated time, so no ratio and no agreement."""
    spec = cell.spec
    params = {k: v for k, v in dataclasses.asdict(spec.params).items() if k != "selected"}
    return {
        "key": key, "study": study, "machine": cell.machine, "collective": spec.collective,
        "algorithm": spec.algorithm, "params": params, "platform": cell.machine,
        "platform_hash": platform_id, "mapping": spec.mapping, "profile": row["profile"],
        "np": spec.np, "bytes": row["bytes"], "dtype": spec.dtype, "op": spec.op,
        "root": row["root"], "seed": spec.seed, "rep": 0, "time_s": row["model_s"],
        "model_s": row["model_s"], "model_low_s": None, "model_high_s": None,
        "model_class": PREDICTED_CLASS, "model_agrees": None, "ratio": None,
        "flat_model_s": row["flat_model_s"], "collsim_version": version,
        "library": PREDICTED_LIBRARY, "messages": row["messages"]}


def main_study(scenario_path: str, *, db: str | None, jobs: int, scheduler: str | None,
               timing_only: bool = False) -> int:
    """The ``collsim study`` command; returns its exit status."""
    scenario = load_scenario(scenario_path, timing_only=timing_only)
    db_path = db or str(scenario.path.with_suffix(".db"))
    started = time.monotonic()
    ran, skipped, written, failures = run_study(scenario, db_path, jobs=jobs,
                                                scheduler=scheduler)
    for failure in failures:
        print(f"collsim: failed: {failure}", file=sys.stderr)
    for entry in scenario.not_predicted:
        print(f"collsim: not predicted (no network pattern yet): {entry}", file=sys.stderr)
    predicted = (f" (np > {scenario.predict_above_np}: {len(scenario.predictions)} cells "
                 "predicted by the network model)" if scenario.predictions else "")
    print(f"study {scenario.name}: {ran} simulations run, {skipped} already stored, "
          f"{written} rows written to {db_path} in {time.monotonic() - started:.1f} s"
          + predicted)
    if failures:
        print(f"{len(failures)} failures (failed simulations are retried by a rerun)")
        return 1
    return 0
