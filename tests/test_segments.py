"""Block plans (collsim.analysis.segments, the mirror of algorithms/common/segment.c;
the C side is held to it by the exact model agreement of the pipelined
algorithms with --blocks, --segment-bytes and the default plan)."""

import math

import pytest

from collsim.analysis.segments import (
    NOMINAL_ALPHA_OVER_BETA_BYTES,
    block_elems,
    optimal_blocks,
)


@pytest.mark.parametrize("count", [1, 2, 7, 1000, 65537])
@pytest.mark.parametrize("blocks", [1, 2, 3, 8, 1000, 100000])
def test_block_count_plans_are_even_whole_elements(count, blocks):
    plan = block_elems(count=count, elem_bytes=8, block_count=blocks)
    assert sum(plan) == count
    assert len(plan) == min(blocks, count)
    assert max(plan) - min(plan) <= 1 and plan == sorted(plan, reverse=True)


@pytest.mark.parametrize("count", [1, 2, 7, 1000, 65537])
@pytest.mark.parametrize("segment_bytes", [1, 8, 12, 4096, 1 << 20])
def test_segment_size_plans_cut_whole_elements(count, segment_bytes):
    plan = block_elems(count=count, elem_bytes=8, segment_bytes=segment_bytes)
    per_block = min(max(1, segment_bytes // 8), count)
    assert sum(plan) == count
    assert all(n == per_block for n in plan[:-1]) and 0 < plan[-1] <= per_block
    assert len(plan) == math.ceil(count / per_block)


def test_block_count_wins_over_segment_size_and_empty_vectors_have_no_blocks():
    assert block_elems(count=100, elem_bytes=4, block_count=4, segment_bytes=8) == [25] * 4
    assert block_elems(count=0, elem_bytes=8, block_count=4) == []
    assert optimal_blocks(count=0, elem_bytes=8, fill_steps=10, steady_steps=1) == 0


@pytest.mark.parametrize("fill, steady", [(63, 1), (10, 2), (20, 4), (31, 3), (2, 2)])
@pytest.mark.parametrize("n_bytes", [8, 16384, 1 << 20, 1 << 24])
def test_default_count_is_the_best_integer_of_the_pipelining_lemma(fill, steady, n_bytes):
    """T(K) = (fill + steady (K - 1)) (alpha + beta n / K) is smallest at the
    chosen K among the integers in [1, count]."""
    count = n_bytes // 8
    chosen = optimal_blocks(count=count, elem_bytes=8, fill_steps=fill, steady_steps=steady)
    beta, alpha = 1.0, NOMINAL_ALPHA_OVER_BETA_BYTES

    def time(k):
        return (fill + steady * (k - 1)) * (alpha + beta * n_bytes / k)

    candidates = range(1, min(count, 4 * chosen + 10) + 1)
    best = min(candidates, key=time)
    assert 1 <= chosen <= count
    assert time(chosen) == time(best)


def test_plan_uses_the_default_only_without_parameters():
    plan = block_elems(count=1 << 21, elem_bytes=8, fill_steps=63, steady_steps=1)
    assert len(plan) == 204 and sum(plan) == 1 << 21
