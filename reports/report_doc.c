/* report_doc: report.md and index.html, and the generated analysis of where
 * the model is off (report_doc.h). One writer drives both formats so the
 * two can never say different things. */
#include "report_doc.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "sizes.h"
#include "sbuf.h"


/* ---- numbers for people ----------------------------------------------- */

static const char *fmt_time(double s, char *buf, size_t len)
{
    if (!isfinite(s))
        snprintf(buf, len, "–");
    else if (s >= 1e-3)
        snprintf(buf, len, "%.3g ms", s * 1e3);
    else
        snprintf(buf, len, "%.3g µs", s * 1e6);
    return buf;
}

static const char *fmt_bytes(double b, char *buf, size_t len)
{
    if (b >= 1 << 30)
        snprintf(buf, len, "%.3g GiB", b / (1 << 30));
    else if (b >= 1 << 20)
        snprintf(buf, len, "%.3g MiB", b / (1 << 20));
    else if (b >= 1 << 10)
        snprintf(buf, len, "%.3g KiB", b / (1 << 10));
    else
        snprintf(buf, len, "%.0f B", b);
    return buf;
}

static const char *fmt_size(uint64_t n, char *buf, size_t len)
{
    return kcal_size_format(n, buf, len);
}

/* ---- what each algorithm does per step (model.md) ---------------------- */

/* Steps that each end in a synchronisation, and copies running at once,
 * for an algorithm at p (k its throttle factor). From the model's rows:
 * these are the counts its formula multiplies by. */
static void alg_shape(const char *alg, int p, int k, int *steps, int *conc)
{
    *steps = 1;
    *conc = p;
    if (!strcmp(alg, "parallel_read") || !strcmp(alg, "parallel_write") ||
        !strcmp(alg, "direct_read")) {
        *steps = 1;
        *conc = p;
    } else if (!strcmp(alg, "sequential_write") ||
               !strcmp(alg, "sequential_read") ||
               !strcmp(alg, "direct_write")) {
        *steps = p;
        *conc = 1;
    } else if (!strncmp(alg, "throttled_", 10)) {
        *steps = k ? (p + k - 1) / k : p;
        *conc = k ? k : 1;
    } else if (!strcmp(alg, "knomial")) {
        *steps = k ? kcal_ceil_log_k(p, k) : 1;
        *conc = k ? k : 1;
    } else if (!strncmp(alg, "ring_", 5) || !strcmp(alg, "pairwise")) {
        *steps = p > 1 ? p - 1 : 1;
        *conc = p;
    } else if (!strcmp(alg, "recursive_doubling") || !strcmp(alg, "bruck")) {
        *steps = kcal_ceil_log2(p);
        *conc = p;
    } else if (!strcmp(alg, "scatter_allgather")) {
        *steps = 2 * p - 1;
        *conc = p;
    }
    if (*steps < 1)
        *steps = 1;
}

/* Whether the model's row charges p transfers, p·(X(n) + l·pages(n)), for
 * an algorithm whose root moves p − 1 blocks remotely (its own block is a
 * local copy or already in place): model.md's sequential rows, as printed
 * in the paper. scatter_allgather's scatter half is one of them. */
static int counts_p_transfers(const char *alg)
{
    return !strcmp(alg, "sequential_write") || !strcmp(alg, "sequential_read") ||
           !strcmp(alg, "direct_write") || !strcmp(alg, "scatter_allgather");
}

/* Bytes an algorithm's copies touch at size n: every block for the
 * collectives that move one block per process pair, the message for bcast. */
static double footprint(const char *coll, int p, uint64_t n)
{
    if (!strcmp(coll, "bcast"))
        return (double)n * 2; /* source and one destination */
    if (!strcmp(coll, "alltoall") || !strcmp(coll, "allgather"))
        return (double)n * p * 2;
    return (double)n * (p + 1);
}

/* ---- the analysis ----------------------------------------------------- */

int kcal_report_params_are_local(const kcal_params *p, const kcal_machine *m)
{
    const kcal_param *h = kcal_params_find(p, "hostname");
    if (h && h->is_text && !strcmp(h->text, m->host))
        return 1;
    const kcal_param *mk = kcal_params_find(p, "machine");
    if (mk && mk->is_text && !strcmp(mk->text, m->host))
        return 1;
    /* data/<hostname>.params, as make report names it. */
    char want[128];
    snprintf(want, sizeof want, "%s.params", m->host);
    const char *base = strrchr(p->origin, '/');
    base = base ? base + 1 : p->origin;
    return !strcmp(base, want);
}

typedef struct {
    const kcal_join_summary *s;
    double small_signed, large_signed; /* mean signed % error per band */
    int n_small, n_large;
    uint64_t small_max, large_max; /* largest size in the band */
    int under, points;             /* points where the model is too fast */
} pattern;

/* The bands: small messages, where fixed per-step costs show, and large
 * ones, where bandwidth and cache decide. */
#define SMALL_MAX (128u * 1024)
#define LARGE_MIN (1024u * 1024)

static pattern pattern_of(const kcal_join_table *t, const kcal_join_summary *s)
{
    pattern pt = {.s = s};
    for (size_t i = 0; i < t->n; i++) {
        const kcal_join_row *r = &t->rows[i];
        if (!r->has_pred || !r->has_meas || r->size < KCAL_JOIN_MIN_ERR_SIZE ||
            strcmp(r->coll, s->coll) || r->p != s->p ||
            strcmp(r->alg, s->alg) || r->k != s->k)
            continue;
        double e = 100.0 * (r->predicted_s - r->median_s) / r->median_s;
        pt.points++;
        pt.under += e < 0;
        if (r->size <= SMALL_MAX) {
            pt.small_signed += e;
            pt.n_small++;
            if (r->size > pt.small_max)
                pt.small_max = r->size;
        } else if (r->size >= LARGE_MIN) {
            pt.large_signed += e;
            pt.n_large++;
            if (r->size > pt.large_max)
                pt.large_max = r->size;
        }
    }
    if (pt.n_small)
        pt.small_signed /= pt.n_small;
    if (pt.n_large)
        pt.large_signed /= pt.n_large;
    return pt;
}

