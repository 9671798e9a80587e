"""The one grid runner (collsim.grid): study, check, repro and select take --jobs and
--scheduler, report progress on stderr, resume from the results database, stop a
simulation at its timeout, and print what they printed before, wherever they run."""

import io

import pytest

import collsim.grid
from collsim.cli import build_parser, main
from collsim.grid import Progress

GRID_COMMANDS = {
    "study": ["study", "s.toml"],
    "check": ["check", "c.toml"],
    "repro": ["repro", "--alg", "binomial", "--np", "2", "--platforms", "crossbar"],
    "select": ["select", "--coll", "reduce"],
}

# `collsim select` before the grid runner (main at b1f9304): its table and CSV
SELECT = ["select", "--platform", "crossbar", "--nodes", "4", "--coll", "allreduce",
          "--np", "3,4", "--bytes", "8,4KiB", "--algorithms",
          "recursive_doubling,ring,rabenseifner"]
SELECT_TABLE = """\
np  bytes  fastest             time      runner-up     time      margin
3   8B     recursive_doubling  6.007 us  ring          8.009 us  33.3%
3   4KiB   recursive_doubling  7.806 us  ring          8.716 us  11.7%
4   8B     recursive_doubling  4.005 us  rabenseifner  8.009 us  100.0%
4   4KiB   recursive_doubling  5.477 us  rabenseifner  8.804 us  60.7%
"""
SELECT_CSV = """\
collective,np,bytes,fastest,fastest_s,runner_up,runner_up_s,margin,rabenseifner_s,recursive_doubling_s,ring_s
allreduce,3,8,recursive_doubling,6.007359999893325e-06,ring,8.009279999887653e-06,0.33324455335286673,1.0011199999881981e-05,6.007359999893325e-06,8.009279999887653e-06
allreduce,3,4096,recursive_doubling,7.8060799999502e-06,ring,8.716479999559823e-06,0.11662703938666152,1.1399039999693272e-05,7.8060799999502e-06,8.716479999559823e-06
allreduce,4,8,recursive_doubling,4.0054399998989965e-06,rabenseifner,8.009279999887653e-06,0.9996005432835393,8.009279999887653e-06,4.0054399998989965e-06,1.201391999983148e-05
allreduce,4,4096,recursive_doubling,5.477119999985902e-06,rabenseifner,8.803839999793617e-06,0.6073849029811793,8.803839999793617e-06,5.477119999985902e-06,1.2806399999787388e-05
"""
SUITE = """\
[[case]]
name = "xbar"
platform = { generator = "crossbar", nodes = 4 }
collective = "reduce"
algorithms = ["binomial", "linear"]
np = [3, 4]
bytes = ["8", "4KiB"]
"""
REPRO = ["repro", "--coll", "reduce", "--alg", "binomial,fixed_order,prerounded",
         "--platforms", "crossbar", "--nodes", "4", "--cores-per-node", "2",
         "--mappings", "block,cyclic", "--np", "4,8", "--bytes", "8,1KiB"]


def progress_lines(err: str, what: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith(f"{what}: ")]


@pytest.mark.parametrize("command", GRID_COMMANDS)
def test_every_grid_command_takes_jobs_and_scheduler(command):
    args = build_parser().parse_args(GRID_COMMANDS[command]
                                     + ["--jobs", "3", "--scheduler", "tcp://127.0.0.1:8786"])
    assert (args.jobs, args.scheduler) == (3, "tcp://127.0.0.1:8786")
    assert build_parser().parse_args(GRID_COMMANDS[command]).jobs == 0  # 0: one per core


