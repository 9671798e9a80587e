"""fat_tree as SimGrid's own FAT_TREE cluster: the same routes, the same simulated times."""

import math
import xml.etree.ElementTree as ET

import pytest

from collsim.harness import simulate
from collsim.platforms import fat_tree, map_ranks, multicore, platform_xml, route
from collsim.platforms import simgrid


def _cluster(G):
    root = ET.fromstring(platform_xml(G).split(b"\n", 2)[2])
    return root.find("zone/cluster")


def _hosts(G):
    return [n for n, k in G.nodes(data="kind") if k == "host"]


def test_a_plain_fat_tree_is_simgrids_cluster_of_its_routed_subtree():
    G = fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 2], bandwidth_Bps=4e9,
                 latency_s=5e-7)
    cluster = _cluster(G)
    assert cluster is not None and cluster.get("topology") == "FAT_TREE"
    assert cluster.get("topo_parameters") == "2;4,4;1,1;1,1"
    assert (cluster.get("radical"), cluster.get("core")) == ("0-15", "1")
    assert (cluster.get("bw"), cluster.get("lat")) == ("4000000000.0Bps", "5e-07s")
    # the loopback of the routed zone (FATPIPE, the graph's values), as the cluster's own
    assert (cluster.get("loopback_bw"), cluster.get("loopback_lat")) == ("50000000000.0Bps",
                                                                          "1e-07s")


@pytest.mark.parametrize("make", [
    lambda: fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 2], tapering=2),
    lambda: fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 2], bandwidth_Bps=[1e10, 5e9]),
    lambda: fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 2], latency_s=[1e-6, 2e-6]),
    lambda: fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 2], cores_per_node=2),
    lambda: multicore(fat_tree(levels=2, down_ports=[2, 2], up_ports=[1, 2]),
                      sockets_per_node=2, cores_per_socket=2),
])
def test_what_the_cluster_cannot_express_stays_a_routed_zone(make):
    """One bandwidth and one latency for all links, one core per node (the cluster's
    loopback is one link per host, not SimGrid's shared one), no sockets: anything
    else is routed."""
    assert _cluster(make()) is None


def test_an_edited_graph_stays_a_routed_zone():
    G = fat_tree(levels=2, down_ports=[2, 2], up_ports=[2, 2])
    u, v = next(iter(G.edges()))
    G.edges[u, v]["latency_s"] = 3e-6
    assert _cluster(G) is None


@pytest.mark.parametrize("levels, down_ports, up_ports", [
    (2, [4, 4], [1, 2]),
    (2, [2, 3], [3, 2]),
    (3, [2, 2, 2], [2, 2, 2]),
    (3, [3, 2, 2], [1, 3, 2]),
])
def test_every_route_stays_in_the_subtree_of_up_labels_zero(levels, down_ports, up_ports):
    """What makes the cluster exact: the graph's routes (SimGrid's Dijkstra choice) use
    only switch-l-j with j < prod(down_ports[l:]), the switches whose up-port labels
    are all 0; those form a tree, so each route is its unique path there."""
    G = fat_tree(levels=levels, down_ports=down_ports, up_ports=up_ports)
    hosts = _hosts(G)
    for source in hosts:
        for target in hosts:
            for node in route(G, source, target)[1:-1]:
                level = G.nodes[node]["level"]
                index = int(node.rsplit("-", 1)[1])
                assert index < math.prod(down_ports[level:]), (source, target, node)


def _times(G, mapping, np, cases, hockney):
    rank_hosts = map_ranks(G, np, mapping)
    times = []
    for collective, algorithm in cases:
        rows, status = simulate(G, rank_hosts, hockney,
                                ["--coll", collective, "--alg", algorithm, "--bytes", "8,65536",
                                 "--root", "1", "--timing-only"],
                                what=f"{collective}/{algorithm}")
        assert status == 0
        times += [row["time_s"] for row in rows]
    return times


@pytest.mark.parametrize("make, np, mapping", [
    (lambda: fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 2]), 12, "random:3"),
    (lambda: fat_tree(levels=3, down_ports=[2, 2, 3], up_ports=[2, 2, 2]), 12, "block"),
])
def test_the_cluster_simulates_the_routed_zones_times_exactly(hockney, monkeypatch, make, np,
                                                              mapping):
    """Byte-identical simulated times, across leaf switches and with contention."""
    cases = [("allreduce", "recursive_doubling"), ("allreduce", "ring"),
             ("reduce", "binomial"), ("bcast", "scatter_allgather")]
    native = make()
    assert _cluster(native) is not None
    native_times = _times(native, mapping, np, cases, hockney)
    monkeypatch.setitem(simgrid._WRITERS, "fat_tree", simgrid._routed_xml)
    routed = make()
    assert _cluster(routed) is None
    assert native_times == _times(routed, mapping, np, cases, hockney)
