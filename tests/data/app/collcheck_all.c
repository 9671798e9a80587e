/*
 * collcheck_all: an MPI program that calls every blocking collective of MPI
 * after a barrier and checks every result, on MPI_COMM_WORLD and on two
 * halves of it, for 1, 7 and 1000 ints per block: MPI_Allgather,
 * MPI_Alltoall, MPI_Gather, MPI_Scatter, MPI_Reduce_scatter_block, MPI_Scan,
 * MPI_Exscan (each also with MPI_IN_PLACE), MPI_Reduce_scatter with equal and
 * unequal counts, MPI_Allgatherv, MPI_Alltoallv, MPI_Gatherv and
 * MPI_Scatterv with even blocks (every count the same, one block after the
 * other) and uneven ones, MPI_Alltoallw and MPI_Barrier.  With the argument
 * "noncommutative" the reductions also use a non-commutative op.
 *
 * World rank 0 prints "collcheck_all: CHECKS checks correct; calls
 * NAME=N ..." with the calls of each function (a variant's even and uneven
 * calls apart: MPI_Gatherv:even=N MPI_Gatherv:uneven=M), counted once per
 * communicator, or stops the program with MPI_Abort(1) after printing the
 * wrong ones.  Ints only: every sum is exact.  No mutable globals: under
 * smpi/privatization:no all ranks share them.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* op(in, inout): inout = in, so a reduction keeps its lowest rank's value. */
static void first_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    memcpy(inout, in, (size_t)*len * sizeof(int));
}

enum { ALLGATHER, ALLGATHERV_EVEN, ALLGATHERV_UNEVEN, ALLTOALL, ALLTOALLV_EVEN, ALLTOALLV_UNEVEN,
       ALLTOALLW, GATHER, GATHERV_EVEN, GATHERV_UNEVEN, SCATTER, SCATTERV_EVEN, SCATTERV_UNEVEN,
       REDUCE_SCATTER_BLOCK, REDUCE_SCATTER_EQUAL, REDUCE_SCATTER_UNEQUAL, SCAN, EXSCAN, BARRIER,
       FUNCTIONS };
static const char *const names[FUNCTIONS] = {
    "MPI_Allgather", "MPI_Allgatherv:even", "MPI_Allgatherv:uneven", "MPI_Alltoall",
    "MPI_Alltoallv:even", "MPI_Alltoallv:uneven", "MPI_Alltoallw", "MPI_Gather",
    "MPI_Gatherv:even", "MPI_Gatherv:uneven", "MPI_Scatter", "MPI_Scatterv:even",
    "MPI_Scatterv:uneven", "MPI_Reduce_scatter_block", "MPI_Reduce_scatter:equal",
    "MPI_Reduce_scatter:unequal", "MPI_Scan", "MPI_Exscan", "MPI_Barrier"};

typedef struct tally {
    int checks, wrong, calls[FUNCTIONS];
} tally;

typedef struct ctx {
    MPI_Comm comm;
    int rank, size, n; /* n ints per block */
    tally *t;
} ctx;

static void expect(ctx *x, int ok, const char *what)
{
    x->t->checks++;
    if (!ok) {
        x->t->wrong++;
        fprintf(stderr, "collcheck_all: WRONG %s n=%d on rank %d of %d\n", what, x->n, x->rank,
                x->size);
    }
}

/* A barrier first, then the call: every collective is reached together. */
static void before(ctx *x, int function)
{
    MPI_Barrier(x->comm);
    x->t->calls[BARRIER]++;
    x->t->calls[function]++;
}

/* the element i of the block rank src sends rank dst */
static int value(int src, int dst, int i)
{
    return src * 7919 + dst * 131 + i;
}

static int *ints(size_t count)
{
    return calloc(count + 1, sizeof(int));
}

