/* calibrate_contention: γ(c) from the concurrent readers of
 * probe/contention.c (calibrate_part.h). */
#include "fit/calibrate_part.h"
#include "common/err.h"
#include "fit/fit.h"

int cal_contention(const kcal_raw *raw, double alpha, double lock,
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
        size_t nr = cal_distinct(raw, KCAL_PHASE_CONTENTION, patterns[pi], 1, rv, MAXPTS);
        size_t np = cal_distinct(raw, KCAL_PHASE_CONTENTION, patterns[pi], 0, pv, MAXPTS);
        if (nr == 0 || np == 0)
            continue;
        long N = pv[np - 1]; /* the largest N: lock time dominates */
        cal_cat(comment, commentlen, "gamma(c) measured, %s pages, N = %ld:",
                patterns[pi], N);
        for (size_t i = 0; i < nr; i++) {
            kcal_stat st;
            if (cal_point(raw, KCAL_PHASE_CONTENTION, patterns[pi], (int)rv[i], N, &st) < 0)
                continue;
            /* Per-page lock time at c, over l (model.md): γ(c). */
            double g = (st.median - alpha) / (double)N / lock;
            double sg = st.se / (double)N / lock;
            cal_cat(comment, commentlen, " c=%ld %.3f", rv[i], g);
            if (pi == 0) {
                cs[nfit] = (double)rv[i];
                gs[nfit] = g;
                ss[nfit] = sg;
                nfit++;
                pages_used = N;
            }
        }
        cal_cat(comment, commentlen, "\n");
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
        cal_note(notes, "gamma: no contended point measured (1 reader): "
                 "gamma_a = 0, gamma_b = 1 are an assumption (gamma(c) = c)");
        if (cal_set_fit(out, "gamma_a", 0, 0, err, errlen) < 0 ||
            cal_set_fit(out, "gamma_b", 1, 0, err, errlen) < 0 ||
            cal_set_num(out, "gamma_a_dof", 0, err, errlen) < 0)
            return -1;
        return 0;
    }
    if (n == 1)
        cal_note(notes, "gamma: one contended point (c = %g) for 2 parameters: "
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
        cal_note(notes, "gamma: the free fit gave gamma_a = %.4g, gamma_b = %.4g; "
                 "params must be >= 0, so %s held at 0 and the rest re-fitted",
                 gf.free_a, gf.free_b,
                 gf.fixed_a && gf.fixed_b ? "both are"
                 : gf.fixed_a            ? "gamma_a is"
                                     : "gamma_b is");
    if (gf.dof == 0)
        cal_note(notes, "gamma: dof 0 (as many points as parameters): the "
                 "standard errors come from the measurement spread alone");
    cal_cat(comment, commentlen,
            "gamma fit: %zu points (c = %g..%g, N = %ld pages, pattern distinct), "
            "dof %d, chi2 %.3g\n", n, cs[first], cs[nfit - 1], pages_used, gf.dof,
            gf.chisq);
    if (cal_set_fit(out, "gamma_a", gf.a, gf.se_a, err, errlen) < 0 ||
        cal_set_fit(out, "gamma_b", gf.b, gf.se_b, err, errlen) < 0 ||
        cal_set_num(out, "gamma_a_dof", gf.dof, err, errlen) < 0)
        return -1;
    return 0;
}
