/* irregular: the public entry points of the v-collectives (kcoll.h). A
 * call gets the communicator's state, checks its arguments, resolves
 * MPI_IN_PLACE and overlapping receive regions into the plain arguments
 * the algorithms take (irregular.h, vargs.c), asks choice.c what may
 * run, and runs the algorithm (algos/irregular.def: scatterv.c,
 * gatherv.c, allgatherv.c, alltoallv.c; the rooted two's protocols in
 * vrooted.c; their message steps in vsteps.c; the rows' table in
 * vrows.c) or the MPI library's
 * v-collective.
 *
 * What algorithm NULL runs, decided alike on every rank without a message
 * of its own (a scatterv's non-root knows only its own count, an
 * alltoallv's rank only its row and column):
 *   - scatterv, gatherv, alltoallv: the collective's first row, with each
 *     pair deciding for itself: a block in the staged range (from the
 *     regular collective's measured crossover, mpi_<coll>_below, to at
 *     most 4 KiB) goes through the staging areas (vstaged.c), a shorter
 *     one as one MPI message, a longer one (up to the model's crossover
 *     for a pair: a message) by CMA. Both ends of a pair know its count,
 *     so they agree.
 *   - allgatherv: every rank knows every count, so the whole call is
 *     decided by its largest block: the MPI library's below allgather's
 *     measured crossover, copy_in_out (the staged row) from there to at
 *     most 4 KiB on one node (choice.h's kcoll_choice_irregular), else
 *     source_read_flags (source_read across nodes).
 * Across nodes (or virtual nodes) the pairs whose ends share a node where
 * CMA works move as above; the others go as MPI messages whatever their
 * size (irregular.h's kcoll_v_by_message): both ends know whether they
 * share one. A $KCOLL_TABLE rule of the v-collective at the call's p
 * replaces the crossover and names the row (tuned.h: kcal_table_vchoice);
 * rank 0 decides both on the first NULL call and broadcasts them
 * (choice.c), so every rank runs the same protocol. Once it has, a
 * process whose pairs all go as messages sends them and nothing else
 * (short_way below).
 * On one node a NULL call is verified at run time as the regular
 * collectives' are (verify.h, verified() below): the static decision above
 * is its first candidate (for scatterv, gatherv and alltoallv the whole
 * per-pair rule), the other rows (every block by the row) and the MPI
 * library's v-collective are measured on a size class's first calls,
 * and the fastest stays. The class is that of the call's key:
 * allgatherv's largest block, which every rank knows; for the other
 * three, where no rank knows every count, the largest block any rank
 * moves as a MAX reduction last agreed it, reused across calls and
 * agreed again at counts of calls every rank shares (vkey.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "algos/choice.h"
#include "algos/config.h"
#include "algos/irregular.h"
#include "algos/nodes.h"
#include "algos/stats.h"
#include "algos/verify.h"
#include "algos/vhelp.h"
#include "algos/vkey.h"
#include "algos/vrows.h"
#include "model/irregular.h"

/* ---- one call ----------------------------------------------------------- */

/* The MPI library's v-collective on c->comm: counts and displacements
 * must fit an int (MPI's own), else MPI_ERR_COUNT at this process. The
 * in-place forms go back to MPI_IN_PLACE. */
static int to_int(const size_t *v, int p, int *out)
{
    for (int i = 0; i < p; i++) {
        if (v[i] > (size_t)INT32_MAX)
            return MPI_ERR_COUNT;
        out[i] = (int)v[i];
    }
    return MPI_SUCCESS;
}

