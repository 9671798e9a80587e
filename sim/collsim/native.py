"""collsim's algorithms in the language of two MPI libraries, and back.

The mapping (collsim algorithm <-> Open MPI 4.1 coll/tuned id <-> MPICH 4.0
algorithm name) has one home, ``algorithms/native.def``, which cites the
library versions and source files; the libraries' default selections live in
``algorithms/common/native.c``.  This module reads both through collbench
(``--native``, ``--native-choice``) and writes the fastest-algorithm map of
``collsim select`` in each library's format:

- an Open MPI coll/tuned dynamic rules file, loaded with
  ``mpirun --mca coll_tuned_use_dynamic_rules 1
  --mca coll_tuned_dynamic_rules_filename FILE``
  (format: ompi/mca/coll/tuned/coll_tuned_dynamic_file.c, v4.1.4);
- an MPICH collective selection JSON, loaded with
  ``MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE``
  (format: src/mpi/coll/src/csel.c, v4.0.2).
"""

from __future__ import annotations

import functools
import json

from collsim.errors import CollsimError

__all__ = ["SELECTORS", "LIBRARIES", "LIBRARY_ALGORITHMS", "is_selector", "mapping", "choices", "openmpi_rules",
           "mpich_json"]

# registry name of each selector -> library key of native.def
SELECTORS = {"openmpi_default": "openmpi", "mpich_default": "mpich"}
LIBRARIES = {"openmpi": "openmpi_default", "mpich": "mpich_default"}

# The registry entries added to run the libraries' own choices, which collsim had no
# algorithm for (issue 15); the tests hold them to a smaller grid in `make test`.
LIBRARY_ALGORITHMS = frozenset({
    ("allreduce", "linear"), ("bcast", "scatter_recursive_doubling_allgather"),
    ("bcast", "concurrent_binomial"), ("bcast", "concurrent_knomial"),
    ("reduce", "overlapped_binomial"), ("bcast", "concurrent_binary"),
    ("reduce", "overlapped_binary")})

# Open MPI's COLLTYPE ids (ompi/mca/coll/base/coll_base_functions.h, v4.1.4): the first
# number of a collective's section in a dynamic rules file.  collsim's reduce_scatter is
# MPI_Reduce_scatter_block (REDUCESCATTERBLOCK).
_OPENMPI_COLLTYPE = {"allgather": 0, "allreduce": 2, "alltoall": 3, "barrier": 6, "bcast": 7,
                     "exscan": 8, "gather": 9, "reduce": 11, "reduce_scatter": 13, "scan": 14,
                     "scatter": 15}

# The message size a rule of a dynamic rules file is compared with, per block of a cell's
# bytes on p ranks, as ompi_coll_tuned_<collective>_intra_dec_dynamic computes it
# (coll_tuned_decision_dynamic.c, v4.1.4): the vector (allreduce, bcast, reduce), the p
# blocks (allgather, alltoall, gather, scatter: dsize x scount x p; reduce_scatter_block:
# dsize x rcount x p).  Barrier (0) and scan, exscan (the type size x p, the count
# ignored) read no size: one rule per communicator size (_SIZE_BLIND).
_OPENMPI_RULE_BYTES = {"allreduce": lambda n, p: n, "bcast": lambda n, p: n,
                       "reduce": lambda n, p: n, "allgather": lambda n, p: n * p,
                       "alltoall": lambda n, p: n * p, "gather": lambda n, p: n * p,
                       "scatter": lambda n, p: n * p, "reduce_scatter": lambda n, p: n * p}
_SIZE_BLIND = {"openmpi": frozenset({"barrier", "scan", "exscan"}),
               "mpich": frozenset({"gather", "scatter", "barrier", "scan", "exscan"})}

def is_selector(algorithm: str) -> bool:
    """Whether a registry name is a selector (it runs another entry)."""
    return algorithm in SELECTORS


def _collbench(args: list[str], what: str) -> list[dict]:
    from collsim.platforms import crossbar
    from collsim.profiles import load_profile
    from collsim.harness import simulate

    rows, _ = simulate(crossbar(nodes=1), ["node-0"], load_profile("hockney"), args, what=what)
    return rows


