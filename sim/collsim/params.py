"""The algorithm parameters of a run: one struct, read by the command line,
the runner, scenarios and suites, rules files, and the models.

Every parameter is one line of ``algorithms/params.def``: its name, flag,
type, unit, range, group and help line.  ``collbench --list --json``
publishes that table (:func:`collsim.harness.parameter_table`) and everything
here is made from it: the checks of :class:`AlgorithmParams`, the names
:func:`parameter_names` gives the scenario, suite and API readers, and
:func:`user_parameters`, the options of ``collsim run`` and the keys of
rules files.  collbench receives them as options (``runner.collbench_args``)
and echoes them in every row's ``params``; C checks which ones an algorithm
reads (``algorithms/registry.c``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field, fields, make_dataclass

from pydantic import PlainValidator

__all__ = ["AlgorithmParams", "DEFAULT_PARAMS", "algorithm_params", "check_parameter", "parameter_names",
           "parameter_table", "user_parameters"]

# C's LLONG_MAX: a published maximum this large is no bound
_UNBOUNDED = 2**63 - 1


def parameter_table() -> tuple[dict, ...]:
    """Every algorithm parameter as collbench publishes it (``algorithms/params.def``).

    See :func:`collsim.harness.parameter_table` for the keys of each entry.
    """
    from collsim.harness import parameter_table as published

    return published()


def parameter_names() -> tuple[str, ...]:
    """The names of every algorithm parameter, in table order: the keys of a
    scenario's or suite's ``params`` table and the API's parameter keywords.

    Examples
    --------
    >>> "segment_bytes" in parameter_names()
    True
    """
    return tuple(entry["name"] for entry in parameter_table())


def user_parameters() -> tuple[dict, ...]:
    """The parameters a user sets: the options of ``collsim run`` and the keys
    of rules files (every parameter but the harness's hints, which have no
    group: the platform's alpha / beta)."""
    return tuple(entry for entry in parameter_table() if entry["group"] is not None)


def _range_text(entry: dict) -> str:
    low, high = entry["min"], entry["max"]
    text = f">= {low}" if high is None or high >= _UNBOUNDED else f"in {low}..{high}"
    return text + (" (0: the default)" if low > 0 else "")


def check_parameter(entry: dict, value) -> None:
    """Raise ValueError with one line when value is not one of entry's values.

    The default (0, False, None) always is; any other value must have the
    entry's type and lie in its range: nothing is clamped.

    Examples
    --------
    >>> entry = {"name": "chain_fanout", "type": "int", "min": 1, "max": 32}
    >>> check_parameter(entry, 33)
    Traceback (most recent call last):
    ...
    ValueError: chain_fanout must be an integer in 1..32 (0: the default), got 33
    """
    name, kind = entry["name"], entry["type"]
    if kind in ("bytes", "int"):
        if isinstance(value, bool) or not isinstance(value, int) or (
                value != 0 and not entry["min"] <= value <= entry["max"]) or value < 0:
            raise ValueError(f"{name} must be an integer {_range_text(entry)}, got {value!r}")
    elif kind == "name":  # which names exist, the registry says (runner.validate_spec)
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{name} must be an algorithm name, got {value!r}")
    elif kind == "bool":
        if not isinstance(value, bool):
            raise ValueError(f"{name} must be true or false, got {value!r}")
    elif kind == "real":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                math.isfinite(value) and value >= entry["min"]):
            raise ValueError(f"{name} must be a finite number >= {entry['min']}, got {value!r}")
    else:
        raise ValueError(f"{name}: unknown parameter type {kind!r} (collbench is newer)")


