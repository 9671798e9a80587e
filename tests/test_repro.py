"""`collsim repro`: the reproducible algorithms give one result across placements and
decompositions; finished configurations survive a failure; the output is deterministic."""

import json

import pytest

import collsim.grid
from collsim.errors import CollsimError
from collsim.cli import main
from collsim.repro import summation_depth


def test_reproducible_algorithms_give_one_result_everywhere(tmp_path, capsys):
    prefix = tmp_path / "repro"
    status = main(["repro", "--coll", "allreduce",
                   "--alg", "recursive_doubling,fixed_order,prerounded",
                   "--platforms", "crossbar,dual-rail", "--nodes", "4", "--cores-per-node", "2",
                   "--mappings", "block,cyclic", "--exposures", "1,2,4", "--np", "8",
                   "--bytes", "8,4KiB", "--dist", "lognormal", "--jobs", "2", "-o", str(prefix)])
    out = capsys.readouterr().out
    assert status == 0
    document = json.loads((tmp_path / "repro.json").read_text())
    by_algorithm = {}
    for entry in document["matrix"]:
        by_algorithm.setdefault(entry["algorithm"], []).append(entry)
        assert entry["worst_error_vs_bound"] <= 1.0
        if entry["worst_error_vs_depth_bound"] is not None:
            assert entry["worst_error_vs_depth_bound"] <= 1.0
    for algorithm in ("fixed_order", "prerounded"):
        assert all(e["distinct_results"] == 1 for e in by_algorithm[algorithm])
    # fixed_order looks at nodes: every platform x mapping x exposure is a configuration
    assert {e["configurations"] for e in by_algorithm["fixed_order"]} == {2 * 2 * 3}
    # pre-rounding makes the sum exact before the last rounding
    assert all(e["worst_ulp_error"] == 0 for e in by_algorithm["prerounded"])
    # and collbench held it to its own bound (the others have none of that kind)
    assert all(e["worst_error_vs_prerounded_bound"] == 0 for e in by_algorithm["prerounded"])
    assert all(e["worst_error_vs_prerounded_bound"] is None
               for e in by_algorithm["fixed_order"] + by_algorithm["recursive_doubling"])
    # the price: each reproducible algorithm against the fastest other one, per size
    assert [p["fastest_non_reproducible"] for p in document["price"]] == ["recursive_doubling"] * 2
    assert all(set(p["over_fastest_non_reproducible"]) == {"fixed_order", "prerounded"}
               for p in document["price"])
    assert (tmp_path / "repro.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "simulated time per configuration:" in out


def test_node_aware_reduce_depends_on_the_exposure_and_the_mapping(tmp_path):
    """Issue 6's criterion in small: MPICH's SMP reduce adds the root's node after the
    other nodes, so x1, x2, x4 and block vs cyclic on real nodes give different bits;
    the rank-ordered and the reproducible reduces give one result."""
    prefix = tmp_path / "exposures"
    status = main(["repro", "--coll", "reduce",
                   "--alg", "node_aware,binomial,fixed_order,prerounded",
                   "--platforms", "crossbar", "--nodes", "4", "--cores-per-node", "4",
                   "--mappings", "block,cyclic", "--exposures", "0,1,2,4", "--np", "16",
                   "--bytes", "8KiB", "--dist", "lognormal", "--jobs", "2", "-o", str(prefix)])
    assert status == 0
    entries = {e["algorithm"]: e for e in
               json.loads((tmp_path / "exposures.json").read_text())["matrix"]}
    groups = [set(g) for g in entries["node_aware"]["agreeing"]]
    # each exposure its own result; the real node of 4 under block is x4, under cyclic
    # (ranks i, i+4, i+8, i+12 on a host) another one
    assert len(groups) == 4
    assert {"crossbar/block/node/np=16", "crossbar/block/x4/np=16",
            "crossbar/cyclic/x4/np=16"} in groups
    assert {"crossbar/cyclic/node/np=16"} in groups
    for name in ("binomial", "fixed_order", "prerounded"):
        assert entries[name]["distinct_results"] == 1, entries[name]["agreeing"]
    assert entries["node_aware"]["depth"] == 2 * 2 + 2


def test_reproducible_algorithms_give_one_result_for_every_decomposition(tmp_path):
    # the inputs of 12 ranks on 12, 6, 4, 3, 2 and 1 processes (1 .. 12 inputs each)
    prefix = tmp_path / "split"
    status = main(["repro", "--coll", "reduce", "--alg", "fixed_order,prerounded,binomial",
                   "--platforms", "crossbar", "--nodes", "6", "--cores-per-node", "2",
                   "--np", "1,2,3,4,6,12", "--inputs", "12", "--bytes", "8,2KiB",
                   "--dist", "lognormal", "--jobs", "2", "-o", str(prefix)])
    assert status == 0
    entries = json.loads((tmp_path / "split.json").read_text())["matrix"]
    assert {e["inputs"] for e in entries} == {12}
    for entry in entries:
        assert entry["configurations"] == 6
        assert entry["worst_error_vs_bound"] <= 1.0
        if entry["algorithm"] in ("fixed_order", "prerounded"):
            assert entry["distinct_results"] == 1, entry["agreeing"]
    # binomial gets each rank's inputs summed in rank order first: another tree per split
    binomial = [e for e in entries if e["algorithm"] == "binomial" and e["bytes"] == 2048]
    assert binomial[0]["distinct_results"] > 1


def test_summation_depths():
    assert summation_depth("reduce", "fixed_order", 4, contributors=3,
                           reads_contributors=True) == 4
    assert summation_depth("reduce", "binomial", 4, contributors=3) == 2 + 2
    assert summation_depth("allreduce", "node_aware", 64, node_size=8) == 6
    # the reduce: a node's tree, the leaders', then the root's node's tree again
    assert summation_depth("reduce", "node_aware", 64, node_size=8) == 9
    assert summation_depth("reduce", "node_aware", 8, node_size=8) == 3
    assert summation_depth("reduce", "prerounded", 64) is None
    # in-order binary tree, (left + own) + right: on 7 ranks x_0 goes x_0 + x_1, + x_2,
    # + x_3, + (x_4..x_6)
    assert summation_depth("reduce", "in_order_binary", 7) == 4
    assert summation_depth("allreduce", "binary_tree", 2) == 1
    assert summation_depth("reduce", "in_order_binary", 1) == 0


def _count_simulations(monkeypatch, failing_np=None):
    calls = []
    simulate = collsim.grid.simulate

    def counting(job):
        calls.append(job.spec.np)
        if job.spec.np == failing_np:  # a failure only the simulation finds (a crash, a timeout)
            raise CollsimError(f"np={failing_np} crashed on purpose")
        return simulate(job)

    monkeypatch.setattr(collsim.grid, "simulate", counting)
    return calls


def test_repro_keeps_finished_configurations_and_reports_failures(tmp_path, capsys, monkeypatch):
    calls = _count_simulations(monkeypatch, failing_np=8)
    db = str(tmp_path / "repro.db")
    args = ["repro", "--coll", "allreduce", "--alg", "recursive_doubling,fixed_order",
            "--platforms", "crossbar", "--nodes", "8", "--bytes", "8", "--jobs", "1", "--db", db]
    # the two configurations on 8 ranks fail when simulated
    assert main([*args, "--np", "2,8"]) == 1
    captured = capsys.readouterr()
    assert captured.out.count("np=8 crashed on purpose") == 2
    assert "failed configurations (2):" in captured.out
    messages = [line for line in captured.err.splitlines() if not line.startswith("repro: ")]
    assert len(messages) == 1 and "2 configuration(s) failed" in messages[0]
    assert "crossbar/block/node/np=2" in captured.out  # the others are still reported
    assert sorted(calls) == [2, 2, 8, 8]
    # the rerun simulates only what is missing
    calls.clear()
    assert main([*args, "--np", "2,4"]) == 0
    assert sorted(calls) == [4, 4]
    out = capsys.readouterr().out
    assert "np=2" in out and "np=4" in out


def test_repro_output_is_deterministic(tmp_path, capsys):
    outputs = []
    for run in ("first", "second"):
        prefix = tmp_path / run / "study"
        prefix.parent.mkdir()
        assert main(["repro", "--coll", "reduce", "--alg", "binomial,fixed_order,prerounded",
                     "--platforms", "crossbar", "--nodes", "4", "--cores-per-node", "2",
                     "--mappings", "block,cyclic", "--exposures", "0,2", "--np", "4,8",
                     "--bytes", "8,1KiB", "--jobs", "2", "-o", str(prefix)]) == 0
        capsys.readouterr()
        outputs.append({suffix: (prefix.parent / f"study.{suffix}").read_bytes()
                        for suffix in ("txt", "json", "png")})
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("bad, word", [(["--np", "4,x"], "--np"),
                                       (["--np", "4", "--inputs", "6"], "--inputs"),
                                       (["--np", "4", "--alg", "binomial:depth=2"], "--alg")])
def test_repro_bad_input(capsys, bad, word):
    args = ["repro", "--coll", "reduce", "--alg", "binomial", "--platforms", "crossbar",
            "--jobs", "1", *bad]
    status = main(args)
    err = capsys.readouterr().err
    assert status == 2 and word in err and err.count("\n") == 1