@pytest.mark.parametrize("command", GRID_COMMANDS)
@pytest.mark.parametrize("option, value, message", [
    ("--jobs", "-1", "argument --jobs: --jobs must be a whole number from 0 to 1024, got -1"),
    ("--jobs", "two", "argument --jobs: invalid int value: 'two'"),
    ("--scheduler", "127.0.0.1:8786",
     "argument --scheduler: must be an address such as tcp://HOST:PORT, got '127.0.0.1:8786'"),
])
def test_a_bad_jobs_or_scheduler_is_one_line(command, option, value, message, capsys):
    assert main(GRID_COMMANDS[command] + [option, value]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_select_prints_what_it_printed_before_and_its_progress(tmp_path, capsys):
    assert main(SELECT + ["--jobs", "2", "-o", str(tmp_path / "sel")]) == 0
    captured = capsys.readouterr()
    assert captured.out == SELECT_TABLE
    assert (tmp_path / "sel.csv").read_text() == SELECT_CSV
    # stderr is not a terminal here: whole lines, the first and the last
    lines = progress_lines(captured.err, "select")
    assert lines == captured.err.splitlines()
    assert lines[0] == "select: 0/6 simulations, ?/s, ETA ?"
    assert lines[-1].startswith("select: 6/6 simulations, ") and lines[-1].endswith("ETA 00:00")


def test_select_and_check_on_a_dask_cluster(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    suite = tmp_path / "c.toml"
    suite.write_text(SUITE)
    assert main(["check", str(suite), "--jobs", "1", "--update-baseline"]) == 0
    local = capsys.readouterr().out
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        assert main(SELECT + ["--scheduler", address, "-o", str(tmp_path / "sel")]) == 0
        select = capsys.readouterr()
        assert main(["check", str(suite), "--scheduler", address]) == 0
        check = capsys.readouterr()
    assert select.out == SELECT_TABLE and (tmp_path / "sel.csv").read_text() == SELECT_CSV
    assert progress_lines(select.err, "select")[-1].startswith("select: 6/6 simulations")
    assert local.splitlines()[-1] == check.out.splitlines()[-1] == "8 passed, 0 failed"
    assert progress_lines(check.err, "check")[-1].startswith("check: 4/4 simulations")


@pytest.mark.parametrize("argv", [
    ["check", "{suite}", "--jobs", "1"],
    ["check", "{suite}", "--jobs", "2"],
    SELECT + ["--jobs", "2"],
])
def test_a_simulation_past_its_timeout_is_one_line_and_exit_2(argv, tmp_path, capsys):
    suite = tmp_path / "c.toml"
    suite.write_text(SUITE)
    argv = [arg.replace("{suite}", str(suite)) for arg in argv]
    assert main(argv + ["--timeout-s", "1e-4"]) == 2
    captured = capsys.readouterr()
    errors = [line for line in captured.err.splitlines()
              if not line.startswith(f"{argv[0]}: ")]  # the rest is progress
    assert len(errors) == 1 and errors[0].startswith("collsim: error: ")
    assert "did not finish within 0.0001 s" in errors[0] and captured.out == ""


def test_a_rerun_skips_what_is_stored_and_prints_the_same(tmp_path, capsys, monkeypatch):
    calls = []
    simulate = collsim.grid.simulate

    def counting(job):
        calls.append(job)
        return simulate(job)

    monkeypatch.setattr(collsim.grid, "simulate", counting)
    outputs = []
    for run in ("first", "rerun"):
        (tmp_path / run).mkdir()
        prefix = tmp_path / run / "r"
        assert main(REPRO + ["--jobs", "1", "--db", str(tmp_path / "r.db"),
                             "-o", str(prefix)]) == 0
        captured = capsys.readouterr()
        outputs.append(({suffix: (tmp_path / run / f"r.{suffix}").read_bytes()
                         for suffix in ("txt", "json", "png")}, captured.err))
        assert captured.out.endswith(f"wrote {prefix}.txt, {prefix}.json, {prefix}.png\n")
    # 3 algorithms x 2 mappings x 2 process counts, simulated once
    assert len(calls) == 12
    assert outputs[0][0] == outputs[1][0]
    assert progress_lines(outputs[1][1], "repro") == [
        "repro: 0/0 simulations, ?/s, ETA ?, 12 already stored"]


def test_progress_into_a_log_is_written_now_and_then(monkeypatch):
    """Not a terminal (a CI log): a line at the start, every tenth of the work or every
    30 s, and at the end; never one line per simulation of a long grid."""
    now = [0.0]
    monkeypatch.setattr("tqdm.std.time", lambda: now[0])
    log = io.StringIO()
    progress = Progress("study", 1000, stream=log)
    for _ in range(1000):
        now[0] += 0.01
        progress.advance()
    progress.close()
    lines = log.getvalue().splitlines()
    assert len(lines) == 11
    assert lines[0] == "study: 0/1000 simulations, ?/s, ETA ?"
    assert lines[-1] == "study: 1000/1000 simulations, 100/s, ETA 00:00"

    slow = io.StringIO()
    progress = Progress("study", 1000, skipped=3, stream=slow)
    for failed in (False, True, False, False, False):
        now[0] += 31.0
        progress.advance(failed=failed)
    progress.close()
    lines = slow.getvalue().splitlines()
    assert len(lines) == 6  # the start, then every 30 s
    assert lines[-1].endswith(", 3 already stored, 1 failed")


def test_progress_on_a_terminal_is_a_bar_redrawn_in_place():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    progress = Progress("check", 4, stream=terminal)
    for _ in range(4):
        progress.advance()
    progress.close()
    text = terminal.getvalue()
    assert text.count("\n") == 1 and "\r" in text
    assert "check: 4/4 simulations |" in text.splitlines()[-1]
