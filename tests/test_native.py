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
import os
import re
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
    from collsim.harness import collectives

    entries = {(e["collective"], e["algorithm"]) for e in registry()}
    lines = native.mapping()
    assert {(line["library"], line["collective"]) for line in lines} == {
        (lib, coll) for lib in ("openmpi", "mpich") for coll in collectives()}
    named = set()
    for line in lines:
        assert line["note"], line
        if line["algorithm"] is not None:
            named.add((line["collective"], line["algorithm"]))
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


ALL_COLLECTIVES = ("allreduce", "reduce", "bcast", "allgather", "reduce_scatter", "alltoall",
                   "gather", "scatter", "barrier", "scan", "exscan")


@pytest.mark.parametrize("library", ["openmpi", "mpich"])
@pytest.mark.parametrize("collective", ALL_COLLECTIVES)
def test_selectors_record_their_choice_agree_with_its_model_and_are_correct(
        crossbar64, hockney, library, collective):
    from collsim.harness import collectives

    about = collectives()[collective]
    sizes_bytes = SIZES_BYTES if collective in ALL_COLLECTIVES[:3] else (8, 4096, 65536)
    ran = 0
    for p in (3, 8, 16):
        for op in (["sum", "first_nonzero"] if about["op"] and p == 8 else ["sum"]):
            choices = native.choices(collective, library, p, sizes_bytes, op=op)
            sizes = tuple(c["bytes"] for c in choices if c["error"] is None)
            if not sizes:
                continue
            rows, status = run(RunSpec(collective, native.LIBRARIES[library], p, sizes, op=op,
                                       root=p - 1 if about["root"] else 0),
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
    import tempfile
    # each Open MPI job its own session directory, as collsim.realmpi gives them: jobs of
    # two test workers started at once race to create $TMPDIR/ompi.HOST.UID
    with tempfile.TemporaryDirectory(prefix="collsim-test-ompi-") as session_dir:
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "OMPI_MCA_orte_tmpdir_base": session_dir,
                                   **(env or {})})


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


# --- the selectors against the libraries installed here ---------------------------------------
#
# Open MPI: tests/data/openmpi_choice.c notes which ompi_coll_base function the real Open MPI
# 4.1 enters; MPICH: the selection tree compiled into the real libmpich (generic.json, stored
# in the library as text) evaluated by the csel rules below.  collsim's side: the decisions of
# algorithms/common/native.c for the same calls (tests/data/native_grid.c, one process).

GRID_PROBE = REPO_ROOT / "tests" / "data" / "native_grid.c"
CHOICE_PROBE = REPO_ROOT / "tests" / "data" / "openmpi_choice.c"

#: Open MPI's algorithm functions and their ids: the switch of each
#: ompi_coll_tuned_<collective>_intra_do_this (coll_tuned_<collective>_decision.c, v4.1.4).
OPENMPI_FUNCTIONS = {
    "allgather": ("allgather_intra_", ["basic_linear", "bruck", "recursivedoubling", "ring",
                                       "neighborexchange", "two_procs"]),
    "alltoall": ("alltoall_intra_", ["basic_linear", "pairwise", "bruck", "linear_sync",
                                     "two_procs"]),
    "reduce_scatter": ("reduce_scatter_block_", ["basic_linear", "intra_recursivedoubling",
                                                 "intra_recursivehalving", "intra_butterfly"]),
    "gather": ("gather_intra_", ["basic_linear", "binomial", "linear_sync"]),
    "scatter": ("scatter_intra_", ["basic_linear", "binomial", "linear_nb"]),
    "barrier": ("barrier_intra_", ["basic_linear", "doublering", "recursivedoubling", "bruck",
                                   "two_procs", "tree"]),
    "scan": ("scan_intra_", ["linear", "recursivedoubling"]),
    "exscan": ("exscan_intra_", ["linear", "recursivedoubling"]),
    "allreduce": ("allreduce_intra_", ["basic_linear", "nonoverlapping", "recursivedoubling",
                                       "ring", "ring_segmented", "redscat_allgather"]),
    "bcast": ("bcast_intra_", ["basic_linear", "chain", "pipeline", "split_bintree", "bintree",
                               "binomial", "knomial", "scatter_allgather",
                               "scatter_allgather_ring"]),
    "reduce": ("reduce_intra_", ["basic_linear", "chain", "pipeline", "binary", "binomial",
                                 "in_order_binary", "redscat_gather"]),
}
_REDUCTIONS = ("allreduce", "reduce", "reduce_scatter", "scan", "exscan")
# sizes of one block in 4-byte elements: both sides of every power of two the tables compare
GRID_BYTES = sorted({4} | {b for k in range(3, 23) for b in (2**k - 4, 2**k)})


