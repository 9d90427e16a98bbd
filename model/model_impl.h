/* model_impl: what the files of the model share, private to model/
 * (model.h is what the rest of kcal sees).
 *
 * Owns a call's setup (what its candidates share: kcal_call_setup), the
 * accumulator of a prediction (acc) and the terms every formula is built
 * of, as model.md's notation writes them: X(n) = α + n·β,
 * P(c, n) = l·γ(c)·pages(n), T_memcpy, T_sm_X, F_X, and the full model's
 * μ, cma_context, sync_step, dirty and pass terms. They are small and
 * called once per term of every prediction, so they are static inline
 * here. Terms are accumulated by cause (start-up, copy, lock, sync) so
 * `kcal predict --explain` can show where the time goes; the predicted
 * time is their sum.
 *
 * The files:
 *   registry.c     the registry's rows (algorithms.def) as the model sees
 *                  them: ids, shapes, the formula of each row in each model
 *   paper.c        the paper's notation and formulas (--model paper)
 *   full.c         the full model's formulas (--model full)
 *   derived.c      the derived rows' formulas, both models
 *   working_set.c  footprints, working sets, the measured β(W) curves:
 *                  which β a call's copies get in the full model
 *   select.c       a prediction, the ranking, the choice, and the MPI
 *                  library's row */
#ifndef KCAL_MODEL_IMPL_H
#define KCAL_MODEL_IMPL_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "model/model.h"

/* What every candidate of one call (a collective at p processes: a
 * ranking, a choice, one prediction) shares and that depends on the
 * params, the model and p alone, not on the algorithm, k or n: the
 * synchronisation terms at p and the optional keys the terms read. A
 * ranking at p = 1024 visits ~1000 (algorithm, k) per size, and each of
 * them took log₂ p again for every T_sm_X, looked the same keys up and
 * asked whether the params are measured (scripts/bench-predict). Made once
 * per call by kcal_model_call_setup; the values are the doubles the terms
 * computed themselves, so no digit changes. */
typedef struct kcal_call_setup {
    const kcal_params *prm;
    int p;
    int full;     /* the full model: sm holds its T_sm_X */
    int measured; /* full and kcal_model_full_measured(prm) */
    double sm[KCAL_SM_COUNT];   /* sm_time at p */
    double flag[KCAL_SM_COUNT]; /* flag_cost at p */
    double sync_step, cma_context, cma_mutual; /* the keys, 0 when */
    double dirty_beta, dirty_bytes, pass_a, pass_b, pass_next; /* absent */
    double pass_mutual; /* 0 absent: pass_next then */
    int has_pass; /* any of the pass keys */
} kcal_call_setup;

/* select.c: the setup of a call of `model` at p. */
void kcal_model_call_setup(kcal_call_setup *s, const kcal_params *prm,
                           kcal_model_kind model, int p);

/* T_sm_X(p) = sm_X_a + sm_X_b·log₂ p. The probe times a chain of
 * back-to-back collectives, in which each call's messages overlap the
 * previous call's tail: a throughput. A copy that waits for the
 * synchronisation sees its latency, at least ⌈lg p⌉ control messages one
 * after the other (a binomial tree, recursive doubling, a dissemination
 * barrier), each sync_step (half an 8-byte ping-pong). The full model
 * charges the larger of the two; the paper model T_sm_X as measured. */
static inline double sm_of(const kcal_params *prm, int full, kcal_sm_op op,
                           double log2_p, double latency)
{
    double t = prm->sm_a[op] + prm->sm_b[op] * log2_p;
    if (full && latency > t)
        t = latency;
    return t;
}

/* sm_of's latency: ⌈lg p⌉·sync_step. */
static inline double sm_latency(int p, double sync_step)
{
    return kcal_ceil_log2(p) * sync_step;
}