/* block j of size x->n + (uneven ? j % 3 : 0) at offset displs[j] */
static int layout(const ctx *x, int uneven, int *counts, int *displs)
{
    int total = 0;
    for (int j = 0; j < x->size; j++) {
        counts[j] = x->n + (uneven ? j % 3 : 0);
        displs[j] = total;
        total += counts[j];
    }
    return total;
}

static void check_allgather(ctx *x)
{
    const int n = x->n, p = x->size;
    int *s = ints(n), *r = ints((size_t)n * p), ok = 1;
    for (int i = 0; i < n; i++)
        s[i] = value(x->rank, 0, i);
    before(x, ALLGATHER);
    MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, x->comm);
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            ok &= r[j * n + i] == value(j, 0, i);
    expect(x, ok, "allgather");
    memset(r, 0, sizeof(int) * (size_t)n * p);
    for (int i = 0; i < n; i++)
        r[x->rank * n + i] = value(x->rank, 1, i);
    before(x, ALLGATHER);
    MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, n, MPI_INT, x->comm);
    ok = 1;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            ok &= r[j * n + i] == value(j, 1, i);
    expect(x, ok, "allgather in place");
    for (int uneven = 0; uneven < 2; uneven++) {
        int *counts = ints(p), *displs = ints(p);
        int total = layout(x, uneven, counts, displs);
        int *rv = ints(total), mine = counts[x->rank];
        int *sv = ints(mine);
        for (int i = 0; i < mine; i++)
            sv[i] = value(x->rank, 2, i);
        before(x, uneven ? ALLGATHERV_UNEVEN : ALLGATHERV_EVEN);
        MPI_Allgatherv(sv, mine, MPI_INT, rv, counts, displs, MPI_INT, x->comm);
        ok = 1;
        for (int j = 0; j < p; j++)
            for (int i = 0; i < counts[j]; i++)
                ok &= rv[displs[j] + i] == value(j, 2, i);
        expect(x, ok, uneven ? "allgatherv uneven" : "allgatherv even");
        free(counts), free(displs), free(rv), free(sv);
    }
    free(s), free(r);
}

static void check_alltoall(ctx *x)
{
    const int n = x->n, p = x->size;
    int *s = ints((size_t)n * p), *r = ints((size_t)n * p), ok = 1;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            s[j * n + i] = value(x->rank, j, i);
    before(x, ALLTOALL);
    MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, x->comm);
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            ok &= r[j * n + i] == value(j, x->rank, i);
    expect(x, ok, "alltoall");
    memcpy(r, s, sizeof(int) * (size_t)n * p);
    before(x, ALLTOALL);
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, n, MPI_INT, x->comm);
    ok = 1;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            ok &= r[j * n + i] == value(j, x->rank, i);
    expect(x, ok, "alltoall in place");
    for (int uneven = 0; uneven < 2; uneven++) {
        /* uneven: rank j sends rank k n + (j + k) % 2 ints */
        int *sc = ints(p), *sd = ints(p), *rc = ints(p), *rd = ints(p), st = 0, rt = 0;
        for (int j = 0; j < p; j++) {
            sc[j] = n + (uneven ? (x->rank + j) % 2 : 0);
            rc[j] = n + (uneven ? (x->rank + j) % 2 : 0);
            sd[j] = st, rd[j] = rt;
            st += sc[j], rt += rc[j];
        }
        int *sv = ints(st), *rv = ints(rt);
        for (int j = 0; j < p; j++)
            for (int i = 0; i < sc[j]; i++)
                sv[sd[j] + i] = value(x->rank, j, i);
        before(x, uneven ? ALLTOALLV_UNEVEN : ALLTOALLV_EVEN);
        MPI_Alltoallv(sv, sc, sd, MPI_INT, rv, rc, rd, MPI_INT, x->comm);
        ok = 1;
        for (int j = 0; j < p; j++)
            for (int i = 0; i < rc[j]; i++)
                ok &= rv[rd[j] + i] == value(j, x->rank, i);
        expect(x, ok, uneven ? "alltoallv uneven" : "alltoallv even");
        if (uneven) {
            MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)p);
            int *sb = ints(p), *rb = ints(p);
            for (int j = 0; j < p; j++)
                types[j] = MPI_INT, sb[j] = sd[j] * (int)sizeof(int),
                rb[j] = rd[j] * (int)sizeof(int);
            memset(rv, 0, sizeof(int) * (size_t)rt);
            before(x, ALLTOALLW);
            MPI_Alltoallw(sv, sc, sb, types, rv, rc, rb, types, x->comm);
            ok = 1;
            for (int j = 0; j < p; j++)
                for (int i = 0; i < rc[j]; i++)
                    ok &= rv[rd[j] + i] == value(j, x->rank, i);
            expect(x, ok, "alltoallw");
            free(types), free(sb), free(rb);
        }
        free(sc), free(sd), free(rc), free(rd), free(sv), free(rv);
    }
    free(s), free(r);
}

