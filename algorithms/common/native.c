/*
 * native.c: the default algorithm selection of Open MPI 4.1 and MPICH 4.0 for
 * every collective of ../collectives.def, and the name mapping of ../native.def.
 *
 * Open MPI: the fixed rules of coll/tuned, ompi_coll_tuned_<collective>_intra_
 * dec_fixed() in ompi/mca/coll/tuned/coll_tuned_decision_fixed.c (read in
 * v4.1.4; the tables are those of the whole 4.1 series), transcribed below as
 * rows of (communicator size below, total bytes below, algorithm id); the
 * fixed rules pass fan-out 0 and segment size 0 to every algorithm (a chain
 * of fan-out 0 is one chain: collsim's chain with its default chain_fanout,
 * which the selectors leave unset).  Then the
 * fallbacks inside the algorithms (ompi/mca/coll/base/coll_base_*.c):
 * allreduce ring runs recursive doubling when count < p; segmented ring with
 * segment size 0 runs the ring; allreduce rabenseifner runs basic_linear when
 * count < pof2(p) or the op is not commutative; reduce rabenseifner runs
 * linear when pof2(p) < 2, count < pof2(p) or the op is not commutative;
 * allgather recursive doubling runs bruck when p is not a power of two,
 * neighbor exchange the ring when p is odd; reduce_scatter_block recursive
 * halving runs basic_linear for a non-commutative op, recursive doubling
 * when p x count > INT_MAX; the two_proc algorithms fail on p != 2.  The
 * fixed rules of allgather, alltoall, reduce_scatter_block, gather and
 * scatter read the bytes of one block (dsize x scount: a row's bytes),
 * barrier's the communicator size only.  Open MPI 4.1's coll/tuned has no
 * fixed rules for scan and exscan: coll/basic runs them (linear), and only
 * a dynamic rules file makes tuned take them.
 *
 * MPICH: the default selection tree compiled into MPICH 4.0
 * (maint/tuning/coll/mpir/generic.json in v4.0.2, the file
 * MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE replaces; evaluated by
 * src/mpi/coll/src/csel.c), for a flat communicator: the comm_hierarchy=any
 * branches.  A communicator spanning several nodes takes the "parent"
 * branches (MPICH builds them whenever some node holds several of its ranks,
 * src/mpi/comm/commutil.c MPIR_Comm_create_subcomms), which differ for
 * zero-byte allreduce, for barrier (MPIR_Barrier_intra_smp) and, when each
 * node's ranks are consecutive, for scan (MPIR_Scan_intra_smp), and CH4's
 * own layer (maint/tuning/coll/ch4/generic.json) may first pick its
 * node-aware compositions; neither is modelled here.  The sizes csel.c
 * compares: allreduce, reduce, bcast and alltoall the bytes of one block
 * (avg_msg_size), allgather and reduce_scatter_block p blocks
 * (total_msg_size); alltoall with MPI_IN_PLACE takes another branch, which a
 * selector never sees (collsim's algorithms get a send buffer copy).
 */
#include "native.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define COLLSIM_NATIVE_LIB_openmpi COLLSIM_NATIVE_OPENMPI
#define COLLSIM_NATIVE_LIB_mpich COLLSIM_NATIVE_MPICH
enum {
#define COLLSIM_COLLECTIVE(name, NAME, op, root, send_blocks, recv_blocks, holders, mpi, summary) \
    COLLSIM_NATIVE_COLL_##name = COLLSIM_##NAME,
#include "../collectives.def"
#undef COLLSIM_COLLECTIVE
};

static const collsim_native_entry entries[] = {
#define COLLSIM_NATIVE(lib, coll, lib_id, lib_name, collsim_name, lib_note)                      \
    {.library = COLLSIM_NATIVE_LIB_##lib,                                                       \
     .collective = (collsim_collective)COLLSIM_NATIVE_COLL_##coll, .id = lib_id,                  \
     .library_name = lib_name, .algorithm = collsim_name, .note = lib_note},
#include "../native.def"
#undef COLLSIM_NATIVE
};

const collsim_native_entry *collsim_native_entries(size_t *count)
{
    *count = sizeof entries / sizeof entries[0];
    return entries;
}

const char *collsim_native_library_name(collsim_native_library library)
{
    return library == COLLSIM_NATIVE_OPENMPI ? "openmpi" : "mpich";
}

const char *collsim_native_library_version(collsim_native_library library)
{
    return library == COLLSIM_NATIVE_OPENMPI ? "Open MPI 4.1 (coll/tuned fixed rules, v4.1.4)"
                                             : "MPICH 4.0 (generic.json default selection, v4.0.2)";
}

