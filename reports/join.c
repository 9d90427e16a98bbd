/* join: join the predicted and measured rows and compute the model's
 * error and the predictor's selection regret (see join.h; reading the
 * files is join_read.c's). */
#include "reports/join.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/columns.h"
#include "common/err.h"
#include "common/quantile.h"
#include "common/vcounts.h"
#include "model/irregular.h"
#include "model/model.h"

void kcal_join_init(kcal_join_table *t)
{
    memset(t, 0, sizeof *t);
}

void kcal_join_free(kcal_join_table *t)
{
    free(t->rows);
    for (size_t i = 0; i < t->n_names; i++)
        free(t->names[i]);
    free(t->names);
    kcal_join_init(t);
}


/* ---- the join --------------------------------------------------------- */

int kcal_join_coll_order(const char *name)
{
    kcal_coll c;
    if (kcal_coll_from_name(name, &c) == 0)
        return (int)c;
    char base[KCAL_VCOUNTS_LABEL_LEN];
    snprintf(base, sizeof base, "%.*s", (int)strcspn(name, "-"), name);
    int v = kcal_model_vcoll_index(base);
    return v < 0 ? -1 : KCAL_COLL_COUNT + v;
}

int kcal_join_coll_cmp(const char *a, const char *b)
{
    int ca = kcal_join_coll_order(a), cb = kcal_join_coll_order(b);
    if (ca != cb)
        return ca < cb ? -1 : 1;
    return strcmp(a, b);
}

void kcal_join_colls_add(kcal_join_colls *s, const char *name)
{
    int at = 0;
    while (at < s->n && kcal_join_coll_cmp(s->name[at], name) < 0)
        at++;
    if ((at < s->n && !strcmp(s->name[at], name)) ||
        s->n == KCAL_JOIN_MAX_COLLS)
        return;
    memmove(s->name + at + 1, s->name + at,
            (size_t)(s->n - at) * sizeof s->name[0]);
    s->name[at] = name;
    s->n++;
}

int kcal_join_is_reference(const char *alg)
{
    return !strcmp(alg, KCAL_JOIN_MPI) || !strcmp(alg, KCAL_JOIN_AUTO) ||
           !strcmp(alg, KCAL_JOIN_LIMIT);
}

/* 0 for a model algorithm, then mpi, auto, limit. */
static int reference_order(const char *alg)
{
    return !strcmp(alg, KCAL_JOIN_MPI)    ? 1
           : !strcmp(alg, KCAL_JOIN_AUTO) ? 2
           : !strcmp(alg, KCAL_JOIN_LIMIT) ? 3
                                           : 0;
}

/* The join's one order: collective (model order), p, then with by_alg
 * algorithm (mpi, auto and limit last, so a plot's reference series
 * come after the model's) and k, then size. Without by_alg it orders the points
 * (collective, p, size) the ranking groups rows by, so the ranking lists
 * collectives and p in the same order as the joined rows. */
static int cmp_order(const kcal_join_row *a, const kcal_join_row *b,
                     int by_alg)
{
    int cc = kcal_join_coll_cmp(a->coll, b->coll);
    if (cc)
        return cc;
    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    if (by_alg) {
        int ma = reference_order(a->alg), mb = reference_order(b->alg);
        if (ma != mb)
            return ma - mb;
        int s = strcmp(a->alg, b->alg);
        if (s)
            return s;
        if (a->k != b->k)
            return a->k < b->k ? -1 : 1;
    }
    if (a->size != b->size)
        return a->size < b->size ? -1 : 1;
    return 0;
}

/* A row's key: (collective, p, algorithm, k, size). */
static int cmp_key(const kcal_join_row *a, const kcal_join_row *b)
{
    return cmp_order(a, b, 1);
}

static int cmp_rows(const void *pa, const void *pb)
{
    const kcal_join_row *a = pa, *b = pb;
    int c = cmp_key(a, b);
    if (c)
        return c;
    /* Predicted before measured, then by line: duplicates are reported at
     * their second occurrence. */
    if (a->has_pred != b->has_pred)
        return b->has_pred - a->has_pred;
    int la = a->has_pred ? a->pred_line : a->meas_line;
    int lb = b->has_pred ? b->pred_line : b->meas_line;
    return (la > lb) - (la < lb);
}

char *kcal_join_alg_label(const kcal_join_row *r, char *buf, size_t len)
{
    if (r->k)
        snprintf(buf, len, "%s:%d", r->alg, r->k);
    else
        snprintf(buf, len, "%s", r->alg);
    return buf;
}

