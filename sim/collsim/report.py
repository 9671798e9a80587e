"""``collsim report``: one self-contained HTML page from a results database.

For each study of the database: the ranking of the candidate machines by
weighted workload time (and, with prices, by time x cost); then, per machine,
a picture of its topology and, per collective, the time against size of each
algorithm (log-log, simulated and model), the ratio simulated / model, the
fastest-algorithm map over (np, size) and the reproducibility matrix (is the
result bitwise equal to the rank-order sum?).

Every plot is an inline SVG drawn by matplotlib (text kept as text), the
style sheet is inline, and a Content-Security-Policy forbids loading anything
from anywhere: the page needs no network and no other file.
"""

from __future__ import annotations

import html
import io
import math
import os

import networkx as nx

from collsim.errors import CollsimError
from collsim.files import check_output_path
from collsim.files import write_atomically
from collsim.store import open_store, read_rows, read_study
from collsim.units import format_bytes, format_seconds

__all__ = ["workload_times", "fastest", "current_rows", "build_report", "main_report"]

_CSS = """
body { font-family: sans-serif; margin: 2em auto; max-width: 80em; color: #222; }
h1, h2, h3 { font-weight: 600; } h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #ccc; padding: .25em .6em; text-align: right; }
th { background: #f3f3f3; } td.name, th.name { text-align: left; }
td.yes { background: #dff0d8; } td.no { background: #f8d7da; }
figure.plot { display: inline-block; margin: .5em; vertical-align: top; }
figure.plot svg { max-width: 100%; height: auto; }
figcaption { font-size: .9em; color: #555; max-width: 60em; }
.note { color: #555; font-size: .9em; }
"""

# In <head>: count what fails to load (a blocked or missing resource), and after load mark
# each plot rendered when its SVG has a size and drawn content, so a browser (and the test
# that opens the page headless) can tell that every plot rendered and nothing failed.
_SCRIPT = """
var collsimLoadFailures = 0;
document.addEventListener('securitypolicyviolation', function () { collsimLoadFailures++; });
window.addEventListener('error', function () { collsimLoadFailures++; }, true);
window.addEventListener('load', function () {
  var figures = document.querySelectorAll('figure.plot'), rendered = 0;
  figures.forEach(function (figure) {
    var svg = figure.querySelector('svg');
    var box = svg ? svg.getBoundingClientRect() : null;
    var ok = !!box && box.width > 50 && box.height > 50 &&
             svg.querySelectorAll('path, use, text').length > 0;
    figure.setAttribute('data-rendered', ok ? 'yes' : 'no');
    rendered += ok ? 1 : 0;
  });
  document.querySelectorAll('img').forEach(function (img) {
    if (!img.complete || img.naturalWidth === 0) { collsimLoadFailures++; }
  });
  document.body.setAttribute('data-plots', String(figures.length));
  document.body.setAttribute('data-rendered', String(rendered));
  document.body.setAttribute('data-load-failures', String(collsimLoadFailures));
});
"""

_CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
        "img-src data:")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"svg.fonttype": "none", "svg.hashsalt": "collsim",
                         "font.size": 9, "axes.grid": True, "grid.alpha": 0.3})
    return plt


