"""SimGrid platform XML (version 4.1) and hostfiles from topology graphs.

The XML is built with ``xml.etree.ElementTree``; SI values become SimGrid
strings (``"12500000000.0Bps"``, ``"1e-06s"``) only here.  Files are written
atomically: a reader never sees a partial file, and a failed write leaves
nothing behind.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx

from collsim.units import simgrid_bandwidth, simgrid_time

__all__ = [
    "platform_xml",
    "platform_hash",
    "write_platform",
    "write_hostfile",
    "write_atomically",
]

_HEADER = (
    b"<?xml version='1.0'?>\n"
    b'<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
)


def _crossbar_xml(G: nx.Graph) -> ET.Element:
    params = G.graph["params"]
    platform = ET.Element("platform", version="4.1")
    zone = ET.SubElement(platform, "zone", id="world", routing="Full")
    # A cluster without backbone: every route is the sender's private link
    # followed by the receiver's; SPLITDUPLEX gives each direction its own
    # bandwidth, so distinct sender/receiver pairs never compete.
    cluster = ET.SubElement(
        zone,
        "cluster",
        id="crossbar",
        prefix="node-",
        suffix="",
        radical=f"0-{params['nodes'] - 1}",
        speed=f"{float(params['speed_flops'])!r}f",
        core=str(params["cores_per_node"]),
        bw=simgrid_bandwidth(float(params["bandwidth_Bps"])),
        lat=simgrid_time(float(params["latency_s"])),
        sharing_policy="SPLITDUPLEX",
        loopback_bw=simgrid_bandwidth(float(params["loopback_bandwidth_Bps"])),
        loopback_lat=simgrid_time(float(params["loopback_latency_s"])),
    )
    ET.SubElement(
        cluster, "prop", id="gamma_s_per_byte", value=repr(float(params["gamma_s_per_byte"]))
    )
    return platform


_WRITERS = {"crossbar": _crossbar_xml}


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
    writer = _WRITERS.get(family)
    if writer is None:
        raise ValueError(f"no SimGrid writer for platform family {family!r}")
    root = writer(G)
    ET.indent(root)
    return _HEADER + ET.tostring(root, encoding="utf-8") + b"\n"


def platform_hash(G: nx.Graph) -> str:
    """Return a short hash of the platform's XML: equal hashes, equal machines."""
    return hashlib.sha256(platform_xml(G)).hexdigest()[:16]


def write_atomically(path: str | os.PathLike, data: bytes) -> Path:
    """Write data to path through a temporary file and a rename."""
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path


def write_platform(G: nx.Graph, path: str | os.PathLike) -> Path:
    """Write the SimGrid XML of ``G`` to ``path`` (atomically) and return the path."""
    return write_atomically(path, platform_xml(G))


def write_hostfile(hosts: list[str], path: str | os.PathLike) -> Path:
    """Write a hostfile with one line per rank: line i is the host of rank i."""
    return write_atomically(path, "".join(f"{host}\n" for host in hosts).encode())