static void check_gather(ctx *x)
{
    const int n = x->n, p = x->size, root = p - 1, me = x->rank == root;
    int *s = ints(n), *r = ints((size_t)n * p), ok = 1;
    for (int i = 0; i < n; i++)
        s[i] = value(x->rank, root, i);
    before(x, GATHER);
    MPI_Gather(s, n, MPI_INT, me ? r : NULL, n, MPI_INT, root, x->comm);
    if (me) {
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i++)
                ok &= r[j * n + i] == value(j, root, i);
        expect(x, ok, "gather");
    }
    memset(r, 0, sizeof(int) * (size_t)n * p);
    if (me)
        memcpy(r + root * n, s, sizeof(int) * (size_t)n);
    before(x, GATHER);
    if (me)
        MPI_Gather(MPI_IN_PLACE, n, MPI_INT, r, n, MPI_INT, root, x->comm);
    else
        MPI_Gather(s, n, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, x->comm);
    if (me) {
        ok = 1;
        for (int j = 0; j < p; j++)
            for (int i = 0; i < n; i++)
                ok &= r[j * n + i] == value(j, root, i);
        expect(x, ok, "gather in place");
    }
    for (int uneven = 0; uneven < 2; uneven++) {
        int *counts = ints(p), *displs = ints(p);
        int total = layout(x, uneven, counts, displs);
        int *rv = ints(total), *sv = ints(counts[x->rank]);
        for (int i = 0; i < counts[x->rank]; i++)
            sv[i] = value(x->rank, root, i);
        before(x, uneven ? GATHERV_UNEVEN : GATHERV_EVEN);
        MPI_Gatherv(sv, counts[x->rank], MPI_INT, rv, counts, displs, MPI_INT, root, x->comm);
        if (me) {
            ok = 1;
            for (int j = 0; j < p; j++)
                for (int i = 0; i < counts[j]; i++)
                    ok &= rv[displs[j] + i] == value(j, root, i);
            expect(x, ok, uneven ? "gatherv uneven" : "gatherv even");
        }
        free(counts), free(displs), free(rv), free(sv);
    }
    free(s), free(r);
}

