"""Shared fixtures: the registry, and running collbench directly under smpirun."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from collsim.platforms import crossbar
from collsim.profiles import load_profile
from collsim.runner import REPO_ROOT, registry


@pytest.fixture(scope="session")
def entries() -> tuple[dict, ...]:
    """The registry as collbench prints it."""
    return registry()


@pytest.fixture(scope="session")
def hockney():
    return load_profile("hockney")


@pytest.fixture(scope="session")
def crossbar64():
    """A 64-node, one-core crossbar: every test rank count fits, one rank per node."""
    return crossbar(nodes=64)


def _build_with_fault(tmp_path, relative_path, old, new):
    """Build collbench from a copy of the sources with `old` replaced by `new` once."""
    source = tmp_path / "src"
    for part in ("algorithms", "sim/collbench"):
        shutil.copytree(REPO_ROOT / part, source / part)
    shutil.copy(REPO_ROOT / "CMakeLists.txt", source / "CMakeLists.txt")
    target = source / relative_path
    text = target.read_text()
    assert text.count(old) == 1, f"fault anchor not found once in {relative_path}"
    target.write_text(text.replace(old, new))
    build = tmp_path / "build"
    env = {key: value for key, value in os.environ.items() if key != "SMPI_PRETEND_CC"}
    # configure-time checks need smpicc to pretend to be a plain compiler; the build must not
    subprocess.run(["cmake", "-S", source, "-B", build, "-DCMAKE_C_COMPILER=smpicc"],
                   check=True, env={**env, "SMPI_PRETEND_CC": "1"}, capture_output=True)
    subprocess.run(["cmake", "--build", build], check=True, env=env, capture_output=True)
    return build / "collbench"


@pytest.fixture
def build_with_fault():
    """Builds a collbench with one planted fault; returns the program's path."""
    return _build_with_fault
