"""smpirun runs with jemalloc preloaded (collsim.harness.engine_environment): the
environment's rule, that the dynamic linker does load it, and that the allocator decides
no simulated time."""

from __future__ import annotations

import subprocess

import pytest

from collsim import harness
from collsim.params import AlgorithmParams
from collsim.platforms import fat_tree
from collsim.profiles import load_profile
from collsim.runner import RunSpec, run


@pytest.fixture
def with_jemalloc(monkeypatch):
    monkeypatch.setattr(harness, "_jemalloc", lambda: "libjemalloc.so.2")


def test_jemalloc_leads_the_preload_list_once(with_jemalloc):
    env = harness.engine_environment({"LD_PRELOAD": "libother.so", "PATH": "/bin"})
    assert env["LD_PRELOAD"] == "libjemalloc.so.2 libother.so" and env["PATH"] == "/bin"
    assert harness.engine_environment(env)["LD_PRELOAD"] == env["LD_PRELOAD"]
    assert harness.engine_environment({})["LD_PRELOAD"] == "libjemalloc.so.2"


def test_system_allocator_on_request_or_without_jemalloc(with_jemalloc, monkeypatch):
    given = {"COLLSIM_ALLOCATOR": "system", "LD_PRELOAD": "libother.so"}
    assert harness.engine_environment(given) == given
    monkeypatch.setattr(harness, "_jemalloc", lambda: None)
    assert "LD_PRELOAD" not in harness.engine_environment({"PATH": "/bin"})


def test_a_bad_allocator_request_is_one_line_and_status_2(monkeypatch, capsys):
    from collsim.cli import main
    from collsim.errors import CollsimError

    with pytest.raises(CollsimError, match="must be jemalloc or system, got 'tcmalloc'"):
        harness.engine_environment({"COLLSIM_ALLOCATOR": "tcmalloc"})
    monkeypatch.setattr(harness, "_jemalloc", lambda: None)
    with pytest.raises(CollsimError, match="jemalloc is not installed"):
        harness.engine_environment({"COLLSIM_ALLOCATOR": "jemalloc"})
    monkeypatch.undo()
    monkeypatch.setenv("COLLSIM_ALLOCATOR", "tcmalloc")
    assert main(["run", "--np", "2", "--coll", "allreduce", "--alg", "ring", "--bytes", "8"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["collsim: error: COLLSIM_ALLOCATOR must be jemalloc or system, got 'tcmalloc'"]


def test_the_dynamic_linker_loads_jemalloc():
    """make installs libjemalloc2 (sim/install-system-deps.sh); a process started with
    the engine's environment has it mapped."""
    assert harness._jemalloc() is not None, "libjemalloc2 is not installed"
    maps = subprocess.run(["cat", "/proc/self/maps"], env=harness.engine_environment({}),
                          capture_output=True, text=True, check=True).stdout
    assert "libjemalloc" in maps


def test_the_allocator_decides_no_simulated_time(monkeypatch):
    """The same runs under jemalloc and under the C library's allocator: equal to the bit."""
    G = fat_tree(levels=2, down_ports=[4, 4], up_ports=[1, 4])
    profile = load_profile("seed000_mpich_qdr")  # overheads and an eager limit in play
    specs = [RunSpec("allreduce", algorithm, 13, (8, 200000), params=params)
             for algorithm, params in (("recursive_doubling", AlgorithmParams()),
                                       ("ring", AlgorithmParams()),
                                       ("node_aware", AlgorithmParams(node_size=4)))]

    def times():
        out = []
        for spec in specs:
            rows, _ = run(spec, G, profile, platform="fat-tree 4x4")
            assert {row["check"] for row in rows} == {"ok"}
            out += [(row["algorithm"], row["bytes"], row["time_s"]) for row in rows]
        return out

    with_it = times()
    monkeypatch.setenv("COLLSIM_ALLOCATOR", "system")
    assert times() == with_it
