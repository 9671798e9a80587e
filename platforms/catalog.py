"""The catalog: the seeds' machines and two modern ones, each parameter with its source.

An entry names a generator (``family``) and its keyword parameters; a
``multicore`` entry also names the ``network`` it is built on.  ``profile`` names the
SMPI profile (``sim/collsim/profiles.toml``) the machine runs under when given
by name (``collsim run --platform NAME`` without ``--profile``).  ``sources``
says where every value comes from: the seed (file and section), a vendor's
published specification, or ``assumed`` when neither gives it (then the value
is a typical one for the hardware and the reason is stated).  The XML of every
entry is committed in ``platforms/catalog/<name>.xml`` (kept equal to the
generator's output by ``tests/test_platform_catalog.py``), so ``smpirun`` can use it
without Python.

Seed 001's Cray T3E 900 is ``seed001_t3e900``: a crossbar standing for its
3D torus, with the MPI latency and bandwidth measured by others (the seed gives
no link parameters; docs/seeds/seed001.md says why a crossbar).  The IBM SP of
its Fig. 4 is not in the catalog.
"""

from __future__ import annotations

from pathlib import Path

import networkx as nx

from .families import GENERATORS
from .multicore import multicore

__all__ = ["CATALOG", "catalog_platform", "catalog_profile", "catalog_xml_path"]

CATALOG_DIR = Path(__file__).resolve().parent / "catalog"

_QDR = "QDR InfiniBand: 40 Gb/s signalling, 8b/10b coding, 32 Gb/s = 4 GB/s of data (InfiniBand Architecture Specification 1.2)"
_INTRA = ("assumed: no seed gives intra-node figures; a socket link of 40 GB/s, 0.2 us and a "
          "loopback (or memory latency) of 50 GB/s, 0.1 us are typical of a two-socket Xeon node")
_SWITCH_LAT = "assumed: ~0.5 us per link and switch (typical InfiniBand/OmniPath port-to-port latency plus cable)"