def _svg(figure) -> str:
    plt = _pyplot()
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(figure)
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def _figure(kind: str, svg: str, caption: str) -> str:
    return (f'<figure class="plot" data-kind="{kind}">{svg}'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>\n")


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


def _ranking(study: dict, rows: list[dict]) -> str:
    plt = _pyplot()
    times = workload_times(study, rows)
    costs = {m["name"]: m["cost"] for m in study["machines"]}
    priced = all(cost is not None for cost in costs.values())
    parts = ["<h2>Ranking of the machines</h2>",
             '<p class="note">Weighted workload time: for each collective of the workload, '
             "the size-weighted mean time of the fastest algorithm at each size, weighted by "
             "the collective's share; lower is better."
             + (" Time x cost: the weighted workload time multiplied by the machine's price "
                "(nodes, switches, links and fixed costs of the scenario)." if priced else
                " Give every machine a price to rank them by time x cost as well.")
             + "</p>"]
    groups = sorted({(np, mapping) for (_, np, mapping) in times})
    for np, mapping in groups:
        entries = [(name, times[(name, np, mapping)]) for name in costs
                   if (name, np, mapping) in times]
        ranked = sorted(entries, key=lambda e: (e[1] is None, e[1] or 0.0, e[0]))
        header = ("<tr><th>rank</th><th class=name>machine</th><th>weighted time</th>"
                  + ("<th>cost</th><th>time x cost (s x price)</th><th>rank by time x cost</th>"
                     if priced else "") + "</tr>")
        by_product = sorted((e for e in entries if e[1] is not None),
                            key=lambda e: (e[1] * costs[e[0]] if priced else 0.0, e[0]))
        product_rank = {name: i + 1 for i, (name, _) in enumerate(by_product)}
        lines = []
        for rank, (name, time_s) in enumerate(ranked, start=1):
            cells = [str(rank) if time_s is not None else "-", html.escape(name),
                     format_seconds(time_s) if time_s is not None else "incomplete"]
            if priced:
                cells += [f"{costs[name]:,.0f}",
                          f"{time_s * costs[name]:.4g}" if time_s is not None else "-",
                          str(product_rank.get(name, "-"))]
            lines.append("<tr>" + "".join(
                f"<td class=name>{c}</td>" if i == 1 else f"<td>{c}</td>"
                for i, c in enumerate(cells)) + "</tr>")
        parts.append(f"<h3>np = {np}, mapping {html.escape(mapping)}</h3>"
                     f"<table>{header}{''.join(lines)}</table>")
        done = [(name, t) for name, t in ranked if t is not None]
        if not done:
            continue
        columns = 2 if priced else 1
        figure, axes = plt.subplots(1, columns, figsize=(5.5 * columns, 0.45 * len(done) + 1.4),
                                    squeeze=False, sharey=True)
        names = [name for name, _ in done][::-1]
        axes[0][0].barh(names, [t * 1e6 for _, t in done][::-1], color="#4c72b0")
        axes[0][0].set_xlabel("weighted workload time (us)")
        axes[0][0].set_ylabel("machine")
        axes[0][0].set_title(f"Workload time, np={np} (lower is better)")
        if priced:
            axes[0][1].barh(names, [t * costs[n] for n, t in done][::-1], color="#dd8452")
            axes[0][1].set_xlabel("time x cost (s x price units)")
            axes[0][1].tick_params(axis="y", labelleft=False)  # shares the left panel's names
            axes[0][1].set_title(f"Time x cost, np={np} (lower is better)")
        parts.append(_figure("ranking", _svg(figure),
                             f"Machines ranked by weighted workload time at np={np}"
                             + (" and by time x cost." if priced else ".")))
    return "\n".join(parts)


def _layered_layout(G: nx.Graph, hosts: list) -> dict:
    """Rows by hop distance from the hosts: hosts at the bottom, then the switches
    one hop up, and so on (a fat-tree's levels; a dragonfly's routers in one row).

    Deterministic and linear in the graph's size; networkx's spring layout needs
    scipy above 500 nodes and gets slow long before.
    """
    layer = {n: 0 for n in hosts}
    frontier = list(hosts)
    while frontier:
        following = []
        for node in frontier:
            for neighbour in G.neighbors(node):
                if neighbour not in layer:
                    layer[neighbour] = layer[node] + 1
                    following.append(neighbour)
        frontier = following
    rows: dict[int, list] = {}
    for node in G.nodes:  # unreachable nodes (none in a generated machine) on top
        rows.setdefault(layer.get(node, max(layer.values(), default=0) + 1), []).append(node)
    layout = {}
    for depth, nodes in rows.items():
        for i, node in enumerate(nodes):
            layout[node] = ((i + 0.5) / len(nodes), float(depth))
    return layout


def _topology(machine: dict) -> str:
    plt = _pyplot()
    G = nx.node_link_graph(machine["graph"], edges="edges")
    hosts = [n for n, k in G.nodes(data="kind") if k == "host"]
    others = [n for n in G.nodes if n not in set(hosts)]
    if len(others) == 1:  # one switch: a star
        layout = nx.shell_layout(G, nlist=[others, hosts])
    else:
        layout = _layered_layout(G, hosts)
    figure, axis = plt.subplots(figsize=(5, 5))
    bandwidths = [d.get("bandwidth_Bps", 0.0) for _, _, d in G.edges(data=True)]
    top = max(bandwidths) if bandwidths else 1.0
    nx.draw_networkx_edges(G, layout, ax=axis, edge_color="#888",
                           width=[0.5 + 2.0 * b / top for b in bandwidths])
    size = max(8, 200 // max(1, int(math.sqrt(len(hosts)))))
    nx.draw_networkx_nodes(G, layout, nodelist=hosts, node_size=size, node_color="#4c72b0",
                           ax=axis, label=f"{len(hosts)} hosts")
    if others:
        nx.draw_networkx_nodes(G, layout, nodelist=others, node_size=size * 2,
                               node_color="#dd8452", node_shape="s", ax=axis,
                               label=f"{len(others)} switches/routers")
    axis.set_title(f"Topology of {machine['name']} ({G.graph.get('name', '?')})")
    axis.legend(loc="lower right", fontsize=8)
    axis.set_axis_off()
    params = ", ".join(f"{k}={v:g}" if isinstance(v, float) else f"{k}={v}"
                       for k, v in G.graph.get("params", {}).items())
    return _figure("topology", _svg(figure),
                   f"{machine['name']}: {G.graph.get('name', '?')} ({params}); "
                   f"line width proportional to link bandwidth, {G.number_of_edges()} links.")


def _panels(plt, count: int, title: str):
    columns = min(count, 3)
    rows = math.ceil(count / columns)
    figure, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.4 * rows),
                                squeeze=False)
    figure.suptitle(title)
    flat = [axis for line in axes for axis in line]
    for axis in flat[count:]:
        axis.set_visible(False)
    return figure, flat


