/* test_fit: the fitter recovers known parameters from synthetic samples
 * (tests/fit_samples.h makes them and says how each tolerance follows from
 * the noise): the paper model's keys of the default probe (α, l, β, γ,
 * T_sm), the fits of fit/fit.c on exact points, kcal fit --points, and
 * the raw files the fit refuses. The full model's keys are
 * tests/test_fit_full.c's, those fitted from libkcoll's own measured rows
 * tests/test_fit_handoff.c's. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fit/calibrate.h"
#include "tests/check.h"
#include "fit/fit.h"
#include "tests/fit_samples.h"
#include "model/model.h"
#include "fit/raw.h"

/* Standard errors of intercept and slope of an unweighted line fit with
 * equal-variance points of error s at x. */
static void line_se(const double *x, size_t n, double s, double *se0,
                    double *se1)
{
    double mx = 0, sxx = 0;
    for (size_t i = 0; i < n; i++)
        mx += x[i] / n;
    for (size_t i = 0; i < n; i++)
        sxx += (x[i] - mx) * (x[i] - mx);
    *se1 = s / sqrt(sxx);
    *se0 = s * sqrt(1.0 / n + mx * mx / sxx);
}

static void test_recovery(gsl_rng *rng)
{
    kcal_raw r;
    make_samples(&r, rng, 8);
    kcal_params p;
    kcal_params_init(&p);
    kcal_calibrate_notes notes;
    char comment[4096], err[256] = "";
    int rc = kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err, sizeof err);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "fit: %s\n", err);
        return;
    }
    /* α and l: line over N with median errors se_median(SIG). */
    double x[NN], se0, se1, sm = se_median(SIG, REPS);
    for (size_t i = 0; i < NN; i++)
        x[i] = (double)NS[i];
    line_se(x, NN, sm, &se0, &se1);
    CHECK(fabs(p.alpha - ALPHA) < 5 * se0);
    CHECK(fabs(p.lock - LOCK) < 5 * se1);
    double rep_se0 = kcal_params_get(&p, "alpha_stderr", -1);
    double rep_se1 = kcal_params_get(&p, "lock_stderr", -1);
    CHECK(rep_se0 > se0 / 3 && rep_se0 < se0 * 3);
    CHECK(rep_se1 > se1 / 3 && rep_se1 < se1 * 3);
    /* β: line of T4 − T3 over N·s; each point has √2 of the median error. */
    double xb[NN];
    for (size_t i = 0; i < NN; i++)
        xb[i] = NS[i] * PAGE;
    line_se(xb, NN, sqrt(2) * sm, &se0, &se1);
    CHECK(fabs(p.beta - BETA) < 5 * se1);
    double rep_seb = kcal_params_get(&p, "beta_stderr", -1);
    CHECK(rep_seb > se1 / 3 && rep_seb < se1 * 3);
    /* beta_hot: the same fit on the hot copies, same design and noise. */
    double bh = kcal_params_get(&p, "beta_hot", -1);
    CHECK(fabs(bh - BETA_HOT) < 5 * se1);
    double rep_seh = kcal_params_get(&p, "beta_hot_stderr", -1);
    CHECK(rep_seh > se1 / 3 && rep_seh < se1 * 3);
    CHECK(p.beta > 3 * bh); /* the cold β stays the cold one */
    /* sync_step: the median at p = 2, not at p = 3 or 4. */
    double st = kcal_params_get(&p, "sync_step", -1);
    CHECK(fabs(st - STEP) < 5 * se_median(5e-9, REPS));
    CHECK(kcal_params_get(&p, "sync_step_stderr", -1) > 0);
    CHECK(strstr(comment, "beta_hot = slope") != NULL);
    /* γ: 7 contended points, 2 % noise per sample; a loose bound from the
     * median error of γ at the largest c (where a is pinned down). */
    double g8 = gamma_of(8), sg8 = se_median(0.02 * g8, CREPS * 8);
    CHECK(fabs(p.gamma_a - GA) < 5 * sg8 / 16 + 0.02 * GA);
    CHECK(fabs(p.gamma_b - GB) < 5 * sg8 / 2 + 0.02 * GB);
    CHECK(kcal_params_get(&p, "gamma_a_dof", -1) == 5);
    CHECK(kcal_params_get(&p, "gamma_a_stderr", -1) > 0);
    /* T_sm: a + b·log2 p. */
    CHECK_NEAR(kcal_params_get(&p, "sm_bcast_a", -1), 2e-7, 0.05);
    CHECK_NEAR(kcal_params_get(&p, "sm_bcast_b", -1), 1e-7, 0.05);
    CHECK(kcal_params_get(&p, "sm_gather_a", -1) == -1); /* not measured */
    CHECK_STR(kcal_params_find(&p, "beta_cache")->text, "cold");
    CHECK_STR(kcal_params_find(&p, "cma_method")->text, "one_byte_local");
    CHECK(kcal_params_validate(&p, "fit", err, sizeof err) == 0);
    kcal_params_free(&p);
    kcal_raw_free(&r);
}

