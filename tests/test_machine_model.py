"""The machine-model elements of issue 13, each held against a hand-computed case.

- per-message overheads and the eager threshold (profile keys ``send_overhead_s``,
  ``recv_overhead_s``, ``eager_threshold_bytes``; SMPI's ``smpi/os``, ``smpi/ois``,
  ``smpi/or``, ``smpi/send-is-detached-thresh``);
- the node's network interface, shared by every rank of the node (already so on
  ``multicore`` platforms: the node router's one link to the network);
- a socket's memory for shared-memory transfers, shared by its ranks
  (``multicore(memory_bandwidth_Bps=...)``), instead of SimGrid's free loopback;
- half-duplex links, seed 001's simplex network (``crossbar(half_duplex=True)``:
  a node's sending and receiving share its link).

Every simulation here is one small run (a few ranks, one or two sizes).
"""

from __future__ import annotations

import json

import pytest

from collsim.analysis.models import NetworkParams, message_s
from collsim.platforms import crossbar, multicore, pair_parameters
from collsim.platforms.catalog import CATALOG, catalog_profile
from collsim.platforms.network import network_parameters
from collsim.platforms.simgrid import platform_xml
from collsim.profiles import load_profile
from collsim.harness import simulate
from collsim.runner import RunSpec, run

LATENCY_S = 1e-6          # per link: alpha = 2 us between two crossbar nodes
BANDWIDTH_BPS = 10e9
ENVELOPE_BYTES = 16
SEND_O_S, RECV_O_S, EAGER_BYTES = 5e-6, 2e-6, 4096


@pytest.fixture(scope="module")
def loggp(tmp_path_factory):
    path = tmp_path_factory.mktemp("profiles") / "loggp.toml"
    path.write_text(
        'description = "CM02 with LogGP overheads"\n'
        f"send_overhead_s = {SEND_O_S!r}\nrecv_overhead_s = {RECV_O_S!r}\n"
        f"eager_threshold_bytes = {EAGER_BYTES}\n"
        '[cfg]\n"network/model" = "CM02"\n"network/crosstraffic" = "0"\n'
        '"network/TCP-gamma" = "0"\n')
    return load_profile(str(path))


def _xbar():
    return crossbar(nodes=4, latency_s=LATENCY_S, bandwidth_Bps=BANDWIDTH_BPS)


def _times(rows):
    return {row["bytes"]: row["time_s"] for row in rows}


def test_overheads_become_smpi_options(loggp):
    args = loggp.smpirun_args()
    assert f"--cfg=smpi/os:0:{SEND_O_S!r}:0" in args
    assert f"--cfg=smpi/ois:0:{SEND_O_S!r}:0" in args
    assert f"--cfg=smpi/or:0:{RECV_O_S!r}:0" in args
    assert f"--cfg=smpi/send-is-detached-thresh:{EAGER_BYTES}" in args
    # off (hockney): no option, and the models' parameters are those of before
    hockney = load_profile("hockney")
    assert hockney.element_cfg() == {}
    assert hockney.model_network(2e-6, 1e-10) == NetworkParams(2e-6, 1e-10)


def test_pingpong_pays_overheads_only_below_the_eager_threshold(loggp):
    """One-way time: o_s + alpha + (n + 16) beta + o_r eager; alpha + (n + 16) beta rendezvous."""
    G = _xbar()
    sizes = [0, EAGER_BYTES - 1, EAGER_BYTES, 1 << 20]
    rows, _ = simulate(G, ["node-0", "node-1"], loggp,
                       ["--pingpong", "--bytes", ",".join(map(str, sizes)), "--peer", "1"],
                       what="ping-pong")
    alpha, beta = 2 * LATENCY_S, 1 / BANDWIDTH_BPS
    expected = {n: alpha + (n + ENVELOPE_BYTES) * beta + (SEND_O_S + RECV_O_S if n < EAGER_BYTES else 0)
                for n in sizes}
    for n, time_s in _times(rows).items():
        assert time_s == pytest.approx(expected[n], rel=1e-9)
        net = loggp.model_network(alpha, beta)
        assert message_s(net, n) == pytest.approx(time_s, rel=1e-9)


