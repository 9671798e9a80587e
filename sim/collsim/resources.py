"""The memory a simulation needs, checked before it starts.

smpirun holds every rank in one process: per rank a few tens of KiB of SMPI
state (measured: 31 KiB per rank at np = 512) and collbench's buffers, about
three times the message (send, receive, reference; measured: 11.8 MiB per rank
at 4 MiB), more with virtual contributors (their inputs).  A run that would
not fit is refused at once with the memory it would need, instead of swapping
for minutes.
"""

from __future__ import annotations

from collsim.errors import CollsimError
from collsim.platforms.size import machine_memory_bytes

__all__ = ["simulation_memory_bytes", "check_simulation_memory"]

BASE_BYTES = 64 << 20
BYTES_PER_RANK = 64 << 10
BUFFERS_PER_BYTE = 4


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
