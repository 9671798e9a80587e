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

# Open MPI's COLLTYPE ids (ompi/mca/coll/base/coll_base_functions.h, v4.1.4)
_OPENMPI_COLLTYPE = {"allreduce": 2, "bcast": 7, "reduce": 11}
_MPICH_COLLECTIVES = ("allreduce", "bcast", "reduce")


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
    args = ["--native-choice", "--coll", collective, "--alg", LIBRARIES[library],
            "--np", str(np), "--bytes", sizes, "--dtype", dtype]
    if collective != "bcast":
        args += ["--op", op]
    return _collbench(args, "collbench --native-choice")


def library_cells(cells: list[dict], library: str) -> list[dict]:
    """Per cell of ``collsim.select.select``, the fastest algorithm the library has.

    An algorithm counts when the library, told to run its equivalent in that
    cell, runs that very algorithm (not a fallback).  Returns one dict per
    cell: ``np``, ``bytes``, ``collective``, ``algorithm``, ``time_s``,
    ``native_name``, ``native_id``, ``best`` and ``best_s`` (collsim's overall
    fastest) and ``lost`` (time_s / best_s - 1).

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
        for cell in group:
            forced = rows[cell["bytes"]]["forced"]
            available = {}
            for name, runs in forced.items():
                if runs is not None and runs["native_algorithm"] == name and runs["selected"]:
                    available.setdefault(runs["selected"], (name, runs["native_id"]))
            ranked = sorted(((t, a) for a, t in cell["times_s"].items() if a in available))
            if not ranked:
                raise CollsimError(
                    f"{collective} on {np} ranks, {cell['bytes']} B: none of the algorithms "
                    f"that ran ({', '.join(sorted(cell['times_s']))}) is one {library} has")
            time_s, algorithm = ranked[0]
            name, native_id = available[algorithm]
            out.append({"collective": collective, "np": np, "bytes": cell["bytes"],
                        "algorithm": algorithm, "time_s": time_s, "native_name": name,
                        "native_id": native_id, "best": cell["fastest"],
                        "best_s": cell["fastest_s"],
                        "lost": time_s / cell["fastest_s"] - 1 if cell["fastest_s"] > 0 else 0.0})
    return out


def openmpi_rules(library_cells_: list[dict]) -> str:
    """An Open MPI 4.1 coll/tuned dynamic rules file for cells of :func:`library_cells`.

    Per collective, per process count (a rule applies from its communicator
    size up to the next), per size (from its message size in bytes up to the
    next): ``bytes algorithm fan-out segment-size``, fan-out and segment size 0
    (one unsegmented chain for chain, as the fixed rules run it).  The
    smallest size of each process count is written as 0, so that every
    message size has a rule.
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
            lines.append(f"{1 if k == 0 else np}  # communicator size"
                         + (f" (measured at {np})" if k == 0 and np != 1 else ""))
            lines.append(f"{len(row)}  # message sizes")
            for i, c in enumerate(row):
                lines.append(f"{0 if i == 0 else c['bytes']} {c['native_id']} 0 0"
                             f"  # {c['native_name']} = collsim {c['algorithm']}")
    return "\n".join(lines) + "\n"


# MPICH's algorithms that assert a built-in op and count >= pof2(p) instead of
# falling back (src/mpi/coll/<coll>/<coll>_intra_reduce_scatter_*.c, v4.0.2),
# and the algorithm MPICH's own default JSON routes those calls to.
_MPICH_GUARDED = {
    "MPIR_Allreduce_intra_reduce_scatter_allgather": "MPIR_Allreduce_intra_recursive_doubling",
    "MPIR_Reduce_intra_reduce_scatter_gather": "MPIR_Reduce_intra_binomial",
}


