/* two_level: the rows across nodes (two_level.h; docs/model.md "Across
 * nodes: the two-level rows"). Derived: the paper models one node; these
 * rows put its node rows (model.h's at p = ppn) together with the MPI
 * library's part between nodes, which this file models with the algorithm
 * stated next to each formula, in Hockney terms. With B = ppn·n, N = P/ppn,
 * L = ⌈lg N⌉, T_net(m) = net_alpha + m·net_beta:
 *
 *   two_level:<alg>, the node step <alg> at p = ppn (algos/two_level.c):
 *     gather, scatter  T_<coll>(alg, ppn, n) + L·net_alpha + (N−1)·B·net_beta
 *                      (the leaders' Gatherv/Scatterv as a binomial tree:
 *                      the root takes in N − 1 node blocks over L rounds)
 *     bcast            L·T_net(n) + T_bcast(alg, ppn, n)      (binomial)
 *     allgather        T_allgather(alg, ppn, n) + (N−1)·T_net(B)
 *                      + T_bcast(best, ppn, (P−ppn)·n)
 *                      (the leaders' Allgatherv as a ring; best: the
 *                      model's choice of bcast, as libkcoll's NULL)
 *     alltoall         max(T_alltoall(alg, ppn, n) [+ P·n·β in place],
 *                          net_alpha + (M−1)·net_gap + M·n·net_beta),
 *                      M = ppn·(P−ppn): every rank's blocks for the other
 *                      nodes leave through the node's link at once while
 *                      the node's own move by CMA
 *     allreduce        T_allreduce(alg, ppn, n) + L·(T_net(n) + R(n))
 *                      + T_bcast(best, ppn, n)
 *                      (the leaders' Allreduce as recursive doubling)
 *     reduce           T_reduce(alg, ppn, n) + L·(T_net(n) + R(n))
 *                      (the leaders' Reduce as a binomial tree)
 *     reduce_scatter_block  T_reduce(alg', ppn, P·n)
 *                      + (N−1)·(T_net(B) + R(B)) + T_scatter(best, ppn, n)
 *                      (alg': reduce's row of alg's id, else the model's
 *                      best reduce, as algos/two_level_reduce.c runs it;
 *                      the leaders' Reduce_scatter as a ring)
 *                      R(m) = m·ρ, the op (reduce_beta, else β)
 *   mpi_flat, the MPI library's collective over all P ranks, root 0, block
 *   mapping; a message between ranks of one node costs
 *   T_node(m) = sync_step + α + m·β (its control message and one CMA copy:
 *   a shared-memory transport with single-copy CMA):
 *     gather, scatter  binomial: Σ over d = 1, 2, 4, … < P of
 *                      T(min(d, P−d)·n), T = T_node for d < ppn, else T_net
 *     bcast            binomial: Σ over the same d of T(n)
 *     allgather        ring: (P−1)·T_net(n) (every step crosses nodes)
 *     allreduce, reduce  recursive doubling, a binomial tree: Σ over
 *                      d = 1, 2, 4, … < P of T(n) + R(n)
 *     reduce_scatter_block  recursive halving: Σ over the same d of
 *                      T(d·n) + R(d·n)
 *     alltoall         pairwise: Σ over i = 1 … P−1 of net_alpha +
 *                      (c_i−1)·net_gap + c_i·n·net_beta, where c_i =
 *                      max(0, min(ppn, P−i) − max(0, ppn−i)) ranks of a
 *                      node send off the node in step i (T_node(n) when
 *                      c_i = 0)
 */
#include "model/two_level.h"
#include "model/model_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kcal_net_get(const kcal_params *prm, kcal_net *net)
{
    const kcal_param *a = kcal_params_find_key(prm, KCAL_PK_net_alpha);
    const kcal_param *b = kcal_params_find_key(prm, KCAL_PK_net_beta);
    if (!a || !b || a->is_text || b->is_text)
        return -1;
    net->alpha = a->value;
    net->beta = b->value;
    net->gap = kcal_params_get_key(prm, KCAL_PK_net_gap, 0);
    return 0;
}

