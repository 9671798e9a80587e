"""Profile: where the compiled event loop of ``collsim predict`` spends its time, by line.

``kernels._event_loop`` inlines the whole event loop's helpers, so a ``perf``
profile by symbol sees one function (two with ``_together``, which sets the
loop up and calls it).  This script profiles them by line of
``analysis/network/kernels.py``:

1. a child process compiles the kernels afresh with ``NUMBA_DEBUGINFO=1``
   (in a temporary ``NUMBA_CACHE_DIR``) on a small machine, in windows small
   enough that the piped loop (``run_piped``) is compiled too, writes the
   object code of ``run_together``, ``run_piped``, ``_together`` and
   ``_event_loop`` (``serialize_using_object_code``: each library whole,
   with the functions numba linked into it) and the address each was loaded
   at, and the addresses of numba's reference counts (``NRT_incref``,
   ``NRT_decref``, which the loop's code calls; numba keeps no object code of
   them), then predicts the entry at ``--np`` ranks;
2. ``perf record`` samples the child during that prediction;
3. the samples inside those libraries are mapped to lines by ``addr2line``
   over their object code's DWARF (the innermost line: an inlined helper's),
   each line to the function that holds it, and the samples within 256
   bytes of a reference count's address to a line of their own.  (Before
   2026-11-30 only ``_together``'s and ``_event_loop``'s own symbols were
   mapped: a tenth of the samples of a piped run, and none of the reference
   counts, which were about a fifth of the loop's then: docs/MODELS.md "The
   loop's heaps in arrays".)

It prints the share of the loop's samples per function and the top lines
with their text.  A sample lands on the instruction after a stalled load
as often as on the load, so read a hot line as "this line's loads wait".
The debug build is compiled differently and can mislead: it put numba's
quicksort at a third of ``dual_root_pipelined``'s loop, yet another sort did
not change the normal build's time (docs/MODELS.md, "What the loop waits
on").  Time a change before keeping it.  Needs ``perf``
(``linux-perf`` / ``linux-tools``) permitted to attach to a process, and
binutils.  Not part of ``make test``.

    .venv/bin/python tests/benchmarks/loop_profile.py [--machine DF|FT]
        [--entry reduce/binary] [--np 262144] [--bytes 1MiB] [--top 30]
"""

from __future__ import annotations

import argparse
import ast
import bisect
import collections
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "analysis" / "network" / "kernels.py"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from predict_scale import MACHINES  # noqa: E402 - the benchmark's machines, one home

#: The child: compile on a small machine, write the loop's object code, predict.
CHILD = """
import json, os, sys, time
from collsim.cli import main
from collsim.analysis.network import engine, kernels
machine, coll, alg, np_small, np_big, size, out = json.loads(sys.argv[1])
def predict(n):
    main(["predict", *machine, "--np", str(n), "--coll", coll, "--alg", alg,
          "--bytes", size, "--json"])
windows = engine.WINDOW_MESSAGES
engine.WINDOW_MESSAGES = 1 << 11   # small windows: the piped loop is compiled too
predict(np_small)
engine.WINDOW_MESSAGES = windows
loaded = []
for function in (kernels.run_together, kernels.run_piped, kernels._together,
                 kernels._event_loop):
    for signature, result in function.overloads.items():
        library = result.library
        name = result.fndesc.mangled_name
        obj = f"{out}/{function.py_func.__name__}-{len(loaded)}.o"
        open(obj, "wb").write(library.serialize_using_object_code()[2][0])
        loaded.append({"object": obj, "name": name,
                       "address": library.get_pointer_to_function(name)})
from numba.core.runtime import nrt   # the reference counts the loop's code calls
library = nrt.rtsys.library   # (compiled without object code: addresses only)
for name in ("NRT_incref", "NRT_decref"):
    loaded.append({"refcounts": name, "address": library.get_pointer_to_function(name)})
json.dump(loaded, open(out + "/loaded.json.tmp", "w"))
os.rename(out + "/loaded.json.tmp", out + "/loaded.json")
time.sleep(3)   # perf attaches
predict(np_big)
"""


def _functions(path: Path) -> tuple[list[int], list[str]]:
    """The first lines and names of the module's top-level functions, by line."""
    tree = ast.parse(path.read_text())
    found = sorted((node.lineno, node.name) for node in tree.body
                   if isinstance(node, ast.FunctionDef))
    return [line for line, _ in found], [name for _, name in found]


