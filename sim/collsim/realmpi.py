"""Running collbench under a real MPI (``mpirun`` on this machine).

The same C sources, built with ``make build-mpi`` (CMake's ``COLLSIM_MPI=ON``) into
``build-mpi/collbench``, run as real processes.  Used for correctness: times under a
real MPI are measured, printed and never compared with the models.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from collsim.errors import CollsimError
from collsim.harness import find_c_part, run_program

__all__ = ["find_mpi_collbench", "find_mpirun", "mpirun_command", "run_mpirun"]

# Open MPI's mpirun refuses to start as root unless told; harmless for other users.
_OPEN_MPI_AS_ROOT = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def find_mpi_collbench() -> Path:
    """Return collbench built against a real MPI: $COLLSIM_MPI_COLLBENCH, else build-mpi/collbench."""
    if "COLLSIM_MPI_COLLBENCH" not in os.environ:
        return find_c_part("collbench", real_mpi=True)
    candidate = Path(os.environ["COLLSIM_MPI_COLLBENCH"])
    if not candidate.is_file():
        raise CollsimError(f"collbench for a real MPI not found at {candidate} "
                           "(COLLSIM_MPI_COLLBENCH)")
    return candidate


def find_mpirun() -> tuple[str, bool]:
    """Return (mpirun, is_open_mpi): $COLLSIM_MPIRUN, else Open MPI's, else ``mpirun``."""
    path = os.environ.get("COLLSIM_MPIRUN") or shutil.which("mpirun.openmpi") \
        or shutil.which("mpirun")
    if path is None:
        raise CollsimError("mpirun not found: install Open MPI (apt-get install openmpi-bin "
                           "libopenmpi-dev) or run 'make build-mpi'")
    try:
        version = subprocess.run([path, "--version"], capture_output=True, text=True,
                                 errors="replace", timeout=60,
                                 env={**os.environ, **_OPEN_MPI_AS_ROOT})
    except (OSError, subprocess.TimeoutExpired) as error:
        reason = getattr(error, "strerror", None) or "no answer to --version within 60 s"
        raise CollsimError(f"cannot run mpirun {path}: {reason} (check COLLSIM_MPIRUN)") from None
    text = version.stdout + version.stderr
    return path, "OpenRTE" in text or "Open MPI" in text or "open-mpi.org" in text


def mpirun_command(np: int, session_dir: Path, program_env: dict[str, str] | None = None
                   ) -> tuple[list[str], dict[str, str]]:
    """The start of an mpirun command line for np local processes, and its environment.

    Parameters
    ----------
    np : int
        Number of local processes.
    session_dir : Path
        An existing directory of this job's own, which the caller removes after the
        run: Open MPI's session directory goes there (``orte_tmpdir_base``).  Jobs
        started at the same time in the shared default (``$TMPDIR/ompi.HOST.UID``)
        race to create it and one fails with "File exists" (open-mpi/ompi#8510).
    program_env : dict of str to str, optional
        Variables that reach every process (Open MPI's ``-x``, MPICH's ``-genv``).

    Returns
    -------
    argv, env
        The command line up to the program, and the environment to run it in.  Under
        Open MPI: oversubscribed, unbound, shared memory without CMA.
    """
    program_env = program_env or {}
    mpirun, open_mpi = find_mpirun()
    argv = [mpirun, "-n", str(np)]
    env = dict(os.environ)
    if open_mpi:
        argv += ["--oversubscribe", "--bind-to", "none"]
        # shared memory without CMA (containers often forbid ptrace), TCP between nodes
        env.update(_OPEN_MPI_AS_ROOT, OMPI_MCA_btl="self,vader,tcp",
                   OMPI_MCA_btl_vader_single_copy_mechanism="none",
                   OMPI_MCA_orte_tmpdir_base=str(session_dir))
        env.update(program_env)
        for name in program_env:
            argv += ["-x", name]
    else:
        for name, value in program_env.items():
            argv += ["-genv", name, value]
    return argv, env


def run_mpirun(np: int, collbench_args: list[str], *, what: str,
               timeout_s: float = 600.0) -> tuple[list[dict], int]:
    """Run collbench on np local processes under mpirun; return its rows and exit status.

    Parameters
    ----------
    np : int
        Number of processes (may exceed the cores: Open MPI runs oversubscribed and
        yields when idle).
    collbench_args : list of str
        Arguments for collbench.
    what : str
        What runs, for error messages.
    timeout_s : float
        Wall-clock limit; the process group is stopped after it.

    Returns
    -------
    rows, returncode
        The parsed JSON rows and collbench's exit status (0 ok, 1 a wrong result).

    Raises
    ------
    ValueError
        If np < 1.
    CollsimError
        On bad input detected by collbench, a crash or a timeout.
    """
    if isinstance(np, bool) or not isinstance(np, int) or np < 1:
        raise ValueError(f"np must be an integer >= 1, got {np!r}")
    with tempfile.TemporaryDirectory(prefix="collsim-mpirun-") as name:
        session_dir = Path(name)
        argv, env = mpirun_command(np, session_dir)
        argv += [str(find_mpi_collbench()), *collbench_args]
        # one way to run a program: its own group, a timeout, a watchdog (collsim.harness)
        returncode, stdout, stderr = run_program(argv, cwd=os.getcwd(),
                                                 what=f"{what} under mpirun",
                                                 timeout_s=timeout_s, env=env,
                                                 deadlock_is_error=False, scratch=session_dir)
    rows = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    if returncode not in (0, 1) or (
            returncode == 1 and not any(row.get("check") == "wrong" for row in rows)):
        # collbench's own one-line error, else the words of mpirun's message (Open MPI
        # frames its messages in lines of dashes, which say nothing)
        lines = [line.strip() for line in stderr.splitlines()
                 if line.strip() and line.strip().strip("-=*") != ""]
        detail = next((line[len("collbench: error: "):] for line in lines
                       if line.startswith("collbench: error: ")),
                      " / ".join(lines[:4]) if lines else "no message")
        raise CollsimError(f"{what} failed under mpirun (exit status {returncode}): "
                           f"{detail}")
    return rows, returncode
