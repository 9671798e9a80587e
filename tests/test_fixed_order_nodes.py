"""fixed_order groups ranks by node, the one meaning of "node" the node-aware
algorithms use too (``collsim_node_members`` in ``algorithms/common/nodes.c``): on a
machine whose nodes hold several sockets (one SimGrid host each), the sockets of a
node are one group, not one group each (issue 30)."""

import numpy as np
import pytest

import collsim
from collsim.analysis.network import pattern_time
from collsim.analysis.network.patterns import pattern_for
from collsim.params import DEFAULT_PARAMS
from collsim.predictions import request_from_table
from collsim.profiles import load_profile
from collsim.network_model import network_setting

# 4 nodes of 2 sockets of 2 cores: 16 ranks, placed at random so that a node's
# ranks are not a block of consecutive ones
PLATFORM = {"generator": "crossbar", "nodes": 4,
            "multicore": {"sockets_per_node": 2, "cores_per_socket": 2}}
NP, SIZES, MAPPING = 16, [8, 1 << 16], "random"


def _pattern_s(setting, collective, n_bytes, *, rank_nodes, rank_sockets):
    pattern = pattern_for(collective, "fixed_order")(
        NP, n_bytes // 8, elem_bytes=8, params=DEFAULT_PARAMS, rank_nodes=rank_nodes,
        rank_sockets=rank_sockets)
    return pattern_time(pattern, setting.rank_hosts, setting.fabric, setting.net,
                        weight_S=setting.weight_S)


@pytest.mark.parametrize("collective", ["reduce", "allreduce"])
def test_fixed_order_groups_the_sockets_of_a_node_together(collective):
    simulated = collsim.run(collective, "fixed_order", NP, SIZES, platform=PLATFORM,
                            mapping=MAPPING, timing_only=True)["time_s"].tolist()
    setting = network_setting(request_from_table(PLATFORM), load_profile("hockney"), NP, MAPPING)
    assert setting.sockets is not None and len(set(setting.nodes.tolist())) == 4
    by_node = [_pattern_s(setting, collective, n, rank_nodes=setting.nodes,
                          rank_sockets=setting.sockets) for n in SIZES]
    assert by_node == pytest.approx(simulated, rel=1e-6)
    # grouping each socket on its own (what MPI_Comm_split_type(SHARED) gave) is
    # another schedule, which SimGrid does not run
    sockets = np.unique(np.stack([setting.nodes, setting.sockets], 1), axis=0,
                        return_inverse=True)[1].reshape(-1)
    assert len(set(sockets.tolist())) == 8
    by_socket = [_pattern_s(setting, collective, n, rank_nodes=sockets, rank_sockets=None)
                 for n in SIZES]
    assert by_socket != pytest.approx(simulated, rel=1e-3)
