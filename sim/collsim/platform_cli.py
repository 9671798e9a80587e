"""The platform part of the command line: choosing a machine, and ``collsim platform``.

``--platform`` takes a generator name with its parameters
(``--platform fat-tree --down-ports 16,8 --up-ports 1,16``), a catalog name
(``--platform seed003_hydra``) or a SimGrid XML file (``--platform my.xml``).
``--sockets-per-node`` puts multicore nodes on top of any generated network.

    collsim platform generate fat-tree --nodes 64 -o ft64.xml [--hostfile H --np N]
    collsim platform describe seed003_hydra
    collsim platform draw dragonfly --dragonfly-groups 3 --routers-per-chassis 4 \\
        --nodes-per-router 2 -o df.svg
    collsim platform list
"""

from __future__ import annotations

import argparse
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path

import networkx as nx

from collsim.errors import CollsimError
from collsim.files import check_output_path
from collsim.platforms import (
    GENERATORS,
    RAIL_POLICIES,
    map_ranks,
    multicore,
    platform_hash,
    write_hostfile,
    write_platform,
)
from collsim.platforms.catalog import CATALOG, catalog_platform
from collsim.platforms.describe import describe_platform
from collsim.platforms.mapping import hosts
from collsim.platforms.size import check_platform_size
from collsim.platforms.xml_file import xml_file_platform
from collsim.units import format_seconds, parse_bandwidth, parse_time

__all__ = ["PlatformRequest", "add_platform_arguments", "build_platform", "build_requested",
           "refuse_shape_options",
           "register_platform_command", "resolve_platform"]

# a family by its generator's name or with dashes (fat-tree, dual-rail)
FAMILIES = {**{name: name for name in GENERATORS}, **{name.replace("_", "-"): name for name in GENERATORS}}

# option dest -> (generator keyword, parser); parser None: an int
_COMMON = {
    "cores_per_node": ("cores_per_node", int),
    "loopback_bandwidth": ("loopback_bandwidth_Bps", parse_bandwidth),
    "loopback_latency": ("loopback_latency_s", parse_time),
    "speed": ("speed_flops", float),
    "gamma": ("gamma_s_per_byte", float),
}


def _int_list(text):
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise ValueError(f"expected comma-separated integers, got {text!r}") from None


def _bandwidth_list(text):
    values = [parse_bandwidth(x) for x in text.split(",")]
    return values[0] if len(values) == 1 else values


def _time_list(text):
    values = [parse_time(x) for x in text.split(",")]
    return values[0] if len(values) == 1 else values


_FAMILY_OPTIONS = {
    "crossbar": {"nodes": ("nodes", int), "bandwidth": ("bandwidth_Bps", parse_bandwidth),
                 "latency": ("latency_s", parse_time), "half_duplex": ("half_duplex", bool),
                 **_COMMON},
    "fat_tree": {"levels": ("levels", int), "down_ports": ("down_ports", _int_list),
                 "up_ports": ("up_ports", _int_list),
                 "parallel_links": ("parallel_links", _int_list),
                 "bandwidth": ("bandwidth_Bps", _bandwidth_list),
                 "latency": ("latency_s", _time_list), "tapering": ("tapering", float),
                 **_COMMON},
    "dragonfly": {"dragonfly_groups": ("groups", int), "chassis_per_group": ("chassis_per_group", int),
                  "routers_per_chassis": ("routers_per_chassis", int),
                  "nodes_per_router": ("nodes_per_router", int),
                  "global_links": ("global_links", int),
                  "bandwidth": ("node_bandwidth_Bps", parse_bandwidth),
                  "latency": ("node_latency_s", parse_time),
                  "local_bandwidth": ("local_bandwidth_Bps", parse_bandwidth),
                  "local_latency": ("local_latency_s", parse_time),
                  "global_bandwidth": ("global_bandwidth_Bps", parse_bandwidth),
                  "global_latency": ("global_latency_s", parse_time), **_COMMON},
    "dual_rail": {"nodes": ("nodes", int), "sockets_per_node": ("sockets_per_node", int),
                  "cores_per_socket": ("cores_per_socket", int),
                  "rail_policy": ("rail_policy", str),
                  "bandwidth": ("nic_bandwidth_Bps", parse_bandwidth),
                  "latency": ("nic_latency_s", parse_time),
                  "socket_bandwidth": ("socket_bandwidth_Bps", parse_bandwidth),
                  "socket_latency": ("socket_latency_s", parse_time),
                  "plane_down_ports": ("plane_down_ports", _int_list),
                  "plane_up_ports": ("plane_up_ports", _int_list),
                  # its nodes' cores are sockets x cores per socket
                  **{dest: option for dest, option in _COMMON.items() if dest != "cores_per_node"}},
}
_MULTICORE = {"sockets_per_node": ("sockets_per_node", int),
              "cores_per_socket": ("cores_per_socket", int),
              "socket_bandwidth": ("socket_bandwidth_Bps", parse_bandwidth),
              "socket_latency": ("socket_latency_s", parse_time),
              "memory_bandwidth": ("memory_bandwidth_Bps", parse_bandwidth),
              "memory_latency": ("memory_latency_s", parse_time)}


