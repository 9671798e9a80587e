/*
 * tree.c: the trees of the tree algorithms (see tree.h).
 *
 * BINOMIAL, BINARY and CHAIN are built on virtual ranks v = (rank - root) mod
 * size, so the root is v = 0; the pictures show v.  IN_ORDER_BINARY and
 * DUAL_POSTORDER are built on the ranks themselves (their shape is what keeps
 * a non-commutative op in rank order), so they ignore root.
 *
 * BINOMIAL: parent = v minus its lowest set bit; children v + 2^k for the
 * powers of two below that bit, farthest first (the bcast_binomial order).
 *
 *            0                 size = 8
 *         /  |  \
 *        4   2   1
 *       / \  |
 *      6   5 3
 *      |
 *      7
 *
 * BINARY: heap order, children 2v+1 then 2v+2; height floor(lg size).
 *
 *            0                 size = 7
 *          /   \
 *         1     2
 *        / \   / \
 *       3   4 5   6
 *
 * IN_ORDER_BINARY: over the range [lo, hi) the node is lo + n/2 (n = hi - lo),
 * the left subtree is [lo, node) and the right subtree [node + 1, hi); children
 * left then right.  Every subtree is a contiguous range with the left subtree
 * below and the right subtree above its node, so left op node op right is the
 * range in rank order.  Height floor(lg size).
 *
 *            3                 size = 7
 *          /   \
 *         1     5
 *        / \   / \
 *       0   2 4   6
 *
 * CHAIN: v's parent is v - 1 and its child v + 1.
 *
 *       0 - 1 - 2 - ... - size-1
 *
 * CHAIN with fan-out f (collsim_tree_build_chain; Open MPI's
 * ompi_coll_base_topo_build_chain, the layout read in v4.1.4): the root heads
 * f' = min(f, size - 1) chains of consecutive ranks 1..size-1, in order.  With
 * L = ceil((size - 1) / f') and m = (size - 1) mod f' (m = f' when f' divides
 * size - 1), the first m chains hold L ranks and the others L - 1, so chain c
 * starts at v = 1 + c L - max(0, c - m).  The root's children are the heads,
 * first chain first; the height is L.
 *
 *              0                 size = 12, f = 4: L = 3, m = 3
 *        /   /   \     *       1   4     7    10
 *       |   |     |    |
 *       2   5     8    11
 *       |   |     |
 *       3   6     9
 *
 * DUAL_POSTORDER (seed 003): ranks [0, s1) form the first tree and [s1, size)
 * the second, s1 = ceil(size / 2).  Each is post-order: over [lo, hi) the node
 * is hi - 1, the left subtree [lo, lo + L) and the right subtree
 * [lo + L, hi - 1) with L = n / 2 (n = hi - lo).  Children: FIRST the right
 * subtree's root hi - 2, THEN the left subtree's root lo + L - 1, so a node
 * combines right op own, then left op (right op own): its subtree's range in
 * rank order.  Both roots (s1 - 1 and size - 1) have parent -1; the algorithm
 * pairs them.  Height floor(lg s1).
 *
 *         first tree (ranks 0..6)        second tree (ranks 7..12)
 *                 6                              12
 *               /   \                          /    \
 *              2     5                        9      11
 *             / \   / \                      / \      |
 *            0   1 3   4                    7   8     10
 *
 *   (size = 13, s1 = 7; in the picture the left child is drawn left, though
 *   the right child is the first child.)
 */
#include "tree.h"

#include <stddef.h>
#include <string.h>

static const char *const kind_names[COLLSIM_TREE_KIND_COUNT] = {
    "binomial", "binary", "in_order_binary", "chain", "dual_postorder"};

const char *collsim_tree_kind_name(collsim_tree_kind kind)
{
    if ((int)kind < 0 || kind >= COLLSIM_TREE_KIND_COUNT)
        return NULL;
    return kind_names[kind];
}

int collsim_tree_kind_from_name(const char *name)
{
    for (int k = 0; k < COLLSIM_TREE_KIND_COUNT; k++)
        if (strcmp(kind_names[k], name) == 0)
            return k;
    return -1;
}

static int floor_log2(int n)
{
    int h = 0;
    while (n > 1) {
        n >>= 1;
        h++;
    }
    return h;
}

static void add_child(collsim_tree_node *node, int child)
{
    node->children[node->nchildren++] = child;
}

static void build_binomial(int v, int size, int root, collsim_tree_node *node)
{
    int limit;
    if (v == 0) {
        node->parent = -1;
        limit = 1;
        while (limit < size)
            limit <<= 1;
    } else {
        limit = v & -v;
        node->parent = (v - limit + root) % size;
    }
    node->depth = __builtin_popcount((unsigned)v);
    for (int mask = limit >> 1; mask > 0; mask >>= 1)
        if (v + mask < size)
            add_child(node, (v + mask + root) % size);
    node->height = floor_log2(size); /* the most set bits below size */
}

