"""Scenario files: a study as data (TOML), validated before anything runs.

A scenario names candidate machines, a workload and a grid; it expands to
independent simulations, each one ``collsim run`` (one algorithm, one machine,
one process count, one mapping, all the workload's sizes of one collective)::

    [study]
    name = "quickstart"
    profile = "hockney"          # built-in profile name or a profile .toml
    seed = 1
    np = [8, 16]                 # process counts
    mappings = ["block"]
    predict_above_np = 1024      # optional: larger process counts are predicted by the
                                 # network model (collsim predict), not simulated

    [[machine]]
    name = "xbar-fast"
    platform = { generator = "crossbar", nodes = 16, bandwidth_Bps = 25e9 }
    # or: catalog = "NAME" (a machine of collsim.platforms.CATALOG)
    price = { per_node = 8000.0, per_switch = 20000.0, per_link = 400.0 }   # optional

    [[workload]]
    collective = "allreduce"
    weight = 0.37                # share of the MPI time (weights are normalized)
    sizes = ["8", "64KiB", "1MiB"]
    size_weights = [0.5, 0.3, 0.2]   # optional; default: equal
    algorithms = "best"          # every registered algorithm, ranked by the fastest;
                                 # or "all", or a list of names

A scenario is data: it is read with ``collsim.files.read_toml`` and every key is checked; it
can name generators, catalog machines, algorithms and profiles but never
code.  Every problem is one line naming the file, the key and the reason.
"""

from __future__ import annotations

import math
import numbers
import os
from dataclasses import dataclass, field
from pathlib import Path

import networkx as nx

from collsim import platforms
from collsim.params import AlgorithmParams, parameter_names
from collsim.native import is_selector
from collsim.checks import _fail, _positive_ints
from collsim.errors import CollsimError
from collsim.files import read_toml
from collsim.limits import check
from collsim.network_model import has_pattern
from collsim.platforms import GENERATORS, MAPPINGS
from collsim.profiles import load_profile
from collsim.harness import find_algorithm, registry
from collsim.runner import DTYPE_BYTES, OPS, RunSpec, validate_spec
from collsim.units import parse_bytes

__all__ = ["Machine", "Workload", "Simulation", "Scenario", "load_scenario", "build_machine",
           "machine_cost"]

#: ``model_class`` of a row the network model predicted instead of a simulation
#: (a study's process counts above ``predict_above_np``); its ``time_s`` is the
#: model's time, its ``library`` :data:`PREDICTED_LIBRARY`.
PREDICTED_CLASS = "predicted"
PREDICTED_LIBRARY = "network model"

_TOP_KEYS = {"study", "machine", "workload"}
_STUDY_KEYS = {"name", "profile", "seed", "np", "mappings", "timeout_s", "timing_only",
               "predict_above_np"}
_MACHINE_KEYS = {"name", "platform", "catalog", "price"}
_PRICE_KEYS = {"per_node", "per_switch", "per_link", "fixed"}
_WORKLOAD_KEYS = {"collective", "weight", "sizes", "size_weights", "algorithms", "root",
                  "dtype", "op", "params"}
_ALGORITHM_CHOICES = ("best", "all")


@dataclass(frozen=True)
class Machine:
    """A candidate machine: its name, how to build it, and its price."""

    name: str
    source: dict  # {"generator": NAME, **params} or {"catalog": NAME}
    price: dict = field(default_factory=dict)  # per_node, per_switch, per_link, fixed


@dataclass(frozen=True)
class Workload:
    """One collective of the workload: its weight, sizes and size distribution."""

    collective: str
    weight: float
    sizes_bytes: tuple[int, ...]
    size_weights: tuple[float, ...]
    algorithms: tuple[str, ...]
    choice: str  # "best", "all" or "list"


@dataclass(frozen=True, eq=False)  # identity: the study maps each one to its keys
class Simulation:
    """One independent simulation of a study: one smpirun; or, with ``predicted``, the
    same cells predicted by the network model (process counts above the scenario's
    ``predict_above_np``)."""

    machine: str
    source: dict
    profile: str
    spec: RunSpec
    timeout_s: float
    predicted: bool = False


@dataclass(frozen=True)
class Scenario:
    """A loaded, validated scenario and its grid of simulations."""

    path: Path
    name: str
    profile: str
    seed: int
    nps: tuple[int, ...]
    mappings: tuple[str, ...]
    machines: tuple[Machine, ...]
    workloads: tuple[Workload, ...]
    simulations: tuple[Simulation, ...]
    text: str
    # process counts above this are predicted (``predictions``), not simulated
    predict_above_np: int | None = None
    predictions: tuple[Simulation, ...] = ()
    # (machine, collective/algorithm) not predicted: the entry has no network pattern
    not_predicted: tuple[str, ...] = ()


