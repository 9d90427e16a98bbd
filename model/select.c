/* select: a prediction, the ranking, the choice (docs/model.md "Ranking,
 * and what libkcoll picks"), and the MPI library's row ("The MPI library
 * as a candidate").
 *
 * Owns kcal_model_time (one (algorithm, k) in one model), the candidates
 * a collective has at p and their order, kcal_model_rank (what `kcal
 * predict` prints), kcal_model_select (what libkcoll runs: a scan, no
 * allocation, no shared state, so any thread may call it),
 * kcal_model_find_nonfinite, and the "mpi" row: the MPI library's measured
 * line where the params hand a size to it. */
#include "model/model_impl.h"
#include "common/grow.h"

#include <stdlib.h>

/* The MPI library's collective as a row (kcal_model_mpi): index -1, so it
 * never passes kcal_model_is_row_of and indexes no table. */
static const kcal_algorithm mpi_rows[KCAL_COLL_COUNT] = {
#define KCAL_COLLECTIVE(id, name)                                            \
    [KCAL_COLL_##id] = {KCAL_COLL_##id, "mpi", KCAL_PARAM_NONE, -1,           \
                        KCAL_ORIGIN_PAPER},
#include "model/collectives.def"
};

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
    if (c < 0 || c >= KCAL_COLL_COUNT || p < 2)
        return -1;
    const kcal_param *a = kcal_params_find_key(prm, KCAL_PK_MEMBER(mpi_a, c));
    const kcal_param *b = kcal_params_find_key(prm, KCAL_PK_MEMBER(mpi_b, c));
    const kcal_param *below =
        kcal_params_find_key(prm, KCAL_PK_MEMBER(mpi_below, c));
    const kcal_param *mask =
        kcal_params_find_key(prm, KCAL_PK_MEMBER(mpi_mask, c));
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

void kcal_model_call_setup(kcal_call_setup *s, const kcal_params *prm,
                           kcal_model_kind model, int p)
{
    memset(s, 0, sizeof *s);
    s->prm = prm;
    s->p = p;
    s->full = model == KCAL_MODEL_FULL;
    s->measured = s->full && kcal_model_full_measured(prm);
    s->sync_step = kcal_params_get_key(prm, KCAL_PK_sync_step, 0);
    if (p >= 2) { /* sm_at and flag_at, with log₂ p taken once */
        double log2_p = log2((double)p);
        double latency = s->full ? sm_latency(p, s->sync_step) : 0;
        double sm_flag = kcal_params_get_key(prm, KCAL_PK_sm_flag, 0);
        for (int op = 0; op < KCAL_SM_COUNT; op++) {
            s->sm[op] = sm_of(prm, s->full, (kcal_sm_op)op, log2_p, latency);
            s->flag[op] = flag_of(s->sm[op], sm_flag, s->sync_step);
        }
    }
    s->cma_context = kcal_params_get_key(prm, KCAL_PK_cma_context, 0);
    s->cma_mutual = kcal_params_get_key(prm, KCAL_PK_cma_mutual, 0);
    s->dirty_beta = kcal_params_get_key(prm, KCAL_PK_dirty_beta, 0);
    s->dirty_bytes = kcal_params_get_key(prm, KCAL_PK_dirty_bytes, 0);
    s->pass_a = kcal_params_get_key(prm, KCAL_PK_pass_a, 0);
    s->pass_b = kcal_params_get_key(prm, KCAL_PK_pass_b, 0);
    s->pass_next = kcal_params_get_key(prm, KCAL_PK_pass_next, 0);
    s->pass_mutual = kcal_params_get_key(prm, KCAL_PK_pass_mutual, 0);
    s->has_pass = kcal_params_has_key(prm, KCAL_PK_pass_a) ||
                  kcal_params_has_key(prm, KCAL_PK_pass_b) ||
                  kcal_params_has_key(prm, KCAL_PK_pass_next);
}

double kcal_model_time(kcal_model_kind model, const kcal_params *prm,
                       kcal_coll c, const kcal_algorithm *alg, int k, int p,
                       uint64_t n, int in_place, kcal_terms *terms)
{
    return kcal_model_time_with(model, prm, c, alg, k, p, n, in_place, terms,
                                NULL, NULL);
}

/* The terms of (alg, k) into a, which acc_init set up for the call;
 * returns the time. alg, k and p are valid. */
