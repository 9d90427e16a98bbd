/* nodes: which processes of a communicator share a node, and, for one that
 * spans nodes, its layout by node and the communicators of the node leaders
 * that the two-level collectives (two_level.c) use.
 *
 * A node is what MPI_COMM_TYPE_SHARED says: the processes that can share
 * memory, so CMA works between them. KCOLL_VIRTUAL_NODES=K cuts it further:
 * consecutive groups of K MPI_COMM_WORLD ranks (the last may be smaller)
 * count as nodes, so the two-level path runs, and is tested, on one machine.
 * A virtual node never crosses a real one (the cut is made inside the
 * shared split), so CMA still works inside it.
 *
 * The layout is built once per communicator, on its first two-level call,
 * and kept with libkcoll's state of the communicator (kcoll_comm, freed with
 * it): every rank's node and rank in it, the members of each node in rank
 * order, and whether every node's ranks are consecutive in the
 * communicator (then the node blocks of a gather or allgather lie in the
 * result as they are, with no reordering). Nodes are numbered by their
 * lowest rank, which is also their leader by default.
 *
 * The leaders: a rooted collective's root leads its own node, so the
 * leaders' communicator depends on the root when the root is not the first
 * rank of its node. The default one (every node's first rank) is made with
 * the layout; the others, per root, on the first call with that root,
 * among the leaders only (MPI_Comm_create_group), and kept in a small
 * table indexed by root. Every process updates the table alike (calls on a
 * communicator come in the same order everywhere), so a slot reused for
 * another root is freed by all the members of its old communicator at the
 * same call. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algos/config.h"
#include "algos/nodes.h"

/* KCOLL_VIRTUAL_NODES as a group size: 0 when unset or refused (config.h
 * says so, once). */
static int virtual_nodes(void)
{
    return (int)kcoll_config_number(KCOLL_CFG_VIRTUAL_NODES);
}

/* The most processes of one communicator seen sharing this real node. */
static atomic_int node_procs;

int kcoll_node_procs(void)
{
    return atomic_load(&node_procs);
}

int kcoll_oversubscribed(const kcoll_comm *c)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 && (c->size > cpus || kcoll_node_procs() > cpus);
}

int kcoll_node_split(MPI_Comm comm, MPI_Comm *node)
{
    MPI_Comm shared;
    KCOLL_TRY(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                  &shared));
    int size = 0, seen = atomic_load(&node_procs);
    MPI_Comm_size(shared, &size);
    while (size > seen && !atomic_compare_exchange_weak(&node_procs, &seen,
                                                        size))
        ;
    int k = virtual_nodes();
    if (k == 0) {
        *node = shared;
        return MPI_SUCCESS;
    }
    int world_rank;
    int rc = MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    /* Key 0: the order of `shared`, which is comm's. */
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_split(shared, world_rank / k, 0, node);
    MPI_Comm_free(&shared);
    return rc;
}

static void free_comm(MPI_Comm *comm)
{
    if (*comm != MPI_COMM_NULL)
        MPI_Comm_free(comm);
}

/* The layout and its leaders' communicators (those not while MPI
 * finalizes: freeing communicators is unsafe then). */
static void layout_free(kcoll_nodes *nd, int finalizing)
{
    if (!nd)
        return;
    if (!finalizing) {
        free_comm(&nd->leaders);
        for (int i = 0; i < KCOLL_LEADER_SLOTS; i++)
            free_comm(&nd->by_root[i].comm);
    }
    free(nd->node_of);
    free(nd->local_of);
    free(nd->first);
    free(nd->members);
    free(nd->counts);
    free(nd->reqs);
    free(nd);
}

void kcoll_nodes_free(kcoll_comm *c, int finalizing)
{
    if (!finalizing)
        free_comm(&c->node);
    layout_free(c->nodes, finalizing);
    c->nodes = NULL;
}

/* The layout from every rank's node leader (its node's lowest rank). */
static int layout(kcoll_nodes *nd, const int *leader_of, int p)
{
    nd->n_nodes = 0;
    for (int r = 0; r < p; r++)
        if (leader_of[r] == r)
            nd->n_nodes++;
    int nn = nd->n_nodes;
    nd->first = calloc((size_t)nn + 1, sizeof *nd->first);
    int *index = malloc(sizeof *index * (size_t)p); /* node of a leader */
    int *fill = calloc((size_t)nn, sizeof *fill);
    nd->counts = malloc(sizeof *nd->counts * (size_t)nn);
    if (!nd->first || !index || !fill || !nd->counts) {
        free(index);
        free(fill);
        return MPI_ERR_NO_MEM;
    }
    for (int r = 0, next = 0; r < p; r++)
        if (leader_of[r] == r)
            index[r] = next++;
    for (int r = 0; r < p; r++) {
        nd->node_of[r] = index[leader_of[r]];
        nd->first[nd->node_of[r] + 1]++;
    }
    for (int m = 0; m < nn; m++) {
        nd->counts[m] = nd->first[m + 1];
        nd->first[m + 1] += nd->first[m];
    }
    nd->contiguous = 1;
    for (int r = 0; r < p; r++) { /* ascending r: members in rank order */
        int m = nd->node_of[r];
        nd->local_of[r] = fill[m];
        nd->members[nd->first[m] + fill[m]++] = r;
        if (nd->members[nd->first[m]] + nd->local_of[r] != r)
            nd->contiguous = 0;
    }
    free(index);
    free(fill);
    return MPI_SUCCESS;
}