def _openmpi_id(collective: str, function: str) -> int | None:
    prefix, names = OPENMPI_FUNCTIONS[collective]
    for i, name in enumerate(names, start=1):
        if function == f"ompi_coll_base_{prefix}{name}":
            return i
    return None


@pytest.fixture(scope="module")
def native_grid(tmp_path_factory):
    """decide(lines) -> one (name, id) per line "LIBRARY COLL NP BYTES COMM BUILTIN ID"."""
    exe = tmp_path_factory.mktemp("grid") / "native_grid"
    subprocess.run(["mpicc.openmpi", "-I", str(REPO_ROOT / "algorithms"),
                    "-I", str(REPO_ROOT / "algorithms" / "common"), "-o", str(exe),
                    str(GRID_PROBE), str(REPO_ROOT / "build-mpi" / "libcollsim_algorithms.a"),
                    "-lm"], check=True)

    def decide(lines: list[str]) -> list[tuple[str, int]]:
        out = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True,
                             text=True, check=True).stdout.split("\n")
        return [(name, int(i)) for name, i in (line.split() for line in out if line)]

    return decide


@pytest.fixture(scope="module")
def openmpi_choice(tmp_path_factory):
    exe = tmp_path_factory.mktemp("choice") / "openmpi_choice"
    subprocess.run(["mpicc.openmpi", "-O1", "-rdynamic", "-o", str(exe), str(CHOICE_PROBE),
                    "-ldl"], check=True)
    return exe


def _open_mpi_rows(exe, np: int, calls: list[tuple[str, list[int]]], decide: bool,
                   extra=()) -> list[dict]:
    argv = [*OPENMPI, "-np", str(np), *extra, str(exe)] + (["decide"] if decide else [])
    for collective, sizes in calls:
        argv += [collective, ",".join(map(str, sizes))]
    result = _run(argv, timeout=300)
    assert result.returncode == 0, result.stderr
    return _lines(result.stdout)


def _collsim_call(row: dict) -> str:
    commutative = 0 if row["noncommutative"] else 1
    return f"{row['collective']} {row['np']} {row['bytes']} {commutative} {commutative}"


def _all_calls(sizes):
    calls = [(c, [0] if c == "barrier" else sizes) for c in OPENMPI_FUNCTIONS]
    return calls + [(f"{c}:noncommutative", sizes) for c in _REDUCTIONS]


def _check_open_mpi(rows, native_grid, decide):
    """Each row against collsim: the same algorithm.  A row of "decide" notes Open MPI's
    table only (the algorithm did not run): collsim's choice must be what Open MPI runs when
    told to run that one (its fallbacks, collsim_native_forced)."""
    asked, wrong = [], []
    for row in rows:
        ids = [i for i in (_openmpi_id(row["collective"], f) for f in row["ran"]) if i]
        assert ids, row
        asked.append(f"openmpi {_collsim_call(row)} 0")
        if decide:
            asked.append(f"openmpi {_collsim_call(row)} {ids[0]}")
    answers = native_grid(asked)
    step = 2 if decide else 1
    for k, row in enumerate(rows):
        ids = [i for i in (_openmpi_id(row["collective"], f) for f in row["ran"]) if i]
        mine = answers[step * k]
        real = answers[step * k + 1][1] if decide else ids[-1]
        if mine[1] != real:
            wrong.append((row["collective"], row["np"], row["bytes"], row["noncommutative"],
                          row["ran"], mine))
    assert not wrong, f"{len(wrong)} of {len(rows)} differ: {wrong[:10]}"


#: (one rank is coll/self's, which copies the data: no algorithm)
DECIDE_NPS = (2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 65)
FULL_DECIDE_NPS = (127, 128, 129, 255, 256, 257)


