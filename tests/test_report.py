"""collsim report: one self-contained page whose plots render in headless Chromium."""

import re
import shutil
import subprocess
import sys

import pytest
from PIL import Image

from collsim.cli import main
from collsim.report import workload_times
from collsim.store import open_store, read_rows, read_study

MACHINES = {
    "xbar-slow": {"platform": {"generator": "crossbar", "nodes": 8, "bandwidth_Bps": 5e9},
                  "price": {"per_node": 100.0, "per_switch": 1000.0}},
    "xbar-fast": {"platform": {"generator": "crossbar", "nodes": 8, "cores_per_node": 2,
                               "bandwidth_Bps": 25e9},
                  "price": {"per_node": 300.0, "per_switch": 1000.0}},
}
WORKLOADS = [{"collective": "allreduce", "weight": 0.37, "sizes": ["8", "64KiB", "1MiB"],
              "size_weights": [2, 1, 1]},
             {"collective": "bcast", "weight": 0.63, "sizes": ["8", "1MiB"],
              "algorithms": ["binomial", "linear"]}]
# ranking (one per np) + per collective and np: the machines compared
# + per machine: topology + per collective: one per np (time and ratio), fastest map
PLOTS = 2 + 2 * 2 + 2 * (1 + 2 * 3)
HEIGHT_CAP_PX = 600  # 5 inches of figure at 96 dpi, with its titles
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--enable-logging=stderr", "--v=0"]


@pytest.fixture(scope="module")
def report(tmp_path_factory, write_scenario):
    tmp_path = tmp_path_factory.mktemp("report")
    scenario = write_scenario(tmp_path / "report.toml", "report", [4, 8], MACHINES, WORKLOADS)
    db = tmp_path / "report.db"
    # in a subprocess: a process pool forked from a pytest-xdist worker is not safe
    subprocess.run([sys.executable, "-m", "collsim", "study", str(scenario), "--db", str(db),
                    "--jobs", "2"], check=True, capture_output=True)
    page = tmp_path / "report.html"
    assert main(["report", str(db), "-o", str(page)]) == 0
    return db, page


def chromium(tmp_path, page, *args):
    program = shutil.which("chromium")
    if program is None:
        pytest.fail("chromium is not installed: run 'make test-deps' (sim/install-test-deps.sh)")
    profile = tmp_path / f"chromium-profile-{len(list(tmp_path.iterdir()))}"
    return subprocess.run([program, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args,
                           page.as_uri()], capture_output=True, text=True, timeout=180)


def body_attributes(dom):
    body = re.search(r"<body([^>]*)>", dom).group(1)
    return dict(re.findall(r'([\w-]+)="([^"]*)"', body))


def load_failures_in_log(stderr):
    return [line for line in stderr.splitlines()
            if "Content Security Policy" in line or "Failed to load" in line or "net::ERR" in line]


def figure_attributes(dom):
    return [dict(re.findall(r'([\w-]+)="([^"]*)"', attributes))
            for attributes in re.findall(r'<figure class="plot"([^>]*)>', dom)]


def test_the_page_is_self_contained_with_titled_axes(report):
    _, page = report
    text = page.read_text()
    assert text.count('<figure class="plot"') == PLOTS
    # nothing to fetch: no external reference, and the policy forbids any
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", text)
    assert "default-src 'none'" in text
    figures = re.findall(r'<figure class="plot" data-kind="([\w-]+)">(.*?)</figure>', text,
                         re.S)
    assert len(figures) == PLOTS
    for kind, svg in figures:
        if kind == "topology":
            assert "Topology of" in svg and "hosts" in svg
            continue
        labels = re.findall(r">([^<>]*\((?:s|us|bytes|np|ratio, 1 = exact|s x price units)\))<",
                            svg)
        assert len(labels) >= (1 if kind == "ranking" else 2), (kind, labels)
    assert text.count("time (s)") >= 4 and "message size per rank (bytes)" in text
    assert "weighted workload time (us)" in text and "time x cost (s x price units)" in text
    assert "Reproducibility" in text


