/* test_fit_full: the fit recovers the full model's keys (model.md
 * "Beyond the paper") from synthetic samples (tests/fit_samples.h): the
 * cache knee and β(working set), made non-decreasing; memcpy's rate per
 * working set; the write keys; concurrent copies (conc_hot, conc_cold)
 * and mutual calls (cma_mutual); lines another core just wrote
 * (dirty_beta, dirty_bytes) and chunks passed between cores (pass_*);
 * the reductions' op (reduce_beta, reduce_<op>_<class>_beta): its plan,
 * the helper's lines, the fit. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fit/calibrate.h"
#include "tests/check.h"
#include "fit/fit.h"
#include "tests/fit_samples.h"
#include "model/model.h"
#include "fit/raw.h"
#include "probe/reduce.h"

/* β(W) is made non-decreasing (isotonic regression): the pooling itself,
 * and a probe's curve with a spike at 2M pooled with its neighbours, a
 * note saying so; a curve that rises is left as measured. */
static void test_ws_monotone(gsl_rng *rng)
{
    const double y[] = {1, 3, 2, 4}, one[] = {1, 1, 1, 1};
    double out[4];
    CHECK(kcal_fit_nondecreasing(y, one, 4, out) == 2);
    CHECK(out[0] == 1 && out[1] == 2.5 && out[2] == 2.5 && out[3] == 4);
    /* weights 1/σ²: 3 (w 1) and 2 (w 4) pool to (3 + 8)/5 = 2.2 */
    const double y3[] = {1, 3, 2}, s3[] = {1, 1, 0.5};
    CHECK(kcal_fit_nondecreasing(y3, s3, 3, out) == 2);
    CHECK_NEAR(out[1], 2.2, 1e-12);
    CHECK_NEAR(out[2], 2.2, 1e-12);
    /* falling all the way: one weighted mean; rising: unchanged */
    const double down[] = {4, 3, 2, 1};
    CHECK(kcal_fit_nondecreasing(down, one, 4, out) == 4);
    CHECK(out[0] == 2.5 && out[3] == 2.5);
    CHECK(kcal_fit_nondecreasing(y, one, 1, out) == 0 && out[0] == 1);
    const double up[] = {1, 1, 2, 5};
    CHECK(kcal_fit_nondecreasing(up, one, 4, out) == 0);
    CHECK(kcal_fit_nondecreasing(up, one, 0, out) == -1);

    kcal_raw r;
    make_samples(&r, rng, 2);
    for (int k = 0; k < REPS; k++)
        add_ws_samples_spiked(&r, rng, k, 4);
    kcal_params p;
    kcal_params_init(&p);
    kcal_calibrate_notes notes;
    char comment[8192], err[256] = "";
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    double b1 = kcal_params_get(&p, "beta_ws_1m", -1);
    double b2 = kcal_params_get(&p, "beta_ws_2m", -1);
    double b4 = kcal_params_get(&p, "beta_ws_4m", -1);
    /* measured: 3e-11 at 1M, 4·ws_beta(2M) at 2M, 1e-10 at 4M: the 2M
     * spike pools with what follows it until the curve rises again */
    CHECK(b1 <= b2 && b2 <= b4 && b2 == b4);
    CHECK(b2 < 4 * ws_beta(2.0 * (1 << 20)));
    CHECK(has_note(&notes, "non-decreasing beta(W)"));
    {
        const char *pooled = strstr(comment, "beta_ws made non-decreasing (pooled):");
        const char *eol = pooled ? strchr(pooled, '\n') : NULL;
        const char *at2m = pooled ? strstr(pooled, " 2M ") : NULL;
        CHECK(pooled && eol && at2m && at2m < eol);
    }
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* The plain curve rises (flat within the noise in places, which may
     * pool a little): no note. */
    make_samples(&r, rng, 2);
    for (int k = 0; k < REPS; k++)
        add_ws_samples(&r, rng, k);
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK(!has_note(&notes, "non-decreasing beta(W)"));
    CHECK_NEAR(kcal_params_get(&p, "beta_ws_2m", -1), ws_beta(2.0 * (1 << 20)), 0.02);
    kcal_params_free(&p);
    kcal_raw_free(&r);
}

/* Concurrent copies of 64 pages, c = 1..3 copiers: δ(c) = 1 + k·(c − 1)
 * on the copy (T − α − l·N), 1 % noise per sample. */
static void add_concurrent(kcal_raw *r, gsl_rng *rng, const char *pattern,
                           double k)
{
    double over = ALPHA + LOCK * 64, copy = 64 * PAGE * 1e-10;
    for (int c = 1; c <= 3; c++)
        for (int rep = 0; rep < CREPS * c; rep++)
            kcal_raw_add(r, "concurrent", pattern, c, 64, (long)(64 * PAGE),
                         rep, over + copy * (1 + k * (c - 1)) *
                                         (1 + gsl_ran_gaussian(rng, 0.01)));
}

/* issue 9: the cache knee, β(working set), concurrent copies and the
 * write keys, recovered from synthetic samples with known answers. */