@pytest.mark.parametrize("np", DECIDE_NPS + (
    FULL_DECIDE_NPS if os.environ.get("COLLSIM_FULL_MATRIX") == "1" else ()))
def test_open_mpi_decides_as_its_selector(openmpi_choice, native_grid, np):
    """The fixed rules of the real Open MPI 4.1 (which function coll/tuned calls) on every
    size around the tables' thresholds, for every collective: openmpi_default picks the
    same, fallbacks applied.  (Open MPI's brackets of 512 ranks and more are not run.)"""
    rows = _open_mpi_rows(openmpi_choice, np, _all_calls(GRID_BYTES), decide=True)
    assert len(rows) == len(GRID_BYTES) * (len(OPENMPI_FUNCTIONS) - 1 + len(_REDUCTIONS)) + 1
    _check_open_mpi(rows, native_grid, decide=True)


@pytest.mark.parametrize("np", [2, 3, 4, 5, 6, 7, 8])
def test_open_mpi_runs_what_its_selector_runs(openmpi_choice, native_grid, np):
    """The algorithms run for real, so that their own fallbacks show (recursive doubling
    allgather -> bruck on 5 ranks, recursive halving -> basic_linear for a
    non-commutative op, ...): collsim's selector runs the algorithm Open MPI ends in."""
    sizes = [4, 8, 16, 32, 64, 256, 1024, 4096, 8192, 32768, 131072]
    rows = _open_mpi_rows(openmpi_choice, np, _all_calls(sizes), decide=False)
    _check_open_mpi(rows, native_grid, decide=False)


def _mpich_generic_json() -> dict:
    """The MPIR-level selection tree the installed MPICH was built with (its library holds
    maint/tuning/coll/mpir/generic.json as a string)."""
    found = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    paths = [line.split("=>")[1].strip() for line in found.splitlines()
             if "libmpich.so.12 " in line]
    assert paths, "libmpich.so.12 not found: make system-deps installs MPICH"
    data = open(paths[0], "rb").read()
    for chunk in data.split(b"\0"):
        if chunk.startswith(b'{"collective=') and b"MPIR_Allgather_intra" in chunk:
            return json.loads(chunk)
    pytest.fail(f"no MPIR selection tree in {paths[0]}")


def _csel_holds(key: str, call: dict) -> bool:
    """One condition of a csel tree (src/mpi/coll/src/csel.c, v4.0.2) for a call on a flat
    intracommunicator (not a parent: every rank its own node) with a separate send buffer."""
    name, op, value = re.fullmatch(r"([a-z_]+)(<=|<|=)(.+)", key).groups()
    if value == "any":
        return True
    p = call["np"]
    facts = {"comm_type": "intra", "comm_hierarchy": "flat", "is_node_consecutive": "no",
             "is_sendbuf_inplace": "no",
             "is_commutative": "yes" if call["commutative"] else "no",
             "is_op_built_in": "yes" if call["builtin"] else "no"}
    if name in facts:
        return facts[name] == value
    pof2 = 1 << (p.bit_length() - 1)
    if name == "comm_size" and value == "pow2":
        return p == pof2
    if name == "count" and value == "pow2":
        return call["count"] < pof2
    number = {"comm_size": p, "avg_msg_size": call["avg"], "total_msg_size": call["total"]}[name]
    return number < int(value) if op == "<" else number <= int(value)


def _csel_choice(tree: dict, call: dict) -> str:
    node = tree[f"collective={call['json']}"]
    while True:
        key = next(k for k in node if k.startswith("algorithm=") or _csel_holds(k, call))
        if key.startswith("algorithm="):
            return key.split("=", 1)[1]
        node = node[key]


#: collsim's collective -> the tree's name, and its sizes as csel.c's get_avg_msgsize and
#: get_total_msgsize compute them from one block of `bytes` on p ranks
_MPICH_SIZES = {
    "allreduce": ("allreduce", lambda b, p: (b, b * p)),
    "reduce": ("reduce", lambda b, p: (b, b * p)),
    "bcast": ("bcast", lambda b, p: (b, b * p)),
    "allgather": ("allgather", lambda b, p: (None, b * p)),
    "reduce_scatter": ("reduce_scatter_block", lambda b, p: (None, b * p)),
    "alltoall": ("alltoall", lambda b, p: (b, b * p)),
    "gather": ("gather", lambda b, p: (None, None)),
    "scatter": ("scatter", lambda b, p: (None, None)),
    "barrier": ("barrier", lambda b, p: (None, None)),
    "scan": ("scan", lambda b, p: (None, None)),
    "exscan": ("exscan", lambda b, p: (None, None)),
}


