"""fat_tree, dragonfly, multicore and dual_rail: shapes, checks, and SimGrid agreeing with the graph."""

import xml.etree.ElementTree as ET

import networkx as nx
import pytest

from collsim.platforms import (
    crossbar,
    dragonfly,
    dual_rail,
    fat_tree,
    multicore,
    pair_classes,
    pair_parameters,
    platform_xml,
    route,
    write_platform,
)
from collsim.harness import simulate

SIZES = [0, 1024, 1 << 20]


def _hosts(G):
    return [n for n, k in G.nodes(data="kind") if k == "host"]


def _pingpong(G, source, target, profile):
    rows, status = simulate(
        G, [source, target], profile,
        ["--pingpong", "--bytes", ",".join(map(str, SIZES)), "--peer", "1"], what="ping-pong",
    )
    assert status == 0 and [row["bytes"] for row in rows] == SIZES
    return rows


def _assert_classes_match(G, profile, sources=None):
    classes = pair_classes(G, sources=sources)
    for (alpha_s, beta_s_per_byte), (source, target, _) in classes.items():
        for row in _pingpong(G, source, target, profile):
            predicted = alpha_s + (row["bytes"] + profile.envelope_bytes) * beta_s_per_byte
            assert row["time_s"] == pytest.approx(predicted, rel=1e-6), (source, target, row)
    return classes


# -- shapes -----------------------------------------------------------------


def test_fat_tree_shape_and_xgft_wiring():
    G = fat_tree(levels=3, down_ports=[4, 2, 2], up_ports=[1, 2, 2])
    switches = [n for n, k in G.nodes(data="kind") if k == "switch"]
    assert len(_hosts(G)) == 16
    # level l has prod(down[l:]) * prod(up[:l]) switches: 4, 4, 4
    assert [sum(1 for s in switches if G.nodes[s]["level"] == lv) for lv in (1, 2, 3)] == [4, 4, 4]
    assert G.number_of_edges() == 16 + 4 * 2 + 4 * 2
    assert all(G.degree(h) == 1 for h in _hosts(G))
    # consecutive nodes share a leaf switch; the tree is connected
    assert route(G, "node-0", "node-3") == ["node-0", "switch-1-0", "node-3"]
    assert nx.is_connected(G)
    assert G.graph["topo_parameters"] == "3;4,2,2;1,2,2;1,1,1"


def test_fat_tree_per_level_bandwidth_tapering_and_parallel_links():
    G = fat_tree(levels=2, down_ports=[2, 2], up_ports=[1, 2], parallel_links=[1, 2],
                 bandwidth_Bps=[1e10, 4e9], latency_s=[1e-6, 3e-6], tapering=2)
    upper = [d for _, _, d in G.edges(data=True) if d["kind"] == "level-2"]
    assert {d["bandwidth_Bps"] for d in upper} == {4e9 * 2 / 2}
    pair = pair_parameters(G, "node-0", "node-2")
    assert pair.hops == 4 and pair.alpha_s == pytest.approx(8e-6)
    assert pair.beta_s_per_byte == pytest.approx(1 / 4e9)


def test_dragonfly_shape():
    G = dragonfly(groups=4, chassis_per_group=2, routers_per_chassis=3, nodes_per_router=2,
                  global_links=2)
    kinds = nx.get_edge_attributes(G, "kind")
    count = {k: sum(1 for v in kinds.values() if v == k) for k in set(kinds.values())}
    assert len(_hosts(G)) == 48
    assert count == {"node": 48, "green": 4 * 2 * 3, "black": 4 * 3 * 1, "global": 6 * 2}
    # every router pair of a group is at most two local hops apart; groups one global hop
    assert max(len(route(G, "node-0", h)) - 1 for h in _hosts(G)) <= 2 + 2 + 1 + 2


def test_multicore_three_classes_over_a_fat_tree():
    G = multicore(fat_tree(levels=1, down_ports=[2]), sockets_per_node=2, cores_per_socket=3)
    classes = pair_classes(G)
    assert sorted(hops for _, _, hops in classes.values()) == [0, 2, 4]
    assert all(G.nodes[h]["cores"] == 3 for h in _hosts(G))


