"""The input files' schemas: shared pieces, and pydantic's errors as one line.

Scenarios (:mod:`collsim.scenario`), suites (:mod:`collsim.checks`), profiles
(:mod:`collsim.profiles`) and the settings of a rules line (:mod:`collsim.rules`)
are declared as pydantic models beside the code that reads them, built from
the pieces here:

- :class:`Table`: a TOML table: strict types (``"8"`` is not an integer, ``true``
  not a number), unknown keys refused;
- :func:`bounded`: a number whose bounds are in :data:`collsim.limits.BOUNDS`;
  :func:`finite`: a finite float; :data:`Text`: a non-empty string;
  :func:`process_counts`, :func:`byte_sizes`, :data:`Mapping`,
  ``collsim.params.algorithm_params``: what scenarios and suites share;
- :func:`validate`: a table checked against its model, the first problem as one
  line, ``FILE: WHERE: WHAT`` (``FILE: WHERE must be ...`` for a bounded
  number, as :func:`collsim.limits.check` says it), a :class:`~collsim.files.BadInput`.

A validator says what is wrong by raising ``ValueError``; :class:`Problem` also
names the key it is about when that is not the validator's own.

Examples
--------
>>> class Price(Table):
...     per_node: Annotated[float, finite()] = 0.0
>>> validate(Price, {"per_node": 5}, "m.toml", where="price").per_node
5.0
>>> validate(Price, {"per_nod": 5}, "m.toml", where="price")
Traceback (most recent call last):
...
collsim.files.BadInput: m.toml: price.per_nod: unknown key 'per_nod' (expected one of: per_node)
>>> validate(Price, {"per_node": -1}, "m.toml", where="price")
Traceback (most recent call last):
...
collsim.files.BadInput: m.toml: price.per_node: must be a finite number >= 0, got -1
"""

from __future__ import annotations

import math
import numbers
import types
import typing
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, PlainValidator, StringConstraints, ValidationError

from collsim.files import BadInput
from collsim.limits import BOUNDS, check
from collsim.platforms import MAPPINGS
from collsim.units import parse_bytes

__all__ = ["Table", "Problem", "MustBe", "Text", "Mapping", "bounded", "finite", "finite_number", "process_counts",
           "byte_sizes", "validate", "where_of"]

Model = TypeVar("Model", bound=BaseModel)


class Table(BaseModel):
    """A TOML table: strict types, no unknown key, read-only once made."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)


class Problem(ValueError):
    """A validator's complaint about ``key`` (a key below the value it validates, or
    one of its model's fields when a model validator raises it)."""

    def __init__(self, message: str, key: str | int | None = None) -> None:
        super().__init__(message)
        self.key = key


class MustBe(ValueError):
    """A value that is not what it must be, its message ``must be ...``: said as
    ``WHERE must be ...`` (as :func:`collsim.limits.check` says a number out of bounds)."""


def bounded(name: str) -> PlainValidator:
    """A number checked by :func:`collsim.limits.check` against ``BOUNDS[name]``."""

    def validate_number(value: object) -> int | float:
        try:
            return check(name, value)
        except BadInput:
            raise MustBe(f"must be {BOUNDS[name].describe()}, got {value!r}") from None

    return PlainValidator(validate_number)


def finite_number(value: object, *, positive: bool = False) -> float:
    """``value`` as a float if it is a finite number >= 0 (> 0 if ``positive``).

    Raises
    ------
    ValueError
        Saying what it must be.
    """
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not math.isfinite(value) or value < 0 or (positive and value == 0)):
        raise ValueError(f"must be a finite number {'> 0' if positive else '>= 0'}, "
                         f"got {value!r}")
    return float(value)


def finite(*, positive: bool = False) -> PlainValidator:
    """A finite number >= 0 (> 0 if ``positive``), as a float (:func:`finite_number`)."""
    return PlainValidator(lambda value: finite_number(value, positive=positive))


Text = Annotated[str, StringConstraints(min_length=1)]
"""A non-empty string."""


def _mapping(value: object) -> str:
    if not isinstance(value, str) or value.partition(":")[0] not in MAPPINGS:
        raise ValueError(f"unknown mapping {value!r} (known: {', '.join(MAPPINGS)})")
    return value


Mapping = Annotated[str, PlainValidator(_mapping)]
"""A mapping of ranks to hosts: ``block``, ``cyclic:K``, ``file:PATH``... (``MAPPINGS``)."""


def _listed(value: object, *, scalar: bool) -> list:
    if isinstance(value, list):
        return value
    if scalar:
        return [value]
    raise ValueError(f"must be a list, got {type(value).__name__}")


def process_counts(*, scalar: bool = False, empty: str = "is empty: the grid would be empty"
                   ) -> PlainValidator:
    """A non-empty list of process counts (or one, if ``scalar``), each within ``BOUNDS["np"]``."""

    def validate_counts(value: object) -> tuple[int, ...]:
        values = _listed(value, scalar=scalar)
        if not values:
            raise ValueError(empty)
        counts = []
        for item in values:
            try:
                counts.append(check("np", item))
            except BadInput:
                raise MustBe(f"must be {BOUNDS['np'].describe()}, got {item!r}") from None
        return tuple(counts)

    return PlainValidator(validate_counts)