static int run_mpi(kcoll_comm *c, kcoll_vcoll v, const kcoll_vargs *a)
{
    int p = c->size, me = c->rank, rc = MPI_SUCCESS;
    int *iv = kcoll_v_work(c, KCOLL_VWORK_INT, sizeof *iv * 4 * (size_t)p);
    if (!iv)
        return MPI_ERR_NO_MEM;
    int *sc = iv, *sd = iv + p, *rcn = iv + 2 * p, *rd = iv + 3 * p;
    int one_s = a->scount <= (size_t)INT32_MAX ? (int)a->scount : -1;
    int one_r = a->rcount <= (size_t)INT32_MAX ? (int)a->rcount : -1;
    if (a->scounts && rc == MPI_SUCCESS)
        rc = to_int(a->scounts, p, sc);
    if (a->sdispls && rc == MPI_SUCCESS)
        rc = to_int(a->sdispls, p, sd);
    if (a->rcounts && rc == MPI_SUCCESS)
        rc = to_int(a->rcounts, p, rcn);
    if (a->rdispls && rc == MPI_SUCCESS)
        rc = to_int(a->rdispls, p, rd);
    if (rc == MPI_SUCCESS && (one_s < 0 || one_r < 0))
        rc = MPI_ERR_COUNT;
    if (rc != MPI_SUCCESS)
        return rc;
    const void *sb = a->in_place ? MPI_IN_PLACE : a->sendbuf;
    switch (v) {
    case KCOLL_VCOLL_SCATTERV:
        rc = MPI_Scatterv(a->sendbuf, sc, sd, MPI_BYTE,
                          me == a->root && a->in_place ? MPI_IN_PLACE
                                                       : a->recvbuf,
                          one_r, MPI_BYTE, a->root, c->comm);
        break;
    case KCOLL_VCOLL_GATHERV:
        rc = MPI_Gatherv(me == a->root ? sb : a->sendbuf, one_s, MPI_BYTE,
                         a->recvbuf, rcn, rd, MPI_BYTE, a->root, c->comm);
        break;
    case KCOLL_VCOLL_ALLGATHERV:
        rc = MPI_Allgatherv(sb, one_s, MPI_BYTE, a->recvbuf, rcn, rd,
                            MPI_BYTE, c->comm);
        break;
    default:
        rc = MPI_Alltoallv(a->sendbuf, sc, sd, MPI_BYTE, a->recvbuf, rcn, rd,
                           MPI_BYTE, c->comm);
    }
    return rc;
}

/* Each rank's pid where CMA reaches it, else 0 (irregular.h): c->pids on
 * one node; across nodes this node's ranks' pids from the node's own
 * state, made once per communicator (collective over c->comm and the
 * node's communicator: every rank of the call gets here alike). */
static int reach(kcoll_comm *c, const pid_t **out)
{
    if (!c->spans_nodes) {
        *out = c->pids;
        return MPI_SUCCESS;
    }
    if (!c->reach) {
        kcoll_nodes *nd;
        kcoll_comm *node;
        KCOLL_TRY(kcoll_nodes_get(c, &nd));
        KCOLL_TRY(kcoll_comm_get(c->node, &node));
        pid_t *r = calloc((size_t)c->size, sizeof *r);
        if (!r)
            return MPI_ERR_NO_MEM;
        int usable = !node->no_state && node->cma_ok && node->pids;
        for (int q = 0; q < c->size && usable; q++)
            if (nd->node_of[q] == nd->my_node)
                r[q] = node->pids[nd->local_of[q]];
        c->reach = r;
    }
    *out = c->reach;
    return MPI_SUCCESS;
}

/* At p = 1: the own block, copied unless in place. */
static int run_local(kcoll_vcoll v, const kcoll_vargs *a)
{
    if (a->in_place)
        return MPI_SUCCESS;
    size_t sn = v == KCOLL_VCOLL_SCATTERV || v == KCOLL_VCOLL_ALLTOALLV
                    ? a->scounts[0]
                    : a->scount;
    size_t rn = v == KCOLL_VCOLL_SCATTERV ? a->rcount : a->rcounts[0];
    const char *from = a->sendbuf + (a->sdispls ? a->sdispls[0] : 0);
    char *to = a->recvbuf + (a->rdispls ? a->rdispls[0] : 0);
    if (sn != rn)
        return MPI_ERR_TRUNCATE;
    kcal_copy(to, from, rn);
    return MPI_SUCCESS;
}

/* Bytes of the call at this process, for KCOLL_STATS: the p-block side's
 * total where this process has one, else its own block. */
static uint64_t stats_bytes(kcoll_vcoll v, const kcoll_vargs *a, int p,
                            int me)
{
    const size_t *many = v == KCOLL_VCOLL_SCATTERV ? a->scounts : a->rcounts;
    if (v == KCOLL_VCOLL_SCATTERV && me != a->root)
        return a->rcount;
    if (v == KCOLL_VCOLL_GATHERV && me != a->root)
        return a->scount;
    uint64_t t = 0;
    for (int i = 0; i < p; i++)
        t += many[i];
    return t;
}

/* A windowed row named without its window, at the root: the model's
 * choice at the mean of the root's blocks to or from its peers. */
static int root_window(kcoll_comm *c, kcoll_vcoll v, const kcoll_vargs *a)
{
    const size_t *many = v == KCOLL_VCOLL_SCATTERV ? a->scounts : a->rcounts;
    uint64_t total = 0;
    for (int r = 0; r < c->size; r++)
        total += r == a->root ? 0 : many[r];
    return kcoll_choice_vwindow(c, kcoll_v_regular(v),
                                total / (uint64_t)(c->size - 1));
}

