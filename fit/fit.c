/* fit: robust statistics and the GSL fits of the model's parameters (see
 * fit.h). */
#include "fit/fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* GSL's default handler aborts the process; library code must return. */
static void gsl_quiet(void)
{
    gsl_set_error_handler_off();
}

int kcal_stat_robust(const double *x, size_t n, kcal_stat *out)
{
    if (n == 0)
        return -1;
    double *s = malloc(n * sizeof *s), *d = malloc(n * sizeof *d);
    if (!s || !d) {
        free(s);
        free(d);
        return -1;
    }
    memcpy(s, x, n * sizeof *s);
    gsl_sort(s, 1, n);
    out->median = gsl_stats_median_from_sorted_data(s, 1, n);
    for (size_t i = 0; i < n; i++)
        d[i] = fabs(s[i] - out->median);
    gsl_sort(d, 1, n);
    /* 1.4826·MAD: a robust σ (exact for normal noise). */
    out->spread = 1.4826 * gsl_stats_median_from_sorted_data(d, 1, n);
    out->se = sqrt(M_PI / 2) * out->spread / sqrt((double)n);
    out->n = n;
    free(s);
    free(d);
    return 0;
}

int kcal_fit_line(const double *x, const double *y, const double *sigma,
                  size_t n, kcal_linfit *out)
{
    gsl_quiet();
    memset(out, 0, sizeof *out);
    if (n < 2)
        return -1;
    double c00, c01, c11, chisq;
    int rc;
    if (sigma) {
        double *w = malloc(n * sizeof *w);
        if (!w)
            return -1;
        for (size_t i = 0; i < n; i++)
            w[i] = 1.0 / (sigma[i] * sigma[i]);
        rc = gsl_fit_wlinear(x, 1, w, 1, y, 1, n, &out->c0, &out->c1, &c00,
                             &c01, &c11, &chisq);
        free(w);
    } else {
        rc = gsl_fit_linear(x, 1, y, 1, n, &out->c0, &out->c1, &c00, &c01,
                            &c11, &chisq);
    }
    if (rc != GSL_SUCCESS || !isfinite(out->c0) || !isfinite(out->c1))
        return -1;
    out->dof = (int)n - 2;
    out->chisq = chisq;
    /* gsl_fit_linear already scales by χ²/dof; the weighted one does not. */
    double scale = 1;
    if (sigma && out->dof > 0 && chisq / out->dof > 1)
        scale = chisq / out->dof;
    out->se0 = sqrt(c00 * scale);
    out->se1 = sqrt(c11 * scale);
    return 0;
}

int kcal_fit_const(const double *y, const double *sigma, size_t n,
                   double *c0, double *se0)
{
    if (n == 0)
        return -1;
    double sw = 0, swy = 0, chisq = 0;
    for (size_t i = 0; i < n; i++) {
        double w = 1 / (sigma[i] * sigma[i]);
        sw += w;
        swy += w * y[i];
    }
    *c0 = swy / sw;
    for (size_t i = 0; i < n; i++)
        chisq += pow((y[i] - *c0) / sigma[i], 2);
    double scale = n > 1 && chisq / (double)(n - 1) > 1 ? chisq / (double)(n - 1) : 1;
    *se0 = sqrt(scale / sw);
    return 0;
}

int kcal_fit_origin(const double *x, const double *y, const double *sigma,
                    size_t n, double *c1, double *se1)
{
    gsl_quiet();
    if (n == 0)
        return -1;
    double *w = malloc(n * sizeof *w);
    double cov = 0, sumsq = 0;
    if (!w)
        return -1;
    for (size_t i = 0; i < n; i++)
        w[i] = 1 / (sigma[i] * sigma[i]);
    gsl_fit_wmul(x, 1, w, 1, y, 1, n, c1, &cov, &sumsq);
    free(w);
    double scale = n > 1 && sumsq / (double)(n - 1) > 1 ? sumsq / (double)(n - 1) : 1;
    *se1 = sqrt(cov * scale);
    return 0;
}

