"""Shared fixtures: the registry, and running collbench directly under smpirun."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess

import pytest

from collsim.platforms import crossbar, write_platform
from collsim.profiles import load_profile
from collsim.harness import REPO_ROOT, registry


def _toml(value) -> str:
    """A value as TOML: a string, a number, a list or an inline table."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{key} = {_toml(item)}" for key, item in value.items()) + " }"
    return repr(value)


def _scenario_toml(name: str, np: list[int], machines: dict[str, dict], workloads: list[dict],
                   **study) -> str:
    """The text of a scenario: its [study] (name, np and any other key), one [[machine]]
    per entry of ``machines`` (name -> its keys: platform, price) and one [[workload]]
    per table of ``workloads``."""
    lines = ["[study]", f"name = {_toml(name)}", f"np = {_toml(np)}"]
    lines += [f"{key} = {_toml(value)}" for key, value in study.items()]
    for machine, table in machines.items():
        lines += ["", "[[machine]]", f"name = {_toml(machine)}"]
        lines += [f"{key} = {_toml(value)}" for key, value in table.items()]
    for workload in workloads:
        lines += ["", "[[workload]]"] + [f"{key} = {_toml(value)}" for key, value in workload.items()]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="session")
def write_scenario():
    """``write_scenario(path, name, np, machines, workloads, **study)``: a scenario file
    (the study tests' shared shape: machines by name, workloads as tables); returns path."""

    def write(path, name, np, machines, workloads, **study):
        path.write_text(_scenario_toml(name, np, machines, workloads, **study))
        return path

    return write


@pytest.fixture(scope="session")
def entries() -> tuple[dict, ...]:
    """The registry as collbench prints it."""
    return registry()


@pytest.fixture(scope="session")
def hockney():
    return load_profile("hockney")


@pytest.fixture(scope="session")
def crossbar64():
    """A 64-node, one-core crossbar: every test rank count fits, one rank per node."""
    return crossbar(nodes=64)


# -- SimGrid's own routes, dumped by a small s4u program ----------------------

_ROUTES_CPP = r"""
#include <simgrid/s4u.hpp>
#include <cstdio>
int main(int argc, char** argv) {
  simgrid::s4u::Engine e(&argc, argv);
  e.load_platform(argv[1]);
  e.seal_platform();  // a Dijkstra zone builds its graph when sealed
  for (auto* a : e.get_all_hosts())
    for (auto* b : e.get_all_hosts()) {
      if (a == b) continue;
      std::vector<simgrid::s4u::Link*> links;
      double latency = 0;
      a->route_to(b, links, &latency);
      std::printf("%s %s", a->get_cname(), b->get_cname());
      for (auto* link : links) std::printf(" %s", link->get_cname());
      std::printf("\n");
    }
}
"""


@pytest.fixture(scope="session")
def route_dump(tmp_path_factory):
    """``route_dump(G)``: the lines ``source target link...`` SimGrid prints for ``G``
    (every host pair, through ``route_to``; the fat-tree and dual-rail route tests)."""
    compiler = shutil.which("g++") or shutil.which("c++")
    if compiler is None:
        pytest.skip("no C++ compiler to build the route dump")
    folder = tmp_path_factory.mktemp("routes")
    (folder / "routes.cpp").write_text(_ROUTES_CPP)
    subprocess.run([compiler, "-std=c++17", "routes.cpp", "-o", "routes", "-lsimgrid"],
                   cwd=folder, check=True, capture_output=True)

    def dump(G):
        write_platform(G, folder / "platform.xml")
        out = subprocess.run([str(folder / "routes"), str(folder / "platform.xml")],
                             check=True, capture_output=True, text=True).stdout
        return [line.split() for line in out.splitlines()]

    return dump


