"""The crossbar: N nodes on one non-blocking switch.

Each node has one full-duplex link to the switch, so distinct sender/receiver
pairs never share a link: the platform on which the analytic alpha-beta-gamma
models of the seeds are exact.  With ``half_duplex=True`` each link's two
directions share its bandwidth (SimGrid's SHARED policy): a node that sends
and receives at once gets half the bandwidth each way, seed 001's simplex
network (f_beta = beta_uni / beta = 0.5, sec. 2.1).
"""

from __future__ import annotations

import networkx as nx

from ._common import LINK_DEFAULTS, NODE_DEFAULTS, check_node_parameters
from ._validate import check_count, check_nonnegative, check_positive

__all__ = ["crossbar"]


def crossbar(
    *,
    nodes: int,
    cores_per_node: int = NODE_DEFAULTS["cores_per_node"],
    bandwidth_Bps: float = LINK_DEFAULTS["bandwidth_Bps"],
    latency_s: float = LINK_DEFAULTS["latency_s"],
    loopback_bandwidth_Bps: float = NODE_DEFAULTS["loopback_bandwidth_Bps"],
    loopback_latency_s: float = NODE_DEFAULTS["loopback_latency_s"],
    speed_flops: float = NODE_DEFAULTS["speed_flops"],
    gamma_s_per_byte: float = NODE_DEFAULTS["gamma_s_per_byte"],
    half_duplex: bool = False,
) -> nx.Graph:
    """Return a crossbar: ``nodes`` hosts, each linked to one non-blocking switch.

    Two ranks on different nodes communicate over the sender's link and the
    receiver's link (route latency ``2 * latency_s``, bottleneck bandwidth
    ``bandwidth_Bps``); links are full duplex (each direction has the full
    bandwidth), so messages between distinct pairs never compete.  Ranks on the
    same node use the node's loopback.

    Parameters
    ----------
    nodes : int
        Number of nodes (hosts), at least 1.
    cores_per_node : int, optional
        Cores per node; up to this many ranks share a node.
    bandwidth_Bps : float, optional
        Bandwidth of each node-to-switch link, bytes per second (default
        12.5e9, i.e. 100 Gb/s).
    latency_s : float, optional
        Latency of each node-to-switch link, seconds (default 1e-6).
    loopback_bandwidth_Bps, loopback_latency_s : float, optional
        Bandwidth and latency between two ranks of the same node.
    speed_flops : float, optional
        Host speed, flop/s.
    gamma_s_per_byte : float, optional
        Cost of a local reduction per byte, seconds (default 1e-10: 10 GB/s);
        written into the platform as the host property ``gamma_s_per_byte``,
        which collbench charges.
    half_duplex : bool, optional
        If true, a link's two directions share ``bandwidth_Bps`` (SimGrid's
        SHARED sharing policy instead of SPLITDUPLEX): an exchange
        (``MPI_Sendrecv``) then moves each direction at half the bandwidth of a
        one-way message, seed 001's simplex network (f_beta = 0.5, sec. 2.1).
        The models get ``beta_s_per_byte`` of an exchange and ``f_beta = 0.5``
        (``collsim.runner.model_parameters``).

    Returns
    -------
    networkx.Graph
        ``nodes + 1`` nodes: hosts ``node-0 .. node-{N-1}`` (``kind="host"``,
        with ``cores`` and ``speed_flops``) and ``switch`` (``kind="switch"``);
        ``nodes`` edges, each with ``bandwidth_Bps`` and ``latency_s``.
        ``G.graph`` holds ``name="crossbar"``, the ``params`` it was made from,
        ``gamma_s_per_byte``, the loopback values and ``half_duplex``.

    Raises
    ------
    ValueError
        If a count is not a positive integer or a bandwidth, latency, speed or
        gamma is out of range.

    Examples
    --------
    >>> G = crossbar(nodes=4)
    >>> G.number_of_nodes(), G.number_of_edges()
    (5, 4)
    >>> G.nodes["node-0"]["kind"], G.edges["node-0", "switch"]["latency_s"]
    ('host', 1e-06)
    """
    params = dict(
        nodes=nodes,
        cores_per_node=cores_per_node,
        bandwidth_Bps=bandwidth_Bps,
        latency_s=latency_s,
        loopback_bandwidth_Bps=loopback_bandwidth_Bps,
        loopback_latency_s=loopback_latency_s,
        speed_flops=speed_flops,
        gamma_s_per_byte=gamma_s_per_byte,
    )
    check_count("nodes", nodes)
    if not isinstance(half_duplex, bool):
        raise ValueError(f"half_duplex must be true or false, got {half_duplex!r}")
    if half_duplex:
        params["half_duplex"] = True   # absent when false: full-duplex params stay as they were
    check_positive("bandwidth_Bps", bandwidth_Bps)
    check_nonnegative("latency_s", latency_s)
    check_node_parameters(cores_per_node=cores_per_node,
                          loopback_bandwidth_Bps=loopback_bandwidth_Bps,
                          loopback_latency_s=loopback_latency_s, speed_flops=speed_flops,
                          gamma_s_per_byte=gamma_s_per_byte)

    G = nx.Graph(
        name="crossbar",
        params=params,
        gamma_s_per_byte=float(gamma_s_per_byte),
        loopback_bandwidth_Bps=float(loopback_bandwidth_Bps),
        loopback_latency_s=float(loopback_latency_s),
        half_duplex=half_duplex,
    )
    G.add_node("switch", kind="switch")
    for i in range(nodes):
        host = f"node-{i}"
        G.add_node(host, kind="host", node=i, socket=0, cores=cores_per_node,
                   speed_flops=float(speed_flops))
        G.add_edge(host, "switch", bandwidth_Bps=float(bandwidth_Bps), latency_s=float(latency_s))
    return G
