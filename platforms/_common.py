"""What every generated platform graph carries, built in one place."""

from __future__ import annotations

import networkx as nx

from ._validate import check_count, check_nonnegative, check_positive

# One network link (node to switch, switch to switch, NIC): 100 Gb/s, 1 us.
LINK_DEFAULTS = dict(bandwidth_Bps=12.5e9, latency_s=1e-6)

# The link between a socket and its node's router (QPI/UPI/xGMI), in
# ``multicore`` and ``dual_rail``.
SOCKET_DEFAULTS = dict(bandwidth_Bps=40e9, latency_s=2e-7)

NODE_DEFAULTS = dict(
    cores_per_node=1,
    loopback_bandwidth_Bps=50e9,
    loopback_latency_s=1e-7,
    speed_flops=1e9,
    gamma_s_per_byte=1e-10,
)


def check_node_parameters(*, cores_per_node, loopback_bandwidth_Bps, loopback_latency_s,
                          speed_flops, gamma_s_per_byte) -> None:
    """Validate the per-node parameters shared by all generators."""
    check_count("cores_per_node", cores_per_node)
    check_positive("loopback_bandwidth_Bps", loopback_bandwidth_Bps)
    check_nonnegative("loopback_latency_s", loopback_latency_s)
    check_positive("speed_flops", speed_flops)
    check_nonnegative("gamma_s_per_byte", gamma_s_per_byte)


def check_list(name: str, value, length: int, check) -> list:
    """Require a list of ``length`` items, each passing ``check(name[i], item)``."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise ValueError(f"{name} must be a list of {length} values, got {value!r}")
    if len(value) != length:
        raise ValueError(f"{name} must have {length} values (one per level), got {len(value)}")
    for i, item in enumerate(value):
        check(f"{name}[{i}]", item)
    return list(value)


def new_platform(name: str, params: dict, *, routing: str = "dijkstra", **extra) -> nx.Graph:
    """Return an empty platform graph with the attributes every platform has.

    The loopback and gamma attributes are taken from ``params``, where every
    generator records them.
    """
    return nx.Graph(
        name=name,
        params=params,
        routing=routing,
        gamma_s_per_byte=float(params["gamma_s_per_byte"]),
        loopback_bandwidth_Bps=float(params["loopback_bandwidth_Bps"]),
        loopback_latency_s=float(params["loopback_latency_s"]),
        **extra,
    )


def add_host(G: nx.Graph, name: str, *, node: int, socket: int = 0, cores: int,
             speed_flops: float) -> None:
    """Add a host: ``node`` is its machine, ``socket`` its socket on that machine."""
    G.add_node(name, kind="host", node=node, socket=socket, cores=cores,
               speed_flops=float(speed_flops))


def add_link(G: nx.Graph, u: str, v: str, *, bandwidth_Bps: float, latency_s: float,
             kind: str) -> None:
    """Add one full-duplex link between u and v (``kind`` names its role)."""
    if G.has_edge(u, v):
        raise ValueError(f"two links between {u} and {v}")
    # ``tail`` fixes the link's orientation: SimGrid's SPLITDUPLEX link has
    # an UP half (tail to head) and a DOWN half, each with the full bandwidth.
    G.add_edge(u, v, bandwidth_Bps=float(bandwidth_Bps), latency_s=float(latency_s), kind=kind,
               tail=u)
