"""The results database of studies and of ``collsim repro`` (SQLite), and its export
to CSV and Parquet.

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

A database of the previous collsim version (without ``flat_model_s``: before
the network model was the model of rows off the crossbar) is read as it is,
the missing column NULL, and gains the column when a study writes to it; its
rows keep what they say (``model_class`` ``approx``: their ``model_s`` is the
flat model's), and a resumed study does not recompute them.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import json
import os
import sqlite3
from pathlib import Path

from collsim.errors import CollsimError
from collsim.files import check_input_path, check_output_path
from collsim.files import write_output

__all__ = ["MEASUREMENT_COLUMNS", "open_store", "close_store", "measurement_key", "stored_keys", "claim",
           "insert_rows", "record_study", "read_rows", "read_measurements", "read_study",
           "export_csv", "export_parquet"]

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
    # the flat alpha-beta model's time where model_s is the network model's (class network)
    ("flat_model_s", "REAL"),
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
# The columns a database of the previous collsim version has (before the network model
# in rows): opened for writing, it gains the new ones (``ALTER TABLE``: added last);
# read, they read as NULL.  Its rows are honest as they stand: their ``model_class``
# (approx, not network) says their ``model_s`` is the flat model's.
_ADDED = ("flat_model_s",)
_LEGACY_NAMES = [name for name in _NAMES if name not in _ADDED]
_BOOLEANS = {"model_agrees", "bitwise_rank_order", "ranks_agree"}
# REAL columns that collbench prints (%.17g): an integral value below 1e17 has no decimal
# point there, so a row fresh from a simulation holds it as an int
_PRINTED_BY_COLLBENCH = ("time_s", "max_error_ratio")
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
    # a simulation a running study has taken (concurrent studies on one database share
    # the work); only an ordering hint: what is not stored is run whoever claimed it
    "CREATE TABLE IF NOT EXISTS claim (simulation TEXT PRIMARY KEY, pid INTEGER NOT NULL)",
)


# How long to wait for a database another process holds (a concurrent study writes one
# simulation's rows at a time, so waits are short; a lock held longer is reported).
LOCK_TIMEOUT_S = 60.0
_SQLITE_MAGIC = b"SQLite format 3\x00"


def _database_error(path: Path, error: sqlite3.Error) -> CollsimError:
    """One line for an SQLite error: a lock held too long, a write refused (a full
    disk, a read-only or immutable file), or an unusable file."""
    text = str(error)
    if "locked" in text or "busy" in text:
        return CollsimError(f"{path}: locked by another process (waited {LOCK_TIMEOUT_S:g} s)")
    if any(word in text for word in ("full", "readonly", "read-only", "disk I/O",
                                     "unable to open")):
        return CollsimError(f"{path}: cannot write the results database ({text}); the rows "
                            "stored before are kept")
    return CollsimError(f"{path}: not a usable SQLite database ({text})")


# The SQLite storage classes each column's declared type admits (TEXT in a REAL
# column is stored as it is: type affinity does not refuse it).
_STORAGE_CLASSES = {"INTEGER": ("integer",), "REAL": ("real", "integer"), "TEXT": ("text",)}


def _check_integrity(connection: sqlite3.Connection, path: Path) -> None:
    """Refuse a damaged database: SQLite's own check of its pages and indexes, then
    every stored value of the type its column declares (a text in ``time_s`` would
    fail far from here)."""
    problems = [row[0] for row in connection.execute("PRAGMA quick_check(3)")]
    tables = {name for (name,) in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'")}
    if problems != ["ok"]:
        found = " ".join(" ".join(problems).split())  # SQLite's report spans lines
        raise CollsimError(f"{path}: damaged results database (SQLite's integrity check: "
                           f"{found[:100]}); collsim leaves it as it is")
    if "measurement" not in tables:
        return  # an empty database (a concurrent study has not made its tables yet)
    present = set(_present_columns(connection))
    checked = [(name, kind) for name, kind in MEASUREMENT_COLUMNS if name in present]
    conditions = []
    for name, kind in checked:
        classes = _STORAGE_CLASSES[kind.split()[0]] + (() if "NOT NULL" in kind
                                                        or "PRIMARY" in kind else ("null",))
        listed = ", ".join(f"'{c}'" for c in classes)
        conditions.append(f'typeof("{name}") NOT IN ({listed})')
    bad = connection.execute(
        "SELECT " + ", ".join(f"SUM({c})" for c in conditions) + " FROM measurement").fetchone()
    for (name, kind), count in zip(checked, bad):
        if count:
            raise CollsimError(f"{path}: corrupt results database: {count} value(s) of "
                               f"measurement.{name} are not {kind.split()[0]}; collsim leaves "
                               "it as it is")


def _measurement_columns(path: Path, *, read_only: bool) -> list[str] | None:
    """The columns of the file's measurement table (None: it has none; [] the
    database has no table at all), read
    without changing the file: a file in rollback-journal mode (a foreign one, or
    one collsim has not opened yet) through a read-only connection; a WAL file
    through an ordinary one, which leaves its -wal and -shm files as it found
    them (read-only ones stay behind)."""
    if read_only:
        connection = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True,
                                     timeout=LOCK_TIMEOUT_S)
    else:
        connection = sqlite3.connect(path, timeout=LOCK_TIMEOUT_S)
    try:
        tables = {name for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            return []  # an empty database (one a concurrent study is creating): usable
        if "measurement" not in tables:
            return None
        return [name for _, name, *_ in connection.execute("PRAGMA table_info(measurement)")]
    finally:
        connection.close()


def open_store(path: str | os.PathLike, *, create: bool = True) -> sqlite3.Connection:
    """Open (or create) a results database in WAL mode.

    A file that is not a collsim results database is refused before anything
    is written to it (no WAL switch, no tables added): only a new file, an
    empty one or a collsim database is opened for writing.

    Raises
    ------
    CollsimError
        If the file is missing (``create=False``), a directory, not SQLite,
        not a collsim database or of another collsim version, or locked by
        another process for longer than ``LOCK_TIMEOUT_S``.
    """
    path = Path(path)
    if str(path) == "":
        raise CollsimError("--db: empty file name")
    if path.is_dir():
        raise CollsimError(f"{path} is a directory, not a results database")
    if not create and not path.is_file():
        if path.exists():
            raise CollsimError(f"{path}: not a regular file, not a results database")
        raise CollsimError(f"no results database at {path}")
    if path.exists() and not path.is_file():  # a device or a FIFO: SQLite would wait or fail
        raise CollsimError(f"{path}: not a regular file; a results database is one")
    # the database is read, and written unless create=False: no output may name it
    if not create:
        check_input_path(path, "results database")
    elif path.is_file() and path.stat().st_size > 0:
        check_output_path(path, "--db")
        try:  # an immutable or read-only file: refused before SQLite makes its -wal and -shm
            with open(path, "r+b"):
                pass
        except OSError as error:
            raise CollsimError(f"{path}: cannot write the results database "
                               f"({error.strerror})") from None
    try:
        if path.exists() and path.stat().st_size > 0:
            with open(path, "rb") as handle:
                header = handle.read(100)
            if not header.startswith(_SQLITE_MAGIC) or len(header) < 100:
                raise CollsimError(f"{path}: not a usable SQLite database (not an SQLite "
                                   "file); collsim leaves it as it is")
            columns = _measurement_columns(path, read_only=header[18] != 2)
            if columns is None:
                raise CollsimError(f"{path} is not a collsim results database (no measurement "
                                   "table); collsim leaves it as it is")
            if columns == [] and not create:
                raise CollsimError(f"{path} is not a collsim results database (no tables)")
            if columns and columns not in (_NAMES, _LEGACY_NAMES, _LEGACY_NAMES + list(_ADDED)):
                raise CollsimError(f"{path}: results database of another collsim version "
                                   "(its columns differ); use a new --db")
        elif not create:
            raise CollsimError(f"{path} is not a collsim results database (an empty file)")
        else:
            check_output_path(path, "--db")
        connection = sqlite3.connect(path, timeout=LOCK_TIMEOUT_S, isolation_level=None)
    except OSError as error:
        raise CollsimError(f"cannot open results database {path}: {error.strerror}") from None
    except sqlite3.Error as error:
        raise _database_error(path, error) from None
    try:
        if path.stat().st_size > 0:
            _check_integrity(connection, path)
        if create:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            # in one transaction: a concurrent study sees no table or all of them
            with connection:
                connection.execute("BEGIN IMMEDIATE")
                for statement in _SCHEMA:
                    connection.execute(statement)
                present = _present_columns(connection)  # under the lock: one study migrates
                for name in _ADDED:
                    if name not in present:
                        connection.execute(f'ALTER TABLE measurement ADD COLUMN "{name}" '
                                           f"{dict(MEASUREMENT_COLUMNS)[name]}")
    except BaseException as error:
        close_store(connection)
        if isinstance(error, sqlite3.Error):
            raise _database_error(path, error) from None
        if isinstance(error, OSError):
            raise CollsimError(f"cannot open results database {path}: {error.strerror}") from None
        raise
    return connection


def close_store(connection: sqlite3.Connection) -> None:
    """Close a results database, folding its write-ahead log back into the file first
    (so that no -wal or -shm file is left beside it; where that fails, a full disk,
    the log keeps the committed rows and SQLite folds it in at the next opening)."""
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    except sqlite3.Error:
        pass
    connection.close()


def _database_path(connection: sqlite3.Connection) -> str:
    return connection.execute("PRAGMA database_list").fetchone()[2]


def _json(connection: sqlite3.Connection, table: str, column: str, text: str):
    """A JSON column's value; a corrupt one is one line naming the database."""
    try:
        return json.loads(text)
    except (TypeError, json.JSONDecodeError):
        raise CollsimError(f"{_database_path(connection)}: corrupt results database: "
                           f"{table}.{column} holds {str(text)[:40]!r}, not JSON") from None


