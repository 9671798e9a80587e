"""`collsim check`: the CI gate fails on model drift, algorithm drift and stale baselines."""

from pathlib import Path

import pytest
import xmlschema

import collsim.analysis.models.allreduce as allreduce_models
from collsim.analysis.models import Prediction
from collsim.cli import main
from collsim.native import is_selector

SUITE = """\
[suite]
name = "small"
baseline = "small.baseline.tsv"

[[case]]
name = "xbar"
platform = {{ generator = "crossbar", nodes = 8 }}
collective = "{collective}"
algorithms = {algorithms}
np = [3, 8]
bytes = ["8", "4KiB"]
checks = {checks}
"""
SCHEMA = xmlschema.XMLSchema(Path(__file__).with_name("data") / "junit.xsd")


def write_suite(tmp_path, collective="allreduce", algorithms='"all"',
                checks='["model", "baseline"]'):
    path = tmp_path / "small.toml"
    path.write_text(SUITE.format(collective=collective, algorithms=algorithms, checks=checks))
    return path


def check(capsys, *args):
    status = main(["check", *map(str, args), "--jobs", "1"])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def allreduce_measurements(entries):
    """Measurements of the small suite: allreduce algorithms ("all": but the selectors)
    x 2 np x 2 sizes."""
    return 4 * sum(1 for e in entries if e["collective"] == "allreduce"
                   and not is_selector(e["algorithm"]))


def test_pass_then_baseline_roundtrip_with_junit_and_json(tmp_path, capsys, entries):
    n = allreduce_measurements(entries)
    suite = write_suite(tmp_path)
    status, out, _ = check(capsys, suite)
    assert status == 1 and "[no-baseline]" in out  # nothing recorded yet
    status, out, _ = check(capsys, suite, "--update-baseline")
    assert status == 0 and out.rstrip().endswith(f"{n} passed, 0 failed")
    baseline = (tmp_path / "small.baseline.tsv").read_text().splitlines()
    rows = [line for line in baseline if not line.startswith("#")]
    assert len(rows) == n and rows == sorted(rows)
    assert all(row.split("\t")[1].startswith("SimGrid ") for row in rows)
    junit, report = tmp_path / "junit.xml", tmp_path / "report.json"
    status, out, _ = check(capsys, suite, "--junit", junit, "--json", report)
    assert status == 0
    SCHEMA.validate(str(junit))
    assert junit.read_text().count("<testcase ") == n
    assert '"failed": 0' in report.read_text()


def test_a_one_percent_model_change_fails_and_names_the_algorithm(tmp_path, capsys, monkeypatch):
    suite = write_suite(tmp_path, checks='["model"]')
    original = allreduce_models.ring

    def ring_one_percent_off(*args, **kwargs):
        p = original(*args, **kwargs)
        return Prediction(p.time_s * 1.01, p.low_s * 1.01, p.high_s * 1.01)

    monkeypatch.setattr(allreduce_models, "ring", ring_one_percent_off)
    junit = tmp_path / "junit.xml"
    status, out, _ = check(capsys, suite, "--junit", junit)
    assert status == 1
    assert "drifted: allreduce/ring\n" in out and "[model-drift]" in out
    assert "-0.99" in out  # simulated is 0.99% below the inflated model
    SCHEMA.validate(str(junit))
    failed = [line for line in junit.read_text().splitlines() if "<failure" in line]
    assert len(failed) == 4 and all("model-drift" in line for line in failed)
    assert "measured time_s=" in junit.read_text()

    monkeypatch.setattr(allreduce_models, "ring", original)
    status, out, _ = check(capsys, suite)
    assert status == 0


def test_an_extra_message_fails_and_names_the_algorithm(tmp_path, capsys, monkeypatch,
                                                       build_with_fault):
    suite = write_suite(tmp_path, collective="bcast", algorithms='["binomial", "linear"]',
                        checks='["model"]')
    collbench = build_with_fault(
        tmp_path, "algorithms/bcast/bcast_binomial.c",
        "cleanup:\n    return rc;",
        "    if (size > 1 && rank == root)\n"
        "        COLLSIM_CHECK(MPI_Send(buffer, 1, datatype, (root + 1) % size, 99, comm));\n"
        "    if (size > 1 && rank == (root + 1) % size)\n"
        "        COLLSIM_CHECK(MPI_Recv(buffer, 1, datatype, root, 99, comm, MPI_STATUS_IGNORE));\n"
        "cleanup:\n    return rc;")
    monkeypatch.setenv("COLLSIM_COLLBENCH", str(collbench))
    status, out, _ = check(capsys, suite)
    assert status == 1 and "drifted: bcast/binomial\n" in out
    assert "bcast/linear" not in out.split("drifted:")[1]
    monkeypatch.delenv("COLLSIM_COLLBENCH")
    status, out, _ = check(capsys, suite)
    assert status == 0