int kcal_fit_nondecreasing(const double *y, const double *sigma, size_t n,
                           double *out)
{
    if (n == 0)
        return -1;
    /* Blocks of pooled points: weighted sum, weight, first index. */
    double *sum = malloc(n * sizeof *sum), *wt = malloc(n * sizeof *wt);
    size_t *first = malloc(n * sizeof *first);
    if (!sum || !wt || !first) {
        free(sum);
        free(wt);
        free(first);
        return -1;
    }
    size_t nb = 0;
    for (size_t i = 0; i < n; i++) {
        double w = 1 / (sigma[i] * sigma[i]);
        sum[nb] = y[i] * w, wt[nb] = w, first[nb++] = i;
        /* Pool while the last block's mean is below the one before. */
        while (nb > 1 && sum[nb - 2] / wt[nb - 2] > sum[nb - 1] / wt[nb - 1]) {
            sum[nb - 2] += sum[nb - 1];
            wt[nb - 2] += wt[nb - 1];
            nb--;
        }
    }
    int changed = 0;
    for (size_t b = 0; b < nb; b++) {
        size_t end = b + 1 < nb ? first[b + 1] : n;
        double mean = sum[b] / wt[b];
        for (size_t i = first[b]; i < end; i++) {
            changed += y[i] != mean;
            out[i] = mean;
        }
    }
    free(sum);
    free(wt);
    free(first);
    return changed;
}

/* ---- Levenberg–Marquardt (gsl_multifit_nlinear) ------------------------- */

/* The result of one LM run: the position, each parameter's standard error
 * (its covariance scaled by max(1, χ²/dof), as kcal_fit_line's), χ² and
 * dof = n − p. */
#define LM_MAXP 2
typedef struct {
    double x[LM_MAXP], se[LM_MAXP], chisq;
    int dof;
} lm_result;

/* Weighted LM (weights w, n residuals f of p ≤ LM_MAXP parameters from
 * x0, Jacobian df) to GSL's tolerance tol, up to 200 iterations (running
 * out of them keeps the position reached). 0, or -1 when GSL fails or the
 * position is not finite. */
static int lm_fit(int (*f)(const gsl_vector *, void *, gsl_vector *),
                  int (*df)(const gsl_vector *, void *, gsl_matrix *),
                  void *params, size_t n, size_t p, const double *x0,
                  const double *w, double tol, lm_result *out)
{
    if (p == 0 || p > LM_MAXP || n < p)
        return -1;
    gsl_multifit_nlinear_fdf fdf = {0};
    fdf.f = f;
    fdf.df = df;
    fdf.fvv = NULL;
    fdf.n = n;
    fdf.p = p;
    fdf.params = params;
    gsl_multifit_nlinear_parameters par =
        gsl_multifit_nlinear_default_parameters();
    gsl_multifit_nlinear_workspace *ws =
        gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &par, n, p);
    gsl_vector *start = gsl_vector_alloc(p), *wts = gsl_vector_alloc(n);
    gsl_matrix *cov = gsl_matrix_alloc(p, p);
    int rc = -1, info;
    if (!ws || !start || !wts || !cov)
        goto done;
    for (size_t k = 0; k < p; k++)
        gsl_vector_set(start, k, x0[k]);
    for (size_t i = 0; i < n; i++)
        gsl_vector_set(wts, i, w[i]);
    if (gsl_multifit_nlinear_winit(start, wts, &fdf, ws) != GSL_SUCCESS)
        goto done;
    int st = gsl_multifit_nlinear_driver(200, tol, tol, tol, NULL, NULL,
                                         &info, ws);
    if (st != GSL_SUCCESS && st != GSL_EMAXITER)
        goto done;
    if (gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(ws), 0.0, cov) !=
        GSL_SUCCESS)
        goto done;
    gsl_vector *res = gsl_multifit_nlinear_residual(ws);
    gsl_blas_ddot(res, res, &out->chisq);
    out->dof = (int)(n - p);
    double scale = out->dof > 0 && out->chisq / out->dof > 1
                       ? out->chisq / out->dof
                       : 1;
    gsl_vector *pos = gsl_multifit_nlinear_position(ws);
    rc = 0;
    for (size_t k = 0; k < p; k++) {
        out->x[k] = gsl_vector_get(pos, k);
        out->se[k] = sqrt(gsl_matrix_get(cov, k, k) * scale);
        if (!isfinite(out->x[k]))
            rc = -1;
    }
done:
    if (ws)
        gsl_multifit_nlinear_free(ws);
    gsl_vector_free(start);
    gsl_vector_free(wts);
    gsl_matrix_free(cov);
    return rc;
}

/* ---- γ(c) by Levenberg–Marquardt --------------------------------------- */

typedef struct {
    const double *c, *g;
    size_t n;
    int fixed_a, fixed_b; /* which parameter is held at 0 */
} gamma_data;

static void gamma_ab(const gsl_vector *x, const gamma_data *d, double *a,
                     double *b)
{
    size_t k = 0;
    *a = d->fixed_a ? 0 : gsl_vector_get(x, k++);
    *b = d->fixed_b ? 0 : gsl_vector_get(x, k);
}

static int gamma_f(const gsl_vector *x, void *data, gsl_vector *f)
{
    const gamma_data *d = data;
    double a, b;
    gamma_ab(x, d, &a, &b);
    for (size_t i = 0; i < d->n; i++)
        gsl_vector_set(f, i, a * d->c[i] * d->c[i] + b * d->c[i] - d->g[i]);
    return GSL_SUCCESS;
}