/* T_sm_X at p (0 below p = 2). */
static inline double sm_at(const kcal_params *prm, int full, kcal_sm_op op,
                           int p)
{
    if (p < 2)
        return 0;
    double step = kcal_params_get_key(prm, KCAL_PK_sync_step, 0);
    return sm_of(prm, full, op, log2((double)p),
                 full ? sm_latency(p, step) : 0);
}

/* F_X, a synchronisation of pattern X through libkcoll's shared-memory
 * flags (the derived rows): the MPI library's T_sm_X, each of its
 * messages replaced by a flag, so scaled by sm_flag / sync_step (one flag
 * seen by a polling process against one 8-byte MPI message, both half of
 * a ping-pong measured by kcal probe). Without both keys, T_sm_X. */
static inline double flag_of(double t, double sm_flag, double sync_step)
{
    return sm_flag > 0 && sync_step > 0 ? t * sm_flag / sync_step : t;
}

/* F_X at p (0 below p = 2). */
static inline double flag_at(const kcal_params *prm, int full,
                             kcal_sm_op op, int p)
{
    if (p < 2)
        return 0;
    return flag_of(sm_at(prm, full, op, p),
                   kcal_params_get_key(prm, KCAL_PK_sm_flag, 0),
                   kcal_params_get_key(prm, KCAL_PK_sync_step, 0));
}

typedef struct acc {
    const kcal_params *prm;
    const kcal_call_setup *setup; /* of prm, for every acc of the call */
    uint64_t n;
    double pages;
    int in_place;
    double own;   /* bytes of the process's own block, which T_memcpy copies
                   * locally: n, except for a v-collective's pair
                   * (kcal_model_pair_time), whose own block has a size of
                   * its own */
    double alpha; /* s: α of this call's CMA calls (alpha_write for a
                   * *_write row in the full model) */
    double lock;  /* s/page: l, likewise lock_write */
    double beta;  /* s/byte of this call's copies: β (the full model's
                   * β of the call's working set, δ and write scale
                   * included: working_set.c) */
    double beta_local; /* s/byte of a copy within one process's memory
                        * (T_memcpy, copy_in_out's staging): β, or the
                        * full model's memcpy_ws curve */
    int full;     /* the full model: synchronisations at their latency */
    kcal_terms t;
} acc;

/* One formula: adds the terms of its row at p processes, parameter k. */
typedef void (*kcal_formula)(acc *a, int p, int k);

/* Every formula the registry names (algorithms.def's paper and full
 * columns), defined in paper.c, full.c and derived.c. */
#define KCAL_ALGORITHM(coll, id, kind, fn, paper, full, ...)                  \
    void kcal_##paper(acc *a, int p, int k);                                  \
    void kcal_##full(acc *a, int p, int k);
#include "model/algorithms.def"

/* ---- the registry's model half (registry.c) ---- */

/* algorithms.def's counts, functions of p and k (kcal_model_count). */
typedef enum {
    N_0, N_1, N_2, N_P, N_P_MINUS_1, N_TWO_P_MINUS_1, N_K, N_P_OVER_K, N_LOG_K_P,
    N_LOG2_P
} kcal_count_expr;

/* The working set of the busiest process (algorithms.def's ws column). */
typedef enum {
    WS_PAIR, WS_ROOT_ALL, WS_ROOT_WRITES, WS_CHUNKS, WS_GATHERED, WS_EXCHANGE
} kcal_ws_shape;

typedef struct {
    kcal_formula paper, full;
    kcal_count_expr steps, concurrent, scratch;
    int paper_charges_p;
    kcal_ws_shape ws;
} kcal_row_facts;

/* Per algorithm, by its index: its formula in each model and the shape
 * facts of its row. */
extern const kcal_row_facts kcal_model_facts[KCAL_ALG_COUNT];

/* k = 0 (a throttle factor not known) counts as one copy at a time; log_k p
 * has no value below k = 2, where it counts 1 step. Inline, as the next:
 * the full model's δ asks once per candidate of a ranking. */