static double time_of(acc *a, kcal_model_kind model, kcal_coll c,
                      const kcal_algorithm *alg, int k, int p,
                      const kcal_copy_base *base, kcal_terms *terms)
{
    if (model == KCAL_MODEL_FULL)
        kcal_model_full_time(a, c, alg, k, p, base);
    else
        kcal_model_paper_time(a, alg, k, p);
    if (terms)
        *terms = a->t;
    return a->t.startup + a->t.copy + a->t.lock + a->t.sync;
}

/* kcal_model_time_with with the own block apart: `own` bytes (n but for
 * a v-collective's pair). */
static double time_own(kcal_model_kind model, const kcal_params *prm,
                       kcal_coll c, const kcal_algorithm *alg, int k, int p,
                       uint64_t n, uint64_t own, int in_place,
                       kcal_terms *terms, const kcal_copy_base *base,
                       const kcal_call_setup *setup)
{
    if (!kcal_model_kind_ok(model) || !kcal_model_is_row_of(c, alg) || p < 1)
        return -1;
    /* At p = 1 there is no throttle range; the local copy stands for all. */
    if (p > 1 && !kcal_model_k_valid(alg, p, k))
        return -1;
    kcal_call_setup mine;
    if (!setup || setup->prm != prm || setup->p != p ||
        setup->full != (model == KCAL_MODEL_FULL)) {
        kcal_model_call_setup(&mine, prm, model, p);
        setup = &mine;
    }
    acc a;
    acc_init(&a, setup, n, in_place);
    a.own = (double)own;
    return time_of(&a, model, c, alg, k, p, base, terms);
}

double kcal_model_time_with(kcal_model_kind model, const kcal_params *prm,
                            kcal_coll c, const kcal_algorithm *alg, int k,
                            int p, uint64_t n, int in_place, kcal_terms *terms,
                            const kcal_copy_base *base,
                            const kcal_call_setup *setup)
{
    return time_own(model, prm, c, alg, k, p, n, n, in_place, terms, base,
                    setup);
}

double kcal_model_pair_time(kcal_model_kind model, const kcal_params *prm,
                            kcal_coll c, const kcal_algorithm *alg, int k,
                            int p, uint64_t n, uint64_t own,
                            kcal_terms *terms)
{
    return p < 2 ? -1
                 : time_own(model, prm, c, alg, k, p, n, own, 0, terms, NULL,
                            NULL);
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
    size_t count;
    kcal_choice best; /* select: the fastest finite one so far */
    size_t candidates;
    /* What the candidates share, so it is worked out once and not once
     * per (algorithm, k): the call's setup (its T_sm_X at p and the keys
     * the terms read), the accumulator acc_init sets up for the call
     * (the params' α, β, l and n's pages), and the full model's copy base
     * of the algorithm being visited, which holds for all its k and is
     * made again when the visit moves on to the next algorithm (none
     * without the probe's copy measurements). All live in this
     * context, on the stack of one rank, select or find_nonfinite call:
     * nothing is shared between calls or threads. */
    kcal_call_setup setup;
    acc call;
    const kcal_algorithm *base_alg;
    kcal_copy_base base;
} rank_ctx;

static void ctx_init(rank_ctx *ctx, kcal_model_kind model,
                     const kcal_params *prm, kcal_coll c, int p, uint64_t n,
                     int in_place)
{
    memset(ctx, 0, sizeof *ctx);
    ctx->model = model;
    ctx->prm = prm;
    ctx->c = c;
    ctx->p = p;
    ctx->n = n;
    ctx->in_place = in_place;
    kcal_model_call_setup(&ctx->setup, prm, model, p);
    acc_init(&ctx->call, &ctx->setup, n, in_place);
}

static const kcal_copy_base *base_of(rank_ctx *ctx, const kcal_algorithm *alg)
{
    if (ctx->model != KCAL_MODEL_FULL || !ctx->setup.measured)
        return NULL;
    if (ctx->base_alg != alg) {
        kcal_model_copy_base(ctx->prm, ctx->c, alg, ctx->p, ctx->n,
                             &ctx->base);
        ctx->base_alg = alg;
    }
    return &ctx->base;
}

/* One candidate's time: kcal_model_time's, from what the candidates
 * share. for_each_candidate yields only rows of c and k valid at p, so
 * kcal_model_time_with's checks are left out. */
