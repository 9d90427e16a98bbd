/* calibrate_bandwidth: β and beta_hot, the slope of T4(N) − T3(N) over
 * N·s (model.md), from the copies of probe/bandwidth.c (calibrate_part.h). */
#include "fit/calibrate_part.h"
#include "common/err.h"
#include "fit/fit.h"

#include <math.h>

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
    size_t n4 = cal_curve(raw, KCAL_PHASE_COPY, copy_pat, x4, y4, se4);
    *nb = cal_copy_minus_lock(x, y, se, n, x4, y4, se4, n4, page, bx, by, bs);
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
    int batched = cal_batch_se(raw, lock_pat, KCAL_PATTERN_HOT, page, &ba,
                               &bl, &bb) == 0;
    cal_cat(comment, commentlen, "beta_hot = slope of (T4 - T3) over N*s, %zu "
            "points, hot copies, dof %d (%.3g GB/s)\n", nb, bf.dof, 1e-9 / bf.c1);
    return cal_set_fit(out, "beta_hot", bf.c1,
                       batched ? fmax(bf.se1, bb) : bf.se1, err, errlen);
}

/* β from the T4 pattern calibrate_phases chose (cold, else hot), and
 * beta_hot when the probe also measured the in-cache copies. */
int cal_bandwidth(const kcal_raw *raw, double page, const cal_t3 *t3,
                  kcal_params *out, char *comment, size_t commentlen,
                  char *err, size_t errlen)
{
    /* β: slope of (T4 − T3) over N·s (model.md). */
    kcal_linfit bf;
    size_t nb;
    if (fit_copy_slope(raw, t3->copy_pat, t3->x, t3->y, t3->se, t3->n, page,
                       &bf, &nb, err, errlen) < 0)
        return -1;
    cal_cat(comment, commentlen, "beta = slope of (T4 - T3) over N*s, %zu "
            "points, %s copies, dof %d (%.3g GB/s)\n", nb, t3->copy_pat,
            bf.dof, 1e-9 / bf.c1);
    if (t3->batched)
        cal_cat(comment, commentlen, "stderr of alpha, lock, beta: the larger "
                "of the fit's and the batch-means one (%d time blocks of the "
                "passes: %.2g, %.2g, %.2g)\n", KCAL_BATCHES, t3->ba, t3->bl,
                t3->bb);
    if (cal_set_fit(out, "beta", bf.c1,
                    t3->batched ? fmax(bf.se1, t3->bb) : bf.se1, err,
                    errlen) < 0)
        return -1;
    if (!kcal_raw_get_meta(raw, KCAL_META_BETA_CACHE) &&
        kcal_params_set_text(out, KCAL_META_BETA_CACHE, t3->copy_pat) < 0)
        return -1;
    /* beta_hot (the full model): the same fit on the in-cache copies, when
     * the probe measured them (by default next to the cold ones). */
    if (cal_has_pattern(raw, KCAL_PHASE_COPY, KCAL_PATTERN_HOT) &&
        fit_beta_hot(raw, t3->lock_pat, t3->x, t3->y, t3->se, t3->n, page,
                     out, comment, commentlen, err, errlen) < 0)
        return -1;
    return 0;
}
