"""``collsim report``: one self-contained HTML page from a results database.

Written for the people choosing a machine.  For each study of the database:
first a summary (which machine runs the weighted workload fastest, by how
much, and which leads by time x cost); then the ranking; then one plot per
question (per collective and process count: each machine's fastest time
against size); then, per machine, its platform parameters and price as
tables, a picture of its switches, and per collective and process count the
time of each algorithm against size beside the ratio simulated / model, the
measurements outside their model's class flagged, the fastest-algorithm map
and the reproducibility matrix (is the result bitwise equal to the
rank-order sum?).

The page is a Jinja2 template (``templates/report.html.j2``).  Every plot is
an inline SVG drawn by matplotlib (text kept as text), the style sheet is
inline, and a Content-Security-Policy forbids loading anything from
anywhere: the page needs no network and no other file.  The same database
gives the same bytes.
"""

from __future__ import annotations

import math
import sys
import re
from pathlib import Path

import jinja2
import networkx as nx
from markupsafe import Markup

from collsim.errors import CollsimError
from collsim.files import STDOUT, check_output_path, write_output
from collsim.platforms.draw import figure_bytes, switch_level, switch_level_layout
from collsim.scenario import PREDICTED_CLASS
from collsim.store import close_store, open_store, read_rows, read_study
from collsim.units import format_bytes, format_seconds

__all__ = ["workload_times", "fastest", "current_rows", "line_styles", "beyond_class",
           "predicted_and_simulated", "summary", "build_report", "main_report"]

_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
        "img-src data:")
# the model classes that promise something of the simulated time (approx does not)
CLAIMING_CLASSES = ("exact", "bound", "network")
FIGURE_HEIGHT_CAP_IN = 5.0  # no figure taller than this (480 px at 96 dpi)
_BAR_COLORS = ("#4c72b0", "#dd8452")  # workload time, time x cost
_MARKERS = "osD^vP*Xph<>"
_DASHES = ("-", "--", "-.", ":")

_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    undefined=jinja2.StrictUndefined)
_TEMPLATES.filters.update(seconds=format_seconds, size=format_bytes)


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "font.size": 9, "axes.grid": True,
                         "grid.alpha": 0.3})
    return plt


def _figure(kind: str, figure, caption: str) -> dict:
    """A figure for the template: its kind, its SVG (the figure is closed) and caption."""
    plt = _pyplot()
    width_in, height_in = figure.get_size_inches()
    figure.set_size_inches(width_in, min(height_in, FIGURE_HEIGHT_CAP_IN))
    text = figure_bytes(figure, "svg", bbox_inches="tight").decode()
    plt.close(figure)
    return {"kind": kind, "svg": Markup(text[text.index("<svg"):]), "caption": caption}


