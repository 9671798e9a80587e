"""collsim from Python: run, study, check and load, for notebooks and scripts.

The functions take and return Python values (numbers, strings, graphs,
DataFrames) where the command line takes flags and prints tables; the work is
the same code's.  Bad input raises :class:`collsim.errors.CollsimError` (one
line, as the command line prints it).

Examples
--------
>>> import collsim
>>> df = collsim.run("allreduce", "ring", 4, ["8", "1KiB"])      # doctest: +SKIP
>>> df[["algorithm", "np", "bytes", "time_s", "model_s"]]         # doctest: +SKIP
>>> df.attrs["units"]["time_s"]                                   # doctest: +SKIP
's'
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable

import networkx as nx
import pandas as pd

from collsim.errors import CollsimError
from collsim.files import BadInput
from collsim.limits import check as check_number

__all__ = ["UNITS", "check", "load", "predict", "run", "study", "to_frame"]

#: The unit of a column, from its name's suffix (the house naming rule).
UNITS = (("_s", "s"), ("_bytes", "B"), ("_Bps", "B/s"), ("_s_per_byte", "s/B"))

#: Columns whose unit their name does not carry.
_NAMED_UNITS = {"bytes": "B", "np": "ranks", "ratio": "1", "max_error_ratio": "1"}


def _arguments_checked(function):
    """An API call whose bad argument of a wrong type or value, found anywhere below it,
    is a :class:`CollsimError` naming the call, as every other bad argument is (the
    original error stays chained as its cause)."""

    @functools.wraps(function)
    def call(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except (CollsimError, BadInput):
            raise
        except (TypeError, ValueError, KeyError) as error:
            raise CollsimError(f"collsim.{function.__name__}: {error}") from error

    return call


def _check_call(call: str, collective, algorithm, np) -> None:
    """The arguments every call on one algorithm takes: two names and a rank count."""
    for name, value in (("collective", collective), ("algorithm", algorithm)):
        if not isinstance(value, str):
            raise CollsimError(f"{call}: {name} must be a name (str), got {value!r}")
    check_number("np", np)


def _path(value, what: str) -> str:
    """A file argument: a non-empty str or os.PathLike."""
    if not isinstance(value, (str, os.PathLike)) or str(value) == "":
        raise CollsimError(f"{what} must be a file name (str or os.PathLike), got {value!r}")
    return str(value)


def _unit(column: str) -> str | None:
    if column in _NAMED_UNITS:
        return _NAMED_UNITS[column]
    for suffix, unit in sorted(UNITS, key=lambda pair: -len(pair[0])):
        if column.endswith(suffix):
            return unit
    return None


def to_frame(rows: Iterable[dict], **metadata) -> pd.DataFrame:
    """Rows (collbench's or the store's) as a DataFrame with units and metadata.

    ``df.attrs["units"]`` maps each column with a unit to it ("s", "B",
    "B/s", "ranks", "1"); every keyword argument becomes an entry of
    ``df.attrs`` too (the database, the studies, the platform...).

    Examples
    --------
    >>> df = to_frame([{"np": 4, "bytes": 8, "time_s": 1e-6}], source="example")
    >>> df.attrs["units"], df.attrs["source"]
    ({'np': 'ranks', 'bytes': 'B', 'time_s': 's'}, 'example')
    """
    frame = pd.DataFrame(list(rows))
    frame.attrs["units"] = {c: u for c in frame.columns if (u := _unit(c)) is not None}
    frame.attrs.update(metadata)
    return frame


def _sizes(sizes) -> tuple[int, ...]:
    from collsim.units import parse_bytes

    if isinstance(sizes, (int, str)):
        sizes = [sizes]
    out = []
    for size in sizes:
        if isinstance(size, bool):
            raise CollsimError(f"a size is a byte count or a string such as '1MiB', got {size!r}")
        try:
            out.append(size if isinstance(size, int) else parse_bytes(str(size)))
        except ValueError as error:
            raise CollsimError(str(error)) from None
    return tuple(out)


def _platform(platform) -> tuple[nx.Graph, str]:
    """A graph, a catalog name, a platform table (scenario syntax) or a SimGrid XML file."""
    from collsim.platforms import platform_from_spec
    from collsim.platforms.catalog import CATALOG

    if isinstance(platform, nx.Graph):
        graph = platform.graph
        return platform, graph.get("label", graph.get("catalog", graph.get("name", "graph")))
    if isinstance(platform, (str, os.PathLike)) and str(platform) in CATALOG:
        platform = {"catalog": str(platform)}
    if isinstance(platform, dict):
        try:
            G = platform_from_spec(platform)
        except ValueError as error:
            raise CollsimError(f"platform: {error}") from None
        return G, G.graph["label"]
    if isinstance(platform, (str, os.PathLike)) and str(platform).endswith(".xml"):
        from collsim.platforms.xml_file import xml_file_platform

        return xml_file_platform(str(platform)), str(platform)
    raise CollsimError(f"platform: give a graph, a catalog name, a platform table or an XML file, "
                       f"got {platform!r}")


def _algorithm_params(call: str, options: dict, other_names=frozenset()):
    """The algorithm parameters among a call's keyword ``options`` (``algorithms/params.def``,
    as collbench publishes it); an option neither one nor in ``other_names`` is a
    :class:`CollsimError` naming the call and what it knows."""
    from collsim.params import AlgorithmParams, parameter_names

    param_names = set(parameter_names())
    unknown = sorted(set(options) - set(other_names) - param_names)
    if unknown:
        raise CollsimError(f"{call}: unknown option {unknown[0]!r} "
                           f"(known: {', '.join(sorted(set(other_names) | param_names))})")
    try:
        return AlgorithmParams.from_values({k: v for k, v in options.items() if k in param_names})
    except ValueError as error:
        raise CollsimError(str(error)) from None


@_arguments_checked
def run(collective: str, algorithm: str, np: int, sizes, *, platform="crossbar",
        profile: str | None = None, timeout_s: float = 600.0, **options) -> pd.DataFrame:
    """Simulate one algorithm on one machine; one row per size (and repetition).

    Parameters
    ----------
    collective, algorithm : str
        A registry entry (``collsim list`` shows them).
    np : int
        Ranks.
    sizes : int, str or list of them
        Bytes per rank: counts or strings such as ``"64KiB"``.
    platform : networkx.Graph, str or dict
        A platform graph, a catalog name (``"seed003_hydra"``), a platform
        table as in a scenario (``{"generator": "fat_tree", ...}``), an XML
        file, or ``"crossbar"`` (the default: one node per rank).
    profile : str, optional
        A profile name or TOML file; default the catalog machine's own, else
        ``hockney``.
    timeout_s : float
        Wall-clock limit of the simulation.
    **options
        The fields of :class:`collsim.runner.RunSpec` (``dtype``, ``op``,
        ``root``, ``mapping``, ``seed``, ``reps``, ``check``, ``timing_only``,
        ...) and the algorithm parameters (:func:`collsim.params.parameter_names`,
        from ``algorithms/params.def``: ``segment_bytes``, ``group_count``,
        ``inner_algorithm``...).

    Returns
    -------
    pandas.DataFrame
        The rows ``collsim run --json`` prints, with ``attrs["units"]`` and
        ``attrs["platform"]``, ``attrs["profile"]``.
    """
    from dataclasses import fields

    from collsim.profiles import checked_profile, default_profile
    from collsim.runner import RunSpec
    from collsim.runner import run as run_spec

    _check_call("run", collective, algorithm, np)
    check_number("timeout_s", timeout_s, label="timeout_s")
    if profile is not None and not isinstance(profile, (str, os.PathLike)):
        raise CollsimError(f"run: profile must be a name or a TOML file, got {profile!r}")
    if isinstance(platform, str) and platform == "crossbar":
        platform = {"generator": "crossbar", "nodes": np}
    G, label = _platform(platform)
    loaded = checked_profile(profile or default_profile(label))
    spec_names = {f.name for f in fields(RunSpec)} - {"collective", "algorithm", "np", "sizes_bytes",
                                                       "params"}
    params = _algorithm_params("run", options, spec_names)
    spec = RunSpec(collective, algorithm, np, _sizes(sizes), params=params,
                   **{k: v for k, v in options.items() if k in spec_names})
    rows, _ = run_spec(spec, G, loaded, platform=label, timeout_s=timeout_s)
    return to_frame(rows, platform=label, profile=loaded.name)


@_arguments_checked
def predict(collective: str, algorithm: str, np: int, sizes, *, platform="crossbar",
            profile: str | None = None, mapping: str = "block", dtype: str = "double",
            op: str = "sum", root: int = 0, **params) -> pd.DataFrame:
    """The network model's time of one algorithm on one machine, without simulating.

    Parameters are those of :func:`run` (``platform`` a graph, a catalog
    name, a platform table or ``"crossbar"``; ``**params`` the algorithm
    parameters only: ``segment_bytes``, ``block_count``...); a platform table
    of a crossbar, fat-tree or dragonfly is never built as a graph when it is
    large (``collsim.predictions``), so a million ranks take seconds.

    Returns
    -------
    pandas.DataFrame
        One row per size, the columns of ``collsim predict --json``
        (``model_s``, ``flat_model_s``, ...), with ``attrs["units"]``,
        ``attrs["platform"]`` and ``attrs["profile"]``.
    """
    from collsim.platform_cli import PlatformRequest
    from collsim.platforms.catalog import CATALOG
    from collsim.predictions import predict_rows, request_from_table
    from collsim.profiles import checked_profile, default_profile

    _check_call("predict", collective, algorithm, np)
    algorithm_params = _algorithm_params("predict", params)
    if isinstance(platform, str) and platform == "crossbar":
        platform = {"generator": "crossbar", "nodes": np}
    if isinstance(platform, (str, os.PathLike)) and str(platform) in CATALOG:
        platform = {"catalog": str(platform)}
    graph = None
    if isinstance(platform, dict):
        request = request_from_table(platform)
    else:
        graph, label = _platform(platform)
        request = PlatformRequest(label=label)
    loaded = checked_profile(profile or default_profile(request.catalog or request.label))
    rows = predict_rows(request, loaded, algorithms=[(collective, algorithm)], np_ranks=np,
                        sizes=_sizes(sizes), mapping=mapping, dtype=dtype, op=op, root=root,
                        graph=graph, params=algorithm_params)
    return to_frame(rows, platform=request.label, profile=loaded.name)


@_arguments_checked
def load(db_path: str | os.PathLike, study: str | None = None) -> pd.DataFrame:
    """The measurements of a results database as a DataFrame.

    Parameters
    ----------
    db_path : str or os.PathLike
        A database written by ``collsim study`` (it is opened read-only).
    study : str, optional
        Only this study's rows.

    Returns
    -------
    pandas.DataFrame
        One row per measurement, the store's columns (``time_s``, ``model_s``,
        ``model_class``, ``flat_model_s`` beside a network model, ``bytes``,
        ``np``...; ``params`` and ``extra`` as dicts; a study's predicted
        process counts with ``model_class`` ``predicted``), with
        ``attrs["units"]``, ``attrs["database"]`` and ``attrs["studies"]``
        (each study's scenario, profile, machines with their price and cost,
        and workloads).
    """
    from collsim.store import close_store, open_store, read_rows, read_study

    connection = open_store(_path(db_path, "db_path"), create=False)
    try:
        rows = read_rows(connection, study)
        studies = read_study(connection)
    finally:
        close_store(connection)
    if study is not None and study not in {s["name"] for s in studies}:
        raise CollsimError(f"{db_path}: no study {study!r} (stored: "
                           f"{', '.join(s['name'] for s in studies) or 'none'})")
    for entry in studies:
        for machine in entry["machines"]:
            machine.pop("graph", None)  # the topology as JSON: large, and in the database
    return to_frame(rows, database=str(db_path),
                    studies=[s for s in studies if study is None or s["name"] == study])


@_arguments_checked
def study(scenario_path: str | os.PathLike, *, db: str | os.PathLike | None = None, jobs: int = 0,
          scheduler: str | None = None, timing_only: bool = False) -> pd.DataFrame:
    """Run (or resume) a study and return its measurements (see :func:`load`).

    Parameters
    ----------
    scenario_path : str or os.PathLike
        A scenario TOML file.
    db : str or os.PathLike, optional
        The results database; default the scenario's name with ``.db``.
    jobs : int
        Local worker processes (0: one per core).
    scheduler : str, optional
        A Dask scheduler address (``tcp://HOST:PORT``) instead of local workers.
    timing_only : bool
        Times only, no data and no result check.

    Raises
    ------
    CollsimError
        On bad input, or when simulations failed (the rest is stored; a rerun
        retries the failed ones).
    """
    from collsim.scenario import load_scenario
    from collsim.studies import run_study

    check_number("jobs", jobs)
    scenario = load_scenario(_path(scenario_path, "scenario_path"), timing_only=timing_only)
    db_path = str(db or scenario.path.with_suffix(".db"))
    _, _, _, failures = run_study(scenario, db_path, jobs=jobs, scheduler=scheduler)
    if failures:
        raise CollsimError(f"{len(failures)} simulations failed, first: {failures[0]}")
    return load(db_path, scenario.name)


@_arguments_checked
def check(suite_path: str | os.PathLike, *, jobs: int = 0, timing_only: bool = False) -> pd.DataFrame:
    """Run a check suite and return one row per measurement with its verdict.

    Returns
    -------
    pandas.DataFrame
        Columns ``id``, ``ok`` and the outcome's fields (``time_s``,
        ``baseline_s``, ``model_s``..., ``failures``).
    """
    from dataclasses import asdict

    from collsim.checks import load_suite, run_suite

    check_number("jobs", jobs)
    suite = load_suite(_path(suite_path, "suite_path"), timing_only=timing_only)
    outcomes = run_suite(suite, jobs=jobs)
    return to_frame(({**asdict(o), "ok": o.ok} for o in outcomes), suite=str(suite_path))