def test_a_baseline_from_another_simgrid_still_holds(tmp_path, capsys):
    """The supported SimGrid versions give the same times: a baseline recorded under
    another still gates, and a drift from it names both versions."""
    suite = write_suite(tmp_path, checks='["baseline"]')
    assert check(capsys, suite, "--update-baseline")[0] == 0
    baseline = tmp_path / "small.baseline.tsv"
    text = baseline.read_text()
    current = [line.split("\t")[1] for line in text.splitlines() if not line.startswith("#")][0]
    baseline.write_text(text.replace(f"\t{current}\t", "\tSimGrid 3.31.0\t"))
    assert check(capsys, suite)[0] == 0
    lines = baseline.read_text().splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if not line.startswith("#"))
    fields = lines[first].rstrip("\n").split("\t")
    fields[-1] = repr(float(fields[-1]) * 2)
    lines[first] = "\t".join(fields) + "\n"
    baseline.write_text("".join(lines))
    status, out, _ = check(capsys, suite)
    assert status == 1 and "[baseline-drift]" in out and "[stale-baseline]" not in out
    assert f"baseline recorded under SimGrid 3.31.0, now {current}" in out


def test_a_changed_baseline_time_is_a_drift(tmp_path, capsys, entries):
    suite = write_suite(tmp_path, checks='["baseline"]')
    assert check(capsys, suite, "--update-baseline")[0] == 0
    baseline = tmp_path / "small.baseline.tsv"
    lines = baseline.read_text().splitlines()
    fields = lines[2].split("\t")
    fields[3] = repr(float(fields[3]) * 1.02)
    lines[2] = "\t".join(fields)
    baseline.write_text("\n".join(lines) + "\n")
    status, out, _ = check(capsys, suite)
    assert status == 1 and "[baseline-drift]" in out and "-1.96" in out
    assert out.rstrip().endswith(f"{allreduce_measurements(entries) - 1} passed, 1 failed")