static double sm_total(const kcal_params *p, int procs)
{
    if (procs < 2)
        return 0;
    double sum = 0;
    for (int x = 0; x < KCAL_SM_COUNT; x++)
        sum += p->sm_a[x] + p->sm_b[x] * log2(procs);
    return sum;
}

static const char *series_label(const kcal_join_summary *s, char *buf,
                                size_t len)
{
    if (s->k)
        snprintf(buf, len, "%s:%d", s->alg, s->k);
    else
        snprintf(buf, len, "%s", s->alg);
    return buf;
}

/* One hypothesis for one series, tied to where and how its error shows. */
/* The kinds of error pattern explain_series tells apart. */
enum { K_SIGN, K_FEW, K_FIXED_FAST, K_BYTE_FAST, K_SLOW_SMALL, K_SLOW_BYTE };

/* Which pattern a series' error follows, from its mean signed error in the
 * small band (fixed costs show) and the large band (per-byte costs show).
 * *shape: -1 the error shrinks with n, 1 it grows, 0 about the same. */
static int pattern_kind(const pattern *pt, int *shape)
{
    double fs = pt->n_small ? fabs(pt->small_signed) : 0;
    double fl = pt->n_large ? fabs(pt->large_signed) : 0;
    int ds = !pt->n_small ? 0 : pt->small_signed < 0 ? -1 : 1;
    int dl = !pt->n_large ? 0 : pt->large_signed < 0 ? -1 : 1;
    int dir = ds ? ds : dl;
    if (ds && !dl)
        *shape = -1;
    else if (dl && !ds)
        *shape = 1;
    else if (fs > 1.5 * fl)
        *shape = -1;
    else if (fl > 1.5 * fs)
        *shape = 1;
    else
        *shape = 0;
    return (ds && dl && ds != dl) ? K_SIGN
         : !dir                   ? K_FEW
         : dir < 0                ? (*shape < 0 ? K_FIXED_FAST : K_BYTE_FAST)
                                  : (*shape < 0 ? K_SLOW_SMALL : K_SLOW_BYTE);
}

/* Explain one series' error; returns the kind of pattern. A kind already
 * explained (bit set in `seen`) gets one short sentence instead of the
 * same hypothesis again. */
