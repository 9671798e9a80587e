"""Native selectors and tuning files (issue 15).

- The mapping (algorithms/native.def) names registry entries only.
- The selectors openmpi_default and mpich_default choose as Open MPI 4.1's fixed rules and
  MPICH 4.0's default JSON do (cells read off the sources, fallbacks included), record the
  choice in every row, agree exactly with the model of that choice and compute the right
  result; where the library picks an algorithm collsim lacks they refuse, naming it.
- `collsim select --openmpi-rules/--mpich-json` writes files the real libraries load:
  Open MPI follows them (a forced ring is seen in the result of a non-commutative op, which
  a rules file Open MPI did not understand would not show: it ignores malformed files),
  MPICH initialises with them and runs every blocking collective, and refuses a malformed one.
"""

import json
import shutil
import subprocess

import pytest

from collsim import native
from collsim.cli import main
from collsim.harness import REPO_ROOT, registry
from collsim.runner import RunSpec, run

PROBE = REPO_ROOT / "tests" / "data" / "native_probe.c"
SIZES_BYTES = (8, 65536, 1 << 20)


def test_mapping_names_registry_entries_and_says_why_not():
    entries = {(e["collective"], e["algorithm"]) for e in registry()}
    lines = native.mapping()
    assert {(line["library"], line["collective"]) for line in lines} == {
        (lib, coll) for lib in ("openmpi", "mpich") for coll in ("allreduce", "reduce", "bcast")}
    for line in lines:
        assert line["note"], line
        if line["algorithm"] is not None:
            assert (line["collective"], line["algorithm"]) in entries, line
    openmpi = [(line["collective"], line["id"]) for line in lines if line["library"] == "openmpi"]
    assert len(openmpi) == len(set(openmpi)) and all(i > 0 for _, i in openmpi)
    mpich = [line["name"] for line in lines if line["library"] == "mpich"]
    assert all(name.startswith("MPIR_") and "_intra_" in name for name in mpich)


# (collective, np, bytes, op) -> what the library runs; read off
# coll_tuned_decision_fixed.c and coll_base_*.c (v4.1.4), generic.json (v4.0.2)
OPENMPI_CELLS = [
    ("allreduce", 16, 8, "sum", "recursive_doubling"),        # < 8192: 3
    ("allreduce", 16, 8192, "sum", "rabenseifner"),           # 6
    ("allreduce", 2, 8, "sum", "recursive_doubling"),         # 8 B: 3
    ("allreduce", 20, 32, "sum", "recursive_doubling"),       # 5 -> ring -> count 4 < p: 3
    ("allreduce", 20, 64, "sum", "recursive_doubling"),       # 3
    ("allreduce", 2, 1 << 20, "first_nonzero", "basic_linear"),  # non-commutative, p < 4: 1
    ("allreduce", 512, 8, "sum", "nonoverlapping"),           # 2: its reduce, then its bcast
    ("allreduce", 200, 8, "sum", "nonoverlapping"),           # ... bcast: binary tree (5)
    ("allreduce", 200, 8, "first_nonzero", "nonoverlapping"),  # ... whose reduce (6) is missing
    ("reduce", 2, 0, "sum", "linear"),                        # < 8 B: 7 -> count 0 < pof2: 1
    ("reduce", 2, 8, "sum", "binary"),                        # 4: not in collsim
    ("reduce", 16, 8, "sum", "binary"),                       # 4
    ("reduce", 16, 8, "first_nonzero", "in-order_binary"),    # 6: not in collsim
    ("reduce", 5, 8192, "sum", "chain"),                      # 2 (fan-out 0 -> 1)
    ("bcast", 6, 65536, None, "basic_linear"),                # 1
    ("bcast", 20, 1 << 21, None, "scatter_allgather"),        # 8: not in collsim
    ("bcast", 64, 8, None, "knomial"),                        # 7: not in collsim
]
MPICH_CELLS = [
    ("bcast", 16, 12288, None, "MPIR_Bcast_intra_binomial"),
    ("bcast", 16, 12296, None, "MPIR_Bcast_intra_scatter_recursive_doubling_allgather"),
    ("bcast", 12, 12296, None, "MPIR_Bcast_intra_scatter_ring_allgather"),
    ("bcast", 7, 1 << 20, None, "MPIR_Bcast_intra_binomial"),
    ("allreduce", 4, 16, "sum", "MPIR_Allreduce_intra_recursive_doubling"),   # count 2 < 4
    ("allreduce", 4, 32, "sum", "MPIR_Allreduce_intra_reduce_scatter_allgather"),
    ("allreduce", 4, 1 << 20, "first_nonzero", "MPIR_Allreduce_intra_recursive_doubling"),
    ("reduce", 4, 2048, "sum", "MPIR_Reduce_intra_binomial"),
    ("reduce", 4, 2056, "sum", "MPIR_Reduce_intra_reduce_scatter_gather"),
]


