"""``collsim check``: a CI gate that catches cost-model and algorithm drift.

A suite (TOML) lists cases: algorithms x platform x process counts x sizes x
profile, and what must hold for each measurement:

- ``model``: the simulated time agrees with the algorithm's model within its
  declared class (exact: 1e-6; bound: inside the interval; network, off the
  crossbar: within ``network_rel_tol``, by default
  :data:`collsim.network_model.NETWORK_REL_TOL`, the measured error's bound);
  a case whose rows have only the flat model's approximation (no network
  pattern for the entry) fails with ``no-exact-model``;
- ``baseline``: the simulated time agrees with the stored baseline within
  ``baseline_rel_tol``.

The baseline is a plain, sorted, tab-separated file with one row per
measurement and the SimGrid version and platform hash it was recorded with; a
row recorded on another platform is reported as stale (not as a drift) until
``--update-baseline`` accepts it.  A row recorded under another SimGrid
version still holds: the supported versions give the same simulated times
(3.32 to 4.1), so a difference is a drift, whose line names both versions.

The suite's keys are declared by its schema (:class:`SuiteFile`).

Exit status: 0 everything holds, 1 something drifted (or a baseline is stale
or missing), 2 bad input.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from typing import Annotated

from pydantic import AfterValidator, Field, PlainValidator, field_validator, model_validator

from collsim.errors import CollsimError
from collsim.files import check_output_path, read_text, read_toml, write_output
from collsim.grid import Grid, Job
from collsim.harness import find_algorithm, registry
from collsim.native import is_selector
from collsim.network_model import NETWORK_REL_TOL, network_agrees
from collsim.params import AlgorithmParams, algorithm_params
from collsim.platforms import platform_from_spec
from collsim.profiles import load_profile
from collsim.runner import NONCOMMUTATIVE_OPS, RunSpec, validate_run
from collsim.schema import (Mapping, Problem, Table, bounded, byte_sizes,
                            process_counts, validate)
from collsim.units import format_bytes, format_seconds

__all__ = ["Suite", "SuiteFile", "Case", "Outcome", "load_suite", "run_suite", "main_check"]

# printable, no tab (the baseline's separator), no slash (the case id's), no line break
_CASE_NAME = re.compile(r"[^\t\n\r\x00-\x1f\x7f/]+")
_CHECKS = ("model", "baseline")
BASELINE_HEADER = "# case\tsimgrid\tplatform_hash\ttime_s"


@dataclass(frozen=True)
class Case:
    """One case of a suite, expanded to one algorithm and one process count."""

    id_prefix: str
    platform_name: str
    platform: dict
    spec: RunSpec
    profile: str
    checks: tuple[str, ...]
    baseline_rel_tol: float
    # a network-model row agrees when |simulated / model - 1| <= this
    network_rel_tol: float = NETWORK_REL_TOL

    def measurement_id(self, n_bytes: int) -> str:
        """The id of one measurement: stable, readable, unique in a suite."""
        return (f"{self.id_prefix}/{self.spec.collective}/{self.spec.algorithm}"
                f"/np={self.spec.np}/bytes={n_bytes}")


@dataclass(frozen=True)
class Suite:
    """A loaded suite: where it lives, its baseline file and its cases."""

    path: Path
    name: str
    baseline_path: Path
    cases: tuple[Case, ...]


@dataclass
class Outcome:
    """What happened to one measurement."""

    id: str
    collective: str
    algorithm: str
    np: int
    n_bytes: int
    platform: str
    time_s: float | None = None
    model_s: float | None = None
    model_class: str | None = None
    baseline_s: float | None = None
    failures: list[tuple[str, str]] = field(default_factory=list)  # (type, message)
    platform_hash: str = ""
    library: str = ""

    @property
    def ok(self) -> bool:
        return not self.failures


# -- the schema -------------------------------------------------------------------------

def _profile(name: object) -> str:
    if not isinstance(name, str):
        raise ValueError(f"must be a string, got {name!r}")
    load_profile(name)  # a bad one: its ValueError names it
    return name


def _baseline(name: str) -> str:
    if not name or Path(name).name != name or name in (".", ".."):
        raise ValueError(f"must be a file name beside the suite (no directory), got {name!r}")
    return name


def _case_name(name: str) -> str:
    # a case's name is a field of the baseline's tab-separated lines and a JUnit name
    if not _CASE_NAME.fullmatch(name):
        raise ValueError("must be a non-empty string of printable characters without tabs, "
                         "slashes or line breaks")
    return name


def _platform(value: object) -> dict:
    platform_from_spec(value)  # a bad one: its ValueError names it
    return dict(value)


def _algorithms(value: object) -> str | tuple[str, ...]:
    if value == "all" or value == ["all"]:
        return "all"
    if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
        raise ValueError("must be 'all' or a list of names")
    return tuple(value)


def _checks(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not value or not all(c in _CHECKS for c in value):
        raise ValueError(f"must be a non-empty list of {_CHECKS}")
    return tuple(value)


_Profile = Annotated[str, PlainValidator(_profile)]
_RelTol = Annotated[float, bounded("rel_tol")]


class _Settings(Table):
    name: str | None = None
    baseline: Annotated[str, AfterValidator(_baseline)] | None = None
    profile: _Profile = "hockney"
    baseline_rel_tol: _RelTol = 1e-9
    network_rel_tol: _RelTol = NETWORK_REL_TOL


class _Case(Table):
    name: Annotated[str, AfterValidator(_case_name)] | None = None
    platform: Annotated[dict, PlainValidator(_platform)]
    collective: str
    algorithms: Annotated[str | tuple[str, ...], PlainValidator(_algorithms)] = "all"
    np: Annotated[tuple[int, ...], process_counts(
        scalar=True, empty="must be a positive integer or a list of them")]
    bytes: Annotated[tuple[int, ...], byte_sizes(scalar=True)]
    dtype: str = "double"
    op: str = "sum"
    root: Annotated[int, bounded("root")] = 0
    profile: _Profile | None = None
    checks: Annotated[tuple[str, ...], PlainValidator(_checks)] = ("model",)
    baseline_rel_tol: _RelTol | None = None
    network_rel_tol: _RelTol | None = None
    params: Annotated[AlgorithmParams, algorithm_params()] = AlgorithmParams()
    timing_only: bool = False
    mapping: Mapping = "block"

    @field_validator("collective")
    @classmethod
    def _registered(cls, collective: str) -> str:
        if collective not in {e["collective"] for e in registry()}:
            raise ValueError(f"unknown collective {collective!r}")
        return collective

    @model_validator(mode="after")
    def _known_algorithms(self) -> "_Case":
        for algorithm in () if self.algorithms == "all" else self.algorithms:
            try:
                find_algorithm(self.collective, algorithm)
            except CollsimError as error:
                raise Problem(str(error), "algorithms") from None
        return self


class SuiteFile(Table):
    """What a suite file may hold (its schema); :func:`load_suite` reads one."""

    suite: _Settings = _Settings()
    case: Annotated[list[_Case], Field(min_length=1)] = Field(description="the suite has no [[case]]")


def load_suite(path: str | os.PathLike, *, timing_only: bool = False) -> Suite:
    """Load and validate a suite file; every problem is a one-line CollsimError.

    ``timing_only`` runs every case timing-only (shared buffers, no result
    check), as ``timing_only = true`` in a case does; the times are the same.

    Raises
    ------
    CollsimError
        If the file is unreadable, not TOML, or has an unknown key, a wrong
        type, an unknown algorithm, platform or profile, or no case.
    """
    path = Path(path)
    data, _ = read_toml(path, "suite")
    suite = validate(SuiteFile, data, str(path))
    settings = suite.suite
    cases = [case for index, raw in enumerate(suite.case)
             for case in _cases(path, index, raw, settings, timing_only)]
    ids = [case.measurement_id(n) for case in cases for n in case.spec.sizes_bytes]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise CollsimError(f"{path}: case: measurement {sorted(duplicates)[0]} appears twice "
                           "(give the cases distinct names)")
    baseline = settings.baseline or f"{path.stem}.baseline.tsv"
    return Suite(path, settings.name or path.stem, path.parent / baseline, tuple(cases))


def _cases(path: Path, index: int, raw: _Case, settings: _Settings,
           timing_only: bool) -> list[Case]:
    """A case of the file expanded to its algorithms and process counts, each checked as a
    run would check it."""
    G = platform_from_spec(raw.platform)
    platform_name = G.graph["label"]
    every = raw.algorithms == "all"
    # every algorithm but the selectors, which run one of the others
    algorithms = [e["algorithm"] for e in registry() if e["collective"] == raw.collective
                  and not is_selector(e["algorithm"])] if every else raw.algorithms
    cases = []
    for algorithm in algorithms:
        restrictions = find_algorithm(raw.collective, algorithm)["restrictions"]
        for np in raw.np:
            # "all": only the algorithms whose restrictions this np and op meet
            if every and (("power_of_two" in restrictions and np & (np - 1))
                          or ("commutative" in restrictions and raw.op in NONCOMMUTATIVE_OPS)):
                continue
            spec = RunSpec(collective=raw.collective, algorithm=algorithm, np=np,
                           sizes_bytes=raw.bytes, dtype=raw.dtype, op=raw.op,
                           root=min(raw.root, np - 1), params=raw.params, mapping=raw.mapping,
                           timing_only=timing_only or raw.timing_only)
            try:  # everything a run checks, before the first simulation
                validate_run(spec, G)
            except CollsimError as error:
                raise CollsimError(f"{path}: case[{index}]: {error}") from None
            cases.append(Case(
                raw.name if raw.name is not None else platform_name, platform_name,
                raw.platform, spec, raw.profile or settings.profile, raw.checks,
                settings.baseline_rel_tol if raw.baseline_rel_tol is None
                else raw.baseline_rel_tol,
                settings.network_rel_tol if raw.network_rel_tol is None
                else raw.network_rel_tol))
    return cases


def read_baseline(path: Path) -> dict[str, tuple[str, str, float]]:
    """Read a baseline file: id -> (simgrid, platform_hash, time_s).

    Raises
    ------
    CollsimError
        If a line is malformed (one line naming the file and line number).
    """
    if not path.exists():
        return {}
    text = read_text(path, "baseline")
    rows: dict[str, tuple[str, str, float]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        try:
            if len(fields) != 4:
                raise ValueError(f"expected 4 tab-separated fields, found {len(fields)}")
            value = float(fields[3])
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"time {fields[3]!r} is not a finite number >= 0")
        except ValueError as error:
            raise CollsimError(f"{path}:{number}: malformed baseline row: {error}") from None
        if fields[0] in rows:
            raise CollsimError(f"{path}:{number}: case {fields[0]} appears twice")
        rows[fields[0]] = (fields[1], fields[2], value)
    return rows


def write_baseline(path: Path, suite: Suite, outcomes: list[Outcome]) -> None:
    """Write the baseline: sorted, one row per measurement, atomically."""
    lines = [f"# collsim baseline of suite {suite.name} ({suite.path.name}); "
             "regenerate with: collsim check SUITE --update-baseline", BASELINE_HEADER]
    for outcome in sorted(outcomes, key=lambda o: o.id):
        lines.append(f"{outcome.id}\t{outcome.library}\t{outcome.platform_hash}\t"
                     f"{outcome.time_s!r}")
    write_output(path, ("\n".join(lines) + "\n").encode())


def _judge(case: Case, checks: tuple[str, ...], row: dict, baseline: dict) -> Outcome:
    outcome = Outcome(
        id=case.measurement_id(row["bytes"]),
        collective=row["collective"],
        algorithm=row["algorithm"],
        np=row["np"],
        n_bytes=row["bytes"],
        platform=case.platform_name,
        time_s=row["time_s"],
        model_s=row["model_s"],
        model_class=row["model_class"],
        platform_hash=row["platform_hash"],
        library=row["library"],
    )
    if row.get("check") == "wrong":
        outcome.failures.append(("wrong-result", "the collective's result is wrong"))
    if "model" in checks:
        drift = row["time_s"] / row["model_s"] - 1 if row["model_s"] else math.inf
        if row["model_class"] == "approx":
            outcome.failures.append((
                "no-exact-model",
                f"model check asked, but the model is only approximate here "
                f"(profile {case.profile}, platform {case.platform_name}; no network pattern "
                f"for {row['collective']}/{row['algorithm']})"))
        elif row["model_class"] == "network":
            if not network_agrees(row["time_s"], row["model_s"], case.network_rel_tol):
                outcome.failures.append((
                    "model-drift",
                    f"simulated {row['time_s']!r} s, network model {row['model_s']!r} s "
                    f"({drift:+.4%}, tolerance {case.network_rel_tol:g})"))
        elif not row["model_agrees"]:
            outcome.failures.append((
                "model-drift",
                f"simulated {row['time_s']!r} s, model {row['model_s']!r} s "
                f"({drift:+.4%}, class {row['model_class']}, "
                f"interval [{row['model_low_s']!r}, {row['model_high_s']!r}])"))
    if "baseline" in checks:
        recorded = baseline.get(outcome.id)
        if recorded is None:
            outcome.failures.append(("no-baseline",
                                     "no baseline row (run with --update-baseline)"))
        else:
            library, platform_hash, baseline_s = recorded
            outcome.baseline_s = baseline_s
            if platform_hash != row["platform_hash"]:
                outcome.failures.append((
                    "stale-baseline",
                    f"baseline recorded on platform {platform_hash}, now {row['platform_hash']}: "
                    "not a drift; accept it with --update-baseline"))
            else:
                drift = (row["time_s"] - baseline_s) / baseline_s if baseline_s else (
                    0.0 if row["time_s"] == 0 else math.inf)
                if abs(drift) > case.baseline_rel_tol:
                    # another SimGrid is no reason for another time (the supported
                    # versions give the same ones: README, "SimGrid versions"), but
                    # the line says which recorded it
                    other = (f"; baseline recorded under {library}, now {row['library']}"
                             if library != row["library"] else "")
                    outcome.failures.append((
                        "baseline-drift",
                        f"simulated {row['time_s']!r} s, baseline {baseline_s!r} s "
                        f"({drift:+.4%}, tolerance {case.baseline_rel_tol:g}{other})"))
    return outcome


def run_suite(suite: Suite, *, jobs: int = 0, scheduler: str | None = None,
              timeout_s: float = 600.0, update_baseline: bool = False) -> list[Outcome]:
    """Simulate every case and judge every measurement.

    Parameters
    ----------
    suite : Suite
        A loaded suite.
    jobs : int
        Worker processes (0: one per core; 1: in this process).
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://HOST:PORT``) to run on.
    timeout_s : float
        Wall-clock limit of one simulation.
    update_baseline : bool
        If true, the baseline is rewritten from this run and baseline checks
        pass; model checks still apply.

    Raises
    ------
    CollsimError
        If a simulation fails (a crash, a deadlock, a timeout).
    """
    baseline = {} if update_baseline else read_baseline(suite.baseline_path)
    with Grid("check", jobs=jobs, scheduler=scheduler) as grid:
        results = grid.run([Job(spec=case.spec, platform=case.platform, profile=case.profile,
                                label=case.platform_name, timeout_s=timeout_s)
                            for case in suite.cases], fail_fast=True)
    judged: list[tuple[Case, Outcome]] = []
    for case, result in zip(suite.cases, results):
        checks = tuple(c for c in case.checks if not (update_baseline and c == "baseline"))
        for row in result.rows:
            judged.append((case, _judge(case, checks, row, baseline)))
    if update_baseline:
        write_baseline(suite.baseline_path, suite,
                       [outcome for case, outcome in judged if "baseline" in case.checks])
    return [outcome for _, outcome in judged]


def junit_xml(suite: Suite, outcomes: list[Outcome]) -> bytes:
    """The outcomes as JUnit XML: one testsuite, one testcase per measurement.

    No ``time`` attributes (optional in JUnit): a simulation's wall time
    depends on the machine and its load, and the same results should give
    the same file.
    """
    failures = sum(1 for o in outcomes if not o.ok)
    root = ET.Element("testsuites", name=suite.name, tests=str(len(outcomes)),
                      failures=str(failures), errors="0")
    testsuite = ET.SubElement(root, "testsuite", name=suite.name, tests=str(len(outcomes)),
                              failures=str(failures), errors="0", skipped="0")
    for outcome in outcomes:
        testcase = ET.SubElement(
            testsuite, "testcase", name=outcome.id,
            classname=f"collsim.{outcome.collective}.{outcome.algorithm}")
        for kind, message in outcome.failures:
            failure = ET.SubElement(testcase, "failure", message=message, type=kind)
            failure.text = (f"measured time_s={outcome.time_s!r} model_s={outcome.model_s!r} "
                            f"baseline_s={outcome.baseline_s!r}")
    ET.indent(root)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8") + b"\n"


def json_report(suite: Suite, outcomes: list[Outcome]) -> bytes:
    """The outcomes as one JSON document."""
    document = {
        "suite": suite.name,
        "passed": sum(1 for o in outcomes if o.ok),
        "failed": sum(1 for o in outcomes if not o.ok),
        "cases": [
            {"id": o.id, "collective": o.collective, "algorithm": o.algorithm, "np": o.np,
             "bytes": o.n_bytes, "platform": o.platform, "time_s": o.time_s,
             "model_s": o.model_s, "model_class": o.model_class, "baseline_s": o.baseline_s,
             "status": "ok" if o.ok else "failed",
             "failures": [{"type": k, "message": m} for k, m in o.failures]}
            for o in outcomes
        ],
    }
    return (json.dumps(document, indent=1) + "\n").encode()


def summary(outcomes: list[Outcome]) -> str:
    """A short human summary: one line per failure, what drifted, and the counts last."""
    lines = []
    for outcome in outcomes:
        for kind, message in outcome.failures:
            lines.append(f"FAIL {outcome.collective}/{outcome.algorithm} np={outcome.np} "
                         f"{format_bytes(outcome.n_bytes)} on {outcome.platform} [{kind}]: "
                         f"{message}")
    passed = sum(1 for o in outcomes if o.ok)
    failed = len(outcomes) - passed
    drifted = sorted({f"{o.collective}/{o.algorithm}" for o in outcomes if not o.ok})
    if drifted:
        lines.append(f"drifted: {', '.join(drifted)}")
    lines.append(f"{passed} passed, {failed} failed")
    return "\n".join(lines) + "\n"


def main_check(suite_path: str, *, junit: str | None, json_path: str | None,
               update_baseline: bool, jobs: int, scheduler: str | None = None,
               timeout_s: float = 600.0, timing_only: bool = False) -> int:
    """The ``collsim check`` command; returns its exit status."""
    suite = load_suite(suite_path, timing_only=timing_only)
    read_baseline(suite.baseline_path)  # a malformed baseline is bad input: fail before running
    # every file this run will write, checked before the first simulation
    for option, output in (("--junit", junit), ("--json", json_path),
                           ("--update-baseline", suite.baseline_path if update_baseline else None)):
        if output:
            check_output_path(output, option, rewrites="baseline")
    started = time.perf_counter()
    outcomes = run_suite(suite, jobs=jobs, scheduler=scheduler, timeout_s=timeout_s,
                         update_baseline=update_baseline)
    if junit:
        write_output(junit, junit_xml(suite, outcomes))
    if json_path:
        write_output(json_path, json_report(suite, outcomes))
    sys.stdout.write(f"collsim check {suite.path}: {len(outcomes)} measurements in "
                     f"{len(suite.cases)} simulations, "
                     f"{format_seconds(time.perf_counter() - started)}\n")
    if update_baseline:
        sys.stdout.write(f"baseline written to {suite.baseline_path}\n")
    sys.stdout.write(summary(outcomes))
    return 0 if all(o.ok for o in outcomes) else 1