static int explain_series(sbuf *b, const kcal_report_input *in,
                          const pattern *pt, unsigned seen)
{
    const kcal_join_summary *s = pt->s;
    const kcal_params *prm = in->params;
    int steps, conc;
    alg_shape(s->alg, s->p, s->k, &steps, &conc);
    double llc = (double)in->machine->llc_bytes;
    if (llc <= 0)
        llc = kcal_params_get(prm, "l3_cache", 0);
    const kcal_param *bc = kcal_params_find(prm, "beta_cache");
    const char *beta_how = bc && bc->is_text
                               ? (!strcmp(bc->text, "hot") ? "in cache"
                                                           : "out of cache")
                               : "without a record of where the data sat";
    char a[64], c1[32], c2[32], c3[64];
    double fs = pt->n_small ? fabs(pt->small_signed) : 0;
    double fl = pt->n_large ? fabs(pt->large_signed) : 0;
    char lab[96];
    snprintf(lab, sizeof lab, "%s `%s`", s->coll, series_label(s, a, sizeof a));

    int shape;
    int kind = pattern_kind(pt, &shape);
    if (seen & (1u << kind)) {
        sb_add(b, "The same pattern holds for %s (mean error %.0f %%). ", lab,
               s->mape_pct);
        return kind;
    }

    if (kind == K_SIGN) {
        sb_add(b, "For %s the error changes sign between small sizes "
               "(%+.0f %%) and large ones (%+.0f %%): the model's growth with n "
               "(β plus l·γ/s per byte) does not match the measured slope, as a "
               "cache-to-DRAM transition%s would cause. ",
               lab, pt->small_signed, pt->large_signed,
               llc > 0 ? (snprintf(c3, sizeof c3, " near the %s last-level "
                                   "cache", fmt_bytes(llc, c2, sizeof c2)), c3)
                       : "");
        return kind;
    }
    if (kind == K_FEW) {
        sb_add(b, "For %s (%d point%s) no size falls in the small (up to "
               "128K) or large (1M and up) band, too few to tell a fixed cost "
               "from a per-byte one. ", lab, pt->points,
               pt->points == 1 ? "" : "s");
        return kind;
    }
    if (kind == K_FIXED_FAST) {
        /* Too fast where n is small: a fixed cost the model does not carry. */
        double sm = sm_total(prm, s->p);
        sb_add(b, "For %s the model is %.0f %% too fast up to %s%s, so a "
               "cost that does not grow with n is missing: most likely "
               "per-step synchronisation — it runs %d synchronised step%s at "
               "p = %d, and the model charges only α per copy plus %s of "
               "shared-memory control (T_sm)%s. ",
               lab, fs, fmt_size(pt->small_max, c1, sizeof c1),
               pt->n_large ? " and closer at large sizes" : "", steps,
               steps == 1 ? "" : "s", s->p, fmt_time(sm, c2, sizeof c2),
               sm == 0 ? ", because the params hold no T_sm values" : "");
    } else if (kind == K_BYTE_FAST) {
        /* Too fast at large sizes (or everywhere alike): a per-byte cost. */
        double fp = footprint(s->coll, s->p, pt->large_max ? pt->large_max
                                                           : pt->small_max);
        double e = shape > 0 ? fl : (fs + fl) / 2;
        sb_add(b, "For %s the model is %.0f %% too fast %s: the copies run "
               "at about %.2f GB/s where the model assumes 1/β = %.2f GB/s "
               "(β measured %s). ",
               lab, e, shape > 0 ? "from 1M up, more than at small sizes"
                                 : "at small and large sizes alike",
               1e-9 / prm->beta * (1 - e / 100), 1e-9 / prm->beta, beta_how);
        if (conc > 1)
            sb_add(b, "%d copies run at once and share the memory bandwidth, "
                   "which the single-copy β does not include",
                   conc);
        else
            sb_add(b, "Its copies run one at a time, so shared bandwidth is "
                   "not the cause; DRAM rather than cache bandwidth is");
        if (llc > 0 && fp > llc)
            sb_add(b, "; at %s the data (about %s) no longer fits the %s "
                   "last-level cache",
                   fmt_size(pt->large_max ? pt->large_max : pt->small_max, c1,
                            sizeof c1),
                   fmt_bytes(fp, c2, sizeof c2), fmt_bytes(llc, c3, sizeof c3));
        sb_add(b, ". ");
    } else if (kind == K_SLOW_SMALL) {
        double fp = footprint(s->coll, s->p, pt->small_max);
        sb_add(b, "For %s the model is %.0f %% too slow up to %s: ", lab, fs,
               fmt_size(pt->small_max, c1, sizeof c1));
        if (llc > 0 && fp <= llc)
            sb_add(b, "the data (about %s) fits the %s last-level cache, so "
                   "the copies run faster than β, which was measured %s. ",
                   fmt_bytes(fp, c2, sizeof c2), fmt_bytes(llc, c3, sizeof c3),
                   beta_how);
        else
            sb_add(b, "its start-up and pinning terms (α = %s, l = %s a page) "
                   "are larger than this machine's. ",
                   fmt_time(prm->alpha, c2, sizeof c2),
                   fmt_time(prm->lock, c3, sizeof c3));
    } else {
        /* Too slow where the per-byte terms dominate: list the causes that
         * fit this machine and this algorithm. */
        double g = conc >= 2 ? kcal_model_gamma(prm, conc) : 1;
        uint64_t at = pt->large_max ? pt->large_max : pt->small_max;
        double fp = footprint(s->coll, s->p, at);
        int cold_beta = bc && bc->is_text && strcmp(bc->text, "hot");
        sb_add(b, "For %s the model is %.0f %% too slow %s, where the "
               "per-byte and per-page terms dominate. Likely causes: ",
               lab, shape > 0 ? fl : (fs + fl) / 2,
               shape > 0 ? "from 1M up" : "at small and large sizes alike");
        if (llc > 0 && fp <= llc)
            sb_add(b, "the data (about %s at %s) fits the %s last-level "
                   "cache, so the copies run at cache speed%s; ",
                   fmt_bytes(fp, c2, sizeof c2), fmt_size(at, c1, sizeof c1),
                   fmt_bytes(llc, c3, sizeof c3),
                   cold_beta ? ", while β was measured out of cache" : "");
        if (counts_p_transfers(s->alg) && s->p > 1)
            sb_add(b, "the formula charges p = %d transfers where the "
                   "algorithm makes p − 1 = %d remote ones, a factor of %.3g "
                   "at this p; ", s->p, s->p - 1, s->p / (s->p - 1.0));
        sb_add(b, "and the copy rate 1/β = %.2f GB/s or the pinning term "
               "l·γ(%d) = %s per page (γ(%d) = %.3g) may be too pessimistic "
               "for this kernel, which pins pages in batches of up to 1024. ",
               1e-9 / prm->beta, conc, fmt_time(prm->lock * g, c1, sizeof c1),
               conc, g);
    }
    return kind;
}

