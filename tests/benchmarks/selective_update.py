"""Benchmark: the accuracy grid's off cells simulated again without SimGrid's selective update.

SimGrid's default network update (``network/optim:Lazy``, which requires
``network/maxmin-selective-update``) solves max-min only over the links it
marks modified since the last event.  On some cells this gives flows more
than a link's capacity: the 48-rank ``scattered`` alltoall of 256 KiB blocks
on the 2:1 fat-tree puts 24 flows of 262,160 B on one up-link of 12.5 GB/s
(503 us at least) and SimGrid's default ends that batch in 430 us.  With
``network/optim:Full`` (every link re-solved at every event, no selective
update) SimGrid gives the max-min answer, which the network model computes.

For every cell of the given accuracy TSVs (``model_accuracy.py``'s) whose
``|model / simulated - 1|`` exceeds ``--min-error``, this simulates the cell
again under the family's own profile plus ``network/optim:Full`` and writes
both simulated times beside the model's.  A cell off under the default and
exact under ``Full`` is SimGrid's selective update, not the model.  Not part
of ``make test``; the figures are in docs/MODELS.md.

    .venv/bin/python tests/benchmarks/selective_update.py --tsv out.tsv docs/model_accuracy*.tsv

After a change of the model, ``--repredict`` computes the ``model_s`` of the
output's rows again (no simulation), as ``model_accuracy.py --repredict`` does:

    .venv/bin/python tests/benchmarks/selective_update.py --tsv docs/selective_update.tsv --repredict
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import tempfile
import tomllib
from pathlib import Path

import collsim
from collsim.profiles import default_profile

sys.path.insert(0, str(Path(__file__).parent))
from model_accuracy import PLATFORMS, repredict  # noqa: E402  (the grid's families)

BUILTIN_PROFILES = Path(collsim.__file__).with_name("profiles.toml")
COLUMNS = ["family", "collective", "algorithm", "np", "mapping", "bytes", "time_s",
           "time_full_s", "model_s"]


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value))  # a JSON string is a TOML basic string


def full_profile(name: str, directory: Path) -> str:
    """A TOML file of the built-in profile ``name`` with ``network/optim:Full`` added."""
    with open(BUILTIN_PROFILES, "rb") as stream:
        table = dict(tomllib.load(stream)[name])
    table["cfg"] = {**table.get("cfg", {}), "network/optim": "Full"}
    lines = [f"{key} = {_toml_value(value)}" for key, value in table.items()
             if not isinstance(value, dict)]
    for key, value in table.items():
        if isinstance(value, dict):
            lines.append(f"[{key}]")
            lines += [f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()]
    path = directory / f"{name}_full.toml"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def off_cells(paths: list[str], min_error: float) -> dict[tuple, list[dict]]:
    """The cells (one simulation: family, entry, ranks, mapping) with a row off by more
    than ``min_error``, each with all its rows."""
    rows_by_cell: dict[tuple, list[dict]] = {}
    off = set()
    for path in paths:
        with open(path, newline="") as stream:
            for row in csv.DictReader(stream, delimiter="\t"):
                key = (row["family"], row["collective"], row["algorithm"], int(row["np"]),
                       row["mapping"])
                rows_by_cell.setdefault(key, []).append(row)
                simulated, model = float(row["time_s"]), float(row["model_s"])
                if simulated > 0 and abs(model / simulated - 1) > min_error:
                    off.add(key)
    return {key: rows_by_cell[key] for key in sorted(off)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="*", help="accuracy TSVs (model_accuracy.py --tsv)")
    parser.add_argument("--tsv", required=True, help="output; cells already there are skipped")
    parser.add_argument("--min-error", type=float, default=0.01)
    parser.add_argument("--repredict", action="store_true",
                        help="recompute the output's model_s (no simulation): after a change "
                             "of the model")
    args = parser.parse_args()
    out = Path(args.tsv)
    if args.repredict:
        with open(out, newline="") as stream:
            rows = list(csv.DictReader(stream, delimiter="\t"))
        rows = repredict(rows)
        fresh = out.with_name(out.name + ".new")   # the old file stays whole until replaced
        with open(fresh, "w", newline="") as stream:
            writer = csv.DictWriter(stream, COLUMNS, delimiter="\t", extrasaction="ignore")
            writer.writeheader()
            writer.writerows(rows)
        fresh.replace(out)
        return 0
    if not args.inputs:
        parser.error("the accuracy TSVs to take the off cells from are needed")
    done = set()
    if out.exists():
        with open(out, newline="") as stream:
            done = {(r["family"], r["collective"], r["algorithm"], int(r["np"]), r["mapping"])
                    for r in csv.DictReader(stream, delimiter="\t")}
    cells = off_cells(args.inputs, args.min_error)
    with tempfile.TemporaryDirectory() as scratch, open(out, "a", newline="") as stream:
        writer = csv.DictWriter(stream, COLUMNS, delimiter="\t", extrasaction="ignore")
        if not done:
            writer.writeheader()
        for key, rows in cells.items():
            if key in done:
                continue
            family, collective, algorithm, p, mapping = key
            platform = PLATFORMS[family][0]
            where = {"generator": "crossbar", "nodes": p} if platform is None else platform
            profile = full_profile(default_profile(platform if isinstance(platform, str)
                                                   else None), Path(scratch))
            sizes = [int(row["bytes"]) for row in rows]
            full = collsim.run(collective, algorithm, p, sizes, platform=where,
                               mapping=mapping, profile=profile, timing_only=True)
            for row, time_full_s in zip(rows, full["time_s"]):
                writer.writerow({**row, "time_full_s": time_full_s})
            stream.flush()
            print(" ".join(map(str, key)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