int kcal_two_level_layout_ok(long p, long ppn)
{
    return ppn >= 1 && ppn < p && p % ppn == 0;
}

static double terms_sum(const kcal_terms *t)
{
    return t->startup + t->copy + t->lock + t->sync;
}

/* `msgs` messages' start-ups, `gaps` gaps, `bytes` over the network. */
static void add_net(kcal_tl_prediction *o, const kcal_net *net, double msgs,
                    double gaps, double bytes)
{
    o->net_startup += msgs * net->alpha + gaps * net->gap;
    o->net_copy += bytes * net->beta;
}

/* T_node(m): a message of the MPI library between two ranks of a node. */
static void add_node_msg(kcal_tl_prediction *o, const kcal_params *prm,
                         double m)
{
    o->node_terms.sync += kcal_params_get_key(prm, KCAL_PK_sync_step, 0);
    o->node_terms.startup += prm->alpha;
    o->node_terms.copy += m * prm->beta;
}

/* The model's best c of n bytes at p ranks (what libkcoll's NULL runs),
 * added to t: 0, or -1 when no candidate is finite. */
static int add_best(kcal_model_kind model, const kcal_params *prm,
                    kcal_coll c, int p, uint64_t n, kcal_terms *t)
{
    kcal_choice ch;
    if (kcal_model_select(model, prm, c, p, n, 0, NULL, &ch))
        return -1;
    kcal_terms bt = {0, 0, 0, 0};
    if (kcal_model_is_mpi(ch.alg))
        bt.copy = ch.seconds; /* the MPI library's measured line */
    else
        kcal_model_time(model, prm, c, ch.alg, ch.k, p, n, 0, &bt);
    terms_add(t, &bt);
    return 0;
}

/* R(m): the op on m bytes, at reduce_beta (β for params without it), in
 * the node terms' copy column: the leader applies it. */
static void add_op(kcal_tl_prediction *o, const kcal_params *prm, double m)
{
    double rho = kcal_params_get_key(prm, KCAL_PK_reduce_beta, 0);
    o->node_terms.copy += m * (rho > 0 ? rho : prm->beta);
}

static void flat(const kcal_params *prm, const kcal_net *net, kcal_coll c,
                 int p, int ppn, uint64_t n, kcal_tl_prediction *o)
{
    double nb = (double)n;
    switch (c) {
    case KCAL_COLL_GATHER:
    case KCAL_COLL_SCATTER:
    case KCAL_COLL_BCAST:
        for (long d = 1; d < p; d *= 2) {
            double m = c == KCAL_COLL_BCAST
                           ? nb
                           : (double)(d < p - d ? d : p - d) * nb;
            if (d < ppn)
                add_node_msg(o, prm, m);
            else
                add_net(o, net, 1, 0, m);
        }
        break;
    case KCAL_COLL_ALLGATHER:
        add_net(o, net, p - 1, 0, (double)(p - 1) * nb);
        break;
    case KCAL_COLL_ALLREDUCE:
    case KCAL_COLL_REDUCE:
    case KCAL_COLL_REDUCE_SCATTER_BLOCK:
        for (long d = 1; d < p; d *= 2) {
            double m = c == KCAL_COLL_REDUCE_SCATTER_BLOCK ? (double)d * nb
                                                            : nb;
            if (d < ppn)
                add_node_msg(o, prm, m);
            else
                add_net(o, net, 1, 0, m);
            add_op(o, prm, m);
        }
        break;
    default:
        for (long i = 1; i < p; i++) {
            long hi = ppn < p - i ? ppn : p - i, lo = ppn - i > 0 ? ppn - i : 0;
            long ci = hi - lo > 0 ? hi - lo : 0;
            if (ci > 0)
                add_net(o, net, 1, (double)(ci - 1), (double)ci * nb);
            else
                add_node_msg(o, prm, nb);
        }
        break;
    }
}

