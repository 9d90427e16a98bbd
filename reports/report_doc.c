/* report_doc: the sections of report.md and index.html (report_doc.h). */
#include "reports/report_doc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis.h"
#include "reports/choice_doc.h"
#include "reports/compare.h"
#include "reports/doc_writer.h"
#include "reports/fmt.h"
#include "model/keys.h"
#include "model/model.h"

static void section_machine(kcal_doc *d, const kcal_report_input *in)
{
    const kcal_machine *m = in->machine;
    char c1[32], cores[64], llc[64];
    kcal_doc_heading(d, 2, "Machine (where the times were measured)");
    static const char *const head[] = {"what", "value"};
    snprintf(cores, sizeof cores, "%d cores, %d hardware threads", m->cores,
             m->pus);
    if (m->llc_bytes)
        snprintf(llc, sizeof llc, "L%d, %s", m->llc_level,
                 kcal_fmt_bytes((double)m->llc_bytes, c1, sizeof c1));
    else
        snprintf(llc, sizeof llc, "unknown");
    char sockets[48];
    snprintf(sockets, sizeof sockets, "%d socket%s, %d NUMA node%s",
             m->sockets, m->sockets == 1 ? "" : "s", m->numa,
             m->numa == 1 ? "" : "s");
    /* issue 9: the knee kcal probe measured, beside what hwloc says. */
    char knee[160], c2[32], kse[64];
    const char *kk = kcal_key_name(KCAL_PK_cache_knee);
    snprintf(knee, sizeof knee, "not measured (params without %s)", kk);
    double kv = kcal_params_get_key(in->params, KCAL_PK_cache_knee, 0);
    double ks = kcal_key_family_name(KCAL_PK_key_stderr, kk, kse, sizeof kse)
                    ? kcal_params_get(in->params, kse, 0)
                    : 0;
    int disagree = 0;
    if (kv > 0) {
        snprintf(knee, sizeof knee, "%s ± %s (where the copy rate falls to "
                 "the out-of-cache one)", kcal_fmt_bytes(kv, c1, sizeof c1),
                 kcal_fmt_bytes(ks, c2, sizeof c2));
        double hw = (double)m->llc_bytes;
        disagree = hw > 0 && fabs(hw - kv) > 3 * ks && (hw > 1.25 * kv ||
                                                         kv > 1.25 * hw);
    }
    const char *rows[][2] = {
        {"host", m->host}, {"CPU", m->cpu}, {"cores", cores},
        {"sockets", sockets}, {"last-level cache", llc},
        {"cache knee, measured", knee}, {"kernel", m->kernel},
        {"MPI library (`mpi`)", in->mpi_library}};
    kcal_doc_table(d, 2, head);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i][1]) /* the MPI library only when given */
            kcal_doc_row(d, 2, rows[i]);
    kcal_doc_table_end(d);
    if (disagree) {
        char para[400];
        snprintf(para, sizeof para, "hwloc and the measurement disagree: "
                 "hwloc reports a %s last-level cache, while copies fall "
                 "to the out-of-cache rate from a working set of %s on. A "
                 "virtual machine may be told the host's cache, not its "
                 "share of it; the full model uses the measurement.",
                 kcal_fmt_bytes((double)m->llc_bytes, c2, sizeof c2),
                 kcal_fmt_bytes(kv, c1, sizeof c1));
        kcal_doc_paras(d, para);
    }
}

/* Whether key is longer than suffix and ends with it. */
static int ends_with(const char *key, const char *suffix)
{
    size_t kl = strlen(key), sl = strlen(suffix);
    return kl > sl && !strcmp(key + kl - sl, suffix);
}

/* What a key of the params is (model/keys.def: its meaning and unit), or
 * "" for a key the registry does not have. */
static const char *key_meaning(const char *key, char *buf, size_t len)
{
    if (!kcal_key_description(kcal_key_lookup(key, NULL, NULL), buf, len))
        *buf = '\0';
    return buf;
}