int kcal_join_finish(kcal_join_table *t, char *err, size_t errlen)
{
    if (t->n) /* rows is NULL when both files hold only headers */
        qsort(t->rows, t->n, sizeof *t->rows, cmp_rows);
    size_t w = 0;
    for (size_t i = 0; i < t->n; i++) {
        kcal_join_row *r = &t->rows[i];
        if (w > 0 && !cmp_key(&t->rows[w - 1], r)) {
            kcal_join_row *o = &t->rows[w - 1];
            if ((o->has_pred && r->has_pred) || (o->has_meas && r->has_meas)) {
                char lab[64];
                int pred = r->has_pred;
                kcal_set_err(err, errlen,
                        "%s:%d: duplicate row %s,p=%d,%llu bytes,%s "
                        "(first at %s:%d)",
                        pred ? r->pred_file : r->meas_file,
                        pred ? r->pred_line : r->meas_line, r->coll, r->p,
                        (unsigned long long)r->size,
                        kcal_join_alg_label(r, lab, sizeof lab),
                        pred ? o->pred_file : o->meas_file,
                        pred ? o->pred_line : o->meas_line);
                return -1;
            }
            /* o is the predicted row (sorted first), r the measured one. */
            o->has_meas = 1;
            o->median_s = r->median_s;
            o->min_s = r->min_s;
            o->max_s = r->max_s;
            o->iterations = r->iterations;
            o->oversubscribed = r->oversubscribed;
            o->has_quartiles = r->has_quartiles;
            o->has_halves = r->has_halves;
            o->p25_s = r->p25_s;
            o->p75_s = r->p75_s;
            o->half1_s = r->half1_s;
            o->half2_s = r->half2_s;
            o->meas_file = r->meas_file;
            o->meas_line = r->meas_line;
            continue;
        }
        t->rows[w++] = *r;
    }
    t->n = w;
    t->pred_only = t->meas_only = 0;
    for (size_t i = 0; i < t->n; i++) {
        t->pred_only += t->rows[i].has_pred && !t->rows[i].has_meas;
        t->meas_only += !t->rows[i].has_pred && t->rows[i].has_meas;
    }
    return 0;
}

double kcal_join_ape(const kcal_join_row *r)
{
    return 100.0 * fabs(r->predicted_s - r->median_s) / r->median_s;
}

static int joined(const kcal_join_row *r)
{
    return r->has_pred && r->has_meas;
}

static int same_series(const kcal_join_row *a, const kcal_join_row *b)
{
    return !strcmp(a->coll, b->coll) && a->p == b->p &&
           !strcmp(a->alg, b->alg) && a->k == b->k;
}

long kcal_join_summarise(const kcal_join_table *t, kcal_join_summary **out)
{
    kcal_join_summary *s = calloc(t->n ? t->n : 1, sizeof *s);
    if (!s)
        return -1;
    long n = 0;
    /* Rows are sorted by series then size: one pass. */
    for (size_t i = 0; i < t->n;) {
        size_t j = i;
        kcal_join_summary cur = {0};
        double sum = 0, ssum = 0;
        for (; j < t->n && same_series(&t->rows[i], &t->rows[j]); j++) {
            const kcal_join_row *r = &t->rows[j];
            if (!joined(r) || r->size < KCAL_JOIN_MIN_ERR_SIZE)
                continue;
            double ape = kcal_join_ape(r);
            sum += ape;
            ssum += 100.0 * (r->predicted_s - r->median_s) / r->median_s;
            if (cur.points == 0 || ape > cur.max_ape_pct) {
                cur.max_ape_pct = ape;
                cur.worst_size = r->size;
            }
            cur.oversubscribed |= r->oversubscribed;
            cur.points++;
        }
        if (cur.points) {
            const kcal_join_row *r = &t->rows[i];
            memcpy(cur.coll, r->coll, sizeof cur.coll);
            memcpy(cur.alg, r->alg, sizeof cur.alg);
            cur.p = r->p;
            cur.k = r->k;
            cur.mape_pct = sum / cur.points;
            cur.mean_signed_pct = ssum / cur.points;
            s[n++] = cur;
        }
        i = j;
    }
    *out = s;
    return n;
}

/* A point: (collective, p, size), whatever the algorithm. */
static int cmp_point(const kcal_join_row *a, const kcal_join_row *b)
{
    return cmp_order(a, b, 0);
}

static int cmp_rowptr(const void *pa, const void *pb)
{
    const kcal_join_row *a = *(const kcal_join_row *const *)pa;
    const kcal_join_row *b = *(const kcal_join_row *const *)pb;
    int c = cmp_point(a, b);
    return c ? c : (a < b ? -1 : a > b);
}

/* How far a measured median moves by noise alone: the difference of the
 * medians of its two interleaved halves, else half the interquartile
 * range, else 0 (an older bench CSV: no ties then). */