static double candidate_time(rank_ctx *ctx, const kcal_algorithm *alg, int k,
                             kcal_terms *terms)
{
    acc a = ctx->call;
    return time_of(&a, ctx->model, ctx->c, alg, k, ctx->p, base_of(ctx, alg),
                   terms);
}

static int collect(void *vctx, const kcal_algorithm *alg, int k)
{
    rank_ctx *ctx = vctx;
    kcal_prediction *pr = &ctx->out[ctx->count++];
    pr->alg = alg;
    pr->k = k;
    pr->seconds = candidate_time(ctx, alg, k, &pr->terms);
    pr->rank = 0;
    return 0;
}

static int count_one(void *vctx, const kcal_algorithm *alg, int k)
{
    (void)alg, (void)k;
    ((rank_ctx *)vctx)->candidates++;
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

/* by_time's order without qsort. The candidates come in model.md's order,
 * k ascending, which is by_time's order among equal times, so a stable
 * sort on the time alone gives by_time's permutation. At p = 1024 qsort's
 * indirect sort of the 64-byte predictions through by_time took longer
 * than computing them; this merges (time, index) pairs with the
 * comparison inline. With a NaN time by_time is no order and the result
 * depends on how the sort goes, so those rankings still go to qsort. */
struct kcal_rank_key {
    double seconds;
    size_t index; /* in model.md order */
};

/* Sorts v[0..n) stably by time, tmp[0..n) as room and runs[0..n] for
 * where runs start; returns whichever of v and tmp holds the result.
 * Candidates come in runs: a throttled family's times fall where
 * ⌈(p−1)/k⌉ falls with every k, and rise with k within each stair of
 * equal step counts: about 30 runs at p = 1024, each rising, or falling
 * without two equal times (so turning it round keeps ties in order).
 * Merging those, left run first on ties, takes 5 passes where merging
 * runs of 1, 2, 4, ... took 11, and the sort was the largest part of a
 * ranking after the candidates' times (scripts/bench-predict). */
static struct kcal_rank_key *sort_keys(struct kcal_rank_key *v,
                                       struct kcal_rank_key *tmp,
                                       size_t *runs, size_t n)
{
    size_t nr = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        if (j < n && v[j].seconds < v[i].seconds) {
            while (j < n && v[j].seconds < v[j - 1].seconds)
                j++;
            for (size_t a = i, b = j - 1; a < b; a++, b--) {
                struct kcal_rank_key t = v[a];
                v[a] = v[b];
                v[b] = t;
            }
        } else {
            while (j < n && !(v[j].seconds < v[j - 1].seconds))
                j++;
        }
        runs[nr++] = i;
        i = j;
    }
    runs[nr] = n;
    while (nr > 1) {
        size_t merged = 0;
        for (size_t r = 0; r < nr; r += 2) {
            size_t lo = runs[r], mid = r + 1 < nr ? runs[r + 1] : n;
            size_t hi = r + 1 < nr ? runs[r + 2] : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi) /* the left run first on ties */
                tmp[o++] = v[j].seconds < v[i].seconds ? v[j++] : v[i++];
            while (i < mid)
                tmp[o++] = v[i++];
            while (j < hi)
                tmp[o++] = v[j++];
            runs[merged++] = lo;
        }
        runs[merged] = n;
        nr = merged;
        struct kcal_rank_key *t = v;
        v = tmp;
        tmp = t;
    }
    return v;
}

static int args_ok(kcal_model_kind model, kcal_coll c, int p)
{
    return kcal_model_kind_ok(model) && c >= 0 && c < KCAL_COLL_COUNT && p >= 1;
}

/* out[0..count), the candidates in model.md order, sorted fastest first
 * (by_time) and ranked; keys has room for 2·count, runs for count + 1. */