static void test_issue9(gsl_rng *rng)
{
    kcal_raw r;
    make_samples(&r, rng, 2);
    const double LOCK_W = 2 * LOCK, CH = 0.2, CC = 0.5;
    for (int k = 0; k < REPS; k++) {
        add_ws_samples(&r, rng, k);
        /* writes: the same start-up and β, pinning twice as slow */
        kcal_raw_add(&r, "startup_write", "-", 1, 1, 1, k,
                     ALPHA + LOCK_W + gsl_ran_gaussian(rng, SIG));
        for (size_t i = 0; i < NN; i += 2) {
            double t3 = ALPHA + LOCK_W * NS[i];
            kcal_raw_add(&r, "lock_write", "one_byte_local", 1, NS[i], 1, k,
                         t3 + gsl_ran_gaussian(rng, SIG));
            kcal_raw_add(&r, "copy_write", "cold", 1, NS[i],
                         (long)(NS[i] * PAGE), k,
                         t3 + BETA * NS[i] * PAGE + gsl_ran_gaussian(rng, SIG));
        }
    }
    /* concurrent copies as an older probe measured them: no own_* */
    add_concurrent(&r, rng, "distinct_hot", CH);
    add_concurrent(&r, rng, "distinct_cold", CC);
    kcal_params p;
    kcal_params_init(&p);
    kcal_calibrate_notes notes;
    char comment[8192], err[256] = "";
    int rc = kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment,
                                   err, sizeof err);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "fit: %s\n", err);
        kcal_raw_free(&r);
        return;
    }
    /* The knee: the rate last falls below 1.5·5 = 7.5 GB/s between 32M
     * (10) and 64M (5): 32 MiB·2^(log2(10/7.5)) = 42.67 MiB. */
    double knee = kcal_params_get(&p, "cache_knee", -1), kse;
    CHECK_NEAR(knee, 32.0 * (1 << 20) * 4 / 3, 0.02);
    kse = kcal_params_get(&p, "cache_knee_stderr", -1);
    CHECK(kse > 0 && kse < 0.05 * knee);
    double k2;
    CHECK(kcal_calibrate_knee(&r, PAGE, &k2, &kse) == 0 && k2 == knee);
    /* β(W): (T − α − l·N)/(N·s) at each W. */
    CHECK_NEAR(kcal_params_get(&p, "beta_ws_64k", -1), 3e-11, 0.02);
    CHECK_NEAR(kcal_params_get(&p, "beta_ws_1m", -1), 3e-11, 0.02);
    CHECK_NEAR(kcal_params_get(&p, "beta_ws_4m", -1), 1e-10, 0.02);
    CHECK_NEAR(kcal_params_get(&p, "beta_ws_256m", -1), 2e-10, 0.02);
    CHECK(kcal_params_get(&p, "beta_ws_256m_stderr", -1) > 0);
    CHECK(kcal_params_get(&p, "beta_ws_512m", -1) == -1); /* not measured */
    CHECK(kcal_params_key_kind("beta_ws_64k") == KCAL_KEY_NUMBER);
    CHECK(kcal_params_key_kind("beta_ws_64k_stderr") == KCAL_KEY_NUMBER);
    CHECK(kcal_params_key_kind("beta_ws_x") == KCAL_KEY_UNKNOWN);
    /* issue 8: the memcpy samples of the same sweep give the local-copy
     * curve, time per byte = median / bytes (no start-up taken off) */
    CHECK_NEAR(kcal_params_get(&p, "memcpy_ws_64k", -1), 1 / ws_rate(65536), 0.02);
    CHECK_NEAR(kcal_params_get(&p, "memcpy_ws_4m", -1), 1 / ws_rate(4 << 20), 0.02);
    CHECK_NEAR(kcal_params_get(&p, "memcpy_ws_256m", -1), 1 / ws_rate(256 << 20), 0.02);
    CHECK(kcal_params_get(&p, "memcpy_ws_256m_stderr", -1) > 0);
    CHECK(kcal_params_get(&p, "memcpy_ws_512m", -1) == -1);
    CHECK(kcal_params_key_kind("memcpy_ws_64k") == KCAL_KEY_NUMBER);
    CHECK(kcal_params_key_kind("memcpy_ws_") == KCAL_KEY_UNKNOWN);
    /* δ(c): slopes 0.2 in cache, 0.5 out of it (1 % noise per sample). */
    CHECK(fabs(kcal_params_get(&p, "conc_hot", -1) - CH) < 0.01);
    CHECK(fabs(kcal_params_get(&p, "conc_cold", -1) - CC) < 0.01);
    CHECK(kcal_params_get(&p, "conc_hot_stderr", -1) > 0);
    CHECK(strstr(comment, "conc_hot = slope k of delta(c) = 1 + k*(c - 1) "
                          "of distinct_hot (a raw file without own_*") != NULL);
    CHECK(strstr(comment, "conc_cold = slope k of delta(c) = 1 + k*(c - 1) "
                          "of distinct_cold (") != NULL);
    /* Writes: only the pinning differs, by far more than 3 standard
     * errors: lock_write is a key, alpha_write and beta_write are not. */
    CHECK(fabs(kcal_params_get(&p, "lock_write", -1) - LOCK_W) < 0.01 * LOCK_W);
    CHECK(kcal_params_find(&p, "alpha_write") == NULL);
    CHECK(kcal_params_find(&p, "beta_write") == NULL);
    CHECK(strstr(comment, "writes use alpha") != NULL);
    CHECK(strstr(comment, "lock_write") && strstr(comment, "a key of its own"));
    CHECK(kcal_params_validate(&p, "fit", err, sizeof err) == 0);
    kcal_params_free(&p);
    kcal_raw_free(&r);
}

/* δ(2) of a pattern as the params comment gives it; -1 if absent. */
static double comment_delta2(const char *comment, const char *pattern)
{
    char line[128];
    snprintf(line, sizeof line, "concurrent copies, %s, N = 64 pages: "
             "delta(c) = c=2 ", pattern);
    const char *at = strstr(comment, line);
    double d;
    if (!at || sscanf(at + strlen(line), "%lf", &d) != 1)
        return -1;
    return d;
}

/* conc_hot and conc_cold come from the own_* patterns (each copier its own
 * target process) when the raw samples have them, whatever distinct_* and
 * same_* say; every pattern's δ(c) stays in the comment; a negative own
 * slope is held at 0 with a note (distinct_cold's would have been 0.5). */
static void test_concurrent_own(gsl_rng *rng)
{
    kcal_raw r;
    make_samples(&r, rng, 2);
    const double OH = 0.05, OC = -0.1;
    add_concurrent(&r, rng, "distinct_hot", 0.6);
    add_concurrent(&r, rng, "distinct_cold", 0.5);
    add_concurrent(&r, rng, "same_hot", 1.0);
    add_concurrent(&r, rng, "own_hot", OH);
    add_concurrent(&r, rng, "own_cold", OC);
    kcal_params p;
    kcal_params_init(&p);
    kcal_calibrate_notes notes;
    char comment[8192] = "", err[256] = "";
    int rc = kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment,
                                   err, sizeof err);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "fit: %s\n", err);
        kcal_raw_free(&r);
        return;
    }
    CHECK(fabs(kcal_params_get(&p, "conc_hot", -1) - OH) < 0.01);
    CHECK(kcal_params_get(&p, "conc_hot_stderr", -1) > 0);
    CHECK(kcal_params_get(&p, "conc_cold", -1) == 0);
    CHECK(kcal_params_get(&p, "conc_cold_stderr", -1) > 0);
    int held = 0;
    for (int i = 0; i < notes.n; i++)
        held |= strstr(notes.text[i], "conc_cold: the fit gave") != NULL &&
                strstr(notes.text[i], "held at 0") != NULL;
    CHECK(held);
    CHECK(strstr(comment, "conc_hot = slope k of delta(c) = 1 + k*(c - 1) "
                          "of own_hot (each copier reading its own target "
                          "process)") != NULL);
    CHECK(strstr(comment, "of own_cold (each copier") != NULL);
    /* δ(2) = 1 + k of every pattern measured, in the comment. */
    CHECK(fabs(comment_delta2(comment, "own_hot") - (1 + OH)) < 0.01);
    CHECK(fabs(comment_delta2(comment, "own_cold") - (1 + OC)) < 0.01);
    CHECK(fabs(comment_delta2(comment, "distinct_hot") - 1.6) < 0.01);
    CHECK(fabs(comment_delta2(comment, "distinct_cold") - 1.5) < 0.01);
    CHECK(fabs(comment_delta2(comment, "same_hot") - 2.0) < 0.01);
    CHECK(comment_delta2(comment, "same_cold") < 0); /* not measured */
    CHECK(kcal_params_validate(&p, "fit", err, sizeof err) == 0);
    kcal_params_free(&p);
    kcal_raw_free(&r);
}

/* cma_mutual: at each c >= 2 the median of the mutual pattern less that
 * of own (1-page calls; probe/mutual.h), weighted over the c; the
 * differences go into the comment; a raw file without the phase gets no
 * key; a negative difference is held at 0 with a note. */
