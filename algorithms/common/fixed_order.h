/*
 * fixed_order.h: the engine of the `fixed_order` reduce and allreduce: a
 * reduction combined in an order fixed by rank alone, communicated along the
 * machine's nodes (see fixed_order.c).
 * Users: allreduce_fixed_order.c, reduce_fixed_order.c, common/fixed_order.c.
 */
#ifndef COLLSIM_FIXED_ORDER_H
#define COLLSIM_FIXED_ORDER_H

#include "../collsim.h"

/* Reduces to root; the result is the same bits for every placement of the
 * ranks on nodes.  Reads params->node_size (0: the real node). */
int collsim_fixed_order_reduce(const void *sendbuf, void *recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                               const collsim_params *params);

#endif
