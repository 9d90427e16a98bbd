/* working_set: which β a call's copies get in the full model (model.md
 * "Which β a call uses").
 *
 * Owns the bytes a call touches (its footprint, summed over the node, and
 * the working set of its busiest process), the measured β(working set)
 * and memcpy-rate curves (beta_ws_<W>, memcpy_ws_<W>: their points are
 * read once, when the params are, model/params.c), the cache rule they
 * replace (beta_hot against l3_cache or cache_knee), the concurrent
 * copies' δ(c) and the write keys: kcal_model_full_copy, and which model
 * params default to.
 *
 * β(working set): the copy time per byte the probe measured with copies
 * rotating over working sets W of 64 KiB and up. A call's working set is
 * looked up on the curve, β interpolated linearly in log β over log W
 * between the two measured working sets around it (the smallest's below,
 * the largest's above). Without the curve, cache_knee (the measured knee),
 * else hwloc's l3_cache, decides between beta_hot and β.
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
#include "model/model_impl.h"

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
double kcal_model_footprint_of(kcal_coll c, const kcal_algorithm *alg, int p,
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
    case KCAL_COLL_REDUCE: /* the vector in and out (at the root) */
    case KCAL_COLL_ALLREDUCE: blocks = 2; break;
    case KCAL_COLL_REDUCE_SCATTER_BLOCK: blocks = dp + 1; break;
    default: return 0;
    }
    if (alg)
        blocks += kcal_model_count(kcal_model_facts[alg->index].scratch, p, 0);
    return dp * blocks * dn;
}

double kcal_model_footprint(kcal_coll c, const char *alg, int p, uint64_t n)
{
    return kcal_model_footprint_of(
        c, alg ? kcal_model_find_algorithm(c, alg) : NULL, p, n);
}

/* The bytes the busiest process's copies touch in one call: its own
 * buffers and the remote blocks it reads or writes, by the registry's ws
 * column (algorithms.def), plus its scratch blocks (bruck's p·n-byte
 * temporary). The β(W) curve is measured by one process on one core, so
 * this, not the node's sum, is the W to look it up at while each core's
 * private caches hold its own part. Without a row (alg NULL): the
 * collective's usual shape, as the first of its rows. p = 1: the local
 * copy's 2·n. */
double kcal_model_working_set_of(kcal_coll c, const kcal_algorithm *alg,
                                 int p, int k, uint64_t n)
{
    (void)k;
    double dn = (double)n, dp = p, blocks = 2;
    if (p <= 1)
        return 2 * dn;
    kcal_ws_shape shape = alg ? kcal_model_facts[alg->index].ws
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
        blocks += kcal_model_count(kcal_model_facts[alg->index].scratch, p, 0);
    return blocks * dn;
}

double kcal_model_working_set(kcal_coll c, const char *alg, int p, int k,
                              uint64_t n)
{
    return kcal_model_working_set_of(
        c, alg ? kcal_model_find_algorithm(c, alg) : NULL, p, k, n);
}

/* Time per byte at working set w from a curve of at least one point. */
static double curve_at(const kcal_curve *cv, double w)
{
    if (w <= cv->w[0])
        return cv->v[0];
    for (size_t i = 1; i < cv->n; i++)
        if (w <= cv->w[i]) {
            double f = log(w / cv->w[i - 1]) / log(cv->w[i] / cv->w[i - 1]);
            return exp(log(cv->v[i - 1]) +
                       f * (log(cv->v[i]) - log(cv->v[i - 1])));
        }
    return cv->v[cv->n - 1];
}

static double key(const kcal_params *prm, kcal_pkey k)
{
    return kcal_params_get_key(prm, k, 0);
}

/* Where β lies between in cache (0) and out of it (1). */
static double coldness(const kcal_params *prm, double beta, double foot)
{
    const kcal_curve *ws = kcal_params_curve(prm, KCAL_CURVE_BETA_WS);
    if (ws->n >= 2) {
        double lo = ws->v[0], hi = ws->v[ws->n - 1];
        if (!(hi > lo))
            return 0;
        double f = log(beta / lo) / log(hi / lo);
        return f < 0 ? 0 : f > 1 ? 1 : f;
    }
    double knee = key(prm, KCAL_PK_cache_knee);
    double cache = knee > 0 ? knee : key(prm, KCAL_PK_l3_cache);
    return cache > 0 && foot < cache ? 0 : 1;
}

/* "Fits" is strictly smaller: buffers as large as the whole cache do not
 * stay in it, which also holds code, stacks and the MPI library's own
 * buffers. */
double kcal_model_full_beta(const kcal_params *prm, kcal_coll c,
                            const kcal_algorithm *alg, int p, uint64_t n)
{
    double hot = key(prm, KCAL_PK_beta_hot), l3 = key(prm, KCAL_PK_l3_cache);
    if (hot > 0 && l3 > 0 && kcal_model_footprint_of(c, alg, p, n) < l3)
        return hot;
    return prm->beta;
}

