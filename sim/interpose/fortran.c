/*
 * fortran.c: a Fortran program's blocking collectives (include 'mpif.h' or
 * use mpi; gfortran's names: lower case, one underscore) sent to the C
 * wrappers of interpose.c, so that they reach collsim's algorithms, or are
 * timed and named on their way to the library, as a C program's calls are.
 *
 * The library's Fortran MPI_INIT and MPI_FINALIZE do more than the C ones
 * (SMPI fills its Fortran handle tables), so they are called as they are,
 * found with dlsym(RTLD_NEXT), and the interposition's state is set up after
 * the first and torn down before the second.  A Fortran MPI_IN_PLACE is the
 * address of a variable of the library's Fortran layer (SMPI: mpi_in_place_;
 * Open MPI: mpi_fortran_in_place_), referenced weakly so that a C program,
 * which links these wrappers too, needs no Fortran library.
 *
 * Under SMPI the program must be linked with -Wl,-Bsymbolic-functions (collsim
 * fc does it), as for C.
 */
#define _GNU_SOURCE
#include "collsim.h"
#include "interpose.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef COLLSIM_SMPI
extern int mpi_in_place_ __attribute__((weak));
#define FORTRAN_IN_PLACE ((void *)&mpi_in_place_)
#else
extern int mpi_fortran_in_place_ __attribute__((weak));
#define FORTRAN_IN_PLACE ((void *)&mpi_fortran_in_place_)
#endif

static void *c_buffer(const void *fortran_buffer)
{
    return fortran_buffer != NULL && fortran_buffer == FORTRAN_IN_PLACE ? MPI_IN_PLACE
                                                                          : (void *)fortran_buffer;
}

/* The library's own Fortran entry point name; stops the program if absent. */
static void *next(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (fn == NULL) {
        fprintf(stderr, "collsim: error: the MPI library has no Fortran %s\n", name);
        exit(2);
    }
    return fn;
}

void mpi_init_(MPI_Fint *ierr);
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr);
void mpi_allreduce_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype,
                    MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_reduce_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype,
                 MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_bcast_(void *buffer, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *root,
                MPI_Fint *comm, MPI_Fint *ierr);

void mpi_init_(MPI_Fint *ierr)
{
    void (*library)(MPI_Fint *) = (void (*)(MPI_Fint *))next("mpi_init_");
    library(ierr);
    if (*ierr == MPI_SUCCESS)
        collsim_interpose_setup();
}

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    void (*library)(MPI_Fint *, MPI_Fint *, MPI_Fint *) =
        (void (*)(MPI_Fint *, MPI_Fint *, MPI_Fint *))next("mpi_init_thread_");
    library(required, provided, ierr);
    if (*ierr == MPI_SUCCESS)
        collsim_interpose_setup();
}

void mpi_finalize_(MPI_Fint *ierr)
{
    void (*library)(MPI_Fint *) = (void (*)(MPI_Fint *))next("mpi_finalize_");
    collsim_interpose_teardown();
    library(ierr);
}

void mpi_allreduce_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype,
                    MPI_Fint *op, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Allreduce(c_buffer(sendbuf), recvbuf, *count, MPI_Type_f2c(*datatype),
                          MPI_Op_f2c(*op), MPI_Comm_f2c(*comm));
}

void mpi_reduce_(const void *sendbuf, void *recvbuf, MPI_Fint *count, MPI_Fint *datatype,
                 MPI_Fint *op, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Reduce(c_buffer(sendbuf), recvbuf, *count, MPI_Type_f2c(*datatype),
                       MPI_Op_f2c(*op), *root, MPI_Comm_f2c(*comm));
}

void mpi_bcast_(void *buffer, MPI_Fint *count, MPI_Fint *datatype, MPI_Fint *root,
                MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Bcast(buffer, *count, MPI_Type_f2c(*datatype), *root, MPI_Comm_f2c(*comm));
}

/* The other blocking collectives: to the C wrappers, which time them. */

#define F(x) (*(x))
#define T(x) MPI_Type_f2c(*(x))
#define C(x) MPI_Comm_f2c(*(x))
#define O(x) MPI_Op_f2c(*(x))

void mpi_barrier_(MPI_Fint *comm, MPI_Fint *ierr);
void mpi_barrier_(MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Barrier(C(comm));
}

void mpi_allgather_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                    MPI_Fint *comm, MPI_Fint *ierr);
void mpi_allgather_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                    MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Allgather(c_buffer(sb), F(sc), T(st), rb, F(rc), T(rt), C(comm));
}

void mpi_allgatherv_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rcs,
                     MPI_Fint *displs, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_allgatherv_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rcs,
                     MPI_Fint *displs, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Allgatherv(c_buffer(sb), F(sc), T(st), rb, rcs, displs, T(rt), C(comm));
}

