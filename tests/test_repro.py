"""`collsim repro`: the reproducible algorithms give one result across placements."""

import json

from collsim.cli import main


def test_reproducible_algorithms_give_one_result_everywhere(tmp_path, capsys):
    prefix = tmp_path / "repro"
    status = main(["repro", "--coll", "allreduce",
                   "--alg", "recursive_doubling,fixed_order,prerounded",
                   "--platforms", "crossbar,dual-rail", "--nodes", "4", "--cores-per-node", "2",
                   "--mappings", "block,cyclic", "--exposures", "1,2,4", "--np", "8",
                   "--bytes", "8,4KiB", "--dist", "lognormal", "--jobs", "2", "-o", str(prefix)])
    out = capsys.readouterr().out
    assert status == 0
    entries = json.loads((tmp_path / "repro.json").read_text())
    by_algorithm = {}
    for entry in entries:
        by_algorithm.setdefault(entry["algorithm"], []).append(entry)
        assert entry["worst_error_vs_bound"] <= 1.0
    for algorithm in ("fixed_order", "prerounded"):
        assert all(e["distinct_results"] == 1 for e in by_algorithm[algorithm])
    # fixed_order looks at nodes: every platform x mapping x exposure is a configuration
    assert {e["configurations"] for e in by_algorithm["fixed_order"]} == {2 * 2 * 3}
    # pre-rounding makes the sum exact before the last rounding
    assert all(e["worst_ulp_error"] == 0 for e in by_algorithm["prerounded"])
    assert (tmp_path / "repro.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "simulated time per configuration:" in out


def test_repro_output_is_deterministic(tmp_path, capsys):
    args = ["repro", "--coll", "reduce", "--alg", "binomial,fixed_order", "--platforms",
            "crossbar", "--nodes", "4", "--cores-per-node", "2", "--mappings", "block,cyclic",
            "--exposures", "2", "--np", "8", "--bytes", "1KiB", "--jobs", "1"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    assert capsys.readouterr().out == first


def test_repro_bad_input(capsys):
    status = main(["repro", "--coll", "reduce", "--alg", "binomial", "--platforms", "crossbar",
                   "--np", "4,x", "--jobs", "1"])
    err = capsys.readouterr().err
    assert status == 2 and "--np" in err and err.count("\n") == 1