def _build(build, configure_from=None):
    """Build collbench in `build` with smpicc, configured from `configure_from` first if given."""
    env = {key: value for key, value in os.environ.items() if key != "SMPI_PRETEND_CC"}
    if configure_from is not None:
        # configure-time checks need smpicc to pretend to be a plain compiler; the build must not
        subprocess.run(["cmake", "-S", configure_from, "-B", build, "-DCMAKE_C_COMPILER=smpicc"],
                       check=True, env={**env, "SMPI_PRETEND_CC": "1"}, capture_output=True)
    subprocess.run(["cmake", "--build", build], check=True, env=env, capture_output=True)


@pytest.fixture(scope="session")
def _fault_tree(tmp_path_factory):
    """A copy of the sources and its build, made once per test process: each planted
    fault then recompiles only its file (and the file the last fault restored)."""
    root = tmp_path_factory.mktemp("fault_tree")
    source, build = root / "src", root / "build"
    for part in ("algorithms", "sim/collbench", "sim/interpose"):
        shutil.copytree(REPO_ROOT / part, source / part)
    shutil.copy(REPO_ROOT / "CMakeLists.txt", source / "CMakeLists.txt")
    _build(build, configure_from=source)
    return source, build


def _build_with_fault(tree, tmp_path, relative_path, old, new):
    """Build collbench with `old` replaced by `new` once in `relative_path`; the program
    is copied to `tmp_path` and the shared copy of the sources is restored."""
    source, build = tree
    target = source / relative_path
    text = target.read_text()
    assert text.count(old) == 1, f"fault anchor not found once in {relative_path}"
    try:
        target.write_text(text.replace(old, new))
        _build(build)
        program = tmp_path / "collbench"
        shutil.copy2(build / "collbench", program)
    finally:
        target.write_text(text)
    return program


@pytest.fixture
def build_with_fault(_fault_tree):
    """Builds a collbench with one planted fault; returns the program's path."""
    return functools.partial(_build_with_fault, _fault_tree)


def pytest_terminal_summary(terminalreporter):
    """Print the model-agreement table collected by tests/test_model_agreement.py
    (works under pytest-xdist: user_properties travel with the reports)."""
    rows = []
    for report in terminalreporter.stats.get("passed", []) + terminalreporter.stats.get("failed", []):
        if getattr(report, "when", "call") != "call":
            continue
        for key, value in getattr(report, "user_properties", ()):
            if key == "agreement_rows":
                rows.extend(value)
    if not rows:
        return
    rows.sort(key=lambda r: (r["collective"], r["algorithm"], r["np"], r["bytes"],
                             r["params"].get("block_count", 0), r["params"].get("segment_bytes", 0)))
    write = terminalreporter.write_line
    write("")
    write("model agreement on the crossbar under hockney (simulated / model):")
    write(f"{'collective':<10} {'algorithm':<22} {'params':<16} {'np':>3} {'bytes':>9} "
          f"{'simulated_s':>13} {'model_s':>13} {'ratio':>10} {'class':<6} agrees")
    for r in rows:
        params = r["params"]
        plan = (f"blocks={params['block_count']}" if params.get("block_count") else
                f"seg={params['segment_bytes']}B" if params.get("segment_bytes") else "-")
        ratio = f"{r['ratio']:.7f}" if r.get("ratio") is not None else "-"
        write(f"{r['collective']:<10} {r['algorithm']:<22} {plan:<16} {r['np']:>3} {r['bytes']:>9} "
              f"{r['time_s']:>13.6e} {r['model_s']:>13.6e} {ratio:>10} {r['model_class']:<6} "
              f"{'yes' if r['model_agrees'] else 'NO'}")
    agreeing = sum(1 for r in rows if r["model_agrees"])
    write(f"{agreeing} of {len(rows)} cells agree with their model")


def pytest_sessionfinish(session, exitstatus):
    """The suite fails if anything replaced the machine's /dev/null with a regular file
    (what writing an output by rename did to device nodes, issue 27): every later
    command on the machine would write into that file."""
    import stat

    if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
        session.exitstatus = 1
        print("\nconftest: /dev/null is no longer a character device: a test or the code it "
              "ran replaced it (restore: rm /dev/null && mknod -m 666 /dev/null c 1 3)")
