"""Where the p^2 patterns stop being explicit.  Up to 4096 ranks (``pattern.MAX_MESSAGES``)
every p^2 entry is its explicit messages; above, the shift-structured ones are shift steps
(collsim.analysis.network.shifts, tests/test_network_shifts.py) and the linear and
scattered alltoalls shift batches (collsim.analysis.network.batches,
tests/test_network_batches.py); the linear alltoall refuses, in one line with exit status
2, where its sample in strata would not fit (above 335,544 ranks), and on a fat-tree
wherever its ranks do not fill whole blocks of the nodes (else timed by the fabric's
levels: the strata there take more than 13 minutes)."""

import pytest

from collsim.analysis.network.batches import ShiftBatches, check_sample
from collsim.analysis.network.pattern import MAX_MESSAGES, PatternTooLarge
from collsim.analysis.network.patterns import blocks, exchanges, scans
from collsim.analysis.network.shifts import ShiftSteps
from collsim.cli import main

BATCHES = [exchanges.alltoall_linear, exchanges.alltoall_scattered]
SHIFTS = [exchanges.alltoall_pairwise, exchanges.alltoall_pairwise_xor,
          scans.reduce_scatter_pairwise, blocks.reduce_ring]


@pytest.mark.parametrize("build", BATCHES, ids=lambda b: b.__name__)
def test_all_at_once_patterns_are_shift_batches_above_the_limit_and_explicit_below(build):
    assert 4096 * 4095 <= MAX_MESSAGES < 4097 * 4096
    pattern = build(4097, 1, elem_bytes=8)
    assert len(pattern.steps) == 1 and isinstance(pattern.steps[0], ShiftBatches)
    assert pattern.steps[0].messages == 4097 * 4096
    explicit = build(64, 1, elem_bytes=8)
    assert not any(isinstance(s, ShiftBatches) for s in explicit.steps)
    assert explicit.messages == 64 * 63


def test_linear_builds_at_any_size_and_its_strata_refuse_above_their_bound():
    assert isinstance(exchanges.alltoall_linear(335_545, 1, elem_bytes=8).steps[0], ShiftBatches)
    check_sample("alltoall/linear", 335_544)
    with pytest.raises(PatternTooLarge, match=r"on 335,545 ranks .*largest it answers: 335,544"):
        check_sample("alltoall/linear", 335_545)


@pytest.mark.parametrize("build", SHIFTS, ids=lambda b: b.__name__)
@pytest.mark.parametrize("p", [4097, 8192])
def test_shift_patterns_are_shift_steps_above_the_limit_and_explicit_at_it(build, p):
    pattern = build(p, 1, elem_bytes=8)
    assert isinstance(pattern.steps[0], ShiftSteps)
    assert pattern.steps[0].xor == (build is exchanges.alltoall_pairwise_xor and p == 8192)
    assert pattern.messages == p * (p - 1) + (p - 1 if build is blocks.reduce_ring else 0)
    assert not any(isinstance(s, ShiftSteps) for s in build(64, 1, elem_bytes=8).steps)


def test_predict_refuses_in_one_line_with_exit_status_2(capsys):
    # a crossbar has no levels: linear's strata, which would not fit (arithmetic routes,
    # no graph built)
    code = main(["predict", "--platform", "crossbar", "--nodes", "524287", "--np", "524287",
                 "--coll", "alltoall", "--alg", "linear", "--bytes", "8"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "largest it answers: 335,544 ranks" in err[0], err


@pytest.mark.parametrize("machine, p, answer", [
    (["fat-tree", "--levels", "3", "--down-ports", "64,64,256", "--up-ports", "1,64,64"], 5000,
     "4,096 or 8,192 ranks here"),
    (["fat-tree", "--levels", "2", "--down-ports", "512,1024", "--up-ports", "1,512"], 524287,
     "523,776 or 524,288 ranks here")])
def test_linear_refuses_strata_where_a_fat_trees_levels_do_not_fit(capsys, machine, p, answer):
    # ranks in partial blocks of a fat-tree's nodes: the strata there ran more than 13
    # minutes without an answer (5000 ranks of the million-rank fat-tree), so one line,
    # exit status 2, naming the sizes that answer
    code = main(["predict", "--platform", *machine, "--np", str(p), "--coll", "alltoall",
                 "--alg", "linear", "--bytes", "8"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and answer in err[0] and "more than 13 minutes" in err[0], err