/* At the root of a NULL scatterv or gatherv: the help policy for this
 * call (vhelp.h) into a->split_from, keyed by the largest pair it moves
 * by CMA and its own block; the policy, or -1 for another process or
 * collective, or a call with no CMA pair. *slot: what to time. */
static int root_help(kcoll_comm *c, kcoll_vcoll v, kcoll_vargs *a,
                     void **slot)
{
    *slot = NULL;
    int out = v == KCOLL_VCOLL_SCATTERV;
    if ((!out && v != KCOLL_VCOLL_GATHERV) || c->rank != a->root)
        return -1;
    const size_t *many = out ? a->scounts : a->rcounts;
    uint64_t most = 0;
    for (int r = 0; r < c->size; r++)
        if (r != a->root && !kcoll_v_by_message(a, r, many[r]) &&
            many[r] > most)
            most = many[r];
    if (most == 0)
        return -1;
    uint64_t own = a->in_place ? 0 : out ? a->scounts[a->root] : a->scount;
    kcoll_vhelp_policy p = kcoll_vhelp_choose(c, (int)v, most, own, slot);
    a->split_from = kcoll_vhelp_split_from(p);
    return (int)p;
}

/* Each v-collective's staged row (irregular.def's KCOLL_VSTAGED), found
 * once: NULL where it has none. */
static const char *const staged_id[KCOLL_VCOLL_COUNT] = {
#define KCOLL_VSTAGED(VCOLL, id) [KCOLL_VCOLL_##VCOLL] = #id,
#include "algos/irregular.def"
};

static const kcoll_vrow *staged_rows[KCOLL_VCOLL_COUNT];

static void find_staged(void)
{
    for (int v = 0; v < KCOLL_VCOLL_COUNT; v++) {
        int w;
        if (!staged_id[v] ||
            kcoll_vrow_find((kcoll_vcoll)v, staged_id[v], 2, &staged_rows[v], &w))
            staged_rows[v] = NULL;
    }
}

static const kcoll_vrow *staged_row(kcoll_vcoll v)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_staged);
    return staged_rows[v];
}

/* NULL's allgatherv rule, from the largest block (every rank knows every
 * count): the staged row where it lies in the staged range (one node),
 * else the MPI library's whole call below the crossover, else the first
 * row. The staged row, *use_mpi, or neither (the first row). */
static uint64_t largest_block(const kcoll_comm *c, const kcoll_vargs *a)
{
    return kcoll_vkey_mine(KCOLL_VCOLL_ALLGATHERV, NULL, 0, a->rcounts, 0, 0,
                           c->rank, c->size);
}

static const kcoll_vrow *allgatherv_rule(const kcoll_comm *c,
                                         const kcoll_vargs *a,
                                         uint64_t below, int *use_mpi)
{
    uint64_t most = largest_block(c, a);
    kcoll_vcoll v = KCOLL_VCOLL_ALLGATHERV;
    *use_mpi = 0;
    if (!c->spans_nodes && c->vstaged_to[v] && most >= c->vstaged_from[v] &&
        most <= c->vstaged_to[v])
        return staged_row(v);
    *use_mpi = most < below;
    return NULL;
}

/* NULL's staged pairs of a call (vstaged.c), first: *rest 0 where this
 * process has nothing else to do (a rooted call's staged peer). Points
 * a's counts at copies without the staged pairs, for the row that runs
 * the rest; unstage() puts them back. */
static int stage(kcoll_comm *c, kcoll_vcoll v, kcoll_vargs *a, int *rest)
{
    *rest = 1;
    if (v == KCOLL_VCOLL_ALLTOALLV)
        return kcoll_alltoallv_stage(c, a);
    if (v == KCOLL_VCOLL_SCATTERV || v == KCOLL_VCOLL_GATHERV)
        return kcoll_v_rooted_stage(c, a, v == KCOLL_VCOLL_SCATTERV, rest);
    return MPI_SUCCESS;
}

static void unstage(kcoll_vargs *a, const size_t *scounts,
                    const size_t *rcounts)
{
    a->scounts = scounts;
    a->rcounts = rcounts;
}