def test_linear_bcast_root_pays_one_overhead_per_receiver(loggp):
    """Eager Isends: the root's p-1 sends cost o_s each and do not wait for delivery.

    With o_s (5 us) longer than a message (2 us), the transfers never overlap: the
    last one starts at (p-1) o_s and its receiver ends o_r after it arrives.
    """
    p, n = 4, 8
    rows, _ = run(RunSpec("bcast", "linear", p, (n,)), _xbar(), loggp, platform="crossbar")
    alpha, beta = 2 * LATENCY_S, 1 / BANDWIDTH_BPS
    assert rows[0]["time_s"] == pytest.approx(
        (p - 1) * SEND_O_S + alpha + (n + ENVELOPE_BYTES) * beta + RECV_O_S, rel=1e-9)
    # the network model posts the root's Isends o_s apart, as SMPI charges them
    assert rows[0]["model_class"] == "network"
    assert rows[0]["model_s"] == pytest.approx(rows[0]["time_s"], rel=1e-9)


def test_linear_bcast_model_follows_overlapping_sends(tmp_path):
    """With o_s shorter than a message the root's sends overlap on its link; the
    model (staggered_shared_link_s) replays that sharing: equal to the simulation
    for eager (8 B, 1 KiB) and rendezvous (8 KiB, 1 MiB) messages."""
    path = tmp_path / "fast.toml"
    path.write_text("send_overhead_s = 5e-7\nrecv_overhead_s = 2e-6\n"
                    f"eager_threshold_bytes = {EAGER_BYTES}\n"
                    '[cfg]\n"network/model" = "CM02"\n"network/crosstraffic" = "0"\n'
                    '"network/TCP-gamma" = "0"\n')
    sizes = (8, 1024, 8192, 1 << 20)
    rows, _ = run(RunSpec("bcast", "linear", 16, sizes), crossbar(nodes=16, latency_s=LATENCY_S,
                  bandwidth_Bps=BANDWIDTH_BPS), load_profile(str(path)), platform="crossbar")
    for row in rows:
        assert row["time_s"] == pytest.approx(row["model_s"], rel=1e-9), row["bytes"]
    # 1 MiB: the sends overlap almost entirely, close to alpha + 15 s beta
    assert rows[-1]["time_s"] > 15 * (1 << 20) / BANDWIDTH_BPS



@pytest.mark.parametrize("algorithm", ["linear", "scattered"])
def test_alltoall_receives_pay_o_r_after_the_last_isend(loggp, algorithm):
    """Every rank posts p - 1 eager Isends (o_s each), then waits: SMPI charges o_r in
    the wait (``Request::finish_wait``), so a rank's receives pay it one after another
    from its last Isend on, (p - 1)(o_s + o_r) in all when (p - 2) o_r covers a message.

    The engine paid each o_r as its data arrived, during the rank's own Isends: 19.0 us
    where SMPI takes 21.0 (alltoall linear of 8 B on 64 cyclic ranks of seed003_hydra:
    17.0 us against 31.5 us)."""
    p, n = 4, 8
    rows, _ = run(RunSpec("alltoall", algorithm, p, (n,)), _xbar(), loggp, platform="crossbar")
    assert (p - 2) * RECV_O_S > 2 * LATENCY_S + (n + ENVELOPE_BYTES) / BANDWIDTH_BPS
    assert rows[0]["time_s"] == pytest.approx((p - 1) * (SEND_O_S + RECV_O_S), rel=1e-9)
    assert rows[0]["model_class"] == "network"
    assert rows[0]["model_s"] == pytest.approx(rows[0]["time_s"], rel=1e-9)


@pytest.mark.parametrize("algorithm", ["double_ring", "recursive_doubling"])
def test_barrier_ssend_pays_o_s_and_no_o_r(loggp, algorithm):
    """MPI_Ssend is a rendezvous whatever its size: SMPI sleeps o_s before posting it
    (``Request::start``), the sender waits for the delivery and the receiver pays no o_r
    (no detached sender).  The double ring's second trip is Ssends: each hop o_s +
    alpha + 16 beta, the first trip's o_s + alpha + 16 beta + o_r (p = 4: 64.0128 us;
    the model charged o_r on both trips, 72.0128 us).  The recursive-doubling barrier's
    release of the ranks above the largest power of two is an Ssend too, and its
    exchanges post their MPI_Irecv before their MPI_Send (``Step.receive_first``):
    p = 3, 23.0032 us, where a receive posted after the rank's o_s, as MPI_Sendrecv
    posts it, made 25.0048 us."""
    p = 4 if algorithm == "double_ring" else 3
    rows, _ = run(RunSpec("barrier", algorithm, p, (0,)), _xbar(), loggp, platform="crossbar")
    hop_s = 2 * LATENCY_S + ENVELOPE_BYTES / BANDWIDTH_BPS
    if algorithm == "double_ring":
        assert rows[0]["time_s"] == pytest.approx(p * (2 * SEND_O_S + 2 * hop_s + RECV_O_S),
                                                  rel=1e-9)
    assert rows[0]["model_s"] == pytest.approx(rows[0]["time_s"], rel=1e-9)


