/*
 * prefix.c: the recursive-doubling prefix reduction (see prefix.h).
 */
#include "prefix.h"

#include "internal.h"
#include "opening.h"
#include "scratch.h"

int collsim_prefix_recursive_doubling(const void *sendbuf, void *recvbuf, int count,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                      const collsim_params *params, int inclusive, int tag)
{
    int rc = MPI_SUCCESS, rank, size, commutative;
    int has_result = inclusive; /* recvbuf holds a partial result */
    MPI_Aint extent;
    void *partial = NULL, *received = NULL;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    if (inclusive)
        collsim_copy(recvbuf, sendbuf, count, extent);
    if (count == 0 || size == 1)
        return MPI_SUCCESS;
    COLLSIM_CHECK(MPI_Op_commutative(op, &commutative));
    COLLSIM_CHECK(collsim_buffer_pair(count, extent, params, &partial, &received));
    collsim_copy(partial, sendbuf, count, extent);

    for (int mask = 1; mask < size; mask <<= 1) {
        const int dst = rank ^ mask;
        if (dst >= size)
            continue;
        COLLSIM_CHECK(MPI_Sendrecv(partial, count, datatype, dst, tag, received, count, datatype,
                                   dst, tag, comm, MPI_STATUS_IGNORE));
        if (rank > dst) {
            if (has_result) {
                COLLSIM_CHECK(
                    collsim_reduce_local(received, recvbuf, count, datatype, op, params));
            } else {
                collsim_copy(recvbuf, received, count, extent);
                has_result = 1;
            }
            COLLSIM_CHECK(collsim_reduce_local(received, partial, count, datatype, op, params));
        } else if (commutative) {
            COLLSIM_CHECK(collsim_reduce_local(received, partial, count, datatype, op, params));
        } else {
            COLLSIM_CHECK(collsim_accumulate(&partial, &received, count, datatype, op, params));
        }
    }

cleanup:
    collsim_buffer_free(partial, params);
    collsim_buffer_free(received, params);
    return rc;
}