static void add_mutual(kcal_raw *r, gsl_rng *rng, int max_c, double own,
                       double extra)
{
    for (int c = 2; c <= max_c; c++)
        for (int k = 0; k < CREPS * c; k++) {
            kcal_raw_add(r, "mutual", "own", c, 1, 4096, k,
                         own * (1 + 0.05 * (c - 2)) +
                             gsl_ran_gaussian(rng, 0.02 * own));
            kcal_raw_add(r, "mutual", "mutual", c, 1, 4096, k,
                         own * (1 + 0.05 * (c - 2)) + extra +
                             gsl_ran_gaussian(rng, 0.02 * own));
        }
}

static void test_mutual(gsl_rng *rng)
{
    const double OWN = 7.5e-7, MU = 3.3e-7;
    for (int variant = 0; variant < 3; variant++) {
        kcal_raw r;
        make_samples(&r, rng, 4);
        if (variant == 1)
            add_mutual(&r, rng, 4, OWN, MU);
        if (variant == 2)
            add_mutual(&r, rng, 2, OWN, -1e-7);
        kcal_params p;
        kcal_params_init(&p);
        kcal_calibrate_notes notes;
        char comment[8192] = "", err[256] = "";
        int rc = kcal_calibrate_params(&r, &p, &notes, comment,
                                       sizeof comment, err, sizeof err);
        CHECK(rc == 0);
        if (variant == 0) {
            CHECK(kcal_params_get(&p, "cma_mutual", -1) == -1);
        } else if (variant == 1) {
            /* three c (2, 3, 4), each σ = 2 % of 0.75 µs over 61·c samples */
            CHECK(fabs(kcal_params_get(&p, "cma_mutual", -1) - MU) < 0.02 * MU);
            double se = kcal_params_get(&p, "cma_mutual_stderr", -1);
            CHECK(se > 0 && se < 0.02 * MU);
            CHECK(strstr(comment, "mutual calls, 1 page: mutual - own per "
                                  "call = c=2 ") != NULL);
            CHECK(strstr(comment, " c=4 ") != NULL);
            CHECK(kcal_params_validate(&p, "fit", err, sizeof err) == 0);
        } else {
            CHECK(kcal_params_get(&p, "cma_mutual", -1) == 0);
            int held = 0;
            for (int i = 0; i < notes.n; i++)
                held |= strstr(notes.text[i], "cma_mutual: the fit gave") &&
                        strstr(notes.text[i], "held at 0");
            CHECK(held);
        }
        kcal_params_free(&p);
        kcal_raw_free(&r);
    }
}

/* Lines another core just wrote: dirty samples d(N) = e·min(N, C) slower
 * than clean ones, N = 16K..8M (the probe's sizes). Noise SIG_D per
 * sample, so each point's d has the standard error √2·se_median. */
#define DREPS 61
static const double SIG_D = 100e-9;

static void add_dirty_to(kcal_raw *r, gsl_rng *rng, double e, double c,
                         double top, double drop)
{
    for (int k = 0; k < DREPS; k++)
        for (double n = 16384; n <= top; n *= 2) {
            double clean = ALPHA + 3e-11 * n; /* a clean read: any rate */
            double extra = n > drop ? 0 : e * fmin(n, c);
            kcal_raw_add(r, "dirty", "clean", 1, (long)(n / PAGE), (long)n, k,
                         clean + gsl_ran_gaussian(rng, SIG_D));
            kcal_raw_add(r, "dirty", "dirty", 1, (long)(n / PAGE), (long)n, k,
                         clean + extra + gsl_ran_gaussian(rng, SIG_D));
        }
}

static void add_dirty(kcal_raw *r, gsl_rng *rng, double e, double c,
                      double top)
{
    add_dirty_to(r, rng, e, c, top, INFINITY);
}

/* The standard errors of e and C of the hinge at the true values, from
 * the design alone: (JᵀWJ)⁻¹ with J = [min(N, C), e·(N > C)] and equal
 * point errors s. */
static void hinge_se(double e, double c, double top, double s, double *se_e,
                     double *se_c)
{
    double a = 0, b = 0, d = 0;
    for (double n = 16384; n <= top; n *= 2) {
        double j0 = fmin(n, c), j1 = n > c ? e : 0;
        a += j0 * j0, b += j0 * j1, d += j1 * j1;
    }
    double det = a * d - b * b;
    *se_e = s * sqrt(d / det);
    *se_c = s * sqrt(a / det);
}

/* Chunks passed between cores: per stream of m chunks of c bytes the cross
 * samples of slice `slice` cost E(m, c) = a + b·c + (m − 1)·next more than
 * the local ones, m = 1 at c = 1K..16K and m = 8 at 16K (the probe's
 * points). */
static void add_pass_reps(kcal_raw *r, gsl_rng *rng, double a, double b,
                          double next, int with_stream, long slice, int reps)
{
    for (int k = 0; k < reps; k++)
        for (long c = 1024; c <= 16384; c *= 2)
            for (int m = 1; m <= 8; m += 7) {
                if (m > 1 && (c < 16384 || !with_stream))
                    continue;
                double local = 2e-11 * (double)(c * m); /* any rate */
                double e = a + b * (double)c + (m - 1) * next;
                kcal_raw_add(r, "pass", "local", m, slice, c, k,
                             local + gsl_ran_gaussian(rng, SIG_D / 10));
                kcal_raw_add(r, "pass", "cross", m, slice, c, k,
                             local + e + gsl_ran_gaussian(rng, SIG_D / 10));
            }
}

/* Mutual streams (both cores passing at once) at 16K, m = 1 and 8, of
 * slice `slice`: E_mutual(m) = a + b·16K + (m − 1)·mut more than the
 * local samples add_pass_reps makes there. */
static void add_mutual_reps(kcal_raw *r, gsl_rng *rng, double a, double b,
                            double mut, long slice, int reps)
{
    const long c = 16384;
    for (int k = 0; k < reps; k++)
        for (int m = 1; m <= 8; m += 7)
            kcal_raw_add(r, "pass", "mutual", m, slice, c, k,
                         2e-11 * (double)(c * m) + a + b * (double)c +
                             (m - 1) * mut +
                             gsl_ran_gaussian(rng, SIG_D / 10));
}

static void add_pass_slice(kcal_raw *r, gsl_rng *rng, double a, double b,
                           double next, int with_stream, long slice)
{
    add_pass_reps(r, rng, a, b, next, with_stream, slice, DREPS);
}

/* A further chunk of 16K across the cores, copies included, as
 * add_pass_reps makes it: its local copies and next. */
static double pass_chunk(double next)
{
    return 2e-11 * 16384 + next;
}

static void add_pass_samples(kcal_raw *r, gsl_rng *rng, double a, double b,
                             double next, int with_stream)
{
    add_pass_slice(r, rng, a, b, next, with_stream, 0);
}

