"""fat_tree as SimGrid's own FAT_TREE cluster, and the fat-trees it cannot express (multicore,
tapered, ...) routed d-mod-k in a routing graph: their routes, predicted link for link."""

import math
import re
import xml.etree.ElementTree as ET

import networkx as nx
import pytest

from collsim.harness import simulate
from collsim.platforms import fat_tree, map_ranks, multicore, pair_classes, platform_xml, route
from collsim.platforms import simgrid


def _cluster(G):
    root = ET.fromstring(platform_xml(G).split(b"\n", 2)[2])
    return root.find("zone/cluster")


def _hosts(G):
    return [n for n, k in G.nodes(data="kind") if k == "host"]


def test_a_plain_fat_tree_is_simgrids_cluster_of_its_shape():
    G = fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 2], bandwidth_Bps=4e9,
                 latency_s=5e-7)
    cluster = _cluster(G)
    assert cluster is not None and cluster.get("topology") == "FAT_TREE"
    assert cluster.get("topo_parameters") == "2;4,4;1,2;1,1"
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


def test_parallel_cables_are_one_link_of_their_summed_bandwidth():
    G = fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 4], parallel_links=[2, 2],
                 bandwidth_Bps=1e10)
    cluster = _cluster(G)
    assert cluster.get("topo_parameters") == "2;4,4;1,4;1,1"
    assert cluster.get("bw") == "20000000000.0Bps"


# -- SimGrid's own routes, dumped by a small s4u program ----------------------

# ``route_dump`` (tests/conftest.py) compiles it once per session.


@pytest.fixture(scope="module")
def simgrid_routes(route_dump):
    """``simgrid_routes(G)``: SimGrid's route of every host pair, as nodes of ``G``.

    FatTreeZone names a link ``link_from_<child>_<parent>_<n>_UP/DOWN`` by its
    elements' ids: host i is i; the switches are numbered down from 2N - 1
    (N hosts, below 0 when there are more than 2N switches) in SimGrid's order, level by level, position by position, and
    the element at level l, position j has the digits of j (least significant
    first) in the radices up[d] (d < l) and down[d] (d >= l).  collsim's
    ``switch-l-i`` numbers those digits from d = l up, then d < l.
    """
    def dump(G):
        params = G.graph["params"]
        down, up, levels = params["down_ports"], params["up_ports"], params["levels"]
        hosts = math.prod(down)
        names = {}  # switch ids (they go below 0 and meet the hosts' when switches outnumber hosts)
        k = 2 * hosts
        for level in range(1, levels + 1):
            radices = [up[d] if d < level else down[d] for d in range(levels)]
            count = math.prod(radices)
            for j in range(count):
                k -= 1
                digits, rest = [], j
                for radix in radices:
                    digits.append(rest % radix)
                    rest //= radix
                ours = digits[level:] + digits[:level]
                ours_radices = radices[level:] + radices[:level]
                index = 0
                for digit, radix in zip(reversed(ours), reversed(ours_radices)):
                    index = index * radix + digit
                names[k] = f"switch-{level}-{index}"
        routes = {}
        for source, target, *links in route_dump(G):
            path = [source]
            for n, link in enumerate(links, 1):
                child, parent, direction = re.fullmatch(
                    r"link_from_(-?\d+)_(-?\d+)_\d+_(UP|DOWN)", link).groups()
                if direction == "UP":
                    path.append(names[int(parent)])
                else:
                    path.append(f"node-{child}" if n == len(links) else names[int(child)])
            routes[source, target] = path
        assert len(routes) == hosts * (hosts - 1)
        return routes

    return dump


@pytest.mark.parametrize("levels, down_ports, up_ports, parallel_links", [
    (2, [4, 4], [1, 4], [1, 1]),
    (2, [2, 3], [3, 2], [1, 1]),
    (3, [2, 2, 3], [2, 2, 2], [1, 1, 1]),
    (3, [3, 2, 2], [1, 3, 2], [2, 2, 2]),
])
def test_every_predicted_route_is_simgrids(simgrid_routes, levels, down_ports, up_ports,
                                          parallel_links):
    """collsim's route (fat_tree.cluster_route) of every host pair is the one SimGrid takes."""
    G = fat_tree(levels=levels, down_ports=down_ports, up_ports=up_ports,
                 parallel_links=parallel_links)
    assert _cluster(G) is not None
    for (source, target), path in simgrid_routes(G).items():
        assert route(G, source, target) == path, (source, target)
        assert all(G.has_edge(a, b) for a, b in zip(path, path[1:]))


