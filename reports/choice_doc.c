/* choice_doc: libkcoll's verified choice and the noise between launches in
 * the report (choice_doc.h). */
#include "reports/choice_doc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "reports/fmt.h"
#include "reports/noise.h"

static double floor_of(const kcal_report_input *in)
{
    return in->noise ? in->noise->median_pct : NAN;
}

/* auto's median over the best row's (a kcoll algorithm or mpi): 1 when it
 * chose as well as anything measured. */
static double auto_over_best(const kcal_join_rank *r)
{
    const kcal_join_row *b = kcal_noise_best_row(r);
    return r->auto_choice && b ? r->auto_choice->median_s / b->median_s : NAN;
}

/* The same in the second launch; NAN when the point was not measured
 * again. */
static double auto_over_best_again(const kcal_report_input *in,
                                   const kcal_join_rank *r)
{
    kcal_noise_again a;
    kcal_noise_again_of(in->again, r, &a);
    const kcal_join_row *b = a.best_row;
    return a.auto_choice && b ? a.auto_choice->median_s / b->median_s : NAN;
}

/* Collective, p, then worst auto/best first, then size. */
static int cmp_worst(const void *pa, const void *pb)
{
    const kcal_join_rank *a = *(const kcal_join_rank *const *)pa;
    const kcal_join_rank *b = *(const kcal_join_rank *const *)pb;
    int cc = kcal_join_coll_cmp(a->coll, b->coll);
    if (cc)
        return cc;
    if (a->p != b->p)
        return a->p - b->p;
    double x = auto_over_best(a), y = auto_over_best(b);
    if (x != y)
        return x > y ? -1 : 1;
    return (a->size > b->size) - (a->size < b->size);
}

static void fmt_ratio(double v, const char *unit, char *buf, size_t len)
{
    if (isnan(v))
        snprintf(buf, len, "–");
    else
        snprintf(buf, len, "%.2f%s", v, unit);
}

int kcal_report_auto_table(kcal_doc *d, const kcal_report_input *in)
{
    const kcal_join_rank **rows =
        malloc((in->n_ranking ? (size_t)in->n_ranking : 1) * sizeof *rows);
    if (!rows)
        return -1;
    size_t n = 0;
    for (long i = 0; i < in->n_ranking; i++)
        if (in->ranking[i].auto_choice && !in->ranking[i].oversubscribed)
            rows[n++] = &in->ranking[i];
    if (!n) {
        kcal_doc_paras(d, "libkcoll's own choice (`auto`, algorithm NULL) "
                       "was not measured (`kcal bench --no-auto-limit`), so "
                       "this report cannot say where letting libkcoll choose "
                       "loses.");
        free(rows);
        return 0;
    }
    qsort(rows, n, sizeof *rows, cmp_worst);
    int again = in->again != NULL;
    static const char *const head[] = {"collective", "p", "size", "`auto`",
                                       "auto/mpi speed", "best",
                                       "auto/best time",
                                       "auto/best, launch 2"};
    int nc = again ? 8 : 7;
    kcal_doc_table(d, nc, head);
    for (size_t i = 0; i < n; i++) {
        const kcal_join_rank *r = rows[i];
        const kcal_join_row *b = kcal_noise_best_row(r);
        char p[16], sz[32], t[32], sp[32], best[72], lab[64], ab[32], a2[32];
        snprintf(p, sizeof p, "%d", r->p);
        kcal_fmt_size(r->size, sz, sizeof sz);
        kcal_fmt_time(r->auto_choice->median_s, t, sizeof t);
        fmt_ratio(r->mpi ? r->mpi->median_s / r->auto_choice->median_s : NAN,
                  "×", sp, sizeof sp);
        snprintf(best, sizeof best, "`%s`",
                 kcal_join_alg_label(b, lab, sizeof lab));
        fmt_ratio(auto_over_best(r), "", ab, sizeof ab);
        fmt_ratio(again ? auto_over_best_again(in, r) : NAN, "", a2,
                  sizeof a2);
        const char *cells[] = {r->coll, p, sz, t, sp, best, ab, a2};
        kcal_doc_row(d, nc, cells);
    }
    kcal_doc_table_end(d);
    free(rows);
    kcal_doc_paras(d, "`auto` is libkcoll's own choice (algorithm NULL), "
                   "which times its candidates while the program runs and "
                   "keeps the fastest (docs/libkcoll.md, \"Choosing the "
                   "algorithm: NULL\"). auto/mpi speed = the MPI library's "
                   "median time / auto's: below 1 letting libkcoll choose is "
                   "slower than not using it. auto/best time = auto's median "
                   "/ that of the fastest row measured (`best`: a kcoll "
                   "algorithm or `mpi`, auto's candidates): 1 is as fast as "
                   "the best. Each collective's sizes are listed worst "
                   "first. kcal bench does not say which algorithm `auto` "
                   "ran.");
    if (again)
        kcal_doc_paras(d, "auto/best, launch 2: the same ratio in the second "
                       "launch of kcal bench (– where that launch did not "
                       "measure the size).");
    return 0;
}

