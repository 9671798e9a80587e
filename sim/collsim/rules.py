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
    alltoall      bruck               bytes=0-1023
    reduce        mpi

- The first line that is not blank or a comment is ``collsim-rules 1``.
- ``collective`` is one of ``algorithms/collectives.def`` (``collsim list``:
  allreduce, reduce, bcast, allgather, reduce_scatter, alltoall, gather,
  scatter, barrier, scan, exscan); ``algorithm`` a registry name of it or
  ``mpi``, the MPI library's own algorithm.  ``reduce_scatter`` takes
  MPI_Reduce_scatter_block and the MPI_Reduce_scatter calls whose counts are
  all equal; ``allgather``, ``alltoall``, ``gather`` and ``scatter`` take
  their v-variants' calls whose counts are all equal and whose blocks lie
  one after the other (``sim/interpose/interpose.c``).
- ``np`` is the communicator's size, ``bytes`` the bytes of one block of the
  call, as a row's (collectives.def): the vector of allreduce, reduce, bcast,
  scan and exscan, what one rank sends to one other in allgather, alltoall,
  gather and scatter, what each rank receives in reduce_scatter; a barrier's
  are 0.  A range is ``N``, ``LO-HI`` (inclusive) or ``LO-`` (no upper
  bound), decimal integers.  A missing range holds every value.
- Parameters: the :class:`~collsim.params.AlgorithmParams` names a user sets
  (``collsim.params.user_parameters()``, from ``algorithms/params.def``:
  ``segment_bytes``, ``block_count``, ``group_count``, ``node_size``,
  ``chain_fanout``, ``cached_comms`` ...): whole numbers in the parameter's
  range (``cached_comms``: 0 or 1), registry names for ``inner_algorithm``,
  ``outer_algorithm``; only those the algorithm reads.

A call goes to the first rule of its collective whose ranges hold it.  A
collective without rules goes to the MPI library; a collective with rules but
none for a call fails that call (no silent fallback), as does a call the
rule's algorithm cannot take (e.g. a non-commutative op for ``ring``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from collsim.params import AlgorithmParams, parameter_table, user_parameters

__all__ = [
    "Rule",
    "VERSION_LINE",
    "collective_names",
    "MPI_LIBRARY",
    "parse_rules",
    "read_rules",
    "format_rules",
    "match",
    "rule_from_use",
    "rules_from_cells",
]

VERSION_LINE = "collsim-rules 1"


def collective_names() -> tuple[str, ...]:
    """The collectives a rule may name: those of algorithms/collectives.def."""
    from collsim.harness import collectives

    return tuple(collectives())

MPI_LIBRARY = "mpi"
_NAME = re.compile(r"[a-z0-9_]+\Z")
_RANGE = re.compile(r"(\d+)(?:-(\d*))?\Z")


@dataclass(frozen=True)
class Rule:
    """One line of a rules file.

    Attributes
    ----------
    collective : str
        A collective of collectives.def (``collective_names()``).
    algorithm : str
        A registry name, or ``"mpi"`` for the MPI library's own algorithm.
    np_min, np_max : int, int or None
        Communicator sizes the rule holds, inclusive (None: no upper bound).
    bytes_min, bytes_max : int, int or None
        Bytes of one block the rule holds, inclusive (None: no upper bound).
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
        if self.collective not in collective_names():
            raise ValueError(f"unknown collective {self.collective!r} "
                             f"(known: {', '.join(collective_names())})")
        if not _NAME.match(self.algorithm):
            raise ValueError(f"malformed algorithm name {self.algorithm!r}")
        for low, high, what in ((self.np_min, self.np_max, "np"),
                                (self.bytes_min, self.bytes_max, "bytes")):
            if low < 0 or (high is not None and high < low):
                raise ValueError(f"{what} range {low}-{'' if high is None else high} is empty "
                                 "or negative")
        if self.algorithm == MPI_LIBRARY and self.params != AlgorithmParams():
            raise ValueError("the MPI library's algorithm (mpi) takes no parameters")
        for entry in parameter_table() if self.params != AlgorithmParams() else ():
            value = getattr(self.params, entry["name"])
            if entry["group"] is None and value:
                raise ValueError(f"{entry['name']} is the platform's, not a rule's")
            # the C reader's limit (rules.c): names of at most 63 characters
            if entry["type"] == "name" and value is not None and (
                    not _NAME.match(value) or len(value) > 63):
                raise ValueError(f"malformed algorithm name {value!r} for {entry['name']}")

    def holds(self, np: int, n_bytes: int) -> bool:
        """Whether a call on np processes with blocks of n_bytes falls in the rule.

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
        for parameter in user_parameters():
            value = getattr(self.params, parameter["name"])
            if value:
                words.append(f"{parameter['name']}={int(value) if value is True else value}")
        return " ".join(words)


def _parse_setting(word: str, settings: dict) -> None:
    key, sep, value = word.partition("=")
    if not sep or not key:
        raise ValueError(f"expected key=value, got {word!r}")
    if key in ("np", "bytes"):
        found = _RANGE.match(value)
        if not found:
            raise ValueError(f"{key} must be N, LO-HI or LO- (integers, LO <= HI), got {value!r}")
        low = int(found.group(1))
        high = low if found.group(2) is None else (int(found.group(2)) if found.group(2) else None)
        if high is not None and high < low:
            raise ValueError(f"{key} must be N, LO-HI or LO- (integers, LO <= HI), got {value!r}")
        settings[f"{key}_min"], settings[f"{key}_max"] = low, high
    else:
        parameters = {entry["name"]: entry for entry in user_parameters()}
        if key not in parameters:
            known = ", ".join(("np", "bytes") + tuple(parameters))
            raise ValueError(f"unknown key {key!r} (known: {known})")
        settings.setdefault("params", {})[key] = _parameter_value(parameters[key], value)


def _parameter_value(entry: dict, text: str):
    """A parameter's value as a rules file writes it, checked as rules.c checks it."""
    if entry["type"] == "name":
        return text
    if entry["type"] == "real":
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"malformed {entry['what']} '{text}' (>= {entry['min']})") from None
    high = entry["max"]
    if not text.isdigit() or not entry["min"] <= int(text) <= high:
        bound = f">= {entry['min']}" if high >= 2**63 - 1 else f"{entry['min']}..{high}"
        raise ValueError(f"malformed {entry['what']} '{text}' ({bound})")
    return bool(int(text)) if entry["type"] == "bool" else int(text)


def _rule_from_words(words: list[str], line: int) -> Rule:
    if len(words) < 2:
        raise ValueError("a rule is COLLECTIVE ALGORITHM [key=value ...]")
    settings: dict = {}
    for word in words[2:]:
        _parse_setting(word, settings)
    params = AlgorithmParams.from_values(settings.pop("params", {}))  # checks "not both" itself
    return Rule(words[0], words[1], params=params, line=line, **settings)


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


