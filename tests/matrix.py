"""The cells of the correctness matrix, one home for the files that run it
(tests/test_correctness.py under smpirun, tests/test_correctness_mpi.py under mpirun):
counts, datatypes, ops and roots per registry entry, the arguments of one collbench
launch, and the checks every row of it must pass."""

from collsim.harness import collectives

COUNTS = [0, 1, 2, 3, 17, 1000, 65537]
# The collectives whose buffers hold p blocks (allgather, alltoall, gather,
# scatter, reduce_scatter: collectives.def) move p times a block: their largest
# block is one that crosses a block of 64 KiB only at p >= 16.
BLOCKS_COUNTS = [0, 1, 2, 3, 17, 1000, 4099]
DTYPES = ["int32", "double", "float"]
BASE_OPS = ["sum", "max", "first_nonzero"]
CHEAP_OPS = ["prod", "min"]
CHEAP_UP_TO_P = 8
FIRST_COLLECTIVES = ("allreduce", "reduce", "bcast")


def ops_for(entry, p):
    if not collectives()[entry["collective"]]["op"]:
        return ["sum"]  # a collective that only moves data: the op is not passed
    if "float_sum" in entry["restrictions"]:
        return ["sum"]
    ops = [op for op in BASE_OPS
           if not (op == "first_nonzero" and "commutative" in entry["restrictions"])]
    return ops + (CHEAP_OPS if p <= CHEAP_UP_TO_P else [])


def dtypes_for(entry):
    return [d for d in DTYPES if d in ("float", "double")] \
        if "float_sum" in entry["restrictions"] else DTYPES


def allowed(entry, p):
    return "power_of_two" not in entry["restrictions"] or p & (p - 1) == 0


def counts_for(entry):
    shape = collectives()[entry["collective"]]
    p_blocks = any(shape[side].startswith("all") for side in ("send_blocks", "recv_blocks"))
    return BLOCKS_COUNTS if p_blocks else COUNTS


def matrix_args(entry, p, counts=None):
    """collbench's arguments for the matrix of one entry on p ranks."""
    counts = counts_for(entry) if counts is None else counts
    return ["--coll", entry["collective"], "--alg", entry["algorithm"],
            "--count", ",".join(map(str, counts)), "--dtype", ",".join(dtypes_for(entry)),
            "--op", ",".join(ops_for(entry, p)),
            "--root", ",".join(map(str, sorted({0, p - 1, p // 2})))]


def expected_rows(entry, p, counts=None):
    """The rows of one launch: datatypes x counts x ops (reductions) x roots (rooted)."""
    shape = collectives()[entry["collective"]]
    counts = counts_for(entry) if counts is None else counts
    return (len(dtypes_for(entry)) * len(counts)
            * (len(ops_for(entry, p)) if shape["op"] else 1)
            * (len(sorted({0, p - 1, p // 2})) if shape["root"] else 1))
