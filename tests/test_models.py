"""The cost models on their own: one per registry entry, one signature, the seeds' formulas."""

import inspect
import math

import pytest

from collsim.analysis import models
from collsim.analysis.models import NetworkParams, Prediction, model_for, predict

NET = NetworkParams(alpha_s=2e-6, beta_s_per_byte=1e-10, gamma_s_per_byte=5e-11, envelope_bytes=0)


def test_every_registry_entry_has_a_model_with_the_common_signature(entries):
    reference = inspect.signature(models.allreduce.ring)
    for entry in entries:
        model = model_for(entry["collective"], entry["algorithm"])
        assert model.__name__ == entry["algorithm"]
        assert inspect.signature(model) == reference
        assert "Accuracy:" in model.__doc__


def test_every_model_belongs_to_a_registry_entry(entries):
    names = {(entry["collective"], entry["algorithm"]) for entry in entries}
    for collective in ("allreduce", "reduce", "bcast"):
        for name in getattr(models, collective).__all__:
            assert (collective, name) in names


def test_the_composites_are_the_registry_entries_that_run_others(entries):
    """The models refuse as a part of a composite what collbench refuses (hier.c, level_algorithm)."""
    from collsim.analysis.models._lookup import COMPOSITES

    composite_parameters = {"groups", "inner_outer", "node_size"}
    registry = {entry["algorithm"] for entry in entries if composite_parameters & set(entry["parameters"])}
    assert registry == COMPOSITES


def test_every_published_collective_has_a_model_module():
    """The models' collectives are algorithms/collectives.def's (as collbench publishes it)."""
    from collsim.analysis.models._lookup import COLLECTIVES
    from collsim.harness import collectives

    assert sorted(COLLECTIVES) == sorted(collectives())


def test_a_composite_is_refused_as_a_part():
    with pytest.raises(ValueError, match="inner algorithm must be a plain reduce algorithm, got 'prerounded'"):
        predict("reduce", "prerounded", 8, 1024, NET, params=models.AlgorithmParams(inner_algorithm="prerounded"))
    with pytest.raises(ValueError, match="outer algorithm must be a plain allreduce algorithm, got 'nope'"):
        predict("allreduce", "hierarchical", 8, 1024, NET,
                params=models.AlgorithmParams(inner_algorithm="ring", outer_algorithm="nope"))


def test_unknown_model():
    with pytest.raises(KeyError, match="no model for allreduce/nonexistent"):
        model_for("allreduce", "nonexistent")


@pytest.mark.parametrize("p", [1, 2, 3, 8, 13, 64])
def test_nothing_to_do_costs_nothing(entries, p):
    from collsim.harness import collectives

    for entry in entries:
        # a barrier moves no data at any size: only one rank has nothing to do
        moves_data = collectives()[entry["collective"]]["recv_blocks"] != "none"
        if moves_data or p == 1:
            assert predict(entry["collective"], entry["algorithm"], p, 0, NET).time_s == 0.0
        if p == 1:
            assert predict(entry["collective"], entry["algorithm"], 1, 4096, NET).time_s == 0.0


def test_seed_001_power_of_two_formulas():
    """With no envelope and p dividing the count, the models are the seed's closed forms."""
    a, b, g, n, p = NET.alpha_s, NET.beta_s_per_byte, NET.gamma_s_per_byte, 1 << 20, 16
    lg = math.log2(p)
    assert predict("allreduce", "rabenseifner", p, n, NET).time_s == pytest.approx(
        2 * lg * a + 2 * n * b + n * g - (2 * n * b + n * g) / p, rel=1e-12)
    assert predict("allreduce", "ring", p, n, NET).time_s == pytest.approx(
        2 * (p - 1) * a + 2 * n * b + n * g - (2 * n * b + n * g) / p, rel=1e-12)
    assert predict("allreduce", "recursive_doubling", p, n, NET).time_s == pytest.approx(
        lg * (a + n * b + n * g), rel=1e-12)


def test_seed_001_non_power_of_two_rabenseifner():
    """Seed 001 sec. 2.5, p not a power of two, f_alpha = f_beta = 1:
    (3 + 2 lg p') alpha + 4 n beta + 3/2 n gamma - (2 n beta + n gamma) / p'."""
    a, b, g, n, p, pof2 = NET.alpha_s, NET.beta_s_per_byte, NET.gamma_s_per_byte, 1 << 20, 13, 8
    expected = (3 + 2 * 3) * a + 4 * n * b + 1.5 * n * g - (2 * n * b + n * g) / pof2
    assert predict("allreduce", "rabenseifner", p, n, NET).time_s == pytest.approx(expected, rel=1e-12)


def test_seed_004_reduce_formulas():
    a, b, g, m = NET.alpha_s, NET.beta_s_per_byte, NET.gamma_s_per_byte, 65536
    for p in (2, 5, 16, 33):
        assert predict("reduce", "linear", p, m, NET).time_s == pytest.approx(
            (p - 1) * (a + m * b + m * g), rel=1e-12)  # formula (1)
        assert predict("reduce", "binomial", p, m, NET).time_s == pytest.approx(
            math.ceil(math.log2(p)) * (a + m * b + m * g), rel=1e-12)  # formula (6)


def test_noncommutative_binomial_reduce_pays_one_message_off_rank_0():
    commutative = predict("reduce", "binomial", 8, 1024, NET, root=3).time_s
    ordered = predict("reduce", "binomial", 8, 1024, NET, root=3, commutative=False).time_s
    assert ordered - commutative == pytest.approx(NET.alpha_s + 1024 * NET.beta_s_per_byte)
    assert predict("reduce", "binomial", 8, 1024, NET, root=0, commutative=False).time_s == commutative


def test_envelope_is_counted_per_message():
    with_envelope = NetworkParams(alpha_s=2e-6, beta_s_per_byte=1e-10, envelope_bytes=16)
    # binomial bcast on 8 ranks: 3 messages
    difference = (predict("bcast", "binomial", 8, 8, with_envelope).time_s
                  - predict("bcast", "binomial", 8, 8, NET).time_s)
    assert difference == pytest.approx(3 * 16 * 1e-10)


def test_prediction_interval():
    prediction = Prediction(1.0, 0.9, 1.1)
    assert not prediction.exact
    assert prediction.contains(0.95) and not prediction.contains(1.2)
    assert Prediction(1.0, 1.0, 1.0).contains(1.0 + 1e-7)
    assert not Prediction(1.0, 1.0, 1.0).contains(1.0 + 1e-5)


@pytest.mark.parametrize(
    "args, message",
    [((0, 8), "p must be"), ((4, -8), "n_bytes must be"), ((4, 12), "whole number")],
)
def test_bad_arguments(args, message):
    with pytest.raises(ValueError, match=message):
        predict("allreduce", "ring", *args, NET)


def test_network_parameters_are_validated():
    with pytest.raises(ValueError, match="alpha_s"):
        NetworkParams(alpha_s=-1.0, beta_s_per_byte=1e-10)
    with pytest.raises(ValueError, match="f_beta"):
        NetworkParams(alpha_s=1e-6, beta_s_per_byte=1e-10, f_beta=0.0)
