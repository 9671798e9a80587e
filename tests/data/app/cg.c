/*
 * cg: a small conjugate-gradient solver, the communication pattern of
 * HPCCG-like codes.  A x = b with A = tridiag(-1, 2.1, -1) of order N
 * (default 4096) distributed by blocks of rows; b = A u for u_i = sin(i), so
 * the solution is known.  Per iteration: one halo exchange with the
 * neighbours (MPI_Sendrecv), a matrix-vector product and two dot products
 * (MPI_Allreduce of one double).  Rank 0 broadcasts the problem (MPI_Bcast);
 * the error is reduced to rank 0 (MPI_Reduce).
 *
 *   cg [N [TOLERANCE]]
 *
 * Rank 0 prints "cg: N=... converged in K iterations, max error E" and the
 * program exits 1 (MPI_Abort) when it does not converge or E > 1e-8.  No
 * mutable globals (smpi/privatization:no).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double dot(const double *a, const double *b, int n, MPI_Comm comm)
{
    double local = 0, global = 0;
    for (int i = 0; i < n; i++)
        local += a[i] * b[i];
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, comm);
    return global;
}

/* y = A x for the local rows; x_ext holds x with one halo value each side. */
static void matvec(double *x_ext, double *y, int n, int rank, int size, MPI_Comm comm)
{
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    x_ext[0] = 0;
    x_ext[n + 1] = 0;
    MPI_Sendrecv(&x_ext[1], 1, MPI_DOUBLE, left, 1, &x_ext[n + 1], 1, MPI_DOUBLE, right, 1, comm,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&x_ext[n], 1, MPI_DOUBLE, right, 2, &x_ext[0], 1, MPI_DOUBLE, left, 2, comm,
                 MPI_STATUS_IGNORE);
    for (int i = 1; i <= n; i++)
        y[i - 1] = 2.1 * x_ext[i] - x_ext[i - 1] - x_ext[i + 1];
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    struct { double n, tolerance, max_iterations; } problem = {4096, 1e-12, 1000};
    if (rank == 0 && argc > 1)
        problem.n = atof(argv[1]);
    if (rank == 0 && argc > 2)
        problem.tolerance = atof(argv[2]);
    MPI_Bcast(&problem, 3, MPI_DOUBLE, 0, comm);
    int N = (int)problem.n;
    int n = N / size + (rank < N % size ? 1 : 0);
    int first = rank * (N / size) + (rank < N % size ? rank : N % size);

    double *u = calloc(n + 2, sizeof *u), *b = malloc(n * sizeof *b);
    double *x = calloc(n, sizeof *x), *r = malloc(n * sizeof *r);
    double *p = calloc(n + 2, sizeof *p), *Ap = malloc(n * sizeof *Ap);
    for (int i = 0; i < n; i++)
        u[i + 1] = sin(first + i);
    matvec(u, b, n, rank, size, comm);
    for (int i = 0; i < n; i++) {
        r[i] = b[i];
        p[i + 1] = r[i];
    }
    double rr = dot(r, r, n, comm), rr0 = rr;
    int k = 0;
    while (k < (int)problem.max_iterations && sqrt(rr) > problem.tolerance * sqrt(rr0)) {
        matvec(p, Ap, n, rank, size, comm);
        double alpha = rr / dot(&p[1], Ap, n, comm);
        for (int i = 0; i < n; i++) {
            x[i] += alpha * p[i + 1];
            r[i] -= alpha * Ap[i];
        }
        double rr_next = dot(r, r, n, comm);
        for (int i = 0; i < n; i++)
            p[i + 1] = r[i] + rr_next / rr * p[i + 1];
        rr = rr_next;
        k++;
    }
    double error = 0, max_error = 0;
    for (int i = 0; i < n; i++)
        error = fmax(error, fabs(x[i] - u[i + 1]));
    MPI_Reduce(&error, &max_error, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    if (rank == 0) {
        int converged = sqrt(rr) <= problem.tolerance * sqrt(rr0);
        printf("cg: N=%d %s in %d iterations, max error %.3g\n", N,
               converged ? "converged" : "did NOT converge", k, max_error);
        fflush(stdout);
        if (!converged || !(max_error <= 1e-8))
            MPI_Abort(comm, 1);
    }
    free(u);
    free(b);
    free(x);
    free(r);
    free(p);
    free(Ap);
    MPI_Finalize();
    return 0;
}
