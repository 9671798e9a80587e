"""The steps run together with their one-link components kept whole (kernels.run_together,
kernels._whole: joined without a search, re-shared without the filling) against the same
loop re-sharing every changed component by the search and the filling (kernels._together
without them): every task's end equal to the bit, on random fans over a dragonfly and a
fat-tree whose flows start at many distinct times (components kept, joined, given back
and kept again), and the kept components are used."""

import numpy as np
import pytest

from collsim.analysis.network import engine, kernels
from collsim.analysis.network.pattern import Step
from collsim.network_model import network_setting
from collsim.platform_cli import PlatformRequest
from collsim.profiles import load_profile

PLATFORMS = {
    "fat-tree": {"levels": 3, "down_ports": [4, 4, 8], "up_ports": [1, 2, 2]},
    "dragonfly": {"groups": 5, "chassis_per_group": 2, "routers_per_chassis": 4,
                  "nodes_per_router": 4},
}


def _recorded(counts, one_clock):
    """kernels.run_together run with or without kept components, recording how many
    re-sharings and ends were of kept components."""
    def run(*args):
        task_last, deadlock, kept = kernels._together(*args[:-1], one_clock)
        counts.append(kept.copy())
        return task_last, deadlock
    return run


@pytest.mark.parametrize("name", PLATFORMS)
def test_components_kept_whole_end_as_the_filling_to_the_bit(name, monkeypatch):
    p = 128
    request = PlatformRequest(label=name, family=name.replace("-", "_"),
                              kwargs=PLATFORMS[name])
    setting = network_setting(request, load_profile("hockney"), p, "block")
    hosts, fabric, net = setting.rank_hosts, setting.fabric, setting.net
    rng = np.random.default_rng(11)
    used = np.zeros(2, dtype=np.int64)
    for trial in range(6):
        # fans: few senders, each to receivers spread over the fabric or a few groups
        n = p
        src = rng.integers(0, 8, n) * (p // 8) + rng.integers(0, 2, n)
        spread = rng.integers(1, p, n) if trial % 2 else rng.integers(1, 3, n) * (p // 4)
        dst = (src + spread) % p
        keep = src != dst
        steps = [Step(src[keep][k::4], dst[keep][k::4],
                      rng.choice([1 << 10, 1 << 16, 3 << 16], size=len(src[keep][k::4])))
                 for k in range(4)]
        clock = rng.uniform(0.0, 2e-5, size=p) * (rng.random(p) < 0.7)
        kept, filled = [], []
        with monkeypatch.context() as patch:
            patch.setattr(kernels, "run_together", _recorded(kept, True))
            ours = engine._run_together(steps, clock, hosts, fabric, net, setting.weight_S)
            patch.setattr(kernels, "run_together", _recorded(filled, False))
            theirs = engine._run_together(steps, clock, hosts, fabric, net, setting.weight_S)
        assert len(kept) == len(filled) == 1 and not filled[0].any()
        np.testing.assert_array_equal(ours, theirs)
        used += kept[0]
    assert used.min() > 20   # re-sharings and ends of kept components


def test_a_kept_component_emptied_is_gone_before_a_flow_starts_on_its_link(monkeypatch):
    # reduce binary of 16 MiB on 64 ranks of a 4:1 fat-tree, random mapping (a cell of
    # the trees' accuracy grid): a component kept on a link loses its last flow and a
    # flow of another component starts on that link at the next event
    import collsim

    platform = {"generator": "fat_tree", "levels": 2, "down_ports": [16, 16],
                "up_ports": [1, 4]}
    answers, counts = [], []
    for one_clock in (True, False):
        with monkeypatch.context() as patch:
            patch.setattr(kernels, "run_together", _recorded(counts, one_clock))
            answers.append(collsim.predict("reduce", "binary", 64, [16 << 20],
                                           platform=platform, mapping="random")["model_s"])
    assert answers[0].tolist() == answers[1].tolist()
    assert counts[0].min() > 100 and not counts[-1].any()


def test_components_are_kept_whole_only_where_flows_pile_up_on_a_link(monkeypatch):
    # a dragonfly of more than 1024 hosts is routed by the rule (regular.DragonflyFabric):
    # block-mapped, the binary tree sends every message between two groups over their one
    # global link (hundreds of flows of a window on it); the in-order tree's links carry
    # a few, and there keeping components whole costs more than it saves
    import collsim

    platform = {"generator": "dragonfly", "groups": 17, "chassis_per_group": 1,
                "routers_per_chassis": 16, "nodes_per_router": 16}
    flags = []
    run_together = kernels.run_together

    def spy(*args):
        flags.append(args[-1])
        return run_together(*args)

    monkeypatch.setattr(kernels, "run_together", spy)
    for collective, algorithm, kept in (("reduce", "binary", True),
                                        ("allreduce", "pipelined_tree", False)):
        flags.clear()
        collsim.predict(collective, algorithm, 1024, [1 << 20], platform=platform)
        assert flags and set(flags) == {kept}, (algorithm, flags)
