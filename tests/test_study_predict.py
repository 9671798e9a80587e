"""A study that simulates up to a process count and predicts beyond it
(``predict_above_np``): both kinds stored with their class, the report shows them apart
with the network model's error where both exist."""

import pytest

import collsim
from collsim.analysis.network import patterns
from collsim.cli import main
from collsim.report import build_report

SCENARIO = """\
[study]
name = "beyond"
np = [8, 16, 64]
mappings = ["random"]
predict_above_np = 8
timing_only = true

[[machine]]
name = "tapered"
platform = { generator = "fat_tree", levels = 2, down_ports = [8, 8], up_ports = [1, 2] }

[[workload]]
collective = "allreduce"
sizes = ["8", "64KiB"]
algorithms = ["recursive_doubling", "rabenseifner", "binary_blocks"]
"""


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("beyond")
    scenario = tmp_path / "beyond.toml"
    scenario.write_text(SCENARIO)
    db = tmp_path / "beyond.db"
    with pytest.MonkeyPatch.context() as patch:  # an entry without a pattern, whatever is added
        patch.delitem(patterns.PATTERNS, ("allreduce", "binary_blocks"), raising=False)
        frame = collsim.study(scenario, db=db, jobs=1)
    return scenario, db, frame


def test_simulated_and_predicted_cells_are_stored_with_their_class(study):
    _, _, frame = study
    simulated = frame[frame["np"] == 8]
    predicted = frame[frame["np"] > 8]
    assert set(simulated["model_class"]) == {"network", "approx"}  # binary_blocks: no pattern
    assert set(simulated["library"]) != {"network model"}
    assert (predicted["model_class"] == "predicted").all()
    assert (predicted["library"] == "network model").all()
    assert (predicted["time_s"] == predicted["model_s"]).all() and predicted["ratio"].isna().all()
    assert predicted["flat_model_s"].notna().all()
    # 2 algorithms with a pattern x 2 process counts x 2 sizes; binary_blocks not predicted
    assert sorted(set(predicted["algorithm"])) == ["rabenseifner", "recursive_doubling"]
    assert len(predicted) == 8 and set(predicted["np"]) == {16, 64}


def test_a_predicted_cell_is_collsim_predicts(study):
    _, _, frame = study
    row = frame[(frame["np"] == 64) & (frame["algorithm"] == "rabenseifner")
                & (frame["bytes"] == 65536)].iloc[0]
    predicted = collsim.predict("allreduce", "rabenseifner", 64, "64KiB", mapping="random",
                                platform={"generator": "fat_tree", "levels": 2,
                                          "down_ports": [8, 8], "up_ports": [1, 2]})
    assert row["model_s"] == predicted["model_s"][0]


def test_a_rerun_finds_everything_stored(study, capsys, monkeypatch):
    scenario, db, frame = study
    monkeypatch.delitem(patterns.PATTERNS, ("allreduce", "binary_blocks"), raising=False)
    assert main(["study", str(scenario), "--db", str(db), "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "0 simulations run, 3 already stored, 0 rows written" in out
    assert "(np > 8: 4 cells predicted by the network model)" in out


def test_the_report_shows_them_apart_with_the_error_where_both_exist(study):
    _, db, frame = study
    page, _ = build_report(str(db))
    assert "<h2>Simulated and predicted</h2>" in page
    section = page[page.index('<table class="predicted">'):]
    section = section[:section.index("</table>")]
    networked = frame[frame["model_class"] == "network"]
    worst = (networked["ratio"] - 1).abs().max()
    assert "<td class=name>tapered</td><td>6</td><td>8</td>" in section
    assert "<td class=name>16, 64</td><td>4</td>" in section
    assert f"{100 * worst:.2f}%" in section
    assert "(random mapping, predicted by the network model)" in page
    assert "PREDICTED by the network model, not simulated" in page


def test_a_bad_threshold_is_one_line(tmp_path, capsys):
    scenario = tmp_path / "bad.toml"
    scenario.write_text(SCENARIO.replace("predict_above_np = 8", "predict_above_np = 'x'"))
    assert main(["study", str(scenario), "--db", str(tmp_path / "x.db")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "study.predict_above_np" in err
