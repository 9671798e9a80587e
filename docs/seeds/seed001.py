"""Seed 001 (Rabenseifner 2004), Fig. 3: the fastest allreduce protocol over (processes, size) on a Cray T3E 900.

Regenerates ``docs/seeds/seed001.tsv`` and ``docs/seeds/seed001.png`` (115 s on
2 idle cores, 2026-11-26)::

    .venv/bin/python docs/seeds/seed001.py
    .venv/bin/python docs/seeds/seed001.py --quick --out DIR   # a tiny grid (the test's)

``MPI_Allreduce`` of doubles with ``MPI_SUM``, the candidates of Fig. 3: the
four new protocols (``recursive_doubling``, ``ring`` = pairwise + ring,
``rabenseifner`` = halving + doubling, ``binary_blocks``) and the vendor's /
the binary tree (``reduce_bcast``: binomial reduce + binomial bcast, seed 001
sec. 2.2-2.3).  Experiments:

``t3e``
    the catalog machine ``seed001_t3e900`` under its default profile
    (``hockney``), every process count and size of the page's grid, by
    simulation (``--timing-only``); the ring at p >= 256 from its model,
    which equals the simulation on this machine (checked: every simulated row
    of the grid, and the ring at 512 ranks in the page's check command).
``gamma_tenth``
    cause experiment: the same on a subset of process counts with the local
    reduction 10x cheaper (gamma = 0.5 ns/B, data in cache).
``exchange_costs_more``
    cause experiment: a bidirectional exchange (``MPI_Sendrecv``) costs 5 us
    more than a one-way message (SMPI's ``smpi/ois`` charged to the
    ``MPI_Isend`` inside ``MPI_Sendrecv``, never to a blocking ``MPI_Send``):
    the paper's f_alpha = alpha_uni / alpha = 0.5 (sec. 2.1), its simplex end.
``simplex``
    cause experiment, every p up to 128: the seed's simplex network (sec. 2.1:
    f_alpha = f_beta = 0.5), the low end of the range it gives: the PEs' links
    half duplex (a node's sending and receiving share its 300 MB/s, SimGrid's
    SHARED links: ``crossbar(half_duplex=True)``) and an exchange 5 us dearer
    than a one-way message, as in ``exchange_costs_more``.
``smpi_factors``
    cause experiment: the ring against binary blocks beyond 32 processes under
    SimGrid's ``smpi`` profile, whose latency factor (11.6x from 64 KiB, SMPI's
    rendezvous) is a per-message cost the ring pays 2 (p - 1) times.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import sys
from pathlib import Path

from collsim.analysis.models import predict
from collsim.platforms import map_ranks
from collsim.platforms.catalog import CATALOG, catalog_platform, catalog_profile
from collsim.platforms.crossbar import crossbar
from collsim.profiles import load_profile
from collsim.runner import RunSpec, model_parameters, run

HERE = Path(__file__).resolve().parent
MACHINE = "seed001_t3e900"
VENDOR = "reduce_bcast"
NEW = ("recursive_doubling", "ring", "rabenseifner", "binary_blocks")
ALGORITHMS = NEW + (VENDOR,)
LABEL = {"recursive_doubling": "recursive doubling", "ring": "pairwise + ring",
         "rabenseifner": "halving + doubling", "binary_blocks": "binary blocks",
         VENDOR: "vendor / binary tree (reduce_bcast)",
         "halving_doubling=binary_blocks": "halving + doubling = binary blocks (p = 2^k)",
         "recursive_doubling=reduce_bcast": "recursive doubling = binary tree (a tie)"}
KiB, MiB = 1024, 1024 * 1024
# Fig. 3's size ticks (8 B .. 8 MB) plus 16 KB and 64 KB, where the text puts boundaries
SIZES = (8, 32, 256, KiB, 8 * KiB, 16 * KiB, 32 * KiB, 64 * KiB, 256 * KiB, MiB, 8 * MiB)
NPS = (2, 3, 4, 5, 7, 8, 12, 13, 15, 16, 24, 31, 32, 33, 48, 63, 64, 96, 128, 256, 512)
RING_SIMULATED_UP_TO = 128   # the ring on 256 and 512 ranks costs minutes: its exact model
NPS_CAUSE = (4, 8, 13, 15, 24, 33, 64)
# the simplex map on every p whose ring is simulated: the ring's model leaves out the
# exchange's extra cost (smpi/ois on a rendezvous MPI_Isend), so no model rows there
NPS_SIMPLEX = tuple(p for p in NPS if p <= RING_SIMULATED_UP_TO)
NPS_RING_CAUSE, SIZES_RING_CAUSE = (33, 48, 63, 96), (64 * KiB, MiB, 8 * MiB)
EXCHANGE_EXTRA_S = 5e-6      # alpha (5 us): f_alpha = 0.5
TIE = 1e-9


def t3e(gamma_scale: float = 1.0, half_duplex: bool = False):
    """The catalog's T3E, or a variant of it: gamma scaled, links half duplex."""
    if gamma_scale == 1.0 and not half_duplex:
        return catalog_platform(MACHINE)
    params = dict(CATALOG[MACHINE]["params"])
    params["gamma_s_per_byte"] *= gamma_scale
    return crossbar(**params, half_duplex=half_duplex)


