"""Block plans of the pipelined algorithms, built the same way as
``algorithms/common/segment.c``.

Precedence: ``block_count`` K > 0 gives min(K, count) blocks cut as evenly as
whole elements allow (the first ``count % K`` one element longer);
``segment_bytes`` S > 0 gives blocks of ``max(1, S // elem_bytes)`` elements,
the last one shorter; otherwise the pipelining lemma of seed 003 sec. 1.2
picks the count.  For a time ``T(K) = (fill + steady (K - 1)) (alpha + beta n / K)``
the best count is ``K* = sqrt((fill - steady) n beta / (steady alpha))``,
the better of the two integers around it, within ``[1, count]``.  alpha / beta is
``alpha_over_beta_bytes`` (collbench's ``--alpha-over-beta-bytes``, which the
runner sets from the platform), else ``NOMINAL_ALPHA_OVER_BETA_BYTES`` (that of
the default crossbar).

Examples
--------
>>> block_elems(count=10, elem_bytes=8, block_count=3)
[4, 3, 3]
>>> block_elems(count=10, elem_bytes=8, segment_bytes=32)
[4, 4, 2]
>>> optimal_blocks(count=1 << 21, elem_bytes=8, fill_steps=63, steady_steps=1)
204
"""

from __future__ import annotations

import math

__all__ = ["NOMINAL_ALPHA_OVER_BETA_BYTES", "optimal_blocks", "block_elems"]

NOMINAL_ALPHA_OVER_BETA_BYTES = 25000.0


def optimal_blocks(*, count: int, elem_bytes: int, fill_steps: float, steady_steps: float,
                   alpha_over_beta_bytes: float = 0.0) -> int:
    """The pipelining lemma's block count (0 when count is 0); the ratio
    alpha / beta is ``alpha_over_beta_bytes``, or the nominal one when 0."""
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count!r}")
    if count == 0:
        return 0
    n_bytes = float(count) * float(elem_bytes)
    ratio = alpha_over_beta_bytes if alpha_over_beta_bytes > 0 else NOMINAL_ALPHA_OVER_BETA_BYTES
    blocks = 1.0
    if fill_steps > steady_steps and steady_steps > 0:
        # the real optimum, then the better of the integers around it (as in C)
        best = math.sqrt((fill_steps - steady_steps) * n_bytes / (steady_steps * ratio))
        below = max(1.0, float(math.floor(best)))
        above = below + 1.0
        t_below = (fill_steps + steady_steps * (below - 1.0)) * (ratio + n_bytes / below)
        t_above = (fill_steps + steady_steps * (above - 1.0)) * (ratio + n_bytes / above)
        blocks = above if t_above < t_below else below
    return int(min(blocks, float(count)))


def block_elems(*, count: int, elem_bytes: int, block_count: int = 0, segment_bytes: int = 0,
                fill_steps: float = 0.0, steady_steps: float = 1.0,
                alpha_over_beta_bytes: float = 0.0) -> list[int]:
    """Elements in each block of the plan (an empty list when count is 0)."""
    if count < 0:
        raise ValueError(f"count must be >= 0, got {count!r}")
    if elem_bytes < 1:
        raise ValueError(f"elem_bytes must be >= 1, got {elem_bytes!r}")
    if count == 0:
        return []
    if block_count > 0:
        nblocks = min(block_count, count)
    elif segment_bytes > 0:
        per_block = min(max(1, segment_bytes // elem_bytes), count)
        full, rest = divmod(count, per_block)
        return [per_block] * full + ([rest] if rest else [])
    else:
        nblocks = optimal_blocks(count=count, elem_bytes=elem_bytes, fill_steps=fill_steps,
                                 steady_steps=steady_steps,
                                 alpha_over_beta_bytes=alpha_over_beta_bytes)
    base, extra = divmod(count, nblocks)
    return [base + 1] * extra + [base] * (nblocks - extra)
