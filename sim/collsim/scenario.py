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

A scenario is data: it is read with ``collsim.files.read_toml`` and checked against its
schema (:class:`ScenarioFile`); it can name generators, catalog machines, algorithms and
profiles but never code.  Every problem is one line naming the file, the key and the reason.
"""

from __future__ import annotations

import os
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated

import networkx as nx
from pydantic import AfterValidator, Field, PlainValidator, field_validator, model_validator

from collsim import platforms
from collsim.errors import CollsimError
from collsim.files import read_toml
from collsim.harness import find_algorithm, registry
from collsim.native import is_selector
from collsim.network_model import has_pattern
from collsim.params import AlgorithmParams, algorithm_params
from collsim.platforms import GENERATORS
from collsim.profiles import load_profile
from collsim.runner import DTYPE_BYTES, OPS, RunSpec, validate_spec
from collsim.schema import (Mapping, Problem, Table, Text, bounded, byte_sizes,
                            finite, finite_number, process_counts, validate)

__all__ = ["Machine", "Workload", "Simulation", "Scenario", "load_scenario", "build_machine",
           "machine_cost", "ScenarioFile"]

#: ``model_class`` of a row the network model predicted instead of a simulation
#: (a study's process counts above ``predict_above_np``); its ``time_s`` is the
#: model's time, its ``library`` :data:`PREDICTED_LIBRARY`.
PREDICTED_CLASS = "predicted"
PREDICTED_LIBRARY = "network model"

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


# -- the schema -------------------------------------------------------------------------

class _Price(Table):
    per_node: Annotated[float, finite()] = 0.0
    per_switch: Annotated[float, finite()] = 0.0
    per_link: Annotated[float, finite()] = 0.0
    fixed: Annotated[float, finite()] = 0.0


def _buildable(source: dict) -> dict:
    build_machine(source)  # a bad one: its ValueError names what is wrong
    return source


def _platform_table(value: object) -> dict:
    if not isinstance(value, dict) or "generator" not in value:
        raise ValueError(f"must be a table with a 'generator' key, one of "
                         f"{', '.join(sorted(GENERATORS))}")
    return _buildable(dict(value))


class _Machine(Table):
    name: Text
    platform: Annotated[dict, PlainValidator(_platform_table)] | None = None
    catalog: Annotated[Text, AfterValidator(lambda name: _buildable({"catalog": name}))] | None \
        = None
    price: _Price = _Price()

    @model_validator(mode="before")
    @classmethod
    def _one_source(cls, data: object) -> object:
        if isinstance(data, dict) and ("platform" in data) == ("catalog" in data):
            raise ValueError("give exactly one of 'platform' (a generator and its parameters) "
                             "or 'catalog' (a machine name)")
        return data


def _algorithm_choice(value: object) -> str | tuple[str, ...]:
    if isinstance(value, str):
        if value not in _ALGORITHM_CHOICES:
            raise ValueError(f"must be 'best', 'all' or a list of names, got {value!r}")
        return value
    if not isinstance(value, list):
        raise ValueError(f"must be 'best', 'all' or a list of names, got {value!r}")
    if not value:
        raise ValueError("is empty: the grid would be empty")
    for name in value:
        if not isinstance(name, str):
            raise ValueError(f"an algorithm is a name, got {name!r}")
    if len(set(value)) != len(value):
        raise ValueError("an algorithm appears twice")
    return tuple(value)


def _known(value: str, known: typing.Iterable[str], what: str) -> str:
    if value not in known:
        raise ValueError(f"unknown {what} {value!r} (known: {', '.join(known)})")
    return value


def _size_weights(value: object) -> tuple[float, ...]:
    if not isinstance(value, list):
        raise ValueError(f"must be a list, got {type(value).__name__}")
    if not value:
        raise ValueError("is empty: the grid would be empty")
    return tuple(finite_number(weight) for weight in value)


class _Workload(Table):
    collective: Text
    weight: Annotated[float, finite(positive=True)] = 1.0
    sizes: Annotated[tuple[int, ...], byte_sizes(distinct=True)]
    size_weights: Annotated[tuple[float, ...], PlainValidator(_size_weights)] | None = None
    algorithms: Annotated[str | tuple[str, ...], PlainValidator(_algorithm_choice)] = "best"
    root: Annotated[int, Field(ge=0)] = 0
    dtype: Annotated[str, AfterValidator(lambda v: _known(v, DTYPE_BYTES, "datatype"))] = "double"
    op: Annotated[str, AfterValidator(lambda v: _known(v, OPS, "op"))] = "sum"
    params: Annotated[AlgorithmParams, algorithm_params()] = AlgorithmParams()

    @field_validator("collective")
    @classmethod
    def _registered(cls, collective: str) -> str:
        return _known(collective, sorted({e["collective"] for e in registry()}), "collective")

    @model_validator(mode="after")
    def _consistent(self) -> "_Workload":
        if self.size_weights is not None:
            if len(self.size_weights) != len(self.sizes):
                raise Problem(f"has {len(self.size_weights)} weights for {len(self.sizes)} "
                              "sizes", "size_weights")
            if not sum(self.size_weights) > 0:
                raise Problem("must not all be zero", "size_weights")
        if not isinstance(self.algorithms, str):
            for name in self.algorithms:
                try:
                    find_algorithm(self.collective, name)
                except CollsimError as error:
                    raise Problem(str(error), "algorithms") from None
        return self


class _Study(Table):
    name: Text | None = None
    profile: Text = "hockney"
    seed: Annotated[int, bounded("seed")] = 1
    np: Annotated[tuple[int, ...], process_counts()] = Field(description="the process counts")
    mappings: Annotated[list[Mapping], Field(min_length=1)] = ["block"]
    timeout_s: Annotated[float, bounded("timeout_s")] = 600.0
    timing_only: bool = False
    predict_above_np: Annotated[int, bounded("np")] | None = None


class ScenarioFile(Table):
    """What a scenario file may hold (its schema); :func:`load_scenario` reads one."""

    study: _Study = Field(default_factory=dict, validate_default=True)
    machine: Annotated[list[_Machine], Field(min_length=1)] = Field(
        description="a study needs at least one [[machine]]")
    workload: Annotated[list[_Workload], Field(min_length=1)] = Field(
        description="a study needs at least one [[workload]]")

    @model_validator(mode="after")
    def _distinct(self) -> "ScenarioFile":
        names = [machine.name for machine in self.machine]
        for name in names:
            if names.count(name) > 1:
                raise Problem(f"machine name {name!r} appears twice", "machine")
        collectives = [workload.collective for workload in self.workload]
        for collective in collectives:
            if collectives.count(collective) > 1:
                raise Problem(f"collective {collective!r} appears twice", "workload")
        return self


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
    scenario = validate(ScenarioFile, data, str(path))
    study = scenario.study
    machines = tuple(Machine(name=m.name, source=dict(m.platform) if m.platform is not None
                             else {"catalog": m.catalog},
                             price=m.price.model_dump(exclude_unset=True))
                     for m in scenario.machine)
    workloads = tuple(_workload(w) for w in scenario.workload)
    grid = _Grid(path=path, profile=_profile(path, study.profile), nps=study.np,
                 mappings=tuple(study.mappings), seed=study.seed, timeout_s=study.timeout_s,
                 timing_only=timing_only or study.timing_only,
                 predict_above_np=study.predict_above_np)
    simulations, predictions, not_predicted = grid.expand(
        machines, [(workload, raw) for workload, raw in zip(workloads, scenario.workload)])
    if not simulations and not predictions:
        raise _fail(path, "workload", "the grid is empty: no algorithm applies to any "
                    "process count")
    return Scenario(path=path, name=study.name or path.stem, profile=grid.profile,
                    seed=study.seed, nps=study.np, mappings=grid.mappings, machines=machines,
                    workloads=workloads, simulations=tuple(simulations), text=text,
                    predict_above_np=study.predict_above_np, predictions=tuple(predictions),
                    not_predicted=tuple(dict.fromkeys(not_predicted)))


def _fail(path: Path, where: str, reason: str) -> CollsimError:
    return CollsimError(f"{path}: {where}: {reason}")


def _profile(path: Path, profile: str) -> str:
    """The study's profile: a built-in name, or a profile file (beside the scenario when
    relative) as an absolute path; checked now."""
    relative = profile.endswith(".toml") and not os.path.isabs(profile)
    try:
        load_profile(str(path.parent / profile) if relative else profile)
    except ValueError as error:
        raise _fail(path, "study.profile", str(error)) from None
    return str((path.parent / profile).resolve()) if relative else profile


def _workload(raw: _Workload) -> Workload:
    if isinstance(raw.algorithms, str):
        # "best"/"all": every algorithm but the selectors, which run one of the others
        choice = raw.algorithms
        names = tuple(e["algorithm"] for e in registry() if e["collective"] == raw.collective
                      and not is_selector(e["algorithm"]))
    else:
        choice, names = "list", raw.algorithms
    return Workload(collective=raw.collective, weight=raw.weight, sizes_bytes=raw.sizes,
                    size_weights=raw.size_weights or tuple(1.0 for _ in raw.sizes),
                    algorithms=names, choice=choice)


@dataclass(frozen=True)
class _Grid:
    """A study's settings, and its expansion to simulations and predictions."""

    path: Path
    profile: str
    nps: tuple[int, ...]
    mappings: tuple[str, ...]
    seed: int
    timeout_s: float
    timing_only: bool
    predict_above_np: int | None

    def expand(self, machines: tuple[Machine, ...], workloads: list[tuple[Workload, _Workload]]
               ) -> tuple[list[Simulation], list[Simulation], list[str]]:
        """The simulations, the predictions and the entries not predicted (no network
        pattern), machine x workload x algorithm x np x mapping."""
        simulations, predictions, not_predicted = [], [], []
        for machine in machines:
            cores = self._fitting(machine)
            for index, (workload, raw) in enumerate(workloads):
                for algorithm in workload.algorithms:
                    for spec, predicted in self._specs(index, workload, raw, algorithm, cores):
                        if predicted and not has_pattern(workload.collective, algorithm):
                            not_predicted.append(f"{machine.name}: {workload.collective}/"
                                                 f"{algorithm}")
                            continue
                        (predictions if predicted else simulations).append(Simulation(
                            machine=machine.name, source=machine.source, profile=self.profile,
                            spec=spec, timeout_s=self.timeout_s, predicted=predicted))
        return simulations, predictions, not_predicted

    def _fitting(self, machine: Machine) -> int:
        """The machine's cores, once every process count and mapping is checked on it."""
        G = build_machine(machine.source)
        cores = sum(c for _, c in G.nodes(data="cores") if c)
        for np in self.nps:
            if np > cores:
                raise _fail(self.path, "study.np", f"np={np} is larger than machine "
                            f"{machine.name!r} ({cores} cores)")
            for mapping in self.mappings:  # a mapping file is read and checked now, not in a worker
                try:
                    platforms.map_ranks(G, np, mapping)
                except ValueError as error:
                    raise _fail(self.path, "study.mappings", str(error)) from None
        return cores

    def _specs(self, index: int, workload: Workload, raw: _Workload, algorithm: str,
               cores: int):
        """(spec, predicted) of one algorithm, the cells it does not apply to left out
        ("best"/"all") or refused (a list)."""
        entry = find_algorithm(workload.collective, algorithm)
        for np in self.nps:
            for mapping in self.mappings:
                # as in `collsim check`: a root past the communicator is its last rank
                spec = RunSpec(collective=workload.collective, algorithm=algorithm, np=np,
                               sizes_bytes=workload.sizes_bytes, seed=self.seed,
                               mapping=mapping, timing_only=self.timing_only,
                               dtype=raw.dtype, op=raw.op, root=min(raw.root, np - 1),
                               params=raw.params)
                predicted = self.predict_above_np is not None and np > self.predict_above_np
                try:
                    validate_spec(spec, entry, total_cores=cores, simulated=not predicted)
                except CollsimError as error:
                    if workload.choice == "list":
                        raise _fail(self.path, f"workload[{index}]", str(error)) from None
                    continue  # "best"/"all": only the algorithms that apply
                yield spec, predicted
