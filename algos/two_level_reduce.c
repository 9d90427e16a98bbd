/* two_level_reduce: the three reductions on a communicator whose processes
 * span nodes (or KCOLL_VIRTUAL_NODES's virtual nodes), with two_level.c's
 * layout, leaders and node steps: inside a node libkcoll's CMA reductions
 * on the node's communicator (kcoll_intra: the model's choice and the
 * hand-off at the node's size), between nodes the MPI library among one
 * leader per node. P ranks on N nodes of q_m ranks; n the vector's bytes
 * (reduce_scatter_block: one block's). The model's rows (`kcal predict
 * --ppn`, model/two_level.c, ppn ranks on every node) give their costs:
 *
 *   allreduce  node allreduce into every rank's recvbuf (the user's id
 *              names it), MPI_Allreduce in place among the node's first
 *              ranks, node bcast of the result from the first rank.
 *   reduce     node reduce to the node's leader (the root on its own
 *              node), MPI_Reduce among the leaders to the root.
 *   reduce_scatter_block  node reduce of the p blocks to the node's first
 *              rank, MPI_Reduce_scatter among the first ranks (node m
 *              gets its q_m blocks, node-major), node scatter of them.
 * Only the node's partial result crosses between nodes, one vector per
 * node where the MPI library's flat collective moves the ranks' own.
 *
 * Order. A node step folds its ranks in rank order (reduce.h), the
 * leaders' step folds the nodes in node order (the leaders' ranks are
 * node numbers, nodes numbered by their lowest rank): when every node's
 * ranks are consecutive that is the rank-order fold, re-associated, which
 * MPI allows (its ops are associative). Otherwise a non-commutative op
 * would be applied out of rank order, so such a call runs the MPI
 * library's collective on the whole communicator, on every rank alike
 * (the layout and the op are the same everywhere). Every rank of a node
 * gets its leader's bytes, so an allreduce's result is the same on every
 * rank, bit for bit.
 *
 * Errors as in two_level.c: each process returns the first error of the
 * steps it took part in and goes on with the others. */
#include <stdint.h>

#include "algos/nodes.h"
#include "algos/reduce.h"

static int allreduce(kcoll_comm *c, kcoll_nodes *nd, const char *spec,
                     const kcoll_args *a, kcoll_ran *ran)
{
    int rc = kcoll_node_call(c, KCAL_COLL_ALLREDUCE, spec, a->sendbuf,
                             a->recvbuf, a->n, 0, a, ran);
    if (nd->node_rank == 0) {
        kcoll_args l = *a;
        l.sendbuf = MPI_IN_PLACE;
        kcoll_keep_first(&rc, kcoll_mpi_reduction(KCAL_COLL_ALLREDUCE, &l,
                                                  nd->leaders));
    }
    if (nd->node_size > 1)
        kcoll_keep_first(&rc, kcoll_node_call(c, KCAL_COLL_BCAST, NULL, NULL,
                                              a->recvbuf, a->n, 0, NULL,
                                              NULL));
    return rc;
}

static int reduce(kcoll_comm *c, kcoll_nodes *nd, const char *spec,
                  const kcoll_args *a, kcoll_ran *ran)
{
    int me = c->rank, root = a->root;
    int lead = kcoll_nodes_leader(nd, nd->my_node, root);
    MPI_Comm leaders;
    KCOLL_TRY(kcoll_nodes_leaders(c, nd, root, &leaders));
    /* The node's result: the root's recvbuf, another leader's scratch. */
    char *part = me == root ? a->recvbuf : NULL;
    if (me == lead && me != root && !(part = kcoll_scratch(c, a->n)))
        return MPI_ERR_NO_MEM;
    int rc = kcoll_node_call(c, KCAL_COLL_REDUCE, spec, a->sendbuf, part,
                             a->n, nd->local_of[lead], a, ran);
    if (me == lead) {
        kcoll_args l = *a;
        l.sendbuf = me == root ? MPI_IN_PLACE : part;
        l.recvbuf = me == root ? a->recvbuf : NULL;
        l.root = nd->node_of[root];
        kcoll_keep_first(&rc,
                         kcoll_mpi_reduction(KCAL_COLL_REDUCE, &l, leaders));
    }
    return rc;
}