def test_mpich_decides_as_its_selector(native_grid):
    """MPICH 4.0's own selection tree, read from the installed library, against
    mpich_default on process counts 1..70 and around every power of two up to 4097, every
    size around the thresholds, a built-in op, a commutative user op and a non-commutative
    one."""
    tree = _mpich_generic_json()
    nps = sorted(set(range(1, 71)) | {q + d for q in (128, 256, 512, 1024, 2048, 4096)
                                       for d in (-1, 0, 1)})
    calls, asked = [], []
    for collective, (json_name, sizes) in _MPICH_SIZES.items():
        ops = ([(1, 1), (1, 0), (0, 0)] if collective in _REDUCTIONS else [(1, 1)])
        for p in nps:
            for n in ([0] if collective == "barrier" else GRID_BYTES):
                for commutative, builtin in ops:
                    avg, total = sizes(n, p)
                    calls.append({"json": json_name, "np": p, "count": n // 4, "avg": avg,
                                  "total": total, "commutative": commutative,
                                  "builtin": builtin, "collective": collective, "bytes": n})
                    asked.append(f"mpich {collective} {p} {n} {commutative} {builtin} 0")
    answers = native_grid(asked)
    wrong = [(c["collective"], c["np"], c["bytes"], c["commutative"], c["builtin"], mine[0],
              _csel_choice(tree, c))
             for c, mine in zip(calls, answers) if mine[0] != _csel_choice(tree, c)]
    assert not wrong, f"{len(wrong)} of {len(calls)} differ: {wrong[:10]}"
    assert len(calls) > 50000


# --- the exported Open MPI rules files, by their effect -------------------------------------

#: per collective: two of Open MPI's algorithms (ids) a file forces, below and from 1 KiB
#: blocks, on 4 ranks; barrier, scan and exscan read no size: one.  None is Open MPI's own
#: choice on 4 ranks for both sizes.
FORCED = {"alltoall": (3, 2), "allgather": (2, 4), "reduce_scatter": (4, 2),
          "gather": (3, 2), "scatter": (1, 3), "barrier": (6,), "scan": (2,),
          "exscan": (2,), "allreduce": (1, 4), "bcast": (7, 1), "reduce": (5, 1)}


def test_the_open_mpi_rules_writer_makes_open_mpi_run_what_it_names(tmp_path, openmpi_choice):
    """A file written by native.openmpi_rules for every collective: Open MPI then enters the
    functions it names (not its fixed rules' choices), the second from 1 KiB blocks on: the
    file's message sizes are in Open MPI's units (the p blocks for allgather, alltoall,
    gather, scatter and reduce_scatter_block).  Without the file it runs others."""
    cells = []
    for collective, ids in FORCED.items():
        for k, native_id in enumerate(ids):
            cells.append({"collective": collective, "np": 4, "bytes": 8 if k == 0 else 1024,
                          "native_id": native_id, "native_name": "forced",
                          "algorithm": "forced"})
    rules = tmp_path / "rules.txt"
    rules.write_text(native.openmpi_rules(cells))
    sizes = [8, 1020, 1024, 4096]
    calls = [(c, [0] if c == "barrier" else sizes) for c in FORCED]
    dynamic = ["--mca", "coll_tuned_use_dynamic_rules", "1",
               "--mca", "coll_tuned_dynamic_rules_filename", str(rules)]
    forced = _open_mpi_rows(openmpi_choice, 4, calls, decide=False, extra=dynamic)
    plain = _open_mpi_rows(openmpi_choice, 4, calls, decide=False)
    for row, default in zip(forced, plain):
        ids = FORCED[row["collective"]]
        expected = ids[0] if len(ids) == 1 or row["bytes"] < 1024 else ids[1]
        ran = [i for i in (_openmpi_id(row["collective"], f) for f in row["ran"]) if i]
        assert ran[0] == expected, (row, default)
        first_default = [i for i in (_openmpi_id(row["collective"], f) for f in default["ran"])
                         if i][0]
        assert first_default != expected, default