static void section_params(kcal_doc *d, const kcal_report_input *in)
{
    const kcal_params *p = in->params;
    kcal_doc_heading(d, 2, "Params used");
    char line[512];
    snprintf(line, sizeof line, "From `%s`; model: `paper` "
             "(docs/model.md). 1/β = %.3g GB/s; γ(2) = %.3g.",
             p->origin, 1e-9 / p->beta, kcal_model_gamma(p, 2));
    kcal_doc_paras(d, line);
    static const char *const head[] = {"key", "value", "± std. error",
                                       "meaning"};
    kcal_doc_table(d, 4, head);
    const char *suffix_se = kcal_key_info_of(KCAL_PK_key_stderr)->suffix;
    const char *suffix_dof = kcal_key_info_of(KCAL_PK_key_dof)->suffix;
    for (size_t i = 0; i < p->n_entries; i++) {
        const kcal_param *e = &p->entries[i];
        if (ends_with(e->key, suffix_se) || ends_with(e->key, suffix_dof))
            continue;
        char se[64] = "", key[80], meaning[256];
        const kcal_param *s =
            kcal_key_family_name(KCAL_PK_key_stderr, e->key, line, sizeof line)
                ? kcal_params_find(p, line)
                : NULL;
        if (s && !s->is_text)
            snprintf(se, sizeof se, "%.3g", s->value);
        snprintf(key, sizeof key, "`%s`", e->key);
        const char *cells[] = {key, e->text, se,
                               key_meaning(e->key, meaning, sizeof meaning)};
        kcal_doc_row(d, 4, cells);
    }
    kcal_doc_table_end(d);
}

static void section_plots(kcal_doc *d, const kcal_report_input *in, int over)
{
    for (size_t i = 0; i < in->n_times; i++) {
        const kcal_report_plot *pl = &in->times[i];
        if (pl->oversubscribed != over)
            continue;
        char h[128];
        snprintf(h, sizeof h, "%s, p = %d%s", pl->coll, pl->p,
                 over ? " (oversubscribed)" : "");
        kcal_doc_heading(d, 3, h);
        kcal_doc_image(d, pl->png, h);
    }
}

/* The speedups as one table per p: sizes down, collectives across, each
 * cell the speedup and the kcoll algorithm that achieved it. */
static void section_speedup(kcal_doc *d, const kcal_report_input *in, int over)
{
    int any = 0;
    for (size_t i = 0; i < in->n_speedup; i++) {
        const kcal_report_plot *pl = &in->speedup[i];
        if (pl->oversubscribed != over)
            continue;
        char alt[96];
        snprintf(alt, sizeof alt, "speedup over MPI, p = %d%s", pl->p,
                 over ? " (oversubscribed)" : "");
        kcal_doc_image(d, pl->png, alt);
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
        const char *head[1 + KCAL_JOIN_MAX_COLLS];
        kcal_join_colls cs = {0};
        char hp[32];
        snprintf(hp, sizeof hp, "size (p = %d)", p);
        head[0] = hp;
        for (long j = 0; j < in->n_ranking; j++)
            if (in->ranking[j].p == p && in->ranking[j].mpi)
                kcal_join_colls_add(&cs, in->ranking[j].coll);
        int nc = cs.n;
        for (int c = 0; c < nc; c++)
            head[1 + c] = cs.name[c];
        kcal_doc_table(d, 1 + nc, head);
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
            char cell[KCAL_JOIN_MAX_COLLS][96], sz[32], a[64];
            const char *cells[1 + KCAL_JOIN_MAX_COLLS];
            cells[0] = kcal_fmt_size(next, sz, sizeof sz);
            for (int c = 0; c < nc; c++) {
                snprintf(cell[c], sizeof cell[c], "–");
                for (long j = 0; j < in->n_ranking; j++) {
                    const kcal_join_rank *q = &in->ranking[j];
                    if (q->p == p && q->size == next && q->mpi &&
                        !strcmp(q->coll, cs.name[c])) {
                        int at = snprintf(cell[c], sizeof cell[c], "%.2f× `%s`",
                                          q->speedup,
                                          kcal_join_alg_label(q->measured_best,
                                                              a, sizeof a));
                        /* auto against mpi, and the best against the limit */
                        if (q->auto_choice && at > 0 && at < (int)sizeof cell[c])
                            at += snprintf(cell[c] + at, sizeof cell[c] - (size_t)at,
                                           ", auto %.2f×", q->mpi->median_s /
                                                               q->auto_choice->median_s);
                        if (q->limit && q->limit->median_s > 0 && at > 0 &&
                            at < (int)sizeof cell[c])
                            snprintf(cell[c] + at, sizeof cell[c] - (size_t)at,
                                     ", %.2f of limit", q->measured_best->median_s /
                                                            q->limit->median_s);
                    }
                }
                cells[1 + c] = cell[c];
            }
            kcal_doc_row(d, 1 + nc, cells);
            last = next;
        }
        kcal_doc_table_end(d);
    }
    if (any && in->mpi_library) {
        char para[1024];
        snprintf(para, sizeof para, "Speedup = median time of the MPI "
                 "library's collective (%s) / median time of the fastest "
                 "kcoll algorithm, with that algorithm named; above 1 kcoll "
                 "is faster. Times in `speedup.csv`. Where measured, `auto` "
                 "is the same ratio for libkcoll's own choice (algorithm "
                 "NULL), and `of limit` the fastest algorithm's median over "
                 "the copy limit's (docs/bench.md): 1 is as fast as the "
                 "copies alone.", in->mpi_library);
        kcal_doc_paras(d, para);
    } else if (any)
        kcal_doc_paras(d, "Speedup = median time of the MPI library's "
                       "collective / median time of the fastest kcoll "
                       "algorithm, with that algorithm named; above 1 kcoll "
                       "is faster. Times in `speedup.csv`. Where measured, "
                       "`auto` is the same ratio for libkcoll's own choice "
                       "(algorithm NULL), and `of limit` the fastest "
                       "algorithm's median over the copy limit's "
                       "(docs/bench.md): 1 is as fast as the copies alone.");
    else
        kcal_doc_paras(d, "The MPI library's own collective (`mpi`) was not "
                          "measured, so there is no speedup to show.");
}

