/* model: the paper's cost model (docs/model.md, "The paper model"),
 * the refined `full` model ("Beyond the paper"), the algorithms they rank,
 * the ranking itself and the choice libkcoll makes.
 *
 * The algorithms are the rows of algorithms.def: each names its paper and
 * full formula functions below and its shape facts, so no code here lists
 * algorithms or switches on their names.
 *
 * Every paper formula below is the row of model.md's table of the same name,
 * with X(n) = α + n·β and P(c, n) = l·γ(c)·pages(n). Terms are accumulated
 * by cause (start-up, copy, lock, sync) so `kcal predict --explain` can show
 * where the time goes; the predicted time is their sum. The full model's
 * formulas live in their own functions (t_full_*), so the paper's never
 * change underneath it. */
#include "model/model.h"
#include "common/grow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The registry's public half, in algorithms.def order: a collective's rows
 * are contiguous (tests/test_model.c checks), so its list is a slice. */
static const kcal_algorithm registry[KCAL_ALG_COUNT] = {
#define KCAL_ALGORITHM(coll, id, kind, ...)                                  \
    [KCAL_ALG_##coll##_##id] = {KCAL_COLL_##coll, #id, KCAL_PARAM_##kind,    \
                                KCAL_ALG_##coll##_##id},
#include "model/algorithms.def"
};

static const char *const coll_names[KCAL_COLL_COUNT] = {
    [KCAL_COLL_SCATTER] = "scatter",
    [KCAL_COLL_GATHER] = "gather",
    [KCAL_COLL_BCAST] = "bcast",
    [KCAL_COLL_ALLGATHER] = "allgather",
    [KCAL_COLL_ALLTOALL] = "alltoall",
};

/* The MPI library's collective as a row (kcal_model_mpi): index -1, so it
 * never passes is_alg_of and indexes no table. */
static const kcal_algorithm mpi_rows[KCAL_COLL_COUNT] = {
    [KCAL_COLL_SCATTER] = {KCAL_COLL_SCATTER, "mpi", KCAL_PARAM_NONE, -1},
    [KCAL_COLL_GATHER] = {KCAL_COLL_GATHER, "mpi", KCAL_PARAM_NONE, -1},
    [KCAL_COLL_BCAST] = {KCAL_COLL_BCAST, "mpi", KCAL_PARAM_NONE, -1},
    [KCAL_COLL_ALLGATHER] = {KCAL_COLL_ALLGATHER, "mpi", KCAL_PARAM_NONE, -1},
    [KCAL_COLL_ALLTOALL] = {KCAL_COLL_ALLTOALL, "mpi", KCAL_PARAM_NONE, -1},
};

const char *kcal_coll_name(kcal_coll c)
{
    return (c >= 0 && c < KCAL_COLL_COUNT) ? coll_names[c] : NULL;
}

int kcal_coll_from_name(const char *name, kcal_coll *out)
{
    for (int c = 0; c < KCAL_COLL_COUNT; c++)
        if (!strcmp(coll_names[c], name)) {
            *out = (kcal_coll)c;
            return 0;
        }
    return -1;
}

const kcal_algorithm *kcal_model_algorithms(kcal_coll c, size_t *count)
{
    size_t first = 0, n = 0;
    if (c >= 0 && c < KCAL_COLL_COUNT) {
        while (first < KCAL_ALG_COUNT && registry[first].coll != c)
            first++;
        while (first + n < KCAL_ALG_COUNT && registry[first + n].coll == c)
            n++;
    }
    *count = n;
    return n ? &registry[first] : NULL;
}

const kcal_algorithm *kcal_model_find_algorithm(kcal_coll c, const char *id)
{
    size_t n;
    const kcal_algorithm *a = kcal_model_algorithms(c, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(a[i].id, id))
            return &a[i];
    return NULL;
}

static long gcd(long a, long b)
{
    while (b) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int kcal_model_k_valid(const kcal_algorithm *alg, int p, int k)
{
    switch (alg->kind) {
    case KCAL_PARAM_NONE:
        return k == 0;
    case KCAL_PARAM_THROTTLE: /* k = 1 and k = p are the non-throttled rows */
        return k >= 2 && k <= p - 1;
    case KCAL_PARAM_STRIDE: /* j = 1 is the plain ring, valid for every p */
        return k == 1 || (k >= 1 && k <= p - 1 && gcd(p, k) == 1);
    }
    return 0;
}

uint64_t kcal_pages(uint64_t n, double page)
{
    if (n == 0)
        return 0;
    if (page == floor(page) && page <= 1e18) {
        uint64_t s = (uint64_t)page;
        return n / s + (n % s != 0);
    }
    return (uint64_t)ceil((double)n / page);
}

int kcal_ceil_log2(long p)
{
    int i = 0;
    while (i < 62 && (1L << i) < p)
        i++;
    return i;
}

int kcal_ceil_log_k(long p, long k)
{
    int i = 0;
    long v = 1;
    while (v < p) {
        i++;
        if (v > p / k) /* next power exceeds p: done without overflow */
            break;
        v *= k;
    }
    return i;
}

double kcal_model_gamma(const kcal_params *prm, int c)
{
    if (c <= 0)
        return 0;
    if (c == 1)
        return 1; /* model.md: one reader has no contention */
    return prm->gamma_a * (double)c * c + prm->gamma_b * c;
}

/* ---- the paper's formulas ---- */

typedef struct {
    const kcal_params *prm;
    uint64_t n;
    double pages;
    int in_place;
    double beta; /* s/byte of this call's copies: β (the full model may
                  * use beta_hot, see full_beta) */
    double beta_local; /* s/byte of a copy within one process's memory
                        * (T_memcpy, copy_in_out's staging): β, or the
                        * full model's memcpy_ws curve (full_copy) */
    int full;    /* the full model: synchronisations at their latency */
    const struct measured_keys *mk; /* the full model's keys, read once per
                                     * call (NULL: look them up) */
    kcal_terms t;
} acc;

static double key_sync_step(const acc *a);
static double key_sm_flag(const acc *a);
static void key_dirty(const acc *a, double *e, double *cap);
static int key_pass(const acc *a, double *pa, double *pb, double *next);
static double key_cma_mutual(const acc *a);
static double key_cma_context(const acc *a);

/* mult·X(n) = mult·(α + n·β) */
static void add_x(acc *a, double mult)
{
    a->t.startup += mult * a->prm->alpha;
    a->t.copy += mult * (double)a->n * a->beta;
}

/* Full model (issue 8): calls·μ, μ = cma_mutual, for CMA calls whose
 * target process makes CMA calls of its own at the same moment (an
 * allgather's or alltoall's processes reading each other, a split row's
 * root and owner copying from each other): the call and the target's
 * take the target's memory-map and task locks at once, and their lines
 * bounce between the cores (probe/mutual.h). A start-up cost: it does not
 * grow with the bytes. Nothing in the paper model or without the key. */
static void add_mutual(acc *a, double calls)
{
    if (a->full)
        a->t.startup += calls * key_cma_mutual(a);
}

/* Full model (issue 8): cma_context once for a collective that makes CMA
 * calls at all, on top of its calls' α. α comes from a loop of calls on
 * one passive target; in a collective the call follows a barrier and a
 * flag from the process it reads or writes, and every row that makes one
 * ran a constant 0.3-0.75 µs over its prediction from 256 B to 8 KiB on
 * the Xeon guest while copy_in_out (no CMA call) was within 0.15
 * (docs/machine.md "The first CMA call of a collective"). The probe's own
 * measurements of two one-call rows price it (fit/calibrate.c). Every
 * start-up term is a CMA call's (α, μ, a split row's chunks), so a row
 * that charged one makes calls. */
static void add_context(acc *a)
{
    if (a->full && a->t.startup > 0)
        a->t.startup += key_cma_context(a);
}

/* mult·P(c, n) = mult·l·γ(c)·pages(n); c = 1 gives the uncontended l·pages. */
static void add_lock(acc *a, double mult, int c)
{
    a->t.lock += mult * a->prm->lock * kcal_model_gamma(a->prm, c) * a->pages;
}

static void add_memcpy(acc *a)
{
    if (!a->in_place)
        a->t.copy += (double)a->n * a->beta_local;
}

/* T_sm_X(p). The probe times a chain of back-to-back collectives, in which
 * each call's messages overlap the previous call's tail: a throughput. A
 * copy that waits for the synchronisation sees its latency, at least
 * ⌈lg p⌉ control messages one after the other (a binomial tree, recursive
 * doubling, a dissemination barrier), each sync_step (half an 8-byte
 * ping-pong). The full model charges the larger of the two; the paper
 * model T_sm_X as measured. */
static double sm_time(const acc *a, kcal_sm_op op, int p)
{
    if (p < 2)
        return 0;
    double t = a->prm->sm_a[op] + a->prm->sm_b[op] * log2((double)p);
    if (a->full) {
        double lat = kcal_ceil_log2(p) * key_sync_step(a);
        if (lat > t)
            t = lat;
    }
    return t;
}

static void add_sm(acc *a, kcal_sm_op op, int p)
{
    a->t.sync += sm_time(a, op, p);
}

static void acc_init(acc *a, const kcal_params *prm, uint64_t n, int in_place)
{
    memset(a, 0, sizeof *a);
    a->prm = prm;
    a->n = n;
    a->pages = (double)kcal_pages(n, prm->page);
    a->in_place = in_place;
    a->beta = prm->beta;
    a->beta_local = prm->beta;
}

static void terms_add(kcal_terms *dst, const kcal_terms *src)
{
    dst->startup += src->startup;
    dst->copy += src->copy;
    dst->lock += src->lock;
    dst->sync += src->sync;
}

/* parallel_read / parallel_write / direct_read:
 * T_sm_bcast + X(n) + P(p,n) + T_sm_gather */
static void t_parallel(acc *a, int p, int k)
{
    (void)k;
    add_sm(a, KCAL_SM_BCAST, p);
    add_x(a, 1);
    add_lock(a, 1, p);
    add_sm(a, KCAL_SM_GATHER, p);
}

static void t_direct_write(acc *a, int p, int k);

/* sequential_write / sequential_read:
 * T_memcpy + T_sm_gather + p·(X(n) + l·pages(n)) + T_sm_bcast
 * = the root's local copy + direct_write's row (the same p writes). */
static void t_sequential(acc *a, int p, int k)
{
    add_memcpy(a);
    t_direct_write(a, p, k);
}

/* throttled_read / throttled_write: T_sm_bcast + ⌈p/k⌉·(X(n) + P(k,n)) */
static void t_throttled(acc *a, int p, int k)
{
    double steps = (double)((p + k - 1) / k);
    add_sm(a, KCAL_SM_BCAST, p);
    add_x(a, steps);
    add_lock(a, steps, k);
}

/* ring_*: T_memcpy + T_sm_allgather + (p−1)·(X(n) + l·pages(n)) + T_sm_barrier */
static void t_ring(acc *a, int p, int k)
{
    (void)k; /* ring_neighbor's stride j does not change the cost */
    add_memcpy(a);
    add_sm(a, KCAL_SM_ALLGATHER, p);
    add_x(a, p - 1);
    add_lock(a, p - 1, 1);
    add_sm(a, KCAL_SM_BARRIER, p);
}

/* recursive_doubling:
 * T_memcpy + T_sm_allgather + lg p·α + (p−1)·(n·β + l·pages(n)) + T_sm_barrier */
static void t_recursive_doubling(acc *a, int p, int k)
{
    (void)k;
    add_memcpy(a);
    add_sm(a, KCAL_SM_ALLGATHER, p);
    a->t.startup += kcal_ceil_log2(p) * a->prm->alpha;
    a->t.copy += (p - 1) * (double)a->n * a->beta;
    add_lock(a, p - 1, 1);
    add_sm(a, KCAL_SM_BARRIER, p);
}

/* bruck: T_sm_allgather + lg p·α + (p−1)·(2·n·β + l·pages(n)) + T_sm_barrier */
static void t_bruck(acc *a, int p, int k)
{
    (void)k;
    add_sm(a, KCAL_SM_ALLGATHER, p);
    a->t.startup += kcal_ceil_log2(p) * a->prm->alpha;
    a->t.copy += (p - 1) * 2.0 * (double)a->n * a->beta;
    add_lock(a, p - 1, 1);
    add_sm(a, KCAL_SM_BARRIER, p);
}

/* pairwise: T_sm_allgather + (p−1)·(X(n) + l·pages(n)) */
static void t_pairwise(acc *a, int p, int k)
{
    (void)k;
    add_sm(a, KCAL_SM_ALLGATHER, p);
    add_x(a, p - 1);
    add_lock(a, p - 1, 1);
}

/* direct_write: T_sm_gather + p·(X(n) + l·pages(n)) + T_sm_bcast */
static void t_direct_write(acc *a, int p, int k)
{
    (void)k;
    add_sm(a, KCAL_SM_GATHER, p);
    add_x(a, p);
    add_lock(a, p, 1);
    add_sm(a, KCAL_SM_BCAST, p);
}

/* knomial: T_sm_bcast + log_k p·(X(n) + P(k,n)) */
static void t_knomial(acc *a, int p, int k)
{
    double steps = kcal_ceil_log_k(p, k);
    add_sm(a, KCAL_SM_BCAST, p);
    add_x(a, steps);
    add_lock(a, steps, k);
}

/* scatter_allgather: T_sm_allgather + T_seqwrite_scatter(⌈n/p⌉) +
 * T_ring_allgather(⌈n/p⌉), each piece with its own row's terms. */
static void t_scatter_allgather(acc *a, int p, int k)
{
    (void)k;
    uint64_t chunk = a->n / (uint64_t)p + (a->n % (uint64_t)p != 0);
    acc piece;
    add_sm(a, KCAL_SM_ALLGATHER, p);
    acc_init(&piece, a->prm, chunk, a->in_place);
    t_sequential(&piece, p, 0);
    terms_add(&a->t, &piece.t);
    acc_init(&piece, a->prm, chunk, a->in_place);
    t_ring(&piece, p, 1);
    terms_add(&a->t, &piece.t);
}

/* ---- the full model (model.md "Beyond the paper") ----
 *
 * The paper's terms, with three kinds of change, each measured on the
 * machine it runs on (kcal probe) and each falling back to the paper's term
 * when its key is absent:
 *   - in-cache copies: a call whose buffers fit in the last-level cache
 *     (kcal_model_footprint <= l3_cache) copies at beta_hot, not at the
 *     cache-cold β the probe measures by default;
 *   - per-step synchronisation: algorithms whose steps wait for a
 *     point-to-point control message from the previous step pay sync_step
 *     per step (the paper has no such term: 0 when absent);
 *   - structure: where the reference implementation (algos/) does less
 *     than the paper's formula charges, the formula follows the code; each
 *     such change is explained next to it. These have no key. */

static const char *const model_names[] = {"paper", "full"};

const char *kcal_model_name(kcal_model_kind m)
{
    return (m == KCAL_MODEL_PAPER || m == KCAL_MODEL_FULL) ? model_names[m]
                                                           : NULL;
}

int kcal_model_from_name(const char *name, kcal_model_kind *out)
{
    for (int m = 0; m < 2; m++)
        if (!strcmp(name, model_names[m])) {
            *out = (kcal_model_kind)m;
            return 0;
        }
    return -1;
}

unsigned kcal_model_full_missing(const kcal_params *prm)
{
    unsigned miss = 0;
    if (!(kcal_params_get(prm, "beta_hot", 0) > 0))
        miss |= KCAL_FULL_NO_BETA_HOT;
    if (!(kcal_params_get(prm, "l3_cache", 0) > 0))
        miss |= KCAL_FULL_NO_L3;
    if (!kcal_params_find(prm, "sync_step"))
        miss |= KCAL_FULL_NO_SYNC_STEP;
    return miss;
}

/* Reads of lines another process wrote earlier in the same call (issue 9):
 * the lines are modified in the writer core's private cache, and a copy
 * of them from another core pays dirty_beta per byte on the part still
 * there, at most dirty_bytes of what was written (older lines were written
 * back and read at the clean rate): extra = dirty_beta·min(bytes,
 * dirty_bytes) per such read, both measured by kcal probe (docs/probe.md
 * "Lines another core just wrote"). `count` reads of `bytes` each; 0
 * without the keys. */
static void add_dirty(acc *a, double bytes, double count)
{
    double e, cap;
    key_dirty(a, &e, &cap);
    if (!(e > 0) || !(cap > 0) || !(count > 0))
        return;
    a->t.copy += count * e * (bytes < cap ? bytes : cap);
}

/* Chunks passed between cores through the staging areas (copy_in_out):
 * `streams` streams of m chunks of c bytes each on the critical path, each
 * paying beyond its copies pass_a + pass_b·c for its first chunk and
 * pass_next for each further one (kcal probe's pass phase, probe/pass.h:
 * the copy out of lines the other core just wrote, the copy in over lines
 * the other core read, the wait for the progress word). Params without
 * the pass keys (probed before they existed) charge dirty_beta on each
 * chunk instead, as the model did then. */
static void add_pass(acc *a, uint64_t c, uint64_t m, double streams)
{
    double pa, pb, next;
    if (!(streams > 0) || !m)
        return;
    if (!key_pass(a, &pa, &pb, &next)) {
        add_dirty(a, (double)c, streams * (double)m);
        return;
    }
    a->t.copy += streams * (pa + pb * (double)c + (double)(m - 1) * next);
}

/* The rounds of recursive doubling and Bruck from the second: round
 * m = 2^i reads the min(m, p − m) blocks its source gathered so far, each
 * round's source having written them earlier in the call (its own block
 * copied in, the rest received in the rounds before). Round 1 reads the
 * source's own block from its send buffer, untouched in the call
 * (allgather.c). */
static void add_dirty_rounds(acc *a, int p)
{
    for (long m = 2; m < p; m *= 2)
        add_dirty(a, (double)(m < p - m ? m : p - m) * (double)a->n, 1);
}

/* mult·sync_step: `mult` steps each ending in a control message. */
static void add_steps(acc *a, double mult)
{
    a->t.sync += mult * key_sync_step(a);
}

/* The per-round tokens of recursive_doubling and bruck: one for every
 * round from the second (add_dirty_rounds says why not the first). */
static void add_token_rounds(acc *a, int p)
{
    int rounds = kcal_ceil_log2(p);
    if (rounds > 1)
        add_steps(a, rounds - 1);
}

/* parallel_read / parallel_write / direct_read:
 * T_sm_bcast + X(n) + P(p−1,n) + T_sm_gather
 * Change: P(p−1, n), not P(p, n): the root does not read (write) its own
 * block, it copies it locally meanwhile (scatter.c, gather.c) or holds the
 * message (bcast.c), so p − 1 copies contend. At p = 2 one copy runs
 * alone: γ(1) = 1. */
static void t_full_parallel(acc *a, int p, int k)
{
    (void)k;
    add_sm(a, KCAL_SM_BCAST, p);
    add_x(a, 1);
    add_lock(a, 1, p - 1);
    add_sm(a, KCAL_SM_GATHER, p);
}

static void t_full_direct_write(acc *a, int p, int k);

/* sequential_write / sequential_read:
 * T_memcpy + T_sm_gather + (p−1)·(X(n) + l·pages(n)) + T_sm_bcast
 * Change: (p−1), not p. The root's own block is the local copy T_memcpy
 * already charges; only the p−1 other blocks cross processes (scatter.c,
 * gather.c: the loop runs v = 1..p−1). The paper's p doubles the copy cost
 * at p = 2. As in the paper: the local copy + direct_write's row. */
static void t_full_sequential(acc *a, int p, int k)
{
    add_memcpy(a);
    t_full_direct_write(a, p, k);
}

/* direct_write: T_sm_gather + (p−1)·(X(n) + l·pages(n)) + T_sm_bcast
 * Change: (p−1), not p: the root holds the message and writes it into the
 * p−1 others (bcast.c). */
static void t_full_direct_write(acc *a, int p, int k)
{
    (void)k;
    add_sm(a, KCAL_SM_GATHER, p);
    add_x(a, p - 1);
    add_lock(a, p - 1, 1);
    add_sm(a, KCAL_SM_BCAST, p);
}

/* throttled_read / throttled_write:
 * T_sm_bcast + ⌈(p−1)/k⌉·(X(n) + P(k,n) + sync_step)
 * Changes: ⌈(p−1)/k⌉ rounds, not ⌈p/k⌉: p−1 processes read (write) while
 * the root copies its own block, as in the sequential rows. Each round
 * starts when a token from the previous one arrives (scatter.c, gather.c):
 * one control message per round. */
static void t_full_throttled(acc *a, int p, int k)
{
    double steps = (double)((p - 1 + k - 1) / k);
    add_sm(a, KCAL_SM_BCAST, p);
    add_x(a, steps);
    add_lock(a, steps, k);
    add_steps(a, steps);
}

/* knomial: T_sm_bcast + log_k p·(X(n) + P(k,n) + sync_step)
 * Change: each level starts with a go-ahead message from the parent
 * (bcast.c): one control message per level. */
static void t_full_knomial(acc *a, int p, int k)
{
    double steps = kcal_ceil_log_k(p, k);
    add_sm(a, KCAL_SM_BCAST, p);
    add_x(a, steps);
    add_lock(a, steps, k);
    add_steps(a, steps);
    /* Below the first level a child reads what its parent received one
     * level before. */
    add_dirty(a, (double)a->n, steps - 1);
}

/* ring_*: T_memcpy + T_sm_allgather + (p−1)·(X(n) + l·pages(n)) + T_sm_barrier
 * + (p−1)·sync_step for ring_neighbor only: its step t reads a block its
 * left neighbour received in step t−1, so it waits for that neighbour's
 * token (allgather.c). ring_source_read/write read (write) every block at
 * its source, which holds it from the start: no per-step message. */
static void t_full_ring_neighbor(acc *a, int p, int k)
{
    t_ring(a, p, k);
    add_mutual(a, p - 1);
    add_steps(a, p - 1);
    /* Every step but the first reads a block the left neighbour received
     * in this call; the first reads its own block where the user put it
     * (allgather.c). */
    add_dirty(a, (double)a->n, p - 2);
}

/* ring_source_read, ring_source_write: the ring row + (p−1)·μ, every
 * process's p − 1 calls made while their targets make theirs. */
static void t_full_ring(acc *a, int p, int k)
{
    t_ring(a, p, k);
    add_mutual(a, p - 1);
}

/* recursive_doubling: the paper's row + (⌈lg p⌉ − 1)·sync_step: every
 * round from the second waits for its source's token; the first reads the
 * partner's send buffer, ready from the start (allgather.c). bruck: below. */
static void t_full_recursive_doubling(acc *a, int p, int k)
{
    t_recursive_doubling(a, p, k);
    add_mutual(a, kcal_ceil_log2(p));
    add_token_rounds(a, p);
    add_dirty_rounds(a, p);
}

/* bruck as allgather.c runs it: the own block copied into the temporary
 * buffer (also in place), p − 1 blocks read in ⌈lg p⌉ rounds, then the
 * p·n-byte temporary rotated into the result:
 *   T_memcpy(n) + T_sm_allgather + lg p·α + (p−1)·(n·β + l·pages(n))
 *   + p·n·β + T_sm_barrier + (lg p − 1)·sync_step
 * (no token before the first round, as recursive_doubling)
 * Change: 2·p·n bytes copied in all, where the paper charges 2·(p−1)·n
 * (at p = 2 twice as much: the rotation copies every block, the own one
 * included, and the own block is copied twice). */
static void t_full_bruck_copies(acc *a, int p, int k)
{
    (void)k;
    a->t.copy += (double)a->n * a->beta_local; /* own block into tmp */
    add_sm(a, KCAL_SM_ALLGATHER, p);
    a->t.startup += kcal_ceil_log2(p) * a->prm->alpha;
    add_mutual(a, kcal_ceil_log2(p));
    a->t.copy += (p - 1) * (double)a->n * a->beta;
    add_lock(a, p - 1, 1);
    a->t.copy += (double)p * (double)a->n * a->beta_local; /* the rotation */
    add_sm(a, KCAL_SM_BARRIER, p);
    add_token_rounds(a, p);
    add_dirty_rounds(a, p);
}

/* pairwise as alltoall.c runs it: the paper's row + the local copy of the
 * own block (n bytes), or in place the copy aside of the whole p·n-byte
 * buffer that peers then read, + the closing synchronisation:
 *   T_memcpy + T_sm_allgather + (p−1)·(X(n) + l·pages(n)) + T_sm_barrier
 * Change: the paper's row has neither the local copy nor the closing
 * allreduce that keeps every source's buffer valid until its readers are
 * done (ring_source_read's row has it, and the two are the same code at
 * p = 2). */
static void t_full_pairwise(acc *a, int p, int k)
{
    a->t.copy += (a->in_place ? (double)p : 1.0) * (double)a->n * a->beta_local;
    t_pairwise(a, p, k);
    add_sm(a, KCAL_SM_BARRIER, p);
    add_mutual(a, p - 1);
    if (a->in_place) /* the peers read the copy set aside just before */
        add_dirty(a, (double)a->n, p - 1);
}

/* scatter_allgather, with c = ⌈n/p⌉ and W = X(c) + l·pages(c):
 *   p = 2:  T_sm_allgather + W + 2·sync_step
 *   p ≥ 3:  T_sm_allgather + 2·(p−1)·W + p·sync_step
 * Changes (bcast.c): one MPI_Allgather of addresses is the only shared-
 * memory collective (the pieces' T_sm_gather, T_sm_bcast, T_sm_barrier and
 * second T_sm_allgather are not run); the bcast is in place, so neither
 * piece makes a local copy (no T_memcpy); the root writes p−1 chunks, not
 * p; and the rank after the root reads from the root, which holds every
 * chunk, while the root is still writing. The last rank, p−1 places after
 * the root, can start its p−1 ring reads only after the root wrote its
 * chunk (p−1 writes in), so for p ≥ 3 the halves add up; at p = 2 the last
 * rank is the one after the root: the root's one write and its one read
 * run at the same time, W instead of 2·W. The ring's tokens add one
 * control message per step (at p = 2 the root's "your chunk is written"),
 * and the last rank's done message to its left neighbour, which that
 * neighbour waits for before it returns, one more after them (the row
 * had p − 1: measured at p = 2 on the Zen 5 guest, the row was 2-4 µs
 * under the time from 16 KiB to 256 KiB and ranked it ahead of
 * direct_split, which moves the same bytes the same way with flags and
 * was measured 1.5-2.5 µs faster). */
static void t_full_scatter_allgather(acc *a, int p, int k)
{
    (void)k;
    uint64_t chunk = a->n / (uint64_t)p + (a->n % (uint64_t)p != 0);
    acc w;
    acc_init(&w, a->prm, chunk, 1);
    w.beta = a->beta;
    w.beta_local = a->beta_local;
    double transfers = p == 2 ? 1 : 2.0 * (p - 1);
    add_x(&w, transfers);
    add_lock(&w, transfers, 1);
    add_mutual(a, transfers); /* the root's writes meet the readers' reads */
    terms_add(&a->t, &w.t);
    add_sm(a, KCAL_SM_ALLGATHER, p);
    add_steps(a, p);
}

/* ---- derived rows: libkcoll's algorithms beyond the paper ----
 *
 * Algorithms the paper does not have (model.md "Derived algorithms"). The
 * *_flags rows are paper algorithms whose synchronisations go through
 * libkcoll's shared-memory flags (algos/flags.c): in the paper model each
 * is its twin's row with every T_sm_X replaced by F_X, the paper's own
 * omissions included, so the paper model compares the two on their
 * synchronisation alone; the full model charges what their code does
 * (p−1 contending copies, the own copy overlapping the closing wait,
 * pairwise's copy and closing synchronisation). direct_split has no twin:
 * one row, written for its code, in both models. They have no per-step
 * messages to charge sync_step for.
 *
 * F_X, a synchronisation of pattern X through the flags: the MPI
 * library's T_sm_X, each of its messages replaced by a flag, so scaled by
 * sm_flag / sync_step (one flag seen by a polling process against one
 * 8-byte MPI message, both half of a ping-pong measured by kcal probe).
 * Without both keys, T_sm_X. */
static double flag_cost(const acc *a, kcal_sm_op op, int p)
{
    if (p < 2)
        return 0;
    double t = sm_time(a, op, p);
    double flag = key_sm_flag(a);
    double step = key_sync_step(a);
    return flag > 0 && step > 0 ? t * flag / step : t;
}

static void add_flag(acc *a, kcal_sm_op op, int p)
{
    a->t.sync += flag_cost(a, op, p);
}

/* max(T_memcpy, F_barrier): the own block is copied while the others
 * finish reading this process's buffer. */
static void add_memcpy_or_flag(acc *a, int p)
{
    double copy = a->in_place ? 0 : (double)a->n * a->beta_local;
    double sync = flag_cost(a, KCAL_SM_BARRIER, p);
    if (copy > sync)
        a->t.copy += copy;
    else
        a->t.sync += sync;
}

/* parallel_read_flags, parallel_write_flags:
 * paper  F_bcast + X(n) + P(p,n) + F_gather  (parallel_read's row)
 * full   F_bcast + X(n) + P(p−1,n) + F_gather */
static void t_parallel_flags(acc *a, int p, int k)
{
    (void)k;
    add_flag(a, KCAL_SM_BCAST, p);
    add_x(a, 1);
    add_lock(a, 1, p);
    add_flag(a, KCAL_SM_GATHER, p);
}

static void t_full_parallel_flags(acc *a, int p, int k)
{
    (void)k;
    add_flag(a, KCAL_SM_BCAST, p);
    add_x(a, 1);
    add_lock(a, 1, p - 1);
    add_flag(a, KCAL_SM_GATHER, p);
}

/* direct_split, with c = ⌈n/p⌉:
 * F_allgather + max((p−1)·(X(c) + l·pages(c)), X(n−c) + P(p−1, n−c))
 * + F_barrier: the root's p−1 writes of the last c bytes against every
 * reader's read of the first n−c bytes, at the same time. */
static void t_direct_split(acc *a, int p, int k)
{
    (void)k;
    uint64_t c = a->n / (uint64_t)p + (a->n % (uint64_t)p != 0);
    acc w, r;
    acc_init(&w, a->prm, c, 1);
    acc_init(&r, a->prm, a->n - c, 1);
    w.beta = r.beta = a->beta;
    w.beta_local = r.beta_local = a->beta_local;
    w.full = r.full = a->full;
    w.mk = r.mk = a->mk;
    if (c > 0) {
        add_x(&w, p - 1);
        add_lock(&w, p - 1, 1);
    }
    if (a->n - c > 0) {
        add_x(&r, 1);
        add_lock(&r, 1, p - 1);
    }
    if (c > 0 && a->n - c > 0) { /* the root writes the readers while they
                                  * read the root */
        add_mutual(&w, p - 1);
        add_mutual(&r, 1);
    }
    double tw = w.t.startup + w.t.copy + w.t.lock;
    double tr = r.t.startup + r.t.copy + r.t.lock;
    terms_add(&a->t, tw > tr ? &w.t : &r.t);
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_flag(a, KCAL_SM_BARRIER, p);
}

/* The copy_in_out rows (derived, all five collectives), with m = ⌈n/C⌉
 * chunks of C = KCAL_STAGING_CHUNK bytes and c = min(n, C). No system
 * call, no page pinned: neither α nor l. Their full rows add the one
 * thing the paper's terms do not see here: passing a chunk from one core
 * to another costs more than its two copies (add_pass, the probe's pass
 * phase; dirty_beta on its c bytes for params without it). On the
 * Zen 5 guest at p = 2 (kcal bench, 300 iterations) that term brought
 * allgather's row from 25-37 % under the measured time at 64-128 KiB to
 * within 12 % from 16 KiB to 256 KiB, alltoall's likewise, and gather's
 * copies out ran at the clean rate there. On the 2-core Xeon guest they
 * did not: gather's row was 3-4x under the measured time at 4-16 KiB
 * (0.53 µs predicted, 2.1 measured at 4K) and put copy_in_out first where
 * parallel_write_flags was 1.5x faster, so the probe now measures the
 * pass itself (probe/pass.h: 0.43 µs + 0.22 ns/B for a stream's first
 * chunk, 1.06 µs for each further 16 KiB one, against dirty_beta's
 * 0.068 ns/B) and gather's full row pays it too. */
static void cio_chunks(const acc *a, uint64_t *m, uint64_t *c)
{
    uint64_t chunk = KCAL_STAGING_CHUNK;
    *m = a->n / chunk + (a->n % chunk != 0);
    *c = a->n < chunk ? a->n : chunk;
}

/* bcast:
 *   full:   (m + 1)·c·β + pass(c, m) + F_bcast  (the readers copy out while
 *           the root copies in; β carries δ(p − 1) for the p − 1 readers
 *           copying at once, registry conc)
 *   paper:  c·β + m·(p−1)·c·β + F_bcast  (= the full row without dirty at
 *           p = 2). The paper measures no factor for copies running at
 *           once, and its term for readers of one source (γ(c), the page
 *           lock) grows with their number; so the p − 1 copies out of a
 *           chunk are charged one after another, one source's bandwidth
 *           shared. Without it the paper model put copy_in_out first at
 *           every size for p = 64 on the KNL file. */
static void t_copy_in_out(acc *a, int p, int k)
{
    (void)k;
    uint64_t m, c;
    cio_chunks(a, &m, &c);
    a->t.copy += (double)(m + 1) * (double)c * a->beta_local;
    add_pass(a, c, m, 1);
    add_flag(a, KCAL_SM_BCAST, p);
}

static void t_copy_in_out_paper(acc *a, int p, int k)
{
    (void)k;
    uint64_t m, c;
    cio_chunks(a, &m, &c);
    double readers = p > 2 ? p - 1 : 1;
    a->t.copy += (1 + (double)m * readers) * (double)c * a->beta_local;
    add_flag(a, KCAL_SM_BCAST, p);
}

/* scatter and gather: the root copies every other block's m chunks, into
 * its staging area (scatter) or out of each source's (gather), one after
 * another, while the one process whose block it is copies the other end
 * of the pipeline; the root's own block is copied before (gather: while
 * the sources copy their first chunks in) or after (scatter: while the
 * last reader copies its last chunk out), whichever end is longer counts:
 *   paper:
 *       ((p − 1)·m·c + max(n_own, c))·β + F_op,  n_own = 0 in place, else n
 *   scatter's full row: the last reader copies its m chunks out behind
 *       the root's stream, paying the pass of one stream (add_pass):
 *       max((p − 1)·m·c·β + n_own·β,
 *           (p − 2)·m·c·β + c·β + m·c·β + pass(c, m)) + F_bcast
 *   gather's full row: the paper's + (p − 1)·pass(c, m), the root's
 *       copies out of p − 1 streams (with the pass keys only)
 * with F_bcast (scatter: the readers wait for the root's word) or
 * F_gather (gather: the root waits for each source's). */
static void staged_root(acc *a, int p, kcal_sm_op op, int full)
{
    uint64_t m, c;
    cio_chunks(a, &m, &c);
    double own = a->in_place ? 0 : (double)a->n;
    double stream = (double)(p - 1) * (double)m * (double)c * a->beta_local;
    double root_end = stream + own * a->beta_local;
    double reader_end = stream + (double)c * a->beta_local;
    double pass = 0, pa, pb, next;
    /* Gather's copies out without the pass keys: at the clean rate, as
     * before them (the Zen 5 guest measured them so: the sources have
     * finished their slots while the root copies its own block). */
    if (full && (op == KCAL_SM_BCAST || key_pass(a, &pa, &pb, &next))) {
        acc d = *a;
        d.t.copy = 0;
        add_pass(&d, c, m, op == KCAL_SM_BCAST ? 1 : p - 1);
        pass = d.t.copy;
    }
    if (full && op == KCAL_SM_BCAST)
        reader_end += pass; /* scatter: the last reader's stream */
    else if (own < (double)c)
        root_end = reader_end;
    if (op != KCAL_SM_BCAST) { /* gather: the root's copies out */
        root_end += pass;
        reader_end += pass;
    }
    a->t.copy += root_end > reader_end ? root_end : reader_end;
    add_flag(a, op, p);
}

static void t_scatter_copy_in_out_paper(acc *a, int p, int k)
{
    (void)k;
    staged_root(a, p, KCAL_SM_BCAST, 0);
}

static void t_scatter_copy_in_out(acc *a, int p, int k)
{
    (void)k;
    staged_root(a, p, KCAL_SM_BCAST, 1);
}

static void t_gather_copy_in_out_paper(acc *a, int p, int k)
{
    (void)k;
    staged_root(a, p, KCAL_SM_GATHER, 0);
}

static void t_gather_copy_in_out(acc *a, int p, int k)
{
    (void)k;
    staged_root(a, p, KCAL_SM_GATHER, 1);
}

/* allgather: every process copies m chunks of its block in and the p − 1
 * others' m chunks out, round after round, all processes at once (the
 * full model's β carries δ(p)), and its own block unless in place:
 *   paper: (p·m·c + n_own)·β + F_allgather
 *   full:  the paper row + (p − 1)·pass(c, m): each chunk copied out was
 *          written by its owner's core in the same round. */
static void all_sources_cio(acc *a, int p, double chunks_per_m,
                            double local, int dirty)
{
    uint64_t m, c;
    cio_chunks(a, &m, &c);
    a->t.copy += (chunks_per_m * (double)m * (double)c + local) * a->beta_local;
    if (dirty)
        add_pass(a, c, m, p - 1);
    add_flag(a, KCAL_SM_ALLGATHER, p);
}

static void allgather_cio(acc *a, int p, int dirty)
{
    all_sources_cio(a, p, p, a->in_place ? 0 : (double)a->n, dirty);
}

static void t_allgather_copy_in_out_paper(acc *a, int p, int k)
{
    (void)k;
    allgather_cio(a, p, 0);
}

static void t_allgather_copy_in_out(acc *a, int p, int k)
{
    (void)k;
    allgather_cio(a, p, 1);
}

/* alltoall: every process copies its p − 1 outgoing blocks in and p − 1
 * incoming ones out, chunk by chunk, and its own block; in place the p
 * blocks aside first instead of the own block:
 *   paper: (2·(p−1)·m·c + n)·β + F_allgather, in place (2·(p−1)·m·c + p·n)·β
 *   full:  the paper row + (p − 1)·pass(c, m), as allgather's. */
static void alltoall_cio(acc *a, int p, int dirty)
{
    all_sources_cio(a, p, 2.0 * (p - 1),
                    (a->in_place ? (double)p : 1.0) * (double)a->n, dirty);
}

static void t_alltoall_copy_in_out_paper(acc *a, int p, int k)
{
    (void)k;
    alltoall_cio(a, p, 0);
}

static void t_alltoall_copy_in_out(acc *a, int p, int k)
{
    (void)k;
    alltoall_cio(a, p, 1);
}

uint64_t kcal_model_split_chunk(uint64_t n)
{
    const uint64_t page = 4096;
    uint64_t chunk = (uint64_t)ceil(sqrt((double)n * 16384.0));
    if (chunk > 0 && n / chunk < KCAL_SPLIT_HALVES_BELOW)
        chunk = n / 2 + n % 2; /* halves: nothing left to race for */
    if (chunk < KCAL_SPLIT_MIN_CHUNK)
        chunk = KCAL_SPLIT_MIN_CHUNK;
    return (chunk + page - 1) / page * page;
}

/* parallel_read_split, parallel_write_split (one formula for both models),
 * with q = ⌈n/m⌉ chunks of m = kcal_model_split_chunk(n) bytes and one
 * chunk's copy C = X(n/q) + P(p, n/q) (all p processes copy at once):
 *   F_allgather + max over the processes of when their last chunk ends
 *   + F_barrier
 * Every non-root process copies chunks of its own block from time 0, one
 * every C; the root copies its own block first (T_memcpy, nothing in
 * place) and then, rank after rank, takes the next chunk of each block
 * that is still left. Both claim from one counter, so once the root
 * arrives at a block at time t, with k0 = min(q, ⌊t/C⌋ + 1) chunks already
 * taken, the root takes ⌈(q−k0)/2⌉ of the rest and the owner ⌊(q−k0)/2⌋.
 * The root's copies contend with the owners' like theirs (γ(p)); its
 * writes (scatter) and reads (gather) are charged alike. The terms are
 * those of the process that ends last. */
static void t_split(acc *a, int p, int k)
{
    (void)k;
    uint64_t m = kcal_model_split_chunk(a->n);
    double q = (double)((a->n + m - 1) / m);
    /* One chunk's copy: its call, bytes and pages. */
    double startup = q > 0 ? a->prm->alpha : 0;
    double copy = q > 0 ? (double)a->n / q * a->beta : 0;
    double lock = q > 0 ? a->prm->lock * kcal_model_gamma(a->prm, p) *
                              a->pages / q
                        : 0;
    double cost = startup + copy + lock;
    double memcpy_t = a->in_place ? 0 : (double)a->n * a->beta_local;
    double root_t = memcpy_t, root_chunks = 0, owner_chunks = 0;
    for (int r = 1; r < p && q > 0; r++) {
        double k0 = cost > 0 ? floor(root_t / cost) + 1 : q;
        if (k0 > q)
            k0 = q;
        double mine = ceil((q - k0) / 2);
        root_t += mine * cost;
        root_chunks += mine;
        if (q - mine > owner_chunks)
            owner_chunks = q - mine; /* the busiest owner */
    }
    int root_last = root_t > owner_chunks * cost;
    double chunks = root_last ? root_chunks : owner_chunks;
    a->t.startup += chunks * startup;
    a->t.copy += chunks * copy + (root_last ? memcpy_t : 0);
    a->t.lock += chunks * lock;
    /* Once the root takes chunks too, its calls and an owner's run at the
     * same moment, each on the other's memory: μ for each of the root's
     * chunks on either side's path (none while the root copies its own
     * block and the owners alone call). */
    add_mutual(a, root_chunks < chunks ? root_chunks : chunks);
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_flag(a, KCAL_SM_BARRIER, p);
}

/* ring_source_read_flags:
 * paper  T_memcpy + F_allgather + (p−1)·(X(n) + l·pages(n)) + F_barrier
 *        (the ring row)
 * full   F_allgather + (p−1)·(X(n) + l·pages(n)) + max(T_memcpy, F_barrier) */
static void t_ring_flags(acc *a, int p, int k)
{
    (void)k;
    add_memcpy(a);
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_x(a, p - 1);
    add_lock(a, p - 1, 1);
    add_flag(a, KCAL_SM_BARRIER, p);
}

static void t_full_ring_flags(acc *a, int p, int k)
{
    (void)k;
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_x(a, p - 1);
    add_lock(a, p - 1, 1);
    add_mutual(a, p - 1);
    add_memcpy_or_flag(a, p);
}

/* pairwise_flags:
 * paper  F_allgather + (p−1)·(X(n) + l·pages(n))  (pairwise's row)
 * full   F_allgather + (p−1)·(X(n) + l·pages(n)) + max(T_memcpy, F_barrier);
 *        in place the p blocks are copied aside before the address is
 *        posted and the own block is in place:
 *        p·n·β + F_allgather + ... + F_barrier */
static void t_pairwise_flags(acc *a, int p, int k)
{
    (void)k;
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_x(a, p - 1);
    add_lock(a, p - 1, 1);
}

static void t_full_pairwise_flags(acc *a, int p, int k)
{
    (void)k;
    if (a->in_place) {
        a->t.copy += (double)p * (double)a->n * a->beta_local;
        add_dirty(a, (double)a->n, p - 1);
    }
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_x(a, p - 1);
    add_lock(a, p - 1, 1);
    add_mutual(a, p - 1);
    add_memcpy_or_flag(a, p);
}

/* ---- the registry's model half ----
 *
 * Per algorithm: its formula in each model and the shape facts of its row
 * in algorithms.def. Counts are functions of p and k (count_of). */

typedef void (*formula_fn)(acc *a, int p, int k);

typedef enum {
    N_0, N_1, N_P, N_P_MINUS_1, N_TWO_P_MINUS_1, N_K, N_P_OVER_K, N_LOG_K_P,
    N_LOG2_P
} count_expr;

/* The working set of the busiest process (algorithms.def's ws column). */
typedef enum {
    WS_PAIR, WS_ROOT_ALL, WS_ROOT_WRITES, WS_CHUNKS, WS_GATHERED, WS_EXCHANGE
} ws_shape;

static const struct {
    formula_fn paper, full;
    count_expr steps, concurrent, scratch;
    int paper_charges_p;
    ws_shape ws;
} facts[KCAL_ALG_COUNT] = {
#define KCAL_ALGORITHM(coll, id, kind, fn, paper, full, steps, conc, paper_p,  \
                       scratch, ws)                                           \
    [KCAL_ALG_##coll##_##id] = {paper, full, N_##steps, N_##conc, N_##scratch, \
                                paper_p, ws},
#include "model/algorithms.def"
};

/* k = 0 (a throttle factor not known) counts as one copy at a time; log_k p
 * has no value below k = 2, where it counts 1 step. */
static int count_of(count_expr e, int p, int k)
{
    switch (e) {
    case N_0: return 0;
    case N_1: return 1;
    case N_P: return p;
    case N_P_MINUS_1: return p - 1;
    case N_TWO_P_MINUS_1: return 2 * p - 1;
    case N_K: return k ? k : 1;
    case N_P_OVER_K: return k ? (p + k - 1) / k : p;
    case N_LOG_K_P: return k >= 2 ? kcal_ceil_log_k(p, k) : 1;
    case N_LOG2_P: return kcal_ceil_log2(p);
    }
    return 0;
}

/* The bytes of all buffers one call touches, summed over the node's p
 * processes (n as in model.md "Message size"):
 *   scatter, gather  the root's p·n-byte buffer and each process's n-byte
 *                    one: 2·p·n;
 *   bcast            one n-byte buffer per process (it is in place): p·n;
 *   allgather        each process's n-byte send block and p·n-byte receive
 *                    buffer: p·(p+1)·n;
 *   alltoall         each process's p·n-byte send and receive buffers:
 *                    2·p²·n;
 *   p = 1            source and destination of the local copy: 2·n;
 * plus each process's scratch space, the registry's `scratch` column: bruck
 * adds a p·n-byte temporary per process, p·(2p+1)·n in all.
 * Whether a run finds them in cache also depends on what ran before; the
 * benchmark (and an application calling the collective in a loop) reuses
 * the same buffers, so data that fits stays there. */
static double footprint(kcal_coll c, const kcal_algorithm *alg, int p,
                        uint64_t n)
{
    double dn = (double)n, dp = p, blocks; /* per process, n bytes each */
    if (p <= 1)
        return 2 * dn;
    switch (c) {
    case KCAL_COLL_SCATTER:
    case KCAL_COLL_GATHER: blocks = 2; break; /* p·n at the root, n each */
    case KCAL_COLL_BCAST: blocks = 1; break;
    case KCAL_COLL_ALLGATHER: blocks = dp + 1; break;
    case KCAL_COLL_ALLTOALL: blocks = 2 * dp; break;
    default: return 0;
    }
    if (alg)
        blocks += count_of(facts[alg->index].scratch, p, 0);
    return dp * blocks * dn;
}

double kcal_model_footprint(kcal_coll c, const char *alg, int p, uint64_t n)
{
    return footprint(c, alg ? kcal_model_find_algorithm(c, alg) : NULL, p, n);
}

/* The bytes the busiest process's copies touch in one call: its own
 * buffers and the remote blocks it reads or writes, by the registry's ws
 * column (algorithms.def), plus its scratch blocks (bruck's p·n-byte
 * temporary). The β(W) curve is measured by one process on one core, so
 * this, not the node's sum, is the W to look it up at while each core's
 * private caches hold its own part. Without a row (alg NULL): the
 * collective's usual shape, as the first of its rows. p = 1: the local
 * copy's 2·n. */
static double working_set(kcal_coll c, const kcal_algorithm *alg, int p,
                          int k, uint64_t n)
{
    (void)k;
    double dn = (double)n, dp = p, blocks = 2;
    if (p <= 1)
        return 2 * dn;
    ws_shape shape = alg ? facts[alg->index].ws
                     : c == KCAL_COLL_ALLGATHER ? WS_GATHERED
                     : c == KCAL_COLL_ALLTOALL  ? WS_EXCHANGE
                                                : WS_PAIR;
    switch (shape) {
    case WS_PAIR: blocks = 2; break;
    case WS_ROOT_ALL: blocks = 2 * dp; break;
    case WS_ROOT_WRITES: blocks = dp; break;
    case WS_CHUNKS: blocks = 2 * (dp - 1) / dp; break;
    case WS_GATHERED: blocks = 2 * dp; break;
    case WS_EXCHANGE: blocks = 3 * dp - 1; break;
    }
    if (alg)
        blocks += count_of(facts[alg->index].scratch, p, 0);
    return blocks * dn;
}

double kcal_model_working_set(kcal_coll c, const char *alg, int p, int k,
                              uint64_t n)
{
    return working_set(c, alg ? kcal_model_find_algorithm(c, alg) : NULL, p,
                       k, n);
}

/* β of one call: beta_hot when its footprint fits in the last-level cache
 * and both keys are there, else the cache-cold β. "Fits" is strictly
 * smaller: buffers as large as the whole cache do not stay in it, which
 * also holds code, stacks and the MPI library's own buffers. */
static double full_beta(const struct measured_keys *m, double beta,
                        kcal_coll c, const kcal_algorithm *alg, int p,
                        uint64_t n);

/* ---- issue 9: what the probe measures beyond beta_hot ----
 *
 * β(working set): the copy time per byte the probe measured with copies
 * rotating over working sets W of 64 KiB and up (beta_ws_<W> keys). A
 * call's footprint (kcal_model_footprint) is its working set: β is
 * interpolated linearly in log β over log W between the two measured
 * working sets around it (the smallest's below, the largest's above).
 * Without the curve, cache_knee (the measured knee), else hwloc's
 * l3_cache, decides between beta_hot and β as before.
 *
 * Concurrent copies: an algorithm whose step runs c copies at once (the
 * registry's `conc`, kcal_model_shape) pays δ(c) = 1 + k·(c − 1) on every
 * n·β term, k measured in cache (conc_hot) and out of it (conc_cold); a
 * call between the two gets k in proportion to where its β lies between
 * the curve's in-cache and out-of-cache ends (log scale).
 *
 * Writes: the *_write rows (the algorithm writes the remote side with
 * process_vm_writev) use alpha_write, lock_write and β·beta_write/beta
 * where the probe found them different from the reads' keys. */

#define WS_MAX 64
typedef struct measured_keys {
    size_t n_ws;
    double ws[WS_MAX], ws_beta[WS_MAX]; /* ascending working sets */
    size_t n_mws;
    double mws[WS_MAX], mws_beta[WS_MAX]; /* memcpy_ws_*, ascending */
    double beta_hot, knee, l3;
    double conc_hot, conc_cold;
    int has_conc_hot, has_conc_cold;
    double alpha_write, lock_write, beta_write;
    int has_alpha_write, has_lock_write, has_beta_write;
    double sync_step, sm_flag, dirty_beta, dirty_bytes;
    double pass_a, pass_b, pass_next;
    int has_pass;
    double cma_mutual;
    double cma_context;
    int has_knee;
    int measured; /* kcal_model_full_measured: any of the keys above */
} measured_keys;

/* "64k" -> 65536; 0 when it is not a size. */
static double ws_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0))
        return 0;
    switch (*end) {
    case 'k': v *= 1024.0; end++; break;
    case 'm': v *= 1048576.0; end++; break;
    case 'g': v *= 1073741824.0; end++; break;
    default: break;
    }
    return *end ? 0 : v;
}