def _symbol(obj: Path, name: str) -> tuple[str, int]:
    """(section, offset) of symbol ``name`` in the object file."""
    for line in subprocess.run(["objdump", "-t", str(obj)], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        fields = line.split()
        if fields and fields[-1] == name:
            return fields[-3], int(fields[0], 16)
    raise SystemExit(f"loop_profile: {name} not in {obj}")


def _section_size(obj: Path, section: str) -> int:
    """The size of the object file's section (its whole code: the entry point and
    every function numba linked into it)."""
    for line in subprocess.run(["objdump", "-h", str(obj)], capture_output=True, text=True,
                               check=True).stdout.splitlines():
        fields = line.split()
        if len(fields) > 2 and fields[1] == section:
            return int(fields[2], 16)
    raise SystemExit(f"loop_profile: no section {section} in {obj}")


def _lines(obj: Path, section: str, offsets: list[int]) -> dict[int, int]:
    """Each offset's innermost source line in kernels.py (0: unknown)."""
    out = subprocess.run(["addr2line", "-a", "-e", str(obj), "-j", section]
                         + [hex(o) for o in offsets], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    lines = {}
    for address, where in zip(out[::2], out[1::2]):
        file, _, number = where.rpartition(":")
        number = number.split()[0]
        lines[int(address, 16)] = (int(number) if file.endswith("kernels.py")
                                   and number.isdigit() else 0)
    return lines


#: The line key of the samples in numba's reference counts (``NRT_incref``,
#: ``NRT_decref``: compiled once per process, called from the loop's code).
REFCOUNTS = -1

#: The bytes counted from each reference count's address (numba keeps no object
#: code of them, so no size: each is a few dozen bytes of code).
REFCOUNT_BYTES = 256

#: What the two line keys that are not lines of kernels.py stand for.
NOT_A_LINE = {0: "(no line: numba's own code)",
              REFCOUNTS: "(NRT_incref, NRT_decref: numba's reference counts)"}


def _refcount_samples(ips: list[int], addresses: list[int]) -> int:
    """The samples within :data:`REFCOUNT_BYTES` of a reference count's address (and
    before the next one's)."""
    starts = sorted(addresses)
    ends = [min(a + REFCOUNT_BYTES, b) for a, b in zip(starts, starts[1:] + [1 << 64])]
    return sum(1 for ip in ips if any(a <= ip < e for a, e in zip(starts, ends)))


def _profile(args) -> tuple[collections.Counter, int]:
    """Samples per line of kernels.py in the loop's libraries (0: no line;
    :data:`REFCOUNTS`: numba's reference counts) while the child predicts ``args``'
    entry, and the samples in the whole process."""
    coll, alg = args.entry.split("/")
    with tempfile.TemporaryDirectory(prefix="loop_profile_") as tmp:
        env = dict(os.environ, NUMBA_DEBUGINFO="1", NUMBA_CACHE_DIR=f"{tmp}/numba",
                   PYTHONWARNINGS="ignore")
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, json.dumps(
                [MACHINES[args.machine], coll, alg, 2048, args.np, args.bytes, tmp])],
            env=env, stdout=subprocess.DEVNULL)
        while not os.path.exists(f"{tmp}/loaded.json"):
            if child.poll() is not None:
                raise SystemExit(f"loop_profile: the child failed ({child.returncode})")
            time.sleep(1)
        loaded = json.load(open(f"{tmp}/loaded.json"))
        subprocess.run(["perf", "record", "-q", "-F", "999", "-p", str(child.pid),
                        "-o", f"{tmp}/perf.data"], check=True, stderr=subprocess.DEVNULL)
        child.wait()
        ips = [int(ip, 16) for ip in subprocess.run(
            ["perf", "script", "-i", f"{tmp}/perf.data", "-F", "ip"],
            capture_output=True, text=True, check=True).stdout.split()]
        by_line = collections.Counter()
        by_line[REFCOUNTS] = _refcount_samples(ips, [f["address"] for f in loaded
                                                     if "refcounts" in f])
        for function in loaded:
            if "refcounts" in function:
                continue
            obj = Path(function["object"])
            section, start = _symbol(obj, function["name"])
            base = function["address"] - start   # where the section was loaded
            size = _section_size(obj, section)
            counts = collections.Counter(ip - base for ip in ips if 0 <= ip - base < size)
            if not counts:   # (addr2line given no address reads them from stdin)
                continue
            lines = _lines(obj, section, sorted(counts))
            for offset, n in counts.items():
                by_line[lines[offset]] += n
    return by_line, len(ips)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--machine", choices=sorted(MACHINES), default="DF")
    parser.add_argument("--entry", default="reduce/binary", help="collective/algorithm")
    parser.add_argument("--np", type=int, default=262144)
    parser.add_argument("--bytes", default="1MiB")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    by_line, n_process = _profile(args)
    total = sum(by_line.values())
    if not total:
        raise SystemExit("loop_profile: no sample inside the loop")
    firsts, names = _functions(KERNELS)
    source = KERNELS.read_text().splitlines()
    by_function = collections.Counter()
    for line, n in by_line.items():
        by_function[names[bisect.bisect_right(firsts, line) - 1] if line > 0
                    else NOT_A_LINE[line]] += n
    print(f"{args.entry} on {args.machine}, {args.np} ranks, {args.bytes}: {total} samples "
          f"in the loop's code and the reference counts it calls ({n_process} in the "
          "process: the rest is making the windows, Python and the system)")
    print("\nshare  function")
    for name, n in by_function.most_common():
        if n / total >= 0.005:
            print(f"{100 * n / total:5.1f}  {name}")
    print("\nshare  line  text")
    for line, n in by_line.most_common(args.top):
        text = source[line - 1].strip() if line > 0 else NOT_A_LINE[line]
        print(f"{100 * n / total:5.1f}  {line:5d}  {text}")


if __name__ == "__main__":
    main()
