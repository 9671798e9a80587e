/*
 * interpose.h: what the Fortran entry points (fortran.c) need of the C
 * wrappers (interpose.c).
 */
#ifndef COLLSIM_INTERPOSE_H
#define COLLSIM_INTERPOSE_H

/* After the library's MPI_Init (C or Fortran): this rank's state, the rules,
 * the trace's first row.  On a bad rules file every rank stops the program. */
void collsim_interpose_setup(void);

/* Before the library's MPI_Finalize: the trace's last row, the state freed. */
void collsim_interpose_teardown(void);

#endif