def add_platform_arguments(parser: argparse.ArgumentParser, *, positional: bool = False) -> None:
    """Add the options that choose and shape a platform."""
    group = parser.add_argument_group("platform")
    help_text = ("a generator (crossbar, fat-tree, dragonfly, dual-rail), a catalog name "
                 "(collsim platform list) or a SimGrid XML file")
    if positional:
        group.add_argument("platform", help=help_text)
    else:
        group.add_argument("--platform", default="crossbar",
                           help=help_text + " (default crossbar)")
    add = group.add_argument
    add("--nodes", type=int, help="nodes (crossbar, dual-rail; fat-tree: two levels chosen "
        "for this many nodes; default for crossbar: enough for --np)")
    add("--cores-per-node", type=int, help="cores per node (one host per node)")
    add("--bandwidth", help="link bandwidth, e.g. 12.5GBps or 100Gbps; fat-tree: one per "
        "level, comma-separated; dragonfly: node links; dual-rail: NICs")
    add("--latency", help="link latency, e.g. 1us (same forms as --bandwidth)")
    add("--half-duplex", action="store_const", const=True,
        help="crossbar: a link's two directions share its bandwidth (seed 001's simplex "
        "network, f_beta = 0.5)")
    add("--loopback-bandwidth")
    add("--loopback-latency")
    add("--speed", help="host speed, flop/s")
    add("--gamma", help="local reduction cost, seconds per byte (default 1e-10)")
    add("--levels", type=int, help="fat-tree: switch levels")
    add("--down-ports", help="fat-tree: children per switch, per level (e.g. 8,8)")
    add("--up-ports", help="fat-tree: parents per element, per level (e.g. 1,8)")
    add("--parallel-links", help="fat-tree: cables per child-parent pair, per level")
    add("--tapering", help="fat-tree: oversubscription ratio >= 1 above the leaf switches")
    add("--dragonfly-groups", type=int,
        help="dragonfly: groups (--groups is the hierarchical algorithms' group count)")
    add("--chassis-per-group", type=int, help="dragonfly")
    add("--routers-per-chassis", type=int, help="dragonfly")
    add("--nodes-per-router", type=int, help="dragonfly")
    add("--global-links", type=int, help="dragonfly: links between two groups")
    add("--local-bandwidth")
    add("--local-latency")
    add("--global-bandwidth")
    add("--global-latency")
    add("--sockets-per-node", type=int, help="multicore nodes (one SimGrid host per socket) on "
        "top of the network; dual-rail: sockets")
    add("--cores-per-socket", type=int)
    add("--socket-bandwidth", help="socket-to-node-router link")
    add("--socket-latency")
    add("--memory-bandwidth", help="multicore: a socket's memory bandwidth for shared-memory "
        "transfers, shared by its ranks (default: SimGrid's contention-free loopback)")
    add("--memory-latency", help="multicore: latency of a shared-memory transfer")
    add("--rail-policy", help=f"dual-rail: {', '.join(RAIL_POLICIES)}")
    add("--plane-down-ports", help="dual-rail: make each plane a fat-tree with these "
        "down-ports (their product is --nodes)")
    add("--plane-up-ports", help="dual-rail: the planes' up-ports")


