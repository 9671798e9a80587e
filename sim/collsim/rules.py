"""Rules files: which collsim algorithm takes which collective call of a program.

This module is the definition of the format; ``sim/interpose/rules.c`` reads
the same files inside the program (``collsim app``, or any run with
``COLLSIM_RULES=FILE``), and ``collsim select --rules FILE`` writes them.

Format (plain text, one rule per line, ``#`` starts a comment)::

    collsim-rules 1
    # collective  algorithm           [np=LO-HI] [bytes=LO-HI] [parameter=value ...]
    allreduce     recursive_doubling  bytes=0-65535
    allreduce     ring                np=2-
    bcast         pipeline            segment_bytes=32768
    reduce        mpi

- The first line that is not blank or a comment is ``collsim-rules 1``.
- ``collective`` is ``allreduce``, ``reduce`` or ``bcast``; ``algorithm`` a
  registry name (``collsim list``) or ``mpi``, the MPI library's own algorithm.
- ``np`` is the communicator's size, ``bytes`` the call's bytes per process
  (count times the datatype's size); a range is ``N``, ``LO-HI`` (inclusive)
  or ``LO-`` (no upper bound), decimal integers.  A missing range holds every
  value.
- Parameters (the :class:`~collsim.params.AlgorithmParams` names):
  ``segment_bytes``, ``block_count``, ``group_count``, ``node_size``,
  ``chain_fanout`` (integers >= 0), ``inner_algorithm``, ``outer_algorithm`` (registry names); only those
  the algorithm reads.  :data:`RuleSettings` is the schema of these ``key=value`` words.

A call goes to the first rule of its collective whose ranges hold it.  A
collective without rules goes to the MPI library; a collective with rules but
none for a call fails that call (no silent fallback), as does a call the
rule's algorithm cannot take (e.g. a non-commutative op for ``ring``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import PlainValidator, create_model

from collsim.params import AlgorithmParams
from collsim.schema import MustBe, Table, validate

__all__ = [
    "Rule",
    "RuleSettings",
    "VERSION_LINE",
    "COLLECTIVES",
    "MPI_LIBRARY",
    "parse_rules",
    "read_rules",
    "format_rules",
    "match",
    "rule_from_use",
    "rules_from_cells",
]

VERSION_LINE = "collsim-rules 1"
COLLECTIVES = ("allreduce", "reduce", "bcast")
MPI_LIBRARY = "mpi"
_INT_PARAMETERS = ("segment_bytes", "block_count", "group_count", "node_size", "chain_fanout")
_NAME_PARAMETERS = ("inner_algorithm", "outer_algorithm")
_NAME = re.compile(r"[a-z0-9_]+\Z")
_RANGE = re.compile(r"(\d+)(?:-(\d*))?\Z")
# the C reader's limits (rules.c): fields of 32-bit ints, names of at most 63 characters
_INT_MAX = 0x7FFFFFFF


@dataclass(frozen=True)
class Rule:
    """One line of a rules file.

    Attributes
    ----------
    collective : str
        allreduce, reduce or bcast.
    algorithm : str
        A registry name, or ``"mpi"`` for the MPI library's own algorithm.
    np_min, np_max : int, int or None
        Communicator sizes the rule holds, inclusive (None: no upper bound).
    bytes_min, bytes_max : int, int or None
        Bytes per process the rule holds, inclusive (None: no upper bound).
    params : AlgorithmParams
        The algorithm's parameters (zero / None: its default).
    line : int
        Line number in the file it was read from (0 when made in Python).
    """

    collective: str
    algorithm: str
    np_min: int = 0
    np_max: int | None = None
    bytes_min: int = 0
    bytes_max: int | None = None
    params: AlgorithmParams = field(default_factory=AlgorithmParams)
    line: int = 0

    def __post_init__(self) -> None:
        if self.collective not in COLLECTIVES:
            raise ValueError(f"unknown collective {self.collective!r} "
                             f"(known: {', '.join(COLLECTIVES)})")
        if not _NAME.match(self.algorithm):
            raise ValueError(f"malformed algorithm name {self.algorithm!r}")
        for low, high, what in ((self.np_min, self.np_max, "np"),
                                (self.bytes_min, self.bytes_max, "bytes")):
            if low < 0 or (high is not None and high < low):
                raise ValueError(f"{what} range {low}-{'' if high is None else high} is empty "
                                 "or negative")
        if self.algorithm == MPI_LIBRARY and self.params != AlgorithmParams():
            raise ValueError("the MPI library's algorithm (mpi) takes no parameters")
        if self.params.alpha_over_beta_bytes:
            raise ValueError("alpha_over_beta_bytes is the platform's, not a rule's")
        for name in _NAME_PARAMETERS:
            value = getattr(self.params, name)
            if value is not None and (not _NAME.match(value) or len(value) > 63):
                raise ValueError(f"malformed algorithm name {value!r} for {name}")

    def holds(self, np: int, n_bytes: int) -> bool:
        """Whether a call on np processes with n_bytes bytes per process falls in the rule.

        Examples
        --------
        >>> Rule("allreduce", "ring", bytes_min=65536).holds(8, 1 << 20)
        True
        """
        return (self.np_min <= np and (self.np_max is None or np <= self.np_max)
                and self.bytes_min <= n_bytes
                and (self.bytes_max is None or n_bytes <= self.bytes_max))

    def to_line(self) -> str:
        """The rule as a line of a rules file (without newline)."""
        words = [self.collective, self.algorithm]
        for name, low, high in (("np", self.np_min, self.np_max),
                                ("bytes", self.bytes_min, self.bytes_max)):
            if low == 0 and high is None:
                continue
            words.append(f"{name}={low}-{'' if high is None else high}")
        for name in _INT_PARAMETERS + _NAME_PARAMETERS:
            value = getattr(self.params, name)
            if value:
                words.append(f"{name}={value}")
        return " ".join(words)


# -- the schema of a rule's key=value words ----------------------------------------------

def _range(key: str) -> PlainValidator:
    """``N``, ``LO-HI`` or ``LO-`` as (low, high or None)."""

    def parse(value: object) -> tuple[int, int | None]:
        found = _RANGE.match(value) if isinstance(value, str) else None
        if found:
            low = int(found.group(1))
            high = low if found.group(2) is None else (
                int(found.group(2)) if found.group(2) else None)
            if high is None or low <= high:
                return low, high
        raise MustBe(f"must be N, LO-HI or LO- (integers, LO <= HI), got {value!r}")

    return PlainValidator(parse)


def _count(key: str) -> PlainValidator:
    """A decimal integer >= 0 that the C reader's 32-bit field holds."""

    def parse(value: object) -> int:
        if not isinstance(value, str) or not value.isdigit() or int(value) > _INT_MAX:
            raise ValueError(f"expected an integer >= 0 after {key!r}, got {value!r}")
        return int(value)

    return PlainValidator(parse)


