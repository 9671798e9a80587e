"""collsim study / export: resumable after SIGKILL, identical on Dask, exportable."""

import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from collsim.cli import main
from collsim.store import open_store, read_rows

# 2 machines x (4 allreduce + 2 bcast algorithms) x 3 process counts = 36 simulations
SCENARIO = """\
[study]
name = "resume"
np = [3, 4, 8]

[[machine]]
name = "xbar-slow"
platform = {{ generator = "crossbar", nodes = 8, bandwidth_Bps = 5e9 }}
price = {{ per_node = 100.0, per_switch = 1000.0 }}

[[machine]]
name = "xbar-fast"
platform = {{ generator = "crossbar", nodes = 8, bandwidth_Bps = 25e9 }}
price = {{ per_node = 180.0, per_switch = 1000.0 }}

[[workload]]
collective = "allreduce"
weight = 0.37
sizes = {sizes}
algorithms = ["recursive_doubling", "ring", "rabenseifner", "reduce_bcast"]

[[workload]]
collective = "bcast"
weight = 0.63
sizes = ["8", "1MiB"]
algorithms = ["binomial", "linear"]
"""
COLLSIM = [sys.executable, "-m", "collsim"]


def write_scenario(tmp_path, sizes='["8", "4KiB", "1MiB"]'):
    path = tmp_path / "study.toml"
    path.write_text(SCENARIO.format(sizes=sizes))
    return path


def table(db):
    """Every stored row, as comparable tuples, and the integrity check."""
    connection = open_store(db, create=False)
    rows = read_rows(connection)
    check = connection.execute("PRAGMA integrity_check").fetchone()[0]
    connection.close()
    return rows, check