char *kcal_report_analysis(const kcal_report_input *in)
{
    sbuf b = {0};
    const kcal_join_table *t = in->table;
    char c1[32], c2[32], c3[64], c4[64];
    int local = kcal_report_params_are_local(in->params, in->machine);

    /* Overall error and its direction. */
    int n = 0, under = 0;
    for (size_t i = 0; i < t->n; i++) {
        const kcal_join_row *r = &t->rows[i];
        if (r->has_pred && r->has_meas && !r->oversubscribed &&
            r->size >= KCAL_JOIN_MIN_ERR_SIZE) {
            n++;
            under += r->predicted_s < r->median_s;
        }
    }
    if (n == 0) {
        sb_add(&b, "No size of 16K or more was both measured and predicted "
               "(outside oversubscribed runs), so there is no model error to "
               "discuss: run with sizes from 16K up.");
        return b.oom ? (free(b.s), NULL) : b.s;
    }
    double med = kcal_join_median_ape(t);
    sb_add(&b, "Over %d measured points from 16K up, the paper model is off "
           "by %.1f %% in the median; it predicts faster than measured at %d "
           "of them (%s). ",
           n, med, under,
           under == n           ? "it is too optimistic everywhere"
           : under == 0         ? "it is too pessimistic everywhere"
           : under * 3 >= n * 2 ? "it is mostly too optimistic"
           : under * 3 <= n     ? "it is mostly too pessimistic"
                                : "no clear direction overall");
    if (!local) {
        const kcal_param *src = kcal_params_find(in->params, "source");
        const kcal_param *mk = kcal_params_find(in->params, "machine");
        sb_add(&b, "First of all, the params are not from this machine "
               "(`%s`%s%s): α, β, l and γ describe %s, so much of the error is "
               "simply another machine's constants — run `kcal probe` (what "
               "`make report` does without PARAMS) before reading more into "
               "the pattern below. ",
               in->params->origin, src && src->is_text ? ", " : "",
               src && src->is_text ? src->text : "",
               mk && mk->is_text ? mk->text : "another machine");
    }

    /* The worst series, each with a hypothesis tied to its pattern. */
    const kcal_join_summary *worst[3] = {0};
    for (long i = 0; i < in->n_summary; i++) {
        const kcal_join_summary *s = &in->summary[i];
        if (s->oversubscribed)
            continue;
        for (int w = 0; w < 3; w++)
            if (!worst[w] || s->mape_pct > worst[w]->mape_pct) {
                memmove(&worst[w + 1], &worst[w], (size_t)(2 - w) * sizeof *worst);
                worst[w] = s;
                break;
            }
    }
    sb_add(&b, "The largest errors:");
    for (int w = 0; w < 3 && worst[w]; w++) {
        const kcal_join_summary *s = worst[w];
        sb_add(&b, "%s %s `%s` at p = %d (mean %.0f %%, worst %.0f %% at %s)",
               w ? (w == 2 || !worst[w + 1] ? " and" : ",") : "", s->coll,
               series_label(s, c3, sizeof c3), s->p,
               s->mape_pct, s->max_ape_pct,
               fmt_size(s->worst_size, c1, sizeof c1));
    }
    sb_add(&b, ".\n\n");
    unsigned seen = 0;
    for (int w = 0; w < 3 && worst[w]; w++) {
        if (worst[w]->mape_pct < 10)
            break; /* within what timing noise and a fit explain */
        pattern pt = pattern_of(t, worst[w]);
        seen |= 1u << explain_series(&b, in, &pt, seen);
    }
    /* Beyond the three largest: the worst series of up to two patterns not
     * explained yet, so a second effect is not hidden behind the first. */
    for (int extra = 0; extra < 2;) {
        const kcal_join_summary *next = NULL;
        pattern npt = {0};
        for (long i = 0; i < in->n_summary; i++) {
            const kcal_join_summary *s = &in->summary[i];
            if (s->oversubscribed || s->mape_pct < 10 ||
                (next && s->mape_pct <= next->mape_pct) ||
                s == worst[0] || s == worst[1] || s == worst[2])
                continue;
            pattern pt = pattern_of(t, s);
            int shape;
            if (seen & (1u << pattern_kind(&pt, &shape)))
                continue;
            next = s;
            npt = pt;
        }
        if (!next)
            break;
        if (!extra)
            sb_add(&b, "\n\nAmong the smaller errors other patterns show. ");
        seen |= 1u << explain_series(&b, in, &npt, seen);
        extra++;
    }
    sb_add(&b, "These are hypotheses from the shape of the error; the plots "
           "show which way each line bends away from its points.\n\n");

    /* Selection: how often the ranking's pick was right, and how much a
     * wrong pick cost. */
    int m = 0, right = 0, noise = 0, tied = 0;
    const kcal_join_rank *worst_r = NULL, *tied_ex = NULL;
    for (long i = 0; i < in->n_ranking; i++) {
        const kcal_join_rank *r = &in->ranking[i];
        if (r->oversubscribed)
            continue;
        m++;
        if (r->tied) {
            tied++;
            if (!tied_ex)
                tied_ex = r;
        }
        if (r->predicted_best == r->measured_best || r->regret_pct == 0) {
            right++;
            continue;
        }
        /* A near tie: the picked algorithm's fastest iteration was as fast
         * as the winner's median. (Not max: on a shared machine one slow
         * iteration would make everything overlap.) */
        if (r->predicted_best->min_s <= r->measured_best->median_s)
            noise++;
        if (!worst_r || r->regret_pct > worst_r->regret_pct)
            worst_r = r;
    }
    if (m) {
        sb_add(&b, "Selection: the model's first choice among the measured "
               "algorithms was the measured fastest at %d of %d (collective, "
               "size) points; mean regret %.1f %%.",
               right, m, kcal_join_mean_regret(in->ranking, in->n_ranking));
        if (worst_r)
            sb_add(&b, " The costliest miss is %s at %s: `%s` was picked and "
                   "measured %.0f %% slower than `%s`.",
                   worst_r->coll, fmt_size(worst_r->size, c1, sizeof c1),
                   kcal_join_alg_label(worst_r->predicted_best, c3, sizeof c3),
                   worst_r->regret_pct,
                   kcal_join_alg_label(worst_r->measured_best, c4, sizeof c4));
        if (m - right && noise)
            sb_add(&b, " %d of the %d misses are near ties (the picked "
                   "algorithm's fastest iteration was as fast as the winner's "
                   "median) rather than model failures.", noise, m - right);
        else if (m - right)
            sb_add(&b, " None of the %d misses is a near tie (the picked "
                   "algorithm's fastest iteration was slower than the "
                   "winner's median): the model ranks them in the wrong "
                   "order.", m - right);
        if (tied)
            sb_add(&b, " At %d point%s the model predicts the same time for "
                   "several measured algorithms (e.g. %s at p = %d, where their "
                   "formulas coincide), so its pick there is only the first it "
                   "lists; a regret at such a point says the model cannot "
                   "tell them apart, not that it ranked them wrongly.",
                   tied, tied == 1 ? "" : "s", tied_ex->coll, tied_ex->p);
    }
    (void)c2;
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* ---- paper against full ------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median APE and the count of too-optimistic points of one collective
 * (NULL: all), over the points kcal_join_median_ape counts. NAN if none. */
static double coll_median_ape(const kcal_join_table *t, const char *coll,
                              int *points, int *under)
{
    double *e = malloc((t->n ? t->n : 1) * sizeof *e);
    int n = 0, u = 0;
    if (!e)
        return NAN;
    for (size_t i = 0; i < t->n; i++) {
        const kcal_join_row *r = &t->rows[i];
        if (!r->has_pred || !r->has_meas || r->oversubscribed ||
            r->size < KCAL_JOIN_MIN_ERR_SIZE || (coll && strcmp(r->coll, coll)))
            continue;
        e[n++] = kcal_join_ape(r);
        u += r->predicted_s < r->median_s;
    }
    double med = NAN;
    if (n) {
        qsort(e, (size_t)n, sizeof *e, cmp_double);
        med = n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
    }
    free(e);
    if (points)
        *points = n;
    if (under)
        *under = u;
    return med;
}

static int right_picks(const kcal_join_rank *r, long n, int *of)
{
    int right = 0, m = 0;
    for (long i = 0; i < n; i++) {
        if (r[i].oversubscribed)
            continue;
        m++;
        right += r[i].predicted_best == r[i].measured_best ||
                 r[i].regret_pct == 0;
    }
    *of = m;
    return right;
}

char *kcal_report_model_comparison(const kcal_report_input *in)
{
    if (!in->full_table)
        return NULL;
    sbuf b = {0};
    int pp, pu, fp, fu, pm, fm;
    double pmed = coll_median_ape(in->table, NULL, &pp, &pu);
    double fmed = coll_median_ape(in->full_table, NULL, &fp, &fu);
    double preg = kcal_join_mean_regret(in->ranking, in->n_ranking);
    double freg = kcal_join_mean_regret(in->full_ranking, in->n_full_ranking);
    int pr = right_picks(in->ranking, in->n_ranking, &pm);
    int fr = right_picks(in->full_ranking, in->n_full_ranking, &fm);
    unsigned miss = kcal_model_full_missing(in->params);
    sb_add(&b, "The full model (`kcal predict --model full`, model.md \"Beyond "
           "the paper\") adds to the paper's terms what kcal probe measures "
           "beyond them: copies at beta_hot when the buffers of a call fit in "
           "the last-level cache, sync_step per synchronised step, p − 1 (not p) "
           "remote copies in the sequential rows and contending copies in the "
           "parallel ones, and the overlapped halves of bcast "
           "`scatter_allgather`. Against the same measurements, median "
           "model error: paper %.1f %%, full %.1f %% (%d points of 16K and "
           "more; too optimistic at %d and %d of them); mean selection regret: "
           "paper %.1f %%, full %.1f %%; right first choice at %d and %d of %d "
           "(collective, size) points. ",
           pmed, fmed, pp, pu, fu, preg, freg, pr, fr, pm);
    int better_err = fmed < pmed, better_reg = freg <= preg;
    sb_add(&b, "%s",
           better_err && better_reg
               ? "Here the full model predicts the times better and chooses "
                 "at least as well. "
           : better_err
               ? "Here the full model predicts the times better but chooses "
                 "worse: its errors differ between algorithms more than the "
                 "paper's uniform pessimism does. "
           : better_reg
               ? "Here the full model chooses at least as well but predicts "
                 "the times worse. "
               : "Here the full model predicts and chooses worse than the "
                 "paper's. ");
    if (miss & (KCAL_FULL_NO_BETA_HOT | KCAL_FULL_NO_L3))
        sb_add(&b, "The params have no %s, so every copy of the full model "
               "costs the cold β (probe again to measure it). ",
               miss & KCAL_FULL_NO_BETA_HOT ? "beta_hot" : "l3_cache");
    if (miss & KCAL_FULL_NO_SYNC_STEP)
        sb_add(&b, "The params have no sync_step, so per-step "
               "synchronisation costs 0 in the full model. ");
    sb_add(&b, "`kcal predict` keeps `--model paper` as its default: "
           "model.md makes the refined model the default only where `make "
           "report` shows it predicts better, which one run on one machine "
           "does not settle (`--model full` chooses it per call). Per "
           "collective, median error paper → full:");
    for (int c = 0; c < KCAL_COLL_COUNT; c++) {
        const char *name = kcal_coll_name((kcal_coll)c);
        int n1, n2;
        double a = coll_median_ape(in->table, name, &n1, NULL);
        double f = coll_median_ape(in->full_table, name, &n2, NULL);
        if (n1 && n2)
            sb_add(&b, " %s %.0f %% → %.0f %%;", name, a, f);
    }
    if (b.n && b.s[b.n - 1] == ';')
        b.s[b.n - 1] = '.';
    sb_add(&b, " Per algorithm: `summary-full.csv` and `ranking-full.csv` "
           "(the columns of `summary.csv` and `ranking.csv`); in the plots the "
           "full model is the dashed line of each colour.");
    if (b.oom) {
        free(b.s);
        return NULL;
    }
    return b.s;
}

/* ---- one writer, two formats ------------------------------------------ */

typedef struct {
    FILE *md, *html;
} doc;

/* Text with `code` spans: kept for Markdown, <code> and escaped for HTML. */
static void d_text(doc *d, const char *s)
{
    if (d->md)
        fputs(s, d->md);
    if (!d->html)
        return;
    int code = 0;
    for (; *s; s++) {
        switch (*s) {
        case '`':
            fputs(code ? "</code>" : "<code>", d->html);
            code = !code;
            break;
        case '<': fputs("&lt;", d->html); break;
        case '>': fputs("&gt;", d->html); break;
        case '&': fputs("&amp;", d->html); break;
        case '"': fputs("&quot;", d->html); break;
        default: fputc(*s, d->html);
        }
    }
    if (code)
        fputs("</code>", d->html);
}

static void d_h(doc *d, int level, const char *text)
{
    if (d->md)
        fprintf(d->md, "\n%.*s ", level, "######");
    if (d->html)
        fprintf(d->html, "<h%d>", level);
    d_text(d, text);
    if (d->md)
        fputs("\n\n", d->md);
    if (d->html)
        fprintf(d->html, "</h%d>\n", level);
}

static void d_p_begin(doc *d)
{
    if (d->html)
        fputs("<p>", d->html);
}

static void d_p_end(doc *d)
{
    if (d->md)
        fputs("\n\n", d->md);
    if (d->html)
        fputs("</p>\n", d->html);
}

/* A paragraph; blank lines in text start new paragraphs. */
static void d_paras(doc *d, const char *text)
{
    const char *s = text;
    while (*s) {
        const char *e = strstr(s, "\n\n");
        size_t len = e ? (size_t)(e - s) : strlen(s);
        if (len) {
            char *para = strndup(s, len);
            if (para) {
                d_p_begin(d);
                d_text(d, para);
                d_p_end(d);
                free(para);
            }
        }
        s += len;
        while (*s == '\n')
            s++;
    }
}

static void d_img(doc *d, const char *src, const char *alt)
{
    if (d->md)
        fprintf(d->md, "![%s](%s)\n\n", alt, src);
    if (d->html)
        fprintf(d->html, "<p><a href=\"%s\"><img src=\"%s\" alt=\"%s\" "
                "width=\"1000\"></a></p>\n", src, src, alt);
}

static void d_table(doc *d, int ncols, const char *const *head)
{
    if (d->md) {
        fputs("|", d->md);
        for (int i = 0; i < ncols; i++)
            fprintf(d->md, " %s |", head[i]);
        fputs("\n|", d->md);
        for (int i = 0; i < ncols; i++)
            fputs("---|", d->md);
        fputs("\n", d->md);
    }
    if (d->html) {
        fputs("<table>\n<tr>", d->html);
        for (int i = 0; i < ncols; i++) {
            fputs("<th>", d->html);
            FILE *md = d->md;
            d->md = NULL;
            d_text(d, head[i]);
            d->md = md;
            fputs("</th>", d->html);
        }
        fputs("</tr>\n", d->html);
    }
}

static void d_row(doc *d, int ncols, const char *const *cells)
{
    if (d->md)
        fputs("|", d->md);
    if (d->html)
        fputs("<tr>", d->html);
    for (int i = 0; i < ncols; i++) {
        if (d->md)
            fputs(" ", d->md);
        if (d->html)
            fputs("<td>", d->html);
        d_text(d, cells[i]);
        if (d->md)
            fputs(" |", d->md);
        if (d->html)
            fputs("</td>", d->html);
    }
    if (d->md)
        fputs("\n", d->md);
    if (d->html)
        fputs("</tr>\n", d->html);
}

static void d_table_end(doc *d)
{
    if (d->md)
        fputs("\n", d->md);
    if (d->html)
        fputs("</table>\n", d->html);
}

/* ---- the sections ----------------------------------------------------- */

static void section_machine(doc *d, const kcal_report_input *in)
{
    const kcal_machine *m = in->machine;
    char c1[32], cores[64], llc[64];
    d_h(d, 2, "Machine (where the times were measured)");
    static const char *const head[] = {"what", "value"};
    snprintf(cores, sizeof cores, "%d cores, %d hardware threads", m->cores,
             m->pus);
    if (m->llc_bytes)
        snprintf(llc, sizeof llc, "L%d, %s", m->llc_level,
                 fmt_bytes((double)m->llc_bytes, c1, sizeof c1));
    else
        snprintf(llc, sizeof llc, "unknown");
    char sockets[48];
    snprintf(sockets, sizeof sockets, "%d socket%s, %d NUMA node%s",
             m->sockets, m->sockets == 1 ? "" : "s", m->numa,
             m->numa == 1 ? "" : "s");
    const char *rows[][2] = {
        {"host", m->host}, {"CPU", m->cpu}, {"cores", cores},
        {"sockets", sockets}, {"last-level cache", llc},
        {"kernel", m->kernel}};
    d_table(d, 2, head);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        d_row(d, 2, rows[i]);
    d_table_end(d);
}

static const char *key_meaning(const char *key)
{
    static const char *const k[][2] = {
        {"alpha", "start-up of one CMA call (s)"},
        {"beta", "copy time per byte (s/byte)"},
        {"lock", "lock+pin one page, no contention (s/page)"},
        {"page", "page size (bytes)"},
        {"gamma_a", "contention γ(c) = a·c² + b·c"},
        {"gamma_b", "contention γ(c) = a·c² + b·c"},
        {"beta_hot", "copy time per byte in cache, full model (s/byte)"},
        {"sync_step", "one control message per step, full model (s)"},
        {"l3_cache", "last-level cache; full model: hot below it (bytes)"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (!strcmp(k[i][0], key))
            return k[i][1];
    if (!strncmp(key, "sm_", 3))
        return "shared-memory control T_sm = a + b·log₂p (s)";
    return "";
}

static void section_params(doc *d, const kcal_report_input *in)
{
    const kcal_params *p = in->params;
    d_h(d, 2, "Params used");
    char line[512];
    snprintf(line, sizeof line, "From `%s`; model: `paper` "
             "(docs/model.md). 1/β = %.3g GB/s; γ(2) = %.3g.",
             p->origin, 1e-9 / p->beta, kcal_model_gamma(p, 2));
    d_paras(d, line);
    static const char *const head[] = {"key", "value", "± std. error",
                                       "meaning"};
    d_table(d, 4, head);
    for (size_t i = 0; i < p->n_entries; i++) {
        const kcal_param *e = &p->entries[i];
        size_t kl = strlen(e->key);
        if (kl > 7 && !strcmp(e->key + kl - 7, "_stderr"))
            continue;
        if (kl > 4 && !strcmp(e->key + kl - 4, "_dof"))
            continue;
        char se[64] = "", key[80];
        snprintf(line, sizeof line, "%s_stderr", e->key);
        const kcal_param *s = kcal_params_find(p, line);
        if (s && !s->is_text)
            snprintf(se, sizeof se, "%.3g", s->value);
        snprintf(key, sizeof key, "`%s`", e->key);
        const char *cells[] = {key, e->text, se, key_meaning(e->key)};
        d_row(d, 4, cells);
    }
    d_table_end(d);
}

static void section_plots(doc *d, const kcal_report_input *in, int over)
{
    for (size_t i = 0; i < in->n_times; i++) {
        const kcal_report_plot *pl = &in->times[i];
        if (pl->oversubscribed != over)
            continue;
        char h[128];
        snprintf(h, sizeof h, "%s, p = %d%s", pl->coll, pl->p,
                 over ? " (oversubscribed)" : "");
        d_h(d, 3, h);
        d_img(d, pl->png, h);
    }
}

/* The speedups as one table per p: sizes down, collectives across, each
 * cell the speedup and the kcoll algorithm that achieved it. */
static void section_speedup(doc *d, const kcal_report_input *in, int over)
{
    int any = 0;
    for (size_t i = 0; i < in->n_speedup; i++) {
        const kcal_report_plot *pl = &in->speedup[i];
        if (pl->oversubscribed != over)
            continue;
        char alt[96];
        snprintf(alt, sizeof alt, "speedup over MPI, p = %d%s", pl->p,
                 over ? " (oversubscribed)" : "");
        d_img(d, pl->png, alt);
    }
    /* Distinct p values with an `mpi` measurement, in ranking order. */
    for (long i = 0; i < in->n_ranking; i++) {
        const kcal_join_rank *r = &in->ranking[i];
        if (r->oversubscribed != over || !r->mpi)
            continue;
        int seen = 0;
        for (long j = 0; j < i && !seen; j++)
            seen = in->ranking[j].p == r->p && in->ranking[j].mpi &&
                   in->ranking[j].oversubscribed == over;
        if (seen)
            continue;
        any = 1;
        int p = r->p;
        const char *head[1 + KCAL_COLL_COUNT];
        int cols[KCAL_COLL_COUNT], nc = 0;
        char hp[32];
        snprintf(hp, sizeof hp, "size (p = %d)", p);
        head[0] = hp;
        for (int c = 0; c < KCAL_COLL_COUNT; c++) {
            const char *name = kcal_coll_name((kcal_coll)c);
            for (long j = 0; j < in->n_ranking; j++)
                if (in->ranking[j].p == p && in->ranking[j].mpi &&
                    !strcmp(in->ranking[j].coll, name)) {
                    cols[nc] = c;
                    head[1 + nc++] = name;
                    break;
                }
        }
        d_table(d, 1 + nc, head);
        /* Sizes in increasing order: repeatedly take the next larger. */
        uint64_t last = 0;
        for (;;) {
            uint64_t next = UINT64_MAX;
            for (long j = 0; j < in->n_ranking; j++)
                if (in->ranking[j].p == p && in->ranking[j].mpi &&
                    in->ranking[j].size > last && in->ranking[j].size < next)
                    next = in->ranking[j].size;
            if (next == UINT64_MAX)
                break;
            char cell[KCAL_COLL_COUNT][96], sz[32], a[64];
            const char *cells[1 + KCAL_COLL_COUNT];
            cells[0] = fmt_size(next, sz, sizeof sz);
            for (int c = 0; c < nc; c++) {
                snprintf(cell[c], sizeof cell[c], "–");
                for (long j = 0; j < in->n_ranking; j++) {
                    const kcal_join_rank *q = &in->ranking[j];
                    if (q->p == p && q->size == next && q->mpi &&
                        !strcmp(q->coll, kcal_coll_name((kcal_coll)cols[c])))
                        snprintf(cell[c], sizeof cell[c], "%.2f× `%s`",
                                 q->speedup,
                                 kcal_join_alg_label(q->measured_best, a,
                                                     sizeof a));
                }
                cells[1 + c] = cell[c];
            }
            d_row(d, 1 + nc, cells);
            last = next;
        }
        d_table_end(d);
    }
    if (any)
        d_paras(d, "Speedup = median time of the MPI library's collective / "
                   "median time of the fastest kcoll algorithm, with that "
                   "algorithm named; above 1 kcoll is faster. Times in "
                   "`speedup.csv`.");
    else
        d_paras(d, "The MPI library's own collective (`mpi`) was not "
                   "measured, so there is no speedup to show.");
}

static void section_summary(doc *d, const kcal_report_input *in, int over)
{
    static const char *const head[] = {"collective", "p", "algorithm", "k",
                                       "points", "mape_pct", "max_ape_pct",
                                       "worst at", "direction"};
    int any = 0;
    for (long i = 0; i < in->n_summary; i++) {
        const kcal_join_summary *s = &in->summary[i];
        if (s->oversubscribed != over)
            continue;
        if (!any++)
            d_table(d, 9, head);
        char p[16], k[16] = "", pts[16], mape[32], mx[32], w[32], alg[64];
        snprintf(p, sizeof p, "%d", s->p);
        if (s->k)
            snprintf(k, sizeof k, "%d", s->k);
        snprintf(pts, sizeof pts, "%d", s->points);
        snprintf(mape, sizeof mape, "%.1f", s->mape_pct);
        snprintf(mx, sizeof mx, "%.1f", s->max_ape_pct);
        snprintf(alg, sizeof alg, "`%s`", s->alg);
        const char *dir = s->mean_signed_pct < 0 ? "model too fast"
                                                 : "model too slow";
        const char *cells[] = {s->coll, p, alg, k, pts, mape, mx,
                               fmt_size(s->worst_size, w, sizeof w), dir};
        d_row(d, 9, cells);
    }
    if (any)
        d_table_end(d);
    else
        d_paras(d, "No point of 16K or more was both measured and predicted.");
}

static void section_ranking(doc *d, const kcal_report_input *in, int over)
{
    static const char *const head[] = {"collective", "p", "size_bytes",
                                       "predicted_best", "measured_best",
                                       "regret_pct"};
    int any = 0;
    for (long i = 0; i < in->n_ranking; i++) {
        const kcal_join_rank *r = &in->ranking[i];
        if (r->oversubscribed != over)
            continue;
        if (!any++)
            d_table(d, 6, head);
        char p[16], sz[32], a[64], b[64], pa[80], pb[80], rg[32];
        snprintf(p, sizeof p, "%d", r->p);
        snprintf(sz, sizeof sz, "%llu", (unsigned long long)r->size);
        snprintf(pa, sizeof pa, "`%s`",
                 kcal_join_alg_label(r->predicted_best, a, sizeof a));
        snprintf(pb, sizeof pb, "`%s`",
                 kcal_join_alg_label(r->measured_best, b, sizeof b));
        snprintf(rg, sizeof rg, "%.1f", r->regret_pct);
        const char *cells[] = {r->coll, p, sz, pa, pb, rg};
        d_row(d, 6, cells);
    }
    if (any)
        d_table_end(d);
    else
        d_paras(d, "No (collective, size) point had both a prediction and a "
                   "measurement.");
}

static int has_oversubscribed(const kcal_report_input *in)
{
    for (size_t i = 0; i < in->n_times; i++)
        if (in->times[i].oversubscribed)
            return 1;
    for (long i = 0; i < in->n_summary; i++)
        if (in->summary[i].oversubscribed)
            return 1;
    for (long i = 0; i < in->n_ranking; i++)
        if (in->ranking[i].oversubscribed)
            return 1;
    return 0;
}

int kcal_report_write(const kcal_report_input *in, FILE *md, FILE *html)
{
    doc d = {md, html};
    char *analysis = kcal_report_analysis(in);
    if (!analysis)
        return -1;
    if (html)
        fprintf(html,
                "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                "<title>kcal report: %s</title>\n<style>\n"
                "body{font-family:sans-serif;max-width:1100px;margin:2em auto;"
                "line-height:1.45;color:#222}\n"
                "table{border-collapse:collapse;margin:1em 0}\n"
                "td,th{border:1px solid #ccc;padding:.2em .6em;text-align:left}\n"
                "th{background:#f3f3f3}code{background:#f3f3f3;padding:0 .2em}\n"
                "img{max-width:100%%;border:1px solid #ddd}\n"
                "</style></head><body>\n",
                in->machine->host);

    char buf[512];
    snprintf(buf, sizeof buf, "kcal report: measured times against the model on %s",
             in->machine->host);
    if (md)
        fprintf(md, "# %s\n\n", buf);
    if (html) {
        fputs("<h1>", html);
        d.md = NULL;
        d_text(&d, buf);
        d.md = md;
        fputs("</h1>\n", html);
    }
    d_paras(&d, in->generated);

    double med = kcal_join_median_ape(in->table);
    double reg = kcal_join_mean_regret(in->ranking, in->n_ranking);
    int pts = 0, m = 0;
    for (size_t i = 0; i < in->table->n; i++) {
        const kcal_join_row *r = &in->table->rows[i];
        pts += r->has_pred && r->has_meas && !r->oversubscribed &&
               r->size >= KCAL_JOIN_MIN_ERR_SIZE;
    }
    for (long i = 0; i < in->n_ranking; i++)
        m += !in->ranking[i].oversubscribed;
    snprintf(buf, sizeof buf,
             "Median model error: %.1f %% (absolute percentage error of the "
             "paper model against the measured median, %d points of 16K and "
             "more). Mean selection regret: %.1f %% (%d collective and size "
             "points; 0 when the predicted best is the measured best).",
             med, pts, reg, m);
    d_paras(&d, buf);
    d_paras(&d, "How to read it: in each plot the points are measured medians "
                "with min–max bars, and the line of the same colour is the "
                "model's prediction for that algorithm; where a line runs "
                "below its points the model is too optimistic. `mpi` (black, "
                "no line) is the MPI library's own collective. Throttle "
                "factors are shown for the best few k only; every k is in "
                "the tables.");

    char *cmp = kcal_report_model_comparison(in);
    if (cmp) {
        d_h(&d, 2, "Paper model against the full model");
        d_paras(&d, cmp);
        free(cmp);
    }

    d_h(&d, 2, "Where the model is off, and why");
    d_paras(&d, analysis);
    free(analysis);

    d_h(&d, 2, "Measured against the model");
    section_plots(&d, in, 0);
    d_h(&d, 2, "Speedup of the best kcoll algorithm over the MPI library");
    section_speedup(&d, in, 0);
    d_h(&d, 2, "Model error per algorithm (summary.csv)");
    d_paras(&d, "Absolute percentage error 100·|predicted − measured| / "
                "measured, over sizes of 16K and more. Full precision in "
                "`summary.csv`.");
    section_summary(&d, in, 0);
    d_h(&d, 2, "Predicted against measured best (ranking.csv)");
    d_paras(&d, "regret_pct = 100·(measured time of the predicted best − "
                "measured best) / measured best; `mpi` is not a candidate.");
    section_ranking(&d, in, 0);

    if (has_oversubscribed(in)) {
        d_h(&d, 2, "Oversubscribed runs — not contention measurements");
        d_paras(&d, "These runs had more ranks than cores, so ranks took "
                    "turns on a core: the times include scheduling, not only "
                    "contention, and they are left out of the headline "
                    "numbers above. Tables: `summary-oversubscribed.csv`, "
                    "`ranking-oversubscribed.csv`.");
        section_plots(&d, in, 1);
        section_speedup(&d, in, 1);
        section_summary(&d, in, 1);
        section_ranking(&d, in, 1);
    }

    section_machine(&d, in);
    section_params(&d, in);

    if (html)
        fputs("</body></html>\n", html);
    if ((md && ferror(md)) || (html && ferror(html)))
        return -1;
    return 0;
}