static void test_pass(gsl_rng *rng)
{
    const double A = 0.4e-6, B = 0.2e-9, NEXT = 1e-6;
    kcal_raw r;
    make_samples(&r, rng, 2);
    add_pass_samples(&r, rng, A, B, NEXT, 1);
    kcal_params p;
    kcal_params_init(&p);
    kcal_calibrate_notes notes;
    char comment[8192], err[256] = "";
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    double a = kcal_params_get(&p, "pass_a", -1);
    double b = kcal_params_get(&p, "pass_b", -1);
    double next = kcal_params_get(&p, "pass_next", -1);
    double se_a = kcal_params_get(&p, "pass_a_stderr", -1);
    double se_b = kcal_params_get(&p, "pass_b_stderr", -1);
    double se_n = kcal_params_get(&p, "pass_next_stderr", -1);
    CHECK(se_a > 0 && se_b > 0 && se_n > 0);
    CHECK(fabs(a - A) < 5 * se_a);
    CHECK(fabs(b - B) < 5 * se_b);
    CHECK(fabs(next - NEXT) < 5 * se_n);
    /* each point's median has se ~ 1.25·SIG_D/10/√61 = 1.6 ns: the keys
     * are known to a few per cent */
    CHECK_NEAR(a, A, 0.05);
    CHECK_NEAR(b, B, 0.05);
    CHECK_NEAR(next, NEXT, 0.05);
    CHECK(strstr(comment, "pass fit: E(1, c) = a + b*c over 5 sizes") != NULL);
    CHECK(strstr(comment, " 8x16K ") != NULL);
    CHECK(!has_note(&notes, "pass_"));
    CHECK(kcal_params_validate(&p, "fit", err, sizeof err) == 0);
    /* One slice (a probe from before the slices): no spread, silently;
     * no mutual streams (a probe from before them): no pass_mutual,
     * silently (the model charges pass_next then). */
    CHECK(kcal_params_find(&p, "pass_spread") == NULL);
    CHECK(kcal_params_find(&p, "pass_mutual") == NULL);
    CHECK(strstr(comment, "both ways at once") == NULL);
    CHECK(strstr(comment, "pass spread: a further chunk of 16K") != NULL);
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* Mutual streams, 4x a further chunk one way: pass_mutual is theirs,
     * known to a few per cent, the others as before; the header gives
     * E_mutual at both m (1x16K: 0.4 + 3.28 = 3.68 us; 8x16K: + 28). */
    const double MUT = 4 * NEXT;
    make_samples(&r, rng, 2);
    add_pass_samples(&r, rng, A, B, NEXT, 1);
    add_mutual_reps(&r, rng, A, B, MUT, 0, DREPS);
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    double mu = kcal_params_get(&p, "pass_mutual", -1);
    double se_mu = kcal_params_get(&p, "pass_mutual_stderr", -1);
    CHECK(se_mu > 0 && fabs(mu - MUT) < 5 * se_mu);
    CHECK_NEAR(mu, MUT, 0.05);
    CHECK_NEAR(kcal_params_get(&p, "pass_next", -1), NEXT, 0.05);
    {
        const char *at = strstr(comment, "both ways at once");
        double e1 = 0, lo1 = 0, e8 = 0, lo8 = 0;
        CHECK(at && (at = strstr(at, "1x16K")) &&
              sscanf(at, "1x16K %lf [%lf] 8x16K %lf [%lf]", &e1, &lo1, &e8,
                     &lo8) == 4);
        CHECK(fabs(e1 - 3.68) < 0.05 && fabs(e8 - 31.68) < 0.1);
    }
    CHECK(!has_note(&notes, "pass_"));
    CHECK(kcal_params_validate(&p, "fit", err, sizeof err) == 0);
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* Mutual streams in four slices, one cheap and one disturbed (3x):
     * the second dearest, as the other keys. */
    make_samples(&r, rng, 2);
    for (long sl = 0; sl < 4; sl++) {
        double f = sl == 0 ? 0.125 : sl == 2 ? 3 : 1;
        add_pass_slice(&r, rng, A, B, NEXT, 1, sl);
        add_mutual_reps(&r, rng, A, B, f * MUT, sl, DREPS);
    }
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK_NEAR(kcal_params_get(&p, "pass_mutual", -1), MUT, 0.05);
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* A mutual stream no dearer per chunk than one chunk: held at 0, with
     * a note. */
    make_samples(&r, rng, 2);
    add_pass_samples(&r, rng, A, B, NEXT, 1);
    add_mutual_reps(&r, rng, A, B, -0.3e-6, 0, DREPS);
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK(kcal_params_get(&p, "pass_mutual", -1) == 0);
    CHECK(has_note(&notes, "pass_mutual: a mutual stream of 8 chunks"));
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* A stream no dearer per chunk than one chunk: pass_next held at 0. */
    make_samples(&r, rng, 2);
    add_pass_samples(&r, rng, A, B, -0.3e-6, 1);
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK(kcal_params_get(&p, "pass_next", -1) == 0);
    CHECK(has_note(&notes, "pass_next: a stream of 8 chunks"));
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* No longer stream: no keys, and a note that says why. */
    make_samples(&r, rng, 2);
    add_pass_samples(&r, rng, A, B, NEXT, 0);
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK(kcal_params_find(&p, "pass_a") == NULL);
    CHECK(kcal_params_find(&p, "pass_next") == NULL);
    CHECK(kcal_params_find(&p, "pass_spread") == NULL);
    CHECK(has_note(&notes, "no longer stream"));
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* Slices: a cheap one (a host that ran both vCPUs on one core), two
     * dear ones and one disturbed by another job (3x): the keys are the
     * second dearest's, the dear state's; the header shows the cheapest. */
    make_samples(&r, rng, 2);
    add_pass_slice(&r, rng, A / 8, B / 8, NEXT / 8, 1, 0);
    add_pass_slice(&r, rng, A, B, NEXT, 1, 1);
    add_pass_slice(&r, rng, 3 * A, 3 * B, 3 * NEXT, 1, 2);
    add_pass_slice(&r, rng, A, B, NEXT, 1, 3);
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK_NEAR(kcal_params_get(&p, "pass_a", -1), A, 0.05);
    CHECK_NEAR(kcal_params_get(&p, "pass_b", -1), B, 0.05);
    CHECK_NEAR(kcal_params_get(&p, "pass_next", -1), NEXT, 0.05);
    CHECK(strstr(comment, "the second dearest of 4 slice(s)") != NULL);
    /* The spread: the 3x slice's chunk over the cheap one's. */
    CHECK_NEAR(kcal_params_get(&p, "pass_spread", -1),
               pass_chunk(3 * NEXT) / pass_chunk(NEXT / 8), 0.01);
    {
        /* 1x16K: 0.4 + 3.2768 = 3.68 µs, an eighth of it 0.46 */
        const char *at = strstr(comment, " 1x16K ");
        double dear = 0, cheap = 0;
        CHECK(at && sscanf(at, " 1x16K %lf [%lf]", &dear, &cheap) == 2);
        CHECK(fabs(dear - 3.68) < 0.05 && fabs(cheap - 0.46) < 0.05);
    }
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* Two slices: the dearer. */
    make_samples(&r, rng, 2);
    add_pass_slice(&r, rng, A / 8, B / 8, NEXT / 8, 1, 0);
    add_pass_slice(&r, rng, A, B, NEXT, 1, 1);
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK_NEAR(kcal_params_get(&p, "pass_a", -1), A, 0.05);
    CHECK(strstr(comment, "the dearest of 2 slice(s)") != NULL);
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* The spread over the run (issue 28): two cheap slices and three dear
     * ones. pass_spread is the dear chunk's time over the cheap one's,
     * known to a few per cent; the other keys the dear state's; the
     * header gives each slice's median. */
    make_samples(&r, rng, 2);
    for (long sl = 0; sl < 5; sl++)
        add_pass_slice(&r, rng, A, B, sl == 1 || sl == 3 ? NEXT / 8 : NEXT, 1,
                       sl);
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    double want = pass_chunk(NEXT) / pass_chunk(NEXT / 8);
    double spread = kcal_params_get(&p, "pass_spread", -1);
    double spread_se = kcal_params_get(&p, "pass_spread_stderr", -1);
    CHECK_NEAR(spread, want, 0.01);
    CHECK(spread_se > 0 && spread_se < 0.05 * want);
    CHECK_NEAR(kcal_params_get(&p, "pass_next", -1), NEXT, 0.05);
    {
        const char *at = strstr(comment, "median per slice in us:");
        double m[5] = {0};
        CHECK(at && sscanf(at, "median per slice in us: %lf %lf %lf %lf %lf",
                           &m[0], &m[1], &m[2], &m[3], &m[4]) == 5);
        CHECK(fabs(m[1] - 1e6 * pass_chunk(NEXT / 8)) < 0.01 &&
              fabs(m[2] - 1e6 * pass_chunk(NEXT)) < 0.01);
    }
    /* ... and it reads back from the params file. */
    {
        char *text = NULL;
        size_t len = 0;
        kcal_params q;
        CHECK(kcal_params_format(&p, NULL, &text, &len, err, sizeof err) == 0);
        CHECK(text && kcal_params_parse(text, "spread", &q, err,
                                        sizeof err) == 0);
        CHECK(kcal_params_get(&q, "pass_spread", -1) == spread);
        kcal_params_free(&q);
        free(text);
    }
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* Five steady slices: the spread is the noise's, a further chunk's
     * 1.6 ns against 1.33 us. */
    make_samples(&r, rng, 2);
    for (long sl = 0; sl < 5; sl++)
        add_pass_slice(&r, rng, A, B, NEXT, 1, sl);
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    spread = kcal_params_get(&p, "pass_spread", -1);
    CHECK(spread >= 1 && spread < 1.01);
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* Too few passes per slice for a median: no pass_spread, a note; the
     * other keys as before. */
    make_samples(&r, rng, 2);
    add_pass_reps(&r, rng, A, B, NEXT, 1, 0, 4);
    add_pass_reps(&r, rng, A / 8, B / 8, NEXT / 8, 1, 1, 4);
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK(kcal_params_find(&p, "pass_spread") == NULL);
    CHECK(kcal_params_find(&p, "pass_next") != NULL);
    CHECK(has_note(&notes, "pass_spread: 0 slice(s) of 5 passes or more"));
    kcal_params_free(&p);
    kcal_raw_free(&r);
}

