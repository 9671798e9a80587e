"""The memory a simulation needs, checked before it starts.

smpirun holds every rank in one process: per rank a few tens of KiB of SMPI
state (measured: 31 KiB per rank at np = 512) and collbench's buffers, about
three times the message (send, receive, reference; measured: 11.8 MiB per rank
at 4 MiB), more with virtual contributors (their inputs).  A run that would
not fit is refused at once with the memory it would need, instead of swapping
for minutes.

The other limit is the number of memory maps Linux allows one process
(``vm.max_map_count``, 65530 by default): SimGrid maps each rank's stack (two
maps with its guard page), and with ``--timing-only`` every buffer comes from
SMPI's shared malloc, one map per MiB of buffer per rank.  16,384 ranks with
``--timing-only`` need more than 65530 and would abort inside SimGrid.
"""

from __future__ import annotations

from pathlib import Path

from collsim.errors import CollsimError
from collsim.platforms.size import machine_memory_bytes

__all__ = ["simulation_memory_bytes", "check_simulation_memory", "memory_map_limit", "memory_maps"]

BASE_BYTES = 64 << 20
BYTES_PER_RANK = 64 << 10
BUFFERS_PER_BYTE = 4
# maps of smpirun's own (libraries, heap) before the ranks', and per rank: the
# stack with its guard page, and with --timing-only the shared buffers (the
# harness's send and receive buffers, up to two scratch buffers of an algorithm)
BASE_MAPS = 8192
STACK_MAPS_PER_RANK = 2
SHARED_BUFFERS_PER_RANK = 4
SHARED_MALLOC_BLOCK_BYTES = 1 << 20  # SMPI's smpi/shared-malloc-blocksize default


def memory_map_limit() -> int:
    """``vm.max_map_count``: the memory maps Linux allows one process (65530 if unknown)."""
    try:
        return int(Path("/proc/sys/vm/max_map_count").read_text())
    except (OSError, ValueError):
        return 65530


def memory_maps(np: int, *, guarded: bool = True, shared_bytes: int | None = None) -> int:
    """An upper estimate of smpirun's memory maps for np ranks: their stacks (two maps
    each with the guard page, one without) and, for a ``--timing-only`` run whose
    largest buffer is ``shared_bytes``, the shared buffers.

    Examples
    --------
    >>> memory_maps(65536)
    139264
    >>> memory_maps(16384, guarded=False, shared_bytes=8)
    90112
    """
    per_rank = STACK_MAPS_PER_RANK if guarded else STACK_MAPS_PER_RANK // 2
    if shared_bytes is not None:
        per_rank += SHARED_BUFFERS_PER_RANK * max(1, -(-shared_bytes // SHARED_MALLOC_BLOCK_BYTES))
    return BASE_MAPS + np * per_rank


def simulation_memory_bytes(np: int, max_bytes: int, contributors: int = 1, *,
                            timing_only: bool = False) -> int:
    """An upper estimate of smpirun's memory for np ranks at max_bytes per rank
    (``timing_only``: the buffers are shared by all ranks, counted once).

    Examples
    --------
    >>> simulation_memory_bytes(16, 0) == 64 * 2 ** 20 + 16 * 64 * 2 ** 10
    True
    """
    buffers = (BUFFERS_PER_BYTE + max(contributors, 1) - 1) * max_bytes
    if timing_only:
        return BASE_BYTES + np * BYTES_PER_RANK + buffers
    return BASE_BYTES + np * (BYTES_PER_RANK + buffers)


def check_simulation_memory(np: int, max_bytes: int, contributors: int = 1, *,
                            timing_only: bool = False) -> None:
    """Refuse np ranks at max_bytes whose simulation would not fit in this machine's
    memory, saying what it would need (and whether ``--timing-only`` would fit)."""
    maps = memory_maps(np, guarded=False, shared_bytes=max_bytes)
    if timing_only and maps > memory_map_limit():
        raise CollsimError(
            f"--timing-only on {np:,} ranks at {max_bytes:,} bytes needs about {maps:,} memory maps "
            f"(SMPI's shared buffers); this machine allows {memory_map_limit():,} "
            f"(vm.max_map_count): raise it (sysctl -w vm.max_map_count={2 * maps}) or run "
            "without --timing-only")
    need = simulation_memory_bytes(np, max_bytes, contributors, timing_only=timing_only)
    have = machine_memory_bytes()
    if need <= have:
        return
    message = (f"np={np:,} at {max_bytes:,} bytes per rank would need about "
               f"{need / 2 ** 30:.3g} GiB of memory; this machine has {have / 2 ** 30:.3g} GiB")
    if not timing_only:
        shared = simulation_memory_bytes(np, max_bytes, contributors, timing_only=True)
        if shared <= have:
            message += (f" (with --timing-only, buffers shared by all ranks: about "
                        f"{shared / 2 ** 30:.3g} GiB)")
    raise CollsimError(message)