def test_cross_leaf_messages_to_different_destinations_take_different_spines(simgrid_routes):
    """--down-ports 4,4 --up-ports 1,4: no longer one spine for all (SimGrid's d-mod-k)."""
    G = fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 4])
    routes = simgrid_routes(G)
    for source in _hosts(G):
        leaf = int(source.split("-")[1]) // 4
        others = [h for h in _hosts(G) if int(h.split("-")[1]) // 4 != leaf]
        for group in (others[:4], others[4:8], others[8:]):
            spines = {route(G, source, h)[2] for h in group}
            assert spines == {routes[source, h][2] for h in group}
            assert len(spines) == 4, (source, group, spines)


def test_one_spine_routes_stay_on_an_edited_graph():
    """An edited graph keeps the Dijkstra zone and its routes through the switches whose
    up-port labels are all 0."""
    G = fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 4])
    u, v = next(iter(G.edges()))
    G.edges[u, v]["latency_s"] = 3e-6
    assert _cluster(G) is None and G.graph["routing"] == "dijkstra"
    assert {route(G, "node-0", f"node-{i}")[2] for i in range(4, 16)} == {"switch-2-0"}


def test_pingpong_per_class_on_the_cluster(hockney):
    G = fat_tree(levels=3, down_ports=[2, 2, 2], up_ports=[1, 2, 2], bandwidth_Bps=4e9,
                 latency_s=7e-7)
    assert _cluster(G) is not None
    classes = pair_classes(G, sources=["node-0", "node-5"])
    for (alpha_s, beta_s_per_byte), (source, target, _) in classes.items():
        rows, status = simulate(G, [source, target], hockney,
                                ["--pingpong", "--bytes", "0,1048576", "--peer", "1"],
                                what="ping-pong")
        assert status == 0
        for row in rows:
            predicted = alpha_s + (row["bytes"] + hockney.envelope_bytes) * beta_s_per_byte
            assert row["time_s"] == pytest.approx(predicted, rel=1e-9), (source, target, row)
    assert sorted(h for _, _, h in classes.values()) == [2, 4, 6]


def test_the_cluster_no_longer_funnels_through_one_spine(hockney, monkeypatch):
    """16 ranks, recursive doubling of 1 MiB on 4,4 / 1,4: SimGrid's d-mod-k spreads the
    cross-leaf steps over the 4 spines; the one-spine routed zone shares one."""
    G = fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 4])
    args = ["--coll", "allreduce", "--alg", "recursive_doubling", "--bytes", "1048576",
            "--timing-only"]
    hosts = map_ranks(G, 16, "block")
    (native,), status = simulate(G, hosts, hockney, args, what="native")
    assert status == 0
    monkeypatch.setitem(simgrid._WRITERS, "fat_tree", simgrid._routed_xml)
    (routed,), status = simulate(fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 4]), hosts,
                                 hockney, args, what="routed")
    assert status == 0
    assert native["time_s"] < 0.7 * routed["time_s"]  # 0.767 ms against 1.270 ms


# -- multicore fat-trees: d-mod-k in a routing graph of the Dijkstra zone -----


def _zone_routes(route_dump, G):
    """SimGrid's route of every host pair of a routed zone, as nodes of ``G``: each link
    ``u--v_UP`` or ``_DOWN`` (a SPLITDUPLEX half) leads from the current node to its other
    end, and its half says which way."""
    routes = {}
    for source, target, *links in route_dump(G):
        path = [source]
        for link in links:
            name, direction = link.rsplit("_", 1)
            u, v = name.split("--")
            assert path[-1] == (u if direction == "UP" else v), (source, target, links)
            path.append(v if direction == "UP" else u)
        routes[source, target] = path
    hosts = _hosts(G)
    assert len(routes) == len(hosts) * (len(hosts) - 1)
    return routes