static int gamma_df(const gsl_vector *x, void *data, gsl_matrix *J)
{
    const gamma_data *d = data;
    (void)x;
    for (size_t i = 0; i < d->n; i++) {
        size_t k = 0;
        if (!d->fixed_a)
            gsl_matrix_set(J, i, k++, d->c[i] * d->c[i]);
        if (!d->fixed_b)
            gsl_matrix_set(J, i, k, d->c[i]);
    }
    return GSL_SUCCESS;
}

/* One LM run with the free parameters of d. Returns 0 or -1. */
static int gamma_lm(gamma_data *d, const double *sigma, kcal_gammafit *out)
{
    size_t p = (size_t)(!d->fixed_a + !d->fixed_b), n = d->n, k = 0;
    if (n < p || p == 0)
        return -1;
    /* Start from the paper's shape: a little quadratic, mostly linear. */
    double x0[LM_MAXP];
    if (!d->fixed_a)
        x0[k++] = 0.1;
    if (!d->fixed_b)
        x0[k] = 1.0;
    double *w = malloc(n * sizeof *w);
    if (!w)
        return -1;
    for (size_t i = 0; i < n; i++)
        w[i] = 1 / (sigma[i] * sigma[i]);
    lm_result r;
    int rc = lm_fit(gamma_f, gamma_df, d, n, p, x0, w, 1e-12, &r);
    free(w);
    if (rc < 0)
        return -1;
    out->chisq = r.chisq;
    out->dof = r.dof;
    k = 0;
    out->a = d->fixed_a ? 0 : r.x[k];
    out->se_a = d->fixed_a ? 0 : r.se[k];
    if (!d->fixed_a)
        k++;
    out->b = d->fixed_b ? 0 : r.x[k];
    out->se_b = d->fixed_b ? 0 : r.se[k];
    out->fixed_a = d->fixed_a;
    out->fixed_b = d->fixed_b;
    return 0;
}

int kcal_fit_gamma(const double *c, const double *g, const double *sigma,
                   size_t n, kcal_gammafit *out)
{
    gsl_quiet();
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < n; i++)
        if (!(sigma[i] > 0) || !isfinite(g[i]))
            return -1;
    gamma_data d = {c, g, n, 0, 0};
    if (n == 1) { /* one point, two parameters: a is not identifiable */
        d.fixed_a = 1;
        if (gamma_lm(&d, sigma, out) < 0)
            return -1;
        out->free_a = NAN;
        out->free_b = out->b;
        return 0;
    }
    if (gamma_lm(&d, sigma, out) < 0)
        return -1;
    out->free_a = out->a;
    out->free_b = out->b;
    if (out->a >= 0 && out->b >= 0)
        return 0;
    /* Bound active: hold the negative parameter at 0, re-fit the other. */
    double fa = out->free_a, fb = out->free_b;
    d.fixed_a = fa < 0;
    d.fixed_b = !d.fixed_a && fb < 0;
    if (gamma_lm(&d, sigma, out) < 0)
        return -1;
    out->free_a = fa;
    out->free_b = fb;
    if (out->a < 0 || out->b < 0) { /* γ falls with c: nothing to fit */
        out->a = out->b = 0;
        out->se_a = out->se_b = 0;
        out->fixed_a = out->fixed_b = 1;
    }
    return 0;
}

/* ---- the hinge e·min(N, C) by Levenberg–Marquardt ---------------------- */

typedef struct {
    const double *x, *y; /* scaled: x / x_max, y / |y|_max */
    size_t n;
} hinge_data;

static int hinge_f(const gsl_vector *p, void *data, gsl_vector *f)
{
    const hinge_data *d = data;
    double e = gsl_vector_get(p, 0), c = gsl_vector_get(p, 1);
    for (size_t i = 0; i < d->n; i++)
        gsl_vector_set(f, i, e * fmin(d->x[i], c) - d->y[i]);
    return GSL_SUCCESS;
}

static int hinge_df(const gsl_vector *p, void *data, gsl_matrix *J)
{
    const hinge_data *d = data;
    double e = gsl_vector_get(p, 0), c = gsl_vector_get(p, 1);
    for (size_t i = 0; i < d->n; i++) {
        gsl_matrix_set(J, i, 0, fmin(d->x[i], c));
        gsl_matrix_set(J, i, 1, d->x[i] > c ? e : 0);
    }
    return GSL_SUCCESS;
}

