"""collsim app with every collective (issue 26): an outside program that calls each of them.

``tests/data/app/collcheck_all.c`` calls every blocking collective after a barrier and
checks every result (MPI_IN_PLACE where the standard allows it, the variants with counts
with even and uneven blocks, MPI_Reduce_scatter with equal and unequal counts,
MPI_Alltoallw, non-commutative reductions), on the world and on two halves, and prints how
many calls of each function it made.  Under ``collsim app`` with collsim's algorithms
chosen per collective the results must be right and the summary must count those calls per
collective, function and algorithm, naming the calls collsim did not take; the same
program must run under the real MPIs, with and without the interposition library.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from collsim.cli import main

DATA = Path(__file__).parent / "data" / "app"
PROGRAM = DATA / "collcheck_all.c"

#: one collsim algorithm per collective (the first algorithm of each new collective)
USES = {"allreduce": "recursive_doubling", "reduce": "binomial", "bcast": "binomial",
        "allgather": "ring", "alltoall": "linear", "gather": "linear", "scatter": "linear",
        "reduce_scatter": "reduce_then_scatter", "barrier": "dissemination", "scan": "linear",
        "exscan": "linear"}

#: the program's counter -> (collective, MPI function, collsim's algorithm or None: the
#: library's, named "mpi (not intercepted)")
COUNTERS = {
    "MPI_Allgather": ("allgather", "MPI_Allgather", True),
    "MPI_Allgatherv:even": ("allgather", "MPI_Allgatherv", True),
    "MPI_Allgatherv:uneven": ("allgather", "MPI_Allgatherv", False),
    "MPI_Alltoall": ("alltoall", "MPI_Alltoall", True),
    "MPI_Alltoallv:even": ("alltoall", "MPI_Alltoallv", True),
    "MPI_Alltoallv:uneven": ("alltoall", "MPI_Alltoallv", False),
    "MPI_Alltoallw": ("alltoall", "MPI_Alltoallw", False),
    "MPI_Gather": ("gather", "MPI_Gather", True),
    "MPI_Gatherv:even": ("gather", "MPI_Gatherv", True),
    "MPI_Gatherv:uneven": ("gather", "MPI_Gatherv", False),
    "MPI_Scatter": ("scatter", "MPI_Scatter", True),
    "MPI_Scatterv:even": ("scatter", "MPI_Scatterv", True),
    "MPI_Scatterv:uneven": ("scatter", "MPI_Scatterv", False),
    "MPI_Reduce_scatter_block": ("reduce_scatter", "MPI_Reduce_scatter_block", True),
    "MPI_Reduce_scatter:equal": ("reduce_scatter", "MPI_Reduce_scatter", True),
    "MPI_Reduce_scatter:unequal": ("reduce_scatter", "MPI_Reduce_scatter", False),
    "MPI_Scan": ("scan", "MPI_Scan", True),
    "MPI_Exscan": ("exscan", "MPI_Exscan", True),
    "MPI_Barrier": ("barrier", "MPI_Barrier", True),
}
NOT_INTERCEPTED = "mpi (not intercepted)"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("collcheck_all")
    programs = {"smpi": out / "smpi", "real": out / "real"}
    assert main(["cc", "-O2", "-o", str(programs["smpi"]), str(PROGRAM)]) == 0
    assert main(["cc", "--real-mpi", "-O2", "-o", str(programs["real"]), str(PROGRAM)]) == 0
    return programs


def _app(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["app", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _counts(out: str) -> dict[str, int]:
    found = re.search(r"collcheck_all: \d+ checks correct; calls (.*)", out)
    assert found, out
    return {name: int(n) for name, n in (w.split("=") for w in found.group(1).split())}


def _check_summary(out: str, uses: dict[str, str]) -> list[dict]:
    """Every call the program counted is in the summary, under its collective, function
    and algorithm (collsim's, or the library's when collsim takes no such call)."""
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    made = _counts(out)
    expected: dict[tuple, int] = {}
    for counter, (collective, function, collsims) in COUNTERS.items():
        algorithm = uses[collective] if collsims else NOT_INTERCEPTED
        key = (collective, function, algorithm)
        expected[key] = expected.get(key, 0) + made[counter]
    found: dict[tuple, int] = {}
    for row in rows:
        key = (row["collective"], row["function"], row["algorithm"])
        found[key] = found.get(key, 0) + row["calls"]
    assert {k: found.get(k) for k in expected} == expected
    return rows


@pytest.mark.parametrize("np", [5, 8])
def test_every_collective_by_collsims_algorithms_under_smpi(built, capsys, np):
    """Right results; every call counted per collective, function and algorithm; each call
    of a plain function (not a variant, not the barrier that follows another call) takes
    the time its model says on the crossbar."""
    status, out, err = _app(capsys, "--np", str(np), "--json",
                            *[f"--use={c}:{a}" for c, a in USES.items()], "--",
                            str(built["smpi"]), "noncommutative")
    assert status == 0, err
    rows = _check_summary(out, USES)
    after_a_barrier = ("MPI_Allgather", "MPI_Alltoall", "MPI_Gather", "MPI_Scatter",
                       "MPI_Reduce_scatter_block", "MPI_Scan", "MPI_Exscan")
    plain = [row for row in rows if row["function"] in after_a_barrier
             and row["algorithm"] == USES[row["collective"]]]
    assert {row["function"] for row in plain} == set(after_a_barrier)
    for row in plain:
        assert row["per_call_s"] == pytest.approx(row["model_s"], rel=1e-6), row


def test_selectors_take_the_new_collectives(built, capsys):
    """openmpi_default and mpich_default run the library's choice and the summary names it
    (Open MPI's scan and exscan: coll/basic's linear; MPICH's barrier: dissemination)."""
    uses = {"scan": "openmpi_default", "exscan": "openmpi_default", "barrier": "mpich_default"}
    status, out, err = _app(capsys, "--np", "4", "--json",
                            *[f"--use={c}:{a}" for c, a in uses.items()], "--",
                            str(built["smpi"]))
    assert status == 0, err
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    chosen = {(r["collective"], r["selected"]) for r in rows if r["collective"] in uses}
    assert chosen == {("scan", "linear"), ("exscan", "linear"), ("barrier", "dissemination")}
    assert all(r["model_s"] > 0 for r in rows if r["collective"] in uses)


def test_every_collective_by_collsims_algorithms_under_mpirun(built, capsys):
    status, out, err = _app(capsys, "--real-mpi", "--np", "4", "--json",
                            *[f"--use={c}:{a}" for c, a in USES.items()], "--",
                            str(built["real"]), "noncommutative")
    assert status == 0, err
    _check_summary(out, USES)


@pytest.mark.parametrize("mpi", ["openmpi", "mpich"])
def test_the_program_is_right_under_the_real_mpis(tmp_path, mpi):
    """The reference: the same source with the MPI library's own algorithms only."""
    exe = tmp_path / "collcheck_all"
    subprocess.run([f"mpicc.{mpi}", "-O2", "-o", str(exe), str(PROGRAM)], check=True)
    argv = [f"mpirun.{mpi}", "-np", "5", str(exe), "noncommutative"]
    if mpi == "openmpi":
        argv[1:1] = ["--oversubscribe", "--allow-run-as-root", "--mca", "btl", "self,vader"]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert _counts(result.stdout)["MPI_Alltoallw"] == 9


def test_rules_ranges_split_a_new_collective(built, capsys, tmp_path):
    """A rules file's byte ranges are one block: alltoall of 4 and 28 B by linear, of
    4000 B by the library; every other collective without rules goes to the library."""
    rules = tmp_path / "alltoall.rules"
    rules.write_text("collsim-rules 1\nalltoall linear bytes=0-100\nalltoall mpi bytes=101-\n")
    status, out, err = _app(capsys, "--np", "4", "--json", "--rules", str(rules), "--",
                            str(built["smpi"]))
    assert status == 0, err
    rows = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    plain = {(r["bytes"], r["algorithm"]) for r in rows if r["function"] == "MPI_Alltoall"}
    assert plain == {(4, "linear"), (28, "linear"), (4000, "mpi")}
    assert {r["algorithm"] for r in rows if r["collective"] == "gather"} == {"mpi"}


def test_reduce_scatter_with_counts_and_open_mpis_selector_is_refused(built, capsys):
    """Open MPI decides MPI_Reduce_scatter by a table of its own, which collsim does not
    model: openmpi_default refuses such a call rather than decide it as the block one."""
    status, out, err = _app(capsys, "--np", "4", "--use", "reduce_scatter:openmpi_default",
                            "--", str(built["smpi"]))
    assert status == 2
    assert "MPI_Reduce_scatter: reduce_scatter/openmpi_default decides as " \
           "MPI_Reduce_scatter_block" in err


def test_a_call_no_rule_holds_is_refused(built, capsys, tmp_path):
    rules = tmp_path / "gaps.rules"
    rules.write_text("collsim-rules 1\nscatter linear bytes=0-100\n")
    status, out, err = _app(capsys, "--np", "3", "--rules", str(rules), "--",
                            str(built["smpi"]))
    assert status == 2
    assert f"MPI_Scatter: scatter no rule in {rules} holds this call (np=3, 4000 bytes" in err
