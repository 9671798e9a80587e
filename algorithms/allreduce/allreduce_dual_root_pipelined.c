/*
 * allreduce_dual_root_pipelined.c: Traff's doubly pipelined, dual-root
 * reduction-to-all (seed 003).
 *
 * The ranks form two post-order binary trees, [0, s1) and [s1, p) with
 * s1 = ceil(p / 2) (common/tree.c, DUAL_POSTORDER); the two roots s1 - 1 and
 * p - 1 are partners.  The vector is cut into B blocks.  In round k every rank
 * does, with bidirectional MPI_Sendrecv,
 *
 *     with its first child:  send result block k - d - 1, receive partial block k;
 *                            partial_k = received op partial_k
 *     with its second child: the same
 *     with its parent:       send partial block k, receive result block k - d
 *     (a root, with the other root: send partial block k, receive the other
 *      tree's partial block k; result_k = first tree's op second tree's)
 *
 * where d is the rank's depth.  Partial blocks climb one level per round step
 * and results descend one level per round, so up and down traffic share every
 * exchange: three bidirectional steps per block instead of the four one-way
 * steps of reduce + bcast.  Children in a post-order tree precede their parent
 * (the first child is the right subtree's root), so right op own and then
 * left op (right op own) keep rank order: any op is allowed, and both roots
 * compute the same left-to-right product.
 *
 *     first tree (ranks 0..6)      second tree (7..12)     p = 13
 *             6  <------------------->  12
 *           /   \                     /    \
 *          2     5                   9      11
 *         / \   / \                 / \      |
 *        0   1 3   4               7   8     10
 *
 * Empty blocks: as in seed 003 sec. 1.3, a rank exchanges with each tree
 * neighbour in every round the two share, also when one direction's block
 * (or both) is empty (k >= B, or k - d outside [0, B)): a zero-element message
 * still costs a start-up and the overheads, and it ties every round of a
 * rank to its neighbours' (seed 003 sec. 1.2 counts 6 H + 1 steps for the
 * first block in lock-step rounds; on a uniform network the longest path is
 * 4 H + 1 exchanges either way, but where links differ the empty exchanges
 * make the fast subtrees wait for the slow ones: docs/seeds/seed003.md).  A
 * rank of depth d and its parent share rounds 0 .. B + d - 1; the roots
 * share 0 .. B - 1.  The
 * seed reads a received block's size with MPI_Get_elements; here both
 * partners compute it from the same plan.
 *
 * B: --blocks, or --segment-bytes, else the pipelining lemma with fill 6H + 1
 * and 3 steps per block (H = the trees' height).
 *
 * Restrictions: none.
 * Reference: J. L. Traff, "A doubly-pipelined, dual-root reduction-to-all
 *            algorithm and implementation", 2021 (seed 003, Algorithm 1).
 * Cost:      about (6 H + 1 + 3 (B - 1)) (alpha + n/B beta) + 2 (H + B) n/B gamma;
 *            with the best B: 3 n beta + O(sqrt(H n alpha beta)) + O(H alpha)
 */
#include "common/internal.h"
#include "common/opening.h"
#include "common/segment.h"
#include "common/tree.h"

/* One bidirectional exchange with peer: send_n elements at send_at while
 * receiving recv_n at recv_at; either count may be 0 (an empty block). */
static int exchange(const void *send_at, int send_n, void *recv_at, int recv_n,
                    MPI_Datatype datatype, int peer, MPI_Comm comm)
{
    const int tag = COLLSIM_TAG_ALLREDUCE;
    return MPI_Sendrecv(send_at, send_n, datatype, peer, tag, recv_at, recv_n, datatype, peer, tag,
                        comm, MPI_STATUS_IGNORE);
}

int collsim_allreduce_dual_root_pipelined(const void *sendbuf, void *recvbuf, int count,
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                          const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    void *tmp = NULL;
    collsim_tree_node node;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    collsim_copy(recvbuf, sendbuf, count, extent);
    if (count == 0 || size == 1)
        return MPI_SUCCESS;
    if (collsim_tree_build(COLLSIM_TREE_DUAL_POSTORDER, rank, size, 0, &node) != 0)
        return MPI_ERR_ARG;

    const int first_size = collsim_tree_dual_first_size(size);
    const int is_root = node.parent < 0;
    const int in_first_tree = rank < first_size;
    const int parent = is_root ? (in_first_tree ? size - 1 : first_size - 1) : node.parent;
    const int depth = node.depth;
    const collsim_segment_plan plan =
        collsim_segment_plan_make(count, (int)extent, params, 6.0 * node.height + 1.0, 3.0);
    const int nblocks = plan.nblocks;
    tmp = collsim_buffer_alloc((size_t)collsim_segment_max_elems(&plan) * (size_t)extent, params);
    if (tmp == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }
#define BLOCK(i) collsim_elem(recvbuf, extent, collsim_segment_offset(&plan, (i)))

    const int last_round = nblocks - 1 + depth + (node.nchildren > 0 ? 1 : 0);
    for (int k = 0; k <= last_round; k++) {
        const int partial_n = collsim_segment_elems(&plan, k); /* 0 when k >= B */
        for (int j = 0; j < node.nchildren; j++) { /* rounds 0 .. B + depth: all of ours */
            const int down = k - depth - 1;
            COLLSIM_CHECK(exchange(down >= 0 && down < nblocks ? BLOCK(down) : recvbuf,
                                   collsim_segment_elems(&plan, down), tmp, partial_n, datatype,
                                   node.children[j], comm));
            if (partial_n > 0) /* children precede this rank: theirs is the left operand */
                COLLSIM_CHECK(collsim_reduce_local(tmp, BLOCK(k), partial_n, datatype, op, params));
        }
        if (!is_root && k < nblocks + depth) { /* the rounds the parent shares */
            const int up = k - depth;
            COLLSIM_CHECK(exchange(partial_n > 0 ? BLOCK(k) : recvbuf, partial_n,
                                   up >= 0 && up < nblocks ? BLOCK(up) : tmp,
                                   collsim_segment_elems(&plan, up), datatype, parent, comm));
        } else if (partial_n > 0) {
            COLLSIM_CHECK(exchange(BLOCK(k), partial_n, tmp, partial_n, datatype, parent, comm));
            if (in_first_tree) {
                /* result = own tree's op other tree's */
                COLLSIM_CHECK(collsim_reduce_local(BLOCK(k), tmp, partial_n, datatype, op, params));
                collsim_copy(BLOCK(k), tmp, partial_n, extent);
            } else {
                COLLSIM_CHECK(collsim_reduce_local(tmp, BLOCK(k), partial_n, datatype, op, params));
            }
        }
    }
#undef BLOCK

cleanup:
    collsim_buffer_free(tmp, params);
    return rc;
}
