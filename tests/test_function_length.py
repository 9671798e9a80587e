"""No Python function of collsim is longer than 80 lines, docstrings left out (issue 30):
a longer one does more than one thing, and its next reader has to hold all of it."""

import ast

from collsim.harness import REPO_ROOT

MAX_LINES = 80
FOLDERS = ("sim", "analysis", "platforms")


def function_lengths():
    """(file:line name, lines of the body without its docstring) of every function."""
    for folder in FOLDERS:
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                body = node.body
                if (isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                        and isinstance(body[0].value.value, str)):
                    body = body[1:]
                lines = node.end_lineno - body[0].lineno + 1 if body else 0
                yield f"{path.relative_to(REPO_ROOT)}:{node.lineno} {node.name}", lines


def test_no_function_is_longer_than_80_lines():
    long = {name: lines for name, lines in function_lengths() if lines > MAX_LINES}
    assert long == {}


def test_the_walk_finds_the_functions():
    names = [name for name, _ in function_lengths()]
    assert any(name.endswith(" load_scenario") for name in names) and len(names) > 500
