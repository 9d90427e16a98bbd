/* calibrate_reduce: reduce_beta and reduce_<op>_<class>_beta from the
 * reductions' op that kcal-sm-bench timed for probe/reduce.c
 * (calibrate_part.h). */
#include "fit/calibrate_part.h"
#include "common/err.h"
#include "common/sizes.h"
#include "fit/fit.h"
#include "model/keys.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The pairs of model/reduce_rates.def: the patterns their samples carry
 * (the member name, out of cache with probe/reduce.h's suffix, as
 * probe/reduce_rates.c spells them) and their key's slot. */
static const struct {
    const char *op, *cls, *pattern, *cold;
} rates[KCAL_N_MEMBERS_REDOP] = {
#define KCAL_REDUCE_RATE(op, cls)                                             \
    {#op, #cls, #op "_" #cls, #op "_" #cls KCAL_PATTERN_COLD_SUFFIX},
#include "model/reduce_rates.def"
};

/* ρ of one pattern's passes [lo, hi) alone: the slope of the same line.
 * 0, or -1 when a size has no sample there or the fit fails. */
static int block_slope(const kcal_raw *raw, const char *pat, const long *nn,
                       size_t n, long lo, long hi, double *slope)
{
    double x[MAXPTS], y[MAXPTS], se[MAXPTS];
    for (size_t i = 0; i < n; i++) {
        kcal_stat st;
        if (cal_point_sel(raw, KCAL_PHASE_REDUCE, pat, 0, -1, nn[i], lo, hi,
                          &st) < 0)
            return -1;
        x[i] = (double)nn[i];
        y[i] = st.median;
        se[i] = st.se > 0 ? st.se : 1e-3 * st.median;
    }
    kcal_linfit lf;
    if (kcal_fit_line(x, y, se, n, &lf) < 0)
        return -1;
    *slope = lf.c1;
    return 0;
}

/* The batch-means standard error of ρ (calibrate_part.h's KCAL_BATCHES
 * blocks of passes, as α, l and β have), or 0 with fewer than 5 passes a
 * block. The pairs share hot's passes: the phase's count is theirs. */
static double batch_se(const kcal_raw *raw, const char *pat, const long *nn,
                       size_t n)
{
    long passes = 0;
    for (size_t i = 0; i < raw->n; i++)
        if (!strcmp(raw->s[i].phase, KCAL_PHASE_REDUCE) &&
            raw->s[i].rep + 1L > passes)
            passes = raw->s[i].rep + 1L;
    if (passes < 5 * KCAL_BATCHES)
        return 0;
    double est[KCAL_BATCHES];
    for (int b = 0; b < KCAL_BATCHES; b++)
        if (block_slope(raw, pat, nn, n, passes * b / KCAL_BATCHES,
                        passes * (b + 1) / KCAL_BATCHES, &est[b]) < 0)
            return 0;
    return kcal_fit_batch_se(est, KCAL_BATCHES);
}

/* One pattern's line t(b) = a + ρ·b over its sizes. */
typedef struct {
    long nn[MAXPTS];  /* the sizes, ascending */
    double y[MAXPTS]; /* their median times */
    size_t n;
    double a, rho, srho;
    int dof;
} rate_fit;

/* MPI_Reduce_local's time per call t(b) = a + ρ·b over the sizes of pat
 * (weighted line, both ≥ 0), ρ written as key with the larger of the
 * fit's and the batch-means standard error, and n − 2 degrees of freedom
 * (n − 1 with a held at 0; one size: t/b, 0). a, the call's own cost, is
 * not a key: the model charges the op per byte only (its calls are on
 * chunks of up to 256 KiB). 1 (written), 0 (ρ not above 3 standard
 * errors: a note, nothing written), -1 with err. */
static int fit_rate(const kcal_raw *raw, const char *pat, const char *key,
                    kcal_params *out, kcal_calibrate_notes *notes,
                    rate_fit *f, char *err, size_t errlen)
{
    const char *ph = KCAL_PHASE_REDUCE;
    int pp[MAXPTS];
    double x[MAXPTS], se[MAXPTS], sa = 0;
    if (cal_bytes_points(raw, ph, pat, pp, f->nn, f->y, se, MAXPTS, &f->n) <
        0) {
        kcal_set_err(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < f->n; i++)
        x[i] = (double)f->nn[i];
    f->a = 0;
    if (f->n == 1) {
        /* One size: the call's own cost cannot be told apart. */
        if (kcal_fit_origin(x, f->y, se, f->n, &f->rho, &f->srho) < 0) {
            kcal_set_err(err, errlen, "the fit of %s failed", key);
            return -1;
        }
        f->dof = 0;
        cal_note(notes, "%s: one size measured, t/b taken (the call's own "
                 "cost included)", key);
    } else {
        if (cal_line_nonneg(x, f->y, se, f->n, ph, "the call's own cost", key,
                            notes, &f->a, &f->rho, &sa, &f->srho, err,
                            errlen) < 0)
            return -1;
        f->dof = (int)f->n - (f->a == 0 && sa == 0 ? 1 : 2);
        double bse = batch_se(raw, pat, f->nn, f->n);
        if (bse > f->srho)
            f->srho = bse;
    }
    if (!(f->rho > 3 * f->srho)) {
        cal_note(notes, "%s: the op's time did not grow with the size (rho "
                 "%.3g s/B +- %.2g): not written", key, f->rho, f->srho);
        return 0;
    }
    char kd[64];
    kcal_key_family_name(KCAL_PK_key_dof, key, kd, sizeof kd);
    if (cal_set_fit(out, key, f->rho, f->srho, err, errlen) < 0 ||
        cal_set_num(out, kd, f->dof, err, errlen) < 0)
        return -1;
    return 1;
}

/* An out-of-cache pattern's rate: "; out of cache SIZE: R ns/B (G GB/s)"
 * on the comment per size, and the largest size's t/b (its median's
 * standard error over b) written as key, for the record (the model does
 * not use it: docs/model.md "Reductions"). Not where it is below rho ±
 * srho, the same op's rate in cache (0: none), by more than 3 standard
 * errors of the difference: memory cannot be faster than cache, so such
 * samples were not out of cache (a note). An op bound by its own work
 * (the logical ops, MINLOC) runs as fast out of cache as in it, and its
 * key is written. 0, or -1 with err. */
static int cold_rate(const kcal_raw *raw, const char *pat, const char *key,
                     double rho, double srho, kcal_params *out,
                     kcal_calibrate_notes *notes, char *comment,
                     size_t commentlen, char *err, size_t errlen)
{
    int pp[MAXPTS];
    long nn[MAXPTS];
    double y[MAXPTS], se[MAXPTS];
    size_t n;
    char a_[32];
    if (cal_bytes_points(raw, KCAL_PHASE_REDUCE, pat, pp, nn, y, se, MAXPTS,
                         &n) < 0) {
        kcal_set_err(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        cal_cat(comment, commentlen, "; out of cache %s: %.4g ns/B (%.3g GB/s)",
                kcal_sizes_format((uint64_t)nn[i], a_, sizeof a_),
                1e9 * y[i] / (double)nn[i], (double)nn[i] / y[i] * 1e-9);
    if (n == 0)
        return 0;
    double rc = y[n - 1] / (double)nn[n - 1], src = se[n - 1] / (double)nn[n - 1];
    if (rc > rho - 3 * sqrt(src * src + srho * srho))
        return cal_set_fit(out, key, rc, src, err, errlen);
    cal_note(notes, "%s: out of cache the op was faster than in cache "
             "(%.3g against %.3g s/B): not written", key, rc, rho);
    return 0;
}

/* reduce_<op>_<class>_beta: fit_rate of every pair with samples, and
 * reduce_<op>_<class>_beta_cold, cold_rate of its samples out of cache; a
 * comment line each. */
static int cal_reduce_rates(const kcal_raw *raw, kcal_params *out,
                            kcal_calibrate_notes *notes, char *comment,
                            size_t commentlen, char *err, size_t errlen)
{
    rate_fit f;
    for (int i = 0; i < KCAL_N_MEMBERS_REDOP; i++) {
        const char *key = kcal_key_name(KCAL_PK_MEMBER(reduce_rate, i));
        int hot = cal_has_pattern(raw, KCAL_PHASE_REDUCE, rates[i].pattern);
        if (!hot && !cal_has_pattern(raw, KCAL_PHASE_REDUCE, rates[i].cold))
            continue;
        int r = hot ? fit_rate(raw, rates[i].pattern, key, out, notes, &f,
                               err, errlen)
                    : 0;
        if (r < 0)
            return -1;
        cal_cat(comment, commentlen, "reduce %s on %s: ", rates[i].op,
                rates[i].cls);
        if (!hot)
            cal_cat(comment, commentlen, "not timed in cache");
        else if (r == 0)
            cal_cat(comment, commentlen, "no growth with the size, %s not "
                    "written", key);
        else
            cal_cat(comment, commentlen, "rho = %.4g ns/B (%.3g GB/s)",
                    1e9 * f.rho, 1e-9 / f.rho);
        if (cold_rate(raw, rates[i].cold,
                      kcal_key_name(KCAL_PK_MEMBER(reduce_rate_cold, i)),
                      r > 0 ? f.rho : 0, r > 0 ? f.srho : 0, out, notes,
                      comment, commentlen, err, errlen) < 0)
            return -1;
        cal_cat(comment, commentlen, "\n");
    }
    return 0;
}

/* reduce_beta: fit_rate of the in-cache sizes of MPI_SUM on doubles
 * (pattern hot). reduce_beta_cold: the out-of-cache size's t/b (its
 * median's standard error over b), where it is above ρ, for the record
 * (the model does not use it: docs/model.md "Reductions"). Then the
 * pairs'. */
int cal_reduce(const kcal_raw *raw, kcal_params *out,
               kcal_calibrate_notes *notes, char *comment, size_t commentlen,
               char *err, size_t errlen)
{
    const char *ph = KCAL_PHASE_REDUCE, *key = KCAL_KEY_NAME(reduce_beta);
    if (!cal_has_pattern(raw, ph, KCAL_PATTERN_HOT))
        return cal_reduce_rates(raw, out, notes, comment, commentlen, err,
                                errlen);
    rate_fit f;
    char a_[32];
    int r = fit_rate(raw, KCAL_PATTERN_HOT, key, out, notes, &f, err, errlen);
    if (r < 0)
        return -1;
    cal_cat(comment, commentlen, "reduce, MPI_Reduce_local (MPI_SUM on "
            "doubles) in cache, time per byte in ns/B:");
    for (size_t i = 0; i < f.n; i++)
        cal_cat(comment, commentlen, " %s %.3g",
                kcal_sizes_format((uint64_t)f.nn[i], a_, sizeof a_),
                1e9 * f.y[i] / (double)f.nn[i]);
    cal_cat(comment, commentlen, "\n");
    if (r == 0) {
        cal_cat(comment, commentlen, "reduce fit: no growth with the size, "
                "%s not written\n", key);
        return cal_reduce_rates(raw, out, notes, comment, commentlen, err,
                                errlen);
    }
    cal_cat(comment, commentlen, "reduce fit: t = a + rho*b over %zu sizes "
            "%s..", f.n, kcal_sizes_format((uint64_t)f.nn[0], a_, sizeof a_));
    cal_cat(comment, commentlen, "%s, dof %d: a = %.3g us, rho = %.4g ns/B "
            "(%.3g GB/s)", kcal_sizes_format((uint64_t)f.nn[f.n - 1], a_,
                                             sizeof a_),
            f.dof, 1e6 * f.a, 1e9 * f.rho, 1e-9 / f.rho);
    if (cold_rate(raw, KCAL_PATTERN_COLD, KCAL_KEY_NAME(reduce_beta_cold),
                  f.rho, f.srho, out, notes, comment, commentlen, err,
                  errlen) < 0)
        return -1;
    cal_cat(comment, commentlen, "\n");
    return cal_reduce_rates(raw, out, notes, comment, commentlen, err,
                            errlen);
}