/* two_level:<alg>: 0, or -1 when a node row is invalid; NaN/inf times
 * pass through. node: the setup of the node rows at ppn, or NULL. */
static int two_level(kcal_model_kind model, const kcal_params *prm,
                     const kcal_net *net, kcal_coll c,
                     const kcal_algorithm *alg, int k, int p, int ppn,
                     uint64_t n, int in_place, kcal_tl_prediction *o,
                     const kcal_call_setup *node)
{
    int nodes = p / ppn, lg = kcal_ceil_log2(nodes);
    double nb = (double)n, block = (double)ppn * nb;
    int node_in_place = c == KCAL_COLL_ALLTOALL ? 0 : in_place;
    if (c == KCAL_COLL_REDUCE_SCATTER_BLOCK) {
        /* The node step is a reduce of the P blocks to the first rank. */
        const kcal_algorithm *r =
            kcal_model_find_algorithm(KCAL_COLL_REDUCE, alg->id);
        uint64_t all = (uint64_t)p * n;
        if (r ? kcal_model_time_with(model, prm, KCAL_COLL_REDUCE, r, 0, ppn,
                                     all, 0, &o->node_terms, NULL, node) < 0
              : add_best(model, prm, KCAL_COLL_REDUCE, ppn, all,
                         &o->node_terms) < 0)
            o->node_terms.copy = NAN;
        if (ppn > 1 && add_best(model, prm, KCAL_COLL_SCATTER, ppn, n,
                                &o->node_terms) < 0)
            o->node_terms.copy = NAN;
        add_net(o, net, nodes - 1, 0, (double)(nodes - 1) * block);
        add_op(o, prm, (double)(nodes - 1) * block);
        return 0;
    }
    if (kcal_model_time_with(model, prm, c, alg, k, ppn, n, node_in_place,
                             &o->node_terms, NULL, node) < 0)
        return -1;
    switch (c) {
    case KCAL_COLL_ALLREDUCE:
    case KCAL_COLL_REDUCE:
        add_net(o, net, lg, 0, lg * nb);
        add_op(o, prm, lg * nb);
        if (c == KCAL_COLL_ALLREDUCE && ppn > 1 &&
            add_best(model, prm, KCAL_COLL_BCAST, ppn, n, &o->node_terms) < 0)
            o->node_terms.copy = NAN;
        break;
    case KCAL_COLL_GATHER:
    case KCAL_COLL_SCATTER:
        add_net(o, net, lg, 0, (double)(nodes - 1) * block);
        break;
    case KCAL_COLL_BCAST:
        add_net(o, net, lg, 0, lg * nb);
        break;
    case KCAL_COLL_ALLGATHER:
        add_net(o, net, nodes - 1, 0, (double)(nodes - 1) * block);
        if (ppn > 1 &&
            add_best(model, prm, KCAL_COLL_BCAST, ppn,
                     (uint64_t)(p - ppn) * n, &o->node_terms) < 0)
            o->node_terms.copy = NAN;
        break;
    default: {
        double msgs = (double)ppn * (p - ppn);
        if (in_place) /* the outgoing blocks set aside first */
            o->node_terms.copy += (double)p * nb * prm->beta;
        add_net(o, net, 1, msgs - 1, msgs * nb);
        o->overlap = 1;
        break;
    }
    }
    return 0;
}