/* One point (w, b) into a curve kept sorted by w; ignored unless both are
 * positive and there is room. */
static void curve_add(double *ws, double *b, size_t *n, double w, double v)
{
    if (!(w > 0) || !(v > 0) || *n >= WS_MAX)
        return;
    size_t j = (*n)++;
    while (j > 0 && ws[j - 1] > w) {
        ws[j] = ws[j - 1];
        b[j] = b[j - 1];
        j--;
    }
    ws[j] = w;
    b[j] = v;
}

/* One pass over the params' entries (a call must stay cheap: kcal predict
 * ranks tens of thousands of rows). */
static void measured_keys_get(const kcal_params *prm, measured_keys *m)
{
    memset(m, 0, sizeof *m);
    static const size_t plen = sizeof KCAL_WS_PREFIX - 1;
    static const size_t mlen = sizeof KCAL_MEMCPY_WS_PREFIX - 1;
    for (size_t i = 0; i < prm->n_entries; i++) {
        const kcal_param *e = &prm->entries[i];
        const char *k = e->key;
        if (e->is_text)
            continue;
        if (!strncmp(k, KCAL_WS_PREFIX, plen)) {
            curve_add(m->ws, m->ws_beta, &m->n_ws, ws_size(k + plen),
                      e->value);
        } else if (!strncmp(k, KCAL_MEMCPY_WS_PREFIX, mlen)) {
            curve_add(m->mws, m->mws_beta, &m->n_mws, ws_size(k + mlen),
                      e->value);
        } else if (!strcmp(k, "beta_hot")) {
            m->beta_hot = e->value;
        } else if (!strcmp(k, "cache_knee")) {
            m->knee = e->value, m->has_knee = 1;
        } else if (!strcmp(k, "l3_cache")) {
            m->l3 = e->value;
        } else if (!strcmp(k, "conc_hot")) {
            m->conc_hot = e->value, m->has_conc_hot = 1;
        } else if (!strcmp(k, "conc_cold")) {
            m->conc_cold = e->value, m->has_conc_cold = 1;
        } else if (!strcmp(k, "alpha_write")) {
            m->alpha_write = e->value, m->has_alpha_write = 1;
        } else if (!strcmp(k, "lock_write")) {
            m->lock_write = e->value, m->has_lock_write = 1;
        } else if (!strcmp(k, "beta_write")) {
            m->beta_write = e->value, m->has_beta_write = 1;
        } else if (!strcmp(k, "sync_step")) {
            m->sync_step = e->value;
        } else if (!strcmp(k, "sm_flag")) {
            m->sm_flag = e->value;
        } else if (!strcmp(k, "dirty_beta")) {
            m->dirty_beta = e->value;
        } else if (!strcmp(k, "dirty_bytes")) {
            m->dirty_bytes = e->value;
        } else if (!strcmp(k, "pass_a")) {
            m->pass_a = e->value, m->has_pass = 1;
        } else if (!strcmp(k, "pass_b")) {
            m->pass_b = e->value, m->has_pass = 1;
        } else if (!strcmp(k, "pass_next")) {
            m->pass_next = e->value, m->has_pass = 1;
        } else if (!strcmp(k, "cma_mutual")) {
            m->cma_mutual = e->value;
        } else if (!strcmp(k, "cma_context")) {
            m->cma_context = e->value;
        }
    }
    m->measured = m->n_ws || m->has_knee || m->has_conc_hot ||
                  m->has_conc_cold || m->has_alpha_write ||
                  m->has_lock_write || m->has_beta_write;
}

