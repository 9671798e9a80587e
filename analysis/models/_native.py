"""The models of the selectors (``openmpi_default``, ``mpich_default``).

A selector runs the algorithm its library picks; collbench decides once, in C
(``algorithms/common/native.c``), and records the choice in the row's
``selected``.  The model of a selector is the model of that recorded choice.
Where no row records it (a selector used as a level of a composite, or a
prediction without a run), the model asks collbench for the choice
(``collbench --native-choice``, :func:`collsim.native.choices`): there is no
second copy of the decision tables in Python.
"""

from __future__ import annotations

import functools
from dataclasses import replace

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._base import NetworkParams, Prediction, check_arguments, exact, total
from ._lookup import model_for

#: The datatype collbench is asked about for an element size (see _query_dtype).
_DTYPE_OF_ELEM_BYTES = {4: "int32", 8: "double"}


def _query_dtype(collective: str, selector: str, p: int, n_bytes: int, elem_bytes: int) -> str:
    """The datatype collbench is asked about for a call of ``elem_bytes``-byte elements.

    collbench takes 4- and 8-byte types only.  The libraries' decisions
    (``algorithms/common/native.c``) read the size in bytes, and the count
    only as ``count < p`` and ``count < pof2(p)`` (their fallbacks): any
    other element size is asked as a 4- or 8-byte type of the same bytes whose
    count falls on the same sides (``tests/test_app_any_program.py`` holds
    the two decisions together).

    Raises
    ------
    ValueError
        If neither does (a count near p): then the choice must be given
        (``params.selected``, as a run records it).
    """
    if elem_bytes in _DTYPE_OF_ELEM_BYTES:
        return _DTYPE_OF_ELEM_BYTES[elem_bytes]
    count = n_bytes // elem_bytes
    pof2 = 1 << (p.bit_length() - 1)
    for size, name in _DTYPE_OF_ELEM_BYTES.items():
        other = n_bytes // size
        if n_bytes % size == 0 and (other < p) == (count < p) and (other < pof2) == (count < pof2):
            return name
    raise ValueError(f"{collective}/{selector} on {p} ranks: no 4- or 8-byte type of {n_bytes} B "
                     f"decides as {count} elements of {elem_bytes} B; give the choice "
                     "(params.selected, as a run records it)")


@functools.lru_cache(maxsize=4096)
def _choice(collective: str, selector: str, p: int, n_bytes: int, elem_bytes: int,
            commutative: bool) -> str:
    """The algorithm the selector runs for this call, as collbench decides it.

    One collbench start per distinct call (cached): a run's rows, and the
    interposition library's trace, record the choice (``params.selected``),
    so only a prediction without a run comes here.
    """
    from collsim.native import LIBRARIES, choices

    op = "sum" if commutative else "first_nonzero"
    library = next(name for name, entry in LIBRARIES.items() if entry == selector)
    dtype = _query_dtype(collective, selector, p, n_bytes, elem_bytes)
    row = choices(collective, library, p, (n_bytes,), op=op, dtype=dtype)[0]
    if row["selected"] is None:
        raise ValueError(f"{collective}/{selector} on {p} ranks at {n_bytes} B: "
                         f"{row['error'] or 'the library runs an algorithm collsim does not have'}")
    return row["selected"]

_LIBRARIES = {"openmpi_default": "Open MPI 4.1", "mpich_default": "MPICH 4.0"}


def selector(collective: str, name: str):
    """The model function of the selector ``name`` of ``collective`` (one per registry entry)."""

    def model(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
              commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
        return selected_model(collective, name, p, n_bytes, net, elem_bytes=elem_bytes,
                              root=root, commutative=commutative, params=params)

    model.__name__ = model.__qualname__ = name
    model.__doc__ = (f"{_LIBRARIES[name]}'s default choice: the model of the algorithm "
                     "collbench recorded.\n\n    ``params.selected`` names it "
                     "(``collsim.analysis.models._native``).\n\n"
                     "    Accuracy: that of the algorithm chosen.\n    ")
    return model


def _moves_data(collective: str) -> bool:
    """Whether a collective has a buffer (collectives.def, as collbench publishes it)."""
    from collsim.harness import collectives

    blocks = collectives()[collective]
    return blocks["send_blocks"] != "none" or blocks["recv_blocks"] != "none"


#: Open MPI's algorithms that run two of its own collectives, each by its own
#: rules (``compositions`` in algorithms/common/native.c): per collective, the
#: two parts in order, each with whether its vector is the p blocks (True) or
#: one block.  A run records them as ``first:A+second:B``.
_COMPOSITIONS = {
    "allreduce": (("reduce", False), ("bcast", False)),         # nonoverlapping
    "reduce_scatter": (("reduce", True), ("scatter", False)),   # basic_linear
}


def _composition_model(collective: str, selected: str, p: int, n_bytes: int,
                       net: NetworkParams, *, elem_bytes: int, commutative: bool,
                       params: AlgorithmParams) -> Prediction:
    """The sum of the models of a composition's two parts, rooted at rank 0."""
    names = dict(part.split(":", 1) for part in selected.split("+"))
    inner = AlgorithmParams(alpha_over_beta_bytes=params.alpha_over_beta_bytes)
    parts = []
    for part, all_blocks in _COMPOSITIONS[collective]:
        if part not in names:
            raise ValueError(f"{collective}: selected {selected!r} names no {part}")
        parts.append(model_for(part, names[part])(
            p, n_bytes * p if all_blocks else n_bytes, net, elem_bytes=elem_bytes, root=0,
            commutative=commutative if part == "reduce" else True, params=inner))
    return total(*parts)


def selected_model(collective: str, selector: str, p: int, n_bytes: int, net: NetworkParams, *,
                   elem_bytes: int, root: int, commutative: bool,
                   params: AlgorithmParams) -> Prediction:
    """The prediction of the algorithm a selector ran (``params.selected``).

    A composition (Open MPI's allreduce "nonoverlapping", ``reduce:A+bcast:B``;
    its reduce_scatter_block "basic_linear", ``reduce:A+scatter:B``) is the
    reduce to rank 0 followed by the bcast or scatter from rank 0: the sum of
    their models (the second starts when rank 0 has the reduction; the others
    wait for it), the reduce of a reduce_scatter on the p blocks.

    Nothing to do (p = 1, or no bytes in a collective that moves data: a
    barrier's time does not depend on them) costs nothing whatever the choice.

    Raises
    ------
    ValueError
        If ``params.selected`` is not set (the model needs a collbench row), or
        names the selector itself.
    """
    if p == 1 or (check_arguments(p, n_bytes, elem_bytes) == 0 and _moves_data(collective)):
        return exact(0.0)
    if params.selected is None:
        params = replace(params, selected=_choice(collective, selector, p, n_bytes, elem_bytes,
                                                  commutative))
    if collective in _COMPOSITIONS and "+" in params.selected:
        return _composition_model(collective, params.selected, p, n_bytes, net,
                                  elem_bytes=elem_bytes, commutative=commutative, params=params)
    if params.selected in ("openmpi_default", "mpich_default"):
        raise ValueError(f"{collective}/{selector}: selected {params.selected!r} is a selector")
    inner = AlgorithmParams(alpha_over_beta_bytes=params.alpha_over_beta_bytes)
    return model_for(collective, params.selected)(
        p, n_bytes, net, elem_bytes=elem_bytes, root=root, commutative=commutative, params=inner)