def measurement_key(determinants: dict) -> str:
    """The primary key of a measurement: a hash of what determines it.

    Examples
    --------
    >>> measurement_key({"np": 2, "bytes": 8}) == measurement_key({"bytes": 8, "np": 2})
    True
    """
    canonical = json.dumps(determinants, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def _key_chunks(keys: list[str]):
    """(``WHERE`` clause, its arguments) for a list of keys, 500 keys at a time (SQLite
    limits the parameters of a statement)."""
    for start in range(0, len(keys), 500):
        chunk = tuple(keys[start:start + 500])
        yield f"WHERE key IN ({','.join('?' * len(chunk))})", chunk


def stored_keys(connection: sqlite3.Connection, keys: list[str]) -> set[str]:
    """The subset of ``keys`` already stored."""
    found: set[str] = set()
    for where, chunk in _key_chunks(keys):
        found.update(key for (key,) in connection.execute(
            f"SELECT key FROM measurement {where}", chunk))
    return found


def claim(connection: sqlite3.Connection, simulation: str) -> bool:
    """Claim a simulation for this process; False if another process claimed it first."""
    with _writing(connection):
        cursor = connection.execute("INSERT OR IGNORE INTO claim VALUES (?, ?)",
                                    (simulation, os.getpid()))
    return cursor.rowcount == 1


@contextlib.contextmanager
def _writing(connection: sqlite3.Connection):
    """A write to the database: an SQLite error (a full disk, an immutable file) is one
    line naming the database; the transaction is rolled back, what was stored stays."""
    try:
        yield
    except sqlite3.Error as error:
        raise _database_error(Path(_database_path(connection)), error) from None


def _cell(name: str, value):
    if name in ("params", "extra"):
        return json.dumps(value, sort_keys=True)
    if isinstance(value, bool):
        return int(value)
    return value


def insert_rows(connection: sqlite3.Connection, rows: list[dict], *,
                skip_stored: bool = False) -> list[dict]:
    """Insert the rows of one simulation in one transaction (all or nothing).

    Each row holds every column of ``MEASUREMENT_COLUMNS``.  A key already
    stored is an error: a study never writes a measurement twice; unless
    ``skip_stored``, for a study that shares its database with another one
    running at the same time: a row the other stored meanwhile has the same
    key, hence the same determinants, and is left as it is.

    Returns
    -------
    list of dict
        The rows written.
    """
    marks = ",".join("?" * len(_NAMES))
    columns = ",".join(f'"{name}"' for name in _NAMES)
    with _writing(connection), connection:
        connection.execute("BEGIN IMMEDIATE")
        if skip_stored:
            present = stored_keys(connection, [row["key"] for row in rows])
            rows = [row for row in rows if row["key"] not in present]
        values = []
        for row in rows:
            extra = {k: v for k, v in row.items() if k not in _COLUMN_SET}
            values.append([_cell(name, row.get(name)) for name in _NAMES[:-1]]
                          + [_cell("extra", extra)])
        connection.executemany(f"INSERT INTO measurement ({columns}) VALUES ({marks})", values)
    return rows


def record_study(connection: sqlite3.Connection, *, name: str, scenario: str, profile: str,
                 nps: list[int], machines: list[dict], workloads: list[dict]) -> None:
    """Store (or replace) a study's scenario, machines and workload, in one transaction."""
    with _writing(connection), connection:
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


def _decode(connection: sqlite3.Connection, values: tuple) -> dict:
    """A stored row: its columns, params and extra parsed."""
    row = dict(zip(_NAMES, values))
    row["params"] = _json(connection, "measurement", "params", row["params"])
    row["extra"] = _json(connection, "measurement", "extra", row["extra"])
    return row


def _present_columns(connection: sqlite3.Connection) -> list[str]:
    """The columns of the measurement table as the database has them."""
    return [name for _, name, *_ in connection.execute("PRAGMA table_info(measurement)")]


def _select(connection: sqlite3.Connection, where: str, args: tuple) -> list[dict]:
    try:
        present = set(_present_columns(connection))
        # a database of the previous version read without changing it: its missing columns NULL
        columns = ",".join(f'"{name}"' if name in present else "NULL" for name in _NAMES)
        return [_decode(connection, values) for values in connection.execute(
            f"SELECT {columns} FROM measurement {where} ORDER BY key", args)]
    except sqlite3.Error as error:
        raise _database_error(Path(_database_path(connection)), error) from None


def read_rows(connection: sqlite3.Connection, study: str | None = None) -> list[dict]:
    """All measurement rows (of one study, or of every study), in key order."""
    if study is None:
        return _select(connection, "", ())
    return _select(connection, "WHERE study = ?", (study,))


def read_measurements(connection: sqlite3.Connection, keys: list[str]) -> dict[str, dict]:
    """The stored rows of these keys as the simulation gave them: key -> row
    (booleans as booleans, integral numbers collbench printed as ints, the
    extra fields beside the columns; without key, study and machine)."""
    found = {}
    for where, chunk in _key_chunks(keys):
        for row in _select(connection, where, chunk):
            key = row.pop("key")
            del row["study"], row["machine"]
            for name in _BOOLEANS:
                if row[name] is not None:
                    row[name] = bool(row[name])
            for name in _PRINTED_BY_COLLBENCH:
                value = row[name]
                if isinstance(value, float) and value.is_integer() and abs(value) < 1e17:
                    row[name] = int(value)
            row.update(row.pop("extra"))
            found[key] = row
    return found


def read_study(connection: sqlite3.Connection) -> list[dict]:
    """Every study of the database with its machines and workload, in storage order."""
    studies = []
    try:
        for name, scenario, profile, nps in connection.execute(
                "SELECT name, scenario, profile, nps FROM study ORDER BY name").fetchall():
            def load(table, column, text):
                return _json(connection, table, column, text)
            machines = [
                {"name": m, "source": load("machine", "source", source),
                 "platform_hash": platform_hash, "price": load("machine", "price", price),
                 "cost": cost, "graph": load("machine", "graph", graph)}
                for m, source, platform_hash, price, cost, graph in connection.execute(
                    "SELECT name, source, platform_hash, price, cost, graph FROM machine "
                    "WHERE study = ? ORDER BY position", (name,))]
            workloads = [
                {"collective": c, "weight": weight, "sizes_bytes": load("workload", "sizes", sizes),
                 "size_weights": load("workload", "size_weights", size_weights),
                 "algorithms": load("workload", "algorithms", algorithms), "choice": choice}
                for c, weight, sizes, size_weights, algorithms, choice in connection.execute(
                    "SELECT collective, weight, sizes, size_weights, algorithms, choice "
                    "FROM workload WHERE study = ? ORDER BY position", (name,))]
            studies.append({"name": name, "scenario": scenario, "profile": profile,
                            "nps": load("study", "nps", nps), "machines": machines,
                            "workloads": workloads})
    except sqlite3.Error as error:
        raise _database_error(Path(_database_path(connection)), error) from None
    return studies


def export_csv(rows: list[dict], path: str | os.PathLike) -> None:
    """Write the rows as CSV (one header line; params and extra as JSON), atomically."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(_NAMES)
    for row in rows:
        writer.writerow([_cell(name, row[name]) if row[name] is not None else ""
                         for name in _NAMES])
    write_output(path, buffer.getvalue().encode())


def export_parquet(rows: list[dict], path: str | os.PathLike) -> None:
    """Write the rows as Parquet (typed columns; params and extra as JSON text), atomically."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {"INTEGER": pa.int64(), "REAL": pa.float64(), "TEXT": pa.string()}
    fields = []
    for name, kind in MEASUREMENT_COLUMNS:
        fields.append(pa.field(name, pa.bool_() if name in _BOOLEANS else types[kind.split()[0]]))
    schema = pa.schema(fields)
    columns = {}
    for name in _NAMES:
        values = [row[name] for row in rows]
        if name in ("params", "extra"):
            values = [json.dumps(v, sort_keys=True) for v in values]
        elif name in _BOOLEANS:
            values = [None if v is None else bool(v) for v in values]
        columns[name] = values
    table = pa.table(columns, schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    write_output(path, sink.getvalue().to_pybytes())
