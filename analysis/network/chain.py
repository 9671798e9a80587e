"""A pipeline along a chain at any size: bcast and reduce ``pipeline`` as one step.

``pipeline.c`` along a chain (bcast and reduce ``pipeline``) moves B blocks
hop by hop: rank q's step s receives block s from q - 1 and sends block
s - 1 to q + 1, both posted together (``models._pipelined.engine_bcast``,
``engine_reduce``; a reduce combines each block it receives).  As explicit
steps that is (p - 1) B messages: at a million ranks and the default plan
of thousands of blocks, billions, which no pattern holds.  :class:`ChainSteps`
holds the chain's p - 1 hops (``src[h]`` to ``dst[h]``, in the data's
order: ``dst[h] == src[h + 1]``) and the block sizes, and the engine times it
(``engine._run_chain``) where no two hops share a link (consecutive ranks on a
crossbar, fat-tree or dragonfly, the block mapping; several ranks of a host
joined by its loopback):

- a hop alone on its links moves every block at its route's bottleneck rate,
  whatever the others do, so a block over hop h takes the route's latency
  plus its bytes over that rate (SMPI's factors of its size applied as the
  engine applies them);
- the ranks' steps follow the C code's order exactly: a message starts when
  both its ranks have started their steps, a step ends with its last
  message, then the rank combines the block it received (reduce).  That
  recurrence over (hop, block) is one compiled loop
  (``chain_kernels.chain_clocks``): p B updates, no flow simulation (35 s of
  CPU for the 7 x 10^9 messages of a 1 MiB bcast on a million ranks).

This is the event simulation's answer (``tests/test_chain_pipeline.py``
holds it to the explicit pattern's, to 1e-12).  Where hops share links
(random ranks, half-duplex links) the flows of neighbouring blocks overlap
in part, which only the event simulation times: two cheap stand-ins were
measured against SimGrid on 64 random ranks (every hop at its max-min rate
with all hops in flight: +1 % to +167 %; at the larger of its lone time and
its links' load by the hops within B of it: -12 % to +79 %) and rejected, so
the engine refuses such a chain, as it refuses eager blocks (under the
profile's eager threshold their sender does not wait for the delivery).  Up
to :data:`CHAIN_STEP_MESSAGES` messages the builders make the explicit
steps, which the engine simulates together up to
:data:`CHAIN_TOGETHER_MESSAGES` and in windows above, whatever the mapping.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .pattern import Step, _ints

__all__ = ["ChainSteps", "CHAIN_STEP_MESSAGES", "CHAIN_TOGETHER_MESSAGES"]

#: Up to this many messages a chain pipeline's explicit steps run together as one
#: event simulation (``Pattern.together``).  A chain's p - 1 hops are all in flight
#: at once, so its steps (wavefronts: hop h moves block s - h) span p steps of
#: time, and windows of consecutive steps cut flows that run at the same time
#: apart: on 512 random ranks of seed004_graphene, where every hop crosses the
#: switches' one link, the reduce of 1 MiB (74,606 messages) was 27 % under
#: SimGrid in windows and is exact together (docs/MODELS.md "The chain pipelines
#: run together").  The bound is where the steps stop being held whole
#: (``patterns.pipetrees.PROGRAM_STEP_MESSAGES``).
CHAIN_TOGETHER_MESSAGES = 1 << 20

#: Above this many messages ((p - 1) B) a chain pipeline is built as one
#: :class:`ChainSteps`; at most, as the explicit steps the engine simulates in
#: windows (the accuracy grids' cells: 100 ranks and 641 blocks are 63,459).
CHAIN_STEP_MESSAGES = 1 << 22


@dataclass(frozen=True)
class ChainSteps(Step):
    """A chain pipeline: hop h goes from ``src[h]`` to ``dst[h]`` (the data's order:
    ``dst[h] == src[h + 1]``), each hop carries every block of ``block_bytes`` in
    order, and with ``combine`` every receiving rank combines each block it
    receives (a reduce).  ``n_bytes`` is each hop's largest block (what
    counts of bytes read); :attr:`messages` is (p - 1) B."""

    block_bytes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    combine: bool = False

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "block_bytes", _ints(self.block_bytes))
        if len(self.src) and np.any(self.src[1:] != self.dst[:-1]):
            raise ValueError("a chain's hops must follow one another (dst[h] == src[h + 1])")
        if len(np.unique(np.concatenate([self.src[:1], self.dst]))) != len(self.src) + 1:
            raise ValueError("a chain visits each rank once")
        if self.repeat != 1 or len(self.post_ahead) or len(self.reduce_ranks):
            raise ValueError("a chain pipeline neither repeats, posts ahead nor reduces after")
        if np.any(self.block_bytes < 0):
            raise ValueError("block sizes must be >= 0")

    @property
    def messages(self) -> int:
        """(p - 1) B: every block over every hop."""
        return len(self.src) * len(self.block_bytes)

    def parts(self) -> tuple[Step, ...]:
        """Not expanded: (p - 1) B messages are what this step exists to avoid."""
        raise ValueError(f"a chain pipeline of {self.messages:,} messages cannot be run "
                         "beside or inside another pattern's steps")