static void test_dirty(gsl_rng *rng)
{
    /* C between two measured sizes: a kink exactly at a size makes the
     * estimates' spread wider than the linearised standard errors (at 512K
     * the error of e reached 5 of them in one seed of 25; at 400K the rms
     * over 60 seeds was 1.06 of them, the largest 3.0). */
    const double E = 5e-11, C = 400 * 1024.0, TOP = 8 << 20;
    double s = sqrt(2) * se_median(SIG_D, DREPS), se_e, se_c;
    hinge_se(E, C, TOP, s, &se_e, &se_c);
    kcal_raw r;
    make_samples(&r, rng, 2);
    add_dirty(&r, rng, E, C, TOP);
    kcal_params p;
    kcal_params_init(&p);
    kcal_calibrate_notes notes;
    char comment[8192], err[256] = "";
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    double e = kcal_params_get(&p, "dirty_beta", -1);
    double c = kcal_params_get(&p, "dirty_bytes", -1);
    double rse_e = kcal_params_get(&p, "dirty_beta_stderr", -1);
    double rse_c = kcal_params_get(&p, "dirty_bytes_stderr", -1);
    CHECK(fabs(e - E) < 5 * se_e);
    CHECK(fabs(c - C) < 5 * se_c);
    CHECK(rse_e > se_e / 3 && rse_e < 3 * se_e);
    CHECK(rse_c > se_c / 3 && rse_c < 3 * se_c);
    /* The header lists d(N)/N per size in ns/B: 0.05 up to C, 400/1024 of
     * it at 1M (± 0.0014 at 16K, 2e-5 at 1M: the point's se over N). */
    const char *line = strstr(comment, "(T_dirty - T_clean)/N in ns/B: 16K ");
    CHECK(line != NULL);
    if (line) {
        double at16k = -1, at1m = -1;
        const char *m = strstr(line, " 1M ");
        sscanf(line, "(T_dirty - T_clean)/N in ns/B: 16K %lf", &at16k);
        if (m)
            sscanf(m, " 1M %lf", &at1m);
        CHECK(fabs(at16k - 0.05) < 0.007);
        CHECK(fabs(at1m - 0.05 * 400 / 1024) < 0.0005);
    }
    CHECK(strstr(comment, "dirty fit: d(N) = e*min(N, C) over 10 sizes") != NULL);
    CHECK(!has_note(&notes, "dirty"));
    CHECK(kcal_params_validate(&p, "fit", err, sizeof err) == 0);
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* No difference: no keys, and a note that says why. */
    make_samples(&r, rng, 2);
    add_dirty(&r, rng, 0, C, TOP);
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK(kcal_params_find(&p, "dirty_beta") == NULL);
    CHECK(kcal_params_find(&p, "dirty_bytes") == NULL);
    CHECK(has_note(&notes, "no slower than reading clean ones"));
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* C beyond the sizes measured (64 MiB, up to 8 MiB): held at 8 MiB, a
     * lower bound, standard error 0; e the slope through the origin. */
    make_samples(&r, rng, 2);
    add_dirty(&r, rng, E, 64.0 * (1 << 20), TOP);
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK(kcal_params_get(&p, "dirty_bytes", -1) == TOP);
    CHECK(kcal_params_get(&p, "dirty_bytes_stderr", -1) == 0);
    CHECK_NEAR(kcal_params_get(&p, "dirty_beta", -1), E, 0.01);
    CHECK(has_note(&notes, "C held there, a lower bound"));
    CHECK(strstr(comment, "(held at the largest N)") != NULL);
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* Another shape: the extra gone beyond 1M. The keys, and a note that
     * the hinge fits it poorly. */
    make_samples(&r, rng, 2);
    add_dirty_to(&r, rng, E, C, TOP, 1 << 20);
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK(kcal_params_get(&p, "dirty_beta", -1) > 0);
    CHECK(has_note(&notes, "fits the measured extra poorly"));
    kcal_params_free(&p);
    kcal_raw_free(&r);

    /* Two sizes only: too few for two parameters. */
    make_samples(&r, rng, 2);
    add_dirty(&r, rng, E, C, 32768);
    kcal_params_init(&p);
    CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                                sizeof err) == 0);
    CHECK(kcal_params_find(&p, "dirty_beta") == NULL);
    CHECK(has_note(&notes, "2 size(s) with both clean and dirty reads"));
    kcal_params_free(&p);
    kcal_raw_free(&r);
}