/* The short way of a NULL call on one node, once the communicator's
 * decision for v is known (choice.c) and KCOLL_STATS is off: where the
 * decision is the MPI library's whole call, that call; where every pair
 * of this process goes as an MPI message (allgatherv: every block below
 * the crossover, which every rank knows), those messages alone
 * (kcoll_v_rooted_messages, kcoll_alltoallv_messages): the very messages
 * every row's protocol sends for such pairs, so a peer on the full path
 * meets them. 0 where the full path must run, else 1 and the call's
 * result in *rc.
 *
 * Why: at p = 2 and 1-2 KiB blocks the MPI library's v-collectives take
 * 0.35-0.6 us on the Zen 4 guest, and the full path's choice, help, row
 * and work-array steps added 60-130 ns (auto 0.79-1.00x the MPI library
 * for scatterv, gatherv and alltoallv); this path adds 10-40 ns
 * (0.93-1.03x; docs/machine.md, "The v-collectives' short way"). */
static int short_way(kcoll_comm *c, kcoll_vcoll v, kcoll_vargs *a,
                     int *rc)
{
    if (c->no_state || c->spans_nodes || !c->cma_ok || c->size < 2 ||
        !(c->vbelow_known & (1u << v)) || kcoll_stats_on())
        return 0;
    if ((c->vmpi >> v) & 1u) {
        *rc = run_mpi(c, v, a);
        return 1;
    }
    a->below = c->vbelow[v];
    a->pids = c->pids;
    int me = c->rank, p = c->size;
    if (v == KCOLL_VCOLL_ALLGATHERV) {
        int use_mpi;
        const kcoll_vrow *st = allgatherv_rule(c, a, a->below, &use_mpi);
        if (st) {
            a->below = 0;
            c->seq++;
            *rc = st->fn(c, a);
            return 1;
        }
        if (!use_mpi)
            return 0;
        *rc = run_mpi(c, v, a);
        return 1;
    }
    int out = v == KCOLL_VCOLL_SCATTERV;
    a->staged_from = c->vstaged_from[v]; /* staged pairs (vstaged.c) */
    a->staged_to = c->vstaged_to[v];
    if (v == KCOLL_VCOLL_ALLTOALLV) {
        int stages = kcoll_alltoallv_stages(p);
        for (int i = 0; i < p; i++)
            if (i != me &&
                ((a->scounts[i] &&
                  !(stages && kcoll_v_staged(a, i, a->scounts[i])) &&
                  !kcoll_v_by_message(a, i, a->scounts[i])) ||
                 (a->rcounts[i] &&
                  !(stages && kcoll_v_staged(a, i, a->rcounts[i])) &&
                  !kcoll_v_by_message(a, i, a->rcounts[i]))))
                return 0;
    } else if (me != a->root) {
        size_t n = out ? a->rcount : a->scount;
        if (n && !kcoll_v_staged(a, a->root, n) &&
            !kcoll_v_by_message(a, a->root, n))
            return 0;
    } else {
        const size_t *many = out ? a->scounts : a->rcounts;
        for (int i = 0; i < p; i++)
            if (i != me && many[i] && !kcoll_v_staged(a, i, many[i]) &&
                !kcoll_v_by_message(a, i, many[i]))
                return 0;
    }
    c->seq++;
    const size_t *sc = a->scounts, *rn = a->rcounts;
    int rest;
    *rc = stage(c, v, a, &rest);
    if (rest) {
        int more = v == KCOLL_VCOLL_ALLTOALLV
                       ? kcoll_alltoallv_messages(c, a)
                       : kcoll_v_rooted_messages(c, a, out);
        *rc = *rc != MPI_SUCCESS ? *rc : more;
    }
    unstage(a, sc, rn);
    return 1;
}

/* The row that stands for NULL's static decision of a scatterv, gatherv
 * or alltoallv (a $KCOLL_TABLE rule's, else the collective's first):
 * as a verified candidate it runs the static path (static_call), with
 * its per-pair hand-off, staged pairs and the root's help. */
static const kcoll_vrow *static_row(const kcoll_comm *c, kcoll_vcoll v)
{
    return kcoll_vrow_nth(v, c->vrow[v] >= 0 ? c->vrow[v] : 0);
}

static int full_path(kcoll_comm *c, kcoll_vcoll v, const char *algorithm,
                     kcoll_vargs *a, int bad);

/* NULL's static decision for this call: the short way where it applies,
 * else the full path. */
static int static_call(kcoll_comm *c, kcoll_vcoll v, kcoll_vargs *a)
{
    int rc;
    if (short_way(c, v, a, &rc))
        return rc;
    return full_path(c, v, NULL, a, MPI_SUCCESS);
}