static void check_scatter(ctx *x)
{
    const int n = x->n, p = x->size, root = 1 % p, me = x->rank == root;
    int *s = ints((size_t)n * p), *r = ints(n), ok = 1;
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            s[j * n + i] = me ? value(root, j, i) : -1;
    before(x, SCATTER);
    MPI_Scatter(me ? s : NULL, n, MPI_INT, r, n, MPI_INT, root, x->comm);
    for (int i = 0; i < n; i++)
        ok &= r[i] == value(root, x->rank, i);
    expect(x, ok, "scatter");
    memset(r, 0, sizeof(int) * (size_t)n);
    before(x, SCATTER);
    if (me)
        MPI_Scatter(s, n, MPI_INT, MPI_IN_PLACE, n, MPI_INT, root, x->comm);
    else
        MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, r, n, MPI_INT, root, x->comm);
    ok = 1;
    for (int i = 0; i < n; i++)
        ok &= (me ? s[root * n + i] : r[i]) == value(root, x->rank, i);
    expect(x, ok, "scatter in place");
    for (int uneven = 0; uneven < 2; uneven++) {
        int *counts = ints(p), *displs = ints(p);
        int total = layout(x, uneven, counts, displs);
        int *sv = ints(total), *rv = ints(counts[x->rank]);
        for (int j = 0; j < p; j++)
            for (int i = 0; i < counts[j]; i++)
                sv[displs[j] + i] = me ? value(root, j, i) : -1;
        before(x, uneven ? SCATTERV_UNEVEN : SCATTERV_EVEN);
        MPI_Scatterv(sv, counts, displs, MPI_INT, rv, counts[x->rank], MPI_INT, root, x->comm);
        ok = 1;
        for (int i = 0; i < counts[x->rank]; i++)
            ok &= rv[i] == value(root, x->rank, i);
        expect(x, ok, uneven ? "scatterv uneven" : "scatterv even");
        free(counts), free(displs), free(rv), free(sv);
    }
    free(s), free(r);
}

static void check_reduce_scatter(ctx *x, int noncommutative)
{
    const int n = x->n, p = x->size;
    int *s = ints((size_t)n * p), *r = ints((size_t)n * p), ok = 1;
    /* rank q's element i of block j: q + j + i; block r of the sum: p(p-1)/2 + p (r + i) */
    for (int j = 0; j < p; j++)
        for (int i = 0; i < n; i++)
            s[j * n + i] = x->rank + j + i;
    before(x, REDUCE_SCATTER_BLOCK);
    MPI_Reduce_scatter_block(s, r, n, MPI_INT, MPI_SUM, x->comm);
    for (int i = 0; i < n; i++)
        ok &= r[i] == p * (p - 1) / 2 + p * (x->rank + i);
    expect(x, ok, "reduce_scatter_block");
    memcpy(r, s, sizeof(int) * (size_t)n * p);
    before(x, REDUCE_SCATTER_BLOCK);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, r, n, MPI_INT, MPI_SUM, x->comm);
    ok = 1;
    for (int i = 0; i < n; i++)
        ok &= r[i] == p * (p - 1) / 2 + p * (x->rank + i);
    expect(x, ok, "reduce_scatter_block in place");
    if (noncommutative) {
        MPI_Op first;
        MPI_Op_create(first_op, 0, &first);
        before(x, REDUCE_SCATTER_BLOCK);
        MPI_Reduce_scatter_block(s, r, n, MPI_INT, first, x->comm);
        ok = 1;
        for (int i = 0; i < n; i++)
            ok &= r[i] == 0 + x->rank + i; /* rank 0's block */
        expect(x, ok, "reduce_scatter_block non-commutative");
        MPI_Op_free(&first);
    }
    for (int uneven = 0; uneven < 2; uneven++) {
        int *counts = ints(p), *displs = ints(p);
        int total = layout(x, uneven, counts, displs);
        int *sv = ints(total), *rv = ints(counts[x->rank]);
        for (int j = 0; j < p; j++)
            for (int i = 0; i < counts[j]; i++)
                sv[displs[j] + i] = x->rank + j + i;
        before(x, uneven ? REDUCE_SCATTER_UNEQUAL : REDUCE_SCATTER_EQUAL);
        MPI_Reduce_scatter(sv, rv, counts, MPI_INT, MPI_SUM, x->comm);
        ok = 1;
        for (int i = 0; i < counts[x->rank]; i++)
            ok &= rv[i] == p * (p - 1) / 2 + p * (x->rank + i);
        expect(x, ok, uneven ? "reduce_scatter unequal" : "reduce_scatter equal");
        free(counts), free(displs), free(sv), free(rv);
    }
    free(s), free(r);
}

