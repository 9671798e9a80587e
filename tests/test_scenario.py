"""Scenario files: validation before anything runs, and expansion to a grid."""

import pytest

from collsim.native import is_selector
from collsim.cli import main
from collsim.errors import CollsimError
from collsim.scenario import build_machine, load_scenario, machine_cost

GOOD = """\
[study]
name = "small"
np = [4, 8]

[[machine]]
name = "xbar"
platform = { generator = "crossbar", nodes = 8 }
price = { per_node = 100.0, per_switch = 1000.0, per_link = 10.0 }

[[workload]]
collective = "allreduce"
weight = 0.37
sizes = ["8", "64KiB"]
size_weights = [3, 1]
algorithms = "best"

[[workload]]
collective = "bcast"
weight = 0.63
sizes = [8, "1MiB"]
algorithms = ["binomial"]
"""


def write(tmp_path, text, name="s.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_good_scenario_expands_to_machine_x_algorithm_x_np(tmp_path, entries):
    scenario = load_scenario(write(tmp_path, GOOD))
    # "best": every algorithm but the selectors (each runs one of the others)
    allreduce = [e["algorithm"] for e in entries if e["collective"] == "allreduce"
                 and not is_selector(e["algorithm"])]
    assert len(scenario.simulations) == (len(allreduce) + 1) * 2
    assert {s.spec.np for s in scenario.simulations} == {4, 8}
    bcast = [s for s in scenario.simulations if s.spec.collective == "bcast"]
    assert [s.spec.sizes_bytes for s in bcast] == [(8, 1048576)] * 2
    assert scenario.workloads[0].size_weights == (3.0, 1.0)
    assert scenario.machines[0].price["per_node"] == 100.0


def test_machine_cost_counts_nodes_switches_links():
    G = build_machine({"generator": "crossbar", "nodes": 8})
    assert machine_cost(G, {"per_node": 100.0, "per_switch": 1000.0, "per_link": 10.0}) == 1880.0
    assert machine_cost(G, {}) is None


@pytest.mark.parametrize("old, new, key, reason", [
    ('name = "small"', 'name = "small"\nbogus = 1', "study.bogus", "unknown key"),
    ('weight = 0.37', 'weight = 0.37\nwieght = 1', "workload[0].wieght", "unknown key"),
    ("[[machine]]", "[[machines]]", "machines", "unknown key"),
    ('nodes = 8 }', 'nodes = 8, bogus_Bps = 1 }', "machine[0].platform", "bogus_Bps"),
    ('np = [4, 8]', 'np = "four"', "study.np", "must be a list"),
    ('weight = 0.37', 'weight = "high"', "workload[0].weight", "finite number"),
    ('nodes = 8 }', 'nodes = "8" }', "machine[0].platform", "nodes must be an integer"),
    ('algorithms = ["binomial"]', 'algorithms = "binomial"', "workload[1].algorithms",
     "must be 'best', 'all' or a list"),
    ('algorithms = ["binomial"]', 'algorithms = ["binomail"]', "workload[1].algorithms",
     "unknown algorithm 'binomail'"),
    ('collective = "bcast"', 'collective = "scatterv"', "workload[1].collective",
     "unknown collective"),
    ('sizes = [8, "1MiB"]', 'sizes = [8, -1024]', "workload[1].sizes", "negative size"),
    ('sizes = [8, "1MiB"]', 'sizes = ["-8"]', "workload[1].sizes", "negative size"),
    ('sizes = [8, "1MiB"]', 'sizes = []', "workload[1].sizes", "empty"),
    ('np = [4, 8]', 'np = []', "study.np", "empty"),
    ('np = [4, 8]', 'np = [4, 64]', "study.np", "larger than machine 'xbar'"),
    ('generator = "crossbar"', 'generator = "fat_treee"', "machine[0].platform",
     "unknown generator 'fat_treee'"),
    ('platform = { generator = "crossbar", nodes = 8 }', 'catalog = "no-such-machine"',
     "machine[0].catalog", "unknown machine 'no-such-machine'"),
    ('size_weights = [3, 1]', 'size_weights = [3]', "workload[0].size_weights",
     "1 weights for 2 sizes"),
    ('per_node = 100.0', 'per_node = -1.0', "machine[0].price.per_node", "finite number"),
    ('algorithms = ["binomial"]', 'algorithms = ["binomial"]\nroot = "0"', "workload[1].root",
     "must be an integer, got '0'"),
    ('name = "small"', 'name = "small"\nprofile = "fastest"', "study.profile",
     "unknown profile"),
])
def test_malformed_scenarios_are_one_line_naming_file_key_reason(tmp_path, capsys, old, new,
                                                                  key, reason):
    assert old in GOOD
    path = write(tmp_path, GOOD.replace(old, new, 1))
    db = tmp_path / "out.db"
    status = main(["study", str(path), "--db", str(db), "--jobs", "1"])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"collsim: error: {path}: {key}: "), lines[0]
    assert reason in lines[0]
    assert not db.exists()  # rejected before anything ran


def test_missing_machine_and_workload(tmp_path):
    no_machine = GOOD.split("[[machine]]")[0] + "[[workload]]" + GOOD.split("[[workload]]", 1)[1]
    with pytest.raises(CollsimError, match=r"s.toml: machine: missing"):
        load_scenario(write(tmp_path, no_machine))
    with pytest.raises(CollsimError, match=r"s.toml: workload: missing"):
        load_scenario(write(tmp_path, GOOD.split("[[workload]]")[0]))
    both = GOOD.replace("platform = {", 'catalog = "x"\nplatform = {')
    with pytest.raises(CollsimError, match=r"machine\[0\]: give exactly one of"):
        load_scenario(write(tmp_path, both))


def test_an_empty_grid_is_rejected(tmp_path):
    # ring needs a commutative op: with a non-commutative one "best" keeps no ring, and
    # a list naming only ring is an error naming the restriction
    only_ring = GOOD.replace('algorithms = "best"', 'algorithms = ["ring"]\nop = "first_nonzero"')
    with pytest.raises(CollsimError, match=r"workload\[0\]: .*requires a commutative op"):
        load_scenario(write(tmp_path, only_ring))


def test_invalid_toml_and_unreadable_file(tmp_path):
    with pytest.raises(CollsimError, match=r"s.toml: not valid TOML"):
        load_scenario(write(tmp_path, "[study\n"))
    with pytest.raises(CollsimError, match=r"cannot read scenario .*nothing.toml"):
        load_scenario(tmp_path / "nothing.toml")


@pytest.mark.parametrize("payload", [
    'generator = "__import__(\'os\').system(\'touch {marker}\')"',
    'generator = "crossbar", nodes = "__import__(\'os\').system(\'touch {marker}\')"',
    'generator = "crossbar", nodes = 8, __class__ = "touch {marker}"',
])
def test_a_scenario_never_executes_code(tmp_path, payload):
    marker = tmp_path / "executed"
    text = GOOD.replace('generator = "crossbar", nodes = 8',
                        payload.format(marker=marker))
    with pytest.raises(CollsimError, match=r"machine\[0\]\.platform: "):
        load_scenario(write(tmp_path, text))
    assert not marker.exists()


@pytest.mark.parametrize("name", ["collsim.scenario", "collsim.store", "collsim.report"])
def test_docstring_examples_of_the_study_modules(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