/* Collective over c->comm: the layout and the default leaders. */
static int build(kcoll_comm *c, kcoll_nodes *nd)
{
    int p = c->size;
    nd->leaders = MPI_COMM_NULL;
    for (int i = 0; i < KCOLL_LEADER_SLOTS; i++)
        nd->by_root[i] = (kcoll_leader_slot){-1, MPI_COMM_NULL};
    nd->node_of = malloc(sizeof(int) * (size_t)p);
    nd->local_of = malloc(sizeof(int) * (size_t)p);
    nd->members = malloc(sizeof(int) * (size_t)p);
    nd->reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)p);
    int *leader_of = malloc(sizeof(int) * (size_t)p);
    if (!nd->node_of || !nd->local_of || !nd->members || !nd->reqs ||
        !leader_of) {
        free(leader_of);
        return MPI_ERR_NO_MEM;
    }
    /* My node's rank 0 is my leader: its rank in c->comm, found locally. */
    MPI_Group node_group, group;
    int zero = 0, mine = MPI_UNDEFINED;
    int rc = MPI_Comm_group(c->node, &node_group);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Comm_group(c->comm, &group);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Group_translate_ranks(node_group, 1, &zero, group, &mine);
            MPI_Group_free(&group);
        }
        MPI_Group_free(&node_group);
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Allgather(&mine, 1, MPI_INT, leader_of, 1, MPI_INT, c->comm);
    if (rc == MPI_SUCCESS)
        rc = layout(nd, leader_of, p);
    free(leader_of);
    if (rc != MPI_SUCCESS)
        return rc;
    nd->my_node = nd->node_of[c->rank];
    nd->node_rank = nd->local_of[c->rank];
    nd->node_size = kcoll_nodes_size(nd, nd->my_node);
    /* Ranks of the leaders' communicator are node numbers (key = rank). */
    return MPI_Comm_split(c->comm, nd->node_rank == 0 ? 0 : MPI_UNDEFINED,
                          c->rank, &nd->leaders);
}

int kcoll_nodes_get(kcoll_comm *c, kcoll_nodes **out)
{
    if (!c->nodes) {
        kcoll_nodes *nd = calloc(1, sizeof *nd);
        if (!nd)
            return MPI_ERR_NO_MEM;
        c->nodes = nd;
        int rc = build(c, nd);
        if (rc != MPI_SUCCESS) {
            layout_free(nd, 0); /* c->node stays: it is the state's */
            c->nodes = NULL;
            return rc;
        }
    }
    *out = c->nodes;
    return MPI_SUCCESS;
}

int kcoll_nodes_leader(const kcoll_nodes *nd, int m, int root)
{
    return m == nd->node_of[root] ? root : nd->members[nd->first[m]];
}

/* The leaders for a root that is not its node's first rank: made among
 * them only, MPI_COMM_NULL on every other process. */
static int make_for_root(kcoll_comm *c, kcoll_nodes *nd, int root,
                         MPI_Comm *out)
{
    *out = MPI_COMM_NULL;
    if (kcoll_nodes_leader(nd, nd->my_node, root) != c->rank)
        return MPI_SUCCESS;
    int *ranks = malloc(sizeof(int) * (size_t)nd->n_nodes);
    if (!ranks)
        return MPI_ERR_NO_MEM;
    for (int m = 0; m < nd->n_nodes; m++)
        ranks[m] = kcoll_nodes_leader(nd, m, root);
    MPI_Group group, leaders;
    int rc = MPI_Comm_group(c->comm, &group);
    if (rc == MPI_SUCCESS) {
        rc = MPI_Group_incl(group, nd->n_nodes, ranks, &leaders);
        MPI_Group_free(&group);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Comm_create_group(c->comm, leaders, 0, out);
            MPI_Group_free(&leaders);
        }
    }
    free(ranks);
    return rc;
}

int kcoll_nodes_leaders(kcoll_comm *c, kcoll_nodes *nd, int root,
                        MPI_Comm *out)
{
    if (root < 0 || nd->local_of[root] == 0) {
        *out = nd->leaders;
        return MPI_SUCCESS;
    }
    kcoll_leader_slot *s = &nd->by_root[root % KCOLL_LEADER_SLOTS];
    if (s->root != root) {
        free_comm(&s->comm);
        s->root = -1;
        KCOLL_TRY(make_for_root(c, nd, root, &s->comm));
        s->root = root;
    }
    *out = s->comm;
    return MPI_SUCCESS;
}
