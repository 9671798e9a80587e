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

from collsim.params import AlgorithmParams, parameter_names
from collsim.native import is_selector
from collsim.errors import CollsimError
from collsim.grid import Grid, Job
from collsim.files import check_output_path, read_text, read_toml
from collsim.limits import check
from collsim.network_model import NETWORK_REL_TOL, network_agrees
from collsim.platforms import MAPPINGS, platform_from_spec
from collsim.files import write_output
from collsim.profiles import load_profile
from collsim.harness import find_algorithm, registry
from collsim.runner import NONCOMMUTATIVE_OPS, RunSpec, validate_run
from collsim.units import format_bytes, format_seconds, parse_bytes

__all__ = ["Suite", "Case", "Outcome", "load_suite", "run_suite", "main_check"]

# printable, no tab (the baseline's separator), no slash (the case id's), no line break
_CASE_NAME = re.compile(r"[^\t\n\r\x00-\x1f\x7f/]+")
_SUITE_KEYS = {"name", "baseline", "profile", "baseline_rel_tol", "network_rel_tol"}
_CASE_KEYS = {"name", "platform", "collective", "algorithms", "np", "bytes", "dtype", "op",
              "root", "profile", "checks", "baseline_rel_tol", "network_rel_tol", "params",
              "timing_only", "mapping"}
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


def _fail(path: Path, where: str, reason: str) -> CollsimError:
    return CollsimError(f"{path}: {where}: {reason}")


def _positive_ints(path: Path, where: str, value: object) -> tuple[int, ...]:
    """Process counts: one or a list, each within ``limits.BOUNDS["np"]``."""
    values = value if isinstance(value, list) else [value]
    if not values:
        raise _fail(path, where, "must be a positive integer or a list of them")
    return tuple(check("np", v, label=f"{path}: {where}") for v in values)


def _sizes(path: Path, where: str, value: object) -> tuple[int, ...]:
    values = value if isinstance(value, list) else [value]
    if not values:
        raise _fail(path, where, "must list at least one size")
    sizes = []
    for v in values:
        try:
            if isinstance(v, bool) or not isinstance(v, (int, str)):
                raise ValueError("a size is an integer or a string such as '64KiB'")
            sizes.append(parse_bytes(str(v)))
        except ValueError as error:
            raise _fail(path, where, str(error)) from None
    return tuple(sizes)


