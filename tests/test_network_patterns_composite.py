"""Network patterns of the block-based and composite algorithms (patterns/blocks.py,
patterns/composite.py) and the helpers that compose patterns (pattern.py): on the
crossbar each equals its closed-form model where that model claims exactness and
lies in its bounds elsewhere; off the crossbar a few cells agree with SimGrid."""

import numpy as np
import pytest

import collsim
from collsim.analysis.models import _blocks, model_for
from collsim.analysis.network import PATTERNS, CrossbarFabric, Pattern, Step, pattern_time
from collsim.analysis.network import pattern as pattern_module
from collsim.analysis.network.pattern import in_sequence, on_ranks, side_by_side, then_combine
from collsim.analysis.network.patterns.blocks import halving_range
from collsim.params import DEFAULT_PARAMS, AlgorithmParams
from collsim.platforms import crossbar, map_ranks
from collsim.profiles import load_profile
from collsim.runner import model_parameters

HOCKNEY = load_profile("hockney")
COUNTS = (0, 1, 7, 1001, 4096)


def _crossbar(p):
    G = crossbar(nodes=p)
    names = map_ranks(G, p, "block")
    fabric = CrossbarFabric(G.graph["params"])
    net, _ = model_parameters(G, names, HOCKNEY)
    return fabric, fabric.host_index(names), net


