"""A SimGrid platform XML written by someone else, used as it is.

Only its hosts (and their core counts) are read; its routes are SimGrid's
business, so alpha and beta between two hosts are not predicted from a graph
but measured by a simulated ping-pong (``collsim.runner``), and models on it
are ``approx``.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import networkx as nx

from ._common import add_host

__all__ = ["xml_file_platform"]


def _radical(text: str) -> list[int]:
    values = []
    for part in text.split(","):
        match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+))?\s*", part)
        if not match:
            raise ValueError(f"cluster radical {text!r} is not like '0-15,20'")
        low = int(match.group(1))
        high = int(match.group(2)) if match.group(2) else low
        values.extend(range(low, high + 1))
    return values


def _leading_number(text: str) -> float | None:
    """The number a SimGrid value starts with ("0Bps" -> 0.0), None if none."""
    match = re.match(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)", text)
    return float(match.group(1)) if match else None


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
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ValueError(f"cannot read platform file {path}: {error.strerror}") from None
    try:
        root = ET.fromstring(data)
    except ET.ParseError as error:
        raise ValueError(f"platform file {path} is not valid XML: {error}") from None
    if root.tag != "platform":
        raise ValueError(f"platform file {path} is not a SimGrid platform (root <{root.tag}>)")
    G = nx.Graph(name="xml_file", params={"path": str(path)}, routing="opaque",
                 xml_bytes=data, gamma_s_per_byte=0.0)
    index = 0
    for element in root.iter():
        # SimGrid aborts on these with a message that does not name the element
        for attribute in ("bandwidth", "speed", "bw"):
            value = element.get(attribute)
            if value is not None and _leading_number(value) == 0:
                raise ValueError(f"platform file {path}: <{element.tag} id="
                                 f"{element.get('id', '?')!r}> has {attribute} {value!r}: "
                                 "it must be > 0")
        if element.tag == "host":
            names = [element.get("id")]
        elif element.tag == "cluster":
            names = [f"{element.get('prefix', '')}{i}{element.get('suffix', '')}"
                     for i in _radical(element.get("radical", ""))]
        else:
            continue
        try:
            cores = int(element.get("core", "1"))
        except ValueError:
            raise ValueError(f"platform file {path}: <{element.tag}> core "
                             f"{element.get('core')!r} is not an integer") from None
        for name in names:
            add_host(G, name, node=index, cores=cores, speed_flops=1.0)
            index += 1
        for prop in element.findall("prop"):
            if prop.get("id") == "gamma_s_per_byte":
                G.graph["gamma_s_per_byte"] = float(prop.get("value"))
    if index == 0:
        raise ValueError(f"platform file {path} declares no host")
    return G
