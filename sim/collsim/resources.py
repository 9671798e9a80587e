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


def simulation_memory_bytes(np: int, max_bytes: int, contributors: int = 1) -> int:
    """An upper estimate of smpirun's memory for np ranks at max_bytes per rank.

    Examples
    --------
    >>> simulation_memory_bytes(16, 0) == 64 * 2 ** 20 + 16 * 64 * 2 ** 10
    True
    """
    per_rank = BYTES_PER_RANK + (BUFFERS_PER_BYTE + max(contributors, 1) - 1) * max_bytes
    return BASE_BYTES + np * per_rank


def check_simulation_memory(np: int, max_bytes: int, contributors: int = 1) -> None:
    """Refuse np ranks at max_bytes whose simulation would not fit in this machine's memory."""
    need = simulation_memory_bytes(np, max_bytes, contributors)
    have = machine_memory_bytes()
    if need > have:
        raise CollsimError(f"np={np:,} at {max_bytes:,} bytes per rank would need about "
                           f"{need / 2 ** 30:.3g} GiB of memory; this machine has "
                           f"{have / 2 ** 30:.3g} GiB")
