"""The parameter table (``algorithms/params.def``) is the one source of every
algorithm parameter: collbench publishes it (``collbench --list --json``) and
the command line, AlgorithmParams, rules files, scenarios, suites and the API
take exactly its names; a value out of range is refused, never clamped; and a
new line in the table (plus its use in an algorithm) is accepted everywhere
without another edit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from dataclasses import fields
from pathlib import Path

import pytest

from collsim import api, harness, params as params_module
from collsim.checks import load_suite
from collsim.cli import build_parser
from collsim.errors import CollsimError
from collsim.harness import parameter_table, simgrid_tool, simulate
from collsim.params import AlgorithmParams, parameter_names, user_parameters
from collsim.platforms import crossbar
from collsim.profiles import load_profile
from collsim.rules import parse_rules
from collsim.scenario import load_scenario

REPO = Path(__file__).resolve().parents[1]

# a value each parameter type accepts (names: a registry entry)
_VALID = {"bytes": 8, "int": 1, "name": "binomial", "bool": True, "real": 1.0}
_RULES_TEXT = {"bytes": "8", "int": "1", "name": "binomial", "bool": "1", "real": "1.0"}


def _valid(entry: dict):
    return max(_VALID[entry["type"]], entry["min"]) if entry["type"] in ("bytes", "int") \
        else _VALID[entry["type"]]


def test_the_table_is_published_with_every_column():
    table = parameter_table()
    assert [entry["name"] for entry in table][:2] == ["segment_bytes", "block_count"]
    for entry in table:
        assert set(entry) == {"name", "option", "type", "unit", "what", "min", "max", "group",
                              "exclusive", "help"}, entry["name"]
        assert entry["option"] == "--" + entry["option"][2:] and entry["help"]
        assert entry["type"] in ("bytes", "int", "name", "bool", "real")


def test_algorithm_params_fields_are_the_table():
    """The dataclass's written fields (models, the store and rows use them) are
    the table's names, in its order; ``selected`` is a run's output, not a parameter."""
    written = [f.name for f in fields(AlgorithmParams) if f.name != "selected"]
    assert written == list(parameter_names())


def test_the_groups_are_the_registry_s():
    """Every group a parameter belongs to is one the algorithms declare
    (``takes_no`` of every registry entry names every group)."""
    groups = set(harness.registry()[0]["takes_no"])
    assert {entry["group"] for entry in user_parameters()} <= groups


def test_collsim_run_options_are_the_user_parameters():
    run_parser = next(action for action in build_parser()._subparsers._group_actions
                      if action.dest == "command").choices["run"]
    names = set(parameter_names())
    options = {action.option_strings[0]: action.dest for action in run_parser._actions
               if action.dest in names}
    assert options == {entry["option"]: entry["name"] for entry in user_parameters()}


def test_rules_file_keys_are_the_user_parameters():
    for entry in user_parameters():
        rules = parse_rules(f"collsim-rules 1\nbcast pipeline "
                            f"{entry['name']}={_RULES_TEXT[entry['type']]}\n")
        assert getattr(rules[0].params, entry["name"]) == _valid(entry)
    with pytest.raises(ValueError) as refused:
        parse_rules("collsim-rules 1\nbcast pipeline colour=blue\n")
    known = str(refused.value).split("(known: ")[1].rstrip(")").split(", ")
    assert known == ["np", "bytes"] + [entry["name"] for entry in user_parameters()]


def test_out_of_range_rules_values_are_refused():
    for line, message in (("bcast chain chain_fanout=33", "malformed chain fan-out '33' (1..32)"),
                          ("bcast chain chain_fanout=0", "malformed chain fan-out '0' (1..32)"),
                          ("bcast pipeline block_count=3000000000",
                           "malformed block count '3000000000' (0..2147483647)"),
                          ("bcast pipeline segment_bytes=8 block_count=2", "not both")):
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            parse_rules(f"collsim-rules 1\n{line}\n")


SCENARIO = """\
[study]
name = "keys"
np = [4]

[[machine]]
name = "xbar"
platform = {{ generator = "crossbar", nodes = 4 }}

[[workload]]
collective = "bcast"
sizes = ["64"]
algorithms = ["chain"]
params = {{ {params} }}
"""

SUITE = """\
[suite]
name = "keys"