static double key_sync_step(const acc *a)
{
    return a->mk ? a->mk->sync_step : kcal_params_get(a->prm, "sync_step", 0);
}

static double key_sm_flag(const acc *a)
{
    return a->mk ? a->mk->sm_flag : kcal_params_get(a->prm, "sm_flag", 0);
}

static double key_cma_mutual(const acc *a)
{
    return a->mk ? a->mk->cma_mutual
                 : kcal_params_get(a->prm, "cma_mutual", 0);
}

static double key_cma_context(const acc *a)
{
    return a->mk ? a->mk->cma_context
                 : kcal_params_get(a->prm, "cma_context", 0);
}

static void key_dirty(const acc *a, double *e, double *cap)
{
    *e = a->mk ? a->mk->dirty_beta : kcal_params_get(a->prm, "dirty_beta", 0);
    *cap = a->mk ? a->mk->dirty_bytes
                 : kcal_params_get(a->prm, "dirty_bytes", 0);
}

/* The pass keys; 0 when the params have none of them. */
static int key_pass(const acc *a, double *pa, double *pb, double *next)
{
    if (a->mk) {
        *pa = a->mk->pass_a, *pb = a->mk->pass_b, *next = a->mk->pass_next;
        return a->mk->has_pass;
    }
    *pa = kcal_params_get(a->prm, "pass_a", 0);
    *pb = kcal_params_get(a->prm, "pass_b", 0);
    *next = kcal_params_get(a->prm, "pass_next", 0);
    return kcal_params_find(a->prm, "pass_a") ||
           kcal_params_find(a->prm, "pass_b") ||
           kcal_params_find(a->prm, "pass_next");
}