CATALOG = {
    "seed000_qdr320": dict(
        description="seed 000 (Balaji & Kimpe 2013): 320 nodes x 2 sockets x 4 cores, QDR InfiniBand",
        family="multicore",
        network=("fat_tree", dict(levels=2, down_ports=[16, 20], up_ports=[1, 16],
                                  bandwidth_Bps=2.4e9, latency_s=5e-7, loopback_latency_s=1e-7,
                                  loopback_bandwidth_Bps=50e9, speed_flops=10.64e9)),
        params=dict(sockets_per_node=2, cores_per_socket=4, socket_bandwidth_Bps=12.8e9,
                    socket_latency_s=2e-7, memory_bandwidth_Bps=16e9, memory_latency_s=1e-7),
        profile="seed000_mpich_qdr",
        sources=dict(
            nodes="seed 000 sec. VI.B: 320 nodes",
            sockets_per_node="seed 000 sec. VI.B: two Intel Xeon X5550 quad-core CPUs per node",
            cores_per_socket="seed 000 sec. VI.B: quad-core",
            bandwidth_Bps="fitted: 2.4 GB/s, the least-squares fit (log of x8/x1) to the "
                          "paper's Fig. 2 magnitudes (reduce 2.5-5x at 32,768 doubles and 64 "
                          "ranks, 65 % at 16 ranks and 512k doubles), rms error a factor 1.15 "
                          "(docs/seeds/seed000.py --fit, seed000_fit.tsv); below the wire's "
                          "4 GB/s (" + _QDR + ") because MPICH's git master of July 2013 had "
                          "no InfiniBand netmod (MPICH's CHANGES: MXM support came in 3.2, "
                          "2015), so its network messages went through the TCP netmod over "
                          "IPoIB (seed 000 sec. VI.B: Mellanox QDR InfiniBand HCAs); no IPoIB "
                          "measurement of that machine was found",
            topology="assumed: the seed names no topology; a non-blocking two-level fat-tree "
                     "(20 leaf switches of 16 nodes + 16 up-links, 16 spines), routed d-mod-k "
                     "by the destination node (spine = node mod 16, as SimGrid's FAT_TREE "
                     "cluster), so cross-leaf traffic spreads over the 16 spines (README, "
                     "Platforms)",
            latency_s=_SWITCH_LAT,
            speed_flops="Intel X5550 datasheet: 2.66 GHz x 4 double-precision flop/cycle",
            socket_bandwidth_Bps="Intel X5550 (ark.intel.com): QPI at 6.4 GT/s = 12.8 GB/s "
                                 "per direction between the two sockets",
            memory_bandwidth_Bps="Intel X5550 (ark.intel.com): 32 GB/s (3 channels DDR3-1333) "
                                 "per socket; MPICH nemesis copies a message twice, through a "
                                 "shared copy buffer of 8 x 32 KiB per pair reused in a ring "
                                 "(ch3/channels/nemesis/src/mpid_nem_lmt_shm.c: NUM_BUFS, "
                                 "MPID_NEM_COPY_BUF_LEN), which stays in the 8 MB L3, so the "
                                 "memory sees 2 bytes per byte moved (read the source, write "
                                 "the destination): 16 GB/s shared by the socket's intra-socket "
                                 "messages (the copy buffer in cache is inferred, not measured; "
                                 "with it in memory, 4 bytes: 8 GB/s, docs/seeds/seed000.md)",
            memory_latency_s=_INTRA, loopback_bandwidth_Bps=_INTRA,
            profile="seed000_mpich_qdr in sim/collsim/profiles.toml (MPICH's eager limit; "
                    "assumed overheads)",
        ),
    ),
    **{
        f"seed002_orfeo_{kind}": dict(
            description=f"seed 002 (Masella 2025): two ORFEO {kind.upper()} nodes, "
                        f"2 sockets x {cores} cores",
            family="multicore",
            network=("crossbar", dict(nodes=2, bandwidth_Bps=12.5e9, latency_s=5e-7,
                                      loopback_latency_s=1e-7, loopback_bandwidth_Bps=50e9,
                                      speed_flops=speed)),
            params=dict(sockets_per_node=2, cores_per_socket=cores, socket_bandwidth_Bps=link,
                        socket_latency_s=2e-7, memory_bandwidth_Bps=memory / 2,
                        memory_latency_s=1e-7),
            profile="seed002_openmpi",
            sources=dict(
                nodes="seed 002 sec. 3.1: the tests run on two nodes of each type",
                cores_per_socket=f"seed 002 sec. 3.1 and 3.2: {cores} cores per socket; {cpu}",
                sockets_per_node="seed 002 sec. 3.1: mapping by socket or NUMA domain "
                                 "(two sockets per node)",
                bandwidth_Bps="assumed: the seed names no network; 100 Gb/s InfiniBand "
                              "(ORFEO's HDR100 fabric per its public documentation)",
                latency_s=_SWITCH_LAT,
                speed_flops="assumed: one core's double-precision peak",
                socket_bandwidth_Bps=link_source,
                memory_bandwidth_Bps=memory_source + "; Open MPI's shared-memory BTL moves a "
                "message above its eager limit with one copy (CMA/XPMEM single copy), a read "
                "and a write per byte: half the peak, shared by the socket's intra-socket "
                "messages",
                memory_latency_s=_INTRA, loopback_bandwidth_Bps=_INTRA,
                profile="seed002_openmpi in sim/collsim/profiles.toml (Open MPI's eager limit; "
                        "assumed overheads)",
            ),
        )
        for kind, cores, cpu, speed, memory, memory_source, link, link_source in (
            ("thin", 12, "Intel Xeon Gold (the model, 6126, from ORFEO's public documentation)",
             41.6e9, 128e9, "Intel Xeon Gold 6126 (ark.intel.com): 6 channels DDR4-2666, "
             "128 GB/s per socket", 20.8e9,
             "Intel Xeon Gold 6126 (ark.intel.com): UPI at 10.4 GT/s = 20.8 GB/s per direction "
             "(one of its 3 links modeled)"),
            ("fat", 18, "Intel Xeon Gold (the model, 6154, from ORFEO's public documentation)",
             48e9, 128e9, "Intel Xeon Gold 6154 (ark.intel.com): 6 channels DDR4-2666, "
             "128 GB/s per socket", 20.8e9,
             "Intel Xeon Gold 6154 (ark.intel.com): UPI at 10.4 GT/s = 20.8 GB/s per direction "
             "(one of its 3 links modeled)"),
            ("epyc", 64, "AMD EPYC 7H12 (seed 002 sec. 1); the seed's '128 cores' per node are "
             "2 sockets x 64", 41.6e9, 204.8e9, "AMD EPYC 7H12 (amd.com): 8 channels DDR4-3200, "
             "204.8 GB/s per socket", 144e9,
             "AMD EPYC 7002: 4 xGMI x16 links at 18 GT/s between the sockets, 36 GB/s per "
             "direction each"),
        )
    },
    "seed001_t3e900": dict(
        description="seed 001 (Rabenseifner 2004): Cray T3E 900, 540 PEs, one processor per "
                    "node on a 3D torus (modelled as a crossbar), Cray MPI",
        family="crossbar",
        params=dict(nodes=540, cores_per_node=1, bandwidth_Bps=300e6, latency_s=2.5e-6,
                    speed_flops=900e6, gamma_s_per_byte=5e-9),
        sources=dict(
            nodes="seed 001 sec. 3: a Cray T3E 900 with 540 PEs (one Alpha per PE)",
            topology="seed 001 sec. 1 and Cray: a 3D torus, one processor per node.  Modelled "
                     "as a crossbar (docs/seeds/seed001.md): the torus links carry 480 MB/s of "
                     "payload per direction (Cray T3E: 6-way router, Wikipedia 'Cray T3E'), "
                     "more than one PE's MPI rate, so a message's bottleneck is the PE's own "
                     "injection, which the crossbar's private link is; the per-hop router "
                     "delay is small against the MPI latency below; contention on torus links "
                     "is left out",
            bandwidth_Bps="Ames Laboratory, 'MP_Lite performance on the Cray T3E' "
                          "(scl.ameslab.gov/Projects/MP_Lite/perf_t3e.html): SHMEM 340 MB/s, "
                          "the current Cray MPI 85-90 % of it: 300 MB/s",
            latency_s="same source: Cray MPI latency 5 us, split over the two links of a "
                      "crossbar route (2 x 2.5 us)",
            speed_flops="Alpha 21164 (EV56) at 450 MHz (T3E 900), 2 flop/cycle",
            gamma_s_per_byte="assumed: no source found for the T3E's local reduction rate; "
                             "a sum of two double vectors from memory moves 3 bytes per byte "
                             "reduced (two loads, one store); 5 ns/B = 200 MB/s of vector is "
                             "600 MB/s of memory traffic, a STREAM-class rate for one 21164 "
                             "node (the page measures the map with gamma / 10 too)",
        ),
    ),
    "seed003_hydra": dict(
        description="seed 003 (Traff 2021): Hydra, 36 nodes x 2 sockets x 16 cores, dual-rail "
                    "OmniPath, one rail per socket",
        family="dual_rail",
        params=dict(nodes=36, sockets_per_node=2, cores_per_socket=16,
                    rail_policy="socket_affine", nic_bandwidth_Bps=3.1e9, nic_latency_s=5e-7,
                    socket_bandwidth_Bps=40e9, socket_latency_s=2e-7, speed_flops=67.2e9),
        profile="seed003_openmpi_opa",
        sources=dict(
            nodes="seed 003 Table 1: 36 nodes, 1152 cores",
            cores_per_socket="seed 003 sec. 2: two 16-core sockets (Intel Xeon Gold 6130)",
            rail_policy="seed 003 sec. 2: each socket with a direct OmniPath connection to a "
                        "separate network",
            nic_bandwidth_Bps="fitted: least squares in relative error of both seed 003 Table 2 "
                              "columns (pipelined, doubly pipelined) at count 8,388,608 under "
                              "the fitted o (docs/seeds/seed003.py --fit: 3.12 GB/s).  An "
                              "effective rate: Intel Omni-Path 100 series signals 100 Gb/s per "
                              "port (12.5 GB/s); the fit also absorbs the per-byte costs the "
                              "model lacks (PSM2's copies, memory traffic of 8 ranks per node)",
            topology="assumed: each rail one 48-port OmniPath edge switch (36 nodes fit one)",
            nic_latency_s=_SWITCH_LAT,
            speed_flops="Xeon Gold 6130 datasheet: 2.1 GHz x 32 flop/cycle (AVX-512)",
            socket_bandwidth_Bps=_INTRA,
            profile="seed003_openmpi_opa in sim/collsim/profiles.toml (o fitted to seed 003 "
                    "Table 2, counts <= 250)",
        ),
    ),
    "seed004_graphene": dict(
        description="seed 004 (Hasanov & Lastovetsky 2015): Graphene, 144 nodes x 4 cores, "
                    "4 switches joined by one router, 20 Gb/s InfiniBand",
        family="fat_tree",
        params=dict(levels=2, down_ports=[36, 4], up_ports=[1, 1], bandwidth_Bps=2e9,
                    latency_s=5e-7, cores_per_node=4, speed_flops=10.12e9),
        sources=dict(
            nodes="seed 004 sec. 4: 144 nodes",
            cores_per_node="seed 004 sec. 4: 4-core Intel Xeon X3440 (one socket)",
            topology="seed 004 sec. 4.1: four groups on four switches, the switches connected "
                     "to the main Nancy router (36 nodes per switch assumed: 144 / 4)",
            bandwidth_Bps="seed 004 sec. 4: 20 Gb/s InfiniBand (DDR: 16 Gb/s of data = 2 GB/s)",
            latency_s=_SWITCH_LAT,
            speed_flops="Xeon X3440 datasheet: 2.53 GHz x 4 flop/cycle",
        ),
    ),
    "modern_fat_tree_hdr": dict(
        description="a modern non-blocking fat-tree: 800 nodes on 40-port HDR 200 Gb/s "
                    "InfiniBand switches (40 leaves x 20 nodes, 20 spines)",
        family="fat_tree",
        params=dict(levels=2, down_ports=[20, 40], up_ports=[1, 20], bandwidth_Bps=25e9,
                    latency_s=3e-7, cores_per_node=1),
        sources=dict(
            down_ports="NVIDIA Quantum QM8700: 40 HDR ports per switch, half down, half up",
            bandwidth_Bps="InfiniBand HDR: 200 Gb/s per port = 25 GB/s",
            latency_s="NVIDIA QM8700 datasheet: 130 ns port-to-port, plus cable and NIC "
                      "(assumed 0.3 us per link)",
        ),
    ),
    "modern_dragonfly_slingshot": dict(
        description="a modern dragonfly: 9 groups x 8 switches x 8 nodes, 200 Gb/s links "
                    "(HPE Slingshot-like)",
        family="dragonfly",
        params=dict(groups=9, chassis_per_group=1, routers_per_chassis=8, nodes_per_router=8,
                    global_links=1, node_bandwidth_Bps=25e9, node_latency_s=3e-7,
                    local_bandwidth_Bps=25e9, local_latency_s=3e-7, global_bandwidth_Bps=25e9,
                    global_latency_s=6e-7),
        sources=dict(
            bandwidth_Bps="HPE Slingshot Rosetta switch: 64 ports of 200 Gb/s (25 GB/s)",
            topology="HPE Slingshot: all-to-all switches in a group, all-to-all groups "
                     "(scaled down to 9 groups of 8 switches to stay small)",
            latency_s="HPE Slingshot: ~300 ns per switch hop (assumed 0.3 us local, 0.6 us "
                      "global for longer optical cables)",
        ),
    ),
}

