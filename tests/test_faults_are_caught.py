"""The checks can fail: a copy of the sources with one planted fault is built, and
collbench's result check or the model comparison must catch it."""

from collsim.platforms import crossbar
from collsim.runner import RunSpec, run


def test_swapped_operands_are_caught(tmp_path, monkeypatch, hockney, build_with_fault):
    collbench = build_with_fault(
        tmp_path, "algorithms/allreduce/allreduce_recursive_doubling.c",
        "if (partner_new < newrank) {", "if (partner_new > newrank) {")
    monkeypatch.setenv("COLLSIM_COLLBENCH", str(collbench))
    G = crossbar(nodes=8)
    rows, status = run(RunSpec("allreduce", "recursive_doubling", 8, (8000,), op="first_nonzero"),
                       G, hockney, platform="crossbar")
    assert status == 1 and rows[0]["check"] == "wrong"
    # the same fault is invisible to a commutative op: the check is per op, as it should be
    rows, status = run(RunSpec("allreduce", "recursive_doubling", 8, (8000,), op="max"),
                       G, hockney, platform="crossbar")
    assert status == 0 and rows[0]["check"] == "ok"


def test_a_missing_step_is_caught(tmp_path, monkeypatch, hockney, build_with_fault):
    collbench = build_with_fault(
        tmp_path, "algorithms/allreduce/allreduce_ring.c",
        "for (int step = 0; step < size - 1; step++) {\n        const int send_block = (rank + 1",
        "for (int step = 0; step < size - 2; step++) {\n        const int send_block = (rank + 1")
    monkeypatch.setenv("COLLSIM_COLLBENCH", str(collbench))
    rows, status = run(RunSpec("allreduce", "ring", 5, (4096,), dtype="int32"),
                       crossbar(nodes=8), hockney, platform="crossbar")
    assert status == 1 and rows[0]["check"] == "wrong"


def test_an_extra_message_is_caught_by_the_model(tmp_path, monkeypatch, hockney, build_with_fault):
    collbench = build_with_fault(
        tmp_path, "algorithms/bcast/bcast_binomial.c",
        "cleanup:\n    return rc;",
        "    if (size > 1 && rank == root)\n"
        "        COLLSIM_CHECK(MPI_Send(buffer, 1, datatype, (root + 1) % size, 99, comm));\n"
        "    if (size > 1 && rank == (root + 1) % size)\n"
        "        COLLSIM_CHECK(MPI_Recv(buffer, 1, datatype, root, 99, comm, MPI_STATUS_IGNORE));\n"
        "cleanup:\n    return rc;")
    monkeypatch.setenv("COLLSIM_COLLBENCH", str(collbench))
    rows, status = run(RunSpec("bcast", "binomial", 8, (4096,)), crossbar(nodes=8), hockney,
                       platform="crossbar")
    assert status == 0 and rows[0]["check"] == "ok"
    assert rows[0]["model_agrees"] is False


def test_a_less_accurate_prerounding_is_caught_by_its_own_bound(tmp_path, monkeypatch, hockney,
                                                                build_with_fault):
    # the second level 40 bits below the first instead of 53 - L - 1: still exact level sums,
    # so still reproducible, and far inside Higham's bound, but no longer the accuracy
    # pre-rounding promises (common/prerounding.h)
    collbench = build_with_fault(
        tmp_path, "algorithms/common/prerounding.c",
        "m = m - 53 + lg + 1;", "m = m - 13 + lg + 1;")
    monkeypatch.setenv("COLLSIM_COLLBENCH", str(collbench))
    rows, status = run(RunSpec("allreduce", "prerounded", 8, (8192,), dist="illcond"),
                       crossbar(nodes=8), hockney, platform="crossbar")
    row = rows[0]
    assert status == 1 and row["check"] == "wrong" and row["ranks_agree"]
    assert row["max_error_ratio"] <= 1 < row["max_error_prerounded_ratio"]