def times(G, profile, nps, sizes, label):
    """(np, bytes) -> {algorithm: (time_s, source, model_agrees)}."""
    out = {}
    for p in nps:
        for algorithm in ALGORITHMS:
            if algorithm == "ring" and p > RING_SIMULATED_UP_TO:
                net, _ = model_parameters(G, map_ranks(G, p, "block"), profile)
                for n in sizes:
                    t = predict("allreduce", "ring", p, n, net).time_s
                    out.setdefault((p, n), {})[algorithm] = (t, "model", True)
                continue
            spec = RunSpec("allreduce", algorithm, p, tuple(sizes), check=False,
                           timing_only=True)
            rows, status = run(spec, G, profile, platform=MACHINE)
            if status != 0:
                raise SystemExit(f"{label}: allreduce/{algorithm} failed on {p} ranks")
            for row in rows:
                out.setdefault((p, row["bytes"]), {})[algorithm] = (
                    row["time_s"], "simulated", bool(row["model_agrees"]))
        print(f"{label}: p = {p} done", flush=True)
    return out


def winner(cell, candidates=ALGORITHMS):
    """The fastest algorithm; halving+doubling and binary blocks merged when they tie, and
    recursive doubling and the tree."""
    ranked = sorted((cell[a][0], a) for a in candidates if a in cell)
    best_t, best = ranked[0]
    tied = {a for t, a in ranked if t <= best_t * (1 + TIE)}
    for pair in (("rabenseifner", "binary_blocks"), ("recursive_doubling", VENDOR)):
        if tied >= set(pair):
            return {"rabenseifner": "halving_doubling=binary_blocks",
                    "recursive_doubling": "recursive_doubling=reduce_bcast"}[pair[0]], best_t
    return best, best_t


def gain_over_vendor(cell):
    """Fig. 4's ratio: vendor's time over the best of the new protocols without recursive doubling."""
    best = min(cell[a][0] for a in ("ring", "rabenseifner", "binary_blocks"))
    return cell[VENDOR][0] / best


def delta_expo_max(p):
    """Seed 001 sec. 3: the largest exponent gap between successive binary blocks of p."""
    exponents = [k for k in range(p.bit_length() - 1, -1, -1) if p >> k & 1]
    return max((a - b for a, b in zip(exponents, exponents[1:])), default=0)


def paper_prefers_binary_blocks(p, n):
    """Seed 001 sec. 3's rule for the T3E: delta < lg(n)/2 - 2.5, n >= 16 KB, p > 32."""
    return p > 32 and n >= 16 * KiB and delta_expo_max(p) < math.log2(n) / 2 - 2.5


def paper_formula_s(algorithm, p, n, f=1.0):
    """Seed 001 sec. 2.3-2.7's time on the T3E's alpha, beta, gamma.

    ``f``: f_alpha = f_beta, 1 on the full-duplex catalog machine; 0.5 for the
    ``simplex`` experiment, whose exchange costs alpha = 2 x the one-way 5 us and
    beta = 2 / 300 MB/s.  No formula for binary blocks in the seed, and halving +
    doubling's at p != 2^k only for f = 1."""
    params = CATALOG[MACHINE]["params"]
    alpha_uni, beta_uni, gamma = 2 * params["latency_s"], 1 / params["bandwidth_Bps"], \
        params["gamma_s_per_byte"]
    alpha, beta = alpha_uni / f, beta_uni / f
    lg = p.bit_length() - 1          # floor(lg p): p' = 2^lg
    pow2 = p == 1 << lg
    if algorithm == VENDOR:          # sec. 2.3, lg p rounded up for p != 2^k
        return math.ceil(math.log2(p)) * (2 * alpha_uni + 2 * n * beta_uni + n * gamma)
    if algorithm == "recursive_doubling":   # sec. 2.4
        return lg * (alpha + n * beta + n * gamma) + (0 if pow2 else alpha_uni + n * beta_uni)
    if algorithm == "rabenseifner" and (pow2 or f == 1.0):   # sec. 2.5
        if pow2:
            return 2 * lg * alpha + 2 * n * beta + n * gamma - (2 * n * beta + n * gamma) / p
        return ((2 * lg + 3) * alpha + 4 * n * beta + 1.5 * n * gamma
                - (2 * n * beta + n * gamma) / (1 << lg))
    if algorithm == "ring":                  # sec. 2.7
        return 2 * (p - 1) * alpha + (2 * n * beta + n * gamma) * (1 - 1 / p)
    return None


