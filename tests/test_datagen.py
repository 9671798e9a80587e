"""The Python generator equals collbench's bit for bit, and so do the exact sums."""

import math
import struct
from fractions import Fraction

import pytest

from collsim.analysis import datagen
from collsim.platforms import crossbar, map_ranks
from collsim.harness import data_catalog, simulate

# every datatype and distribution collbench publishes, and one op of each kind of input
# (the twin's OP_INPUTS: tests below hold it to the published ops)
CASES = [
    (dtype["name"], op, dist)
    for dtype in data_catalog()["types"]
    for op in ("sum", "prod", "first_nonzero")
    for dist in datagen.DISTRIBUTIONS
    if dtype["is_float"] or dist == "uniform"
]


def test_the_twin_generates_exactly_the_published_ops_and_distributions():
    published = data_catalog()
    assert set(datagen.OP_INPUTS) == {op["name"] for op in published["ops"]}
    assert set(datagen._GENERATORS) == {dist["name"] for dist in published["distributions"]}
    # the twin tells datatypes apart by these properties alone
    assert all(t["size_bytes"] in (4, 8) for t in published["types"] if t["is_float"])


def test_the_cases_cover_every_kind_of_input():
    assert {datagen.OP_INPUTS[op] for _, op, _ in CASES} == set(datagen.OP_INPUTS.values())


def _float32_neighbours(f):
    """f and the two adjacent singles."""
    i = struct.unpack("<i", struct.pack("<f", f))[0]
    ordered = i if i >= 0 else -(i & 0x7FFFFFFF)
    out = []
    for step in (-1, 0, 1):
        o = ordered + step
        j = o if o >= 0 else (-o) | -0x80000000
        out.append(struct.unpack("<f", struct.pack("<i", j))[0])
    return out


def _round_to_float32(q):
    """The single nearest to the rational q, ties to even."""
    candidates = _float32_neighbours(datagen.float32(float(q)))
    return min(candidates,
               key=lambda c: (abs(Fraction(c) - q), struct.unpack("<I", struct.pack("<f", c))[0] & 1))


def _bits(dtype, x):
    fmt = {"int32": "<i", "int64": "<q", "float": "<f", "double": "<d"}[dtype]
    raw = struct.pack(fmt, x)
    return int.from_bytes(raw, "little")


@pytest.mark.parametrize("dtype, op, dist", CASES)
def test_python_and_c_generate_the_same_bits(hockney, dtype, op, dist):
    np, count, seed = 6, 40, 12345
    G = crossbar(nodes=np)
    rows, status = simulate(
        G, map_ranks(G, np), hockney,
        ["--dump-inputs", "--count", str(count), "--dtype", dtype, "--op", op,
         "--dist", dist, "--seed", str(seed)],
        what="dump-inputs",
    )
    assert status == 0 and len(rows) == count
    for row in rows:
        i = row["index"]
        expected = [_bits(dtype, datagen.value(seed, rank, i, dtype, op, dist))
                    for rank in range(np)]
        assert [int(h, 16) for h in row["values"]] == expected, (dtype, op, dist, i)
        if dtype in ("float", "double"):
            values = [datagen.value(seed, rank, i, dtype, op, dist) for rank in range(np)]
            if dtype == "float":
                exact = _round_to_float32(sum(map(Fraction, values)))
            else:
                exact = math.fsum(values)  # correctly rounded
            assert row["exact_sum"] == exact


def test_illcond_cancels_for_even_rank_counts():
    values = [datagen.value(7, rank, 3, "double", "sum", "illcond") for rank in range(64)]
    exact = math.fsum(values)
    assert abs(exact) < 64 and sum(abs(v) for v in values) > 2**40


def test_lognormal_spans_a_wide_range_with_both_signs():
    values = [datagen.value(7, rank, 0, "double", "sum", "lognormal") for rank in range(2000)]
    exponents = [math.frexp(v)[1] for v in values]
    assert max(exponents) - min(exponents) > 40
    assert any(v < 0 for v in values) and any(v > 0 for v in values)


def test_bad_arguments():
    with pytest.raises(ValueError, match="dist"):
        datagen.value(1, 0, 0, dist="normal")
    with pytest.raises(ValueError, match="dtype"):
        datagen.value(1, 0, 0, dtype="half")
