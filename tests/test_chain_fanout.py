"""The chain algorithms' fan-out (issue 13, seed 002): Open MPI's chain tree,
built the same in C and Python, correct results, exact models, bad values refused.

Open MPI's chain (``ompi_coll_base_topo_build_chain``) with fan-out f: the root
heads min(f, p - 1) chains of consecutive relative ranks, the first
(p - 1) mod f of them one rank longer.  Open MPI's forced chain takes the MCA
default ``coll_tuned_<collective>_algorithm_chain_fanout`` = 4; collsim's
default is 1 (the single chain).
"""

import subprocess
import sys

import pytest

from collsim.analysis.models import NetworkParams, predict
from collsim.analysis.trees import tree, tree_node
from collsim.errors import CollsimError
from collsim.harness import find_algorithm, simulate
from collsim.params import AlgorithmParams
from collsim.platforms import crossbar, map_ranks
from collsim.profiles import load_profile
from collsim.runner import RunSpec, run

SIZES = [1, 2, 3, 5, 8, 9, 12, 13, 17, 64, 100]
FANOUTS = [1, 2, 3, 4, 5, 32]


@pytest.fixture(scope="module")
def hockney():
    return load_profile("hockney")


def dump_chain(size, root, fanout, hockney):
    rows, status = simulate(crossbar(nodes=1), ["node-0"], hockney,
                            ["--dump-tree", "chain", "--np", str(size), "--root", str(root),
                             "--chain-fanout", str(fanout)],
                            what=f"--dump-tree chain --chain-fanout {fanout}")
    assert status == 0
    (row,) = rows
    return row