def test_the_page_opens_with_the_ranking_and_its_margin(report):
    db, page = report
    text = page.read_text()
    connection = open_store(db, create=False)
    study = read_study(connection)[0]
    rows = read_rows(connection)
    connection.close()
    times = workload_times(study, rows)
    fast, slow = times[("xbar-fast", 8, "block")], times[("xbar-slow", 8, "block")]
    # the first paragraph after the title, before any table or plot
    opening = re.search(r"<h1>Study report</h1>\s*<p class=\"summary\">(.*?)</p>", text, re.S)
    assert opening and text.index(opening.group(0)) < text.index("<table")
    assert (f"At 8 ranks (block mapping), xbar-fast runs the weighted workload fastest, "
            f"{slow / fast:.2f}x ahead of xbar-slow") in opening.group(1)
    assert "by time x cost, " in opening.group(1) and "At 4 ranks" in opening.group(1)
    cost = {m["name"]: m["cost"] for m in study["machines"]}
    products = sorted((times[(m, 8, "block")] * cost[m], m) for m in ("xbar-fast", "xbar-slow"))
    assert (f"by time x cost, {products[0][1]} leads, "
            f"{products[1][0] / products[0][0]:.2f}x ahead of {products[1][1]}") in opening.group(1)
    assert re.search(r"it is the fastest machine on \d of 5 questions", opening.group(1))
    # one row per question: collective x size x np
    assert text.count("<tr><td class=name>allreduce</td>") == 3 * 2
    assert text.count("<tr><td class=name>bcast</td>") == 2 * 2


def test_platform_parameters_and_prices_are_tables(report):
    _, page = report
    text = page.read_text()
    assert text.count('<table class="parameters">') == 2
    assert text.count('<table class="price">') == 2
    parameters = re.search(r'<table class="parameters">(.*?)</table>', text, re.S).group(1)
    assert "<td class=name>bandwidth_Bps</td><td>5 GB/s</td>" in parameters
    assert "<td class=name>latency_s</td><td>1 us</td>" in parameters
    assert "<td class=name>per node</td><td>100</td>" in text
    # no Python dict or list printed anywhere
    assert not re.search(r"[{\[]'|=\[|\{'", text.split("<details>")[0])


def test_the_same_database_gives_the_same_bytes(report):
    db, page = report
    from collsim.report import build_report

    assert build_report(str(db))[0].encode() == page.read_bytes()


def test_a_measurement_beyond_its_class_is_flagged(report, tmp_path):
    db, _ = report
    edited = tmp_path / "drift.db"
    edited.write_bytes(db.read_bytes())
    connection = open_store(edited, create=False)
    key, algorithm = connection.execute(
        "SELECT key, algorithm FROM measurement WHERE model_class = 'exact' AND np = 8 "
        "AND bytes = 65536 AND collective = 'allreduce' ORDER BY key LIMIT 1").fetchone()
    with connection:
        connection.execute("UPDATE measurement SET time_s = time_s * 1.5, ratio = 1.5, "
                           "model_agrees = 0 WHERE key = ?", (key,))
    connection.close()
    page = tmp_path / "drift.html"
    assert main(["report", str(edited), "-o", str(page)]) == 0
    text = page.read_text()
    assert '<span class="flag">1 beyond their model\'s class, flagged below</span>' in text
    tables = re.findall(r'<table class="flagged">(.*?)</table>', text, re.S)
    assert len(tables) == 1
    flagged = [re.findall(r"<td[^>]*>(.*?)</td>", row)
               for row in re.findall(r'<tr class="beyond">(.*?)</tr>', tables[0], re.S)]
    assert [(r[0], r[1], r[3], r[7], r[8]) for r in flagged] == [
        (algorithm, "8", "64KiB", "exact", "1.500000")]
    untouched = report[1].read_text()
    assert 'class="beyond"' not in untouched and "flagged below" not in untouched