def formula_check(cells, f=1.0, min_bytes=8 * KiB):
    """collsim's time over the seed's formula (f_alpha = f_beta = ``f``), per algorithm:
    (min, max) over p > 2, n >= ``min_bytes``."""
    out = {}
    for (p, n), cell in cells.items():
        if p <= 2 or n < min_bytes:
            continue
        for algorithm, (t, _, _) in cell.items():
            formula = paper_formula_s(algorithm, p, n, f)
            if formula:
                lo, hi = out.get(algorithm, (math.inf, 0.0))
                out[algorithm] = (min(lo, t / formula), max(hi, t / formula))
    return out


def write_tsv(path, experiments):
    with open(path, "w") as out:
        out.write("experiment\tnp\tbytes\talgorithm\ttime_s\tsource\tmodel_agrees\n")
        for name, cells in experiments.items():
            for (p, n), cell in sorted(cells.items()):
                for algorithm in ALGORITHMS:
                    t, source, agrees = cell[algorithm]
                    out.write(f"{name}\t{p}\t{n}\t{algorithm}\t{t:.9g}\t{source}\t"
                              f"{'yes' if agrees else 'no'}\n")


def fmt_size(n):
    return f"{n // MiB}M" if n >= MiB else f"{n // KiB}K" if n >= KiB else f"{n}B"


def print_map(name, cells):
    nps = sorted({p for p, _ in cells})
    sizes = sorted({n for _, n in cells})
    short = {"recursive_doubling": "RD", "ring": "ring", "rabenseifner": "H&D",
             "binary_blocks": "BB", VENDOR: "tree", "halving_doubling=binary_blocks": "H&D=BB",
             "recursive_doubling=reduce_bcast": "RD=tree"}
    print(f"\n{name}: fastest (RD recursive doubling, tree reduce_bcast, H&D halving+doubling, "
          "BB binary blocks; X=Y a tie)")
    print("   np " + "".join(f"{fmt_size(n):>8}" for n in sizes))
    for p in nps:
        print(f"{p:5} " + "".join(f"{short[winner(cells[p, n])[0]]:>8}" for n in sizes))


