"""The steps run together with sets of flows kept on their bottleneck link
(kernels.run_together with keep_sets, kernels._reshare_sets: one virtual clock per set, room
reserved on the sets' other links) against the loop that fills every component an
event changes (without): every task's end within 1e-9, on fans whose senders' links
carry dozens of flows at once (sets formed, joined, ended and dissolved) over a fat-tree
and a dragonfly, with and without SimGrid's factors, and on a dragonfly's binary tree
(thousands of flows on a global link)."""

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


def _recorded(counts, keep_sets):
    """kernels.run_together with or without sets, recording its counts (sets formed,
    their flows ended, sets dissolved)."""
    def run(*args):
        task_last, deadlock, counted = kernels._together(*args[:-1], keep_sets, kernels._no_pipe())
        counts.append(counted.copy())
        return task_last, deadlock
    return run


@pytest.mark.parametrize("profile", ["hockney", "seed003_openmpi_opa"])
@pytest.mark.parametrize("name", PLATFORMS)
def test_sets_on_a_link_end_as_the_filling(name, profile, monkeypatch):
    p = 128
    request = PlatformRequest(label=name, family=name.replace("-", "_"),
                              kwargs=PLATFORMS[name])
    setting = network_setting(request, load_profile(profile), p, "block")
    hosts, fabric, net = setting.rank_hosts, setting.fabric, setting.net
    rng = np.random.default_rng(5)
    used = np.zeros(3, dtype=np.int64)
    for trial in range(6):
        # four senders, 48 messages each over the fabric, of four sizes, in two steps,
        # from clocks spread over 200 us: their links carry up to 24 flows at once
        senders = rng.choice(p, 4, replace=False)
        src = np.repeat(senders, 48)
        dst = (src + rng.integers(1, p, len(src))) % p
        sizes = rng.choice([1 << 12, 1 << 16, 3 << 16, 1 << 20], size=len(src))
        steps = [Step(src[k::2], dst[k::2], sizes[k::2]) for k in range(2)]
        clock = rng.uniform(0.0, 2e-4, size=p) * (rng.random(p) < 0.8)
        kept, filled = [], []
        with monkeypatch.context() as patch:
            patch.setattr(kernels, "run_together", _recorded(kept, True))
            ours = engine._run_together(steps, clock, hosts, fabric, net, setting.weight_S)
            patch.setattr(kernels, "run_together", _recorded(filled, False))
            theirs = engine._run_together(steps, clock, hosts, fabric, net, setting.weight_S)
        assert len(kept) == len(filled) == 1 and not filled[0].any()
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=0)
        used += kept[0]
    # sets formed, their flows ended on the virtual clocks, sets dissolved
    assert used[0] >= 5 and used[1] >= 50 and used[2] >= 5, used


def test_a_dragonflys_binary_tree_keeps_sets_on_its_global_links(monkeypatch):
    # block-mapped, the binary tree sends the messages between two groups over their one
    # global link (some through a third group's two, where SimGrid's tie-break takes them)
    import collsim

    platform = {"generator": "dragonfly", "groups": 17, "chassis_per_group": 1,
                "routers_per_chassis": 16, "nodes_per_router": 16}
    answers, counts = [], []
    for keep_sets in (True, False):
        with monkeypatch.context() as patch:
            patch.setattr(kernels, "run_together", _recorded(counts, keep_sets))
            answers.append(float(collsim.predict("reduce", "binary", 1024, [1 << 20],
                                                 platform=platform)["model_s"].iloc[0]))
    assert answers[0] == pytest.approx(answers[1], rel=1e-9, abs=0)
    kept = np.sum(counts[:len(counts) // 2], axis=0)
    assert kept[0] > 50 and kept[1] > 5000, kept


def test_sets_are_kept_only_where_flows_pile_up_on_a_link(monkeypatch):
    # the binary tree's global links carry hundreds of a window's flows; the in-order
    # tree's links a few, where the loop fills every changed component
    import collsim

    platform = {"generator": "dragonfly", "groups": 17, "chassis_per_group": 1,
                "routers_per_chassis": 16, "nodes_per_router": 16}
    modes = []
    run_together = kernels.run_together

    def spy(*args):
        modes.append(args[-1])
        return run_together(*args)

    monkeypatch.setattr(kernels, "run_together", spy)
    for collective, algorithm, keeps in (("reduce", "binary", True),
                                         ("allreduce", "pipelined_tree", False)):
        modes.clear()
        collsim.predict(collective, algorithm, 1024, [1 << 20], platform=platform)
        assert modes and set(modes) == {keeps}, (algorithm, modes)


def test_sets_forced_on_a_tapered_fat_tree_end_as_the_filling(monkeypatch):
    # a linear bcast and scatter of 1 MiB on 255 random ranks of a 4:1 fat-tree: the
    # root's link carries every flow (a set on it; the tapered up-links keep room), with
    # sets forced where the engine keeps none (not a dragonfly)
    import collsim

    platform = {"generator": "fat_tree", "levels": 2, "down_ports": [16, 16],
                "up_ports": [1, 4]}
    for collective, root in (("bcast", 77), ("scatter", 0)):
        answers, counts = [], []
        for keep_sets in (True, False):
            with monkeypatch.context() as patch:
                patch.setattr(kernels, "run_together", _recorded(counts, keep_sets))
                answers.append(collsim.predict(collective, "linear", 255, [1 << 20],
                                               platform=platform, mapping="random",
                                               root=root)["model_s"])
        np.testing.assert_allclose(answers[0], answers[1], rtol=1e-9, atol=0)
        kept = np.sum(counts[:len(counts) // 2], axis=0)
        assert kept[0] >= 1 and kept[1] == 254, (collective, kept)