def _collective_plots(machine: str, collective: str, rows: list[dict]) -> str:
    plt = _pyplot()
    groups = sorted({(r["np"], r["mapping"]) for r in rows})
    algorithms = sorted({r["algorithm"] for r in rows})
    colors = {a: plt.get_cmap("tab10")(i % 10) for i, a in enumerate(algorithms)}
    parts = []

    figure, axes = _panels(plt, len(groups), f"{collective} on {machine}: time vs size")
    for axis, (np, mapping) in zip(axes, groups):
        for algorithm in algorithms:
            points = sorted((r["bytes"], r["time_s"], r["model_s"]) for r in rows
                            if r["algorithm"] == algorithm and r["np"] == np
                            and r["mapping"] == mapping and r["bytes"] > 0)
            if not points:
                continue
            xs = [p[0] for p in points]
            axis.plot(xs, [p[1] for p in points], "o-", color=colors[algorithm],
                      label=algorithm)
            if all(p[2] for p in points):
                axis.plot(xs, [p[2] for p in points], "--", color=colors[algorithm],
                          alpha=0.6)
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.set_xlabel("message size per rank (bytes)")
        axis.set_ylabel("time (s)")
        axis.set_title(f"np={np}, {mapping}")
        axis.legend(fontsize=7)
    parts.append(_figure("time-vs-size", _svg(figure),
                         f"{collective} on {machine}: simulated time (markers) and model "
                         "(dashed) of each algorithm against the message size, log-log."))

    figure, axes = _panels(plt, len(groups), f"{collective} on {machine}: simulated / model")
    for axis, (np, mapping) in zip(axes, groups):
        for algorithm in algorithms:
            points = sorted((r["bytes"], r["ratio"]) for r in rows
                            if r["algorithm"] == algorithm and r["np"] == np
                            and r["mapping"] == mapping and r["ratio"] is not None
                            and r["bytes"] > 0)
            if points:
                axis.plot([p[0] for p in points], [p[1] for p in points], "o-",
                          color=colors[algorithm], label=algorithm)
        axis.axhline(1.0, color="black", linewidth=0.8)
        ratios = [r["ratio"] for r in rows if r["ratio"] is not None and r["np"] == np
                  and r["mapping"] == mapping]
        # at least +-5% around 1, so that an exact model reads as a flat line at 1
        axis.set_ylim(min(ratios + [0.95]) * 0.98, max(ratios + [1.05]) * 1.02)
        axis.ticklabel_format(axis="y", useOffset=False, style="plain")
        axis.set_xscale("log", base=2)
        axis.set_xlabel("message size per rank (bytes)")
        axis.set_ylabel("simulated / model (ratio, 1 = exact)")
        axis.set_title(f"np={np}, {mapping}")
        axis.legend(fontsize=7)
    classes = sorted({r["model_class"] or "-" for r in rows})
    parts.append(_figure("ratio", _svg(figure),
                         f"{collective} on {machine}: simulated time divided by the model's "
                         f"prediction (model classes here: {', '.join(classes)})."))

    parts.append(_fastest_map(plt, machine, collective, rows, colors))
    parts.append(_reproducibility(collective, rows))
    return "\n".join(parts)


def _fastest_map(plt, machine, collective, rows, colors) -> str:
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
                                         color=colors[row["algorithm"]], alpha=0.75))
            axis.text(x, y, row["algorithm"].replace("_", "\n"), ha="center", va="center",
                      fontsize=7)
    axis.set_xlim(-0.5, len(sizes) - 0.5)
    axis.set_ylim(-0.5, len(groups) - 0.5)
    axis.set_xticks(range(len(sizes)), [format_bytes(n) for n in sizes])
    axis.set_yticks(range(len(groups)), [f"{np}" for np, _ in groups])
    axis.set_xlabel("message size per rank (bytes)")
    axis.set_ylabel("processes (np)")
    axis.set_title(f"Fastest {collective} algorithm on {machine}")
    axis.grid(False)
    return _figure("fastest-map", _svg(figure),
                   f"{collective} on {machine}: the fastest algorithm of the study at each "
                   "process count and size.")


