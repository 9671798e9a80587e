"""Patterns too large to hold refuse (collsim.analysis.network.pattern.check_size): an
alltoall's p^2 messages above 4096 ranks, with one line naming the largest size, exit 2."""

import pytest

from collsim.analysis.network.pattern import MAX_MESSAGES, PatternTooLarge
from collsim.analysis.network.patterns import exchanges, scans
from collsim.cli import main

BUILDERS = [exchanges.alltoall_linear, exchanges.alltoall_pairwise,
            exchanges.alltoall_pairwise_xor, exchanges.alltoall_scattered,
            scans.reduce_scatter_pairwise]


@pytest.mark.parametrize("build", BUILDERS, ids=lambda b: b.__name__)
def test_p_squared_patterns_refuse_above_the_limit_and_build_at_it(build):
    assert 4096 * 4095 <= MAX_MESSAGES < 4097 * 4096
    with pytest.raises(PatternTooLarge, match=r"on 4097 ranks .*largest it answers: 4096 ranks"):
        build(4097, 1, elem_bytes=8)
    assert build(64, 1, elem_bytes=8).messages == 64 * 63


def test_predict_refuses_in_one_line_with_exit_status_2(capsys):
    # 32,768 hosts: arithmetic routes, no graph built
    code = main(["predict", "--platform", "fat-tree", "--levels", "2", "--down-ports", "128,256",
                 "--up-ports", "1,128", "--np", "32768", "--coll", "alltoall", "--alg",
                 "pairwise", "--bytes", "8"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2
    assert len(err) == 1 and "largest it answers: 4096 ranks" in err[0], err
