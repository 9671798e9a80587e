"""The network patterns of the reduce_scatter, scan and exscan algorithms of issue 26
against their models on the crossbar, at every p up to 40 and at 64, 100 and 129: the
folds, the uneven groups and recursive doubling's forwarding depend on p's bits, which
the seven process counts of tests/test_network_patterns_collectives.py do not all reach."""

import pytest

from collsim.analysis.models import model_for
from collsim.analysis.network import CrossbarFabric, pattern_time
from collsim.analysis.network.patterns import scans
from collsim.platforms import crossbar, map_ranks
from collsim.profiles import load_profile
from collsim.runner import model_parameters

ENTRIES = [("reduce_scatter", name) for name in
           ("ring", "pairwise", "recursive_halving", "butterfly", "recursive_doubling")] + [
    ("scan", "recursive_doubling"), ("exscan", "recursive_doubling")]
PROCESS_COUNTS = list(range(1, 41)) + [64, 100, 129]


@pytest.fixture(scope="module")
def machine():
    G = crossbar(nodes=max(PROCESS_COUNTS))
    return G, CrossbarFabric(G.graph["params"]), load_profile("hockney")


@pytest.mark.parametrize("entry", ENTRIES, ids="/".join)
def test_pattern_is_the_replayed_model(machine, entry):
    G, fabric, hockney = machine
    for p in PROCESS_COUNTS:
        names = map_ranks(G, p, "block")
        net, _ = model_parameters(G, names, hockney)
        for count in (1, 3):
            model = model_for(*entry)(p, 8 * count, net, elem_bytes=8)
            assert model.exact
            pattern = scans.PATTERNS[entry](p, count, elem_bytes=8)
            got = pattern_time(pattern, fabric.host_index(names), fabric, net)
            assert got == pytest.approx(model.time_s, rel=1e-9, abs=1e-15), (p, count)
