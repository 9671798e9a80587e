"""SimGrid platform XML (version 4.1) and hostfiles from topology graphs.

The XML is built with ``xml.etree.ElementTree``; SI values become SimGrid
strings (``"12500000000.0Bps"``, ``"1e-06s"``) only here.  Files are written
atomically: a reader never sees a partial file, and a failed write leaves
nothing behind.
"""

from __future__ import annotations

import hashlib
import os
import weakref
from collections import Counter
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx

from collsim.files import write_output
from collsim.units import simgrid_bandwidth, simgrid_time

from .fat_tree import native_cluster

__all__ = [
    "platform_xml",
    "platform_hash",
    "write_platform",
    "write_hostfile",
]

_HEADER = (
    b"<?xml version='1.0'?>\n"
    b'<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
)


def _cluster_xml(platform: ET.Element, cluster_id: str, hosts: int, *, speed_flops: float,
                 cores: int, bandwidth_Bps: float, latency_s: float, loopback_bandwidth_Bps: float,
                 loopback_latency_s: float, gamma_s_per_byte: float, half_duplex: bool = False,
                 **topology) -> None:
    """One SimGrid ``<cluster>`` of hosts ``node-0`` ... in a Full zone: SPLITDUPLEX links
    (each direction its own bandwidth; SHARED, both directions on one bandwidth, when
    ``half_duplex``), ``topology`` attributes (``topology``, ``topo_parameters``) when
    given, the loopback, and the gamma property."""
    zone = ET.SubElement(platform, "zone", id="world", routing="Full")
    cluster = ET.SubElement(
        zone,
        "cluster",
        id=cluster_id,
        prefix="node-",
        suffix="",
        radical=f"0-{hosts - 1}",
        speed=f"{float(speed_flops)!r}f",
        core=str(cores),
        bw=simgrid_bandwidth(float(bandwidth_Bps)),
        lat=simgrid_time(float(latency_s)),
        sharing_policy="SHARED" if half_duplex else "SPLITDUPLEX",
        **topology,
        loopback_bw=simgrid_bandwidth(float(loopback_bandwidth_Bps)),
        loopback_lat=simgrid_time(float(loopback_latency_s)),
    )
    ET.SubElement(cluster, "prop", id="gamma_s_per_byte", value=repr(float(gamma_s_per_byte)))


def _crossbar_xml(G: nx.Graph) -> ET.Element:
    params = G.graph["params"]
    platform = ET.Element("platform", version="4.1")
    # A cluster without backbone: every route is the sender's private link
    # followed by the receiver's; SPLITDUPLEX gives each direction its own
    # bandwidth, so distinct sender/receiver pairs never compete.
    _cluster_xml(platform, "crossbar", params["nodes"], speed_flops=params["speed_flops"],
                 cores=params["cores_per_node"], bandwidth_Bps=params["bandwidth_Bps"],
                 latency_s=params["latency_s"],
                 loopback_bandwidth_Bps=params["loopback_bandwidth_Bps"],
                 loopback_latency_s=params["loopback_latency_s"],
                 gamma_s_per_byte=params["gamma_s_per_byte"],
                 half_duplex=params.get("half_duplex", False))
    return platform


def _fat_tree_xml(G: nx.Graph) -> ET.Element:
    """SimGrid's own FAT_TREE cluster when the graph is one (``fat_tree.native_cluster``), else
    the routed zone."""
    cluster = native_cluster(G)
    if cluster is None:
        return _routed_xml(G)
    hosts = [n for n, kind in G.nodes(data="kind") if kind == "host"]
    host = G.nodes[hosts[0]]
    platform = ET.Element("platform", version="4.1")
    platform.append(ET.Comment(
        f" collsim fat_tree {G.graph['topo_parameters']}, routed by SimGrid's FatTreeZone "
        "(d-mod-k up-port choice; collsim.platforms.fat_tree.cluster_route); parallel "
        "cables are one link of their summed bandwidth "))
    _cluster_xml(platform, "fat-tree", len(hosts), speed_flops=host["speed_flops"],
                 cores=host["cores"], bandwidth_Bps=cluster["bandwidth_Bps"],
                 latency_s=cluster["latency_s"],
                 loopback_bandwidth_Bps=G.graph["loopback_bandwidth_Bps"],
                 loopback_latency_s=G.graph["loopback_latency_s"],
                 gamma_s_per_byte=G.graph["gamma_s_per_byte"],
                 topology="FAT_TREE", topo_parameters=cluster["topo_parameters"])
    return platform


