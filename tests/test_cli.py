"""The command line: output, determinism, and one-line errors with exit status 2."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

from collsim.cli import main
from collsim.native import is_selector
from collsim.harness import collectives, data_catalog, parameter_table, registry, simgrid_tool

RUN = ["run", "--np", "4", "--coll", "allreduce", "--alg", "ring", "--bytes", "8,64KiB"]


def run_cli(args, capsys):
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_table(capsys):
    status, out, err = run_cli(RUN, capsys)
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["collective", "algorithm", "np", "bytes", "simulated", "model",
                                "ratio", "class", "agrees", "check"]
    assert [line.split()[3] for line in lines[1:]] == ["8B", "64KiB"]
    assert all(line.split()[-3:] == ["exact", "yes", "ok"] for line in lines[1:])


def test_json_rows_carry_the_design_fields(capsys):
    status, out, _ = run_cli(RUN + ["--json"], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(rows) == 2
    for key in ("collective", "algorithm", "params", "platform", "platform_hash", "mapping",
                "profile", "np", "bytes", "dtype", "op", "time_s", "model_s", "result_hash",
                "check", "collsim_version", "library"):
        assert key in rows[0]
    assert rows[0]["library"].startswith("SimGrid ")


def test_json_output_is_byte_identical_across_runs():
    command = [sys.executable, "-m", "collsim", *RUN, "--json"]
    first = subprocess.run(command, capture_output=True, check=True).stdout
    second = subprocess.run(command, capture_output=True, check=True).stdout
    assert first == second and first.count(b"\n") == 2


def test_all_algorithms(capsys, entries):
    status, out, _ = run_cli(["run", "--np", "5", "--coll", "all", "--alg", "all",
                              "--bytes", "1KiB", "--json"], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    # "all": every entry but the selectors and those restricted to powers of two
    expected = [e for e in entries if not is_selector(e["algorithm"])
                and "power_of_two" not in e["restrictions"]]
    assert status == 0 and len(rows) == len(expected)
    assert all(row["model_agrees"] for row in rows)


def test_output_file(tmp_path, capsys):
    target = tmp_path / "rows.jsonl"
    status, out, _ = run_cli(RUN + ["--json", "-o", str(target)], capsys)
    assert status == 0 and out == "" and len(target.read_text().splitlines()) == 2


def test_list(capsys):
    status, out, _ = run_cli(["list"], capsys)
    assert status == 0 and "rabenseifner" in out and "commutative" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["run", "--np", "4", "--coll", "allreduce", "--alg", "nope", "--bytes", "8"],
         "unknown algorithm 'nope' for allreduce"),
        (["run", "--np", "4", "--coll", "scatterv", "--alg", "ring", "--bytes", "8"],
         "unknown collective 'scatterv'"),
        (["run", "--np", "0", "--coll", "allreduce", "--alg", "ring", "--bytes", "8"],
         "np must be >= 1"),
        (["run", "--np", "9", "--nodes", "8", "--coll", "allreduce", "--alg", "ring",
          "--bytes", "8"], "larger than the platform's 8 cores"),
        (["run", "--np", "4", "--coll", "allreduce", "--alg", "ring", "--bytes", "8XB"],
         "malformed size"),
        (["run", "--np", "4", "--coll", "allreduce", "--alg", "ring", "--bytes", "-8"],
         "malformed size"),
        (["run", "--np", "4", "--coll", "allreduce", "--alg", "ring", "--bytes", "12"],
         "not a whole number of double"),
        (["run", "--np", "4", "--coll", "reduce", "--alg", "linear", "--bytes", "8",
          "--root", "4"], "root 4 is outside the communicator"),
        (["run", "--np", "4", "--coll", "allreduce", "--alg", "ring", "--bytes", "8",
          "--op", "first_nonzero"], "requires a commutative op"),
        (["run", "--np", "4", "--coll", "allreduce", "--alg", "ring", "--bytes", "8",
          "--nodes", "0"], "nodes must be an integer >= 1"),
        (["run", "--np", "4", "--coll", "allreduce", "--alg", "ring", "--bytes", "8",
          "--bandwidth", "fast"], "malformed bandwidth"),
        (["run", "--np", "4", "--coll", "allreduce", "--alg", "ring", "--bytes", "8",
          "--profile", "nope"], "unknown profile 'nope'"),
        (["run", "--np", "4", "--coll", "allreduce", "--alg", "ring", "--bytes", "8",
          "--blocks", "4"], "allreduce/ring takes no segment size or block count"),
        (["run", "--np", "4", "--coll", "allreduce", "--alg", "ring", "--bytes", "8",
          "--groups", "-1"], "group count must be a whole number 0..2147483647"),
        (["run", "--np", "4", "--coll", "reduce", "--alg", "prerounded", "--bytes", "8",
          "--inner", "nosuch"], "reduce/prerounded has no inner algorithm 'nosuch'"),
        (["run", "--np", "4", "--coll", "reduce", "--alg", "prerounded", "--bytes", "8",
          "--outer", "binomial"], "has no outer (bound) algorithm 'binomial'"),
        (["run", "--np", "4", "--coll", "allreduce", "--alg", "prerounded", "--bytes", "8",
          "--inner", "prerounded"], "cannot use the pre-rounded allreduce/prerounded"),
        (["run", "--np", "4", "--coll", "allreduce"], "required"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_with_status_2(tmp_path, capsys, args, message):
    target = tmp_path / "out.txt"
    status, out, err = run_cli(args + ["-o", str(target)] if args[0] == "run" else args, capsys)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("collsim: error: ") and message in err
    assert not target.exists()


def test_an_algorithm_without_a_model_is_refused_before_it_runs(monkeypatch, capsys):
    import collsim.runner

    def no_model(collective, algorithm):
        raise KeyError(f"no model for {collective}/{algorithm}")

    monkeypatch.setattr(collsim.runner, "model_for", no_model)
    status, out, err = run_cli(RUN, capsys)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "is in the registry but has no model" in err


def test_smpirun_missing(monkeypatch, capsys, tmp_path):
    """Neither the SimGrid that built collbench (its recorded bin folder is gone) nor
    PATH has smpirun."""
    import collsim.harness as harness

    monkeypatch.setenv("PATH", str(tmp_path))
    recorded = tmp_path / "simgrid-bin"
    recorded.write_text(f"{tmp_path / 'removed-simgrid' / 'bin'}\n")
    find_c_part = harness.find_c_part
    monkeypatch.setattr(harness, "find_c_part", lambda name, **kwargs: (
        recorded if name == "simgrid-bin" else find_c_part(name, **kwargs)))

    registry.cache_clear()
    try:
        status, _, err = run_cli(RUN, capsys)
    finally:
        registry.cache_clear()
    assert status == 2 and "smpirun not found" in err and err.count("\n") == 1


def test_bad_profile_file(tmp_path, capsys):
    profile = tmp_path / "mine.toml"
    profile.write_text('[cfg]\n"smpi/simulate-computation" = "yes"\n')
    status, _, err = run_cli(RUN + ["--profile", str(profile)], capsys)
    assert status == 2 and "may not set 'smpi/simulate-computation'" in err


def _fake_collbench(tmp_path, body):
    """A program built with smpicc that answers --list like collbench, then does `body`."""
    source = tmp_path / "fake.c"
    source.write_text(textwrap.dedent("""\
        #include <mpi.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        int main(int argc, char **argv) {
            MPI_Init(&argc, &argv);
            int rank; MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            /* the harness passes collbench's arguments in $COLLBENCH_ARGS */
            const char *args = getenv("COLLBENCH_ARGS");
            if ((argc > 1 && strcmp(argv[1], "--list") == 0) ||
                (args != NULL && strncmp(args, "--list\\n", 7) == 0)) {
                if (rank == 0) {
                    printf("{\\"collective\\": \\"allreduce\\", \\"algorithm\\": \\"ring\\", "
                           "\\"restrictions\\": [], \\"summary\\": \\"fake\\"}\\n");
                    puts(DATA_CATALOG_LINE);
                    puts(PARAMETER_TABLE_LINE);
                    puts(COLLECTIVES_LINE);
                }
                MPI_Finalize(); return 0;
            }
        """) + textwrap.indent(body, "    ") + "\n    MPI_Finalize();\n    return 0;\n}\n")
    binary = tmp_path / "fake"
    # the real collbench's parameter table, which the command line is made from
    # and its datatypes, ops and distributions and its collectives, which validation reads
    def c_string(line):
        return '"' + line.replace("\\", "\\\\").replace('"', '\\"') + '"'
    table = json.dumps({"parameters": list(parameter_table())})
    shapes = json.dumps({"collectives": list(collectives().values())})
    catalog = json.dumps({kind: list(items) for kind, items in data_catalog().items()})
    header = tmp_path / "table.h"
    header.write_text(f"#define PARAMETER_TABLE_LINE {c_string(table)}\n"
                      f"#define DATA_CATALOG_LINE {c_string(catalog)}\n"
                      f"#define COLLECTIVES_LINE {c_string(shapes)}\n")
    subprocess.run([simgrid_tool("smpicc"), "-include", str(header), "-o", str(binary), str(source)],
                   check=True, capture_output=True,
                   env={k: v for k, v in os.environ.items() if k != "SMPI_PRETEND_CC"})
    return binary


@pytest.mark.parametrize(
    "body, message",
    [
        ("int x; MPI_Recv(&x, 1, MPI_INT, (rank + 1) % 4, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);",
         "allreduce/ring on 4 ranks at 8B deadlocked"),
        ("if (rank == 1) abort();", "allreduce/ring on 4 ranks at 8B crashed"),
        ("for (volatile int spin = 1; spin;) {}", "did not finish within 3 s"),
    ],
)
def test_deadlock_crash_and_hang_are_reported(tmp_path, monkeypatch, capsys, body, message):
    monkeypatch.setenv("COLLSIM_COLLBENCH", str(_fake_collbench(tmp_path, body)))

    registry.cache_clear()
    try:
        status, out, err = run_cli(
            ["run", "--np", "4", "--coll", "allreduce", "--alg", "ring", "--bytes", "8",
             "--timeout-s", "3"], capsys)
    finally:
        registry.cache_clear()
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err
