"""A picture of a platform: hosts at the bottom, each switch level above.

Layers are hop distances from the nearest host (hosts 0, node routers or
leaf switches 1, ...); link colour says the link's kind and width its
bandwidth.  Needs matplotlib (a dependency of collsim).

``figure_bytes`` is how every collsim command turns a matplotlib figure into
a file's bytes (the platform picture, ``collsim select``'s heatmap, the
report's plots, ``collsim repro``'s figure): the same figure gives the same
bytes on every run.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path

import networkx as nx

from collsim.files import write_output

__all__ = ["draw_platform", "figure_bytes", "switch_level", "switch_level_layout", "FORMATS"]

FORMATS = ("png", "svg")
# What matplotlib writes beside the picture that is not the figure's: the SVG's
# date (the time of the run) and the version stamps (SVG Creator, PNG
# Software).  And an SVG's element ids (clip paths, glyphs) are random unless
# salted: svg.hashsalt makes them hashes of the content.
_NO_METADATA = {"png": {"Software": None}, "svg": {"Date": None, "Creator": None}}
SVG_HASH_SALT = "collsim"


def figure_bytes(fig, fmt: str, **savefig_kwargs) -> bytes:
    """The figure as PNG or SVG that depends on the figure alone.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (not closed here).
    fmt : {"png", "svg"}
        The file format.
    **savefig_kwargs
        Passed to ``Figure.savefig`` (``dpi``, ``bbox_inches``, ...).

    Returns
    -------
    bytes
        Byte-identical for the same figure, whenever and wherever it is drawn
        (with the same matplotlib and fonts): no date, no version stamp, SVG
        ids derived from the content.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> _ = ax.plot([0, 1], [1, 0])
    >>> figure_bytes(fig, "svg") == figure_bytes(fig, "svg")
    True
    >>> b"<dc:date>" in figure_bytes(fig, "svg") or b"Software" in figure_bytes(fig, "png")
    False
    >>> plt.close(fig)
    """
    import io

    import matplotlib

    if fmt not in _NO_METADATA:
        raise ValueError(f"format must be one of {', '.join(_NO_METADATA)}, got {fmt!r}")
    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": SVG_HASH_SALT}):
        fig.savefig(buffer, format=fmt, metadata=_NO_METADATA[fmt], **savefig_kwargs)
    return buffer.getvalue()


def _layers(G: nx.Graph) -> dict:
    hosts = [n for n, k in G.nodes(data="kind") if k == "host"]
    return nx.multi_source_dijkstra_path_length(G, hosts, weight=lambda u, v, d: 1)


def _natural(name: str):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _positions(G: nx.Graph) -> dict:
    """Layer by layer, left to right in natural name order (node-2 before node-10)."""
    return _positions_by_layer(_layers(G))


def _positions_by_layer(layers: dict) -> dict:
    by_layer = {}
    for node, depth in layers.items():
        by_layer.setdefault(depth, []).append(node)
    pos = {}
    for depth, nodes in by_layer.items():
        nodes.sort(key=_natural)
        for i, node in enumerate(nodes):
            pos[node] = ((i + 0.5) / len(nodes), float(depth))
    return pos


def switch_level(G: nx.Graph) -> nx.Graph:
    """The switch-level picture of a platform: its switches and routers, and its
    compute nodes gathered into groups that hang off the same switches.

    A 512-node machine is drawn as its few dozen switches, not 512 hosts.  Nodes
    are the platform's ``node`` numbers (a multicore node's sockets and its
    ``node`` vertex are one node); a group is every node attached to exactly
    the same switches or routers (a leaf switch's nodes; on two rails, the nodes
    of both leaves).

    Parameters
    ----------
    G : networkx.Graph
        A generated platform (switch, router, node and host vertices).

    Returns
    -------
    networkx.Graph
        Switch and router vertices as in ``G`` (``kind`` kept), one vertex
        ``"nodes:<first switch>"`` per group with ``kind="nodes"`` and ``count``
        (how many nodes), and the links between them with ``bandwidth_Bps`` (the
        fastest) and ``links`` (how many links of ``G`` the edge stands for).

    Examples
    --------
    >>> from collsim.platforms import fat_tree
    >>> S = switch_level(fat_tree(levels=2, down_ports=[16, 32], up_ports=[1, 16]))
    >>> sorted({k for _, k in S.nodes(data="kind")}), S.number_of_nodes()
    (['nodes', 'switch'], 80)
    >>> S.nodes["nodes:switch-1-0"]["count"], S.edges["nodes:switch-1-0", "switch-1-0"]["links"]
    (16, 16)
    """
    network = {n for n, k in G.nodes(data="kind") if k in ("switch", "router")}
    node_of = {n: d.get("node", n) for n, d in G.nodes(data=True) if n not in network}
    attached: dict = {}
    for u, v in G.edges:
        for endpoint, other in ((u, v), (v, u)):
            if endpoint in node_of and other in network:
                attached.setdefault(node_of[endpoint], set()).add(other)
    groups: dict = {}
    for node, switches in attached.items():
        groups.setdefault(frozenset(switches), []).append(node)
    S = nx.Graph(name=G.graph.get("name"))
    S.add_nodes_from((n, G.nodes[n]) for n in sorted(network, key=_natural))

    def link(u, v, bandwidth_Bps):
        if S.has_edge(u, v):
            S.edges[u, v]["links"] += 1
            S.edges[u, v]["bandwidth_Bps"] = max(S.edges[u, v]["bandwidth_Bps"], bandwidth_Bps)
        else:
            S.add_edge(u, v, bandwidth_Bps=bandwidth_Bps, links=1)

    for u, v, data in G.edges(data=True):
        if u in network and v in network:
            link(u, v, data.get("bandwidth_Bps", 0.0))
    group_of = {}
    for switches, nodes in sorted(groups.items(), key=lambda g: _natural(min(g[0], key=_natural))):
        name = f"nodes:{min(switches, key=_natural)}"
        S.add_node(name, kind="nodes", count=len(nodes))
        group_of.update((node, name) for node in nodes)
    for u, v, data in G.edges(data=True):
        for endpoint, other in ((u, v), (v, u)):
            if other in network and node_of.get(endpoint) in group_of:
                link(group_of[node_of[endpoint]], other, data.get("bandwidth_Bps", 0.0))
    return S


def switch_level_layout(S: nx.Graph) -> dict:
    """Positions for a :func:`switch_level` graph, deterministic and linear in its size.

    A tree (every switch-to-switch link joins two levels) is drawn in rows by hop
    distance from the node groups: groups at the bottom, leaf switches above,
    and so on.  A flat network (a dragonfly's routers, linked within their row)
    is drawn as a circle of switches in name order, a group just outside its
    switch, so that links within a group and between groups read as chords.

    Examples
    --------
    >>> from collsim.platforms import crossbar
    >>> switch_level_layout(switch_level(crossbar(nodes=4)))
    {'switch': (0.5, 1.0), 'nodes:switch': (0.5, 0.0)}
    """
    groups = [n for n, k in S.nodes(data="kind") if k == "nodes"]
    layer = nx.multi_source_dijkstra_path_length(S, groups, weight=lambda u, v, d: 1)
    flat = any(layer.get(u) == layer.get(v) for u, v in S.edges)
    if not flat:
        return _positions_by_layer({n: layer.get(n, max(layer.values()) + 1) for n in S})
    switches = [n for n in S if S.nodes[n]["kind"] != "nodes"]
    pos = {}
    for i, switch in enumerate(switches):
        angle = 2 * math.pi * i / len(switches)
        pos[switch] = (math.cos(angle), math.sin(angle))
        for group in (g for g in S.neighbors(switch) if S.nodes[g]["kind"] == "nodes"):
            pos.setdefault(group, (1.12 * math.cos(angle), 1.12 * math.sin(angle)))
    return pos


def draw_platform(G: nx.Graph, path: str | os.PathLike) -> Path:
    """Draw ``G`` to ``path`` (``.png`` or ``.svg``, written atomically).

    Raises
    ------
    ValueError
        If the suffix is not .png or .svg, or the platform has no known routes
        (an XML file).
    """
    path = Path(path)
    fmt = path.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise ValueError(f"picture file must end in .png or .svg, got {path.name!r}")
    if G.graph.get("routing") == "opaque":
        raise ValueError("cannot draw a platform read from an XML file (its links are unknown)")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    pos = _positions(G)
    big = G.number_of_nodes() > 400
    fig, ax = plt.subplots(figsize=(min(40, 6 + G.number_of_nodes() / 25), 6))
    kinds = sorted({d.get("kind", "link") for _, _, d in G.edges(data=True)})
    cmap = plt.get_cmap("tab10")
    max_bw = max(d["bandwidth_Bps"] for _, _, d in G.edges(data=True)) if G.number_of_edges() else 1
    for i, kind in enumerate(kinds):
        edges = [(u, v) for u, v, d in G.edges(data=True) if d.get("kind", "link") == kind]
        widths = [0.3 + 2.0 * G.edges[e]["bandwidth_Bps"] / max_bw for e in edges]
        nx.draw_networkx_edges(G, pos, edgelist=edges, ax=ax, edge_color=[cmap(i % 10)],
                               width=[w * (0.3 if big else 1) for w in widths], label=kind,
                               alpha=0.6)
    styles = {"host": ("o", "#333333"), "node": ("s", "#888888"), "switch": ("D", "#1f77b4"),
              "router": ("D", "#d62728")}
    for kind, (shape, colour) in styles.items():
        nodes = [n for n, k in G.nodes(data="kind") if k == kind]
        if nodes:
            nx.draw_networkx_nodes(G, pos, nodelist=nodes, node_shape=shape, node_color=colour,
                                   node_size=4 if big else 30, ax=ax, label=f"{kind} ({len(nodes)})")
    ax.set_title(f"{G.graph.get('catalog', G.graph['name'])}: "
                 f"{sum(1 for _, k in G.nodes(data='kind') if k == 'host')} hosts, "
                 f"{G.number_of_edges()} links")
    ax.legend(loc="upper right", fontsize=7)
    ax.set_axis_off()
    data = figure_bytes(fig, fmt, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return write_output(path, data)
