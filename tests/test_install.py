"""What `pip install .` gives: no exact pins, a licence, and a clear word when the C
harness is missing (it is built by `make build`, not by pip)."""

import sys

import pytest

from collsim import harness
from collsim.errors import CollsimError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def test_dependencies_are_ranges_and_the_licence_is_there():
    project = tomllib.loads((harness.REPO_ROOT / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + project["optional-dependencies"]["test"]
    assert requirements and not [r for r in requirements if "==" in r]
    assert project["license"] == "BSD-3-Clause"
    assert "BSD 3-Clause" in (harness.REPO_ROOT / "LICENSE").read_text()


def test_an_installed_collsim_says_how_to_get_collbench(tmp_path, monkeypatch):
    monkeypatch.delenv("COLLSIM_COLLBENCH", raising=False)
    monkeypatch.setattr(harness, "REPO_ROOT", tmp_path / "site-packages")  # no source tree
    with pytest.raises(CollsimError, match="'make build', then set COLLSIM_COLLBENCH="):
        harness.find_collbench()
    monkeypatch.setenv("COLLSIM_COLLBENCH", str(tmp_path / "nothing"))
    with pytest.raises(CollsimError, match="not found at .*nothing \\(COLLSIM_COLLBENCH\\)"):
        harness.find_collbench()
    program = tmp_path / "collbench"
    program.write_bytes(b"")
    monkeypatch.setenv("COLLSIM_COLLBENCH", str(program))
    assert harness.find_collbench() == program
