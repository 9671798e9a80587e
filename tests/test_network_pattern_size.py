"""Patterns too large to hold refuse (collsim.analysis.network.pattern.check_size): the
linear and scattered alltoalls' p^2 messages above 4096 ranks, with one line naming the
largest size, exit 2.  The shift-structured p^2 entries answer above it with shift steps
(collsim.analysis.network.shifts, tests/test_network_shifts.py)."""

import pytest

from collsim.analysis.network.pattern import MAX_MESSAGES, PatternTooLarge
from collsim.analysis.network.patterns import blocks, exchanges, scans
from collsim.analysis.network.shifts import ShiftSteps
from collsim.cli import main

REFUSING = [exchanges.alltoall_linear, exchanges.alltoall_scattered]
SHIFTS = [exchanges.alltoall_pairwise, exchanges.alltoall_pairwise_xor,
          scans.reduce_scatter_pairwise, blocks.reduce_ring]


@pytest.mark.parametrize("build", REFUSING, ids=lambda b: b.__name__)
def test_p_squared_patterns_refuse_above_the_limit_and_build_at_it(build):
    assert 4096 * 4095 <= MAX_MESSAGES < 4097 * 4096
    with pytest.raises(PatternTooLarge, match=r"on 4097 ranks .*largest it answers: 4096 ranks"):
        build(4097, 1, elem_bytes=8)
    assert build(64, 1, elem_bytes=8).messages == 64 * 63


@pytest.mark.parametrize("build", SHIFTS, ids=lambda b: b.__name__)
@pytest.mark.parametrize("p", [4097, 8192])
def test_shift_patterns_are_shift_steps_above_the_limit_and_explicit_at_it(build, p):
    pattern = build(p, 1, elem_bytes=8)
    assert isinstance(pattern.steps[0], ShiftSteps)
    assert pattern.steps[0].xor == (build is exchanges.alltoall_pairwise_xor and p == 8192)
    assert pattern.messages == p * (p - 1) + (p - 1 if build is blocks.reduce_ring else 0)
    assert not any(isinstance(s, ShiftSteps) for s in build(64, 1, elem_bytes=8).steps)


def test_predict_refuses_in_one_line_with_exit_status_2(capsys):
    # 32,768 hosts: arithmetic routes, no graph built
    code = main(["predict", "--platform", "fat-tree", "--levels", "2", "--down-ports", "128,256",
                 "--up-ports", "1,128", "--np", "32768", "--coll", "alltoall", "--alg",
                 "linear", "--bytes", "8"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "largest it answers: 4096 ranks" in err[0], err
