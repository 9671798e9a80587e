"""The network patterns of allgather, reduce_scatter, alltoall, gather, scatter, barrier,
scan and exscan: each is its closed-form model on the crossbar wherever the model is exact."""

import pytest

from collsim.analysis.models import model_for
from collsim.analysis.network import CrossbarFabric, pattern_time
from collsim.analysis.network.patterns import exchanges, gathers, scans
from collsim.harness import collectives
from collsim.platforms import crossbar, map_ranks
from collsim.profiles import load_profile
from collsim.runner import model_parameters

HOCKNEY = load_profile("hockney")
FAMILIES = {**gathers.PATTERNS, **scans.PATTERNS, **exchanges.PATTERNS}


@pytest.mark.parametrize("p", [1, 2, 3, 5, 8, 13, 24])
@pytest.mark.parametrize("entry", sorted(FAMILIES), ids="/".join)
def test_every_pattern_is_its_closed_form_on_the_crossbar(p, entry):
    collective, algorithm = entry
    G = crossbar(nodes=p)
    names = map_ranks(G, p, "block")
    fabric = CrossbarFabric(G.graph["params"])
    net, _ = model_parameters(G, names, HOCKNEY)
    roots = (0, p - 1) if collectives()[collective]["root"] else (0,)
    for count in (0, 1, 7, 1001):
        for root in roots:
            for commutative in (True, False):
                model = model_for(collective, algorithm)(
                    p, 8 * count, net, elem_bytes=8, root=root, commutative=commutative)
                if model.low_s != model.high_s:
                    continue  # a bound, not an exact time: held by the accuracy benchmark
                pattern = FAMILIES[entry](p, count, elem_bytes=8, root=root,
                                          commutative=commutative)
                got = pattern_time(pattern, fabric.host_index(names), fabric, net)
                assert got == pytest.approx(model.time_s, rel=1e-9, abs=1e-15), (count, root,
                                                                                  commutative)