static void sort_and_rank(kcal_prediction *out, size_t count,
                          struct kcal_rank_key *keys, size_t *runs)
{
    int nan = 0;
    for (size_t i = 0; i < count; i++) {
        keys[i] = (struct kcal_rank_key){out[i].seconds, i};
        nan |= isnan(out[i].seconds);
    }
    if (nan) {
        qsort(out, count, sizeof *out, by_time);
    } else {
        struct kcal_rank_key *k = sort_keys(keys, keys + count, runs, count);
        /* out[i] = the old out[k[i].index], in place: each cycle of the
         * permutation with one prediction put aside (k[j].index = j marks
         * a place done). */
        for (size_t i = 0; i < count; i++) {
            if (k[i].index == i)
                continue;
            kcal_prediction first = out[i];
            size_t j = i;
            while (k[j].index != i) {
                size_t from = k[j].index;
                out[j] = out[from];
                k[j].index = j;
                j = from;
            }
            out[j] = first;
            k[j].index = j;
        }
    }
    /* Competition ranking: equal times share a rank (the three ring
     * allgathers always do in the paper model). */
    for (size_t i = 0; i < count; i++)
        out[i].rank = (i > 0 && out[i].seconds == out[i - 1].seconds)
                          ? out[i - 1].rank
                          : (int)i + 1;
}

long kcal_model_rank_into(kcal_model_kind model, const kcal_params *prm,
                          kcal_coll c, int p, uint64_t n, int in_place,
                          int only_k, kcal_ranking *r)
{
    if (!args_ok(model, c, p))
        return -1;
    rank_ctx ctx;
    ctx_init(&ctx, model, prm, c, p, n, in_place);
    for_each_candidate(c, p, only_k, NULL, count_one, &ctx);
    size_t count = ctx.candidates;
    /* The "mpi" row where it applies: first, ranked 1 (below the
     * measured crossover it is the choice), the algorithms keeping their
     * own ranks. */
    kcal_prediction m = {.alg = &mpi_rows[c], .k = 0, .rank = 1};
    m.seconds = mpi_time(prm, c, p, n, &m.terms);
    size_t off = m.seconds >= 0;
    if (!count && !off)
        return 0;
    kcal_prediction *pred = kcal_grow_to(r->pred, &r->cap, off + count,
                                         sizeof *pred, 1);
    if (!pred)
        return -1;
    r->pred = pred;
    if (off)
        pred[0] = m;
    if (!count)
        return 1;
    struct kcal_rank_key *keys =
        count <= SIZE_MAX / 2 ? kcal_grow_to(r->keys, &r->keys_cap, 2 * count,
                                             sizeof *keys, 1)
                              : NULL;
    if (!keys)
        return -1;
    r->keys = keys;
    size_t *runs = kcal_grow_to(r->runs, &r->runs_cap, count + 1,
                                sizeof *runs, 1);
    if (!runs)
        return -1;
    r->runs = runs;
    ctx.out = pred + off;
    for_each_candidate(c, p, only_k, NULL, collect, &ctx);
    sort_and_rank(pred + off, count, keys, runs);
    return (long)(off + count);
}

void kcal_ranking_free(kcal_ranking *r)
{
    free(r->pred);
    free(r->keys);
    free(r->runs);
    *r = (kcal_ranking){0};
}

long kcal_model_rank(kcal_model_kind model, const kcal_params *prm,
                     kcal_coll c, int p, uint64_t n, int in_place, int only_k,
                     kcal_prediction **out)
{
    kcal_ranking r = {0};
    long count = kcal_model_rank_into(model, prm, c, p, n, in_place, only_k,
                                      &r);
    *out = count > 0 ? r.pred : NULL;
    if (count > 0)
        r.pred = NULL; /* the caller's now */
    kcal_ranking_free(&r);
    return count;
}

static int first_nonfinite(void *vctx, const kcal_algorithm *alg, int k)
{
    rank_ctx *ctx = vctx;
    kcal_prediction *pr = ctx->out;
    pr->seconds = candidate_time(ctx, alg, k, &pr->terms);
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
    rank_ctx ctx;
    ctx_init(&ctx, model, prm, c, p, n, in_place);
    ctx.out = &scratch;
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
    double s = candidate_time(ctx, alg, k, NULL);
    ctx->candidates++;
    if (isfinite(s) && s >= 0 && (!ctx->best.alg || s < ctx->best.seconds))
        ctx->best = (kcal_choice){alg, k, s};
    return 0;
}

int kcal_model_select(kcal_model_kind model, const kcal_params *prm,
                      kcal_coll c, int p, uint64_t n, int in_place,
                      const kcal_algorithm *only_alg, kcal_choice *out)
{
    if (!args_ok(model, c, p) || (only_alg && !kcal_model_is_row_of(c, only_alg)))
        return KCAL_SELECT_NONE;
    rank_ctx ctx;
    ctx_init(&ctx, model, prm, c, p, n, in_place);
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
