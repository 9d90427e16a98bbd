/* two_level: the five collectives on a communicator whose processes span
 * nodes (or KCOLL_VIRTUAL_NODES's virtual nodes); the reductions' are in
 * two_level_reduce.c. CMA works only inside a node, so each call is split
 * in two levels, as the paper's Section VII-G does for gather: steps
 * inside every node run libkcoll's CMA algorithms on the node's
 * communicator (kcoll_intra: the same path as a user's call, so the model
 * chooses at the node's size and small messages go to the MPI library
 * there), steps between nodes run the MPI library among one leader
 * per node. The MPI library is the distributed engine: nothing here moves
 * bytes between nodes but it. Layout, leaders and their communicators:
 * nodes.c.
 *
 * P ranks on N nodes, node m with q_m ranks; a rooted call's root leads its
 * own node, every other node is led by its first rank. The model's rows
 * (model.md "Two-level collectives", derived; model/two_level.c) assume
 * ppn ranks on every node, consecutive in rank order, B = ppn·n, and model
 * the MPI library's part with a stated algorithm in Hockney terms,
 * T_net(m) = net_alpha + m·net_beta:
 *
 *   gather   node gather of the n-byte blocks to the leader, then a
 *            Gatherv of the node blocks (q_m blocks each) to the root.
 *            T_gather(ppn, n) + ⌈lg N⌉·net_alpha + (N−1)·B·net_beta
 *            (the MPI part as a binomial tree)
 *   scatter  the reverse: Scatterv of node blocks to the leaders, then a
 *            node scatter.        T_scatter(ppn, n) + the same MPI part
 *   bcast    MPI_Bcast among the leaders, then a node bcast.
 *            ⌈lg N⌉·T_net(n) + T_bcast(ppn, n)      (binomial)
 *   allgather  node allgather (the named algorithm) into the node's
 *            block, Allgatherv of the node blocks among the leaders, then
 *            node bcasts of the other nodes' blocks (the model's choice).
 *            T_allgather(ppn, n) + (N−1)·T_net(B) + T_bcast(ppn, (P−ppn)·n)
 *            (the MPI part as a ring)
 *   alltoall node-aware exchange: every rank sends its blocks for other
 *            nodes straight to their ranks with MPI point-to-point (all
 *            posted at once, in pairwise order) while the node's blocks
 *            move by a node alltoall with CMA; no leader, no extra copy.
 *            max(T_alltoall(ppn, n), net_alpha + (ppn·(P−ppn) − 1)·net_gap
 *                + ppn·(P−ppn)·n·net_beta)
 *            Through leaders (gather, exchange, scatter) every byte would
 *            cross the node twice more and one process would carry the
 *            node's traffic; the direct exchange leaves the network part
 *            to the MPI library as its own alltoall does, and takes the
 *            node's share off it.
 *
 * Block order is MPI's whatever the layout: when every node's ranks are
 * consecutive the node blocks lie in the user's buffer as they are (a
 * node's block starts at its first rank), otherwise they go through a
 * node-major staging buffer (the communicator's scratch) and are put in
 * rank order with one copy per block. In place is passed on to the node
 * step where the block is where that step expects it, else the block is
 * named as the node step's send buffer.
 *
 * The algorithm: the user's id names the node step (the allgather's its
 * node allgather). Where its k (or j) does not fit a node's size that node
 * uses the model's best k; at a node of 2 ranks, where no throttle factor
 * exists, and of 1 rank, the model's choice. So a call that works on one
 * node works on several. NULL: the model chooses per node.
 *
 * Errors: each process returns the first error of the steps it took part
 * in and goes on with the others (so no process waits forever); a failed
 * copy inside a node is reported on that node, as by the flat algorithms,
 * not on the other nodes. */
#include <stdio.h>
#include <string.h>

#include "algos/nodes.h"

typedef struct {
    kcoll_comm *c;
    kcoll_nodes *nd;
    const char *spec; /* the node step's algorithm at this node's size */
    kcoll_ran *ran;
} step;

/* The node step's algorithm at a node of q ranks (see the top). */
static const char *node_spec(const kcal_algorithm *alg, int k, int q,
                             char *buf, size_t len)
{
    if (!alg || q == 1)
        return NULL;
    if (alg->kind == KCAL_PARAM_NONE)
        return alg->id;
    if (k > 0 && kcal_model_k_valid(alg, q, k)) {
        snprintf(buf, len, "%s:%d", alg->id, k);
        return buf;
    }
    if (alg->kind == KCAL_PARAM_STRIDE || q >= 3)
        return alg->id; /* j = 1, or the model's best k */
    return NULL;
}