# MPICH 4.0 aborts in a collective its selection JSON does not name
# (src/mpi/coll/mpir_coll.c: MPIR_Assert(cnt)), so the file names every
# blocking collective: the three of the map, and the others with one
# algorithm each that takes any input (src/mpi/coll/coll_algorithms.txt,
# v4.0.2: no restriction, or split on in-place buffers as the restrictions say).
# Nonblocking and neighborhood collectives are not named.
_MPICH_INTER = {
    "allreduce": "MPIR_Allreduce_inter_reduce_exchange_bcast",
    "bcast": "MPIR_Bcast_inter_remote_send_local_bcast",
    "reduce": "MPIR_Reduce_inter_local_reduce_remote_send",
}
_MPICH_UNMAPPED = {  # the map's collectives when a map does not cover them
    "allreduce": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}},
    "bcast": {"algorithm=MPIR_Bcast_intra_binomial": {}},
    "reduce": {"algorithm=MPIR_Reduce_intra_binomial": {}},
}
_MPICH_OTHER_COLLECTIVES = {
    "barrier": ({"algorithm=MPIR_Barrier_intra_dissemination": {}},
                "MPIR_Barrier_inter_bcast"),
    "allgather": ({"algorithm=MPIR_Allgather_intra_ring": {}},
                  "MPIR_Allgather_inter_local_gather_remote_bcast"),
    "allgatherv": ({"algorithm=MPIR_Allgatherv_intra_ring": {}},
                   "MPIR_Allgatherv_inter_remote_gather_local_bcast"),
    "gather": ({"algorithm=MPIR_Gather_intra_binomial": {}}, "MPIR_Gather_inter_linear"),
    "gatherv": ({"algorithm=MPIR_Gatherv_allcomm_linear": {}}, "MPIR_Gatherv_allcomm_linear"),
    "scatter": ({"algorithm=MPIR_Scatter_intra_binomial": {}}, "MPIR_Scatter_inter_linear"),
    "scatterv": ({"algorithm=MPIR_Scatterv_allcomm_linear": {}}, "MPIR_Scatterv_allcomm_linear"),
    "alltoall": ({"is_sendbuf_inplace=yes": {
                     "algorithm=MPIR_Alltoall_intra_pairwise_sendrecv_replace": {}},
                  "is_sendbuf_inplace=no": {"algorithm=MPIR_Alltoall_intra_pairwise": {}}},
                 "MPIR_Alltoall_inter_pairwise_exchange"),
    "alltoallv": ({"is_sendbuf_inplace=yes": {
                      "algorithm=MPIR_Alltoallv_intra_pairwise_sendrecv_replace": {}},
                   "is_sendbuf_inplace=no": {"algorithm=MPIR_Alltoallv_intra_scattered": {}}},
                  "MPIR_Alltoallv_inter_pairwise_exchange"),
    "alltoallw": ({"is_sendbuf_inplace=yes": {
                      "algorithm=MPIR_Alltoallw_intra_pairwise_sendrecv_replace": {}},
                   "is_sendbuf_inplace=no": {"algorithm=MPIR_Alltoallw_intra_scattered": {}}},
                  "MPIR_Alltoallw_inter_pairwise_exchange"),
    "reduce_scatter": ({"algorithm=MPIR_Reduce_scatter_intra_recursive_doubling": {}},
                       "MPIR_Reduce_scatter_inter_remote_reduce_local_scatter"),
    "reduce_scatter_block": ({"algorithm=MPIR_Reduce_scatter_block_intra_recursive_doubling": {}},
                             "MPIR_Reduce_scatter_block_inter_remote_reduce_local_scatter"),
    "scan": ({"algorithm=MPIR_Scan_intra_recursive_doubling": {}}, None),
    "exscan": ({"algorithm=MPIR_Exscan_intra_recursive_doubling": {}}, None),
}


def _mpich_leaf(name: str) -> dict:
    guard = _MPICH_GUARDED.get(name)
    if guard is None:
        return {f"algorithm={name}": {}}
    return {"is_op_built_in=no": {f"algorithm={guard}": {}},
            "is_op_built_in=yes": {"count<pow2": {f"algorithm={guard}": {}},
                                   "count=any": {f"algorithm={name}": {}}}}


def mpich_json(library_cells_: list[dict]) -> str:
    """An MPICH 4.0 collective selection JSON for cells of :func:`library_cells`.

    Per collective a tree ``comm_type=intra`` / ``comm_size<N`` /
    ``avg_msg_size<B`` / ``algorithm=MPIR_...``: as in the Open MPI rules, a
    cell applies from its process count and size up to the next ones (the
    smallest from 0, the largest to everything above: ``comm_size=any``,
    ``avg_msg_size=any``).  MPICH's reduce-scatter algorithms assert a
    built-in op and count >= pof2(p); where the map picks one, the file
    routes user-defined ops and smaller counts to recursive doubling
    (allreduce) or binomial (reduce), as MPICH's default does.  MPICH aborts
    in a collective the file does not name, so every other blocking
    collective, and allreduce, reduce or bcast when the map has none, gets
    one general algorithm (``_MPICH_OTHER_COLLECTIVES``, ``_MPICH_UNMAPPED``:
    recursive doubling, binomial); nonblocking and neighborhood collectives
    are not named.
    """
    tree: dict = {}
    for collective in _MPICH_COLLECTIVES:
        cells = [c for c in library_cells_ if c["collective"] == collective]
        if not cells:
            tree[f"collective={collective}"] = {
                "comm_type=intra": _MPICH_UNMAPPED[collective],
                "comm_type=inter": {f"algorithm={_MPICH_INTER[collective]}": {}}}
            continue
        nps = sorted({c["np"] for c in cells})
        by_size: dict = {}
        for k, np in enumerate(nps):
            row = sorted((c for c in cells if c["np"] == np), key=lambda c: c["bytes"])
            sizes: dict = {}
            for i, c in enumerate(row):
                key = ("avg_msg_size=any" if i == len(row) - 1
                       else f"avg_msg_size<{row[i + 1]['bytes']}")
                sizes[key] = _mpich_leaf(c["native_name"])
            key = "comm_size=any" if k == len(nps) - 1 else f"comm_size<{nps[k + 1]}"
            by_size[key] = sizes
        tree[f"collective={collective}"] = {
            "comm_type=intra": by_size,
            "comm_type=inter": {f"algorithm={_MPICH_INTER[collective]}": {}}}
    for collective, (intra, inter) in _MPICH_OTHER_COLLECTIVES.items():
        tree[f"collective={collective}"] = {"comm_type=intra": intra}
        if inter is not None:
            tree[f"collective={collective}"]["comm_type=inter"] = {f"algorithm={inter}": {}}
    return json.dumps(tree, indent=2) + "\n"