def build_machine(source: dict) -> nx.Graph:
    """Build a machine's graph from its scenario entry.

    Parameters
    ----------
    source : dict
        A platform table: ``{"generator": NAME, **params}`` (optionally with
        ``multicore = {...}``) or ``{"catalog": NAME}``; see
        :func:`collsim.platforms.platform_from_spec`.

    Raises
    ------
    ValueError
        If the generator or catalog machine is unknown, or a parameter is
        rejected by the generator.
    """
    return platforms.platform_from_spec(dict(source))


def machine_cost(G: nx.Graph, price: dict) -> float | None:
    """The price of a machine: per node, per switch/router, per link, plus fixed.

    Returns None when no price is given.

    Examples
    --------
    >>> from collsim.platforms import crossbar
    >>> machine_cost(crossbar(nodes=4), {"per_node": 10.0, "per_switch": 5.0, "per_link": 1.0})
    49.0
    """
    if not price:
        return None
    hosts = sum(1 for _, kind in G.nodes(data="kind") if kind == "host")
    switches = G.number_of_nodes() - hosts
    return (hosts * price.get("per_node", 0.0) + switches * price.get("per_switch", 0.0)
            + G.number_of_edges() * price.get("per_link", 0.0) + price.get("fixed", 0.0))


def _table(path: Path, where: str, value: object, keys: set[str]) -> dict:
    if not isinstance(value, dict):
        raise _fail(path, where, "must be a table")
    unknown = set(value) - keys
    if unknown:
        raise _fail(path, f"{where}.{sorted(unknown)[0]}",
                    f"unknown key (expected one of: {', '.join(sorted(keys))})")
    return value


def _string(path: Path, where: str, value: object) -> str:
    if not isinstance(value, str) or not value:
        raise _fail(path, where, f"must be a non-empty string, got {value!r}")
    return value


def _number(path: Path, where: str, value: object, *, positive: bool = False) -> float:
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not math.isfinite(value) or value < 0 or (positive and value == 0)):
        bound = "> 0" if positive else ">= 0"
        raise _fail(path, where, f"must be a finite number {bound}, got {value!r}")
    return float(value)


def _nonempty_list(path: Path, where: str, value: object) -> list:
    if not isinstance(value, list):
        raise _fail(path, where, f"must be a list, got {type(value).__name__}")
    if not value:
        raise _fail(path, where, "is empty: the grid would be empty")
    return value


def _sizes(path: Path, where: str, value: object) -> tuple[int, ...]:
    sizes = []
    for item in _nonempty_list(path, where, value):
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise _fail(path, where, f"a size is an integer or a string such as '64KiB', "
                        f"got {item!r}")
        if isinstance(item, int) and item < 0 or isinstance(item, str) and \
                item.strip().startswith("-"):
            raise _fail(path, where, f"negative size {item!r}")
        try:
            sizes.append(parse_bytes(str(item)))
        except ValueError as error:
            raise _fail(path, where, str(error)) from None
    if len(set(sizes)) != len(sizes):
        raise _fail(path, where, "a size appears twice")
    return tuple(sizes)


def _machine(path: Path, index: int, raw: object) -> Machine:
    where = f"machine[{index}]"
    raw = _table(path, where, raw, _MACHINE_KEYS)
    if "name" not in raw:
        raise _fail(path, where, "missing key 'name'")
    name = _string(path, f"{where}.name", raw["name"])
    if ("platform" in raw) == ("catalog" in raw):
        raise _fail(path, where, "give exactly one of 'platform' (a generator and its "
                    "parameters) or 'catalog' (a machine name)")
    if "catalog" in raw:
        source = {"catalog": _string(path, f"{where}.catalog", raw["catalog"])}
        key = f"{where}.catalog"
    else:
        platform = raw["platform"]
        if not isinstance(platform, dict) or "generator" not in platform:
            raise _fail(path, f"{where}.platform", "must be a table with a 'generator' key, "
                        f"one of {', '.join(sorted(GENERATORS))}")
        source = dict(platform)
        key = f"{where}.platform"
    try:
        build_machine(source)
    except ValueError as error:
        raise _fail(path, key, str(error)) from None
    price = {k: _number(path, f"{where}.price.{k}", v)
             for k, v in _table(path, f"{where}.price", raw.get("price", {}),
                                _PRICE_KEYS).items()}
    return Machine(name=name, source=source, price=price)


