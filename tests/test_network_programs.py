"""The pipelined trees' steps made one at a time (collsim.analysis.network.programs,
patterns/pipetrees.py) against the whole arrays of patterns.trees, message for
message, and through the engine."""

import threading
import time
from dataclasses import replace

import numpy as np
import pytest

from collsim.analysis.models import _pipelined
from collsim.analysis.network import FatTreeFabric, Pattern, engine, pattern_time
from collsim.analysis.network.patterns import pipetrees, trees
from collsim.analysis.network.programs import RECV, SEND, ProgramSteps, templates
from collsim.analysis.trees import tree
from collsim.params import DEFAULT_PARAMS
from collsim.platforms import fat_tree, map_ranks
from collsim.profiles import load_profile
from collsim.runner import model_parameters

FIELDS = ("src", "dst", "n_bytes", "reduce_ranks", "reduce_bytes", "post_ahead", "synchronous",
          "nonblocking", "receive_first")
PLANS = [(1, DEFAULT_PARAMS), (1001, replace(DEFAULT_PARAMS, block_count=3)),
         (4096, replace(DEFAULT_PARAMS, segment_bytes=1024)), (1 << 17, DEFAULT_PARAMS)]


def _same_steps(whole: Pattern, made: Pattern):
    (steps,) = made.steps
    assert isinstance(steps, ProgramSteps) and (whole.p, whole.windowed) == (made.p, True)
    parts = list(steps.iter_parts())
    assert len(parts) == len(whole.steps)
    assert steps.messages == sum(len(step.src) for step in whole.steps)
    for x, y in zip(whole.steps, parts):
        for name in FIELDS:
            assert getattr(x, name).tolist() == getattr(y, name).tolist(), name
        assert x.repeat == y.repeat