int kcoll_node_call(kcoll_comm *c, kcal_coll coll, const char *spec,
                    const void *send, void *recv, size_t n, int root,
                    const kcoll_args *red, kcoll_ran *ran)
{
    kcoll_args a = {send, recv, n, root, 0, MPI_BYTE, MPI_OP_NULL, 1};
    if (red) {
        a.type = red->type;
        a.op = red->op;
        a.esize = red->esize;
    }
    return kcoll_intra(coll, c->node, spec, &a, ran);
}

/* kcoll_keep_first, under the short name this file's steps use. */
static void keep(int *rc, int step_rc)
{
    kcoll_keep_first(rc, step_rc);
}

static int node_step(const step *s, kcal_coll coll, const char *spec,
                     const void *send, void *recv, size_t n, int root,
                     kcoll_ran *ran)
{
    return kcoll_node_call(s->c, coll, spec, send, recv, n, root, NULL, ran);
}

/* An n-byte block as one element of extent n, for counts in blocks. */
static int block_type(size_t n, MPI_Datatype *t)
{
    MPI_Datatype bytes;
    int count;
    KCOLL_TRY(kcoll_bytes_type(n, kcoll_mpi_max_count, kcoll_mpi_piece,
                               &bytes, &count));
    if (bytes != MPI_BYTE) {
        *t = bytes; /* count 1: already one block */
        return MPI_SUCCESS;
    }
    KCOLL_TRY(MPI_Type_contiguous(count, MPI_BYTE, t));
    return MPI_Type_commit(t);
}

/* The leaders' part of gather, scatter and allgather: one Gatherv,
 * Scatterv or Allgatherv of the node blocks (q_m blocks of n bytes from or
 * to node m, at first[m] in the node-major buffer work) among the leaders
 * for root (root < 0: none). block: this leader's node block (gather,
 * scatter). */
static int leaders_step(kcoll_comm *c, kcoll_nodes *nd, MPI_Comm leaders,
                        kcal_coll coll, int root, char *work, char *block,
                        size_t n)
{
    MPI_Datatype t;
    KCOLL_TRY(block_type(n, &t));
    int q = nd->node_size, rc;
    int at_root = c->rank == root, rnode = root < 0 ? 0 : nd->node_of[root];
    if (coll == KCAL_COLL_GATHER)
        rc = MPI_Gatherv(at_root ? MPI_IN_PLACE : block, q, t, work,
                         nd->counts, nd->first, t, rnode, leaders);
    else if (coll == KCAL_COLL_SCATTER)
        rc = MPI_Scatterv(work, nd->counts, nd->first, t,
                          at_root ? MPI_IN_PLACE : block, q, t, rnode,
                          leaders);
    else
        rc = MPI_Allgatherv(MPI_IN_PLACE, 0, t, work, nd->counts, nd->first,
                            t, leaders);
    MPI_Type_free(&t);
    return rc;
}

void kcoll_nodes_reorder(const kcoll_nodes *nd, int p, char *dst,
                         const char *src, size_t n, int from_ranks)
{
    for (int i = 0; i < p; i++) {
        size_t at = (size_t)nd->members[i] * n, t = (size_t)i * n;
        if (from_ranks)
            kcal_copy(dst + t, src + at, n);
        else
            kcal_copy(dst + at, src + t, n);
    }
}

/* The leader's own part of a node-major buffer: node m's block. */
static char *node_block(const kcoll_nodes *nd, char *work, int m, size_t n)
{
    return work ? work + (size_t)nd->first[m] * n : NULL;
}

/* What a rooted call (gather, scatter) has at this process: its node's
 * leader, the leaders' communicator for the root, and the node-major
 * buffers: at the root work, the p blocks (the root's own buffer of p
 * blocks when that is rank order, else the communicator's scratch), and
 * block, its node's part of work; at another leader block, scratch for its
 * node's q blocks; NULL elsewhere. */
typedef struct {
    int lead;
    MPI_Comm leaders;
    char *work, *block;
} rooted;

/* user: the root's buffer of p blocks (gather's recvbuf, scatter's
 * sendbuf, read only). */
