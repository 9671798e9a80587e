"""Seed 000's headline claims hold on its catalog machine under its calibrated profile
(docs/seeds/seed000.md), and the machine's network bandwidth is the minimum of the page's
fit (docs/seeds/seed000.py --fit) on a grid around it."""

from __future__ import annotations

import importlib.util
import math

import pytest

from collsim.harness import REPO_ROOT
from collsim.platforms.catalog import CATALOG, catalog_platform, catalog_profile
from collsim.profiles import load_profile

SCRIPT = REPO_ROOT / "docs" / "seeds" / "seed000.py"


@pytest.fixture(scope="module")
def seed000():
    spec = importlib.util.spec_from_file_location("seed000_page", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _x8_over_x1(seed000, G, collective, np, doubles):
    profile = load_profile(catalog_profile("seed000_qdr320"))
    mapping = f"cyclic:{np // 8}"
    flat = seed000.times_s(G, profile, collective, np, 1, mapping, True, (doubles,))[doubles]
    aware = seed000.times_s(G, profile, collective, np, 0, mapping, True, (doubles,))[doubles]
    return aware / flat


def test_node_aware_faster_from_4KB_and_by_1_5x_at_32768_doubles(seed000):
    """Seed 000 sec. VI.B: faster from 512 doubles on two nodes or more; 2.5-5x at
    32,768 doubles (the issue asks at least 1.5x at 64 ranks); allreduce faster too."""
    G = catalog_platform("seed000_qdr320")
    assert _x8_over_x1(seed000, G, "reduce", 16, 512) < 1.0
    assert _x8_over_x1(seed000, G, "reduce", 64, 512) < 1.0
    at_64 = _x8_over_x1(seed000, G, "reduce", 64, 32768)
    assert at_64 <= 1 / 1.5
    assert _x8_over_x1(seed000, G, "reduce", 16, 32768) > at_64  # the lead grows with p
    assert _x8_over_x1(seed000, G, "allreduce", 64, 32768) < 1.0


def test_log_error_is_zero_inside_the_papers_range(seed000):
    assert seed000.log_error(0.3, 0.2, 0.4) == 0.0
    assert seed000.log_error(0.8, 0.2, 0.4) == pytest.approx(math.log(2))
    assert seed000.log_error(0.1, 0.2, 0.4) == pytest.approx(-math.log(2))


def test_catalog_bandwidth_is_the_fits_minimum(seed000):
    """The rms log error over the fit's targets is lowest at the catalog's 2.4 GB/s among
    its two neighbours on the fit's grid (0.2 GB/s apart)."""
    catalog_Bps = CATALOG["seed000_qdr320"]["network"][1]["bandwidth_Bps"]
    assert catalog_Bps in seed000.FIT_BANDWIDTHS_BPS

    def rms(bandwidth_Bps):
        G = seed000.machine(None, None, bandwidth_Bps)
        errors = [seed000.log_error(_x8_over_x1(seed000, G, c, n, d), low, high)
                  for c, n, d, low, high in seed000.FIT_TARGETS]
        return math.sqrt(sum(e * e for e in errors) / len(errors))

    best = rms(catalog_Bps)
    assert best < rms(catalog_Bps - 2e8) and best < rms(catalog_Bps + 2e8)
    assert math.exp(best) < 1.2  # the page's "a factor 1.15"