@pytest.mark.parametrize("library, cells", [("openmpi", OPENMPI_CELLS), ("mpich", MPICH_CELLS)])
def test_the_selectors_choose_as_the_libraries(library, cells):
    for collective, np, n, op, expected in cells:
        (row,) = native.choices(collective, library, np, (n,), op=op or "sum")
        assert row["native_algorithm"] == expected, (collective, np, n, op, row)
        names = {line["name"]: line["algorithm"] for line in native.mapping()
                 if line["library"] == library and line["collective"] == collective}
        if expected == "nonoverlapping":  # Open MPI's own reduce to 0, then its own bcast
            assert row["selected"] == {
                (512, "sum"): "reduce:overlapped_binomial+bcast:concurrent_knomial",
                (200, "sum"): "reduce:overlapped_binomial+bcast:concurrent_binary",
                (200, "first_nonzero"): None}[np, op]
            assert row["error"] is None or "whose reduce is its algorithm 6" in row["error"]
        else:
            assert row["selected"] == names[expected]
        assert (row["error"] is None) == (row["selected"] is not None)


@pytest.mark.parametrize("library", ["openmpi", "mpich"])
@pytest.mark.parametrize("collective", ["allreduce", "reduce", "bcast"])
def test_selectors_record_their_choice_agree_with_its_model_and_are_correct(
        crossbar64, hockney, library, collective):
    ran = 0
    for p in (3, 8, 16):
        for op in (["sum", "first_nonzero"] if collective != "bcast" and p == 8 else ["sum"]):
            choices = native.choices(collective, library, p, SIZES_BYTES, op=op)
            sizes = tuple(c["bytes"] for c in choices if c["error"] is None)
            if not sizes:
                continue
            rows, status = run(RunSpec(collective, native.LIBRARIES[library], p, sizes, op=op,
                                       root=p - 1 if collective != "allreduce" else 0),
                               crossbar64, hockney, platform="crossbar")
            assert status == 0
            expected = {c["bytes"]: c["selected"] for c in choices}
            for row in rows:
                assert row["selected"] == expected[row["bytes"]]
                assert row["check"] == "ok" and row["model_class"] == "exact"
                assert row["time_s"] == pytest.approx(row["model_s"], rel=1e-6)
            ran += len(rows)
    assert ran > 0


def test_a_choice_collsim_lacks_is_refused_naming_it(capsys):
    status = main(["run", "--np", "16", "--coll", "reduce", "--alg", "openmpi_default",
                   "--bytes", "8", "--op", "first_nonzero"])
    err = capsys.readouterr().err
    assert status == 2
    assert "Open MPI's reduce algorithm 6 (in-order_binary), which collsim lacks" in err
    assert err.count("\n") == 1
    status = main(["run", "--np", "16", "--coll", "bcast", "--alg", "openmpi_default",
                   "--bytes", "1MiB"])
    assert status == 2 and "bcast algorithm 8 (scatter_allgather)" in capsys.readouterr().err


