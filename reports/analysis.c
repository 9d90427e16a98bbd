/* analysis: the report's paragraphs on where the model is off and why
 * (analysis.h). Each of the worst series gets one hypothesis, chosen from
 * the shape of its error over small and large sizes and stated with this
 * machine's and this algorithm's numbers. */
#include "reports/analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/fmt.h"
#include "model/model.h"
#include "reports/sbuf.h"

/* Bytes a call of the series' algorithm touches at size n: the model's
 * count (kcal_model_footprint), the one the full model compares with
 * l3_cache to choose beta_hot, so what the analysis says about the cache
 * never contradicts the full model's prediction in the same report. NAN
 * for an unknown collective: no cache sentence then. */
static double series_footprint(const kcal_join_summary *s, uint64_t n)
{
    kcal_coll c;
    if (kcal_coll_from_name(s->coll, &c))
        return NAN;
    return kcal_model_footprint(c, s->alg, s->p, n);
}

/* The full model's rule (model/working_set.c, kcal_model_full_beta): fits
 * when strictly smaller than the cache. */
static int fits(double footprint, double llc)
{
    return llc > 0 && footprint < llc;
}

static int overflows(double footprint, double llc)
{
    return llc > 0 && footprint >= llc;
}

int kcal_report_params_are_local(const kcal_params *p, const kcal_machine *m)
{
    const kcal_param *h = kcal_params_find_key(p, KCAL_PK_hostname);
    if (h && h->is_text && !strcmp(h->text, m->host))
        return 1;
    const kcal_param *mk = kcal_params_find_key(p, KCAL_PK_machine);
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

/* The series' algorithm per step, from the model's registry; a series the
 * registry does not know (a foreign CSV) counts as one step of p copies. */
static kcal_shape series_shape(const kcal_join_summary *s)
{
    kcal_shape sh = {.steps = 1, .concurrent = s->p, .paper_charges_p = 0};
    kcal_coll c;
    if (kcal_coll_from_name(s->coll, &c) == 0)
        kcal_model_shape(c, kcal_model_find_algorithm(c, s->alg), s->p,
                         s->k > 0 ? s->k : 0, &sh);
    return sh;
}

/* Explain one series' error; returns the kind of pattern. A kind already
 * explained (bit set in `seen`) gets one short sentence instead of the
 * same hypothesis again. */
static int explain_series(kcal_sbuf *b, const kcal_report_input *in,
                          const pattern *pt, unsigned seen)
{
    const kcal_join_summary *s = pt->s;
    const kcal_params *prm = in->params;
    kcal_shape sh = series_shape(s);
    int steps = sh.steps, conc = sh.concurrent;
    double llc = (double)in->machine->llc_bytes;
    if (llc <= 0)
        llc = kcal_params_get_key(prm, KCAL_PK_l3_cache, 0);
    const kcal_param *bc = kcal_params_find_key(prm, KCAL_PK_beta_cache);
    const char *beta_how = bc && bc->is_text
                               ? (!strcmp(bc->text, "hot") ? "in cache"
                                                           : "out of cache")
                               : "without a record of where the data sat";
    char a[64], c1[32], c2[32], c3[64];
    double fs = pt->n_small ? fabs(pt->small_signed) : 0;
    double fl = pt->n_large ? fabs(pt->large_signed) : 0;
    char lab[128];
    snprintf(lab, sizeof lab, "%s `%s`", s->coll, series_label(s, a, sizeof a));

    int shape;
    int kind = pattern_kind(pt, &shape);
    if (seen & (1u << kind)) {
        kcal_sbuf_add(b, "The same pattern holds for %s (mean error %.0f %%). ",
                      lab, s->mape_pct);
        return kind;
    }

    if (kind == K_SIGN) {
        char near[64] = "";
        if (llc > 0)
            snprintf(near, sizeof near, " near the %s last-level cache",
                     kcal_fmt_bytes(llc, c2, sizeof c2));
        kcal_sbuf_add(b, "For %s the error changes sign between small sizes "
                      "(%+.0f %%) and large ones (%+.0f %%): the model's "
                      "growth with n (β plus l·γ/s per byte) does not match "
                      "the measured slope, as a cache-to-DRAM transition%s "
                      "would cause. ",
                      lab, pt->small_signed, pt->large_signed, near);
        return kind;
    }
    if (kind == K_FEW) {
        kcal_sbuf_add(b, "For %s (%d point%s) no size falls in the small (up "
                      "to 128K) or large (1M and up) band, too few to tell a "
                      "fixed cost from a per-byte one. ", lab, pt->points,
                      pt->points == 1 ? "" : "s");
        return kind;
    }
    if (kind == K_FIXED_FAST) {
        /* Too fast where n is small: a fixed cost the model does not carry. */
        double sm = sm_total(prm, s->p);
        kcal_sbuf_add(b, "For %s the model is %.0f %% too fast up to %s%s, so "
                      "a cost that does not grow with n is missing: most "
                      "likely per-step synchronisation — it runs %d "
                      "synchronised step%s at p = %d, and the model charges "
                      "only α per copy plus %s of shared-memory control "
                      "(T_sm)%s. ",
                      lab, fs, kcal_fmt_size(pt->small_max, c1, sizeof c1),
                      pt->n_large ? " and closer at large sizes" : "", steps,
                      steps == 1 ? "" : "s", s->p,
                      kcal_fmt_time(sm, c2, sizeof c2),
                      sm == 0 ? ", because the params hold no T_sm values"
                              : "");
    } else if (kind == K_BYTE_FAST) {
        /* Too fast at large sizes (or everywhere alike): a per-byte cost. */
        double fp = series_footprint(s, pt->large_max ? pt->large_max
                                                      : pt->small_max);
        double e = shape > 0 ? fl : (fs + fl) / 2;
        kcal_sbuf_add(b, "For %s the model is %.0f %% too fast %s: the copies "
                      "run at about %.2f GB/s where the model assumes "
                      "1/β = %.2f GB/s (β measured %s). ",
                      lab, e, shape > 0 ? "from 1M up, more than at small sizes"
                                        : "at small and large sizes alike",
                      1e-9 / prm->beta * (1 - e / 100), 1e-9 / prm->beta,
                      beta_how);
        if (conc > 1)
            kcal_sbuf_add(b, "%d copies run at once and share the memory "
                          "bandwidth, which the single-copy β does not include",
                          conc);
        else
            kcal_sbuf_add(b, "Its copies run one at a time, so shared "
                          "bandwidth is not the cause; DRAM rather than "
                          "cache bandwidth is");
        if (overflows(fp, llc))
            kcal_sbuf_add(b, "; at %s the data (about %s) no longer fits the "
                          "%s last-level cache",
                          kcal_fmt_size(pt->large_max ? pt->large_max
                                                      : pt->small_max,
                                        c1, sizeof c1),
                          kcal_fmt_bytes(fp, c2, sizeof c2),
                          kcal_fmt_bytes(llc, c3, sizeof c3));
        kcal_sbuf_add(b, ". ");
    } else if (kind == K_SLOW_SMALL) {
        double fp = series_footprint(s, pt->small_max);
        kcal_sbuf_add(b, "For %s the model is %.0f %% too slow up to %s: ", lab,
                      fs, kcal_fmt_size(pt->small_max, c1, sizeof c1));
        if (fits(fp, llc))
            kcal_sbuf_add(b, "the data (about %s) fits the %s last-level "
                          "cache, so the copies run faster than β, which was "
                          "measured %s. ", kcal_fmt_bytes(fp, c2, sizeof c2),
                          kcal_fmt_bytes(llc, c3, sizeof c3), beta_how);
        else
            kcal_sbuf_add(b, "its start-up and pinning terms (α = %s, l = %s "
                          "a page) are larger than this machine's. ",
                          kcal_fmt_time(prm->alpha, c2, sizeof c2),
                          kcal_fmt_time(prm->lock, c3, sizeof c3));
    } else {
        /* Too slow where the per-byte terms dominate: list the causes that
         * fit this machine and this algorithm. */
        double g = conc >= 2 ? kcal_model_gamma(prm, conc) : 1;
        uint64_t at = pt->large_max ? pt->large_max : pt->small_max;
        double fp = series_footprint(s, at);
        int cold_beta = bc && bc->is_text && strcmp(bc->text, "hot");
        kcal_sbuf_add(b, "For %s the model is %.0f %% too slow %s, where the "
                      "per-byte and per-page terms dominate. Likely causes: ",
                      lab, shape > 0 ? fl : (fs + fl) / 2,
                      shape > 0 ? "from 1M up"
                                : "at small and large sizes alike");
        int causes = 0; /* before the last, which then starts with "and" */
        if (fits(fp, llc)) {
            kcal_sbuf_add(b, "the data (about %s at %s) fits the %s "
                          "last-level cache, so the copies run at cache "
                          "speed%s; ",
                          kcal_fmt_bytes(fp, c2, sizeof c2),
                          kcal_fmt_size(at, c1, sizeof c1),
                          kcal_fmt_bytes(llc, c3, sizeof c3),
                          cold_beta ? ", while β was measured out of cache"
                                    : "");
            causes++;
        }
        if (sh.paper_charges_p && s->p > 1) {
            kcal_sbuf_add(b, "the formula charges p = %d transfers where the "
                          "algorithm makes p − 1 = %d remote ones, a factor "
                          "of %.3g at this p; ", s->p, s->p - 1,
                          s->p / (s->p - 1.0));
            causes++;
        }
        kcal_sbuf_add(b, "%sthe copy rate 1/β = %.2f GB/s or the pinning "
                      "term l·γ(%d) = %s per page (γ(%d) = %.3g) may be too "
                      "pessimistic for this kernel, which pins pages in "
                      "batches of up to 1024. ", causes ? "and " : "",
                      1e-9 / prm->beta, conc,
                      kcal_fmt_time(prm->lock * g, c1, sizeof c1), conc, g);
    }
    return kind;
}

char *kcal_report_analysis(const kcal_report_input *in)
{
    kcal_sbuf b = {0};
    const kcal_join_table *t = in->table;
    char c1[32], c2[32], c3[64], c4[64];
    int local = kcal_report_params_are_local(in->params, in->machine);

    /* Overall error and its direction. */
    int n = 0, under = 0;
    for (size_t i = 0; i < t->n; i++)
        if (kcal_join_in_headline(&t->rows[i])) {
            n++;
            under += t->rows[i].predicted_s < t->rows[i].median_s;
        }
    if (n == 0) {
        kcal_sbuf_add(&b, "No size of 16K or more was both measured and "
                      "predicted (outside oversubscribed runs), so there is "
                      "no model error to discuss: run with sizes from 16K up.");
        return kcal_sbuf_take(&b);
    }
    double med = kcal_join_median_ape(t);
    kcal_sbuf_add(&b, "Over %d measured points from 16K up, the paper model "
                  "is off by %.1f %% in the median; it predicts faster than "
                  "measured at %d of them (%s). ",
                  n, med, under,
                  under == n           ? "it is too optimistic everywhere"
                  : under == 0         ? "it is too pessimistic everywhere"
                  : under * 3 >= n * 2 ? "it is mostly too optimistic"
                  : under * 3 <= n     ? "it is mostly too pessimistic"
                                       : "no clear direction overall");
    if (!local) {
        const kcal_param *src = kcal_params_find_key(in->params, KCAL_PK_source);
        const kcal_param *mk = kcal_params_find_key(in->params, KCAL_PK_machine);
        kcal_sbuf_add(&b, "First of all, the params are not from this machine "
                      "(`%s`%s%s): α, β, l and γ describe %s, so much of the "
                      "error is simply another machine's constants — run "
                      "`kcal probe` (what `make report` does without PARAMS) "
                      "before reading more into the pattern below. ",
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
                memmove(&worst[w + 1], &worst[w],
                        (size_t)(2 - w) * sizeof *worst);
                worst[w] = s;
                break;
            }
    }
    kcal_sbuf_add(&b, "The largest errors:");
    for (int w = 0; w < 3 && worst[w]; w++) {
        const kcal_join_summary *s = worst[w];
        kcal_sbuf_add(&b, "%s %s `%s` at p = %d (mean %.0f %%, worst %.0f %% "
                      "at %s)",
                      w ? (w == 2 || !worst[w + 1] ? " and" : ",") : "",
                      s->coll, series_label(s, c3, sizeof c3), s->p,
                      s->mape_pct, s->max_ape_pct,
                      kcal_fmt_size(s->worst_size, c1, sizeof c1));
    }
    kcal_sbuf_add(&b, ".\n\n");
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
            kcal_sbuf_add(&b, "\n\nAmong the smaller errors other patterns "
                          "show. ");
        seen |= 1u << explain_series(&b, in, &npt, seen);
        extra++;
    }
    kcal_sbuf_add(&b, "These are hypotheses from the shape of the error; the "
                  "plots show which way each line bends away from its "
                  "points.\n\n");

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
        kcal_sbuf_add(&b, "Selection: the model's first choice among the "
                      "measured algorithms was the measured fastest at %d of "
                      "%d (collective, size) points; mean regret %.1f %%.",
                      right, m,
                      kcal_join_mean_regret(in->ranking, in->n_ranking));
        if (worst_r)
            kcal_sbuf_add(&b, " The costliest miss is %s at %s: `%s` was "
                          "picked and measured %.0f %% slower than `%s`.",
                          worst_r->coll,
                          kcal_fmt_size(worst_r->size, c1, sizeof c1),
                          kcal_join_alg_label(worst_r->predicted_best, c3,
                                              sizeof c3),
                          worst_r->regret_pct,
                          kcal_join_alg_label(worst_r->measured_best, c4,
                                              sizeof c4));
        if (m - right && noise)
            kcal_sbuf_add(&b, " %d of the %d misses are near ties (the picked "
                          "algorithm's fastest iteration was as fast as the "
                          "winner's median) rather than model failures.", noise,
                          m - right);
        else if (m - right)
            kcal_sbuf_add(&b, " None of the %d misses is a near tie (the "
                          "picked algorithm's fastest iteration was slower "
                          "than the winner's median): the model ranks them in "
                          "the wrong order.", m - right);
        if (tied)
            kcal_sbuf_add(&b, " At %d point%s the model predicts the same "
                          "time for several measured algorithms (e.g. %s at p "
                          "= %d, where their formulas coincide), so its pick "
                          "there is only the first it lists; a regret at such "
                          "a point says the model cannot tell them apart, not "
                          "that it ranked them wrongly.", tied,
                          tied == 1 ? "" : "s", tied_ex->coll, tied_ex->p);
    }
    (void)c2;
    return kcal_sbuf_take(&b);
}