static const collsim_native_entry *find_entry(collsim_native_library library,
                                              collsim_collective collective, int id,
                                              const char *library_name)
{
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        const collsim_native_entry *e = &entries[i];
        if (e->library == library && e->collective == collective &&
            (library_name ? strcmp(e->library_name, library_name) == 0 : e->id == id))
            return e;
    }
    return NULL; /* unreachable for the ids and names used below (tests hold them) */
}

/* One row of a fixed-rules table: below comm_below ranks and below
 * bytes_below total bytes, algorithm alg.  The rows of one communicator
 * bracket are consecutive, in increasing bytes_below, the last one
 * LLONG_MAX; the last bracket has comm_below INT_MAX. */
typedef struct rule {
    int comm_below;
    long long bytes_below;
    int alg;
} rule;

#define ANY LLONG_MAX
#define ALL INT_MAX

static int table_lookup(const rule *rules, int comm_size, long long bytes)
{
    const rule *r = rules;
    while (r->comm_below <= comm_size)
        r++;
    const int bracket = r->comm_below;
    while (r->comm_below == bracket && r->bytes_below <= bytes)
        r++;
    return r->alg;
}

/* ompi_coll_tuned_allreduce_intra_dec_fixed: !ompi_op_is_commute(op) */
static const rule ompi_allreduce_noncommutative[] = {
    {4, 131072, 3}, {4, ANY, 1},
    {8, ANY, 3},
    {16, 1048576, 3}, {16, ANY, 2},
    {128, ANY, 3},
    {256, 131072, 2}, {256, 524288, 3}, {256, ANY, 2},
    {512, 4096, 2}, {512, 524288, 3}, {512, ANY, 2},
    {ALL, 2048, 2}, {ALL, ANY, 3},
};

/* ompi_coll_tuned_allreduce_intra_dec_fixed: commutative ops */
static const rule ompi_allreduce_commutative[] = {
    {4, 8, 4}, {4, 4096, 3}, {4, 8192, 4}, {4, 16384, 3}, {4, 65536, 4}, {4, 262144, 5}, {4, ANY, 6},
    {8, 16, 4}, {8, 8192, 3}, {8, ANY, 6},
    {16, 8192, 3}, {16, ANY, 6},
    {32, 64, 5}, {32, 4096, 3}, {32, ANY, 6},
    {64, 128, 5}, {64, ANY, 6},
    {128, 262144, 3}, {128, ANY, 6},
    {256, 131072, 2}, {256, 262144, 3}, {256, ANY, 6},
    {512, 4096, 2}, {512, ANY, 6},
    {2048, 2048, 2}, {2048, 16384, 3}, {2048, ANY, 6},
    {4096, 2048, 2}, {4096, 4096, 5}, {4096, 16384, 3}, {4096, ANY, 6},
    {ALL, 2048, 2}, {ALL, 16384, 5}, {ALL, 32768, 3}, {ALL, ANY, 6},
};

/* ompi_coll_tuned_bcast_intra_dec_fixed */
static const rule ompi_bcast[] = {
    {4, 32, 3}, {4, 256, 5}, {4, 512, 3}, {4, 1024, 7}, {4, 32768, 1}, {4, 131072, 5},
    {4, 262144, 2}, {4, 524288, 1}, {4, 1048576, 6}, {4, ANY, 5},
    {8, 64, 5}, {8, 128, 6}, {8, 2048, 5}, {8, 8192, 6}, {8, 1048576, 1}, {8, ANY, 2},
    {16, 8, 7}, {16, 64, 5}, {16, 4096, 7}, {16, 16384, 5}, {16, 32768, 6}, {16, ANY, 1},
    {32, 4096, 7}, {32, 1048576, 6}, {32, ANY, 8},
    {64, 2048, 6}, {64, ANY, 7},
    {128, ANY, 7},
    {256, 2, 6}, {256, 16384, 5}, {256, 32768, 1}, {256, 65536, 5}, {256, ANY, 7},
    {1024, 16384, 7}, {1024, 32768, 4}, {1024, ANY, 7},
    {2048, 524288, 7}, {2048, ANY, 8},
    {4096, 262144, 7}, {4096, ANY, 8},
    {ALL, 8192, 7}, {ALL, 16384, 5}, {ALL, 262144, 7}, {ALL, ANY, 8},
};

