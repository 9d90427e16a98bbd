/* calibrate: from raw probe samples to a params set (see calibrate.h). */
#include "fit/calibrate.h"
#include "common/err.h"
#include "fit/fit.h"
#include "common/sizes.h"
#include "model/model.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void note(kcal_calibrate_notes *notes, const char *fmt, ...)
{
    if (!notes || notes->n >= KCAL_CALIBRATE_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(notes->text[notes->n++], sizeof notes->text[0], fmt, ap);
    va_end(ap);
}

/* ---- from raw samples to params ----------------------------------------- */

/* The distinct values of `pages` (or `readers`) in one phase/pattern, sorted. */
static size_t distinct_values(const kcal_raw *raw, const char *phase,
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
static int point_stat_sel(const kcal_raw *raw, const char *phase,
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
static int point_stat_reps(const kcal_raw *raw, const char *phase,
                           const char *pattern, int readers, long pages,
                           long rep_lo, long rep_hi, kcal_stat *st)
{
    return point_stat_sel(raw, phase, pattern, readers, pages, -1, rep_lo,
                          rep_hi, st);
}

static int point_stat(const kcal_raw *raw, const char *phase,
                      const char *pattern, int readers, long pages,
                      kcal_stat *st)
{
    return point_stat_reps(raw, phase, pattern, readers, pages, 0, -1, st);
}

#define MAXPTS 256

/* Medians and standard errors of phase/pattern at each N (readers: any). */
static size_t curve_reps(const kcal_raw *raw, const char *phase,
                         const char *pattern, long rep_lo, long rep_hi,
                         double *x, double *y, double *se)
{
    long v[MAXPTS];
    size_t n = distinct_values(raw, phase, pattern, 0, v, MAXPTS), k = 0;
    for (size_t i = 0; i < n; i++) {
        kcal_stat st;
        if (point_stat_reps(raw, phase, pattern, 0, v[i], rep_lo, rep_hi,
                            &st) < 0)
            continue;
        x[k] = (double)v[i];
        y[k] = st.median;
        se[k] = st.se;
        k++;
    }
    return k;
}

static size_t curve(const kcal_raw *raw, const char *phase,
                    const char *pattern, double *x, double *y, double *se)
{
    return curve_reps(raw, phase, pattern, 0, -1, x, y, se);
}

/* The copy term's points: T4 − T3 at every page count both curves have
 * (x pages, y seconds, se), over N·s bytes, with their combined standard
 * error. Writes at most n4 points into bx, by, bs; returns how many. */
static size_t copy_minus_lock(const double *x, const double *y,
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

/* l (slope of T3) and β (slope of T4 − T3 over N·s) from the samples with
 * rep in [lo, hi). 0 or -1. */
static int lock_beta_reps(const kcal_raw *raw, const char *lock_pat,
                          const char *copy_pat, double page, long lo,
                          long hi, double *alpha, double *lock, double *beta)
{
    double x[MAXPTS], y[MAXPTS], se[MAXPTS], x4[MAXPTS], y4[MAXPTS],
        se4[MAXPTS], bx[MAXPTS], by[MAXPTS], bs[MAXPTS];
    size_t n = curve_reps(raw, KCAL_PHASE_LOCK, lock_pat, lo, hi, x, y, se);
    size_t n4 = curve_reps(raw, KCAL_PHASE_COPY, copy_pat, lo, hi, x4, y4, se4), nb = 0;
    kcal_linfit lf, bf;
    if (n < 3 || kcal_fit_line(x, y, se, n, &lf) < 0)
        return -1;
    nb = copy_minus_lock(x, y, se, n, x4, y4, se4, n4, page, bx, by, bs);
    if (nb < 3 || kcal_fit_line(bx, by, bs, nb, &bf) < 0)
        return -1;
    *alpha = lf.c0;
    *lock = lf.c1;
    *beta = bf.c1;
    return 0;
}

/* y = a + b·x through (x, y, se), both coefficients ≥ 0 (params are): a
 * negative free coefficient is held at 0 and the other refitted, with a
 * note naming its key (ka for a, kb for b). 0, or -1 with err. */
static int fit_line_nonneg(const double *x, const double *y, const double *se,
                           size_t n, const char *phase, const char *ka,
                           const char *kb, kcal_calibrate_notes *notes,
                           double *a, double *b, double *sa, double *sb,
                           char *err, size_t errlen)
{
    kcal_linfit lf;
    if (kcal_fit_line(x, y, se, n, &lf) < 0) {
        kcal_set_err(err, errlen, "the linear fit of %s failed", phase);
        return -1;
    }
    *a = lf.c0, *b = lf.c1, *sa = lf.se0, *sb = lf.se1;
    const char *held = NULL;
    double free_value = 0;
    if (lf.c1 < 0) {
        held = kb, free_value = lf.c1;
        if (kcal_fit_const(y, se, n, a, sa) < 0)
            goto fail;
        *b = *sb = 0;
    } else if (lf.c0 < 0) {
        held = ka, free_value = lf.c0;
        if (kcal_fit_origin(x, y, se, n, b, sb) < 0)
            goto fail;
        *a = *sa = 0;
    }
    if (held)
        note(notes, "%s: the free fit gave %s = %.3g < 0; held at 0", phase,
             held, free_value);
    return 0;
fail:
    kcal_set_err(err, errlen, "the fit of %s with %s held at 0 failed", phase,
                 held);
    return -1;
}

/* Batch means (fit.h): the passes of the probe run in time order
 * (rep = pass), so fitting each fifth of them separately shows the
 * machine's drift. */
#define KCAL_BATCHES 5
static int batch_se(const kcal_raw *raw, const char *lock_pat,
                    const char *copy_pat, double page, double *se_alpha,
                    double *se_lock, double *se_beta)
{
    /* long: a raw file's rep may be up to 2^30, and k·reps must not
     * overflow (the block bounds themselves are <= reps). */
    long reps = 0;
    for (size_t i = 0; i < raw->n; i++)
        if (!strcmp(raw->s[i].phase, KCAL_PHASE_LOCK) &&
            raw->s[i].rep + 1L > reps)
            reps = raw->s[i].rep + 1L;
    if (reps < 5 * KCAL_BATCHES)
        return -1;
    double a[KCAL_BATCHES], l[KCAL_BATCHES], b[KCAL_BATCHES];
    for (long k = 0; k < KCAL_BATCHES; k++)
        if (lock_beta_reps(raw, lock_pat, copy_pat, page,
                           k * reps / KCAL_BATCHES,
                           (k + 1) * reps / KCAL_BATCHES, &a[k], &l[k],
                           &b[k]) < 0)
            return -1;
    *se_alpha = kcal_fit_batch_se(a, KCAL_BATCHES);
    *se_lock = kcal_fit_batch_se(l, KCAL_BATCHES);
    *se_beta = kcal_fit_batch_se(b, KCAL_BATCHES);
    return 0;
}

static int has_pattern(const kcal_raw *raw, const char *phase,
                       const char *pattern)
{
    return kcal_raw_select(raw, phase, pattern, 0, -1, NULL, 0) > 0;
}

int kcal_calibrate_lock_grows(const kcal_raw *raw, const char *pattern)
{
    double x[MAXPTS], y[MAXPTS], se[MAXPTS];
    size_t n = curve(raw, KCAL_PHASE_LOCK, pattern, x, y, se);
    kcal_linfit lf;
    if (n < 3 || kcal_fit_line(x, y, se, n, &lf) < 0)
        return -1;
    return lf.c1 > 3 * lf.se1 && y[n - 1] > 1.2 * y[0];
}

static int set_num(kcal_params *p, const char *key, double v, char *err,
                   size_t errlen)
{
    if (kcal_params_set(p, key, v) < 0) {
        kcal_set_err(err, errlen, "fitted %s = %g is not a finite number >= 0", key,
                v);
        return -1;
    }
    return 0;
}

static int set_fit(kcal_params *p, const char *key, double v, double se,
                   char *err, size_t errlen)
{
    char k[64];
    if (set_num(p, key, v, err, errlen) < 0)
        return -1;
    snprintf(k, sizeof k, "%s_stderr", key);
    return set_num(p, k, isfinite(se) ? se : 0, err, errlen);
}

static void cat(char *buf, size_t len, const char *fmt, ...)
{
    if (!buf || !len)
        return;
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

static int fit_gamma_part(const kcal_raw *raw, double alpha, double lock,
                          kcal_params *out, kcal_calibrate_notes *notes,
                          char *comment, size_t commentlen, char *err,
                          size_t errlen)
{
    static const char *const patterns[] = {
        KCAL_PATTERN_DISTINCT, KCAL_PATTERN_SAME, KCAL_PATTERN_OWN};
    double cs[MAXPTS], gs[MAXPTS], ss[MAXPTS];
    size_t nfit = 0;
    long pages_used = 0;
    for (int pi = 0; pi < 3; pi++) {
        long rv[MAXPTS], pv[MAXPTS];
        size_t nr = distinct_values(raw, KCAL_PHASE_CONTENTION, patterns[pi], 1, rv, MAXPTS);
        size_t np = distinct_values(raw, KCAL_PHASE_CONTENTION, patterns[pi], 0, pv, MAXPTS);
        if (nr == 0 || np == 0)
            continue;
        long N = pv[np - 1]; /* the largest N: lock time dominates */
        cat(comment, commentlen, "gamma(c) measured, %s pages, N = %ld:",
            patterns[pi], N);
        for (size_t i = 0; i < nr; i++) {
            kcal_stat st;
            if (point_stat(raw, KCAL_PHASE_CONTENTION, patterns[pi], (int)rv[i], N, &st) < 0)
                continue;
            /* Per-page lock time at c, over l (model.md): γ(c). */
            double g = (st.median - alpha) / (double)N / lock;
            double sg = st.se / (double)N / lock;
            cat(comment, commentlen, " c=%ld %.3f", rv[i], g);
            if (pi == 0) {
                cs[nfit] = (double)rv[i];
                gs[nfit] = g;
                ss[nfit] = sg;
                nfit++;
                pages_used = N;
            }
        }
        cat(comment, commentlen, "\n");
    }
    if (nfit == 0) {
        kcal_set_err(err, errlen, "no contention samples (phase contention, "
                "pattern distinct): gamma_a and gamma_b cannot be fitted");
        return -1;
    }
    /* model.md: γ(1) = 1 by definition and the fit uses c >= 2 only (the
     * c = 1 point, ~1 by construction, would drag the curve through it and,
     * since a, b >= 0 force γ(2) >= 2·γ(1), spoil every contended point). */
    size_t first = 0;
    while (first < nfit && cs[first] < 2)
        first++;
    size_t n = nfit - first;
    if (n == 0) {
        /* One core: no contention can be measured. γ(c) = c (every reader
         * waits for all others) is an assumption, not a measurement. */
        note(notes, "gamma: no contended point measured (1 reader): "
             "gamma_a = 0, gamma_b = 1 are an assumption (gamma(c) = c)");
        if (set_fit(out, "gamma_a", 0, 0, err, errlen) < 0 ||
            set_fit(out, "gamma_b", 1, 0, err, errlen) < 0 ||
            set_num(out, "gamma_a_dof", 0, err, errlen) < 0)
            return -1;
        return 0;
    }
    if (n == 1)
        note(notes, "gamma: one contended point (c = %g) for 2 parameters: "
             "gamma_a is not identifiable and held at 0, gamma_b = "
             "gamma(%g)/%g (dof 0); gamma beyond c = %g is a linear "
             "extrapolation", cs[first], cs[first], cs[first], cs[first]);
    kcal_gammafit gf;
    if (kcal_fit_gamma(cs + first, gs + first, ss + first, n, &gf) < 0) {
        kcal_set_err(err, errlen, "the Levenberg-Marquardt fit of gamma(c) failed "
                "(%zu points)", n);
        return -1;
    }
    if ((gf.fixed_a && n > 1) || gf.fixed_b)
        note(notes, "gamma: the free fit gave gamma_a = %.4g, gamma_b = %.4g; "
             "params must be >= 0, so %s held at 0 and the rest re-fitted",
             gf.free_a, gf.free_b,
             gf.fixed_a && gf.fixed_b ? "both are"
             : gf.fixed_a            ? "gamma_a is"
                                     : "gamma_b is");
    if (gf.dof == 0)
        note(notes, "gamma: dof 0 (as many points as parameters): the "
             "standard errors come from the measurement spread alone");
    cat(comment, commentlen,
        "gamma fit: %zu points (c = %g..%g, N = %ld pages, pattern distinct), "
        "dof %d, chi2 %.3g\n", n, cs[first], cs[nfit - 1], pages_used, gf.dof,
        gf.chisq);
    if (set_fit(out, "gamma_a", gf.a, gf.se_a, err, errlen) < 0 ||
        set_fit(out, "gamma_b", gf.b, gf.se_b, err, errlen) < 0 ||
        set_num(out, "gamma_a_dof", gf.dof, err, errlen) < 0)
        return -1;
    return 0;
}

static int fit_sm_part(const kcal_raw *raw, kcal_params *out,
                       kcal_calibrate_notes *notes, char *comment, size_t commentlen,
                       char *err, size_t errlen)
{
    int measured = 0;
    for (int op = 0; op < KCAL_SM_COUNT; op++) {
        char phase[32], ka[48], kb[48];
        snprintf(phase, sizeof phase, KCAL_PHASE_SM_PREFIX "%s", kcal_sm_name(op));
        snprintf(ka, sizeof ka, "sm_%s_a", kcal_sm_name(op));
        snprintf(kb, sizeof kb, "sm_%s_b", kcal_sm_name(op));
        long pv[MAXPTS];
        size_t np = distinct_values(raw, phase, NULL, 1, pv, MAXPTS), n = 0;
        double x[MAXPTS], y[MAXPTS], se[MAXPTS];
        if (np == 0)
            continue;
        measured = 1;
        cat(comment, commentlen, "T_sm_%s measured:", kcal_sm_name(op));
        for (size_t i = 0; i < np; i++) {
            kcal_stat st;
            if (pv[i] < 2 || point_stat(raw, phase, NULL, (int)pv[i], -1, &st) < 0)
                continue;
            x[n] = log2((double)pv[i]);
            y[n] = st.median;
            se[n] = st.se;
            cat(comment, commentlen, " p=%ld %.3g s", pv[i], st.median);
            n++;
        }
        cat(comment, commentlen, "\n");
        double a = 0, b = 0, sa = 0, sb = 0;
        if (n == 1) {
            /* T_sm(p) = a + b·log2 p at one p: b is not identifiable. */
            a = y[0];
            sa = se[0];
            note(notes, "%s: measured at p = %g only: %s = T_sm(p), %s = 0 "
                 "(the log2 p growth needs at least 2 values of p)", phase,
                 exp2(x[0]), ka, kb);
        } else if (n >= 2) {
            if (fit_line_nonneg(x, y, se, n, phase, ka, kb, notes, &a, &b,
                                &sa, &sb, err, errlen) < 0)
                return -1;
        } else {
            continue;
        }
        if (set_fit(out, ka, a, sa, err, errlen) < 0 ||
            set_fit(out, kb, b, sb, err, errlen) < 0)
            return -1;
    }
    if (!measured)
        cat(comment, commentlen, "T_sm not measured (no MPI run): the sm_* "
            "keys are absent and count as 0\n");
    return 0;
}

/* The copy term: slope of (T4 − T3) over N·s (model.md), T4 from the copies
 * of pattern copy_pat against the T3 curve (x pages, y seconds, se) at the
 * page counts both have, weighted by their combined standard errors. 0, or
 * -1 with err when fewer than 2 points or the slope is not positive. */
static int fit_copy_slope(const kcal_raw *raw, const char *copy_pat,
                          const double *x, const double *y, const double *se,
                          size_t n, double page, kcal_linfit *bf, size_t *nb,
                          char *err, size_t errlen)
{
    double x4[MAXPTS], y4[MAXPTS], se4[MAXPTS], bx[MAXPTS], by[MAXPTS],
        bs[MAXPTS];
    size_t n4 = curve(raw, KCAL_PHASE_COPY, copy_pat, x4, y4, se4);
    *nb = 0;
    for (size_t i = 0; i < n4; i++)
        for (size_t j = 0; j < n; j++)
            if (x[j] == x4[i]) {
                bx[*nb] = x4[i] * page;
                by[*nb] = y4[i] - y[j];
                bs[*nb] = sqrt(se4[i] * se4[i] + se[j] * se[j]);
                (*nb)++;
            }
    if (*nb < 2 || kcal_fit_line(bx, by, bs, *nb, bf) < 0 || !(bf->c1 > 0)) {
        kcal_set_err(err, errlen, "need T4 (phase copy, pattern %s) at 2 or "
                     "more of the T3 page counts, growing with N; have %zu",
                     copy_pat, *nb);
        return -1;
    }
    return 0;
}

/* beta_hot: slope of (T4 − T3) over N·s for the copies whose source and
 * destination stay in cache (pattern hot), against the same T3 curve as β;
 * its standard error as β's (the larger of the fit's and the batch-means
 * one). 0 or -1 with err. */
static int fit_beta_hot(const kcal_raw *raw, const char *lock_pat,
                        const double *x, const double *y, const double *se,
                        size_t n, double page, kcal_params *out, char *comment,
                        size_t commentlen, char *err, size_t errlen)
{
    kcal_linfit bf;
    size_t nb;
    if (fit_copy_slope(raw, KCAL_PATTERN_HOT, x, y, se, n, page, &bf, &nb, err,
                       errlen) < 0)
        return -1;
    double ba = 0, bl = 0, bb = 0;
    int batched = batch_se(raw, lock_pat, KCAL_PATTERN_HOT, page, &ba, &bl, &bb) == 0;
    cat(comment, commentlen, "beta_hot = slope of (T4 - T3) over N*s, %zu "
        "points, hot copies, dof %d (%.3g GB/s)\n", nb, bf.dof, 1e-9 / bf.c1);
    return set_fit(out, "beta_hot", bf.c1, batched ? fmax(bf.se1, bb) : bf.se1,
                   err, errlen);
}

/* A ping-pong key: the median of phase's samples (half a ping-pong) at the
 * smallest p of 2 or more it was measured at; the smallest p is the
 * cleanest (no idle ranks competing for cores). `what` says what bounced.
 * Absent samples leave the key absent. 0 or -1. */
static int fit_ping_pong(const kcal_raw *raw, const char *phase,
                         const char *key, const char *what, kcal_params *out,
                         char *comment, size_t commentlen, char *err,
                         size_t errlen)
{
    long pv[MAXPTS];
    size_t np = distinct_values(raw, phase, NULL, 1, pv, MAXPTS);
    for (size_t i = 0; i < np; i++) {
        kcal_stat st;
        if (pv[i] < 2 || point_stat(raw, phase, NULL, (int)pv[i], -1, &st) < 0)
            continue;
        cat(comment, commentlen, "%s = median of half %s ping-pong between "
            "2 of %ld ranks, %zu samples: %.3g s\n", key, what, pv[i], st.n,
            st.median);
        return set_fit(out, key, st.median, st.se, err, errlen);
    }
    return 0;
}

/* sync_step (the full model): one point-to-point control message between
 * two ranks, timed by kcal-sm-bench as half an 8-byte ping-pong (phase
 * sm_step). */
static int fit_sync_step(const kcal_raw *raw, kcal_params *out, char *comment,
                         size_t commentlen, char *err, size_t errlen)
{
    return fit_ping_pong(raw, KCAL_PHASE_SM_STEP, "sync_step", "an 8-byte",
                         out, comment, commentlen, err, errlen);
}

/* sm_flag (the derived *_flags rows): one flag in shared memory seen by a
 * polling rank, timed by kcal-sm-bench as half a flag ping-pong (phase
 * sm_flag). */
static int fit_sm_flag(const kcal_raw *raw, kcal_params *out, char *comment,
                       size_t commentlen, char *err, size_t errlen)
{
    return fit_ping_pong(raw, KCAL_PHASE_SM_FLAG, "sm_flag",
                         "a shared-memory flag", out, comment, commentlen,
                         err, errlen);
}

/* Medians and standard errors of one phase's points by (readers, bytes),
 * pattern NULL for any; *n points (at most max). 0 or -1 out of memory. */
static int bytes_points(const kcal_raw *raw, const char *phase,
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

/* libkcoll's choice must beat the MPI library by more than this to count:
 * near the crossover the two are within the noise of a measurement of a
 * few µs, and a decision that flips with it hands a size to the slower one
 * half of the time. On the development machine (p = 2) the two differed
 * at 2 KiB by up to 10 % either way from one run to the next (probe and
 * benchmark alike), while from 4 KiB libkcoll's choice was 1.2x to 1.6x
 * faster; a size handed to the MPI library where libkcoll was up to 20 %
 * faster costs at most that. */
#define HANDOFF_MARGIN 1.20

/* mpi_<c>_below at the largest p measured. Of the sizes from which what
 * libkcoll runs for algorithm NULL (the choice of the model libkcoll uses
 * with these params, kcal_model_default: the full model for a probed
 * file, with every key but the mpi_* ones fitted by now; pattern "id" or
 * "id:k" of kcoll_<c>) is nowhere slower than the MPI library by more
 * than HANDOFF_MARGIN, the smallest at which it is faster by more than
 * that; the largest measured size when there is none. Medians. *below 0
 * when nothing was measured; -1 out of memory. Why a tie is allowed above
 * it and not only clear wins: with copy_in_out on the Zen 5 guest
 * libkcoll was 2-4x faster than MPI_Allgather and MPI_Alltoall from
 * 512 B to 32 KiB and 0.97-1.10x at 64 KiB, the largest size the probe
 * measures; requiring the margin at every larger size handed all of it
 * to the MPI library. Within the margin either is as good as the noise
 * lets one tell. */
static int crossover(const kcal_raw *raw, const kcal_params *prm,
                     kcal_coll coll, long *below, double *mask, int *at_p,
                     char *comment, size_t commentlen)
{
    const char *name = kcal_coll_name(coll);
    char mphase[32], kphase[32];
    snprintf(mphase, sizeof mphase, KCAL_PHASE_MPI_PREFIX "%s", name);
    snprintf(kphase, sizeof kphase, KCAL_PHASE_KCOLL_PREFIX "%s", name);
    int pp[MAXPTS], kp[MAXPTS];
    long nn[MAXPTS], kn[MAXPTS];
    double med[MAXPTS], se[MAXPTS], kmed[MAXPTS], kse[MAXPTS];
    size_t n, nk;
    *below = 0;
    *mask = 0;
    if (bytes_points(raw, mphase, NULL, pp, nn, med, se, MAXPTS, &n) < 0)
        return -1;
    int p = 0;
    for (size_t j = 0; j < n; j++)
        p = pp[j] > p ? pp[j] : p;
    if (p < 2)
        return 0;
    long sizes[MAXPTS];
    double mpi_at[MAXPTS], ours_at[MAXPTS];
    char ours[MAXPTS][32];
    size_t ns = 0;
    for (size_t j = 0; j < n; j++) {
        if (pp[j] != p)
            continue;
        kcal_choice ch;
        /* The model libkcoll will use, not the paper's: measured against
         * the paper model's choice, bcast handed 16-32 KiB to libkcoll's
         * direct_split, and auto then ran the full model's
         * scatter_allgather there, 0.72-0.81x of MPI_Bcast (issue 8). */
        if (kcal_model_select(kcal_model_default(prm), prm, coll, p,
                              (uint64_t)nn[j], 0, NULL, &ch) != 0 ||
            kcal_model_is_mpi(ch.alg))
            continue;
        if (ch.alg->kind == KCAL_PARAM_NONE)
            snprintf(ours[ns], sizeof ours[0], "%s", ch.alg->id);
        else
            snprintf(ours[ns], sizeof ours[0], "%s:%d", ch.alg->id, ch.k);
        if (bytes_points(raw, kphase, ours[ns], kp, kn, kmed, kse, MAXPTS, &nk) < 0)
            return -1;
        double t = INFINITY;
        for (size_t q = 0; q < nk; q++)
            if (kp[q] == p && kn[q] == nn[j])
                t = kmed[q];
        if (!isfinite(t))
            continue; /* the choice was not measured at this size */
        sizes[ns] = nn[j];
        mpi_at[ns] = med[j];
        ours_at[ns++] = t;
    }
    if (ns == 0)
        return 0;
    /* sizes ascending (insertion sort: a handful) */
    for (size_t i = 1; i < ns; i++)
        for (size_t j = i; j > 0 && sizes[j - 1] > sizes[j]; j--) {
            long t = sizes[j];
            sizes[j] = sizes[j - 1], sizes[j - 1] = t;
            double u = mpi_at[j];
            mpi_at[j] = mpi_at[j - 1], mpi_at[j - 1] = u;
            u = ours_at[j];
            ours_at[j] = ours_at[j - 1], ours_at[j - 1] = u;
            char w[32];
            memcpy(w, ours[j], sizeof w);
            memcpy(ours[j], ours[j - 1], sizeof w);
            memcpy(ours[j - 1], w, sizeof w);
        }
    *below = sizes[ns - 1];
    for (size_t z = ns; z-- > 0 && ours_at[z] <= mpi_at[z] * HANDOFF_MARGIN;)
        if (ours_at[z] * HANDOFF_MARGIN < mpi_at[z])
            *below = sizes[z];
    *at_p = p;
    cat(comment, commentlen, "mpi_%s_below %ld: at p = %d, MPI against "
        "libkcoll's choice (median us):", name, *below, p);
    for (size_t z = 0; z < ns; z++)
        cat(comment, commentlen, " %ld %.3g/%.3g %s", sizes[z],
            mpi_at[z] * 1e6, ours_at[z] * 1e6, ours[z]);
    cat(comment, commentlen, "\n");
    /* Above the crossover, a measured size where the MPI library was
     * faster all the same keeps its size class [2^i, 2^(i+1)) with it
     * (mpi_<c>_mask, bit i): libkcoll left to choose must never be slower
     * than the MPI library, and one size cannot say so where the model's
     * choice dips in the middle (the Xeon guest: copy_in_out 1.4x MPI at
     * 1 KiB, direct_split 0.92x at 2 KiB, 1.3x from 4 KiB; bcast's auto
     * then ran 0.85x MPI at 2 KiB). */
    uint64_t bits = 0;
    for (size_t z = 0; z < ns; z++)
        if (sizes[z] >= *below && sizes[z] > 0 && ours_at[z] > mpi_at[z]) {
            bits |= (uint64_t)1 << kcal_model_size_class((uint64_t)sizes[z]);
            cat(comment, commentlen, "mpi_%s_mask: %ld B and its size class to "
                "the MPI library too (%.3g/%.3g us)\n", name, sizes[z],
                mpi_at[z] * 1e6, ours_at[z] * 1e6);
        }
    *mask = (double)bits;
    return 0;
}

/* key = the weighted mean of n differences y (seconds, standard errors
 * sg), with its standard error; a negative mean is held at 0 with a note
 * saying why it came out so (`faster`). `points` names the n in the
 * error message. 0 or -1. */
static int set_mean_nonneg(kcal_params *out, const char *key, const double *y,
                           const double *sg, size_t n, const char *points,
                           const char *faster, kcal_calibrate_notes *notes,
                           char *err, size_t errlen)
{
    double v, se;
    if (kcal_fit_const(y, sg, n, &v, &se) < 0) {
        kcal_set_err(err, errlen, "the fit of %s over %zu %s failed", key, n,
                     points);
        return -1;
    }
    if (v < 0) {
        note(notes, "%s: the fit gave %.3g s < 0 (%s); held at 0", key, v,
             faster);
        v = 0;
    }
    return set_fit(out, key, v, se, err, errlen);
}

/* cma_context (issue 8): what a collective pays once for making CMA
 * calls, beyond α (model.c add_context). α comes from a loop of calls on
 * one passive target; the probe also measures libkcoll's algorithms
 * themselves, one call at a time after a barrier (phases kcoll_<coll>,
 * for the hand-off below). Two of them make exactly one CMA call each and
 * no copy besides the root's own block: scatter parallel_read_flags and
 * gather parallel_write_flags. At every size they were measured from
 * CONTEXT_MIN to CONTEXT_MAX bytes, at the smallest p >= 2, the median
 * less the full model's time for it (without the key) is one point; the
 * key is their weighted mean. Small sizes only: there the call's start is
 * most of the time and a copy-rate error least; the smallest p: the fewest
 * calls at once, so the least of what γ(c) and δ(c) model leaks in (on a
 * many-core machine the hand-off is measured at several p). Each point goes into the
 * comment; a negative mean is held at 0 with a note. Absent samples leave
 * the key absent. */
#define CONTEXT_MIN 256
#define CONTEXT_MAX 8192
static int fit_context_part(const kcal_raw *raw, kcal_params *out,
                            kcal_calibrate_notes *notes, char *comment,
                            size_t commentlen, char *err, size_t errlen)
{
    static const struct {
        kcal_coll coll;
        const char *alg;
    } rows[] = {{KCAL_COLL_SCATTER, "parallel_read_flags"},
                {KCAL_COLL_GATHER, "parallel_write_flags"}};
    double y[2 * MAXPTS], sg[2 * MAXPTS];
    size_t n = 0;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const char *name = kcal_coll_name(rows[r].coll);
        const kcal_algorithm *alg =
            kcal_model_find_algorithm(rows[r].coll, rows[r].alg);
        char phase[32];
        snprintf(phase, sizeof phase, KCAL_PHASE_KCOLL_PREFIX "%s", name);
        int pp[MAXPTS];
        long nn[MAXPTS];
        double med[MAXPTS], se[MAXPTS];
        size_t npt;
        if (!alg)
            continue;
        if (bytes_points(raw, phase, rows[r].alg, pp, nn, med, se, MAXPTS,
                         &npt) < 0) {
            kcal_set_err(err, errlen, "out of memory fitting cma_context");
            return -1;
        }
        int p = 0;
        for (size_t j = 0; j < npt; j++)
            if (pp[j] >= 2 && (p == 0 || pp[j] < p))
                p = pp[j];
        if (p < 2)
            continue;
        cat(comment, commentlen, "cma_context: %s %s at p = %d, measured - "
            "full model (us):", name, rows[r].alg, p);
        for (size_t j = 0; j < npt; j++) {
            if (pp[j] != p || nn[j] < CONTEXT_MIN || nn[j] > CONTEXT_MAX)
                continue;
            double t = kcal_model_time(KCAL_MODEL_FULL, out, rows[r].coll,
                                       alg, 0, p, (uint64_t)nn[j], 0, NULL);
            if (!(t >= 0) || !isfinite(t))
                continue;
            y[n] = med[j] - t;
            sg[n] = se[j];
            cat(comment, commentlen, " %ld %.3g", nn[j], y[n] * 1e6);
            n++;
        }
        cat(comment, commentlen, "\n");
    }
    if (n == 0)
        return 0;
    return set_mean_nonneg(out, "cma_context", y, sg, n, "points",
                           "the one-call rows ran faster than the model says",
                           notes, err, errlen);
}

/* The MPI library's own collectives (model.md "The MPI library as a
 * candidate"): per collective, the line T_mpi = a + b·v through the median
 * of each measured (p, n) point (phase mpi_<coll>), v = (p−1)·n, or
 * ⌈log₂ p⌉·n for bcast, weighted by the points' standard errors; a
 * negative coefficient is held at 0 (as for T_sm). And mpi_<coll>_below,
 * the measured crossover (crossover above), below which libkcoll hands its
 * calls to the MPI library. Absent samples leave the keys absent (no
 * hand-off). 0 or -1. */
static int fit_mpi_part(const kcal_raw *raw, kcal_params *out,
                        kcal_calibrate_notes *notes, char *comment,
                        size_t commentlen, char *err, size_t errlen)
{
    for (int c = 0; c < KCAL_COLL_COUNT; c++) {
        const char *name = kcal_coll_name((kcal_coll)c);
        char phase[32], ka[48], kb[48], kbelow[48];
        snprintf(phase, sizeof phase, KCAL_PHASE_MPI_PREFIX "%s", name);
        snprintf(ka, sizeof ka, "mpi_%s_a", name);
        snprintf(kb, sizeof kb, "mpi_%s_b", name);
        snprintf(kbelow, sizeof kbelow, "mpi_%s_below", name);
        int pp[MAXPTS];
        long nn[MAXPTS];
        double med[MAXPTS], se[MAXPTS], x[MAXPTS], y[MAXPTS], sy[MAXPTS];
        size_t npt, n = 0;
        if (bytes_points(raw, phase, NULL, pp, nn, med, se, MAXPTS, &npt) < 0) {
            kcal_set_err(err, errlen, "out of memory fitting %s", phase);
            return -1;
        }
        for (size_t j = 0; j < npt; j++) {
            if (pp[j] < 2)
                continue;
            int mult = c == KCAL_COLL_BCAST ? kcal_ceil_log2(pp[j]) : pp[j] - 1;
            x[n] = (double)mult * (double)nn[j];
            y[n] = med[j];
            sy[n++] = se[j];
        }
        if (n == 0)
            continue;
        double a = y[0], b = 0, sa = sy[0], sb = 0;
        if (n >= 2 && fit_line_nonneg(x, y, sy, n, phase, ka, kb, notes, &a,
                                      &b, &sa, &sb, err, errlen) < 0)
            return -1;
        cat(comment, commentlen, "T_mpi_%s = a + b*v over %zu points: a %.3g s, "
            "b %.3g s/byte\n", name, n, a, b);
        long below;
        double mask;
        int at_p = 0;
        if (crossover(raw, out, (kcal_coll)c, &below, &mask, &at_p, comment,
                      commentlen) < 0) {
            kcal_set_err(err, errlen, "out of memory fitting %s", phase);
            return -1;
        }
        /* Without libkcoll's side of the measurement there is no
         * crossover, and the line alone does not hand anything off. */
        if (set_fit(out, ka, a, sa, err, errlen) < 0 ||
            set_fit(out, kb, b, sb, err, errlen) < 0 ||
            (below > 0 && set_num(out, kbelow, (double)below, err, errlen) < 0))
            return -1;
        char kmask[48];
        snprintf(kmask, sizeof kmask, "mpi_%s_mask", name);
        if (below > 0 && mask > 0 && set_num(out, kmask, mask, err, errlen) < 0)
            return -1;
    }
    return 0;
}

/* ---- issue 9: the cache knee, β(working set), concurrent copies, writes */

/* The key of β at working set W bytes: beta_ws_ and W as kcal's sizes
 * write it, in lower case (beta_ws_64k, beta_ws_512m). */
static void ws_key(const char *prefix, uint64_t w, char *key, size_t len)
{
    char sz[32];
    kcal_sizes_format(w, sz, sizeof sz);
    for (char *c = sz; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    snprintf(key, len, "%s%s", prefix, sz);
}

int kcal_calibrate_knee(const kcal_raw *raw, double page, double *knee,
                        double *se)
{
    long wv[MAXPTS];
    size_t nw = distinct_values(raw, KCAL_PHASE_WS, KCAL_PATTERN_MEMCPY, 0, wv,
                                MAXPTS);
    double lw[MAXPTS], lr[MAXPTS], sr[MAXPTS];
    size_t n = 0;
    for (size_t i = 0; i < nw; i++) {
        kcal_stat st;
        if (point_stat(raw, KCAL_PHASE_WS, KCAL_PATTERN_MEMCPY, 0, wv[i],
                       &st) < 0 || !(st.median > 0))
            continue;
        /* log rate = log(bytes per call) - log(median): only the log of
         * the median matters for where the rate falls. */
        lw[n] = log((double)wv[i] * page);
        lr[n] = -log(st.median);
        sr[n] = st.se / st.median; /* relative error = error of the log */
        n++;
    }
    if (n < 3)
        return -1;
    /* The rate out of cache is the largest working set's; the knee is
     * where the rate last falls below 1.5 times it, interpolated in
     * log-log between the two working sets around it. */
    double th = lr[n - 1] + log(1.5);
    size_t k = n;
    for (size_t i = n - 1; i > 0; i--)
        if (lr[i - 1] > th && lr[i] <= th) {
            k = i;
            break;
        }
    if (k == n)
        return -1;
    double f = (lr[k - 1] - th) / (lr[k - 1] - lr[k]);
    double lk = lw[k - 1] + f * (lw[k] - lw[k - 1]);
    /* Delta method over the three logs the crossing depends on. */
    double d = lr[k - 1] - lr[k], span = lw[k] - lw[k - 1];
    double da = span * (th - lr[k]) / (d * d);   /* d lk / d lr[k-1] */
    double db = span * (lr[k - 1] - th) / (d * d); /* d lk / d lr[k] */
    double dt = -span / d;                         /* d lk / d th */
    double v = da * da * sr[k - 1] * sr[k - 1] + db * db * sr[k] * sr[k] +
               dt * dt * sr[n - 1] * sr[n - 1];
    *knee = exp(lk);
    *se = *knee * sqrt(v);
    return 0;
}

/* The keys <prefix><W> of one curve of time per byte against working set
 * (points ascending in W, standard errors se), made non-decreasing first.
 * A larger working set cannot copy faster: each level of the cache holds
 * what the one below it holds. Where the measured time per byte falls as
 * W grows, the machine changed while the probe measured (on the Xeon
 * guest one probe read 6.7 GB/s at 2M and 12 at 4M while its memcpy
 * samples at 1M took 42-47 µs in one block of passes and 80-120 in
 * others), and a model that believed it chose sequential_write over
 * parallel_read at 1M (0.55x the MPI library): the falling runs are
 * pooled to their weighted mean (isotonic regression). */
static int set_curve(kcal_params *out, const char *prefix, const char *name,
                     const char *label, const uint64_t *pw, const double *pb, const double *pse,
                     size_t np, kcal_calibrate_notes *notes, char *comment,
                     size_t commentlen, char *err, size_t errlen)
{
    double fitted[MAXPTS];
    int changed = np ? kcal_fit_nondecreasing(pb, pse, np, fitted) : 0;
    if (changed < 0) {
        kcal_set_err(err, errlen, "out of memory fitting %s", name);
        return -1;
    }
    /* Pooling within the noise (flat stretches of the curve) is routine;
     * a point moved by more than 3 standard errors is worth a note. */
    int moved = 0;
    for (size_t i = 0; changed > 0 && i < np; i++)
        moved += fabs(fitted[i] - pb[i]) > 3 * pse[i];
    if (moved > 0)
        note(notes, "%s: the copy rate rose with the working set "
             "beyond the noise; %d of %zu points pooled to one "
             "non-decreasing %s (the header lists both), as a larger "
             "working set cannot copy faster: the machine changed while the "
             "probe measured", name, changed, np, label);
    if (changed > 0)
        cat(comment, commentlen, "%s made non-decreasing (pooled):", name);
    for (size_t i = 0; i < np; i++) {
        char key[64], sz[32];
        if (changed > 0 && fitted[i] != pb[i])
            cat(comment, commentlen, " %s %.3g GB/s",
                kcal_sizes_format(pw[i], sz, sizeof sz), 1e-9 / fitted[i]);
        ws_key(prefix, pw[i], key, sizeof key);
        if (set_fit(out, key, fitted[i], pse[i], err, errlen) < 0)
            return -1;
    }
    if (changed > 0)
        cat(comment, commentlen, "\n");
    return 0;
}

/* cache_knee from the memcpy copies, and β(W) = (T4(N, W) − α − l·N)/(N·s)
 * of the CMA copies at each working set W (the start-up and pinning of the
 * call taken off with the fitted α and l). */
static int fit_ws_part(const kcal_raw *raw, double page, double alpha,
                       double lock, kcal_params *out,
                       kcal_calibrate_notes *notes, char *comment,
                       size_t commentlen, char *err, size_t errlen)
{
    if (!has_pattern(raw, KCAL_PHASE_WS, NULL))
        return 0;
    long wv[MAXPTS];
    size_t nw = distinct_values(raw, KCAL_PHASE_WS, KCAL_PATTERN_MEMCPY, 0, wv,
                                MAXPTS);
    if (nw)
        cat(comment, commentlen, "memcpy rate by working set (memcpy_ws_*):");
    /* The memcpy curve's points: time per byte of one memcpy at W, no
     * start-up to take off (a call of a few ns against µs copies). */
    uint64_t mw[MAXPTS];
    double mb[MAXPTS], mse[MAXPTS];
    size_t nm = 0;
    for (size_t i = 0; i < nw; i++) {
        kcal_stat st;
        char sz[32];
        size_t nb = kcal_raw_select(raw, KCAL_PHASE_WS, KCAL_PATTERN_MEMCPY, 1,
                                    wv[i], NULL, 0);
        if (!nb || point_stat(raw, KCAL_PHASE_WS, KCAL_PATTERN_MEMCPY, 0,
                              wv[i], &st) < 0)
            continue;
        long bytes = 0;
        for (size_t j = 0; j < raw->n && !bytes; j++)
            if (!strcmp(raw->s[j].phase, KCAL_PHASE_WS) &&
                !strcmp(raw->s[j].pattern, KCAL_PATTERN_MEMCPY) &&
                raw->s[j].pages == wv[i])
                bytes = raw->s[j].bytes;
        if (bytes <= 0 || !(st.median > 0))
            continue;
        uint64_t w = (uint64_t)((double)wv[i] * page);
        cat(comment, commentlen, " %s %.3g GB/s",
            kcal_sizes_format(w, sz, sizeof sz),
            (double)bytes / st.median * 1e-9);
        mw[nm] = w, mb[nm] = st.median / (double)bytes;
        mse[nm] = st.se > 0 ? st.se / (double)bytes : mb[nm] * 1e-6;
        nm++;
    }
    if (nw)
        cat(comment, commentlen, "\n");
    if (set_curve(out, KCAL_MEMCPY_WS_PREFIX, "memcpy_ws", "memcpy(W)", mw, mb, mse, nm,
                  notes, comment, commentlen, err, errlen) < 0)
        return -1;
    double knee, kse;
    if (kcal_calibrate_knee(raw, page, &knee, &kse) == 0) {
        char a[32];
        cat(comment, commentlen, "cache_knee = where the memcpy rate last "
            "falls below 1.5 times the largest working set's: %s\n",
            kcal_sizes_format((uint64_t)llround(knee), a, sizeof a));
        if (set_fit(out, "cache_knee", knee, kse, err, errlen) < 0)
            return -1;
    } else if (nw) {
        note(notes, "cache knee: the memcpy rate does not fall below 1.5 "
             "times the largest working set's rate: no cache_knee (the "
             "working sets measured may not outgrow the cache)");
    }
    nw = distinct_values(raw, KCAL_PHASE_WS, KCAL_PATTERN_CMA, 0, wv, MAXPTS);
    if (nw)
        cat(comment, commentlen, "CMA copy rate by working set (beta_ws_*):");
    /* The points first (working sets ascending), the keys after the
     * curve is made non-decreasing (below). */
    uint64_t pw[MAXPTS];
    double pb[MAXPTS], pse[MAXPTS];
    size_t np = 0;
    for (size_t i = 0; i < nw; i++) {
        kcal_stat st;
        long bytes = 0;
        for (size_t j = 0; j < raw->n && !bytes; j++)
            if (!strcmp(raw->s[j].phase, KCAL_PHASE_WS) &&
                !strcmp(raw->s[j].pattern, KCAL_PATTERN_CMA) &&
                raw->s[j].pages == wv[i])
                bytes = raw->s[j].bytes;
        if (bytes <= 0 || point_stat(raw, KCAL_PHASE_WS, KCAL_PATTERN_CMA, 0,
                                     wv[i], &st) < 0)
            continue;
        double n_pages = ceil((double)bytes / page);
        double b = (st.median - alpha - lock * n_pages) / (double)bytes;
        char sz[32];
        uint64_t w = (uint64_t)((double)wv[i] * page);
        if (!(b > 0)) {
            note(notes, "beta_ws at %s: the copy took no longer than "
                 "alpha + l*N: left out", kcal_sizes_format(w, sz, sizeof sz));
            continue;
        }
        cat(comment, commentlen, " %s %.3g GB/s",
            kcal_sizes_format(w, sz, sizeof sz), 1e-9 / b);
        pw[np] = w, pb[np] = b;
        pse[np++] = st.se > 0 ? st.se / (double)bytes : b * 1e-6;
    }
    if (nw)
        cat(comment, commentlen, "\n");
    return set_curve(out, KCAL_WS_KEY_PREFIX, "beta_ws", "beta(W)", pw, pb, pse, np,
                     notes, comment, commentlen, err, errlen);
}

/* δ(c) = copy time with c concurrent copiers / with one, the copy time
 * being T(N) − α − l·N, of one pattern: the points x = c − 1, y = δ − 1
 * (sg its standard error) over c >= 2, and a comment line with every δ.
 * The number of points; 0 when the pattern is missing or unusable. */
static size_t concurrent_delta(const kcal_raw *raw, const char *pattern,
                               double alpha, double lock, double *x,
                               double *y, double *sg, char *comment,
                               size_t commentlen)
{
    long cv[MAXPTS], pv[MAXPTS];
    size_t nc = distinct_values(raw, KCAL_PHASE_CONCURRENT, pattern, 1, cv,
                                MAXPTS);
    size_t np = distinct_values(raw, KCAL_PHASE_CONCURRENT, pattern, 0, pv,
                                MAXPTS);
    if (!nc || !np || cv[0] != 1)
        return 0;
    double over = alpha + lock * (double)pv[0];
    kcal_stat one;
    if (point_stat(raw, KCAL_PHASE_CONCURRENT, pattern, 1, pv[0], &one) < 0 ||
        !(one.median > over))
        return 0;
    double c1 = one.median - over;
    size_t n = 0;
    cat(comment, commentlen, "concurrent copies, %s, N = %ld pages: "
        "delta(c) =", pattern, pv[0]);
    for (size_t i = 1; i < nc; i++) {
        kcal_stat st;
        if (point_stat(raw, KCAL_PHASE_CONCURRENT, pattern, (int)cv[i], pv[0],
                       &st) < 0)
            continue;
        double d = (st.median - over) / c1;
        x[n] = (double)cv[i] - 1;
        y[n] = d - 1;
        sg[n] = d * sqrt(pow(st.se / (st.median - over), 2) +
                         pow(one.se / c1, 2));
        if (!(sg[n] > 0))
            sg[n] = 1e-3;
        cat(comment, commentlen, " c=%ld %.3f", cv[i], d);
        n++;
    }
    cat(comment, commentlen, "\n");
    return n;
}

/* conc_hot and conc_cold: the slope k of δ(c) = 1 + k·(c − 1) over c >= 2
 * (weighted, through δ(1) = 1) of the own_* patterns, each copier reading
 * its own target process as the collectives' concurrent copies do; a raw
 * file from before them fits from distinct_*, whose copiers read one
 * target and also contend on its page tables (γ(c)'s cost). Every
 * pattern's δ(c) goes into the comment. */
static int fit_concurrent_part(const kcal_raw *raw, double alpha, double lock,
                               kcal_params *out, kcal_calibrate_notes *notes,
                               char *comment, size_t commentlen, char *err,
                               size_t errlen)
{
    static const char *const pats[] = {
        KCAL_PATTERN_OWN_HOT,      KCAL_PATTERN_OWN_COLD,
        KCAL_PATTERN_DISTINCT_HOT, KCAL_PATTERN_DISTINCT_COLD,
        KCAL_PATTERN_SAME_HOT,     KCAL_PATTERN_SAME_COLD};
    enum { NPAT = sizeof pats / sizeof pats[0] };
    static const struct {
        const char *key;
        int pat, older; /* in pats: the pattern, and older files' */
    } keys[] = {{"conc_hot", 0, 2}, {"conc_cold", 1, 3}};
    double x[NPAT][MAXPTS], y[NPAT][MAXPTS], sg[NPAT][MAXPTS];
    size_t n[NPAT];
    for (size_t pi = 0; pi < NPAT; pi++)
        n[pi] = concurrent_delta(raw, pats[pi], alpha, lock, x[pi], y[pi],
                                 sg[pi], comment, commentlen);
    for (size_t ki = 0; ki < sizeof keys / sizeof keys[0]; ki++) {
        int own = has_pattern(raw, KCAL_PHASE_CONCURRENT, pats[keys[ki].pat]);
        int pi = own ? keys[ki].pat : keys[ki].older;
        if (n[pi] == 0)
            continue;
        double k, kse;
        if (kcal_fit_origin(x[pi], y[pi], sg[pi], n[pi], &k, &kse) < 0) {
            kcal_set_err(err, errlen, "the fit of %s over %zu copier counts "
                         "failed", keys[ki].key, n[pi]);
            return -1;
        }
        cat(comment, commentlen, "%s = slope k of delta(c) = 1 + k*(c - 1) "
            "of %s (%s)\n", keys[ki].key, pats[pi],
            own ? "each copier reading its own target process"
                : "a raw file without own_*: copiers of one target, which "
                  "also contend on its page tables");
        if (k < 0) {
            note(notes, "%s: the fit gave %.3g < 0 (concurrent copies ran "
                 "no slower than one); held at 0", keys[ki].key, k);
            k = 0;
        }
        if (set_fit(out, keys[ki].key, k, kse, err, errlen) < 0)
            return -1;
    }
    return 0;
}

/* cma_mutual (issue 8): what a CMA call pays when its target makes CMA
 * calls of its own at the same moment, per call: at each c >= 2 the
 * median of the mutual pattern (each reader reading the next, which reads
 * meanwhile) less that of own (each its passive target), and their
 * weighted mean over the c. Both patterns are 1-page calls, so pinning and
 * copy cancel; what is left is the bouncing of the target's memory-map
 * and task locks between the cores. Every c's difference goes into the
 * comment. */
static int fit_mutual_part(const kcal_raw *raw, kcal_params *out,
                           kcal_calibrate_notes *notes, char *comment,
                           size_t commentlen, char *err, size_t errlen)
{
    const char *ph = KCAL_PHASE_MUTUAL;
    if (!has_pattern(raw, ph, KCAL_PATTERN_MUTUAL) ||
        !has_pattern(raw, ph, KCAL_PATTERN_OWN))
        return 0;
    long cv[MAXPTS];
    double y[MAXPTS], sg[MAXPTS];
    size_t nc = distinct_values(raw, ph, KCAL_PATTERN_MUTUAL, 1, cv, MAXPTS);
    size_t n = 0;
    cat(comment, commentlen, "mutual calls, 1 page: mutual - own per call =");
    for (size_t i = 0; i < nc; i++) {
        kcal_stat mu, own;
        if (cv[i] < 2 ||
            point_stat(raw, ph, KCAL_PATTERN_MUTUAL, (int)cv[i], -1, &mu) < 0 ||
            point_stat(raw, ph, KCAL_PATTERN_OWN, (int)cv[i], -1, &own) < 0)
            continue;
        y[n] = mu.median - own.median;
        sg[n] = sqrt(mu.se * mu.se + own.se * own.se);
        cat(comment, commentlen, " c=%ld %.3g s (%.3g - %.3g)", cv[i], y[n],
            mu.median, own.median);
        n++;
    }
    cat(comment, commentlen, "\n");
    if (n == 0) {
        note(notes, "cma_mutual: no c >= 2 with both patterns");
        return 0;
    }
    return set_mean_nonneg(out, "cma_mutual", y, sg, n, "reader counts",
                           "a call whose target calls too ran no slower",
                           notes, err, errlen);
}

/* Writes: T3w(N) = alpha_write + lock_write·N, beta_write the slope of
 * T4w − T3w over N·s. A write key goes into the params only where it
 * differs from its read key by more than 3 standard errors (combined);
 * otherwise the full model's *_write rows use the read key, and the header
 * says so. */
static int fit_write_part(const kcal_raw *raw, double page, kcal_params *out,
                          kcal_calibrate_notes *notes, char *comment,
                          size_t commentlen, char *err, size_t errlen)
{
    const char *lp = KCAL_PATTERN_ONE_BYTE_LOCAL;
    if (!has_pattern(raw, KCAL_PHASE_LOCK_WRITE, lp))
        return 0;
    double x[MAXPTS], y[MAXPTS], se[MAXPTS], x4[MAXPTS], y4[MAXPTS],
        se4[MAXPTS], bx[MAXPTS], by[MAXPTS], bs[MAXPTS];
    size_t n = curve(raw, KCAL_PHASE_LOCK_WRITE, lp, x, y, se), nb = 0;
    kcal_linfit lf, bf;
    if (n < 3 || kcal_fit_line(x, y, se, n, &lf) < 0) {
        note(notes, "writes: too few T3 write points to fit (%zu)", n);
        return 0;
    }
    const char *cp = has_pattern(raw, KCAL_PHASE_COPY_WRITE, KCAL_PATTERN_COLD)
                         ? KCAL_PATTERN_COLD
                         : KCAL_PATTERN_HOT;
    size_t n4 = curve(raw, KCAL_PHASE_COPY_WRITE, cp, x4, y4, se4);
    nb = copy_minus_lock(x, y, se, n, x4, y4, se4, n4, page, bx, by, bs);
    int have_beta = nb >= 2 && kcal_fit_line(bx, by, bs, nb, &bf) == 0 &&
                    bf.c1 > 0;
    const struct {
        const char *key, *read;
        double v, se;
        int ok;
    } k[] = {{"alpha_write", "alpha", lf.c0, lf.se0, lf.c0 > 0},
             {"lock_write", "lock", lf.c1, lf.se1, lf.c1 > 0},
             {"beta_write", "beta", have_beta ? bf.c1 : 0,
              have_beta ? bf.se1 : 0, have_beta}};
    cat(comment, commentlen, "writes (process_vm_writev): T3w = %.3g s + "
        "%.3g s/page * N over %zu page counts", lf.c0, lf.c1, n);
    if (have_beta)
        cat(comment, commentlen, ", T4w - T3w over N*s: %.3g GB/s (%s)",
            1e-9 / bf.c1, cp);
    cat(comment, commentlen, "\n");
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (!k[i].ok)
            continue;
        char sk[64];
        snprintf(sk, sizeof sk, "%s_stderr", k[i].read);
        double r = kcal_params_get(out, k[i].read, NAN);
        double rs = kcal_params_get(out, sk, 0);
        double lim = 3 * sqrt(k[i].se * k[i].se + rs * rs);
        if (isnan(r))
            continue;
        if (fabs(k[i].v - r) > lim) {
            cat(comment, commentlen, "%s = %.4g differs from %s = %.4g by "
                "more than 3 standard errors (%.3g): a key of its own\n",
                k[i].key, k[i].v, k[i].read, r, lim);
            if (set_fit(out, k[i].key, k[i].v, k[i].se, err, errlen) < 0)
                return -1;
        } else {
            cat(comment, commentlen, "%s = %.4g is within 3 standard errors "
                "(%.3g) of %s = %.4g: writes use %s\n", k[i].key, k[i].v,
                lim, k[i].read, r, k[i].read);
        }
    }
    return 0;
}

/* Lines another core just wrote (probe/dirty.h): per size N the extra
 * d(N) = T_dirty − T_clean, the difference of the medians with standard
 * error √(se_dirty² + se_clean²), fitted as d(N) = e·min(N, C)
 * (kcal_fit_hinge): dirty_beta = e (s/byte), dirty_bytes = C (bytes).
 * No keys, and a note that says why, with fewer than 3 sizes or when the
 * extra is not positive (its weighted mean over the sizes within 3
 * standard errors of 0, or below); a C at an end of the measured sizes is
 * held there, with a note, and so is a misfit far beyond the points'
 * errors. The header lists d(N)/N per size. */
static int fit_dirty_part(const kcal_raw *raw, double page, kcal_params *out,
                          kcal_calibrate_notes *notes, char *comment,
                          size_t commentlen, char *err, size_t errlen)
{
    if (!has_pattern(raw, KCAL_PHASE_DIRTY, NULL))
        return 0;
    static const char *const keys = "dirty_beta, dirty_bytes";
    long pv[MAXPTS];
    size_t np = distinct_values(raw, KCAL_PHASE_DIRTY, KCAL_PATTERN_DIRTY, 0,
                                pv, MAXPTS), n = 0;
    double x[MAXPTS], y[MAXPTS], sg[MAXPTS];
    char a[32], b[32];
    cat(comment, commentlen, "lines another core just wrote, extra per byte "
        "(T_dirty - T_clean)/N in ns/B:");
    for (size_t i = 0; i < np; i++) {
        kcal_stat c, d;
        if (point_stat(raw, KCAL_PHASE_DIRTY, KCAL_PATTERN_CLEAN, 0, pv[i],
                       &c) < 0 ||
            point_stat(raw, KCAL_PHASE_DIRTY, KCAL_PATTERN_DIRTY, 0, pv[i],
                       &d) < 0)
            continue;
        x[n] = (double)pv[i] * page;
        y[n] = d.median - c.median;
        sg[n] = sqrt(d.se * d.se + c.se * c.se);
        cat(comment, commentlen, " %s %.3g",
            kcal_sizes_format((uint64_t)x[n], a, sizeof a), 1e9 * y[n] / x[n]);
        n++;
    }
    cat(comment, commentlen, "\n");
    if (n < 3) {
        note(notes, "%s: %zu size(s) with both clean and dirty reads, the "
             "fit needs 3: not written", keys, n);
        return 0;
    }
    /* Is there an extra at all? The weighted mean of d(N) against its
     * standard error from the points' own (not scaled by the misfit of a
     * constant, which a real hinge makes large). */
    double sw = 0, swy = 0;
    for (size_t i = 0; i < n; i++) {
        sw += 1 / (sg[i] * sg[i]);
        swy += y[i] / (sg[i] * sg[i]);
    }
    double mean = swy / sw, mse = 1 / sqrt(sw);
    if (!(mean > 3 * mse)) {
        note(notes, "%s: reading lines another core just wrote was no "
             "slower than reading clean ones (the difference over %zu sizes "
             "averages %.3g s +- %.2g): not written", keys, n, mean, mse);
        cat(comment, commentlen, "no extra for lines just written (mean "
            "%.3g s +- %.2g): dirty_beta, dirty_bytes not written\n", mean,
            mse);
        return 0;
    }
    kcal_hingefit hf;
    if (kcal_fit_hinge(x, y, sg, n, &hf) < 0 || !(hf.e > 0)) {
        note(notes, "%s: the fit of e*min(N, C) over %zu sizes failed: not "
             "written", keys, n);
        return 0;
    }
    if (hf.held_c > 0)
        note(notes, "dirty_bytes: the extra still grows at the largest size "
             "measured (%s): C held there, a lower bound",
             kcal_sizes_format((uint64_t)hf.c, a, sizeof a));
    else if (hf.held_c < 0)
        note(notes, "dirty_bytes: the extra is as large at the smallest size "
             "measured (%s) as at any other: C held there, an upper bound",
             kcal_sizes_format((uint64_t)hf.c, a, sizeof a));
    /* A misfit far beyond the points' errors: the extra has another shape
     * than the hinge (standard errors already scaled by it). */
    if (hf.dof > 0 && hf.chisq / hf.dof > 25)
        note(notes, "%s: e*min(N, C) fits the measured extra poorly (chi2/dof "
             "%.0f, the standard errors scaled by it); the params file's "
             "header lists the extra per size", keys, hf.chisq / hf.dof);
    cat(comment, commentlen, "dirty fit: d(N) = e*min(N, C) over %zu sizes "
        "N = %s..%s, dof %d, chi2 %.3g: e = %.3g ns/B, C = %.0f KiB%s\n", n,
        kcal_sizes_format((uint64_t)x[0], a, sizeof a),
        kcal_sizes_format((uint64_t)x[n - 1], b, sizeof b), hf.dof, hf.chisq,
        1e9 * hf.e, hf.c / 1024,
        hf.held_c > 0 ? " (held at the largest N)"
        : hf.held_c < 0 ? " (held at the smallest N)" : "");
    if (set_fit(out, "dirty_beta", hf.e, hf.se_e, err, errlen) < 0 ||
        set_fit(out, "dirty_bytes", hf.c, hf.se_c, err, errlen) < 0)
        return -1;
    return 0;
}

/* Median and standard error of the pass samples of one pattern, slice,
 * stream length m and chunk size c. 0, or -1 when there are none (or out
 * of memory). */
static int pass_stat(const kcal_raw *raw, const char *pattern, long slice,
                     int m, long c, kcal_stat *st)
{
    return point_stat_sel(raw, KCAL_PHASE_PASS, pattern, m, slice, c, 0, -1,
                          st);
}

/* Chunks passed between cores (probe/pass.h): per slice (the moment of the
 * probe, raw `pages`) and stream of m chunks of c bytes the extra
 * E = T_cross − T_local, the difference of the medians with standard
 * error √(se_cross² + se_local²); per (m, c) the dearest slice's, or with
 * three slices or more the second dearest (the cost changes with where
 * the host runs the vCPUs, and a choice priced in the cheap state loses in
 * the dear one: pass.h; but one slice that another job disturbed, 8 µs at
 * 16 KiB where the others read 2.7-3.6 on the Xeon guest, should not set
 * it). The first chunk's
 * extra, from the one-chunk streams at every c, fitted as
 * E(1, c) = pass_a + pass_b·c (weighted line; a negative coefficient held
 * at 0 and the other fitted alone); each further chunk of a stream, from
 * the longest stream at the largest c (a full KCAL_STAGING_CHUNK):
 * pass_next = (E(m, C) − E(1, C)) / (m − 1), held at 0 when negative.
 * No keys, and a note, with fewer than 2 sizes or no longer stream. The
 * header lists E per point, with its range over the slices. */
static int fit_pass_part(const kcal_raw *raw, kcal_params *out,
                         kcal_calibrate_notes *notes, char *comment,
                         size_t commentlen, char *err, size_t errlen)
{
    if (!has_pattern(raw, KCAL_PHASE_PASS, NULL))
        return 0;
    static const char *const keys = "pass_a, pass_b, pass_next";
    long slices[MAXPTS];
    size_t ns = distinct_values(raw, KCAL_PHASE_PASS, KCAL_PATTERN_CROSS, 0,
                                slices, MAXPTS);
    int pm[MAXPTS];
    long pc[MAXPTS];
    double med[MAXPTS], se[MAXPTS];
    size_t np;
    if (bytes_points(raw, KCAL_PHASE_PASS, KCAL_PATTERN_CROSS, pm, pc, med,
                     se, MAXPTS, &np) < 0) {
        kcal_set_err(err, errlen, "out of memory fitting %s", KCAL_PHASE_PASS);
        return -1;
    }
    double x[MAXPTS], y[MAXPTS], sg[MAXPTS];
    size_t n = 0;
    int long_m = 0;
    long long_c = 0;
    double long_e = 0, long_se = 0;
    char a[32];
    cat(comment, commentlen, "chunks passed between cores, extra per stream "
        "T_cross - T_local in us (m chunks x c bytes), the %s of %zu "
        "slice(s) [the cheapest]:", ns >= 3 ? "second dearest" : "dearest",
        ns);
    for (size_t i = 0; i < np; i++) {
        /* The slices' E, descending (insertion: a handful). */
        double d[MAXPTS], dse[MAXPTS];
        size_t nd = 0;
        for (size_t j = 0; j < ns; j++) {
            kcal_stat cr, lc;
            if (pass_stat(raw, KCAL_PATTERN_CROSS, slices[j], pm[i], pc[i],
                          &cr) < 0 ||
                pass_stat(raw, KCAL_PATTERN_LOCAL, slices[j], pm[i], pc[i],
                          &lc) < 0)
                continue;
            size_t q = nd++;
            double v = cr.median - lc.median;
            for (; q > 0 && d[q - 1] < v; q--)
                d[q] = d[q - 1], dse[q] = dse[q - 1];
            d[q] = v;
            dse[q] = sqrt(cr.se * cr.se + lc.se * lc.se);
        }
        if (!nd)
            continue;
        /* The dearest, or with three slices or more the second dearest:
         * one slice disturbed by another job does not set it. */
        size_t at = nd >= 3 ? 1 : 0;
        double e = d[at], e_se = dse[at], lo = d[nd - 1];
        cat(comment, commentlen, " %dx%s %.3g [%.3g]", pm[i],
            kcal_sizes_format((uint64_t)pc[i], a, sizeof a), 1e6 * e, 1e6 * lo);
        if (pm[i] == 1 && n < MAXPTS) {
            x[n] = (double)pc[i];
            y[n] = e;
            sg[n++] = e_se > 0 ? e_se : 1e-9;
        } else if (pm[i] > long_m || (pm[i] == long_m && pc[i] > long_c)) {
            long_m = pm[i], long_c = pc[i], long_e = e, long_se = e_se;
        }
    }
    cat(comment, commentlen, "\n");
    /* x ascending (insertion sort: a handful), for the header and the fit */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && x[j - 1] > x[j]; j--) {
            double t = x[j];
            x[j] = x[j - 1], x[j - 1] = t;
            t = y[j], y[j] = y[j - 1], y[j - 1] = t;
            t = sg[j], sg[j] = sg[j - 1], sg[j - 1] = t;
        }
    if (n < 2 || long_m < 2) {
        note(notes, "%s: %zu chunk size(s) of one-chunk streams and %s: the "
             "fit needs 2 and one: not written", keys, n,
             long_m < 2 ? "no longer stream" : "a longer stream");
        return 0;
    }
    kcal_linfit lf;
    if (kcal_fit_line(x, y, sg, n, &lf) < 0) {
        kcal_set_err(err, errlen, "out of memory fitting %s", KCAL_PHASE_PASS);
        return -1;
    }
    if (lf.c0 < 0) {
        lf.c0 = lf.se0 = 0;
        if (kcal_fit_origin(x, y, sg, n, &lf.c1, &lf.se1) < 0)
            return -1;
    } else if (lf.c1 < 0) {
        lf.c1 = lf.se1 = 0;
        if (kcal_fit_const(y, sg, n, &lf.c0, &lf.se0) < 0)
            return -1;
    }
    if (!(lf.c0 >= 0 && lf.c1 >= 0)) {
        note(notes, "%s: passing a chunk between cores cost nothing beyond "
             "the copies: not written", keys);
        return 0;
    }
    /* The one-chunk extra at the longer stream's c, from the measured
     * point (not from the line: a line's misfit there would show as a
     * per-chunk cost). */
    double first = lf.c0 + lf.c1 * (double)long_c, first_se = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] == (double)long_c)
            first = y[i], first_se = sg[i];
    double next = (long_e - first) / (long_m - 1);
    double next_se = sqrt(long_se * long_se + first_se * first_se) /
                     (long_m - 1);
    if (next < 0) {
        note(notes, "pass_next: a stream of %d chunks cost less beyond its "
             "copies than one chunk: held at 0", long_m);
        next = 0;
    }
    cat(comment, commentlen, "pass fit: E(1, c) = a + b*c over %zu sizes, "
        "dof %d, chi2 %.3g: a = %.3g us, b = %.3g ns/B; each further chunk "
        "of %s: %.3g us\n", n, lf.dof, lf.chisq, 1e6 * lf.c0, 1e9 * lf.c1,
        kcal_sizes_format((uint64_t)long_c, a, sizeof a), 1e6 * next);
    if (set_fit(out, "pass_a", lf.c0, lf.se0, err, errlen) < 0 ||
        set_fit(out, "pass_b", lf.c1, lf.se1, err, errlen) < 0 ||
        set_fit(out, "pass_next", next, next_se, err, errlen) < 0)
        return -1;
    return 0;
}

/* The `# meta` entries, first, in file order: a params file reads from
 * what to what was measured. The numeric ones (params' table says which)
 * as numbers. 0, or -1 with err naming the entry and why the params file
 * could not hold it. */
static int copy_meta(const kcal_raw *raw, kcal_params *out, char *err,
                     size_t errlen)
{
    for (size_t i = 0; i < raw->n_meta; i++) {
        const char *k = raw->meta[i].key, *v = raw->meta[i].value;
        const char *why;
        if (kcal_params_key_kind(k) == KCAL_KEY_META_NUMBER) {
            char *end;
            double d = strtod(v, &end);
            why = end == v || *end ? "is not a number"
                                   : kcal_params_check_number(k, d);
            if (!why && kcal_params_set(out, k, d) < 0)
                why = "could not be set";
        } else {
            why = kcal_params_check_text(k, v);
            if (!why && kcal_params_set_text(out, k, v) < 0)
                why = "could not be set";
        }
        if (why) {
            kcal_set_err(err, errlen, "'# meta %s %s': %s, so it cannot go "
                         "into a params file", k, v, why);
            return -1;
        }
    }
    return 0;
}

int kcal_calibrate_params(const kcal_raw *raw, kcal_params *out,
                          kcal_calibrate_notes *notes, char *comment,
                          size_t commentlen, char *err, size_t errlen)
{
    if (notes)
        notes->n = 0;
    if (comment && commentlen)
        comment[0] = '\0';
    const char *page_s = kcal_raw_get_meta(raw, KCAL_META_PAGE);
    if (!page_s) {
        kcal_set_err(err, errlen, "no '# meta page' line with the page size");
        return -1;
    }
    if (copy_meta(raw, out, err, errlen) < 0)
        return -1;
    double page = kcal_params_get(out, KCAL_META_PAGE, 0);

    /* T1: reported, not a model parameter (α includes it). */
    kcal_stat t1, t2;
    if (point_stat(raw, KCAL_PHASE_SYSCALL, NULL, 0, -1, &t1) == 0)
        cat(comment, commentlen, "T1 syscall (liovcnt = riovcnt = 0): %.3g s\n",
            t1.median);
    int have_t2 = point_stat(raw, KCAL_PHASE_STARTUP, NULL, 0, -1, &t2) == 0;
    if (have_t2)
        cat(comment, commentlen, "T2 start-up (1 byte): %.3g s\n", t2.median);

    /* α and l: T3(N) = α + l·N (model.md). */
    /* The probe says which T3 it trusted (cma_method); else the current
     * kernel's method when its samples are there. */
    const char *method = kcal_raw_get_meta(raw, KCAL_META_CMA_METHOD);
    const char *lock_pat =
        method && has_pattern(raw, KCAL_PHASE_LOCK, method) ? method
        : has_pattern(raw, KCAL_PHASE_LOCK, KCAL_PATTERN_ONE_BYTE_LOCAL)
            ? KCAL_PATTERN_ONE_BYTE_LOCAL
            : KCAL_PATTERN_LIOVCNT_ZERO;
    double x[MAXPTS], y[MAXPTS], se[MAXPTS];
    size_t n = curve(raw, KCAL_PHASE_LOCK, lock_pat, x, y, se);
    kcal_linfit lf;
    if (n < 2) {
        kcal_set_err(err, errlen, "need T3 (phase lock) at 2 or more page counts, "
                "have %zu", n);
        return -1;
    }
    if (kcal_fit_line(x, y, se, n, &lf) < 0) {
        kcal_set_err(err, errlen, "the line fit of T3 (phase lock, %s) over %zu "
                     "page counts failed", lock_pat, n);
        return -1;
    }
    if (kcal_calibrate_lock_grows(raw, lock_pat) != 1 || !(lf.c1 > 0)) {
        kcal_set_err(err, errlen, "T3 (%s) does not grow with the number of pages "
                "(slope %.3g ± %.2g s/page): l cannot be measured", lock_pat,
                lf.c1, lf.se1);
        return -1;
    }
    const char *copy_pat =
        has_pattern(raw, KCAL_PHASE_COPY, KCAL_PATTERN_COLD) ? KCAL_PATTERN_COLD
                                                              : KCAL_PATTERN_HOT;
    double ba = 0, bl = 0, bb = 0;
    int batched = batch_se(raw, lock_pat, copy_pat, page, &ba, &bl, &bb) == 0;
    double alpha = lf.c0, alpha_se = batched ? fmax(lf.se0, ba) : lf.se0;
    double lock_se = batched ? fmax(lf.se1, bl) : lf.se1;
    if (alpha <= 0) {
        /* The intercept is a long extrapolation from 1..1024 pages; the
         * paper's α = T2 is the measured point it stands for. */
        if (!have_t2) {
            kcal_set_err(err, errlen, "T3 intercept %.3g s < 0 and no T2 samples",
                    alpha);
            return -1;
        }
        note(notes, "alpha: the T3 intercept is %.3g s <= 0; using the "
             "paper's alpha = T2 instead", alpha);
        alpha = t2.median;
        alpha_se = t2.se;
    }
    cat(comment, commentlen, "T3 = alpha + l*N over %zu page counts N = "
        "%g..%g (%s), dof %d\n", n, x[0], x[n - 1], lock_pat, lf.dof);
    if (set_fit(out, "alpha", alpha, alpha_se, err, errlen) < 0 ||
        set_fit(out, "lock", lf.c1, lock_se, err, errlen) < 0 ||
        set_num(out, "page", page, err, errlen) < 0)
        return -1;

    /* β: slope of (T4 − T3) over N·s (model.md). */
    kcal_linfit bf;
    size_t nb;
    if (fit_copy_slope(raw, copy_pat, x, y, se, n, page, &bf, &nb, err,
                       errlen) < 0)
        return -1;
    cat(comment, commentlen, "beta = slope of (T4 - T3) over N*s, %zu points, "
        "%s copies, dof %d (%.3g GB/s)\n", nb, copy_pat, bf.dof, 1e-9 / bf.c1);
    if (batched)
        cat(comment, commentlen, "stderr of alpha, lock, beta: the larger of "
            "the fit's and the batch-means one (%d time blocks of the passes: "
            "%.2g, %.2g, %.2g)\n", KCAL_BATCHES, ba, bl, bb);
    if (set_fit(out, "beta", bf.c1, batched ? fmax(bf.se1, bb) : bf.se1, err,
                errlen) < 0)
        return -1;
    if (!kcal_raw_get_meta(raw, KCAL_META_BETA_CACHE) &&
        kcal_params_set_text(out, KCAL_META_BETA_CACHE, copy_pat) < 0)
        return -1;
    /* beta_hot (the full model): the same fit on the in-cache copies, when
     * the probe measured them (by default next to the cold ones). */
    if (has_pattern(raw, KCAL_PHASE_COPY, KCAL_PATTERN_HOT) &&
        fit_beta_hot(raw, lock_pat, x, y, se, n, page, out, comment,
                     commentlen, err, errlen) < 0)
        return -1;

    if (fit_gamma_part(raw, alpha, lf.c1, out, notes, comment, commentlen, err,
                       errlen) < 0)
        return -1;
    if (fit_sm_part(raw, out, notes, comment, commentlen, err, errlen) < 0)
        return -1;
    if (fit_ws_part(raw, page, alpha, lf.c1, out, notes, comment, commentlen,
                    err, errlen) < 0 ||
        fit_concurrent_part(raw, alpha, lf.c1, out, notes, comment,
                            commentlen, err, errlen) < 0 ||
        fit_mutual_part(raw, out, notes, comment, commentlen, err,
                        errlen) < 0 ||
        fit_write_part(raw, page, out, notes, comment, commentlen, err,
                       errlen) < 0)
        return -1;
    if (fit_dirty_part(raw, page, out, notes, comment, commentlen, err,
                       errlen) < 0 ||
        fit_pass_part(raw, out, notes, comment, commentlen, err, errlen) < 0)
        return -1;
    if (fit_sync_step(raw, out, comment, commentlen, err, errlen) < 0)
        return -1;
    if (fit_sm_flag(raw, out, comment, commentlen, err, errlen) < 0)
        return -1;
    /* After every key the full model uses but these two (it is the
     * model's remainder), before the hand-off (which asks the model). */
    if (fit_context_part(raw, out, notes, comment, commentlen, err,
                         errlen) < 0)
        return -1;
    return fit_mpi_part(raw, out, notes, comment, commentlen, err, errlen);
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
