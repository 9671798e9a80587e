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
"""

from __future__ import annotations

import math
import struct

__all__ = ["DISTRIBUTIONS", "bits", "value", "float32"]

DISTRIBUTIONS = ("uniform", "lognormal", "illcond")
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


def _double(seed: int, rank: int, index: int, b: int, dist: str) -> float:
    if dist == "lognormal":
        magnitude = math.ldexp(1.0 + (b & ((1 << 52) - 1)) * 2.0**-52, _lognormal_exponent(b))
        return -magnitude if b >> 63 else magnitude
    uniform = (b >> 11) * 2.0**-52 - 1.0
    if dist == "illcond":
        big = math.ldexp(float(bits(seed ^ _ILLCOND_SALT, rank // 2, index) >> 34), 20)
        return (big if rank % 2 == 0 else -big) + uniform
    return uniform


def _float(seed: int, rank: int, index: int, b: int, dist: str) -> float:
    if dist == "lognormal":
        mantissa = 1.0 + (b & ((1 << 23) - 1)) * 2.0**-23
        magnitude = math.ldexp(mantissa, _lognormal_exponent(b))  # exact in float
        return -magnitude if b >> 63 else magnitude
    uniform = (b >> 40) * 2.0**-23 - 1.0  # exact in float
    if dist == "illcond":
        big = math.ldexp(float(bits(seed ^ _ILLCOND_SALT, rank // 2, index) >> 48), 8)
        return float32((big if rank % 2 == 0 else -big) + uniform)  # exact sum, one rounding
    return uniform


def value(seed: int, rank: int, index: int, dtype: str = "double", op: str = "sum",
          dist: str = "uniform") -> int | float:
    """Return element ``index`` of ``rank``'s input, as collbench generates it.

    Parameters
    ----------
    seed, rank, index : int
        What the value depends on, and all it depends on.
    dtype : {"int32", "int64", "float", "double"}
    op : {"sum", "prod", "max", "min", "first_nonzero"}
        Products take values near 1 (+-1 for integers), first_nonzero takes
        zero with probability 1/2; the other ops the distribution's values.
    dist : {"uniform", "lognormal", "illcond"}
        Distribution of floating-point inputs.

    Returns
    -------
    int or float
        A float is the exact value of the single or double.

    Examples
    --------
    >>> value(1, 0, 0), value(1, 3, 7, "int32")
    (0.38702427802045847, 303)
    """
    if dtype not in ("int32", "int64", "float", "double"):
        raise ValueError(f"dtype must be int32, int64, float or double, got {dtype!r}")
    if op not in ("sum", "prod", "max", "min", "first_nonzero"):
        raise ValueError(f"unknown op {op!r}")
    if dist not in DISTRIBUTIONS:
        raise ValueError(f"dist must be one of {DISTRIBUTIONS}, got {dist!r}")
    b = bits(seed, rank, index)
    if op == "first_nonzero" and b & 1:
        return 0 if dtype.startswith("int") else 0.0
    if op == "prod":
        if dtype.startswith("int"):
            return 1 if b >> 63 else -1
        if dtype == "float":
            return float32(1.0 + ((b >> 40) * 2.0**-24 - 0.5) * 2.0**-10)
        return 1.0 + ((b >> 11) * 2.0**-53 - 0.5) * 2.0**-10
    if dtype.startswith("int"):
        result = (b >> 33) % 2001 - 1000
    elif dtype == "float":
        result = _float(seed, rank, index, b, dist)
    else:
        result = _double(seed, rank, index, b, dist)
    if op == "first_nonzero" and result == 0:
        result = 1 if dtype.startswith("int") else 1.0
    return result