def _assert_matches_model(collective, algorithm, ps, params=DEFAULT_PARAMS, counts=COUNTS,
                          roots=None, ops=(True, False), rank_nodes=None):
    """Every cell: the pattern's time is the model's where it is exact, within its
    bounds where it is not; returns how many cells were exact and how many bounds."""
    exact = bounded = 0
    for p in ps:
        fabric, hosts, net = _crossbar(p)
        for count in counts:
            for root in roots(p) if roots else ((0,) if collective == "allreduce"
                                                else sorted({0, p // 2, p - 1})):
                for commutative in ops:
                    try:
                        model = model_for(collective, algorithm)(
                            p, 8 * count, net, elem_bytes=8, root=root,
                            commutative=commutative, params=params)
                    except ValueError:  # the algorithm refuses the op or p: so does the pattern
                        with pytest.raises(ValueError):
                            PATTERNS[(collective, algorithm)](
                                p, count, elem_bytes=8, root=root, commutative=commutative,
                                params=params, rank_nodes=rank_nodes)
                        continue
                    pattern = PATTERNS[(collective, algorithm)](
                        p, count, elem_bytes=8, root=root, commutative=commutative,
                        params=params, rank_nodes=rank_nodes)
                    got = pattern_time(pattern, hosts, fabric, net)
                    cell = (collective, algorithm, p, count, root, commutative, params)
                    if model.exact:
                        assert got == pytest.approx(model.time_s, rel=1e-9, abs=1e-15), cell
                        exact += 1
                    else:
                        assert model.low_s * (1 - 1e-9) <= got <= model.high_s * (1 + 1e-9), cell
                        bounded += 1
    return exact, bounded


# -- composing patterns ------------------------------------------------------------


def test_on_ranks_renames_senders_receivers_and_reducers():
    sub = Pattern(3, (Step([0, 1], [1, 2], [8, 16], [1], [8], repeat=2),))
    step = on_ranks(sub, [4, 0, 2], 5).steps[0]
    assert (step.src.tolist(), step.dst.tolist(), step.reduce_ranks.tolist()) == ([4, 0], [0, 2], [0])
    assert step.n_bytes.tolist() == [8, 16] and step.repeat == 2
    with pytest.raises(ValueError, match="distinct"):
        on_ranks(sub, [1, 1, 2], 5)


def test_side_by_side_unrolls_repeats_unless_many_alike(monkeypatch):
    ring = lambda q, first: on_ranks(Pattern(q, (Step(np.arange(q), (np.arange(q) + 1) % q,
                                                      np.full(q, 8), repeat=q - 1),)),
                                     first + np.arange(q), 8)
    same = side_by_side(ring(4, 0), ring(4, 4))
    assert [(len(s.src), s.repeat) for s in same.steps] == [(8, 1)] * 3   # each group on its own
    monkeypatch.setattr(pattern_module, "SIDE_BY_SIDE_UNROLL_MESSAGES", 8)
    assert [(len(s.src), s.repeat) for s in side_by_side(ring(4, 0), ring(4, 4)).steps] == [(8, 3)]
    mixed = side_by_side(ring(3, 0), ring(5, 3))
    assert [(len(s.src), s.repeat) for s in mixed.steps] == [(8, 1), (8, 1), (5, 1), (5, 1)]
    assert mixed.messages == 3 * 2 + 5 * 4
    monkeypatch.undo()
    with pytest.raises(ValueError, match="disjoint"):
        side_by_side(ring(4, 0), ring(4, 2))


def test_groups_side_by_side_take_the_time_of_one_on_the_crossbar():
    fabric, hosts, net = _crossbar(8)
    one = PATTERNS[("allreduce", "ring")](4, 1000, elem_bytes=8)
    alone = pattern_time(in_sequence(on_ranks(one, [0, 1, 2, 3], 8)), hosts, fabric, net)
    both = side_by_side(on_ranks(one, [0, 1, 2, 3], 8), on_ranks(one, [4, 5, 6, 7], 8))
    twice = in_sequence(on_ranks(one, [0, 1, 2, 3], 8), on_ranks(one, [0, 1, 2, 3], 8))
    assert pattern_time(both, hosts, fabric, net) == pytest.approx(alone, rel=1e-12)
    assert pattern_time(twice, hosts, fabric, net) == pytest.approx(2 * alone, rel=1e-12)


def test_then_combine_charges_gamma_after_each_ranks_last_message():
    fabric, hosts, net = _crossbar(4)
    # a ring's shifts as one repeated step (as above RING_EVENT_MESSAGES): the work is
    # split off it
    rank = np.arange(4)
    ring = Pattern(4, (Step(rank, (rank + 1) % 4, np.full(4, 8000), rank, np.full(4, 8000),
                            repeat=3),) * 2)
    plain = pattern_time(ring, hosts, fabric, net)
    combined = pattern_time(then_combine(ring, [0, 1, 2, 3], 10**6), hosts, fabric, net)
    assert fabric.gamma_s_per_byte > 0
    assert combined == pytest.approx(plain + 10**6 * fabric.gamma_s_per_byte, rel=1e-12)
    with pytest.raises(ValueError, match="takes no part"):
        then_combine(Pattern(4, (Step([0], [1], [8]),)), [2], 8)


def test_compositions_run_together_what_their_parts_run_together(monkeypatch):
    ring = PATTERNS[("allreduce", "ring")](4, 1000, elem_bytes=8)
    pipeline = PATTERNS[("bcast", "binary")](4, 1000, elem_bytes=8)
    plain = PATTERNS[("allreduce", "recursive_doubling")](4, 1000, elem_bytes=8)
    assert ring.together and not plain.together and not plain.windowed
    left, right = on_ranks(ring, [0, 1, 2, 3], 8), on_ranks(plain, [4, 5, 6, 7], 8)
    for made in (left, in_sequence(left, on_ranks(plain, [0, 1, 2, 3], 8)),
                 side_by_side(left, right), then_combine(left, [0], 8)):
        assert made.together and made.windowed
    assert not side_by_side(on_ranks(plain, [0, 1, 2, 3], 8), right).windowed
    windowed = in_sequence(Pattern(4, pipeline.steps, windowed=True), plain)
    assert windowed.windowed and not windowed.together
    # above the bound the whole runs in windows, not together
    monkeypatch.setattr(pattern_module, "COMPOSED_TOGETHER_MESSAGES", ring.messages - 1)
    bigger = in_sequence(ring, plain)
    assert bigger.windowed and not bigger.together


def test_a_hierarchical_allreduce_of_rings_follows_simgrid():
    # the rings inside 8 groups of 32 random Graphene ranks, then across the 32 columns
    # of 8 (19,928 messages): their ranks drift apart over the shifts; the composite
    # timed step by step (the flags of its parts dropped) was 38.85 ms, 60 % under
    row = collsim.run("allreduce", "hierarchical", 256, [1 << 20], platform="seed004_graphene",
                      mapping="random", timing_only=True, group_count=8,
                      inner_algorithm="ring", outer_algorithm="ring").iloc[0]
    assert row["model_s"] == pytest.approx(row["time_s"], rel=0.02)


def test_vectorised_halving_ranges_are_the_models():
    for count in (0, 1, 5, 7, 1001):
        for s in range(5):
            j = np.arange(1 << s)
            lo, hi = halving_range(count, j, s)
            assert list(zip(lo.tolist(), hi.tolist())) == [_blocks.halving_range(count, int(v), s)
                                                          for v in j]


# -- block-based, on the crossbar ----------------------------------------------------


@pytest.mark.parametrize("collective,algorithm", [
    ("allreduce", "binary_blocks"), ("reduce", "binary_blocks"), ("reduce", "rabenseifner"),
    ("reduce", "ring")])
def test_block_patterns_are_their_closed_forms(collective, algorithm):
    exact, bounded = _assert_matches_model(collective, algorithm, [1, 2, 3, 5, 7, 8, 13, 24])
    assert bounded == 0 and exact >= 8 * len(COUNTS)


def test_block_patterns_with_every_root_on_few_ranks():
    for algorithm in ("binary_blocks", "rabenseifner", "ring"):
        _assert_matches_model("reduce", algorithm, [5, 6, 7], counts=(3, 1001),
                              roots=lambda p: range(p))


def test_scatter_recursive_doubling_bcast_is_its_closed_form():
    _assert_matches_model("bcast", "scatter_recursive_doubling_allgather", [1, 2, 8, 16],
                          roots=lambda p: range(min(p, 5)), ops=(True,))
    with pytest.raises(ValueError, match="power of two"):
        PATTERNS[("bcast", "scatter_recursive_doubling_allgather")](6, 10, elem_bytes=8)


# -- composites, on the crossbar -------------------------------------------------------


@pytest.mark.parametrize("params", [
    DEFAULT_PARAMS,
    AlgorithmParams(inner_algorithm="ring", outer_algorithm="rabenseifner"),
    AlgorithmParams(group_count=3, inner_algorithm="binary_blocks"),
    AlgorithmParams(group_count=2, outer_algorithm="ring")])
def test_hierarchical_allreduce_is_its_closed_form(params):
    ps = [1, 2, 3, 5, 7, 8, 13, 24] if params.group_count == 0 else [6, 12, 24]
    exact, bounded = _assert_matches_model("allreduce", "hierarchical", ps, params=params)
    assert bounded == 0 and exact > 0


@pytest.mark.parametrize("params", [
    AlgorithmParams(inner_algorithm="binomial"),
    AlgorithmParams(group_count=4, inner_algorithm="rabenseifner", outer_algorithm="binomial"),
    AlgorithmParams(group_count=3, inner_algorithm="ring", outer_algorithm="binary_blocks")])
def test_hierarchical_reduce_lies_in_its_bounds(params):
    # unequal groups: the model is the bound between the earliest and the latest
    # group finishing; equal groups with a root-independent inner level: exact
    exact, bounded = _assert_matches_model("reduce", "hierarchical", [1, 2, 3, 5, 7, 8, 13, 24],
                                           params=params)
    assert exact > 0 and bounded > 0


def test_a_composite_whose_part_has_no_pattern_names_it(monkeypatch):
    monkeypatch.delitem(PATTERNS, ("allreduce", "ring"))
    params = AlgorithmParams(group_count=2, inner_algorithm="ring")
    with pytest.raises(KeyError, match="allreduce/ring has no network pattern") as error:
        PATTERNS[("allreduce", "hierarchical")](8, 100, elem_bytes=8, params=params)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("params", [
    DEFAULT_PARAMS, AlgorithmParams(node_size=4), AlgorithmParams(node_size=3),
    AlgorithmParams(node_size=5, cached_comms=True), AlgorithmParams(cached_comms=True)])
def test_node_aware_is_its_closed_form_or_within_its_bounds(params):
    # real nodes with cached communicators: the leaders are in rank order and the
    # reduce across them is rooted at the root's node; the model roots it at 0
    # (see test_node_aware_cached_real_nodes_root_the_reduce_at_the_roots_node)
    roots = (lambda p: (0,)) if params.cached_comms and not params.node_size else None
    for collective in ("allreduce", "reduce"):
        exact, bounded = _assert_matches_model(collective, "node_aware",
                                               [1, 2, 3, 5, 7, 8, 13, 24], params=params,
                                               roots=roots)
        assert exact > 0


def test_node_aware_cached_real_nodes_root_the_reduce_at_the_roots_node():
    # 2 ranks, 1001 doubles, root 1: Rabenseifner's reduce to rank 1 of the leaders;
    # SimGrid 5.044000 us (the pattern), the closed form 5.044640 us (rooted at 0)
    fabric, hosts, net = _crossbar(2)
    params = AlgorithmParams(cached_comms=True)
    pattern = PATTERNS[("reduce", "node_aware")](2, 1001, elem_bytes=8, root=1, params=params)
    simulated = collsim.run("reduce", "node_aware", 2, [8008], root=1, cached_comms=True,
                            timing_only=True)["time_s"].iloc[0]
    assert pattern_time(pattern, hosts, fabric, net) == pytest.approx(simulated, rel=1e-9)


def test_node_aware_groups_by_rank_nodes():
    # the real nodes given as rank_nodes are the exposed nodes of the same ranks
    # (with the communicators cached, their making costs nothing either way)
    p = 13
    fabric, hosts, net = _crossbar(p)
    for collective in ("allreduce", "reduce"):
        for count in (1, 1001):
            real = PATTERNS[(collective, "node_aware")](
                p, count, elem_bytes=8, root=5 if collective == "reduce" else 0,
                params=AlgorithmParams(cached_comms=True), rank_nodes=np.arange(p) // 4)
            exposed = PATTERNS[(collective, "node_aware")](
                p, count, elem_bytes=8, root=5 if collective == "reduce" else 0,
                params=AlgorithmParams(node_size=4, cached_comms=True))
            assert pattern_time(real, hosts, fabric, net) == pytest.approx(
                pattern_time(exposed, hosts, fabric, net), rel=1e-12)


@pytest.mark.parametrize("params", [
    DEFAULT_PARAMS, AlgorithmParams(inner_algorithm="rabenseifner", outer_algorithm="ring"),
    AlgorithmParams(inner_algorithm="binary_blocks")])
def test_prerounded_is_its_closed_form_or_within_its_bounds(params):
    for collective in ("allreduce", "reduce"):
        if collective == "reduce" and params.inner_algorithm == "binary_blocks":
            params = AlgorithmParams(inner_algorithm="binary_blocks", outer_algorithm="ring")
        _assert_matches_model(collective, "prerounded", [1, 2, 3, 5, 8, 13, 24], params=params,
                              ops=(True,))


@pytest.mark.parametrize("node_size", [0, 3, 4, 5])
def test_fixed_order_is_its_closed_form(node_size):
    params = AlgorithmParams(node_size=node_size)
    for collective in ("allreduce", "reduce"):
        exact, bounded = _assert_matches_model(collective, "fixed_order",
                                               [1, 2, 3, 5, 7, 8, 13, 24], params=params)
        assert bounded == 0 and exact > 0


@pytest.mark.parametrize("collective,selected", [
    ("allreduce", "rabenseifner"), ("allreduce", "reduce:binomial+bcast:binomial"),
    ("reduce", "binary_blocks"), ("bcast", "scatter_allgather")])
def test_a_selectors_pattern_is_its_recorded_choices(collective, selected):
    for selector in ("openmpi_default", "mpich_default"):
        _assert_matches_model(collective, selector, [2, 5, 8, 13],
                              params=AlgorithmParams(selected=selected), counts=(1, 1001))


def test_a_selector_asks_collbench_without_a_recorded_choice():
    # MPICH's allreduce: recursive doubling up to 2 KiB, Rabenseifner above
    for count in (1, 4096):
        fabric, hosts, net = _crossbar(8)
        got = pattern_time(PATTERNS[("allreduce", "mpich_default")](8, count, elem_bytes=8),
                           hosts, fabric, net)
        choice = "recursive_doubling" if count == 1 else "rabenseifner"
        assert got == pytest.approx(model_for("allreduce", choice)(8, 8 * count, net).time_s,
                                    rel=1e-9)


# -- against SimGrid, off the crossbar ---------------------------------------------------


@pytest.mark.parametrize("platform,p,mapping,collective,algorithm,sizes,rel", [
    # measured with tests/benchmarks/model_accuracy.py: within 1e-10 of SimGrid
    ({"generator": "fat_tree", "levels": 2, "down_ports": [16, 16], "up_ports": [1, 4]},
     64, "random", "allreduce", "binary_blocks", [8, 1 << 16], 1e-6),
    # real nodes of 4 cores: the leaders' MPI_Comm_split, MPICH's choices inside
    ("seed004_graphene", 64, "random", "allreduce", "node_aware", [8, 1 << 16], 1e-6),
    # nodes of two socket hosts: fixed_order groups by node (an MPI_Comm_split, rank_sockets)
    ("seed003_hydra", 64, "random", "reduce", "fixed_order", [8, 1 << 16], 1e-6),
])
def test_composite_cells_match_simgrid(platform, p, mapping, collective, algorithm, sizes, rel):
    simulated = collsim.run(collective, algorithm, p, sizes, platform=platform, mapping=mapping,
                            timing_only=True)["time_s"].tolist()
    predicted = collsim.predict(collective, algorithm, p, sizes, platform=platform,
                                mapping=mapping)["model_s"].tolist()
    assert predicted == pytest.approx(simulated, rel=rel)


def test_groups_of_a_hierarchical_ring_go_on_without_waiting_for_each_other():
    # 8 groups of 8 random ranks on a 4:1 fat-tree, ring inside, Rabenseifner across:
    # SimGrid 168.066 us; with the groups' ring shifts as one repeated step the
    # engine held every group to the slowest, 175.832 us (+4.6 %); unrolled, 1e-10
    from collsim.predictions import predict_rows, request_from_table

    platform = {"generator": "fat_tree", "levels": 2, "down_ports": [16, 16], "up_ports": [1, 4]}
    options = dict(inner_algorithm="ring", outer_algorithm="rabenseifner")
    simulated = collsim.run("allreduce", "hierarchical", 64, [1 << 16], platform=platform,
                            mapping="random", timing_only=True, **options)["time_s"].iloc[0]
    predicted = predict_rows(request_from_table(platform), HOCKNEY,
                             algorithms=[("allreduce", "hierarchical")], np_ranks=64,
                             sizes=[1 << 16], mapping="random",
                             params=AlgorithmParams(**options))[0]["model_s"]
    assert predicted == pytest.approx(simulated, rel=1e-6)