/* Two cores: one contended point for two parameters. */
static void test_two_cores(gsl_rng *rng)
{
    kcal_raw r;
    make_samples(&r, rng, 2);
    kcal_params p;
    kcal_params_init(&p);
    kcal_calibrate_notes notes;
    char err[256] = "";
    CHECK(kcal_calibrate_params(&r, &p, &notes, NULL, 0, err, sizeof err) == 0);
    CHECK(p.gamma_a == 0);
    CHECK(kcal_params_get(&p, "gamma_a_dof", -1) == 0);
    /* gamma_b = γ(2)/2 within the noise of that one point. */
    double g2 = gamma_of(2);
    CHECK(fabs(p.gamma_b - g2 / 2) < 5 * se_median(0.02 * g2, 2 * CREPS) / 2 + 0.01);
    int said = 0;
    for (int i = 0; i < notes.n; i++)
        said |= strstr(notes.text[i], "not identifiable") != NULL;
    CHECK(said);
    kcal_params_free(&p);
    kcal_raw_free(&r);
}

/* A T3 line whose intercept extrapolates below 0: α falls back to the
 * paper's α = T2 (the measured 1-byte start-up) and says so. */
static void test_alpha_fallback(gsl_rng *rng)
{
    kcal_raw r;
    kcal_raw_init(&r);
    kcal_raw_set_meta(&r, "page", "4096");
    for (int k = 0; k < REPS; k++) {
        kcal_raw_add(&r, "startup", "-", 1, 1, 1, k, 1.4e-6 + gsl_ran_gaussian(rng, SIG));
        for (size_t i = 0; i < NN; i++) {
            double t3 = -1e-7 + LOCK * NS[i]; /* > 0 from N = 1 */
            kcal_raw_add(&r, "lock", "one_byte_local", 1, NS[i], 1, k,
                         t3 + gsl_ran_gaussian(rng, SIG));
            kcal_raw_add(&r, "copy", "hot", 1, NS[i], (long)(NS[i] * PAGE), k,
                         t3 + BETA * NS[i] * PAGE + gsl_ran_gaussian(rng, SIG));
        }
        kcal_raw_add(&r, "contention", "distinct", 2, 256, 1, k, 1e-4);
    }
    kcal_params p;
    kcal_params_init(&p);
    kcal_calibrate_notes notes;
    char comment[4096], err[256] = "";
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err, sizeof err) == 0);
    CHECK(fabs(p.alpha - 1.4e-6) < 5 * se_median(SIG, REPS));
    /* Hot copies only (kcal probe --hot): beta is the hot one, and
     * beta_hot the same fit; no sm_step samples, no sync_step key. */
    CHECK(kcal_params_get(&p, "beta_hot", -1) == p.beta);
    CHECK(kcal_params_find(&p, "sync_step") == NULL);
    int said = 0;
    for (int i = 0; i < notes.n; i++)
        said |= strstr(notes.text[i], "alpha = T2") != NULL;
    CHECK(said);
    CHECK_STR(kcal_params_find(&p, "beta_cache")->text, "hot");
    CHECK(strstr(comment, "T_sm not measured") != NULL);
    CHECK(kcal_params_find(&p, "sm_bcast_a") == NULL);
    kcal_params_free(&p);
    kcal_raw_free(&r);
}