def _link_name(u: str, v: str) -> str:
    return f"{u}--{v}"


def _link_in_route(G: nx.Graph, u: str, v: str) -> tuple[str, str]:
    """The link id and the half (UP/DOWN) a message from u to v crosses."""
    tail = G.edges[u, v].get("tail")
    if tail is None:
        tail = u if _edge_index(G)[frozenset((u, v))][1] == u else v
    name = _link_name(tail, v if tail == u else u)
    return name, "UP" if tail == u else "DOWN"


def _edge_index(G: nx.Graph) -> dict:
    index = G.graph.get("_edge_index")
    if index is None:
        index = {frozenset((u, v)): (i, u) for i, (u, v) in enumerate(G.edges())}
        G.graph["_edge_index"] = index
    return index


def _routed_xml(G: nx.Graph) -> ET.Element:
    """Hosts, routers and one SPLITDUPLEX link per graph edge, in a DijkstraCache zone.

    ``routing="dijkstra"``: one route per edge and direction, in ``G.edges``
    order, which fixes SimGrid's tie-breaking (see ``collsim.platforms.routing``).
    ``routing="layered"``: one route per edge of the platform's routing graph,
    in its edge order, through the routers of the graph (copies included) and
    its virtual links (zero latency, FATPIPE, unbounded bandwidth).
    Messages between ranks of one host use SimGrid's loopback, set through
    ``<config>`` (it is a FATPIPE link: no contention between them).
    """
    from .routing import routing_graph

    platform = ET.Element("platform", version="4.1")
    config = ET.SubElement(platform, "config")
    ET.SubElement(config, "prop", id="network/loopback-bw",
                  value=repr(float(G.graph["loopback_bandwidth_Bps"])))
    ET.SubElement(config, "prop", id="network/loopback-lat",
                  value=repr(float(G.graph["loopback_latency_s"])))
    layered = G.graph.get("routing") == "layered"
    zone = ET.SubElement(platform, "zone", id="world", routing="DijkstraCache")
    gamma = repr(float(G.graph["gamma_s_per_byte"]))
    host_names = [n for n, kind in G.nodes(data="kind") if kind == "host"]
    hosts_per_node = Counter(G.nodes[name]["node"] for name in host_names)
    for name in host_names:
        data = G.nodes[name]
        host = ET.SubElement(zone, "host", id=name, speed=f"{float(data['speed_flops'])!r}f",
                             core=str(data["cores"]))
        ET.SubElement(host, "prop", id="gamma_s_per_byte", value=gamma)
        ET.SubElement(host, "prop", id="node", value=str(data["node"]))
        if hosts_per_node[data["node"]] > 1:
            # one host of several in a node (a socket): SMPI's MPI_COMM_TYPE_SHARED
            # groups a host, so node-aware algorithms group by "node" instead
            ET.SubElement(host, "prop", id="socket", value=str(data["socket"]))
    R = routing_graph(G) if layered else None
    routers = (n for n in R.nodes if n not in G or G.nodes[n]["kind"] != "host") if layered else (
        n for n, kind in G.nodes(data="kind") if kind != "host")
    for name in routers:
        ET.SubElement(zone, "router", id=name)
    for u, v, data in G.edges(data=True):
        tail = data.get("tail", u)
        ET.SubElement(zone, "link", id=_link_name(tail, v if tail == u else u),
                      bandwidth=simgrid_bandwidth(data["bandwidth_Bps"]),
                      latency=simgrid_time(data["latency_s"]), sharing_policy="SPLITDUPLEX")

    def add_route(src, dst, hops):
        element = ET.SubElement(zone, "route", src=src, dst=dst, symmetrical="NO")
        for hop in hops:
            if isinstance(hop, str):
                ET.SubElement(element, "link_ctn", id=hop)
            else:
                link, direction = _link_in_route(G, *hop)
                ET.SubElement(element, "link_ctn", id=link, direction=direction)

    _add_memory_links(zone, G, host_names)
    if layered:
        virtual = dict.fromkeys(hop for _, _, links in R.edges(data="links")
                                for hop in links if isinstance(hop, str))
        for name in virtual:
            ET.SubElement(zone, "link", id=name, bandwidth=simgrid_bandwidth(1e30),
                          latency=simgrid_time(0.0), sharing_policy="FATPIPE")
        for u, v, data in R.edges(data=True):
            add_route(u, v, data["links"])
    else:
        for u, v in G.edges():
            add_route(u, v, [(u, v)])
            add_route(v, u, [(v, u)])
    _add_memory_routes(zone, G, host_names)
    return platform


