/*
 * collcheck: an MPI program that checks the result of every MPI_Allreduce,
 * MPI_Reduce and MPI_Bcast it makes, on MPI_COMM_WORLD and on two halves of
 * it, for several sizes, datatypes and ops, MPI_IN_PLACE included.  With the
 * argument "noncommutative" it also reduces with a non-commutative op.
 *
 * World rank 0 prints "collcheck: CHECKS checks correct; calls allreduce A
 * reduce R bcast B" (the calls counted once per communicator) or stops the
 * program with MPI_Abort(1) after printing the wrong ones.  No mutable
 * globals: under smpi/privatization:no all ranks share them.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* op(in, inout): inout = in, so a reduction keeps its lowest rank's value. */
static void first_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    memcpy(inout, in, (size_t)*len * sizeof(double));
}

/* Elementwise sum of pairs of doubles: a user-defined commutative op for a
 * derived datatype (the predefined ops take predefined datatypes only). */
static void pair_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < 2 * *len; i++)
        ((double *)inout)[i] += ((const double *)in)[i];
}

typedef struct tally {
    int checks, wrong, allreduce, reduce, bcast;
} tally;

static void expect(tally *t, int ok, const char *what, int count, int rank)
{
    t->checks++;
    if (!ok) {
        t->wrong++;
        fprintf(stderr, "collcheck: WRONG %s count=%d on rank %d\n", what, count, rank);
    }
}

static void check_comm(MPI_Comm comm, int noncommutative, tally *t)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int counts[] = {1, 7, 1000, 40000};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        int n = counts[c];
        double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        int *k = malloc(n * sizeof *k);
        char *bytes = malloc(3 * (size_t)n + 1);
        int ok;

        for (int i = 0; i < n; i++)
            x[i] = rank + 1 + i % 5;
        MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, comm);
        ok = 1;
        for (int i = 0; i < n; i++)
            ok &= y[i] == size * (size + 1) / 2.0 + size * (i % 5);
        expect(t, ok, "allreduce double sum", n, rank);

        for (int i = 0; i < n; i++)
            k[i] = (rank * 7 + i) % 13;
        MPI_Allreduce(MPI_IN_PLACE, k, n, MPI_INT, MPI_MAX, comm);
        ok = 1;
        for (int i = 0; i < n; i++) {
            int max = 0;
            for (int r = 0; r < size; r++)
                max = (r * 7 + i) % 13 > max ? (r * 7 + i) % 13 : max;
            ok &= k[i] == max;
        }
        expect(t, ok, "allreduce in place int max", n, rank);

        if (n % 2 == 0) {
            MPI_Datatype pair;
            MPI_Op sum;
            MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
            MPI_Type_commit(&pair);
            MPI_Op_create(pair_sum, 1, &sum);
            for (int i = 0; i < n; i++)
                x[i] = (rank + 1) * (i + 1);
            MPI_Allreduce(x, y, n / 2, pair, sum, comm);
            ok = 1;
            for (int i = 0; i < n; i++)
                ok &= y[i] == (double)size * (size + 1) / 2 * (i + 1);
            expect(t, ok, "allreduce contiguous pairs, user-defined sum", n, rank);
            MPI_Op_free(&sum);
            MPI_Type_free(&pair);
            t->allreduce++;
        }

        int root = size - 1;
        for (int i = 0; i < n; i++)
            x[i] = (rank + 1) * 0.5 + i;
        MPI_Reduce(x, rank == root ? y : NULL, n, MPI_DOUBLE, MPI_SUM, root, comm);
        if (rank == root) {
            ok = 1;
            for (int i = 0; i < n; i++)
                ok &= y[i] == size * (size + 1) / 4.0 + (double)size * i;
            expect(t, ok, "reduce double sum to the last rank", n, rank);
        }

        for (int i = 0; i < n; i++)
            k[i] = rank + i;
        if (rank == 0)
            MPI_Reduce(MPI_IN_PLACE, k, n, MPI_INT, MPI_SUM, 0, comm);
        else
            MPI_Reduce(k, NULL, n, MPI_INT, MPI_SUM, 0, comm);
        if (rank == 0) {
            ok = 1;
            for (int i = 0; i < n; i++)
                ok &= k[i] == size * (size - 1) / 2 + size * i;
            expect(t, ok, "reduce in place int sum to rank 0", n, rank);
        }

        int bcast_root = 1 % size;
        for (int i = 0; i < n; i++)
            x[i] = rank == bcast_root ? 3.0 * i + 0.25 : -1.0;
        MPI_Bcast(x, n, MPI_DOUBLE, bcast_root, comm);
        ok = 1;
        for (int i = 0; i < n; i++)
            ok &= x[i] == 3.0 * i + 0.25;
        expect(t, ok, "bcast double", n, rank);

        for (int i = 0; i < 3 * n + 1; i++)
            bytes[i] = rank == 0 ? (char)(i * 31 + 7) : 0;
        MPI_Bcast(bytes, 3 * n + 1, MPI_CHAR, 0, comm);
        ok = 1;
        for (int i = 0; i < 3 * n + 1; i++)
            ok &= bytes[i] == (char)(i * 31 + 7);
        expect(t, ok, "bcast char", 3 * n + 1, rank);

        t->allreduce += 2;
        t->reduce += 2;
        t->bcast += 2;

        if (noncommutative) {
            MPI_Op first;
            MPI_Op_create(first_op, 0, &first);
            for (int i = 0; i < n; i++)
                x[i] = 100.0 * (rank + 1) + i;
            MPI_Allreduce(x, y, n, MPI_DOUBLE, first, comm);
            ok = 1;
            for (int i = 0; i < n; i++)
                ok &= y[i] == 100.0 + i;
            expect(t, ok, "allreduce non-commutative first", n, rank);
            MPI_Reduce(x, y, n, MPI_DOUBLE, first, root, comm);
            if (rank == root) {
                ok = 1;
                for (int i = 0; i < n; i++)
                    ok &= y[i] == 100.0 + i;
                expect(t, ok, "reduce non-commutative first", n, rank);
            }
            MPI_Op_free(&first);
            t->allreduce++;
            t->reduce++;
        }
        free(x);
        free(y);
        free(k);
        free(bytes);
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

    int mine[2] = {world.checks + half.checks, world.wrong + half.wrong};
    int *all = malloc(2 * (size_t)size * sizeof *all);
    MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int checks = 0, wrong = 0;
        for (int r = 0; r < size; r++) {
            checks += all[2 * r];
            wrong += all[2 * r + 1];
        }
        int halves_count = size > 1 ? 2 : 1;
        if (wrong) {
            printf("collcheck: %d of %d checks WRONG\n", wrong, checks);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        printf("collcheck: %d checks correct; calls allreduce %d reduce %d bcast %d\n", checks,
               world.allreduce + halves_count * half.allreduce,
               world.reduce + halves_count * half.reduce, world.bcast + halves_count * half.bcast);
    }
    free(all);
    MPI_Finalize();
    return 0;
}
