/* fit: the statistics and least-squares fits behind the model's parameters,
 * all with GSL, on plain arrays (no raw samples, no params: calibrate.h
 * assembles those).
 *
 * Owns the robust per-point statistic, the straight-line fits (weighted,
 * through the origin, a constant), the Levenberg–Marquardt fit of the
 * contention factor γ(c) = gamma_a·c² + gamma_b·c (gsl_multifit_nlinear, as
 * the paper's Fig. 5), the hinge e·min(N, C) of lines read just after
 * another core wrote them, and the batch-means standard error.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_FIT_H
#define KCAL_FIT_H

#include <stddef.h>

/* Robust statistic of one point: the median, the spread as a robust
 * standard deviation (1.4826·MAD, which equals σ for normal noise and
 * ignores the few samples a busy machine inflates), and the standard error
 * of the median (√(π/2)·σ/√n). */
typedef struct {
    double median, spread, se;
    size_t n;
} kcal_stat;

/* 0, or -1 when n == 0 (or out of memory). x is not modified. */
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

/* The one-parameter fits left when a bound holds the other parameter at 0,
 * weighted by sigma (required, > 0; n >= 1), standard errors scaled by
 * max(1, χ²/(n − 1)):
 *   kcal_fit_const   y = c0 (the weighted mean; slope held at 0)
 *   kcal_fit_origin  y = c1·x (gsl_fit_wmul; intercept held at 0)
 * 0, or -1 (out of memory). */
int kcal_fit_const(const double *y, const double *sigma, size_t n,
                   double *c0, double *se0);
int kcal_fit_origin(const double *x, const double *y, const double *sigma,
                    size_t n, double *c1, double *se1);

/* The weighted least-squares non-decreasing sequence closest to y, taken
 * in the order given (isotonic regression by pooling adjacent violators),
 * weights 1/σ² (sigma required, > 0): runs that fall are replaced by
 * their weighted mean. out may be y. GSL has no isotonic fit. Returns the
 * number of points whose value changed, or -1 (n == 0, out of memory). */
int kcal_fit_nondecreasing(const double *y, const double *sigma, size_t n,
                           double *out);

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

/* d(N) = e·min(N, C): a slope e up to a size C, flat beyond it (the extra
 * time of reading lines another core just wrote: only the last C bytes
 * the writer wrote are still modified in its cache). Weighted by sigma
 * (required, > 0; n >= 2), by Levenberg–Marquardt (gsl_multifit_nlinear)
 * in units of the largest x and the largest |y|, started from the best C
 * of a search over the measured x and the points between them (the
 * model has a kink, and a start beyond the data has no gradient in C).
 * C is kept within the measured x: a C beyond the largest x (the extra
 * still grows at the end) is held there (held_c = 1: a lower bound) and e
 * fitted through the origin; a C below the smallest x (flat everywhere)
 * is held there (held_c = -1) and e·C is the weighted mean. A held C has
 * se_c 0. Covariance (JᵀWJ)⁻¹ scaled by max(1, χ²/dof). 0, or -1 (bad
 * input, all y 0, or the fit failed). */
typedef struct {
    double e, c, se_e, se_c, chisq;
    int dof, held_c;
} kcal_hingefit;

int kcal_fit_hinge(const double *x, const double *y, const double *sigma,
                   size_t n, kcal_hingefit *out);

/* Batch means: a fit's standard errors assume independent samples, but a
 * machine drifts (other jobs, the host's memory bandwidth). Fitting each of
 * k blocks of samples taken in time order separately shows that drift; the
 * standard error of the whole fit is then sd(estimates)/√k. est holds the
 * k block estimates (k >= 2). */
double kcal_fit_batch_se(const double *est, size_t k);

#endif