def _platform(path: Path, where: str, value: object) -> tuple[str, dict]:
    try:
        label = platform_from_spec(value).graph["label"]
    except ValueError as error:
        raise _fail(path, where, str(error)) from None
    return label, dict(value)


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

    unknown = set(data) - {"suite", "case"}
    if unknown:
        raise _fail(path, sorted(unknown)[0], "unknown key (expected [suite] and [[case]])")
    suite = data.get("suite", {})
    if not isinstance(suite, dict):
        raise _fail(path, "suite", "must be a table")
    unknown = set(suite) - _SUITE_KEYS
    if unknown:
        raise _fail(path, f"suite.{sorted(unknown)[0]}", "unknown key")
    name = suite.get("name", path.stem)
    baseline = suite.get("baseline", f"{path.stem}.baseline.tsv")
    if not isinstance(name, str) or not isinstance(baseline, str):
        raise _fail(path, "suite", "name and baseline must be strings")
    if not baseline or Path(baseline).name != baseline or baseline in (".", ".."):
        raise _fail(path, "suite.baseline", f"must be a file name beside the suite (no "
                    f"directory), got {baseline!r}")
    default_profile = suite.get("profile", "hockney")
    default_tol = check("rel_tol", suite.get("baseline_rel_tol", 1e-9),
                        label=f"{path}: suite.baseline_rel_tol")
    default_network_tol = check("rel_tol", suite.get("network_rel_tol", NETWORK_REL_TOL),
                                label=f"{path}: suite.network_rel_tol")

    raw_cases = data.get("case", [])
    if not isinstance(raw_cases, list) or not raw_cases:
        raise _fail(path, "case", "the suite has no [[case]]")
    entries = registry()
    cases: list[Case] = []
    for index, raw in enumerate(raw_cases):
        where = f"case[{index}]"
        if not isinstance(raw, dict):
            raise _fail(path, where, "must be a table")
        unknown = set(raw) - _CASE_KEYS
        if unknown:
            raise _fail(path, f"{where}.{sorted(unknown)[0]}", "unknown key")
        for required in ("platform", "collective", "np", "bytes"):
            if required not in raw:
                raise _fail(path, where, f"missing key {required!r}")
        platform_name, platform = _platform(path, f"{where}.platform", raw["platform"])
        collective = raw["collective"]
        if collective not in {e["collective"] for e in entries}:
            raise _fail(path, f"{where}.collective", f"unknown collective {collective!r}")
        algorithms = raw.get("algorithms", "all")
        every = algorithms == "all" or algorithms == ["all"]
        if every:
            # every algorithm but the selectors, which run one of the others
            algorithms = [e["algorithm"] for e in entries
                          if e["collective"] == collective and not is_selector(e["algorithm"])]
        if not isinstance(algorithms, list) or not all(isinstance(a, str) for a in algorithms):
            raise _fail(path, f"{where}.algorithms", "must be 'all' or a list of names")
        for algorithm in algorithms:
            try:
                find_algorithm(collective, algorithm)
            except CollsimError as error:
                raise _fail(path, f"{where}.algorithms", str(error)) from None
        nps = _positive_ints(path, f"{where}.np", raw["np"])
        sizes = _sizes(path, f"{where}.bytes", raw["bytes"])
        checks = raw.get("checks", ["model"])
        if (not isinstance(checks, list) or not checks
                or not all(c in _CHECKS for c in checks)):
            raise _fail(path, f"{where}.checks", f"must be a non-empty list of {_CHECKS}")
        tol = check("rel_tol", raw.get("baseline_rel_tol", default_tol),
                    label=f"{path}: {where}.baseline_rel_tol")
        network_tol = check("rel_tol", raw.get("network_rel_tol", default_network_tol),
                            label=f"{path}: {where}.network_rel_tol")
        mapping = raw.get("mapping", "block")
        if not isinstance(mapping, str) or mapping.partition(":")[0] not in MAPPINGS:
            raise _fail(path, f"{where}.mapping",
                        f"unknown mapping {mapping!r} (known: {', '.join(MAPPINGS)})")
        profile = raw.get("profile", default_profile)
        try:
            load_profile(profile)
        except ValueError as error:
            raise _fail(path, f"{where}.profile", str(error)) from None
        params_raw = raw.get("params", {})
        param_keys = set(parameter_names())  # algorithms/params.def, as collbench publishes it
        if not isinstance(params_raw, dict) or set(params_raw) - param_keys:
            raise _fail(path, f"{where}.params", f"keys must be among {sorted(param_keys)}")
        try:
            params = AlgorithmParams.from_values(params_raw)
        except (TypeError, ValueError) as error:
            raise _fail(path, f"{where}.params", str(error)) from None
        for key, kind in (("dtype", str), ("op", str), ("root", int)):
            if key in raw and (not isinstance(raw[key], kind) or isinstance(raw[key], bool)):
                raise _fail(path, f"{where}.{key}", f"must be a {kind.__name__}")
        check("root", raw.get("root", 0), label=f"{path}: {where}.root")
        G = platform_from_spec(platform)
        case_timing_only = raw.get("timing_only", False)
        if not isinstance(case_timing_only, bool):
            raise _fail(path, f"{where}.timing_only", "must be true or false")
        id_prefix = raw.get("name", f"{platform_name}")
        # a case's name is a field of the baseline's tab-separated lines and a JUnit name
        if not isinstance(id_prefix, str) or not _CASE_NAME.fullmatch(id_prefix):
            raise _fail(path, f"{where}.name", "must be a non-empty string of printable "
                        "characters without tabs, slashes or line breaks")
        for algorithm in algorithms:
            restrictions = find_algorithm(collective, algorithm)["restrictions"]
            for np in nps:
                # "all": only the algorithms whose restrictions this np and op meet
                if every and (("power_of_two" in restrictions and np & (np - 1))
                              or ("commutative" in restrictions
                                  and raw.get("op", "sum") in NONCOMMUTATIVE_OPS)):
                    continue
                spec = RunSpec(
                    collective=collective,
                    algorithm=algorithm,
                    np=np,
                    sizes_bytes=sizes,
                    dtype=raw.get("dtype", "double"),
                    op=raw.get("op", "sum"),
                    root=min(raw.get("root", 0), np - 1),
                    params=params,
                    mapping=mapping,
                    timing_only=timing_only or case_timing_only,
                )
                try:  # everything a run checks, before the first simulation
                    validate_run(spec, G)
                except CollsimError as error:
                    raise _fail(path, where, str(error)) from None
                cases.append(Case(id_prefix, platform_name, platform, spec, profile,
                                  tuple(checks), float(tol), float(network_tol)))
    ids = [case.measurement_id(n) for case in cases for n in case.spec.sizes_bytes]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise _fail(path, "case", f"measurement {sorted(duplicates)[0]} appears twice "
                    "(give the cases distinct names)")
    return Suite(path, name, path.parent / baseline, tuple(cases))


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