@pytest.mark.parametrize(
    "make, name",
    [
        (lambda: fat_tree(levels=0, down_ports=[]), "levels"),
        (lambda: fat_tree(levels=2, down_ports=[4]), "down_ports"),
        (lambda: fat_tree(levels=2, down_ports=[4, 0]), "down_ports"),
        (lambda: fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, -1]), "up_ports"),
        (lambda: fat_tree(levels=1, down_ports=[4], tapering=0.5), "tapering"),
        (lambda: fat_tree(levels=1, down_ports=[4], bandwidth_Bps=0), "bandwidth_Bps"),
        (lambda: fat_tree(levels=2, down_ports=[2, 2], latency_s=[1e-6]), "latency_s"),
        (lambda: dragonfly(groups=0, routers_per_chassis=2, nodes_per_router=1), "groups"),
        (lambda: dragonfly(groups=5, routers_per_chassis=2, nodes_per_router=1), "global_links"),
        (lambda: dragonfly(groups=2, routers_per_chassis=2, nodes_per_router=1,
                           global_latency_s=-1), "global_latency_s"),
        (lambda: multicore(crossbar(nodes=2), sockets_per_node=0), "sockets_per_node"),
        (lambda: multicore("fat", sockets_per_node=2), "network"),
        (lambda: dual_rail(nodes=2, rail_policy="round_robin"), "rail_policy"),
        (lambda: dual_rail(nodes=2, sockets_per_node=1), "sockets_per_node"),
        (lambda: dual_rail(nodes=0), "nodes"),
        (lambda: dual_rail(nodes=6, plane_down_ports=[4, 2]), "plane_down_ports multiply to 8"),
        (lambda: dual_rail(nodes=8, plane_up_ports=[1, 2]), "plane_down_ports is needed"),
        (lambda: dual_rail(nodes=8, plane_down_ports=[4, 2], plane_up_ports=[1]), "up_ports"),
    ],
)
def test_bad_parameters_name_the_parameter(make, name):
    with pytest.raises(ValueError, match=name):
        make()


def test_xml_is_deterministic_and_written_atomically(tmp_path):
    G = dragonfly(groups=2, routers_per_chassis=2, nodes_per_router=2)
    xml = platform_xml(G)
    assert xml == platform_xml(dragonfly(groups=2, routers_per_chassis=2, nodes_per_router=2))
    root = ET.fromstring(xml.split(b"\n", 2)[2])
    assert root.get("version") == "4.1" and root.find("zone").get("routing") == "DijkstraCache"
    assert len(root.findall("zone/link")) == G.number_of_edges()
    write_platform(G, tmp_path / "df.xml")
    assert [p.name for p in tmp_path.iterdir()] == ["df.xml"]


# -- SimGrid agrees with the graph --------------------------------------------


def test_fat_tree_pingpong_per_class(hockney):
    G = fat_tree(levels=2, down_ports=[2, 2], up_ports=[1, 2], parallel_links=[1, 2],
                 bandwidth_Bps=[1e10, 4e9], latency_s=[1e-6, 2.5e-6], tapering=1.5,
                 cores_per_node=2)
    classes = _assert_classes_match(G, hockney, sources=["node-0"])
    assert sorted(h for _, _, h in classes.values()) == [0, 2, 4]


def test_dragonfly_pingpong_per_class(hockney):
    G = dragonfly(groups=3, chassis_per_group=2, routers_per_chassis=2, nodes_per_router=2,
                  local_latency_s=5e-7, global_latency_s=3e-6, global_bandwidth_Bps=6e9,
                  node_bandwidth_Bps=1e10)
    classes = _assert_classes_match(G, hockney)
    assert len(classes) >= 5