/* Time per byte at working set w from a curve of n >= 1 points. */
static double curve_at(const double *ws, const double *b, size_t n, double w)
{
    if (w <= ws[0])
        return b[0];
    for (size_t i = 1; i < n; i++)
        if (w <= ws[i]) {
            double f = log(w / ws[i - 1]) / log(ws[i] / ws[i - 1]);
            return exp(log(b[i - 1]) + f * (log(b[i]) - log(b[i - 1])));
        }
    return b[n - 1];
}

/* β at working set w from the curve (n_ws >= 1). */
static double ws_beta(const measured_keys *m, double w)
{
    return curve_at(m->ws, m->ws_beta, m->n_ws, w);
}

/* Where β lies between in cache (0) and out of it (1). */
static double coldness(const measured_keys *m, const kcal_params *prm,
                       double beta, double foot)
{
    if (m->n_ws >= 2) {
        double lo = m->ws_beta[0], hi = m->ws_beta[m->n_ws - 1];
        if (!(hi > lo))
            return 0;
        double f = log(beta / lo) / log(hi / lo);
        return f < 0 ? 0 : f > 1 ? 1 : f;
    }
    double cache = m->knee > 0 ? m->knee : m->l3;
    (void)prm;
    return cache > 0 && foot < cache ? 0 : 1;
}

