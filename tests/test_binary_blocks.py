"""The binary blocks algorithms (seed 001 sec. 2.6): the block layout, the
nesting of the halving cuts that lets a smaller block join a larger one, and
the schedule replay held against the closed forms the docstrings state for one
and two blocks.  Correctness and agreement with the simulation come from the
registry-driven tests (test_correctness.py, test_model_agreement.py)."""

import pytest

from collsim.analysis.models import NetworkParams, predict
from collsim.analysis.models._blocks import halving_range, joiner, layout

NETS = [NetworkParams(alpha_s=2e-6, beta_s_per_byte=8e-11, gamma_s_per_byte=0.0),
        NetworkParams(alpha_s=2e-6, beta_s_per_byte=8e-11, gamma_s_per_byte=1e-10)]
N_BYTES = 1 << 20
ELEM_BYTES = 8


def msg_s(net, n_bytes):
    return net.alpha_s + (n_bytes + net.envelope_bytes) * net.beta_s_per_byte


@pytest.mark.parametrize("p", list(range(1, 70)))
def test_layout_is_the_binary_representation(p):
    blocks = layout(p)
    assert sum(b.size for b in blocks) == p
    assert [b.first for b in blocks] == [sum(b.size for b in blocks[:i]) for i in range(len(blocks))]
    assert all(a.lg > b.lg for a, b in zip(blocks, blocks[1:]))


@pytest.mark.parametrize("count", [0, 1, 2, 3, 17, 1000, 65537])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_a_smaller_blocks_range_is_the_union_of_the_larger_blocks_ranges(count, k):
    # Block b+1's local rank i holds, after m halvings, exactly what the 2^(k-m)
    # ranks of block b with the same low m bits hold after k halvings, taken together.
    for m in range(k):
        for i in range(1 << m):
            lo, hi = halving_range(count, i, m)
            pieces = sorted(halving_range(count, i + (t << m), k) for t in range(1 << (k - m)))
            assert pieces[0][0] == lo and pieces[-1][1] == hi
            assert all(a[1] == b[0] for a, b in zip(pieces, pieces[1:]))
            # the joiner holds the highest ranks of block b: all bits from m up set
            blocks = layout((1 << k) + (1 << m))
            assert joiner(blocks, 0, i) == i + (((1 << (k - m)) - 1) << m)


@pytest.mark.parametrize("net", NETS)
@pytest.mark.parametrize("k", [1, 3, 6])
def test_power_of_two_is_halving_and_doubling(net, k):
    p = 1 << k
    for coll in ("allreduce", "reduce"):
        blocks_s = predict(coll, "binary_blocks", p, N_BYTES, net).time_s
        assert blocks_s == pytest.approx(predict(coll, "rabenseifner", p, N_BYTES, net).time_s, rel=1e-12)


def halving_s(net, k, n_bytes):
    """Block 0's own reduce-scatter (with gamma) and allgather, no joins."""
    rs = sum(msg_s(net, n_bytes >> s) + (n_bytes >> s) * net.gamma_s_per_byte for s in range(1, k + 1))
    ag = sum(msg_s(net, n_bytes >> s) for s in range(1, k + 1))
    return rs, ag


@pytest.mark.parametrize("net", NETS)
@pytest.mark.parametrize("k,m", [(2, 1), (3, 2), (3, 1), (3, 0), (5, 3), (6, 1), (6, 0)])
def test_two_blocks_cost_one_join_each_way(net, k, m):
    p = (1 << k) + (1 << m)
    rs, ag = halving_s(net, k, N_BYTES)
    join = N_BYTES >> m
    allreduce_s = rs + ag + 2 * msg_s(net, join) + join * net.gamma_s_per_byte
    assert predict("allreduce", "binary_blocks", p, N_BYTES, net).time_s == pytest.approx(allreduce_s, rel=1e-12)
    # reduce: the gather is block 0's allgather made one-way to the root
    reduce_s = rs + ag + msg_s(net, join) + join * net.gamma_s_per_byte
    assert predict("reduce", "binary_blocks", p, N_BYTES, net, root=0).time_s == pytest.approx(reduce_s, rel=1e-12)
    # a root outside block 0 first receives rank 0's range
    outside_s = reduce_s + msg_s(net, N_BYTES >> k)
    assert predict("reduce", "binary_blocks", p, N_BYTES, net, root=p - 1).time_s == pytest.approx(
        outside_s, rel=1e-12)


@pytest.mark.parametrize("p", [12, 24, 48, 96])
def test_beats_folding_when_the_smaller_block_has_two_ranks_or_more(p):
    # Seed 001 sec. 2.6: the binary blocks remove the non-power-of-two overhead
    # of halving + doubling, by how much depends on the ratio of the blocks.
    net = NETS[1]
    for coll in ("allreduce", "reduce"):
        assert (predict(coll, "binary_blocks", p, N_BYTES, net).time_s
                < predict(coll, "rabenseifner", p, N_BYTES, net).time_s)


@pytest.mark.parametrize("p", [9, 17, 33])
def test_a_single_rank_block_costs_a_whole_vector_join(p):
    # p = 2^k + 1: the lone rank's whole vector joins at step 0 and comes back
    # whole, which costs more than folding it into a partner.
    net = NETS[1]
    assert (predict("allreduce", "binary_blocks", p, N_BYTES, net).time_s
            > predict("allreduce", "rabenseifner", p, N_BYTES, net).time_s)