def claims(cells):
    """The page's table: each claim of seed 001 sec. 3 against the cells."""
    nps = sorted({p for p, _ in cells})
    sizes = sorted({n for _, n in cells})
    lines = []

    def share(pred, where):
        hits = [pred(p, n) for p, n in where]
        return f"{sum(hits)}/{len(hits)}"

    small = [(p, n) for p in nps for n in sizes if n <= 32]
    lines.append(("recursive doubling fastest for <= 32 B",
                  share(lambda p, n: winner(cells[p, n])[0] == "recursive_doubling", small)))
    mid = [(p, n) for p in nps for n in sizes if 32 < n <= KiB]
    lines.append(("vendor / binary tree fastest for 32 B < n <= 1 KB",
                  share(lambda p, n: winner(cells[p, n])[0] == VENDOR, mid)))
    lines.append(("... tied with recursive doubling (fastest, within 1e-9) for n <= 1 KB",
                  share(lambda p, n: winner(cells[p, n])[0] == "recursive_doubling=reduce_bcast",
                        small + mid)))
    latency = {"recursive_doubling", VENDOR, "recursive_doubling=reduce_bcast"}
    lines.append(("recursive doubling or the tree fastest up to 1 KB, a bandwidth protocol above",
                  share(lambda p, n: (winner(cells[p, n])[0] in latency) == (n <= KiB),
                        [(p, n) for p in nps for n in sizes])))
    ratios = [cells[p, n][VENDOR][0] / cells[p, n]["recursive_doubling"][0] for p, n in mid
              if p > 2]
    if ratios:
        lines.append(("... 'not a big difference to recursive doubling' (tree / RD, p > 2)",
                      f"{min(ratios):.2f}-{max(ratios):.2f}"))
    ring_p = sorted({p for p, n in cells if winner(cells[p, n])[0] == "ring"})
    lines.append(("ring fastest for some p < 32 at large sizes (p where it wins)",
                  ", ".join(map(str, ring_p)) or "none"))
    if 15 in nps:
        ring15 = [n for n in sizes if winner(cells[15, n])[0] == "ring"]
        lines.append(("15 processes: ring from 64 KB (sizes where it wins)",
                      ", ".join(fmt_size(n) for n in ring15) or "none"))
    big = [(p, n) for p in nps for n in sizes if p > 32 and n >= 16 * KiB]
    blocks = {"binary_blocks", "halving_doubling=binary_blocks"}
    lines.append(("binary blocks fastest for p > 32 from 16 KB",
                  share(lambda p, n: winner(cells[p, n])[0] in blocks, big)))
    rule = [(p, n) for p, n in big if p & (p - 1)]
    lines.append(("... sec. 3's rule (delta_expo,max < lg n / 2 - 2.5) right, p > 32 not 2^k",
                  share(lambda p, n: (winner(cells[p, n])[0] in blocks)
                        == paper_prefers_binary_blocks(p, n), rule)))
    if 33 in nps:
        hd33 = [n for n in sizes if winner(cells[33, n])[0] == "rabenseifner"]
        lines.append(("33 processes, < 32 KB: halving + doubling in a few cases (sizes)",
                      ", ".join(fmt_size(n) for n in hd33) or "none"))
    for lo, hi, text in ((8 * KiB, 64 * KiB, "8-64 KB: about 1.5x"),
                         (128 * KiB, 8 * MiB, "beyond 64 KB: 2x-5x")):
        g = [gain_over_vendor(cells[p, n]) for p in nps for n in sizes if lo <= n <= hi and p > 2]
        if g:
            g.sort()
            lines.append((f"gain over the vendor (Fig. 4, IBM SP), {text}",
                          f"{g[0]:.2f}-{g[-1]:.2f} (median {g[len(g) // 2]:.2f})"))
    return lines


