"""collsim app on any program: element sizes, drivers, Fortran, the summary (issue 29).

Each program is written here and built with collsim's drivers; each simulation
takes well under a second.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import subprocess
from pathlib import Path

import pytest

from collsim.cli import main
from collsim.harness import registry, simgrid_tool

ELEMS = r"""
/* Collectives on element sizes 1, 24, 32 and 0 bytes, each result checked. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

typedef struct { double a, b, c; } triple; /* 24 bytes */
typedef struct { long double value; int rank; } ldi;

static void triple_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    triple *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        y[i].a += x[i].a; y[i].b += x[i].b; y[i].c += x[i].c;
    }
}

static void nothing(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in; (void)inout; (void)len; (void)type;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { N = 40 };
    /* MPI_CHAR: max over ranks, bcast, reduce */
    char c[N], cmax[N];
    for (int i = 0; i < N; i++)
        c[i] = (char)((rank * 7 + i) % 100);
    MPI_Allreduce(c, cmax, N, MPI_CHAR, MPI_MAX, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
        char want = 0;
        for (int r = 0; r < size; r++)
            if ((char)((r * 7 + i) % 100) > want)
                want = (char)((r * 7 + i) % 100);
        bad += cmax[i] != want;
    }
    MPI_Reduce(c, cmax, N, MPI_CHAR, MPI_MAX, size - 1, MPI_COMM_WORLD);
    char text[N];
    if (rank == 0)
        snprintf(text, N, "broadcast from rank 0");
    MPI_Bcast(text, N, MPI_CHAR, 0, MPI_COMM_WORLD);
    bad += strcmp(text, "broadcast from rank 0") != 0;
    /* a 24-byte contiguous struct with a user-defined op */
    MPI_Datatype triple_type;
    MPI_Type_contiguous(3, MPI_DOUBLE, &triple_type);
    MPI_Type_commit(&triple_type);
    MPI_Op triple_op;
    MPI_Op_create(triple_sum, 1, &triple_op);
    triple t[N], tsum[N];
    for (int i = 0; i < N; i++)
        t[i] = (triple){rank, i, 1};
    MPI_Allreduce(t, tsum, N, triple_type, triple_op, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        bad += tsum[i].a != size * (size - 1) / 2.0 || tsum[i].b != (double)i * size ||
               tsum[i].c != size;
    MPI_Reduce(t, tsum, N, triple_type, triple_op, 0, MPI_COMM_WORLD);
    MPI_Bcast(t, N, triple_type, 0, MPI_COMM_WORLD);
    bad += t[1].a != 0;
    /* MPI_LONG_DOUBLE_INT with MINLOC */
    ldi l[N], lmin[N];
    for (int i = 0; i < N; i++)
        l[i] = (ldi){(long double)((rank + i) % size), rank};
    MPI_Allreduce(l, lmin, N, MPI_LONG_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD);
    for (int i = 0; i < N; i++)
        bad += lmin[i].value != 0 || lmin[i].rank != (size - i % size) % size;
    MPI_Reduce(l, lmin, N, MPI_LONG_DOUBLE_INT, MPI_MINLOC, 0, MPI_COMM_WORLD);
    MPI_Bcast(l, N, MPI_LONG_DOUBLE_INT, 0, MPI_COMM_WORLD);
    /* a zero-size type */
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    MPI_Op empty_op;
    MPI_Op_create(nothing, 1, &empty_op);
    int dummy[N], dummy_out[N];
    MPI_Allreduce(dummy, dummy_out, N, empty, empty_op, MPI_COMM_WORLD);
    MPI_Reduce(dummy, dummy_out, N, empty, empty_op, 0, MPI_COMM_WORLD);
    MPI_Bcast(dummy, N, empty, 0, MPI_COMM_WORLD);
    int total;
    MPI_Reduce(&bad, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("elems: sizeof(ldi)=%zu %s\n", sizeof(ldi), total ? "WRONG" : "correct");
    MPI_Type_free(&triple_type);
    MPI_Type_free(&empty);
    MPI_Op_free(&triple_op);
    MPI_Op_free(&empty_op);
    MPI_Finalize();
    return 0;
}
"""

#: Algorithms the element-size program cannot use: its ops are MAX on char, a
#: user-defined op and MINLOC, and prerounded takes MPI_SUM on float or double only.
_FLOAT_SUM_ONLY = "float_sum"


def _algorithms(collective: str) -> list[str]:
    return [e["algorithm"] for e in registry()
            if e["collective"] == collective and _FLOAT_SUM_ONLY not in e["restrictions"]]


def _app(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["app", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _summary(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


@pytest.fixture(scope="module")
def elems(tmp_path_factory):
    out = tmp_path_factory.mktemp("elems")
    (out / "elems.c").write_text(ELEMS)
    assert main(["cc", "-O2", "-o", str(out / "elems"), str(out / "elems.c")]) == 0
    return out / "elems"


_ROUNDS = max(len(_algorithms(c)) for c in ("allreduce", "reduce", "bcast"))


# the machines of the seeds and a modern one: every algorithm runs on each
_MACHINES = ("seed003_hydra", "seed004_graphene", "modern_fat_tree_hdr")


@pytest.mark.parametrize("machine", _MACHINES)
@pytest.mark.parametrize("round_", range(_ROUNDS))
def test_every_element_size_with_every_algorithm(elems, capsys, round_, machine):
    """MPI_CHAR, a 24-byte struct, MPI_LONG_DOUBLE_INT and a zero-size type: a summary,
    on three catalog machines."""
    uses = {c: _algorithms(c)[round_ % len(_algorithms(c))]
            for c in ("allreduce", "reduce", "bcast")}
    status, out, err = _app(capsys, "--np", "4", "--json", "--platform", machine,
                            *[f"--use={c}:{a}" for c, a in uses.items()], "--", str(elems))
    assert status == 0, err
    assert "Traceback" not in err
    assert "elems: sizeof(ldi)=32 correct" in out
    rows = _summary(out)
    for collective, algorithm in uses.items():
        mine = [r for r in rows if r["collective"] == collective]
        assert {r["algorithm"] for r in mine} == {algorithm}
        # 40 chars, 40 structs of 24 bytes, 40 MPI_LONG_DOUBLE_INT of 32, a zero-size type
        assert {0, 40, 960, 1280} <= {r["bytes"] for r in mine}
        for r in mine:
            assert r["model_s"] is not None, r
            assert r["model_note"] is None
            if algorithm.endswith("_default"):
                assert r["selected"], r  # the selector's row names its choice
            if r["bytes"] == 0:  # (its time: how far apart the ranks arrived)
                assert r["model_s"] == 0


def test_every_element_size_with_the_mpi_library(elems, capsys):
    """The same calls through SMPI's own algorithms (a zero-size type included)."""
    status, out, err = _app(capsys, "--np", "4", "--json", "--", str(elems))
    assert status == 0, err
    assert "elems: sizeof(ldi)=32 correct" in out
    assert {r["algorithm"] for r in _summary(out)} == {"mpi"}


ODD_ELEMENTS_AFTER_BARRIERS = r"""
#include <mpi.h>
#include <stdlib.h>
static void tsum(void *in, void *io, int *len, MPI_Datatype *t) { double *a = in, *b = io; for (int i = 0; i < 3 * *len; i++) b[i] += a[i]; }
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int n = atoi(argv[1]);
    MPI_Datatype tri; MPI_Type_contiguous(3, MPI_DOUBLE, &tri); MPI_Type_commit(&tri);
    MPI_Op op; MPI_Op_create(tsum, 1, &op);
    double *x = calloc(3 * (size_t)n, 8), *y = calloc(3 * (size_t)n, 8);
    char *c = calloc(n, 1), *d = calloc(n, 1);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(x, y, n, tri, op, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Reduce(x, y, n, tri, op, 1, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Bcast(x, n, tri, 2, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allreduce(c, d, n, MPI_CHAR, MPI_MAX, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Reduce(c, d, n, MPI_CHAR, MPI_MAX, 1, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"""


@pytest.fixture(scope="module")
def odd_elements(tmp_path_factory):
    out = tmp_path_factory.mktemp("odd")
    (out / "odd.c").write_text(ODD_ELEMENTS_AFTER_BARRIERS)
    assert main(["cc", "-O2", "-o", str(out / "odd"), str(out / "odd.c")]) == 0
    return out / "odd"


@pytest.mark.parametrize("round_", range(_ROUNDS))
def test_models_hold_for_24_and_1_byte_elements(odd_elements, capsys, round_):
    """Each call after a barrier, 6 ranks (8 for a power-of-two algorithm), 5000
    elements: the model within 2 %."""
    uses = {c: _algorithms(c)[round_ % len(_algorithms(c))]
            for c in ("allreduce", "reduce", "bcast")}
    power_of_two = any("power_of_two" in e["restrictions"] for e in registry()
                       if uses.get(e["collective"]) == e["algorithm"])
    status, out, err = _app(capsys, "--np", "8" if power_of_two else "6", "--json",
                            *[f"--use={c}:{a}" for c, a in uses.items()], "--",
                            str(odd_elements), "5000")
    assert status == 0, err
    rows = [r for r in _summary(out) if r["collective"] in uses]
    assert {r["bytes"] for r in rows} == {5000, 120000}
    for r in rows:
        assert r["per_call_s"] == pytest.approx(r["model_s"], rel=0.02), r

# --- the drivers: autotools and CMake projects (collsim cc, cxx) ----------------------------

COLLSIM = Path(sys.executable).parent / "collsim"

SUMBENCH_C = r"""
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double x[1024], y[1024];
    for (int i = 0; i < 1024; i++)
        x[i] = rank;
    for (int r = 0; r < 10; r++)
        MPI_Allreduce(x, y, 1024, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sumbench: %s\n", y[7] == size * (size - 1) / 2.0 ? "correct" : "WRONG");
    MPI_Finalize();
    return 0;
}
"""

CONFIGURE_AC = """\
AC_INIT([sumbench], [1.0])
AC_PROG_CC
AC_CHECK_FUNC([MPI_Allreduce], [], [AC_MSG_ERROR([the compiler does not link MPI])])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
"""

MAKEFILE_IN = """\
CC = @CC@
CFLAGS = @CFLAGS@
LIBS = @LIBS@
sumbench: sumbench.c
\t$(CC) $(CFLAGS) -o $@ sumbench.c $(LIBS)
"""

MINIAPP_CPP = r"""
#include <mpi.h>
#include <cstdio>
#include <numeric>
#include <vector>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<double> x(4096, rank), y(4096);
    MPI_Allreduce(x.data(), y.data(), (int)x.size(), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    std::vector<int> v(16, rank == 0 ? 42 : 0);
    MPI_Bcast(v.data(), (int)v.size(), MPI_INT, 0, MPI_COMM_WORLD);
    bool ok = y[5] == size * (size - 1) / 2.0 && std::accumulate(v.begin(), v.end(), 0) == 16 * 42;
    if (rank == 0)
        std::printf("miniapp: %s\n", ok ? "correct" : "WRONG");
    MPI_Finalize();
    return 0;
}
"""

CMAKELISTS = """\
cmake_minimum_required(VERSION 3.16)
project(miniapp C CXX)
find_package(MPI REQUIRED COMPONENTS CXX)
add_executable(miniapp miniapp.cpp)
target_link_libraries(miniapp PRIVATE MPI::MPI_CXX)
"""


def _build(argv: list[str], cwd: Path, env: dict | None = None) -> None:
    done = subprocess.run(argv, cwd=cwd, env={**os.environ, **(env or {})},
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.mark.skipif(shutil.which("autoconf") is None, reason="autoconf not installed")
def test_an_autotools_project_configured_with_collsim_cc(capsys, tmp_path):
    """./configure CC="collsim cc" && make: no SMPI_PRETEND_CC, no flags by hand."""
    (tmp_path / "configure.ac").write_text(CONFIGURE_AC)
    (tmp_path / "Makefile.in").write_text(MAKEFILE_IN)
    (tmp_path / "sumbench.c").write_text(SUMBENCH_C)
    _build(["autoconf"], tmp_path)
    _build(["./configure", f"CC={COLLSIM} cc"], tmp_path,
           env={"SMPI_PRETEND_CC": ""})  # the driver sets it for the probes itself
    _build(["make"], tmp_path)
    status, out, err = _app(capsys, "--np", "4", "--json", "--use", "allreduce:ring", "--",
                            str(tmp_path / "sumbench"))
    assert status == 0, err
    assert "sumbench: correct" in out
    [row] = _summary(out)
    assert (row["algorithm"], row["calls"], row["bytes"]) == ("ring", 10, 8192)


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake not installed")
def test_a_cmake_cxx_project_built_with_collsim_cxx(capsys, tmp_path):
    """CC="collsim cc" CXX="collsim cxx" cmake: find_package(MPI) finds it, and a C++
    program gets the algorithms."""
    (tmp_path / "CMakeLists.txt").write_text(CMAKELISTS)
    (tmp_path / "miniapp.cpp").write_text(MINIAPP_CPP)
    _build(["cmake", "-S", ".", "-B", "build"], tmp_path,
           env={"CC": f"{COLLSIM} cc", "CXX": f"{COLLSIM} cxx"})
    _build(["cmake", "--build", "build"], tmp_path)
    status, out, err = _app(capsys, "--np", "4", "--json", "--use", "allreduce:rabenseifner",
                            "--use", "bcast:binomial", "--", str(tmp_path / "build" / "miniapp"))
    assert status == 0, err
    assert "miniapp: correct" in out
    assert {(r["collective"], r["algorithm"]) for r in _summary(out)} == {
        ("allreduce", "rabenseifner"), ("bcast", "binomial")}


def test_cxx_under_the_real_mpi(capsys, tmp_path):
    """collsim c++ --real-mpi: mpicxx without the MPI C++ bindings' library."""
    (tmp_path / "miniapp.cpp").write_text(MINIAPP_CPP)
    assert main(["c++", "--real-mpi", "-O2", "-o", str(tmp_path / "miniapp"),
                 str(tmp_path / "miniapp.cpp")]) == 0
    status, out, err = _app(capsys, "--real-mpi", "--np", "2", "--json", "--use",
                            "allreduce:ring", "--", str(tmp_path / "miniapp"))
    assert status == 0, err
    assert "miniapp: correct" in out


def test_a_program_without_the_interposition_is_refused_before_it_runs(capsys, tmp_path):
    (tmp_path / "sumbench.c").write_text(SUMBENCH_C)
    subprocess.run([simgrid_tool("smpicc"), "-o", str(tmp_path / "plain"),
                    str(tmp_path / "sumbench.c")], check=True, capture_output=True)
    status, out, err = _app(capsys, "--np", "2", "--", str(tmp_path / "plain"))
    assert status == 2
    assert out == ""  # refused before it ran
    assert "was not linked with collsim's interposition library" in err
    assert "./configure CC='collsim cc'" in err


# --- Fortran (collsim fc) -------------------------------------------------------------------

FSUM_F90 = """\
program fsum
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, i
  double precision :: x(512), s(512), r(512), m(512)
  integer :: v(8), g(64), a(64), b(64), k, c, types(64), displs(64), ones(64)
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  x = rank
  call MPI_ALLREDUCE(x, s, 512, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  r = rank
  call MPI_ALLREDUCE(MPI_IN_PLACE, r, 512, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_REDUCE(x, m, 512, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  v = 0
  if (rank == 0) v = 7
  call MPI_BCAST(v, 8, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call MPI_BARRIER(MPI_COMM_WORLD, ierr)
  call MPI_ALLGATHER(rank, 1, MPI_INTEGER, g, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  if (g(nprocs) /= nprocs - 1) v = 0
  do k = 1, nprocs
    a(k) = rank * 100 + k - 1
  end do
  call MPI_ALLTOALL(a, 1, MPI_INTEGER, b, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call MPI_ALLTOALL(MPI_IN_PLACE, 1, MPI_INTEGER, a, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  do k = 1, nprocs
    if (b(k) /= (k - 1) * 100 + rank .or. a(k) /= b(k)) v = 0
  end do
  call MPI_SCAN(rank, c, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (c /= rank * (rank + 1) / 2) v = 0
  types = MPI_INTEGER
  ones = 1
  do k = 1, nprocs
    displs(k) = 4 * (k - 1)
  end do
  call MPI_ALLTOALLW(a, ones, displs, types, b, ones, displs, types, MPI_COMM_WORLD, ierr)
  do k = 1, nprocs
    if (b(k) /= rank * 100 + k - 1) v = 0
  end do
  if (rank == 0) then
    if (s(3) == nprocs * (nprocs - 1) / 2.0d0 .and. all(v == 7) .and. r(5) == s(5) .and. m(5) == nprocs - 1) then
      print '(a)', 'fsum: correct'
    else
      print '(a)', 'fsum: WRONG'
    end if
  end if
  call MPI_FINALIZE(ierr)
end program
"""


@pytest.mark.skipif(shutil.which("gfortran") is None, reason="gfortran not installed "
                    "(sim/install-system-deps.sh)")
@pytest.mark.parametrize("real_mpi", [False, True], ids=["smpi", "real-mpi"])
def test_a_fortran_program_reaches_collsims_algorithms(capsys, tmp_path, real_mpi):
    """MPI_ALLREDUCE (MPI_IN_PLACE too), MPI_REDUCE, MPI_BCAST, MPI_BARRIER,
    MPI_ALLGATHER, MPI_ALLTOALL (MPI_IN_PLACE too) and MPI_SCAN from Fortran reach
    collsim's algorithms, MPI_ALLTOALLW the library's, named (rank 0 checks its
    results)."""
    (tmp_path / "fsum.f90").write_text(FSUM_F90)
    flag = ["--real-mpi"] if real_mpi else []
    assert main(["fc", *flag, "-O2", "-o", str(tmp_path / "fsum"),
                 str(tmp_path / "fsum.f90")]) == 0
    uses = ["allreduce:ring", "reduce:binomial", "bcast:pipeline", "barrier:dissemination",
            "allgather:ring", "alltoall:linear", "scan:linear"]
    status, out, err = _app(capsys, *flag, "--np", "4", "--json",
                            *[f"--use={use}" for use in uses], "--", str(tmp_path / "fsum"))
    assert status == 0, err
    assert "fsum: correct" in out
    calls = {(r["collective"], r["algorithm"]): r["calls"] for r in _summary(out)}
    assert calls == {("allreduce", "ring"): 2, ("reduce", "binomial"): 1,
                     ("bcast", "pipeline"): 1, ("barrier", "dissemination"): 1,
                     ("allgather", "ring"): 1, ("alltoall", "linear"): 2, ("scan", "linear"): 1,
                     ("alltoall", "mpi (not intercepted)"): 1}


# --- the summary: every collective, a selector's choice, gamma -------------------------------

OTHERS_C = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int *a = calloc(64 * size, sizeof *a), *b = calloc(64 * size, sizeof *b);
    int *counts = malloc(size * sizeof *counts), *displs = malloc(size * sizeof *displs);
    for (int i = 0; i < size; i++) {
        counts[i] = 64;
        displs[i] = 64 * i;
    }
    for (int i = 0; i < 3; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allgather(a, 64, MPI_INT, b, 64, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgatherv(a, 64, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(a, 64, MPI_INT, b, 64, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Gather(a, 64, MPI_INT, b, 64, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gatherv(a, 64, MPI_INT, b, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatter(a, 64, MPI_INT, b, 64, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatterv(a, counts, displs, MPI_INT, b, 64, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(a, b, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(a, b, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(a, b, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    double x = rank, sum;
    for (int i = 0; i < 5; i++)
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("others: done, sum %g\n", sum);
    free(a); free(b); free(counts); free(displs);
    MPI_Finalize();
    return 0;
}
"""

# MPI function -> collective, calls, bytes of one block (uneven: the largest); no rules for
# them: the library's ("mpi")
_OTHERS = {"MPI_Barrier": ("barrier", 3, 0), "MPI_Allgather": ("allgather", 1, 256),
           "MPI_Allgatherv": ("allgather", 1, 256), "MPI_Alltoall": ("alltoall", 1, 256),
           "MPI_Alltoallv": ("alltoall", 1, 256), "MPI_Gather": ("gather", 1, 256),
           "MPI_Gatherv": ("gather", 1, 256), "MPI_Scatter": ("scatter", 1, 256),
           "MPI_Scatterv": ("scatter", 1, 256), "MPI_Reduce_scatter": ("reduce_scatter", 1, 256),
           "MPI_Reduce_scatter_block": ("reduce_scatter", 1, 256), "MPI_Scan": ("scan", 1, 256),
           "MPI_Exscan": ("exscan", 1, 256)}


def test_every_collective_is_named_counted_and_timed(capsys, tmp_path, monkeypatch):
    """Every collective without rules gets rows of the library's ("mpi"), named by
    collective and MPI function; a selector's row names its choice from the trace,
    without a collbench start per call; SMPI's reductions are marked (no gamma)."""
    import collsim.native

    def no_process(*args, **kwargs):
        raise AssertionError("a selector's model started collbench")

    monkeypatch.setattr(collsim.native, "choices", no_process)
    (tmp_path / "others.c").write_text(OTHERS_C)
    assert main(["cc", "-O2", "-o", str(tmp_path / "others"), str(tmp_path / "others.c")]) == 0
    status, out, err = _app(capsys, "--np", "4", "--json", "--use", "allreduce:openmpi_default",
                            "--", str(tmp_path / "others"))
    assert status == 0, err
    rows = {r["function"]: r for r in _summary(out)}
    for function, (collective, calls, n_bytes) in _OTHERS.items():
        row = rows[function]
        assert (row["collective"], row["algorithm"]) == (collective, "mpi"), row
        assert (row["calls"], row["bytes"]) == (calls, n_bytes), row
        assert row["time_s"] > 0 and row["model_s"] is None
    allreduce = rows["MPI_Allreduce"]
    assert (allreduce["selected"], allreduce["calls"]) == ("recursive_doubling", 5)
    assert allreduce["model_s"] > 0
    assert rows["MPI_Reduce"]["algorithm"] == "mpi"
    status, out, err = _app(capsys, "--np", "4", "--use", "allreduce:openmpi_default", "--",
                            str(tmp_path / "others"))
    table = out.splitlines()
    assert any(line.split()[:4] == ["allreduce", "openmpi_default", "->", "recursive_doubling"]
               for line in table)
    marked = {line.split("  ")[0].strip() for line in table if " * " in line}
    assert marked == {"reduce", "reduce_scatter", "reduce_scatter (MPI_Reduce_scatter)", "scan",
                      "exscan"}
    assert any(line.split()[:4] == ["barrier", "mpi", "4", "0B"] for line in table)


# --- real MPI: the ranks' clocks on one --------------------------------------------------------

SHARED_CLOCK_C = r"""
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
/* CLOCK_MONOTONIC is one clock for every process of a machine: the reference */
static double monotonic_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(int argc, char **argv)
{
    enum { CALLS = 40, N = 1024 };
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double *x = calloc(N, sizeof *x), *y = calloc(N, sizeof *y);
    double start[CALLS], end[CALLS], first[CALLS], last[CALLS];
    for (int i = 0; i < CALLS; i++) {
        MPI_Barrier(MPI_COMM_WORLD);
        start[i] = monotonic_s();
        MPI_Allreduce(x, y, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        end[i] = monotonic_s();
    }
    MPI_Reduce(start, first, CALLS, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(end, last, CALLS, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        double total = 0;
        for (int i = 0; i < CALLS; i++)
            total += last[i] - first[i];
        printf("reference_s %.9f\n", total);
    }
    free(x);
    free(y);
    MPI_Finalize();
    return 0;
}
"""


def test_real_mpi_times_are_on_one_clock(capsys, tmp_path):
    """Open MPI's MPI_Wtime has a zero per process: after the ping-pong synchronisation
    the summary's allreduce time is within 20 % of the shared CLOCK_MONOTONIC's.

    8 KiB calls of some 60 us: here the zeros are tens of us apart, and without the
    synchronisation the sum came out 30-45 % long (3 % short with it: the wrapper's
    time stamps are inside the program's).
    """
    (tmp_path / "clock.c").write_text(SHARED_CLOCK_C)
    assert main(["cc", "--real-mpi", "-O2", "-o", str(tmp_path / "clock"),
                 str(tmp_path / "clock.c")]) == 0
    status, out, err = _app(capsys, "--real-mpi", "--np", "4", "--json", "--use",
                            "allreduce:ring", "--", str(tmp_path / "clock"))
    assert status == 0, err
    reference_s = float(out.split("reference_s ")[1].split()[0])
    [row] = [r for r in _summary(out) if r["collective"] == "allreduce"]
    assert row["calls"] == 40
    assert row["time_s"] == pytest.approx(reference_s, rel=0.2)
    status, out, err = _app(capsys, "--real-mpi", "--np", "4", "--use", "allreduce:ring", "--",
                            str(tmp_path / "clock"))
    assert "clocks: each rank's MPI_Wtime put on rank 0's by ping-pong" in out


# --- a program that fails: one line; --privatize where the program needs it -------------------

FAILING_C = r"""
#include <mpi.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *how = argc > 1 ? argv[1] : "";
    double x = rank, s;
    MPI_Allreduce(&x, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (!strcmp(how, "segv") && rank == 1) {
        volatile int *p = NULL;
        *p = 1;
    }
    if (!strcmp(how, "assert") && rank == 1)
        assert(s < 0 && "sum must be negative");
    if (!strcmp(how, "abort") && rank == 1) {
        fprintf(stderr, "failing: giving up on rank 1\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (!strcmp(how, "deadlock"))
        MPI_Recv(&x, 1, MPI_DOUBLE, (rank + 1) % 2, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!strcmp(how, "exit") && rank == 0) {
        fprintf(stderr, "failing: input file missing\n");
        exit(5);
    }
    MPI_Finalize();
    return 0;
}
"""

RANK_IN_A_GLOBAL_C = r"""
#include <mpi.h>
#include <stdio.h>
static int my_rank; /* per-rank state in a global, as NPB keeps it */
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &my_rank);
    double x = my_rank, sum;
    MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    printf("rank %d\n", my_rank);
    MPI_Finalize();
    return 0;
}
"""


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    out = tmp_path_factory.mktemp("failing")
    (out / "failing.c").write_text(FAILING_C)
    assert main(["cc", "-o", str(out / "failing"), str(out / "failing.c")]) == 0
    return out / "failing"


@pytest.mark.parametrize("how,expected", [
    ("segv", "failing on crossbar was killed by SIGSEGV (status 139)"),
    ("assert", "failing on crossbar was killed by SIGABRT (status 134): "),
    ("abort", "failing on crossbar called MPI_Abort: failing: giving up on rank 1"),
    ("deadlock", "failing on crossbar deadlocked"),
    ("exit", "failing on crossbar exited with status 5: failing: input file missing"),
])
def test_a_failing_program_gets_one_line(failing, capsys, how, expected):
    status, out, err = _app(capsys, "--np", "2", "--use", "allreduce:ring", "--",
                            str(failing), how)
    assert status == 2
    [line] = [line for line in err.splitlines() if line.startswith("collsim: error: ")]
    assert line.startswith("collsim: error: " + expected), line
    if how == "assert":
        assert "Assertion `s < 0 && \"sum must be negative\"' failed." in line
    if how in ("segv", "abort"):
        assert line.endswith("(if its ranks keep state in global variables: --privatize)")
    assert "Traceback" not in err


def test_privatize_is_chosen_when_the_program_has_globals(capsys, tmp_path):
    (tmp_path / "global.c").write_text(RANK_IN_A_GLOBAL_C)
    assert main(["cc", "-o", str(tmp_path / "global"), str(tmp_path / "global.c")]) == 0
    status, out, err = _app(capsys, "--np", "3", "--", str(tmp_path / "global"))
    assert status == 0, err
    assert sorted(line for line in out.splitlines() if line.startswith("rank ")) == [
        "rank 0", "rank 1", "rank 2"]
    assert "privatized: the program's globals my_rank" in out
    status, out, err = _app(capsys, "--np", "3", "--no-privatize", "--",
                            str(tmp_path / "global"))
    assert status == 0, err
    assert "privatized" not in out  # shared: the ranks overwrite each other's my_rank


# --- README: a binary runs under its own library's launcher only -------------------------------

SIZE_C = r"""
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("rank %d of %d\n", rank, size);
    MPI_Finalize();
    return 0;
}
"""


@pytest.mark.skipif(not all(shutil.which(name) for name in
                            ("mpicc.openmpi", "mpicc.mpich", "mpiexec.mpich")),
                    reason="Open MPI and MPICH both needed")
def test_an_open_mpi_binary_under_mpichs_launcher_is_n_one_rank_jobs(tmp_path):
    """What the README says of 'Use the map in your MPI': build once per library."""
    (tmp_path / "size.c").write_text(SIZE_C)
    for compiler in ("mpicc.openmpi", "mpicc.mpich"):
        _build([compiler, "-o", f"size-{compiler}", "size.c"], tmp_path)

    def ranks(program: str) -> list[str]:
        # Each rank gets its own TMPDIR: two Open MPI singletons started at once race to
        # create the same session directory (/tmp/ompi.HOST.UID, "File exists").
        argv = ["mpiexec.mpich"]
        for rank in (0, 1):
            (tmp_path / f"tmp{rank}").mkdir(exist_ok=True)
            argv += [":"] * rank + ["-n", "1", "-env", "TMPDIR", str(tmp_path / f"tmp{rank}"),
                                    f"./{program}"]
        done = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return sorted(line for line in done.stdout.splitlines() if line.startswith("rank"))

    assert ranks("size-mpicc.mpich") == ["rank 0 of 2", "rank 1 of 2"]
    assert ranks("size-mpicc.openmpi") == ["rank 0 of 1", "rank 0 of 1"]  # silently


def test_a_stripped_program_needs_a_privatization_choice(capsys, tmp_path):
    (tmp_path / "global.c").write_text(RANK_IN_A_GLOBAL_C)
    assert main(["cc", "-o", str(tmp_path / "global"), str(tmp_path / "global.c")]) == 0
    subprocess.run(["strip", str(tmp_path / "global")], check=True)
    status, out, err = _app(capsys, "--np", "2", "--", str(tmp_path / "global"))
    assert status == 2
    assert "has no symbol table (stripped)" in err and "--privatize or --no-privatize" in err
    status, out, err = _app(capsys, "--np", "2", "--privatize", "--", str(tmp_path / "global"))
    assert status == 0, err


# --- the selectors' models for any element size -------------------------------------------------

@pytest.mark.parametrize("selector", ["openmpi_default", "mpich_default"])
def test_a_selectors_model_takes_any_element_size(selector):
    """Without a recorded choice the model asks collbench with a 4- or 8-byte type whose
    count takes the same branches; that answer is collbench's own for 4 <-> 8 bytes."""
    from collsim.analysis.models import model_for
    from collsim.analysis.models._native import _choice
    from collsim.analysis.models._base import NetworkParams

    net = NetworkParams(alpha_s=1e-6, beta_s_per_byte=1e-9)
    for collective in ("allreduce", "reduce", "bcast"):
        model = model_for(collective, selector)
        for elem_bytes in (1, 24, 32):
            assert model(5, 960 * elem_bytes, net, elem_bytes=elem_bytes).time_s > 0
        for p, n_bytes in ((5, 64), (16, 40), (16, 8192)):
            # 8-byte elements asked as 4-byte ones where the counts fall alike, and directly
            count8, count4, pof2 = n_bytes // 8, n_bytes // 4, 1 << (p.bit_length() - 1)
            if (count8 < p) == (count4 < p) and (count8 < pof2) == (count4 < pof2):
                assert _choice(collective, selector, p, n_bytes, 8, True) == \
                    _choice(collective, selector, p, n_bytes, 4, True)
    with pytest.raises(ValueError, match="give the choice"):
        model_for("allreduce", selector)(4, 3 * 24, net, elem_bytes=24)


@pytest.mark.parametrize("how,expected", [
    ("segv", "failing under mpirun was killed by SIGSEGV (status 139): Segmentation fault"),
    ("abort", "failing under mpirun "),  # MPI_Abort, when mpirun says so before it kills
    ("exit", "failing under mpirun exited with status 5: failing: input file missing"),
])
def test_a_failing_program_under_mpirun_gets_one_line(capsys, tmp_path, how, expected):
    (tmp_path / "failing.c").write_text(FAILING_C)
    assert main(["cc", "--real-mpi", "-o", str(tmp_path / "failing"),
                 str(tmp_path / "failing.c")]) == 0
    status, out, err = _app(capsys, "--real-mpi", "--np", "2", "--", str(tmp_path / "failing"),
                            how)
    assert status == 2
    [line] = [line for line in err.splitlines() if line.startswith("collsim: error: ")]
    assert line.startswith("collsim: error: " + expected), line
    if how == "abort":
        assert line.endswith("failing: giving up on rank 1"), line
