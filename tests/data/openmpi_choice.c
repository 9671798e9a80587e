/*
 * openmpi_choice.c: which algorithm the real Open MPI 4.1 runs, for
 * tests/test_native.py.
 *
 *   mpirun.openmpi -np P openmpi_choice [decide] COLL BYTES[,BYTES...] ...
 *
 * Open MPI's coll/tuned component (mca_coll_tuned.so) decides, then calls
 * the algorithm, an exported function of libmpi (ompi_coll_base_<coll>_
 * intra_<name>, ompi/mca/coll/base/coll_base_functions.h, v4.1.4); the
 * algorithms' own fallbacks call other such functions.  Those calls go
 * through the dynamic linker, so this program (linked with -rdynamic)
 * defines functions of the same names that note the name on rank 0 and call
 * the library's own (dlsym(RTLD_NEXT)).  For each collective and size it
 * makes the call and prints one JSON line: {"collective": C, "np": P,
 * "bytes": B, "ran": [the functions entered, in order]}.
 *
 * BYTES is one block, as collsim's rows count it (collectives.def): the
 * bytes a rank sends to one other (allgather, alltoall, gather, scatter),
 * receives (reduce_scatter: MPI_Reduce_scatter_block), or the vector
 * (allreduce, reduce, bcast, scan, exscan); barrier ignores it.  The data
 * are MPI_INT32_T (BYTES a multiple of 4, as collbench's int32), the op
 * MPI_SUM, or with a collective named NAME:noncommutative a non-commutative
 * op of the program's own.
 *
 * With "decide" the functions note the name and return at once without
 * communicating, and the buffers are not allocated: the fixed rules'
 * decision for any size on many ranks, cheaply (the algorithms' fallbacks,
 * which need the algorithm to run, are then not seen).
 *
 * Written for this test from the prototypes of coll_base_functions.h; the
 * handles are opaque pointers here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int noting;   /* rank 0, inside the call being probed */
static int deciding; /* "decide": return without running the algorithm */
static char ran[2048];

static void note(const char *name)
{
    if (!noting)
        return;
    size_t used = strlen(ran);
    snprintf(ran + used, sizeof ran - used, "%s\"%s\"", used ? ", " : "", name);
}

static void *library(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (fn == NULL) {
        fprintf(stderr, "openmpi_choice: the MPI library has no %s\n", name);
        exit(3);
    }
    return fn;
}

typedef void *H; /* an Open MPI handle: datatype, op, communicator, module, tree */