static int reduce_scatter_block(kcoll_comm *c, kcoll_nodes *nd,
                                const char *spec, const kcoll_args *a,
                                kcoll_ran *ran)
{
    size_t n = a->n, p = (size_t)c->size, q = (size_t)nd->node_size;
    size_t all = p * n, count = n / a->esize;
    int lead = nd->node_rank == 0;
    /* At the first rank: the leaders' counts in elements, the node's p
     * blocks reduced, their node-major order (unless that is rank order),
     * its node's q blocks. */
    int *counts = NULL;
    char *work = NULL, *major = NULL, *mine = NULL;
    if (lead) {
        size_t head = sizeof *counts * (size_t)nd->n_nodes;
        head = (head + 63) & ~(size_t)63; /* the blocks 64-byte aligned */
        size_t reorder = nd->contiguous ? 0 : all;
        char *s = kcoll_scratch(c, head + all + reorder + q * n);
        if (!s)
            return MPI_ERR_NO_MEM;
        counts = (int *)(void *)s;
        work = s + head;
        major = nd->contiguous ? work : work + all;
        mine = work + all + reorder;
    }
    const void *send =
        a->sendbuf == MPI_IN_PLACE ? (const void *)a->recvbuf : a->sendbuf;
    int rc =
        kcoll_node_call(c, KCAL_COLL_REDUCE, spec, send, work, all, 0, a, ran);
    if (lead) {
        if (!nd->contiguous)
            kcoll_nodes_reorder(nd, c->size, major, work, n, 1);
        /* Too many elements for MPI's int: on every leader alike (the
         * same n and node sizes), so none of them calls. */
        int lrc = MPI_SUCCESS;
        for (int m = 0; m < nd->n_nodes && lrc == MPI_SUCCESS; m++) {
            size_t k = (size_t)kcoll_nodes_size(nd, m) * count;
            if (k > (size_t)INT32_MAX)
                lrc = MPI_ERR_COUNT;
            counts[m] = (int)k;
        }
        if (lrc == MPI_SUCCESS)
            lrc = MPI_Reduce_scatter(major, mine, counts, a->type, a->op,
                                     nd->leaders);
        kcoll_keep_first(&rc, lrc);
    }
    kcoll_keep_first(&rc, kcoll_node_call(c, KCAL_COLL_SCATTER, NULL, mine,
                                          a->recvbuf, n, 0, NULL, NULL));
    return rc;
}

int kcoll_two_level_reduction(kcoll_comm *c, kcoll_nodes *nd, kcal_coll coll,
                              const char *spec, const kcoll_args *a,
                              kcoll_ran *ran)
{
    int commutes = 1;
    KCOLL_TRY(MPI_Op_commutative(a->op, &commutes));
    if (!nd->contiguous && !commutes) {
        *ran = (kcoll_ran){"mpi(order)", 0, nd->node_size};
        return kcoll_mpi_reduction(coll, a, c->comm);
    }
    switch (coll) {
    case KCAL_COLL_ALLREDUCE:
        return allreduce(c, nd, spec, a, ran);
    case KCAL_COLL_REDUCE:
        return reduce(c, nd, spec, a, ran);
    case KCAL_COLL_REDUCE_SCATTER_BLOCK:
        /* Its node step is a reduce: the user's id where reduce has it. */
        if (spec && !kcal_model_find_algorithm(KCAL_COLL_REDUCE, spec))
            spec = NULL;
        return reduce_scatter_block(c, nd, spec, a, ran);
    default:
        return MPI_ERR_ARG;
    }
}