/* The reductions' op (probe/reduce.h): the sizes planned from the caches,
 * the helper's arguments, its lines read back into samples. */
static void test_reduce_plan(void)
{
    kcal_reduce_plan rp;
    kcal_reduce_plan_make(&rp, 1 << 20, 508ul << 20, 1, 2e-4);
    CHECK(rp.n_hot == 4 && rp.hot[0] == 4096 && rp.hot[3] == 262144);
    CHECK(rp.cold == KCAL_REDUCE_COLD_QUICK && rp.passes == 15);
    /* The pairs: every one, at 3 of hot's sizes spread over its range. */
    CHECK(rp.n_rate_bytes == 3 && rp.rate_bytes[0] == 4096 &&
          rp.rate_bytes[1] == 65536 && rp.rate_bytes[2] == 262144);
    CHECK(rp.rate[0] && rp.rate[KCAL_N_MEMBERS_REDOP - 1]);
    /* Out of cache: one size, in every 5th of the 15 passes. */
    CHECK(rp.rate_cold == KCAL_REDUCE_RATE_COLD &&
          rp.rate_cold_every == KCAL_REDUCE_RATE_COLD_EVERY_QUICK);
    kcal_reduce_plan_make(&rp, 1 << 20, 508ul << 20, 0, 5e-4);
    CHECK(rp.rate_cold_every == KCAL_REDUCE_RATE_COLD_EVERY);
    CHECK(rp.n_hot == 7 && rp.cold == KCAL_REDUCE_COLD_MAX && rp.passes == 40);
    CHECK(rp.n_rate_bytes == 4 && rp.rate_bytes[1] == 16384 &&
          rp.rate_bytes[3] == 262144);
    /* A 2 MiB L2: every doubling up to the fold's chunk (256 KiB). */
    kcal_reduce_plan_make(&rp, 2 << 20, 32ul << 20, 0, 5e-4);
    CHECK(rp.n_hot == 7 && rp.hot[6] == 262144 && rp.cold == 32 << 20);
    /* A 256 KiB L2: in and inout within half of it; no L3 known. */
    kcal_reduce_plan_make(&rp, 256 << 10, 0, 0, 5e-4);
    CHECK(rp.n_hot == 5 && rp.hot[4] == 65536 &&
          rp.cold == KCAL_REDUCE_COLD_MIN);
    CHECK(rp.n_rate_bytes == 4 && rp.rate_bytes[1] == 8192 &&
          rp.rate_bytes[2] == 32768 && rp.rate_bytes[3] == 65536);
    char buf[2048], *argv[32];
    int n = kcal_reduce_args(&rp, buf, sizeof buf, argv, 32);
    CHECK(n == 11 && argv[11] == NULL);
    CHECK(!strcmp(argv[0], KCAL_REDUCE_ARG) && !strcmp(argv[1], "40") &&
          !strcmp(argv[2], "0.0005") && !strcmp(argv[3], "hot:4096") &&
          !strcmp(argv[8], "cold:8388608"));
    /* The pairs in one argument: names, then sizes. */
    CHECK(!strncmp(argv[9], "sum_int,sum_complex,", 20) &&
          strstr(argv[9], ",minloc_pair,maxloc_pair:4096,8192,32768,65536") &&
          argv[9][strlen(argv[9]) - 1] == '6');
    /* Their cold samples in another, with the passes that time them. */
    CHECK(!strncmp(argv[10], "sum_int_cold,sum_complex_cold,", 30) &&
          strstr(argv[10], ",maxloc_pair_cold:1048576@8") &&
          argv[10][strlen(argv[10]) - 1] == '8');
    CHECK(kcal_reduce_args(&rp, buf, 40, argv, 32) == -1);
    CHECK(kcal_reduce_args(&rp, buf, 200, argv, 32) == -1);
    CHECK(kcal_reduce_args(&rp, buf, 600, argv, 32) == -1);
    CHECK(kcal_reduce_args(&rp, buf, sizeof buf, argv, 5) == -1);
    CHECK(kcal_reduce_args(&rp, buf, sizeof buf, argv, 11) == -1);
    /* None out of cache: no such argument. */
    rp.rate_cold = 0;
    CHECK(kcal_reduce_args(&rp, buf, sizeof buf, argv, 32) == 10);
    /* A plan without pairs: the old arguments. */
    rp.rate_cold = KCAL_REDUCE_RATE_COLD;
    memset(rp.rate, 0, sizeof rp.rate);
    CHECK(kcal_reduce_args(&rp, buf, sizeof buf, argv, 32) == 9);
    CHECK(kcal_reduce_rate_index("max_int") >= 0 &&
          !strcmp(kcal_reduce_rate_name(kcal_reduce_rate_index("max_int")),
                  "max_int"));
    CHECK(kcal_reduce_rate_index("sum_floating") == -1 &&
          kcal_reduce_rate_index(KCAL_PATTERN_HOT) == -1 &&
          kcal_reduce_rate_name(KCAL_N_MEMBERS_REDOP) == NULL);
    /* A pair's pattern, in cache or out. */
    int cold = -1;
    CHECK(kcal_reduce_rate_pattern("max_int", &cold) ==
              kcal_reduce_rate_index("max_int") &&
          cold == 0);
    CHECK(kcal_reduce_rate_pattern("max_int_cold", &cold) ==
              kcal_reduce_rate_index("max_int") &&
          cold == 1);
    CHECK(kcal_reduce_rate_pattern("cold", &cold) == -1 &&
          kcal_reduce_rate_pattern("_cold", &cold) == -1 &&
          kcal_reduce_rate_pattern("max_in_cold", &cold) == -1 &&
          kcal_reduce_rate_pattern("max_int_cold_cold", &cold) == -1 &&
          kcal_reduce_rate_pattern("sum_floating_cold", &cold) == -1);

    kcal_raw r;
    kcal_raw_init(&r);
    CHECK(kcal_reduce_parse_line("kcal-reduce hot 65536 3 1.25e-06", &r) == 1);
    CHECK(r.n == 1 && !strcmp(r.s[0].phase, KCAL_PHASE_REDUCE) &&
          !strcmp(r.s[0].pattern, KCAL_PATTERN_HOT) && r.s[0].readers == 1 &&
          r.s[0].pages == 0 && r.s[0].bytes == 65536 && r.s[0].rep == 3 &&
          r.s[0].seconds == 1.25e-6);
    CHECK(kcal_reduce_parse_line("kcal-sm bcast 2 0 1e-7", &r) == 0);
    CHECK(kcal_reduce_parse_line("kcal-reducex hot 1 0 1", &r) == 0);
    CHECK(kcal_reduce_parse_line("kcal-reduce warm 4096 0 1e-6", &r) == -1);
    CHECK(kcal_reduce_parse_line("kcal-reduce hot 4096 0", &r) == -1);
    CHECK(kcal_reduce_parse_line("kcal-reduce hot 4096 0 1e-6 x", &r) == -1);
    CHECK(kcal_reduce_parse_line("kcal-reduce cold 4096 0 -1", &r) == -1);
    CHECK(r.n == 1);
    /* A pair's line: its member name the pattern; an unknown pair, or
     * (sum, floating) (that is hot), refused. */
    CHECK(kcal_reduce_parse_line("kcal-reduce minloc_pair 16384 2 3e-06",
                                 &r) == 1);
    CHECK(r.n == 2 && !strcmp(r.s[1].phase, KCAL_PHASE_REDUCE) &&
          !strcmp(r.s[1].pattern, "minloc_pair") && r.s[1].bytes == 16384 &&
          r.s[1].rep == 2 && r.s[1].seconds == 3e-6);
    CHECK(kcal_reduce_parse_line("kcal-reduce max_int 4096 0 1e-7", &r) == 1);
    CHECK(kcal_reduce_parse_line("kcal-reduce max_bool 4096 0 1e-7", &r) == -1);
    CHECK(kcal_reduce_parse_line("kcal-reduce sum_floating 4096 0 1e-7", &r) ==
          -1);
    CHECK(kcal_reduce_parse_line("kcal-reduce max_int_beta 4096 0 1e-7", &r) ==
          -1);
    CHECK(kcal_reduce_parse_line("kcal-reduce max_int_cold 1048576 8 4e-5",
                                 &r) == 1);
    CHECK(r.n == 4 && !strcmp(r.s[3].pattern, "max_int_cold") &&
          r.s[3].bytes == 1048576 && r.s[3].rep == 8);
    CHECK(kcal_reduce_parse_line("kcal-reduce hot_cold 4096 0 1e-7", &r) ==
          -1);
    CHECK(r.n == 4);
    kcal_raw_free(&r);
}

