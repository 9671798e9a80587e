"""The correctness matrix under a real MPI (`mpirun` on localhost, Open MPI oversubscribed on
the machine's cores), built from the same sources with `make build-mpi`.  Timing is not
compared with the models here.

Real processes on 2 cores cost far more than simulated ones: one launch of the
189-measurement reduce matrix takes 1.6 s at p = 8, 6.7 s at 33, 13 s at 64 and 34 s at 128
with Open MPI alone on the machine (MPICH 4.0's ch4 busy polling: 29 s at p = 8), and about
twice that next to the simulations of `make test`.  So this file covers every algorithm,
count, datatype, op and root of the matrix (tests/matrix.py) on p in {1, 3, 8}
(the collectives of issue 26 on p = 5) (one process, an odd count one past a power of
two, a power of two; reduce/hierarchical gets 1 to 3 groups there, allreduce/hierarchical
2 groups at p = 8, and node_aware alternates exposed nodes of 4 with the real node).
p = 2 and 5 went to `make test-full` on 2026-11-29, when the suite had gone over 15
minutes (tests/test_correctness.py runs both under smpirun).
p = 13 took a quarter of this file's time (2.3 to 3.3 s a launch next to the suite's
simulations) and p = 33 30-70 s per two-level algorithm: `make test` leaves both to smpirun
(tests/test_correctness.py runs the same sources at 13 and 33).
`make test-full` (COLLSIM_FULL_MATRIX=1) runs the whole
matrix here too, p in 1..33, 64, 100 and 128: about 3 minutes per algorithm on an idle
2-core machine, an hour and a half for the registry.
"""

import os
import socket

import pytest

from collsim.native import LIBRARY_ALGORITHMS as LIBRARY_ENTRIES, is_selector
from collsim.harness import registry
from collsim.realmpi import find_mpi_collbench, find_mpirun, run_mpirun
from matrix import FIRST_COLLECTIVES, allowed, expected_rows, matrix_args

STANDARD_PROCESS_COUNTS = [1, 3, 8]
FULL_PROCESS_COUNTS = list(range(1, 34)) + [64, 100, 128]
FULL = os.environ.get("COLLSIM_FULL_MATRIX") == "1"
PROCESS_COUNTS = FULL_PROCESS_COUNTS if FULL else STANDARD_PROCESS_COUNTS
# The collectives of issue 26 run one odd count here in `make test`
# (tests/test_correctness.py runs six counts of them under smpirun); every count above
# under COLLSIM_FULL_MATRIX=1.
ISSUE26_PROCESS_COUNTS = [5]
# The selectors (openmpi_default, mpich_default) run one of these; tests/test_native.py
# holds them on the cells whose library choice collsim has (elsewhere they refuse).
ALGORITHMS = [(entry["collective"], entry["algorithm"]) for entry in registry()
              if not is_selector(entry["algorithm"])]


def test_the_real_mpi_build_exists():
    """make test builds build-mpi/collbench; without it this file would test nothing."""
    assert find_mpi_collbench().is_file()


def test_each_open_mpi_job_has_its_own_session_directory(monkeypatch, tmp_path):
    """Jobs started at once in the shared $TMPDIR/ompi.HOST.UID race to create it (one
    fails with "File exists", open-mpi/ompi#8510): a file in its place shows that the
    job never goes there, and its own directory is gone after it."""
    if not find_mpirun()[1]:
        pytest.skip("the session directory is Open MPI's")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    (tmp_path / f"ompi.{socket.gethostname()}.{os.getuid()}").write_text("in the way\n")
    rows, status = run_mpirun(2, matrix_args(next(e for e in registry() if
                                                  e["algorithm"] == "recursive_doubling"
                                                  and e["collective"] == "allreduce"), 2),
                              what="allreduce/recursive_doubling p=2")
    assert status == 0 and rows and all(row["check"] == "ok" for row in rows)
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        f"ompi.{socket.gethostname()}.{os.getuid()}"]


@pytest.mark.parametrize("collective, algorithm", ALGORITHMS)
def test_results_are_correct_under_mpirun(entries, collective, algorithm):
    if (collective, algorithm) in LIBRARY_ENTRIES and os.environ.get("COLLSIM_FULL_MATRIX") != "1":
        pytest.skip("the library entries of issue 15 under mpirun: COLLSIM_FULL_MATRIX=1 "
                    "(tests/test_correctness.py holds them under smpirun)")
    entry = next(e for e in entries
                 if (e["collective"], e["algorithm"]) == (collective, algorithm))
    counts = PROCESS_COUNTS if collective in FIRST_COLLECTIVES or FULL else ISSUE26_PROCESS_COUNTS
    for p in counts:
        if not allowed(entry, p):
            continue  # a declared power-of-two restriction
        args = matrix_args(entry, p)
        if algorithm == "node_aware":
            args += ["--node-size", "4"] if p % 2 else []  # exposed and real nodes
        rows, status = run_mpirun(p, args, what=f"{collective}/{algorithm} p={p}")
        wrong = [row for row in rows if row["check"] != "ok"]
        assert status == 0 and not wrong, wrong[:3]
        assert len(rows) == expected_rows(entry, p)
        assert all(row["library"].startswith(("Open MPI", "MPICH")) for row in rows)