/* One call of a verified decision (verified()): the MPI library's call
 * (alg NULL); for scatterv, gatherv and alltoallv the static decision
 * where alg stands for its row; else the row alg stands for
 * (kcoll_vrow_of_regular), every block by it. *counted: the call has
 * added its own KCOLL_STATS row (the static path names its parts). */
static int run_decided(kcoll_comm *c, kcoll_vcoll v, kcoll_vargs *a,
                       const kcal_algorithm *alg, int *counted)
{
    *counted = 0;
    if (!alg)
        return run_mpi(c, v, a);
    /* By the regular row: a table's windowed row stands on its parallel
     * one, as its candidate does (choice.c). */
    const kcoll_vrow *st = static_row(c, v);
    if (v != KCOLL_VCOLL_ALLGATHERV && st &&
        kcoll_vrow_regular(st) == alg) {
        *counted = kcoll_stats_on();
        return static_call(c, v, a);
    }
    const kcoll_vrow *row = kcoll_vrow_of_regular(v, alg);
    if (!row)
        return MPI_ERR_INTERN;
    a->below = 0;
    a->pids = c->pids;
    c->seq++;
    return row->fn(c, a);
}

/* The size key of this verified call, the same on every rank:
 * allgatherv's largest block (every rank knows every count), the
 * others' agreed one (vkey.h). */
static int call_key(kcoll_comm *c, kcoll_vcoll v, const kcoll_vargs *a,
                    uint64_t *key)
{
    if (v == KCOLL_VCOLL_ALLGATHERV) {
        *key = largest_block(c, a);
        kcoll_vkey_note(c, (int)v, *key);
        return MPI_SUCCESS;
    }
    uint64_t mine = kcoll_vkey_mine((int)v, a->scounts, a->scount,
                                    a->rcounts, a->rcount, a->root, c->rank,
                                    c->size);
    /* The current key's decided time spaces the agreements. */
    double call_s = kcoll_verify_call_time(kcoll_verify_slot_dom(
        c, KCOLL_VERIFY_VDOM(v), kcoll_vkey_last(c, (int)v), 0));
    return kcoll_vkey_agree(c, (int)v, mine, call_s, key);
}

/* A NULL v-collective on one node, its choice verified at run time as
 * the regular collectives' is (verify.h), in the size class of its key
 * (call_key: allgatherv's largest block; the others' agreed largest
 * pair, vkey.h), never in place for the per-pair three (only their root
 * knows it). The candidates: the static decision (allgatherv: its
 * table's or first row for every block; the others: the whole static
 * path, static_call), the other rows for every block (allgatherv's
 * staged row too, at any size) and the MPI library's v-collective, each
 * measured on the class's first calls, the fastest kept. 0 where that
 * does not apply (KCOLL_VERIFY=0, across nodes, no state or CMA, p = 1,
 * a key of empty blocks, the static decision the MPI library's whole
 * call: params or a table that do not read), else 1 and the call's
 * result in *rc. The first NULL call makes the static decision first
 * (choice.c, collective), whose table row is the first candidate. */
