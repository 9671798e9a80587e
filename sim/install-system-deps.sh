#!/bin/sh
# Installs the system packages collsim needs, and only those that are missing:
# SimGrid (libsimgrid-dev: smpicc, smpirun), Open MPI (openmpi-bin,
# libopenmpi-dev: the real MPI the same sources are also tested with), MPICH
# (mpich, libmpich-dev: only to check that the MPICH selection JSON of
# `collsim select --mpich-json` loads; Open MPI stays the default mpicc/mpirun,
# as Debian's alternatives rank it first and the Makefile names mpicc.openmpi),
# CMake, a C compiler, C++ and Fortran compilers (g++, gfortran: `collsim cxx`
# and `collsim fc`, through smpicxx / smpif90 and mpicxx / mpif90), autoconf
# (the test of `./configure CC="collsim cc"`), Python's venv module, and jemalloc (libjemalloc2: the
# allocator smpirun runs with, a quarter less CPU on large simulations,
# collsim.harness.engine_environment).  Debian/Ubuntu; as root, or through
# sudo.  A second run finds everything and installs nothing.
set -eu

missing=""
command -v smpicc >/dev/null 2>&1 && command -v smpirun >/dev/null 2>&1 \
    || missing="$missing libsimgrid-dev"
command -v mpicc.openmpi >/dev/null 2>&1 && command -v mpirun.openmpi >/dev/null 2>&1 \
    || missing="$missing openmpi-bin libopenmpi-dev"
command -v mpicc.mpich >/dev/null 2>&1 && command -v mpirun.mpich >/dev/null 2>&1 \
    || missing="$missing mpich libmpich-dev"
command -v cmake >/dev/null 2>&1 || missing="$missing cmake"
command -v cc >/dev/null 2>&1 || missing="$missing gcc libc6-dev"
command -v g++ >/dev/null 2>&1 || missing="$missing g++"
command -v gfortran >/dev/null 2>&1 || missing="$missing gfortran"
command -v autoconf >/dev/null 2>&1 || missing="$missing autoconf"
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || missing="$missing python3-venv"
{ ldconfig -p || /sbin/ldconfig -p; } 2>/dev/null | grep -q 'libjemalloc\.so\.2 ' || missing="$missing libjemalloc2"

# $missing is left unquoted: one argument a package.
exec "$(dirname "$0")/install-missing-deps.sh" "make" "" $missing
