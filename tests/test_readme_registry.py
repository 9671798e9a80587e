"""The README's table of algorithms is ``collsim list --markdown``, generated from the
registry, so it cannot miss an entry (issue 30).

``.venv/bin/python tests/test_readme_registry.py`` rewrites it after the registry changed.
"""

from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"
BEGIN = "<!-- collsim list --markdown: generated, tests/test_readme_registry.py rewrites it -->\n"
END = "<!-- end of collsim list --markdown -->\n"


def _split(text: str) -> tuple[str, str, str]:
    """The README before the table, the table, and after it."""
    head, rest = text.split(BEGIN, 1)
    table, tail = rest.split(END, 1)
    return head, table, tail


def test_the_readme_table_is_the_registry(entries):
    from collsim.cli import registry_markdown

    _, table, _ = _split(README.read_text())
    assert table == registry_markdown(), (
        "the registry changed: run .venv/bin/python tests/test_readme_registry.py")
    listed = {tuple(line.split(" | ")[:2]) for line in table.splitlines()[2:]}
    assert listed == {(f"| {e['collective']}", f"`{e['algorithm']}`") for e in entries}


if __name__ == "__main__":
    from collsim.cli import registry_markdown

    head, _, tail = _split(README.read_text())
    README.write_text(head + BEGIN + registry_markdown() + END + tail)
