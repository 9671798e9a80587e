/*
 * fortran.c: a Fortran program's MPI_ALLREDUCE, MPI_REDUCE and MPI_BCAST
 * (include 'mpif.h' or use mpi; gfortran's names: lower case, one
 * underscore) sent to the C wrappers of interpose.c, so that they reach
 * collsim's algorithms as a C program's calls do.
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

static const void *c_buffer(const void *fortran_buffer)
{
    return fortran_buffer != NULL && fortran_buffer == FORTRAN_IN_PLACE ? MPI_IN_PLACE
                                                                          : fortran_buffer;
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