/* reduce_beta: t(b) = A + rho·b at the in-cache sizes, 2 % noise per
 * sample, in RPASSES passes; the out-of-cache size (a quite different
 * rate, COLD_RHO, reduce_beta_cold) must not move it. */
#define RPASSES 40
static double cold_rho = 8.5e-11;
static void add_reduce(kcal_raw *r, gsl_rng *rng, double a, double rho,
                       const long *sizes, size_t n)
{
    for (int k = 0; k < RPASSES; k++) {
        for (size_t i = 0; i < n; i++) {
            double t = a + rho * (double)sizes[i];
            kcal_raw_add(r, KCAL_PHASE_REDUCE, KCAL_PATTERN_HOT, 1, 0,
                         sizes[i], k, t + gsl_ran_gaussian(rng, 0.02 * t));
        }
        double tc = cold_rho * (32 << 20);
        kcal_raw_add(r, KCAL_PHASE_REDUCE, KCAL_PATTERN_COLD, 1, 0, 32 << 20,
                     k, tc + gsl_ran_gaussian(rng, 0.02 * tc));
    }
}

/* A pair's samples (pattern its member name), as the probe interleaves
 * them with hot's in the same passes. */
static void add_rate(kcal_raw *r, gsl_rng *rng, const char *pattern,
                     double a, double rho, const long *sizes, size_t n)
{
    for (int k = 0; k < RPASSES; k++)
        for (size_t i = 0; i < n; i++) {
            double t = a + rho * (double)sizes[i];
            kcal_raw_add(r, KCAL_PHASE_REDUCE, pattern, 1, 0, sizes[i], k,
                         t + gsl_ran_gaussian(rng, 0.02 * t));
        }
}

/* A pair's samples out of cache (pattern its member name and "_cold"):
 * one size, in every 8th pass, as the probe times them. */
#define RCOLD_EVERY 8
static void add_rate_cold(kcal_raw *r, gsl_rng *rng, const char *pair,
                          double rho)
{
    char pat[32];
    snprintf(pat, sizeof pat, "%s%s", pair, KCAL_PATTERN_COLD_SUFFIX);
    for (int k = 0; k < RPASSES; k += RCOLD_EVERY) {
        double t = rho * (1 << 20);
        kcal_raw_add(r, KCAL_PHASE_REDUCE, pat, 1, 0, 1 << 20, k,
                     t + gsl_ran_gaussian(rng, 0.02 * t));
    }
}

/* The slope's standard error of such a line, from the design: weights
 * 1/se² of each point's median, se = √(π/2)·σ/√RPASSES, σ = 2 % of t. */
static double rate_se(double a, double rho, const long *sizes, size_t n)
{
    double sw = 0, swx = 0, swxx = 0;
    for (size_t i = 0; i < n; i++) {
        double x = (double)sizes[i];
        double se = se_median(0.02 * (a + rho * x), RPASSES);
        sw += 1 / (se * se), swx += x / (se * se), swxx += x * x / (se * se);
    }
    return 1 / sqrt(swxx - swx * swx / sw);
}

/* reduce_<op>_<class>_beta: two pairs with their own slopes among hot's
 * samples come out with them, each with _stderr and _dof and a comment
 * line; a pair without samples writes no key; one whose time does not
 * grow, a note and no key; a raw file with pairs but no hot, the pairs
 * alone. reduce_<op>_<class>_beta_cold: t/b of the cold samples, with
 * the median's standard error, where it is not below the pair's rate in
 * cache (as fast for an op bound by its own work, MINLOC), else a note;
 * cold samples alone are enough. */