static double full_beta(const measured_keys *m, double beta, kcal_coll c,
                        const kcal_algorithm *alg, int p, uint64_t n)
{
    if (m->beta_hot > 0 && m->l3 > 0 && footprint(c, alg, p, n) < m->l3)
        return m->beta_hot;
    return beta;
}

static void full_copy(const kcal_params *prm, const measured_keys *mp,
                      kcal_coll c, const kcal_algorithm *alg, int p, int k,
                      uint64_t n, kcal_full_copy *out)
{
    const measured_keys m = *mp;
    memset(out, 0, sizeof *out);
    out->footprint = footprint(c, alg, p, n);
    double f = out->footprint;
    if (m.n_ws) {
        /* Each core's caches hold its process's working set, until the
         * node's buffers together no longer fit the cache the cores share
         * (the measured knee): then they come from memory. */
        out->working_set = working_set(c, alg, p, k, n);
        if (m.knee > 0 && f >= m.knee)
            out->working_set = f;
        out->beta = ws_beta(&m, out->working_set);
        out->beta_source = KCAL_BETA_FROM_WS;
        if (m.n_mws)
            out->beta_local = curve_at(m.mws, m.mws_beta, m.n_mws,
                                       out->working_set);
    } else if (m.beta_hot > 0 && (m.knee > 0 || m.l3 > 0)) {
        double cache = m.knee > 0 ? m.knee : m.l3;
        out->beta = f < cache ? m.beta_hot : prm->beta;
        out->beta_source = m.knee > 0 ? KCAL_BETA_FROM_KNEE : KCAL_BETA_FROM_L3;
    } else {
        out->beta = prm->beta;
        out->beta_source = KCAL_BETA_FROM_BETA;
    }
    out->concurrent = 1;
    out->delta = 1;
    kcal_shape sh;
    if (alg && kcal_model_shape(c, alg, p, k, &sh) == 0 && p > 1)
        out->concurrent = sh.concurrent;
    if ((m.has_conc_hot || m.has_conc_cold) && out->concurrent > 1) {
        double kh = m.has_conc_hot ? m.conc_hot : m.conc_cold;
        double kc = m.has_conc_cold ? m.conc_cold : m.conc_hot;
        double w = coldness(&m, prm, out->beta, f);
        out->conc = kh + w * (kc - kh);
        out->delta = 1 + out->conc * (out->concurrent - 1);
    }
    size_t len = alg ? strlen(alg->id) : 0;
    out->writes = len > 6 && !strcmp(alg->id + len - 6, "_write");
    out->alpha = prm->alpha;
    out->lock = prm->lock;
    out->write_scale = 1;
    if (out->writes) {
        if (m.has_alpha_write)
            out->alpha = m.alpha_write, out->write_keys |= 1;
        if (m.has_lock_write)
            out->lock = m.lock_write, out->write_keys |= 2;
        if (m.has_beta_write && prm->beta > 0)
            out->write_scale = m.beta_write / prm->beta, out->write_keys |= 4;
    }
    if (!(out->beta_local > 0))
        out->beta_local = out->beta;
    out->beta_local *= out->delta; /* a process's own copies: no write */
    out->beta *= out->delta * out->write_scale;
}

