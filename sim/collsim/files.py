"""The user's files: what collsim reads and how it writes.

One home for the rules of both:

* **Reading.**  Every file a command reads (TOML scenarios, suites, profiles,
  machine lists, platform XMLs, mapping and rules files, baselines) goes
  through :func:`read_input`: only a regular file is read (a FIFO, a device or
  a directory is refused at once, never waited on), up to
  :data:`MAX_INPUT_BYTES`, and its contents are never quoted in an error.
  :func:`read_toml` parses one.
* **Writing.**  Every file a command writes is checked by
  :func:`check_output_path` before any work (so a path that cannot be
  written is one line before the simulations, not a traceback after them),
  then written by :func:`write_output`: a regular file (or a new one)
  through a temporary file and a rename, so that a reader never sees a
  partial file; a character device or a FIFO (``/dev/null``, a pipe another
  program reads) directly, never renamed over; ``-`` to standard output where
  a command allows it.  A block device, a socket or a directory is refused.
* **One file, one role.**  Within a command (:func:`command_files`), an
  output that names a file the command reads, or another of its outputs, is
  refused: ``collsim report good.db -o good.db`` would destroy its input,
  ``-o p.xml --hostfile p.xml`` lose one output.  Two names of one file
  (a symbolic or hard link, ``./x`` and ``x``) are the same file.

Every problem is a :class:`BadInput`: one line, exit status 2.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import stat
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from collsim.errors import CollsimError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["BadInput", "MAX_INPUT_BYTES", "STDOUT", "read_input", "read_text",
           "read_toml", "check_input_path", "check_output_path",
           "command_files", "write_output", "write_atomically"]

# The largest input file collsim reads (a 10,000-host platform XML is about 5 MB).
MAX_INPUT_BYTES = 64 * 1024**2
# The name of standard output, where a command allows it.
STDOUT = "-"
# How long a write to a FIFO waits for a reader to open it.
_FIFO_READER_WAIT_S = 10.0


class BadInput(CollsimError, ValueError):
    """A bad file or value: a CollsimError for the CLI, a ValueError for the
    library functions whose contract is ValueError (``load_profile``)."""


# --- one file, one role ------------------------------------------------------------

@dataclass
class _Claims:
    """The files a command reads and writes: identity -> (role, label)."""

    files: dict = field(default_factory=dict)

    def claim(self, path: Path, role: str, label: str, rewrites: str | None = None) -> None:
        key, device = _identity(path)
        seen = self.files.get(key)
        if seen is not None and seen == ("input", rewrites):
            seen = None  # the file this output updates in place (a baseline)
        if seen is not None and not device and "output" in (role, seen[0]):
            if seen[0] == "output" and role == "output":
                raise BadInput(f"{label} {path} and {seen[1]} name the same file: "
                               "one output would replace the other")
            output_label, input_label = (label, seen[1]) if role == "output" else (seen[1], label)
            raise BadInput(f"{output_label} {path} names the file {input_label} reads: "
                           "writing it would destroy the input")
        if seen is None or role == "output":
            self.files[key] = (role, label)


_claims: contextvars.ContextVar[_Claims | None] = contextvars.ContextVar("collsim_files",
                                                                        default=None)


@contextlib.contextmanager
def command_files():
    """The scope of one command: within it, no output may name a file read or written.

    ``collsim.cli.main`` runs every command inside one; the Python API's calls
    check each output alone.
    """
    token = _claims.set(_Claims())
    try:
        yield
    finally:
        _claims.reset(token)


def _identity(path: Path) -> tuple[tuple, bool]:
    """(a key equal for two names of one file, whether it is a character device).

    An existing file is its device and inode (links and spellings agree); a
    file still to be made is its resolved absolute path.
    """
    try:
        st = os.stat(path)
    except OSError:
        return ("path", os.path.realpath(path)), False
    return ("inode", st.st_dev, st.st_ino), stat.S_ISCHR(st.st_mode)


def _claim(path: Path, role: str, label: str, rewrites: str | None = None) -> None:
    claims = _claims.get()
    if claims is not None:
        claims.claim(path, role, label, rewrites)


def check_input_path(path: str | os.PathLike, what: str) -> None:
    """Record that the command reads ``path`` (refused if it is one of its outputs)."""
    if str(path) not in ("", STDOUT):
        _claim(Path(path), "input", what)


# --- names ---------------------------------------------------------------------------

def _check_name(path: Path, label: str) -> None:
    """A name the filesystem can hold: no NUL, each component within NAME_MAX, the
    whole within PATH_MAX (otherwise every call on it fails with ENAMETOOLONG)."""
    text = os.fsencode(path)
    if b"\0" in text:
        raise BadInput(f"{label}: a file name cannot hold a NUL character")
    try:
        path_max = os.pathconf("/", "PC_PATH_MAX")
    except (OSError, ValueError):  # pragma: no cover - every POSIX system has it
        path_max = 4096
    if len(text) >= path_max:
        raise BadInput(f"{label}: file name of {len(text)} bytes is too long "
                       f"(the limit is {path_max - 1})")
    directory = path.parent if str(path.parent) else Path(".")
    try:
        name_max = os.pathconf(directory if directory.is_dir() else "/", "PC_NAME_MAX")
    except (OSError, ValueError):  # pragma: no cover
        name_max = 255
    for part in path.parts:
        if len(os.fsencode(part)) > name_max:
            shown = part if len(part) <= 40 else part[:37] + "..."
            raise BadInput(f"{label}: file name {shown!r} is {len(os.fsencode(part))} bytes "
                           f"long (the limit is {name_max})")


# --- reading -------------------------------------------------------------------------

def read_input(path: str | os.PathLike, what: str, *, limit_bytes: int = MAX_INPUT_BYTES) -> bytes:
    """Read a whole input file: only a regular file, up to ``limit_bytes``.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    what : str
        What it is, for the message ("scenario", "platform file").
    limit_bytes : int
        The largest file read.

    Raises
    ------
    BadInput
        If the file cannot be opened, is not a regular file (a FIFO, a
        device, a directory: refused without reading, so that nothing waits
        on it), is larger than ``limit_bytes``, or is one of the command's
        outputs.  The message never quotes the file's contents.
    """
    if str(path) == "":
        raise BadInput(f"{what}: empty file name")
    path = Path(path)
    _check_name(path, what)
    try:
        # O_NONBLOCK: opening a FIFO without a writer would otherwise wait for one
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as error:
        raise BadInput(f"cannot read {what} {path}: {error.strerror}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise BadInput(f"cannot read {what} {path}: is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise BadInput(f"{what} {path}: not a regular file ({_kind(st.st_mode)}); "
                           "collsim reads only regular files")
        if st.st_size > limit_bytes:
            raise BadInput(f"{what} {path}: {st.st_size} bytes, larger than the "
                           f"{limit_bytes // 1024**2} MiB collsim reads")
        _claim(path, "input", what)
        os.set_blocking(fd, True)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit_bytes + 1)
    except OSError as error:
        raise BadInput(f"cannot read {what} {path}: {error.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > limit_bytes:  # grew while read
        raise BadInput(f"{what} {path}: larger than the {limit_bytes // 1024**2} MiB collsim reads")
    return data


def read_text(path: str | os.PathLike, what: str, *, limit_bytes: int = MAX_INPUT_BYTES) -> str:
    """Read an input file (:func:`read_input`) as UTF-8 text.

    Raises
    ------
    BadInput
        As :func:`read_input`, or when it is not UTF-8 (naming the byte
        offset, never the text).
    """
    data = read_input(path, what, limit_bytes=limit_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadInput(f"{path}: not a UTF-8 text file (byte {error.start})") from None


def read_toml(path: str | os.PathLike, what: str) -> tuple[dict, str]:
    """Read a TOML file: its table and its text.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    what : str
        What it is, for the message ("scenario", "suite", "profile").

    Raises
    ------
    BadInput
        If the file cannot be read (missing, a directory, no permission, not
        a regular file, too large), is not UTF-8, is not TOML, or nests too
        deeply to parse.
    """
    text = read_text(path, what)
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as error:
        raise BadInput(f"{path}: not valid TOML: {error}") from None
    except RecursionError:
        raise BadInput(f"{path}: not valid TOML: nested too deeply") from None


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a regular file"


# --- writing -------------------------------------------------------------------------

def _target(path: Path, context: str) -> tuple[Path, os.stat_result | None]:
    """The file an output path names (a symbolic link: the file it points at, which
    is what gets written) and its status, None when it does not exist yet."""
    target = Path(os.path.realpath(path))
    try:
        return target, os.stat(target)
    except FileNotFoundError:
        return target, None
    except OSError as error:
        raise BadInput(f"{context}: {error.strerror}") from None


def check_output_path(path: str | os.PathLike, option: str, *, stdout_ok: bool = False,
                      rewrites: str | None = None) -> Path:
    """Check, before any work, that ``path`` can take the command's output.

    A regular file (or a new one) needs a directory that exists and takes a
    new file (tried with a temporary file, removed at once: root ignores
    permission bits, so they cannot be read off); a character device or a
    FIFO is written directly later; a block device, a socket, a directory, an
    empty name or one too long for the filesystem is refused, and so is a
    file the command also reads or writes under another option.

    Parameters
    ----------
    path : str or os.PathLike
        The output; ``-`` is standard output where ``stdout_ok`` and refused
        elsewhere (a file named ``-`` is ``./-``).
    option : str
        The option that named it, for the message ("-o", "--csv").
    stdout_ok : bool
        Whether ``-`` means standard output for this option.
    rewrites : str, optional
        The input (as :func:`read_input` named it, "baseline") that this
        output rewrites in place: the one file it may equal.

    Raises
    ------
    BadInput
        Naming the option and the reason.
    """
    if str(path) == "":
        raise BadInput(f"{option}: empty file name (give a file, or leave {option} out)")
    if str(path) == STDOUT:
        if not stdout_ok:
            raise BadInput(f"{option} -: this output cannot go to standard output (a file "
                           "named '-' is ./-)")
        claims = _claims.get()
        if claims is not None:
            if ("stdout",) in claims.files:
                raise BadInput(f"{option} -: standard output already takes "
                               f"{claims.files[('stdout',)][1]}'s output")
            claims.files[("stdout",)] = ("output", option)
        return Path(STDOUT)
    path = Path(path)
    _check_name(path, option)
    if str(path).endswith(os.sep):
        raise BadInput(f"{option} {path}: is a directory, not a file")
    target, st = _target(path, f"{option} {path}")
    if st is not None and not stat.S_ISREG(st.st_mode):
        if stat.S_ISDIR(st.st_mode):
            raise BadInput(f"{option} {path}: is a directory, not a file")
        if not (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            raise BadInput(f"{option} {path}: is {_kind(st.st_mode)}; collsim writes regular "
                           "files, character devices and FIFOs only")
        _claim(path, "output", option, rewrites)
        return path
    directory = target.parent
    if not Path(path.parent if str(path.parent) else ".").exists():
        raise BadInput(f"{option} {path}: directory {path.parent} does not exist")
    if not directory.is_dir():
        raise BadInput(f"{option} {path}: {path.parent} is not a directory")
    try:
        fd, probe = tempfile.mkstemp(dir=directory, prefix=".collsim-", suffix=".probe")
    except OSError as error:
        raise BadInput(f"{option} {path}: cannot write in {path.parent}: "
                       f"{error.strerror}") from None
    os.close(fd)
    os.unlink(probe)
    _claim(path, "output", option, rewrites)
    return path


def write_output(path: str | os.PathLike, data: bytes) -> Path:
    """Write a command's output to ``path`` (checked by :func:`check_output_path`).

    A regular file, or a new one, is written through a temporary file in its
    directory and a rename (a symbolic link keeps pointing at it: the file it
    names is replaced, keeping its permissions); a character device or a FIFO
    is opened and written directly (a FIFO waits up to 10 s for a reader);
    ``-`` goes to standard output.

    Raises
    ------
    BadInput
        When the write fails (a full disk, ``/dev/full``, a FIFO nobody reads):
        one line; a regular file is then left as it was.
    """
    if str(path) == STDOUT:
        sys.stdout.flush()
        if hasattr(sys.stdout, "buffer"):
            sys.stdout.buffer.write(data)
        else:  # a text stream without bytes beneath it (a notebook's, a test's capture)
            sys.stdout.write(data.decode("utf-8", errors="replace"))
        sys.stdout.flush()
        return Path(STDOUT)
    path = Path(path)
    target, st = _target(path, f"cannot write {path}")
    try:
        if st is not None and (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode)):
            _write_special(target, data, fifo=stat.S_ISFIFO(st.st_mode))
        elif st is not None and not stat.S_ISREG(st.st_mode):
            raise BadInput(f"cannot write {path}: is {_kind(st.st_mode)}")
        else:
            write_atomically(target, data, mode=None if st is None else stat.S_IMODE(st.st_mode))
    except OSError as error:
        raise BadInput(f"cannot write {path}: {error.strerror}") from None
    return path


def _write_special(target: Path, data: bytes, *, fifo: bool) -> None:
    """Write to a character device or a FIFO in place (never O_CREAT, never a rename)."""
    flags = os.O_WRONLY | os.O_CLOEXEC | os.O_NOCTTY
    deadline = time.monotonic() + _FIFO_READER_WAIT_S
    while True:
        try:
            fd = os.open(target, flags | (os.O_NONBLOCK if fifo else 0))
            break
        except OSError as error:
            if not (fifo and error.errno == errno.ENXIO):
                raise
            if time.monotonic() > deadline:
                raise BadInput(f"cannot write FIFO {target}: no process opened it for reading "
                               f"within {_FIFO_READER_WAIT_S:g} s") from None
            time.sleep(0.05)
    try:
        os.set_blocking(fd, True)
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    finally:
        os.close(fd)


def write_atomically(path: str | os.PathLike, data: bytes, *, mode: int | None = None) -> Path:
    """Write data to a regular file through a temporary file and a rename.

    For collsim's own files (the registry listing, a simulation's platform
    XML); a user's output goes through :func:`write_output`, which calls this
    for regular files.  ``mode``: the permissions to give (default: an
    ordinary new file's, 0666 less the umask).
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".collsim-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        if mode is None:  # mkstemp creates 0600; give the file an ordinary one's permissions
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path