def _rules_choice(text: str, colltype: int, np: int, size: int) -> int:
    """The id Open MPI's dynamic rules file picks (the largest communicator size and then
    message size not above the call's; coll_tuned_dynamic_rules.c)."""
    numbers = [int(line.split("#")[0].split()[0]) if len(line.split("#")[0].split()) == 1
               else [int(w) for w in line.split("#")[0].split()]
               for line in text.splitlines() if line.split("#")[0].strip()]
    k = 1
    for _ in range(numbers[0]):
        this, comms = numbers[k], numbers[k + 1]
        k += 2
        best = None
        for _ in range(comms):
            comm, nsizes = numbers[k], numbers[k + 1]
            rows = numbers[k + 2:k + 2 + nsizes]
            k += 2 + nsizes
            if this == colltype and comm <= np:
                best = max((r for r in rows if r[0] <= size), key=lambda r: r[0])[1]
        if this == colltype:
            return best
    raise AssertionError(f"no collective {colltype} in the file")


def test_select_exports_an_alltoall_map_open_mpi_follows(tmp_path, openmpi_choice, capsys):
    """collsim select over alltoall, written as an Open MPI rules file: on 4 and 8 ranks the
    real Open MPI then enters, at every size, the function of the algorithm the file names
    (its message sizes are the p blocks), and somewhere not the one of its fixed rules."""
    rules = tmp_path / "alltoall.rules"
    assert main(["select", "--platform", "crossbar", "--nodes", "8", "--coll", "alltoall",
                 "--np", "4,8", "--bytes", "8,4KiB,64KiB", "--openmpi-rules", str(rules)]) == 0
    assert "openmpi: " in capsys.readouterr().out
    text = rules.read_text()
    dynamic = ["--mca", "coll_tuned_use_dynamic_rules", "1",
               "--mca", "coll_tuned_dynamic_rules_filename", str(rules)]
    changed = 0
    for np in (4, 8):
        sizes = [8, 4092, 4096, 65532, 65536]
        forced = _open_mpi_rows(openmpi_choice, np, [("alltoall", sizes)], False, dynamic)
        plain = _open_mpi_rows(openmpi_choice, np, [("alltoall", sizes)], False)
        for row, default in zip(forced, plain):
            expected = _rules_choice(text, 3, np, row["bytes"] * np)
            assert _openmpi_id("alltoall", row["ran"][0]) == expected, (row, text)
            changed += _openmpi_id("alltoall", default["ran"][0]) != expected
    assert changed > 0


def test_mpich_follows_the_exported_json_and_its_guards(tmp_path):
    """MPICH's recursive doubling allgather asserts a power of two: where the map picks it
    (measured on 4 ranks), the written file sends other process counts to brucks, and MPICH
    runs every collective on 3 ranks; the same file without that guard makes MPICH abort in
    that very algorithm (it follows the file)."""
    probe = _probe(tmp_path, "mpicc.mpich")
    cells = [{"collective": "allgather", "np": 4, "bytes": 8, "native_id": 0,
              "native_name": "MPIR_Allgather_intra_recursive_doubling",
              "algorithm": "recursive_doubling"}]
    tree = json.loads(native.mpich_json(cells))
    guarded, unguarded = tmp_path / "guarded.json", tmp_path / "unguarded.json"
    guarded.write_text(json.dumps(tree))
    tree["collective=allgather"]["comm_type=intra"] = {
        "algorithm=MPIR_Allgather_intra_recursive_doubling": {}}
    unguarded.write_text(json.dumps(tree))
    ok = _run(["mpirun.mpich", "-np", "3", str(probe), "8"],
              env={"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": str(guarded)})
    assert ok.returncode == 0, ok.stderr
    failed = _run(["mpirun.mpich", "-np", "3", str(probe), "8"],
                  env={"MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE": str(unguarded)})
    assert failed.returncode != 0
    assert "allgather_intra_recursive_doubling.c" in failed.stdout + failed.stderr