/* H1: a raw file may carry any rep up to 2^30 (the reader's bound); the
 * batch means split [0, reps) in fifths, and k·reps must not overflow an
 * int (UBSan: signed integer overflow: 3 * 880000005). The fit still
 * succeeds; the later blocks are empty, so there are no batch means. */
static void test_huge_rep(gsl_rng *rng)
{
    kcal_raw r;
    make_samples(&r, rng, 4);
    /* The first two fifths of [0, 880000005) hold whole T3/T4 curves, so
     * the batch loop gets to the third one's bounds. */
    for (int k = 0; k < 5; k++)
        for (size_t i = 0; i < NN; i++) {
            double t3 = ALPHA + LOCK * NS[i];
            kcal_raw_add(&r, "lock", "one_byte_local", 1, NS[i], 1,
                         200000000 + k, t3 + gsl_ran_gaussian(rng, SIG));
            kcal_raw_add(&r, "copy", "cold", 1, NS[i], (long)(NS[i] * PAGE),
                         200000000 + k, t3 + BETA * NS[i] * PAGE +
                         gsl_ran_gaussian(rng, SIG));
        }
    CHECK(kcal_raw_add(&r, "lock", "one_byte_local", 1, 1, 1, 880000004,
                       ALPHA + LOCK) == 0);
    kcal_params p;
    kcal_params_init(&p);
    char comment[4096], err[256] = "";
    CHECK(kcal_calibrate_params(&r, &p, NULL, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK(strstr(comment, "batch-means") == NULL);
    CHECK(p.lock > 0);
    kcal_params_free(&p);
    kcal_raw_free(&r);
}

/* H2: `# meta` entries a params file cannot hold are refused by the fit,
 * with the entry and the reason, instead of becoming a params file that
 * kcal fit's own reader refuses. */
static void expect_meta_error(gsl_rng *rng, const char *key, const char *value,
                              const char *want)
{
    kcal_raw r;
    make_samples(&r, rng, 2);
    CHECK(kcal_raw_set_meta(&r, key, value) == 0);
    kcal_params p;
    kcal_params_init(&p);
    char err[512] = "";
    CHECK(kcal_calibrate_params(&r, &p, NULL, NULL, 0, err, sizeof err) < 0);
    if (!strstr(err, want)) {
        fprintf(stderr, "error '%s' lacks '%s'\n", err, want);
        CHECK(0);
    }
    kcal_params_free(&p);
    kcal_raw_free(&r);
}

static void test_meta_checked(gsl_rng *rng)
{
    expect_meta_error(rng, "format", "kcal-params-1",
                      "'# meta format kcal-params-1': 'format' is the file's first line");
    expect_meta_error(rng, "machine", "   ", "'# meta machine    ': has no value");
    expect_meta_error(rng, "page", "0.5", "'# meta page 0.5': page size must be at least 1 byte");
    expect_meta_error(rng, "l3_cache", "big", "'# meta l3_cache big': is not a number");
    expect_meta_error(rng, "alpha", "1", "'# meta alpha 1': is a numeric key");
    expect_meta_error(rng, "cpu", "a # b", "has a '#'");
    /* The raw store itself refuses what its reader would. */
    kcal_raw r;
    kcal_raw_init(&r);
    CHECK(kcal_raw_set_meta(&r, "cpu", "") < 0);
    CHECK(kcal_raw_set_meta(&r, "cpu", "x\r") < 0);
    kcal_raw_free(&r);
}

/* kcal fit --points: one row per point in the order points first appear,
 * n and the median over all of its samples wherever they are. */
static void test_points(void)
{
    kcal_raw r;
    kcal_raw_init(&r);
    kcal_raw_add(&r, "lock", "one_byte_local", 1, 8, 1, 0, 3e-6);
    kcal_raw_add(&r, "copy", "cold", 1, 8, 32768, 0, 9e-6);
    kcal_raw_add(&r, "lock", "one_byte_local", 1, 4, 1, 0, 2e-6);
    kcal_raw_add(&r, "lock", "one_byte_local", 1, 8, 1, 1, 5e-6);
    kcal_raw_add(&r, "lock", "liovcnt_zero", 1, 8, 0, 0, 1e-6);
    kcal_raw_add(&r, "copy", "cold", 1, 8, 32768, 1, 7e-6);
    kcal_raw_add(&r, "lock", "one_byte_local", 1, 8, 1, 2, 4e-6);
    kcal_raw_add(&r, "contention", "distinct", 2, 8, 1, 0, 6e-6);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    CHECK(kcal_calibrate_write_points(m, &r) == 0);
    fclose(m);
    CHECK_STR(buf, KCAL_POINTS_HEADER "\n"
              "lock,one_byte_local,1,8,1,3,4e-06,1.4826e-06,1.07281e-06\n"
              "copy,cold,1,8,32768,2,8e-06,1.4826e-06,1.31392e-06\n"
              "lock,one_byte_local,1,4,1,1,2e-06,0,0\n"
              "lock,liovcnt_zero,1,8,0,1,1e-06,0,0\n"
              "contention,distinct,2,8,1,1,6e-06,0,0\n");
    free(buf);
    kcal_raw_free(&r);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* H11: --points compared every sample with every later one: 5.3 s for
 * 100k distinct points. Near-linear now (sorted): well under a second. */
static void test_points_fast(void)
{
    kcal_raw r;
    kcal_raw_init(&r);
    for (long i = 0; i < 100000; i++)
        kcal_raw_add(&r, "lock", "one_byte_local", 1, 100000 - i, 1, 0, 1e-6);
    FILE *f = fopen("/dev/null", "w");
    double t0 = now_s();
    CHECK(kcal_calibrate_write_points(f, &r) == 0);
    double dt = now_s() - t0;
    fclose(f);
    if (dt > 1.5)
        fprintf(stderr, "--points of 100k points took %.1f s\n", dt);
    CHECK(dt < 1.5);
    kcal_raw_free(&r);
}

static void test_gamma_direct(void)
{
    double c[] = {2, 3, 4, 5, 6}, g[5], s[5] = {0.01, 0.01, 0.01, 0.01, 0.01};
    for (int i = 0; i < 5; i++)
        g[i] = gamma_of(c[i]);
    kcal_gammafit gf;
    CHECK(kcal_fit_gamma(c, g, s, 5, &gf) == 0);
    CHECK_NEAR(gf.a, GA, 1e-6);
    CHECK_NEAR(gf.b, GB, 1e-6);
    CHECK(gf.dof == 3 && !gf.fixed_a && !gf.fixed_b);
    /* Concave data: the free fit wants a < 0; the bound holds it at 0. */
    for (int i = 0; i < 5; i++)
        g[i] = 2 * c[i] - 0.1 * c[i] * c[i];
    CHECK(kcal_fit_gamma(c, g, s, 5, &gf) == 0);
    CHECK(gf.free_a < 0);
    CHECK(gf.fixed_a && gf.a == 0 && gf.se_a == 0);
    CHECK(gf.b > 0 && gf.dof == 4);
}

static void test_stat_and_growth(gsl_rng *rng)
{
    double x[] = {5, 1, 3, 100, 2};
    kcal_stat st;
    CHECK(kcal_stat_robust(x, 5, &st) == 0);
    CHECK(st.median == 3);
    /* |x - 3| = 2, 2, 0, 97, 1: MAD 2, whatever the 100 is. */
    CHECK_NEAR(st.spread, 1.4826 * 2, 1e-12);
    CHECK(kcal_stat_robust(x, 0, &st) < 0);

    kcal_raw r;
    kcal_raw_init(&r);
    for (size_t i = 0; i < NN; i++)
        for (int k = 0; k < 9; k++) {
            kcal_raw_add(&r, "lock", "one_byte_local", 1, NS[i], 1, k,
                         ALPHA + gsl_ran_gaussian(rng, SIG));
            kcal_raw_add(&r, "lock", "liovcnt_zero", 1, NS[i], 0, k,
                         ALPHA + LOCK * NS[i] + gsl_ran_gaussian(rng, SIG));
        }
    CHECK(kcal_calibrate_lock_grows(&r, "one_byte_local") == 0);
    CHECK(kcal_calibrate_lock_grows(&r, "liovcnt_zero") == 1);
    CHECK(kcal_calibrate_lock_grows(&r, "none") == -1);
    kcal_raw_free(&r);
}

/* --points keeps the MPI collectives' sizes apart (pages 0, bytes n). */
static void test_points_bytes(void)
{
    kcal_raw r;
    kcal_raw_init(&r);
    kcal_raw_add(&r, "mpi_gather", "mpi", 2, 0, 256, 0, 1e-6);
    kcal_raw_add(&r, "mpi_gather", "mpi", 2, 0, 1024, 0, 2e-6);
    kcal_raw_add(&r, "mpi_gather", "mpi", 2, 0, 256, 1, 3e-6);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    CHECK(kcal_calibrate_write_points(m, &r) == 0);
    fclose(m);
    CHECK_STR(buf, KCAL_POINTS_HEADER "\n"
              "mpi_gather,mpi,2,0,256,2,2e-06,1.4826e-06,1.31392e-06\n"
              "mpi_gather,mpi,2,0,1024,1,2e-06,0,0\n");
    free(buf);
    kcal_raw_free(&r);
}

/* kcal_fit_hinge on exact points: a kink between two sizes is found where
 * it is; a flat line holds C at the smallest x; bad input is refused. */
static void test_hinge_direct(void)
{
    double x[8], y[8], sg[8];
    for (int i = 0; i < 8; i++) {
        x[i] = 16384.0 * (1 << i);
        y[i] = 4e-11 * fmin(x[i], 300e3);
        sg[i] = 1e-8;
    }
    kcal_hingefit hf;
    CHECK(kcal_fit_hinge(x, y, sg, 8, &hf) == 0);
    CHECK_NEAR(hf.e, 4e-11, 1e-6);
    CHECK_NEAR(hf.c, 300e3, 1e-6);
    CHECK(hf.held_c == 0 && hf.dof == 6);
    for (int i = 0; i < 8; i++)
        y[i] = 2e-6;
    CHECK(kcal_fit_hinge(x, y, sg, 8, &hf) == 0);
    CHECK(hf.held_c == -1 && hf.c == x[0] && hf.se_c == 0);
    CHECK_NEAR(hf.e * hf.c, 2e-6, 1e-9);
    for (int i = 0; i < 8; i++)
        y[i] = 0;
    CHECK(kcal_fit_hinge(x, y, sg, 8, &hf) < 0);
    sg[3] = 0;
    y[0] = 1;
    CHECK(kcal_fit_hinge(x, y, sg, 8, &hf) < 0);
    CHECK(kcal_fit_hinge(x, y, sg, 1, &hf) < 0);
}

int main(void)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 20171);
    test_recovery(rng);
    test_two_cores(rng);
    test_gamma_direct();
    test_huge_rep(rng);
    test_meta_checked(rng);
    test_points();
    test_points_fast();
    test_alpha_fallback(rng);
    test_stat_and_growth(rng);
    test_points_bytes();
    test_hinge_direct();
    gsl_rng_free(rng);
    return check_report();
}
