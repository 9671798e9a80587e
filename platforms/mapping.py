"""Rank-to-host mappings.

A mapping is a string, so that it can be stored in every result row:

``block``
    Fill a node's cores (socket 0's, then socket 1's, ...) before the next
    node: ``mpirun --map-by core``.
``cyclic`` or ``cyclic:N``
    Round-robin over nodes: rank r on node r mod N (skipping full nodes), N
    every node of the platform, or the first N nodes: a job given N nodes
    by its batch system and started round-robin over them (``mpirun
    --map-by node``; MPICH's Hydra with a host list of N names).
``socket``
    Round-robin over the sockets of a node, filling the node before the next
    one: ``mpirun --map-by socket`` (seed 002's socket mapping).  On a
    platform with one host per node it equals ``block``.
``random`` or ``random:SEED``
    A seeded random choice and order of the block slots (seed 0 by default).
``file:PATH``
    Explicit: line i of the file names the host of rank i (a hostfile).
"""

from __future__ import annotations

import random
from collections import defaultdict

import networkx as nx

__all__ = ["MAPPINGS", "hosts", "map_ranks", "read_rank_file"]

MAPPINGS = ("block", "cyclic", "socket", "random", "file")


def hosts(G: nx.Graph) -> list[str]:
    """Return the hosts of a platform graph in their natural order (node, then socket)."""
    found = [n for n, kind in G.nodes(data="kind") if kind == "host"]

    def key(name):
        data = G.nodes[name]
        return (data.get("node", 0), data.get("socket", 0), len(name), name)

    return sorted(found, key=key)


def read_rank_file(path) -> list[str]:
    """Read an explicit mapping: one host name per line, blank lines and # comments ignored."""
    return [name for _, name in _rank_file_lines(path)]


def _rank_file_lines(path) -> list[tuple[int, str]]:
    """(line number, host name) of each rank of a mapping file."""
    from collsim.files import read_text

    lines = read_text(path, "mapping file").splitlines()
    return [(number, line.strip()) for number, line in enumerate(lines, start=1)
            if line.strip() and not line.strip().startswith("#")]


def _node_slots(G: nx.Graph, interleave_sockets: bool) -> list[list[str]]:
    by_node = defaultdict(list)
    for host in hosts(G):
        by_node[G.nodes[host].get("node", host)].append(host)
    result = []
    for node_hosts in by_node.values():
        per_socket = [[h] * G.nodes[h]["cores"] for h in node_hosts]
        if interleave_sockets:
            depth = max(len(s) for s in per_socket)
            result.append([s[i] for i in range(depth) for s in per_socket if i < len(s)])
        else:
            result.append([h for s in per_socket for h in s])
    return result


def map_ranks(G: nx.Graph, np: int, mapping: str = "block") -> list[str]:
    """Return the host of each of ``np`` ranks.

    Parameters
    ----------
    G : networkx.Graph
        A platform graph; hosts carry ``cores`` (and ``node``/``socket``).
    np : int
        Number of ranks, at least 1 and at most the platform's cores.
    mapping : str
        ``block``, ``cyclic[:NODES]``, ``socket``, ``random[:SEED]`` or ``file:PATH``
        (see the module docstring).

    Returns
    -------
    list of str
        ``result[rank]`` is the host of ``rank``.

    Raises
    ------
    ValueError
        If ``np`` is out of range, the mapping is unknown, or a mapping file
        names unknown hosts or puts more ranks on a host than it has cores.

    Examples
    --------
    >>> from collsim.platforms import crossbar
    >>> map_ranks(crossbar(nodes=2, cores_per_node=2), 3)
    ['node-0', 'node-0', 'node-1']
    >>> map_ranks(crossbar(nodes=2, cores_per_node=2), 3, "cyclic")
    ['node-0', 'node-1', 'node-0']
    >>> map_ranks(crossbar(nodes=3, cores_per_node=2), 4, "cyclic:2")
    ['node-0', 'node-1', 'node-0', 'node-1']
    """
    if isinstance(np, bool) or not isinstance(np, int) or np < 1:
        raise ValueError(f"np must be an integer >= 1, got {np!r}")
    if not isinstance(mapping, str):
        raise ValueError(f"mapping must be a string, got {mapping!r}")
    kind, _, argument = mapping.partition(":")
    if kind not in MAPPINGS or (argument and kind not in ("random", "file", "cyclic")):
        raise ValueError(f"unknown mapping {mapping!r} (known: block, cyclic[:NODES], socket, "
                         "random[:SEED], file:PATH)")
    total = sum(G.nodes[h]["cores"] for h in hosts(G))
    if np > total:
        raise ValueError(f"np={np} is larger than the platform's {total} cores")
    if kind == "file":
        if not argument:
            raise ValueError("mapping file: needs a path (file:PATH)")
        return _explicit(G, np, _rank_file_lines(argument), argument)
    if kind == "block" or kind == "random":
        slots = [h for node in _node_slots(G, False) for h in node]
        if kind == "block":
            return slots[:np]
        try:
            seed = int(argument) if argument else 0
        except ValueError:
            raise ValueError(f"mapping random:SEED needs an integer seed, got {argument!r}") from None
        return random.Random(seed).sample(slots, np)
    nodes = _node_slots(G, kind == "socket")
    if kind == "socket":
        return [h for node in nodes for h in node][:np]
    if argument:
        try:
            count = int(argument)
        except ValueError:
            count = 0
        if count < 1 or count > len(nodes):
            raise ValueError(f"mapping cyclic:NODES needs a node count from 1 to the "
                             f"platform's {len(nodes)}, got {argument!r}")
        nodes = nodes[:count]
        cores = sum(len(node) for node in nodes)
        if np > cores:
            raise ValueError(f"np={np} is larger than the {cores} cores of the first "
                             f"{count} nodes (mapping {mapping})")
    result, depth = [], 0
    while len(result) < np:
        for node in nodes:
            if depth < len(node) and len(result) < np:
                result.append(node[depth])
        depth += 1
    return result


def _explicit(G: nx.Graph, np: int, lines: list[tuple[int, str]], path: str) -> list[str]:
    if len(lines) < np:
        raise ValueError(f"mapping file {path} names {len(lines)} hosts for np={np} ranks")
    lines = lines[:np]
    used = defaultdict(int)
    for number, name in lines:
        if name not in G.nodes or G.nodes[name].get("kind") != "host":
            # the line is not quoted: the file may be anything (file:/etc/passwd)
            raise ValueError(f"mapping file {path}, line {number}: not the name of a host of "
                             f"the platform (e.g. {hosts(G)[0]})")
        used[name] += 1
        if used[name] > G.nodes[name]["cores"]:
            raise ValueError(f"mapping file {path}: more ranks on {name} than its "
                             f"{G.nodes[name]['cores']} cores")
    return [name for _, name in lines]