/* ompi_coll_tuned_reduce_intra_dec_fixed: !ompi_op_is_commute(op) */
static const rule ompi_reduce_noncommutative[] = {
    {4, 8, 6}, {4, ANY, 1},
    {8, ANY, 1},
    {16, 1024, 6}, {16, 8192, 1}, {16, 16384, 6}, {16, 262144, 1}, {16, ANY, 6},
    {128, ANY, 6},
    {256, 512, 6}, {256, 1024, 1}, {256, ANY, 6},
    {ALL, ANY, 6},
};

/* ompi_coll_tuned_reduce_intra_dec_fixed: commutative ops */
static const rule ompi_reduce_commutative[] = {
    {4, 8, 7}, {4, 16, 4}, {4, 32, 3}, {4, 262144, 1}, {4, 524288, 3}, {4, 1048576, 2}, {4, ANY, 3},
    {8, 4096, 4}, {8, 65536, 2}, {8, 262144, 5}, {8, 524288, 1}, {8, 1048576, 5}, {8, ANY, 1},
    {16, 8192, 4}, {16, ANY, 5},
    {32, 4096, 4}, {32, ANY, 5},
    {256, ANY, 5},
    {512, 8192, 5}, {512, 16384, 6}, {512, ANY, 5},
    {2048, ANY, 5},
    {4096, 512, 5}, {4096, 1024, 6}, {4096, 8192, 5}, {4096, 16384, 6}, {4096, ANY, 5},
    {ALL, 16, 5}, {ALL, 32, 6}, {ALL, 1024, 5}, {ALL, 2048, 6}, {ALL, 8192, 5}, {ALL, 16384, 6},
    {ALL, ANY, 5},
};

/* ompi_coll_tuned_allgather_intra_dec_fixed (bytes: one block) */
static const rule ompi_allgather[] = {
    {2, ANY, 3},
    {3, ANY, 6}, /* communicator_size == 2 */
    {32, ANY, 3},
    {64, 1024, 3}, {64, 65536, 5}, {64, ANY, 4},
    {128, 512, 3}, {128, 65536, 5}, {128, ANY, 4},
    {256, 512, 3}, {256, 131072, 5}, {256, 524288, 4}, {256, 1048576, 5}, {256, ANY, 4},
    {512, 32, 3}, {512, 128, 2}, {512, 1024, 3}, {512, 131072, 5}, {512, 524288, 4},
    {512, 1048576, 5}, {512, ANY, 4},
    {1024, 64, 3}, {1024, 256, 2}, {1024, 2048, 3}, {1024, ANY, 5},
    {2048, 4, 3}, {2048, 8, 2}, {2048, 16, 3}, {2048, 32, 2}, {2048, 256, 3}, {2048, 512, 2},
    {2048, 4096, 3}, {2048, ANY, 5},
    {4096, 32, 2}, {4096, 128, 3}, {4096, 512, 2}, {4096, 4096, 3}, {4096, ANY, 5},
    {ALL, 2, 3}, {ALL, 8, 2}, {ALL, 16, 3}, {ALL, 512, 2}, {ALL, 4096, 3}, {ALL, ANY, 5},
};

/* ompi_coll_tuned_alltoall_intra_dec_fixed (bytes: one block) */
#define OMPI_ALLTOALL_BELOW_8(below)                                                        \
    {below, 8192, 4}, {below, 16384, 1}, {below, 65536, 4}, {below, 524288, 1},             \
        {below, 1048576, 2}, {below, ANY, 1}
static const rule ompi_alltoall[] = {
    OMPI_ALLTOALL_BELOW_8(2), /* one rank: the "< 8" branch */
    {3, 2, 2}, {3, 4, 5}, {3, 16, 2}, {3, 64, 5}, {3, 256, 2}, {3, 4096, 5}, {3, 32768, 2},
    {3, 262144, 4}, {3, 1048576, 5}, {3, ANY, 2}, /* communicator_size == 2 */
    OMPI_ALLTOALL_BELOW_8(8),
    {16, 262144, 4}, {16, ANY, 1},
    {32, 4, 4}, {32, 512, 3}, {32, 8192, 4}, {32, 32768, 1}, {32, 262144, 4}, {32, 524288, 1},
    {32, ANY, 4},
    {64, 512, 3}, {64, 524288, 1}, {64, ANY, 4},
    {128, 1024, 3}, {128, 2048, 1}, {128, 4096, 4}, {128, 262144, 1}, {128, ANY, 2},
    {256, 1024, 3}, {256, 2048, 4}, {256, 262144, 1}, {256, ANY, 2},
    {512, 1024, 3}, {512, 8192, 4}, {512, 32768, 1}, {512, ANY, 2},
    {1024, 512, 3}, {1024, 8192, 4}, {1024, 16384, 1}, {1024, 131072, 4}, {1024, 262144, 1},
    {1024, ANY, 2},
    {2048, 512, 3}, {2048, 1024, 4}, {2048, 2048, 1}, {2048, 16384, 4}, {2048, 262144, 1},
    {2048, ANY, 4},
    {4096, 1024, 3}, {4096, 4096, 4}, {4096, 8192, 1}, {4096, 131072, 4}, {4096, ANY, 1},
    {ALL, 2048, 3}, {ALL, 8192, 4}, {ALL, 16384, 1}, {ALL, 32768, 4}, {ALL, 65536, 1},
    {ALL, ANY, 4},
};

