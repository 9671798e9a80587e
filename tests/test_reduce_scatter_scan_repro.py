"""`collsim repro` on reduce_scatter, scan and exscan: every algorithm of the three gives
the same bits on every mapping (its result depends on the ranks only), and each is within
Higham's bound for its own summation depth."""

import json

import pytest

from collsim.cli import main
from collsim.harness import registry
from collsim.native import is_selector
from collsim.repro import summation_depth


@pytest.mark.parametrize("collective", ["reduce_scatter", "scan", "exscan"])
def test_every_algorithm_gives_one_result_on_every_mapping(tmp_path, collective):
    # the selectors run one of these (tests/test_native.py)
    algorithms = [e["algorithm"] for e in registry()
                  if e["collective"] == collective and not is_selector(e["algorithm"])]
    prefix = tmp_path / collective
    status = main(["repro", "--coll", collective, "--alg", ",".join(algorithms),
                   "--platforms", "crossbar", "--nodes", "4", "--cores-per-node", "2",
                   "--mappings", "block,cyclic,random:3", "--np", "6,8",
                   "--bytes", "8,1KiB", "--dist", "lognormal", "--jobs", "1", "--db", "",
                   "-o", str(prefix)])
    assert status == 0
    entries = json.loads((tmp_path / f"{collective}.json").read_text())["matrix"]
    assert {e["algorithm"] for e in entries} == set(algorithms)
    for entry in entries:
        assert entry["configurations"] == 3
        assert entry["distinct_results"] == 1, entry["agreeing"]
        assert entry["worst_error_vs_bound"] <= 1.0
        assert entry["worst_error_vs_depth_bound"] <= 1.0, entry
    # the placements differ: the times of some algorithm do
    assert any(len(set(e["times_s"].values())) > 1 for e in entries)


def test_summation_depths_of_the_new_reductions():
    assert summation_depth("reduce_scatter", "pairwise", 13) == 12
    assert summation_depth("reduce_scatter", "ring", 13) == 12
    for name in ("recursive_halving", "butterfly", "recursive_doubling", "reduce_then_scatter"):
        assert summation_depth("reduce_scatter", name, 13) == 4
        assert summation_depth("reduce_scatter", name, 16) == 4
    assert summation_depth("scan", "recursive_doubling", 33) == 6
    assert summation_depth("exscan", "linear", 5) == 4


def test_repro_refuses_a_collective_without_an_op(capsys):
    status = main(["repro", "--coll", "allgather", "--alg", "ring", "--platforms", "crossbar",
                   "--np", "4", "--jobs", "1"])
    err = capsys.readouterr().err
    assert status == 2 and "--coll" in err and "reduce_scatter" in err