def test_ranking_is_the_weighted_fastest_time(report):
    db, _ = report
    connection = open_store(db, create=False)
    study = read_study(connection)[0]
    rows = read_rows(connection)
    connection.close()
    times = workload_times(study, rows)
    fast = {(r["collective"], r["bytes"]): r["time_s"] for r in rows if
            r["machine"] == "xbar-fast" and r["np"] == 8}
    for (c, n), t in list(fast.items()):
        fast[(c, n)] = min(r["time_s"] for r in rows if r["machine"] == "xbar-fast"
                           and r["np"] == 8 and r["collective"] == c and r["bytes"] == n)
    expected = (0.37 / 1.0 * (2 * fast["allreduce", 8] + fast["allreduce", 65536]
                              + fast["allreduce", 1048576]) / 4
                + 0.63 * (fast["bcast", 8] + fast["bcast", 1048576]) / 2)
    assert times[("xbar-fast", 8, "block")] == pytest.approx(expected, rel=1e-12)
    assert times[("xbar-fast", 8, "block")] < times[("xbar-slow", 8, "block")]


def test_every_plot_renders_in_headless_chromium(report, tmp_path):
    _, page = report
    dom = chromium(tmp_path, page, "--dump-dom")
    assert dom.returncode == 0, dom.stderr
    attributes = body_attributes(dom.stdout)
    assert attributes.get("data-plots") == str(PLOTS), attributes
    assert attributes.get("data-rendered") == str(PLOTS), attributes
    assert attributes.get("data-load-failures") == "0", attributes
    assert dom.stdout.count('data-rendered="yes"') == PLOTS
    assert not load_failures_in_log(dom.stderr)
    # the summary first, inside the first screen; no plot runs tall; one colour per line
    assert attributes.get("data-summary-first") == "true", attributes
    assert 0 < int(attributes["data-summary-top"]) < 300, attributes
    figures = figure_attributes(dom.stdout)
    assert len(figures) == PLOTS
    assert max(int(f["data-height"]) for f in figures) <= HEIGHT_CAP_PX, figures
    assert attributes.get("data-color-clashes") == "0", attributes
    lines = [int(f["data-series"]) for f in figures]
    assert [int(f["data-series-colors"]) for f in figures] == lines
    # the algorithm plots of the allreduce draw more lines than tab10 has colours
    assert max(lines) > 10 and sum(lines) == int(attributes["data-series"])

    shot = tmp_path / "report.png"
    taken = chromium(tmp_path, page, "--window-size=1400,3000", f"--screenshot={shot}")
    assert taken.returncode == 0 and shot.is_file(), taken.stderr
    image = Image.open(shot).convert("RGB")
    assert image.size == (1400, 3000)
    colors = image.getcolors(maxcolors=1 << 20)
    assert len(colors) > 200  # text, axes and plots, not a blank page
    # the ranking's bars are drawn in these two colors
    present = {color for _, color in colors}
    assert (0x4C, 0x72, 0xB0) in present and (0xDD, 0x84, 0x52) in present
    # the summary's shaded box is on the first screen, with text in it
    top = image.crop((0, 0, 1400, 400)).getcolors(maxcolors=1 << 20)
    shaded = sum(count for count, color in top if color == (0xEE, 0xF4, 0xFB))
    assert shaded > 50_000 and len(top) > 20


def test_the_chromium_checks_catch_a_failed_load_and_a_broken_plot(report, tmp_path):
    _, page = report
    text = page.read_text()
    broken = tmp_path / "broken.html"
    first = text.index("<svg")
    broken.write_text(text[:first] + '<svg width="0" height="0"></svg><!--'
                      + text[first:].replace("</svg>", "</svg>-->", 1))
    dom = chromium(tmp_path, broken, "--dump-dom")
    attributes = body_attributes(dom.stdout)
    assert attributes.get("data-rendered") == str(PLOTS - 1)
    external = tmp_path / "external.html"
    external.write_text(text.replace("<body>", '<body><img src="http://127.0.0.1:9/x.png">'))
    dom = chromium(tmp_path, external, "--dump-dom")
    attributes = body_attributes(dom.stdout)
    assert attributes.get("data-load-failures") not in (None, "0")
    assert load_failures_in_log(dom.stderr)


