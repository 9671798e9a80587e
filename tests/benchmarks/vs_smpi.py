"""Benchmark: collsim against plain smpirun on the same work (issue 14).

For each case, one after the other on an otherwise idle machine:
- plain smpirun: SMPI's own allreduce (``--cfg=smpi/allreduce:ALG``: ``lr`` is
  the ring, ``rdb`` recursive doubling) in a 30-line program
  (``vs_smpi_allreduce.c``), on SimGrid's native cluster of the same shape
  (``topology="FAT_TREE"`` / ``"DRAGONFLY"``, or a flat cluster for the
  crossbar), with the pure alpha-beta cfg of the ``hockney`` profile;
- ``collsim run`` of the matching registry algorithm on collsim's generated
  platform of that shape, checked, and ``--timing-only``.
It prints wall time and peak memory (the largest proportional set size of the
process tree, sampled) of each, collsim's ratio to plain smpirun, and the
simulated times (equal when the routes and the work are: collsim runs with
``--gamma 0``, as SMPI's own reductions cost no simulated time).  Not part of
``make test``: the figures depend on the machine.

    .venv/bin/python tests/benchmarks/vs_smpi.py [CASE ...]    # default: all cases
    .venv/bin/python tests/benchmarks/vs_smpi.py --list

Figures of 2026-11-26 (2 cores, SimGrid 3.32, machine otherwise idle unless
said), after smpirun started running with jemalloc (``collsim.harness.
engine_environment``; plain smpirun keeps glibc's allocator), the registry
listing was kept beside collbench, and the wait for smpirun stopped polling:

    fat_tree_256_ring_1MiB (four runs, 01:18, load 0.7-1.1)
                             smpirun lr               1.1-1.2 s  304 MB
                             collsim ring (checked)   2.9-3.0 s  597 MB   2.4-2.7x
                             collsim --timing-only    1.2-1.3 s   73 MB   0.95-1.08x
    (five more runs at 01:41, idle, after the routing rule was decided once
    per run and the process pool's modules were loaded only when used:
    smpirun lr 1.1-1.2 s, collsim --timing-only 1.1-1.2 s, 0.95-1.01x; with
    Python's bytecode cache allowed, which this machine's environment turns
    off (PYTHONDONTWRITEBYTECODE=1), 1.00-1.02x.)
    fat_tree_1024_ring_1MiB  smpirun lr                 37.5 s  1238 MB
                             collsim ring (checked)     33.8 s  2161 MB   0.90x
                             collsim --timing-only      23.3 s    92 MB   0.62x
    crossbar_16384_rdb_8B    smpirun rdb                18.6 s   343 MB
                             collsim run (checked)       8.8 s   472 MB   0.47x  1.37x
                             collsim --timing-only      10.5 s   477 MB   0.56x  1.39x
    (with COLLSIM_ALLOCATOR=system, the C library's allocator: 9.6 s / 443 MB
    and 10.6 s / 451 MB, 1.29x and 1.32x the memory: jemalloc costs 30 MB
    here.  --timing-only with vm.max_map_count raised to 262144.)

    ring allreduce of 1 MiB at 4096 ranks, ``collsim run --np 4096 --coll
    allreduce --alg ring --bytes 1MiB --gamma 0 --timing-only --platform
    fat_tree --levels 2 --down-ports 64,64 --up-ports 1,64`` (the FAT_TREE
    cluster), 01:01-01:10, load 2-2.8 for the first 5 minutes (another
    developer's tests), then idle: 9 min 6 s wall, 439 s user + 42 s system,
    simulated 32.938 ms.  The allocator is the difference: the same run with
    glibc's took 14 min 12 s (702 s CPU) on 2026-11-25, and a 1024-rank ring
    on the crossbar took 18.4-20.7 s of CPU with jemalloc against 27.5-30.7 s
    with glibc's (two runs each, 00:59, load 1.2-2; same simulated time to
    the bit).  On the crossbar (``--platform crossbar --nodes 4096``) the same
    ring did not finish in 600 s under load with glibc's allocator (13.1 of
    16.6 ms simulated; 00:35-00:45, a 4-minute study running beside it); with
    jemalloc, idle (01:49-01:57): 7 min 53 s wall, 432 s user + 41 s system,
    simulated 16.558 ms (--gamma 0).

Figures of 2026-11-25, evening (2 cores, SimGrid 3.32; two other developers
running simulations, load average 3-5, so wall times are pessimistic and the
CPU time is given where it matters):

    crossbar_16384_rdb_8B (``vs_smpi.py crossbar_16384_rdb_8B``, 23:08, load 4.1)
                             smpirun rdb             39.6 s    324 MB
                             collsim run (checked)   17.4 s    421 MB   0.44x  1.30x
                             collsim --timing-only   17.8 s    427 MB   0.45x  1.32x
    (again at 23:14, load 1.9-2.6: smpirun rdb 24.5 s / 329 MB, collsim run
    12.4 s / 428 MB (0.50x, 1.30x), --timing-only 14.4 s / 433 MB (0.59x,
    1.31x).  A series sampled every 0.05 s, 23:10-23:12, load 3.2-4:
    smpirun rdb 344 MB, collsim run 426 MB, 1.24x; again at 23:25-23:27,
    load 1.1-1.9: collsim run 443 MB in 10.1 s, smpirun rdb 354 MB in 24.8 s,
    1.25x.  Before this session's
    changes, same day, 22:11, load 1.5: smpirun rdb 16.1 s / 343 MB, collsim
    run 9.5 s / 574 MB (1.67x), --timing-only 10.7 s / 582 MB.)

    Where the 231 MB went (smaps of smpimain and of the Python parent at the
    peak, smpirun of each program directly on the same XML):
    - every rank's stack: 16 KB resident against plain smpirun's 8 KB, 131 MB
      in all.  SimGrid's frames above main take ~8.8 KB of each stack with one
      page untouched, so a rank stays on two pages only while collbench's
      frames stay under ~3.4 KB; main's frame was 6.7 KB (options, the check
      cache and error texts inlined into it), library_version's snprintf
      ~4 KB deep.  Now 8 KB (main.c: OWN_FRAME, the state on the heap).
    - argv: SMPI keeps a copy for every rank, ~100 bytes an argument; collsim
      passes 22 (36 MB).  Now in $COLLBENCH_ARGS, read once a rank.
    - the Python parent: 46-50 MB, of which networkx's import 22 MB, the
      16384-host graph 11 MB, map_ranks 3 MB; no numpy, pandas or
      matplotlib on the run path.  Left as is (collsim.grid and collsim.repro
      imported by the CLI cost 4 MB).
    - the rest of the heap: collbench's per-rank state, 2 KB a rank (31 MB).
    The result check is O(n) per rank and O(n p) on rank 0 only (the
    references; the other ranks' results read in place), with O(p) shared
    bookkeeping: no O(p^2) anywhere.

    ring allreduce of 1 MiB at 4096 ranks, ``collsim run --np 4096 --coll
    allreduce --alg ring --bytes 1MiB --timing-only`` (default gamma):
    crossbar_4096 (--platform crossbar --nodes 4096), 22:32-22:54, load 1.7-4.2:
                             22 min 12 s wall, 896 s CPU (67% of a core),
                             simulated 16.663 ms (the model's, exactly)
    fat_tree_4096 (--platform fat_tree --levels 2 --down-ports 64,64
    --up-ports 1,64), 22:51-23:12, load 2.6-4.8:
                             21 min 3 s wall, 742 s CPU (58% of a core),
                             simulated 33.043 ms (the model's, exactly)
    the same on this branch merged with main's fat-tree as SimGrid's own
    FAT_TREE cluster (7dbe57c), 23:23-23:37, load 1.5-3.7:
                             14 min 12 s wall, 702 s CPU (82% of a core),
                             the same time_s to the bit
    Over 10 minutes even idle (CPU times 11.7 to 15 min).  Where it goes (perf
    of smpimain during the crossbar run): libsimgrid 72% (context switches
    and simcalls 20%, LMM 10%, request matching), libc malloc/free 17%,
    libstdc++ 6%, collbench and the algorithm 0.5%.  The ring is 2(p-1)
    steps of p messages, 33.5 million at 4096 ranks, at 27 us of CPU each
    (15 us at 2048 ranks: the cost per message grows with the actors' cache
    footprint).  collsim is not the bottleneck: at 2048 ranks on the same
    crossbar, plain smpirun's own ring (lr) took 409 s wall / 180 s CPU and
    collsim --timing-only --gamma 0 189 s wall / 129 s CPU (0.72x), both
    simulating 8.36093 ms (22:56-23:06, load 3.5-4.8).  Measured but not
    adopted: GLIBC_TUNABLES=glibc.malloc.tcache_count=65535 took ~18% off the
    user time of a 1024-rank ring (4 runs each, 21.2 s against 26.0 s mean,
    load 3.2-4.2: noisy), but added 10 MB at 16384 ranks (rdb 8 B: 437
    against 427 MB, no faster there; 23:16, load 2.6).

Figures of 2026-11-25, afternoon (2 cores, SimGrid 3.32, machine otherwise idle):

    case                     run                      wall     peak
    fat_tree_256_ring_1MiB   smpirun lr               1.5 s    304 MB
                             collsim ring (checked)   4.4 s    600 MB
                             collsim --timing-only    1.9 s     79 MB
    fat_tree_1024_ring_1MiB  smpirun lr              36.0 s   1237 MB
                             collsim ring (checked)  45.4 s   2177 MB
                             collsim --timing-only   42.7 s    114 MB

    crossbar_16384_rdb_8B    smpirun rdb             17.8 s    343 MB
                             collsim run (checked)   10.7 s    577 MB
                             collsim --timing-only   13.2 s    585 MB
    (--timing-only at 16384 ranks needs vm.max_map_count raised, here to
    262144; collsim refuses it with that advice under the default 65530.)

The 1024-rank gap is the platform, not the harness: collbench's ring run by
plain smpirun on the same native FAT_TREE cluster (``--timing-only --gamma
0``) took 35.6 s, with the same simulated time.

Fat-tree platform (2026-11-25): a fat-tree of one-core nodes whose links are
all alike is now written as SimGrid's own FAT_TREE cluster of the switches its
routes use (``collsim.platforms.simgrid``), not a DijkstraCache zone; the
simulated times are the same to the bit.  ``.venv/bin/python
tests/benchmarks/vs_smpi.py fat_tree_256_ring_1MiB fat_tree_1024_ring_1MiB``
at 23:11 UTC, 2 cores, other developers' simulations running (load average
3.2 at the start, 2.4 at the end):

    case                     run                      wall     peak
    fat_tree_256_ring_1MiB   smpirun lr               1.3 s    290 MB
                             collsim ring (checked)   3.6 s    579 MB
                             collsim --timing-only    1.5 s     58 MB
    fat_tree_1024_ring_1MiB  smpirun lr              30.8 s   1223 MB
                             collsim ring (checked)  35.3 s   2143 MB
                             collsim --timing-only   20.9 s     97 MB

The same command again at 23:14 (load 1.9 to 2.5): 256 ranks 1.3, 3.3 and
1.5 s; 1024 ranks 30.9, 36.6 and 26.8 s (0.87x).  Before and after in one session, interleaved (``--timing-only``; CPU seconds
of the process tree, which the load disturbs less than wall time; load 3.4 to
4.1): 1024 ranks, smpirun lr 32.8 and 34.2, collsim on the Dijkstra zone 28.4
and 30.1, on the cluster 23.9 and 22.4; 256 ranks (5 runs each), 1.1-1.2,
1.3-1.4 and 1.3.  At 256 ranks collsim's remaining gap is its fixed cost
(Python start-up and imports, about 0.3 s), not the simulation.  The
smpirun side's cluster has all the spines (``1,16`` / ``1,32``) and SimGrid's
d-mod-k up-links; collsim's routes use one spine (``collsim.platforms.fat_tree``):
the same simulated time for this ring, not for patterns that load the spines
(recursive doubling, 256 ranks, 1 MiB: 5.73 ms against 0.695 ms).

Since then (commit "Merge fat-tree-dmodk") the cluster carries the real
up-ports and SimGrid routes it d-mod-k, as the smpirun side; the ring's
simulated time is unchanged.  The same command at 23:53 (load 0.8 to 2.0):
256 ranks 1.7, 4.7 and 1.3 s (0.74x); 1024 ranks 28.3, 30.4 and 25.1 s
(0.89x).  256 ranks three more times (load 2.1-2.2): smpirun 1.6, 1.9, 2.0 s,
--timing-only 1.7, 1.8, 1.3 s: even within the noise of a loaded machine.

Figures of 2026-11-23 (other work running, load 6-13, so wall times are
pessimistic; peak memory then still from the RSS):

    case                     run                      wall     peak
    dragonfly_256_ring_1MiB  smpirun lr               8.4 s    304 MB
                             collsim ring (checked)  12.8 s    563 MB
                             collsim --timing-only    9.1 s    (shared pages)
    crossbar_16384_rdb_8B    smpirun rdb             76.4 s    351 MB
                             collbench (checked)     14.8 s    498 MB
                             (collbench under smpirun directly: no Python)
    crossbar_65536_rdb_8B    collbench (checked)      127 s    2.2 GB

(The 16384- and 65536-rank figures: smpirun of the two programs directly,
the case's cfg; wall times include Python start-up, the registry listing and
the XML for collsim run, about 2 s.  The checked run pays for the inputs and
the O(p n) exact-sum reference.)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import tempfile
import time
from pathlib import Path

from collsim.harness import simgrid_tool, simgrid_version
from collsim.profiles import HARNESS_CFG, load_profile
from collsim.units import simgrid_bandwidth, simgrid_time

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
BANDWIDTH_BPS, LATENCY_S = 12.5e9, 1e-6   # the generators' defaults

# name: (np, bytes, SMPI's algorithm, collsim's algorithm, collsim platform options,
#        SimGrid cluster topology and parameters)
CASES = {
    "fat_tree_256_ring_1MiB": (256, 1 << 20, "lr", "ring",
                               ["--platform", "fat_tree", "--levels", "2",
                                "--down-ports", "16,16", "--up-ports", "1,16"],
                               ("FAT_TREE", "2;16,16;1,16;1,1")),
    "fat_tree_1024_ring_1MiB": (1024, 1 << 20, "lr", "ring",
                                ["--platform", "fat_tree", "--levels", "2",
                                 "--down-ports", "32,32", "--up-ports", "1,32"],
                                ("FAT_TREE", "2;32,32;1,32;1,1")),
    "dragonfly_256_ring_1MiB": (256, 1 << 20, "lr", "ring",
                                ["--platform", "dragonfly", "--dragonfly-groups", "4",
                                 "--chassis-per-group", "2", "--routers-per-chassis", "4",
                                 "--nodes-per-router", "8"],
                                ("DRAGONFLY", "4,1;2,1;4,1;8")),
    "dragonfly_1024_ring_1MiB": (1024, 1 << 20, "lr", "ring",
                                 ["--platform", "dragonfly", "--dragonfly-groups", "8",
                                  "--chassis-per-group", "2", "--routers-per-chassis", "8",
                                  "--nodes-per-router", "8"],
                                 ("DRAGONFLY", "8,1;2,1;8,1;8")),
    "crossbar_4096_ring_1MiB": (4096, 1 << 20, "lr", "ring",
                                ["--platform", "crossbar", "--nodes", "4096"], None),
    "fat_tree_4096_ring_1MiB": (4096, 1 << 20, "lr", "ring",
                                ["--platform", "fat_tree", "--levels", "2",
                                 "--down-ports", "64,64", "--up-ports", "1,64"],
                                ("FAT_TREE", "2;64,64;1,64;1,1")),
    # the SimGrid versions' table (issue 28): 4096 ranks at 24 messages per rank
    "fat_tree_4096_rdb_1MiB": (4096, 1 << 20, "rdb", "recursive_doubling",
                               ["--platform", "fat_tree", "--levels", "2",
                                "--down-ports", "64,64", "--up-ports", "1,64"],
                               ("FAT_TREE", "2;64,64;1,64;1,1")),
    "crossbar_16384_rdb_8B": (16384, 8, "rdb", "recursive_doubling",
                              ["--platform", "crossbar", "--nodes", "16384"], None),
    "crossbar_65536_rdb_8B": (65536, 8, "rdb", "recursive_doubling",
                              ["--platform", "crossbar", "--nodes", "65536"], None),
}


def _cluster_xml(np: int, topology) -> str:
    """SimGrid's own cluster: the generators' link defaults, one core per node."""
    attributes = (f'id="c" prefix="node-" suffix="" radical="0-{np - 1}" speed="1Gf" '
                  f'bw="{simgrid_bandwidth(BANDWIDTH_BPS)}" lat="{simgrid_time(LATENCY_S)}" '
                  'sharing_policy="SPLITDUPLEX"')
    if topology is not None:
        attributes += f' topology="{topology[0]}" topo_parameters="{topology[1]}"'
    return ("<?xml version='1.0'?>\n"
            '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
            '<platform version="4.1"><zone id="world" routing="Full">'
            f"<cluster {attributes}/></zone></platform>\n")


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def _pss_mb(pids: list[int]) -> float:
    """Proportional set size of these processes (a page shared n ways counts 1/n)."""
    total_kb = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total_kb += int(line.split()[1])
        except (OSError, ValueError):
            pass
    return total_kb / 1024


def _measure(argv: list[str], env=None) -> tuple[float, float, float, str]:
    """Wall time (s), CPU time of the process tree (user + system, s), peak
    memory of the process tree (MB), stdout.

    Memory is the largest proportional set size of the tree, sampled every
    0.05 s (plus the time a sample takes: ~0.08 s at 16384 ranks): the
    resident set size would count the pages of SMPI's shared malloc once per
    rank that maps them.  Both sides peak in the last second, just before
    SimGrid tears the ranks down at ~80 MB/s; sampling every 0.2 s missed up
    to 20 MB of plain smpirun's peak (324 instead of 344 MB, 2026-11-25).
    The CPU time is that of the process and the descendants it waited for
    (``wait4``'s resource usage): the steadier figure on a shared machine.
    """
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        process = subprocess.Popen(argv, stdout=out, stderr=err, text=True, env=env)
        peak_mb = 0.0
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                process.returncode = os.waitstatus_to_exitcode(status)
                break
            peak_mb = max(peak_mb, _pss_mb(_descendants(process.pid)))
            time.sleep(0.05)
        wall = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if process.returncode != 0:
        raise SystemExit(f"failed ({process.returncode}): {' '.join(argv)}\n{stderr[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime, peak_mb, stdout


RUNS = ("smpirun", "checked", "timing-only")


def run_case(name: str, workdir: Path, program: Path, runs=RUNS) -> None:
    np, n_bytes, smpi_alg, alg, platform_args, topology = CASES[name]
    platform = workdir / f"{name}.xml"
    platform.write_text(_cluster_xml(np, topology))
    hostfile = workdir / f"{name}.hosts"
    hostfile.write_text("".join(f"node-{i}\n" for i in range(np)))
    cfg = [f"--cfg={k}:{v}" for k, v in {**load_profile("hockney").cfg, **HARNESS_CFG}.items()]
    if np > 30000:
        cfg.append("--cfg=contexts/guard-size:0")
    stock = [simgrid_tool("smpirun"), "-np", str(np), "-platform", str(platform),
             "-hostfile", str(hostfile), *cfg, f"--cfg=smpi/allreduce:{smpi_alg}",
             "--log=root.thres:warning", str(program), str(n_bytes)]
    collsim = [str(REPO / ".venv" / "bin" / "collsim"), "run", "--np", str(np), "--coll",
               "allreduce", "--alg", alg, "--bytes", str(n_bytes), "--json",
               "--timeout-s", "3600", "--gamma", "0", *platform_args]
    results = []
    for run, label, argv in (("smpirun", "smpirun " + smpi_alg, stock),
                             ("checked", "collsim " + alg, collsim),
                             ("timing-only", "collsim --timing-only", collsim + ["--timing-only"])):
        if run not in runs:
            continue
        try:
            wall, cpu_s, peak_mb, stdout = _measure(argv)
        except SystemExit as failure:  # the other runs' figures are still printed
            print(f"{name:<28} {label:<24} failed: {str(failure).splitlines()[-1]}")
            continue
        simulated = next((line.split()[1] for line in stdout.splitlines()
                          if line.startswith("time_s")), None)
        if simulated is None:
            import json
            simulated = json.loads(stdout.splitlines()[-1])["time_s"]
        results.append((label, wall, cpu_s, peak_mb, float(simulated)))
    if not results:
        return
    # the ratios are to plain smpirun's figures, or to the first run made
    base_wall, base_cpu, base_mb = results[0][1:4]
    for label, wall, cpu_s, peak_mb, simulated in results:
        print(f"{name:<28} {label:<24} {wall:>9.1f} s {cpu_s:>9.1f} s {peak_mb:>9.0f} MB "
              f"{wall / base_wall:>6.2f}x {cpu_s / base_cpu:>6.2f}x {peak_mb / base_mb:>6.2f}x  "
              f"simulated {simulated!r} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    parser.add_argument("--list", action="store_true", help="list the cases")
    parser.add_argument("--runs", default=",".join(RUNS),
                        help=f"which runs of each case, comma-separated (default {','.join(RUNS)})")
    args = parser.parse_args()
    if args.list:
        print("\n".join(CASES))
        return
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        raise SystemExit(f"vs_smpi: unknown case {unknown[0]!r} (--list shows them)")
    runs = args.runs.split(",")
    if not runs or any(r not in RUNS for r in runs):
        raise SystemExit(f"vs_smpi: --runs takes some of {','.join(RUNS)}")
    with tempfile.TemporaryDirectory(prefix="vs-smpi-") as tmp:
        workdir = Path(tmp)
        program = workdir / "allreduce"
        # a program smpirun loads, so not with SMPI_PRETEND_CC (that builds a plain one)
        env = {k: v for k, v in os.environ.items() if k != "SMPI_PRETEND_CC"}
        subprocess.run([simgrid_tool("smpicc"), "-O2", "-o", str(program), str(HERE / "vs_smpi_allreduce.c")],
                       check=True, env=env)
        print(f"SimGrid {'.'.join(map(str, simgrid_version()))} ({simgrid_tool('smpirun')})")
        print(f"{'case':<28} {'run':<24} {'wall':>11} {'cpu':>11} {'peak':>12} {'wall/':>7} "
              f"{'cpu/':>7} {'mem/':>7}")
        for name in args.cases or list(CASES):
            run_case(name, workdir, program, runs)


if __name__ == "__main__":
    main()
