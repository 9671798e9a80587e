"""node_aware runs, inside nodes and between leaders, the algorithm MPICH 3.0 picks
(algorithms/common/nodes.h; analysis/models/_composite.py mirrors the rules): its
broadcast inside a node of 8 ranks is a scatter + allgather from 12 KiB, its reduce is
reduce-scatter + gather on any process count once the count reaches the largest power of
two.  Simulated against the models on a crossbar, whose times they give exactly."""

from __future__ import annotations

import pytest

from collsim.analysis.models import NetworkParams, predict
from collsim.analysis.models import bcast
from collsim.analysis.models._composite import mpich_bcast_choice
from collsim.params import AlgorithmParams
from collsim.platforms import crossbar
from collsim.runner import RunSpec, run

NET = NetworkParams(alpha_s=2e-6, beta_s_per_byte=1 / 12.5e9, gamma_s_per_byte=1e-10,
                    envelope_bytes=16)
CACHED_8 = AlgorithmParams(node_size=8, cached_comms=True)


def _rows(hockney, collective, np, sizes, params):
    rows, _ = run(RunSpec(collective, "node_aware", np, sizes, params=params),
                  crossbar(nodes=np), hockney, platform="crossbar")
    assert [row["check"] for row in rows] == ["ok"] * len(sizes), rows
    return rows


def test_allreduce_broadcasts_inside_a_node_of_8_as_mpich(hockney):
    """16 ranks in 2 exposed nodes of 8: binomial at 8 KiB, scatter + recursive doubling
    at 256 KiB, scatter + ring at 1 MiB; each time the model's to the bit, and at the
    larger sizes not what a binomial broadcast would take."""
    sizes = (8192, 262144, 1048576)
    assert [mpich_bcast_choice(8, n) for n in sizes] == [
        "binomial", "scatter_recursive_doubling_allgather", "scatter_allgather"]
    for row in _rows(hockney, "allreduce", 16, sizes, CACHED_8):
        model = predict("allreduce", "node_aware", 16, row["bytes"], NET, params=CACHED_8)
        assert row["model_class"] == "exact" and row["time_s"] == pytest.approx(model.time_s,
                                                                                rel=1e-9), row
        if row["bytes"] > 8192:
            n = row["bytes"]
            saved_s = (bcast.binomial(8, n, NET).time_s
                       - predict("bcast", mpich_bcast_choice(8, n), 8, n, NET).time_s)
            assert saved_s > 0.05 * row["time_s"], (n, saved_s)  # the choice shows


def test_reduce_scatter_gather_on_nodes_that_are_not_a_power_of_two(hockney):
    """12 ranks in 2 nodes of 6 at 4 KiB: MPICH's reduce-scatter + gather (512 elements
    >= 4), as the model says; the binomial reduce of before would take longer."""
    params = AlgorithmParams(node_size=6, cached_comms=True)
    for row in _rows(hockney, "reduce", 12, (4096, 65536), params):
        model = predict("reduce", "node_aware", 12, row["bytes"], NET, params=params)
        assert row["model_class"] in ("exact", "bound") and row["model_agrees"], row
        assert row["time_s"] <= model.high_s * (1 + 1e-9)


def test_the_flat_choices_at_their_thresholds(hockney):
    """node_size 1 (MPICH's flat algorithm on all ranks): a reduce of 300 doubles on 512
    ranks stays binomial (300 < 512), an allreduce of exactly 2048 bytes stays recursive
    doubling (MPICH's test is <= 2048); each is its model's time, which the other
    algorithm's is not."""
    flat = AlgorithmParams(node_size=1, cached_comms=True)
    for collective, np, size, chosen, other in (
            ("reduce", 512, 2400, "binomial", "rabenseifner"),
            ("allreduce", 16, 2048, "recursive_doubling", "rabenseifner")):
        row, = _rows(hockney, collective, np, (size,), flat)
        assert row["time_s"] == pytest.approx(predict(collective, "node_aware", np, size, NET,
                                                      params=flat).time_s, rel=1e-9), row
        assert row["time_s"] == pytest.approx(predict(collective, chosen, np, size, NET).time_s,
                                              rel=1e-9)
        assert row["time_s"] != pytest.approx(predict(collective, other, np, size, NET).time_s,
                                              rel=1e-3)
