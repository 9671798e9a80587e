"""Benchmark: a 4096-node fat-tree and a 4096-node dragonfly, generated, written, loaded.

For each: time to build the graph, to write the SimGrid XML, and for SimGrid to
load it and run a ping-pong between the first and the last node (smpirun
wall-clock time, which includes parsing the platform and computing the one
route used); then the graph's prediction of that ping-pong is compared with
the simulated time.  The issue asks for under 10 s each.  Not part of
`make test`.

    .venv/bin/python tests/benchmarks/platform_scale.py
"""

import tempfile
import time
from pathlib import Path

from collsim.platforms import dragonfly, fat_tree, pair_parameters, write_platform
from collsim.profiles import load_profile
from collsim.harness import simulate

PLATFORMS = {
    "fat_tree 3 levels 16x16x16 (up 1,16,16)": lambda: fat_tree(
        levels=3, down_ports=[16, 16, 16], up_ports=[1, 16, 16]),
    "dragonfly 16 groups x 16 routers x 16 nodes": lambda: dragonfly(
        groups=16, chassis_per_group=1, routers_per_chassis=16, nodes_per_router=16),
}


def main() -> None:
    profile = load_profile("hockney")
    print(f"{'platform':<46} {'hosts':>6} {'links':>6} {'build':>7} {'write':>7} "
          f"{'XML':>8} {'load+run':>9} {'ratio':>12}")
    for name, make in PLATFORMS.items():
        t0 = time.perf_counter()
        G = make()
        t1 = time.perf_counter()
        with tempfile.TemporaryDirectory() as tmp:
            path = write_platform(G, Path(tmp) / "p.xml")
            t2 = time.perf_counter()
            size = path.stat().st_size
        hosts = [n for n, k in G.nodes(data="kind") if k == "host"]
        source, target = hosts[0], hosts[-1]
        t3 = time.perf_counter()
        rows, _ = simulate(G, [source, target], profile,
                           ["--pingpong", "--bytes", "1048576", "--peer", "1"], what="ping-pong")
        t4 = time.perf_counter()
        pair = pair_parameters(G, source, target)
        predicted = pair.alpha_s + (1048576 + profile.envelope_bytes) * pair.beta_s_per_byte
        print(f"{name:<46} {len(hosts):>6} {G.number_of_edges():>6} {t1 - t0:>6.2f}s "
              f"{t2 - t1:>6.2f}s {size / 1e6:>6.1f}MB {t4 - t3:>8.2f}s "
              f"{rows[0]['time_s'] / predicted:>12.9f}")


if __name__ == "__main__":
    main()