@functools.lru_cache(maxsize=None)
def mapping() -> tuple[dict, ...]:
    """The lines of ``algorithms/native.def`` (``collbench --native``).

    Each: ``library`` (openmpi, mpich), ``version``, ``collective``, ``id``
    (Open MPI's algorithm id; 0 for MPICH), ``name`` (the library's),
    ``algorithm`` (collsim's, or None: collsim has none) and ``note``.
    """
    return tuple(_collbench(["--native"], "collbench --native"))


def choices(collective: str, library: str, np: int, sizes_bytes: tuple[int, ...], *,
            op: str = "sum", dtype: str = "double") -> list[dict]:
    """What a library runs for each size (``collbench --native-choice``).

    Each row: ``selected`` (collsim's algorithm or None), ``native_algorithm``,
    ``native_id``, ``error`` (None, or the sentence the selector fails with)
    and ``forced``: for every algorithm of the library, what it runs when a
    rule names that algorithm (the library's fallbacks applied; None where
    the library refuses it).
    """
    if library not in LIBRARIES:
        raise ValueError(f"library must be one of {', '.join(LIBRARIES)}, got {library!r}")
    sizes = ",".join(str(n) for n in sizes_bytes)
    from collsim.harness import collectives

    args = ["--native-choice", "--coll", collective, "--alg", LIBRARIES[library],
            "--np", str(np), "--bytes", sizes, "--dtype", dtype]
    if collectives()[collective]["op"]:
        args += ["--op", op]
    return _collbench(args, "collbench --native-choice")


def _available(forced: dict) -> dict[str, tuple[str, int]]:
    """collsim algorithm -> (library name, id) of the library's algorithms that run as
    themselves in a cell (``choices``'s ``forced``: no fallback, a collsim equivalent)."""
    available: dict[str, tuple[str, int]] = {}
    for name, runs in forced.items():
        if runs is not None and runs["native_algorithm"] == name and runs["selected"]:
            available.setdefault(runs["selected"], (name, runs["native_id"]))
    return available


def _cell_row(cell: dict, algorithm: str, native_: tuple[str, int]) -> dict:
    time_s = cell["times_s"][algorithm]
    return {"collective": cell["collective"], "np": cell["np"], "bytes": cell["bytes"],
            "algorithm": algorithm, "time_s": time_s, "native_name": native_[0],
            "native_id": native_[1], "best": cell["fastest"], "best_s": cell["fastest_s"],
            "lost": time_s / cell["fastest_s"] - 1 if cell["fastest_s"] > 0 else 0.0}


def _none_ran(collective: str, np: int, cell: dict, library: str) -> CollsimError:
    return CollsimError(
        f"{collective} on {np} ranks, {cell['bytes']} B: none of the algorithms that ran "
        f"({', '.join(sorted(cell['times_s']))}) is one {library} has")


def library_cells(cells: list[dict], library: str) -> list[dict]:
    """Per cell of ``collsim.select.select``, the fastest algorithm the library has.

    An algorithm counts when the library, told to run its equivalent in that
    cell, runs that very algorithm (not a fallback).  Where the library's
    tuning file cannot tell sizes apart (Open MPI: barrier, scan, exscan;
    MPICH: gather, scatter, barrier, scan, exscan; ``_SIZE_BLIND``), one
    algorithm takes every size of a process count: the one, among those
    available in all its cells, whose times summed relative to each cell's
    best are the smallest.  Returns one dict per cell: ``np``, ``bytes``,
    ``collective``, ``algorithm``, ``time_s``, ``native_name``,
    ``native_id``, ``best`` and ``best_s`` (collsim's overall fastest) and
    ``lost`` (time_s / best_s - 1).

    Raises
    ------
    CollsimError
        If no algorithm the library has ran in a cell.
    """
    out = []
    by_np: dict[tuple[str, int], list[dict]] = {}
    for cell in cells:
        by_np.setdefault((cell["collective"], cell["np"]), []).append(cell)
    for (collective, np), group in by_np.items():
        sizes = tuple(c["bytes"] for c in group)
        rows = {row["bytes"]: row for row in choices(collective, library, np, sizes)}
        available = [_available(rows[cell["bytes"]]["forced"]) for cell in group]
        if collective in _SIZE_BLIND[library]:
            common = set.intersection(*({a for a in av if a in cell["times_s"]}
                                        for av, cell in zip(available, group)))
            if not common:
                raise _none_ran(collective, np, group[0], library)
            algorithm = min(sorted(common), key=lambda a: sum(
                c["times_s"][a] / c["fastest_s"] if c["fastest_s"] > 0 else 1.0 for c in group))
            out += [_cell_row(cell, algorithm, av[algorithm])
                    for cell, av in zip(group, available)]
            continue
        for cell, av in zip(group, available):
            ranked = sorted((t, a) for a, t in cell["times_s"].items() if a in av)
            if not ranked:
                raise _none_ran(collective, np, cell, library)
            out.append(_cell_row(cell, ranked[0][1], av[ranked[0][1]]))
    return out


