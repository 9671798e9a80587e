"""The classical allgather, gather and scatter algorithms (issue 26): the recursive-doubling
schedule the model and the pattern replay delivers every block, the models are the
literature's closed forms where those hold, and off the crossbar the simulation of the C
code takes the time of the pattern built from the same schedule (which ranks meet, in which
order, matters there)."""

import json

import pytest

from collsim.analysis.models import NetworkParams, model_for
from collsim.analysis.models.allgather import recursive_doubling_steps
from collsim.cli import main

NET = NetworkParams(alpha_s=2e-6, beta_s_per_byte=1e-9, envelope_bytes=16)


def lg(p):
    return (p - 1).bit_length()


def hockney(p, n_bytes, messages, blocks):
    """messages (alpha + envelope beta) + blocks n beta."""
    return messages * (NET.alpha_s + NET.envelope_bytes * NET.beta_s_per_byte) \
        + blocks * n_bytes * NET.beta_s_per_byte


@pytest.mark.parametrize("p", list(range(1, 70)) + [100, 127, 128, 129, 255, 257])
def test_recursive_doubling_schedule_gives_every_rank_every_block(p):
    held = [{r} for r in range(p)]
    for kind, a, b, blocks_ab, blocks_ba in recursive_doubling_steps(p):
        moves = []
        for i, (src, dst) in enumerate(zip(a.tolist(), b.tolist())):
            if kind == "exchange":
                mask = dst - src
                first_a, first_b = src & ~(mask - 1), dst & ~(mask - 1)
                moves += [(src, dst, range(first_a, first_a + int(blocks_ab[i]))),
                          (dst, src, range(first_b, first_b + int(blocks_ba[i])))]
            else:  # the tree hands on the truncated subtree's blocks: the last ones
                moves.append((src, dst, range(p - int(blocks_ab[i]), p)))
        for src, dst, blocks in moves:
            assert set(blocks) <= held[src], (kind, src, dst, blocks)
        for src, dst, blocks in moves:
            held[dst] |= set(blocks)
        ranks = a.tolist() + b.tolist()
        assert len(ranks) == len(set(ranks)), "a rank twice in one step"
    assert all(h == set(range(p)) for h in held)


def test_recursive_doubling_steps_count():
    assert len(recursive_doubling_steps(64)) == 6  # lg p exchanges, no tree
    assert len(recursive_doubling_steps(6)) == 4   # 3 exchanges + 1 step of the tree
    # 2^k + 1: the last rank's block goes down a whole subtree of 2^k ranks
    assert len(recursive_doubling_steps(17)) == 5 + 4


@pytest.mark.parametrize("p", [2, 4, 8, 64, 1024])
def test_power_of_two_closed_forms(p):
    n = 4096
    expected = hockney(p, n, lg(p), p - 1)
    for algorithm in ("recursive_doubling", "bruck"):
        assert model_for("allgather", algorithm)(p, n, NET).time_s == pytest.approx(expected)


@pytest.mark.parametrize("p", [2, 3, 5, 6, 7, 12, 13, 33, 100])
def test_binomial_gather_scatter_and_bruck_closed_form_any_p(p):
    n = 800
    expected = hockney(p, n, lg(p), p - 1)
    for collective, algorithm in (("gather", "binomial"), ("scatter", "binomial"),
                                  ("allgather", "bruck")):
        for root in (0, p - 1):
            got = model_for(collective, algorithm)(p, n, NET, root=root).time_s
            assert got == pytest.approx(expected), (collective, algorithm, root)


@pytest.mark.parametrize("p", [2, 4, 6, 10, 64])
def test_neighbor_exchange_even_and_odd(p):
    n = 1000
    even = hockney(p, n, p // 2, 1 + 2 * (p // 2 - 1))
    assert model_for("allgather", "neighbor_exchange")(p, n, NET).time_s == pytest.approx(even)
    # p + 1 ranks: the ring, as the C code runs (Open MPI's behaviour for odd p)
    odd = model_for("allgather", "neighbor_exchange")(p + 1, n, NET).time_s
    assert odd == pytest.approx(model_for("allgather", "ring")(p + 1, n, NET).time_s)


def test_gather_bcast_is_its_two_phases():
    p, n = 13, 512
    got = model_for("allgather", "gather_bcast")(p, n, NET).time_s
    assert got == pytest.approx(hockney(p, n, lg(p), p - 1) + hockney(p, n, lg(p), lg(p) * p))


def test_recursive_doubling_non_power_of_two_costs_more_than_the_next_power():
    # p = 2^k + 1 pays a tree of k more steps: slower than 2^(k+1) ranks at small sizes
    assert model_for("allgather", "recursive_doubling")(17, 8, NET).time_s > \
        model_for("allgather", "recursive_doubling")(32, 8, NET).time_s


@pytest.mark.parametrize("collective", ["allgather", "gather", "scatter"])
def test_off_the_crossbar_the_simulation_is_the_pattern(capsys, collective):
    """seed003_hydra: the network model (the pattern routed over its links) agrees with
    the simulation of the C code to rounding, for each algorithm, at a p that is neither
    a power of two nor even for some, with a root in the middle."""
    for np_ in (21, 24):
        assert main(["run", "--platform", "seed003_hydra", "--np", str(np_), "--coll", collective,
                     "--alg", "all", "--bytes", "24,64KiB", "--root", "7", "--json"]) == 0
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert len({row["algorithm"] for row in rows}) >= 2
        for row in rows:
            assert row["check"] == "ok" and row["model_class"] == "network", row
            assert row["time_s"] == pytest.approx(row["model_s"], rel=1e-6), row
