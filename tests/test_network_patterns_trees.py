"""The network patterns of the tree and pipelined algorithms
(collsim.analysis.network.patterns.trees): the engine's receives posted ahead,
each pattern equal to its closed-form model on the crossbar, agreement with
SimGrid off it."""

import numpy as np
import pytest

from collsim.analysis.network import CrossbarFabric, Pattern, Step, pattern_time
from collsim.platforms import crossbar, map_ranks
from collsim.profiles import load_profile
from collsim.runner import model_parameters

HOCKNEY = load_profile("hockney")


def _crossbar(p):
    G = crossbar(nodes=p)
    names = map_ranks(G, p, "block")
    fabric = CrossbarFabric(G.graph["params"])
    net, _ = model_parameters(G, names, HOCKNEY)
    return fabric, fabric.host_index(names), net


def test_a_receive_posted_ahead_shares_the_link_with_the_one_waited_for():
    # rank 0 waits for rank 1 then rank 2; posted ahead, rank 2's message starts with
    # rank 1's and the two share rank 0's link, so both end after alpha + 2 (n + 16) beta
    fabric, hosts, net = _crossbar(3)
    n = 10**6
    message_s = net.alpha_s + (n + net.envelope_bytes) * net.beta_s_per_byte
    both = net.alpha_s + 2 * (n + net.envelope_bytes) * net.beta_s_per_byte
    ahead = Pattern(3, (Step([1], [0], [n]), Step([2], [0], [n], post_ahead=[1])))
    in_turn = Pattern(3, (Step([1], [0], [n]), Step([2], [0], [n])))
    assert pattern_time(ahead, hosts, fabric, net) == pytest.approx(both, rel=1e-12)
    assert pattern_time(in_turn, hosts, fabric, net) == pytest.approx(2 * message_s, rel=1e-12)


def test_a_step_whose_receive_arrived_early_ends_when_it_starts():
    # rank 0: step 0 waits for rank 1 (a long message) with rank 2's receive posted;
    # rank 2's short message is done long before, so step 1 ends as it starts and
    # rank 0 reduces both right after rank 1's message (which the short one slowed by
    # its 24 bytes while they shared rank 0's link)
    fabric, hosts, net = _crossbar(3)
    gamma = 1e-9
    fabric.gamma_s_per_byte = gamma
    long_s = net.alpha_s + (10**7 + net.envelope_bytes) * net.beta_s_per_byte
    pattern = Pattern(3, (Step([1], [0], [10**7], [0], [100]),
                          Step([2], [0], [8], [0], [100], post_ahead=[1])))
    got = pattern_time(pattern, hosts, fabric, net)
    short_s = (8 + net.envelope_bytes) * net.beta_s_per_byte
    assert got == pytest.approx(long_s + short_s + 200 * gamma, rel=1e-9)


def test_a_receive_cannot_be_posted_before_the_receivers_first_step():
    fabric, hosts, net = _crossbar(3)
    with pytest.raises(ValueError, match="posted ahead"):
        pattern_time(Pattern(3, (Step([1], [0], [8], post_ahead=[1]),)), hosts, fabric, net)
