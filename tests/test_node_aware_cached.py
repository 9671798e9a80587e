"""node_aware's communicators made once per communicator (``--cached-comms``), the real
node on platforms whose hosts are sockets, and round-robin over a job's nodes
(``cyclic:N``): what seed 000's page runs (issue 13).

- Cached, node_aware is correct (checked against the exact sum) on odd process counts,
  every root, empty and tiny counts, exposed and real nodes, block and round-robin.
- Its simulated time is the per-call time less exactly the communicators' cost that the
  model counts (a hand-computed case), and the model holds it exactly on a crossbar.
- ``--node-size 0`` on a multicore machine groups the node's 8 ranks, not a socket's 4.
- Rows of runs without the flag keep their bytes; a flag an algorithm does not read is one
  line and exit status 2.
"""

from __future__ import annotations

import json

import pytest

from collsim.analysis.models import NetworkParams, predict
from collsim.cli import main
from collsim.params import AlgorithmParams
from collsim.platforms import crossbar
from collsim.platforms.catalog import catalog_platform, catalog_profile
from collsim.platforms.mapping import map_ranks
from collsim.profiles import load_profile
from collsim.runner import RunSpec, run

CACHED = AlgorithmParams(node_size=4, cached_comms=True)


def _times(G, profile, collective, np, sizes, params, **spec):
    rows, _ = run(RunSpec(collective, "node_aware", np, sizes, params=params, **spec), G, profile,
                  platform="test")
    return rows


@pytest.mark.parametrize("collective", ["reduce", "allreduce"])
@pytest.mark.parametrize("np,node_size", [(13, 4), (13, 0), (7, 3), (2, 1)])
def test_cached_comms_results_are_correct(hockney, collective, np, node_size):
    """Every root of an odd count, sizes 0, 1 element, 3 elements and 20,000 elements."""
    G = crossbar(nodes=np, cores_per_node=1)
    params = AlgorithmParams(node_size=node_size, cached_comms=True)
    roots = range(np) if collective == "reduce" else [0]
    for root in roots:
        rows = _times(G, hockney, collective, np, (0, 8, 24, 160000), params, root=root)
        assert [row["check"] for row in rows] == ["ok"] * 4, (root, rows)


def test_cached_comms_on_real_nodes_round_robin_every_root():
    """seed000_qdr320, 24 ranks dealt round-robin over 3 nodes of 8 (2 sockets of 4): the
    real node groups ranks r, r+3, r+6, ...; correct for every root."""
    G = catalog_platform("seed000_qdr320")
    profile = load_profile(catalog_profile("seed000_qdr320"))
    params = AlgorithmParams(node_size=0, cached_comms=True)
    for root in range(24):
        rows = _times(G, profile, "reduce", 24, (8, 4096), params, root=root, mapping="cyclic:3")
        assert [row["check"] for row in rows] == ["ok", "ok"], root
    rows = _times(G, profile, "allreduce", 24, (8, 4096), params, mapping="cyclic:3")
    assert [row["check"] for row in rows] == ["ok", "ok"]


def test_real_node_on_a_multicore_machine_is_the_whole_node():
    """Block placement: the real node (--node-size 0) is 8 consecutive ranks, so it runs
    exactly the exposed nodes of 8; a socket's 4 would be a different run."""
    G = catalog_platform("seed000_qdr320")
    profile = load_profile(catalog_profile("seed000_qdr320"))

    def time_s(node_size):
        params = AlgorithmParams(node_size=node_size, cached_comms=True)
        return _times(G, profile, "reduce", 32, (32768,), params, timing_only=True)[0]["time_s"]

    assert time_s(0) == pytest.approx(time_s(8), rel=1e-12)  # the clock differs, not the work
    assert time_s(0) != time_s(4)


def test_cached_time_is_per_call_less_the_communicators(hockney):
    """Reduce, 13 ranks, one per node of a crossbar, real nodes (no node has two ranks):
    per call, the leaders' MPI_Comm_split of 13 ranks is timed: SMPI gathers (color, key)
    to rank 0 (12 messages of 8 B sharing its link), sends the group to the 12 others
    (the same), and broadcasts the context id in ceil(lg 13) = 4 rounds of 4 B:

        2 (alpha + 12 (8 + 16) beta) + 4 (alpha + (4 + 16) beta),
        alpha = 2 us (two links of 1 us), beta = 1 / 12.5 GB/s

    = 2 (2 + 0.02304) + 4 (2 + 0.0016) = 12.05248 us, which cached leaves out."""
    G = crossbar(nodes=13)
    alpha, beta = 2e-6, 1 / 12.5e9
    split_s = 2 * (alpha + 12 * 24 * beta) + 4 * (alpha + 20 * beta)
    assert split_s == pytest.approx(12.05248e-6, rel=1e-9)
    per_call = _times(G, hockney, "reduce", 13, (8, 65536), AlgorithmParams())
    cached = _times(G, hockney, "reduce", 13, (8, 65536), AlgorithmParams(cached_comms=True))
    for slow, fast in zip(per_call, cached):
        assert slow["time_s"] - fast["time_s"] == pytest.approx(split_s, rel=1e-6)
        assert fast["model_class"] == "exact" and fast["ratio"] == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("collective", ["reduce", "allreduce"])
