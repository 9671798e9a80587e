/*
 * blockcopy.h: the local copy of one block between a send and a receive
 * datatype (common/blockcopy.c), for the collectives whose calls name both
 * (allgather, alltoall, gather, scatter): a rank's own block goes from
 * sendbuf to its place in recvbuf without a message, as Open MPI's
 * ompi_datatype_sndrcv and MPICH's MPIR_Localcopy do.
 * It also gives the alltoall algorithms their shared opening and their
 * block-addressed messages (collsim_exchange_*).
 * Users: the allgather, alltoall, gather and scatter algorithms.
 */
#ifndef COLLSIM_BLOCKCOPY_H
#define COLLSIM_BLOCKCOPY_H

#include "../collsim.h"

/* Copies sendcount elements of sendtype at src into recvcount elements of
 * recvtype at dst (the type signatures must match, as for a message): a
 * memcpy when both sides are the same contiguous type, else packed and
 * unpacked.  No simulated time.  Returns an MPI error code. */
int collsim_block_copy(const void *src, int sendcount, MPI_Datatype sendtype, void *dst,
                       int recvcount, MPI_Datatype recvtype);

/* The extent of count elements of datatype (the stride of a block). */
MPI_Aint collsim_block_extent(int count, MPI_Datatype datatype);

/* One rank's view of an alltoall's p send and p receive blocks. */
typedef struct collsim_exchange {
    const char *sendbuf;
    char *recvbuf;
    int sendcount, recvcount;
    MPI_Datatype sendtype, recvtype;
    MPI_Aint send_block, recv_block; /* the extents of one block, the stride */
    int rank, size;
    MPI_Comm comm;
} collsim_exchange;

/* The opening every alltoall shares: fills *x from the call's arguments and
 * copies the rank's own block from sendbuf to recvbuf.  Returns an MPI error
 * code. */
int collsim_exchange_open(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          collsim_exchange *x);

/* Block `to` of sendbuf to rank to and block `from` of recvbuf from rank
 * from, in one MPI_Sendrecv (tag COLLSIM_TAG_ALLTOALL). */
int collsim_exchange_sendrecv(const collsim_exchange *x, int to, int from);

/* MPI_Irecv of block `from` of recvbuf from rank from; MPI_Isend of block
 * `to` of sendbuf to rank to (tag COLLSIM_TAG_ALLTOALL). */
int collsim_exchange_irecv(const collsim_exchange *x, int from, MPI_Request *request);
int collsim_exchange_isend(const collsim_exchange *x, int to, MPI_Request *request);

#endif /* COLLSIM_BLOCKCOPY_H */
