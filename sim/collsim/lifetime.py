"""Workers that end with the process that started them.

A study, a suite or a repro matrix runs its simulations in a process pool; if
the main process dies (even of SIGKILL), each worker is told by the kernel
(Linux ``PR_SET_PDEATHSIG``) and ends: the simulation it runs unwinds, which
stops its smpirun (``collsim.harness.simulate``) and removes its temporary
directory, and the worker exits.  In the main process SIGTERM unwinds the same
way (as Ctrl-C does).  A computation in compiled code that never looks at signals (the
network model's numba loops) runs in a thread the main thread waits for
(:func:`interruptible`), so a signal stops it at once.
"""

from __future__ import annotations

import ctypes
import functools
import os
import shutil
import signal
import sys
import tempfile
import threading

__all__ = ["pool_options", "guarded", "terminate_like_interrupt", "interruptible"]

_PR_SET_PDEATHSIG = 1


class ParentDied(BaseException):
    """Raised in a worker whose main process died."""


_busy = False

#: The temporary directories this process's simulation uses now
#: (:func:`collsim.harness.simulate` adds and discards its own): a worker whose main
#: process died removes them at once, before it unwinds (a clean clone's ``make test``
#: once found one left behind, its platform and hostfile written, smpirun not yet
#: started; which path skipped the unwinding was not found).
scratch_dirs: set[str] = set()


def _remove_scratch() -> None:
    for path in list(scratch_dirs):
        shutil.rmtree(path, ignore_errors=True)


def _on_parent_death(signum, frame) -> None:
    _remove_scratch()
    if not _busy:
        os._exit(128 + signum)  # idle: nothing else to clean up
    raise ParentDied()


def _die_with_parent(parent_pid: int, temporary_dir: str) -> None:
    """Pool initializer: the parent's temporary directory, SIGTERM when the parent dies,
    and end then.

    The directory is given, not looked for: Python finds it on first use by writing
    and removing a file of eight random letters in it (``tempfile.gettempdir``), and
    a worker told its parent died between the two left that file behind (a clean
    clone's ``tests/test_lifetime.py`` once found ``scratch/87nl1ttx``: the kill
    came while one worker simulated and the other made its first directory).
    """
    tempfile.tempdir = temporary_dir
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    signal.signal(signal.SIGTERM, _on_parent_death)
    if os.getppid() != parent_pid:  # died before the request took effect
        os._exit(128 + signal.SIGTERM)


def pool_options() -> dict:
    """Keyword arguments for a ProcessPoolExecutor whose workers die with this process."""
    return {"initializer": _die_with_parent, "initargs": (os.getpid(), tempfile.gettempdir())}


def guarded(function, *args):
    """Run function(*args) in a worker; if the main process dies meanwhile, unwind
    (stopping smpirun, removing temporary directories), then exit the worker."""
    global _busy
    _busy = True
    try:
        return function(*args)
    except ParentDied:
        _remove_scratch()
        os._exit(128 + signal.SIGTERM)
    finally:
        _busy = False


def terminate_like_interrupt() -> None:
    """In the main process: SIGTERM unwinds like Ctrl-C (KeyboardInterrupt)."""
    def handler(signum, frame):
        raise KeyboardInterrupt()

    signal.signal(signal.SIGTERM, handler)


# Worker threads of :func:`interruptible` told to stop: an exception sent to one can
# land in a ctypes callback (numba's object cache, during a compile), which CPython
# reports on stderr ("Exception ignored on calling ctypes callback function") and
# drops; :func:`_quiet_when_stopped` leaves those out.
_stopped_workers: set[int] = set()


def _quiet_when_stopped(hook):
    """``sys.unraisablehook`` that drops what a stopped worker raises where no one can
    catch it, and hands everything else to ``hook``."""
    def quiet(unraisable):
        if threading.get_ident() not in _stopped_workers:
            hook(unraisable)

    quiet.collsim_quiet = True
    return quiet


def _stop(worker: threading.Thread, error: BaseException) -> None:
    """Raise ``error``'s type in ``worker`` at its next Python instruction, quietly."""
    _stopped_workers.add(worker.ident)
    if not getattr(sys.unraisablehook, "collsim_quiet", False):
        sys.unraisablehook = _quiet_when_stopped(sys.unraisablehook)
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(worker.ident),
                                               ctypes.py_object(type(error)))


def interruptible(function):
    """Decorator: in the main thread, ``function`` runs in a worker thread it waits for.

    The network model's compiled loops (numba) never look at signals: called
    in the main thread, a loop of minutes ran on after Ctrl-C or SIGTERM until
    it returned (124 s after SIGTERM for an alltoall ``linear`` on 5000 ranks
    of a dragonfly), and a handler's exception raised inside numba's
    dispatcher came out as a ``SystemError`` traceback.  The loops release the
    GIL (``nogil=True``), so the main thread's wait is interrupted at once: the
    handler's exception (``KeyboardInterrupt``, :class:`ParentDied`) is raised
    there, and the same exception is raised in the worker at its next Python
    instruction (``PyThreadState_SetAsyncExc``), which ends it once the compiled
    call it is in returns; a daemon thread, it does not hold the process.  If
    that instruction is in a ctypes callback (numba compiling), CPython drops
    the exception there, and it is not reported (:func:`_stop`): the worker
    then ends with the process.
    ``function``'s own result or exception is the caller's, as if it had run
    where it was called.  Called from another thread (a pool's, Dask's),
    ``function`` runs where it is called: signals reach the main thread only.
    A profiler of the main thread (cProfile) sees only the wait: profile
    ``function.__wrapped__``.
    """
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if threading.current_thread() is not threading.main_thread():
            return function(*args, **kwargs)
        outcome = {}

        def work():
            try:
                outcome["value"] = function(*args, **kwargs)
            except BaseException as error:  # the caller's to see (or, stopped, no one's)
                outcome["error"] = error
            finally:   # its ident may be a later thread's
                _stopped_workers.discard(threading.get_ident())

        worker = threading.Thread(target=work, name=f"collsim {function.__name__}",
                                  daemon=True)
        worker.start()
        try:
            worker.join()
        except BaseException as error:
            _stop(worker, error)
            raise
        if "error" in outcome:
            raise outcome["error"]
        return outcome["value"]

    return wrapper
