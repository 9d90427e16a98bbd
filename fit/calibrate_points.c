/* calibrate_points: the measured points of the raw samples (see
 * calibrate_points.h). */
#include "fit/calibrate_points.h"
#include "fit/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The distinct values of `pages` (or `readers`) in one phase/pattern, sorted. */
size_t cal_distinct(const kcal_raw *raw, const char *phase,
                    const char *pattern, int by_readers, long *out,
                    size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < raw->n; i++) {
        const kcal_sample *s = &raw->s[i];
        if (strcmp(s->phase, phase) || (pattern && strcmp(s->pattern, pattern)))
            continue;
        long v = by_readers ? s->readers : s->pages;
        size_t j = 0;
        while (j < n && out[j] != v)
            j++;
        if (j == n && n < max)
            out[n++] = v;
    }
    for (size_t i = 1; i < n; i++) /* insertion sort: n is small */
        for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
            long t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return n;
}

/* Samples of one point, bytes too when >= 0 (the pass phase keys its
 * points by readers, pages and bytes), with rep in [rep_lo, rep_hi)
 * (rep_hi < 0: all). */
int cal_point_sel(const kcal_raw *raw, const char *phase,
                  const char *pattern, int readers, long pages,
                  long bytes, long rep_lo, long rep_hi, kcal_stat *st)
{
    size_t n = kcal_raw_select(raw, phase, pattern, readers, pages, NULL, 0);
    if (n == 0)
        return -1;
    double *x = malloc(n * sizeof *x);
    if (!x)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < raw->n; i++) {
        const kcal_sample *s = &raw->s[i];
        if (strcmp(s->phase, phase) || (pattern && strcmp(s->pattern, pattern)) ||
            (readers && s->readers != readers) || (pages >= 0 && s->pages != pages) ||
            (bytes >= 0 && s->bytes != bytes))
            continue;
        if (rep_hi >= 0 && (s->rep < rep_lo || s->rep >= rep_hi))
            continue;
        x[k++] = s->seconds;
    }
    int rc = k ? kcal_stat_robust(x, k, st) : -1;
    free(x);
    /* A zero spread (identical samples) would give infinite weight. */
    if (rc == 0 && !(st->se > 0))
        st->se = st->median > 0 ? 1e-3 * st->median : 1e-12;
    return rc;
}

/* Samples of one point with rep in [rep_lo, rep_hi) (rep_hi < 0: all). */
int cal_point_reps(const kcal_raw *raw, const char *phase,
                   const char *pattern, int readers, long pages,
                   long rep_lo, long rep_hi, kcal_stat *st)
{
    return cal_point_sel(raw, phase, pattern, readers, pages, -1, rep_lo,
                         rep_hi, st);
}

int cal_point(const kcal_raw *raw, const char *phase,
              const char *pattern, int readers, long pages,
              kcal_stat *st)
{
    return cal_point_reps(raw, phase, pattern, readers, pages, 0, -1, st);
}

/* Medians and standard errors of phase/pattern at each N (readers: any). */
size_t cal_curve_reps(const kcal_raw *raw, const char *phase,
                      const char *pattern, long rep_lo, long rep_hi,
                      double *x, double *y, double *se)
{
    long v[MAXPTS];
    size_t n = cal_distinct(raw, phase, pattern, 0, v, MAXPTS), k = 0;
    for (size_t i = 0; i < n; i++) {
        kcal_stat st;
        if (cal_point_reps(raw, phase, pattern, 0, v[i], rep_lo, rep_hi,
                           &st) < 0)
            continue;
        x[k] = (double)v[i];
        y[k] = st.median;
        se[k] = st.se;
        k++;
    }
    return k;
}

size_t cal_curve(const kcal_raw *raw, const char *phase,
                 const char *pattern, double *x, double *y, double *se)
{
    return cal_curve_reps(raw, phase, pattern, 0, -1, x, y, se);
}

/* The copy term's points: T4 − T3 at every page count both curves have
 * (x pages, y seconds, se), over N·s bytes, with their combined standard
 * error. Writes at most n4 points into bx, by, bs; returns how many. */
size_t cal_copy_minus_lock(const double *x, const double *y,
                           const double *se, size_t n, const double *x4,
                           const double *y4, const double *se4, size_t n4,
                           double page, double *bx, double *by, double *bs)
{
    size_t nb = 0;
    for (size_t i = 0; i < n4; i++)
        for (size_t j = 0; j < n; j++)
            if (x[j] == x4[i]) {
                bx[nb] = x4[i] * page;
                by[nb] = y4[i] - y[j];
                bs[nb] = sqrt(se4[i] * se4[i] + se[j] * se[j]);
                nb++;
            }
    return nb;
}

int cal_has_pattern(const kcal_raw *raw, const char *phase,
                    const char *pattern)
{
    return kcal_raw_select(raw, phase, pattern, 0, -1, NULL, 0) > 0;
}

