"""Parameter checks shared by the generators: one ``ValueError`` naming the parameter."""

from __future__ import annotations

import math
import numbers


def check_count(name: str, value: object, minimum: int = 1) -> None:
    """Require a whole number >= minimum."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


def check_positive(name: str, value: object) -> None:
    """Require a finite number > 0."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not value > 0
        or math.isinf(value)
    ):
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")


def check_nonnegative(name: str, value: object) -> None:
    """Require a finite number >= 0."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not value >= 0
        or math.isinf(value)
    ):
        raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
