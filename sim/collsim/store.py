"""The results database of studies (SQLite), and its export to CSV and Parquet.

One row per measurement in ``measurement``, whose primary key is a hash of
everything that determines the result (the machine's platform hash, the
profile's settings, the collective, algorithm and its parameters, np, bytes,
dtype, op, root, seed, mapping, repetition, the collsim and SimGrid versions
and the collbench program) and of the study and machine the row is filed
under.  The rows of one simulation are written in one transaction, by one
process, in WAL mode: a study killed at any moment leaves either all rows of
a simulation or none, and a rerun skips the simulations whose rows are all
stored.

The study's scenario, machines (with their graphs, for the report's
pictures, and prices) and workload are stored beside the rows, so that a
database is a complete record: ``collsim report`` and ``collsim export`` need
nothing else.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import sqlite3
from pathlib import Path

from collsim.errors import CollsimError
from collsim.platforms.simgrid import write_atomically

__all__ = ["MEASUREMENT_COLUMNS", "open_store", "measurement_key", "stored_keys",
           "insert_rows", "record_study", "read_rows", "read_study", "export_csv",
           "export_parquet"]

# (column, SQL type); "params" is JSON text, booleans are stored as 0/1 and read back as such.
MEASUREMENT_COLUMNS = (
    ("key", "TEXT PRIMARY KEY"),
    ("study", "TEXT NOT NULL"),
    ("machine", "TEXT NOT NULL"),
    ("collective", "TEXT NOT NULL"),
    ("algorithm", "TEXT NOT NULL"),
    ("params", "TEXT NOT NULL"),
    ("platform", "TEXT NOT NULL"),
    ("platform_hash", "TEXT NOT NULL"),
    ("mapping", "TEXT NOT NULL"),
    ("profile", "TEXT NOT NULL"),
    ("np", "INTEGER NOT NULL"),
    ("bytes", "INTEGER NOT NULL"),
    ("dtype", "TEXT NOT NULL"),
    ("op", "TEXT"),
    ("root", "INTEGER"),
    ("seed", "INTEGER NOT NULL"),
    ("rep", "INTEGER NOT NULL"),
    ("time_s", "REAL NOT NULL"),
    ("model_s", "REAL"),
    ("model_low_s", "REAL"),
    ("model_high_s", "REAL"),
    ("model_class", "TEXT"),
    ("model_agrees", "INTEGER"),
    ("ratio", "REAL"),
    ("check", "TEXT"),
    ("bitwise_rank_order", "INTEGER"),
    ("ranks_agree", "INTEGER"),
    ("max_error_ratio", "REAL"),
    ("result_hash", "TEXT"),
    ("collsim_version", "TEXT NOT NULL"),
    ("library", "TEXT NOT NULL"),
    ("extra", "TEXT NOT NULL"),  # JSON: the row's fields that have no column of their own
)
_NAMES = [name for name, _ in MEASUREMENT_COLUMNS]
_COLUMN_SET = set(_NAMES)
_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS measurement ("
    + ", ".join(f'"{name}" {kind}' for name, kind in MEASUREMENT_COLUMNS) + ")",
    "CREATE INDEX IF NOT EXISTS measurement_study ON measurement (study, machine, collective)",
    "CREATE TABLE IF NOT EXISTS study (name TEXT PRIMARY KEY, scenario TEXT NOT NULL, "
    "profile TEXT NOT NULL, nps TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS machine (study TEXT NOT NULL, name TEXT NOT NULL, "
    "position INTEGER NOT NULL, source TEXT NOT NULL, platform_hash TEXT NOT NULL, "
    "price TEXT NOT NULL, cost REAL, graph TEXT NOT NULL, PRIMARY KEY (study, name))",
    "CREATE TABLE IF NOT EXISTS workload (study TEXT NOT NULL, collective TEXT NOT NULL, "
    "position INTEGER NOT NULL, weight REAL NOT NULL, sizes TEXT NOT NULL, "
    "size_weights TEXT NOT NULL, algorithms TEXT NOT NULL, choice TEXT NOT NULL, "
    "PRIMARY KEY (study, collective))",
)


def open_store(path: str | os.PathLike, *, create: bool = True) -> sqlite3.Connection:
    """Open (or create) a results database in WAL mode.

    Raises
    ------
    CollsimError
        If the file is missing (``create=False``) or is not a collsim database.
    """
    path = Path(path)
    if not create and not path.is_file():
        raise CollsimError(f"no results database at {path}")
    try:
        connection = sqlite3.connect(path, timeout=60.0, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
        columns = [name for _, name, *_ in connection.execute(
            "PRAGMA table_info(measurement)")]
        if columns and columns != _NAMES:
            raise CollsimError(f"{path}: results database of another collsim version "
                               "(its columns differ); use a new --db")
        if create:
            for statement in _SCHEMA:
                connection.execute(statement)
        elif not columns:
            raise CollsimError(f"{path} is not a collsim results database")
    except sqlite3.DatabaseError as error:
        raise CollsimError(f"{path}: not a usable SQLite database ({error})") from None
    return connection


def measurement_key(determinants: dict) -> str:
    """The primary key of a measurement: a hash of what determines it.

    Examples
    --------
    >>> measurement_key({"np": 2, "bytes": 8}) == measurement_key({"bytes": 8, "np": 2})
    True
    """
    canonical = json.dumps(determinants, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def stored_keys(connection: sqlite3.Connection, keys: list[str]) -> set[str]:
    """The subset of ``keys`` already stored."""
    found: set[str] = set()
    for start in range(0, len(keys), 500):
        chunk = keys[start:start + 500]
        marks = ",".join("?" * len(chunk))
        found.update(key for (key,) in connection.execute(
            f"SELECT key FROM measurement WHERE key IN ({marks})", chunk))
    return found


def _cell(name: str, value):
    if name in ("params", "extra"):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, bool):
        return int(value)
    return value


def insert_rows(connection: sqlite3.Connection, rows: list[dict]) -> None:
    """Insert the rows of one simulation in one transaction (all or nothing).

    Each row holds every column of ``MEASUREMENT_COLUMNS``.  A key already
    stored is an error: a study never writes a measurement twice.
    """
    marks = ",".join("?" * len(_NAMES))
    columns = ",".join(f'"{name}"' for name in _NAMES)
    values = []
    for row in rows:
        extra = {k: v for k, v in row.items() if k not in _COLUMN_SET}
        values.append([_cell(name, row.get(name)) for name in _NAMES[:-1]]
                      + [_cell("extra", extra)])
    with connection:
        connection.execute("BEGIN IMMEDIATE")
        connection.executemany(f"INSERT INTO measurement ({columns}) VALUES ({marks})", values)


def record_study(connection: sqlite3.Connection, *, name: str, scenario: str, profile: str,
                 nps: list[int], machines: list[dict], workloads: list[dict]) -> None:
    """Store (or replace) a study's scenario, machines and workload, in one transaction."""
    with connection:
        connection.execute("BEGIN IMMEDIATE")
        connection.execute("INSERT OR REPLACE INTO study VALUES (?, ?, ?, ?)",
                           (name, scenario, profile, json.dumps(nps)))
        connection.execute("DELETE FROM machine WHERE study = ?", (name,))
        connection.execute("DELETE FROM workload WHERE study = ?", (name,))
        for position, machine in enumerate(machines):
            connection.execute(
                "INSERT INTO machine VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (name, machine["name"], position, json.dumps(machine["source"], sort_keys=True),
                 machine["platform_hash"], json.dumps(machine["price"], sort_keys=True),
                 machine["cost"], json.dumps(machine["graph"], sort_keys=True, default=str)))
        for position, workload in enumerate(workloads):
            connection.execute(
                "INSERT INTO workload VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (name, workload["collective"], position, workload["weight"],
                 json.dumps(workload["sizes_bytes"]), json.dumps(workload["size_weights"]),
                 json.dumps(workload["algorithms"]), workload["choice"]))


