"""Every kind of file collsim writes is the same bytes when written again (issue 27).

Each file is written twice by separate `collsim` processes that differ in
what must not matter: the date matplotlib would stamp (SOURCE_DATE_EPOCH), the
order of Python's sets and dicts of strings (PYTHONHASHSEED) and the working
directory.  Kinds: the platform's XML and hostfile and its picture (SVG, PNG),
`collsim select`'s CSV, heatmap and rules file, a study's export (CSV, Parquet) and report (HTML with inline
SVG) from two databases filled by two runs, `collsim check`'s JUnit and JSON,
and `collsim repro`'s text, JSON and figure.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

STUDY = """\
[study]
name = "determinism"
np = [4]

[[machine]]
name = "xbar"
platform = { generator = "crossbar", nodes = 4, bandwidth_Bps = 5e9 }
price = { per_node = 100.0, per_switch = 1000.0 }

[[machine]]
name = "xbar-two-cores"
platform = { generator = "crossbar", nodes = 2, cores_per_node = 2 }

[[workload]]
collective = "allreduce"
sizes = ["8", "64KiB"]
algorithms = ["recursive_doubling", "ring"]
"""
SUITE = """\
[suite]
name = "determinism"
baseline = "small.baseline.tsv"

[[case]]
name = "xbar"
platform = { generator = "crossbar", nodes = 4 }
collective = "reduce"
algorithms = ["binomial", "linear"]
np = [3, 4]
bytes = ["8", "4KiB"]
checks = ["model"]
"""


def collsim(run: int, cwd, *args: str) -> None:
    """``collsim args`` in a process of its own, the run's number in what must not matter."""
    cwd.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONHASHSEED": str(run), "SOURCE_DATE_EPOCH": str(86400 * run + 1)}
    result = subprocess.run([sys.executable, "-m", "collsim", *args], cwd=cwd, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def written_twice(tmp_path, names: list[str], *args: str) -> list[tuple[bytes, bytes]]:
    """Runs ``collsim args`` twice (``{out}`` in args: the run's own directory) and
    returns each named file's bytes from both runs."""
    outs = []
    for run in (1, 2):
        out = tmp_path / f"run{run}"
        collsim(run, out, *(arg.format(out=out) for arg in args))
        outs.append(out)
    return [((outs[0] / name).read_bytes(), (outs[1] / name).read_bytes()) for name in names]


def test_a_platforms_xml_and_hostfile_are_the_same_bytes(tmp_path):
    files = written_twice(tmp_path, ["p.xml", "hosts"], "platform", "generate", "seed003_hydra",
                          "-o", "{out}/p.xml", "--hostfile", "{out}/hosts", "--np", "64",
                          "--mapping", "random:7")
    for first, second in files:
        assert first == second


@pytest.mark.parametrize("name", ["seed003_hydra.svg", "seed003_hydra.png"])
def test_a_platform_picture_is_the_same_bytes(tmp_path, name):
    ((first, second),) = written_twice(tmp_path, [name], "platform", "draw", "seed003_hydra",
                                       "-o", "{out}/" + name)
    assert first == second
    assert b"<dc:date>" not in first and b"Software" not in first


def test_selects_csv_heatmap_and_rules_are_the_same_bytes(tmp_path):
    files = written_twice(tmp_path, ["sel.csv", "sel.png", "sel.rules"], "select",
                          "--platform", "crossbar", "--nodes", "4", "--coll", "allreduce",
                          "--np", "3,4", "--bytes", "8,4KiB", "--algorithms",
                          "recursive_doubling,ring", "--jobs", "1", "-o", "{out}/sel",
                          "--rules", "{out}/sel.rules")
    for first, second in files:
        assert first == second


def test_a_studys_export_and_report_are_the_same_bytes(tmp_path):
    """Two runs of one study into two databases: the same CSV, Parquet and report."""
    scenario = tmp_path / "study.toml"
    scenario.write_text(STUDY)
    outs = []
    for run in (1, 2):
        out = tmp_path / f"run{run}"
        collsim(run, out, "study", str(scenario), "--db", str(out / "s.db"), "--jobs", "1")
        collsim(run + 2, out, "export", str(out / "s.db"), "--csv", str(out / "s.csv"),
                "--parquet", str(out / "s.parquet"))
        collsim(run + 4, out, "report", str(out / "s.db"), "-o", str(out / "s.html"))
        outs.append(out)
    for name in ("s.csv", "s.parquet", "s.html"):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes(), name
    assert b"<svg" in (outs[0] / "s.html").read_bytes()


def test_checks_junit_and_json_are_the_same_bytes(tmp_path):
    suite = tmp_path / "suite.toml"
    suite.write_text(SUITE)
    files = written_twice(tmp_path, ["junit.xml", "report.json"], "check", str(suite),
                          "--jobs", "1", "--junit", "{out}/junit.xml", "--json",
                          "{out}/report.json")
    for first, second in files:
        assert first == second


def test_repros_text_json_and_figure_are_the_same_bytes(tmp_path):
    files = written_twice(tmp_path, ["r.txt", "r.json", "r.png"], "repro", "--coll", "reduce",
                          "--alg", "binomial,fixed_order", "--platforms", "crossbar",
                          "--nodes", "4", "--cores-per-node", "2", "--mappings",
                          "block,cyclic", "--np", "4", "--bytes", "8", "--jobs", "1",
                          "--db", "{out}/r.db", "-o", "{out}/r")
    for first, second in files:
        assert first == second