def test_lone_rendezvous_isend_pays_o_s(loggp):
    """SMPI sleeps ``smpi/ois`` in every MPI_Isend (``Request::start``), a rendezvous one
    too, even when it is the rank's only send: the chain bcast's hops (a receive, then
    one MPI_Isend to the next rank) each pay o_s above the eager threshold.  On 4 ranks
    of 8 KiB: 3 (o_s + alpha + (n + 16) beta); the model charged o_s to eager sends
    only, 15 us under (seed003_hydra, 64 ranks of 64 KiB: 111.29 us against 127.04)."""
    p, n = 4, 2 * EAGER_BYTES
    rows, _ = run(RunSpec("bcast", "chain", p, (n,)), _xbar(), loggp, platform="crossbar")
    hop_s = SEND_O_S + 2 * LATENCY_S + (n + ENVELOPE_BYTES) / BANDWIDTH_BPS
    assert rows[0]["time_s"] == pytest.approx((p - 1) * hop_s, rel=1e-9)
    assert rows[0]["model_s"] == pytest.approx(rows[0]["time_s"], rel=1e-9)


def test_a_receive_posted_ahead_pays_o_r_in_its_wait(loggp):
    """Open MPI's generic reduce posts child 1's MPI_Irecv while it waits for child 0;
    SMPI charges o_r in the wait (``Request::finish_wait``), so when both eager
    messages arrive together, child 1's o_r follows child 0's and its combination
    (the reduce ``overlapped_binary`` of 8 B on 3 ranks).  The engine charged it from
    the arrival, overlapping the two: one o_r per tree level under (Hydra's 64 ranks
    -20.2 %)."""
    rows, _ = run(RunSpec("reduce", "overlapped_binary", 3, (8,)), _xbar(), loggp,
                  platform="crossbar")
    assert rows[0]["model_s"] == pytest.approx(rows[0]["time_s"], rel=1e-9)
    one_message_s = SEND_O_S + 2 * LATENCY_S + (8 + ENVELOPE_BYTES) / BANDWIDTH_BPS
    assert rows[0]["time_s"] > one_message_s + 2 * RECV_O_S


def _node(memory_Bps=None, nodes=2, cores=4):
    kwargs = {} if memory_Bps is None else dict(memory_bandwidth_Bps=memory_Bps,
                                                memory_latency_s=2e-7)
    return multicore(crossbar(nodes=nodes, latency_s=LATENCY_S, bandwidth_Bps=4e9),
                     sockets_per_node=1, cores_per_socket=cores, socket_bandwidth_Bps=40e9,
                     socket_latency_s=1e-7, **kwargs)


def test_memory_off_changes_nothing():
    """Without memory_bandwidth_Bps the platform (and its XML) is that of before."""
    plain = _node()
    assert "memory" not in platform_xml(plain).decode()
    assert "memory_bandwidth_Bps" not in plain.graph["params"]


def test_memory_link_is_a_route_from_the_socket_to_itself():
    G = _node(memory_Bps=10e9)
    xml = platform_xml(G).decode()
    assert 'id="node-0.s0--memory"' in xml and 'sharing_policy="SHARED"' in xml
    assert '<route src="node-0.s0" dst="node-0.s0" symmetrical="NO">' in xml
    same = pair_parameters(G, "node-0.s0", "node-0.s0")
    assert (same.alpha_s, same.beta_s_per_byte) == (2e-7, 1e-10)
    # the flat models leave the sharing out: not claimed exact
    assert network_parameters(G, ["node-0.s0"] * 4)[1] is False
    assert network_parameters(_node(), ["node-0.s0"] * 4)[1] is True


