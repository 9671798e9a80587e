"""The user's files: what collsim reads and how it writes.

Files read (TOML scenarios, suites, profiles, machine lists) go through
:func:`read_toml`; files written through :func:`check_output_path` first (so
that a path that cannot be written is one line before the simulations, not a
traceback after them) and then :func:`write_atomically` (a reader never sees a
partial file).  Every problem is a :class:`BadInput`: one line, exit status 2.
"""

from __future__ import annotations

import math
import os
import sys
import tempfile
from pathlib import Path

from collsim.errors import CollsimError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = ["BadInput", "read_toml", "check_output_path", "check_timeout", "write_atomically"]


class BadInput(CollsimError, ValueError):
    """A bad file or value: a CollsimError for the CLI, a ValueError for the
    library functions whose contract is ValueError (``load_profile``)."""


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
        If the file cannot be read (missing, a directory, no permission), is
        not UTF-8, is not TOML, or nests too deeply to parse.
    """
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8")
        return tomllib.loads(text), text
    except OSError as error:
        raise BadInput(f"cannot read {what} {path}: {error.strerror}") from None
    except UnicodeDecodeError as error:
        raise BadInput(f"{path}: not a UTF-8 text file (byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:
        raise BadInput(f"{path}: not valid TOML: {error}") from None
    except RecursionError:
        raise BadInput(f"{path}: not valid TOML: nested too deeply") from None


def check_output_path(path: str | os.PathLike, option: str) -> Path:
    """Check, before any work, that a file can be written at ``path``.

    The directory must exist and take a new file (tried with a temporary file,
    removed at once: root ignores permission bits, so they cannot be read off);
    ``path`` must not be a directory.

    Raises
    ------
    BadInput
        Naming the option and the reason.
    """
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if str(path).endswith(os.sep) or path.is_dir():
        raise BadInput(f"{option} {path}: is a directory, not a file")
    if not directory.exists():
        raise BadInput(f"{option} {path}: directory {directory} does not exist")
    if not directory.is_dir():
        raise BadInput(f"{option} {path}: {directory} is not a directory")
    try:
        fd, probe = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".probe")
    except OSError as error:
        raise BadInput(f"{option} {path}: cannot write in {directory}: "
                       f"{error.strerror}") from None
    os.close(fd)
    os.unlink(probe)
    return path


def check_timeout(value: float, option: str = "--timeout-s") -> float:
    """A wall-clock limit: a finite number of seconds > 0."""
    if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
        raise BadInput(f"{option} must be a finite number of seconds > 0, got {value!r}")
    return float(value)


def write_atomically(path: str | os.PathLike, data: bytes) -> Path:
    """Write data to path through a temporary file and a rename."""
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        # mkstemp creates 0600; give the file the permissions of an ordinary one
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path