static void section_summary(kcal_doc *d, const kcal_report_input *in, int over)
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
            kcal_doc_table(d, 9, head);
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
                               kcal_fmt_size(s->worst_size, w, sizeof w), dir};
        kcal_doc_row(d, 9, cells);
    }
    if (any)
        kcal_doc_table_end(d);
    else
        kcal_doc_paras(d, "No point of 16K or more was both measured and "
                       "predicted.");
}

static void section_ranking(kcal_doc *d, const kcal_report_input *in, int over)
{
    static const char *const head[] = {"collective", "p", "size_bytes",
                                       "predicted_best", "measured_best",
                                       "regret_pct", "tie", "within noise",
                                       "`auto`, ×best", "best, launch 2"};
    int nc = in->again ? 10 : 9;
    int any = 0;
    for (long i = 0; i < in->n_ranking; i++) {
        const kcal_join_rank *r = &in->ranking[i];
        if (r->oversubscribed != over)
            continue;
        if (!any++)
            kcal_doc_table(d, nc, head);
        char p[16], sz[32], a[64], b[64], pa[80], pb[80], rg[32];
        char within[80], autoc[80], again[80];
        kcal_report_point_cells(in, r, within, autoc, again, sizeof within);
        snprintf(p, sizeof p, "%d", r->p);
        snprintf(sz, sizeof sz, "%llu", (unsigned long long)r->size);
        snprintf(pa, sizeof pa, "`%s`",
                 kcal_join_alg_label(r->predicted_best, a, sizeof a));
        snprintf(pb, sizeof pb, "`%s`",
                 kcal_join_alg_label(r->measured_best, b, sizeof b));
        snprintf(rg, sizeof rg, "%.1f", r->regret_pct);
        const char *cells[] = {r->coll, p, sz, pa, pb, rg,
                               r->noise_tie ? "tie" : "", within, autoc,
                               again};
        kcal_doc_row(d, nc, cells);
    }
    if (any)
        kcal_doc_table_end(d);
    else
        kcal_doc_paras(d, "No (collective, size) point had both a prediction "
                       "and a measurement.");
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

static void fmt_pct(double v, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "–");
    else
        snprintf(buf, len, "%.1f %%", v);
}

/* issue 9: the report opens with one table a person reads at a glance:
 * each model's median error, mean regret (with and without noise ties)
 * and right first choices, the repeat error (the noise floor those errors
 * stand against), and the speedup range over the MPI library per
 * collective. */