[[case]]
name = "xbar"
platform = {{ generator = "crossbar", nodes = 4 }}
collective = "bcast"
algorithms = ["chain"]
np = [4]
bytes = ["64"]
checks = ["model"]
params = {{ {params} }}
"""


def _toml_value(value) -> str:
    return json.dumps(value) if not isinstance(value, bool) else str(value).lower()


def _taker(entry: dict) -> tuple[str, str, object]:
    """A registry entry that reads the parameter, and a value it takes."""
    for algorithm in harness.registry():
        if entry["group"] is None or entry["group"] in algorithm["parameters"]:
            value = (algorithm["defaults"][entry["name"]] if entry["type"] == "name"
                     else _valid(entry))
            return algorithm["collective"], algorithm["algorithm"], value
    raise AssertionError(f"no algorithm reads {entry['name']}")


def test_scenario_and_suite_keys_are_the_table(tmp_path):
    for entry in parameter_table():
        collective, algorithm, value = _taker(entry)
        text = f"{entry['name']} = {_toml_value(value)}"
        chosen = (f'collective = "{collective}"', f'algorithms = ["{algorithm}"]')
        scenario = tmp_path / "s.toml"
        scenario.write_text(SCENARIO.format(params=text).replace(
            'collective = "bcast"', chosen[0]).replace('algorithms = ["chain"]', chosen[1]))
        spec = load_scenario(scenario).simulations[0].spec
        assert getattr(spec.params, entry["name"]) == value, entry["name"]
        suite = tmp_path / "suite.toml"
        suite.write_text(SUITE.format(params=text).replace(
            'collective = "bcast"', chosen[0]).replace('algorithms = ["chain"]', chosen[1]))
        assert getattr(load_suite(suite).cases[0].spec.params, entry["name"]) == value
    suite.write_text(SUITE.format(params="colour = 1"))
    with pytest.raises(CollsimError, match="unknown key 'colour'") as refused:
        load_suite(suite)
    assert f"expected one of: {', '.join(parameter_names())}" in str(refused.value)


def test_api_keywords_are_the_table():
    with pytest.raises(CollsimError, match="unknown option 'colour'") as refused:
        api.run("bcast", "chain", 4, 64, colour=1)
    known = set(str(refused.value).split("(known: ")[1].rstrip(")").split(", "))
    assert set(parameter_names()) <= known and "selected" not in known


def test_out_of_range_python_values_are_refused():
    with pytest.raises(ValueError, match=r"chain_fanout must be an integer in 1\.\.32"):
        AlgorithmParams(chain_fanout=33)
    with pytest.raises(ValueError, match="give segment_bytes or block_count, not both"):
        AlgorithmParams(segment_bytes=8, block_count=2)
    with pytest.raises(ValueError, match="unknown parameter 'colour'"):
        AlgorithmParams.from_values({"colour": 1})


@pytest.mark.parametrize("args, message", [
    (["--coll", "bcast", "--alg", "pipeline", "--bytes", "64", "--segment-bytes", "12"],
     "segment size 12 bytes is not a whole number of double elements"),
    (["--coll", "bcast", "--alg", "pipeline", "--bytes", "64", "--segment-bytes", "4"],
     "segment size 4 bytes is not a whole number of double elements"),
    (["--coll", "bcast", "--alg", "chain", "--bytes", "64", "--chain-fanout", "33"],
     "malformed chain fan-out '33' (1..32)"),
])
def test_collbench_refuses_what_it_used_to_round(args, message):
    """A segment that is not a whole number of elements was rounded down (at
    least one element); now collbench refuses it in one line."""
    with pytest.raises(CollsimError, match=message.replace("(", r"\(").replace(")", r"\)")):
        simulate(crossbar(nodes=2), ["node-0", "node-1"], load_profile("hockney"), args,
                 what="collbench")


# -- a new parameter: one line in params.def (plus its field and use in C) -------------

_DUMMY_LINE = ('COLLSIM_PARAMETER(dummy_knob, "dummy-knob", INT, "", "dummy knob", 1, 7, '
               'CHAIN_FANOUT, "chain algorithms: a knob of the test")\n')


def _scratch_collbench(root: Path) -> Path:
    """collbench built with smpicc from a copy of the sources, with a dummy
    parameter added to params.def, read by bcast/chain."""
    for part in ("algorithms", "sim/collbench", "sim/interpose"):
        shutil.copytree(REPO / part, root / part)
    shutil.copy2(REPO / "CMakeLists.txt", root / "CMakeLists.txt")
    with open(root / "algorithms/params.def", "a") as table:
        table.write(_DUMMY_LINE)
    header = root / "algorithms/collsim.h"
    header.write_text(header.read_text().replace(
        "    int chain_fanout;\n", "    int chain_fanout;\n    int dummy_knob; /* the test's */\n", 1))
    chain = root / "algorithms/bcast/bcast_chain.c"
    chain.write_text(chain.read_text().replace(
        "    collsim_tree_node node;\n",
        "    collsim_tree_node node;\n    if (params->dummy_knob > 7)\n"
        "        return MPI_ERR_ARG;\n", 1))
    smpicc = simgrid_tool("smpicc")  # the SimGrid of the build (make SIMGRID=...)
    env = {k: v for k, v in os.environ.items() if k != "SMPI_PRETEND_CC"}
    subprocess.run(["cmake", "-S", str(root), "-B", str(root / "build"),
                    f"-DCMAKE_C_COMPILER={smpicc}"], check=True, capture_output=True, env=env)
    subprocess.run(["cmake", "--build", str(root / "build"), "-j", "2", "--target", "collbench"],
                   check=True, capture_output=True, env=env)
    return root / "build" / "collbench"


@pytest.fixture
def dummy_collbench(tmp_path, monkeypatch):
    started = time.monotonic()
    collbench = _scratch_collbench(tmp_path / "src")
    print(f"scratch build: {time.monotonic() - started:.1f} s")
    monkeypatch.setenv("COLLSIM_COLLBENCH", str(collbench))
    harness.registry.cache_clear()
    params_module._with_table_fields.cache_clear()
    yield collbench
    harness.registry.cache_clear()
    params_module._with_table_fields.cache_clear()


@pytest.mark.skipif(simgrid_tool("smpicc") is None or shutil.which("cmake") is None,
                    reason="needs smpicc and cmake")
def test_a_new_parameter_line_is_accepted_everywhere(dummy_collbench, tmp_path):
    entry = next(e for e in parameter_table() if e["name"] == "dummy_knob")
    assert (entry["option"], entry["group"], entry["min"], entry["max"]) == \
        ("--dummy-knob", "chain_fanout", 1, 7)
    # the command line: an option, a range, the value in the row collbench prints
    env = {**os.environ, "COLLSIM_COLLBENCH": str(dummy_collbench)}
    base = [sys.executable, "-m", "collsim", "run", "--np", "4", "--coll", "bcast", "--alg",
            "chain", "--bytes", "64", "--json"]
    done = subprocess.run(base + ["--dummy-knob", "3"], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["params"]["dummy_knob"] == 3
    refused = subprocess.run(base + ["--dummy-knob", "9"], capture_output=True, text=True, env=env)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "dummy knob must be a whole number 1..7" in refused.stderr
    # an algorithm outside its group refuses it, as any other parameter
    other = subprocess.run(base[:-4] + ["binomial", "--bytes", "64", "--dummy-knob", "3"],
                           capture_output=True, text=True, env=env)
    assert other.returncode == 2 and "bcast/binomial takes no chain fan-out" in other.stderr
    # a scenario and a suite
    scenario = tmp_path / "s.toml"
    scenario.write_text(SCENARIO.format(params="dummy_knob = 3"))
    assert load_scenario(scenario).simulations[0].spec.params.dummy_knob == 3
    suite = tmp_path / "suite.toml"
    suite.write_text(SUITE.format(params="dummy_knob = 3"))
    assert load_suite(suite).cases[0].spec.params.dummy_knob == 3
    # a rules file, written and read back
    rules = parse_rules("collsim-rules 1\nbcast chain dummy_knob=3\n")
    assert rules[0].params.dummy_knob == 3 and rules[0].to_line() == "bcast chain dummy_knob=3"
    # the API, through collbench
    rows = api.run("bcast", "chain", 4, 64, dummy_knob=3)
    assert rows["params"].iloc[0]["dummy_knob"] == 3
