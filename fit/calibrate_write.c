/* calibrate_write: the write keys from the process_vm_writev sweeps
 * (phases *_write of probe/phases.c and probe/bandwidth.c;
 * calibrate_part.h). */
#include "fit/calibrate_part.h"
#include "fit/fit.h"

#include <math.h>
#include <stdio.h>

/* Writes: T3w(N) = alpha_write + lock_write·N, beta_write the slope of
 * T4w − T3w over N·s. A write key goes into the params only where it
 * differs from its read key by more than 3 standard errors (combined);
 * otherwise the full model's *_write rows use the read key, and the header
 * says so. */
int cal_write(const kcal_raw *raw, double page, kcal_params *out,
              kcal_calibrate_notes *notes, char *comment,
              size_t commentlen, char *err, size_t errlen)
{
    const char *lp = KCAL_PATTERN_ONE_BYTE_LOCAL;
    if (!cal_has_pattern(raw, KCAL_PHASE_LOCK_WRITE, lp))
        return 0;
    double x[MAXPTS], y[MAXPTS], se[MAXPTS], x4[MAXPTS], y4[MAXPTS],
        se4[MAXPTS], bx[MAXPTS], by[MAXPTS], bs[MAXPTS];
    size_t n = cal_curve(raw, KCAL_PHASE_LOCK_WRITE, lp, x, y, se), nb = 0;
    kcal_linfit lf, bf;
    if (n < 3 || kcal_fit_line(x, y, se, n, &lf) < 0) {
        cal_note(notes, "writes: too few T3 write points to fit (%zu)", n);
        return 0;
    }
    const char *cp = cal_has_pattern(raw, KCAL_PHASE_COPY_WRITE, KCAL_PATTERN_COLD)
                         ? KCAL_PATTERN_COLD
                         : KCAL_PATTERN_HOT;
    size_t n4 = cal_curve(raw, KCAL_PHASE_COPY_WRITE, cp, x4, y4, se4);
    nb = cal_copy_minus_lock(x, y, se, n, x4, y4, se4, n4, page, bx, by, bs);
    int have_beta = nb >= 2 && kcal_fit_line(bx, by, bs, nb, &bf) == 0 &&
                    bf.c1 > 0;
    const struct {
        const char *key, *read;
        double v, se;
        int ok;
    } k[] = {{"alpha_write", "alpha", lf.c0, lf.se0, lf.c0 > 0},
             {"lock_write", "lock", lf.c1, lf.se1, lf.c1 > 0},
             {"beta_write", "beta", have_beta ? bf.c1 : 0,
              have_beta ? bf.se1 : 0, have_beta}};
    cal_cat(comment, commentlen, "writes (process_vm_writev): T3w = %.3g s + "
            "%.3g s/page * N over %zu page counts", lf.c0, lf.c1, n);
    if (have_beta)
        cal_cat(comment, commentlen, ", T4w - T3w over N*s: %.3g GB/s (%s)",
                1e-9 / bf.c1, cp);
    cal_cat(comment, commentlen, "\n");
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
        if (!k[i].ok)
            continue;
        char sk[64];
        snprintf(sk, sizeof sk, "%s_stderr", k[i].read);
        double r = kcal_params_get(out, k[i].read, NAN);
        double rs = kcal_params_get(out, sk, 0);
        double lim = 3 * sqrt(k[i].se * k[i].se + rs * rs);
        if (isnan(r))
            continue;
        if (fabs(k[i].v - r) > lim) {
            cal_cat(comment, commentlen, "%s = %.4g differs from %s = %.4g by "
                    "more than 3 standard errors (%.3g): a key of its own\n",
                    k[i].key, k[i].v, k[i].read, r, lim);
            if (cal_set_fit(out, k[i].key, k[i].v, k[i].se, err, errlen) < 0)
                return -1;
        } else {
            cal_cat(comment, commentlen, "%s = %.4g is within 3 standard errors "
                    "(%.3g) of %s = %.4g: writes use %s\n", k[i].key, k[i].v,
                    lim, k[i].read, r, k[i].read);
        }
    }
    return 0;
}