# The ``key=value`` words of a rule (each a string as written) and what they hold.
RuleSettings = create_model(
    "RuleSettings", __base__=Table,
    np=(Annotated[tuple, _range("np")], (0, None)),
    bytes=(Annotated[tuple, _range("bytes")], (0, None)),
    **{name: (Annotated[int, _count(name)], 0) for name in _INT_PARAMETERS},
    **{name: (str, None) for name in _NAME_PARAMETERS})


def _rule_from_words(words: list[str], line: int) -> Rule:
    if len(words) < 2:
        raise ValueError("a rule is COLLECTIVE ALGORITHM [key=value ...]")
    settings: dict[str, str] = {}
    for word in words[2:]:
        key, sep, value = word.partition("=")
        if not sep or not key:
            raise ValueError(f"expected key=value, got {word!r}")
        settings[key] = value
    checked = validate(RuleSettings, settings, "", say_where=False)
    params = AlgorithmParams(**{name: getattr(checked, name) for name in checked.model_fields_set
                                if name not in ("np", "bytes")})  # checks "not both" itself
    (np_min, np_max), (bytes_min, bytes_max) = checked.np, checked.bytes
    return Rule(words[0], words[1], np_min=np_min, np_max=np_max, bytes_min=bytes_min,
                bytes_max=bytes_max, params=params, line=line)


def parse_rules(text: str, origin: str = "<rules>") -> list[Rule]:
    """Parse the text of a rules file.

    Parameters
    ----------
    text : str
        The file's contents.
    origin : str
        The file's name, for error messages.

    Returns
    -------
    list of Rule
        In file order (the order in which calls try them).

    Raises
    ------
    ValueError
        ``ORIGIN:LINE: what is wrong`` for the first mistake.

    Examples
    --------
    >>> rules = parse_rules("collsim-rules 1\\nallreduce ring bytes=65536-\\n")
    >>> rules[0].algorithm, rules[0].bytes_min, rules[0].bytes_max
    ('ring', 65536, None)
    """
    rules: list[Rule] = []
    seen_version = False
    number = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if len(raw) > 1023:
            raise ValueError(f"{origin}:{number}: line longer than 1023 characters")
        if not seen_version:
            if " ".join(words) != VERSION_LINE:
                raise ValueError(f"{origin}:{number}: the first line must be {VERSION_LINE!r}")
            seen_version = True
            continue
        try:
            rules.append(_rule_from_words(words, number))
        except ValueError as error:
            raise ValueError(f"{origin}:{number}: {error}") from None
    if not seen_version:
        raise ValueError(f"{origin}:{number}: empty: the first line must be {VERSION_LINE!r}")
    return rules


