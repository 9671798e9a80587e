"""What the alltoall and barrier entries must do, read off their network patterns (which
follow the C code message for message): every alltoall delivers each rank's block for each
other rank, Bruck's packed messages hold exactly the blocks its steps move, every barrier
lets no rank finish before it has heard, directly or not, from every rank; and, off the
crossbar, the simulated time is the pattern's (the network model)."""

import json

import numpy as np
import pytest

from collsim.analysis.models.alltoall import bruck_blocks
from collsim.analysis.network.pattern import Pattern, plain_steps
from collsim.analysis.network.patterns import exchanges
from collsim.cli import main

PROCESS_COUNTS = [1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 16, 17, 33, 64, 100]
ALLTOALL = ["linear", "pairwise", "pairwise_xor", "scattered"]
BARRIERS = ["dissemination", "recursive_doubling", "tree", "double_ring"]


def test_bruck_blocks_count_the_indices_with_the_bit_set():
    for p in range(1, 300):
        for k in range(max(p - 1, 1).bit_length()):
            d = 1 << k
            assert bruck_blocks(p, d) == sum(1 for i in range(1, p) if i & d), (p, d)


@pytest.mark.parametrize("algorithm", ALLTOALL)
@pytest.mark.parametrize("p", PROCESS_COUNTS)
def test_each_ordered_pair_gets_one_block(algorithm, p):
    pattern = exchanges.PATTERNS[("alltoall", algorithm)](p, 3, elem_bytes=8)
    pairs = [(int(s), int(d)) for step in pattern.steps for _ in range(step.repeat)
             for s, d in zip(step.src, step.dst)]
    assert sorted(pairs) == [(s, d) for s in range(p) for d in range(p) if s != d]
    assert all(np.all(step.n_bytes == 24) for step in pattern.steps)


@pytest.mark.parametrize("p", PROCESS_COUNTS)
def test_bruck_messages_carry_the_blocks_that_move(p):
    """Follow every block: the one from rank s for rank d has index i = d - s (mod p)
    and moves 2^k ranks on in step k when bit k of i is set; the step's message from a
    rank carries exactly the blocks there with that bit, and each ends at its rank."""
    count, elem_bytes = 5, 4
    pattern = exchanges.PATTERNS[("alltoall", "bruck")](p, count, elem_bytes=elem_bytes)
    where = {(s, d): s for s in range(p) for d in range(p)}
    for k, step in enumerate(pattern.steps):
        d_k = 1 << k
        moving = [(s, d) for (s, d) in where if ((d - s) % p) & d_k]
        for src, dst, n in zip(step.src, step.dst, step.n_bytes):
            here = [b for b in moving if where[b] == src]
            assert int(dst) == (int(src) + d_k) % p and n == len(here) * count * elem_bytes
        for b in moving:
            where[b] = (where[b] + d_k) % p
    assert all(at == d for (s, d), at in where.items())


def _heard_from(pattern: Pattern) -> np.ndarray:
    """heard[r, q]: rank r has heard, directly or through others, that rank q entered.

    A rank takes part in its steps in order, so a message of step k carries what its
    sender knew after its earlier steps; both directions of an exchange carry the
    knowledge from before it."""
    heard = np.eye(pattern.p, dtype=bool)
    for step in plain_steps(pattern.steps):   # a double ring's serial steps, one by one
        for _ in range(step.repeat):
            before = heard.copy()
            for s, d in zip(step.src, step.dst):
                heard[d] |= before[s]
    return heard


@pytest.mark.parametrize("algorithm", BARRIERS)
@pytest.mark.parametrize("p", PROCESS_COUNTS)
def test_every_rank_hears_from_every_rank(algorithm, p):
    pattern = exchanges.PATTERNS[("barrier", algorithm)](p, 0, elem_bytes=8)
    assert _heard_from(pattern).all()
    assert all(np.all(step.n_bytes == 0) for step in pattern.steps)


@pytest.mark.parametrize("algorithm, needed", [
    ("dissemination", 1), ("recursive_doubling", 1), ("tree", 1),
    # the double ring's last two messages tell nothing new (ranks p - 1 and 0 heard from
    # all on the first trip): they hold the last ranks until the token is back
    ("double_ring", 3)])
def test_a_barrier_without_its_last_steps_is_not_one(algorithm, needed):
    """The check above can fail: the barriers' last steps are needed (p = 6 and 8)."""
    for p in (6, 8):
        pattern = exchanges.PATTERNS[("barrier", algorithm)](p, 0, elem_bytes=8)
        assert not _heard_from(Pattern(p, tuple(plain_steps(pattern.steps))[:-needed])).all()


TAPERED = ["--platform", "fat-tree", "--levels", "2", "--down-ports", "4,6", "--up-ports",
           "1,2"]


@pytest.mark.parametrize("collective, algorithms", [
    ("alltoall", "pairwise,pairwise_xor,bruck,scattered"),
    ("barrier", "recursive_doubling,tree,double_ring")])
@pytest.mark.parametrize("p", [16, 21])
def test_off_the_crossbar_the_time_is_the_patterns(capsys, collective, algorithms, p):
    assert main(["run", *TAPERED, "--np", str(p), "--coll", collective, "--alg", algorithms,
                 "--bytes", "8,64KiB", "--timing-only", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 2 * len(algorithms.split(","))
    for row in rows:
        assert row["model_class"] == "network" and row["model_agrees"], row
        assert row["time_s"] == pytest.approx(row["model_s"], rel=1e-6), row
