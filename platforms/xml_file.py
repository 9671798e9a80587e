"""A SimGrid platform XML written by someone else, used as it is.

Only its hosts (and their core counts) are read; its routes are SimGrid's
business, so alpha and beta between two hosts are not predicted from a graph
but measured by a simulated ping-pong (``collsim.runner``), and models on it
are ``approx``.
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx

from collsim.files import read_input

from ._common import add_host
from .size import check_platform_size

__all__ = ["xml_file_platform"]


def _radical(text: str) -> list[tuple[int, int]]:
    """The ranges of a cluster's radical ("0-15,20" -> [(0, 15), (20, 20)]), not expanded."""
    ranges = []
    for part in text.split(","):
        match = re.fullmatch(r"\s*(\d{1,18})\s*(?:-\s*(\d{1,18}))?\s*", part)
        if not match:
            raise ValueError(f"cluster radical {text[:40]!r} is not like '0-15,20'")
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) else low
        if high < low:
            raise ValueError(f"cluster radical {part.strip()!r} ends before it starts")
        ranges.append((low, high))
    return ranges


def _leading_number(text: str) -> float | None:
    """The number a SimGrid value starts with ("0Bps" -> 0.0), None if none."""
    match = re.match(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)", text)
    return float(match.group(1)) if match else None


# Attributes SimGrid reads as bandwidths or speeds (> 0) and latencies (>= 0), on hosts,
# links and clusters (bw, bb_bw, loopback_bw, lat, bb_lat, loopback_lat).
_POSITIVE = re.compile(r"(bandwidth|speed|.*bw)$")
_NON_NEGATIVE = re.compile(r"(latency|.*lat)$")


def _check_values(root: ET.Element, path) -> None:
    """Every bandwidth and speed > 0, every latency >= 0, all finite: SimGrid aborts on
    some (without naming the element) and takes others (a negative latency) silently."""
    for element in root.iter():
        for attribute, value in element.attrib.items():
            positive = _POSITIVE.match(attribute)
            if not positive and not _NON_NEGATIVE.match(attribute):
                continue
            number = _leading_number(value)
            if number is None or not math.isfinite(number) or number < 0 or (
                    positive and number == 0):
                need = "> 0" if positive else ">= 0"
                raise ValueError(f"platform file {path}: <{element.tag} id="
                                 f"{element.get('id', '?')!r}> has {attribute} {value[:40]!r}: "
                                 f"it must be a finite number {need}")


def _check_referenced_files(root: ET.Element, path) -> None:
    """The files a platform makes SimGrid read (``<trace file=...>``, ``speed_file``,
    ``bandwidth_file``, ``state_file``...): regular files within collsim's input limit,
    so that a FIFO or ``/dev/zero`` named there cannot make the simulation wait forever."""
    base = Path(path).parent
    for element in root.iter():
        for attribute, value in element.attrib.items():
            if attribute == "file" or attribute.endswith("_file"):
                read_input(base / value, f"platform file {path}: <{element.tag}> {attribute}")


def _gamma(value, path) -> float:
    try:
        gamma = float(value)
    except (TypeError, ValueError):
        gamma = math.nan
    if not (math.isfinite(gamma) and gamma >= 0):
        raise ValueError(f"platform file {path}: property gamma_s_per_byte must be a finite "
                         "number of seconds per byte >= 0")
    return gamma


def xml_file_platform(path) -> nx.Graph:
    """Return a platform graph holding the hosts of a SimGrid XML file and its bytes.

    Parameters
    ----------
    path : str or path-like
        A SimGrid platform file (``<host>`` elements and ``<cluster>``
        elements are read).

    Raises
    ------
    ValueError
        If the file cannot be read, is not XML, is not a SimGrid platform or
        declares no host.
    """
    path = Path(path)
    data = read_input(path, "platform file")
    if data.startswith(b"\xef\xbb\xbf"):  # SimGrid's parser aborts on it, saying nothing useful
        raise ValueError(f"platform file {path} starts with a UTF-8 byte-order mark, which "
                         "SimGrid does not read: save it without one")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as error:
        raise ValueError(f"platform file {path} is not valid XML: {error}") from None
    if root.tag != "platform":
        raise ValueError(f"platform file {path} is not a SimGrid platform (root <{root.tag}>)")
    G = nx.Graph(name="xml_file", params={"path": str(path)}, routing="opaque",
                 xml_bytes=data, gamma_s_per_byte=0.0)
    _check_values(root, path)
    _check_referenced_files(root, path)
    hosts = 0  # counted before any is made: a radical of a billion hosts is refused at once
    for element in root.iter():
        if element.tag == "host":
            hosts += 1
        elif element.tag == "cluster":
            hosts += sum(high - low + 1 for low, high in _radical(element.get("radical", "")))
    check_platform_size("xml_file", {"nodes": hosts})
    index = 0
    for element in root.iter():
        if element.tag == "host":
            names = [element.get("id")]
        elif element.tag == "cluster":
            names = [f"{element.get('prefix', '')}{i}{element.get('suffix', '')}"
                     for low, high in _radical(element.get("radical", ""))
                     for i in range(low, high + 1)]
        else:
            continue
        try:
            cores = int(element.get("core", "1"))
        except ValueError:
            cores = 0
        if cores < 1:
            raise ValueError(f"platform file {path}: <{element.tag} id="
                             f"{element.get('id', '?')!r}> core must be a whole number >= 1")
        for name in names:
            add_host(G, name, node=index, cores=cores, speed_flops=1.0)
            index += 1
        for prop in element.findall("prop"):
            if prop.get("id") == "gamma_s_per_byte":
                G.graph["gamma_s_per_byte"] = _gamma(prop.get("value"), path)
    if index == 0:
        raise ValueError(f"platform file {path} declares no host")
    return G
