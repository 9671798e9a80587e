"""Two `collsim study` processes on one database: both finish, every row stored once."""

import re
import subprocess
import sys

from collsim.cli import main
from collsim.store import open_store, read_rows

XBAR = {"xbar": {"platform": {"generator": "crossbar", "nodes": 4}}}
WORKLOADS = [{"collective": "allreduce", "sizes": ["8", "4KiB"],
              "algorithms": ["recursive_doubling", "ring", "rabenseifner", "reduce_bcast"]},
             {"collective": "bcast", "sizes": ["8", "4KiB"], "algorithms": ["binomial", "linear"]}]
SIMULATIONS = (4 + 2) * 2
ROWS = SIMULATIONS * 2


def _rows(db):
    connection = open_store(db, create=False)
    rows = read_rows(connection)
    connection.close()
    return rows


def test_two_studies_on_one_database_share_the_work(tmp_path, capsys, write_scenario):
    scenario = write_scenario(tmp_path / "shared.toml", "shared", [3, 4], XBAR, WORKLOADS)
    db = tmp_path / "shared.db"
    command = [sys.executable, "-m", "collsim", "study", str(scenario), "--db", str(db),
               "--jobs", "1"]
    processes = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(2)]
    outputs = [process.communicate(timeout=300) for process in processes]
    for process, (out, err) in zip(processes, outputs):
        assert process.returncode == 0, err
        assert "Traceback" not in err
    written = [int(re.search(r"(\d+) rows written", out).group(1)) for out, _ in outputs]
    run = [int(re.search(r"(\d+) simulations run", out).group(1)) for out, _ in outputs]
    assert sum(written) == ROWS  # every row written once, by one of the two
    assert sum(run) >= SIMULATIONS
    rows = _rows(db)
    assert len(rows) == ROWS and len({row["key"] for row in rows}) == ROWS
    # the same rows as one study alone
    alone = tmp_path / "alone.db"
    assert main(["study", str(scenario), "--db", str(alone), "--jobs", "1"]) == 0
    capsys.readouterr()
    assert rows == _rows(alone)


def test_a_database_another_study_is_creating_is_opened(tmp_path):
    """The moment a concurrent study has made the file but not its tables yet: an
    SQLite file in WAL mode with no table is a database to create, not a damaged one
    (CI saw "no such table: measurement" from the second of two studies)."""
    import sqlite3

    db = tmp_path / "creating.db"
    first = sqlite3.connect(db)
    first.execute("PRAGMA journal_mode=WAL")
    second = open_store(db)
    assert {name for (name,) in second.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")} >= {"measurement", "claim"}
    second.close()
    first.close()
