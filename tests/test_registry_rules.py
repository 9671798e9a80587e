"""One home per rule (issue 18): collbench decides restrictions, parameters and composite
defaults, publishes them (``collbench --list --json``, and per row under ``resolved``), and
the Python side reads them instead of deciding again.

- Every published requirement and parameter sentence is the one collbench itself gives.
- ``validate_spec`` rejects with the published sentence, whatever it says.
- collbench enforces its restrictions itself, bcast's included.
- A composite algorithm's row carries the levels and group count it resolved; the models'
  defaults are the published ones.
- collbench's options come from one table: its usage lists each, and a bad one is one line.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from collsim.analysis.models import AlgorithmParams, NetworkParams, predict
from collsim.errors import CollsimError
from collsim.platforms import crossbar
from collsim.harness import composite_defaults, find_algorithm, parameter_table, simulate
from collsim.runner import RunSpec, validate_spec


def _collbench(hockney, np, *args):
    G = crossbar(nodes=np)
    return simulate(G, [f"node-{i}" for i in range(np)], hockney, list(args), what="collbench")


def test_published_rules_match_the_flags(entries):
    for entry in entries:
        assert len(entry["requires"]) == len(entry["restrictions"]), entry
        assert all(sentence.startswith("requires ") for sentence in entry["requires"].values())
        assert not set(entry["takes_no"]) & set(entry["parameters"]), entry
        assert all(s.startswith("takes no ") for s in entry["takes_no"].values())
        composite = "inner_outer" in entry["parameters"]
        assert ("defaults" in entry) == composite, entry


def test_validate_spec_speaks_collbench_sentences(entries):
    entry = dict(find_algorithm("allreduce", "ring"))
    entry["requires"] = {"commutative_op": "requires what collbench says"}
    spec = RunSpec(collective="allreduce", algorithm="ring", np=4, sizes_bytes=(8,),
                   op="first_nonzero")
    with pytest.raises(CollsimError, match=r"^allreduce/ring requires what collbench says "
                                           r"\(first_nonzero is not\)$"):
        validate_spec(spec, entry, total_cores=4)
    # a requirement Python does not know is left to collbench, not refused
    entry["requires"] = {"something_new": "requires something new"}
    validate_spec(replace(spec, op="sum"), entry, total_cores=4)
    entry["takes_no"] = {"segments": "takes nothing of the kind"}
    with pytest.raises(CollsimError, match="allreduce/ring takes nothing of the kind"):
        validate_spec(replace(spec, op="sum", params=AlgorithmParams(segment_bytes=8)), entry,
                      total_cores=4)


def test_collbench_enforces_bcast_restrictions_itself(hockney):
    with pytest.raises(CollsimError, match="requires a power-of-two process count .np=3."):
        _collbench(hockney, 3, "--coll", "bcast", "--alg",
                   "scatter_recursive_doubling_allgather", "--bytes", "8")


@pytest.mark.parametrize("collective, algorithm, np", [
    ("allreduce", "hierarchical", 12), ("reduce", "hierarchical", 7),
    ("allreduce", "prerounded", 4), ("reduce", "prerounded", 4)])
def test_rows_carry_the_resolved_defaults(hockney, collective, algorithm, np):
    rows, _ = _collbench(hockney, np, "--coll", collective, "--alg", algorithm, "--bytes", "64")
    resolved = rows[0]["resolved"]
    defaults = composite_defaults(collective, algorithm)
    assert {k: resolved[k] for k in defaults} == defaults
    assert rows[0]["params"]["inner_algorithm"] is None  # what was given stays as given
    net = NetworkParams(alpha_s=2e-6, beta_s_per_byte=1e-10)
    given = AlgorithmParams(**resolved)
    assert (predict(collective, algorithm, np, 64, net, params=given)
            == predict(collective, algorithm, np, 64, net))


def test_hierarchical_resolves_one_given_level_for_both(hockney):
    rows, _ = _collbench(hockney, 4, "--coll", "reduce", "--alg", "hierarchical", "--bytes", "8",
                         "--outer", "binomial", "--groups", "2")
    assert rows[0]["resolved"] == {"group_count": 2, "inner_algorithm": "binomial",
                                   "outer_algorithm": "binomial"}


@pytest.mark.parametrize("args, message", [
    (["--bogus"], "unknown option '--bogus'"),
    (["--coll", "reduce", "--alg", "pipeline", "--bytes", "64", "--segment-bytes"],
     "option --segment-bytes needs a value"),
    (["--coll", "reduce", "--alg", "pipeline", "--bytes", "64", "--segment-bytes", "-8"],
     "malformed segment size '-8' (>= 0)"),
    (["--coll", "reduce", "--alg", "pipeline", "--bytes", "64", "--blocks", "3000000000"],
     "malformed block count '3000000000' (0..2147483647)"),
    (["--coll", "reduce", "--alg", "pipeline", "--bytes", "64", "--segment-bytes", "16",
      "--blocks", "2"], "takes a segment size or a block count, not both"),
    (["--coll", "reduce", "--alg", "hierarchical", "--bytes", "64", "--inner", "Linear"],
     "malformed algorithm name 'Linear' for --inner"),
    (["--coll", "reduce", "--alg", "linear", "--bytes", "8", "extra"], "unexpected argument"),
])
def test_collbench_options_refuse_in_one_line(hockney, args, message):
    with pytest.raises(CollsimError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _collbench(hockney, 2, *args)


def test_usage_lists_every_option(hockney, tmp_path):
    from collsim.harness import find_collbench, run_program, smpirun_command

    argv = smpirun_command(crossbar(nodes=1), ["node-0"], hockney, tmp_path,
                           [str(find_collbench()), "-h"])  # SimGrid takes --help itself
    status, out, _ = run_program(argv, cwd=tmp_path, what="collbench -h", timeout_s=60)
    assert status == 0
    for option in ("--segment-bytes B", "--blocks K", "--groups K", "--inner A", "--outer A",
                   "--node-size K", "--contributors N", "--timing-only", "--native-choice"):
        assert f"  {option}" in out, option
    for parameter in parameter_table():  # every line of algorithms/params.def, with its help
        assert f"  {parameter['option']}" in out and parameter["help"] in out, parameter["name"]
