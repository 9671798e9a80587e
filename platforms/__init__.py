"""collsim.platforms: topology generators, SimGrid XML and hostfile writers."""

from .crossbar import crossbar
from .mapping import MAPPINGS, hosts, map_ranks
from .network import network_parameters, pair_parameters
from .simgrid import platform_hash, platform_xml, write_hostfile, write_platform

GENERATORS = {"crossbar": crossbar}

__all__ = [
    "GENERATORS",
    "MAPPINGS",
    "crossbar",
    "hosts",
    "map_ranks",
    "network_parameters",
    "pair_parameters",
    "platform_hash",
    "platform_xml",
    "write_hostfile",
    "write_platform",
]
