"""One run: a spec validated, simulated, and the model attached to every row.

The layer below, starting smpirun and reading collbench's registry, is
:mod:`collsim.harness`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import networkx as nx

from collsim.analysis.models import NetworkParams, model_for
from collsim.analysis.models._base import Prediction, factor_at, overhead_s
from collsim.errors import CollsimError
from collsim.limits import check
from collsim.params import AlgorithmParams, parameter_table
from collsim.platforms.network import PairParameters
from collsim.platforms import map_ranks, network_parameters, platform_hash
from collsim.harness import (PublishedNames, PublishedSizes, collectives, find_algorithm, registry,
                             simulate)
from collsim.network_model import (NETWORK_REL_TOL, NoNetworkPattern, collective_time,
                                   has_pattern, network_agrees, network_setting)
from collsim.platform_cli import PlatformRequest
from collsim.profiles import Profile
from collsim.resources import check_simulation_memory
from collsim.units import format_bytes

__all__ = ["DTYPE_BYTES", "OPS", "RunSpec", "annotate", "collbench_args", "network_times",
           "row_params", "run", "validate_run", "validate_spec"]

# collbench's datatypes, ops and distributions (sim/collbench/datagen.def), read
# from its listing when first used
DTYPE_BYTES = PublishedSizes()
FLOAT_DTYPES = PublishedNames("types", where=lambda dtype: dtype["is_float"])
OPS = PublishedNames("ops")
DISTRIBUTIONS = PublishedNames("distributions")
NONCOMMUTATIVE_OPS = PublishedNames("ops", where=lambda op: not op["commutative"])


@dataclass(frozen=True)
class RunSpec:
    """One ``collsim run``: an algorithm, a machine, a rank count and sizes."""

    collective: str
    algorithm: str
    np: int
    sizes_bytes: tuple[int, ...]
    dtype: str = "double"
    op: str = "sum"
    root: int = 0
    seed: int = 1
    dist: str = "uniform"
    reps: int = 1
    mapping: str = "block"
    check: bool = True
    params: AlgorithmParams = AlgorithmParams()
    # virtual contributors per rank: the data of np * contributors ranks on np ranks
    # (collbench --contributors); 1 = the usual one input per rank
    contributors: int = 1
    # buffers shared by all ranks, no data, no check (collbench --timing-only): the
    # same simulated time in a fraction of the memory
    timing_only: bool = False


def validate_spec(spec: RunSpec, entry: dict, total_cores: int, *, simulated: bool = True) -> None:
    """Reject a run that cannot make sense, before anything starts.

    ``simulated``: False for a run the network model predicts instead (a
    study's process counts above ``predict_above_np``): the simulation's
    memory is then not asked for."""
    for name in ("np", "seed", "reps"):  # the Python API's values too
        check(name, getattr(spec, name))
    if spec.np > total_cores:
        raise CollsimError(f"np={spec.np} is larger than the platform's {total_cores} cores")
    if spec.dtype not in DTYPE_BYTES:
        raise CollsimError(f"unknown datatype {spec.dtype!r} (known: {', '.join(DTYPE_BYTES)})")
    if spec.dist not in DISTRIBUTIONS:
        raise CollsimError(
            f"unknown distribution {spec.dist!r} (known: {', '.join(DISTRIBUTIONS)})")
    if spec.op not in OPS:
        raise CollsimError(f"unknown op {spec.op!r} (known: {', '.join(OPS)})")
    if not spec.sizes_bytes:
        raise CollsimError("no sizes given")
    for n_bytes in spec.sizes_bytes:
        if n_bytes < 0:
            raise CollsimError(f"negative size {n_bytes}")
        if n_bytes % DTYPE_BYTES[spec.dtype]:
            raise CollsimError(f"{n_bytes} bytes is not a whole number of {spec.dtype} elements")
    if isinstance(spec.contributors, bool) or not isinstance(spec.contributors, int) or (
            spec.contributors < 1):
        raise CollsimError(f"contributors must be an integer >= 1, got {spec.contributors!r}")
    if spec.timing_only and spec.contributors > 1:
        raise CollsimError("--timing-only takes no virtual contributors (they only matter "
                           "for the result, which a timing-only run does not compute)")
    if spec.contributors > 1 and spec.collective not in ("allreduce", "reduce"):
        raise CollsimError(f"virtual contributors apply to allreduce and reduce, "
                           f"not to {spec.collective}")
    if collectives()[spec.collective]["root"] and not 0 <= spec.root < spec.np:
        raise CollsimError(f"root {spec.root} is outside the communicator (np={spec.np})")
    try:
        model_for(spec.collective, spec.algorithm)
    except KeyError:
        raise CollsimError(
            f"{spec.collective}/{spec.algorithm} is in the registry but has no model "
            f"(collsim.analysis.models.{spec.collective}.{spec.algorithm})") from None
    _check_requirements(spec, entry)
    params = spec.params
    if params.segment_bytes % DTYPE_BYTES[spec.dtype]:
        raise CollsimError(f"segment size {params.segment_bytes} bytes is not a whole number of "
                           f"{spec.dtype} elements")
    known = {e["algorithm"] for e in registry()}
    for role, name in (("inner", params.inner_algorithm), ("outer", params.outer_algorithm)):
        if name is not None and name not in known:
            raise CollsimError(f"{spec.collective}/{spec.algorithm} has no {role} algorithm "
                               f"{name!r} (registered: {', '.join(sorted(known))})")
    if simulated:
        check_simulation_memory(spec.np, max(spec.sizes_bytes) * buffer_blocks(spec.collective,
                                                                             spec.np),
                                spec.contributors, timing_only=spec.timing_only)
    takes_no = entry.get("takes_no", {})
    for parameter in parameter_table():
        if parameter["group"] in takes_no and getattr(params, parameter["name"]):
            raise CollsimError(f"{spec.collective}/{spec.algorithm} {takes_no[parameter['group']]}")


def buffer_blocks(collective: str, np: int) -> int:
    """The blocks of a rank's largest buffer in a call of ``collective`` on np ranks:
    np where a buffer holds one block per rank (allgather, alltoall, gather,
    scatter, reduce_scatter: algorithms/collectives.def), else 1.

    >>> buffer_blocks("alltoall", 16), buffer_blocks("bcast", 16)
    (16, 1)
    """
    shape = collectives()[collective]
    return np if any(shape[side].startswith("all") for side in ("send_blocks", "recv_blocks")) \
        else 1


# What each requirement collbench publishes (``requires`` of ``collbench --list
# --json``: which entries set it, and its sentence) asks of a run, and the detail
# a violation names.  A requirement not listed here is left to collbench, which
# checks every one before it runs anything.
_REQUIREMENTS = {
    "commutative_op": (lambda spec: spec.op not in NONCOMMUTATIVE_OPS,
                       lambda spec: f"{spec.op} is not"),
    "sum_on_float": (lambda spec: spec.op == "sum" and spec.dtype in FLOAT_DTYPES,
                     lambda spec: f"got {spec.op} on {spec.dtype}"),
    "power_of_two_np": (lambda spec: spec.np & (spec.np - 1) == 0,
                        lambda spec: f"np={spec.np}"),
}
_OP_REQUIREMENTS = {"commutative_op", "sum_on_float"}  # a collective without an op has none


def _check_requirements(spec: RunSpec, entry: dict) -> None:
    """Hold the spec against the requirements collbench publishes for its entry."""
    for requirement, sentence in entry.get("requires", {}).items():
        if requirement not in _REQUIREMENTS or (
                not collectives()[spec.collective]["op"] and requirement in _OP_REQUIREMENTS):
            continue
        meets, detail = _REQUIREMENTS[requirement]
        if not meets(spec):
            raise CollsimError(
                f"{spec.collective}/{spec.algorithm} {sentence} ({detail(spec)})")


def validate_run(spec: RunSpec, G: nx.Graph) -> None:
    """Everything :func:`run` checks before it simulates, for callers that
    check a whole batch of runs before starting the first."""
    entry = find_algorithm(spec.collective, spec.algorithm)
    total_cores = sum(cores for _, cores in G.nodes(data="cores") if cores)
    validate_spec(spec, entry, total_cores=total_cores)
    try:
        map_ranks(G, spec.np, spec.mapping)
    except ValueError as error:
        raise CollsimError(str(error)) from None


def collbench_args(spec: RunSpec, *, alpha_over_beta_bytes: float = 0.0) -> list[str]:
    """The collbench command line for a spec; ``alpha_over_beta_bytes`` is the
    network's ratio for the pipelined algorithms' default block counts, used
    unless the spec's params give one."""
    args = [
        "--coll", spec.collective,
        "--alg", spec.algorithm,
        "--bytes", ",".join(str(n) for n in spec.sizes_bytes),
        "--dtype", spec.dtype,
        "--op", spec.op,
        "--root", str(spec.root),
        "--seed", str(spec.seed),
        "--dist", spec.dist,
        "--reps", str(spec.reps),
    ]  # fmt: skip
    params = spec.params
    for parameter in parameter_table():  # every one given, as its collbench option
        value = getattr(params, parameter["name"])
        if parameter["name"] == "alpha_over_beta_bytes":
            value = value or alpha_over_beta_bytes  # the platform's unless the spec gives one
        if not value:
            continue
        if parameter["type"] == "bool":
            args.append(parameter["option"])
        else:
            args += [parameter["option"], repr(float(value)) if parameter["type"] == "real"
                     else str(value)]
    if spec.contributors > 1:
        args += ["--contributors", str(spec.contributors)]
    if spec.timing_only:
        args.append("--timing-only")
    elif not spec.check:
        args.append("--no-check")
    return args


def measured_pair(G: nx.Graph, source: str, target: str, profile: Profile,
                  timeout_s: float = 600.0) -> PairParameters:
    """alpha and beta between two hosts from a simulated ping-pong at 0 and 1 MiB.

    For platforms whose routes collsim does not know (an XML file): a message
    of s bytes (envelope included) takes ``f_lat(s) alpha + s beta / f_bw(s)``
    (factors 1 under ``hockney``), so two sizes determine both.
    """
    sizes = [0, 1 << 20]
    rows, _ = simulate(G, [source, target], profile,
                       ["--pingpong", "--bytes", ",".join(map(str, sizes)), "--peer", "1"],
                       what=f"ping-pong {source} -> {target}", timeout_s=timeout_s)
    latency_factors, bandwidth_factors = profile.network_factors
    # t_i = alpha L_i + beta s_i / B_i, two equations in alpha and beta
    no_route = profile.model_network(0.0, 0.0)
    (t0, s0), (t1, s1) = [(row["time_s"] - overhead_s(no_route, n), n + profile.envelope_bytes)
                          for row, n in zip(rows, sizes)]
    l0, l1 = factor_at(latency_factors, s0), factor_at(latency_factors, s1)
    w0, w1 = s0 / factor_at(bandwidth_factors, s0), s1 / factor_at(bandwidth_factors, s1)
    det = l0 * w1 - l1 * w0
    alpha = (t0 * w1 - t1 * w0) / det
    beta = (l0 * t1 - l1 * t0) / det
    return PairParameters(alpha_s=alpha, beta_s_per_byte=beta, hops=-1)


def model_parameters(G: nx.Graph, rank_hosts: list[str], profile: Profile) -> tuple[NetworkParams, bool]:
    """The model's parameters for these ranks, and whether they are uniform.

    On a platform read from an XML file, the routes are unknown: alpha and
    beta come from a simulated ping-pong between rank 0's host and the last
    rank's host, and the model is never called uniform.
    """
    if G.graph.get("routing") == "opaque":
        if len(rank_hosts) < 2:
            pair = PairParameters(0.0, 0.0, 0)
        else:
            pair = measured_pair(G, rank_hosts[0], rank_hosts[-1], profile)
        uniform = False
    else:
        pair, uniform = network_parameters(G, rank_hosts)
    net = profile.model_network(pair.alpha_s, pair.beta_s_per_byte,
                                G.graph.get("gamma_s_per_byte", 0.0))
    if G.graph.get("half_duplex"):
        # seed 001 sec. 2.1: beta is an exchange's (both directions on one link), a
        # one-way message moves at f_beta beta
        net = replace(net, beta_s_per_byte=2.0 * net.beta_s_per_byte, f_beta=0.5,
                      links_shared_both_ways=True)
    return net, uniform


def row_params(row: dict) -> AlgorithmParams:
    """The algorithm parameters of a collbench row, as the models take them: a
    composite algorithm's levels and group count as collbench resolved them, a
    selector's choice."""
    return replace(AlgorithmParams.from_row({**row["params"], **row.get("resolved", {})}),
                   selected=row.get("selected"))


def network_times(G: nx.Graph, spec: RunSpec, profile: Profile, rows: list[dict], *,
                  platform: str) -> dict[tuple[int, AlgorithmParams], float]:
    """The network model's time of each (size, parameters) among the rows.

    Empty where the network model does not apply: the entry has no pattern
    (``collsim.analysis.network.PATTERNS``, looked up now), the platform's
    routes are unknown (an XML file), or the run has virtual contributors
    (their local combination is in no pattern); a cell is left out where a
    part the entry runs (a composite's inner or outer algorithm, a selector's
    choice) has no pattern.  Each cell is computed once,
    whatever the repetitions.
    """
    if (not has_pattern(spec.collective, spec.algorithm) or spec.contributors > 1
            or G.graph.get("routing") == "opaque"):
        return {}
    setting = network_setting(PlatformRequest(label=platform), profile, spec.np, spec.mapping,
                              graph=G)
    times: dict[tuple[int, AlgorithmParams], float] = {}
    partless: set[tuple[int, AlgorithmParams]] = set()
    for row in rows:
        cell = (row["bytes"], row_params(row))
        if cell in times or cell in partless:
            continue
        try:
            times[cell], _ = collective_time(
                setting, spec.collective, spec.algorithm, row["bytes"],
                elem_bytes=DTYPE_BYTES[row["dtype"]], root=row["root"] or 0,
                commutative=row["op"] not in NONCOMMUTATIVE_OPS, params=cell[1])
        except NoNetworkPattern:  # a part the entry runs has none: the flat model stays
            partless.add(cell)
    return times


def annotate(row: dict, G: nx.Graph, net: NetworkParams, model_class: str, *,
             platform: str, platform_id: str, mapping: str, profile: Profile,
             network_s: float | None = None) -> dict:
    """Return the row with the platform, profile and model fields added.

    ``network_s``: the network model's time of the row's cell
    (:func:`network_times`), given where the flat model is not exact; the
    row's model is then the network model (class ``network``, its interval
    the time within :data:`collsim.network_model.NETWORK_REL_TOL`) and the
    flat model's time is kept in ``flat_model_s``.
    """
    model = model_for(row["collective"], row["algorithm"])
    prediction = model(
        row["np"],
        row["bytes"],
        net,
        elem_bytes=DTYPE_BYTES[row["dtype"]],
        root=row["root"] or 0,
        commutative=row["op"] not in NONCOMMUTATIVE_OPS,
        params=row_params(row),
    )
    flat_model_s = None
    if model_class != "approx":
        model_class = "exact" if prediction.exact else "bound"
    elif network_s is not None:
        flat_model_s = prediction.time_s
        model_class = "network"
        prediction = Prediction(network_s, network_s * (1 - NETWORK_REL_TOL),
                                network_s * (1 + NETWORK_REL_TOL))
    time_s = row["time_s"]
    ratio = time_s / prediction.time_s if prediction.time_s > 0 else (1.0 if time_s == 0 else None)
    if model_class == "network":
        agrees = network_agrees(time_s, prediction.time_s)
    else:
        agrees = prediction.contains(time_s) if model_class != "approx" else None
    out = {
        "collective": row["collective"],
        "algorithm": row["algorithm"],
        "params": row["params"],
        **({"selected": row["selected"], "native_algorithm": row["native_algorithm"],
            "native_id": row["native_id"]} if "native_algorithm" in row else {}),
        "platform": platform,
        "platform_hash": platform_id,
        "mapping": mapping,
        "profile": profile.name,
        "np": row["np"],
        "bytes": row["bytes"],
        "dtype": row["dtype"],
        "op": row["op"],
        "root": row["root"],
        "seed": row["seed"],
        "dist": row["dist"],
        "rep": row["rep"],
        "time_s": time_s,
        "model_s": prediction.time_s,
        "model_low_s": prediction.low_s,
        "model_high_s": prediction.high_s,
        "model_class": model_class,
        "model_agrees": agrees,
        "ratio": ratio,
        # only beside the network model: the other rows print as they always have
        **({"flat_model_s": flat_model_s} if flat_model_s is not None else {}),
    }
    for key in ("check", "bitwise_rank_order", "ranks_agree", "max_error_ratio", "max_ulp_error",
                "max_error_u_sum_abs", "max_error_prerounded_ratio", "result_hash"):
        if key in row:
            out[key] = row[key]
    if row.get("contributors", 1) > 1:
        out["contributors"] = row["contributors"]
    if row.get("timing_only"):
        out["timing_only"] = True
    out["collsim_version"] = row["collsim_version"]
    out["library"] = row["library"]
    return out


def run(spec: RunSpec, G: nx.Graph, profile: Profile, *, platform: str,
        timeout_s: float = 600.0, progress=None) -> tuple[list[dict], int]:
    """Simulate one spec on platform G and return annotated rows and collbench's exit status.

    ``progress`` is passed on to ``simulate``.

    Raises
    ------
    CollsimError
        On bad input (checked before anything runs) or a failed simulation.
    """
    entry = find_algorithm(spec.collective, spec.algorithm)
    total_cores = sum(cores for _, cores in G.nodes(data="cores") if cores)
    validate_spec(spec, entry, total_cores=total_cores)
    try:
        rank_hosts = map_ranks(G, spec.np, spec.mapping)
    except ValueError as error:
        raise CollsimError(str(error)) from None
    net, uniform = model_parameters(G, rank_hosts, profile)
    # the models know nothing of virtual contributors (their local combination)
    model_class = ("model" if (profile.exact_models and uniform and spec.contributors == 1)
                   else "approx")
    what = (
        f"{spec.collective}/{spec.algorithm} on {spec.np} ranks at "
        f"{','.join(format_bytes(n) for n in spec.sizes_bytes)}"
    )
    ratio = net.alpha_s / net.beta_s_per_byte if net.beta_s_per_byte > 0 else 0.0
    rows, status = simulate(G, rank_hosts, profile,
                            collbench_args(spec, alpha_over_beta_bytes=ratio), what=what,
                            timeout_s=timeout_s, progress=progress)
    expected = len(spec.sizes_bytes) * spec.reps
    if len(rows) != expected:
        raise CollsimError(f"{what} printed {len(rows)} of its {expected} measurements")
    platform_id = platform_hash(G)
    # where the flat model is exact nothing else is computed
    network = network_times(G, spec, profile, rows, platform=platform) \
        if model_class == "approx" else {}
    annotated = [
        annotate(row, G, net, model_class, platform=platform, platform_id=platform_id,
                 mapping=spec.mapping, profile=profile,
                 network_s=network.get((row["bytes"], row_params(row))))
        for row in rows
    ]
    return annotated, status