static double median_noise(const kcal_join_row *r)
{
    if (r->has_halves)
        return fabs(r->half1_s - r->half2_s);
    if (r->has_quartiles)
        return (r->p75_s - r->p25_s) / 2;
    return 0;
}

/* issue 9: the predicted best and the measured best differ by less than
 * either's own noise. */
static int noise_tie(const kcal_join_row *pb, const kcal_join_row *mb)
{
    if (pb == mb)
        return 0;
    double d = pb->median_s - mb->median_s;
    double a = median_noise(pb), b = median_noise(mb);
    return d < (a > b ? a : b);
}

/* Whether the predictor takes r before b (NULL: nothing yet): the lower
 * rank; equal times share a rank, and then the predictor takes the one it
 * lists first (kcal_model_select keeps the first of equal times), which is
 * the earlier line of the predicted CSV. */
static int predicted_before(const kcal_join_row *r, const kcal_join_row *b)
{
    return !b || r->rank < b->rank ||
           (r->rank == b->rank && r->predicted_s < b->predicted_s) ||
           (r->rank == b->rank && r->predicted_s == b->predicted_s &&
            r->pred_file == b->pred_file && r->pred_line < b->pred_line);
}

long kcal_join_rank_sizes(const kcal_join_table *t, kcal_join_rank **out)
{
    const kcal_join_row **by = malloc((t->n ? t->n : 1) * sizeof *by);
    kcal_join_rank *res = calloc(t->n ? t->n : 1, sizeof *res);
    if (!by || !res) {
        free(by);
        free(res);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++)
        by[i] = &t->rows[i];
    qsort(by, t->n, sizeof *by, cmp_rowptr);
    long n = 0;
    for (size_t i = 0; i < t->n;) {
        size_t j = i;
        kcal_join_rank cur = {0};
        for (; j < t->n && !cmp_point(by[i], by[j]); j++) {
            const kcal_join_row *r = by[j];
            if (!r->has_meas)
                continue;
            cur.oversubscribed |= r->oversubscribed;
            if (!strcmp(r->alg, KCAL_JOIN_MPI)) {
                cur.mpi = r;
                continue;
            }
            if (!strcmp(r->alg, KCAL_JOIN_AUTO)) {
                cur.auto_choice = r;
                continue;
            }
            if (!strcmp(r->alg, KCAL_JOIN_LIMIT)) {
                cur.limit = r;
                continue;
            }
            /* The predictor chose among what was measured. */
            if (r->has_pred && predicted_before(r, cur.predicted_best))
                cur.predicted_best = r;
            if (!cur.measured_best || r->median_s < cur.measured_best->median_s)
                cur.measured_best = r;
        }
        if (cur.predicted_best) {
            /* Did another measured algorithm share the chosen one's rank?
             * And which would the predictor take next? */
            cur.tied = 0;
            for (size_t q = i; q < j; q++) {
                const kcal_join_row *r = by[q];
                if (r == cur.predicted_best || !r->has_pred || !r->has_meas)
                    continue;
                if (r->rank == cur.predicted_best->rank)
                    cur.tied = 1;
                if (predicted_before(r, cur.predicted_second))
                    cur.predicted_second = r;
            }
            memcpy(cur.coll, by[i]->coll, sizeof cur.coll);
            cur.p = by[i]->p;
            cur.size = by[i]->size;
            double mb = cur.measured_best->median_s;
            cur.regret_pct = 100.0 * (cur.predicted_best->median_s - mb) / mb;
            cur.speedup = cur.mpi ? cur.mpi->median_s / mb : NAN;
            cur.noise_tie = noise_tie(cur.predicted_best, cur.measured_best);
            res[n++] = cur;
        }
        i = j;
    }
    free(by);
    *out = res;
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double kcal_join_quantile(double *v, size_t n, double q)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_double);
    return kcal_quantile_sorted(v, n, q);
}

