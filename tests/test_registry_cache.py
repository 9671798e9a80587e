"""The registry listing kept beside collbench (harness.registry): read while it belongs to
the installed collbench, listed again otherwise."""

from __future__ import annotations

import hashlib
import json
import shutil

import pytest

from collsim import harness


@pytest.fixture
def own_collbench(tmp_path, monkeypatch):
    """A copy of collbench in a directory of its own, the registry's memo cleared around."""
    copy = tmp_path / "collbench"
    shutil.copy2(harness.find_collbench(), copy)
    monkeypatch.setenv("COLLSIM_COLLBENCH", str(copy))
    harness.registry.cache_clear()
    yield copy
    harness.registry.cache_clear()


def test_the_listing_is_kept_with_its_collbench_digest(own_collbench):
    rows = harness.registry()
    kept = json.loads((own_collbench.parent / "collbench.registry.json").read_text())
    assert kept["collbench_sha256"] == hashlib.sha256(own_collbench.read_bytes()).hexdigest()
    assert tuple(r for r in kept["rows"] if "collective" in r) == rows
    assert any(r.get("algorithm") == "ring" for r in rows)
    # the datatypes, ops and distributions, and the parameters, are kept on the same listing
    assert sum("ops" in r for r in kept["rows"]) == 1
    assert {"parameters": list(harness.parameter_table())} in kept["rows"]


def test_a_kept_listing_is_read_only_for_the_same_collbench(own_collbench):
    harness.registry()
    kept_path = own_collbench.parent / "collbench.registry.json"
    kept = json.loads(kept_path.read_text())
    marker = {"collective": "allreduce", "algorithm": "kept-copy-marker"}
    kept_path.write_text(json.dumps({**kept, "rows": [marker]}))
    harness.registry.cache_clear()
    assert harness.registry() == (marker,)  # read, not listed again
    kept_path.write_text(json.dumps({"collbench_sha256": "0" * 64, "rows": [marker]}))
    harness.registry.cache_clear()
    rows = harness.registry()  # another collbench's: listed again and rewritten
    assert marker not in rows and any(r.get("algorithm") == "ring" for r in rows)
    kept_path.write_text("{not json")
    harness.registry.cache_clear()
    assert harness.registry() == rows


def test_a_build_directory_that_cannot_be_written_keeps_no_copy(own_collbench, monkeypatch):
    def refuse(path, data):
        raise PermissionError(f"{path}: read-only")

    monkeypatch.setattr(harness, "write_atomically", refuse)
    assert any(r.get("algorithm") == "ring" for r in harness.registry())
    assert not (own_collbench.parent / "collbench.registry.json").exists()
