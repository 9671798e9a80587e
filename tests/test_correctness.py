"""Every algorithm gives the right result, checked by collbench against an independent
reference: the rank-order sequential fold of the same generated inputs, computed on
rank 0 from the generator alone (exact for integers and for max/min/first_nonzero;
within twice Higham's bound for floating-point sums and products).

Matrix (issue 3): p in 1..17, 32, 33; counts 0, 1, 2, 7, 1000, 65537; every datatype;
every op the algorithm supports, including the non-commutative first_nonzero for the
algorithms that keep rank order; roots 0, p-1 and a middle rank.  Nothing is skipped.
"""

import pytest

from collsim.platforms import map_ranks
from collsim.runner import registry, simulate

PROCESS_COUNTS = list(range(1, 18)) + [32, 33]
COUNTS = [0, 1, 2, 7, 1000, 65537]
DTYPES = ["int32", "int64", "float", "double"]
ALL_OPS = ["sum", "prod", "max", "min", "first_nonzero"]
ALGORITHMS = [(entry["collective"], entry["algorithm"]) for entry in registry()]



@pytest.mark.parametrize("collective, algorithm", ALGORITHMS)
@pytest.mark.parametrize("p", PROCESS_COUNTS)
def test_results_are_correct(entries, crossbar64, hockney, collective, algorithm, p):
    entry = next(e for e in entries
                 if (e["collective"], e["algorithm"]) == (collective, algorithm))
    ops = [op for op in ALL_OPS
           if not (op == "first_nonzero" and "commutative" in entry["restrictions"])]
    dtypes = DTYPES
    if "float_sum" in entry["restrictions"]:
        ops, dtypes = ["sum"], ["float", "double"]
    roots = sorted({0, p - 1, p // 2})
    rows, status = simulate(
        crossbar64, map_ranks(crossbar64, p), hockney,
        ["--coll", collective, "--alg", algorithm,
         "--count", ",".join(map(str, COUNTS)),
         "--dtype", ",".join(dtypes),
         "--op", ",".join(ops),
         "--root", ",".join(map(str, roots))],
        what=f"{collective}/{algorithm} p={p}",
    )
    wrong = [row for row in rows if row["check"] != "ok"]
    assert status == 0 and not wrong, wrong[:3]
    expected_rows = (len(dtypes) * len(COUNTS)
                     * (1 if collective == "bcast" else len(ops))
                     * (1 if collective == "allreduce" else len(roots)))
    assert len(rows) == expected_rows
    assert {row["np"] for row in rows} == {p}
    for row in rows:
        if row["dtype"] in ("int32", "int64") or row["op"] in (None, "max", "min",
                                                             "first_nonzero"):
            assert row["bitwise_rank_order"], row
        assert row["max_error_ratio"] <= 1.0
        if collective != "reduce":
            assert row["ranks_agree"], row
