"""The network model: an algorithm's messages routed over the platform, links shared.

Where the flat models (``collsim.analysis.models``) give every message one
alpha and beta, this package routes each message of the algorithm's pattern
over the platform's links and shares each link among the messages crossing
it at the same time, as SimGrid's CM02 model does (docs/MODELS.md):

- :mod:`.pattern`: a pattern is steps of concurrent messages and reductions;
- :mod:`.patterns`: the patterns of the registry's algorithms (``PATTERNS``);
- :mod:`.fabric`: links and routes read off a platform graph;
- :mod:`.regular`: routes by arithmetic on the crossbar, fat-tree, dragonfly;
- :mod:`.maxmin`: max-min fair rates (progressive filling, vectorised);
- :mod:`.engine`: the time of a pattern on a fabric.
"""

from .engine import pattern_time
from .fabric import Fabric, GraphFabric
from .pattern import Pattern, Step
from .patterns import PATTERNS, pattern_for
from .regular import CrossbarFabric, DragonflyFabric, FatTreeFabric

__all__ = ["pattern_time", "Fabric", "GraphFabric", "Pattern", "Step", "PATTERNS", "pattern_for",
           "CrossbarFabric", "DragonflyFabric", "FatTreeFabric"]
