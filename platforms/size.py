"""How large a platform would be, known before it is generated.

A generator given a billion nodes would fill the memory for minutes before
failing; :func:`check_platform_size` refuses it at once, saying how much
memory it would need.  The estimates are deliberately rough upper bounds of
what networkx holds per host (measured: 0.8 KiB per crossbar node, more with
switches and links) and of the explicit routes of a dual-rail platform (one
``<route>`` per ordered pair of hosts; measured: 3.4 GB held while a study
of the 512-node, 1024-host dual-rail machines of scenarios/procurement.toml
was starting).
"""

from __future__ import annotations

import math
import os

__all__ = ["estimated_hosts", "platform_memory_bytes", "machine_memory_bytes",
           "check_platform_size"]

BYTES_PER_HOST = 4096
BYTES_PER_EXPLICIT_ROUTE = 4096


def _int(value, default: int = 1) -> int:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int):
        return default  # the generator reports the wrong type itself
    return max(value, 1)


def _product(values) -> int:
    if isinstance(values, (list, tuple)):
        return math.prod(_int(v) for v in values)
    return _int(values)


def estimated_hosts(generator: str, params: dict, sockets_per_node: int = 1) -> int:
    """The number of SimGrid hosts a generator would make (an estimate, >= 1).

    Examples
    --------
    >>> estimated_hosts("fat_tree", {"down_ports": [16, 8]})
    128
    >>> estimated_hosts("crossbar", {"nodes": 8}, sockets_per_node=2)
    16
    """
    if generator == "fat_tree":
        nodes = _product(params.get("down_ports"))
    elif generator == "dragonfly":
        nodes = (_int(params.get("groups")) * _int(params.get("chassis_per_group"))
                 * _int(params.get("routers_per_chassis")) * _int(params.get("nodes_per_router")))
    elif generator == "dual_rail":
        nodes = (_int(params.get("nodes")) if "nodes" in params
                 else _product(params.get("plane_down_ports")))
        sockets_per_node = _int(params.get("sockets_per_node"), 2)
    else:
        nodes = _int(params.get("nodes"))
    return nodes * _int(sockets_per_node)


def platform_memory_bytes(generator: str, params: dict, sockets_per_node: int = 1) -> int:
    """Memory to generate and write the platform (an upper estimate)."""
    hosts = estimated_hosts(generator, params, sockets_per_node)
    need = hosts * BYTES_PER_HOST
    if generator == "dual_rail":
        need += hosts * hosts * BYTES_PER_EXPLICIT_ROUTE
    return need


def machine_memory_bytes() -> int:
    """The physical memory of this machine."""
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def _gib(n_bytes: float) -> str:
    return f"{n_bytes / 2 ** 30:.3g} GiB"


def check_platform_size(generator: str, params: dict, sockets_per_node: int = 1) -> None:
    """Refuse a platform whose generation would need more memory than the machine has.

    Raises
    ------
    ValueError
        Saying how many hosts and how much memory it would need.
    """
    need = platform_memory_bytes(generator, params, sockets_per_node)
    have = machine_memory_bytes()
    if need > have:
        hosts = estimated_hosts(generator, params, sockets_per_node)
        raise ValueError(f"a {generator} of {hosts:,} hosts would need about {_gib(need)} of "
                         f"memory to generate; this machine has {_gib(have)}")