def catalog_platform(name: str) -> nx.Graph:
    """Return the platform graph of a catalog entry.

    Raises
    ------
    ValueError
        If ``name`` is not in the catalog (the message lists the known names).

    Examples
    --------
    >>> G = catalog_platform("seed004_graphene")
    >>> sum(G.nodes[h]["cores"] for h, k in G.nodes(data="kind") if k == "host")
    576
    """
    entry = CATALOG.get(name)
    if entry is None:
        raise ValueError(f"unknown catalog platform {name!r} (known: {', '.join(CATALOG)})")
    if entry["family"] == "multicore":
        network_family, network_params = entry["network"]
        G = multicore(GENERATORS[network_family](**network_params), **entry["params"])
    else:
        G = GENERATORS[entry["family"]](**entry["params"])
    G.graph["catalog"] = name
    return G


def catalog_profile(name: str) -> str:
    """The profile a catalog machine runs under by default (``hockney`` when it names none).

    Examples
    --------
    >>> catalog_profile("seed000_qdr320"), catalog_profile("modern_fat_tree_hdr")
    ('seed000_mpich_qdr', 'hockney')
    """
    if name not in CATALOG:
        raise ValueError(f"unknown catalog platform {name!r} (known: {', '.join(CATALOG)})")
    return CATALOG[name].get("profile", "hockney")


def catalog_xml_path(name: str) -> Path:
    """Return the path of the committed XML of a catalog entry."""
    if name not in CATALOG:
        raise ValueError(f"unknown catalog platform {name!r} (known: {', '.join(CATALOG)})")
    return CATALOG_DIR / f"{name}.xml"