def test_ranks_of_a_socket_share_its_memory():
    """Recursive doubling on 4 ranks of one socket: both rounds move 4 messages
    (2 pairs, both ways) through the one memory link.

    On the loopback: 2 (alpha_l + s beta_l) + 2 n gamma (the model, exact);
    on the memory: 2 (alpha_m + 4 s beta_m) + 2 n gamma.
    """
    n = 1 << 20
    s, gamma = n + ENVELOPE_BYTES, 1e-10
    hockney = load_profile("hockney")
    spec = RunSpec("allreduce", "recursive_doubling", 4, (n,))
    loop, _ = run(spec, _node(), hockney, platform="multicore")
    assert loop[0]["time_s"] == pytest.approx(2 * (1e-7 + s / 50e9) + 2 * n * gamma, rel=1e-9)
    assert loop[0]["model_agrees"] is True
    memory, _ = run(spec, _node(memory_Bps=10e9), hockney, platform="multicore")
    assert memory[0]["time_s"] == pytest.approx(2 * (2e-7 + 4 * s / 10e9) + 2 * n * gamma, rel=1e-9)
    # the flat model leaves the memory's sharing out: not exact; the network model shares it
    assert memory[0]["model_class"] == "network"
    assert memory[0]["model_s"] == pytest.approx(memory[0]["time_s"], rel=1e-9)
    assert memory[0]["flat_model_s"] < memory[0]["time_s"] / 2


def test_ranks_of_a_node_share_its_network_interface():
    """8 ranks on 2 nodes of 4: the round at distance 4 sends 4 messages each way
    through each node's one link to the network (full duplex: one direction each).

    2 rounds in the socket's memory + 1 round of alpha_net + 4 s beta_nic, 3 n gamma.
    """
    n = 1 << 20
    s, gamma = n + ENVELOPE_BYTES, 1e-10
    rows, _ = run(RunSpec("allreduce", "recursive_doubling", 8, (n,)), _node(memory_Bps=10e9),
                  load_profile("hockney"), platform="multicore")
    alpha_net = 1e-7 + 2 * LATENCY_S + 1e-7  # socket link, NIC, NIC, socket link
    assert rows[0]["time_s"] == pytest.approx(
        2 * (2e-7 + 4 * s / 10e9) + (alpha_net + 4 * s / 4e9) + 3 * n * gamma, rel=1e-9)




def test_half_duplex_links_are_shared_both_ways():
    """Recursive doubling and the tree (reduce + bcast) on 2 ranks of a half-duplex crossbar.

    The exchange puts both directions on each node's one link: 2 lat + 2 s / B + n gamma
    (full duplex: 2 lat + s / B + n gamma).  The tree's messages go one way at a time and
    keep the whole link: 2 (2 lat + s / B) + n gamma, as on a full-duplex link.
    """
    n, gamma = 1 << 16, 1e-10
    s = n + ENVELOPE_BYTES
    full, half = _xbar(), crossbar(nodes=4, latency_s=LATENCY_S, bandwidth_Bps=BANDWIDTH_BPS,
                                   half_duplex=True)
    assert 'sharing_policy="SHARED"' in platform_xml(half).decode()
    assert 'sharing_policy="SPLITDUPLEX"' in platform_xml(full).decode()
    assert "half_duplex" not in full.graph["params"]
    hockney = load_profile("hockney")
    exchange = {G.graph["half_duplex"]: run(RunSpec("allreduce", "recursive_doubling", 2, (n,)),
                                            G, hockney, platform="crossbar")[0][0]
                for G in (full, half)}
    assert exchange[False]["time_s"] == pytest.approx(2 * LATENCY_S + s / BANDWIDTH_BPS
                                                      + n * gamma, rel=1e-9)
    assert exchange[True]["time_s"] == pytest.approx(2 * LATENCY_S + 2 * s / BANDWIDTH_BPS
                                                     + n * gamma, rel=1e-9)
    tree, _ = run(RunSpec("allreduce", "reduce_bcast", 2, (n,)), half, hockney,
                  platform="crossbar")
    assert tree[0]["time_s"] == pytest.approx(2 * (2 * LATENCY_S + s / BANDWIDTH_BPS)
                                              + n * gamma, rel=1e-9)
    # the models get the exchange's beta and f_beta = 0.5 (seed 001 sec. 2.1), and the
    # exchange's flat model is the simulation; the flat models are not claimed exact there
    # (the row's model is the network model's: SHARED links, one resource both ways)
    assert exchange[True]["flat_model_s"] == pytest.approx(exchange[True]["time_s"], rel=1e-9)
    assert exchange[True]["model_s"] == pytest.approx(exchange[True]["time_s"], rel=1e-9)
    assert exchange[True]["model_class"] == "network"
    assert exchange[False]["model_class"] == "exact"