static void section_headline(kcal_doc *d, const kcal_report_input *in)
{
    int full = in->full_table != NULL;
    static const char *const head2[] = {"", "paper model"};
    static const char *const head3[] = {"", "paper model", "full model"};
    int nc = full ? 3 : 2;
    kcal_doc_table(d, nc, full ? head3 : head2);
    char a[64], b[64];
    fmt_pct(kcal_join_median_ape(in->table), a, sizeof a);
    if (full)
        fmt_pct(kcal_join_median_ape(in->full_table), b, sizeof b);
    const char *r1[] = {"median error (n ≥ 16K)", a, b};
    kcal_doc_row(d, nc, r1);
    fmt_pct(kcal_join_mean_regret(in->ranking, in->n_ranking), a, sizeof a);
    if (full)
        fmt_pct(kcal_join_mean_regret(in->full_ranking, in->n_full_ranking),
                b, sizeof b);
    const char *r2[] = {"mean regret", a, b};
    kcal_doc_row(d, nc, r2);
    long ta = 0, tb = 0;
    double na = kcal_join_mean_regret_no_ties(in->ranking, in->n_ranking, &ta);
    double nb = full ? kcal_join_mean_regret_no_ties(in->full_ranking,
                                                     in->n_full_ranking, &tb)
                     : NAN;
    char pa[32], pb[32];
    fmt_pct(na, pa, sizeof pa);
    fmt_pct(nb, pb, sizeof pb);
    snprintf(a, sizeof a, "%s (%ld ties)", pa, ta);
    snprintf(b, sizeof b, "%s (%ld ties)", pb, tb);
    const char *r3[] = {"mean regret without noise ties", a, b};
    kcal_doc_row(d, nc, r3);
    int of = 0, right = kcal_join_right_picks(in->ranking, in->n_ranking, &of);
    snprintf(a, sizeof a, "%d of %d", right, of);
    if (full) {
        right = kcal_join_right_picks(in->full_ranking, in->n_full_ranking,
                                      &of);
        snprintf(b, sizeof b, "%d of %d", right, of);
    }
    const char *r4[] = {"right first choice", a, b};
    kcal_doc_row(d, nc, r4);
    int rp = 0;
    double rep = kcal_join_repeat_error(in->table, &rp);
    if (isnan(rep))
        snprintf(a, sizeof a, "– (the bench CSV has no halves)");
    else
        snprintf(a, sizeof a, "%.1f %% (%d points)", rep, rp);
    const char *r5[] = {"repeat error (noise floor)", a, a};
    kcal_doc_row(d, nc, r5);
    /* The noise between two launches, and the choices inside it. */
    const kcal_noise_floor *nf = in->noise;
    if (!in->again)
        snprintf(a, sizeof a, "– (one launch)");
    else if (!nf || !nf->rows)
        snprintf(a, sizeof a, "– (no row measured in both launches)");
    else
        snprintf(a, sizeof a, "median %.1f %%, 90th percentile %.1f %% "
                 "(%d rows)", nf->median_pct, nf->p90_pct, nf->rows);
    const char *r6[] = {"between-launch noise floor", a, a};
    kcal_doc_row(d, nc, r6);
    if (in->again && nf && nf->rows) {
        right = kcal_report_marked_points(in, in->ranking, in->n_ranking, &of);
        snprintf(a, sizeof a, "%d of %d", right, of);
        if (full) {
            right = kcal_report_marked_points(in, in->full_ranking,
                                              in->n_full_ranking, &of);
            snprintf(b, sizeof b, "%d of %d", right, of);
        }
        const char *r7[] = {"first choice within the noise floor", a, b};
        kcal_doc_row(d, nc, r7);
    }
    kcal_join_colls cs = {0};
    for (long i = 0; i < in->n_ranking; i++)
        kcal_join_colls_add(&cs, in->ranking[i].coll);
    for (int c = 0; c < cs.n; c++) {
        const char *cn = cs.name[c];
        double lo = INFINITY, hi = -INFINITY;
        for (long i = 0; i < in->n_ranking; i++) {
            const kcal_join_rank *r = &in->ranking[i];
            if (r->oversubscribed || isnan(r->speedup) || strcmp(r->coll, cn))
                continue;
            lo = fmin(lo, r->speedup);
            hi = fmax(hi, r->speedup);
        }
        if (!(lo <= hi))
            continue;
        char label[64];
        snprintf(label, sizeof label, "speedup over MPI, %s", cn);
        snprintf(a, sizeof a, "%.2f–%.2f×", lo, hi);
        const char *r8[] = {label, a, a};
        kcal_doc_row(d, nc, r8);
    }
    kcal_doc_table_end(d);
}