void mpi_alltoall_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                   MPI_Fint *comm, MPI_Fint *ierr);
void mpi_alltoall_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                   MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Alltoall(c_buffer(sb), F(sc), T(st), rb, F(rc), T(rt), C(comm));
}

void mpi_alltoallv_(void *sb, MPI_Fint *scs, MPI_Fint *sds, MPI_Fint *st, void *rb,
                    MPI_Fint *rcs, MPI_Fint *rds, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_alltoallv_(void *sb, MPI_Fint *scs, MPI_Fint *sds, MPI_Fint *st, void *rb,
                    MPI_Fint *rcs, MPI_Fint *rds, MPI_Fint *rt, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Alltoallv(c_buffer(sb), scs, sds, T(st), rb, rcs, rds, T(rt), C(comm));
}

void mpi_alltoallw_(void *sb, MPI_Fint *scs, MPI_Fint *sds, MPI_Fint *sts, void *rb,
                    MPI_Fint *rcs, MPI_Fint *rds, MPI_Fint *rts, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_alltoallw_(void *sb, MPI_Fint *scs, MPI_Fint *sds, MPI_Fint *sts, void *rb,
                    MPI_Fint *rcs, MPI_Fint *rds, MPI_Fint *rts, MPI_Fint *comm, MPI_Fint *ierr)
{
    int size = 0;
    *ierr = MPI_Comm_size(C(comm), &size);
    if (*ierr != MPI_SUCCESS)
        return;
    MPI_Datatype *types = malloc(2 * (size_t)(size > 0 ? size : 1) * sizeof *types);
    if (types == NULL) {
        *ierr = MPI_ERR_NO_MEM;
        return;
    }
    for (int i = 0; i < size; i++) {
        types[i] = MPI_Type_f2c(sts[i]);
        types[size + i] = MPI_Type_f2c(rts[i]);
    }
    *ierr = MPI_Alltoallw(c_buffer(sb), scs, sds, types, rb, rcs, rds, types + size, C(comm));
    free(types);
}

void mpi_gather_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                 MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_gather_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                 MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Gather(c_buffer(sb), F(sc), T(st), rb, F(rc), T(rt), F(root), C(comm));
}

void mpi_gatherv_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rcs,
                  MPI_Fint *displs, MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_gatherv_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rcs,
                  MPI_Fint *displs, MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Gatherv(c_buffer(sb), F(sc), T(st), rb, rcs, displs, T(rt), F(root), C(comm));
}

void mpi_scatter_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                  MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_scatter_(void *sb, MPI_Fint *sc, MPI_Fint *st, void *rb, MPI_Fint *rc, MPI_Fint *rt,
                  MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Scatter(sb, F(sc), T(st), c_buffer(rb), F(rc), T(rt), F(root), C(comm));
}

void mpi_scatterv_(void *sb, MPI_Fint *scs, MPI_Fint *displs, MPI_Fint *st, void *rb,
                   MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr);
void mpi_scatterv_(void *sb, MPI_Fint *scs, MPI_Fint *displs, MPI_Fint *st, void *rb,
                   MPI_Fint *rc, MPI_Fint *rt, MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Scatterv(sb, scs, displs, T(st), c_buffer(rb), F(rc), T(rt), F(root), C(comm));
}

void mpi_reduce_scatter_(void *sb, void *rb, MPI_Fint *rcs, MPI_Fint *type, MPI_Fint *op,
                         MPI_Fint *comm, MPI_Fint *ierr);
void mpi_reduce_scatter_(void *sb, void *rb, MPI_Fint *rcs, MPI_Fint *type, MPI_Fint *op,
                         MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Reduce_scatter(c_buffer(sb), rb, rcs, T(type), O(op), C(comm));
}

void mpi_reduce_scatter_block_(void *sb, void *rb, MPI_Fint *rc, MPI_Fint *type, MPI_Fint *op,
                               MPI_Fint *comm, MPI_Fint *ierr);
void mpi_reduce_scatter_block_(void *sb, void *rb, MPI_Fint *rc, MPI_Fint *type, MPI_Fint *op,
                               MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Reduce_scatter_block(c_buffer(sb), rb, F(rc), T(type), O(op), C(comm));
}

void mpi_scan_(void *sb, void *rb, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
               MPI_Fint *ierr);
void mpi_scan_(void *sb, void *rb, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op, MPI_Fint *comm,
               MPI_Fint *ierr)
{
    *ierr = MPI_Scan(c_buffer(sb), rb, F(count), T(type), O(op), C(comm));
}

void mpi_exscan_(void *sb, void *rb, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                 MPI_Fint *comm, MPI_Fint *ierr);
void mpi_exscan_(void *sb, void *rb, MPI_Fint *count, MPI_Fint *type, MPI_Fint *op,
                 MPI_Fint *comm, MPI_Fint *ierr)
{
    *ierr = MPI_Exscan(c_buffer(sb), rb, F(count), T(type), O(op), C(comm));
}
