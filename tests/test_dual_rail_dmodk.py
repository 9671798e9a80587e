"""dual_rail with fat-tree planes: each plane routed d-mod-k by destination node.

Inside a plane a route takes the switches SimGrid's FAT_TREE cluster of the
plane's shape takes between the same two nodes (``fat_tree.cluster_route``),
on the rail its policy names, so cross-leaf traffic spreads over the spines;
SimGrid's own routes (``route_to``, the ``route_dump`` fixture) are the ones
``route`` predicts.
"""

import networkx as nx
import pytest

from collsim.harness import simulate
from collsim.platforms import dual_rail, route, simgrid
from collsim.platforms.fat_tree import cluster_route

POLICIES = ["socket_affine", "striped"]
ALL_POLICIES = POLICIES + ["single", "single_double"]  # one rail: NIC on the node router

# (nodes, sockets_per_node, plane_down_ports, plane_up_ports)
SHAPES = [
    (16, 2, [4, 4], [1, 4]),        # 4 leaves under 4 spines
    (12, 3, [2, 3, 2], [1, 2, 3]),  # 3 levels, 3 sockets: every NIC hop of both policies
    (12, 2, [2, 2, 3], [2, 2, 2]),  # 3 levels, two leaves per NIC (up_ports[0] = 2)
]


def _hosts(G):
    return [n for n, k in G.nodes(data="kind") if k == "host"]


def _policy_rail(G, source, target):
    """The rail a policy sends a message on, from its definition (module docstring)."""
    src, dst = G.nodes[source], G.nodes[target]
    policy = G.graph["params"]["rail_policy"]
    if policy == "socket_affine":
        return src["socket"] % 2
    if policy == "striped":
        return (src["node"] + dst["node"]) % 2
    return 0


def _plane_switches(G, path):
    return [n for n in path if G.nodes[n]["kind"] == "switch"]


def _expected_switches(G, source, target):
    """The switches of the plane's own FAT_TREE cluster route, on the policy's rail."""
    plane, rail = G.graph["_plane"], _policy_rail(G, source, target)
    a, b = G.nodes[source]["node"], G.nodes[target]["node"]
    return [f"rail-{rail}.{n}" for n in cluster_route(plane, f"node-{a}", f"node-{b}")[1:-1]]


def _zone_links(route_dump, G):
    """SimGrid's route of every host pair as the sorted ``(link, half)`` it crosses,
    virtual links left out.  (SimGrid's Dijkstra zone lists the links of a routing-graph
    edge of several links in reverse order: the set, not the order, is what a message
    crosses.)"""
    routes = {}
    for source, target, *links in route_dump(G):
        routes[source, target] = sorted(tuple(link.rsplit("_", 1)) for link in links
                                        if "--" in link)
    hosts = _hosts(G)
    assert len(routes) == len(hosts) * (len(hosts) - 1)
    return routes


def _predicted_links(G, path):
    return sorted(simgrid._link_in_route(G, a, b) for a, b in zip(path, path[1:]))


@pytest.mark.parametrize("policy", ALL_POLICIES)
@pytest.mark.parametrize("nodes, sockets, down, up", SHAPES)
def test_every_route_is_the_planes_d_mod_k_route_on_the_policys_rail(policy, nodes, sockets,
                                                                     down, up):
    """Every host pair of another node: the policy's rail, the cluster's switches for
    the pair of nodes, and the fewest hops that rail allows (one rail: socket link,
    the plane from node router to node router, socket link)."""
    G = dual_rail(nodes=nodes, sockets_per_node=sockets, rail_policy=policy,
                  plane_down_ports=down, plane_up_ports=up)
    plane = G.graph["_plane"]
    for source in _hosts(G):
        for target in _hosts(G):
            src, dst = G.nodes[source], G.nodes[target]
            if src["node"] == dst["node"]:
                continue
            path = route(G, source, target)
            assert all(G.has_edge(a, b) for a, b in zip(path, path[1:]))
            assert _plane_switches(G, path) == _expected_switches(G, source, target), (
                source, target, path)
            rail = _policy_rail(G, source, target)
            across = nx.shortest_path_length(plane, f"node-{src['node']}", f"node-{dst['node']}")
            if policy in POLICIES:
                hops = (2 if src["socket"] != rail else 0) + across + (
                    2 if dst["socket"] != rail else 0)
            else:
                hops = 1 + across + 1
            assert len(path) - 1 == hops, (source, target, path)