static int verified(kcoll_comm *c, kcoll_vcoll v, kcoll_vargs *a, int *rc)
{
    if (c->no_state || c->spans_nodes || !c->cma_ok || c->size < 2 ||
        !kcoll_config_number(KCOLL_CFG_VERIFY))
        return 0;
    if (!(c->vbelow_known & (1u << v))) {
        kcoll_vdecision d;
        *rc = kcoll_choice_irregular(c, (int)v, kcoll_v_name(v), 0, &d);
        /* The static path's staged pairs use the areas at their ends
         * alone: every process makes them now, as every one is here. */
        if (*rc == MPI_SUCCESS && v != KCOLL_VCOLL_ALLGATHERV &&
            !((c->vmpi >> v) & 1u) && c->vstaged_to[v])
            *rc = kcoll_staging_ready(c);
        if (*rc != MPI_SUCCESS)
            return 1;
    }
    if ((c->vmpi >> v) & 1u)
        return 0;
    uint64_t most;
    if ((*rc = call_key(c, v, a, &most)) != MPI_SUCCESS)
        return 1;
    if (!most)
        return 0;
    int in_place = v == KCOLL_VCOLL_ALLGATHERV && a->in_place;
    int dom = KCOLL_VERIFY_VDOM(v), stats = kcoll_stats_on(), counted;
    kcoll_verify_slot *s = kcoll_verify_slot_dom(c, dom, most, in_place);
    const kcoll_verify_hot *h = s && !stats ? kcoll_verify_quiet(s) : NULL;
    if (h && !KCOLL_TEST_HOOKS_ON) {
        *rc = run_decided(c, v, a, h->is_mpi ? NULL : h->alg, &counted);
        return 1;
    }
    double st0 = stats ? kcoll_stats_now() : 0;
    kcoll_plan plan;
    if (h) {
        plan = kcoll_verify_hot_plan(h);
    } else {
        *rc = kcoll_verify_plan_dom(c, dom, most, in_place, &plan);
        if (*rc != MPI_SUCCESS)
            return 1;
    }
    double t0;
    if ((*rc = kcoll_choice_start(c, dom, &plan, &t0)) != MPI_SUCCESS)
        return 1;
    const kcal_algorithm *alg = plan.kind == KCOLL_PLAN_MPI ? NULL : plan.alg;
    int crc = kcoll_choice_finish(c, dom, &plan, most, t0,
                                  run_decided(c, v, a, alg, &counted));
    if (stats && !counted) {
        const kcoll_vrow *row = alg ? kcoll_vrow_of_regular(v, alg) : NULL;
        kcoll_stats_add_named(kcoll_v_name(v), row ? row->id : "mpi", 0,
                              stats_bytes(v, a, c->size, c->rank),
                              kcoll_stats_now() - st0);
    }
    *rc = crc;
    return 1;
}

/* A checked call: a's arrays are those this process uses, its in-place
 * forms resolved; bad is this process's own error to return after taking
 * part (overlapping receive regions). */
static int vcall(kcoll_comm *c, kcoll_vcoll v, const char *algorithm,
                 kcoll_vargs *a, int bad)
{
    int rc;
    if (!algorithm && (verified(c, v, a, &rc) || short_way(c, v, a, &rc)))
        return rc != MPI_SUCCESS ? rc : bad;
    return full_path(c, v, algorithm, a, bad);
}

/* The call as a named row, a table's or NULL's static rule makes it. */
static int full_path(kcoll_comm *c, kcoll_vcoll v, const char *algorithm,
                     kcoll_vargs *a, int bad)
{
    int rc;
    int help = -1; /* the root's help policy, where it measured one */
    int stats = kcoll_stats_on();
    double t0 = stats ? kcoll_stats_now() : 0;
    const kcoll_vrow *alg;
    int window, use_mpi = 0;
    rc = kcoll_vrow_find(v, algorithm, c->size, &alg, &window);
    uint64_t below = 0;
    KCOLL_TRY(rc);
    if (c->size == 1 && !c->no_state) {
        rc = run_local(v, a);
    } else {
        kcoll_vdecision d = {1, 0, -1, 0};
        if (alg)
            KCOLL_TRY(kcoll_choice_irregular(c, (int)v, kcoll_v_name(v),
                                             algorithm != NULL, &d));
        use_mpi = d.use_mpi;
        below = d.below;
        if (d.row >= 0) { /* a $KCOLL_TABLE rule's row and window */
            alg = kcoll_vrow_nth(v, d.row);
            window = alg && alg->windowed && d.window <= c->size - 1
                         ? d.window
                         : 0;
            if (!alg) { /* no such row here: the MPI library's call, */
                use_mpi = 1;
                c->vmpi |= 1u << v; /* from now on at once (short_way) */
            }
        }
        if (!use_mpi && !algorithm && v == KCOLL_VCOLL_ALLGATHERV) {
            const kcoll_vrow *st = allgatherv_rule(c, a, below, &use_mpi);
            if (st)
                alg = st;
            below = 0;
        }
        a->below = below;
        if (!algorithm && !use_mpi && v != KCOLL_VCOLL_ALLGATHERV &&
            !c->spans_nodes && c->vstaged_to[v]) {
            /* Only the ends of staged pairs use the areas: every process
             * makes them now, on NULL's first call, as all take this
             * path then (vbelow_known unset). */
            KCOLL_TRY(kcoll_staging_ready(c));
            a->staged_from = c->vstaged_from[v];
            a->staged_to = c->vstaged_to[v];
        }
        a->split_from = algorithm ? 0 : KCOLL_V_HELP_MIN;
        if (!use_mpi && alg->windowed && c->rank == a->root)
            a->window = window ? window : root_window(c, v, a);
        if (!use_mpi)
            KCOLL_TRY(reach(c, &a->pids));
        if (use_mpi) {
            rc = run_mpi(c, v, a);
        } else {
            c->seq++;
            /* NULL's staged pairs first (vstaged.c): a rooted call's
             * peer with one is done, the root and alltoallv's ranks run
             * the row for the other pairs. */
            const size_t *sc = a->scounts, *rn = a->rcounts;
            int rest;
            rc = stage(c, v, a, &rest);
            /* NULL's root measures whether its help pays (vhelp.h), for
             * the first row (the *_split form) only: a table's other row
             * takes no help. */
            void *hslot = NULL;
            if (rest && !algorithm && !c->spans_nodes && alg == kcoll_vrow_nth(v, 0))
                help = root_help(c, v, a, &hslot);
            double t0 = hslot ? kcoll_verify_clock() : 0;
            if (rest) {
                int more = alg->fn(c, a);
                rc = rc != MPI_SUCCESS ? rc : more;
            }
            if (hslot)
                kcoll_vhelp_observe(hslot, kcoll_verify_clock() - t0);
            unstage(a, sc, rn);
        }
    }
    if (stats) {
        /* Named only here: a snprintf per call was a third of libkcoll's
         * own time in a 1 KiB alltoallv. */
        char name[KCOLL_STATS_NAME];
        if (c->size == 1 && !c->no_state)
            snprintf(name, sizeof name, "local");
        else if (use_mpi)
            snprintf(name, sizeof name, "mpi");
        else {
            /* NULL's rooted root says its help policy, a windowed
             * row's root its window. */
            char how[40] = "";
            if (help >= 0) /* at the root, which alone decides them */
                snprintf(how, sizeof how, "(help:%s)",
                         kcoll_vhelp_name((kcoll_vhelp_policy)help));
            else if (a->window)
                snprintf(how, sizeof how, ":%d", a->window);
            /* NULL's staged range (scatterv, gatherv, alltoallv) */
            char staged[32] = "";
            if (a->staged_to && !algorithm)
                snprintf(staged, sizeof staged, "+staged<=%llu",
                         (unsigned long long)a->staged_to);
            if (below)
                snprintf(name, sizeof name, "%s%s%s+msg<%llu", alg->id, how,
                         staged, (unsigned long long)below);
            else
                snprintf(name, sizeof name, "%s%s%s", alg->id, how, staged);
        }
        kcoll_stats_add_named(kcoll_v_name(v), name, 0,
                              stats_bytes(v, a, c->size, c->rank),
                              kcoll_stats_now() - t0);
    }
    return rc != MPI_SUCCESS ? rc : bad;
}

