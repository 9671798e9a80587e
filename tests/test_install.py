"""What `pip install .` gives (issue 27): the package with its C parts, working from a
fresh virtual environment outside the checkout; no exact pins, a licence.

`pip install .` builds collbench and the interposition library with scikit-build-core
from CMakeLists.txt (smpicc) and installs them into the package (`collsim/_bin`,
`collsim/_lib`); a collsim that runs from a source tree uses `make build`'s instead.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from collsim import harness
from collsim.app import compile_command
from collsim.errors import CollsimError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

_LIBRARIES = ("libcollsim_interpose.a", "libcollsim_algorithms.a")

ALLREDUCE_C = r"""
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double x[4] = {rank, rank, rank, rank}, sum[4];
    MPI_Allreduce(x, sum, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum %g\n", sum[3]);
    MPI_Finalize();
    return 0;
}
"""


def test_dependencies_are_ranges_and_the_licence_is_there():
    project = tomllib.loads((harness.REPO_ROOT / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + project["optional-dependencies"]["test"]
    assert requirements and not [r for r in requirements if "==" in r]
    assert project["license"] == "BSD-3-Clause"
    assert "BSD 3-Clause" in (harness.REPO_ROOT / "LICENSE").read_text()


def test_the_c_parts_come_from_the_package_when_there_is_no_source_tree(tmp_path, monkeypatch):
    monkeypatch.delenv("COLLSIM_COLLBENCH", raising=False)
    monkeypatch.setattr(harness, "REPO_ROOT", tmp_path / "lib")  # no CMakeLists.txt: installed
    monkeypatch.setattr(harness, "PACKAGE_DIR", tmp_path / "lib" / "site-packages" / "collsim")
    with pytest.raises(CollsimError, match="collbench not found at .*_bin/collbench: this "
                       "collsim was installed without its C parts: reinstall it"):
        harness.find_collbench()
    with pytest.raises(CollsimError, match="make build-mpi"):
        compile_command(["-o", "prog", "prog.c"], real_mpi=True)
    for folder, name in (("_bin", "collbench"), ("_lib", _LIBRARIES[0]), ("_lib", _LIBRARIES[1])):
        (harness.PACKAGE_DIR / folder).mkdir(parents=True, exist_ok=True)
        (harness.PACKAGE_DIR / folder / name).write_bytes(b"")
    assert harness.find_collbench() == harness.PACKAGE_DIR / "_bin" / "collbench"
    if shutil.which("smpicc"):
        argv = compile_command(["-o", "prog", "prog.c"])
        assert str(harness.PACKAGE_DIR / "_lib" / _LIBRARIES[0]) in argv
    # $COLLSIM_COLLBENCH still comes first, and says so when it is wrong
    monkeypatch.setenv("COLLSIM_COLLBENCH", str(tmp_path / "nothing"))
    with pytest.raises(CollsimError, match="not found at .*nothing \\(COLLSIM_COLLBENCH\\)"):
        harness.find_collbench()


def test_a_source_tree_uses_make_build(tmp_path, monkeypatch):
    monkeypatch.delenv("COLLSIM_COLLBENCH", raising=False)
    assert harness.find_collbench() == harness.REPO_ROOT / "build" / "collbench"
    monkeypatch.setattr(harness, "REPO_ROOT", tmp_path)
    (tmp_path / "CMakeLists.txt").write_text("")
    with pytest.raises(CollsimError, match=f"run 'make build' in {tmp_path} first"):
        harness.find_collbench()


def test_cmake_installs_what_the_package_looks_for(tmp_path):
    """The install rules (what scikit-build-core copies into the wheel), run on
    `make build`'s tree: the same layout the Python side looks in."""
    build = harness.REPO_ROOT / "build"
    subprocess.run(["cmake", "--install", str(build), "--prefix", str(tmp_path)], check=True,
                   capture_output=True)
    installed = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert installed == ["collsim/_bin/collbench", "collsim/_bin/simgrid-bin",
                         *(f"collsim/_lib/{name}" for name in sorted(_LIBRARIES))]
    # the SimGrid that built collbench: the folder of the smpicc the build used
    recorded = Path((tmp_path / "collsim/_bin/simgrid-bin").read_text().strip())
    assert (recorded / "smpicc").is_file() and (recorded / "smpirun").is_file()


def _run(argv, cwd, env, timeout_s=300):
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout_s)
    assert done.returncode == 0, f"{argv} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.skipif(not (shutil.which("smpicc") and shutil.which("smpirun")),
                    reason="SimGrid's smpicc and smpirun are needed")
def test_pip_install_into_a_fresh_environment_simulates(tmp_path):
    """`pip install <checkout>` into a new virtual environment in a temporary folder,
    then `collsim run`, `collsim cc` and `collsim app` from there.

    The environment is a real one (`venv`) that gets collsim through pip with the
    build isolation a user gets (scikit-build-core from the index or pip's cache,
    the C parts compiled with smpicc).  Its Python dependencies (pandas, pyarrow,
    Dask, ...) are not downloaded again: collsim goes in with ``--no-deps``, then a
    ``.pth`` file appends this test's own environment's site-packages to its
    ``sys.path``.  A path line of a ``.pth`` file is only appended: the fresh
    site-packages comes first, so ``import collsim`` is the installed copy, and the
    ``.pth`` files of the appended folder (this checkout's editable install) are
    never run.  The test asserts both.
    """
    env_dir = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    # the pip of this environment, installing into the new one
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
          "--no-deps", str(harness.REPO_ROOT)], cwd=tmp_path, env=os.environ)
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                     cwd=tmp_path, env=os.environ).strip())
    (site / "_collsim_test_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")

    env = {key: value for key, value in os.environ.items()
           if key not in ("COLLSIM_COLLBENCH", "PYTHONPATH", "SMPI_PRETEND_CC")}
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    work = tmp_path / "work"
    work.mkdir()
    where = _run([str(python), "-c", "import collsim.harness as h; "
                  "print(h.__file__); print(h.find_collbench())"], cwd=work, env=env).split()
    assert where == [str(site / "collsim" / "harness.py"),
                     str(site / "collsim" / "_bin" / "collbench")]

    rows = [json.loads(line) for line in _run(
        ["collsim", "run", "--np", "4", "--coll", "allreduce", "--alg", "ring", "--bytes", "8",
         "--json"], cwd=work, env=env).splitlines()]
    assert rows and all(row["algorithm"] == "ring" and row["check"] == "ok" for row in rows)

    (work / "allreduce.c").write_text(ALLREDUCE_C)
    _run(["collsim", "cc", "-O2", "-o", "allreduce", "allreduce.c"], cwd=work, env=env)
    out = _run(["collsim", "app", "--np", "4", "--use", "allreduce:ring", "--", "./allreduce"],
               cwd=work, env=env)
    assert "sum 6" in out
    assert any(line.split()[:3] == ["allreduce", "ring", "4"] for line in out.splitlines())