def _reproducibility(collective: str, rows: list[dict]) -> str:
    if collective == "bcast" or not any(r["bitwise_rank_order"] is not None for r in rows):
        return ""
    points = sorted({(r["np"], r["bytes"]) for r in rows})
    algorithms = sorted({r["algorithm"] for r in rows})
    cell = {(r["algorithm"], r["np"], r["bytes"]): r for r in rows}
    header = "<tr><th class=name>algorithm</th>" + "".join(
        f"<th>np={np}<br>{format_bytes(n)}</th>" for np, n in points) + "</tr>"
    lines = []
    for algorithm in algorithms:
        cells = []
        for np, n_bytes in points:
            row = cell.get((algorithm, np, n_bytes))
            if row is None or row["bitwise_rank_order"] is None:
                cells.append("<td>-</td>")
            elif row["bitwise_rank_order"]:
                cells.append('<td class="yes">=</td>')
            else:
                cells.append('<td class="no">&ne;</td>')
        lines.append(f"<tr><td class=name>{html.escape(algorithm)}</td>{''.join(cells)}</tr>")
    return ("<h4>Reproducibility</h4><p class=note>= : the result is bitwise equal to the "
            "rank-order sum of the same inputs; &ne; : it differs in the last bits "
            "(a different association of the floating-point sum).</p>"
            f"<table>{header}{''.join(lines)}</table>")


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
        body = []
        for study in studies:
            rows = current_rows(study, read_rows(connection, study["name"]))
            body.append(_study_section(study, rows))
    finally:
        connection.close()
    page = ("<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">'
            f"<title>collsim report: {html.escape(', '.join(s['name'] for s in studies))}"
            f"</title><style>{_CSS}</style><script>{_SCRIPT}</script></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")
    return page, page.count('<figure class="plot"')


def _study_section(study: dict, rows: list[dict]) -> str:
    libraries = sorted({r["library"] for r in rows})
    versions = sorted({r["collsim_version"] for r in rows})
    wrong = sum(1 for r in rows if r["check"] == "wrong")
    exact = [r for r in rows if r["model_class"] in ("exact", "bound")]
    agree = sum(1 for r in exact if r["model_agrees"])
    parts = [f"<h1>Study {html.escape(study['name'])}</h1>",
             f"<p>{len(rows)} measurements on {len(study['machines'])} machines, profile "
             f"<code>{html.escape(study['profile'])}</code>; "
             f"{html.escape(', '.join(libraries) or '-')}, collsim "
             f"{html.escape(', '.join(versions) or '-')}. "
             f"Results checked against the reference: {len(rows) - wrong} ok, {wrong} wrong. "
             f"Models with an exactness claim: {agree} of {len(exact)} measurements agree.</p>"]
    if not rows:
        parts.append("<p>No measurement stored yet: run <code>collsim study</code>.</p>")
        return "\n".join(parts)
    parts.append(_ranking(study, rows))
    for machine in study["machines"]:
        parts.append(f"<h2>Machine {html.escape(machine['name'])}</h2>")
        if machine["cost"] is not None:
            parts.append(f"<p>Price: {machine['cost']:,.0f} "
                         f"({html.escape(', '.join(f'{k} {v:g}' for k, v in sorted(machine['price'].items())))}).</p>")
        parts.append(_topology(machine))
        for workload in study["workloads"]:
            selected = [r for r in rows if r["machine"] == machine["name"]
                        and r["collective"] == workload["collective"]]
            if selected:
                parts.append(f"<h3>{html.escape(workload['collective'])} (weight "
                             f"{workload['weight']:g}, algorithms: {workload['choice']})</h3>")
                parts.append(_collective_plots(machine["name"], workload["collective"],
                                               selected))
    parts.append("<details><summary>Scenario</summary><pre>"
                 f"{html.escape(study['scenario'])}</pre></details>")
    return "\n".join(parts)


def main_report(db_path: str, *, output: str) -> int:
    """The ``collsim report`` command; returns its exit status."""
    check_output_path(output, "-o")
    page, plots = build_report(db_path)
    try:
        write_atomically(output, page.encode())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(output, 0o666 & ~umask)  # a report is for sharing: not the temp file's 0600
    except OSError as error:
        raise CollsimError(f"cannot write {output}: {error.strerror}") from None
    print(f"report with {plots} plots written to {output}")
    return 0
