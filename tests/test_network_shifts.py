"""Shift steps (collsim.analysis.network.shifts): the p - 1 permutation steps of the
pairwise alltoalls, the pairwise reduce_scatter and the ring reduce's exchanges above
4096 ranks, timed by a stratified sample at each member's own pace.  Held here against
the explicit engine at 64 to 128 ranks (pattern.MAX_MESSAGES lowered so that the
builders make shift steps); the error at 1024 to 4096 ranks is
tests/benchmarks/shift_accuracy.py's (docs/MODELS.md, "Scale")."""

import functools

import numpy as np
import pytest

from collsim.analysis.network import pattern as pattern_module
from collsim.analysis.network import shifts
from collsim.analysis.network.engine import pattern_time
from collsim.analysis.network.pattern import Pattern, PatternTooLarge, side_by_side
from collsim.analysis.network.patterns import pattern_for
from collsim.analysis.network.shifts import ShiftSteps, shift_strata
from collsim.network_model import network_setting
from collsim.predictions import request_from_table
from collsim.profiles import checked_profile

ENTRIES = ["alltoall/pairwise", "alltoall/pairwise_xor", "reduce_scatter/pairwise", "reduce/ring"]


@pytest.mark.parametrize("n", [1, 2, 3, 10, 63, 255, 4095, 5000, 1048575])
def test_strata_cover_every_shift_once_and_straddle_no_power_of_two_below_their_width(n):
    at, weight = shift_strata(n, 64)
    low = np.concatenate([[0], np.cumsum(weight)[:-1]])
    assert weight.sum() == n and np.all(weight > 0)
    assert np.all((low <= at) & (at < low + weight))
    width = int(weight.max())
    for first, w in zip((low + 1).tolist(), weight.tolist()):   # shifts first .. first + w - 1
        last = first + w - 1
        assert first.bit_length() == last.bit_length() or first // width == last // width


FAT_TREE = (("generator", "fat_tree"), ("levels", 2), ("down_ports", (8, 8)), ("up_ports", (1, 8)))
DRAGONFLY = (("generator", "dragonfly"), ("groups", 9), ("chassis_per_group", 1),
             ("routers_per_chassis", 8), ("nodes_per_router", 2))


@functools.lru_cache(maxsize=None)
def _setting(table, p, mapping):
    table = {key: list(value) if isinstance(value, tuple) else value for key, value in table}
    return network_setting(request_from_table(table), checked_profile("hockney"), p, mapping)


def _both(entry, setting, p, count, strata):
    collective, algorithm = entry.split("/")
    build = pattern_for(collective, algorithm)
    explicit = build(p, count, elem_bytes=8)
    saved = pattern_module.MAX_MESSAGES, shifts.SAMPLE_STRATA
    pattern_module.MAX_MESSAGES, shifts.SAMPLE_STRATA = 0, strata
    try:
        model = build(p, count, elem_bytes=8)
        assert isinstance(model.steps[0], ShiftSteps) and model.messages == explicit.messages
        return [pattern_time(x, setting.rank_hosts, setting.fabric, setting.net,
                             weight_S=setting.weight_S, together_messages=0)
                for x in (explicit, model)]
    finally:
        pattern_module.MAX_MESSAGES, shifts.SAMPLE_STRATA = saved


@pytest.mark.parametrize("entry", ENTRIES)
def test_every_shift_at_own_pace_is_the_engine_on_a_block_mapped_fat_tree(entry):
    # a block mapping of a fat-tree of full bisection: every member has as many partners
    # in its leaf and beyond, so the members' totals are equal (measured, not proven)
    explicit, model = _both(entry, _setting(FAT_TREE, 64, "block"), 64, 64 * 100, 64)
    assert model == pytest.approx(explicit, rel=1e-12)


@pytest.mark.parametrize("entry", ["alltoall/pairwise_xor", "reduce/ring"])
def test_the_sample_is_within_two_percent_of_the_engine_on_a_dragonfly_of_random_ranks(entry):
    explicit, model = _both(entry, _setting(DRAGONFLY, 128, "random:3"), 128, 128, 8)
    assert model == pytest.approx(explicit, rel=0.02)
    assert model != explicit   # a sample of 19 of 127 shifts, not the engine


def test_shift_steps_are_never_unrolled():
    steps = ShiftSteps.series(np.arange(8), np.full(8, 8))
    assert len(steps.explicit()) == 7 and steps.messages == 56
    with pytest.raises(PatternTooLarge):
        side_by_side(Pattern(16, (steps,)), Pattern(16, (ShiftSteps.series(np.arange(8, 16),
                                                                           np.full(8, 8)),)))
    with pytest.raises(ValueError):
        ShiftSteps.series(np.arange(6), np.full(6, 8), xor=True)
