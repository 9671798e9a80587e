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