def _fat_tree_for(nodes: int) -> dict:
    """A non-blocking two-level fat-tree with ``nodes`` nodes: leaves as square as divides."""
    leaf = max(d for d in range(1, math.isqrt(nodes) + 1) if nodes % d == 0)
    down = nodes // leaf
    return dict(levels=2, down_ports=[down, leaf], up_ports=[1, down])


def _generator_kwargs(family: str, args: argparse.Namespace, options: dict) -> dict:
    kwargs = {}
    for dest, (keyword, parse) in options.items():
        value = getattr(args, dest, None)
        if value is None:
            continue
        try:
            kwargs[keyword] = parse(value)
        except ValueError as error:
            raise CollsimError(f"--{dest.replace('_', '-')}: {error}") from None
    return kwargs


# every option that shapes a generated platform (the dests of add_platform_arguments)
_SHAPE_OPTIONS = tuple(dict.fromkeys(
    [*(dest for options in _FAMILY_OPTIONS.values() for dest in options), *_MULTICORE,
     "nodes", "levels"]))


def refuse_shape_options(args: argparse.Namespace, allowed: set[str], what: str) -> None:
    """A shape option the platform does not take is an error, never silently ignored."""
    for dest in _SHAPE_OPTIONS:
        if dest not in allowed and getattr(args, dest, None) is not None:
            raise CollsimError(f"--{dest.replace('_', '-')} does not apply to {what}")


@dataclass(frozen=True)
class PlatformRequest:
    """A platform as the options name it, before anything is built.

    ``catalog``: a catalog machine's name; ``xml``: a SimGrid XML file; else
    ``family`` with the generator's ``kwargs`` and, for multicore nodes on
    top, ``multicore_kwargs``.  ``label`` is what result rows call it.
    """

    label: str
    catalog: str | None = None
    xml: str | None = None
    family: str | None = None
    kwargs: dict | None = None
    multicore_kwargs: dict | None = None


