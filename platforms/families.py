"""The platform generators by family name: the one table of them.

Scenario and suite tables (``generator = "fat_tree"``), catalog entries and
the command line all name a family; this is where a name becomes a function.
A new family is a module with its generator and one line here.
"""

from __future__ import annotations

from .crossbar import crossbar
from .dragonfly import dragonfly
from .dual_rail import dual_rail
from .fat_tree import fat_tree

__all__ = ["GENERATORS"]

#: Family name -> generator (keyword arguments in SI units, see each docstring).
GENERATORS = {
    "crossbar": crossbar,
    "fat_tree": fat_tree,
    "dragonfly": dragonfly,
    "dual_rail": dual_rail,
}
