"""The trees of the tree algorithms: the C builders (collbench --dump-tree) and
collsim.analysis.trees build the same trees, and each tree has the shape its
algorithms rely on (spans every rank once, rank order for in-order and
post-order trees)."""

import doctest
import importlib

import pytest

from collsim.analysis.trees import KINDS, dual_first_size, in_order_root, tree, tree_node
from collsim.platforms import crossbar
from collsim.harness import simulate
from collsim.runner import CollsimError

SIZES = [1, 2, 3, 4, 5, 7, 8, 13, 16, 31, 32, 33, 64, 100]
ROTATED = ("binomial", "binary", "chain")


def dump(kind, size, root=0):
    rows, status = simulate(crossbar(nodes=1), ["node-0"], _hockney(),
                            ["--dump-tree", kind, "--np", str(size), "--root", str(root)],
                            what=f"--dump-tree {kind}")
    assert status == 0
    (row,) = rows
    return row


def _hockney():
    from collsim.profiles import load_profile
    return load_profile("hockney")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("size", SIZES)
def test_c_and_python_build_the_same_tree(kind, size):
    roots = sorted({0, size - 1, size // 2}) if kind in ROTATED else [0]
    for root in roots:
        row = dump(kind, size, root)
        assert (row["tree"], row["np"], row["root"]) == (kind, size, root)
        python = tree(kind, size=size, root=root)
        assert [n["rank"] for n in row["nodes"]] == list(range(size))
        for node, mine in zip(row["nodes"], python):
            assert (node["parent"], tuple(node["children"]), node["depth"], node["height"]) == (
                mine.parent, mine.children, mine.depth, mine.height), (kind, size, root, node)


def test_dump_tree_rejects_bad_input():
    with pytest.raises(CollsimError):
        dump("ternary", 4)
    with pytest.raises(CollsimError):
        dump("binary", 4, root=4)


def subtree(nodes, rank):
    out = [rank]
    for child in nodes[rank].children:
        out += subtree(nodes, child)
    return out


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("size", SIZES)
def test_tree_spans_every_rank_once(kind, size):
    for root in sorted({0, size - 1, size // 2}):
        nodes = tree(kind, size=size, root=root)
        roots = [r for r, n in enumerate(nodes) if n.parent < 0]
        if kind == "dual_postorder":
            assert roots == sorted({dual_first_size(size) - 1, size - 1})
        elif kind == "in_order_binary":
            assert roots == [in_order_root(size)]
        else:
            assert roots == [root]
        reached = sorted(r for top in roots for r in subtree(nodes, top))
        assert reached == list(range(size))
        for rank, node in enumerate(nodes):
            for child in node.children:
                assert nodes[child].parent == rank
                assert nodes[child].depth == node.depth + 1
        assert max(n.depth for n in nodes) == nodes[0].height


@pytest.mark.parametrize("size", SIZES)
def test_in_order_subtrees_are_rank_ranges_left_node_right(size):
    nodes = tree("in_order_binary", size=size)
    for rank, node in enumerate(nodes):
        left = [c for c in node.children if c < rank]
        right = [c for c in node.children if c > rank]
        assert len(left) <= 1 and len(right) <= 1 and node.children == tuple(left + right)
        order = []
        for part in left:
            order += sorted(subtree(nodes, part))
        order.append(rank)
        for part in right:
            order += sorted(subtree(nodes, part))
        assert order == list(range(min(order), max(order) + 1))


@pytest.mark.parametrize("size", SIZES)
def test_postorder_subtrees_are_rank_ranges_ending_at_the_node(size):
    """First child = the adjacent right subtree, second = the left one: combining
    first-child op own, then second-child op that, keeps rank order (seed 003)."""
    nodes = tree("dual_postorder", size=size)
    first = dual_first_size(size)
    assert max(n.depth for n in nodes[:first]) == nodes[0].height
    for rank, node in enumerate(nodes):
        covered = [rank]
        for child in node.children:          # each child's range precedes what is covered
            part = sorted(subtree(nodes, child))
            assert part[-1] == min(covered) - 1
            covered = part + covered
        assert covered == list(range(covered[0], rank + 1))
        assert len(node.children) <= 2


def test_binomial_matches_the_existing_bcast_order():
    assert tree_node("binomial", rank=0, size=8).children == (4, 2, 1)
    assert tree_node("binomial", rank=4, size=8).children == (6, 5)
    assert tree_node("binomial", rank=3, size=8, root=3).children == (7, 5, 4)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="kind"):
        tree_node("ternary", rank=0, size=4)
    with pytest.raises(ValueError, match="rank"):
        tree_node("binary", rank=4, size=4)
    with pytest.raises(ValueError, match="size"):
        tree("binary", size=0)


@pytest.mark.parametrize("name", ["collsim.analysis.trees", "collsim.analysis.segments",
                                  "collsim.analysis.schedule"])
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
