"""Serial steps (collsim.analysis.network.serial): a chain of one-message steps timed in one
compiled loop equals the same steps timed one by one by the engine, to the bit, on
fat-trees and dragonflies, block and random ranks, with and without eager overheads."""

import numpy as np
import pytest

from collsim.analysis.network import Pattern, pattern_time
from collsim.analysis.network.patterns import exchanges, scans
from collsim.analysis.network.serial import SerialSteps
from collsim.network_model import network_setting
from collsim.platform_cli import PlatformRequest
from collsim.profiles import load_profile

PLATFORMS = {
    "fat-tree": {"levels": 3, "down_ports": [4, 4, 8], "up_ports": [1, 2, 2]},
    "crossbar": {"nodes": 128, "half_duplex": True},
    "dragonfly": {"groups": 5, "chassis_per_group": 2, "routers_per_chassis": 4,
                  "nodes_per_router": 4},
}
BUILDERS = [scans.scan_linear, scans.exscan_linear, exchanges.barrier_double_ring]


def _setting(name, profile, mapping, p):
    family = name.replace("-", "_")
    request = PlatformRequest(label=name, family=family, kwargs=PLATFORMS[name])
    return network_setting(request, load_profile(profile), p, mapping)


@pytest.mark.parametrize("name", PLATFORMS)
@pytest.mark.parametrize("profile", ["hockney", "seed003_openmpi_opa"])
@pytest.mark.parametrize("mapping", ["block", "random:3"])
def test_serial_steps_equal_the_steps_timed_one_by_one(name, profile, mapping):
    p = 120
    setting = _setting(name, profile, mapping, p)
    args = (setting.rank_hosts, setting.fabric, setting.net)
    for build in BUILDERS:
        for n_bytes in (8, 1 << 20):
            pattern = build(p, n_bytes // 8, elem_bytes=8)
            (serial,) = pattern.steps
            assert isinstance(serial, SerialSteps)
            plain = Pattern(p, serial.parts())
            # together_messages=0: every step alone, as the engine times them at a million ranks
            alone = pattern_time(plain, *args, weight_S=setting.weight_S, together_messages=0)
            fast = pattern_time(pattern, *args, weight_S=setting.weight_S, together_messages=0)
            assert fast == alone, (build.__name__, n_bytes)
            # below the limit the engine expands them: the plain steps run together
            assert pattern_time(pattern, *args, weight_S=setting.weight_S) == pattern_time(
                plain, *args, weight_S=setting.weight_S)


def test_parts_put_each_reduction_on_its_ranks_last_step():
    serial = SerialSteps([0, 1, 2], [1, 2, 3], [8, 8, 8], reduce_ranks=[1, 3],
                         reduce_bytes=[5, 7], combine_bytes=[8, 0, 8])
    parts = serial.parts()
    assert [s.reduce_ranks.tolist() for s in parts] == [[1], [1], [3, 3]]
    assert [s.reduce_bytes.tolist() for s in parts] == [[8], [5], [8, 7]]
    with pytest.raises(ValueError):
        SerialSteps([0], [1], [8], repeat=2)
    with pytest.raises(ValueError):
        SerialSteps([0, 1], [1, 2], [8, 8], combine_bytes=[8])
    assert np.array_equal(serial.on(np.array([4, 5, 6, 7])).src, [4, 5, 6])