@pytest.mark.parametrize("options", [dict(tapering=2), dict(latency_s=[1e-6, 2e-6]),
                                     dict(cores_per_node=2)])
def test_plain_fat_trees_the_cluster_cannot_express_route_d_mod_k(route_dump, options):
    """Tapered, per-level, several cores: a routed zone over the d-mod-k routing graph, whose
    every route SimGrid takes, the cluster's route on the same shape."""
    G = fat_tree(levels=2, down_ports=[4, 3], up_ports=[1, 4], **options)
    assert _cluster(G) is None and G.graph["routing"] == "layered"
    cluster = fat_tree(levels=2, down_ports=[4, 3], up_ports=[1, 4])
    for (source, target), path in _zone_routes(route_dump, G).items():
        assert route(G, source, target) == path == route(cluster, source, target), (source,
                                                                                    target)


@pytest.mark.parametrize("levels, down_ports, up_ports", [
    (2, [4, 3], [1, 4]),
    (2, [2, 3], [3, 2]),
    (3, [2, 2, 3], [2, 2, 2]),
    (3, [3, 2, 2], [1, 3, 2]),
])
def test_every_multicore_fat_tree_route_is_predicted_and_d_mod_k(route_dump, levels, down_ports,
                                                                 up_ports):
    """Every host pair: SimGrid's route is collsim's, hop-minimal, and between the node
    routers the route SimGrid's FAT_TREE cluster takes on the plain tree of that shape."""
    network = fat_tree(levels=levels, down_ports=down_ports, up_ports=up_ports)
    G = multicore(network, sockets_per_node=2)
    assert G.graph["routing"] == "layered"
    for (source, target), path in _zone_routes(route_dump, G).items():
        assert route(G, source, target) == path, (source, target)
        assert len(path) - 1 == nx.shortest_path_length(G, source, target)
        a, b = G.nodes[source]["node"], G.nodes[target]["node"]
        if a != b:
            assert path[1:-1] == route(network, f"node-{a}", f"node-{b}"), (source, target)


def test_multicore_cross_leaf_messages_spread_over_the_spines(route_dump):
    """4,4 / 1,4 with 2 sockets: messages from one socket to the nodes of other leaves take
    spine ``node mod 4``, the plain cluster's, no longer one spine for all."""
    network = fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 4])
    G = multicore(network, sockets_per_node=2)
    routes = _zone_routes(route_dump, G)
    for source in ("node-0.s0", "node-5.s1"):
        leaf = G.nodes[source]["node"] // 4
        spines = {}
        for target in _hosts(G):
            node = G.nodes[target]["node"]
            if node // 4 != leaf:
                spine = routes[source, target][3]
                assert spine == route(G, source, target)[3]
                assert G.nodes[spine]["level"] == 2
                spines.setdefault(node % 4, set()).add(spine)
        assert all(len(s) == 1 for s in spines.values())
        assert len(set.union(*spines.values())) == 4, spines


def test_multicore_fat_tree_no_longer_funnels_through_one_spine(hockney):
    """16 ranks on 16 nodes, recursive doubling of 1 MiB: the d-mod-k routes against the
    old Dijkstra zone's one spine."""
    def make():
        return multicore(fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 4]),
                         sockets_per_node=2)
    args = ["--coll", "allreduce", "--alg", "recursive_doubling", "--bytes", "1048576",
            "--timing-only"]
    G = make()
    hosts = [f"node-{i}.s0" for i in range(16)]
    (spread,), status = simulate(G, hosts, hockney, args, what="d-mod-k")
    assert status == 0
    one_spine = make()
    one_spine.graph["routing"] = "dijkstra"
    assert {route(one_spine, "node-0.s0", f"node-{i}.s0")[3] for i in range(4, 16)} == {
        "switch-2-0"}
    (funnel,), status = simulate(one_spine, hosts, hockney, args, what="one spine")
    assert status == 0
    assert spread["time_s"] < 0.7 * funnel["time_s"], (spread, funnel)