def run_study(scenario, db, *extra):
    return subprocess.run([*COLLSIM, "study", str(scenario), "--db", str(db), *extra],
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run of the scenario, with its wall time."""
    tmp_path = tmp_path_factory.mktemp("reference")
    scenario = write_scenario(tmp_path)
    started = time.monotonic()
    completed = run_study(scenario, tmp_path / "ref.db", "--jobs", "2")
    duration_s = time.monotonic() - started
    assert completed.returncode == 0, completed.stderr
    rows, check = table(tmp_path / "ref.db")
    assert check == "ok" and len(rows) == 2 * (4 * 3 + 2 * 2) * 3
    return rows, duration_s, completed, tmp_path / "ref.db"


def test_progress_line_and_summary(reference):
    _, _, completed, _ = reference
    progress = completed.stderr.splitlines()
    assert progress[0].startswith("study: 0/36 simulations")
    assert progress[-1].startswith("study: 36/36 simulations") and "ETA 00:00" in progress[-1]
    assert "/s, ETA" in progress[1]
    assert "36 simulations run, 0 already stored, 96 rows written" in completed.stdout


def stored_count(db):
    """Rows stored so far, read while the study may be writing (WAL: readers never block)."""
    if not db.exists():
        return 0
    connection = sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        return connection.execute("SELECT count(*) FROM measurement").fetchone()[0]
    except sqlite3.OperationalError:  # the table is not created yet
        return 0
    finally:
        connection.close()


def test_killed_three_times_then_resumed_equals_an_uninterrupted_run(tmp_path, reference):
    expected, _, _, _ = reference
    scenario = write_scenario(tmp_path)
    db = tmp_path / "killed.db"
    seed = random.randrange(2**32)
    rng = random.Random(seed)
    # three random moments: once the study has stored at least k rows, a random further
    # delay (mid-simulation, mid-commit or between the two), then SIGKILL
    thresholds = sorted(rng.sample(range(1, int(0.7 * len(expected))), 3))
    partial = []
    for threshold in thresholds:
        process = subprocess.Popen([*COLLSIM, "study", str(scenario), "--db", str(db),
                                    "--jobs", "2"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=True)
        while stored_count(db) < threshold and process.poll() is None:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.25))
        os.killpg(process.pid, signal.SIGKILL)  # the study and its workers, at once
        process.wait()
        rows, check = table(db)
        assert check == "ok", f"seed {seed}"
        assert len({row["key"] for row in rows}) == len(rows)
        partial.append(len(rows))
    assert all(n < len(expected) for n in partial), (seed, partial)  # killed mid-study
    completed = run_study(scenario, db, "--jobs", "2")
    assert completed.returncode == 0, completed.stderr
    rows, check = table(db)
    assert check == "ok"
    assert rows == expected, f"seed {seed}: rows differ after resuming"
    # a rerun of a complete study runs nothing and writes nothing
    again = run_study(scenario, db, "--jobs", "2")
    assert "0 simulations run, 36 already stored, 0 rows written" in again.stdout
    assert table(db)[0] == expected


def test_a_grown_scenario_runs_only_what_is_missing(tmp_path, capsys):
    small = write_scenario(tmp_path, sizes='["8"]')
    db = tmp_path / "grow.db"
    assert main(["study", str(small), "--db", str(db), "--jobs", "1"]) == 0
    first, _ = table(db)
    grown = write_scenario(tmp_path, sizes='["8", "64KiB"]')
    capsys.readouterr()
    assert main(["study", str(grown), "--db", str(db), "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    # every allreduce simulation reruns (a size was added), only the new rows are written
    assert "24 simulations run, 12 already stored, 24 rows written" in out
    rows, check = table(db)
    assert check == "ok" and len(rows) == len(first) + 24
    assert all(row in rows for row in first)


def test_export_csv_and_parquet_hold_every_row(tmp_path, reference):
    expected, _, _, db = reference
    csv_path, parquet_path = tmp_path / "rows.csv", tmp_path / "rows.parquet"
    assert main(["export", str(db), "--csv", str(csv_path), "--parquet", str(parquet_path)]) == 0
    lines = csv_path.read_text().splitlines()
    assert len(lines) == 1 + len(expected) and lines[0].startswith("key,study,machine,")
    frame = pq.read_table(parquet_path).to_pylist()
    assert [r["key"] for r in frame] == [r["key"] for r in expected]
    assert [r["time_s"] for r in frame] == [r["time_s"] for r in expected]
    assert frame[0]["model_agrees"] is True


def test_export_and_study_errors_are_one_line(tmp_path, capsys):
    assert main(["export", str(tmp_path / "none.db"), "--csv", str(tmp_path / "x.csv")]) == 2
    assert capsys.readouterr().err == f"collsim: error: no results database at {tmp_path / 'none.db'}\n"
    (tmp_path / "junk.db").write_bytes(b"not a database at all" * 100)
    assert main(["export", str(tmp_path / "junk.db"), "--csv", str(tmp_path / "x.csv")]) == 2
    assert "not a usable SQLite database" in capsys.readouterr().err
    assert main(["study", str(write_scenario(tmp_path)), "--scheduler", "127.0.0.1:1"]) == 2
    assert "--scheduler: must be an address such as tcp://HOST:PORT" in capsys.readouterr().err


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_dask_cluster_produces_the_rows_of_the_local_run(tmp_path, reference):
    expected, _, _, _ = reference
    dask = Path(sys.executable).with_name("dask")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    logs = tmp_path / "dask.log"
    processes = []
    with open(logs, "w") as log:
        try:
            processes.append(subprocess.Popen(
                [dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                 "--no-dashboard"], stdout=log, stderr=log, start_new_session=True))
            processes.append(subprocess.Popen(
                [dask, "worker", address, "--nworkers", "2", "--nthreads", "1",
                 "--host", "127.0.0.1", "--no-dashboard"],
                stdout=log, stderr=log, start_new_session=True))
            # both workers registered with the scheduler (read from its log, so that this
            # test process holds no Dask client of its own)
            deadline = time.monotonic() + 90
            while logs.read_text().count("Register worker") < 2:
                assert time.monotonic() < deadline, logs.read_text()
                time.sleep(0.2)
            scenario = write_scenario(tmp_path)
            completed = run_study(scenario, tmp_path / "dask.db", "--scheduler", address)
            assert completed.returncode == 0, completed.stderr + logs.read_text()
            assert "36 simulations run" in completed.stdout
        finally:
            for process in processes:
                os.killpg(process.pid, signal.SIGTERM)
            for process in processes:
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
    rows, check = table(tmp_path / "dask.db")
    assert check == "ok" and rows == expected


def test_failed_simulations_are_reported_and_retried_by_a_rerun(tmp_path, capsys):
    scenario = write_scenario(tmp_path, sizes='["8"]')
    text = scenario.read_text()
    scenario.write_text(text.replace('np = [3, 4, 8]', 'np = [3]\ntimeout_s = 1e-4'))
    db = tmp_path / "failing.db"
    assert main(["study", str(scenario), "--db", str(db), "--jobs", "1"]) == 1
    captured = capsys.readouterr()
    failed = [line for line in captured.err.splitlines() if line.startswith("collsim: failed: ")]
    assert len(failed) == 12 and "did not finish within 0.0001 s" in failed[0]
    assert "12 failures" in captured.out
    assert table(db) == ([], "ok")
    scenario.write_text(text.replace('np = [3, 4, 8]', 'np = [3]'))
    assert main(["study", str(scenario), "--db", str(db), "--jobs", "1"]) == 0
    assert "12 simulations run, 0 already stored, 16 rows written" in capsys.readouterr().out


def test_the_store_keeps_fields_without_a_column_and_refuses_foreign_databases(tmp_path):
    from collsim.store import MEASUREMENT_COLUMNS, insert_rows

    db = tmp_path / "store.db"
    connection = open_store(db)
    row = {name: 1 for name, _ in MEASUREMENT_COLUMNS}
    row.update(key="k", params={"segment_bytes": 0}, extra=None, dist="normal",
               max_ulp_error=0.5)
    insert_rows(connection, [row])
    stored = read_rows(connection)
    connection.close()
    assert stored[0]["extra"] == {"dist": "normal", "max_ulp_error": 0.5}
    assert stored[0]["params"] == {"segment_bytes": 0}
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE measurement (key TEXT PRIMARY KEY)").connection.commit()
    with pytest.raises(Exception, match="another collsim version"):
        open_store(other)
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(Exception, match="is not a collsim results database"):
        open_store(empty, create=False)


def test_a_database_of_the_previous_version_is_read_as_it_is_and_gains_flat_model_s(tmp_path):
    """Before the network model in rows the store had no ``flat_model_s``: such a database
    is read without being changed (the column reads as NULL), and a study writing to it
    adds the column (its old rows keep their class, ``approx``: the flat model)."""
    from collsim.store import MEASUREMENT_COLUMNS, _cell, close_store, export_csv, insert_rows

    old = [(name, kind) for name, kind in MEASUREMENT_COLUMNS if name != "flat_model_s"]
    db = tmp_path / "old.db"
    connection = sqlite3.connect(db)
    connection.execute("CREATE TABLE measurement ("
                       + ", ".join(f'"{n}" {k}' for n, k in old) + ")")
    row = {name: 1 for name, _ in old}
    row.update(key="old", params={}, extra={}, model_class="approx", model_s=2.0)
    connection.execute(f"INSERT INTO measurement VALUES ({','.join('?' * len(old))})",
                       [_cell(name, row[name]) for name, _ in old])
    connection.commit()
    connection.close()
    before = db.read_bytes()
    connection = open_store(db, create=False)
    (stored,) = read_rows(connection)
    close_store(connection)
    assert stored["flat_model_s"] is None and stored["model_class"] == "approx"
    assert db.read_bytes() == before  # read, not migrated
    connection = open_store(db)
    new = {name: 1 for name, _ in MEASUREMENT_COLUMNS}
    new.update(key="new", params={}, extra=None, model_class="network", flat_model_s=0.5)
    insert_rows(connection, [new])
    by_key = {r["key"]: r for r in read_rows(connection)}
    close_store(connection)
    assert (by_key["old"]["flat_model_s"], by_key["new"]["flat_model_s"]) == (None, 0.5)
    export_csv(list(by_key.values()), tmp_path / "rows.csv")
    header, *lines = (tmp_path / "rows.csv").read_text().splitlines()
    column = header.split(",").index("flat_model_s")
    assert sorted(line.split(",")[column] for line in lines) == ["", "0.5"]
    connection = open_store(db)  # opened again: nothing more to add
    close_store(connection)
