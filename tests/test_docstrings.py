"""The examples in the docstrings run and print what they say."""

import doctest
import importlib

import pytest

MODULES = [
    "collsim.units",
    "collsim.platforms.crossbar",
    "collsim.platforms.mapping",
    "collsim.platforms.network",
    "collsim.platforms.routing",
    "collsim.platforms.fat_tree",
    "collsim.platforms.dragonfly",
    "collsim.platforms.multicore",
    "collsim.platforms.dual_rail",
    "collsim.platforms.catalog",
    "collsim.analysis.models",
    "collsim.analysis.datagen",
    "collsim.analysis.network.pattern",
    "collsim.repro",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0
    assert result.failed == 0