static void build_binary(int v, int size, int root, collsim_tree_node *node)
{
    node->parent = v == 0 ? -1 : ((v - 1) / 2 + root) % size;
    for (int c = 2 * v + 1; c <= 2 * v + 2; c++)
        if (c < size)
            add_child(node, (c + root) % size);
    node->depth = floor_log2(v + 1);
    node->height = floor_log2(size);
}

static void build_chain(int v, int size, int root, collsim_tree_node *node)
{
    node->parent = v == 0 ? -1 : (v - 1 + root) % size;
    if (v + 1 < size)
        add_child(node, (v + 1 + root) % size);
    node->depth = v;
    node->height = size - 1;
}

/* The chain that v > 0 lies on: its head and length (see the picture). */
static void chain_of(int v, int size, int fanout, int *head, int *length)
{
    const int rest = size - 1, longest = (rest + fanout - 1) / fanout;
    const int nlong = rest % fanout ? rest % fanout : fanout;
    if (v - 1 < nlong * longest) {
        *head = 1 + (v - 1) / longest * longest;
        *length = longest;
    } else {
        *head = 1 + nlong * longest + (v - 1 - nlong * longest) / (longest - 1) * (longest - 1);
        *length = longest - 1;
    }
}

static void build_fanout_chain(int v, int size, int root, int fanout, collsim_tree_node *node)
{
    if (fanout > size - 1)
        fanout = size - 1;
    if (size == 1) {
        node->parent = -1;
        return;
    }
    const int longest = (size - 1 + fanout - 1) / fanout;
    node->height = longest;
    if (v == 0) {
        node->parent = -1;
        for (int c = 0, head = 1; c < fanout; c++) {
            int first, length;
            add_child(node, (head + root) % size);
            chain_of(head, size, fanout, &first, &length);
            head += length;
        }
        return;
    }
    int head, length;
    chain_of(v, size, fanout, &head, &length);
    node->parent = v == head ? root : (v - 1 + root) % size;
    if (v < head + length - 1)
        add_child(node, (v + 1 + root) % size);
    node->depth = v - head + 1;
}

static void build_in_order(int rank, int size, collsim_tree_node *node)
{
    int lo = 0, hi = size, parent = -1, depth = 0;
    for (;;) {
        const int mid = lo + (hi - lo) / 2;
        if (rank == mid) {
            if (lo < mid)
                add_child(node, lo + (mid - lo) / 2);
            if (mid + 1 < hi)
                add_child(node, mid + 1 + (hi - mid - 1) / 2);
            break;
        }
        parent = mid;
        depth++;
        if (rank < mid)
            hi = mid;
        else
            lo = mid + 1;
    }
    node->parent = parent;
    node->depth = depth;
    node->height = floor_log2(size);
}

static void build_postorder(int rank, int lo, int hi, collsim_tree_node *node)
{
    int parent = -1, depth = 0;
    for (;;) {
        const int top = hi - 1, left = (hi - lo) / 2;
        if (rank == top) {
            if (lo + left < top)
                add_child(node, top - 1);
            if (left > 0)
                add_child(node, lo + left - 1);
            break;
        }
        parent = top;
        depth++;
        if (rank < lo + left)
            hi = lo + left;
        else {
            lo = lo + left;
            hi = top;
        }
    }
    node->parent = parent;
    node->depth = depth;
}

int collsim_tree_dual_first_size(int size)
{
    return (size + 1) / 2;
}

int collsim_tree_in_order_root(int size)
{
    return size / 2;
}

int collsim_tree_build_chain(int rank, int size, int root, int fanout, collsim_tree_node *node)
{
    if (size < 1 || rank < 0 || rank >= size || root < 0 || root >= size || fanout < 1 ||
        fanout > COLLSIM_TREE_MAX_CHILDREN)
        return -1;
    memset(node, 0, sizeof *node);
    build_fanout_chain((rank - root + size) % size, size, root, fanout, node);
    return 0;
}

int collsim_tree_build(collsim_tree_kind kind, int rank, int size, int root,
                       collsim_tree_node *node)
{
    if (size < 1 || rank < 0 || rank >= size || root < 0 || root >= size)
        return -1;
    memset(node, 0, sizeof *node);
    const int v = (rank - root + size) % size;
    switch (kind) {
    case COLLSIM_TREE_BINOMIAL:
        build_binomial(v, size, root, node);
        return 0;
    case COLLSIM_TREE_BINARY:
        build_binary(v, size, root, node);
        return 0;
    case COLLSIM_TREE_IN_ORDER_BINARY:
        build_in_order(rank, size, node);
        return 0;
    case COLLSIM_TREE_CHAIN:
        build_chain(v, size, root, node);
        return 0;
    case COLLSIM_TREE_DUAL_POSTORDER: {
        const int first = collsim_tree_dual_first_size(size);
        if (rank < first)
            build_postorder(rank, 0, first, node);
        else
            build_postorder(rank, first, size, node);
        node->height = floor_log2(first);
        return 0;
    }
    default:
        return -1;
    }
}