def test_the_table_shows_the_choice(capsys):
    assert main(["run", "--np", "4", "--coll", "reduce", "--alg", "openmpi_default",
                 "--bytes", "16KiB"]) == 0  # 4 <= p < 8, 4 KiB <= n < 64 KiB: chain (2)
    assert capsys.readouterr().out.splitlines()[1].split()[1] == "openmpi_default:chain"


def _probe(tmp_path, mpicc):
    if shutil.which(mpicc) is None:
        pytest.fail(f"{mpicc} not found: make system-deps installs it")
    exe = tmp_path / f"probe-{mpicc}"
    subprocess.run([mpicc, "-O1", "-o", str(exe), str(PROBE)], check=True)
    return exe


def _run(argv, env=None, timeout=120):
    import os
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def _lines(stdout):
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


OPENMPI = ["mpirun.openmpi", "--oversubscribe", "--allow-run-as-root", "--mca", "btl", "self,vader"]


@pytest.fixture(scope="module")
def allreduce_map(tmp_path_factory):
    """`collsim select` of allreduce on 3 and 8 ranks, written for both libraries."""
    out = tmp_path_factory.mktemp("map")
    argv = ["select", "--platform", "crossbar", "--nodes", "8", "--coll", "allreduce",
            "--np", "3,8", "--bytes", "8,64KiB", "--algorithms",
            "recursive_doubling,ring,rabenseifner,binary_blocks",
            "--openmpi-rules", str(out / "rules.txt"), "--mpich-json", str(out / "sel.json")]
    assert main(argv) == 0
    return out


def test_select_says_what_each_library_loses(allreduce_map, capsys):
    rules = (allreduce_map / "rules.txt").read_text()
    assert rules.splitlines()[0].startswith("1 ") and "\n2  # allreduce" in rules
    tree = json.loads((allreduce_map / "sel.json").read_text())
    assert set(tree["collective=allreduce"]["comm_type=intra"]) == {"comm_size<8",
                                                                     "comm_size=any"}
    assert "collective=barrier" in tree  # MPICH aborts in a collective the file lacks


def test_select_algorithms_restricts_and_reports_the_loss(capsys, tmp_path):
    assert main(["select", "--platform", "crossbar", "--nodes", "8", "--coll", "allreduce",
                 "--np", "6", "--bytes", "64KiB", "--algorithms", "binary_blocks,ring",
                 # never the real /dev/null: the collsim of the day may replace it
                 "--openmpi-rules", str(tmp_path / "rules")]) == 0
    out = capsys.readouterr().out
    # binary_blocks (fastest on 6 = 4 + 2 ranks) is not Open MPI's: its rules get the ring
    assert out.splitlines()[1].split()[2] == "binary_blocks"
    (line,) = [line for line in out.splitlines() if line.startswith("6 ") and "ring (4)" in line]
    assert line.split()[-1].endswith("%") and float(line.split()[-1][:-1]) > 0
    assert main(["select", "--coll", "allreduce", "--algorithms", "mpich_default"]) == 2


