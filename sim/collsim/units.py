"""Parsing and formatting of quantities with units (sizes, bandwidths, times), and the
text tables every command prints (:func:`format_table`).

Inside collsim every quantity is an SI number whose unit is in its name
(``n_bytes``, ``latency_s``, ``bandwidth_Bps``); strings with suffixes such as
``"64KiB"``, ``"12.5GBps"`` or ``"1us"`` exist only at the edges (command line,
scenario files, SimGrid XML).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

__all__ = [
    "parse_bytes",
    "parse_byte_list",
    "parse_bandwidth",
    "parse_time",
    "format_bytes",
    "format_seconds",
    "format_table",
    "simgrid_bandwidth",
    "simgrid_time",
]

_SIZE_UNITS = {
    "": 1,
    "B": 1,
    "KiB": 1024,
    "MiB": 1024**2,
    "GiB": 1024**3,
    "kB": 1000,
    "KB": 1000,
    "MB": 1000**2,
    "GB": 1000**3,
}
_BANDWIDTH_UNITS = {
    "Bps": 1.0,
    "kBps": 1e3,
    "KBps": 1e3,
    "MBps": 1e6,
    "GBps": 1e9,
    "TBps": 1e12,
    "bps": 1 / 8,
    "kbps": 1e3 / 8,
    "Mbps": 1e6 / 8,
    "Gbps": 1e9 / 8,
    "Tbps": 1e12 / 8,
}
_TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12}
_NUMBER = r"([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)"


def parse_bytes(text: str) -> int:
    """Parse a size such as ``"8"``, ``"8B"``, ``"64KiB"`` or ``"1MiB"`` into bytes.

    Parameters
    ----------
    text : str
        A non-negative whole number with an optional unit: B, KiB, MiB, GiB
        (powers of 1024) or kB, MB, GB (powers of 1000).

    Returns
    -------
    int
        The size in bytes.

    Raises
    ------
    ValueError
        If the text is not such a size or is not a whole number of bytes.

    Examples
    --------
    >>> parse_bytes("64KiB")
    65536
    >>> parse_bytes("1.5KiB")
    1536
    """
    match = re.fullmatch(_NUMBER + r"\s*([A-Za-z]*)", text.strip())
    if match is None or match.group(2) not in _SIZE_UNITS:
        raise ValueError(f"malformed size {text!r} (examples: 8, 4KiB, 1MiB)")
    mantissa, _, exponent = match.group(1).lower().partition("e")
    if exponent and abs(int(exponent)) > 30:
        raise ValueError(f"size {text!r} is too large" if int(exponent) > 0
                         else f"size {text!r} is not a whole number of bytes")
    # exactly, in decimal: 8.00000000000000001 is not 8 (a float would round it to 8)
    value = Fraction(mantissa) * Fraction(10) ** int(exponent or 0) * _SIZE_UNITS[match.group(2)]
    if value >= 2**63:
        raise ValueError(f"size {text!r} is too large")
    if value.denominator != 1:
        raise ValueError(f"size {text!r} is not a whole number of bytes")
    return int(value)


def parse_byte_list(text: str) -> list[int]:
    """Parse a comma-separated list of sizes (``"8,64KiB,1MiB"``) into bytes.

    Examples
    --------
    >>> parse_byte_list("8,4KiB")
    [8, 4096]
    """
    items = [item for item in text.split(",")]
    if not text.strip() or any(not item.strip() for item in items):
        raise ValueError(f"malformed size list {text!r} (example: 8,64KiB,1MiB)")
    return [parse_bytes(item) for item in items]


def _quantity(text: str | float, units: dict[str, float], what: str, examples: str) -> float:
    """A number, or a number with one of ``units`` (none: factor 1), as a float."""
    if isinstance(text, (int, float)):
        return float(text)
    match = re.fullmatch(_NUMBER + r"\s*([A-Za-z]*)", text.strip())
    if match is None or match.group(2) not in (*units, ""):
        raise ValueError(f"malformed {what} {text!r} (examples: {examples})")
    return float(match.group(1)) * units.get(match.group(2), 1.0)


def parse_bandwidth(text: str | float) -> float:
    """Parse a bandwidth (``"12.5GBps"``, ``"100Gbps"`` or a number of bytes/s).

    Examples
    --------
    >>> parse_bandwidth("100Gbps")
    12500000000.0
    """
    value = _quantity(text, _BANDWIDTH_UNITS, "bandwidth", "12.5GBps, 100Gbps")
    if not value > 0 or math.isinf(value):
        raise ValueError(f"bandwidth must be positive and finite, got {text!r}")
    return value


def parse_time(text: str | float) -> float:
    """Parse a duration (``"1us"``, ``"0.5ms"`` or a number of seconds).

    Examples
    --------
    >>> parse_time("1.5us")
    1.5e-06
    """
    value = _quantity(text, _TIME_UNITS, "duration", "1us, 0.5ms, 2e-6")
    if value < 0 or math.isinf(value) or math.isnan(value):
        raise ValueError(f"duration must be non-negative and finite, got {text!r}")
    return value


def format_bytes(n_bytes: int) -> str:
    """Format a size with the largest binary unit that divides it.

    Examples
    --------
    >>> format_bytes(65536), format_bytes(1000)
    ('64KiB', '1000B')
    """
    for unit, factor in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n_bytes >= factor and n_bytes % factor == 0:
            return f"{n_bytes // factor}{unit}"
    return f"{n_bytes}B"


def format_seconds(seconds: float) -> str:
    """Format a duration with an SI prefix and 4 significant digits.

    Examples
    --------
    >>> format_seconds(2.0024e-06)
    '2.002 us'
    """
    for unit, factor in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(seconds) >= factor:
            return f"{seconds / factor:.4g} {unit}"
    return f"{seconds / 1e-9:.4g} ns"


def simgrid_bandwidth(bandwidth_Bps: float) -> str:
    """Write a bandwidth the SimGrid way, exactly (``"12500000000Bps"``)."""
    return f"{bandwidth_Bps!r}Bps"


def simgrid_time(seconds: float) -> str:
    """Write a duration the SimGrid way, exactly (``"1e-06s"``)."""
    return f"{seconds!r}s"


def format_table(lines) -> str:
    """The text table of ``lines`` (the header first, then the rows; every cell a string):
    columns left-aligned, two spaces apart, no trailing blanks, one line each.

    Examples
    --------
    >>> print(format_table([("np", "time"), ("16", "1.2 us")]), end="")
    np  time
    16  1.2 us
    """
    lines = [tuple(line) for line in lines]
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    return "".join("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip()
                   + "\n" for line in lines)
