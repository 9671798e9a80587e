"""Seed 004's claims about the hierarchical transform, held in simulation on the crossbar
under `hockney`: for `linear` the time is least near G = sqrt(p) and equals formulas (8)-(9)
(plus the measured cost of making the sub-communicators); for `binomial` G changes nothing
but that cost; G = 1 and G = p are the plain algorithm."""

import math

import pytest

from collsim.params import AlgorithmParams
from collsim.analysis.models._base import message_s, reduce_s
from collsim.analysis.models._composite import subcomm_creation_s
from collsim.runner import RunSpec, model_parameters, run
from collsim.platforms import map_ranks

SIZES_BYTES = (16384, 1 << 20)


def sweep(crossbar64, hockney, p, algorithm, groups):
    """Simulated time per (G, bytes) of reduce/hierarchical with algorithm at both levels."""
    times = {}
    for g in groups:
        params = AlgorithmParams(group_count=g, inner_algorithm=algorithm)
        rows, status = run(RunSpec("reduce", "hierarchical", p, SIZES_BYTES, params=params),
                           crossbar64, hockney, platform="crossbar")
        assert status == 0 and all(row["check"] == "ok" for row in rows)
        for row in rows:
            times[g, row["bytes"]] = row["time_s"]
    return times


def creation_s(net, p, g):
    return subcomm_creation_s(net, p // g) + subcomm_creation_s(net, g)


@pytest.mark.parametrize("p", [64, 36])
def test_linear_is_fastest_at_sqrt_p_and_follows_formula_8(crossbar64, hockney, p):
    groups = [g for g in range(1, p + 1) if p % g == 0]
    times = sweep(crossbar64, hockney, p, "linear", groups)
    net, _ = model_parameters(crossbar64, map_ranks(crossbar64, p), hockney)
    for n in SIZES_BYTES:
        best = min(groups, key=lambda g: times[g, n])
        assert best == math.isqrt(p), {g: times[g, n] for g in groups}
        step = message_s(net, n) + reduce_s(net, n)
        for g in groups:
            formula_8 = (g + p // g - 2) * step
            extra = creation_s(net, p, g) if 1 < g < p else 0.0
            assert times[g, n] == pytest.approx(formula_8 + extra, rel=1e-9)
        formula_9 = (2 * math.sqrt(p) - 2) * step
        assert times[math.isqrt(p), n] == pytest.approx(formula_9 + creation_s(net, p, math.isqrt(p)),
                                                        rel=1e-9)
        if n >= 1 << 20:
            # the transform's gain over the flat algorithm, (p - 1) / (2 sqrt(p) - 2), is
            # not eaten by the sub-communicators at large sizes (seed 004 sec. 3.6)
            gain = times[1, n] / times[math.isqrt(p), n]
            assert gain > 0.99 * (p - 1) / (2 * math.sqrt(p) - 2)


def test_binomial_does_not_change_with_g(crossbar64, hockney):
    p = 64
    groups = [1, 2, 4, 8, 16, 32, 64]
    times = sweep(crossbar64, hockney, p, "binomial", groups)
    net, _ = model_parameters(crossbar64, map_ranks(crossbar64, p), hockney)
    for n in SIZES_BYTES:
        for g in groups:
            extra = creation_s(net, p, g) if 1 < g < p else 0.0
            assert times[g, n] - extra == pytest.approx(times[1, n], rel=1e-9)
        if n >= 1 << 20:
            # the sub-communicators are all G adds: negligible at large sizes
            assert max(times[g, n] for g in groups) < 1.02 * times[1, n]


@pytest.mark.parametrize("collective, algorithm", [("reduce", "linear"), ("reduce", "binomial"),
                                                   ("allreduce", "ring")])
def test_one_group_and_p_groups_are_the_plain_algorithm(crossbar64, hockney, collective, algorithm):
    p = 12
    plain, _ = run(RunSpec(collective, algorithm, p, SIZES_BYTES, root=5 if collective == "reduce" else 0),
                   crossbar64, hockney, platform="crossbar")
    for g in (1, p):
        params = AlgorithmParams(group_count=g, inner_algorithm=algorithm)
        rows, _ = run(RunSpec(collective, "hierarchical", p, SIZES_BYTES, params=params,
                              root=5 if collective == "reduce" else 0),
                      crossbar64, hockney, platform="crossbar")
        assert [r["time_s"] for r in rows] == [r["time_s"] for r in plain]
        assert [r["result_hash"] for r in rows] == [r["result_hash"] for r in plain]


@pytest.mark.parametrize("collective, p, groups, selector", [("reduce", 16, 4, "openmpi_default"),
                                                             ("allreduce", 12, 3, "mpich_default")])
def test_a_library_selector_as_both_levels_agrees_with_its_model(crossbar64, hockney, collective, p,
                                                                 groups, selector):
    """Seed 004's hierarchical native reduce: each level runs what the library picks for its
    group size; no row records those picks, so the model asks collbench for them
    (collsim.native.choices), one decision in C for both."""
    params = AlgorithmParams(group_count=groups, inner_algorithm=selector, outer_algorithm=selector)
    rows, status = run(RunSpec(collective, "hierarchical", p, (8, 16384, 1 << 20), params=params),
                       crossbar64, hockney, platform="crossbar")
    assert status == 0
    for row in rows:
        assert row["check"] == "ok" and row["model_class"] == "exact" and row["model_agrees"]