def plot(path, experiments):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    order = ["recursive_doubling", VENDOR, "ring", "rabenseifner", "binary_blocks",
             "halving_doubling=binary_blocks", "recursive_doubling=reduce_bcast"]
    colours = ["tab:red", "tab:gray", "tab:green", "tab:orange", "tab:blue", "tab:cyan",
               "tab:purple"]
    panels = [(name, experiments[name])
              for name in ("t3e", "gamma_tenth", "exchange_costs_more", "simplex")
              if name in experiments]
    fig, grid_axes = plt.subplots(2, 3, figsize=(19, 11))
    axes = list(grid_axes.flat)[:len(panels)] + [grid_axes.flat[-1]]
    for unused in list(grid_axes.flat)[len(panels) + ("simplex" in experiments):-1]:
        unused.axis("off")
    titles = {"t3e": "fastest on seed001_t3e900 (collsim)",
              "gamma_tenth": "cause: gamma / 10",
              "exchange_costs_more": "cause: exchange costs 2x a one-way alpha",
              "simplex": "cause: simplex (f_alpha = f_beta = 0.5)"}
    for ax, (name, cells) in zip(axes, panels):
        nps = sorted({p for p, _ in cells})
        sizes = sorted({n for _, n in cells})
        grid = [[order.index(winner(cells[p, n])[0]) for n in sizes] for p in nps]
        ax.imshow(grid, cmap=ListedColormap(colours), vmin=-0.5, vmax=len(order) - 0.5,
                  aspect="auto", origin="lower")
        ax.set_xticks(range(len(sizes)), [fmt_size(n) for n in sizes], rotation=45)
        ax.set_yticks(range(len(nps)), [str(p) for p in nps])
        ax.set_xlabel("buffer size per process [bytes]")
        ax.set_ylabel("number of MPI processes")
        ax.set_title(titles.get(name, name), fontsize=10)
        # the paper's boundaries (sec. 3): 32 B, 1 KB, 16 KB and p = 32
        for edge in (32, KiB, 16 * KiB):
            if sizes[0] < edge < sizes[-1]:
                x = max(i for i, n in enumerate(sizes) if n <= edge) + 0.5
                ax.axvline(x, color="black", lw=1, ls="--")
        if nps[0] < 32 < nps[-1]:
            y = max(i for i, p in enumerate(nps) if p <= 32) + 0.5
            ax.axhline(y, color="black", lw=1, ls="--")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colours]
    fig.legend(handles, [LABEL[a] for a in order], loc="lower center", fontsize=8, ncol=3,
               title="fastest (dashed: the paper's boundaries 32 B, 1 KB, 16 KB, p = 32)",
               title_fontsize=8)
    gains = [(axes[-1], "t3e", "")]
    if "simplex" in experiments:     # the empty slot beside the maps
        gains.append((grid_axes.flat[len(panels)], "simplex", ", simplex"))
    for ax, name, note in gains:
        cells = experiments[name]
        nps = sorted({p for p, _ in cells if p > 2})
        sizes = sorted({n for _, n in cells})
        grid = [[gain_over_vendor(cells[p, n]) for n in sizes] for p in nps]
        image = ax.imshow(grid, cmap="viridis", aspect="auto", origin="lower", norm="log")
        for i, row in enumerate(grid):
            for j, g in enumerate(row):
                ax.text(j, i, f"{g:.1f}", ha="center", va="center", fontsize=6, color="white")
        ax.set_xticks(range(len(sizes)), [fmt_size(n) for n in sizes], rotation=45)
        ax.set_yticks(range(len(nps)), [str(p) for p in nps])
        ax.set_xlabel("buffer size per process [bytes]")
        ax.set_ylabel("number of MPI processes")
        ax.set_title(f"vendor time / best new protocol without RD (cf. Fig. 4){note}",
                     fontsize=10)
        fig.colorbar(image, ax=ax, label="gain over reduce_bcast (x)")
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="a tiny grid (p 3, 4; 8 B, 1 KiB, 64 KiB), no cause experiments")
    parser.add_argument("--out", type=Path, default=HERE,
                        help="directory for seed001.tsv and seed001.png (default: beside this script)")
    args = parser.parse_args(argv)
    profile = load_profile(catalog_profile(MACHINE))
    if args.quick:
        nps, sizes, cause_nps = (3, 4), (8, KiB, 64 * KiB), ()
    else:
        nps, sizes, cause_nps = NPS, SIZES, NPS_CAUSE
    experiments = {"t3e": times(t3e(), profile, nps, sizes, "t3e")}
    if cause_nps:
        experiments["gamma_tenth"] = times(t3e(0.1), profile, cause_nps, sizes, "gamma_tenth")
        # SMPI charges smpi/ois to every MPI_Isend (so to MPI_Sendrecv's) and smpi/os to eager
        # sends only, of which there are none under hockney: only exchanges pay it
        exchange = dataclasses.replace(profile, name="exchange_costs_more",
                                       send_overhead_s=EXCHANGE_EXTRA_S)
        experiments["exchange_costs_more"] = times(t3e(), exchange, cause_nps, sizes,
                                                   "exchange_costs_more")
        simplex = dataclasses.replace(exchange, name="simplex")
        experiments["simplex"] = times(t3e(half_duplex=True), simplex, NPS_SIMPLEX, sizes,
                                       "simplex")
        experiments["smpi_factors"] = times(t3e(), load_profile("smpi"), NPS_RING_CAUSE,
                                            SIZES_RING_CAUSE, "smpi_factors")
    args.out.mkdir(parents=True, exist_ok=True)
    write_tsv(args.out / "seed001.tsv", experiments)
    for name, cells in experiments.items():
        print_map(name, cells)
    not_exact = [(name, k, a) for name, cells in experiments.items() if name == "t3e"
                 for k, cell in cells.items() for a, (_, _, ok) in cell.items() if not ok]
    print(f"\nt3e: simulated rows off their model: {len(not_exact)}")
    print("t3e: collsim / seed 001's formula (sec. 2.3-2.7, f = 1), p > 2, n >= 8 KiB:")
    for algorithm, (lo, hi) in sorted(formula_check(experiments["t3e"]).items()):
        print(f"  {algorithm}: {lo:.4f}-{hi:.4f}")
    if "simplex" in experiments:
        print("simplex: collsim / seed 001's formula (f = 0.5), p > 2, every n:")
        for algorithm, (lo, hi) in sorted(formula_check(experiments["simplex"], 0.5, 0).items()):
            print(f"  {algorithm}: {lo:.4f}-{hi:.4f}")
    for name in experiments:
        print(f"\n{name}: claim | collsim")
        for claim, value in claims(experiments[name]):
            print(f"  {claim} | {value}")
    plot(args.out / "seed001.png", experiments)
    return 0


if __name__ == "__main__":
    sys.exit(main())
