"""collsim select: the fastest algorithm per cell, its margin, and the three outputs."""

import csv

from collsim.cli import main
from collsim.harness import registry
from collsim.native import is_selector


def test_select_names_the_fastest_and_its_margin(tmp_path, capsys):
    prefix = tmp_path / "map"
    status = main(["select", "--platform", "crossbar", "--nodes", "8", "--coll", "reduce",
                   "--np", "3,8", "--bytes", "8,1MiB", "-o", str(prefix)])
    out = capsys.readouterr().out
    assert status == 0 and out.splitlines()[0].split()[:3] == ["np", "bytes", "fastest"]
    rows = list(csv.DictReader(prefix.with_suffix(".csv").open()))
    assert [(r["np"], r["bytes"]) for r in rows] == [("3", "8"), ("3", "1048576"),
                                                    ("8", "8"), ("8", "1048576")]
    reduce_algorithms = {e["algorithm"] for e in registry() if e["collective"] == "reduce"
                         and "power_of_two" not in e["restrictions"]
                         and not is_selector(e["algorithm"])}
    for row in rows:
        times = {key[:-2]: float(value) for key, value in row.items()
                 if key.endswith("_s") and key not in ("fastest_s", "runner_up_s") and value}
        assert set(times) == reduce_algorithms
        ranked = sorted(times.items(), key=lambda item: (item[1], item[0]))
        assert row["fastest"] == ranked[0][0] and row["runner_up"] == ranked[1][0]
        assert float(row["margin"]) == ranked[1][1] / ranked[0][1] - 1
        assert row["fastest"] in out
    # linear reduce of 1 MiB on 8 ranks is never the fastest: 7 serialized steps
    assert all(r["fastest"] != "linear" for r in rows if r["np"] == "8")
    assert prefix.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_select_rejects_bad_input(capsys):
    assert main(["select", "--coll", "allscan"]) == 2
    assert main(["select", "--coll", "reduce", "--np", "2,x"]) == 2
    assert main(["select", "--coll", "reduce", "--np", "2", "--bytes", "12"]) == 2
    err = capsys.readouterr().err
    assert err.count("collsim: error:") == 3 and "Traceback" not in err


def test_a_hierarchical_transform_that_would_call_its_inner_algorithm_is_left_out():
    """allreduce/hierarchical on a prime p has G = 1 (the inner algorithm itself): it would
    only tie with recursive doubling, so the cell leaves it out; on p = 4 (G = 2) it runs."""
    from collsim.platforms import crossbar
    from collsim.profiles import builtin_profiles
    from collsim.select import select

    cells = select(collective="allreduce", process_counts=[4, 5], sizes_bytes=(8,),
                   G=crossbar(nodes=8), profile=builtin_profiles()["hockney"], platform="crossbar")
    by_np = {cell["np"]: cell for cell in cells}
    assert "hierarchical" not in by_np[5]["times_s"]
    assert "hierarchical" in by_np[4]["times_s"]
    assert by_np[5]["fastest"] == "recursive_doubling" and by_np[5]["margin"] > 0


def test_select_predict_ranks_the_network_model_and_writes_the_tuning_files(tmp_path, capsys,
                                                                            monkeypatch):
    """--predict: no simulation, the network model's times ranked as simulated ones are,
    and the same Open MPI / MPICH / collsim rules files (for machines too big to simulate;
    here a 256-node tapered fat-tree)."""
    import collsim
    from collsim import runner, select
    from collsim.network_model import has_pattern

    def no_simulation(*args, **kwargs):
        raise AssertionError("select --predict simulated")

    # (collbench still starts for the libraries' choices: --native-choice, no collective)
    monkeypatch.setattr(runner, "simulate", no_simulation)
    monkeypatch.setattr(select, "Grid", no_simulation)
    prefix, rules = tmp_path / "map", tmp_path / "ft.rules"
    openmpi, mpich = tmp_path / "ompi.rules", tmp_path / "mpich.json"
    tree = ["--platform", "fat-tree", "--levels", "2", "--down-ports", "16,16",
            "--up-ports", "1,4"]
    status = main(["select", *tree, "--coll", "allreduce", "--np", "64,256",
                   "--bytes", "8,1MiB", "--predict", "-o", str(prefix),
                   "--rules", str(rules), "--openmpi-rules", str(openmpi),
                   "--mpich-json", str(mpich)])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    rows = list(csv.DictReader(prefix.with_suffix(".csv").open()))
    assert [(r["np"], r["bytes"]) for r in rows] == [("64", "8"), ("64", "1048576"),
                                                    ("256", "8"), ("256", "1048576")]
    ranked = {key[:-2] for key, value in rows[0].items()
              if key.endswith("_s") and key not in ("fastest_s", "runner_up_s") and value}
    assert ranked == {e["algorithm"] for e in registry() if e["collective"] == "allreduce"
                      and has_pattern("allreduce", e["algorithm"])
                      and not is_selector(e["algorithm"])}
    platform = {"generator": "fat_tree", "levels": 2, "down_ports": [16, 16], "up_ports": [1, 4]}
    predicted = collsim.predict("allreduce", rows[3]["fastest"], 256, "1MiB", platform=platform)
    assert float(rows[3]["fastest_s"]) == predicted["model_s"][0]
    assert "predicted by the network model" in rules.read_text()
    assert openmpi.read_text().startswith("1  # collectives")
    assert '"comm_size<256"' in mpich.read_text()  # the map's two process counts
    assert "openmpi: " in captured.out and "mpich: " in captured.out


def test_select_predict_refuses_a_candidate_without_a_pattern(capsys, monkeypatch):
    from collsim.analysis.network import patterns

    monkeypatch.delitem(patterns.PATTERNS, ("allreduce", "ring"))
    assert main(["select", "--platform", "crossbar", "--nodes", "8", "--coll", "allreduce",
                 "--np", "8", "--bytes", "8", "--predict", "--algorithms", "ring"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "allreduce/ring has no network pattern" in err