def openmpi_rules(library_cells_: list[dict]) -> str:
    """An Open MPI 4.1 coll/tuned dynamic rules file for cells of :func:`library_cells`.

    Per collective (its COLLTYPE id), per process count (a rule applies from
    its communicator size up to the next), per size (from its message size up
    to the next): ``bytes algorithm fan-out segment-size``, fan-out and
    segment size 0 (one unsegmented chain for chain, as the fixed rules run
    it).  The smallest size of each process count is written as 0, so that
    every message size has a rule.  A rule's message size is what Open MPI
    compares (``_OPENMPI_RULE_BYTES``): for allgather, alltoall, gather,
    scatter and reduce_scatter the p blocks, written for the process count
    measured (on more ranks up to the next count the same rule meets
    larger totals); barrier, scan and exscan get one rule per process count.
    """
    collectives = sorted({c["collective"] for c in library_cells_},
                         key=lambda c: _OPENMPI_COLLTYPE[c])
    lines = [f"{len(collectives)}  # collectives (written by collsim select)"]
    if any(c["native_id"] == 4 and c["collective"] == "allreduce" for c in library_cells_):
        lines.append("# Open MPI applies these rules to every op: its ring (4) combines out of "
                     "rank order, wrong for non-commutative ops")
    for collective in collectives:
        cells = [c for c in library_cells_ if c["collective"] == collective]
        nps = sorted({c["np"] for c in cells})
        lines.append(f"{_OPENMPI_COLLTYPE[collective]}  # {collective}")
        lines.append(f"{len(nps)}  # communicator sizes")
        for k, np in enumerate(nps):
            row = sorted((c for c in cells if c["np"] == np), key=lambda c: c["bytes"])
            if collective in _SIZE_BLIND["openmpi"]:
                row = row[:1]  # one algorithm for every size (library_cells)
            lines.append(f"{1 if k == 0 else np}  # communicator size"
                         + (f" (measured at {np})" if k == 0 and np != 1 else ""))
            lines.append(f"{len(row)}  # message sizes")
            for i, c in enumerate(row):
                size = 0 if i == 0 else _OPENMPI_RULE_BYTES[collective](c["bytes"], np)
                lines.append(f"{size} {c['native_id']} 0 0"
                             f"  # {c['native_name']} = collsim {c['algorithm']}"
                             + (f" ({c['bytes']} B blocks)" if size != c["bytes"] and i else ""))
    return "\n".join(lines) + "\n"


# MPICH's algorithms that assert their restrictions instead of falling back
# (src/mpi/coll/<coll>/<coll>_intra_<name>.c, coll_algorithms.txt, v4.0.2): a leaf
# naming one becomes a subtree that routes the calls it refuses elsewhere, as MPICH's
# own default routes them.
def _mpich_leaf(name: str) -> dict:
    leaf = {f"algorithm={name}": {}}
    if name in ("MPIR_Allreduce_intra_reduce_scatter_allgather",
                "MPIR_Reduce_intra_reduce_scatter_gather"):  # a built-in op, count >= pof2(p)
        other = {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}} if "Allreduce" in name \
            else {"algorithm=MPIR_Reduce_intra_binomial": {}}
        return {"is_op_built_in=no": other,
                "is_op_built_in=yes": {"count<pow2": other, "count=any": leaf}}
    if name == "MPIR_Allgather_intra_recursive_doubling":  # powers of two only
        return {"comm_size=pow2": leaf,
                "comm_size=any": {"algorithm=MPIR_Allgather_intra_brucks": {}}}
    if name == "MPIR_Reduce_scatter_block_intra_noncommutative":  # powers of two only
        return {"comm_size=pow2": leaf, "comm_size=any": {
            "algorithm=MPIR_Reduce_scatter_block_intra_recursive_doubling": {}}}
    if name in ("MPIR_Reduce_scatter_block_intra_pairwise",
                "MPIR_Reduce_scatter_block_intra_recursive_halving"):  # commutative ops only
        return {"is_commutative=yes": leaf, "is_commutative=no": {
            "algorithm=MPIR_Reduce_scatter_block_intra_recursive_doubling": {}}}
    return leaf