/* ompi_coll_tuned_reduce_scatter_block_intra_dec_fixed: commutative ops
 * (a non-commutative op: basic_linear, 1); bytes: one block */
static const rule ompi_reduce_scatter_block[] = {
    {4, 4, 2}, {4, 8, 4}, {4, 16, 3}, {4, 128, 4}, {4, 256, 3}, {4, 4096, 4}, {4, 8192, 3},
    {4, 131072, 4}, {4, ANY, 1},
    {8, 8, 3}, {8, 32, 2}, {8, 256, 4}, {8, 8192, 3}, {8, 16384, 4}, {8, 1048576, 3}, {8, ANY, 1},
    {16, 4, 1}, {16, 32, 3}, {16, 128, 4}, {16, 524288, 3}, {16, 4194304, 1}, {16, ANY, 4},
    {32, 32, 1}, {32, 524288, 3}, {32, 2097152, 1}, {32, 4194304, 3}, {32, ANY, 4},
    {ALL, 4, 3}, {ALL, 16, 1}, {ALL, 65536, 4}, {ALL, 262144, 1}, {ALL, ANY, 4},
};

/* ompi_coll_tuned_gather_intra_dec_fixed (bytes: one block) */
static const rule ompi_gather[] = {
    {4, 2, 3}, {4, 4, 1}, {4, 32768, 2}, {4, 65536, 1}, {4, 131072, 2}, {4, ANY, 3},
    {8, 1024, 2}, {8, 8192, 1}, {8, 32768, 2}, {8, 262144, 1}, {8, ANY, 3},
    {256, ANY, 2},
    {512, 2048, 2}, {512, 8192, 1}, {512, ANY, 2},
    {ALL, ANY, 2},
};

/* ompi_coll_tuned_scatter_intra_dec_fixed (bytes: one block) */
static const rule ompi_scatter[] = {
    {4, 2, 3}, {4, 131072, 1}, {4, 262144, 3}, {4, ANY, 1},
    {8, 2048, 2}, {8, 4096, 1}, {8, 8192, 2}, {8, 32768, 1}, {8, 1048576, 3}, {8, ANY, 1},
    {16, 16384, 2}, {16, 1048576, 3}, {16, ANY, 1},
    {32, 16384, 2}, {32, 32768, 1}, {32, ANY, 3},
    {64, 512, 2}, {64, 8192, 3}, {64, 16384, 2}, {64, ANY, 3},
    {ALL, 512, 2}, {ALL, ANY, 3},
};

/* ompi_coll_tuned_barrier_intra_dec_fixed (the communicator size only) */
static const rule ompi_barrier[] = {
    {4, ANY, 3}, {8, ANY, 1}, {64, ANY, 3}, {256, ANY, 4}, {512, ANY, 6}, {1024, ANY, 4},
    {4096, ANY, 6}, {ALL, ANY, 4},
};