/* The weighted slope through the origin of y over min(x, c), and its χ². */
static double hinge_slope(const double *x, const double *y, const double *w,
                          size_t n, double c, double *chisq)
{
    double sxy = 0, sxx = 0;
    for (size_t i = 0; i < n; i++) {
        double m = fmin(x[i], c);
        sxy += w[i] * m * y[i];
        sxx += w[i] * m * m;
    }
    double e = sxx > 0 ? sxy / sxx : 0;
    *chisq = 0;
    for (size_t i = 0; i < n; i++)
        *chisq += w[i] * pow(e * fmin(x[i], c) - y[i], 2);
    return e;
}

/* LM from (e0, c0), scaled units. 0 or -1. */
static int hinge_lm(hinge_data *d, const double *w, double e0, double c0,
                    kcal_hingefit *out)
{
    const double x0[2] = {e0, c0};
    lm_result r;
    if (lm_fit(hinge_f, hinge_df, d, d->n, 2, x0, w, 1e-10, &r) < 0)
        return -1;
    out->chisq = r.chisq;
    out->dof = r.dof;
    out->e = r.x[0];
    out->c = r.x[1];
    out->se_e = r.se[0];
    out->se_c = r.se[1];
    return 0;
}

int kcal_fit_hinge(const double *x, const double *y, const double *sigma,
                   size_t n, kcal_hingefit *out)
{
    gsl_quiet();
    memset(out, 0, sizeof *out);
    if (n < 2)
        return -1;
    double xmin = INFINITY, xmax = 0, ymax = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(sigma[i] > 0) || !isfinite(y[i]) || !(x[i] > 0) ||
            !isfinite(x[i]))
            return -1;
        xmin = fmin(xmin, x[i]);
        xmax = fmax(xmax, x[i]);
        ymax = fmax(ymax, fabs(y[i]));
    }
    if (!(ymax > 0))
        return -1;
    /* Both parameters of order 1: LM's steps and GSL's tolerances are
     * then meaningful (e ~ 5e-11 s/B and C ~ 5e5 B are not). */
    double *xs = malloc(n * sizeof *xs), *ys = malloc(n * sizeof *ys),
           *w = malloc(n * sizeof *w), *sorted = malloc(n * sizeof *sorted);
    int rc = -1;
    if (!xs || !ys || !w || !sorted)
        goto done;
    for (size_t i = 0; i < n; i++) {
        xs[i] = x[i] / xmax;
        ys[i] = y[i] / ymax;
        w[i] = pow(ymax / sigma[i], 2);
        sorted[i] = xs[i];
    }
    gsl_sort(sorted, 1, n);
    /* The start: the best C among the measured x and the geometric
     * midpoints between neighbours. */
    double best_c = sorted[n - 1], best_chi = INFINITY, chi;
    for (size_t i = 0; i < 2 * n - 1; i++) {
        double c = i % 2 == 0 ? sorted[i / 2]
                              : sqrt(sorted[i / 2] * sorted[i / 2 + 1]);
        hinge_slope(xs, ys, w, n, c, &chi);
        if (chi < best_chi)
            best_chi = chi, best_c = c;
    }
    double xs_min = xmin / xmax;
    hinge_data d = {xs, ys, n};
    int beyond = 1;
    if (best_c < 1) {
        double e0 = hinge_slope(xs, ys, w, n, best_c, &chi);
        if (hinge_lm(&d, w, e0, best_c, out) < 0)
            goto done;
        if (out->c > xs_min && out->c < 1) {
            out->e *= ymax / xmax;
            out->se_e *= ymax / xmax;
            out->c *= xmax;
            out->se_c *= xmax;
            rc = 0;
            goto done;
        }
        beyond = out->c >= 1;
    }
    /* C at or beyond an end of the measured range: hold it there. */
    double c = beyond ? 1 : xs_min, e, se;
    double *m = malloc(n * sizeof *m), *ss = malloc(n * sizeof *ss);
    if (!m || !ss) {
        free(m);
        free(ss);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        m[i] = fmin(xs[i], c);
        ss[i] = sigma[i] / ymax;
    }
    rc = kcal_fit_origin(m, ys, ss, n, &e, &se);
    free(m);
    free(ss);
    if (rc < 0)
        goto done;
    hinge_slope(xs, ys, w, n, c, &out->chisq);
    out->dof = (int)n - 1;
    out->e = e * ymax / xmax;
    out->se_e = se * ymax / xmax;
    out->c = c * xmax;
    out->se_c = 0;
    out->held_c = beyond ? 1 : -1;
done:
    free(xs);
    free(ys);
    free(w);
    free(sorted);
    return rc;
}

double kcal_fit_batch_se(const double *est, size_t k)
{
    return gsl_stats_sd(est, 1, k) / sqrt((double)k);
}
