"""A picture of a platform: hosts at the bottom, each switch level above.

Layers are hop distances from the nearest host (hosts 0, node routers or
leaf switches 1, ...); link colour says the link's kind and width its
bandwidth.  Needs matplotlib (a dependency of collsim).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import networkx as nx

from .simgrid import write_atomically

__all__ = ["draw_platform", "FORMATS"]

FORMATS = ("png", "svg")


def _layers(G: nx.Graph) -> dict:
    hosts = [n for n, k in G.nodes(data="kind") if k == "host"]
    return nx.multi_source_dijkstra_path_length(G, hosts, weight=lambda u, v, d: 1)


def _natural(name: str):
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _positions(G: nx.Graph) -> dict:
    """Layer by layer, left to right in natural name order (node-2 before node-10)."""
    by_layer = {}
    for node, depth in _layers(G).items():
        by_layer.setdefault(depth, []).append(node)
    pos = {}
    for depth, nodes in by_layer.items():
        nodes.sort(key=_natural)
        for i, node in enumerate(nodes):
            pos[node] = ((i + 0.5) / len(nodes), float(depth))
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
    import io

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
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, dpi=120, bbox_inches="tight",
                **({"metadata": {"Date": None}} if fmt == "svg" else {}))
    plt.close(fig)
    return write_atomically(path, buffer.getvalue())
