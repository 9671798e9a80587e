"""``collsim predict``: the network model's time of a collective, without simulating.

The algorithm's message pattern (``collsim.analysis.network.patterns``) is
routed over the platform and its links shared as SimGrid shares them
(``collsim.analysis.network.engine``; docs/MODELS.md).  The platform comes
from the same options as ``collsim run`` (``platform_cli.resolve_platform``);
a crossbar, fat-tree or dragonfly of one host per node is routed by
arithmetic and, above :data:`GRAPH_HOSTS` hosts, never built as a graph, so
a million ranks take seconds.  Every other platform (multicore nodes,
dual-rail, the catalog's multicore machines) is read off its graph.

Each row carries ``model_s`` (this model) and, when the graph was built,
``flat_model_s``: the closed-form model, for comparison.  The path from a
platform and an entry to the time is :mod:`collsim.network_model`'s, the one
``collsim run``'s model column takes where the flat model is not exact.
"""

from __future__ import annotations

import time
from dataclasses import replace

from collsim.analysis.models import model_for
from collsim.analysis.network import pattern_for
from collsim.errors import CollsimError
from collsim.harness import collectives, find_algorithm
from collsim.runner import DTYPE_BYTES, NONCOMMUTATIVE_OPS
from collsim.network_model import (GRAPH_HOSTS, _arithmetic_rank_hosts, collective_time,
                                   has_pattern, network_setting, rank_nodes, rank_sockets)
from collsim.params import DEFAULT_PARAMS, AlgorithmParams
from collsim.platform_cli import PlatformRequest
from collsim.platforms import GENERATORS
from collsim.profiles import Profile
from collsim.units import format_bytes, format_seconds
from collsim.units import format_table as text_table

__all__ = ["GRAPH_HOSTS", "predict_rows", "format_table", "request_from_table", "rank_nodes",
           "rank_sockets", "has_pattern", "_arithmetic_rank_hosts"]



def request_from_table(table: dict) -> PlatformRequest:
    """A platform table of a scenario (``{"generator": ..., ...}`` or ``{"catalog": ...}``)."""
    params = dict(table)
    label = params.pop("name", None)
    if "catalog" in params:
        return PlatformRequest(label=label or params["catalog"], catalog=params["catalog"])
    family = params.pop("generator", None)
    if family not in GENERATORS:
        raise CollsimError(f"platform: unknown generator {family!r} "
                           f"(known: {', '.join(sorted(GENERATORS))})")
    multicore_kwargs = params.pop("multicore", None) or {}
    return PlatformRequest(label=label or family, family=family, kwargs=params,
                           multicore_kwargs=multicore_kwargs)


def _check(collective: str, algorithm: str, np_ranks: int, sizes, dtype: str, root: int) -> None:
    find_algorithm(collective, algorithm)  # a one-line error when not in the registry
    try:
        pattern_for(collective, algorithm)
    except KeyError as error:  # its sentence names the entries that have one
        raise CollsimError(error.args[0]) from None
    if np_ranks < 1:
        raise CollsimError(f"np must be >= 1, got {np_ranks}")
    if dtype not in DTYPE_BYTES:
        raise CollsimError(f"unknown datatype {dtype!r} (known: {', '.join(DTYPE_BYTES)})")
    for n_bytes in sizes:
        if n_bytes < 0 or n_bytes % DTYPE_BYTES[dtype]:
            raise CollsimError(f"{n_bytes} bytes is not a whole number of {dtype} elements")
    if collectives()[collective]["root"] and not 0 <= root < np_ranks:
        raise CollsimError(f"root {root} is outside the communicator (np={np_ranks})")


def predict_rows(request: PlatformRequest, profile: Profile, *, algorithms, np_ranks: int,
                 sizes, mapping: str = "block", dtype: str = "double", op: str = "sum",
                 root: int = 0, flat: bool = True, graph=None,
                 params: AlgorithmParams = DEFAULT_PARAMS) -> list[dict]:
    """One row per (algorithm, size): the network model's time, the flat model's beside.

    ``algorithms``: (collective, algorithm) pairs.  ``flat``: also compute the
    flat model (needs the graph; left out above :data:`GRAPH_HOSTS` hosts).
    ``graph``: the platform's graph when the caller has it.  ``params``: the
    algorithms' parameters, as ``collsim run`` takes them.
    """
    for collective, algorithm in algorithms:
        _check(collective, algorithm, np_ranks, sizes, dtype, root)
    setting = network_setting(request, profile, np_ranks, mapping, graph)
    flat_net = None
    if setting.graph is not None:
        from collsim.runner import model_parameters

        route_net, _ = model_parameters(setting.graph, setting.names, profile)
        flat_net = route_net if flat else None
        if not params.alpha_over_beta_bytes and route_net.beta_s_per_byte > 0:
            # the pipelined algorithms' default block count reads the ratio `collsim run`
            # passes collbench (runner.run): the same blocks in the pattern as in the run
            params = replace(params, alpha_over_beta_bytes=route_net.alpha_s
                             / route_net.beta_s_per_byte)
    elem_bytes = DTYPE_BYTES[dtype]
    commutative = op not in NONCOMMUTATIVE_OPS
    rows = []
    for collective, algorithm in algorithms:
        for n_bytes in sizes:
            began = time.perf_counter()
            model_s, messages = collective_time(
                setting, collective, algorithm, n_bytes, elem_bytes=elem_bytes, root=root,
                commutative=commutative, params=params)
            row = {"collective": collective, "algorithm": algorithm, "platform": request.label,
                   "mapping": mapping, "profile": profile.name, "np": np_ranks,
                   "bytes": n_bytes, "dtype": dtype,
                   "root": root if collectives()[collective]["root"] else None,
                   "op": op if collectives()[collective]["op"] else None,
                   "model_s": model_s, "messages": messages,
                   "flat_model_s": None, "predict_wall_s": time.perf_counter() - began}
            if flat_net is not None:
                row["flat_model_s"] = model_for(collective, algorithm)(
                    np_ranks, n_bytes, flat_net, elem_bytes=elem_bytes,
                    root=row["root"] or 0, commutative=commutative, params=params).time_s
            rows.append(row)
    return rows


def format_table(rows: list[dict]) -> str:
    """The rows as ``collsim run`` prints its table: the network model and the flat one."""
    header = ("collective", "algorithm", "np", "bytes", "model", "flat model", "model/flat")
    lines = [header]
    for row in rows:
        flat = row["flat_model_s"]
        lines.append((row["collective"], row["algorithm"], str(row["np"]),
                       format_bytes(row["bytes"]), format_seconds(row["model_s"]),
                       "-" if flat is None else format_seconds(flat),
                       "-" if not flat else f"{row['model_s'] / flat:.6f}"))
    return text_table(lines)