/* One wrapper: NAME(PARAMS) notes NAME, then runs the library's (ARGS). */
#define WRAP(name, params, args)                                                          \
    int name params;                                                                      \
    int name params                                                                       \
    {                                                                                     \
        note(#name);                                                                      \
        if (deciding)                                                                     \
            return MPI_SUCCESS;                                                           \
        static int(*next) params;                                                         \
        if (next == NULL)                                                                 \
            next = (int(*) params)library(#name);                                         \
        return next args;                                                                 \
    }

#define BLOCKS_P (const void *s, int sc, H st, void *r, int rc, H rt, H comm, H m)
#define BLOCKS_A (s, sc, st, r, rc, rt, comm, m)
#define ROOTED_P (const void *s, int sc, H st, void *r, int rc, H rt, int root, H comm, H m)
#define ROOTED_A (s, sc, st, r, rc, rt, root, comm, m)
#define VECTOR_P (const void *s, void *r, int n, H type, H op, H comm, H m)
#define VECTOR_A (s, r, n, type, op, comm, m)
#define REDUCE_P (const void *s, void *r, int n, H type, H op, int root, H comm, H m)
#define REDUCE_A (s, r, n, type, op, root, comm, m)
#define BCAST_P (void *b, int n, H type, int root, H comm, H m)
#define BCAST_A (b, n, type, root, comm, m)
#define COUNTS_P (const void *s, void *r, const int *rcs, H type, H op, H comm, H m)
#define COUNTS_A (s, r, rcs, type, op, comm, m)

WRAP(ompi_coll_base_allgather_intra_basic_linear, BLOCKS_P, BLOCKS_A)
WRAP(ompi_coll_base_allgather_intra_bruck, BLOCKS_P, BLOCKS_A)
WRAP(ompi_coll_base_allgather_intra_recursivedoubling, BLOCKS_P, BLOCKS_A)
WRAP(ompi_coll_base_allgather_intra_ring, BLOCKS_P, BLOCKS_A)
WRAP(ompi_coll_base_allgather_intra_neighborexchange, BLOCKS_P, BLOCKS_A)
WRAP(ompi_coll_base_allgather_intra_two_procs, BLOCKS_P, BLOCKS_A)

WRAP(ompi_coll_base_alltoall_intra_basic_linear, BLOCKS_P, BLOCKS_A)
WRAP(ompi_coll_base_alltoall_intra_pairwise, BLOCKS_P, BLOCKS_A)
WRAP(ompi_coll_base_alltoall_intra_bruck, BLOCKS_P, BLOCKS_A)
WRAP(ompi_coll_base_alltoall_intra_linear_sync,
     (const void *s, int sc, H st, void *r, int rc, H rt, H comm, H m, int max_requests),
     (s, sc, st, r, rc, rt, comm, m, max_requests))
WRAP(ompi_coll_base_alltoall_intra_two_procs, BLOCKS_P, BLOCKS_A)

WRAP(ompi_coll_base_gather_intra_basic_linear, ROOTED_P, ROOTED_A)
WRAP(ompi_coll_base_gather_intra_binomial, ROOTED_P, ROOTED_A)
WRAP(ompi_coll_base_gather_intra_linear_sync,
     (const void *s, int sc, H st, void *r, int rc, H rt, int root, H comm, H m, int first),
     (s, sc, st, r, rc, rt, root, comm, m, first))
WRAP(ompi_coll_base_scatter_intra_basic_linear, ROOTED_P, ROOTED_A)
WRAP(ompi_coll_base_scatter_intra_binomial, ROOTED_P, ROOTED_A)
WRAP(ompi_coll_base_scatter_intra_linear_nb,
     (const void *s, int sc, H st, void *r, int rc, H rt, int root, H comm, H m, int max_reqs),
     (s, sc, st, r, rc, rt, root, comm, m, max_reqs))

WRAP(ompi_coll_base_reduce_scatter_block_basic_linear, VECTOR_P, VECTOR_A)
WRAP(ompi_coll_base_reduce_scatter_block_intra_recursivedoubling, VECTOR_P, VECTOR_A)
WRAP(ompi_coll_base_reduce_scatter_block_intra_recursivehalving, VECTOR_P, VECTOR_A)
WRAP(ompi_coll_base_reduce_scatter_block_intra_butterfly, VECTOR_P, VECTOR_A)
WRAP(ompi_coll_base_reduce_scatter_intra_nonoverlapping, COUNTS_P, COUNTS_A)
WRAP(ompi_coll_base_reduce_scatter_intra_basic_recursivehalving, COUNTS_P, COUNTS_A)
WRAP(ompi_coll_base_reduce_scatter_intra_ring, COUNTS_P, COUNTS_A)
WRAP(ompi_coll_base_reduce_scatter_intra_butterfly, COUNTS_P, COUNTS_A)

WRAP(ompi_coll_base_barrier_intra_basic_linear, (H comm, H m), (comm, m))
WRAP(ompi_coll_base_barrier_intra_doublering, (H comm, H m), (comm, m))
WRAP(ompi_coll_base_barrier_intra_recursivedoubling, (H comm, H m), (comm, m))
WRAP(ompi_coll_base_barrier_intra_bruck, (H comm, H m), (comm, m))
WRAP(ompi_coll_base_barrier_intra_two_procs, (H comm, H m), (comm, m))
WRAP(ompi_coll_base_barrier_intra_tree, (H comm, H m), (comm, m))

WRAP(ompi_coll_base_scan_intra_linear, VECTOR_P, VECTOR_A)
WRAP(ompi_coll_base_scan_intra_recursivedoubling, VECTOR_P, VECTOR_A)
WRAP(ompi_coll_base_exscan_intra_linear, VECTOR_P, VECTOR_A)
WRAP(ompi_coll_base_exscan_intra_recursivedoubling, VECTOR_P, VECTOR_A)

WRAP(ompi_coll_base_allreduce_intra_basic_linear, VECTOR_P, VECTOR_A)
WRAP(ompi_coll_base_allreduce_intra_nonoverlapping, VECTOR_P, VECTOR_A)
WRAP(ompi_coll_base_allreduce_intra_recursivedoubling, VECTOR_P, VECTOR_A)
WRAP(ompi_coll_base_allreduce_intra_ring, VECTOR_P, VECTOR_A)
WRAP(ompi_coll_base_allreduce_intra_ring_segmented,
     (const void *s, void *r, int n, H type, H op, H comm, H m, uint32_t segsize),
     (s, r, n, type, op, comm, m, segsize))
WRAP(ompi_coll_base_allreduce_intra_redscat_allgather, VECTOR_P, VECTOR_A)

#define SEG_P() (void *b, int n, H type, int root, H comm, H m, uint32_t segsize)
WRAP(ompi_coll_base_bcast_intra_basic_linear, BCAST_P, BCAST_A)
WRAP(ompi_coll_base_bcast_intra_chain,
     (void *b, int n, H type, int root, H comm, H m, uint32_t segsize, int32_t chains),
     (b, n, type, root, comm, m, segsize, chains))
WRAP(ompi_coll_base_bcast_intra_pipeline, SEG_P(), (b, n, type, root, comm, m, segsize))
WRAP(ompi_coll_base_bcast_intra_binomial, SEG_P(), (b, n, type, root, comm, m, segsize))
WRAP(ompi_coll_base_bcast_intra_bintree, SEG_P(), (b, n, type, root, comm, m, segsize))
WRAP(ompi_coll_base_bcast_intra_split_bintree, SEG_P(), (b, n, type, root, comm, m, segsize))
WRAP(ompi_coll_base_bcast_intra_knomial,
     (void *b, int n, H type, int root, H comm, H m, uint32_t segsize, int radix),
     (b, n, type, root, comm, m, segsize, radix))
WRAP(ompi_coll_base_bcast_intra_scatter_allgather, SEG_P(),
     (b, n, type, root, comm, m, segsize))
WRAP(ompi_coll_base_bcast_intra_scatter_allgather_ring, SEG_P(),
     (b, n, type, root, comm, m, segsize))

#define TREE_P(...) \
    (const void *s, void *r, int n, H type, H op, int root, H comm, H m, uint32_t segsize, \
     __VA_ARGS__)
WRAP(ompi_coll_base_reduce_intra_basic_linear, REDUCE_P, REDUCE_A)
WRAP(ompi_coll_base_reduce_intra_chain, TREE_P(int fanout, int max),
     (s, r, n, type, op, root, comm, m, segsize, fanout, max))
WRAP(ompi_coll_base_reduce_intra_pipeline, TREE_P(int max),
     (s, r, n, type, op, root, comm, m, segsize, max))
WRAP(ompi_coll_base_reduce_intra_binary, TREE_P(int max),
     (s, r, n, type, op, root, comm, m, segsize, max))
WRAP(ompi_coll_base_reduce_intra_binomial, TREE_P(int max),
     (s, r, n, type, op, root, comm, m, segsize, max))
WRAP(ompi_coll_base_reduce_intra_in_order_binary, TREE_P(int max),
     (s, r, n, type, op, root, comm, m, segsize, max))
WRAP(ompi_coll_base_reduce_intra_redscat_gather, REDUCE_P, REDUCE_A)

/* inout = in: keeps the lowest rank's value (MPI's inout = in op inout). */
static void leftmost(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    memcpy(inout, in, (size_t)*len * sizeof(int32_t));
}

/* One call of collective (count elements of int32 per block) on world. */
static int call(const char *collective, int count, MPI_Op op, int32_t *a, int32_t *b)
{
    const MPI_Datatype t = MPI_INT32_T;
    const MPI_Comm w = MPI_COMM_WORLD;
    if (strcmp(collective, "allgather") == 0)
        return MPI_Allgather(a, count, t, b, count, t, w);
    if (strcmp(collective, "alltoall") == 0)
        return MPI_Alltoall(a, count, t, b, count, t, w);
    if (strcmp(collective, "gather") == 0)
        return MPI_Gather(a, count, t, b, count, t, 0, w);
    if (strcmp(collective, "scatter") == 0)
        return MPI_Scatter(a, count, t, b, count, t, 0, w);
    if (strcmp(collective, "reduce_scatter") == 0)
        return MPI_Reduce_scatter_block(a, b, count, t, op, w);
    if (strcmp(collective, "barrier") == 0)
        return MPI_Barrier(w);
    if (strcmp(collective, "scan") == 0)
        return MPI_Scan(a, b, count, t, op, w);
    if (strcmp(collective, "exscan") == 0)
        return MPI_Exscan(a, b, count, t, op, w);
    if (strcmp(collective, "allreduce") == 0)
        return MPI_Allreduce(a, b, count, t, op, w);
    if (strcmp(collective, "reduce") == 0)
        return MPI_Reduce(a, b, count, t, op, 0, w);
    if (strcmp(collective, "bcast") == 0)
        return MPI_Bcast(a, count, t, 0, w);
    return -1;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int first = 1;
    if (argc > 1 && strcmp(argv[1], "decide") == 0) {
        deciding = 1;
        first = 2;
    }
    MPI_Op noncommutative;
    MPI_Op_create(leftmost, 0, &noncommutative);
    for (int i = first; i + 1 < argc; i += 2) {
        char collective[64];
        snprintf(collective, sizeof collective, "%s", argv[i]);
        char *colon = strchr(collective, ':');
        MPI_Op op = MPI_SUM;
        if (colon != NULL) {
            *colon = '\0';
            op = noncommutative;
        }
        char *list = strdup(argv[i + 1]);
        for (char *item = strtok(list, ","); item != NULL; item = strtok(NULL, ",")) {
            const int bytes = atoi(item);
            const int count = bytes / 4;
            const size_t elements = deciding ? 1 : (size_t)count * (size_t)size + 1;
            int32_t *a = calloc(elements, 4), *b = calloc(elements, 4);
            ran[0] = '\0';
            noting = rank == 0;
            const int rc = call(collective, count, op, a, b);
            noting = 0;
            if (rc != MPI_SUCCESS) {
                fprintf(stderr, "openmpi_choice: %s of %d bytes failed (%d)\n", collective,
                        bytes, rc);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (rank == 0)
                printf("{\"collective\": \"%s\", \"noncommutative\": %s, \"np\": %d, "
                       "\"bytes\": %d, \"ran\": [%s]}\n",
                       collective, colon ? "true" : "false", size, bytes, ran);
            free(a);
            free(b);
        }
        free(list);
    }
    MPI_Op_free(&noncommutative);
    MPI_Finalize();
    return 0;
}
