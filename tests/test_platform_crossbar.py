"""The crossbar generator, its XML and hostfile, and its parameters checked by SimGrid."""

import xml.etree.ElementTree as ET

import networkx as nx
import pytest

from collsim.platforms import (
    crossbar,
    map_ranks,
    pair_parameters,
    platform_hash,
    platform_xml,
    write_hostfile,
    write_platform,
)
from collsim.harness import simulate


def test_graph_shape_and_attributes():
    G = crossbar(nodes=8, cores_per_node=2, bandwidth_Bps=1e10, latency_s=5e-7)
    assert G.number_of_nodes() == 9 and G.number_of_edges() == 8
    assert nx.is_tree(G)
    hosts = [n for n, kind in G.nodes(data="kind") if kind == "host"]
    assert len(hosts) == 8 and G.nodes["switch"]["kind"] == "switch"
    for _, _, data in G.edges(data=True):
        assert data == {"bandwidth_Bps": 1e10, "latency_s": 5e-7}
    assert G.graph["name"] == "crossbar" and G.graph["params"]["nodes"] == 8


@pytest.mark.parametrize(
    "params, name",
    [
        (dict(nodes=0), "nodes"),
        (dict(nodes=-3), "nodes"),
        (dict(nodes=2.5), "nodes"),
        (dict(nodes=4, cores_per_node=0), "cores_per_node"),
        (dict(nodes=4, bandwidth_Bps=0), "bandwidth_Bps"),
        (dict(nodes=4, latency_s=-1e-6), "latency_s"),
        (dict(nodes=4, gamma_s_per_byte=float("nan")), "gamma_s_per_byte"),
        (dict(nodes=4, speed_flops=float("inf")), "speed_flops"),
    ],
)
def test_bad_parameters_name_the_parameter(params, name):
    with pytest.raises(ValueError, match=name):
        crossbar(**params)


def test_xml_is_simgrid_4_1_and_deterministic():
    G = crossbar(nodes=4, cores_per_node=2, gamma_s_per_byte=2e-10)
    xml = platform_xml(G)
    assert xml == platform_xml(crossbar(nodes=4, cores_per_node=2, gamma_s_per_byte=2e-10))
    root = ET.fromstring(xml.split(b"\n", 2)[2])
    assert root.tag == "platform" and root.get("version") == "4.1"
    cluster = root.find("zone/cluster")
    assert cluster.get("radical") == "0-3" and cluster.get("core") == "2"
    assert cluster.get("sharing_policy") == "SPLITDUPLEX"
    assert cluster.find("prop").get("value") == "2e-10"
    assert platform_hash(G) != platform_hash(crossbar(nodes=5, cores_per_node=2))


def test_block_mapping_and_hostfile(tmp_path):
    G = crossbar(nodes=3, cores_per_node=2)
    assert map_ranks(G, 5) == ["node-0", "node-0", "node-1", "node-1", "node-2"]
    with pytest.raises(ValueError, match="larger than the platform's 6 cores"):
        map_ranks(G, 7)
    with pytest.raises(ValueError, match="np must be"):
        map_ranks(G, 0)
    path = write_hostfile(map_ranks(G, 3), tmp_path / "hosts")
    assert path.read_text() == "node-0\nnode-0\nnode-1\n"
    assert [p.name for p in tmp_path.iterdir()] == ["hosts"]  # no temporary left behind


def test_write_platform_leaves_no_partial_file(tmp_path):
    G = nx.Graph(name="not-a-generator")
    with pytest.raises(ValueError, match="no SimGrid writer"):
        write_platform(G, tmp_path / "p.xml")
    assert list(tmp_path.iterdir()) == []


def test_pair_parameters():
    G = crossbar(nodes=2, bandwidth_Bps=1e10, latency_s=1e-6,
                 loopback_bandwidth_Bps=4e10, loopback_latency_s=1e-7)
    inter = pair_parameters(G, "node-0", "node-1")
    assert (inter.alpha_s, inter.beta_s_per_byte, inter.hops) == (2e-6, 1e-10, 2)
    intra = pair_parameters(G, "node-0", "node-0")
    assert (intra.alpha_s, intra.beta_s_per_byte, intra.hops) == (1e-7, 2.5e-11, 0)


@pytest.mark.parametrize("cores_per_node, np", [(1, 2), (2, 2), (2, 3)])
def test_simulated_pingpong_matches_the_graph(hockney, cores_per_node, np):
    """alpha and beta read off the graph are what SimGrid simulates, within 1e-9."""
    G = crossbar(nodes=2, cores_per_node=cores_per_node, bandwidth_Bps=12.5e9, latency_s=1.3e-6)
    rank_hosts = map_ranks(G, np)
    sizes = [0, 1, 1000, 65536, 1 << 22]
    rows, status = simulate(
        G, rank_hosts, hockney,
        ["--pingpong", "--bytes", ",".join(map(str, sizes)), "--peer", str(np - 1)],
        what="ping-pong",
    )
    assert status == 0 and [row["bytes"] for row in rows] == sizes
    pair = pair_parameters(G, rank_hosts[0], rank_hosts[-1])
    for row in rows:
        predicted = pair.alpha_s + (row["bytes"] + hockney.envelope_bytes) * pair.beta_s_per_byte
        assert row["time_s"] == pytest.approx(predicted, rel=1e-9)


def test_platform_xml_is_written_once_per_graph_and_again_after_a_change():
    """A study runs many simulations on one graph; a dual-rail machine with explicit
    routes takes minutes to write (512 nodes: 518 MB), so the XML is kept per graph,
    outside G.graph (never pickled or stored), and rewritten when the graph changes."""
    from collsim.platforms.simgrid import platform_xml

    G = crossbar(nodes=3)
    first = platform_xml(G)
    assert platform_xml(G) is first
    assert not any(isinstance(value, bytes) for value in G.graph.values())
    G.graph["params"]["gamma_s_per_byte"] = 3e-10
    changed = platform_xml(G)
    assert changed != first and b'value="3e-10"' in changed