void kcal_model_copy_base(const kcal_params *prm, kcal_coll c,
                          const kcal_algorithm *alg, int p, uint64_t n,
                          kcal_copy_base *b)
{
    const kcal_curve *ws = kcal_params_curve(prm, KCAL_CURVE_BETA_WS);
    const kcal_curve *mws = kcal_params_curve(prm, KCAL_CURVE_MEMCPY_WS);
    double knee = key(prm, KCAL_PK_cache_knee);
    double l3 = key(prm, KCAL_PK_l3_cache);
    double hot = key(prm, KCAL_PK_beta_hot);
    kcal_full_copy *out = &b->fc;
    memset(b, 0, sizeof *b);
    out->footprint = kcal_model_footprint_of(c, alg, p, n);
    double f = out->footprint;
    if (ws->n) {
        /* Each core's caches hold its process's working set, until the
         * node's buffers together no longer fit the cache the cores share
         * (the measured knee): then they come from memory. The working
         * set does not depend on k. */
        out->working_set = kcal_model_working_set_of(c, alg, p, 0, n);
        if (knee > 0 && f >= knee)
            out->working_set = f;
        out->beta = curve_at(ws, out->working_set);
        out->beta_source = KCAL_BETA_FROM_WS;
        if (mws->n)
            out->beta_local = curve_at(mws, out->working_set);
    } else if (hot > 0 && (knee > 0 || l3 > 0)) {
        double cache = knee > 0 ? knee : l3;
        out->beta = f < cache ? hot : prm->beta;
        out->beta_source = knee > 0 ? KCAL_BETA_FROM_KNEE : KCAL_BETA_FROM_L3;
    } else {
        out->beta = prm->beta;
        out->beta_source = KCAL_BETA_FROM_BETA;
    }
    int has_hot = kcal_params_has_key(prm, KCAL_PK_conc_hot);
    int has_cold = kcal_params_has_key(prm, KCAL_PK_conc_cold);
    b->has_conc = has_hot || has_cold;
    if (b->has_conc) {
        b->conc_hot = key(prm, has_hot ? KCAL_PK_conc_hot : KCAL_PK_conc_cold);
        b->conc_cold = key(prm, has_cold ? KCAL_PK_conc_cold : KCAL_PK_conc_hot);
        b->coldness = coldness(prm, out->beta, f);
        b->conc = b->conc_hot + b->coldness * (b->conc_cold - b->conc_hot);
    }
    size_t len = alg ? strlen(alg->id) : 0;
    out->writes = len > 6 && !strcmp(alg->id + len - 6, "_write");
    out->alpha = prm->alpha;
    out->lock = prm->lock;
    out->write_scale = 1;
    if (out->writes) {
        const kcal_param *e;
        if ((e = kcal_params_find_key(prm, KCAL_PK_alpha_write)))
            out->alpha = e->value, out->write_keys |= 1;
        if ((e = kcal_params_find_key(prm, KCAL_PK_lock_write)))
            out->lock = e->value, out->write_keys |= 2;
        if ((e = kcal_params_find_key(prm, KCAL_PK_beta_write)) &&
            prm->beta > 0)
            out->write_scale = e->value / prm->beta, out->write_keys |= 4;
    }
}

/* δ(c) = 1 + conc·(c − 1) of c copies at once: 1 without the conc keys
 * or for one copy at a time. */
static double delta_at(const kcal_copy_base *b, int concurrent)
{
    return b->has_conc && concurrent > 1 ? 1 + b->conc * (concurrent - 1)
                                         : 1;
}

void kcal_model_copy_finish(const kcal_copy_base *b, kcal_coll c,
                            const kcal_algorithm *alg, int p, int k,
                            kcal_full_copy *out)
{
    *out = b->fc;
    /* the registry's conc; 1 without a row, at p = 1 or for a k < 0 */
    out->concurrent = p > 1 && k >= 0 && alg && kcal_model_is_row_of(c, alg)
                          ? kcal_model_copies_at_once(alg, p, k)
                          : 1;
    out->delta = delta_at(b, out->concurrent);
    if (b->has_conc && out->concurrent > 1)
        out->conc = b->conc;
    kcal_model_copy_rates(b, out->delta, &out->beta, &out->beta_local);
}

double kcal_model_copy_delta(const kcal_copy_base *b,
                             const kcal_algorithm *alg, int p, int k)
{
    return b->has_conc && p > 1 && k >= 0
               ? delta_at(b, kcal_model_copies_at_once(alg, p, k))
               : 1;
}

void kcal_model_full_copy(const kcal_params *prm, kcal_coll c,
                          const kcal_algorithm *alg, int p, int k, uint64_t n,
                          kcal_full_copy *out)
{
    kcal_copy_base b;
    kcal_model_copy_base(prm, c, alg, p, n, &b);
    kcal_model_copy_finish(&b, c, alg, p, k, out);
}

int kcal_model_full_measured(const kcal_params *prm)
{
    static const kcal_pkey any[] = {
        KCAL_PK_cache_knee, KCAL_PK_conc_hot, KCAL_PK_conc_cold,
        KCAL_PK_alpha_write, KCAL_PK_lock_write, KCAL_PK_beta_write};
    if (kcal_params_curve(prm, KCAL_CURVE_BETA_WS)->n)
        return 1;
    for (size_t i = 0; i < sizeof any / sizeof any[0]; i++)
        if (kcal_params_has_key(prm, any[i]))
            return 1;
    return 0;
}

kcal_model_kind kcal_model_default(const kcal_params *prm)
{
    return kcal_model_full_measured(prm) ? KCAL_MODEL_FULL : KCAL_MODEL_PAPER;
}

unsigned kcal_model_full_missing(const kcal_params *prm)
{
    unsigned miss = 0;
    if (!(kcal_params_get_key(prm, KCAL_PK_beta_hot, 0) > 0))
        miss |= KCAL_FULL_NO_BETA_HOT;
    if (!(kcal_params_get_key(prm, KCAL_PK_l3_cache, 0) > 0))
        miss |= KCAL_FULL_NO_L3;
    if (!kcal_params_has_key(prm, KCAL_PK_sync_step))
        miss |= KCAL_FULL_NO_SYNC_STEP;
    return miss;
}