@pytest.mark.parametrize("policy", POLICIES)
def test_cross_leaf_routes_take_the_d_mod_k_spine_and_spread_over_all(policy):
    """nodes=16 on 4,4 / 1,4 planes: node i to node j crosses spine ``j mod 4`` of the
    policy's rail (no longer spine 0 for all), and every spine of both rails carries
    some of the cross-leaf traffic."""
    G = dual_rail(nodes=16, rail_policy=policy, plane_down_ports=[4, 4], plane_up_ports=[1, 4])
    used = {}
    for source in _hosts(G):
        for target in _hosts(G):
            i, j = G.nodes[source]["node"], G.nodes[target]["node"]
            if i // 4 == j // 4:
                continue
            rail = _policy_rail(G, source, target)
            spines = [n for n in route(G, source, target)
                      if G.nodes[n]["kind"] == "switch" and G.nodes[n]["level"] == 2]
            assert spines == [f"rail-{rail}.switch-2-{j % 4}"], (source, target, spines)
            used.setdefault(source, set()).update(spines)
    spines = {n for n, lv in G.nodes(data="level") if lv == 2}
    assert len(spines) == 8 and set.union(*used.values()) == spines
    if policy == "socket_affine":  # one socket's messages: its rail's four spines
        assert all(len(s) == 4 for s in used.values())


@pytest.mark.parametrize("policy", ALL_POLICIES)
@pytest.mark.parametrize("nodes, sockets, down, up", SHAPES)
def test_simgrid_takes_every_predicted_route(route_dump, policy, nodes, sockets, down, up):
    """SimGrid's own route (``route_to`` on the written platform) of every host pair is
    ``route``'s: the routing graph's DijkstraCache search, predicted link for link."""
    G = dual_rail(nodes=nodes, sockets_per_node=sockets, rail_policy=policy,
                  plane_down_ports=down, plane_up_ports=up)
    for (source, target), links in _zone_links(route_dump, G).items():
        assert _predicted_links(G, route(G, source, target)) == links, (source, target)



def test_a_plane_without_a_choice_of_routes_keeps_the_dijkstra_zone():
    """One rail whose plane has all up_ports 1 (one route per pair): no routing graph."""
    G = dual_rail(nodes=8, rail_policy="single", plane_down_ports=[2, 4], plane_up_ports=[1, 1])
    assert G.graph["routing"] == "dijkstra"
    assert dual_rail(nodes=8, rail_policy="single", plane_down_ports=[2, 4],
                     plane_up_ports=[1, 2]).graph["routing"] == "layered"


def test_a_full_bisection_plane_runs_as_fast_as_one_switch(hockney):
    """16 ranks, one per node, striped rails, recursive doubling of 1 MiB: on 4,4 / 1,4
    planes (full bisection) d-mod-k spreads the cross-leaf steps over the 4 spines, so
    the collective takes what it takes on one non-blocking switch per rail, plus the
    plane's two extra hops of latency per step (767.8 against 763.8 us; 1.271 ms when
    every cross-leaf message crossed spine 0 of its rail)."""
    args = ["--coll", "allreduce", "--alg", "recursive_doubling", "--bytes", "1048576",
            "--timing-only"]
    hosts = [f"node-{i}.s0" for i in range(16)]
    times = {}
    for name, planes in [("planes", dict(plane_down_ports=[4, 4], plane_up_ports=[1, 4])),
                         ("switch", {})]:
        G = dual_rail(nodes=16, rail_policy="striped", **planes)
        (row,), status = simulate(G, hosts, hockney, args, what=name)
        assert status == 0
        times[name] = row["time_s"]
    assert times["switch"] < times["planes"] < 1.02 * times["switch"], times
