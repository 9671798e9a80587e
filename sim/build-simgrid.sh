#!/bin/sh
# Builds SimGrid VERSION from the sources the Python package index distributes
# (the `simgrid` sdist) into PREFIX, once: a second run finds PREFIX/bin/smpicc
# and does nothing.  `make SIMGRID=VERSION ...` calls it with
# PREFIX = .simgrid/VERSION inside the checkout (ignored by git).
#
# Usage: build-simgrid.sh VERSION PREFIX PIP
#   PIP  a pip command that can download (the virtual environment's).
#
# What SimGrid needs to build (a C++17 compiler, CMake, Boost's headers) is
# what libsimgrid-dev already brings; gfortran, when present, gives smpif90.
# The build skips what collsim does not use: the Python bindings, the model
# checker, link-time optimisation and the documentation.  About 15 minutes on
# two cores.
set -eu

version=$1
prefix=$2
pip=$3
case $version in
    *[!0-9.]*|"") echo "collsim: SIMGRID=$version: a SimGrid version is digits and dots (4.1, 3.35)" >&2
                  exit 2 ;;
esac
case $prefix in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
[ -x "$prefix/bin/smpicc" ] && exit 0

work=$(dirname "$prefix")/src
mkdir -p "$work"
tarball=$work/simgrid-$version.tar.gz
if [ ! -f "$tarball" ]; then
    echo "collsim: downloading SimGrid $version's sources"
    $pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
        --dest "$work" "simgrid==$version" || {
        echo "collsim: SimGrid $version: no such sources on the package index" >&2
        exit 2
    }
fi
rm -rf "$work/simgrid-$version" "$work/build-$version"
cd "$work"  # SimGrid's configure leaves a test program in the current folder
tar -xzf "$tarball" -C "$work"
echo "collsim: building SimGrid $version into $prefix (about 15 minutes on two cores)"
cmake -S "$work/simgrid-$version" -B "$work/build-$version" \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_BUILD_TYPE=Release \
    -Denable_python=OFF -Denable_model-checking=OFF -Denable_lto=OFF \
    -Denable_documentation=OFF -Denable_smpi=ON -Denable_compile_warnings=OFF \
    -Denable_java=OFF -Denable_ns3=OFF >"$work/build-$version.log" 2>&1 || {
    echo "collsim: SimGrid $version: configuring failed; see $work/build-$version.log" >&2
    exit 1
}
jobs=$(nproc 2>/dev/null || echo 2)
cmake --build "$work/build-$version" -j "$jobs" >>"$work/build-$version.log" 2>&1 &&
    cmake --install "$work/build-$version" >>"$work/build-$version.log" 2>&1 || {
    echo "collsim: SimGrid $version: the build failed; see $work/build-$version.log" >&2
    exit 1
}
rm -rf "$work/simgrid-$version" "$work/build-$version"
echo "collsim: SimGrid $version installed in $prefix"
