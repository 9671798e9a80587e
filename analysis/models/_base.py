"""What every cost model shares: the network parameters, the prediction, and
the cost of one message and of one local reduction."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

__all__ = ["NetworkParams", "Prediction", "message_s", "shared_link_s", "staggered_shared_link_s",
           "reduce_s", "overhead_s", "exact", "total", "factor_at", "parse_factors"]


@dataclass(frozen=True)
class NetworkParams:
    """The parameters of the alpha-beta-gamma model (seed 001 sec. 2.1).

    Attributes
    ----------
    alpha_s : float
        Latency of one message: the sum of the latencies on its route, seconds.
    beta_s_per_byte : float
        Transfer time per byte: 1 / the route's bottleneck bandwidth.
    gamma_s_per_byte : float
        Cost of combining one byte of two operands locally.
    envelope_bytes : int
        Bytes the MPI library adds to every message (SMPI: 16; 0 for an
        idealized model).
    f_alpha, f_beta : float
        alpha_uni / alpha and beta_uni / beta: the uni- versus bi-directional
        factors of seed 001 (1.0 on a full-duplex network).
    latency_factors, bandwidth_factors : tuple of (int, float)
        SimGrid's piecewise correction factors (``smpi/lat-factor``,
        ``smpi/bw-factor`` of its SMPI network model): a message of s bytes,
        envelope included, has latency ``f alpha`` and bandwidth
        ``f / beta`` with f the factor of the largest threshold below s
        (:func:`factor_at`).  Empty
        (the ``hockney`` profile's CM02 model): every factor is 1.
    send_overhead_s, recv_overhead_s : float
        LogGP's o at the sender and at the receiver: CPU time the MPI library
        spends on one eager message (SMPI's ``smpi/os`` and ``smpi/or``,
        which SimGrid 3.32 charges only to a send below the eager threshold:
        measured, tests/test_machine_model.py).
    links_shared_both_ways : bool
        Each rank's link carries both directions on one bandwidth
        (``crossbar(half_duplex=True)``): a message is then bidirectional, at
        ``beta``, whenever its sender's or its receiver's link also carries one
        the other way, whoever the third rank is (the schedule models,
        :mod:`collsim.analysis.schedule`); otherwise (the seeds' networks) only
        an exchange between the same two ranks is.
    eager_threshold_bytes : int
        Messages of fewer payload bytes are sent eagerly (SMPI's
        ``smpi/send-is-detached-thresh``): the sender pays ``send_overhead_s``
        and goes on without waiting for delivery; the receiver pays
        ``recv_overhead_s`` after the data arrives.  Larger messages use the
        rendezvous protocol (the send returns on delivery, no overhead is
        charged).  0 (the ``hockney`` profile): every message is rendezvous.
    """

    alpha_s: float
    beta_s_per_byte: float
    gamma_s_per_byte: float = 0.0
    envelope_bytes: int = 16
    f_alpha: float = 1.0
    f_beta: float = 1.0
    latency_factors: tuple[tuple[int, float], ...] = ()
    bandwidth_factors: tuple[tuple[int, float], ...] = ()
    send_overhead_s: float = 0.0
    recv_overhead_s: float = 0.0
    eager_threshold_bytes: int = 0
    links_shared_both_ways: bool = False

    def __post_init__(self) -> None:
        for name in ("latency_factors", "bandwidth_factors"):
            factors = tuple((int(threshold), float(value))
                            for threshold, value in getattr(self, name))
            if any(threshold < 0 or not (0 < value < math.inf) for threshold, value in factors):
                raise ValueError(f"{name} must be (threshold >= 0, factor > 0) pairs, "
                                 f"got {getattr(self, name)!r}")
            object.__setattr__(self, name, tuple(sorted(factors, reverse=True)))
        for name in ("alpha_s", "beta_s_per_byte", "gamma_s_per_byte", "envelope_bytes",
                     "send_overhead_s", "recv_overhead_s", "eager_threshold_bytes"):
            value = getattr(self, name)
            if not (value >= 0) or math.isinf(value):
                raise ValueError(f"{name} must be a finite number >= 0, got {value!r}")
        for name in ("f_alpha", "f_beta"):
            value = getattr(self, name)
            if not (0 < value <= 1):
                raise ValueError(f"{name} must be in (0, 1], got {value!r}")


@dataclass(frozen=True)
class Prediction:
    """A model's prediction: the expected time and the interval it guarantees.

    ``low_s == time_s == high_s`` for a model that is exact on a
    contention-free platform under the ``hockney`` profile; otherwise the
    simulated time is guaranteed to lie in ``[low_s, high_s]``.
    """

    time_s: float
    low_s: float
    high_s: float

    @property
    def exact(self) -> bool:
        """True when the model claims the exact time."""
        return self.low_s == self.high_s

    def contains(self, time_s: float, rel_tol: float = 1e-6) -> bool:
        """True when time_s agrees with the prediction within its class."""
        return self.low_s * (1 - rel_tol) - 1e-15 <= time_s <= self.high_s * (1 + rel_tol) + 1e-15


def parse_factors(text: str) -> tuple[tuple[int, float], ...]:
    """Parse SimGrid's ``threshold:factor;threshold:factor;...`` option value.

    Examples
    --------
    >>> parse_factors("65472:11.6436;0:2.01467")
    ((65472, 11.6436), (0, 2.01467))
    """
    factors = []
    for part in text.split(";"):
        threshold, sep, value = part.strip().partition(":")
        try:
            if not sep:
                raise ValueError
            threshold_bytes, factor = int(threshold), float(value)
            if threshold_bytes < 0 or not (0 < factor < math.inf):
                raise ValueError
            factors.append((threshold_bytes, factor))
        except ValueError:
            raise ValueError(f"malformed factor {part!r} in {text!r} "
                             "(want threshold:factor;... with thresholds >= 0 and factors > 0)") from None
    return tuple(sorted(factors, reverse=True))


def factor_at(factors: tuple[tuple[int, float], ...], size_bytes: float) -> float:
    """The factor of the largest threshold below size_bytes.

    Strictly below: SimGrid 3.32 gives a message of exactly 257 or 65472
    bytes the factor of the threshold under it (measured with ping-pongs,
    tests/test_profiles.py), whatever its ``--help-cfg`` text says.  A size
    at or below every threshold gets the smallest threshold's factor; no
    factors at all, 1.
    """
    for threshold, value in factors:
        if size_bytes > threshold:
            return value
    return factors[-1][1] if factors else 1.0


def one_way(net: NetworkParams) -> NetworkParams:
    """The network as a message sees it when no message goes the other way on its links.

    Seed 001 sec. 2.1: such a message costs ``f_alpha alpha + n f_beta beta``,
    alpha and beta being an exchange's.  The factors are 1 on a full-duplex
    network, where this returns ``net`` unchanged in value; on half-duplex links
    (``crossbar(half_duplex=True)``) ``f_beta = 0.5``.
    """
    return dataclasses.replace(net, alpha_s=net.f_alpha * net.alpha_s,
                               beta_s_per_byte=net.f_beta * net.beta_s_per_byte,
                               f_alpha=1.0, f_beta=1.0)


def message_s(net: NetworkParams, n_bytes: float) -> float:
    """Time of one message of n_bytes: alpha + (n_bytes + envelope) beta.

    With SimGrid's piecewise factors (:class:`NetworkParams`), for
    s = n_bytes + envelope: ``f_lat(s) alpha + s beta / f_bw(s)``; an eager
    message (n_bytes below ``eager_threshold_bytes``) adds the send and
    receive overheads: its time from the send call to the end of the receive.
    """
    return shared_link_s(net, n_bytes, 1)


def shared_link_s(net: NetworkParams, n_bytes: float, flows: int) -> float:
    """Time of ``flows`` messages of n_bytes started together over one link.

    They pay the latency once and share the link's bandwidth equally, so all
    end together: ``f_lat(s) alpha + flows s beta / f_bw(s)``.
    """
    size = n_bytes + net.envelope_bytes
    return (factor_at(net.latency_factors, size) * net.alpha_s
            + flows * size * net.beta_s_per_byte / factor_at(net.bandwidth_factors, size)
            + overhead_s(net, n_bytes))


def staggered_shared_link_s(net: NetworkParams, n_bytes: float, flows: int) -> float:
    """Time of ``flows`` nonblocking sends of n_bytes from one rank over one shared link.

    The sender pays ``send_overhead_s`` before each ``MPI_Isend`` hands its
    message over (SMPI's ``smpi/ois``, charged to eager and rendezvous
    Isends alike), so message k (from 0) starts at (k + 1) o_s; each spends
    its latency, then shares the link's bandwidth equally with the messages
    in flight (SimGrid's max-min sharing); an eager message's receiver pays
    ``recv_overhead_s`` after it arrives.  Returns when the last receive
    ends.  Without a send overhead this is :func:`shared_link_s`.
    """
    if net.send_overhead_s == 0:
        return shared_link_s(net, n_bytes, flows)
    size = n_bytes + net.envelope_bytes
    latency_s = factor_at(net.latency_factors, size) * net.alpha_s
    rate_Bps = factor_at(net.bandwidth_factors, size) / net.beta_s_per_byte \
        if net.beta_s_per_byte > 0 else math.inf
    starts = [(k + 1) * net.send_overhead_s + latency_s for k in range(flows)]
    # processor sharing on one link: advance from event to event
    now, left, active, finished = 0.0, {}, [], []
    pending = list(range(flows))
    while pending or active:
        next_start = starts[pending[0]] if pending else math.inf
        if active and rate_Bps < math.inf:
            share = rate_Bps / len(active)
            first_end = now + min(left[k] for k in active) / share
        else:
            first_end = now if active else math.inf
        if next_start < first_end:
            if active and rate_Bps < math.inf:
                for k in active:
                    left[k] -= (next_start - now) * rate_Bps / len(active)
            now = next_start
            k = pending.pop(0)
            active.append(k)
            left[k] = float(size)
        else:
            if rate_Bps < math.inf:
                for k in active:
                    left[k] -= (first_end - now) * rate_Bps / len(active)
            now = first_end
            done = [k for k in active if left[k] <= size * 1e-12]
            if not done:  # rounding: the smallest is done
                done = [min(active, key=left.get)]
            for k in done:
                active.remove(k)
                finished.append(now)
    receive_s = net.recv_overhead_s if n_bytes < net.eager_threshold_bytes else 0.0
    return max(finished) + receive_s


def overhead_s(net: NetworkParams, n_bytes: float) -> float:
    """The send plus receive overhead of one message: o_s + o_r when eager, else 0."""
    if n_bytes < net.eager_threshold_bytes:
        return net.send_overhead_s + net.recv_overhead_s
    return 0.0


def reduce_s(net: NetworkParams, n_bytes: float) -> float:
    """Time of one local reduction of n_bytes: n_bytes gamma."""
    return n_bytes * net.gamma_s_per_byte


def exact(time_s: float) -> Prediction:
    """A prediction that claims the exact time."""
    return Prediction(time_s, time_s, time_s)


def total(*parts: Prediction, extra_s: float = 0.0) -> Prediction:
    """The prediction of phases run one after the other, plus extra_s."""
    return Prediction(
        sum(p.time_s for p in parts) + extra_s,
        sum(p.low_s for p in parts) + extra_s,
        sum(p.high_s for p in parts) + extra_s,
    )


def check_arguments(p: int, n_bytes: int, elem_bytes: int, *, root: int | None = None) -> int:
    """Validate the common arguments (``root`` too when given); return the element count.

    Every element size the C side takes is taken: any size >= 1 (a derived
    contiguous type: a 24-byte struct, a 32-byte ``MPI_LONG_DOUBLE_INT``), and
    0 (a zero-size type, which moves nothing: ``n_bytes`` must be 0, and the
    count is 0, as the interposition library runs such a call).

    >>> check_arguments(4, 48, 24)
    2
    >>> check_arguments(4, 0, 0)
    0
    """
    if isinstance(p, bool) or not isinstance(p, int) or p < 1:
        raise ValueError(f"p must be an integer >= 1, got {p!r}")
    if isinstance(n_bytes, bool) or not isinstance(n_bytes, int) or n_bytes < 0:
        raise ValueError(f"n_bytes must be an integer >= 0, got {n_bytes!r}")
    if isinstance(elem_bytes, bool) or not isinstance(elem_bytes, int) or elem_bytes < 0:
        raise ValueError(f"elem_bytes must be an integer >= 0, got {elem_bytes!r}")
    if elem_bytes == 0:
        # a zero-size datatype moves nothing: collsim runs such a call as count 0
        if n_bytes:
            raise ValueError(f"n_bytes={n_bytes} with 0-byte elements")
        return 0
    if n_bytes % elem_bytes:
        raise ValueError(f"n_bytes={n_bytes} is not a whole number of {elem_bytes}-byte elements")
    if root is not None and not 0 <= root < p:
        raise ValueError(f"root must be in 0..{p - 1}, got {root!r}")
    return n_bytes // elem_bytes


def ceil_log2(p: int) -> int:
    """ceil(lg p) for p >= 1."""
    return (p - 1).bit_length()


def floor_log2(p: int) -> int:
    """floor(lg p) for p >= 1."""
    return p.bit_length() - 1
