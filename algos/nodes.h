/* nodes: the layout by node of a communicator that spans nodes, for the
 * two-level collectives (two_level.c); see nodes.c. Not installed. */
#ifndef KCOLL_NODES_H
#define KCOLL_NODES_H

#include "algos/kcoll_impl.h"

/* Leaders' communicators kept for roots that are not their node's first
 * rank (the default leaders serve every other root). */
#define KCOLL_LEADER_SLOTS 4

typedef struct {
    int root; /* -1: empty */
    MPI_Comm comm; /* MPI_COMM_NULL where this process is no leader */
} kcoll_leader_slot;

struct kcoll_nodes {
    int n_nodes;
    int my_node, node_rank, node_size; /* this process's */
    int *node_of;  /* [p] the node of each rank (nodes numbered by their
                    * lowest rank) */
    int *local_of; /* [p] each rank's rank in its node */
    int *first;    /* [n_nodes + 1] node m's members are
                    * members[first[m] .. first[m + 1]) */
    int *members;  /* [p] ranks by node, ascending within a node; also the
                    * node-major order of the staging buffers */
    int *counts;   /* [n_nodes] node sizes: the counts, in blocks, of the
                    * leaders' v-collectives, whose displacements are
                    * first[] (node-major order) */
    int contiguous; /* every node's ranks are consecutive: node-major order
                     * is rank order, so the result needs no reordering */
    MPI_Comm leaders; /* every node's first rank, rank = node number;
                       * MPI_COMM_NULL on the others */
    kcoll_leader_slot by_root[KCOLL_LEADER_SLOTS];
    MPI_Request *reqs; /* [2p] for the alltoall's point-to-point */
};

/* The layout of c (which spans nodes), built on the first call: collective
 * over c->comm. */
int kcoll_nodes_get(kcoll_comm *c, kcoll_nodes **out);

static inline int kcoll_nodes_size(const kcoll_nodes *nd, int m)
{
    return nd->first[m + 1] - nd->first[m];
}

/* The leader of node m for a call rooted at root: the root on its own
 * node, the node's first rank elsewhere. */
int kcoll_nodes_leader(const kcoll_nodes *nd, int m, int root);

/* The leaders' communicator for a call rooted at root (root < 0: no root,
 * the default leaders); ranks are node numbers. MPI_COMM_NULL on a
 * process that is not one of them. Made on first use for a root that is not
 * its node's first rank: collective over that root's leaders. Every process
 * of c calls it for every rooted call, leader or not, so that all keep the
 * same table (a slot given to another root frees the old communicator on
 * all its members at once). */
int kcoll_nodes_leaders(kcoll_comm *c, kcoll_nodes *nd, int root,
                        MPI_Comm *out);

/* dst's block members[i] = src's block i, for every i (node-major to rank
 * order); from_ranks: the other way. Blocks of n bytes, p of them. */
void kcoll_nodes_reorder(const kcoll_nodes *nd, int p, char *dst,
                         const char *src, size_t n, int from_ranks);

/* A node step of a two-level call (two_level.c): coll over this process's
 * node (c->node) through kcoll_intra, in bytes, or with red's type, op
 * and element size for a reduction (red NULL: bytes). */
int kcoll_node_call(kcoll_comm *c, kcal_coll coll, const char *spec,
                    const void *send, void *recv, size_t n, int root,
                    const kcoll_args *red, kcoll_ran *ran);

/* A process's result of a call of several steps: the first error of the
 * steps it took part in (it goes on with the others, so no process waits
 * forever). */
static inline void kcoll_keep_first(int *rc, int step_rc)
{
    if (*rc == MPI_SUCCESS)
        *rc = step_rc;
}

/* The reductions in two levels (two_level_reduce.c), from
 * kcoll_two_level_run: spec the node step's algorithm (NULL: the model's
 * choice at the node's size). */
int kcoll_two_level_reduction(kcoll_comm *c, kcoll_nodes *nd, kcal_coll coll,
                              const char *spec, const kcoll_args *a,
                              kcoll_ran *ran);

#endif