kcal_model_kind kcal_model_default(const kcal_params *prm)
{
    return kcal_model_full_measured(prm) ? KCAL_MODEL_FULL : KCAL_MODEL_PAPER;
}

void kcal_model_full_copy(const kcal_params *prm, kcal_coll c,
                          const kcal_algorithm *alg, int p, int k, uint64_t n,
                          kcal_full_copy *out)
{
    measured_keys m;
    measured_keys_get(prm, &m);
    full_copy(prm, &m, c, alg, p, k, n, out);
}

int kcal_model_full_measured(const kcal_params *prm)
{
    measured_keys m;
    measured_keys_get(prm, &m);
    return m.measured;
}

/* Apply them to one call: its β, and for a *_write row a params copy
 * (*wp, which the caller keeps alive for the formula) with the write keys. */
static void full_measured(acc *a, kcal_coll c, const kcal_algorithm *alg,
                          int k, int p, kcal_params *wp)
{
    if (!a->mk->measured)
        return;
    kcal_full_copy fc;
    full_copy(a->prm, a->mk, c, alg, p, k, a->n, &fc);
    a->beta = fc.beta;
    a->beta_local = fc.beta_local;
    if (fc.write_keys & 3) {
        *wp = *a->prm;
        wp->alpha = fc.alpha;
        wp->lock = fc.lock;
        a->prm = wp;
    }
}