/* The state of comm and, for a rooted call, its root checked. */
static int state(MPI_Comm comm, int rooted, int root, kcoll_comm **c)
{
    KCOLL_TRY(kcoll_comm_get(comm, c));
    if (rooted && (root < 0 || root >= (*c)->size))
        return MPI_ERR_ROOT;
    return MPI_SUCCESS;
}

int kcoll_scatterv(const void *sendbuf, const size_t *sendcounts,
                   const size_t *displs, void *recvbuf, size_t recvcount,
                   int root, MPI_Comm comm, const char *algorithm)
{
    kcoll_comm *c;
    KCOLL_TRY(state(comm, 1, root, &c));
    int is_root = c->rank == root;
    if (is_root && (!sendcounts || !displs || sendbuf == MPI_IN_PLACE))
        return MPI_ERR_ARG;
    if (!is_root && recvbuf == MPI_IN_PLACE)
        return MPI_ERR_BUFFER;
    int in_place = is_root && recvbuf == MPI_IN_PLACE;
    kcoll_vargs a = {.sendbuf = is_root ? sendbuf : NULL,
                     .scounts = is_root ? sendcounts : NULL,
                     .sdispls = is_root ? displs : NULL,
                     .recvbuf = in_place ? NULL : recvbuf,
                     .rcount = in_place ? sendcounts[root] : recvcount,
                     .root = root,
                     .in_place = in_place};
    return vcall(c, KCOLL_VCOLL_SCATTERV, algorithm, &a, MPI_SUCCESS);
}

