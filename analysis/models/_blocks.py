"""The binary blocks schedule of seed 001 sec. 2.6, replayed on per-rank clocks.

The Python twin of ``algorithms/common/blocks.{h,c}``: p is cut into
power-of-two blocks by its binary representation, largest first; each block
halves the vector (recursive halving, distance doubling, the rank with bit s
clear keeping the lower half); block b+1 (2^m ranks) joins block b when block
b is about to take its step m, each rank i of block b+1 sending its range to
rank ``i + (2^(k-m) - 1) 2^m`` of block b (k = lg of block b's size), which
combines it.  The allgather of allreduce mirrors this.  See the C header for
why the ranges nest and why rank order is kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._replay import Clocks


@dataclass(frozen=True)
class Block:
    """One block: its first rank and lg of its size."""

    first: int
    lg: int

    @property
    def size(self) -> int:
        return 1 << self.lg


def layout(p: int) -> list[Block]:
    """The blocks of p ranks, largest first.

    Examples
    --------
    >>> [(b.first, b.size) for b in layout(13)]
    [(0, 8), (8, 4), (12, 1)]
    """
    if p < 1:
        raise ValueError(f"p must be >= 1, got {p!r}")
    blocks, first = [], 0
    for k in reversed(range(p.bit_length())):
        if p >> k & 1:
            blocks.append(Block(first, k))
            first += 1 << k
    return blocks


def halving_range(count: int, j: int, s: int) -> tuple[int, int]:
    """Range [lo, hi) local rank j holds after s halvings of count elements.

    Examples
    --------
    >>> halving_range(5, 3, 2)
    (3, 5)
    """
    lo, hi = 0, count
    for step in range(s):
        mid = lo + (hi - lo) // 2
        if j >> step & 1:
            lo = mid
        else:
            hi = mid
    return lo, hi


def joiner(blocks: list[Block], b: int, i: int) -> int:
    """Rank of block b that joins with local rank i of block b + 1."""
    k, m = blocks[b].lg, blocks[b + 1].lg
    return blocks[b].first + i + (((1 << (k - m)) - 1) << m)


def _width(count: int, j: int, s: int) -> int:
    lo, hi = halving_range(count, j, s)
    return hi - lo


def replay_reduce_scatter(clocks: Clocks, blocks: list[Block], count: int) -> None:
    """Replay the reduce-scatter with the joins (blocks.c), smallest block first."""
    for b in reversed(range(len(blocks))):
        block = blocks[b]
        join_step = blocks[b + 1].lg if b + 1 < len(blocks) else -1
        for s in range(block.lg):
            if s == join_step:
                for i in range(blocks[b + 1].size):
                    width = _width(count, i, s)
                    target = joiner(blocks, b, i)
                    clocks.send(blocks[b + 1].first + i, target, width)
                    clocks.reduce(target, width)
            for j in range(block.size):
                if j >> s & 1:
                    continue
                u = j | 1 << s
                lo, hi = halving_range(count, j, s)
                mid = lo + (hi - lo) // 2
                clocks.exchange(block.first + j, block.first + u, hi - mid, mid - lo)
                clocks.reduce(block.first + j, mid - lo)
                clocks.reduce(block.first + u, hi - mid)


def replay_allgather(clocks: Clocks, blocks: list[Block], count: int) -> None:
    """Replay the allgather with the hand-backs (allreduce_binary_blocks.c), largest block first."""
    for b, block in enumerate(blocks):
        join_step = blocks[b + 1].lg if b + 1 < len(blocks) else -1
        for s in reversed(range(block.lg)):
            for j in range(block.size):
                if j >> s & 1:
                    continue
                u = j | 1 << s
                clocks.exchange(block.first + j, block.first + u,
                                _width(count, j, s + 1), _width(count, u, s + 1))
            if s == join_step:
                for i in range(blocks[b + 1].size):
                    clocks.send(joiner(blocks, b, i), blocks[b + 1].first + i, _width(count, i, s))


def replay_gather(clocks: Clocks, blocks: list[Block], count: int, root: int) -> None:
    """Replay the reduce's binomial gather inside block 0 (reduce_binary_blocks.c).

    A root outside block 0 first receives rank 0's range and plays rank 0.
    """
    k0 = blocks[0].lg
    outside = root >= blocks[0].size
    root_local = 0 if outside else root

    def real(v: int) -> int:
        return root if outside and v == 0 else v

    if outside:
        clocks.send(0, root, _width(count, 0, k0))
    for s in reversed(range(k0)):
        for v in range(blocks[0].size):
            if (v ^ root_local) >> s != 1:
                continue  # a sender differs from the root in bit s and agrees above it
            clocks.send(real(v), real(v ^ 1 << s), _width(count, v, s + 1))
