"""The chain pipeline as one step (collsim.analysis.network.chain): the same clocks as
the explicit pattern where the hops share no link, the same blocks, and a refusal of
eager blocks."""

import numpy as np
import pytest

from collsim.analysis.models import _pipelined
from collsim.analysis.network import CrossbarFabric, FatTreeFabric, Pattern, pattern_time
from collsim.analysis.network.chain import ChainSteps
from collsim.analysis.network.pattern import PatternTooLarge
from collsim.analysis.network.patterns import trees
from collsim.params import AlgorithmParams
from collsim.platforms import crossbar, fat_tree, map_ranks
from collsim.profiles import load_profile
from collsim.runner import model_parameters

HOCKNEY = load_profile("hockney")


def _chain(collective, p, count, root, params, elem_bytes=8):
    """The ChainSteps the builder makes above its threshold, made at any size."""
    nodes, blocks = _pipelined.tree_and_blocks("chain", p, count, elem_bytes=elem_bytes,
                                               root=root, params=params, segmented=True)
    order = (root + np.arange(p)) % p
    # the chain tree's parent links: each rank's parent is the one before it
    assert all(nodes[int(order[i])].parent == int(order[i - 1]) for i in range(1, p))
    if collective == "reduce":
        order = order[::-1]
    return Pattern(p, (ChainSteps(order[:-1], order[1:], np.full(p - 1, max(blocks)),
                                  block_bytes=blocks, combine=collective == "reduce"),))


def _machines(p):
    G = crossbar(nodes=p)
    names = map_ranks(G, p, "block")
    fabric = CrossbarFabric(G.graph["params"])
    yield fabric, fabric.host_index(names), model_parameters(G, names, HOCKNEY)[0]
    # consecutive ranks of a fat-tree: hops cross leaf and spine links, none shared
    T = fat_tree(levels=2, down_ports=[4, 8], up_ports=[1, 2], bandwidth_Bps=1e9,
                 latency_s=1e-6)
    names = map_ranks(T, p, "block")
    fabric = FatTreeFabric(T.graph["params"])
    yield fabric, fabric.host_index(names), HOCKNEY.model_network(0, 0)


@pytest.mark.parametrize("collective", ["bcast", "reduce"])
@pytest.mark.parametrize("p", [2, 3, 7, 19])
def test_the_chain_step_gives_the_explicit_patterns_time(collective, p):
    builder = trees.PATTERNS[(collective, "pipeline")]
    for count, params in [(1, AlgorithmParams()), (1001, AlgorithmParams()),
                          (1000, AlgorithmParams(block_count=7)),
                          (4096, AlgorithmParams(segment_bytes=1000))]:
        for root in sorted({0, p - 1, p // 2}):
            for fabric, hosts, net in _machines(p):
                for gamma in (0.0, 1e-9):
                    fabric.gamma_s_per_byte = gamma
                    explicit = builder(p, count, elem_bytes=8, root=root, params=params)
                    assert not any(isinstance(s, ChainSteps) for s in explicit.steps)
                    chain = _chain(collective, p, count, root, params)
                    assert chain.messages == explicit.messages
                    want = pattern_time(explicit, hosts, fabric, net)
                    got = pattern_time(chain, hosts, fabric, net)
                    assert got == pytest.approx(want, rel=1e-12), (count, params, root, gamma)


@pytest.mark.parametrize("collective", ["bcast", "reduce"])
def test_the_chain_step_pays_each_isends_o_s_as_the_explicit_pattern(collective):
    # Hydra's profile: o_s = o_r = 0.25 us, eager below 64,000 B; blocks of 128,000 B
    profile = load_profile("seed003_openmpi_opa")
    G = crossbar(nodes=6)
    names = map_ranks(G, 6, "block")
    fabric = CrossbarFabric(G.graph["params"])
    net = profile.model_network(0.0, 0.0, 1e-10)
    fabric.gamma_s_per_byte = 1e-10
    params = AlgorithmParams(block_count=5)
    for root in (0, 4):
        explicit = trees.PATTERNS[(collective, "pipeline")](6, 80000, elem_bytes=8, root=root,
                                                          params=params)
        chain = _chain(collective, 6, 80000, root, params)
        hosts = fabric.host_index(names)
        want = pattern_time(explicit, hosts, fabric, net)
        assert pattern_time(chain, hosts, fabric, net) == pytest.approx(want, rel=1e-12)


def test_the_builder_makes_a_chain_step_above_its_threshold(monkeypatch):
    monkeypatch.setattr(trees, "CHAIN_STEP_MESSAGES", 10)
    pattern = trees.PATTERNS[("reduce", "pipeline")](5, 1000, elem_bytes=8, root=2,
                                                     params=AlgorithmParams(block_count=4))
    (step,) = pattern.steps
    assert isinstance(step, ChainSteps) and step.combine
    assert step.src.tolist() == [1, 0, 4, 3] and step.dst.tolist() == [0, 4, 3, 2]
    assert step.block_bytes.tolist() == [2000] * 4 and pattern.messages == 16


def test_eager_blocks_are_refused_in_one_sentence():
    G = crossbar(nodes=4)
    names = map_ranks(G, 4, "block")
    fabric = CrossbarFabric(G.graph["params"])
    net = load_profile("seed003_openmpi_opa").model_network(1e-6, 1e-9)
    chain = _chain("bcast", 4, 1000, 0, AlgorithmParams(block_count=10))
    with pytest.raises(PatternTooLarge, match="eager blocks"):
        pattern_time(chain, fabric.host_index(names), fabric, net)


def test_a_chain_cannot_be_expanded_or_malformed():
    with pytest.raises(ValueError, match="follow one another"):
        ChainSteps([0, 2], [1, 3], [8, 8], block_bytes=[8])
    with pytest.raises(ValueError, match="cannot be run"):
        ChainSteps([0, 1], [1, 2], [8, 8], block_bytes=[8]).parts()


def test_hops_that_share_links_are_refused_in_one_line(monkeypatch, capsys):
    # random ranks of a tapered fat-tree: some up-links carry two hops
    from collsim import cli

    monkeypatch.setattr(trees, "CHAIN_STEP_MESSAGES", 10)
    argv = ["predict", "--platform", "fat-tree", "--levels", "2", "--down-ports", "8,8",
            "--up-ports", "1,2", "--np", "64", "--mapping", "random", "--coll", "bcast",
            "--alg", "pipeline", "--bytes", "1MiB"]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "share links" in err[0], err
    # consecutive ranks: answered, and as the explicit pattern answers
    block = argv[:argv.index("--mapping")] + argv[argv.index("--mapping") + 2:] + ["--json"]
    assert cli.main(block) == 0


def test_the_builders_blocks_are_the_chain_trees_plan(monkeypatch):
    # the builder plans the blocks without building the million-node tree
    monkeypatch.setattr(trees, "CHAIN_STEP_MESSAGES", 0)
    for p in (2, 17, 1000):
        for count, params in [(1000, AlgorithmParams()), (2097152, AlgorithmParams()),
                              (131072, AlgorithmParams(alpha_over_beta_bytes=12500.0)),
                              (131072, AlgorithmParams(segment_bytes=8192))]:
            for collective in ("bcast", "reduce"):
                (step,) = trees.PATTERNS[(collective, "pipeline")](
                    p, count, elem_bytes=8, root=p - 1, params=params).steps
                _, blocks = _pipelined.tree_and_blocks("chain", p, count, elem_bytes=8,
                                                       root=p - 1, params=params,
                                                       segmented=True)
                assert step.block_bytes.tolist() == list(blocks)