int kcal_report_marked_points(const kcal_report_input *in,
                              const kcal_join_rank *r, long n, int *of)
{
    int m = 0, k = 0;
    for (long i = 0; i < n; i++) {
        if (r[i].oversubscribed)
            continue;
        k++;
        m += kcal_noise_marks(&r[i], floor_of(in)) != 0;
    }
    *of = k;
    return m;
}

void kcal_report_noise_paras(kcal_doc *d, const kcal_report_input *in)
{
    char para[1400];
    int rp = 0;
    double rep = kcal_join_repeat_error(in->table, &rp);
    const kcal_noise_floor *f = in->noise;
    if (!in->again) {
        kcal_doc_paras(d, "Between launches: these times come from one "
                       "launch of kcal bench, so the report cannot say how "
                       "far they move from one launch to the next (`make "
                       "report` measures twice; `kcal report "
                       "--measured-again`).");
        return;
    }
    if (!f || !f->rows) {
        kcal_doc_paras(d, "Between launches: the second launch measured no "
                       "kcoll algorithm of 16K or more that the first did, "
                       "so there is no between-launch noise floor.");
        return;
    }
    int of = 0, m = kcal_report_marked_points(in, in->ranking, in->n_ranking,
                                              &of);
    int reg = 0, mar = 0;
    for (long i = 0; i < in->n_ranking; i++) {
        if (in->ranking[i].oversubscribed)
            continue;
        unsigned k = kcal_noise_marks(&in->ranking[i], f->median_pct);
        reg += !!(k & KCAL_NOISE_REGRET);
        mar += !!(k & KCAL_NOISE_MARGIN);
    }
    char rs[64];
    if (isnan(rep))
        snprintf(rs, sizeof rs, "not known (the bench CSV has no halves)");
    else
        snprintf(rs, sizeof rs, "%.1f %%", rep);
    snprintf(para, sizeof para,
             "Between launches: %d rows (kcoll algorithms, 16K and more, at "
             "%d points) were measured in two launches of kcal bench; the "
             "slower launch measured the same row %.1f %% slower in the "
             "median and %.1f %% at the 90th percentile, while the two "
             "halves of one launch differ by %s (the repeat error). That "
             "median is this report's noise floor: a regret or a model's "
             "margin below it is a choice the machine itself can reverse "
             "from one launch to the next. At %d of %d points the model's "
             "first choice lies inside it (`within noise` in the ranking "
             "table: `regret` at %d, where it measured slower than the best "
             "by less than the floor; `margin` at %d, where the model "
             "predicts its first and second choice closer than the floor); "
             "there the choice that counts is the one libkcoll verifies at "
             "run time, `auto`, shown beside it.",
             f->rows, f->points, f->median_pct, f->p90_pct, rs, m, of, reg,
             mar);
    kcal_doc_paras(d, para);
}

void kcal_report_point_cells(const kcal_report_input *in,
                             const kcal_join_rank *r, char *within,
                             char *autoc, char *again, size_t len)
{
    unsigned m = kcal_noise_marks(r, floor_of(in));
    snprintf(within, len, "%s%s%s", m & KCAL_NOISE_REGRET ? "regret" : "",
             m == (KCAL_NOISE_REGRET | KCAL_NOISE_MARGIN) ? ", " : "",
             m & KCAL_NOISE_MARGIN ? "margin" : "");
    if (r->auto_choice) {
        char t[32];
        snprintf(autoc, len, "%s, %.2f×",
                 kcal_fmt_time(r->auto_choice->median_s, t, sizeof t),
                 r->auto_choice->median_s / r->measured_best->median_s);
    } else
        snprintf(autoc, len, "–");
    kcal_noise_again a;
    kcal_noise_again_of(in->again, r, &a);
    if (a.best) {
        char lab[64];
        snprintf(again, len, "`%s`", kcal_join_alg_label(a.best, lab,
                                                         sizeof lab));
    } else
        snprintf(again, len, "–");
}
