"""Workers that end with the process that started them.

A study, a suite or a repro matrix runs its simulations in a process pool; if
the main process dies (even of SIGKILL), each worker is told by the kernel
(Linux ``PR_SET_PDEATHSIG``) and ends: the simulation it runs unwinds, which
stops its smpirun (``collsim.harness.simulate``) and removes its temporary
directory, and the worker exits.  In the main process SIGTERM unwinds the same
way (as Ctrl-C does).
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

__all__ = ["pool_options", "guarded", "terminate_like_interrupt"]

_PR_SET_PDEATHSIG = 1


class ParentDied(BaseException):
    """Raised in a worker whose main process died."""


_busy = False


def _on_parent_death(signum, frame) -> None:
    if not _busy:
        os._exit(128 + signum)  # idle: nothing to clean up
    raise ParentDied()


def _die_with_parent(parent_pid: int) -> None:
    """Pool initializer: SIGTERM when the parent dies, and end then."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    signal.signal(signal.SIGTERM, _on_parent_death)
    if os.getppid() != parent_pid:  # died before the request took effect
        os._exit(128 + signal.SIGTERM)


def pool_options() -> dict:
    """Keyword arguments for a ProcessPoolExecutor whose workers die with this process."""
    return {"initializer": _die_with_parent, "initargs": (os.getpid(),)}


def guarded(function, *args):
    """Run function(*args) in a worker; if the main process dies meanwhile, unwind
    (stopping smpirun, removing temporary directories), then exit the worker."""
    global _busy
    _busy = True
    try:
        return function(*args)
    except ParentDied:
        os._exit(128 + signal.SIGTERM)
    finally:
        _busy = False


def terminate_like_interrupt() -> None:
    """In the main process: SIGTERM unwinds like Ctrl-C (KeyboardInterrupt)."""
    def handler(signum, frame):
        raise KeyboardInterrupt()

    signal.signal(signal.SIGTERM, handler)
