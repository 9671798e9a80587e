"""The bounds of every number a user gives collsim: one table.

The command line (argparse types from :func:`argument_type`), the scenario,
suite and profile readers, the runner (which the Python API goes through) and
the grid read their numbers' bounds here and check them with :func:`check`,
where the number is parsed: a value out of range, not finite, or not a whole
number where one is meant is one line naming it, before anything runs, and
never reaches SimGrid or collbench (whose own limits these are, where they
have one).

Examples
--------
>>> check("seed", 7)
7
>>> check("timeout_s", 10)
10.0
>>> check("seed", 2**64)
Traceback (most recent call last):
...
collsim.files.BadInput: seed must be a whole number from 0 to 9223372036854775807, got 18446744073709551616
"""

from __future__ import annotations

import argparse
import math
import numbers
import re
from dataclasses import dataclass

from collsim.files import BadInput

__all__ = ["Bound", "BOUNDS", "check", "argument_type", "MAX_JOBS", "MAX_TIMEOUT_S"]

# The longest wall-clock limit: a year.  Python's timers take no more than
# threading.TIMEOUT_MAX (292 years) and a longer one would never fire anyway.
MAX_TIMEOUT_S = 365 * 86400.0
# The most local worker processes a grid starts (each holds a Python interpreter and
# a simulation; more than a machine's cores only queue).
MAX_JOBS = 1024


@dataclass(frozen=True)
class Bound:
    """What a number is and the values it takes.

    ``whole``: an integer (a float such as 8.0 is refused, so that nothing is
    rounded silently); ``low_open``: the lower bound itself is excluded
    (``> 0``).
    """

    what: str
    whole: bool
    low: float
    high: float
    low_open: bool = False

    def describe(self) -> str:
        if self.whole:
            if self.high == math.inf:
                return f"a whole number >= {int(self.low)}"
            return f"a whole number from {int(self.low)} to {int(self.high)}"
        low = f"> {self.low:g}" if self.low_open else f">= {self.low:g}"
        if self.high == math.inf:
            return f"a finite number {low}"
        return f"a number {low} and <= {self.high:g}"


_INT64_MAX = 2**63 - 1
_INT_MAX = 2**31 - 1

BOUNDS: dict[str, Bound] = {
    # collbench reads the seed as a long long (sim/collbench/options.c)
    "seed": Bound("seed", True, 0, _INT64_MAX),
    # collbench's --reps range
    "reps": Bound("--reps", True, 1, 1_000_000),
    # ranks: collbench's tree sizes (--np of --native-choice, --dump-tree) go as far;
    # a simulation's memory is checked apart
    # (collsim.resources), a prediction's is not a simulation's
    "np": Bound("np", True, 1, 2**24),
    # a machine's hosts, and the counts that make them (nodes, ports, groups...): what
    # collsim predicts; a simulation's own limit is its memory (collsim.resources)
    "hosts": Bound("hosts", True, 1, 2**24),
    "count": Bound("count", True, 1, 2**24),
    "root": Bound("root", True, 0, 2**24 - 1),
    "timeout_s": Bound("--timeout-s", False, 0, MAX_TIMEOUT_S, low_open=True),
    # 0: one worker per core
    "jobs": Bound("--jobs", True, 0, MAX_JOBS),
    # SimGrid's smpi/send-is-detached-thresh is an int
    "eager_threshold_bytes": Bound("eager_threshold_bytes", True, 0, _INT_MAX),
    "envelope_bytes": Bound("envelope_bytes", True, 0, _INT_MAX),
    # SMPI's per-message overheads: beyond an hour a message is no longer a message
    "send_overhead_s": Bound("send_overhead_s", False, 0, 3600.0),
    "recv_overhead_s": Bound("recv_overhead_s", False, 0, 3600.0),
    # the CI gate's tolerances: relative, so at most 1 (100 %); inf would let nothing fail
    "rel_tol": Bound("relative tolerance", False, 0, 1.0),
    # the SMPI options a profile may set whose values are numbers (collsim.profiles):
    # SimGrid aborts on some malformed values and takes others (nan, a negative
    # latency) silently
    "network/TCP-gamma": Bound("network/TCP-gamma", False, 0, math.inf),
    "network/latency-factor": Bound("network/latency-factor", False, 0, math.inf),
    "network/bandwidth-factor": Bound("network/bandwidth-factor", False, 0, math.inf),
    "network/weight-S": Bound("network/weight-S", False, 0, math.inf),
    "network/loopback-lat": Bound("network/loopback-lat", False, 0, math.inf),
    "network/loopback-bw": Bound("network/loopback-bw", False, 0, math.inf),
    "smpi/async-small-thresh": Bound("smpi/async-small-thresh", True, 0, _INT_MAX),
    "smpi/send-is-detached-thresh": Bound("smpi/send-is-detached-thresh", True, 0, _INT_MAX),
    "smpi/iprobe": Bound("smpi/iprobe", False, 0, 3600.0),
    "smpi/test": Bound("smpi/test", False, 0, 3600.0),
    "smpi/init": Bound("smpi/init", False, 0, 3600.0),
    "maxmin/precision": Bound("maxmin/precision", False, 0, 1.0),
    "bmf/precision": Bound("bmf/precision", False, 0, 1.0),
    "bmf/max-iterations": Bound("bmf/max-iterations", True, 1, _INT_MAX),
    "maxmin/concurrency-limit": Bound("maxmin/concurrency-limit", True, -1, _INT_MAX),
}


def check(name: str, value: object, *, label: str | None = None) -> int | float:
    """``value`` if it is a valid ``name`` (a key of :data:`BOUNDS`), else one line.

    Parameters
    ----------
    name : str
        The number's entry in :data:`BOUNDS`.
    value : object
        What was given (a bool is not a number).
    label : str, optional
        How the message names it (default: the entry's ``what``), e.g.
        ``"scenario.toml: study.seed"``.

    Returns
    -------
    int or float
        The value, as an int for whole numbers and a float otherwise.

    Raises
    ------
    BadInput
        Naming it, its bounds and the value given.
    """
    bound = BOUNDS[name]
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if ok and bound.whole:
        ok = isinstance(value, numbers.Integral)
    if ok:
        ok = (math.isfinite(value) and bound.low <= value <= bound.high
              and not (bound.low_open and value == bound.low))
    if not ok:
        raise BadInput(f"{label or bound.what} must be {bound.describe()}, got {value!r}")
    return int(value) if bound.whole else float(value)


_WHOLE = re.compile(r"[-+]?[0-9]+")


def argument_type(name: str):
    """An argparse ``type`` for the number ``name``: parsed strictly (``"2.5"`` is not
    a whole number, ``"1e308"`` not a timeout) and checked against :data:`BOUNDS`."""
    bound = BOUNDS[name]

    def parse(text: str):
        if bound.whole:
            if not _WHOLE.fullmatch(text.strip()):
                raise argparse.ArgumentTypeError(f"invalid int value: {text!r}")
            value: object = int(text)
        else:
            try:
                value = float(text)
            except ValueError:
                raise argparse.ArgumentTypeError(f"invalid float value: {text!r}") from None
        try:
            return check(name, value)
        except BadInput as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    parse.__name__ = name  # argparse names the type in some messages
    return parse