static void check_scans(ctx *x, int noncommutative)
{
    const int n = x->n, q = x->rank;
    int *s = ints(n), *r = ints(n), ok = 1;
    for (int i = 0; i < n; i++)
        s[i] = q + 1 + i;
    before(x, SCAN);
    MPI_Scan(s, r, n, MPI_INT, MPI_SUM, x->comm);
    for (int i = 0; i < n; i++)
        ok &= r[i] == (q + 1) * (q + 2) / 2 + (q + 1) * i;
    expect(x, ok, "scan");
    memcpy(r, s, sizeof(int) * (size_t)n);
    before(x, SCAN);
    MPI_Scan(MPI_IN_PLACE, r, n, MPI_INT, MPI_SUM, x->comm);
    ok = 1;
    for (int i = 0; i < n; i++)
        ok &= r[i] == (q + 1) * (q + 2) / 2 + (q + 1) * i;
    expect(x, ok, "scan in place");
    before(x, EXSCAN);
    MPI_Exscan(s, r, n, MPI_INT, MPI_SUM, x->comm);
    if (q > 0) {
        ok = 1;
        for (int i = 0; i < n; i++)
            ok &= r[i] == q * (q + 1) / 2 + q * i;
        expect(x, ok, "exscan");
    }
    memcpy(r, s, sizeof(int) * (size_t)n);
    before(x, EXSCAN);
    MPI_Exscan(MPI_IN_PLACE, r, n, MPI_INT, MPI_SUM, x->comm);
    if (q > 0) {
        ok = 1;
        for (int i = 0; i < n; i++)
            ok &= r[i] == q * (q + 1) / 2 + q * i;
        expect(x, ok, "exscan in place");
    }
    if (noncommutative) {
        MPI_Op first;
        MPI_Op_create(first_op, 0, &first);
        before(x, SCAN);
        MPI_Scan(s, r, n, MPI_INT, first, x->comm);
        ok = 1;
        for (int i = 0; i < n; i++)
            ok &= r[i] == 1 + i; /* rank 0's vector */
        expect(x, ok, "scan non-commutative");
        before(x, EXSCAN);
        MPI_Exscan(s, r, n, MPI_INT, first, x->comm);
        if (q > 0) {
            ok = 1;
            for (int i = 0; i < n; i++)
                ok &= r[i] == 1 + i;
            expect(x, ok, "exscan non-commutative");
        }
        MPI_Op_free(&first);
    }
    free(s), free(r);
}

static void check_comm(MPI_Comm comm, int noncommutative, tally *t)
{
    ctx x = {.comm = comm, .t = t};
    MPI_Comm_rank(comm, &x.rank);
    MPI_Comm_size(comm, &x.size);
    const int sizes[] = {1, 7, 1000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        x.n = sizes[k];
        check_allgather(&x);
        check_alltoall(&x);
        check_gather(&x);
        check_scatter(&x);
        check_reduce_scatter(&x, noncommutative);
        check_scans(&x, noncommutative);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int noncommutative = argc > 1 && strcmp(argv[1], "noncommutative") == 0;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    tally world = {0}, half = {0};
    check_comm(MPI_COMM_WORLD, noncommutative, &world);
    MPI_Comm halves;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &halves);
    check_comm(halves, noncommutative, &half);
    MPI_Comm_free(&halves);

    int mine[2] = {world.checks + half.checks, world.wrong + half.wrong}, all[2];
    MPI_Reduce(mine, all, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all[1]) {
            printf("collcheck_all: %d of %d checks WRONG\n", all[1], all[0]);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        const int halves_count = size > 1 ? 2 : 1;
        printf("collcheck_all: %d checks correct; calls", all[0]);
        for (int f = 0; f < FUNCTIONS; f++)
            printf(" %s=%d", names[f], world.calls[f] + halves_count * half.calls[f]);
        printf("\n");
    }
    MPI_Finalize();
    return 0;
}