def _workload(path: Path, index: int, raw: object, entries: tuple[dict, ...]) -> tuple[
        Workload, dict]:
    where = f"workload[{index}]"
    raw = _table(path, where, raw, _WORKLOAD_KEYS)
    for required in ("collective", "sizes"):
        if required not in raw:
            raise _fail(path, where, f"missing key {required!r}")
    collective = _string(path, f"{where}.collective", raw["collective"])
    collectives = sorted({e["collective"] for e in entries})
    if collective not in collectives:
        raise _fail(path, f"{where}.collective",
                    f"unknown collective {collective!r} (known: {', '.join(collectives)})")
    weight = _number(path, f"{where}.weight", raw.get("weight", 1.0), positive=True)
    sizes = _sizes(path, f"{where}.sizes", raw["sizes"])
    if "size_weights" in raw:
        size_weights = tuple(_number(path, f"{where}.size_weights", w) for w in
                             _nonempty_list(path, f"{where}.size_weights", raw["size_weights"]))
        if len(size_weights) != len(sizes):
            raise _fail(path, f"{where}.size_weights",
                        f"has {len(size_weights)} weights for {len(sizes)} sizes")
        if not sum(size_weights) > 0:
            raise _fail(path, f"{where}.size_weights", "must not all be zero")
    else:
        size_weights = tuple(1.0 for _ in sizes)
    algorithms = raw.get("algorithms", "best")
    known = [e["algorithm"] for e in entries if e["collective"] == collective]
    if isinstance(algorithms, str):
        if algorithms not in _ALGORITHM_CHOICES:
            raise _fail(path, f"{where}.algorithms",
                        f"must be 'best', 'all' or a list of names, got {algorithms!r}")
        # "best"/"all": every algorithm but the selectors, which run one of the others
        choice, names = algorithms, tuple(name for name in known if not is_selector(name))
    else:
        names = tuple(_nonempty_list(path, f"{where}.algorithms", algorithms))
        for name in names:
            if not isinstance(name, str):
                raise _fail(path, f"{where}.algorithms", f"an algorithm is a name, got {name!r}")
            try:
                find_algorithm(collective, name)
            except CollsimError as error:
                raise _fail(path, f"{where}.algorithms", str(error)) from None
        if len(set(names)) != len(names):
            raise _fail(path, f"{where}.algorithms", "an algorithm appears twice")
        choice = "list"
    run_fields: dict = {}
    for key, kind in (("dtype", str), ("op", str), ("root", int)):
        if key in raw:
            value = raw[key]
            if isinstance(value, bool) or not isinstance(value, kind):
                expected = "a string" if kind is str else "an integer"
                raise _fail(path, f"{where}.{key}", f"must be {expected}, got {value!r}")
            run_fields[key] = value
    if run_fields.get("dtype", "double") not in DTYPE_BYTES:
        raise _fail(path, f"{where}.dtype", f"unknown datatype {run_fields['dtype']!r} "
                    f"(known: {', '.join(DTYPE_BYTES)})")
    if run_fields.get("op", "sum") not in OPS:
        raise _fail(path, f"{where}.op", f"unknown op {run_fields['op']!r} "
                    f"(known: {', '.join(OPS)})")
    if run_fields.get("root", 0) < 0:
        raise _fail(path, f"{where}.root", f"must be >= 0, got {run_fields['root']}")
    params_raw = _table(path, f"{where}.params", raw.get("params", {}),
                        set(parameter_names()))  # algorithms/params.def, as published
    try:
        run_fields["params"] = AlgorithmParams.from_values(params_raw)
    except (TypeError, ValueError) as error:
        raise _fail(path, f"{where}.params", str(error)) from None
    workload = Workload(collective=collective, weight=weight, sizes_bytes=sizes,
                        size_weights=size_weights, algorithms=names, choice=choice)
    return workload, run_fields


