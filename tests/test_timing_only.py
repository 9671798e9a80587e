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
from collsim.runner import RunSpec, run

ALGORITHMS = [(entry["collective"], entry["algorithm"]) for entry in registry()]
POWER_OF_TWO = {(entry["collective"], entry["algorithm"]) for entry in registry()
                if "power_of_two" in entry["restrictions"]}
SIZES_BYTES = (8, 8008, 256 << 10)


@pytest.mark.parametrize("collective, algorithm", ALGORITHMS)
def test_timing_only_gives_the_checked_runs_time(crossbar64, hockney, collective, algorithm):
    for np in ((16, 64) if (collective, algorithm) in POWER_OF_TWO else (13, 64)):
        checked, status = run(RunSpec(collective, algorithm, np, SIZES_BYTES, root=np // 2),
                              crossbar64, hockney, platform="crossbar")
        assert status == 0 and all(row["check"] == "ok" for row in checked)
        timing, status = run(RunSpec(collective, algorithm, np, SIZES_BYTES, root=np // 2,
                                     timing_only=True),
                             crossbar64, hockney, platform="crossbar")
        assert status == 0
        assert [row["check"] for row in timing] == ["skipped"] * len(SIZES_BYTES)
        assert all(row["timing_only"] for row in timing)
        assert [row["time_s"] for row in timing] == [row["time_s"] for row in checked], (
            f"{collective}/{algorithm} np={np}")


def test_no_algorithm_is_left_out():
    assert len(ALGORITHMS) == len(registry())