@pytest.mark.parametrize("collective,algorithm", [
    ("allreduce", "reduce_bcast"), ("allreduce", "recursive_doubling"),
    ("allreduce", "rabenseifner"), ("reduce", "binomial"), ("reduce", "linear"),
    ("reduce", "overlapped_binomial"), ("bcast", "binomial"), ("bcast", "linear"),
    ("bcast", "concurrent_binary")])
def test_models_charge_one_way_messages_f_beta_on_half_duplex_links(collective, algorithm):
    """7 ranks, 64 KiB: the one-way messages of these algorithms (trees, linear, the
    pre- and post-steps of recursive doubling and halving + doubling at p != 2^k) keep
    the whole link, the exchanges share it; the models (f_beta = 0.5) follow."""
    half = crossbar(nodes=8, latency_s=LATENCY_S, bandwidth_Bps=BANDWIDTH_BPS,
                    half_duplex=True)
    rows, _ = run(RunSpec(collective, algorithm, 7, (1 << 16,), check=False, timing_only=True),
                  half, load_profile("hockney"), platform="crossbar")
    assert rows[0]["model_s"] == pytest.approx(rows[0]["time_s"], rel=1e-6)


@pytest.mark.parametrize("collective", ["bcast", "reduce"])
def test_pipeline_stages_share_a_half_duplex_link_both_ways(collective):
    """A pipeline stage receives the next segment while it forwards this one: on a
    half-duplex link both move at beta, not f_beta beta (the schedule's
    ``links_shared_both_ways``); 7 ranks, 1 MiB: the model within 0.01 %, and 1.5x
    below the simulation without the rule."""
    half = crossbar(nodes=8, latency_s=LATENCY_S, bandwidth_Bps=BANDWIDTH_BPS,
                    half_duplex=True)
    rows, _ = run(RunSpec(collective, "pipeline", 7, (1 << 20,), check=False,
                          timing_only=True), half, load_profile("hockney"), platform="crossbar")
    assert rows[0]["model_s"] == pytest.approx(rows[0]["time_s"], rel=1e-4)


def test_half_duplex_is_a_bool_and_not_silently_dropped():
    with pytest.raises(ValueError, match="half_duplex must be true or false"):
        crossbar(nodes=2, half_duplex="yes")
    # multicore nodes' routed links are full duplex: refused, not ignored
    with pytest.raises(ValueError, match="half-duplex"):
        multicore(crossbar(nodes=2, half_duplex=True), sockets_per_node=2, cores_per_socket=1)


def test_memory_bandwidth_must_be_positive():
    with pytest.raises(ValueError, match="memory_bandwidth_Bps"):
        _node(memory_Bps=0.0)


def test_catalog_machine_runs_under_its_calibrated_profile_by_default(capsys):
    """seed000_qdr320 by name: MPICH's overheads (0.1 us at each end, eager below
    128000 B) on its socket memory (16 GB/s, 0.1 us); --profile hockney: neither overhead."""
    from collsim.cli import main

    def one_way_s(*extra):
        assert main(["pingpong", "--platform", "seed000_qdr320", "--np", "2", "--bytes", "0",
                     "--json", *extra]) == 0
        row = json.loads(capsys.readouterr().out)
        assert row["ratio"] == pytest.approx(1.0, abs=1e-9)  # the model has the same elements
        return row["time_s"]

    memory_s = 1e-7 + ENVELOPE_BYTES / 16e9
    assert one_way_s() == pytest.approx(0.1e-6 + memory_s + 0.1e-6, rel=1e-9)
    assert one_way_s("--profile", "hockney") == pytest.approx(memory_s, rel=1e-9)
    assert catalog_profile("seed002_orfeo_epyc") == "seed002_openmpi"
    assert catalog_profile("modern_fat_tree_hdr") == "hockney"
    for name in CATALOG:
        load_profile(catalog_profile(name))  # every named profile exists