int kcal_report_write(const kcal_report_input *in, FILE *md, FILE *html)
{
    kcal_doc d = {md, html};
    char *analysis = kcal_report_analysis(in);
    if (!analysis)
        return -1;
    char buf[512], title[128];
    snprintf(title, sizeof title, "kcal report: %s", in->machine->host);
    snprintf(buf, sizeof buf,
             "kcal report: measured times against the model on %s",
             in->machine->host);
    kcal_doc_begin(&d, title, buf);
    if (kcal_report_auto_table(&d, in)) {
        free(analysis);
        return -1;
    }
    section_headline(&d, in);
    kcal_report_noise_paras(&d, in);
    kcal_doc_paras(&d, in->generated);

    double med = kcal_join_median_ape(in->table);
    double reg = kcal_join_mean_regret(in->ranking, in->n_ranking);
    int pts = 0, m = 0;
    for (size_t i = 0; i < in->table->n; i++)
        pts += kcal_join_in_headline(&in->table->rows[i]);
    for (long i = 0; i < in->n_ranking; i++)
        m += !in->ranking[i].oversubscribed;
    snprintf(buf, sizeof buf,
             "Median model error: %.1f %% (absolute percentage error of the "
             "paper model against the measured median, %d points of 16K and "
             "more). Mean selection regret: %.1f %% (%d collective and size "
             "points; 0 when the predicted best is the measured best).",
             med, pts, reg, m);
    kcal_doc_paras(&d, buf);
    kcal_doc_paras(&d, "How to read it: in each plot the points are measured "
                   "medians with bars from the first to the third quartile "
                   "of the iterations (min–max for a bench CSV without "
                   "quartiles), and the line of the same "
                   "colour is the model's prediction for that algorithm; "
                   "where a line runs below its points the model is too "
                   "optimistic. `mpi` (black, no line) is the MPI library's "
                   "own collective. Throttle factors are shown for the best "
                   "few k only; every k is in the tables.");

    char *cmp = kcal_report_model_comparison(in);
    if (cmp) {
        kcal_doc_heading(&d, 2, "Paper model against the full model");
        kcal_doc_paras(&d, cmp);
        free(cmp);
    }

    kcal_doc_heading(&d, 2, "Where the model is off, and why");
    kcal_doc_paras(&d, analysis);
    free(analysis);

    kcal_doc_heading(&d, 2, "Measured against the model");
    section_plots(&d, in, 0);
    kcal_doc_heading(&d, 2, "Speedup of the best kcoll algorithm over the "
                     "MPI library");
    section_speedup(&d, in, 0);
    kcal_doc_heading(&d, 2, "Model error per algorithm (summary.csv)");
    kcal_doc_paras(&d, "Absolute percentage error 100·|predicted − measured| "
                   "/ measured, over sizes of 16K and more. Full precision "
                   "in `summary.csv`.");
    section_summary(&d, in, 0);
    kcal_doc_heading(&d, 2, "Predicted against measured best (ranking.csv)");
    kcal_doc_paras(&d, "regret_pct = 100·(measured time of the predicted "
                   "best − measured best) / measured best; `mpi` is not a "
                   "candidate. `tie`: the two medians differ by less than "
                   "either's own noise (the difference of the medians of "
                   "its two interleaved halves of iterations), so the "
                   "measurement cannot tell which is faster. `within "
                   "noise`: `regret` where the regret is above 0 but below "
                   "the between-launch noise floor, `margin` where the "
                   "model predicts its second choice within that floor of "
                   "its first (empty with one launch): another launch may "
                   "rank them otherwise. `auto`, ×best: libkcoll's verified "
                   "choice, its median and that over the measured best's. "
                   "`best, launch 2`: the fastest kcoll algorithm of the "
                   "second launch (– where it did not measure the point).");
    section_ranking(&d, in, 0);

    if (has_oversubscribed(in)) {
        kcal_doc_heading(&d, 2, "Oversubscribed runs — not contention "
                         "measurements");
        kcal_doc_paras(&d, "These runs had more ranks than cores, so ranks "
                       "took turns on a core: the times include scheduling, "
                       "not only contention, and they are left out of the "
                       "headline numbers above. Tables: "
                       "`summary-oversubscribed.csv`, "
                       "`ranking-oversubscribed.csv`.");
        section_plots(&d, in, 1);
        section_speedup(&d, in, 1);
        section_summary(&d, in, 1);
        section_ranking(&d, in, 1);
    }

    section_machine(&d, in);
    section_params(&d, in);

    kcal_doc_end(&d);
    if ((md && ferror(md)) || (html && ferror(html)))
        return -1;
    return 0;
}