const kcal_join_row *kcal_join_find(const kcal_join_table *t, const char *coll,
                                    int p, uint64_t size, const char *alg,
                                    int k)
{
    kcal_join_row key = {.p = p, .size = size, .k = k};
    snprintf(key.coll, sizeof key.coll, "%s", coll);
    snprintf(key.alg, sizeof key.alg, "%s", alg);
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = cmp_key(&t->rows[mid], &key);
        if (c == 0)
            return &t->rows[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int kcal_join_in_headline(const kcal_join_row *r)
{
    return joined(r) && !r->oversubscribed &&
           r->size >= KCAL_JOIN_MIN_ERR_SIZE;
}

double kcal_join_median_ape_of(const kcal_join_table *t, const char *coll,
                               int *points, int *under)
{
    int n = 0, u = 0;
    double med = NAN;
    double *v = malloc((t->n ? t->n : 1) * sizeof *v);
    if (v) {
        for (size_t i = 0; i < t->n; i++) {
            const kcal_join_row *r = &t->rows[i];
            if (!kcal_join_in_headline(r) || (coll && strcmp(r->coll, coll)))
                continue;
            v[n++] = kcal_join_ape(r);
            u += r->predicted_s < r->median_s;
        }
        med = kcal_join_quantile(v, (size_t)n, 0.5);
        free(v);
    }
    if (points)
        *points = n;
    if (under)
        *under = u;
    return med;
}

double kcal_join_median_ape(const kcal_join_table *t)
{
    return kcal_join_median_ape_of(t, NULL, NULL, NULL);
}

double kcal_join_mean_regret(const kcal_join_rank *r, long n)
{
    double sum = 0;
    long m = 0;
    for (long i = 0; i < n; i++)
        if (!r[i].oversubscribed) {
            sum += r[i].regret_pct;
            m++;
        }
    return m ? sum / m : NAN;
}

double kcal_join_mean_regret_no_ties(const kcal_join_rank *r, long n,
                                     long *ties)
{
    double sum = 0;
    long m = 0, k = 0;
    for (long i = 0; i < n; i++) {
        if (r[i].oversubscribed)
            continue;
        if (r[i].noise_tie) {
            k++;
            continue;
        }
        sum += r[i].regret_pct;
        m++;
    }
    if (ties)
        *ties = k;
    return m ? sum / m : NAN;
}

int kcal_join_right_picks(const kcal_join_rank *r, long n, int *of)
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

double kcal_join_repeat_error(const kcal_join_table *t, int *points)
{
    int n = 0;
    double med = NAN;
    double *v = malloc((t->n ? t->n : 1) * sizeof *v);
    if (v) {
        for (size_t i = 0; i < t->n; i++) {
            const kcal_join_row *r = &t->rows[i];
            double m = (r->half1_s + r->half2_s) / 2;
            if (r->has_meas && r->has_halves && !r->oversubscribed &&
                r->size >= KCAL_JOIN_MIN_ERR_SIZE && m > 0 &&
                strcmp(r->alg, KCAL_JOIN_MPI))
                v[n++] = 100.0 * fabs(r->half1_s - r->half2_s) / m;
        }
        med = kcal_join_quantile(v, (size_t)n, 0.5);
        free(v);
    }
    if (points)
        *points = n;
    return med;
}

/* ---- writing ---------------------------------------------------------- */

static void put_k(FILE *f, int k)
{
    if (k)
        fprintf(f, "%d", k);
}

int kcal_join_write_summary(FILE *f, const kcal_join_summary *s, long n,
                            int oversubscribed)
{
    fprintf(f, "%s\n", KCAL_CSV_SUMMARY_HEADER);
    for (long i = 0; i < n; i++) {
        if (s[i].oversubscribed != oversubscribed)
            continue;
        fprintf(f, "%s,%d,%s,", s[i].coll, s[i].p, s[i].alg);
        put_k(f, s[i].k);
        fprintf(f, ",%d,%.4f,%.4f\n", s[i].points, s[i].mape_pct,
                s[i].max_ape_pct);
    }
    return ferror(f) ? -1 : 0;
}

int kcal_join_write_ranking(FILE *f, const kcal_join_rank *r, long n,
                            int oversubscribed)
{
    fprintf(f, "%s\n", KCAL_CSV_RANKING_HEADER);
    for (long i = 0; i < n; i++) {
        if (r[i].oversubscribed != oversubscribed)
            continue;
        char a[64], b[64];
        fprintf(f, "%s,%d,%llu,%s,%s,%.4f,%d\n", r[i].coll, r[i].p,
                (unsigned long long)r[i].size,
                kcal_join_alg_label(r[i].predicted_best, a, sizeof a),
                kcal_join_alg_label(r[i].measured_best, b, sizeof b),
                r[i].regret_pct, r[i].noise_tie);
    }
    return ferror(f) ? -1 : 0;
}

int kcal_join_write_speedup(FILE *f, const kcal_join_rank *r, long n,
                            int oversubscribed)
{
    fprintf(f, "%s\n", KCAL_CSV_SPEEDUP_HEADER);
    for (long i = 0; i < n; i++) {
        if (r[i].oversubscribed != oversubscribed || !r[i].mpi)
            continue;
        char a[64];
        fprintf(f, "%s,%d,%llu,%s,%.6e,%.6e,%.4f\n", r[i].coll, r[i].p,
                (unsigned long long)r[i].size,
                kcal_join_alg_label(r[i].measured_best, a, sizeof a),
                r[i].measured_best->median_s, r[i].mpi->median_s,
                r[i].speedup);
    }
    return ferror(f) ? -1 : 0;
}