# collsim's collectives as MPICH's selection file names them, with the size a rule
# compares (csel.c, v4.0.2: avg_msg_size the bytes of one block, total_msg_size those of
# the p blocks), or None where MPICH has one algorithm for every size (_SIZE_BLIND), and
# the inter-communicator algorithm the file names for it.
_MPICH_COLLECTIVES = {
    "allreduce": ("allreduce", "avg_msg_size", "MPIR_Allreduce_inter_reduce_exchange_bcast"),
    "bcast": ("bcast", "avg_msg_size", "MPIR_Bcast_inter_remote_send_local_bcast"),
    "reduce": ("reduce", "avg_msg_size", "MPIR_Reduce_inter_local_reduce_remote_send"),
    "allgather": ("allgather", "total_msg_size",
                  "MPIR_Allgather_inter_local_gather_remote_bcast"),
    "reduce_scatter": ("reduce_scatter_block", "total_msg_size",
                       "MPIR_Reduce_scatter_block_inter_remote_reduce_local_scatter"),
    "alltoall": ("alltoall", "avg_msg_size", "MPIR_Alltoall_inter_pairwise_exchange"),
    "gather": ("gather", None, "MPIR_Gather_inter_linear"),
    "scatter": ("scatter", None, "MPIR_Scatter_inter_linear"),
    "barrier": ("barrier", None, "MPIR_Barrier_inter_bcast"),
    "scan": ("scan", None, None),
    "exscan": ("exscan", None, None),
}

# MPICH 4.0 aborts in a collective its selection JSON does not name
# (src/mpi/coll/mpir_coll.c: MPIR_Assert(cnt)), so the file names every
# blocking collective: those of the map, and the others with one algorithm
# each that takes any input (src/mpi/coll/coll_algorithms.txt, v4.0.2: no
# restriction, or split on in-place buffers as the restrictions say), with
# their inter-communicator algorithm.  Nonblocking and neighborhood collectives
# are not named.
_MPICH_DEFAULTS = {
    "allreduce": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
    "bcast": {"algorithm=MPIR_Bcast_intra_binomial": {}},
    "reduce": {"algorithm=MPIR_Reduce_intra_binomial": {}},
    "barrier": {"algorithm=MPIR_Barrier_intra_dissemination": {}},
    "allgather": {"algorithm=MPIR_Allgather_intra_ring": {}},
    "allgatherv": {"algorithm=MPIR_Allgatherv_intra_ring": {}},
    "gather": {"algorithm=MPIR_Gather_intra_binomial": {}},
    "gatherv": {"algorithm=MPIR_Gatherv_allcomm_linear": {}},
    "scatter": {"algorithm=MPIR_Scatter_intra_binomial": {}},
    "scatterv": {"algorithm=MPIR_Scatterv_allcomm_linear": {}},
    "alltoall": {"algorithm=MPIR_Alltoall_intra_pairwise": {}},
    "alltoallv": {"algorithm=MPIR_Alltoallv_intra_scattered": {}},
    "alltoallw": {"algorithm=MPIR_Alltoallw_intra_scattered": {}},
    "reduce_scatter": {"algorithm=MPIR_Reduce_scatter_intra_recursive_doubling": {}},
    "reduce_scatter_block": {"algorithm=MPIR_Reduce_scatter_block_intra_recursive_doubling": {}},
    "scan": {"algorithm=MPIR_Scan_intra_recursive_doubling": {}},
    "exscan": {"algorithm=MPIR_Exscan_intra_recursive_doubling": {}},
}
_MPICH_OTHER_INTER = {
    "allgatherv": "MPIR_Allgatherv_inter_remote_gather_local_bcast",
    "gatherv": "MPIR_Gatherv_allcomm_linear", "scatterv": "MPIR_Scatterv_allcomm_linear",
    "alltoallv": "MPIR_Alltoallv_inter_pairwise_exchange",
    "alltoallw": "MPIR_Alltoallw_inter_pairwise_exchange",
    "reduce_scatter": "MPIR_Reduce_scatter_inter_remote_reduce_local_scatter",
}
# MPI_IN_PLACE: the algorithms of the in-place branch (coll_algorithms.txt: restrictions
# inplace / noinplace), which collsim's algorithms never see
_MPICH_IN_PLACE = {
    "alltoall": "MPIR_Alltoall_intra_pairwise_sendrecv_replace",
    "alltoallv": "MPIR_Alltoallv_intra_pairwise_sendrecv_replace",
    "alltoallw": "MPIR_Alltoallw_intra_pairwise_sendrecv_replace",
}


