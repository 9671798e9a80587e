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
``flat_model_s``: the closed-form model ``collsim run`` attaches, for
comparison.
"""

from __future__ import annotations

import inspect
import random
import time
from collections import Counter
from dataclasses import replace

import numpy as np

from collsim.analysis.models import model_for
from collsim.analysis.network import (CrossbarFabric, DragonflyFabric, FatTreeFabric, GraphFabric,
                                      pattern_for, pattern_time)
from collsim.errors import CollsimError
from collsim.harness import find_algorithm
from collsim.limits import check
from collsim.params import DEFAULT_PARAMS, AlgorithmParams
from collsim.platform_cli import PlatformRequest, build_requested
from collsim.platforms import GENERATORS, map_ranks
from collsim.platforms.catalog import CATALOG
from collsim.platforms.mapping import read_rank_file
from collsim.profiles import Profile
from collsim.units import format_bytes, format_seconds
from collsim.units import format_table as text_table

__all__ = ["GRAPH_HOSTS", "predict_rows", "format_table", "request_from_table", "rank_nodes",
           "rank_sockets"]

# Platforms up to this many hosts are built as graphs (their parameters
# checked by the generator, the ranks mapped by ``map_ranks``, and the flat
# model computed beside); above, the regular families are arithmetic only.
GRAPH_HOSTS = 20_000

# A dragonfly up to this many hosts is routed on its graph (SimGrid's own choice
# among minimal routes; a search per source host, minutes at 4096 hosts), a
# larger one by the rule of ``DragonflyFabric`` (the same hop counts).
DRAGONFLY_GRAPH_HOSTS = 1024

DTYPE_BYTES = {"int32": 4, "int64": 8, "float": 4, "double": 8}
NONCOMMUTATIVE_OPS = {"first_nonzero"}
_ARITHMETIC = {"crossbar": CrossbarFabric, "fat_tree": FatTreeFabric,
               "dragonfly": DragonflyFabric}


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


def _family_params(request: PlatformRequest) -> tuple[str, dict] | None:
    """(family, the generator's full parameters) of a regular one-host-per-node platform."""
    if request.catalog is not None:
        entry = CATALOG[request.catalog]
        family, kwargs = entry["family"], entry["params"]
    elif request.family is not None and not request.multicore_kwargs:
        family, kwargs = request.family, request.kwargs
    else:
        return None
    if family not in _ARITHMETIC:
        return None
    defaults = {name: parameter.default
                for name, parameter in inspect.signature(GENERATORS[family]).parameters.items()
                if parameter.default is not inspect.Parameter.empty}
    params = {**defaults, **kwargs}
    if family == "fat_tree":
        levels = params["levels"]
        params["up_ports"] = params.get("up_ports") or [1] * levels
        params["parallel_links"] = params.get("parallel_links") or [1] * levels
    return family, params


def _hosts_of(family: str, params: dict) -> int:
    if family == "crossbar":
        return int(params["nodes"])
    if family == "fat_tree":
        return int(np.prod(params["down_ports"]))
    return (params["groups"] * params.get("chassis_per_group", 1) * params["routers_per_chassis"]
            * params["nodes_per_router"])


def _arithmetic_rank_hosts(n_hosts: int, cores: int, np_ranks: int, mapping: str) -> np.ndarray:
    """``map_ranks`` on nodes ``node-0..`` of ``cores`` cores each, without a graph."""
    try:
        return _slots(n_hosts, cores, np_ranks, mapping)
    except ValueError as error:
        raise CollsimError(f"mapping {mapping}: {error}") from None


def _slots(n_hosts: int, cores: int, np_ranks: int, mapping: str) -> np.ndarray:
    kind, _, argument = mapping.partition(":")
    if np_ranks > n_hosts * cores:
        raise CollsimError(f"np={np_ranks} is larger than the platform's {n_hosts * cores} cores")
    ranks = np.arange(np_ranks, dtype=np.int64)
    if kind in ("block", "socket") and not argument:
        return ranks // cores
    if kind == "cyclic":
        nodes = int(argument) if argument else n_hosts
        if not 1 <= nodes <= n_hosts or np_ranks > nodes * cores:
            raise CollsimError(f"mapping {mapping}: needs 1..{n_hosts} nodes with room for "
                               f"{np_ranks} ranks")
        return ranks % nodes
    if kind == "random":
        # the slots map_ranks samples from: node-major, cores per node
        slots = random.Random(int(argument) if argument else 0).sample(range(n_hosts * cores),
                                                                       np_ranks)
        return np.array(slots, dtype=np.int64) // cores
    if kind == "file":
        names = read_rank_file(argument)[:np_ranks]
        if len(names) < np_ranks or any(not n.startswith("node-") for n in names):
            raise ValueError(f"needs {np_ranks} host names node-<i>")
        hosts = np.array([int(name[len("node-"):]) for name in names], dtype=np.int64)
        if hosts.min() < 0 or hosts.max() >= n_hosts:
            raise ValueError(f"names a host outside node-0..node-{n_hosts - 1}")
        return hosts
    raise CollsimError(f"unknown mapping {mapping!r}")


# SimGrid 3.32's default network/weight-S of each network model (src/surf/network_*.cpp)
_WEIGHT_S = {"CM02": 0.0, "SMPI": 8775.0, "LV08": 20537.0}


def weight_S(profile: Profile) -> float:
    """The ``network/weight-S`` SimGrid uses under this profile (its cfg, else the model's default)."""
    given = profile.cfg.get("network/weight-S")
    if given is not None:
        return float(given)
    return _WEIGHT_S.get(profile.cfg.get("network/model", "SMPI"), 0.0)


def _check_regular(family: str, params: dict) -> None:
    """A platform answered by arithmetic is never generated, so its generator's checks
    are made here: whole counts >= 1, and at most ``limits.BOUNDS["hosts"]`` hosts."""
    for name, value in params.items():
        values = value if isinstance(value, (list, tuple)) else [value]
        if name.endswith(("nodes", "ports", "groups", "group", "chassis", "router", "links",
                          "levels")):
            for item in values:
                check("count", item, label=f"{family} {name}")
    check("hosts", _hosts_of(family, params), label=f"a {family}'s host count")


def platform_model(request: PlatformRequest, np_ranks: int, mapping: str, graph=None):
    """(fabric, each rank's host index, the graph or None, the ranks' host names or None).

    ``graph``: the platform itself, when the caller has it (``request`` then
    only labels it).
    """
    regular = _family_params(request) if graph is None else None
    if graph is not None and graph.graph.get("name") in _ARITHMETIC and "catalog" not in graph.graph:
        # a generated crossbar or fat-tree: routes by arithmetic (checked equal to the graph's)
        regular = (graph.graph["name"], graph.graph["params"])
    if graph is None and (regular is None or _hosts_of(*regular) <= GRAPH_HOSTS):
        graph, _ = build_requested(request)
    if graph is not None:
        if graph.graph.get("routing") == "opaque":
            raise CollsimError("predict needs a platform whose routes collsim knows "
                               "(a generator or a catalog machine), not an XML file")
        if regular is not None and (regular[0] != "dragonfly"
                                    or _hosts_of(*regular) > DRAGONFLY_GRAPH_HOSTS):
            fabric = _ARITHMETIC[regular[0]](graph.graph["params"])
        else:
            fabric = GraphFabric(graph)
        try:
            names = map_ranks(graph, np_ranks, mapping)
        except ValueError as error:
            raise CollsimError(str(error)) from None
        return fabric, fabric.host_index(names), graph, names
    family, params = regular
    _check_regular(family, params)
    fabric = _ARITHMETIC[family](params)
    cores = int(params.get("cores_per_node", 1))
    return fabric, _arithmetic_rank_hosts(fabric.n_hosts, cores, np_ranks, mapping), None, None


def rank_nodes(graph, names, rank_hosts: np.ndarray) -> np.ndarray:
    """The node of each rank, numbered from 0: its host's ``node`` on a graph (the
    sockets of one node share it), else its host (the arithmetic families place
    every core of a node on one host)."""
    if graph is None:
        return np.asarray(rank_hosts, dtype=np.int64)
    nodes = [graph.nodes[name].get("node", name) for name in names]
    number = {node: index for index, node in enumerate(dict.fromkeys(nodes))}
    return np.array([number[node] for node in nodes], dtype=np.int64)


def rank_sockets(graph, names) -> np.ndarray | None:
    """The socket of each rank where the platform's nodes are several hosts (one per
    socket: the hosts ``platforms/simgrid.py`` gives the ``socket`` property, which
    makes ``collsim_node_split`` split the communicator by node and leaves
    ``MPI_Comm_split_type`` grouping a socket); None where every node is one host
    (the arithmetic families, the graphs of one host per node)."""
    if graph is None:
        return None
    hosts_per_node = Counter(data["node"] for _, data in graph.nodes(data=True)
                             if data.get("kind") == "host")
    if all(count == 1 for count in hosts_per_node.values()):
        return None
    return np.array([graph.nodes[name].get("socket", 0) for name in names], dtype=np.int64)


def _check(collective: str, algorithm: str, np_ranks: int, sizes, dtype: str, root: int):
    find_algorithm(collective, algorithm)  # a one-line error when not in the registry
    try:
        builder = pattern_for(collective, algorithm)
    except KeyError as error:
        raise CollsimError(error.args[0]) from None
    if np_ranks < 1:
        raise CollsimError(f"np must be >= 1, got {np_ranks}")
    if dtype not in DTYPE_BYTES:
        raise CollsimError(f"unknown datatype {dtype!r} (known: {', '.join(DTYPE_BYTES)})")
    for n_bytes in sizes:
        if n_bytes < 0 or n_bytes % DTYPE_BYTES[dtype]:
            raise CollsimError(f"{n_bytes} bytes is not a whole number of {dtype} elements")
    if collective != "allreduce" and not 0 <= root < np_ranks:
        raise CollsimError(f"root {root} is outside the communicator (np={np_ranks})")
    return builder


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
    builders = [(c, a, _check(c, a, np_ranks, sizes, dtype, root)) for c, a in algorithms]
    fabric, rank_hosts, graph, names = platform_model(request, np_ranks, mapping, graph)
    nodes = rank_nodes(graph, names, rank_hosts)
    sockets = rank_sockets(graph, names)
    net = profile.model_network(0.0, 0.0, fabric.gamma_s_per_byte)
    flat_net = None
    if graph is not None:
        from collsim.runner import model_parameters

        route_net, _ = model_parameters(graph, names, profile)
        flat_net = route_net if flat else None
        if not params.alpha_over_beta_bytes and route_net.beta_s_per_byte > 0:
            # the pipelined algorithms' default block count reads the ratio `collsim run`
            # passes collbench (runner.run): the same blocks in the pattern as in the run
            params = replace(params, alpha_over_beta_bytes=route_net.alpha_s
                             / route_net.beta_s_per_byte)
    elem_bytes = DTYPE_BYTES[dtype]
    commutative = op not in NONCOMMUTATIVE_OPS
    rows = []
    for collective, algorithm, build in builders:
        for n_bytes in sizes:
            began = time.perf_counter()
            pattern = build(np_ranks, n_bytes // elem_bytes, elem_bytes=elem_bytes,
                            root=root if collective != "allreduce" else 0,
                            commutative=commutative, params=params, rank_nodes=nodes,
                            rank_sockets=sockets)
            model_s = pattern_time(pattern, rank_hosts, fabric, net, weight_S=weight_S(profile))
            row = {"collective": collective, "algorithm": algorithm, "platform": request.label,
                   "mapping": mapping, "profile": profile.name, "np": np_ranks,
                   "bytes": n_bytes, "dtype": dtype, "op": op,
                   "root": None if collective == "allreduce" else root,
                   "model_s": model_s, "messages": pattern.messages,
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
