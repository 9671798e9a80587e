/*
 * native_probe.c: MPI_Allreduce, MPI_Reduce and MPI_Bcast of the MPI library
 * itself (not collsim's algorithms), for tests/test_native.py: does a library
 * loaded with a tuning file collsim wrote still compute the right results, and
 * which algorithm did it run?
 *
 *   native_probe COUNT[,COUNT...]
 *
 * For each count (doubles), every rank contributes x_r[i] = r + 1 + i % 7
 * (integers: every sum is exact); rank 0 checks allreduce and reduce (root 0
 * and p - 1) sums and a bcast from p - 1, and prints one JSON line per count.
 * "rank_order" is the allreduce of the non-commutative op a o b = a (the
 * leftmost operand): in rank order every element is rank 0's value, 1 + i % 7;
 * an algorithm that combines out of rank order (Open MPI's ring) gives another
 * rank's.  Then every other blocking collective once (an MPICH selection file
 * must name them all: MPICH aborts in a collective it lacks).  Exit status 1
 * when a sum or the bcast is wrong.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void leftmost(void *in, void *inout, int *len, MPI_Datatype *type)
{
    /* MPI computes inout = in o inout, in being the lower-ranked operand */
    (void)type;
    memcpy(inout, in, (size_t)*len * sizeof(double));
}

int main(int argc, char **argv)
{
    int rank, size, wrong = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: native_probe COUNT[,COUNT...]\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Op op_leftmost;
    MPI_Op_create(leftmost, 0, &op_leftmost);
    char *list = strdup(argv[1]);
    for (char *item = strtok(list, ","); item != NULL; item = strtok(NULL, ",")) {
        const int count = atoi(item);
        double *x = malloc(sizeof(double) * (size_t)(count + 1));
        double *y = malloc(sizeof(double) * (size_t)(count + 1));
        int ok_allreduce = 1, ok_reduce = 1, ok_bcast = 1, rank_order = 1;
        for (int i = 0; i < count; i++)
            x[i] = rank + 1 + i % 7;
        /* sum over r of (r + 1 + i % 7) */
        MPI_Allreduce(x, y, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < count; i++)
            ok_allreduce &= y[i] == size * (size + 1) / 2.0 + (double)size * (i % 7);
        for (int root = 0; root < size; root += size > 1 ? size - 1 : 1) {
            memset(y, 0, sizeof(double) * (size_t)count);
            MPI_Reduce(x, y, count, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
            if (rank == root)
                for (int i = 0; i < count; i++)
                    ok_reduce &= y[i] == size * (size + 1) / 2.0 + (double)size * (i % 7);
            MPI_Allreduce(MPI_IN_PLACE, &ok_reduce, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        }
        for (int i = 0; i < count; i++)
            y[i] = rank == size - 1 ? 1000.0 + i : -1.0;
        MPI_Bcast(y, count, MPI_DOUBLE, size - 1, MPI_COMM_WORLD);
        for (int i = 0; i < count; i++)
            ok_bcast &= y[i] == 1000.0 + i;
        MPI_Allreduce(x, y, count, MPI_DOUBLE, op_leftmost, MPI_COMM_WORLD);
        for (int i = 0; i < count; i++)
            rank_order &= y[i] == 1 + i % 7;
        int mine[4] = {ok_allreduce, ok_reduce, ok_bcast, rank_order}, all[4];
        MPI_Reduce(mine, all, 4, MPI_INT, MPI_LAND, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            printf("{\"np\": %d, \"count\": %d, \"allreduce\": %s, \"reduce\": %s, "
                   "\"bcast\": %s, \"rank_order\": %s}\n",
                   size, count, all[0] ? "true" : "false", all[1] ? "true" : "false",
                   all[2] ? "true" : "false", all[3] ? "true" : "false");
            wrong |= !(all[0] && all[1] && all[2]);
        }
        free(x);
        free(y);
    }
    free(list);
    MPI_Op_free(&op_leftmost);

    int *a = malloc(sizeof(int) * (size_t)size), *b = malloc(sizeof(int) * (size_t)size);
    int *ones = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; r++) {
        a[r] = rank + r;
        ones[r] = 1;
        displs[r] = r;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Allgatherv(a, 1, MPI_INT, b, ones, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gatherv(a, 1, MPI_INT, b, ones, displs, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatter(a, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Scatterv(a, ones, displs, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Alltoallv(a, ones, displs, MPI_INT, b, ones, displs, MPI_INT, MPI_COMM_WORLD);
    MPI_Reduce_scatter(a, b, ones, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Exscan(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    free(a);
    free(b);
    free(ones);
    free(displs);
    MPI_Bcast(&wrong, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return wrong ? 1 : 0;
}