def _mpich_sizes(row: list[dict], np: int, size_key: str | None, collective: str) -> dict:
    """One process count's subtree: by size, or one algorithm (``_SIZE_BLIND``)."""
    if size_key is None:
        return _mpich_leaf(row[0]["native_name"])
    scale = np if size_key == "total_msg_size" else 1
    sizes: dict = {}
    for i, c in enumerate(row):
        key = (f"{size_key}=any" if i == len(row) - 1
               else f"{size_key}<{row[i + 1]['bytes'] * scale}")
        sizes[key] = _mpich_leaf(c["native_name"])
    return sizes


def _with_in_place(name: str, intra: dict) -> dict:
    if name not in _MPICH_IN_PLACE:
        return intra
    return {"is_sendbuf_inplace=yes": {f"algorithm={_MPICH_IN_PLACE[name]}": {}},
            "is_sendbuf_inplace=no": intra}


def mpich_json(library_cells_: list[dict]) -> str:
    """An MPICH 4.0 collective selection JSON for cells of :func:`library_cells`.

    Per collective a tree ``comm_type=intra`` / ``comm_size<N`` / size /
    ``algorithm=MPIR_...``: as in the Open MPI rules, a cell applies from its
    process count and size up to the next ones (the smallest from 0, the
    largest to everything above: ``comm_size=any``, ``..._msg_size=any``).
    The size is ``avg_msg_size`` (one block: allreduce, bcast, reduce,
    alltoall) or ``total_msg_size`` (the p blocks, at the process count
    measured: allgather, reduce_scatter_block); gather, scatter, barrier,
    scan and exscan have one algorithm per process count.  MPICH's algorithms
    that assert their restrictions (a built-in op and count >= pof2(p) for
    the reduce-scatter allreduce and reduce; a power of two for recursive
    doubling allgather and the non-commutative reduce_scatter_block; a
    commutative op for pairwise and recursive halving reduce_scatter_block)
    get a subtree that routes what they refuse as MPICH's own default does
    (``_mpich_leaf``); alltoall's in-place calls go to MPICH's in-place
    algorithm.  MPICH aborts in a collective the file does not name, so every
    other blocking collective gets one general algorithm
    (``_MPICH_DEFAULTS``); nonblocking and neighborhood collectives are not
    named.
    """
    tree: dict = {}
    for collective, (name, size_key, inter) in _MPICH_COLLECTIVES.items():
        cells = [c for c in library_cells_ if c["collective"] == collective]
        if not cells:
            intra = _with_in_place(name, _MPICH_DEFAULTS[name])
        else:
            nps = sorted({c["np"] for c in cells})
            by_size: dict = {}
            for k, np in enumerate(nps):
                row = sorted((c for c in cells if c["np"] == np), key=lambda c: c["bytes"])
                key = "comm_size=any" if k == len(nps) - 1 else f"comm_size<{nps[k + 1]}"
                by_size[key] = _mpich_sizes(row, np, size_key, collective)
            intra = _with_in_place(name, by_size)
        tree[f"collective={name}"] = {"comm_type=intra": intra}
        if inter is not None:
            tree[f"collective={name}"]["comm_type=inter"] = {f"algorithm={inter}": {}}
    for name, intra in _MPICH_DEFAULTS.items():
        if f"collective={name}" in tree:
            continue
        tree[f"collective={name}"] = {"comm_type=intra": _with_in_place(name, intra)}
        if name in _MPICH_OTHER_INTER:
            tree[f"collective={name}"]["comm_type=inter"] = {
                f"algorithm={_MPICH_OTHER_INTER[name]}": {}}
    return json.dumps(tree, indent=2) + "\n"