def test_multicore_pingpong_per_class(hockney):
    G = multicore(dragonfly(groups=2, routers_per_chassis=2, nodes_per_router=1),
                  sockets_per_node=2, cores_per_socket=2, socket_latency_s=3e-7)
    classes = _assert_classes_match(G, hockney, sources=["node-0.s0"])
    assert {h for _, _, h in classes.values()} >= {0, 2}


def test_multicore_fat_tree_pingpong_per_class(hockney):
    """The d-mod-k routing graph (``layered``): per-level latencies make the classes differ."""
    G = multicore(fat_tree(levels=2, down_ports=[4, 3], up_ports=[1, 4],
                           latency_s=[6e-7, 1.1e-6], bandwidth_Bps=[1e10, 8e9]),
                  sockets_per_node=2, cores_per_socket=2, socket_latency_s=3e-7)
    assert G.graph["routing"] == "layered"
    classes = _assert_classes_match(G, hockney, sources=["node-0.s0", "node-5.s1"])
    assert {h for _, _, h in classes.values()} == {0, 2, 4, 6}


@pytest.mark.parametrize("policy", ["socket_affine", "striped", "single", "single_double"])
def test_dual_rail_pingpong_per_class(hockney, policy):
    G = dual_rail(nodes=3, cores_per_socket=2, rail_policy=policy, socket_latency_s=3e-7)
    _assert_classes_match(G, hockney, sources=["node-0.s0", "node-1.s1"])


