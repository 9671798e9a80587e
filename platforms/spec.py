"""Platforms described as data: the tables of scenario and suite files.

A platform table is one of::

    { generator = "fat_tree", levels = 2, down_ports = [4, 4], up_ports = [1, 4] }
    { generator = "crossbar", nodes = 8, multicore = { sockets_per_node = 2, cores_per_socket = 4 } }
    { catalog = "seed003_hydra" }

Generator parameters are the generator's keyword arguments (SI units, as in
its docstring); ``multicore`` wraps the generated network in multicore nodes;
``name`` optionally labels the machine.  Nothing in a table is executed.
"""

from __future__ import annotations

import networkx as nx

from .catalog import CATALOG, catalog_platform
from .families import GENERATORS
from .multicore import multicore
from .size import check_platform_size

__all__ = ["platform_from_spec"]


def platform_from_spec(spec: dict) -> nx.Graph:
    """Build the platform a table describes.

    The graph's ``graph["label"]`` names the machine: the table's ``name``,
    else the catalog name, else the generator (``+multicore`` when wrapped).

    Raises
    ------
    ValueError
        With a message naming the key, for an unknown generator or catalog
        name, a table with both or neither, or bad generator parameters.

    Examples
    --------
    >>> G = platform_from_spec({"generator": "crossbar", "nodes": 4})
    >>> G.graph["label"], G.number_of_nodes()
    ('crossbar', 5)
    """
    if not isinstance(spec, dict):
        raise ValueError("a platform must be a table")
    params = dict(spec)
    label = params.pop("name", None)
    if label is not None and not isinstance(label, str):
        raise ValueError("name: must be a string")
    if ("generator" in params) == ("catalog" in params):
        raise ValueError("give exactly one of 'generator' or 'catalog'")
    if "catalog" in params:
        name = params.pop("catalog")
        if params:
            raise ValueError(f"{sorted(params)[0]}: not allowed with 'catalog'")
        if name not in CATALOG:
            raise ValueError(f"catalog: unknown machine {name!r} (known: {', '.join(CATALOG)})")
        return _labelled(catalog_platform(name), label or name)
    generator = params.pop("generator")
    if generator not in GENERATORS:
        raise ValueError(f"generator: unknown generator {generator!r} "
                         f"(known: {', '.join(sorted(GENERATORS))})")
    node_shape = params.pop("multicore", None)
    sockets = node_shape.get("sockets_per_node", 2) if isinstance(node_shape, dict) else 1
    check_platform_size(generator, params, sockets)
    try:
        G = GENERATORS[generator](**params)
        if node_shape is not None:
            if not isinstance(node_shape, dict):
                raise ValueError("multicore: must be a table")
            G = multicore(G, **node_shape)
    except TypeError as error:  # an unknown keyword
        raise ValueError(str(error).replace("() got", ": got")) from None
    return _labelled(G, label or (generator if node_shape is None else f"{generator}+multicore"))


def _labelled(G: nx.Graph, label: str) -> nx.Graph:
    G.graph["label"] = label
    return G