def test_open_mpi_runs_with_the_rules_and_follows_them(tmp_path, allreduce_map):
    probe = _probe(tmp_path, "mpicc.openmpi")
    rules = allreduce_map / "rules.txt"
    for np in (3, 8):
        result = _run(OPENMPI + ["-np", str(np), "--mca", "coll_tuned_use_dynamic_rules", "1",
                                 "--mca", "coll_tuned_dynamic_rules_filename", str(rules),
                                 str(probe), "1,1000,8192"])
        assert result.returncode == 0, result.stderr
        assert all(r["allreduce"] and r["reduce"] and r["bcast"] for r in _lines(result.stdout))
    # A file from the same writer that forces Open MPI's ring (id 4): the ring combines out
    # of rank order, which the non-commutative probe op shows (count >= p; below that
    # Open MPI's ring runs recursive doubling).  Open MPI ignores a file it cannot parse,
    # so this also fails if the writer's format is wrong.
    forced = tmp_path / "ring.txt"
    forced.write_text(native.openmpi_rules([
        {"collective": "allreduce", "np": 1, "bytes": 0, "native_id": 4, "native_name": "ring",
         "algorithm": "ring"}]))
    base = OPENMPI + ["-np", "4", "--mca", "coll_tuned_use_dynamic_rules", "1"]
    plain = _lines(_run(OPENMPI + ["-np", "4", str(probe), "2,1000"]).stdout)
    ring = _lines(_run(base + ["--mca", "coll_tuned_dynamic_rules_filename", str(forced),
                               str(probe), "2,1000"]).stdout)
    assert [r["rank_order"] for r in plain] == [True, True]
    assert [r["rank_order"] for r in ring] == [True, False]
    assert all(r["allreduce"] for r in ring)


def test_mpich_runs_with_the_json_and_refuses_a_malformed_one(tmp_path, allreduce_map):
    probe = _probe(tmp_path, "mpicc.mpich")
    selection = allreduce_map / "sel.json"
    for np in (3, 8):
        result = _run(["mpirun.mpich", "-np", str(np), str(probe), "1,1000,8192"],
                      env={"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": str(selection)})
        assert result.returncode == 0, result.stderr
        rows = _lines(result.stdout)
        assert len(rows) == 3 and all(r["allreduce"] and r["reduce"] and r["bcast"]
                                      for r in rows)
    malformed = tmp_path / "malformed.json"
    malformed.write_text(selection.read_text()[:-40])
    result = _run(["mpirun.mpich", "-np", "3", str(probe), "8"],
                  env={"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": str(malformed)})
    assert result.returncode != 0 and not _lines(result.stdout)


def test_open_mpi_nonoverlapping_is_its_reduce_then_its_bcast(hockney):
    """Open MPI's allreduce on 128-255 ranks below 128 KiB (commutative): its reduce to
    rank 0 (binomial, 5), then its bcast from rank 0 (16 KiB: linear, 1; 64 KiB: knomial,
    7); the model is the sum of the two recorded choices."""
    from collsim.platforms import crossbar

    rows, status = run(RunSpec("allreduce", "openmpi_default", 130, (16384, 65536)),
                       crossbar(nodes=130), hockney, platform="crossbar")
    assert status == 0
    assert [row["selected"] for row in rows] == [
        "reduce:overlapped_binomial+bcast:linear",
        "reduce:overlapped_binomial+bcast:concurrent_knomial"]
    for row in rows:
        assert row["native_id"] == 2 and row["check"] == "ok" and row["model_class"] == "exact"
        assert row["time_s"] == pytest.approx(row["model_s"], rel=1e-6)


def test_installing_mpich_leaves_open_mpi_the_mpi_of_build_mpi():
    cache = (REPO_ROOT / "build-mpi" / "CMakeCache.txt").read_text()
    (compiler,) = [line for line in cache.splitlines() if line.startswith("CMAKE_C_COMPILER:")]
    assert compiler.endswith("mpicc.openmpi"), compiler
    assert shutil.which("mpicc.mpich") and shutil.which("mpirun.mpich")


def test_the_selectors_decide_for_every_count_a_prediction_takes():
    """collsim predict takes up to 2^24 ranks (limits.BOUNDS["np"]); collbench's
    --native-choice refused counts above a million, so the six library defaults
    could not be predicted on a 1,048,576-rank machine."""
    from collsim.limits import BOUNDS
    from collsim.native import choices

    largest = BOUNDS["np"].high
    for library in ("openmpi", "mpich"):
        row = choices("bcast", library, largest, (1 << 20,))[0]
        assert row["selected"] is not None and row["error"] is None, row
