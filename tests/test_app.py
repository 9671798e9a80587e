"""collsim cc and collsim app: unmodified MPI programs with collsim's algorithms (issue 16).

The programs are in tests/data/app: ``collcheck.c`` checks every collective result it
gets (world and two halves, MPI_IN_PLACE, a derived datatype with a user-defined op, and
with ``noncommutative`` a non-commutative op), ``cg.c`` is a small CG solver.  They are
built once per worker with ``collsim cc`` (and ``--real-mpi``) and run in-process
through ``collsim.cli.main``; each simulation takes well under a second.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from collsim.cli import main
from collsim.harness import simgrid_tool
from collsim.rules import (Rule, format_rules, match, parse_rules, read_rules, rule_from_use,
                           rules_from_cells)
from collsim.params import AlgorithmParams

DATA = Path(__file__).parent / "data" / "app"

BARRIER_1MIB = r"""
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = 1 << 17; /* 1 MiB of doubles */
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    for (int i = 0; i < n; i++)
        x[i] = i;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    free(x);
    free(y);
    MPI_Finalize();
    return 0;
}
"""

GLOBALS = r"""
#include <mpi.h>
#include <stdio.h>
static int my_rank; /* a mutable global, as unmodified programs have them */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    double x = my_rank, sum;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d sum %g\n", my_rank, sum);
    MPI_Finalize();
    return 0;
}
"""


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    """The test programs built with collsim cc (SMPI)."""
    out = tmp_path_factory.mktemp("app")
    (out / "barrier.c").write_text(BARRIER_1MIB)
    (out / "globals.c").write_text(GLOBALS)
    built = {}
    for name, source in (("collcheck", DATA / "collcheck.c"), ("cg", DATA / "cg.c"),
                         ("barrier", out / "barrier.c"), ("globals", out / "globals.c")):
        built[name] = out / name
        assert main(["cc", "-O2", "-o", str(built[name]), str(source)]) == 0
    return built


@pytest.fixture(scope="module")
def mpi_programs(tmp_path_factory):
    """collcheck and cg built with collsim cc --real-mpi."""
    out = tmp_path_factory.mktemp("app-mpi")
    built = {}
    for name in ("collcheck", "cg"):
        built[name] = out / name
        assert main(["cc", "--real-mpi", "-O2", "-o", str(built[name]),
                     str(DATA / f"{name}.c")]) == 0
    return built


def _app(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["app", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _summary(out: str) -> list[dict]:
    """The rows of allreduce, reduce and bcast, the collectives these programs check (the
    others' calls, the final gather and the barriers, go to the library: no rules)."""
    return [row for row in map(json.loads, (line for line in out.splitlines()
                                            if line.startswith("{")))
            if row["collective"] in ("allreduce", "reduce", "bcast")]


def _calls_reported(out: str) -> dict[str, int]:
    found = re.search(r"calls allreduce (\d+) reduce (\d+) bcast (\d+)", out)
    assert found, out
    return dict(zip(("allreduce", "reduce", "bcast"), map(int, found.groups())))


def _assert_checked_run(status, out, err, uses):
    assert status == 0, err
    assert "checks correct" in out
    rows = _summary(out)
    for collective, calls in _calls_reported(out).items():
        mine = [row for row in rows if row["collective"] == collective]
        assert {row["algorithm"] for row in mine} == {uses[collective]}
        assert sum(row["calls"] for row in mine) == calls
    for row in rows:
        assert set(row) >= {"collective", "algorithm", "bytes", "calls", "time_s",
                            "per_call_s", "model_s"}
        assert row["per_call_s"] == pytest.approx(row["time_s"] / row["calls"])
    assert 0 < sum(row["share"] for row in rows) <= 1


ALGORITHM_SETS = [
    # (allreduce, reduce, bcast, non-commutative op too)
    ("recursive_doubling", "binomial", "binomial", True),
    ("ring", "pipeline", "pipeline", False),
    ("rabenseifner", "in_order_binary", "scatter_allgather", True),
]


@pytest.mark.parametrize("allreduce,reduce,bcast,noncommutative", ALGORITHM_SETS)
def test_checked_program_on_a_crossbar(programs, capsys, allreduce, reduce, bcast,
                                       noncommutative):
    uses = {"allreduce": allreduce, "reduce": reduce, "bcast": bcast}
    status, out, err = _app(capsys, "--np", "5", "--json",
                            *[f"--use={c}:{a}" for c, a in uses.items()], "--",
                            str(programs["collcheck"]),
                            *(["noncommutative"] if noncommutative else []))
    _assert_checked_run(status, out, err, uses)
    assert all(row["model_s"] > 0 for row in _summary(out))


def test_checked_program_on_a_catalog_machine(programs, capsys):
    uses = {"allreduce": "ring", "reduce": "binomial", "bcast": "pipeline"}
    status, out, err = _app(capsys, "--platform", "seed004_graphene", "--np", "8", "--json",
                            *[f"--use={c}:{a}" for c, a in uses.items()], "--",
                            str(programs["collcheck"]))
    _assert_checked_run(status, out, err, uses)


def test_a_restriction_fails_the_call_and_names_it(programs, capsys):
    status, out, err = _app(capsys, "--np", "4", "--use", "allreduce:ring", "--",
                            str(programs["collcheck"]), "noncommutative")
    assert status == 2
    assert "allreduce/ring requires a commutative op" in err
    assert "--use allreduce:ring" in err
    assert err.count("\n") == 1  # one line, not one per rank, no SimGrid backtrace


def test_a_call_without_a_rule_fails(programs, capsys, tmp_path):
    rules = tmp_path / "small.rules"
    rules.write_text("collsim-rules 1\nallreduce ring bytes=0-100\n")
    status, out, err = _app(capsys, "--np", "4", "--rules", str(rules), "--",
                            str(programs["collcheck"]))
    assert status == 2
    assert f"no rule in {rules} holds this call" in err


def test_rules_file_ranges_pick_what_collsim_rules_picks(programs, capsys, tmp_path):
    """The C reader in the library and collsim.rules agree on the same file."""
    text = ("collsim-rules 1\n# small messages by recursive doubling\n"
            "allreduce recursive_doubling bytes=0-1023\nallreduce ring bytes=1024-\n"
            "bcast linear np=0-3\nbcast pipeline np=4- segment_bytes=4096\nreduce mpi\n")
    path = tmp_path / "ranges.rules"
    path.write_text(text)
    rules = read_rules(str(path))
    status, out, err = _app(capsys, "--np", "5", "--json", "--rules", str(path), "--",
                            str(programs["collcheck"]))
    assert status == 0, err
    rows = _summary(out)
    assert {row["algorithm"] for row in rows} == {"recursive_doubling", "ring", "linear",
                                                  "pipeline", "mpi"}
    for row in rows:
        assert row["algorithm"] == match(rules, row["collective"], row["np"], row["bytes"]).algorithm
        assert (row["model_s"] is None) == (row["algorithm"] == "mpi")


def test_1mib_allreduce_after_a_barrier_costs_what_collsim_run_says(programs, capsys):
    for algorithm in ("recursive_doubling", "rabenseifner"):
        status, out, err = _app(capsys, "--np", "6", "--json", "--use",
                                f"allreduce:{algorithm}", "--", str(programs["barrier"]))
        assert status == 0, err
        (row,) = _summary(out)
        assert main(["run", "--np", "6", "--coll", "allreduce", "--alg", algorithm,
                     "--bytes", "1MiB", "--json"]) == 0
        (expected,) = _summary(capsys.readouterr().out)
        assert (row["bytes"], row["calls"]) == (1 << 20, 1)
        # the same simulated time, up to the rounding of an absolute clock (start != 0)
        assert row["time_s"] == pytest.approx(expected["time_s"], rel=1e-12)
        assert row["model_s"] == pytest.approx(expected["model_s"], rel=1e-12)


def test_cg_solver_with_three_allreduce_algorithms(programs, capsys):
    times, iterations = {}, set()
    for algorithm in ("ring", "rabenseifner", "recursive_doubling"):
        status, out, err = _app(capsys, "--np", "8", "--json", "--use",
                                f"allreduce:{algorithm}", "--", str(programs["cg"]), "512")
        assert status == 0, err
        iterations.add(re.search(r"converged in (\d+) iterations", out).group(1))
        rows = {row["collective"]: row for row in _summary(out)}
        assert rows["allreduce"]["algorithm"] == algorithm
        assert rows["bcast"]["algorithm"] == rows["reduce"]["algorithm"] == "mpi"
        # ranks enter a dot product almost together (after a halo exchange): the skew
        # between them only adds to the model's time of the algorithm, and little
        per_call, model = rows["allreduce"]["per_call_s"], rows["allreduce"]["model_s"]
        assert model * (1 - 1e-9) <= per_call <= model * 1.01
        times[algorithm] = rows["allreduce"]["time_s"]
        assert 0 < rows["allreduce"]["share"] < 1
    assert len(iterations) == 1
    # 8-byte allreduce on 8 ranks: lg p steps beat 2 lg p and 2 (p - 1)
    assert times["recursive_doubling"] < times["rabenseifner"] < times["ring"]


def test_privatize_gives_each_rank_its_globals(programs, capsys):
    status, out, err = _app(capsys, "--np", "4", "--privatize", "--json", "--use",
                            "allreduce:ring", "--", str(programs["globals"]))
    assert status == 0, err
    assert sorted(line for line in out.splitlines() if line.startswith("rank")) == [
        f"rank {r} sum 6" for r in range(4)]
    (row,) = _summary(out)
    assert (row["algorithm"], row["calls"]) == ("ring", 1)


def test_table_summary_and_output_file(programs, capsys, tmp_path):
    summary = tmp_path / "summary.txt"
    status, out, err = _app(capsys, "--np", "4", "--use", "allreduce:ring", "-o", str(summary),
                            "--", str(programs["cg"]), "256")
    assert status == 0, err
    assert out.startswith("cg: N=256 converged")  # the program's output, and only it
    table = summary.read_text().splitlines()
    assert table[0].startswith("program: ") and "simulated on crossbar, 4 ranks" in table[0]
    assert table[1].split() == ["collective", "algorithm", "np", "bytes", "calls", "time",
                                "per", "call", "model", "share"]
    assert any(line.split()[:2] == ["allreduce", "ring"] for line in table[2:-1])
    assert any(line.startswith("time: summed over calls, each from its first rank's entry")
               for line in table)
    # SMPI's reduce charges no gamma, and the table says so
    assert any(line.split()[:3] == ["reduce", "mpi", "*"] for line in table)
    assert table[-1].startswith("* SMPI's own algorithms charge no reduction cost")


def test_a_program_built_without_collsim_cc_is_refused(capsys, tmp_path):
    plain = tmp_path / "plain"
    subprocess.run([simgrid_tool("smpicc"), "-o", str(plain), str(DATA / "cg.c"), "-lm"],
                   check=True, capture_output=True)
    status, out, err = _app(capsys, "--np", "2", "--use", "allreduce:ring", "--", str(plain),
                            "64")
    assert status == 2
    assert "was not linked with collsim's interposition library" in err


@pytest.mark.parametrize("args,message", [
    (["--use", "allreduce:nosuch"], "unknown algorithm 'nosuch' for allreduce"),
    (["--use", "bcast:binomial:segment_bytes=64"], "bcast/binomial takes no segment size"),
    (["--use", "allreduce"], "--use takes COLL:ALG"),
    (["--use", "allreduce:ring", "--use", "allreduce:rabenseifner"], "gives allreduce twice"),
    (["--real-mpi", "--platform", "seed003_hydra"], "--platform describes a simulated machine"),
])
def test_bad_use_is_one_line(programs, capsys, args, message):
    status, out, err = _app(capsys, "--np", "2", *args, "--", str(programs["cg"]))
    assert status == 2
    assert message in err and err.count("\n") == 1


def test_cc_without_arguments_is_one_line(capsys):
    assert main(["cc"]) == 2
    err = capsys.readouterr().err
    assert "collsim cc needs the compiler's arguments" in err and err.count("\n") == 1


def test_collsim_select_writes_rules_that_app_reads(capsys, tmp_path):
    path = tmp_path / "bcast.rules"
    assert main(["select", "--coll", "bcast", "--np", "3,4", "--bytes", "8,1MiB",
                 "--algorithms", "linear,binomial,pipeline", "--rules", str(path)]) == 0
    capsys.readouterr()
    rules = read_rules(str(path))
    assert [rule.to_line() for rule in rules] == [
        "bcast linear np=0-3 bytes=0-1048575", "bcast pipeline np=0-3 bytes=1048576-",
        "bcast linear np=4- bytes=0-1048575", "bcast pipeline np=4- bytes=1048576-"]


# --- under mpirun: the same sources with Open MPI -------------------------------------------

@pytest.mark.parametrize("allreduce,reduce,bcast,noncommutative", ALGORITHM_SETS[:2])
def test_checked_program_under_mpirun(mpi_programs, capsys, allreduce, reduce, bcast,
                                      noncommutative):
    uses = {"allreduce": allreduce, "reduce": reduce, "bcast": bcast}
    status, out, err = _app(capsys, "--real-mpi", "--np", "4", "--json",
                            *[f"--use={c}:{a}" for c, a in uses.items()], "--",
                            str(mpi_programs["collcheck"]),
                            *(["noncommutative"] if noncommutative else []))
    _assert_checked_run(status, out, err, uses)
    assert all(row["model_s"] is None for row in _summary(out))  # a real machine: no model


def test_cg_under_mpirun(mpi_programs, capsys):
    status, out, err = _app(capsys, "--real-mpi", "--np", "4", "--json", "--use",
                            "allreduce:rabenseifner", "--", str(mpi_programs["cg"]), "512")
    assert status == 0, err
    assert "converged" in out
    rows = {row["collective"]: row for row in _summary(out)}
    assert rows["allreduce"]["algorithm"] == "rabenseifner" and rows["allreduce"]["calls"] > 10


def test_restriction_under_mpirun(mpi_programs, capsys):
    status, out, err = _app(capsys, "--real-mpi", "--np", "3", "--use", "reduce:ring", "--",
                            str(mpi_programs["collcheck"]), "noncommutative")
    assert status == 2
    assert "reduce/ring requires a commutative op" in err


# --- the rules format ------------------------------------------------------------------------

def test_rules_round_trip():
    rules = [Rule("allreduce", "hierarchical", np_min=8, bytes_max=65535,
                  params=AlgorithmParams(group_count=2, inner_algorithm="ring")),
             Rule("bcast", "mpi")]
    assert parse_rules(format_rules(rules, comment="two rules"))[0].params.group_count == 2
    text = format_rules(rules)
    assert [r.to_line() for r in parse_rules(text)] == [r.to_line() for r in rules]
    assert rule_from_use("reduce:pipeline:block_count=4").params.block_count == 4


@pytest.mark.parametrize("text,message", [
    ("allreduce ring\n", "first line must be 'collsim-rules 1'"),
    ("", "empty"),
    ("collsim-rules 1\nallgathr ring\n", "unknown collective"),
    ("collsim-rules 1\nallreduce ring bytes=10-5\n", "bytes must be N, LO-HI or LO-"),
    ("collsim-rules 1\nallreduce ring colour=blue\n", "unknown key 'colour'"),
    ("collsim-rules 1\nbcast mpi segment_bytes=8\n", "takes no parameters"),
    ("collsim-rules 1\nbcast pipeline segment_bytes=8 block_count=2\n", "not both"),
])
def test_malformed_rules_name_file_and_line(text, message):
    with pytest.raises(ValueError, match=re.escape(message)) as error:
        parse_rules(text, origin="my.rules")
    assert str(error.value).startswith("my.rules:")


def test_rules_from_cells_cover_every_size():
    cells = [{"collective": "allreduce", "np": p, "bytes": n, "fastest": f}
             for p, n, f in ((2, 8, "recursive_doubling"), (2, 1 << 20, "ring"),
                             (8, 8, "recursive_doubling"), (8, 1 << 20, "rabenseifner"))]
    rules = rules_from_cells(cells)
    assert match(rules, "allreduce", 1, 0).algorithm == "recursive_doubling"
    assert match(rules, "allreduce", 7, (1 << 20) + 1).algorithm == "ring"
    assert match(rules, "allreduce", 1000, 1 << 30).algorithm == "rabenseifner"
    assert match(rules, "bcast", 4, 8) is None


def test_the_library_reads_rules_without_collsim_app(programs, tmp_path):
    """A program built with collsim cc under a plain smpirun: COLLSIM_RULES is read by
    the C reader, which names the file and line of a mistake and stops the program."""
    from collsim.platforms import crossbar, map_ranks
    from collsim.profiles import load_profile
    from collsim.harness import run_program, smpirun_command

    G = crossbar(nodes=2)
    argv = smpirun_command(G, map_ranks(G, 2, "block"), load_profile("hockney"), tmp_path,
                           [str(programs["cg"]), "64"])
    good, bad = tmp_path / "good.rules", tmp_path / "bad.rules"
    good.write_text("collsim-rules 1\nallreduce rabenseifner np=2\n")
    bad.write_text("collsim-rules 1\nallreduce rabenseifner colour=blue\n")
    status, out, err = run_program(argv, cwd=tmp_path, what="cg", timeout_s=60,
                                   env={**os.environ, "COLLSIM_RULES": str(good)})
    assert status == 0 and "converged" in out, err
    # (SimGrid may call the ranks the abort leaves behind a deadlock)
    status, out, err = run_program(argv, cwd=tmp_path, what="cg", timeout_s=60,
                                   env={**os.environ, "COLLSIM_RULES": str(bad)},
                                   deadlock_is_error=False)
    assert "converged" not in out
    assert f"collsim: error: {bad}:2: unknown key 'colour'" in err