static void test_reduce_rates(gsl_rng *rng)
{
    static const long SZ[] = {4096, 16384, 65536, 262144};
    const size_t NSZ = sizeof SZ / sizeof *SZ;
    const double A = 1e-7, RHO_MAX = 4e-11, RHO_MINLOC = 1.8e-10,
                 RHO_MAX_COLD = 1.2e-10;
    /* A cold rate's standard error: its median's over RPASSES / 8
     * samples, over the size. */
    const double se_cold = se_median(0.02, RPASSES / RCOLD_EVERY);
    for (int variant = 0; variant < 2; variant++) {
        kcal_raw r;
        make_samples(&r, rng, 2);
        if (variant == 0)
            add_reduce(&r, rng, 5e-8, 1.5e-11, SZ, NSZ);
        add_rate(&r, rng, "max_int", A, RHO_MAX, SZ, NSZ);
        add_rate(&r, rng, "minloc_pair", A, RHO_MINLOC, SZ, NSZ);
        add_rate(&r, rng, "lxor_logical", A, 0, SZ, NSZ);
        add_rate(&r, rng, "band_int", A, RHO_MAX, SZ, NSZ);
        add_rate_cold(&r, rng, "max_int", RHO_MAX_COLD);
        add_rate_cold(&r, rng, "minloc_pair", RHO_MINLOC);
        add_rate_cold(&r, rng, "band_int", RHO_MAX / 3);
        add_rate_cold(&r, rng, "sum_int", RHO_MAX_COLD);
        kcal_params p;
        kcal_params_init(&p);
        kcal_calibrate_notes notes;
        char comment[16384] = "", err[256] = "";
        CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment,
                                    err, sizeof err) == 0);
        double m = kcal_params_get(&p, "reduce_max_int_beta", -1);
        double mse = kcal_params_get(&p, "reduce_max_int_beta_stderr", -1);
        double se_m = rate_se(A, RHO_MAX, SZ, NSZ);
        CHECK(fabs(m - RHO_MAX) < 5 * se_m);
        CHECK(mse > se_m / 3 && mse < 3 * se_m);
        CHECK(fabs(m - RHO_MAX) < 5 * mse);
        CHECK(kcal_params_get(&p, "reduce_max_int_beta_dof", -1) ==
              (double)NSZ - 2);
        double l = kcal_params_get(&p, "reduce_minloc_pair_beta", -1);
        double lse = kcal_params_get(&p, "reduce_minloc_pair_beta_stderr", -1);
        CHECK(fabs(l - RHO_MINLOC) < 5 * rate_se(A, RHO_MINLOC, SZ, NSZ));
        CHECK(lse > 0 && fabs(l - RHO_MINLOC) < 5 * lse);
        /* The slot's name is the key written. */
        CHECK(kcal_params_has_key(&p, KCAL_PK_MEMBER(reduce_rate,
                                      kcal_reduce_rate_index("max_int"))));
        CHECK(kcal_params_find(&p, "reduce_sum_int_beta_stderr") == NULL);
        CHECK(kcal_params_find(&p, "reduce_sum_complex_beta_cold") == NULL);
        CHECK(kcal_params_find(&p, "reduce_lxor_logical_beta") == NULL);
        CHECK(has_note(&notes, "reduce_lxor_logical_beta: the op's time did "
                               "not grow"));
        CHECK(strstr(comment, "reduce max on int: rho = 0.0") != NULL &&
              strstr(comment, " ns/B (2") != NULL);
        CHECK(strstr(comment, "reduce minloc on pair: rho = 0.1") != NULL);
        double mc = kcal_params_get(&p, "reduce_max_int_beta_cold", -1);
        double mcse = kcal_params_get(&p, "reduce_max_int_beta_cold_stderr",
                                      -1);
        CHECK(fabs(mc - RHO_MAX_COLD) < 5 * se_cold * RHO_MAX_COLD);
        CHECK(mcse > se_cold * RHO_MAX_COLD / 3 &&
              mcse < 3 * se_cold * RHO_MAX_COLD);
        const char *ml = strstr(comment, "reduce max on int: rho = 0.0");
        CHECK(ml && !strncmp(strchr(ml, ')'), "); out of cache 1M: 0.1", 22));
        double lc = kcal_params_get(&p, "reduce_minloc_pair_beta_cold", -1);
        CHECK(fabs(lc - RHO_MINLOC) < 5 * se_cold * RHO_MINLOC);
        CHECK(kcal_params_find(&p, "reduce_band_int_beta_cold") == NULL);
        CHECK(kcal_params_get(&p, "reduce_band_int_beta", -1) > 0);
        CHECK(has_note(&notes, "reduce_band_int_beta_cold: out of cache the "
                               "op was faster than in cache"));
        CHECK(kcal_params_find(&p, "reduce_sum_int_beta") == NULL &&
              kcal_params_get(&p, "reduce_sum_int_beta_cold", -1) > 0);
        CHECK(strstr(comment, "reduce sum on int: not timed in cache; out of "
                              "cache 1M: 0.1") != NULL);
        CHECK(strstr(comment, "reduce lxor on logical: no growth with the "
                              "size, reduce_lxor_logical_beta not written") !=
              NULL);
        CHECK((kcal_params_get(&p, "reduce_beta", -1) > 0) == (variant == 0));
        CHECK(kcal_params_validate(&p, "fit", err, sizeof err) == 0);
        kcal_params_free(&p);
        kcal_raw_free(&r);
    }
}

static void test_reduce(gsl_rng *rng)
{
    static const long SZ[] = {4096, 8192, 16384, 32768, 65536, 131072,
                              262144};
    const size_t NSZ = sizeof SZ / sizeof *SZ;
    const double A = 5e-8, RHO = 1.5e-11;
    double se_rho = rate_se(A, RHO, SZ, NSZ);
    for (int variant = 0; variant < 5; variant++) {
        kcal_raw r;
        make_samples(&r, rng, 2);
        cold_rho = variant == 4 ? RHO / 2 : 8.5e-11;
        if (variant == 1 || variant == 4)
            add_reduce(&r, rng, A, RHO, SZ, NSZ);
        if (variant == 2)
            add_reduce(&r, rng, A, RHO, SZ + 4, 1);
        if (variant == 3) /* no growth with the size */
            add_reduce(&r, rng, A, 0, SZ, NSZ);
        kcal_params p;
        kcal_params_init(&p);
        kcal_calibrate_notes notes;
        char comment[16384] = "", err[256] = "";
        CHECK(kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment,
                                    err, sizeof err) == 0);
        double rho = kcal_params_get(&p, "reduce_beta", -1);
        double se = kcal_params_get(&p, "reduce_beta_stderr", -1);
        if (variant == 0) {
            CHECK(rho == -1 && strstr(comment, "reduce") == NULL);
        } else if (variant == 1) {
            CHECK(fabs(rho - RHO) < 5 * se_rho);
            CHECK(se > se_rho / 3 && se < 3 * se_rho);
            CHECK(kcal_params_get(&p, "reduce_beta_dof", -1) == (double)NSZ - 2);
            CHECK(strstr(comment, "reduce fit: t = a + rho*b over 7 sizes "
                                  "4K..256K, dof 5: ") != NULL);
            CHECK(strstr(comment, "out of cache 32M: 0.08") != NULL);
            CHECK(kcal_params_validate(&p, "fit", err, sizeof err) == 0);
            /* reduce_beta_cold: t/b of the one cold size, its median's
             * standard error over b. */
            double tc = 8.5e-11 * (32 << 20);
            double sc = se_median(0.02 * tc, RPASSES) / (32 << 20);
            double c = kcal_params_get(&p, "reduce_beta_cold", -1);
            double cse = kcal_params_get(&p, "reduce_beta_cold_stderr", -1);
            CHECK(fabs(c - 8.5e-11) < 5 * sc);
            CHECK(cse > sc / 3 && cse < 3 * sc);
        } else if (variant == 2) {
            /* one size: t/b, the call's own cost included */
            double t = A + RHO * SZ[4];
            CHECK(fabs(rho - t / SZ[4]) < 5 * se_median(0.02 * t, RPASSES) / SZ[4]);
            CHECK(kcal_params_get(&p, "reduce_beta_dof", -1) == 0);
            CHECK(has_note(&notes, "reduce_beta: one size measured"));
        } else if (variant == 3) {
            CHECK(rho == -1);
            CHECK(kcal_params_get(&p, "reduce_beta_cold", -1) == -1);
            CHECK(has_note(&notes, "reduce_beta: the op's time did not grow"));
        } else { /* out of cache faster than in cache: no cold key */
            CHECK(fabs(rho - RHO) < 5 * se_rho);
            CHECK(kcal_params_get(&p, "reduce_beta_cold", -1) == -1);
            CHECK(has_note(&notes, "reduce_beta_cold: out of cache the op was faster"));
        }
        kcal_params_free(&p);
        kcal_raw_free(&r);
    }
}

int main(void)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 20171);
    test_issue9(rng);
    test_ws_monotone(rng);
    test_concurrent_own(rng);
    test_mutual(rng);
    test_dirty(rng);
    test_pass(rng);
    test_reduce_plan();
    test_reduce(rng);
    test_reduce_rates(rng);
    gsl_rng_free(rng);
    return check_report();
}
