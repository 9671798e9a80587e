"""The compiled loop of :mod:`collsim.analysis.network.chain` (numba, loaded on first use,
as :mod:`collsim.analysis.network.kernels`, whose notes on the cache apply)."""

from __future__ import annotations

import numba
import numpy as np

# numba's cache records the module's import name (kernels.py says why).
_CACHE = __name__ == "collsim.analysis.network.chain_kernels"

__all__ = ["chain_clocks"]


@numba.njit(cache=_CACHE, nogil=True)
def chain_clocks(start, hop_s, block_class, combine_s, send_s, first_send_s, last_send_s):
    """The clocks of a chain pipeline's ranks after it, in the chain's order.

    ``start[q]``: rank q's clock before (q = 0 .. p - 1 along the data's way);
    ``hop_s[c, h]``: how long hop h (q = h to h + 1) takes a block of class c
    once both its ranks have posted it; ``block_class[k]``: block k's class;
    ``combine_s[k]``: what a receiving rank spends combining block k after the
    step that received it (0 for a bcast); ``send_s``: what a send costs its
    rank before it is posted (SMPI's ``o_s`` for an ``MPI_Isend``, 0 for a
    blocking rendezvous ``MPI_Send``; the step's ``MPI_Irecv``, posted first,
    does not wait for it), ``first_send_s`` that of rank 0's sends and
    ``last_send_s`` that of the other ranks' last block (``pipeline.c``'s
    reduce sends those with ``MPI_Send``).

    Rank 0's k-th step sends block k; rank q in 1 .. p - 2 has steps 0 .. B,
    step s receiving block s (s < B) and sending block s - 1 (s > 0); rank
    p - 1's step s receives block s.  A step starts when the rank's previous
    one ended plus its combining; a message starts when both its ranks have
    started their steps and ends ``hop_s`` later; a step ends with its last
    message.  M(h, k), block k over hop h, is rank h's step k (h = 0) or k + 1
    and rank h + 1's step k; the loop takes blocks in order and hops in order,
    keeping the ends of M(., k - 1) and M(., k - 2).
    """
    p = len(start)
    n_hops = p - 1
    blocks = len(block_class)
    after = start.copy()
    if n_hops < 1 or blocks == 0:
        return after
    now = np.zeros(n_hops)      # M(h, k).end
    last = np.zeros(n_hops)     # M(h, k - 1).end
    before = np.zeros(n_hops)   # M(h, k - 2).end
    for k in range(blocks):
        hop = hop_s[block_class[k]]
        done = combine_s[k]                       # the combining of block k
        done_before = combine_s[k - 1] if k > 0 else 0.0
        for h in range(n_hops):
            # the sender's step: rank 0's k-th; rank h's (k + 1)-th after step k
            # (receiving block k, sending block k - 1) and block k's combining
            if h == 0:
                sender = start[0] if k == 0 else last[0]
            elif k == 0:
                sender = now[h - 1] + done
            else:
                sender = max(now[h - 1], last[h]) + done
            # the receiver's step k: after its step k - 1 (receiving block k - 1, and
            # sending block k - 2 unless it is the last rank) and that block's combining
            if k == 0:
                receiver = start[h + 1]
            elif k > 1 and h + 1 < n_hops:
                receiver = max(last[h], before[h + 1]) + done_before
            else:
                receiver = last[h] + done_before
            if h == 0:
                sender += first_send_s
            elif k == blocks - 1:
                sender += last_send_s
            else:
                sender += send_s
            now[h] = max(sender, receiver) + hop[h]
        before, last, now = last, now, before
    # last holds M(., B - 1).end: every rank's last step ends with its last message
    after[0] = last[0]
    for h in range(1, n_hops):
        after[h] = last[h]
    after[n_hops] = last[n_hops - 1] + combine_s[blocks - 1]
    return after