def read_rows(connection: sqlite3.Connection, study: str | None = None) -> list[dict]:
    """All measurement rows (of one study, or of every study), in key order."""
    columns = ",".join(f'"{name}"' for name in _NAMES)
    query = f"SELECT {columns} FROM measurement"
    args: tuple = ()
    if study is not None:
        query += " WHERE study = ?"
        args = (study,)
    rows = []
    for values in connection.execute(query + " ORDER BY key", args):
        row = dict(zip(_NAMES, values))
        row["params"] = json.loads(row["params"])
        row["extra"] = json.loads(row["extra"])
        rows.append(row)
    return rows


def read_study(connection: sqlite3.Connection) -> list[dict]:
    """Every study of the database with its machines and workload, in storage order."""
    studies = []
    for name, scenario, profile, nps in connection.execute(
            "SELECT name, scenario, profile, nps FROM study ORDER BY name"):
        machines = [
            {"name": m, "source": json.loads(source), "platform_hash": platform_hash,
             "price": json.loads(price), "cost": cost, "graph": json.loads(graph)}
            for m, source, platform_hash, price, cost, graph in connection.execute(
                "SELECT name, source, platform_hash, price, cost, graph FROM machine "
                "WHERE study = ? ORDER BY position", (name,))]
        workloads = [
            {"collective": c, "weight": weight, "sizes_bytes": json.loads(sizes),
             "size_weights": json.loads(size_weights), "algorithms": json.loads(algorithms),
             "choice": choice}
            for c, weight, sizes, size_weights, algorithms, choice in connection.execute(
                "SELECT collective, weight, sizes, size_weights, algorithms, choice "
                "FROM workload WHERE study = ? ORDER BY position", (name,))]
        studies.append({"name": name, "scenario": scenario, "profile": profile,
                        "nps": json.loads(nps), "machines": machines, "workloads": workloads})
    return studies


def export_csv(rows: list[dict], path: str | os.PathLike) -> None:
    """Write the rows as CSV (one header line; params and extra as JSON), atomically."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(_NAMES)
    for row in rows:
        writer.writerow([_cell(name, row[name]) if row[name] is not None else ""
                         for name in _NAMES])
    write_atomically(path, buffer.getvalue().encode())


def export_parquet(rows: list[dict], path: str | os.PathLike) -> None:
    """Write the rows as Parquet (typed columns; params and extra as JSON text), atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {"INTEGER": pa.int64(), "REAL": pa.float64(), "TEXT": pa.string()}
    booleans = {"model_agrees", "bitwise_rank_order", "ranks_agree"}
    fields = []
    for name, kind in MEASUREMENT_COLUMNS:
        fields.append(pa.field(name, pa.bool_() if name in booleans else types[kind.split()[0]]))
    schema = pa.schema(fields)
    columns = {}
    for name in _NAMES:
        values = [row[name] for row in rows]
        if name in ("params", "extra"):
            values = [json.dumps(v, sort_keys=True) for v in values]
        elif name in booleans:
            values = [None if v is None else bool(v) for v in values]
        columns[name] = values
    table = pa.table(columns, schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    write_atomically(path, sink.getvalue().to_pybytes())
