"""collbench's command line from $COLLBENCH_ARGS, as the harness passes it.

SMPI keeps a copy of argv for every rank (about 100 bytes an argument, 36 MB
for collsim's 22 arguments at 16384 ranks), so ``harness.simulate`` passes
collbench's arguments in the environment, one a line.  The rows must not
depend on the channel; argv, when given, is the command line.
"""

from __future__ import annotations

import os

from collsim.harness import (COLLBENCH_ARGS_VARIABLE, find_collbench, run_program,
                             smpirun_command)
from collsim.platforms import crossbar, map_ranks

ARGS = ["--coll", "allreduce", "--alg", "recursive_doubling", "--bytes", "8,1000",
        "--dtype", "float", "--op", "sum", "--seed", "7", "--reps", "2"]


def _run(tmp_path, hockney, program, env_args=None):
    G = crossbar(nodes=5)
    argv = smpirun_command(G, map_ranks(G, 5, "block"), hockney, tmp_path, program)
    env = {k: v for k, v in os.environ.items() if k != COLLBENCH_ARGS_VARIABLE}
    if env_args is not None:
        env[COLLBENCH_ARGS_VARIABLE] = "\n".join(env_args)
    return run_program(argv, cwd=tmp_path, what="collbench", timeout_s=120, env=env)


def test_the_environment_gives_the_rows_of_argv(tmp_path, hockney):
    collbench = str(find_collbench())
    status, from_argv, err = _run(tmp_path, hockney, [collbench, *ARGS])
    assert status == 0, err
    status, from_env, err = _run(tmp_path, hockney, [collbench], env_args=ARGS)
    assert status == 0, err
    assert from_env == from_argv
    assert len(from_argv.splitlines()) == 4


def test_argv_wins_over_the_environment(tmp_path, hockney):
    collbench = str(find_collbench())
    status, out, err = _run(tmp_path, hockney, [collbench, *ARGS],
                            env_args=["--coll", "bcast", "--alg", "binomial", "--bytes", "8"])
    assert status == 0, err
    assert all('"collective": "allreduce"' in line for line in out.splitlines())


def test_an_empty_variable_is_an_empty_command_line(tmp_path, hockney):
    status, _, err = _run(tmp_path, hockney, [str(find_collbench())], env_args=[])
    assert status == 2
    assert "collbench: error: --coll is required" in err