static int rooted_setup(const step *s, const kcoll_args *a, char *user,
                        rooted *r)
{
    kcoll_comm *c = s->c;
    kcoll_nodes *nd = s->nd;
    int me = c->rank, root = a->root, m = nd->my_node;
    size_t n = a->n, q = (size_t)nd->node_size;
    r->lead = kcoll_nodes_leader(nd, m, root);
    r->work = r->block = NULL;
    KCOLL_TRY(kcoll_nodes_leaders(c, nd, root, &r->leaders));
    if (me == root) {
        if (nd->contiguous)
            r->work = user;
        else if (!(r->work = kcoll_scratch(c, (size_t)c->size * n)))
            return MPI_ERR_NO_MEM;
        r->block = node_block(nd, r->work, m, n);
    } else if (me == r->lead && !(r->block = kcoll_scratch(c, q * n))) {
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

static int gather(const step *s, const kcoll_args *a)
{
    kcoll_comm *c = s->c;
    kcoll_nodes *nd = s->nd;
    int me = c->rank, root = a->root;
    size_t n = a->n;
    rooted r;
    KCOLL_TRY(rooted_setup(s, a, a->recvbuf, &r));
    const void *send = a->sendbuf;
    if (me == root && send == MPI_IN_PLACE && !nd->contiguous)
        send = (char *)a->recvbuf + (size_t)root * n;
    int rc = node_step(s, KCAL_COLL_GATHER, s->spec, send, r.block, n,
                       nd->local_of[r.lead], s->ran);
    if (me == r.lead)
        keep(&rc, leaders_step(c, nd, r.leaders, KCAL_COLL_GATHER, root,
                               r.work, r.block, n));
    if (me == root && !nd->contiguous)
        kcoll_nodes_reorder(nd, c->size, a->recvbuf, r.work, n, 0);
    return rc;
}

static int scatter(const step *s, const kcoll_args *a)
{
    kcoll_comm *c = s->c;
    kcoll_nodes *nd = s->nd;
    int me = c->rank, root = a->root;
    size_t n = a->n;
    rooted r;
    KCOLL_TRY(rooted_setup(s, a, (char *)a->sendbuf, &r));
    if (me == root && !nd->contiguous)
        kcoll_nodes_reorder(nd, c->size, r.work, a->sendbuf, n, 1);
    int rc = MPI_SUCCESS;
    if (me == r.lead)
        rc = leaders_step(c, nd, r.leaders, KCAL_COLL_SCATTER, root, r.work,
                          r.block, n);
    keep(&rc, node_step(s, KCAL_COLL_SCATTER, s->spec, r.block, a->recvbuf, n,
                        nd->local_of[r.lead], s->ran));
    return rc;
}

static int bcast(const step *s, const kcoll_args *a)
{
    kcoll_comm *c = s->c;
    kcoll_nodes *nd = s->nd;
    int lead = kcoll_nodes_leader(nd, nd->my_node, a->root);
    MPI_Comm leaders;
    KCOLL_TRY(kcoll_nodes_leaders(c, nd, a->root, &leaders));
    int rc = MPI_SUCCESS;
    if (c->rank == lead)
        rc = kcoll_mpi_bcast(a->recvbuf, a->n, nd->node_of[a->root], leaders);
    keep(&rc, node_step(s, KCAL_COLL_BCAST, s->spec, NULL, a->recvbuf, a->n,
                        nd->local_of[lead], s->ran));
    return rc;
}

static int allgather(const step *s, const kcoll_args *a)
{
    kcoll_comm *c = s->c;
    kcoll_nodes *nd = s->nd;
    int me = c->rank, m = nd->my_node;
    size_t n = a->n, p = (size_t)c->size;
    char *work = nd->contiguous ? a->recvbuf : kcoll_scratch(c, p * n);
    if (!work)
        return MPI_ERR_NO_MEM;
    const void *send = a->sendbuf;
    if (send == MPI_IN_PLACE && !nd->contiguous)
        send = (char *)a->recvbuf + (size_t)me * n;
    int rc = node_step(s, KCAL_COLL_ALLGATHER, s->spec, send,
                       node_block(nd, work, m, n), n, 0, s->ran);
    if (nd->node_rank == 0)
        keep(&rc, leaders_step(c, nd, nd->leaders, KCAL_COLL_ALLGATHER, -1,
                               work, NULL, n));
    /* The other nodes' blocks, before and after this node's, from the
     * leader: bcasts of the model's choice at this node's size. */
    size_t before = (size_t)nd->first[m] * n;
    size_t after = (size_t)nd->first[m + 1] * n;
    if (nd->node_size > 1) {
        if (before)
            keep(&rc, node_step(s, KCAL_COLL_BCAST, NULL, NULL, work, before,
                                0, NULL));
        if (after < p * n)
            keep(&rc, node_step(s, KCAL_COLL_BCAST, NULL, NULL, work + after,
                                p * n - after, 0, NULL));
    }
    if (!nd->contiguous)
        kcoll_nodes_reorder(nd, c->size, a->recvbuf, work, n, 0);
    return rc;
}

static int alltoall(const step *s, const kcoll_args *a)
{
    kcoll_comm *c = s->c;
    kcoll_nodes *nd = s->nd;
    int me = c->rank, m = nd->my_node, p = c->size;
    size_t n = a->n, q = (size_t)nd->node_size;
    int in_place = a->sendbuf == MPI_IN_PLACE;
    /* Scratch: the outgoing blocks set aside (in place: the receives
     * overwrite them), and the node's blocks packed in node order and
     * their results (when its ranks are not consecutive). */
    size_t aside = in_place ? (size_t)p * n : 0;
    size_t packed = nd->contiguous ? 0 : q * n;
    char *scratch = NULL;
    if (aside + 2 * packed && !(scratch = kcoll_scratch(c, aside + 2 * packed)))
        return MPI_ERR_NO_MEM;
    const char *src = a->sendbuf;
    char *dst = a->recvbuf;
    if (in_place) {
        kcal_copy(scratch, dst, aside);
        src = scratch;
    }
    MPI_Datatype t;
    int count, nreq = 0, rc;
    KCOLL_TRY(kcoll_bytes_type(n, kcoll_mpi_max_count, kcoll_mpi_piece, &t,
                               &count));
    int tag = kcoll_tag(c, 0);
    rc = MPI_SUCCESS;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int from = (me - i + p) % p;
        if (nd->node_of[from] != m)
            rc = MPI_Irecv(dst + (size_t)from * n, count, t, from, tag,
                           c->comm, &nd->reqs[nreq++]);
    }
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int to = (me + i) % p;
        if (nd->node_of[to] != m)
            rc = MPI_Isend(src + (size_t)to * n, count, t, to, tag, c->comm,
                           &nd->reqs[nreq++]);
    }
    const int *mine = nd->members + nd->first[m];
    if (nd->contiguous) {
        size_t at = (size_t)nd->first[m] * n;
        keep(&rc, node_step(s, KCAL_COLL_ALLTOALL, s->spec, src + at,
                            dst + at, n, 0, s->ran));
    } else {
        char *in = scratch + aside, *out = in + packed;
        for (size_t i = 0; i < q; i++)
            kcal_copy(in + i * n, src + (size_t)mine[i] * n, n);
        keep(&rc, node_step(s, KCAL_COLL_ALLTOALL, s->spec, in, out, n, 0,
                            s->ran));
        for (size_t i = 0; i < q; i++)
            kcal_copy(dst + (size_t)mine[i] * n, out + i * n, n);
    }
    if (nreq)
        keep(&rc, kcoll_waitall(nreq, nd->reqs));
    kcoll_bytes_type_free(&t);
    return rc;
}

int kcoll_two_level_run(kcoll_comm *c, kcal_coll coll,
                        const kcal_algorithm *alg, const kcoll_args *a,
                        kcoll_ran *ran)
{
    kcoll_nodes *nd;
    KCOLL_TRY(kcoll_nodes_get(c, &nd));
    char buf[80];
    step s = {c, nd, node_spec(alg, a->k, nd->node_size, buf, sizeof buf),
              ran};
    *ran = (kcoll_ran){NULL, 0, nd->node_size};
    switch (coll) {
    case KCAL_COLL_SCATTER:
        return scatter(&s, a);
    case KCAL_COLL_GATHER:
        return gather(&s, a);
    case KCAL_COLL_BCAST:
        return bcast(&s, a);
    case KCAL_COLL_ALLGATHER:
        return allgather(&s, a);
    case KCAL_COLL_ALLTOALL:
        return alltoall(&s, a);
    default:
        return kcoll_two_level_reduction(c, nd, coll, s.spec, a, ran);
    }
}