static void paper_time(acc *a, const kcal_algorithm *alg, int k, int p)
{
    if (p == 1) { /* model.md: for p = 1 every collective is a local copy */
        add_memcpy(a);
        return;
    }
    facts[alg->index].paper(a, p, k);
}

static void full_time(acc *a, kcal_coll c, const kcal_algorithm *alg, int k,
                      int p)
{
    kcal_params wp; /* the *_write rows' keys (full_measured) */
    measured_keys m;
    measured_keys_get(a->prm, &m); /* one pass over the params per call */
    a->full = 1;
    a->mk = &m;
    a->beta = full_beta(&m, a->prm->beta, c, alg, p, a->n);
    a->beta_local = a->beta;
    full_measured(a, c, alg, k, p, &wp);
    if (p == 1) {
        add_memcpy(a);
        return;
    }
    facts[alg->index].full(a, p, k);
    add_context(a);
}

const kcal_algorithm *kcal_model_mpi(kcal_coll c)
{
    return (c >= 0 && c < KCAL_COLL_COUNT) ? &mpi_rows[c] : NULL;
}

int kcal_model_is_mpi(const kcal_algorithm *alg)
{
    return alg && alg >= mpi_rows && alg < mpi_rows + KCAL_COLL_COUNT;
}

int kcal_model_size_class(uint64_t n)
{
    /* On every call libkcoll hands to the MPI library above the crossover
     * (kcoll.c): one instruction, where a shift loop took 11 at 2 KiB. */
    return n > 1 ? 63 - __builtin_clzll(n) : 0;
}

int kcal_model_handed_off(double below, double mask, uint64_t n)
{
    if ((double)n < below)
        return 1;
    int i = kcal_model_size_class(n);
    /* mask holds whole bits below 2^53 (the params keep doubles). */
    if (!(below > 0) || !(mask >= 1) || !(mask < 9007199254740992.0) ||
        i > 52)
        return 0;
    return ((uint64_t)mask >> i) & 1;
}

/* T_mpi(p, n) = a + b·v where the params hand n to the MPI library
 * (model.h); the terms: a as start-up, b·v as copy. */
static double mpi_time(const kcal_params *prm, kcal_coll c, int p, uint64_t n,
                       kcal_terms *t)
{
    char ka[40], kb[40], kbelow[40], kmask[40];
    if (c < 0 || c >= KCAL_COLL_COUNT || p < 2)
        return -1;
    snprintf(ka, sizeof ka, "mpi_%s_a", coll_names[c]);
    snprintf(kb, sizeof kb, "mpi_%s_b", coll_names[c]);
    snprintf(kbelow, sizeof kbelow, "mpi_%s_below", coll_names[c]);
    snprintf(kmask, sizeof kmask, "mpi_%s_mask", coll_names[c]);
    const kcal_param *a = kcal_params_find(prm, ka);
    const kcal_param *b = kcal_params_find(prm, kb);
    const kcal_param *below = kcal_params_find(prm, kbelow);
    const kcal_param *mask = kcal_params_find(prm, kmask);
    if (!a || !b || !below || a->is_text || b->is_text || below->is_text ||
        !kcal_model_handed_off(below->value,
                               mask && !mask->is_text ? mask->value : 0, n))
        return -1;
    double v = (double)n * (c == KCAL_COLL_BCAST ? kcal_ceil_log2(p) : p - 1);
    double s = a->value + b->value * v;
    if (!isfinite(s))
        return -1;
    if (t)
        *t = (kcal_terms){.startup = a->value, .copy = b->value * v};
    return s;
}

double kcal_model_mpi_time(const kcal_params *prm, kcal_coll c, int p,
                           uint64_t n)
{
    return mpi_time(prm, c, p, n, NULL);
}

