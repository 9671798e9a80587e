"""`--timing-only`: shared buffers, no data, no check, and the same simulated time.

A timing-only run gives each rank buffers that all ranks share (SMPI's shared
malloc) and computes no local reduction (it only charges it), so its result is
garbage; the claim is that no algorithm's messages or charges depend on the
values, so its simulated time is the checked run's, to the last bit.  Held for
every registry entry at p = 13 (16 for those restricted to powers of two)
and 64 on a crossbar with a non-zero gamma, at
sizes that exercise an element count not divisible by p and several segments.
"""

import pytest

from collsim.harness import registry
from collsim.runner import RunSpec, buffer_blocks, run

ALGORITHMS = [(entry["collective"], entry["algorithm"]) for entry in registry()]
POWER_OF_TWO = {(entry["collective"], entry["algorithm"]) for entry in registry()
                if "power_of_two" in entry["restrictions"]}
SIZES_BYTES = (8, 8008, 256 << 10)


def sizes_for(collective, np):
    """SIZES_BYTES, or where a rank's buffer holds np blocks (collectives.def) blocks of
    8 B, 1000 B (125 doubles) and 256 KiB / np: the same bytes per rank."""
    blocks = buffer_blocks(collective, np)
    return SIZES_BYTES if blocks == 1 else (8, 1000, max(8, (256 << 10) // blocks // 8 * 8))


@pytest.mark.parametrize("collective, algorithm", ALGORITHMS)
def test_timing_only_gives_the_checked_runs_time(crossbar64, hockney, collective, algorithm):
    for np in ((16, 64) if (collective, algorithm) in POWER_OF_TWO else (13, 64)):
        sizes = sizes_for(collective, np)
        checked, status = run(RunSpec(collective, algorithm, np, sizes, root=np // 2),
                              crossbar64, hockney, platform="crossbar")
        assert status == 0 and all(row["check"] == "ok" for row in checked)
        timing, status = run(RunSpec(collective, algorithm, np, sizes, root=np // 2,
                                     timing_only=True),
                             crossbar64, hockney, platform="crossbar")
        assert status == 0
        assert [row["check"] for row in timing] == ["skipped"] * len(sizes)
        assert all(row["timing_only"] for row in timing)
        assert [row["time_s"] for row in timing] == [row["time_s"] for row in checked], (
            f"{collective}/{algorithm} np={np}")


def test_no_algorithm_is_left_out():
    assert len(ALGORITHMS) == len(registry())


def test_a_timing_only_run_beyond_the_kernels_map_limit_is_refused_first(monkeypatch):
    """With --timing-only every buffer is an SMPI shared mapping: 16,384 ranks crossed
    vm.max_map_count = 65530 and aborted inside SimGrid; now one line says so first."""
    from collsim import resources
    from collsim.errors import CollsimError

    monkeypatch.setattr(resources, "memory_map_limit", lambda: 65530)
    with pytest.raises(CollsimError, match=r"needs about 90,112 memory maps.*vm.max_map_count"):
        resources.check_simulation_memory(16384, 8, timing_only=True)
    resources.check_simulation_memory(8192, 8, timing_only=True)  # fits
    resources.check_simulation_memory(16384, 8)  # private buffers: no shared maps