def test_model_exact_with_cached_comms_on_equal_nodes(hockney, collective):
    """16 ranks in 4 exposed nodes of 4 on a crossbar: no communicator cost in the time.
    (Reduce is a bound: the root's node skips the first level; the time is its upper end.)"""
    net = NetworkParams(alpha_s=2e-6, beta_s_per_byte=1 / 12.5e9, gamma_s_per_byte=1e-10,
                        envelope_bytes=16)
    rows = _times(crossbar(nodes=16), hockney, collective, 16, (8, 4096, 65536), CACHED)
    for row in rows:
        model = predict(collective, "node_aware", 16, row["bytes"], net, params=CACHED)
        assert row["time_s"] == pytest.approx(model.time_s, rel=1e-9), row  # the upper end
        assert row["model_class"] in ("exact", "bound") and row["model_agrees"], row
        assert model.time_s < predict(collective, "node_aware", 16, row["bytes"], net,
                                      params=AlgorithmParams(node_size=4)).time_s


def test_rows_keep_their_bytes_without_the_flag(capsys):
    """cached_comms appears in a row's params only when given."""
    args = ["run", "--np", "4", "--coll", "reduce", "--alg", "node_aware", "--bytes", "8",
            "--json"]
    assert main(args) == 0
    assert "cached_comms" not in json.loads(capsys.readouterr().out.splitlines()[0])["params"]
    assert main([*args, "--cached-comms"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["params"]["cached_comms"] is True


def test_cached_comms_on_an_algorithm_without_communicators_is_one_line(capsys):
    status = main(["run", "--np", "4", "--coll", "allreduce", "--alg", "ring", "--bytes", "8",
                   "--cached-comms"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.strip().splitlines() == [
        "collsim: error: allreduce/ring takes no cached communicators (it makes no node "
        "communicators)"]


def test_cyclic_over_a_jobs_nodes():
    G = crossbar(nodes=4, cores_per_node=2)
    assert map_ranks(G, 6, "cyclic:3") == ["node-0", "node-1", "node-2"] * 2
    assert map_ranks(G, 4, "cyclic:4") == map_ranks(G, 4, "cyclic")
    for bad, message in (("cyclic:0", "node count from 1 to the platform's 4"),
                         ("cyclic:5", "node count from 1 to the platform's 4"),
                         ("cyclic:x", "got 'x'")):
        with pytest.raises(ValueError, match=message):
            map_ranks(G, 2, bad)
    with pytest.raises(ValueError, match=r"np=5 is larger than the 4 cores of the first 2 nodes"):
        map_ranks(G, 5, "cyclic:2")


def test_cyclic_bad_node_count_from_the_cli_is_one_line(capsys):
    status = main(["run", "--np", "4", "--coll", "reduce", "--alg", "binomial", "--bytes", "8",
                   "--mapping", "cyclic:0"])
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1 and "cyclic:NODES" in err


def test_cached_comms_under_a_real_mpi():
    """Open MPI, 13 processes on this machine's one node: the cached communicators live on
    each process's own communicator and are freed with it; two calls, every result right."""
    from collsim.realmpi import run_mpirun

    for node_size, root in (("4", "5"), ("0", "12")):
        rows, status = run_mpirun(13, ["--coll", "reduce", "--alg", "node_aware", "--node-size",
                                       node_size, "--cached-comms", "--bytes", "8,8000",
                                       "--root", root, "--reps", "2"], what="node_aware")
        assert status == 0 and [row["check"] for row in rows] == ["ok"] * 4


@pytest.mark.parametrize("collective", ["reduce", "allreduce"])
def test_timing_only_gives_the_checked_time_with_cached_comms(hockney, collective):
    G = crossbar(nodes=13)
    checked = _times(G, hockney, collective, 13, (8, 65536), CACHED, root=0)
    timed = _times(G, hockney, collective, 13, (8, 65536), CACHED, root=0, timing_only=True)
    assert [r["time_s"] for r in timed] == [r["time_s"] for r in checked]
