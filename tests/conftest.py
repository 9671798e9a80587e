"""Shared fixtures: the registry, and running collbench directly under smpirun."""

from __future__ import annotations

import pytest

from collsim.platforms import crossbar
from collsim.profiles import load_profile
from collsim.runner import registry


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