@pytest.mark.parametrize("fanout", FANOUTS)
def test_c_and_python_build_the_same_chain_tree(fanout, hockney):
    for size in SIZES:
        for root in sorted({0, size // 2, size - 1}):
            row = dump_chain(size, root, fanout, hockney)
            mine = tree("chain", size=size, root=root, chain_fanout=fanout)
            for node, twin in zip(row["nodes"], mine, strict=True):
                assert (node["parent"], tuple(node["children"]), node["depth"],
                        node["height"]) == (twin.parent, twin.children, twin.depth,
                                            twin.height), (size, root, fanout, node)


@pytest.mark.parametrize("size, fanout, heads, height", [
    (9, 4, (1, 3, 5, 7), 2),           # 8 ranks in 4 chains of 2
    (12, 4, (1, 4, 7, 10), 3),         # 11 = 3 + 3 + 3 + 2: the last chain is short
    (13, 5, (1, 4, 7, 9, 11), 3),      # 12 = 3 + 3 + 2 + 2 + 2: two long chains
    (256, 4, (1, 65, 129, 193), 64),   # seed 002's largest run: 255 = 64 + 64 + 64 + 63
    (5, 8, (1, 2, 3, 4), 1),           # fan-out > p - 1: the root sends to everyone
    (7, 1, (1,), 6),                   # the single chain
])
def test_open_mpi_layout(size, fanout, heads, height):
    """Which ranks head the chains and how long they are, by Open MPI's rules
    (read in v4.1.4, coll_base_topo.c): chain c starts at 1 + c L - max(0, c - m),
    L = ceil((p - 1) / f), m = (p - 1) mod f (m = f when f divides p - 1)."""
    nodes = tree("chain", size=size, chain_fanout=fanout)
    assert nodes[0].children == heads
    assert nodes[0].height == height
    for rank in range(1, size):
        assert nodes[rank].parent == (0 if rank in heads else rank - 1)
        assert len(nodes[rank].children) <= 1
    # every rank is reached exactly once
    reached = [child for node in nodes for child in node.children]
    assert sorted(reached) == list(range(1, size))


def test_fanout_one_is_the_plain_chain():
    for size in SIZES:
        for root in sorted({0, size - 1}):
            assert tree("chain", size=size, root=root, chain_fanout=1) == tree(
                "chain", size=size, root=root)


@pytest.mark.parametrize("collective", ["bcast", "reduce"])
@pytest.mark.parametrize("fanout", [1, 2, 4, 12])
def test_results_are_correct(collective, fanout, hockney):
    """Odd and even p, every root of p = 7, counts 0 to 65537; fan-out 12 exceeds p - 1."""
    G = crossbar(nodes=16)
    for p in (1, 2, 7, 13):
        roots = range(p) if p == 7 else sorted({0, p // 2, p - 1})
        ops = ["sum", "max"] if collective == "reduce" else ["sum"]
        rows, status = simulate(
            G, map_ranks(G, p), hockney,
            ["--coll", collective, "--alg", "chain", "--chain-fanout", str(fanout),
             "--count", "0,1,2,17,1000,65537", "--dtype", "int32,double", "--op", ",".join(ops),
             "--root", ",".join(map(str, roots))],
            what=f"{collective}/chain p={p} fan-out {fanout}")
        assert status == 0
        assert rows and all(row["check"] == "ok" for row in rows), rows[:2]
        assert {row["params"]["chain_fanout"] for row in rows} == {fanout}
        assert len(rows) == 6 * 2 * len(ops) * len(roots)


def test_hand_computed_p9_fanout4(hockney):
    """p = 9, fan-out 4, 8 B on the crossbar under hockney.

    The crossbar's route is two links of 1 us and 12.5 GB/s: alpha = 2 us,
    beta = 0.08 ns/B; hockney adds a 16 B envelope, so a message carries 24 B.
    Open MPI's layout: the root heads the chains 1-2, 3-4, 5-6, 7-8.

    - the root's four messages to 1, 3, 5, 7 start together and share its
      link: alpha + 4 * 24 B * beta = 2 us + 7.68 ns = 2.00768 us;
    - each head passes the vector on: alpha + 24 B * beta = 2.00192 us.

    T = 2.00768 + 2.00192 = 4.0096 us (the single chain: 8 * 2.00192 = 16.01536 us).
    """
    G = crossbar(nodes=9)
    spec = RunSpec("bcast", "chain", 9, (8,), params=AlgorithmParams(chain_fanout=4))
    (row,), status = run(spec, G, hockney, platform="crossbar")
    assert status == 0 and row["check"] == "ok"
    assert row["time_s"] == pytest.approx(4.0096e-6, rel=1e-9)
    assert row["model_s"] == pytest.approx(4.0096e-6, rel=1e-9)
    single = RunSpec("bcast", "chain", 9, (8,))
    (row,), _ = run(single, G, hockney, platform="crossbar")
    assert row["time_s"] == pytest.approx(16.01536e-6, rel=1e-9)


@pytest.mark.parametrize("collective", ["bcast", "reduce"])
@pytest.mark.parametrize("p", [13, 64])
def test_model_is_exact_with_fanout_4(collective, p, hockney):
    G = crossbar(nodes=64)
    spec = RunSpec(collective, "chain", p, (8, 16 << 10, 1 << 20), root=p // 3,
                   params=AlgorithmParams(chain_fanout=4))
    rows, status = run(spec, G, hockney, platform="crossbar")
    assert status == 0
    for row in rows:
        assert row["check"] == "ok" and row["model_class"] == "exact"
        assert row["time_s"] == pytest.approx(row["model_s"], rel=1e-6), row["bytes"]


def test_the_default_is_one_chain_published_by_collbench():
    for collective in ("bcast", "reduce"):
        entry = find_algorithm(collective, "chain")
        assert entry["parameters"] == ["chain_fanout"]
        assert entry["parameter_defaults"] == {"chain_fanout": 1}
        assert "chain_fanout" in find_algorithm(collective, "pipeline")["takes_no"]
    net = NetworkParams(alpha_s=2e-6, beta_s_per_byte=8e-11, gamma_s_per_byte=0.0,
                        envelope_bytes=16)
    given = predict("bcast", "chain", 9, 8, net, params=AlgorithmParams(chain_fanout=1))
    assert predict("bcast", "chain", 9, 8, net).time_s == given.time_s
    assert given.time_s == pytest.approx(8 * (2e-6 + 24 * 8e-11), rel=1e-12)


@pytest.mark.parametrize("value", ["0", "-1", "four"])
def test_cli_refuses_a_bad_fanout(value):
    result = subprocess.run(
        [sys.executable, "-m", "collsim", "run", "--np", "4", "--coll", "bcast", "--alg", "chain",
         "--bytes", "8", f"--chain-fanout={value}"],
        capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "chain fan-out" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_fanout_for_an_algorithm_without_chains_is_refused(hockney):
    spec = RunSpec("bcast", "pipeline", 4, (8,), params=AlgorithmParams(chain_fanout=2))
    with pytest.raises(CollsimError, match="takes no chain fan-out"):
        run(spec, crossbar(nodes=4), hockney, platform="crossbar")


def test_bad_values_in_python():
    with pytest.raises(ValueError, match=r"chain_fanout must be an integer in 1..32 \(0: the default\)"):
        AlgorithmParams(chain_fanout=-1)
    with pytest.raises(ValueError, match="chain_fanout must be an integer in 1..32"):
        tree_node("chain", rank=0, size=4, chain_fanout=33)
    with pytest.raises(ValueError, match="shapes the chain tree only"):
        tree_node("binary", rank=0, size=4, chain_fanout=2)


def test_the_reduce_model_ends_on_long_chains():
    """The root's two-in-flight replay once looped forever when its clock (a long
    chain's arrival) dwarfed a message's work: 4 B at 128 and 256 ranks."""
    net = NetworkParams(alpha_s=2e-6, beta_s_per_byte=8e-11, envelope_bytes=16)
    for p in (128, 256):
        longest = -(-(p - 1) // 4)
        hop_s = 2e-6 + 20 * 8e-11
        time_s = predict("reduce", "chain", p, 4, net, elem_bytes=4,
                         params=AlgorithmParams(chain_fanout=4)).time_s
        # the heads' vectors reach the root after L hops, two at a time on its
        # link: the third and fourth start only once the root posts their
        # receives, one latency later
        assert longest * hop_s < time_s <= (longest + 2) * hop_s


def test_a_rules_file_carries_the_fanout():
    from collsim.rules import format_rules, parse_rules, rule_from_use

    rule = rule_from_use("bcast:chain:chain_fanout=4")
    assert rule.params.chain_fanout == 4
    (back,) = parse_rules(format_rules([rule]))
    assert back.params.chain_fanout == 4
