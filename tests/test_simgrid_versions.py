"""Which SimGrid runs collbench: the one that built it (issue 28).

`make SIMGRID=<version>` builds collbench with that SimGrid's smpicc; the build
records its bin folder beside collbench, and collsim then runs that smpirun and
compiles with that smpicc whatever PATH says (`harness.simgrid_tool`).
"""

import os
import stat

import collsim.harness as harness


def _fake_tool(folder, name):
    folder.mkdir(parents=True, exist_ok=True)
    tool = folder / name
    tool.write_text("#!/bin/sh\nexit 0\n")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    return tool


def _recording(monkeypatch, tmp_path, folder):
    recorded = tmp_path / "simgrid-bin"
    recorded.write_text(f"{folder}\n")
    find_c_part = harness.find_c_part
    monkeypatch.setattr(harness, "find_c_part", lambda name, **kwargs: (
        recorded if name == "simgrid-bin" else find_c_part(name, **kwargs)))


def test_the_build_records_the_simgrid_it_used():
    recorded = (harness.REPO_ROOT / "build" / "simgrid-bin").read_text().strip()
    assert os.path.realpath(harness.simgrid_tool("smpirun")) == os.path.realpath(
        os.path.join(recorded, "smpirun"))


def test_the_recorded_simgrid_wins_over_path(monkeypatch, tmp_path):
    chosen = _fake_tool(tmp_path / "simgrid-4.1" / "bin", "smpirun")
    _fake_tool(tmp_path / "elsewhere", "smpirun")
    monkeypatch.setenv("PATH", str(tmp_path / "elsewhere"))
    _recording(monkeypatch, tmp_path, chosen.parent)
    assert harness.simgrid_tool("smpirun") == str(chosen)
    assert harness.find_smpirun() == str(chosen)


def test_path_serves_when_the_recorded_simgrid_is_gone(monkeypatch, tmp_path):
    on_path = _fake_tool(tmp_path / "elsewhere", "smpicc")
    monkeypatch.setenv("PATH", str(tmp_path / "elsewhere"))
    _recording(monkeypatch, tmp_path, tmp_path / "removed" / "bin")
    assert harness.simgrid_tool("smpicc") == str(on_path)
    assert harness.simgrid_tool("smpif90") is None


def test_the_version_is_read_from_the_smpirun_that_runs(monkeypatch, tmp_path):
    smpirun = _fake_tool(tmp_path / "simgrid-4.1" / "bin", "smpirun")
    smpirun.write_text('#!/bin/sh\necho "SimGrid version 4.1"\n')
    _recording(monkeypatch, tmp_path, smpirun.parent)
    assert harness.simgrid_version() == (4, 1)


def test_a_smpirun_that_names_no_version_is_refused(monkeypatch, tmp_path):
    import pytest
    from collsim.errors import CollsimError

    smpirun = _fake_tool(tmp_path / "odd" / "bin", "smpirun")
    _recording(monkeypatch, tmp_path, smpirun.parent)
    with pytest.raises(CollsimError, match="does not name a SimGrid version"):
        harness.simgrid_version()


def test_a_constant_overhead_is_written_in_each_versions_form():
    """From 3.34, SimGrid's smpi/os applies a segment only above its threshold and
    0-byte messages take the option's default, which only a single number sets
    (FactorSet.cpp of 3.35, 4.0, 4.1): `0:o:0` would charge them nothing."""
    from collsim.profiles import load_profile, overhead_cfg_value

    assert overhead_cfg_value("0:1e-06:0", (3, 32)) == "0:1e-06:0"
    assert overhead_cfg_value("0:1e-06:0", (3, 34)) == "1e-06"
    assert overhead_cfg_value("0:1e-06:0", (4, 1)) == "1e-06"
    # a per-byte part or several segments cannot be one number: passed as written
    assert overhead_cfg_value("0:1e-06:1e-09", (4, 1)) == "0:1e-06:1e-09"
    assert overhead_cfg_value("0:1e-06:0;1024:2e-06:0", (4, 1)) == "0:1e-06:0;1024:2e-06:0"
    profile = load_profile("seed000_mpich_qdr")
    old, new = profile.smpirun_args((3, 32)), profile.smpirun_args((4, 0))
    assert "--cfg=smpi/os:0:1e-07:0" in old and "--cfg=smpi/os:1e-07" in new
    assert "--cfg=smpi/or:1e-07" in new and "--cfg=smpi/ois:1e-07" in new
    # what keys stored results does not depend on the version
    assert profile.all_cfg["smpi/os"] == "0:1e-07:0"
