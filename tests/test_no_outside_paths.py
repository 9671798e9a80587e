"""The repository cites its seed papers by title and reference, never by a path outside
it: a user who clones it has no ``../shared`` (issue 30)."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# written in two pieces, so that this file does not hold what it looks for
OUTSIDE = ("../" + "shared", "/work/" + "shared")


def _tracked_files() -> list[Path]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode()
    return [ROOT / name for name in listed.split("\0") if name]


def test_no_tracked_file_names_a_path_outside_the_repository():
    offenders = []
    for path in _tracked_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary files (figures, databases)
        for number, line in enumerate(text.splitlines(), 1):
            if any(outside in line for outside in OUTSIDE):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []
