/*
 * scatter.c: the engine, binomial scatter and allgather step shared by the
 * scatter + allgather broadcasts (bcast_scatter_allgather.c,
 * bcast_scatter_recursive_doubling_allgather.c).
 *
 * The vector is cut into p chunks of c = ceil(count / p) elements (the last
 * ones shorter or empty); ranks are numbered relative to the root,
 * v = (rank - root) mod p, and v ends up owning chunk v.  A binomial tree
 * from the root, largest distance first: a rank holding chunks [v, v + 2m)
 * sends [v + m, v + 2m) to v + m.
 *
 * Cost: ceil(lg p) alpha + (p-1)/p n beta.
 */
#include "common/internal.h"
#include "common/scatter.h"
#include "common/opening.h"

int collsim_chunk_span(int count, int c, int first, int last, int *offset)
{
    long long lo = (long long)first * c, hi = (long long)last * c;
    if (lo > count)
        lo = count;
    if (hi > count)
        hi = count;
    *offset = (int)lo;
    return (int)(hi - lo);
}

int collsim_binomial_scatter(void *buffer, int count, MPI_Datatype datatype, MPI_Aint extent,
                             int root, int rank, int size, MPI_Comm comm)
{
    int rc = MPI_SUCCESS, offset, n;
    const int c = (count + size - 1) / size;
    const int v = (rank - root + size) % size;

    /* receive my subtree's chunks from the parent, then hand on */
    int mask = 1;
    while (mask < size && !(v & mask))
        mask <<= 1;
    if (v != 0) {
        const int parent = (v - mask + root) % size;
        const int end = v + mask < size ? v + mask : size;
        n = collsim_chunk_span(count, c, v, end, &offset);
        COLLSIM_CHECK(MPI_Recv(collsim_elem(buffer, extent, offset), n, datatype, parent,
                               COLLSIM_TAG_BCAST, comm, MPI_STATUS_IGNORE));
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (v + mask >= size)
            continue;
        const int end = v + 2 * mask < size ? v + 2 * mask : size;
        n = collsim_chunk_span(count, c, v + mask, end, &offset);
        COLLSIM_CHECK(MPI_Send(collsim_elem(buffer, extent, offset), n, datatype,
                               (v + mask + root) % size, COLLSIM_TAG_BCAST, comm));
    }
cleanup:
    return rc;
}

int collsim_chunk_exchange(void *buffer, int count, int c, MPI_Datatype datatype,
                           MPI_Aint extent, int out_first, int out_last, int dst, int in_first,
                           int in_last, int src, MPI_Comm comm)
{
    int out_offset, in_offset;
    const int out_n = collsim_chunk_span(count, c, out_first, out_last, &out_offset);
    const int in_n = collsim_chunk_span(count, c, in_first, in_last, &in_offset);
    return MPI_Sendrecv(collsim_elem(buffer, extent, out_offset), out_n, datatype, dst,
                        COLLSIM_TAG_BCAST, collsim_elem(buffer, extent, in_offset), in_n,
                        datatype, src, COLLSIM_TAG_BCAST, comm, MPI_STATUS_IGNORE);
}

int collsim_scatter_allgather_bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                                    MPI_Comm comm, collsim_chunk_allgather_fn *allgather)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    if (count == 0 || size == 1)
        return MPI_SUCCESS;

    const int c = (count + size - 1) / size;
    const int v = (rank - root + size) % size;

    COLLSIM_CHECK(collsim_binomial_scatter(buffer, count, datatype, extent, root, rank, size,
                                           comm));
    COLLSIM_CHECK(allgather(buffer, count, c, datatype, extent, v, root, rank, size, comm));

cleanup:
    return rc;
}
