"""collsim platform, and collsim run on generators, catalog names and XML files."""

import json

import pytest

from collsim.cli import main
from collsim.platforms import fat_tree, platform_xml
from collsim.platforms.catalog import CATALOG

RUN = ["run", "--coll", "bcast", "--alg", "binomial", "--bytes", "8,1MiB"]


def cli(args, capsys):
    status = main(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_generate_writes_the_generators_xml_and_a_hostfile(tmp_path, capsys):
    xml, hostfile = tmp_path / "ft.xml", tmp_path / "hosts"
    status, out, err = cli(["platform", "generate", "fat-tree", "--down-ports", "4,4",
                            "--up-ports", "1,4", "--bandwidth", "100Gbps,50Gbps",
                            "--latency", "1us,2us", "-o", str(xml), "--hostfile", str(hostfile),
                            "--np", "6", "--mapping", "cyclic"], capsys)
    assert status == 0 and err == "" and "16 hosts" in out
    assert xml.read_bytes() == platform_xml(fat_tree(
        levels=2, down_ports=[4, 4], up_ports=[1, 4], bandwidth_Bps=[12.5e9, 6.25e9],
        latency_s=[1e-6, 2e-6]))
    assert hostfile.read_text().split() == [f"node-{i}" for i in range(6)]


def test_describe_lists_the_classes(capsys):
    status, out, _ = cli(["platform", "describe", "seed003_hydra", "--json"], capsys)
    d = json.loads(out)
    assert status == 0 and d["hosts"] == 72 and d["cores"] == 1152 and d["switches"] == 2
    assert [c["hops"] for c in d["classes"]] == [0, 2, 2, 4]
    # 18 nodes' NICs on each of the two rails
    nic_Bps = CATALOG["seed003_hydra"]["params"]["nic_bandwidth_Bps"]
    assert d["bisection_Bps"] == pytest.approx(18 * 2 * nic_Bps)
    assert d["diameter_hops"] == 4


@pytest.mark.parametrize("suffix, magic", [(".svg", b"<?xml"), (".png", b"\x89PNG")])
def test_draw(tmp_path, capsys, suffix, magic):
    target = tmp_path / f"df{suffix}"
    status, _, err = cli(["platform", "draw", "dragonfly", "--dragonfly-groups", "3",
                          "--routers-per-chassis", "2", "--nodes-per-router", "2",
                          "-o", str(target)], capsys)
    assert status == 0 and err == ""
    assert target.read_bytes().startswith(magic)


def test_run_on_a_generator_catalog_and_xml_file(tmp_path, capsys):
    status, out, _ = cli(RUN + ["--np", "8", "--platform", "dragonfly", "--dragonfly-groups", "2",
                                "--routers-per-chassis", "2", "--nodes-per-router", "2",
                                "--json"], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and rows[0]["platform"] == "dragonfly" and rows[0]["check"] == "ok"
    status, out, _ = cli(RUN + ["--np", "8", "--platform", "seed004_graphene", "--json"], capsys)
    rows = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and rows[0]["platform"] == "seed004_graphene"
    # 4 cores per node: two classes, the flat model is not exact; the network model answers
    assert rows[0]["model_class"] == "network" and rows[0]["flat_model_s"] > 0
    # the same machine from its XML file: same simulated times, alpha/beta measured
    xml = tmp_path / "g.xml"
    assert cli(["platform", "generate", "seed004_graphene", "-o", str(xml)], capsys)[0] == 0
    status, out, _ = cli(RUN + ["--np", "8", "--platform", str(xml), "--json"], capsys)
    from_file = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and from_file[0]["platform"] == f"file:{xml}"
    assert [r["time_s"] for r in from_file] == [r["time_s"] for r in rows]
    assert from_file[0]["platform_hash"] == rows[0]["platform_hash"]
    assert from_file[0]["model_class"] == "approx"  # an XML file's routes are unknown: no network model


def test_run_with_multicore_nodes_and_mappings(capsys):
    base = RUN + ["--np", "8", "--platform", "crossbar", "--nodes", "2", "--sockets-per-node",
                  "2", "--cores-per-socket", "2", "--json"]
    times = {}
    for mapping in ("block", "cyclic", "socket", "random:7"):
        status, out, _ = cli(base + ["--mapping", mapping], capsys)
        rows = [json.loads(line) for line in out.splitlines()]
        assert status == 0 and all(r["mapping"] == mapping and r["check"] == "ok" for r in rows)
        times[mapping] = rows[-1]["time_s"]
    assert len(set(times.values())) > 1  # mappings change the simulated time


@pytest.mark.parametrize(
    "args, message",
    [
        (["--np", "4", "--platform", "fat-tree", "--down-ports", "4,0"], "down_ports[1] must be"),
        (["--np", "4", "--platform", "fat-tree", "--down-ports", "4,4", "--tapering", "0.5"],
         "tapering must be >= 1"),
        (["--np", "4", "--platform", "fat-tree", "--down-ports", "4,4", "--up-ports", "1"],
         "up_ports must have 2 values"),
        (["--np", "4", "--platform", "dragonfly", "--dragonfly-groups", "2"],
         "a dragonfly needs --routers-per-chassis, --nodes-per-router"),
        (["--np", "4", "--platform", "dragonfly", "--dragonfly-groups", "-1", "--routers-per-chassis",
          "2", "--nodes-per-router", "2"], "groups must be an integer >= 1"),
        (["--np", "4", "--platform", "dual-rail", "--rail-policy", "random"], "rail_policy"),
        (["--np", "9", "--platform", "crossbar", "--nodes", "2", "--sockets-per-node", "2",
          "--cores-per-socket", "2"], "larger than the platform's 8 cores"),
        (["--np", "4", "--platform", "nope"], "unknown platform 'nope'"),
        (["--np", "4", "--platform", "missing.xml"], "cannot read platform file"),
        (["--np", "4", "--mapping", "zigzag"], "unknown mapping 'zigzag'"),
        (["--np", "4", "--mapping", "file:/nonexistent/map"], "cannot read mapping file"),
    ],
)
def test_bad_platform_input_is_one_line_with_status_2(tmp_path, capsys, args, message):
    target = tmp_path / "out.txt"
    status, out, err = cli(RUN + args + ["-o", str(target)], capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("collsim: error: ") and message in err
    assert not target.exists()


def test_unreadable_xml_and_no_partial_file(tmp_path, capsys):
    bad = tmp_path / "bad.xml"
    bad.write_text("<platform version='4.1'><zone")
    status, _, err = cli(RUN + ["--np", "2", "--platform", str(bad)], capsys)
    assert status == 2 and "is not valid XML" in err
    target = tmp_path / "ft.xml"
    status, _, err = cli(["platform", "generate", "fat-tree", "--down-ports", "4,4",
                          "--tapering", "0", "-o", str(target)], capsys)
    assert status == 2 and err.count("\n") == 1 and "tapering" in err
    status, _, err = cli(["platform", "describe", "seed999"], capsys)
    assert status == 2 and "unknown platform 'seed999'" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.xml"]
