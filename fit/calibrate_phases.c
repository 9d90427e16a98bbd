/* calibrate_phases: α and l from T3(N) = α + l·N (model.md), the T1 and
 * T2 points for the header, and the batch means over the probe's passes;
 * the sweeps of probe/phases.c (calibrate_part.h). */
#include "fit/calibrate_part.h"
#include "common/err.h"
#include "fit/fit.h"

#include <math.h>
#include <string.h>

/* l (slope of T3) and β (slope of T4 − T3 over N·s) from the samples with
 * rep in [lo, hi). 0 or -1. */
static int lock_beta_reps(const kcal_raw *raw, const char *lock_pat,
                          const char *copy_pat, double page, long lo,
                          long hi, double *alpha, double *lock, double *beta)
{
    double x[MAXPTS], y[MAXPTS], se[MAXPTS], x4[MAXPTS], y4[MAXPTS],
        se4[MAXPTS], bx[MAXPTS], by[MAXPTS], bs[MAXPTS];
    size_t n = cal_curve_reps(raw, KCAL_PHASE_LOCK, lock_pat, lo, hi, x, y, se);
    size_t n4 = cal_curve_reps(raw, KCAL_PHASE_COPY, copy_pat, lo, hi, x4, y4, se4), nb = 0;
    kcal_linfit lf, bf;
    if (n < 3 || kcal_fit_line(x, y, se, n, &lf) < 0)
        return -1;
    nb = cal_copy_minus_lock(x, y, se, n, x4, y4, se4, n4, page, bx, by, bs);
    if (nb < 3 || kcal_fit_line(bx, by, bs, nb, &bf) < 0)
        return -1;
    *alpha = lf.c0;
    *lock = lf.c1;
    *beta = bf.c1;
    return 0;
}

/* Batch means (fit.h, KCAL_BATCHES): each block of passes fitted alone. */
int cal_batch_se(const kcal_raw *raw, const char *lock_pat,
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

int kcal_calibrate_lock_grows(const kcal_raw *raw, const char *pattern)
{
    double x[MAXPTS], y[MAXPTS], se[MAXPTS];
    size_t n = cal_curve(raw, KCAL_PHASE_LOCK, pattern, x, y, se);
    kcal_linfit lf;
    if (n < 3 || kcal_fit_line(x, y, se, n, &lf) < 0)
        return -1;
    return lf.c1 > 3 * lf.se1 && y[n - 1] > 1.2 * y[0];
}

/* T1 and T2 go into the header only (α includes them); α and l from the
 * T3 curve, their standard errors the larger of the fit's and the batch
 * means'. The T4 pattern β will come from is chosen here: the batch means
 * fit T3 and T4 − T3 of the same block of passes. */
int cal_phases(const kcal_raw *raw, double page, cal_t3 *t3,
               kcal_params *out, kcal_calibrate_notes *notes, char *comment,
               size_t commentlen, char *err, size_t errlen)
{
    /* T1: reported, not a model parameter (α includes it). */
    kcal_stat t1, t2;
    if (cal_point(raw, KCAL_PHASE_SYSCALL, NULL, 0, -1, &t1) == 0)
        cal_cat(comment, commentlen, "T1 syscall (liovcnt = riovcnt = 0): "
                "%.3g s\n", t1.median);
    int have_t2 = cal_point(raw, KCAL_PHASE_STARTUP, NULL, 0, -1, &t2) == 0;
    if (have_t2)
        cal_cat(comment, commentlen, "T2 start-up (1 byte): %.3g s\n",
                t2.median);

    /* α and l: T3(N) = α + l·N (model.md). */
    /* The probe says which T3 it trusted (cma_method); else the current
     * kernel's method when its samples are there. */
    const char *method = kcal_raw_get_meta(raw, KCAL_META_CMA_METHOD);
    const char *lock_pat =
        method && cal_has_pattern(raw, KCAL_PHASE_LOCK, method) ? method
        : cal_has_pattern(raw, KCAL_PHASE_LOCK, KCAL_PATTERN_ONE_BYTE_LOCAL)
            ? KCAL_PATTERN_ONE_BYTE_LOCAL
            : KCAL_PATTERN_LIOVCNT_ZERO;
    double *x = t3->x, *y = t3->y, *se = t3->se;
    size_t n = cal_curve(raw, KCAL_PHASE_LOCK, lock_pat, x, y, se);
    kcal_linfit lf;
    t3->lock_pat = lock_pat;
    t3->n = n;
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
    t3->copy_pat =
        cal_has_pattern(raw, KCAL_PHASE_COPY, KCAL_PATTERN_COLD)
            ? KCAL_PATTERN_COLD
            : KCAL_PATTERN_HOT;
    t3->ba = t3->bl = t3->bb = 0;
    t3->batched = cal_batch_se(raw, lock_pat, t3->copy_pat, page, &t3->ba,
                               &t3->bl, &t3->bb) == 0;
    double alpha = lf.c0;
    double alpha_se = t3->batched ? fmax(lf.se0, t3->ba) : lf.se0;
    double lock_se = t3->batched ? fmax(lf.se1, t3->bl) : lf.se1;
    if (alpha <= 0) {
        /* The intercept is a long extrapolation from 1..1024 pages; the
         * paper's α = T2 is the measured point it stands for. */
        if (!have_t2) {
            kcal_set_err(err, errlen, "T3 intercept %.3g s < 0 and no T2 samples",
                    alpha);
            return -1;
        }
        cal_note(notes, "alpha: the T3 intercept is %.3g s <= 0; using the "
                 "paper's alpha = T2 instead", alpha);
        alpha = t2.median;
        alpha_se = t2.se;
    }
    t3->alpha = alpha;
    t3->lock = lf.c1;
    cal_cat(comment, commentlen, "T3 = alpha + l*N over %zu page counts N = "
            "%g..%g (%s), dof %d\n", n, x[0], x[n - 1], lock_pat, lf.dof);
    if (cal_set_fit(out, "alpha", alpha, alpha_se, err, errlen) < 0 ||
        cal_set_fit(out, "lock", lf.c1, lock_se, err, errlen) < 0 ||
        cal_set_num(out, "page", page, err, errlen) < 0)
        return -1;
    return 0;
}
