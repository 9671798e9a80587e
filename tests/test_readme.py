"""The README's example commands print what the README says (the cheap ones), and its
figures of the larger runs (simulations, rows, measurements) are those of the files."""

import re
import shlex

import pytest

from collsim.checks import load_suite
from collsim.cli import main
from collsim.harness import REPO_ROOT
from collsim.scenario import load_scenario

README = (REPO_ROOT / "README.md").read_text()

# commands that take a second or less; their output is compared byte for byte
CHEAP = (
    "run --np 16 --coll allreduce --alg ring --bytes 8,64KiB,1MiB",
    "run --np 13 --coll reduce --alg binomial --bytes 1MiB --op first_nonzero --root 5 --json",
    "pingpong",
    "run --np 16 --coll allreduce --alg ring --bytes 8,64KiB,1MiB --profile smpi",
    "run --np 4 --coll allreduce --alg ring --bytes 8 --op first_nonzero",
    "platform describe seed003_hydra",
    "run --np 16 --coll allreduce --alg ring --bytes 8,1MiB --platform seed003_hydra "
    "--mapping socket",
    "predict --platform seed004_graphene --np 128 --mapping cyclic --coll allreduce "
    "--alg recursive_doubling --bytes 4MiB",
    "list",
    "list --collectives",
)


def _examples() -> dict[str, str]:
    """Each `$ .venv/bin/collsim ...` line of a fenced block -> the lines after it
    (a trailing `# comment` is not part of the command)."""
    examples: dict[str, str] = {}
    command, output, in_block = None, [], False
    for line in README.splitlines():
        if line.startswith("```") or (in_block and line.startswith("$ ")):
            if command is not None and not examples.get(command):
                # the first showing with output (a list of commands shows none)
                examples[command] = "".join(o + "\n" for o in output)
            command, output = None, []
            if line.startswith("```"):
                in_block = not in_block
                continue
        if in_block and line.startswith("$ .venv/bin/collsim "):
            command = line[len("$ .venv/bin/collsim "):].split("#")[0].strip()
        elif command is not None:
            output.append(line)
    return examples


EXAMPLES = _examples()


@pytest.mark.parametrize("command", CHEAP)
def test_an_example_prints_what_the_readme_shows(command, capsys, monkeypatch):
    assert command in EXAMPLES, f"the README no longer shows: collsim {command}"
    monkeypatch.chdir(REPO_ROOT)
    main(shlex.split(command))
    captured = capsys.readouterr()
    # the README was recorded under the distribution's SimGrid; under another
    # (make SIMGRID=4.1 test) only the rows' library name may differ
    assert _same_library(captured.out + captured.err) == _same_library(EXAMPLES[command])


def _same_library(text: str) -> str:
    return re.sub(r'"library": "SimGrid [0-9.]+"', '"library": "SimGrid"', text)


def _figure(pattern: str) -> tuple[int, ...]:
    match = re.search(pattern, README)
    assert match, pattern
    return tuple(int(group) for group in match.groups())


def _grid(path: str) -> tuple[int, int]:
    scenario = load_scenario(REPO_ROOT / path)
    rows = sum(len(s.spec.sizes_bytes) * s.spec.reps for s in scenario.simulations)
    return len(scenario.simulations), rows


def test_the_quickstart_figures_are_those_of_the_scenario():
    simulations, rows = _grid("scenarios/quickstart.toml")
    assert _figure(r"study: (\d+)/(\d+) simulations") == (simulations, simulations)
    assert _figure(r"study quickstart: (\d+) simulations run, 0 already stored, (\d+) rows") == (
        simulations, rows)


def test_the_procurement_figure_is_that_of_the_scenario():
    simulations, _ = _grid("scenarios/procurement.toml")
    assert _figure(r"at np = 384\s+and 512: (\d+) simulations") == (simulations,)


def test_the_ci_figures_are_those_of_the_suite():
    suite = load_suite(REPO_ROOT / "scenarios" / "ci.toml")
    measurements = sum(len(case.spec.sizes_bytes) for case in suite.cases)
    assert _figure(r"scenarios/ci.toml: (\d+) measurements in (\d+) simulations") == (
        measurements, len(suite.cases))
    assert _figure(r"collsim check scenarios/ci.toml` \((\d+) measurements") == (measurements,)


def test_no_file_points_outside_the_repository():
    """The seed papers are cited by title: the folder beside the checkout that holds
    them does not exist for a user who clones the repository."""
    import subprocess

    root = REPO_ROOT
    tracked = subprocess.run(["git", "-C", str(root), "ls-files"], capture_output=True,
                             text=True, check=True).stdout.split()
    needle = "../" + "shared"
    offenders = [name for name in tracked
                 if name.endswith((".md", ".py", ".c", ".h", ".toml", ".txt"))
                 and needle in (root / name).read_text(errors="replace")]
    assert offenders == []