@dataclass(frozen=True)
class AlgorithmParams:
    """The algorithm parameters of a run, as collbench reports them in ``params``.

    Zero / None means "the algorithm's default".  Each model reads the ones its
    algorithm uses.

    Attributes
    ----------
    segment_bytes : int
        Pipelined algorithms: bytes per segment.
    block_count : int
        Pipelined algorithms: number of blocks (instead of segment_bytes).
    alpha_over_beta_bytes : float
        Pipelined algorithms without a block count or size: the network's
        alpha / beta used by the pipelining lemma (the runner passes the
        platform's; 0 = the nominal ratio of ``collsim.analysis.segments``).
    group_count : int
        Hierarchical algorithms: number of groups G.
    inner_algorithm, outer_algorithm : str or None
        Two-level algorithms: registry names used inside groups / between leaders.
    node_size : int
        Node-aware algorithms: ranks per exposed node (0 = the real node).
    chain_fanout : int
        Chain algorithms (``chain``): the chains the root heads, Open MPI's
        ``coll_tuned_<collective>_algorithm_chain_fanout`` (at most 32; 0 =
        the registry's default, 1: one chain; Open MPI's forced chain uses its
        MCA default 4).
    cached_comms : bool
        Node-aware algorithms: the node and leader communicators are made once
        per communicator and kept, as MPICH makes them with the communicator
        (collbench makes them in an untimed first call); False: made and freed
        in every call, and timed.
    selected : str or None
        Selectors (``openmpi_default``, ``mpich_default``): the registry entry
        the selector ran, as collbench records it in the row's ``selected``;
        an output of the run, never an input to it.
    """

    segment_bytes: int = 0
    block_count: int = 0
    alpha_over_beta_bytes: float = 0.0
    group_count: int = 0
    inner_algorithm: str | None = None
    outer_algorithm: str | None = None
    node_size: int = 0
    chain_fanout: int = 0
    cached_comms: bool = False
    selected: str | None = None

    def __post_init__(self) -> None:
        # the defaults need no check (and no collbench: DEFAULT_PARAMS is made on import)
        given = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "selected"
                 and (type(getattr(self, f.name)) is not type(f.default)
                      or getattr(self, f.name) != f.default)}
        if not given:
            return
        table = parameter_table()
        for entry in table:
            if entry["name"] in given:
                check_parameter(entry, given[entry["name"]])
        unknown = set(given) - {entry["name"] for entry in table}
        if unknown:  # a field params.def lacks: tests/test_params.py keeps them equal
            raise ValueError(f"{sorted(unknown)[0]} is not a parameter collbench knows")
        alternatives: dict[str, list[str]] = {}
        for entry in table:
            if entry["exclusive"] and entry["name"] in given:
                alternatives.setdefault(entry["group"], []).append(entry["name"])
        for names in alternatives.values():
            if len(names) > 1:
                raise ValueError(f"give {' or '.join(names)}, not both")

    @classmethod
    def from_values(cls, values: dict) -> "AlgorithmParams":
        """Build from parameter values by name, as the command line, rules
        files, scenarios, suites and the API give them.

        A parameter of the published table that this class names no field for
        (a line just added to ``algorithms/params.def``) gets a field of a
        subclass made from the table, with the same checks: the new parameter
        works end to end, and keeps its place in measurement keys, before a
        field is written for it here (``tests/test_params.py`` asks for one).

        Raises
        ------
        ValueError
            For a name that is not a parameter, or a value out of its range.

        Examples
        --------
        >>> AlgorithmParams.from_values({"block_count": 4}).block_count
        4
        """
        unnamed = set(values) - set(cls.__dataclass_fields__)
        if not unnamed:
            return cls(**values)
        published = set(parameter_names())
        if unnamed - published:
            raise ValueError(f"unknown parameter {sorted(unnamed - published)[0]!r} "
                             f"(known: {', '.join(published)})")
        return _with_table_fields(cls)(**values)

    def __reduce__(self):
        # by value, so that an instance of a subclass made from the table
        # (from_values) crosses to a worker process too
        return (_rebuilt, ({f.name: getattr(self, f.name) for f in fields(self)},))

    @classmethod
    def from_row(cls, params: dict) -> "AlgorithmParams":
        """Build from the ``params`` object of a collbench row (gamma is not one)."""
        fields = {name: params[name] for name in cls.__dataclass_fields__ if name in params}
        return cls(**fields)


_TYPES = {"bytes": int, "int": int, "name": "str | None", "bool": bool, "real": float}
_DEFAULTS = {"bytes": 0, "int": 0, "name": None, "bool": False, "real": 0.0}


@functools.lru_cache(maxsize=None)
def _with_table_fields(cls: type) -> type:
    """cls with a field for every published parameter it names none for."""
    extra = [(entry["name"], _TYPES[entry["type"]], field(default=_DEFAULTS[entry["type"]]))
             for entry in parameter_table() if entry["name"] not in cls.__dataclass_fields__]
    return make_dataclass(cls.__name__, extra, bases=(cls,), frozen=True)


def _rebuilt(values: dict) -> AlgorithmParams:
    return AlgorithmParams.from_values(values)


DEFAULT_PARAMS = AlgorithmParams()


def algorithm_params() -> PlainValidator:
    """The pydantic validator of a scenario's or suite's ``params`` table.

    Its keys are the names of :func:`parameter_names` (``algorithms/params.def``);
    it becomes an :class:`AlgorithmParams`.  ``selected`` (what a selector ran:
    an output, never an input) is not one.
    """

    def validate_params(value: object) -> AlgorithmParams:
        if not isinstance(value, dict):
            raise ValueError(f"must be a table, got {value!r}")
        names = parameter_names()
        for key in value:
            if key not in names:
                raise ValueError(f"unknown key {key!r} (expected one of: {', '.join(names)})")
        try:
            return AlgorithmParams.from_values(value)
        except TypeError as error:
            raise ValueError(str(error)) from None

    return PlainValidator(validate_params)