def load_scenario(path: str | os.PathLike, *, timing_only: bool = False) -> Scenario:
    """Load and validate a scenario file and expand it to its simulations.

    Parameters
    ----------
    path : str or os.PathLike
        The scenario (TOML).
    timing_only : bool
        Run every simulation timing-only (shared buffers, no result check),
        as ``timing_only = true`` in the scenario's ``[study]`` does.

    Returns
    -------
    Scenario
        The study's machines, workload and simulations (machine x workload
        collective x algorithm x process count x mapping), in a stable order.

    Raises
    ------
    CollsimError
        One line naming the file, the key and the reason: unreadable file,
        invalid TOML, unknown key, wrong type, missing machine or workload,
        unknown generator, catalog machine, collective, algorithm or profile,
        negative size, a process count larger than a machine, an empty grid.
    """
    path = Path(path)
    data, text = read_toml(path, "scenario")

    unknown = set(data) - _TOP_KEYS
    if unknown:
        raise _fail(path, sorted(unknown)[0],
                    "unknown key (expected [study], [[machine]] and [[workload]])")
    study = _table(path, "study", data.get("study", {}), _STUDY_KEYS)
    name = _string(path, "study.name", study.get("name", path.stem))
    profile = _string(path, "study.profile", study.get("profile", "hockney"))
    try:
        load_profile(profile if os.path.isabs(profile) or not profile.endswith(".toml")
                     else str(path.parent / profile))
    except ValueError as error:
        raise _fail(path, "study.profile", str(error)) from None
    if profile.endswith(".toml") and not os.path.isabs(profile):
        profile = str((path.parent / profile).resolve())
    seed = check("seed", study.get("seed", 1), label=f"{path}: study.seed")
    if "np" not in study:
        raise _fail(path, "study", "missing key 'np' (the process counts)")
    _nonempty_list(path, "study.np", study["np"])
    nps = _positive_ints(path, "study.np", study["np"])
    mappings = tuple(_nonempty_list(path, "study.mappings", study.get("mappings", ["block"])))
    for mapping in mappings:
        if not isinstance(mapping, str) or mapping.partition(":")[0] not in MAPPINGS:
            raise _fail(path, "study.mappings",
                        f"unknown mapping {mapping!r} (known: {', '.join(MAPPINGS)})")
    timeout_s = check("timeout_s", study.get("timeout_s", 600.0), label=f"{path}: study.timeout_s")
    scenario_timing_only = study.get("timing_only", False)
    if not isinstance(scenario_timing_only, bool):
        raise _fail(path, "study.timing_only",
                    f"must be true or false, got {scenario_timing_only!r}")
    timing_only = timing_only or scenario_timing_only
    predict_above_np = study.get("predict_above_np")
    if predict_above_np is not None:
        predict_above_np = check("np", predict_above_np, label=f"{path}: study.predict_above_np")

    raw_machines = data.get("machine")
    if raw_machines is None:
        raise _fail(path, "machine", "missing: a study needs at least one [[machine]]")
    machines = tuple(_machine(path, i, raw) for i, raw in
                     enumerate(_nonempty_list(path, "machine", raw_machines)))
    names = [m.name for m in machines]
    for machine in machines:
        if names.count(machine.name) > 1:
            raise _fail(path, "machine", f"machine name {machine.name!r} appears twice")
    raw_workloads = data.get("workload")
    if raw_workloads is None:
        raise _fail(path, "workload", "missing: a study needs at least one [[workload]]")
    entries = registry()
    loaded = [_workload(path, i, raw, entries) for i, raw in
              enumerate(_nonempty_list(path, "workload", raw_workloads))]
    collectives = [w.collective for w, _ in loaded]
    for collective in collectives:
        if collectives.count(collective) > 1:
            raise _fail(path, "workload", f"collective {collective!r} appears twice")

    simulations, predictions, not_predicted = [], [], []
    for machine in machines:
        G = build_machine(machine.source)
        cores = sum(c for _, c in G.nodes(data="cores") if c)
        for np in nps:
            if np > cores:
                raise _fail(path, "study.np", f"np={np} is larger than machine "
                            f"{machine.name!r} ({cores} cores)")
            for mapping in mappings:  # a mapping file is read and checked now, not in a worker
                try:
                    platforms.map_ranks(G, np, mapping)
                except ValueError as error:
                    raise _fail(path, "study.mappings", str(error)) from None
        for index, (workload, run_fields) in enumerate(loaded):
            for algorithm in workload.algorithms:
                entry = find_algorithm(workload.collective, algorithm)
                for np in nps:
                    for mapping in mappings:
                        fields = dict(run_fields)
                        # as in `collsim check`: a root past the communicator is its last rank
                        fields["root"] = min(fields.get("root", 0), np - 1)
                        spec = RunSpec(collective=workload.collective, algorithm=algorithm,
                                       np=np, sizes_bytes=workload.sizes_bytes, seed=seed,
                                       mapping=mapping, timing_only=timing_only, **fields)
                        predicted = predict_above_np is not None and np > predict_above_np
                        try:
                            validate_spec(spec, entry, total_cores=cores, simulated=not predicted)
                        except CollsimError as error:
                            if workload.choice == "list":
                                raise _fail(path, f"workload[{index}]", str(error)) from None
                            continue  # "best"/"all": only the algorithms that apply
                        if predicted and not has_pattern(workload.collective, algorithm):
                            not_predicted.append(f"{machine.name}: {workload.collective}/"
                                                 f"{algorithm}")
                            continue
                        (predictions if predicted else simulations).append(Simulation(
                            machine=machine.name, source=machine.source, profile=profile,
                            spec=spec, timeout_s=timeout_s, predicted=predicted))
    if not simulations and not predictions:
        raise _fail(path, "workload", "the grid is empty: no algorithm applies to any "
                    "process count")
    return Scenario(path=path, name=name, profile=profile, seed=seed, nps=nps,
                    mappings=mappings, machines=machines,
                    workloads=tuple(w for w, _ in loaded), simulations=tuple(simulations),
                    text=text, predict_above_np=predict_above_np,
                    predictions=tuple(predictions),
                    not_predicted=tuple(dict.fromkeys(not_predicted)))
