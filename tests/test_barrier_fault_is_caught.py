"""collbench's barrier check can fail: a barrier that lets some rank leave before the
late one has entered is caught (sim/collbench/main.c, check_barrier: one rank at a time
enters 1 ms late, and no rank may leave before it entered).  The fault is planted in a copy of the
sources (the build_with_fault fixture, as in tests/test_faults_are_caught.py)."""

from collsim.platforms import crossbar
from collsim.runner import RunSpec, run


def test_a_barrier_missing_its_last_exchange_is_caught(tmp_path, monkeypatch, hockney,
                                                       build_with_fault):
    # recursive doubling without its last exchange: every message still has its receive
    # (the pairs stay pairs), but the two halves of the ranks below m never hear from
    # each other, so a rank of one half leaves before a late rank of the other enters
    collbench = build_with_fault(
        tmp_path, "algorithms/barrier/barrier_recursive_doubling.c",
        "for (int mask = 1; mask < m; mask *= 2)",
        "for (int mask = 1; 2 * mask < m; mask *= 2)")
    monkeypatch.setenv("COLLSIM_COLLBENCH", str(collbench))
    G = crossbar(nodes=8)
    for p in (8, 6):
        rows, status = run(RunSpec("barrier", "recursive_doubling", p, (8,)), G, hockney,
                           platform="crossbar")
        assert status == 1 and rows[0]["check"] == "wrong", (p, rows)
        # some rank left about the whole 1 ms delay before the late rank entered
        assert rows[0]["max_error_ratio"] > 0.5, (p, rows)
    # the same barrier on 2 ranks has no last exchange to lose (m = 2: one exchange,
    # dropped, and no fold): nothing waits, and that too is caught
    rows, status = run(RunSpec("barrier", "recursive_doubling", 2, (8,)), G, hockney,
                       platform="crossbar")
    assert status == 1 and rows[0]["check"] == "wrong"
