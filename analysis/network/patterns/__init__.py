"""The message patterns of the registry's algorithms, read off their C code.

One builder per registry entry, ``f(p, count, *, elem_bytes, root,
commutative) -> Pattern``, following ``algorithms/<coll>/<coll>_<alg>.c``
message for message: who sends how many elements to whom in which step, and
who combines how many afterwards (block sizes as the C code rounds them).
On a crossbar each pattern's time is the closed-form model of
``collsim.analysis.models`` (``tests/test_network_model.py``).

The builders live by family, as the closed-form models do:

- :mod:`.rounds`: recursive doubling and halving, rings, binomial trees;
- :mod:`._common`: what they share (the empty case, ring phases, the fold).

:data:`PATTERNS` maps ``(collective, algorithm)`` to its builder; an
algorithm without one has no network model yet.
"""

from __future__ import annotations

from . import rounds
from ._common import UNROLL_RANKS

__all__ = ["PATTERNS", "pattern_for", "UNROLL_RANKS"]

PATTERNS = {**rounds.PATTERNS}


def pattern_for(collective: str, algorithm: str):
    """The pattern builder of a registry entry.

    Raises
    ------
    KeyError
        Naming the entries that have one.
    """
    try:
        return PATTERNS[(collective, algorithm)]
    except KeyError:
        have = ", ".join(f"{c}/{a}" for c, a in PATTERNS)
        raise KeyError(f"{collective}/{algorithm} has no network pattern yet (have: {have})") \
            from None