def test_report_errors_are_one_line(tmp_path, capsys):
    assert main(["report", str(tmp_path / "none.db"), "-o", str(tmp_path / "r.html")]) == 2
    assert capsys.readouterr().err.startswith("collsim: error: no results database at ")


def test_the_report_shows_only_what_the_current_scenario_asks_for(report, tmp_path):
    db, _ = report
    edited = tmp_path / "edited.db"
    edited.write_bytes(db.read_bytes())  # the fixture's database is shared: work on a copy
    connection = open_store(edited, create=False)
    study = read_study(connection)[0]
    rows = read_rows(connection)
    connection.close()
    from collsim.report import current_rows

    assert current_rows(study, rows) == rows
    study["nps"] = [8]
    study["machines"][0]["platform_hash"] = "0" * 16  # the machine changed since
    kept = current_rows(study, rows)
    assert kept and all(r["np"] == 8 and r["machine"] == "xbar-fast" for r in kept)


@pytest.mark.parametrize("spec, groups, switches, rows", [
    # 32 leaf switches of 16 nodes under 16 spines: nodes, leaves, spines in three rows
    ({"generator": "fat_tree", "levels": 2, "down_ports": [16, 32], "up_ports": [1, 16]},
     32, 48, [0.0, 1.0, 2.0]),
    # two fat-tree rails: a group of 16 nodes hangs off a leaf of each rail
    ({"generator": "dual_rail", "nodes": 512, "sockets_per_node": 2, "cores_per_socket": 1,
      "rail_policy": "striped", "plane_down_ports": [16, 32], "plane_up_ports": [1, 16]},
     32, 96, [0.0, 1.0, 2.0]),
    # 128 routers in 8 groups, linked within their row: a circle
    ({"generator": "dragonfly", "groups": 8, "chassis_per_group": 1,
      "routers_per_chassis": 16, "nodes_per_router": 4}, 128, 128, None),
])
def test_a_512_node_machine_is_drawn_as_its_switches(spec, groups, switches, rows):
    """The procurement study's 512-node machines: a picture of 512 hosts was a smear of
    dots; the switches with their nodes gathered per switch read at a glance (and need
    no scipy, which networkx's spring layout wants above 500 nodes)."""
    import networkx as nx

    from collsim.platforms import platform_from_spec
    from collsim.platforms.draw import switch_level, switch_level_layout
    from collsim.report import _topology

    G = platform_from_spec(spec)
    S = switch_level(G)
    kinds = [kind for _, kind in S.nodes(data="kind")]
    assert kinds.count("nodes") == groups and len(kinds) - groups == switches
    assert sum(count for _, count in S.nodes(data="count") if count) == 512
    layout = switch_level_layout(S)
    assert set(layout) == set(S)
    if rows is not None:
        assert sorted({y for _, y in layout.values()}) == rows
        assert {layout[n][1] for n, kind in S.nodes(data="kind") if kind == "nodes"} == {0.0}
    figure = _topology({"name": "m", "graph": nx.node_link_data(G, edges="edges")})
    svg = str(figure["svg"])
    hosts = sum(1 for _, kind in G.nodes(data="kind") if kind == "host")  # 2 per dual-rail node
    assert f"512 nodes in {groups} groups" in svg and f"{hosts} hosts" in svg
    assert svg.count("<use ") < len(S) + 10  # one marker per switch and group, not per host


@pytest.mark.parametrize("name", ["collsim.report", "collsim.platforms.draw"])
def test_docstring_examples(name):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name))
    assert result.attempted > 0 and result.failed == 0
