/* fit: from raw probe samples to model parameters, with GSL.
 *
 * Owns the robust per-point statistic, the linear least-squares fits of
 * α, l, β and T_sm_X (gsl_fit_wlinear), the Levenberg–Marquardt fit of the
 * contention factor γ(c) = gamma_a·c² + gamma_b·c (gsl_multifit_nlinear,
 * as the paper's Fig. 5), and kcal_fit_raw, which turns a whole kcal_raw
 * into a params set. `kcal probe` and `kcal fit` both end in kcal_fit_raw,
 * so re-fitting a saved raw file gives the same params file.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_FIT_H
#define KCAL_FIT_H

#include <stddef.h>
#include <stdio.h>

#include "params.h"
#include "raw.h"

/* Robust statistic of one point: the median, the spread as a robust
 * standard deviation (1.4826·MAD, which equals σ for normal noise and
 * ignores the few samples a busy machine inflates), and the standard error
 * of the median (√(π/2)·σ/√n). */
typedef struct {
    double median, spread, se;
    size_t n;
} kcal_stat;

/* 0, or -1 when n == 0. x is not modified. */
int kcal_stat_robust(const double *x, size_t n, kcal_stat *out);

/* y = c0 + c1·x. With sigma (may be NULL) a weighted fit, w = 1/σ². The
 * covariance is scaled by max(1, χ²/dof): the σ are estimates, and a misfit
 * larger than them must show in the standard errors. */
typedef struct {
    double c0, c1, se0, se1, chisq;
    int dof;
} kcal_linfit;

int kcal_fit_line(const double *x, const double *y, const double *sigma,
                  size_t n, kcal_linfit *out);

/* γ(c) = a·c² + b·c by Levenberg–Marquardt, weighted by sigma (required,
 * > 0). Both parameters are bounded below by 0 (model.md: params are >= 0):
 * when the free fit gives a negative one, it is fixed at 0 and the other is
 * re-fitted (an active-set bound; fixed_a/fixed_b say so, and its standard
 * error is 0). Covariance (JᵀWJ)⁻¹, scaled by max(1, χ²/dof) when dof > 0;
 * with dof == 0 the standard errors come from the measurement spread only.
 * With a single point (n == 1) a is not identifiable: it is held at 0 and b
 * fitted (fixed_a set, dof 0, free_a NaN). */
typedef struct {
    double a, b, se_a, se_b, chisq;
    double free_a, free_b; /* the unconstrained fit */
    int dof, fixed_a, fixed_b;
} kcal_gammafit;

int kcal_fit_gamma(const double *c, const double *g, const double *sigma,
                   size_t n, kcal_gammafit *out);

/* Messages about the fit (what was constrained, what was extrapolated),
 * for the caller to print on stderr. */
#define KCAL_FIT_MAX_NOTES 24
typedef struct {
    char text[KCAL_FIT_MAX_NOTES][320];
    int n;
} kcal_fit_notes;

/* Fit every parameter from raw samples and copy the metadata (`# meta`
 * entries) into out (initialised by the caller, normally empty). comment
 * (may be NULL) receives a summary for the params file's `#` header: the
 * measured points (T1, γ(c) per pattern, T_sm per p). Returns 0, or -1 with
 * a message naming what is missing in err. */
int kcal_fit_raw(const kcal_raw *raw, kcal_params *out, kcal_fit_notes *notes,
                 char *comment, size_t commentlen, char *err, size_t errlen);

/* The per-point statistics behind the fit, as CSV:
 *   phase,pattern,readers,pages,bytes,n,median_s,spread_s,se_s
 * one row per distinct (phase, pattern, readers, pages), in the order the
 * points first appear. 0, or -1 (out of memory or a write error). */
#define KCAL_POINTS_HEADER \
    "phase,pattern,readers,pages,bytes,n,median_s,spread_s,se_s"
int kcal_fit_write_points(FILE *f, const kcal_raw *raw);

/* Does T3 grow with N? Slope of the medians of phase `lock`/pattern over N
 * (weighted fit) more than 3 standard errors above 0 and T3(Nmax) at least
 * 1.2·T3(Nmin). 1 yes, 0 no, -1 too few points. */
int kcal_fit_lock_grows(const kcal_raw *raw, const char *pattern);

#endif