/* Medians and standard errors of one phase's points by (readers, bytes),
 * pattern NULL for any; *n points (at most max). 0 or -1 out of memory. */
int cal_bytes_points(const kcal_raw *raw, const char *phase,
                     const char *pattern, int *pp, long *nn, double *med,
                     double *se, size_t max, size_t *n)
{
    *n = 0;
    /* The phase's samples once, so each point looks at them only. */
    size_t *idx = malloc((raw->n ? raw->n : 1) * sizeof *idx);
    double *v = malloc((raw->n ? raw->n : 1) * sizeof *v);
    if (!idx || !v) {
        free(idx);
        free(v);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < raw->n; i++) {
        const kcal_sample *s = &raw->s[i];
        if (strcmp(s->phase, phase) || (pattern && strcmp(s->pattern, pattern)))
            continue;
        idx[m++] = i;
        size_t j = 0;
        while (j < *n && !(pp[j] == s->readers && nn[j] == s->bytes))
            j++;
        if (j == *n && *n < max) {
            pp[*n] = s->readers;
            nn[(*n)++] = s->bytes;
        }
    }
    for (size_t j = 0; j < *n; j++) {
        size_t k = 0;
        for (size_t q = 0; q < m; q++) {
            const kcal_sample *s = &raw->s[idx[q]];
            if (s->readers == pp[j] && s->bytes == nn[j])
                v[k++] = s->seconds;
        }
        kcal_stat st;
        kcal_stat_robust(v, k, &st); /* k >= 1: the point has a sample */
        med[j] = st.median;
        se[j] = st.se > 0 ? st.se : st.median > 0 ? 1e-3 * st.median : 1e-12;
    }
    free(idx);
    free(v);
    return 0;
}

/* Samples ordered by point (phase, pattern, readers, pages), and within a
 * point by position in the file. */
static int by_point(const void *pa, const void *pb, void *ctx)
{
    const kcal_raw *raw = ctx;
    size_t ia = *(const size_t *)pa, ib = *(const size_t *)pb;
    const kcal_sample *a = &raw->s[ia], *b = &raw->s[ib];
    int c = strcmp(a->phase, b->phase);
    if (!c)
        c = strcmp(a->pattern, b->pattern);
    if (!c)
        c = (a->readers > b->readers) - (a->readers < b->readers);
    if (!c)
        c = (a->pages > b->pages) - (a->pages < b->pages);
    if (!c) /* the MPI collectives' sizes: pages 0, bytes n */
        c = (a->bytes > b->bytes) - (a->bytes < b->bytes);
    if (!c)
        c = (ia > ib) - (ia < ib);
    return c;
}

/* One point: its samples are order[start .. start + n), the first of them
 * in the file is sample `first`. */
typedef struct {
    size_t first, start, n;
} point_run;

static int by_first(const void *pa, const void *pb)
{
    const point_run *a = pa, *b = pb;
    return (a->first > b->first) - (a->first < b->first);
}

int kcal_calibrate_write_points(FILE *f, const kcal_raw *raw)
{
    /* Sorting groups the samples of each point in O(n log n) (comparing
     * every sample with every later one took seconds for 100k points). */
    size_t n = raw->n, n_runs = 0;
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    point_run *runs = malloc((n ? n : 1) * sizeof *runs);
    double *x = malloc((n ? n : 1) * sizeof *x);
    int rc = -1;
    if (!order || !runs || !x)
        goto done;
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof *order, by_point, (void *)raw);
    for (size_t i = 0; i < n; i++) {
        const kcal_sample *a = &raw->s[order[i]];
        const kcal_sample *prev = i ? &raw->s[order[i - 1]] : NULL;
        if (!prev || prev->readers != a->readers || prev->pages != a->pages ||
            prev->bytes != a->bytes || strcmp(prev->phase, a->phase) ||
            strcmp(prev->pattern, a->pattern))
            runs[n_runs++] = (point_run){order[i], i, 0};
        runs[n_runs - 1].n++;
    }
    qsort(runs, n_runs, sizeof *runs, by_first);
    fprintf(f, "%s\n", KCAL_POINTS_HEADER);
    for (size_t r = 0; r < n_runs; r++) {
        const kcal_sample *a = &raw->s[runs[r].first];
        for (size_t k = 0; k < runs[r].n; k++)
            x[k] = raw->s[order[runs[r].start + k]].seconds;
        kcal_stat st;
        if (kcal_stat_robust(x, runs[r].n, &st) < 0)
            goto done;
        fprintf(f, "%s,%s,%d,%ld,%ld,%zu,%.6g,%.6g,%.6g\n", a->phase,
                a->pattern, a->readers, a->pages, a->bytes, runs[r].n,
                st.median, st.spread, st.se);
    }
    rc = ferror(f) ? -1 : 0;
done:
    free(order);
    free(runs);
    free(x);
    return rc;
}
