"""The input generator of collbench, in Python, bit for bit.

An element's value depends only on (seed, global rank, element index), so the
exact answer of a reduction is known without running it.  This module mirrors
``sim/collbench/datagen.c``; ``tests/test_datagen.py`` holds the two against
each other on sample values.

Distributions of floating-point inputs (integers ignore them):

- ``uniform``: uniform in [-1, 1), 53 (double) or 24 (float) random bits;
- ``lognormal``: +-m 2^e with m uniform in [1, 2) and e approximately normal
  (a sum of four random bytes / 16 - 32: sigma ~9.2, |e| <= 32), random sign:
  a wide range with mixed signs;
- ``illcond``: ranks 2k and 2k+1 carry +B_k and -B_k (B_k an integer times
  2^20 below 2^50 for double, times 2^8 below 2^24 for float) plus a uniform
  [-1, 1) part, rounded: for an even number of ranks the exact sum is near zero
  after heavy cancellation, while sum |x_i| is huge.

The names and properties of the datatypes, ops and distributions are
collbench's (``sim/collbench/datagen.def``, read through
:func:`collsim.harness.data_catalog`); this module holds only the generators,
and ``tests/test_datagen.py`` checks they cover exactly the published set.
"""

from __future__ import annotations

import math
import struct

from collsim.harness import PublishedNames, data_catalog

__all__ = ["DISTRIBUTIONS", "OP_INPUTS", "bits", "value", "float32"]

DISTRIBUTIONS = PublishedNames("distributions")
# The inputs each op takes (datagen_value): the distribution's values, values
# near 1 for products, or zero half of the time for first_nonzero
OP_INPUTS = {"sum": "distribution", "prod": "near_one", "max": "distribution",
             "min": "distribution", "first_nonzero": "half_zero"}
_MASK = (1 << 64) - 1
_ILLCOND_SALT = 0x5EEDC0FFEE123457


def _splitmix64(z: int) -> int:
    z = (z + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def bits(seed: int, rank: int, index: int) -> int:
    """64 random bits for (seed, rank, index): splitmix64 applied three times.

    Examples
    --------
    >>> hex(bits(1, 0, 0))
    '0xb18a02f46d8d86c3'
    """
    return _splitmix64(_splitmix64(_splitmix64(seed & _MASK) ^ (rank & 0xFFFFFFFF)) ^ index)


def float32(x: float) -> float:
    """Round a Python float to the nearest IEEE single (ties to even)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def _lognormal_exponent(b: int) -> int:
    more = _splitmix64(b)
    return sum((more >> shift) & 0xFF for shift in (0, 8, 16, 24)) // 16 - 32


def _double_uniform(b: int) -> float:
    return (b >> 11) * 2.0**-52 - 1.0


def _float_uniform(b: int) -> float:
    return (b >> 40) * 2.0**-23 - 1.0  # exact in float


def _double_lognormal(seed: int, rank: int, index: int, b: int) -> float:
    magnitude = math.ldexp(1.0 + (b & ((1 << 52) - 1)) * 2.0**-52, _lognormal_exponent(b))
    return -magnitude if b >> 63 else magnitude


def _float_lognormal(seed: int, rank: int, index: int, b: int) -> float:
    mantissa = 1.0 + (b & ((1 << 23) - 1)) * 2.0**-23
    magnitude = math.ldexp(mantissa, _lognormal_exponent(b))  # exact in float
    return -magnitude if b >> 63 else magnitude


def _double_illcond(seed: int, rank: int, index: int, b: int) -> float:
    big = math.ldexp(float(bits(seed ^ _ILLCOND_SALT, rank // 2, index) >> 34), 20)
    return (big if rank % 2 == 0 else -big) + _double_uniform(b)


def _float_illcond(seed: int, rank: int, index: int, b: int) -> float:
    big = math.ldexp(float(bits(seed ^ _ILLCOND_SALT, rank // 2, index) >> 48), 8)
    return float32((big if rank % 2 == 0 else -big) + _float_uniform(b))  # exact sum, one rounding


# distribution -> (double generator, float generator) of (seed, rank, index, bits)
_GENERATORS = {
    "uniform": (lambda seed, rank, index, b: _double_uniform(b),
                lambda seed, rank, index, b: _float_uniform(b)),
    "lognormal": (_double_lognormal, _float_lognormal),
    "illcond": (_double_illcond, _float_illcond),
}


def value(seed: int, rank: int, index: int, dtype: str = "double", op: str = "sum",
          dist: str = "uniform") -> int | float:
    """Return element ``index`` of ``rank``'s input, as collbench generates it.

    Parameters
    ----------
    seed, rank, index : int
        What the value depends on, and all it depends on.
    dtype : str
        A datatype collbench publishes ("int32", "int64", "float", "double").
    op : str
        An op collbench publishes: its inputs are ``OP_INPUTS[op]``.  Products
        take values near 1 (+-1 for integers), first_nonzero takes zero with
        probability 1/2; the other ops the distribution's values.
    dist : str
        Distribution of floating-point inputs ("uniform", "lognormal",
        "illcond").

    Returns
    -------
    int or float
        A float is the exact value of the single or double.

    Examples
    --------
    >>> value(1, 0, 0), value(1, 3, 7, "int32")
    (0.38702427802045847, 303)
    """
    types = {item["name"]: item for item in data_catalog()["types"]}
    if dtype not in types:
        raise ValueError(f"dtype must be one of {', '.join(types)}, got {dtype!r}")
    if op not in PublishedNames("ops"):
        raise ValueError(f"unknown op {op!r}")
    if dist not in DISTRIBUTIONS:
        raise ValueError(f"dist must be one of {', '.join(DISTRIBUTIONS)}, got {dist!r}")
    is_float, single = types[dtype]["is_float"], types[dtype]["size_bytes"] == 4
    b = bits(seed, rank, index)
    if OP_INPUTS[op] == "half_zero" and b & 1:
        return 0.0 if is_float else 0
    if OP_INPUTS[op] == "near_one":
        if not is_float:
            return 1 if b >> 63 else -1
        if single:
            return float32(1.0 + ((b >> 40) * 2.0**-24 - 0.5) * 2.0**-10)
        return 1.0 + ((b >> 11) * 2.0**-53 - 0.5) * 2.0**-10
    if not is_float:
        result = (b >> 33) % 2001 - 1000
    else:
        result = _GENERATORS[dist][1 if single else 0](seed, rank, index, b)
    if OP_INPUTS[op] == "half_zero" and result == 0:
        result = 1.0 if is_float else 1
    return result