@pytest.mark.parametrize(
    "text, message",
    [
        ("[suite]\ncolour = 1\n[[case]]\n", "suite.colour: unknown key"),
        ("[[case]]\ncollective = 'allreduce'\nnp = 2\nbytes = [8]\n", "missing key 'platform'"),
        ("[[case]]\nplatform = {generator = 'crossbar', nodes = 4}\ncollective = 'allreduce'\n"
         "algorithms = ['warp']\nnp = 2\nbytes = [8]\n", "unknown algorithm 'warp'"),
        ("[[case]]\nplatform = {generator = 'crossbar', nodes = 4}\ncollective = 'allreduce'\n"
         "np = 2\nbytes = ['-8']\n", "malformed size"),
        ("[[case]]\nplatform = {generator = 'crossbar', nodes = 4}\ncollective = 'allreduce'\n"
         "np = 'two'\nbytes = [8]\n", "np must be a whole number from 1"),
        ("[[case]]\nplatform = {generator = 'torus'}\ncollective = 'allreduce'\nnp = 2\n"
         "bytes = [8]\n", "unknown generator 'torus'"),
        ("[[case]]\nplatform = {catalog = 'cray-1'}\ncollective = 'allreduce'\nnp = 2\n"
         "bytes = [8]\n", "unknown machine 'cray-1'"),
        ("[[case]]\nplatform = {generator = 'crossbar', nodes = 0}\ncollective = 'allreduce'\n"
         "np = 2\nbytes = [8]\n", "nodes must be an integer >= 1"),
        ("[suite]\nname = 'x'\n", "has no [[case]]"),
        ("[[case]\n", "not valid TOML"),
        ("[[case]]\nplatform = {generator = 'crossbar', nodes = 4}\ncollective = 'allreduce'\n"
         "np = 2\nbytes = [8]\nchecks = ['vibes']\n", "checks: must be a non-empty list"),
        ("[[case]]\nplatform = {generator = 'crossbar', nodes = 4}\ncollective = 'allreduce'\n"
         "np = 2\nbytes = [8]\nnetwork_rel_tol = 2\n", "case[0].network_rel_tol must be a number"),
        ("[suite]\nnetwork_rel_tol = -1\n[[case]]\n", "suite.network_rel_tol must be a number"),
        ("[[case]]\nplatform = {generator = 'crossbar', nodes = 4}\ncollective = 'allreduce'\n"
         "np = 2\nbytes = [8]\nmapping = 'spiral'\n", "case[0].mapping: unknown mapping"),
    ],
)
def test_malformed_suites_are_one_line_errors(tmp_path, capsys, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    status, out, err = check(capsys, path)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err and str(path) in err


def test_malformed_baseline_is_a_one_line_error(tmp_path, capsys):
    suite = write_suite(tmp_path, checks='["baseline"]')
    (tmp_path / "small.baseline.tsv").write_text("xbar/allreduce/ring/np=3/bytes=8\tSimGrid\n")
    status, out, err = check(capsys, suite)
    assert status == 2 and out == ""
    assert "small.baseline.tsv:1: malformed baseline row" in err and err.count("\n") == 1


def test_missing_suite(tmp_path, capsys):
    status, _, err = check(capsys, tmp_path / "absent.toml")
    assert status == 2 and "cannot read suite" in err


def test_the_projects_gate_covers_the_registry(entries):
    from collsim.checks import load_suite
    from collsim.harness import REPO_ROOT

    suite = load_suite(REPO_ROOT / "scenarios" / "ci.toml")
    model_checked = {(c.spec.collective, c.spec.algorithm) for c in suite.cases
                     if "model" in c.checks and c.platform.get("generator") == "crossbar"}
    assert model_checked == {(e["collective"], e["algorithm"]) for e in entries}
    baseline_platforms = {c.platform.get("generator", "catalog") for c in suite.cases
                          if "baseline" in c.checks}
    assert {"fat_tree", "dragonfly", "dual_rail"} <= baseline_platforms
    assert any("multicore" in c.platform for c in suite.cases if "baseline" in c.checks)


NETWORK_SUITE = """\
[suite]
name = "network"

[[case]]
name = "tapered"
platform = {{ generator = "fat_tree", levels = 2, down_ports = [4, 4], up_ports = [1, 1] }}
collective = "allreduce"
algorithms = ["recursive_doubling"]
np = [16]
mapping = "random"
bytes = ["8", "64KiB"]
checks = ["model"]
network_rel_tol = {tolerance}
"""


def test_a_network_model_drift_beyond_the_tolerance_fails(tmp_path, capsys, monkeypatch):
    import collsim.runner

    suite = tmp_path / "network.toml"
    suite.write_text(NETWORK_SUITE.format(tolerance=0.01))
    status, out, _ = check(capsys, suite)
    assert status == 0 and out.rstrip().endswith("2 passed, 0 failed")
    original = collsim.runner.collective_time

    def two_percent_over(*args, **kwargs):
        time_s, messages = original(*args, **kwargs)
        return time_s * 1.02, messages

    monkeypatch.setattr(collsim.runner, "collective_time", two_percent_over)
    status, out, _ = check(capsys, suite)
    assert status == 1 and "drifted: allreduce/recursive_doubling\n" in out
    assert out.count("[model-drift]") == 2 and "tolerance 0.01" in out and "-1.96" in out
    suite.write_text(NETWORK_SUITE.format(tolerance=0.03))  # the same drift, within 3 %
    status, out, _ = check(capsys, suite)
    assert status == 0


def test_the_projects_gate_holds_non_crossbar_rows_to_the_network_model():
    from collsim.checks import load_suite
    from collsim.harness import REPO_ROOT
    from collsim.network_model import has_pattern

    suite = load_suite(REPO_ROOT / "scenarios" / "ci.toml")
    held = [c for c in suite.cases if "model" in c.checks
            and c.platform.get("generator") != "crossbar"]
    assert {c.platform.get("generator", "catalog") for c in held} >= {"fat_tree", "dragonfly",
                                                                       "catalog"}
    assert all(has_pattern(c.spec.collective, c.spec.algorithm) for c in held)
    assert all(c.network_rel_tol < 0.25 for c in held)