int kcoll_gatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                  const size_t *recvcounts, const size_t *displs, int root,
                  MPI_Comm comm, const char *algorithm)
{
    kcoll_comm *c;
    KCOLL_TRY(state(comm, 1, root, &c));
    int is_root = c->rank == root, bad = MPI_SUCCESS;
    if (is_root && (!recvcounts || !displs))
        return MPI_ERR_ARG;
    if (!is_root && sendbuf == MPI_IN_PLACE)
        return MPI_ERR_BUFFER;
    int in_place = is_root && sendbuf == MPI_IN_PLACE;
    kcoll_vargs a = {.sendbuf = in_place ? (const char *)recvbuf +
                                               displs[root]
                                         : sendbuf,
                     .scount = in_place ? recvcounts[root] : sendcount,
                     .recvbuf = is_root ? recvbuf : NULL,
                     .rcounts = is_root ? recvcounts : NULL,
                     .rdispls = is_root ? displs : NULL,
                     .root = root,
                     .in_place = in_place};
    kcoll_vspare s = {NULL, NULL};
    int rc = is_root ? kcoll_v_divert(&a, c->size, &s, &bad) : MPI_SUCCESS;
    if (bad != MPI_SUCCESS)
        a.in_place = 0; /* the own block goes into the scratch too */
    if (rc == MPI_SUCCESS)
        rc = vcall(c, KCOLL_VCOLL_GATHERV, algorithm, &a, bad);
    kcoll_vspare_free(&s);
    return rc;
}

int kcoll_allgatherv(const void *sendbuf, size_t sendcount, void *recvbuf,
                     const size_t *recvcounts, const size_t *displs,
                     MPI_Comm comm, const char *algorithm)
{
    kcoll_comm *c;
    KCOLL_TRY(state(comm, 0, 0, &c));
    if (!recvcounts || !displs)
        return MPI_ERR_ARG;
    int me = c->rank, bad = MPI_SUCCESS;
    int in_place = sendbuf == MPI_IN_PLACE;
    kcoll_vargs a = {.sendbuf = in_place ? (const char *)recvbuf + displs[me]
                                         : sendbuf,
                     .scount = in_place ? recvcounts[me] : sendcount,
                     .recvbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = displs,
                     .in_place = in_place};
    kcoll_vspare s = {NULL, NULL};
    int rc = kcoll_v_divert(&a, c->size, &s, &bad);
    if (bad != MPI_SUCCESS)
        a.in_place = 0;
    if (rc == MPI_SUCCESS)
        rc = vcall(c, KCOLL_VCOLL_ALLGATHERV, algorithm, &a, bad);
    kcoll_vspare_free(&s);
    return rc;
}

int kcoll_alltoallv(const void *sendbuf, const size_t *sendcounts,
                    const size_t *sdispls, void *recvbuf,
                    const size_t *recvcounts, const size_t *rdispls,
                    MPI_Comm comm, const char *algorithm)
{
    kcoll_comm *c;
    KCOLL_TRY(state(comm, 0, 0, &c));
    int in_place = sendbuf == MPI_IN_PLACE, p = c->size, bad = MPI_SUCCESS;
    if (!recvcounts || !rdispls || (!in_place && (!sendcounts || !sdispls)))
        return MPI_ERR_ARG;
    kcoll_vargs a = {.sendbuf = sendbuf,
                     .scounts = sendcounts,
                     .sdispls = sdispls,
                     .recvbuf = recvbuf,
                     .rcounts = recvcounts,
                     .rdispls = rdispls};
    kcoll_vspare s = {NULL, NULL};
    size_t *aside_displs = NULL;
    int rc = MPI_SUCCESS;
    if (in_place && p > 1) {
        /* Peers read the blocks to send while this rank overwrites
         * recvbuf: they go aside first, packed. */
        size_t total;
        rc = kcoll_v_packed(recvcounts, p, &aside_displs, &total);
        char *aside = rc == MPI_SUCCESS ? kcoll_scratch(c, total ? total : 1)
                                        : NULL;
        if (rc == MPI_SUCCESS && !aside)
            rc = MPI_ERR_NO_MEM;
        for (int i = 0; i < p && rc == MPI_SUCCESS; i++)
            kcal_copy(aside + aside_displs[i],
                      (const char *)recvbuf + rdispls[i], recvcounts[i]);
        a.sendbuf = aside;
        a.scounts = recvcounts;
        a.sdispls = aside_displs;
    } else if (in_place) {
        a.in_place = 1; /* p = 1: the one block is where it belongs */
        a.scounts = recvcounts;
        a.sdispls = rdispls;
    }
    if (rc == MPI_SUCCESS)
        rc = kcoll_v_divert(&a, p, &s, &bad);
    if (rc == MPI_SUCCESS)
        rc = vcall(c, KCOLL_VCOLL_ALLTOALLV, algorithm, &a, bad);
    kcoll_vspare_free(&s);
    free(aside_displs);
    return rc;
}