/* kcal_two_level_time with the node rows' setup (NULL: made per row). */
static double row_time(kcal_model_kind model, const kcal_params *prm,
                       const kcal_net *net, kcal_coll c,
                       const kcal_algorithm *node, int k, int p, int ppn,
                       uint64_t n, int in_place, kcal_tl_prediction *out,
                       const kcal_call_setup *setup)
{
    kcal_tl_prediction o;
    memset(&o, 0, sizeof o);
    if (c < 0 || c >= KCAL_COLL_COUNT || !kcal_two_level_layout_ok(p, ppn) ||
        (node && node->coll != c))
        return -1;
    o.node = node;
    o.k = k;
    if (!node)
        flat(prm, net, c, p, ppn, n, &o);
    else if (two_level(model, prm, net, c, node, k, p, ppn, n, in_place,
                       &o, setup) < 0)
        return -1;
    double in = terms_sum(&o.node_terms), between = o.net_startup + o.net_copy;
    o.seconds = o.overlap ? (in > between ? in : between) : in + between;
    if (isnan(in) || isnan(between))
        o.seconds = NAN;
    if (out)
        *out = o;
    return o.seconds;
}

double kcal_two_level_time(kcal_model_kind model, const kcal_params *prm,
                           const kcal_net *net, kcal_coll c,
                           const kcal_algorithm *node, int k, int p, int ppn,
                           uint64_t n, int in_place, kcal_tl_prediction *out)
{
    return row_time(model, prm, net, c, node, k, p, ppn, n, in_place, out,
                    NULL);
}

/* Fastest first; equal times: the registry's order, then smaller k, then
 * mpi_flat. */
static int by_time(const void *va, const void *vb)
{
    const kcal_tl_prediction *a = va, *b = vb;
    if (a->seconds != b->seconds)
        return a->seconds < b->seconds ? -1 : 1;
    if (a->node != b->node) {
        if (!a->node || !b->node)
            return a->node ? -1 : 1;
        return a->node->index < b->node->index ? -1 : 1;
    }
    return (a->k > b->k) - (a->k < b->k);
}

long kcal_two_level_rank(kcal_model_kind model, const kcal_params *prm,
                         const kcal_net *net, kcal_coll c, int p, int ppn,
                         uint64_t n, int in_place, int only_k,
                         kcal_tl_prediction **out)
{
    *out = NULL;
    size_t na;
    const kcal_algorithm *algs = kcal_model_algorithms(c, &na);
    if (!algs || !kcal_two_level_layout_ok(p, ppn))
        return -1;
    size_t cap = na * (size_t)(ppn > 2 ? ppn : 2) + 1, count = 0;
    kcal_tl_prediction *rows = calloc(cap, sizeof *rows);
    if (!rows)
        return -1;
    kcal_call_setup node; /* every row's node step: one call at ppn */
    kcal_model_call_setup(&node, prm, model, ppn);
    for (size_t i = 0; i < na; i++) {
        const kcal_algorithm *a = &algs[i];
        int lo = 0, hi = 0; /* the k to list */
        if (a->kind == KCAL_PARAM_STRIDE) {
            lo = hi = 1;
        } else if (a->kind == KCAL_PARAM_THROTTLE) {
            lo = only_k > 0 ? only_k : 2;
            hi = only_k > 0 ? only_k : ppn - 1;
            if (!kcal_model_k_valid(a, ppn, lo))
                continue;
        }
        for (int k = lo; k <= hi; k++)
            if (!(row_time(model, prm, net, c, a, k, p, ppn, n, in_place,
                           &rows[count], &node) < 0))
                count++; /* NaN and inf rows stay: the caller refuses them */
    }
    row_time(model, prm, net, c, NULL, 0, p, ppn, n, in_place,
             &rows[count++], NULL);
    qsort(rows, count, sizeof *rows, by_time);
    for (size_t i = 0; i < count; i++)
        rows[i].rank = i > 0 && rows[i].seconds == rows[i - 1].seconds
                           ? rows[i - 1].rank
                           : (int)i + 1;
    *out = rows;
    return (long)count;
}

const char *kcal_two_level_name(const kcal_tl_prediction *pr, char *buf,
                                size_t len)
{
    if (pr->node)
        snprintf(buf, len, "two_level:%s", pr->node->id);
    else
        snprintf(buf, len, "mpi_flat");
    return buf;
}