def line_styles(names: list[str]) -> dict[str, dict]:
    """A distinct colour for every name, with a marker and a dash that cycle on their own.

    Up to 10 names take tab10, up to 20 tab20 (the dark half first), more take
    evenly spaced hues; a marker and a dash pattern tell neighbours apart as well.

    Examples
    --------
    >>> styles = line_styles([f"a{i}" for i in range(14)])
    >>> len({s["color"] for s in styles.values()})
    14
    >>> [(styles[n]["marker"], styles[n]["linestyle"]) for n in ("a0", "a12")]
    [('o', '-'), ('o', '--')]
    """
    import matplotlib.colors

    plt = _pyplot()
    count = len(names)
    if count <= 10:
        colors = [plt.get_cmap("tab10")(i) for i in range(count)]
    elif count <= 20:
        tab20 = plt.get_cmap("tab20")
        colors = [tab20(2 * i) for i in range(10)] + [tab20(2 * i + 1) for i in range(count - 10)]
    else:
        colors = [plt.get_cmap("hsv")(i / count) for i in range(count)]
    return {name: {"color": matplotlib.colors.to_hex(color),
                   "marker": _MARKERS[i % len(_MARKERS)],
                   "linestyle": _DASHES[(i // len(_MARKERS)) % len(_DASHES)]}
            for i, (name, color) in enumerate(zip(names, colors))}


def fastest(rows: list[dict]) -> dict[tuple, dict]:
    """The fastest row of each cell (machine, collective, np, mapping, bytes).

    Examples
    --------
    >>> rows = [dict(machine="m", collective="c", np=2, mapping="block", bytes=8,
    ...              algorithm=a, time_s=t) for a, t in (("x", 2.0), ("y", 1.0))]
    >>> fastest(rows)[("m", "c", 2, "block", 8)]["algorithm"]
    'y'
    """
    best: dict[tuple, dict] = {}
    for row in rows:
        cell = (row["machine"], row["collective"], row["np"], row["mapping"], row["bytes"])
        if cell not in best or (row["time_s"], row["algorithm"]) < (
                best[cell]["time_s"], best[cell]["algorithm"]):
            best[cell] = row
    return best


def workload_times(study: dict, rows: list[dict]) -> dict[tuple[str, int, str], float | None]:
    """Weighted workload time of each (machine, np, mapping), seconds.

    The time of one collective call is the mean over the workload's sizes,
    weighted by ``size_weights``, of the fastest stored algorithm at that size
    (what a tuned MPI would pick); the workload time is the mean over the
    collectives weighted by ``weight`` (weights are normalized).  None when a
    cell has no measurement (a failed or unfinished simulation).
    """
    best = fastest(rows)
    total_weight = sum(w["weight"] for w in study["workloads"])
    cells = {(r["machine"], r["np"], r["mapping"]) for r in rows}
    times: dict[tuple[str, int, str], float | None] = {}
    for machine in (m["name"] for m in study["machines"]):
        for np, mapping in sorted({(n, mp) for (m, n, mp) in cells}):
            total = 0.0
            for workload in study["workloads"]:
                size_total = sum(workload["size_weights"])
                for n_bytes, size_weight in zip(workload["sizes_bytes"],
                                                workload["size_weights"]):
                    row = best.get((machine, workload["collective"], np, mapping, n_bytes))
                    if row is None:
                        total = math.nan
                        break
                    total += (workload["weight"] / total_weight) * (size_weight / size_total) \
                        * row["time_s"]
            times[(machine, np, mapping)] = None if math.isnan(total) else total
    return times


def beyond_class(row: dict) -> bool:
    """True when a measurement lies outside what its model's class promises.

    An ``exact`` or ``bound`` model promises the simulated time within its
    interval, a ``network`` model within its measured error
    (``collsim.network_model.NETWORK_REL_TOL``): ``model_agrees``, 0 or 1 as
    the database stores it; an ``approx`` model promises nothing, so its rows
    are never beyond their class.

    Examples
    --------
    >>> beyond_class({"model_class": "exact", "model_agrees": 0})
    True
    >>> beyond_class({"model_class": "network", "model_agrees": 0})
    True
    >>> beyond_class({"model_class": "approx", "model_agrees": None})
    False
    """
    return (row["model_class"] in CLAIMING_CLASSES and row["model_agrees"] is not None
            and not row["model_agrees"])


def _rankings(study: dict, rows: list[dict]) -> list[dict]:
    """Per (np, mapping): the machines by weighted time, with their time x cost."""
    times = workload_times(study, rows)
    costs = {m["name"]: m["cost"] for m in study["machines"]}
    priced = all(cost is not None for cost in costs.values())
    rankings = []
    for np, mapping in sorted({(np, mapping) for (_, np, mapping) in times}):
        entries = [(name, times[(name, np, mapping)]) for name in costs
                   if (name, np, mapping) in times]
        ranked = sorted(entries, key=lambda e: (e[1] is None, e[1] or 0.0, e[0]))
        done = [(name, t) for name, t in ranked if t is not None]
        # (machine, time x cost), lowest first
        by_product = sorted(((name, t * costs[name] if priced else 0.0) for name, t in done),
                            key=lambda e: (e[1], e[0]))
        product_rank = {name: i + 1 for i, (name, _) in enumerate(by_product)}
        rankings.append({
            "np": np, "mapping": mapping, "priced": priced,
            "predicted": (np, mapping) in _predicted_groups(rows),
            "done": done, "by_product": by_product if priced else [],
            "incomplete": [name for name, t in ranked if t is None],
            "rows": [{"rank": i + 1 if t is not None else None, "machine": name, "time_s": t,
                      "cost": costs[name],
                      "product": t * costs[name] if priced and t is not None else None,
                      "product_rank": product_rank.get(name) if priced else None}
                     for i, (name, t) in enumerate(ranked)]})
    return rankings


def _predicted_groups(rows: list[dict]) -> set[tuple[int, str]]:
    """The (np, mapping) whose rows the network model predicted (a study's process
    counts above ``predict_above_np``)."""
    return {(r["np"], r["mapping"]) for r in rows if r.get("model_class") == PREDICTED_CLASS}


def predicted_and_simulated(study: dict, rows: list[dict]) -> list[dict]:
    """Per machine: its simulated and predicted cells apart, and the network model's
    error where both exist (the simulated cells of class ``network``, whose model is
    the one that predicts the others, and of class ``exact``, where it equals the
    flat model).

    Examples
    --------
    >>> rows = [dict(machine="m", model_class=c, np=n, ratio=r) for c, n, r in
    ...         (("network", 8, 1.02), ("network", 8, 0.99), ("predicted", 64, None))]
    >>> (entry,) = predicted_and_simulated({"machines": [{"name": "m"}]}, rows)
    >>> entry["simulated"], entry["predicted"], entry["predicted_nps"], entry["worst"]
    (2, 1, [64], 0.020000000000000018)
    """
    out = []
    for machine in (m["name"] for m in study["machines"]):
        mine = [r for r in rows if r["machine"] == machine]
        predicted = [r for r in mine if r["model_class"] == PREDICTED_CLASS]
        # exact rows too: where the flat model is exact the network model equals it
        # (the crossbar, tests/test_network_model.py)
        errors = sorted(abs(r["ratio"] - 1) for r in mine
                        if r["model_class"] in ("exact", "network") and r["ratio"] is not None)
        out.append({"machine": machine, "simulated": len(mine) - len(predicted),
                    "predicted": len(predicted),
                    "predicted_nps": sorted({r["np"] for r in predicted}),
                    "compared": len(errors),
                    "median": errors[len(errors) // 2] if errors else None,
                    "worst": errors[-1] if errors else None})
    return out


def _margin(first: float, second: float) -> str:
    return f"{second / first:.2f}x" if first > 0 else "-"


def summary(study: dict, rows: list[dict]) -> list[str]:
    """The report's opening sentences: per process count and mapping, the machine that
    runs the weighted workload fastest and its margin over the next one, the rest of
    the ranking, on how many questions (collective and size) it is the fastest
    machine, and the leader by time x cost.

    Examples
    --------
    >>> study = {"machines": [{"name": "a", "cost": None}, {"name": "b", "cost": None}],
    ...          "workloads": [{"collective": "c", "weight": 1.0, "sizes_bytes": [8],
    ...                         "size_weights": [1.0]}]}
    >>> rows = [dict(machine=m, collective="c", np=4, mapping="block", bytes=8,
    ...              algorithm="x", time_s=t) for m, t in (("a", 3e-6), ("b", 1e-6))]
    >>> print(*summary(study, rows))  # doctest: +NORMALIZE_WHITESPACE
    At 4 ranks (block mapping), b runs the weighted workload fastest, 3.00x ahead of a
    (b 1 us, a 3 us); it is the fastest machine on 1 of 1 questions (collective and size).

    With prices, the margin by time x cost is between the products (a: 3e-6 x 1,
    b: 1e-6 x 10):

    >>> study["machines"] = [{"name": "a", "cost": 1.0}, {"name": "b", "cost": 10.0}]
    >>> print(*summary(study, rows))  # doctest: +NORMALIZE_WHITESPACE
    At 4 ranks (block mapping), b runs the weighted workload fastest, 3.00x ahead of a
    (b 1 us, a 3 us); it is the fastest machine on 1 of 1 questions (collective and size);
    by time x cost, a leads, 3.33x ahead of b.
    """
    questions = _questions(study, rows)
    sentences = []
    for ranking in _rankings(study, rows):
        how = ", predicted by the network model" if ranking["predicted"] else ""
        where = f"At {ranking['np']} ranks ({ranking['mapping']} mapping{how})"
        done = ranking["done"]
        if not done:
            sentences.append(f"{where}, no machine has every measurement yet.")
            continue
        leader, leader_s = done[0]
        if len(done) == 1:
            sentence = f"{where}, {leader} is the only complete machine"
        else:
            sentence = (f"{where}, {leader} runs the weighted workload fastest, "
                        f"{_margin(leader_s, done[1][1])} ahead of {done[1][0]}")
        sentence += " (" + ", ".join(f"{name} {format_seconds(t)}" for name, t in done) + ")"
        asked = [q for q in questions if (q["np"], q["mapping"]) == (ranking["np"],
                                                                       ranking["mapping"])]
        won = sum(1 for q in asked if q["machine"] == leader)
        sentence += (f"; it is the fastest machine on {won} of {len(asked)} questions "
                     "(collective and size)")
        if ranking["by_product"] and len(done) > 1:
            (best, best_product), (second, second_product) = ranking["by_product"][:2]
            sentence += (f"; by time x cost, {best} leads, "
                         f"{_margin(best_product, second_product)} ahead of {second}")
        if ranking["incomplete"]:
            sentence += f"; incomplete: {', '.join(ranking['incomplete'])}"
        sentences.append(sentence + ".")
    return sentences


def _questions(study: dict, rows: list[dict]) -> list[dict]:
    """Per collective, size, np and mapping: the fastest machine and its margin."""
    best = fastest(rows)
    machines = [m["name"] for m in study["machines"]]
    groups = sorted({(r["np"], r["mapping"]) for r in rows})
    questions = []
    for workload in study["workloads"]:
        for np, mapping in groups:
            for n_bytes in workload["sizes_bytes"]:
                found = sorted((best[key]["time_s"], name, best[key]["algorithm"])
                               for name in machines
                               if (key := (name, workload["collective"], np, mapping, n_bytes))
                               in best)
                if not found:
                    continue
                questions.append({
                    "collective": workload["collective"], "bytes": n_bytes, "np": np,
                    "mapping": mapping, "machine": found[0][1], "algorithm": found[0][2],
                    "time_s": found[0][0],
                    "runner_up": found[1][1] if len(found) > 1 else None,
                    "margin": _margin(found[0][0], found[1][0]) if len(found) > 1 else None})
    return questions


def _ranking_figure(ranking: dict) -> dict:
    plt = _pyplot()
    done = ranking["done"]
    columns = 2 if ranking["priced"] else 1
    figure, axes = plt.subplots(1, columns, figsize=(5.5 * columns, 0.45 * len(done) + 1.4),
                                squeeze=False, sharey=True)
    names = [name for name, _ in done][::-1]
    np = ranking["np"]
    axes[0][0].barh(names, [t * 1e6 for _, t in done][::-1], color=_BAR_COLORS[0])
    axes[0][0].set_xlabel("weighted workload time (us)")
    axes[0][0].set_ylabel("machine")
    axes[0][0].set_title(f"Workload time, np={np} (lower is better)")
    if ranking["priced"]:
        products = {row["machine"]: row["product"] for row in ranking["rows"]}
        axes[0][1].barh(names, [products[n] for n in names], color=_BAR_COLORS[1])
        axes[0][1].set_xlabel("time x cost (s x price units)")
        axes[0][1].tick_params(axis="y", labelleft=False)  # shares the left panel's names
        axes[0][1].set_title(f"Time x cost, np={np} (lower is better)")
    return _figure("ranking", figure,
                   f"Machines ranked by weighted workload time at np={np}"
                   + (" and by time x cost." if ranking["priced"] else "."))


def _key(*parts) -> str:
    """An SVG id prefix from names (a machine name may hold any character)."""
    return re.sub(r"[^A-Za-z0-9_.]+", "_", "-".join(str(part) for part in parts))


def _series(axis, xs, ys, style: dict, label: str, gid: str) -> None:
    """One line of a plot; its SVG group is named ``gid``, which holds ``-series-``
    (the page's script counts the lines of each plot and their colours)."""
    (line,) = axis.plot(xs, ys, color=style["color"], marker=style["marker"],
                        linestyle=style["linestyle"], markersize=4, label=label)
    line.set_gid(gid)


def _legend(axis, count: int, entries: tuple = ()) -> None:
    """The legend outside the axes, on their right, so that it hides no line."""
    axis.legend(*entries, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                ncols=1 if count <= 16 else 2, borderaxespad=0)


def _comparison_figure(collective: str, np: int, mapping: str, rows: list[dict],
                       machines: list[str], key: str) -> dict:
    """Each machine's fastest time at each size: which machine answers this question."""
    plt = _pyplot()
    styles = line_styles(machines)
    best = fastest(rows)
    figure, axis = plt.subplots(figsize=(6.5, 3.4))
    for i, machine in enumerate(machines):
        points = sorted((n, row["time_s"]) for (m, c, p, mp, n), row in best.items()
                        if (m, c, p, mp) == (machine, collective, np, mapping) and n > 0)
        if points:
            _series(axis, [p[0] for p in points], [p[1] for p in points], styles[machine],
                    machine, f"{key}-series-{i}")
    axis.set_xscale("log", base=2)
    axis.set_yscale("log")
    axis.set_xlabel("message size per rank (bytes)")
    axis.set_ylabel("time (s)")
    axis.set_title(f"{collective}, np={np}, {mapping}: the fastest algorithm of each machine")
    _legend(axis, len(machines))
    return _figure("machines", figure,
                   f"{collective} at np={np} ({mapping}): each machine's time with its fastest "
                   "algorithm at each size (lower is better), log-log.")


def _algorithm_figure(machine: str, collective: str, np: int, mapping: str,
                      rows: list[dict], styles: dict, key: str) -> dict:
    """Time against size of every algorithm, beside simulated / model; points beyond
    their model's class are ringed in red."""
    plt = _pyplot()
    figure, (times, ratios) = plt.subplots(1, 2, figsize=(10.5, 3.6))
    for i, algorithm in enumerate(styles):
        points = sorted((r["bytes"], r["time_s"], r["model_s"], r["ratio"], beyond_class(r))
                        for r in rows if r["algorithm"] == algorithm and r["bytes"] > 0)
        if not points:
            continue
        xs = [p[0] for p in points]
        _series(times, xs, [p[1] for p in points], styles[algorithm], algorithm,
                f"{key}-series-{i}")
        if all(p[2] for p in points):
            times.plot(xs, [p[2] for p in points], color=styles[algorithm]["color"],
                       linestyle=":", linewidth=1, alpha=0.7)
        with_ratio = [p for p in points if p[3] is not None]
        if with_ratio:
            ratios.plot([p[0] for p in with_ratio], [p[3] for p in with_ratio],
                        color=styles[algorithm]["color"], marker=styles[algorithm]["marker"],
                        linestyle=styles[algorithm]["linestyle"], markersize=4)
        flagged = [p for p in with_ratio if p[4]]
        if flagged:
            ratios.plot([p[0] for p in flagged], [p[3] for p in flagged], linestyle="none",
                        marker="o", markersize=10, markerfacecolor="none",
                        markeredgecolor="#d62728", markeredgewidth=1.5)
    times.set_xscale("log", base=2)
    times.set_yscale("log")
    times.set_xlabel("message size per rank (bytes)")
    times.set_ylabel("time (s)")
    times.set_title(f"np={np}, {mapping}: time (dotted: model)")
    values = [r["ratio"] for r in rows if r["ratio"] is not None]
    # at least +-5% around 1, so that an exact model reads as a flat line at 1
    ratios.axhline(1.0, color="black", linewidth=0.8)
    ratios.set_ylim(min(values + [0.95]) * 0.98, max(values + [1.05]) * 1.02)
    ratios.ticklabel_format(axis="y", useOffset=False, style="plain")
    ratios.set_xscale("log", base=2)
    ratios.set_xlabel("message size per rank (bytes)")
    ratios.set_ylabel("simulated / model (ratio, 1 = exact)")
    ratios.set_title("simulated / model (red ring: beyond its class)")
    # the legend beside the right panel names the left panel's lines: both draw them alike
    _legend(ratios, len(styles), times.get_legend_handles_labels())
    classes = sorted({r["model_class"] or "-" for r in rows})
    if classes == [PREDICTED_CLASS]:
        return _figure("algorithms", figure,
                       f"{collective} on {machine} at np={np} ({mapping}): PREDICTED by the "
                       "network model, not simulated: each algorithm's time against the "
                       "message size, log-log (no simulated / model here).")
    return _figure("algorithms", figure,
                   f"{collective} on {machine} at np={np} ({mapping}): simulated time of each "
                   "algorithm (markers) and its model (dotted) against the message size, "
                   f"log-log; right, simulated / model (model classes: {', '.join(classes)}).")


def _fastest_map(machine: str, collective: str, rows: list[dict], styles: dict) -> dict:
    plt = _pyplot()
    best = fastest(rows)
    sizes = sorted({r["bytes"] for r in rows})
    groups = sorted({(r["np"], r["mapping"]) for r in rows})
    figure, axis = plt.subplots(figsize=(1.1 * len(sizes) + 2.5, 0.55 * len(groups) + 1.6))
    for y, (np, mapping) in enumerate(groups):
        for x, n_bytes in enumerate(sizes):
            row = best.get((machine, collective, np, mapping, n_bytes))
            if row is None:
                continue
            axis.add_patch(plt.Rectangle((x - 0.5, y - 0.5), 1, 1,
                                         color=styles[row["algorithm"]]["color"], alpha=0.75))
            axis.text(x, y, row["algorithm"].replace("_", "\n"), ha="center", va="center",
                      fontsize=7)
    axis.set_xlim(-0.5, len(sizes) - 0.5)
    axis.set_ylim(-0.5, len(groups) - 0.5)
    axis.set_xticks(range(len(sizes)), [format_bytes(n) for n in sizes])
    axis.set_yticks(range(len(groups)), [f"{np} {mapping}" for np, mapping in groups])
    axis.set_xlabel("message size per rank (bytes)")
    axis.set_ylabel("processes (np)")
    axis.set_title(f"Fastest {collective} algorithm on {machine}")
    axis.grid(False)
    return _figure("fastest-map", figure,
                   f"{collective} on {machine}: the fastest algorithm of the study at each "
                   "process count and size.")


def _topology(machine: dict) -> dict:
    """The machine's switches and routers, its compute nodes gathered per switch."""
    plt = _pyplot()
    G = nx.node_link_graph(machine["graph"], edges="edges")
    S = switch_level(G)
    layout = switch_level_layout(S)
    groups = [n for n, k in S.nodes(data="kind") if k == "nodes"]
    switches = [n for n in S if n not in set(groups)]
    figure, axis = plt.subplots(figsize=(9.0, 4.2))
    bandwidths = [d["bandwidth_Bps"] for _, _, d in S.edges(data=True)]
    top = max(bandwidths, default=1.0) or 1.0
    many = S.number_of_nodes() > 120
    nx.draw_networkx_edges(S, layout, ax=axis, edge_color="#888", alpha=0.4 if many else 0.8,
                           width=[(0.2 if many else 0.6) + 1.5 * b / top for b in bandwidths])
    counts = [S.nodes[g]["count"] for g in groups]
    nx.draw_networkx_nodes(S, layout, nodelist=groups, ax=axis, node_shape="o",
                           node_color="#4c72b0", node_size=[12 + 4 * math.sqrt(c) for c in counts]
                           if many else [60 + 10 * math.sqrt(c) for c in counts],
                           label=f"{sum(counts)} nodes in {len(groups)} groups "
                                 f"({_span(counts)} per group)")
    labelled = not many and len(groups) <= 40  # only where the labels can be read
    if labelled:  # how many nodes each group holds
        nx.draw_networkx_labels(S, {g: (x, y) for g, (x, y) in layout.items() if g in groups},
                                labels={g: str(S.nodes[g]["count"]) for g in groups},
                                font_size=6, font_color="white", ax=axis)
    kinds = "/".join(k + ("es" if k == "switch" else "s")
                     for k in sorted({S.nodes[n]["kind"] for n in switches}))
    nx.draw_networkx_nodes(S, layout, nodelist=switches, ax=axis, node_shape="s",
                           node_color="#dd8452", node_size=12 if many else 50,
                           label=f"{len(switches)} {kinds}")
    hosts = sum(1 for _, k in G.nodes(data="kind") if k == "host")
    axis.set_title(f"Topology of {machine['name']} ({G.graph.get('name', '?')}): "
                   f"{hosts} hosts")
    axis.legend(loc="upper center", bbox_to_anchor=(0.5, 0.0), ncols=2, fontsize=8)
    axis.set_axis_off()
    if min(x for x, _ in layout.values()) < 0:  # a flat network's circle: keep it round
        axis.set_aspect("equal")
    return _figure("topology", figure,
                   f"{machine['name']}: its {len(switches)} switches and routers and its compute "
                   "nodes, gathered into groups attached to the same switches"
                   + (" (the number in a circle: nodes in the group)" if labelled else "")
                   + "; line width proportional to link bandwidth, "
                   f"{G.number_of_edges()} links in all.")


def _span(values: list[int]) -> str:
    return f"{min(values)}" if min(values) == max(values) else f"{min(values)}-{max(values)}"


def _parameter(name: str, value) -> str:
    """A platform parameter as a reader writes it: units spelled out, lists joined."""
    if isinstance(value, (list, tuple)):
        return ", ".join(_parameter(name, v) for v in value)
    if isinstance(value, float) and name.endswith("_Bps"):
        return f"{value / 1e9:g} GB/s"
    if isinstance(value, float) and name.endswith("_s_per_byte"):
        return f"{value:g} s/B"
    if isinstance(value, float) and name.endswith("_s"):
        return format_seconds(value)
    if isinstance(value, float) and name.endswith("_flops"):
        return f"{value / 1e9:g} Gflop/s"
    if isinstance(value, float):
        return f"{value:g}"
    return "-" if value is None else str(value)


def _parameters(params: dict, prefix: str = "") -> list[tuple[str, str]]:
    """(name, value) rows of a generator's parameters; nested tables flattened as a.b."""
    table = []
    for name, value in params.items():
        if isinstance(value, dict):
            table += _parameters(value, f"{prefix}{name}.")
        else:
            table.append((prefix + name, _parameter(name, value)))
    return table


def _agreement(rows: list[dict]) -> dict:
    """How the measurements stand against their model's class."""
    classes = {}
    for row in rows:
        entry = classes.setdefault(row["model_class"] or "-", {"count": 0, "beyond": 0,
                                                               "ratios": []})
        entry["count"] += 1
        entry["beyond"] += beyond_class(row)
        if row["ratio"] is not None:
            entry["ratios"].append(row["ratio"])
    flagged = sorted((r for r in rows if beyond_class(r)),
                     key=lambda r: (r["algorithm"], r["np"], r["mapping"], r["bytes"]))
    return {"classes": [{"name": name, "count": e["count"], "beyond": e["beyond"],
                         "low": min(e["ratios"], default=None),
                         "high": max(e["ratios"], default=None)}
                        for name, e in sorted(classes.items())],
            "flagged": flagged}


def _reproducibility(collective: str, rows: list[dict]) -> dict | None:
    # reproducibility is a question for the reductions only: the rows with an op
    if all(r["op"] is None for r in rows) or not any(r["bitwise_rank_order"] is not None
                                                     for r in rows):
        return None
    points = sorted({(r["np"], r["bytes"]) for r in rows})
    cell = {(r["algorithm"], r["np"], r["bytes"]): r["bitwise_rank_order"] for r in rows}
    return {"points": points,
            "rows": [(algorithm, [cell.get((algorithm, np, n)) for np, n in points])
                     for algorithm in sorted({r["algorithm"] for r in rows})]}


def current_rows(study: dict, rows: list[dict]) -> list[dict]:
    """The rows of the study's current scenario.

    A rerun after editing a scenario keeps the rows of the old one (a machine
    renamed or changed, sizes or process counts dropped); the report shows
    only those the scenario still asks for, on the machines as they are now.
    """
    machines = {m["name"]: m["platform_hash"] for m in study["machines"]}
    sizes = {w["collective"]: set(w["sizes_bytes"]) for w in study["workloads"]}
    algorithms = {w["collective"]: set(w["algorithms"]) for w in study["workloads"]}
    nps = set(study["nps"])
    return [r for r in rows if machines.get(r["machine"]) == r["platform_hash"]
            and r["bytes"] in sizes.get(r["collective"], ()) and r["np"] in nps
            and r["algorithm"] in algorithms.get(r["collective"], ())]


def _study_context(study: dict, rows: list[dict]) -> dict:
    """Everything the template shows of one study."""
    context = {
        "study": study, "rows": rows,
        "libraries": sorted({r["library"] for r in rows}),
        "versions": sorted({r["collsim_version"] for r in rows}),
        "wrong": sum(1 for r in rows if r["check"] == "wrong"),
        "claimed": sum(1 for r in rows if r["model_class"] in CLAIMING_CLASSES),
        "beyond": sum(1 for r in rows if beyond_class(r)),
        "summary": summary(study, rows) if rows else [],
        "predicted": (predicted_and_simulated(study, rows)
                      if any(r["model_class"] == PREDICTED_CLASS for r in rows) else []),
        "rankings": [], "questions": [], "comparisons": [], "machines": []}
    if not rows:
        return context
    for ranking in _rankings(study, rows):
        if ranking["done"]:
            ranking["figure"] = _ranking_figure(ranking)
        context["rankings"].append(ranking)
    context["questions"] = _questions(study, rows)
    names = [m["name"] for m in study["machines"]]
    groups = sorted({(r["np"], r["mapping"]) for r in rows})
    for workload in study["workloads"]:
        collective = workload["collective"]
        for np, mapping in groups:
            selected = [r for r in rows if (r["collective"], r["np"], r["mapping"])
                        == (collective, np, mapping)]
            # plots against the size (log): none for a barrier's empty messages alone
            if any(r["bytes"] > 0 for r in selected):
                key = _key(study["name"], collective, np, mapping)
                context["comparisons"].append(
                    _comparison_figure(collective, np, mapping, selected, names, key))
    for machine in study["machines"]:
        G = machine["graph"]
        entry = {"machine": machine, "topology": _topology(machine),
                 "parameters": _parameters(G.get("graph", {}).get("params", {})),
                 "collectives": []}
        for workload in study["workloads"]:
            selected = [r for r in rows if r["machine"] == machine["name"]
                        and r["collective"] == workload["collective"]]
            if not selected:
                continue
            styles = line_styles(sorted({r["algorithm"] for r in selected}))
            figures = [
                _algorithm_figure(machine["name"], workload["collective"], np, mapping,
                                  [r for r in selected if (r["np"], r["mapping"]) == (np, mapping)],
                                  styles, _key(study["name"], machine["name"],
                                               workload["collective"], np, mapping))
                for np, mapping in sorted({(r["np"], r["mapping"]) for r in selected
                                           if r["bytes"] > 0})]
            figures.append(_fastest_map(machine["name"], workload["collective"], selected,
                                        styles))
            entry["collectives"].append({
                "workload": workload, "figures": figures, "agreement": _agreement(selected),
                "reproducibility": _reproducibility(workload["collective"], selected)})
        context["machines"].append(entry)
    return context


def build_report(db_path: str) -> tuple[str, int]:
    """The HTML page of a results database and the number of plots in it.

    Raises
    ------
    CollsimError
        If the database is missing, not a collsim database, or holds no study.
    """
    connection = open_store(db_path, create=False)
    try:
        studies = read_study(connection)
        if not studies:
            raise CollsimError(f"{db_path} holds no study")
        contexts = [_study_context(study, current_rows(study,
                                                       read_rows(connection, study["name"])))
                    for study in studies]
    finally:
        close_store(connection)
    page = _TEMPLATES.get_template("report.html.j2").render(csp=Markup(_CSP), studies=contexts)
    return page, page.count('<figure class="plot"')


def main_report(db_path: str, *, output: str) -> int:
    """The ``collsim report`` command; returns its exit status."""
    check_output_path(output, "-o", stdout_ok=True)
    page, plots = build_report(db_path)
    # a new file gets an ordinary file's permissions (a report is for sharing), an
    # existing one keeps its own, a device or FIFO is written in place
    write_output(output, page.encode())
    print(f"report with {plots} plots written to {output}",
          file=sys.stderr if output == STDOUT else sys.stdout)
    return 0
