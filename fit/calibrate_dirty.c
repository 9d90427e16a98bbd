/* calibrate_dirty: dirty_beta and dirty_bytes from the reads of lines
 * another core just wrote, probe/dirty.c (calibrate_part.h; issue 9). */
#include "fit/calibrate_part.h"
#include "common/sizes.h"
#include "fit/fit.h"

#include <math.h>
#include <stdint.h>

/* Lines another core just wrote (probe/dirty.h): per size N the extra
 * d(N) = T_dirty − T_clean, the difference of the medians with standard
 * error √(se_dirty² + se_clean²), fitted as d(N) = e·min(N, C)
 * (kcal_fit_hinge): dirty_beta = e (s/byte), dirty_bytes = C (bytes).
 * No keys, and a note that says why, with fewer than 3 sizes or when the
 * extra is not positive (its weighted mean over the sizes within 3
 * standard errors of 0, or below); a C at an end of the measured sizes is
 * held there, with a note, and so is a misfit far beyond the points'
 * errors. The header lists d(N)/N per size. */
int cal_dirty(const kcal_raw *raw, double page, kcal_params *out,
              kcal_calibrate_notes *notes, char *comment,
              size_t commentlen, char *err, size_t errlen)
{
    if (!cal_has_pattern(raw, KCAL_PHASE_DIRTY, NULL))
        return 0;
    static const char *const keys = "dirty_beta, dirty_bytes";
    long pv[MAXPTS];
    size_t np = cal_distinct(raw, KCAL_PHASE_DIRTY, KCAL_PATTERN_DIRTY, 0,
                             pv, MAXPTS), n = 0;
    double x[MAXPTS], y[MAXPTS], sg[MAXPTS];
    char a[32], b[32];
    cal_cat(comment, commentlen, "lines another core just wrote, extra per byte "
            "(T_dirty - T_clean)/N in ns/B:");
    for (size_t i = 0; i < np; i++) {
        kcal_stat c, d;
        if (cal_point(raw, KCAL_PHASE_DIRTY, KCAL_PATTERN_CLEAN, 0, pv[i],
                      &c) < 0 ||
            cal_point(raw, KCAL_PHASE_DIRTY, KCAL_PATTERN_DIRTY, 0, pv[i],
                      &d) < 0)
            continue;
        x[n] = (double)pv[i] * page;
        y[n] = d.median - c.median;
        sg[n] = sqrt(d.se * d.se + c.se * c.se);
        cal_cat(comment, commentlen, " %s %.3g",
                kcal_sizes_format((uint64_t)x[n], a, sizeof a), 1e9 * y[n] / x[n]);
        n++;
    }
    cal_cat(comment, commentlen, "\n");
    if (n < 3) {
        cal_note(notes, "%s: %zu size(s) with both clean and dirty reads, the "
                 "fit needs 3: not written", keys, n);
        return 0;
    }
    /* Is there an extra at all? The weighted mean of d(N) against its
     * standard error from the points' own (not scaled by the misfit of a
     * constant, which a real hinge makes large). */
    double sw = 0, swy = 0;
    for (size_t i = 0; i < n; i++) {
        sw += 1 / (sg[i] * sg[i]);
        swy += y[i] / (sg[i] * sg[i]);
    }
    double mean = swy / sw, mse = 1 / sqrt(sw);
    if (!(mean > 3 * mse)) {
        cal_note(notes, "%s: reading lines another core just wrote was no "
                 "slower than reading clean ones (the difference over %zu sizes "
                 "averages %.3g s +- %.2g): not written", keys, n, mean, mse);
        cal_cat(comment, commentlen, "no extra for lines just written (mean "
                "%.3g s +- %.2g): dirty_beta, dirty_bytes not written\n", mean,
                mse);
        return 0;
    }
    kcal_hingefit hf;
    if (kcal_fit_hinge(x, y, sg, n, &hf) < 0 || !(hf.e > 0)) {
        cal_note(notes, "%s: the fit of e*min(N, C) over %zu sizes failed: not "
                 "written", keys, n);
        return 0;
    }
    if (hf.held_c > 0)
        cal_note(notes, "dirty_bytes: the extra still grows at the largest size "
                 "measured (%s): C held there, a lower bound",
                 kcal_sizes_format((uint64_t)hf.c, a, sizeof a));
    else if (hf.held_c < 0)
        cal_note(notes, "dirty_bytes: the extra is as large at the smallest size "
                 "measured (%s) as at any other: C held there, an upper bound",
                 kcal_sizes_format((uint64_t)hf.c, a, sizeof a));
    /* A misfit far beyond the points' errors: the extra has another shape
     * than the hinge (standard errors already scaled by it). */
    if (hf.dof > 0 && hf.chisq / hf.dof > 25)
        cal_note(notes, "%s: e*min(N, C) fits the measured extra poorly (chi2/dof "
                 "%.0f, the standard errors scaled by it); the params file's "
                 "header lists the extra per size", keys, hf.chisq / hf.dof);
    cal_cat(comment, commentlen, "dirty fit: d(N) = e*min(N, C) over %zu sizes "
            "N = %s..%s, dof %d, chi2 %.3g: e = %.3g ns/B, C = %.0f KiB%s\n", n,
            kcal_sizes_format((uint64_t)x[0], a, sizeof a),
            kcal_sizes_format((uint64_t)x[n - 1], b, sizeof b), hf.dof, hf.chisq,
            1e9 * hf.e, hf.c / 1024,
            hf.held_c > 0 ? " (held at the largest N)"
            : hf.held_c < 0 ? " (held at the smallest N)" : "");
    if (cal_set_fit(out, "dirty_beta", hf.e, hf.se_e, err, errlen) < 0 ||
        cal_set_fit(out, "dirty_bytes", hf.c, hf.se_c, err, errlen) < 0)
        return -1;
    return 0;
}