def byte_sizes(*, scalar: bool = False, distinct: bool = False) -> PlainValidator:
    """A non-empty list of sizes (integers or strings such as ``"64KiB"``), or one if
    ``scalar``; with ``distinct``, no size twice."""

    def validate_sizes(value: object) -> tuple[int, ...]:
        values = _listed(value, scalar=scalar)
        if not values:
            raise ValueError("is empty: the grid would be empty" if not scalar
                             else "must list at least one size")
        sizes = []
        for item in values:
            if isinstance(item, bool) or not isinstance(item, (int, str)):
                raise ValueError(f"a size is an integer or a string such as '64KiB', got {item!r}")
            if (isinstance(item, int) and item < 0) or (
                    isinstance(item, str) and item.strip().startswith("-")):
                raise ValueError(f"malformed size {item!r} (a negative size)")
            sizes.append(parse_bytes(str(item)))
        if distinct and len(set(sizes)) != len(sizes):
            raise ValueError("a size appears twice")
        return tuple(sizes)

    return PlainValidator(validate_sizes)


def where_of(loc: tuple) -> str:
    """``("workload", 1, "sizes")`` as ``workload[1].sizes``.

    >>> where_of(("machine", 0, "price", "per_node"))
    'machine[0].price.per_node'
    """
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _without_none(kind: Any) -> Any:
    """``X`` of ``X | None``."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        return next(arg for arg in typing.get_args(kind) if arg is not type(None))
    return kind


def _model_at(model: type[BaseModel], loc: tuple) -> type[BaseModel] | None:
    """The model of the table at ``loc`` below ``model`` (None if it is not one)."""
    kind: Any = model
    for part in loc:
        kind = _without_none(kind)
        if isinstance(part, int):
            args = typing.get_args(kind)
            kind = args[0] if args else None
        elif isinstance(kind, type) and issubclass(kind, BaseModel) and part in kind.model_fields:
            kind = kind.model_fields[part].annotation
        else:
            return None
    kind = _without_none(kind)
    return kind if isinstance(kind, type) and issubclass(kind, BaseModel) else None


_TYPE_NAMES = {"int_type": "an integer", "float_type": "a number", "string_type": "a string",
               "bool_type": "true or false", "list_type": "a list", "tuple_type": "a list",
               "dict_type": "a table", "model_type": "a table", "dataclass_type": "a table"}


def _describe(model: type[BaseModel], error: dict) -> tuple[tuple, str, str]:
    """(where, separator, what) of one of pydantic's errors."""
    loc, kind, given = tuple(error["loc"]), error["type"], error.get("input")
    if kind == "missing":
        parent = _model_at(model, loc[:-1])
        field = parent.model_fields.get(loc[-1]) if parent else None
        why = f" ({field.description})" if field is not None and field.description else ""
        return loc[:-1] or loc, ": ", f"missing key {loc[-1]!r}{why}"
    if kind == "extra_forbidden":
        parent = _model_at(model, loc[:-1])
        known = f" (expected one of: {', '.join(parent.model_fields)})" if parent else ""
        return loc, ": ", f"unknown key {loc[-1]!r}{known}"
    if kind in _TYPE_NAMES:
        return loc, ": ", f"must be {_TYPE_NAMES[kind]}, got {given!r}"
    if kind == "string_too_short":
        return loc, ": ", f"must be a non-empty string, got {given!r}"
    if kind == "greater_than_equal":
        return loc, ": ", f"must be >= {error['ctx']['ge']}, got {given!r}"
    if kind == "too_short":
        return loc, ": ", "must not be empty"
    cause = (error.get("ctx") or {}).get("error")
    if isinstance(cause, ValueError):
        if isinstance(cause, Problem) and cause.key is not None:
            loc = loc + (cause.key,)
        return loc, (" " if isinstance(cause, MustBe) else ": "), str(cause)
    return loc, ": ", error["msg"][0].lower() + error["msg"][1:]


def validate(model: type[Model], data: object, origin: str, *, where: str = "",
             say_where: bool = True) -> Model:
    """``data`` checked against ``model``; the first problem as one line.

    Parameters
    ----------
    model : type of Table
        The schema.
    data : object
        The table read from the file (``collsim.files.read_toml``).
    origin : str
        The file, first in the message ("": none).
    where : str, optional
        Where ``data`` sits in the file (``""``: it is the whole file).
    say_where : bool
        Whether the message names the key (``ORIGIN: WHERE: WHAT``); False where
        each message names it itself (``ORIGIN: WHAT``, a rules file's words).

    Raises
    ------
    BadInput
        ``ORIGIN: WHERE: WHAT``, naming the key that is wrong.
    """
    try:
        return model.model_validate(data)
    except ValidationError as error:
        errors = error.errors()
        # an unknown key first: a misspelt key is often a missing one too
        first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        loc, separator, what = _describe(model, first)
        key = where_of(((where,) if where else ()) + loc)
        if separator == " ":  # WHERE must be ...
            what = f"{key} {what}"
        elif say_where and key:
            what = f"{key}: {what}"
        raise BadInput(f"{origin}: {what}" if origin else what) from None
