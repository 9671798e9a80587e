"""A study killed with SIGKILL leaves no worker, no smpirun and no temporary directory; a
prediction stops at once at SIGTERM or Ctrl-C."""

import concurrent.futures
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from collsim.lifetime import pool_options

XBAR = {"xbar": {"platform": {"generator": "crossbar", "nodes": 32}}}
ALLREDUCE = {"collective": "allreduce", "sizes": ["8", "1MiB"],
             "algorithms": ["recursive_doubling", "ring", "rabenseifner", "reduce_bcast",
                            "binary_blocks", "binary_tree"]}


def _processes_of(session: int, marker: str) -> list[str]:
    """Processes in the session, or whose command line names the marker."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and (int(fields[3]) == session or marker in cmdline):
            found.append(f"{entry.name}: {cmdline[:120]}")
    return found


def _worker_simulating(scratch: Path) -> bool:
    """A worker's smpirun is running: a hostfile of 32 ranks (the main process's own
    collbench --list has one)."""
    for hostfile in scratch.glob("collsim-*/hostfile"):
        try:
            if len(hostfile.read_text().splitlines()) == 32:
                return True
        except OSError:
            pass
    return False


def _left_in(scratch: Path) -> list[str]:
    """What is left under scratch: each path with its kind, size and age, so that a
    failure names what made it (a clean clone once left ``scratch/87nl1ttx``: Python's
    probe of the temporary directory, which a worker now never makes,
    test_a_worker_is_given_its_temporary_directory_and_writes_no_probe)."""
    now = time.time()
    found = []
    for path in sorted(scratch.rglob("*")):
        try:
            info = path.lstat()
        except OSError:
            continue
        kind = "dir" if path.is_dir() else "file"
        found.append(f"{path.relative_to(scratch)} ({kind}, {info.st_size} bytes, mode "
                     f"{info.st_mode & 0o7777:o}, {now - info.st_mtime:.1f} s old)")
    return found


def test_killing_the_main_process_ends_workers_and_removes_temporary_directories(
        tmp_path, write_scenario):
    scenario = write_scenario(tmp_path / "killed.toml", "killed", [32], XBAR, [ALLREDUCE])
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "collsim", "study", str(scenario), "--db",
         str(tmp_path / "killed.db"), "--jobs", "2"],
        env={**os.environ, "TMPDIR": str(scratch)}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not _worker_simulating(scratch):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 30
        while (_processes_of(process.pid, str(scratch)) or list(scratch.iterdir())) and (
                time.monotonic() < deadline):
            time.sleep(0.1)
        assert _processes_of(process.pid, str(scratch)) == []
        assert _left_in(scratch) == []
    finally:
        for line in _processes_of(process.pid, str(scratch)):
            os.kill(int(line.split(":")[0]), signal.SIGKILL)


def test_killing_collsim_run_stops_its_simulation_and_removes_its_directory(tmp_path):
    """No pool: the watchdog of collsim.harness.run_program ends smpirun's whole group
    when the collsim process that started it is killed with SIGKILL."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "collsim", "run", "--np", "256", "--nodes", "256", "--coll",
         "allreduce", "--alg", "ring", "--bytes", "4MiB", "--timing-only"],
        env={**os.environ, "TMPDIR": str(scratch)}, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not any(len(h.read_text().splitlines()) == 256
                      for h in scratch.glob("collsim-*/hostfile") if h.is_file()):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(0.5)  # smpirun has started the simulator
        assert _processes_of(-1, str(scratch))  # the simulation runs
        process.send_signal(signal.SIGKILL)
        process.wait()
        deadline = time.monotonic() + 30
        while (_processes_of(-1, str(scratch)) or list(scratch.iterdir())) and (
                time.monotonic() < deadline):
            time.sleep(0.1)
        assert _processes_of(-1, str(scratch)) == []
        assert _left_in(scratch) == []
    finally:
        for line in _processes_of(-1, str(scratch)):
            os.kill(int(line.split(":")[0]), signal.SIGKILL)


