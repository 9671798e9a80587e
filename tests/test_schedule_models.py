"""The models of the pipelined tree algorithms time the exact message schedule of
the C code (collsim.analysis.schedule); here they are held against the seeds'
closed forms where those are exact: seed 004 (3), (4), (5) and the per-block
costs of seed 003 (4 one-way steps for reduce + bcast, 3 bidirectional steps
for the dual-root algorithm, plus 2 and 3 reductions per block)."""

import pytest

from collsim.analysis.models import AlgorithmParams, NetworkParams, predict
from collsim.analysis.schedule import Step, finish_times, recv, send

NETS = [NetworkParams(alpha_s=2e-6, beta_s_per_byte=8e-11, gamma_s_per_byte=0.0),
        NetworkParams(alpha_s=2e-6, beta_s_per_byte=8e-11, gamma_s_per_byte=1e-10)]
N_BYTES = 1 << 20


def block_s(net, n_bytes):
    return net.alpha_s + (n_bytes + net.envelope_bytes) * net.beta_s_per_byte


@pytest.mark.parametrize("net", NETS)
@pytest.mark.parametrize("p", [2, 3, 8, 13, 64])
@pytest.mark.parametrize("blocks", [1, 4, 16, 64])
def test_pipeline_is_seed_004_formula_4(net, p, blocks):
    params = AlgorithmParams(block_count=blocks)
    n = N_BYTES // blocks
    reduce_s = predict("reduce", "pipeline", p, N_BYTES, net, params=params).time_s
    bcast_s = predict("bcast", "pipeline", p, N_BYTES, net, params=params).time_s
    steps = p + blocks - 2
    assert reduce_s == pytest.approx(steps * (block_s(net, n) + n * net.gamma_s_per_byte), rel=1e-12)
    assert bcast_s == pytest.approx(steps * block_s(net, n), rel=1e-12)


@pytest.mark.parametrize("net", NETS)
@pytest.mark.parametrize("p", [2, 3, 8, 13, 64])
def test_chain_is_seed_004_formula_3(net, p):
    reduce_s = predict("reduce", "chain", p, N_BYTES, net).time_s
    bcast_s = predict("bcast", "chain", p, N_BYTES, net).time_s
    assert reduce_s == pytest.approx(
        (p - 1) * (block_s(net, N_BYTES) + N_BYTES * net.gamma_s_per_byte), rel=1e-12)
    assert bcast_s == pytest.approx((p - 1) * block_s(net, N_BYTES), rel=1e-12)