def _cases(p):
    # (entry, the whole arrays' pattern of the same programs) per root and plan
    for count, params in PLANS:
        for root in sorted({0, 1 % p, p // 2, p - 1}):
            for collective, kind in (("bcast", "binary"), ("reduce", "binary"),
                                     ("reduce", "in_order_binary"), ("bcast", "chain"),
                                     ("reduce", "chain")):
                along = trees._reduce_along if collective == "reduce" else trees._bcast_along
                yield ((collective, "pipeline" if kind == "chain" else kind), count, root,
                       params, lambda: trees._pattern(p, along(
                           kind, p, count, elem_bytes=8, root=root, params=params,
                           segmented=True)))
        for segmented in (True, False):
            yield (("allreduce", "pipelined_tree" if segmented else "binary_tree"), count, 0,
                   params, lambda: trees._pattern(p, trees._allreduce_in_order_arrays(
                       p, count, elem_bytes=8, params=params, segmented=segmented)))
        yield (("allreduce", "dual_root_pipelined"), count, 0, params,
               lambda: trees.programs_pattern(_pipelined.dual_root_programs(
                   p, count, elem_bytes=8, params=params)))


@pytest.mark.parametrize("p", [2, 3, 13, 24, 100])
def test_the_steps_made_one_at_a_time_are_the_whole_arrays_steps(p, monkeypatch):
    # bcast, reduce, in-order reduce and allreduce along the engine, the dual root:
    # roots, block counts, segment sizes, one block (the order fixes the engine's sums)
    monkeypatch.setattr(pipetrees, "PROGRAM_STEP_MESSAGES", -1)
    for entry, count, root, params, whole in _cases(p):
        made = trees.PATTERNS[entry](p, count, elem_bytes=8, root=root, params=params)
        _same_steps(whole(), made)


@pytest.mark.parametrize("p", [*range(1, 40), 255, 256, 257, 1000])
def test_the_trees_columns_are_the_trees_nodes(p):
    for kind in ("binary", "in_order_binary", "dual_postorder"):
        for root in sorted({0, p // 3, p - 1}) if kind == "binary" else [0]:
            parent, kids, depth = pipetrees.tree_columns(kind, p, root)
            nodes = tree(kind, size=p, root=root)
            assert parent.tolist() == [node.parent for node in nodes]
            assert depth.tolist() == [node.depth for node in nodes]
            assert [[c for c in row if c >= 0] for row in kids.tolist()] == [
                list(node.children) for node in nodes]


def _random_256():
    """(rank hosts, fabric, profile's network) of 256 random ranks of a 4:1 fat-tree."""
    G = fat_tree(levels=2, down_ports=[16, 16], up_ports=[1, 4])
    names = map_ranks(G, 256, "random")
    fabric = FatTreeFabric(G.graph["params"])
    net, _ = model_parameters(G, names, load_profile("hockney"))
    return fabric.host_index(names), fabric, net


def test_the_engine_takes_them_window_by_window_as_the_whole_steps(monkeypatch):
    # over engine.TOGETHER_MESSAGES: windows of WINDOW_MESSAGES, the same answers to the bit
    hosts, fabric, net = _random_256()
    monkeypatch.setattr("collsim.analysis.network.engine.WINDOW_MESSAGES", 1 << 12)
    for entry in [("bcast", "binary"), ("allreduce", "dual_root_pipelined")]:
        build = trees.PATTERNS[entry]
        params = replace(DEFAULT_PARAMS, block_count=80)
        whole = build(256, 1 << 17, elem_bytes=8, root=3, params=params)
        monkeypatch.setattr(pipetrees, "PROGRAM_STEP_MESSAGES", -1)
        made = build(256, 1 << 17, elem_bytes=8, root=3, params=params)
        monkeypatch.setattr(pipetrees, "PROGRAM_STEP_MESSAGES", 1 << 20)
        assert made.messages == whole.messages > 1 << 14
        assert pattern_time(made, hosts, fabric, net) == pattern_time(whole, hosts, fabric, net)


def test_the_next_window_made_ahead_gives_the_answers_made_in_turn(monkeypatch):
    # a helper thread makes window k + 1 while the event loop runs window k: to the bit
    hosts, fabric, net = _random_256()
    monkeypatch.setattr(engine, "WINDOW_MESSAGES", 1 << 12)
    pattern = trees.PATTERNS[("allreduce", "dual_root_pipelined")](
        256, 1 << 17, elem_bytes=8, params=replace(DEFAULT_PARAMS, block_count=80))
    ahead = []
    real = engine._made_ahead
    monkeypatch.setattr(engine, "_made_ahead", lambda items, make: ahead.append(1) or real(
        items, make))
    helped = pattern_time(pattern, hosts, fabric, net)
    assert ahead == [1]
    monkeypatch.setattr(engine, "_made_ahead", lambda items, make: map(make, items))
    assert pattern_time(pattern, hosts, fabric, net) == helped


def _helpers() -> list:
    return [t for t in threading.enumerate() if t.name == "collsim windows ahead"]


def test_made_ahead_keeps_the_order_raises_and_stops_with_its_caller():
    assert list(engine._made_ahead(range(5), lambda x: x * x)) == [0, 1, 4, 9, 16]

    def make(x):
        if x == 2:
            raise ValueError("two")
        return x

    got = []
    with pytest.raises(ValueError, match="two"):
        for value in engine._made_ahead(range(5), make):
            got.append(value)
    assert got == [0, 1] and not _helpers()
    made = []

    def slow(x):
        time.sleep(0.2)
        made.append(x)
        return x

    items = engine._made_ahead(range(100), slow)
    assert next(items) == 0
    items.close()   # the caller stops: it waits for the item in the making, no more
    assert not _helpers() and made in ([0], [0, 1])


def test_templates_refuse_unlike_ranks_deadlocks_and_unmatched_sizes():
    peers = np.array([[1, -1, -1, -1], [0, -1, -1, -1]])
    with pytest.raises(ValueError, match="different programs"):
        templates(2, np.zeros(2), peers, lambda r: [(0, [(SEND if r else RECV, 1 - r, 8)])])
    swapped = templates(2, np.arange(2), peers, lambda r: [(0, [(RECV, 1 - r, 8)]),
                                                          (0, [(SEND, 1 - r, 8)])])
    with pytest.raises(ValueError, match="deadlock"):
        list(swapped.iter_parts())
    sizes = templates(2, np.arange(2), peers, lambda r: [(0, [(SEND if r else RECV, 1 - r,
                                                               8 + r)])])
    with pytest.raises(ValueError, match="another size"):
        list(sizes.iter_parts())


def test_composites_make_the_steps_whole_first(monkeypatch):
    # on_ranks, side_by_side and then_combine take a pattern apart: the same as the whole's
    from collsim.analysis.network.pattern import on_ranks, side_by_side, then_combine

    build = trees.PATTERNS[("reduce", "binary")]
    whole = build(8, 1001, elem_bytes=8, params=replace(DEFAULT_PARAMS, block_count=3))
    monkeypatch.setattr(pipetrees, "PROGRAM_STEP_MESSAGES", -1)
    made = build(8, 1001, elem_bytes=8, params=replace(DEFAULT_PARAMS, block_count=3))
    ranks = [9, 3, 5, 7, 11, 13, 15, 1]
    for a, b in [(on_ranks(whole, ranks, 16), on_ranks(made, ranks, 16)),
                 (then_combine(whole, [0, 1], 8), then_combine(made, [0, 1], 8))]:
        assert len(a.steps) == len(b.steps)
        for x, y in zip(a.steps, b.steps):
            for name in FIELDS:
                assert getattr(x, name).tolist() == getattr(y, name).tolist(), name
    apart = on_ranks(made, list(range(0, 16, 2)), 16)
    assert len(side_by_side(apart, on_ranks(whole, list(range(1, 16, 2)), 16)).steps) == len(
        whole.steps)
