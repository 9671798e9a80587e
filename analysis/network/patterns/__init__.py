"""The message patterns of the registry's algorithms, read off their C code.

One builder per registry entry, following ``algorithms/<coll>/<coll>_<alg>.c``
message for message: who sends how many elements to whom in which step, and
who combines how many afterwards (block sizes as the C code rounds them)::

    f(p, count, *, elem_bytes, root=0, commutative=True,
      params=None, rank_nodes=None, rank_sockets=None) -> Pattern

``params`` is the run's :class:`collsim.params.AlgorithmParams` (None: every
parameter at its default), for the algorithms that read one (segments,
groups, inner and outer algorithms); ``rank_nodes`` the node of each rank
(an int array of length p, the node as ``collsim_node_split`` groups ranks:
the hosts' ``node``; None: every rank on a node of its own), for the
node-aware ones; ``rank_sockets`` the socket of each rank where the
platform's nodes are several hosts, one per socket (None where every node is
one host): there ``collsim_node_split`` and ``collsim_node_members``
(``fixed_order``) split the communicator by node (an ``MPI_Comm_split``,
timed).  A builder that reads none of them takes them
as ``**context``.
On a crossbar each pattern's time is the closed-form model of
``collsim.analysis.models`` (``tests/test_network_model.py``).

The builders live by family, as the closed-form models do:

- :mod:`.rounds`: recursive doubling and halving, rings, binomial trees;
- :mod:`.trees`: linear, chains, Open MPI's generic trees, the pipelined tree engine;
- :mod:`.pipetrees`: the pipelined trees' steps made one at a time above a million
  messages (:class:`collsim.analysis.network.programs.ProgramSteps`);
- :mod:`.blocks`: binary blocks, Rabenseifner's reduce, the ring reduce, the
  scatter + recursive-doubling broadcast;
- :mod:`.gathers`: allgather, gather, scatter;
- :mod:`.scans`: reduce_scatter, scan, exscan;
- :mod:`.exchanges`: alltoall, barrier;
- :mod:`.composite`: the entries that run other entries (two-level,
  node-aware, reproducible, the libraries' selectors), their parts built
  through :func:`pattern_for` when they are built;
- :mod:`._common`: what they share (the empty case, ring phases, the fold).

:data:`PATTERNS` maps ``(collective, algorithm)`` to its builder; an
algorithm without one has no network model yet.
"""

from __future__ import annotations

from . import blocks, composite, exchanges, gathers, rounds, scans, trees
from ._common import RING_EVENT_MESSAGES

__all__ = ["PATTERNS", "pattern_for", "RING_EVENT_MESSAGES"]

PATTERNS = {**rounds.PATTERNS, **trees.PATTERNS, **blocks.PATTERNS, **composite.PATTERNS,
            **gathers.PATTERNS, **scans.PATTERNS, **exchanges.PATTERNS}


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
