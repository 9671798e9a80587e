"""The project's modules import one another without a cycle (issue 18).

Every ``import`` statement is read, at module level and inside functions, so
a cycle hidden in a function body counts too.
"""

import ast
from pathlib import Path

import networkx as nx

from collsim.harness import REPO_ROOT

ROOT = REPO_ROOT
PACKAGES = {  # import name -> folder (pyproject.toml, [tool.scikit-build] wheel.packages)
    "collsim": "sim/collsim",
    "collsim.platforms": "platforms",
    "collsim.analysis": "analysis",
    "collsim.analysis.models": "analysis/models",
    "collsim.analysis.network": "analysis/network",
}


def _modules() -> dict[str, Path]:
    modules = {}
    for package, folder in PACKAGES.items():
        for path in (ROOT / folder).glob("*.py"):
            modules[package if path.stem == "__init__" else f"{package}.{path.stem}"] = path
    return modules


def import_graph() -> nx.DiGraph:
    """Module -> the project modules it imports (``from . import x`` counts as x, not the package)."""
    modules = _modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        package = name if path.stem == "__init__" else name.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(parts + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                           for alias in node.names]
            else:
                continue
            graph.add_edges_from((name, target) for target in targets if target in modules and target != name)
    return graph


def test_no_import_cycle():
    cycles = list(nx.simple_cycles(import_graph()))
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c + [c[0]]) for c in cycles)


def test_the_graph_sees_imports_inside_functions():
    graph = import_graph()
    assert graph.has_edge("collsim.analysis.models.allreduce", "collsim.analysis.models.reduce")
    assert graph.number_of_nodes() > 40
