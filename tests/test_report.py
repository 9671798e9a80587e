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

SCENARIO = """\
[study]
name = "report"
np = [4, 8]

[[machine]]
name = "xbar-slow"
platform = { generator = "crossbar", nodes = 8, bandwidth_Bps = 5e9 }
price = { per_node = 100.0, per_switch = 1000.0 }

[[machine]]
name = "xbar-fast"
platform = { generator = "crossbar", nodes = 8, cores_per_node = 2, bandwidth_Bps = 25e9 }
price = { per_node = 300.0, per_switch = 1000.0 }

[[workload]]
collective = "allreduce"
weight = 0.37
sizes = ["8", "64KiB", "1MiB"]
size_weights = [2, 1, 1]

[[workload]]
collective = "bcast"
weight = 0.63
sizes = ["8", "1MiB"]
algorithms = ["binomial", "linear"]
"""
# ranking (one per np) + per machine: topology + per collective: time, ratio, fastest map
PLOTS = 2 + 2 * (1 + 2 * 3)
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync", "--no-first-run", "--enable-logging=stderr", "--v=0"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("report")
    scenario = tmp_path / "report.toml"
    scenario.write_text(SCENARIO)
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


def test_topology_of_a_512_node_machine_is_drawn_without_scipy():
    """networkx's spring layout needs scipy above 500 nodes (not a dependency): the
    procurement study's report failed on its 512-node machines.  The layered layout
    puts hosts at the bottom and each switch level above."""
    import networkx as nx

    from collsim.platforms import fat_tree
    from collsim.report import _layered_layout, _topology

    G = fat_tree(levels=2, down_ports=[16, 32], up_ports=[1, 16])
    html = _topology({"name": "fat-tree-512", "graph": nx.node_link_data(G, edges="edges")})
    assert "<svg" in html and "512 hosts" in html
    hosts = [n for n, kind in G.nodes(data="kind") if kind == "host"]
    layout = _layered_layout(G, hosts)
    assert {layout[h][1] for h in hosts} == {0.0}
    assert sorted({y for _, y in layout.values()}) == [0.0, 1.0, 2.0]
