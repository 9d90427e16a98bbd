/* fit_samples: the synthetic probe samples the test_fit*.c programs fit,
 * and the standard errors their tolerances follow from.
 *
 * Samples are made with the model itself plus seeded Gaussian noise
 * (gsl_rng, fixed seed), then fitted exactly as `kcal probe` does. Each
 * tolerance follows from the noise: 5 standard errors of the estimate, the
 * standard error computed here from the noise level and the design (not
 * taken from the fit under test), and the fit's own reported standard error
 * must agree with it within a factor of 3. The functions are static inline
 * so that a program which leaves one of them unused still builds with
 * -Werror. */
#ifndef KCAL_TESTS_FIT_SAMPLES_H
#define KCAL_TESTS_FIT_SAMPLES_H

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <string.h>

#include "fit/calibrate.h"
#include "fit/raw.h"

#define PAGE 4096.0
static const double ALPHA = 1.3e-6, LOCK = 1.5e-7, BETA = 1.4e-10;
/* The full model's keys: in-cache copies, one control message. */
static const double BETA_HOT = 3.5e-11, STEP = 1.4e-7;
static const double GA = 0.11, GB = 1.6; /* the paper's KNL gamma */
static const long NS[] = {1, 2, 4, 8, 10, 13, 16, 20, 25, 32, 40, 51, 64, 81,
                          102, 128, 161, 203, 256, 323, 406, 512, 645, 813,
                          1024};
#define NN (sizeof NS / sizeof NS[0])
#define REPS 41
#define CREPS 61
#define CPAGES 256
static const double SIG = 20e-9;  /* noise of one sample, seconds */

/* Standard error of a median of REPS normal samples of σ. */
static inline double se_median(double sigma, int reps)
{
    return sqrt(M_PI / 2) * sigma / sqrt((double)reps);
}

static inline double gamma_of(double c)
{
    return GA * c * c + GB * c;
}

static inline void make_samples(kcal_raw *r, gsl_rng *rng, int max_c)
{
    kcal_raw_init(r);
    kcal_raw_set_meta(r, "page", "4096");
    kcal_raw_set_meta(r, "machine", "synthetic");
    kcal_raw_set_meta(r, "cma_method", "one_byte_local");
    kcal_raw_set_meta(r, "beta_cache", "cold");
    for (int k = 0; k < REPS; k++) {
        kcal_raw_add(r, "syscall", "-", 1, 0, 0, k, 3e-7 + gsl_ran_gaussian(rng, SIG));
        kcal_raw_add(r, "startup", "-", 1, 1, 1, k,
                     ALPHA + LOCK + gsl_ran_gaussian(rng, SIG));
        for (size_t i = 0; i < NN; i++) {
            double t3 = ALPHA + LOCK * NS[i];
            kcal_raw_add(r, "lock", "one_byte_local", 1, NS[i], 1, k,
                         t3 + gsl_ran_gaussian(rng, SIG));
            kcal_raw_add(r, "copy", "cold", 1, NS[i], (long)(NS[i] * PAGE), k,
                         t3 + BETA * NS[i] * PAGE + gsl_ran_gaussian(rng, SIG));
        }
    }
    /* Contention: each reader's T3 at c; noise grows with the time. */
    for (int c = 1; c <= max_c; c++) {
        double g = c == 1 ? 1 : gamma_of(c);
        double t = ALPHA + LOCK * g * CPAGES;
        for (int k = 0; k < CREPS * c; k++)
            kcal_raw_add(r, "contention", "distinct", c, CPAGES, 1, k,
                         t + gsl_ran_gaussian(rng, 0.02 * t));
    }
    /* T_sm(p) = a + b·log2 p. */
    for (int p = 2; p <= 8; p++)
        for (int k = 0; k < REPS; k++)
            kcal_raw_add(r, "sm_bcast", "mpi", p, 0, 8, k,
                         2e-7 + 1e-7 * log2(p) + gsl_ran_gaussian(rng, 5e-9));
    /* The default probe's in-cache T4 (pattern hot) and sync_step (half a
     * ping-pong, phase sm_step; slower with more ranks, the fit takes the
     * smallest p). Drawn last, so the samples above are unchanged. */
    for (int k = 0; k < REPS; k++)
        for (size_t i = 0; i < NN; i++)
            kcal_raw_add(r, "copy", "hot", 1, NS[i], (long)(NS[i] * PAGE), k,
                         ALPHA + LOCK * NS[i] + BETA_HOT * NS[i] * PAGE +
                             gsl_ran_gaussian(rng, SIG));
    for (int p = 2; p <= 4; p++)
        for (int k = 0; k < REPS; k++)
            kcal_raw_add(r, "sm_step", "mpi", p, 0, 8, k,
                         STEP * (p - 1) + gsl_ran_gaussian(rng, 5e-9));
}

/* The working-set sweep (issue 9): memcpy's rate and a CMA copy's β at
 * each working set, the answers the fit must recover. */
/* bytes/s of memcpy at working set w */
static inline double ws_rate(double w)
{
    return w <= (1 << 20) ? 40e9 : w <= (32 << 20) ? 10e9 : 5e9;
}

/* s/byte of a CMA copy at w */
static inline double ws_beta(double w)
{
    return w <= (1 << 20) ? 3e-11 : w <= (32 << 20) ? 1e-10 : 2e-10;
}

/* One repetition's working-set points (phase ws), memcpy and CMA, from
 * 64 KiB to 256 MiB: what makes the full model the default for the fit. */
/* spike: β at 2 MiB times this (a probe that caught the machine in a
 * slower state there). */
static inline void add_ws_samples_spiked(kcal_raw *r, gsl_rng *rng, int k,
                                         double spike)
{
    for (double w = 65536; w <= 256.0 * (1 << 20); w *= 2) {
        long wp = (long)(w / PAGE), chunk = wp / 2 < 256 ? wp / 2 : 256;
        double bytes = chunk * PAGE;
        double beta = ws_beta(w) * (w == 2.0 * (1 << 20) ? spike : 1);
        kcal_raw_add(r, "ws", "memcpy", 1, wp, (long)bytes, k,
                     bytes / ws_rate(w) * (1 + gsl_ran_gaussian(rng, 0.01)));
        kcal_raw_add(r, "ws", "cma", 1, wp, (long)bytes, k,
                     ALPHA + LOCK * chunk + bytes * beta +
                         gsl_ran_gaussian(rng, SIG));
    }
}

static inline void add_ws_samples(kcal_raw *r, gsl_rng *rng, int k)
{
    add_ws_samples_spiked(r, rng, k, 1);
}

/* Whether one of the fit's notes says what. */
static inline int has_note(const kcal_calibrate_notes *notes,
                           const char *what)
{
    for (int i = 0; i < notes->n; i++)
        if (strstr(notes->text[i], what))
            return 1;
    return 0;
}

#endif