static int pof2_floor(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* What Open MPI runs when told to run id (fan-out 0, segment size 0): the
 * fallbacks inside the algorithms of coll_base; 0 where Open MPI fails the
 * call (a two_proc algorithm on p != 2). */
static int openmpi_runs(const collsim_native_call *c, int alg)
{
    const int pof2 = pof2_floor(c->comm_size);
    switch (c->collective) {
    case COLLSIM_ALLREDUCE:
        if (alg == 5) /* segsize 0: ompi_coll_base_allreduce_intra_ring_segmented runs the ring */
            alg = 4;
        if (alg == 4 && c->count < c->comm_size)
            alg = 3;
        if (alg == 6 && (c->count < pof2 || !c->commutative))
            alg = 1;
        break;
    case COLLSIM_REDUCE:
        if (alg == 7 && (pof2 < 2 || c->count < pof2 || !c->commutative))
            alg = 1;
        break;
    case COLLSIM_BCAST:
        /* scatter_allgather(_ring) run basic_linear when count < p */
        if ((alg == 8 || alg == 9) && c->count < c->comm_size)
            alg = 1;
        break;
    case COLLSIM_ALLGATHER:
        if (alg == 3 && pof2 != c->comm_size)
            alg = 2;
        if (alg == 5 && c->comm_size % 2 != 0)
            alg = 4;
        if (alg == 6 && c->comm_size != 2)
            alg = 0;
        break;
    case COLLSIM_ALLTOALL:
        if (alg == 5 && c->comm_size != 2)
            alg = 0;
        break;
    case COLLSIM_REDUCE_SCATTER:
        if (alg == 3 && !c->commutative)
            alg = 1;
        if (alg == 2 && c->count * c->comm_size > INT_MAX)
            alg = 1;
        break;
    case COLLSIM_BARRIER:
        if (alg == 5 && c->comm_size > 2)
            alg = 0;
        break;
    default:
        break;
    }
    return alg;
}

/* Open MPI's fixed rules: the algorithm id for the call. */
static int openmpi_fixed_rule(const collsim_native_call *c)
{
    const long long bytes = c->count * c->type_size_bytes;
    switch (c->collective) {
    case COLLSIM_ALLREDUCE:
        return table_lookup(c->commutative ? ompi_allreduce_commutative
                                           : ompi_allreduce_noncommutative,
                            c->comm_size, bytes);
    case COLLSIM_REDUCE:
        return table_lookup(c->commutative ? ompi_reduce_commutative : ompi_reduce_noncommutative,
                            c->comm_size, bytes);
    case COLLSIM_BCAST:
        return table_lookup(ompi_bcast, c->comm_size, bytes);
    case COLLSIM_ALLGATHER:
        return table_lookup(ompi_allgather, c->comm_size, bytes);
    case COLLSIM_ALLTOALL:
        return table_lookup(ompi_alltoall, c->comm_size, bytes);
    case COLLSIM_REDUCE_SCATTER:
        return c->commutative ? table_lookup(ompi_reduce_scatter_block, c->comm_size, bytes) : 1;
    case COLLSIM_GATHER:
        return table_lookup(ompi_gather, c->comm_size, bytes);
    case COLLSIM_SCATTER:
        return table_lookup(ompi_scatter, c->comm_size, bytes);
    case COLLSIM_BARRIER:
        return table_lookup(ompi_barrier, c->comm_size, 0);
    default: /* scan, exscan: coll/basic's linear */
        return 1;
    }
}

static const collsim_native_entry *choose_openmpi(const collsim_native_call *c)
{
    return find_entry(COLLSIM_NATIVE_OPENMPI, c->collective, openmpi_runs(c, openmpi_fixed_rule(c)),
                      NULL);
}

/* generic.json for the collectives of blocks and barrier, scan, exscan (a
 * flat communicator; bytes: one block; total_msg_size: p blocks). */
static const char *mpich_block_choice(const collsim_native_call *c, long long bytes, int pow2)
{
    const long long total = bytes * c->comm_size;
    switch (c->collective) {
    case COLLSIM_ALLGATHER:
        if (pow2)
            return total < 524288 ? "MPIR_Allgather_intra_recursive_doubling"
                                  : "MPIR_Allgather_intra_ring";
        return total < 81920 ? "MPIR_Allgather_intra_brucks" : "MPIR_Allgather_intra_ring";
    case COLLSIM_REDUCE_SCATTER:
        if (c->commutative)
            return total < 524288 ? "MPIR_Reduce_scatter_block_intra_recursive_halving"
                                  : "MPIR_Reduce_scatter_block_intra_pairwise";
        return pow2 ? "MPIR_Reduce_scatter_block_intra_noncommutative"
                    : "MPIR_Reduce_scatter_block_intra_recursive_doubling";
    case COLLSIM_ALLTOALL: /* is_sendbuf_inplace=no */
        if (c->comm_size >= 8 && bytes <= 256)
            return "MPIR_Alltoall_intra_brucks";
        return bytes <= 32768 ? "MPIR_Alltoall_intra_scattered" : "MPIR_Alltoall_intra_pairwise";
    case COLLSIM_GATHER:
        return "MPIR_Gather_intra_binomial";
    case COLLSIM_SCATTER:
        return "MPIR_Scatter_intra_binomial";
    case COLLSIM_BARRIER: /* comm_hierarchy=any */
        return "MPIR_Barrier_intra_dissemination";
    case COLLSIM_SCAN: /* is_node_consecutive=no: a flat communicator is no parent */
        return "MPIR_Scan_intra_recursive_doubling";
    default:
        return "MPIR_Exscan_intra_recursive_doubling";
    }
}

/* generic.json, comm_type=intra, the comm_hierarchy=any branches (csel.c:
 * avg_msg_size = type size x count, count<pow2: count < pof2(p),
 * comm_size=pow2: p a power of two). */
static const collsim_native_entry *choose_mpich(const collsim_native_call *c)
{
    const long long bytes = c->count * c->type_size_bytes;
    const int pof2 = pof2_floor(c->comm_size);
    const int pow2 = (c->comm_size & (c->comm_size - 1)) == 0;
    const char *name;
    switch (c->collective) {
    case COLLSIM_ALLREDUCE:
        if (bytes <= 0 && c->commutative)
            name = "MPIR_Allreduce_intra_smp";
        else if (bytes <= 8 || !c->builtin_op || c->count < pof2)
            name = "MPIR_Allreduce_intra_recursive_doubling";
        else
            name = "MPIR_Allreduce_intra_reduce_scatter_allgather";
        break;
    case COLLSIM_REDUCE:
        if (bytes <= 2048 || !c->builtin_op || c->count < pof2)
            name = "MPIR_Reduce_intra_binomial";
        else
            name = "MPIR_Reduce_intra_reduce_scatter_gather";
        break;
    case COLLSIM_BCAST:
        if (c->comm_size < 8 || bytes <= 12288)
            name = "MPIR_Bcast_intra_binomial";
        else if (pow2 && bytes <= 524288)
            name = "MPIR_Bcast_intra_scatter_recursive_doubling_allgather";
        else
            name = "MPIR_Bcast_intra_scatter_ring_allgather";
        break;
    default:
        name = mpich_block_choice(c, bytes, pow2);
        break;
    }
    return find_entry(COLLSIM_NATIVE_MPICH, c->collective, 0, name);
}

/* MPICH's algorithms assert their restrictions (src/mpi/coll/coll_algorithms.txt
 * and the algorithms' own MPIR_Assert) instead of falling back: NULL where
 * entry refuses call. */
static const collsim_native_entry *mpich_forced(const collsim_native_entry *entry,
                                                const collsim_native_call *call)
{
    const char *name = entry->library_name;
    const int pow2 = (call->comm_size & (call->comm_size - 1)) == 0;
    /* reduce_scatter_allgather, reduce_scatter_gather: a built-in op and count >= pof2(p) */
    if (strstr(name, "_intra_reduce_scatter_") != NULL &&
        (!call->builtin_op || call->count < pof2_floor(call->comm_size)))
        return NULL;
    if ((strcmp(name, "MPIR_Allgather_intra_recursive_doubling") == 0 ||
         strcmp(name, "MPIR_Reduce_scatter_block_intra_noncommutative") == 0) &&
        !pow2)
        return NULL;
    if ((strcmp(name, "MPIR_Reduce_scatter_block_intra_pairwise") == 0 ||
         strcmp(name, "MPIR_Reduce_scatter_block_intra_recursive_halving") == 0) &&
        !call->commutative)
        return NULL;
    if (strcmp(name, "MPIR_Alltoall_intra_pairwise_sendrecv_replace") == 0)
        return NULL; /* MPI_IN_PLACE only, which a selector's call never is */
    return entry;
}

const collsim_native_entry *collsim_native_forced(const collsim_native_entry *entry,
                                                  const collsim_native_call *call)
{
    if (entry->library == COLLSIM_NATIVE_OPENMPI)
        return find_entry(COLLSIM_NATIVE_OPENMPI, call->collective, openmpi_runs(call, entry->id),
                          NULL);
    return mpich_forced(entry, call);
}

const collsim_native_entry *collsim_native_choose(collsim_native_library library,
                                                  const collsim_native_call *call)
{
    return library == COLLSIM_NATIVE_OPENMPI ? choose_openmpi(call) : choose_mpich(call);
}

int collsim_native_selector_library(const collsim_algorithm *alg,
                                    collsim_native_library *library)
{
    if (strcmp(alg->name, "openmpi_default") == 0)
        *library = COLLSIM_NATIVE_OPENMPI;
    else if (strcmp(alg->name, "mpich_default") == 0)
        *library = COLLSIM_NATIVE_MPICH;
    else
        return -1;
    return 0;
}

/* Where native.def's "same algorithm" holds only for some calls: NULL, or
 * why it does not hold for this one. */
static const char *mapping_limit(const collsim_native_entry *e, const collsim_native_call *c)
{
    if (e->library == COLLSIM_NATIVE_OPENMPI && e->collective == COLLSIM_REDUCE_SCATTER &&
        e->id == 1 && c->count * c->comm_size > INT_MAX)
        return "above INT_MAX elements Open MPI reduces block by block, which is not modelled";
    return NULL;
}

const char *collsim_native_equivalent(const collsim_native_entry *entry,
                                      const collsim_native_call *call)
{
    return mapping_limit(entry, call) == NULL ? entry->algorithm : NULL;
}

/* Open MPI's algorithms that run two of its own collectives, each by its
 * rules: allreduce "nonoverlapping" (its reduce to rank 0, then its bcast from
 * rank 0) and reduce_scatter_block "basic_linear" (its reduce of the p blocks
 * to rank 0, then its scatter from rank 0). */
typedef struct composition {
    collsim_collective collective;
    int id;
    collsim_collective first, second;
    int first_takes_all_blocks; /* the first part's vector is the p blocks */
} composition;

static const composition compositions[] = {
    {COLLSIM_ALLREDUCE, 2, COLLSIM_REDUCE, COLLSIM_BCAST, 0},
    {COLLSIM_REDUCE_SCATTER, 1, COLLSIM_REDUCE, COLLSIM_SCATTER, 1},
};

static const composition *composition_of(const collsim_native_entry *e)
{
    for (size_t i = 0; i < sizeof compositions / sizeof compositions[0]; i++)
        if (e->library == COLLSIM_NATIVE_OPENMPI && e->collective == compositions[i].collective &&
            e->id == compositions[i].id)
            return &compositions[i];
    return NULL;
}

int collsim_native_parts(const collsim_native_entry *entry, const collsim_native_call *call,
                         collsim_native_call *first, collsim_native_call *second)
{
    const composition *k = composition_of(entry);
    if (k == NULL)
        return -1;
    *first = *call;
    first->collective = k->first;
    if (k->first_takes_all_blocks)
        first->count = call->count * call->comm_size;
    *second = *call;
    second->collective = k->second;
    second->commutative = 1;
    second->builtin_op = 1;
    return 0;
}

static const char *collective_name(collsim_collective collective)
{
    size_t n;
    return collsim_collectives(&n)[collective].name;
}

const char *collsim_native_selected(collsim_native_library library,
                                    const collsim_native_call *call, char *buf, size_t buflen)
{
    const collsim_native_entry *e = collsim_native_choose(library, call);
    collsim_native_call calls[2];
    if (collsim_native_parts(e, call, &calls[0], &calls[1]) != 0)
        return collsim_native_equivalent(e, call);
    const collsim_native_entry *parts[2] = {collsim_native_choose(library, &calls[0]),
                                            collsim_native_choose(library, &calls[1])};
    const char *names[2];
    for (int i = 0; i < 2; i++)
        if ((names[i] = collsim_native_equivalent(parts[i], &calls[i])) == NULL)
            return NULL;
    snprintf(buf, buflen, "%s:%s+%s:%s", collective_name(calls[0].collective), names[0],
             collective_name(calls[1].collective), names[1]);
    return buf;
}

/* NULL when collsim has the registry entry e maps to and may run call with
 * it; otherwise why not ("is not in the registry", a restriction, ...). */
static const char *entry_problem(const collsim_native_entry *e, const collsim_native_call *call)
{
    const char *limit = mapping_limit(e, call);
    if (limit != NULL)
        return limit;
    const collsim_algorithm *target =
        collsim_find_algorithm(collective_name(call->collective), e->algorithm);
    return target ? collsim_check_restrictions(target, call->comm_size, call->commutative)
                  : "is not in the registry";
}

/* collsim_native_check for a composition: each part's choice. */
static const char *check_parts(const collsim_native_entry *e, const collsim_native_call *call,
                               char *buf, size_t buflen)
{
    collsim_native_call calls[2];
    collsim_native_parts(e, call, &calls[0], &calls[1]);
    for (int i = 0; i < 2; i++) {
        const collsim_native_entry *part = collsim_native_choose(e->library, &calls[i]);
        const char *part_name = collective_name(calls[i].collective);
        if (part->algorithm == NULL) {
            snprintf(buf, buflen,
                     "picks Open MPI's %s algorithm %d (%s), whose %s is its algorithm %d (%s), "
                     "which collsim lacks: %s",
                     collective_name(call->collective), e->id, e->library_name, part_name,
                     part->id, part->library_name, part->note);
            return buf;
        }
        const char *why = entry_problem(part, &calls[i]);
        if (why != NULL) {
            snprintf(buf, buflen, "picks %s, whose %s %s %s", e->library_name, part_name,
                     part->algorithm, why);
            return buf;
        }
    }
    return NULL;
}

const char *collsim_native_check(const collsim_algorithm *alg, const collsim_native_call *call,
                                 char *buf, size_t buflen)
{
    collsim_native_library library;
    if (collsim_native_selector_library(alg, &library) != 0)
        return NULL;
    const collsim_native_entry *e = collsim_native_choose(library, call);
    if (composition_of(e) != NULL)
        return check_parts(e, call, buf, buflen);
    if (e->algorithm == NULL) {
        if (library == COLLSIM_NATIVE_OPENMPI)
            snprintf(buf, buflen, "picks Open MPI's %s algorithm %d (%s), which collsim lacks: %s",
                     alg->collective_name, e->id, e->library_name, e->note);
        else
            snprintf(buf, buflen, "picks MPICH's %s, which collsim lacks: %s", e->library_name,
                     e->note);
        return buf;
    }
    const char *why = entry_problem(e, call);
    if (why != NULL) {
        snprintf(buf, buflen, "picks %s (%s), whose collsim equivalent %s %s", e->library_name,
                 collsim_native_library_name(library), e->algorithm, why);
        return buf;
    }
    return NULL;
}

/* The predefined ops (MPI has no query for it; user ops are created). */
static int is_builtin_op(MPI_Op op)
{
    const MPI_Op builtin[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,    MPI_PROD,   MPI_LAND,   MPI_BAND,
                              MPI_LOR,  MPI_BOR,  MPI_LXOR,   MPI_BXOR,   MPI_MAXLOC, MPI_MINLOC,
                              MPI_REPLACE};
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (op == builtin[i])
            return 1;
    return 0;
}

int collsim_native_call_from_mpi(collsim_collective collective, MPI_Comm comm, int count,
                                 MPI_Datatype datatype, MPI_Op op, collsim_native_call *call)
{
    size_t n;
    const int has_op = collsim_collectives(&n)[collective].has_op;
    int rc, size, type_size = 0, commutative = 1;
    if ((rc = MPI_Comm_size(comm, &size)) != MPI_SUCCESS)
        return rc;
    if (datatype != MPI_DATATYPE_NULL && (rc = MPI_Type_size(datatype, &type_size)) != MPI_SUCCESS)
        return rc;
    if (has_op && (rc = MPI_Op_commutative(op, &commutative)) != MPI_SUCCESS)
        return rc;
    call->collective = collective;
    call->comm_size = size;
    call->count = datatype != MPI_DATATYPE_NULL ? count : 0;
    call->type_size_bytes = type_size;
    call->commutative = commutative;
    call->builtin_op = !has_op || is_builtin_op(op);
    return MPI_SUCCESS;
}

const collsim_algorithm *collsim_native_target(collsim_native_library library,
                                               const collsim_native_call *call,
                                               const collsim_native_entry **entry)
{
    *entry = collsim_native_choose(library, call);
    if ((*entry)->algorithm == NULL || entry_problem(*entry, call) != NULL)
        return NULL;
    return collsim_find_algorithm(collective_name(call->collective), (*entry)->algorithm);
}

/* The opening of the selector algorithms (<collective>_mpich_default and
 * <collective>_openmpi_default): reads the call from its MPI arguments and
 * finds the registry entry the library runs for it. */
int collsim_native_dispatch(collsim_native_library library, collsim_collective collective,
                            MPI_Comm comm, int count, MPI_Datatype datatype, MPI_Op op,
                            const collsim_algorithm **target, const collsim_native_entry **entry)
{
    collsim_native_call call;
    const collsim_native_entry *chosen = NULL;
    *target = NULL;
    int rc = collsim_native_call_from_mpi(collective, comm, count, datatype, op, &call);
    if (rc == MPI_SUCCESS)
        *target = collsim_native_target(library, &call, &chosen);
    if (entry != NULL)
        *entry = chosen;
    if (rc != MPI_SUCCESS)
        return rc;
    return *target == NULL ? MPI_ERR_UNSUPPORTED_OPERATION : MPI_SUCCESS;
}

int collsim_native_dispatch_rooted(collsim_native_library library, collsim_collective collective,
                                   MPI_Comm comm, int root, int root_count,
                                   MPI_Datatype root_type, int leaf_count,
                                   MPI_Datatype leaf_type, const collsim_algorithm **target)
{
    int rank, rc;
    *target = NULL;
    if ((rc = MPI_Comm_rank(comm, &rank)) != MPI_SUCCESS)
        return rc;
    return collsim_native_dispatch(library, collective, comm, rank == root ? root_count : leaf_count,
                                   rank == root ? root_type : leaf_type, MPI_OP_NULL, target,
                                   NULL);
}