static inline int kcal_model_count(kcal_count_expr e, int p, int k)
{
    switch (e) {
    case N_0: return 0;
    case N_1: return 1;
    case N_2: return 2;
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

/* kcal_model_shape's concurrent, for a row of the registry at p >= 1 and
 * k >= 0. */
static inline int kcal_model_copies_at_once(const kcal_algorithm *alg, int p,
                                            int k)
{
    int n = kcal_model_count(kcal_model_facts[alg->index].concurrent, p, k);
    return n < 1 ? 1 : n; /* p = 1: direct_read's p − 1 readers */
}
/* alg is a row of the registry, of collective c. */
int kcal_model_is_row_of(kcal_coll c, const kcal_algorithm *alg);
int kcal_model_kind_ok(kcal_model_kind m);

/* ---- working_set.c ---- */

/* kcal_model_footprint and kcal_model_working_set of a registry row (NULL:
 * the collective's buffers alone). */
double kcal_model_footprint_of(kcal_coll c, const kcal_algorithm *alg, int p,
                               uint64_t n);
double kcal_model_working_set_of(kcal_coll c, const kcal_algorithm *alg,
                                 int p, int k, uint64_t n);
/* kcal_model_full_copy in two steps: what does not depend on k (the
 * working set, the curves' β, the write keys, where β lies between the
 * cache's ends), once per (algorithm, p, n), and the rest (the copies at
 * once and their δ) per k. rank and select loop over k with one base. */
typedef struct {
    kcal_full_copy fc; /* concurrent, conc, delta unset; beta and
                        * beta_local before δ and the write scale */
    int has_conc;      /* conc_hot or conc_cold in the params */
    double conc_hot, conc_cold, coldness;
    double conc;       /* the k of δ(c) at this coldness */
} kcal_copy_base;
void kcal_model_copy_base(const kcal_params *prm, kcal_coll c,
                          const kcal_algorithm *alg, int p, uint64_t n,
                          kcal_copy_base *b);
void kcal_model_copy_finish(const kcal_copy_base *b, kcal_coll c,
                            const kcal_algorithm *alg, int p, int k,
                            kcal_full_copy *out);
/* What kcal_model_full_time needs of kcal_model_copy_finish, without
 * filling a kcal_full_copy for each k: δ of (alg, k), alg a row of the
 * base's collective (what copy_finish gives it), and the two β with a δ
 * (the out->beta and out->beta_local copy_finish gives). Once per
 * candidate of a ranking: the rates inline. */
double kcal_model_copy_delta(const kcal_copy_base *b,
                             const kcal_algorithm *alg, int p, int k);
static inline void kcal_model_copy_rates(const kcal_copy_base *b,
                                         double delta, double *beta,
                                         double *beta_local)
{
    double local = b->fc.beta_local > 0 ? b->fc.beta_local : b->fc.beta;
    *beta_local = local * delta; /* a process's own copies: no write */
    *beta = b->fc.beta * (delta * b->fc.write_scale);
}

/* kcal_model_time with the copy base of (c, alg, p, n) and the setup of
 * (prm, model, p) when the caller has them (NULL: made here; a setup of
 * other params, model or p is not used). */
double kcal_model_time_with(kcal_model_kind model, const kcal_params *prm,
                            kcal_coll c, const kcal_algorithm *alg, int k,
                            int p, uint64_t n, int in_place, kcal_terms *terms,
                            const kcal_copy_base *base,
                            const kcal_call_setup *setup);

/* β of one call without the β(W) curve: beta_hot where its footprint fits
 * in l3_cache and both keys are there, else β. */
double kcal_model_full_beta(const kcal_params *prm, kcal_coll c,
                            const kcal_algorithm *alg, int p, uint64_t n);

/* ---- the models' drivers ---- */

/* The paper's row of alg (paper.c), the full model's (full.c): the terms
 * of one call into *a, set up by acc_init. */
void kcal_model_paper_time(acc *a, const kcal_algorithm *alg, int k, int p);
void kcal_model_full_time(acc *a, kcal_coll c, const kcal_algorithm *alg,
                          int k, int p, const kcal_copy_base *base);

/* ---- the terms ---- */

/* γ(c) (kcal_model_gamma), inline: every P(c, n) term of every candidate
 * asks for it. */
static inline double gamma_at(const kcal_params *prm, int c)
{
    if (c <= 0)
        return 0;
    if (c == 1)
        return 1; /* model.md: one reader has no contention */
    return prm->gamma_a * (double)c * c + prm->gamma_b * c;
}

/* mult·X(n) = mult·(α + n·β) */
static inline void add_x(acc *a, double mult)
{
    a->t.startup += mult * a->alpha;
    a->t.copy += mult * (double)a->n * a->beta;
}

/* mult·P(c, n) = mult·l·γ(c)·pages(n); c = 1 gives the uncontended
 * l·pages. */
static inline void add_lock(acc *a, double mult, int c)
{
    a->t.lock += mult * a->lock * gamma_at(a->prm, c) * a->pages;
}

/* T_memcpy = own·β (0 in place; own = n but in a v-collective's pair) */
static inline void add_memcpy(acc *a)
{
    if (!a->in_place)
        a->t.copy += a->own * a->beta_local;
}

/* T_sm_X(p) (sm_of says how), from the call's setup. */
static inline double sm_time(const acc *a, kcal_sm_op op, int p)
{
    const kcal_call_setup *s = a->setup;
    return p == s->p && a->full == s->full
               ? s->sm[op]
               : sm_at(a->prm, a->full, op, p);
}

static inline void add_sm(acc *a, kcal_sm_op op, int p)
{
    a->t.sync += sm_time(a, op, p);
}

static inline void acc_init(acc *a, const kcal_call_setup *setup,
                            uint64_t n, int in_place)
{
    const kcal_params *prm = setup->prm;
    memset(a, 0, sizeof *a);
    a->prm = prm;
    a->setup = setup;
    a->n = n;
    a->pages = (double)kcal_pages(n, prm->page);
    a->in_place = in_place;
    a->own = (double)n;
    a->alpha = prm->alpha;
    a->lock = prm->lock;
    a->beta = prm->beta;
    a->beta_local = prm->beta;
}

/* A piece of a's call (scatter_allgather's halves, direct_split's two
 * sides): n bytes, with a's α, l, β and model. */
static inline void acc_piece(acc *piece, const acc *a, uint64_t n,
                             int in_place)
{
    acc_init(piece, a->setup, n, in_place);
    piece->alpha = a->alpha;
    piece->lock = a->lock;
    piece->beta = a->beta;
    piece->beta_local = a->beta_local;
    piece->full = a->full;
}

static inline void terms_add(kcal_terms *dst, const kcal_terms *src)
{
    dst->startup += src->startup;
    dst->copy += src->copy;
    dst->lock += src->lock;
    dst->sync += src->sync;
}

/* Full model (issue 8): calls·μ, μ = cma_mutual, for CMA calls whose
 * target process makes CMA calls of its own at the same moment (an
 * allgather's or alltoall's processes reading each other, a split row's
 * root and owner copying from each other): the call and the target's
 * take the target's memory-map and task locks at once, and their lines
 * bounce between the cores (probe/mutual.h). A start-up cost: it does not
 * grow with the bytes. Nothing in the paper model or without the key. */
static inline void add_mutual(acc *a, double calls)
{
    if (a->full)
        a->t.startup += calls * a->setup->cma_mutual;
}

/* Full model (issue 8): cma_context once for a collective that makes CMA
 * calls at all, on top of its calls' α. α comes from a loop of calls on
 * one passive target; in a collective the call follows a barrier and a
 * flag from the process it reads or writes, which costs more (docs/
 * machine.md "The Xeon guest: the first CMA call of a collective"). The probe's own
 * measurements of two one-call rows price it (fit/). Every start-up term
 * is a CMA call's (α, μ, a split row's chunks), so a row that charged one
 * makes calls. */
static inline void add_context(acc *a)
{
    if (a->full && a->t.startup > 0)
        a->t.startup += a->setup->cma_context;
}

/* mult·sync_step: `mult` steps each ending in a control message. */
static inline void add_steps(acc *a, double mult)
{
    a->t.sync += mult * a->setup->sync_step;
}

/* Reads of lines another process wrote earlier in the same call (issue 9):
 * the lines are modified in the writer core's private cache, and a copy
 * of them from another core pays dirty_beta per byte on the part still
 * there, at most dirty_bytes of what was written (older lines were written
 * back and read at the clean rate): extra = dirty_beta·min(bytes,
 * dirty_bytes) per such read, both measured by kcal probe (docs/probe.md
 * "Lines another core just wrote"). `count` reads of `bytes` each; 0
 * without the keys. */
static inline void add_dirty(acc *a, double bytes, double count)
{
    double e = a->setup->dirty_beta;
    double cap = a->setup->dirty_bytes;
    if (!(e > 0) || !(cap > 0) || !(count > 0))
        return;
    a->t.copy += count * e * (bytes < cap ? bytes : cap);
}

/* Whether the params hold any of the pass keys. */
static inline int has_pass(const acc *a)
{
    return a->setup->has_pass;
}

/* Chunks passed between cores through the staging areas (copy_in_out):
 * `streams` streams of m chunks of c bytes each on the critical path, each
 * paying beyond its copies pass_a + pass_b·c for its first chunk and
 * pass_next for each further one (kcal probe's pass phase, probe/pass.h:
 * the copy out of lines the other core just wrote, the copy in over lines
 * the other core read, the wait for the progress word). Params without
 * the pass keys (probed before they existed) charge dirty_beta on each
 * chunk instead, as the model did then. */
static inline void add_pass(acc *a, uint64_t c, uint64_t m, double streams)
{
    if (!(streams > 0) || !m)
        return;
    if (!has_pass(a)) {
        add_dirty(a, (double)c, streams * (double)m);
        return;
    }
    double pa = a->setup->pass_a;
    double pb = a->setup->pass_b;
    double next = a->setup->pass_next;
    a->t.copy += streams * (pa + pb * (double)c + (double)(m - 1) * next);
}

/* The same where every process copies out of the others' areas while they
 * copy out of its own (allgather, alltoall, allreduce, reduce_scatter_block
 * copy_in_out): each further chunk of the first `both` at pass_mutual (the
 * probe's mutual streams), where it was measured, the rest at pass_next.
 * both: the chunks the other side passes back meanwhile, m for the
 * regular collectives; a v-collective's pair passes back its own block's
 * (a skewed allgatherv's small block ends its stream early, and the large
 * block's later chunks then pass one way: priced all at pass_mutual, its
 * copy_in_out at 32 KiB under skew:16 was predicted at 2.4x the measured
 * time). One way's pass_next put those rows at 0.3-0.7 of their measured
 * time on the Zen 5 guest: a 16 KiB chunk passed both ways at once cost
 * 1.3-1.45 µs beyond its copies, one way 0.25-0.31. */
static inline void add_pass_mutual(acc *a, uint64_t c, uint64_t m,
                                   double streams, uint64_t both)
{
    double mu = a->setup->pass_mutual;
    if (!(mu > 0) || !m) {
        add_pass(a, c, m, streams);
        return;
    }
    uint64_t further_both = both < m ? (both ? both - 1 : 0) : m - 1;
    add_pass(a, c, m, streams);
    if (has_pass(a) && streams > 0)
        a->t.copy += streams * (double)further_both *
                     (mu - a->setup->pass_next);
}

/* F_X (flag_of says how), from the call's setup. */
static inline double flag_cost(const acc *a, kcal_sm_op op, int p)
{
    const kcal_call_setup *s = a->setup;
    return p == s->p && a->full == s->full
               ? s->flag[op]
               : flag_at(a->prm, a->full, op, p);
}

static inline void add_flag(acc *a, kcal_sm_op op, int p)
{
    a->t.sync += flag_cost(a, op, p);
}

#endif
