"""Rank mappings: block, cyclic, socket, random (seeded) and an explicit file."""

import pytest

from collsim.platforms import crossbar, dual_rail, map_ranks, multicore


@pytest.fixture
def machine():
    return multicore(crossbar(nodes=3), sockets_per_node=2, cores_per_socket=2)


def test_block_fills_a_node_socket_by_socket(machine):
    assert map_ranks(machine, 5, "block") == [
        "node-0.s0", "node-0.s0", "node-0.s1", "node-0.s1", "node-1.s0"]


def test_cyclic_goes_round_the_nodes(machine):
    assert map_ranks(machine, 5, "cyclic") == [
        "node-0.s0", "node-1.s0", "node-2.s0", "node-0.s0", "node-1.s0"]
    assert map_ranks(machine, 12, "cyclic")[-3:] == ["node-0.s1", "node-1.s1", "node-2.s1"]


def test_socket_alternates_sockets_within_a_node(machine):
    assert map_ranks(machine, 5, "socket") == [
        "node-0.s0", "node-0.s1", "node-0.s0", "node-0.s1", "node-1.s0"]


def test_random_is_seeded_and_respects_cores(machine):
    a = map_ranks(machine, 12, "random:3")
    assert a == map_ranks(machine, 12, "random:3") and a != map_ranks(machine, 12, "random:4")
    assert sorted(a) == sorted(map_ranks(machine, 12, "block"))
    assert map_ranks(machine, 4, "random") == map_ranks(machine, 4, "random:0")


def test_every_mapping_places_the_same_rank_count():
    G = dual_rail(nodes=4, cores_per_socket=3)
    for mapping in ("block", "cyclic", "socket", "random:1"):
        placed = map_ranks(G, 24, mapping)
        assert len(placed) == 24 and all(placed.count(h) == 3 for h in set(placed))


def test_explicit_file(machine, tmp_path):
    path = tmp_path / "ranks"
    path.write_text("# rank to host\nnode-2.s1\nnode-0.s0\n\nnode-2.s1\n")
    assert map_ranks(machine, 3, f"file:{path}") == ["node-2.s1", "node-0.s0", "node-2.s1"]
    with pytest.raises(ValueError, match="names 3 hosts for np=4"):
        map_ranks(machine, 4, f"file:{path}")
    path.write_text("node-2.s1\n" * 3)
    with pytest.raises(ValueError, match="more ranks on node-2.s1 than its 2 cores"):
        map_ranks(machine, 3, f"file:{path}")
    path.write_text("# a secret\nnode-9 secret\n")
    with pytest.raises(ValueError, match="line 2: not the name of a host") as raised:
        map_ranks(machine, 1, f"file:{path}")
    assert "secret" not in str(raised.value)  # a file's contents are never quoted


@pytest.mark.parametrize("mapping, message", [
    ("diagonal", "unknown mapping"), ("block:2", "unknown mapping"),
    ("random:x", "integer seed"), ("file:", "needs a path")])
def test_bad_mappings(machine, mapping, message):
    with pytest.raises(ValueError, match=message):
        map_ranks(machine, 2, mapping)