def _cpu_s(pid: int) -> float:
    """User and system CPU seconds of a running process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


DRAGONFLY_1M = ["--platform", "dragonfly", "--dragonfly-groups", "257",
                "--chassis-per-group", "1", "--routers-per-chassis", "256",
                "--nodes-per-router", "16"]


def _interrupts_by_default() -> None:
    """In the child, before exec: SIGINT as a terminal's foreground job gets it.  A
    shell's background job (``make test &``) ignores SIGINT, its children inherit that,
    and Python then installs no handler: Ctrl-C does not reach such a job, and this
    test, run in one, waited 20 s for a signal ignored by design."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_prediction_inside_a_compiled_loop_stops_at_once(signum):
    """alltoall linear on 5000 ranks of the million-rank dragonfly is one compiled call
    of about three minutes (its strata); SIGTERM 124 s after it was sent stopped it
    before the call ran in a thread (collsim.lifetime.interruptible)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "collsim", "predict", *DRAGONFLY_1M, "--np", "5000", "--coll",
         "alltoall", "--alg", "linear", "--bytes", "8"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=_interrupts_by_default)
    try:
        deadline = time.monotonic() + 120
        # 4 s of CPU: into the prediction (or into numba's compile of its kernels, in the
        # same thread, when the cache is cold)
        while _cpu_s(process.pid) < 4:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        process.send_signal(signum)
        sent = time.monotonic()
        out, err = process.communicate(timeout=20)
        assert time.monotonic() - sent < 5
        assert (process.returncode, out, err) == (130, "", "collsim: interrupted\n")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_worker_stopped_inside_a_ctypes_callback_says_nothing():
    """A stopped worker's exception can land in a ctypes callback (numba's object cache,
    while a cold cache compiles: `make test` from a clean clone once printed "collsim:
    interruptedException ignored on calling ctypes callback function"); CPython drops it
    there and reports it on stderr, which collsim.lifetime leaves out."""
    code = """if True:
        import ctypes, os, sys, threading, time
        from collsim import lifetime
        libc = ctypes.CDLL(None)
        CMP = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                               ctypes.POINTER(ctypes.c_int))
        compare = CMP(lambda a, b: a[0] - b[0])
        values = (ctypes.c_int * 100000)(*range(100000, 0, -1))
        started = threading.Event()

        def work():   # nearly all its Python runs inside the callback
            started.set()
            while True:
                libc.qsort(values, len(values), ctypes.sizeof(ctypes.c_int), compare)

        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        started.wait()
        time.sleep(0.2)
        if sys.argv[1] == "raw":
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(worker.ident),
                                                       ctypes.py_object(KeyboardInterrupt))
        else:
            lifetime._stop(worker, KeyboardInterrupt())
        time.sleep(0.5)
        sys.stderr.flush()
        os._exit(0)
    """
    raw = subprocess.run([sys.executable, "-c", code, "raw"], capture_output=True, text=True,
                         timeout=60)
    assert "Exception ignored on calling ctypes callback" in raw.stderr   # the case is real
    quiet = subprocess.run([sys.executable, "-c", code, "stop"], capture_output=True,
                           text=True, timeout=60)
    assert (quiet.returncode, quiet.stderr) == (0, "")


@pytest.mark.parametrize("busy", [True, False])
def test_a_worker_told_its_main_process_died_removes_its_scratch_at_once(tmp_path, busy):
    # whatever it is doing then: the unwinding that follows removes it too, but a
    # clean clone's make test once found a directory left behind (its platform and
    # hostfile written, smpirun not yet started)
    scratch = tmp_path / "collsim-scratch"
    scratch.mkdir()
    (scratch / "hostfile").write_text("host\n")
    code = (
        "import os, signal\n"
        "from collsim import lifetime\n"
        f"lifetime.scratch_dirs.add({str(scratch)!r})\n"
        f"lifetime._busy = {busy}\n"
        "try:\n"
        "    lifetime._on_parent_death(signal.SIGTERM, None)\n"
        "except lifetime.ParentDied:\n"
        f"    print('unwinding', os.path.exists({str(scratch)!r}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert not scratch.exists()
    if busy:
        assert (done.returncode, done.stdout) == (0, "unwinding False\n")
    else:
        assert done.returncode == 128 + signal.SIGTERM and done.stdout == ""


def test_a_worker_is_given_its_temporary_directory_and_writes_no_probe(tmp_path, monkeypatch):
    """Python finds the temporary directory by writing and removing a file in it; a
    worker told its main process died between the two would leave the file behind, so
    the pool's workers are given the main process's directory instead.  (A spawned
    worker inherits nothing: given no directory, it would look in $TMPDIR.)"""
    given, environment = tmp_path / "given", tmp_path / "environment"
    given.mkdir()
    environment.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(given))
    monkeypatch.setenv("TMPDIR", str(environment))
    with concurrent.futures.ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"),
            **pool_options()) as pool:
        assert pool.submit(tempfile.gettempdir).result() == str(given)