def resolve_platform(args: argparse.Namespace, np: int | None = None, *,
                     strict_options: bool = True) -> PlatformRequest:
    """The platform the options name, checked, without building it (see :func:`build_platform`)."""
    name = args.platform
    try:
        if name in CATALOG:
            if strict_options:
                refuse_shape_options(args, set(), f"catalog machine {name} (it comes with its own "
                                "values)")
            return PlatformRequest(label=name, catalog=name)
        if name not in FAMILIES:
            if name.endswith(".xml") or os.path.sep in name or Path(name).exists():
                if strict_options:
                    refuse_shape_options(args, set(), f"the platform file {name} (it comes with its "
                                    "own values)")
                return PlatformRequest(label=f"file:{name}", xml=name)
            raise CollsimError(f"unknown platform {name!r} (generators: crossbar, fat-tree, "
                               f"dragonfly, dual-rail; catalog: {', '.join(CATALOG)}; or an "
                               ".xml file)")
        family = FAMILIES[name]
        if strict_options:
            allowed = set(_FAMILY_OPTIONS[family]) | {"nodes"}
            if family != "dual_rail":
                allowed |= set(_MULTICORE)
            if family == "dragonfly":
                allowed.discard("nodes")
            refuse_shape_options(args, allowed, f"a {name} (see collsim run --help)")
        multicore_kwargs = {}
        if family != "dual_rail":
            multicore_kwargs = _generator_kwargs(family, args, _MULTICORE)
        kwargs = _generator_kwargs(family, args, _FAMILY_OPTIONS[family])
        per_node = kwargs.get("cores_per_node", 1)
        if multicore_kwargs:
            per_node = (multicore_kwargs.get("sockets_per_node", 2)
                        * multicore_kwargs.get("cores_per_socket", 1))
        if family == "crossbar" and "nodes" not in kwargs:
            kwargs["nodes"] = -(-(np or 2) // max(per_node, 1))
        if family == "dual_rail" and "nodes" not in kwargs and "plane_down_ports" in kwargs:
            kwargs["nodes"] = math.prod(kwargs["plane_down_ports"])
        if family == "dual_rail" and "nodes" not in kwargs:
            per_node = kwargs.get("sockets_per_node", 2) * kwargs.get("cores_per_socket", 1)
            kwargs["nodes"] = -(-(np or 2) // max(per_node, 1))
        if family == "fat_tree" and "down_ports" not in kwargs:
            nodes = args.nodes if args.nodes is not None else -(-(np or 2) // max(per_node, 1))
            if nodes < 1:
                raise ValueError(f"nodes must be an integer >= 1, got {nodes}")
            kwargs = {**_fat_tree_for(nodes), **kwargs}
        elif family == "fat_tree" and args.nodes is not None:
            raise ValueError("give either --nodes or --down-ports for a fat-tree, not both")
        if family == "fat_tree" and "levels" not in kwargs:
            kwargs["levels"] = len(kwargs["down_ports"])
        if family == "dragonfly":
            missing = [o for o in ("groups", "routers_per_chassis", "nodes_per_router")
                       if o not in kwargs]
            if missing:
                option = {"groups": "dragonfly-groups"}
                raise ValueError("a dragonfly needs " + ", ".join(
                    "--" + option.get(m, m).replace("_", "-") for m in missing))
        return PlatformRequest(label=name, family=family, kwargs=kwargs,
                               multicore_kwargs=multicore_kwargs)
    except ValueError as error:
        raise CollsimError(str(error)) from None


def build_platform(args: argparse.Namespace, np: int | None = None, *,
                   strict_options: bool = True) -> tuple[nx.Graph, str]:
    """Return the platform chosen by the options and its label for result rows.

    With ``strict_options`` (the default) a shape option that the chosen
    platform does not take (``--gamma`` with a catalog machine, ``--down-ports``
    with a crossbar) is an error; ``collsim repro`` turns it off for a list of
    several platforms, where an option may apply to only some of them.
    """
    request = resolve_platform(args, np, strict_options=strict_options)
    return build_requested(request)


def build_requested(request: PlatformRequest) -> tuple[nx.Graph, str]:
    """The graph of a resolved platform and its label."""
    family, kwargs, multicore_kwargs = request.family, request.kwargs, request.multicore_kwargs
    try:
        if request.catalog is not None:
            return catalog_platform(request.catalog), request.label
        if request.xml is not None:
            return xml_file_platform(request.xml), request.label
        check_platform_size(family, kwargs, multicore_kwargs.get("sockets_per_node", 2)
                            if multicore_kwargs else 1)
        G = GENERATORS[family](**kwargs)
        if multicore_kwargs:
            G = multicore(G, **multicore_kwargs)
        return G, request.label
    except ValueError as error:
        raise CollsimError(str(error)) from None
    except TypeError as error:  # an option the generator does not take
        raise CollsimError(f"{request.label}: {error}") from None


# -- collsim platform ---------------------------------------------------------


def _format_description(d: dict) -> str:
    lines = [f"platform   {d['platform']} ({d['hash']})",
             f"nodes      {d['nodes']}  hosts {d['hosts']}  cores {d['cores']}",
             f"switches   {d['switches']}  links {d['links']}"
             + ("  (half duplex: both directions share a link's bandwidth)"
                if d.get("half_duplex") else "")]
    if "note" in d:
        return "\n".join(lines + [d["note"]]) + "\n"
    lines.append(f"diameter   {d['diameter_hops']} hops")
    lines.append(f"bisection  {d['bisection_Bps'] / 1e9:.6g} GB/s (cut between the halves "
                 "of the nodes in block order)")
    lines.append(f"(alpha, beta) classes between ranks (from {d['classes_from']} source hosts):")
    for c in d["classes"]:
        lines.append(f"  alpha {format_seconds(c['alpha_s']):>9}  bandwidth "
                     f"{c['bandwidth_Bps'] / 1e9:8.4g} GB/s  hops {c['hops']:>2}  "
                     f"e.g. {c['example'][0]} -> {c['example'][1]}")
    return "\n".join(lines) + "\n"


def _cmd_generate(args: argparse.Namespace) -> int:
    check_output_path(args.output, "-o")
    if args.hostfile:
        check_output_path(args.hostfile, "--hostfile")
    G, _ = build_platform(args, args.np)
    if G.graph.get("routing") == "opaque":
        raise CollsimError("generate needs a generator or a catalog name, not an XML file")
    rank_hosts = None
    if args.hostfile:
        try:
            rank_hosts = map_ranks(G, len(hosts(G)) if args.np is None else args.np,
                                   args.mapping)
        except ValueError as error:
            raise CollsimError(str(error)) from None
    try:
        write_platform(G, args.output)
        if rank_hosts is not None:
            write_hostfile(rank_hosts, args.hostfile)
    except OSError as error:
        raise CollsimError(f"cannot write: {error}") from None
    print(f"{args.output}: {len(hosts(G))} hosts, {G.number_of_edges()} links, "
          f"hash {platform_hash(G)}")
    return 0


def _cmd_describe(args: argparse.Namespace) -> int:
    G, _ = build_platform(args, None)
    d = describe_platform(G)
    print(json.dumps(d, indent=1) if args.json else _format_description(d), end="" if not args.json else "\n")
    return 0


def _cmd_draw(args: argparse.Namespace) -> int:
    from collsim.platforms.draw import draw_platform

    if Path(args.output).suffix.lower() not in (".svg", ".png"):
        raise CollsimError(f"-o {args.output}: a picture is .svg or .png")
    check_output_path(args.output, "-o")
    G, _ = build_platform(args, None)
    try:
        draw_platform(G, args.output)
    except ValueError as error:
        raise CollsimError(str(error)) from None
    print(args.output)
    return 0


def _cmd_list(args: argparse.Namespace) -> int:
    for name, entry in CATALOG.items():
        print(f"{name:<28} {entry['description']}")
    return 0


def register_platform_command(commands, parser_class) -> None:
    """Add ``collsim platform {generate,describe,draw,list}`` to the CLI."""
    platform = commands.add_parser("platform", help="generate, describe or draw a platform")
    sub = platform.add_subparsers(dest="platform_command", required=True,
                                  parser_class=parser_class)
    generate = sub.add_parser("generate", help="write the SimGrid XML (and a hostfile)")
    add_platform_arguments(generate, positional=True)
    generate.add_argument("-o", "--output", required=True, help="the XML file to write")
    generate.add_argument("--hostfile", help="also write a hostfile for --np ranks")
    generate.add_argument("--np", type=int, help="ranks (default: every core)")
    generate.add_argument("--mapping", default="block",
                          help="block, cyclic[:NODES], socket, random[:SEED] or file:PATH")
    generate.set_defaults(handler=_cmd_generate)
    describe_parser = sub.add_parser("describe", help="hosts, links, diameter, bisection, "
                                     "(alpha, beta) classes")
    add_platform_arguments(describe_parser, positional=True)
    describe_parser.add_argument("--json", action="store_true")
    describe_parser.set_defaults(handler=_cmd_describe)
    draw = sub.add_parser("draw", help="a picture of the topology (.svg or .png)")
    add_platform_arguments(draw, positional=True)
    draw.add_argument("-o", "--output", required=True, help="picture file: .svg or .png")
    draw.set_defaults(handler=_cmd_draw)
    listing = sub.add_parser("list", help="the catalog of machines")
    listing.set_defaults(handler=_cmd_list)
