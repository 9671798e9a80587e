"""Rank-to-host mappings."""

from __future__ import annotations

import networkx as nx

__all__ = ["MAPPINGS", "hosts", "map_ranks"]

MAPPINGS = ("block",)


def hosts(G: nx.Graph) -> list[str]:
    """Return the hosts of a platform graph in their natural order (node-0, node-1, ...)."""
    found = [n for n, kind in G.nodes(data="kind") if kind == "host"]
    return sorted(found, key=lambda name: (len(name), name))


def map_ranks(G: nx.Graph, np: int, mapping: str = "block") -> list[str]:
    """Return the host of each of ``np`` ranks.

    Parameters
    ----------
    G : networkx.Graph
        A platform graph; hosts carry ``cores``.
    np : int
        Number of ranks, at least 1 and at most the platform's cores.
    mapping : {"block"}
        ``block`` fills each node's cores before moving to the next node.

    Returns
    -------
    list of str
        ``result[rank]`` is the host of ``rank``.

    Raises
    ------
    ValueError
        If ``np`` is out of range or the mapping is unknown.

    Examples
    --------
    >>> from collsim.platforms import crossbar
    >>> map_ranks(crossbar(nodes=2, cores_per_node=2), 3)
    ['node-0', 'node-0', 'node-1']
    """
    if isinstance(np, bool) or not isinstance(np, int) or np < 1:
        raise ValueError(f"np must be an integer >= 1, got {np!r}")
    if mapping not in MAPPINGS:
        raise ValueError(f"unknown mapping {mapping!r} (known: {', '.join(MAPPINGS)})")
    slots = [host for host in hosts(G) for _ in range(G.nodes[host]["cores"])]
    if np > len(slots):
        raise ValueError(f"np={np} is larger than the platform's {len(slots)} cores")
    return slots[:np]