@pytest.mark.parametrize("make", [
    lambda: fat_tree(levels=2, down_ports=[2, 2], up_ports=[2, 2]),
    lambda: dragonfly(groups=3, chassis_per_group=2, routers_per_chassis=2, nodes_per_router=1,
                      global_links=2),
    lambda: multicore(fat_tree(levels=2, down_ports=[4, 3], up_ports=[1, 4]), sockets_per_node=2),
])
def test_simgrid_takes_exactly_the_predicted_route(hockney, make):
    """Give every link a distinct latency: the simulated latency then names the links used.

    These platforms have several hop-minimal routes between some hosts; the
    graph must predict which one SimGrid's Dijkstra routing takes, and its hop
    count must be the graph's shortest-path length.  A ping-pong's one-way
    time is half the round trip: on the multicore fat-tree (d-mod-k by the
    destination node) the way back crosses another spine, so both routes are
    predicted.
    """
    G = make()
    for i, (u, v) in enumerate(G.edges()):
        G.edges[u, v]["latency_s"] = (1 + i) * 1e-6 + (i * i % 7) * 1e-8
    hosts = _hosts(G)
    pairs = [(hosts[0], hosts[-1]), (hosts[1], hosts[len(hosts) // 2]), (hosts[-1], hosts[2])]
    for source, target in pairs:
        path = route(G, source, target)
        assert len(path) - 1 == nx.shortest_path_length(G, source, target)
        assert len(list(nx.all_shortest_paths(G, source, target))) >= 1
        rows = _pingpong(G, source, target, hockney)
        there, back = pair_parameters(G, source, target), pair_parameters(G, target, source)
        assert rows[0]["time_s"] == pytest.approx(
            (there.alpha_s + back.alpha_s) / 2
            + hockney.envelope_bytes * (there.beta_s_per_byte + back.beta_s_per_byte) / 2,
            rel=1e-9)


def test_some_pairs_have_several_minimal_routes():
    """The route test above is not vacuous: these shapes do have equal-length alternatives."""
    G = fat_tree(levels=2, down_ports=[2, 2], up_ports=[2, 2])
    assert len(list(nx.all_shortest_paths(G, "node-0", "node-3"))) > 1
    G = dragonfly(groups=3, chassis_per_group=2, routers_per_chassis=2, nodes_per_router=1,
                  global_links=2)
    assert any(len(list(nx.all_shortest_paths(G, "node-0", h))) > 1 for h in _hosts(G))


@pytest.mark.parametrize("policy", ["socket_affine", "single"])
def test_dual_rail_fat_tree_planes_pingpong_per_class(hockney, policy):
    G = dual_rail(nodes=8, rail_policy=policy, plane_down_ports=[2, 4], plane_up_ports=[1, 2],
                  nic_latency_s=7e-7)
    classes = _assert_classes_match(G, hockney, sources=["node-0.s0", "node-0.s1"])
    assert max(h for _, _, h in classes.values()) >= 6
    path = route(G, "node-0.s1", "node-7.s0")
    assert (policy == "socket_affine") == all(n.startswith(("node", "rail-1")) for n in path)


def test_dual_rail_socket_affine_routes():
    G = dual_rail(nodes=2, rail_policy="socket_affine")
    assert "rail-0" in route(G, "node-0.s0", "node-1.s1")
    assert "rail-1" in route(G, "node-0.s1", "node-1.s0")
    striped = dual_rail(nodes=3, rail_policy="striped")
    assert "rail-1" in route(striped, "node-0.s0", "node-1.s0")
    assert "rail-0" in route(striped, "node-0.s1", "node-2.s1")


def test_dual_rail_doubles_what_leaves_a_node(hockney):
    """Two large messages leave node 0 from its two sockets at once (bcast/binomial, p = 4:
    0 -> 2 inside node 0, then 0 -> 1 and 2 -> 3 together).  On two socket-affine rails
    each gets a whole NIC; on one rail they share it and take twice as long."""
    n_bytes = 8 << 20
    ranks = ["node-0.s0", "node-1.s0", "node-0.s1", "node-1.s1"]

    def second_step_s(policy):
        G = dual_rail(nodes=2, rail_policy=policy, socket_bandwidth_Bps=1e12)
        rows, status = simulate(G, ranks, hockney, ["--coll", "bcast", "--alg", "binomial",
                                                    "--bytes", str(n_bytes)], what="bcast")
        assert status == 0
        first = pair_parameters(G, ranks[0], ranks[2])
        first_s = first.alpha_s + (n_bytes + hockney.envelope_bytes) * first.beta_s_per_byte
        return rows[0]["time_s"] - first_s, G

    dual_s, G = second_step_s("socket_affine")
    single_s, _ = second_step_s("single")
    alone = pair_parameters(G, ranks[0], ranks[1])
    assert dual_s == pytest.approx(
        alone.alpha_s + (n_bytes + hockney.envelope_bytes) * alone.beta_s_per_byte, rel=1e-6)
    assert dual_s / single_s == pytest.approx(0.5, rel=0.01)


def test_cores_of_a_socket_share_its_link(hockney):
    """Contention inside a node is modeled: bcast/binomial on 4 ranks, ranks 0 and 2 on
    socket 0, ranks 1 and 3 on socket 1 of the same node.  Step 1 (0 -> 2) uses the
    loopback; in step 2 the messages 0 -> 1 and 2 -> 3 share both socket links, so
    each gets half the bandwidth."""
    n_bytes = 1 << 20
    G = multicore(crossbar(nodes=1), sockets_per_node=2, cores_per_socket=2,
                  socket_bandwidth_Bps=10e9, socket_latency_s=1e-7)
    ranks = ["node-0.s0", "node-0.s1", "node-0.s0", "node-0.s1"]
    rows, status = simulate(G, ranks, hockney, ["--coll", "bcast", "--alg", "binomial",
                                                "--bytes", str(n_bytes)], what="bcast")
    assert status == 0
    wire = n_bytes + hockney.envelope_bytes
    loop = pair_parameters(G, ranks[0], ranks[2])
    cross = pair_parameters(G, ranks[0], ranks[1])
    expected = (loop.alpha_s + wire * loop.beta_s_per_byte) + (cross.alpha_s + 2 * wire * cross.beta_s_per_byte)
    assert rows[0]["time_s"] == pytest.approx(expected, rel=1e-6)


def test_flat_model_is_exact_only_under_one_switch():
    from collsim.platforms import map_ranks, network_parameters

    G = fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 2])
    assert network_parameters(G, map_ranks(G, 4, "block"))[1]        # one leaf switch
    # one rank per leaf: every pair has the same (alpha, beta), but the leaves'
    # up-links can be shared by concurrent messages
    spread = ["node-0", "node-4", "node-8", "node-12"]
    assert len({(p.alpha_s, p.beta_s_per_byte) for p in
                (pair_parameters(G, "node-0", h) for h in spread[1:])}) == 1
    assert not network_parameters(G, spread)[1]


def _policy_rail(G, source, target):
    """The rail a rail policy sends a message on, from its definition (module docstring)."""
    src, dst = G.nodes[source], G.nodes[target]
    if G.graph["params"]["rail_policy"] == "socket_affine":
        return src["socket"] % 2
    return (src["node"] + dst["node"]) % 2


@pytest.mark.parametrize("policy", ["socket_affine", "striped"])
@pytest.mark.parametrize("planes", [{}, {"plane_down_ports": [2, 4], "plane_up_ports": [1, 2]}])
def test_dual_rail_routes_follow_the_policy_for_every_pair(policy, planes):
    """Every route of the routing graph takes the policy's rail, by the shortest way
    that rail allows: out through the rail's socket, across the plane by a shortest
    plane path, in through the rail's socket; inside a node, through the node router."""
    G = dual_rail(nodes=8, sockets_per_node=3, rail_policy=policy, **planes)
    plane = G.graph["_plane"]
    hosts = _hosts(G)
    for source in hosts:
        for target in hosts:
            if source == target:
                continue
            path = route(G, source, target)
            assert path[0] == source and path[-1] == target
            assert all(G.has_edge(a, b) for a, b in zip(path, path[1:]))
            src, dst = G.nodes[source], G.nodes[target]
            if src["node"] == dst["node"]:
                assert path == [source, f"node-{src['node']}", target]
                continue
            rail = _policy_rail(G, source, target)
            switches = [n for n in path if G.nodes[n]["kind"] == "switch"]
            assert all(G.nodes[n]["rail"] == rail for n in switches), (source, target, path)
            # NIC up, the plane's switches, NIC down: the plane's own shortest path
            across = 2 if plane is None else nx.shortest_path_length(
                plane, f"node-{src['node']}", f"node-{dst['node']}")
            hops = (2 if src["socket"] != rail else 0) + across + (
                2 if dst["socket"] != rail else 0)
            assert len(path) - 1 == hops, (source, target, path)


@pytest.mark.parametrize("policy", ["socket_affine", "striped"])
def test_simgrid_takes_the_predicted_dual_rail_route(hockney, policy):
    """Distinct latencies on every link: SimGrid's latency names the links it used.

    A ping-pong's one-way time is half the round trip, and under socket_affine
    the way back takes the other socket's rail: both routes are predicted."""
    G = dual_rail(nodes=8, sockets_per_node=3, rail_policy=policy, plane_down_ports=[2, 4],
                  plane_up_ports=[1, 2])
    for i, (u, v) in enumerate(G.edges()):
        G.edges[u, v]["latency_s"] = (1 + i) * 1e-6 + (i * i % 7) * 1e-8
    for source, target in [("node-0.s2", "node-7.s1"), ("node-1.s0", "node-6.s0"),
                           ("node-5.s1", "node-2.s2"), ("node-3.s2", "node-3.s0")]:
        rows = _pingpong(G, source, target, hockney)
        there, back = pair_parameters(G, source, target), pair_parameters(G, target, source)
        assert rows[0]["time_s"] == pytest.approx(
            (there.alpha_s + back.alpha_s) / 2
            + hockney.envelope_bytes * (there.beta_s_per_byte + back.beta_s_per_byte) / 2,
            rel=1e-9)


def test_dual_rail_xml_grows_with_the_hosts():
    """Routes per host stay constant as the machine grows (no route per host pair)."""
    sizes = {}
    for nodes in (16, 64):
        G = dual_rail(nodes=nodes, rail_policy="striped")
        root = ET.fromstring(platform_xml(G).split(b"\n", 2)[2])
        sizes[nodes] = len(root.findall("zone/route"))
    assert sizes[64] < 4.5 * sizes[16]
