"""docs/seeds/seed001.py (the seed 001 page's script) runs on a tiny grid, and the
catalog's T3E stands for what the page says it does."""

from __future__ import annotations

import subprocess
import sys

import pytest

from collsim.harness import REPO_ROOT
from collsim.platforms.catalog import CATALOG, catalog_platform, catalog_profile

SCRIPT = REPO_ROOT / "docs" / "seeds" / "seed001.py"


def test_seed001_script_draws_the_map_on_a_tiny_grid(tmp_path):
    done = subprocess.run([sys.executable, str(SCRIPT), "--quick", "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [line.split("\t") for line in (tmp_path / "seed001.tsv").read_text().splitlines()]
    assert rows[0] == ["experiment", "np", "bytes", "algorithm", "time_s", "source",
                       "model_agrees"]
    # 2 process counts x 3 sizes x 5 algorithms, all simulated and equal to their models
    assert len(rows) == 1 + 2 * 3 * 5
    assert {r[5] for r in rows[1:]} == {"simulated"} and {r[6] for r in rows[1:]} == {"yes"}
    time = {(int(r[1]), int(r[2]), r[3]): float(r[4]) for r in rows[1:]}
    # seed 001 sec. 3: recursive doubling is the fastest at 8 bytes
    assert min(time[4, 8, a] for a in ("ring", "rabenseifner", "reduce_bcast")) \
        > time[4, 8, "recursive_doubling"]
    # at p = 4 halving+doubling and binary blocks are one algorithm (sec. 2.6)
    assert time[4, 65536, "rabenseifner"] == time[4, 65536, "binary_blocks"]
    assert "simulated rows off their model: 0" in done.stdout
    assert (tmp_path / "seed001.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_seed001_t3e900_is_the_papers_machine():
    G = catalog_platform("seed001_t3e900")
    hosts = [h for h, kind in G.nodes(data="kind") if kind == "host"]
    assert len(hosts) == 540 and all(G.nodes[h]["cores"] == 1 for h in hosts)
    params = CATALOG["seed001_t3e900"]["params"]
    # two links of a crossbar route: the 5 us of Cray MPI; 300 MB/s per PE
    assert 2 * params["latency_s"] == 5e-6 and params["bandwidth_Bps"] == 300e6
    assert catalog_profile("seed001_t3e900") == "hockney"
    assert set(CATALOG["seed001_t3e900"]["sources"]) >= {"nodes", "topology", "bandwidth_Bps",
                                                         "latency_s", "gamma_s_per_byte"}


def test_at_the_simplex_end_the_tree_ties_recursive_doubling(tmp_path):
    """Seed 001 sec. 2.1 at f_alpha = f_beta = 0.5 (half-duplex links, an exchange 5 us
    dearer than a one-way message; the page's ``simplex`` experiment): the tree's
    2 ceil(lg p) one-way messages cost exactly recursive doubling's exchanges, at p = 2^k
    and not, and both beat halving + doubling up to 1 KB and lose to it at 8 KiB."""
    import dataclasses

    from collsim.platforms.crossbar import crossbar
    from collsim.profiles import load_profile
    from collsim.runner import RunSpec, run

    params = dict(CATALOG["seed001_t3e900"]["params"], nodes=8)
    G = crossbar(**params, half_duplex=True)
    profile = dataclasses.replace(load_profile("hockney"), name="simplex", send_overhead_s=5e-6)
    sizes = (8, 1024, 8192)
    times = {}
    for algorithm in ("recursive_doubling", "reduce_bcast", "rabenseifner"):
        for p in (5, 8):
            rows, status = run(RunSpec("allreduce", algorithm, p, sizes, check=False,
                                       timing_only=True), G, profile, platform="t3e_simplex")
            assert status == 0
            times.update({(algorithm, p, r["bytes"]): r["time_s"] for r in rows})
    for p in (5, 8):
        for n in sizes:
            assert times["reduce_bcast", p, n] == pytest.approx(
                times["recursive_doubling", p, n], rel=1e-12)
        assert times["recursive_doubling", p, 1024] < times["rabenseifner", p, 1024]
        assert times["recursive_doubling", p, 8192] > times["rabenseifner", p, 8192]