def read_rules(path: str) -> list[Rule]:
    """Read and parse a rules file.

    Raises
    ------
    ValueError
        If the file is unreadable or malformed (one line naming file and line).
    """
    from collsim.files import read_text

    return parse_rules(read_text(path, "rules file"), origin=path)


def format_rules(rules: list[Rule], comment: str = "") -> str:
    """The text of a rules file holding these rules, in order.

    Examples
    --------
    >>> print(format_rules([Rule("bcast", "binomial", bytes_max=8191)]), end="")
    collsim-rules 1
    bcast binomial bytes=0-8191
    """
    head = "".join(f"# {line}\n" if line else "#\n" for line in comment.splitlines())
    return head + VERSION_LINE + "\n" + "".join(rule.to_line() + "\n" for rule in rules)


def match(rules: list[Rule], collective: str, np: int, n_bytes: int) -> Rule | None:
    """The rule that takes a call (the first of its collective holding it), or None."""
    return next((rule for rule in rules
                 if rule.collective == collective and rule.holds(np, n_bytes)), None)


def rule_from_use(text: str) -> Rule:
    """An unconditional rule from ``COLL:ALG[:param=value...]`` (``collsim app --use``).

    Examples
    --------
    >>> rule_from_use("bcast:pipeline:segment_bytes=32768").to_line()
    'bcast pipeline segment_bytes=32768'
    """
    parts = text.split(":")
    if len(parts) < 2 or not parts[0] or not parts[1]:
        raise ValueError(f"--use takes COLL:ALG[:param=value...], got {text!r}")
    for word in parts[2:]:
        if word.partition("=")[0] in ("np", "bytes"):
            raise ValueError(f"--use applies to every call; np and bytes ranges go in a "
                             f"rules file (got {text!r})")
    return _rule_from_words(parts, 0)


def rules_from_cells(cells: list[dict]) -> list[Rule]:
    """Rules that pick each cell's fastest algorithm (``collsim select --rules``).

    A cell (np p_i, size s_j) of the grid covers the process counts from p_i up
    to the next measured count (the first from 1, the last without bound) and
    the sizes from s_j up to the next measured size (the first from 0, the
    last without bound); neighbouring sizes with the same winner merge into
    one rule.

    Parameters
    ----------
    cells : list of dict
        ``collsim.select.select``'s cells: ``collective``, ``np``, ``bytes``,
        ``fastest``.

    Examples
    --------
    >>> cells = [{"collective": "allreduce", "np": 4, "bytes": b, "fastest": f}
    ...          for b, f in ((8, "recursive_doubling"), (1024, "recursive_doubling"),
    ...                       (1 << 20, "ring"))]
    >>> print(format_rules(rules_from_cells(cells)), end="")
    collsim-rules 1
    allreduce recursive_doubling bytes=0-1048575
    allreduce ring bytes=1048576-
    """
    rules: list[Rule] = []
    for collective in dict.fromkeys(c["collective"] for c in cells):
        mine = [c for c in cells if c["collective"] == collective]
        nps = sorted({c["np"] for c in mine})
        sizes = sorted({c["bytes"] for c in mine})
        fastest = {(c["np"], c["bytes"]): c["fastest"] for c in mine}
        for i, p in enumerate(nps):
            np_min = 0 if i == 0 else p
            np_max = nps[i + 1] - 1 if i + 1 < len(nps) else None
            j = 0
            while j < len(sizes):
                winner = fastest[p, sizes[j]]
                k = j
                while k + 1 < len(sizes) and fastest[p, sizes[k + 1]] == winner:
                    k += 1
                rules.append(Rule(collective, winner, np_min=np_min, np_max=np_max,
                                  bytes_min=0 if j == 0 else sizes[j],
                                  bytes_max=sizes[k + 1] - 1 if k + 1 < len(sizes) else None))
                j = k + 1
    return rules


