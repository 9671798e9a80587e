/*
 * The reference of tests/benchmarks/vs_smpi.py: one MPI_Allreduce of the
 * given size, with whatever algorithm smpirun's --cfg=smpi/allreduce picks,
 * between two barriers.  Rank 0 prints the simulated time.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const long count = argc > 1 ? atol(argv[1]) / (long)sizeof(double) : 1;
    double *in = calloc((size_t)count + 1, sizeof *in);
    double *out = calloc((size_t)count + 1, sizeof *out);
    MPI_Barrier(MPI_COMM_WORLD);
    double start = MPI_Wtime();
    MPI_Allreduce(in, out, (int)count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double end = MPI_Wtime();
    if (rank == 0)
        printf("time_s %.17g\n", end - start);
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
