"""The one way to find a model by name: :func:`model_for` and :func:`part_model`.

Composite algorithms (two-level, node-aware, pre-rounded) and the library
selectors run other registry entries, named by their parameters or by the
row collbench wrote.  They find those entries' models here, by collective and
algorithm name, so that no collective's module imports another's by name at
import time (``reduce.prerounded`` needs an allreduce, ``allreduce.node_aware``
a reduce: an import cycle if done with ``import``).  The collective's module is
imported when a model is first asked for.
"""

from __future__ import annotations

from importlib import import_module
from typing import Callable

__all__ = ["COLLECTIVES", "COMPOSITES", "composite_names", "model_for", "parameter_default",
           "part_model"]

#: The collectives with a model module of their own name: every collective of
#: algorithms/collectives.def (``tests/test_models.py`` holds the two equal).
COLLECTIVES = ("allgather", "allreduce", "alltoall", "barrier", "bcast", "exscan", "gather",
               "reduce", "reduce_scatter", "scan", "scatter")

#: The registry entries that run other entries (C: the entries that take the
#: ``groups``, ``inner_outer`` or ``node_size`` parameters, refused as a level
#: by ``level_algorithm`` in algorithms/common/hier.c); never a part of another.
#: ``tests/test_models.py`` holds this set to the registry's.
COMPOSITES = frozenset({"fixed_order", "hierarchical", "node_aware", "prerounded"})


def model_for(collective: str, algorithm: str) -> Callable:
    """Return the model function of a registry entry.

    Raises
    ------
    KeyError
        If there is no model for that entry.

    Examples
    --------
    >>> model_for("bcast", "binomial").__name__
    'binomial'
    """
    if collective in COLLECTIVES:
        module = import_module(f"{__package__}.{collective}")
        if algorithm in module.__all__:
            return getattr(module, algorithm)
    raise KeyError(f"no model for {collective}/{algorithm}")


def part_model(collective: str, algorithm: str, role: str) -> Callable:
    """Return the model of ``algorithm`` used as the ``role`` part of a composite.

    Raises
    ------
    ValueError
        Naming the role, if ``algorithm`` is not a plain (non-composite)
        ``collective`` algorithm.

    Examples
    --------
    >>> part_model("reduce", "hierarchical", "inner")
    Traceback (most recent call last):
    ...
    ValueError: inner algorithm must be a plain reduce algorithm, got 'hierarchical'
    """
    try:
        model = model_for(collective, algorithm)
    except KeyError:
        model = None
    if model is None or algorithm in COMPOSITES:
        raise ValueError(f"{role} algorithm must be a plain {collective} algorithm, got {algorithm!r}")
    return model


def composite_names(collective: str, algorithm: str, params) -> tuple[str, str]:
    """The (inner, outer) algorithms of a composite entry under ``params``.

    C decides them (``collsim_composite_names``, ``algorithms/common/hier.c``)
    and collbench publishes the rule (:func:`collsim.harness.composite_names`);
    a model reads it from there when it predicts without a run.  (A run's rows
    carry what collbench resolved, and the runner passes that on.)
    """
    from collsim.harness import composite_names as published

    return published(collective, algorithm, params.inner_algorithm, params.outer_algorithm)


def parameter_default(collective: str, algorithm: str, parameter: str) -> int:
    """What 0 stands for in ``parameter`` of a registry entry (``chain_fanout``
    of ``chain``: 1).

    C decides it (the parameters table of ``algorithms/registry.c``) and
    collbench publishes it (``parameter_defaults`` of ``collbench --list
    --json``); a model reads it from there when its params leave it at 0.
    """
    from collsim.harness import find_algorithm

    return find_algorithm(collective, algorithm)["parameter_defaults"][parameter]