static int model_ok(kcal_model_kind m)
{
    return m == KCAL_MODEL_PAPER || m == KCAL_MODEL_FULL;
}

/* alg is a row of the registry, of collective c. */
static int is_alg_of(kcal_coll c, const kcal_algorithm *alg)
{
    return alg && alg->index >= 0 && alg->index < KCAL_ALG_COUNT &&
           alg == &registry[alg->index] && alg->coll == c;
}

int kcal_model_shape(kcal_coll c, const kcal_algorithm *alg, int p, int k,
                     kcal_shape *out)
{
    if (!is_alg_of(c, alg) || p < 1 || k < 0)
        return -1;
    out->steps = count_of(facts[alg->index].steps, p, k);
    if (out->steps < 1) /* p = 1: ⌈log₂ 1⌉ = p − 1 = 0 steps */
        out->steps = 1;
    out->concurrent = count_of(facts[alg->index].concurrent, p, k);
    if (out->concurrent < 1) /* p = 1: direct_read's p − 1 readers */
        out->concurrent = 1;
    out->paper_charges_p = facts[alg->index].paper_charges_p;
    return 0;
}

double kcal_model_time(kcal_model_kind model, const kcal_params *prm,
                       kcal_coll c, const kcal_algorithm *alg, int k, int p,
                       uint64_t n, int in_place, kcal_terms *terms)
{
    if (!model_ok(model) || !is_alg_of(c, alg) || p < 1)
        return -1;
    /* At p = 1 there is no throttle range; the local copy stands for all. */
    if (p > 1 && !kcal_model_k_valid(alg, p, k))
        return -1;
    acc a;
    acc_init(&a, prm, n, in_place);
    if (model == KCAL_MODEL_FULL)
        full_time(&a, c, alg, k, p);
    else
        paper_time(&a, alg, k, p);
    if (terms)
        *terms = a.t;
    return a.t.startup + a.t.copy + a.t.lock + a.t.sync;
}

/* The (algorithm, k) pairs model.md ranks: every k of 2..p-1 (or only_k),
 * ring_neighbor with j = 1; only only_alg's when it is not NULL. Calls fn
 * for each, in model.md order and k ascending; stops early on non-zero. */
typedef int (*visit_fn)(void *ctx, const kcal_algorithm *alg, int k);

static int for_each_candidate(kcal_coll c, int p, int only_k,
                              const kcal_algorithm *only_alg, visit_fn fn,
                              void *ctx)
{
    size_t na;
    const kcal_algorithm *algs = kcal_model_algorithms(c, &na);
    for (size_t i = 0; i < na; i++) {
        const kcal_algorithm *alg = &algs[i];
        int rc = 0;
        if (only_alg && alg != only_alg)
            continue;
        if (alg->kind == KCAL_PARAM_NONE) {
            rc = fn(ctx, alg, 0);
        } else if (alg->kind == KCAL_PARAM_STRIDE) {
            rc = fn(ctx, alg, 1);
        } else if (only_k > 0) {
            if (kcal_model_k_valid(alg, p, only_k))
                rc = fn(ctx, alg, only_k);
        } else {
            for (int k = 2; k <= p - 1 && !rc; k++)
                rc = fn(ctx, alg, k);
        }
        if (rc)
            return rc;
    }
    return 0;
}

typedef struct {
    kcal_model_kind model;
    const kcal_params *prm;
    kcal_coll c;
    int p;
    uint64_t n;
    int in_place;
    kcal_prediction *out; /* rank: every prediction; find_nonfinite: one */
    size_t count, cap;
    kcal_choice best; /* select: the fastest finite one so far */
    size_t candidates;
} rank_ctx;

static int collect(void *vctx, const kcal_algorithm *alg, int k)
{
    rank_ctx *ctx = vctx;
    kcal_prediction *grown = kcal_grow(ctx->out, &ctx->cap, ctx->count,
                                       sizeof *grown, 16);
    if (!grown)
        return -1;
    ctx->out = grown;
    kcal_prediction *pr = &ctx->out[ctx->count++];
    pr->alg = alg;
    pr->k = k;
    pr->seconds = kcal_model_time(ctx->model, ctx->prm, ctx->c, alg, k,
                                  ctx->p, ctx->n, ctx->in_place, &pr->terms);
    pr->rank = 0;
    return 0;
}

/* Fastest first; ties keep model.md's order (then smaller k first). */
static int by_time(const void *va, const void *vb)
{
    const kcal_prediction *a = va, *b = vb;
    if (a->seconds != b->seconds)
        return a->seconds < b->seconds ? -1 : 1;
    if (a->alg != b->alg)
        return a->alg < b->alg ? -1 : 1;
    return (a->k > b->k) - (a->k < b->k);
}

static int args_ok(kcal_model_kind model, kcal_coll c, int p)
{
    return model_ok(model) && c >= 0 && c < KCAL_COLL_COUNT && p >= 1;
}

/* The "mpi" row where it applies: first, ranked 1 (below the measured
 * crossover it is the choice), the algorithms keeping their own ranks.
 * 0, or -1 out of memory. */
static int add_mpi_row(rank_ctx *ctx)
{
    kcal_prediction m = {.alg = &mpi_rows[ctx->c], .k = 0, .rank = 1};
    m.seconds = mpi_time(ctx->prm, ctx->c, ctx->p, ctx->n, &m.terms);
    if (m.seconds < 0)
        return 0;
    kcal_prediction *grown = realloc(ctx->out, (ctx->count + 1) * sizeof *grown);
    if (!grown)
        return -1;
    ctx->out = grown;
    memmove(ctx->out + 1, ctx->out, ctx->count * sizeof *ctx->out);
    ctx->out[0] = m;
    ctx->count++;
    return 0;
}

long kcal_model_rank(kcal_model_kind model, const kcal_params *prm,
                     kcal_coll c, int p, uint64_t n, int in_place, int only_k,
                     kcal_prediction **out)
{
    *out = NULL;
    if (!args_ok(model, c, p))
        return -1;
    rank_ctx ctx = {.model = model, .prm = prm, .c = c, .p = p, .n = n,
                    .in_place = in_place};
    if (for_each_candidate(c, p, only_k, NULL, collect, &ctx)) {
        free(ctx.out);
        return -1;
    }
    qsort(ctx.out, ctx.count, sizeof *ctx.out, by_time);
    /* Competition ranking: equal times share a rank (the three ring
     * allgathers always do in the paper model). */
    for (size_t i = 0; i < ctx.count; i++)
        ctx.out[i].rank = (i > 0 && ctx.out[i].seconds == ctx.out[i - 1].seconds)
                              ? ctx.out[i - 1].rank
                              : (int)i + 1;
    if (add_mpi_row(&ctx) < 0) {
        free(ctx.out);
        return -1;
    }
    *out = ctx.out;
    return (long)ctx.count;
}

static int first_nonfinite(void *vctx, const kcal_algorithm *alg, int k)
{
    rank_ctx *ctx = vctx;
    kcal_prediction *pr = ctx->out;
    pr->seconds = kcal_model_time(ctx->model, ctx->prm, ctx->c, alg, k,
                                  ctx->p, ctx->n, ctx->in_place, &pr->terms);
    if (isfinite(pr->seconds))
        return 0;
    pr->alg = alg;
    pr->k = k;
    pr->rank = 0;
    return 1;
}

int kcal_model_find_nonfinite(kcal_model_kind model, const kcal_params *prm,
                              kcal_coll c, int p, uint64_t n, int in_place,
                              int only_k, kcal_prediction *bad)
{
    if (!args_ok(model, c, p))
        return -1;
    kcal_prediction scratch;
    rank_ctx ctx = {.model = model, .prm = prm, .c = c, .p = p, .n = n,
                    .in_place = in_place, .out = &scratch};
    if (!for_each_candidate(c, p, only_k, NULL, first_nonfinite, &ctx))
        return 0;
    *bad = scratch;
    return 1;
}

/* Strictly faster replaces: the first of equal times stays, which is
 * kcal_model_rank's tie order. Infinite and NaN times never win. */
static int keep_best(void *vctx, const kcal_algorithm *alg, int k)
{
    rank_ctx *ctx = vctx;
    double s = kcal_model_time(ctx->model, ctx->prm, ctx->c, alg, k, ctx->p,
                               ctx->n, ctx->in_place, NULL);
    ctx->candidates++;
    if (isfinite(s) && s >= 0 && (!ctx->best.alg || s < ctx->best.seconds))
        ctx->best = (kcal_choice){alg, k, s};
    return 0;
}

int kcal_model_select(kcal_model_kind model, const kcal_params *prm,
                      kcal_coll c, int p, uint64_t n, int in_place,
                      const kcal_algorithm *only_alg, kcal_choice *out)
{
    if (!args_ok(model, c, p) || (only_alg && !is_alg_of(c, only_alg)))
        return KCAL_SELECT_NONE;
    rank_ctx ctx = {.model = model, .prm = prm, .c = c, .p = p, .n = n,
                    .in_place = in_place};
    for_each_candidate(c, p, 0, only_alg, keep_best, &ctx);
    /* Below the crossover the probe measured, the MPI library was faster
     * than every algorithm: a measurement outranks the predictions. */
    double t_mpi = only_alg ? -1 : mpi_time(prm, c, p, n, NULL);
    if (t_mpi >= 0)
        ctx.best = (kcal_choice){&mpi_rows[c], 0, t_mpi};
    if (!ctx.best.alg)
        return ctx.candidates ? KCAL_SELECT_NONFINITE : KCAL_SELECT_NONE;
    *out = ctx.best;
    return 0;
}
