"""collsim.platforms: topology generators, SimGrid XML and hostfile writers."""

from .crossbar import crossbar
from .dragonfly import dragonfly
from .dual_rail import RAIL_POLICIES, dual_rail
from .fat_tree import fat_tree
from .mapping import MAPPINGS, hosts, map_ranks
from .multicore import multicore
from .network import network_parameters, pair_classes, pair_parameters
from .routing import route
from .simgrid import platform_hash, platform_xml, write_hostfile, write_platform

from .families import GENERATORS
from .spec import platform_from_spec

__all__ = [
    "GENERATORS",
    "MAPPINGS",
    "RAIL_POLICIES",
    "crossbar",
    "dragonfly",
    "dual_rail",
    "fat_tree",
    "hosts",
    "map_ranks",
    "multicore",
    "network_parameters",
    "pair_classes",
    "pair_parameters",
    "platform_from_spec",
    "platform_hash",
    "platform_xml",
    "route",
    "write_hostfile",
    "write_platform",
]