def _memory_link_name(host: str) -> str:
    return f"{host}--memory"


def _add_memory_links(zone: ET.Element, G: nx.Graph, host_names: list[str]) -> None:
    """One SHARED link per host with a ``memory_bandwidth_Bps`` (multicore sockets).

    SHARED, not SPLITDUPLEX: a shared-memory transfer reads and writes the
    same memory, so both directions and every pair of the socket share it.
    """
    for name in host_names:
        data = G.nodes[name]
        if data.get("memory_bandwidth_Bps") is not None:
            ET.SubElement(zone, "link", id=_memory_link_name(name),
                          bandwidth=simgrid_bandwidth(data["memory_bandwidth_Bps"]),
                          latency=simgrid_time(data["memory_latency_s"]), sharing_policy="SHARED")


def _add_memory_routes(zone: ET.Element, G: nx.Graph, host_names: list[str]) -> None:
    """The route from such a host to itself, through its memory link, instead of the loopback.

    After every other route, so that the ids SimGrid's Dijkstra tie-breaking
    depends on do not move.  ``symmetrical="NO"``: SimGrid 3.32 crashes
    (segmentation fault) on a symmetrical route from a host to itself.
    """
    for name in host_names:
        if G.nodes[name].get("memory_bandwidth_Bps") is not None:
            element = ET.SubElement(zone, "route", src=name, dst=name, symmetrical="NO")
            ET.SubElement(element, "link_ctn", id=_memory_link_name(name))


_WRITERS = {
    "crossbar": _crossbar_xml,
    "fat_tree": _fat_tree_xml,
    "dragonfly": _routed_xml,
    "multicore": _routed_xml,
    "dual_rail": _routed_xml,
}


def platform_xml(G: nx.Graph) -> bytes:
    """Return the SimGrid XML of a generated platform graph.

    Parameters
    ----------
    G : networkx.Graph
        A graph made by one of the ``collsim.platforms`` generators.

    Returns
    -------
    bytes
        The XML document (version 4.1), deterministic for the same graph.

    Raises
    ------
    ValueError
        If the graph does not come from a generator with an XML writer.
    """
    family = G.graph.get("name")
    if family == "xml_file":
        return G.graph["xml_bytes"]
    writer = _WRITERS.get(family)
    if writer is None:
        raise ValueError(f"no SimGrid writer for platform family {family!r}")
    fingerprint = _fingerprint(G)
    cached = _XML_CACHE.get(G)
    if cached is not None and cached[0] == fingerprint:
        return cached[1]
    root = writer(G)
    ET.indent(root)
    xml = _HEADER + ET.tostring(root, encoding="utf-8") + b"\n"
    _XML_CACHE[G] = (fingerprint, xml)
    return xml


# The XML of each graph, written once per process: a study, check or select
# runs many simulations on one graph, and a machine with explicit routes
# (dual-rail: every host pair) takes long to write.  Held beside the graph, not
# in G.graph, so that it is never pickled to workers or stored; a graph whose
# size or attributes change is written again.
_XML_CACHE: "weakref.WeakKeyDictionary[nx.Graph, tuple[tuple, bytes]]" = weakref.WeakKeyDictionary()


def _fingerprint(G: nx.Graph) -> tuple:
    public = sorted((key, repr(value)) for key, value in G.graph.items() if not key.startswith("_"))
    return G.number_of_nodes(), G.number_of_edges(), tuple(public)


def platform_hash(G: nx.Graph) -> str:
    """Return a short hash of the platform's XML: equal hashes, equal machines."""
    return hashlib.sha256(platform_xml(G)).hexdigest()[:16]


def write_platform(G: nx.Graph, path: str | os.PathLike) -> Path:
    """Write the SimGrid XML of ``G`` to ``path`` (``collsim.files.write_output``: a regular
    file atomically) and return the path."""
    return write_output(path, platform_xml(G))


def write_hostfile(hosts: list[str], path: str | os.PathLike) -> Path:
    """Write a hostfile with one line per rank: line i is the host of rank i."""
    return write_output(path, "".join(f"{host}\n" for host in hosts).encode())