@pytest.mark.parametrize("net", NETS)
@pytest.mark.parametrize("height", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("blocks", [1, 4, 16])
def test_binary_reduce_on_a_full_tree_is_seed_004_formula_5(net, height, blocks):
    p = 2 ** (height + 1) - 1
    n = N_BYTES // blocks
    params = AlgorithmParams(block_count=blocks)
    expected = 2 * (height + blocks - 1) * (block_s(net, n) + n * net.gamma_s_per_byte)
    for algorithm in ("binary", "in_order_binary"):
        root = p // 2 if algorithm == "in_order_binary" else 0
        got = predict("reduce", algorithm, p, N_BYTES, net, root=root, params=params).time_s
        assert got == pytest.approx(expected, rel=1e-12), algorithm


@pytest.mark.parametrize("net", NETS)
@pytest.mark.parametrize("p", [8, 13, 64])
def test_per_block_cost_is_four_steps_for_reduce_bcast_and_three_for_dual_root(net, p):
    """Seed 003 sec. 1.2: one more block of S bytes costs 4 (alpha + S beta) + 2 S gamma
    on the single tree and 3 (alpha + S beta) + 3 S gamma on the dual-root trees
    (the roots' extra reduction)."""
    segment = 1 << 16
    params = AlgorithmParams(segment_bytes=segment)
    m, c = block_s(net, segment), segment * net.gamma_s_per_byte

    def extra(algorithm):
        t = [predict("allreduce", algorithm, p, k * segment, net, params=params).time_s
             for k in (40, 41)]
        return t[1] - t[0]

    assert extra("pipelined_tree") == pytest.approx(4 * m + 2 * c, rel=1e-9)
    assert extra("dual_root_pipelined") == pytest.approx(3 * m + 3 * c, rel=1e-9)


def test_schedule_evaluator_times_overlap_and_waits():
    net = NetworkParams(alpha_s=1.0, beta_s_per_byte=0.5, envelope_bytes=0, gamma_s_per_byte=0.25)
    programs = [
        [Step((send(1, 2),))],                                   # 0 -> 1
        [Step((recv(0, 2), send(2, 4)), compute_bytes=4)],       # both at once, then reduce
        [Step((), compute_bytes=8), Step((recv(1, 4),))],        # busy first: the send waits
    ]
    # rank 2 posts its receive at 2.0; 1 -> 2 takes 3 s: ends 5.0, then rank 1 reduces 1 s
    assert finish_times(programs, net) == [2.0, 6.0, 5.0]


def test_schedule_evaluator_finds_deadlocks_and_mismatches():
    net = NetworkParams(alpha_s=1.0, beta_s_per_byte=0.0)
    with pytest.raises(ValueError, match="deadlock"):
        finish_times([[Step((recv(1, 8),)), Step((send(1, 8),))],
                      [Step((recv(0, 8),)), Step((send(0, 8),))]], net)
    with pytest.raises(ValueError, match="received as"):
        finish_times([[Step((send(1, 8),))], [Step((recv(0, 4),))]], net)
    with pytest.raises(ValueError, match="receives"):
        finish_times([[Step((send(1, 8),))], []], net)


def test_one_way_messages_take_the_unidirectional_factors():
    """Seed 001's f_alpha, f_beta: the single tree moves every block one way, the
    dual-root trees exchange blocks both ways, so halving the one-way costs halves
    the single tree's per-block cost and leaves the dual root's steady state alone."""
    full = NetworkParams(alpha_s=2e-6, beta_s_per_byte=8e-11)
    half = NetworkParams(alpha_s=2e-6, beta_s_per_byte=8e-11, f_alpha=0.5, f_beta=0.5)
    segment = 1 << 16
    params = AlgorithmParams(segment_bytes=segment)

    def extra(algorithm, net):
        t = [predict("allreduce", algorithm, 13, k * segment, net, params=params).time_s
             for k in (40, 41)]
        return t[1] - t[0]

    assert extra("pipelined_tree", half) == pytest.approx(extra("pipelined_tree", full) / 2)
    assert extra("dual_root_pipelined", half) == pytest.approx(extra("dual_root_pipelined", full))
    assert predict("reduce", "chain", 5, 1024, half).time_s == pytest.approx(
        predict("reduce", "chain", 5, 1024, full).time_s / 2)


def test_dual_root_sends_the_seeds_empty_blocks():
    # p = 14: two post-order trees of 7; rank 0 is a leaf at depth 2 (0 -> 2 -> 6).
    # With one block of n bytes it shares rounds 0 .. B + d - 1 = 0 .. 2 with its
    # parent (seed 003 sec. 1.3): partial block 0 up in round 0, nothing either
    # way in round 1 (still exchanged: an empty message each way), result down in
    # round 2.
    from collsim.analysis.models._pipelined import dual_root_program
    from collsim.analysis.trees import tree

    nodes = tree("dual_postorder", size=14)
    assert (nodes[0].depth, nodes[0].parent, nodes[2].parent) == (2, 2, 6)
    n = 4096
    program = dual_root_program(0, 14, nodes[0], [n])
    assert [step.ops for step in program] == [(send(2, n), recv(2, 0)),
                                              (send(2, 0), recv(2, 0)),
                                              (send(2, 0), recv(2, n))]
