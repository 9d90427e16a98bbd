/* calibrate_concurrent: δ(c), conc_hot and conc_cold from the concurrent
 * copies of probe/concurrent.c (calibrate_part.h; issue 9). */
#include "fit/calibrate_part.h"
#include "common/err.h"
#include "fit/fit.h"

#include <math.h>

/* δ(c) = copy time with c concurrent copiers / with one, the copy time
 * being T(N) − α − l·N, of one pattern: the points x = c − 1, y = δ − 1
 * (sg its standard error) over c >= 2, and a comment line with every δ.
 * The number of points; 0 when the pattern is missing or unusable. */
static size_t concurrent_delta(const kcal_raw *raw, const char *pattern,
                               double alpha, double lock, double *x,
                               double *y, double *sg, char *comment,
                               size_t commentlen)
{
    long cv[MAXPTS], pv[MAXPTS];
    size_t nc = cal_distinct(raw, KCAL_PHASE_CONCURRENT, pattern, 1, cv,
                             MAXPTS);
    size_t np = cal_distinct(raw, KCAL_PHASE_CONCURRENT, pattern, 0, pv,
                             MAXPTS);
    if (!nc || !np || cv[0] != 1)
        return 0;
    double over = alpha + lock * (double)pv[0];
    kcal_stat one;
    if (cal_point(raw, KCAL_PHASE_CONCURRENT, pattern, 1, pv[0], &one) < 0 ||
        !(one.median > over))
        return 0;
    double c1 = one.median - over;
    size_t n = 0;
    cal_cat(comment, commentlen, "concurrent copies, %s, N = %ld pages: "
            "delta(c) =", pattern, pv[0]);
    for (size_t i = 1; i < nc; i++) {
        kcal_stat st;
        if (cal_point(raw, KCAL_PHASE_CONCURRENT, pattern, (int)cv[i], pv[0],
                      &st) < 0)
            continue;
        double d = (st.median - over) / c1;
        x[n] = (double)cv[i] - 1;
        y[n] = d - 1;
        sg[n] = d * sqrt(pow(st.se / (st.median - over), 2) +
                         pow(one.se / c1, 2));
        if (!(sg[n] > 0))
            sg[n] = 1e-3;
        cal_cat(comment, commentlen, " c=%ld %.3f", cv[i], d);
        n++;
    }
    cal_cat(comment, commentlen, "\n");
    return n;
}

/* conc_hot and conc_cold: the slope k of δ(c) = 1 + k·(c − 1) over c >= 2
 * (weighted, through δ(1) = 1) of the own_* patterns, each copier reading
 * its own target process as the collectives' concurrent copies do; a raw
 * file from before them fits from distinct_*, whose copiers read one
 * target and also contend on its page tables (γ(c)'s cost). Every
 * pattern's δ(c) goes into the comment. */
int cal_concurrent(const kcal_raw *raw, double alpha, double lock,
                   kcal_params *out, kcal_calibrate_notes *notes,
                   char *comment, size_t commentlen, char *err,
                   size_t errlen)
{
    static const char *const pats[] = {
        KCAL_PATTERN_OWN_HOT,      KCAL_PATTERN_OWN_COLD,
        KCAL_PATTERN_DISTINCT_HOT, KCAL_PATTERN_DISTINCT_COLD,
        KCAL_PATTERN_SAME_HOT,     KCAL_PATTERN_SAME_COLD};
    enum { NPAT = sizeof pats / sizeof pats[0] };
    static const struct {
        const char *key;
        int pat, older; /* in pats: the pattern, and older files' */
    } keys[] = {{"conc_hot", 0, 2}, {"conc_cold", 1, 3}};
    double x[NPAT][MAXPTS], y[NPAT][MAXPTS], sg[NPAT][MAXPTS];
    size_t n[NPAT];
    for (size_t pi = 0; pi < NPAT; pi++)
        n[pi] = concurrent_delta(raw, pats[pi], alpha, lock, x[pi], y[pi],
                                 sg[pi], comment, commentlen);
    for (size_t ki = 0; ki < sizeof keys / sizeof keys[0]; ki++) {
        int own = cal_has_pattern(raw, KCAL_PHASE_CONCURRENT, pats[keys[ki].pat]);
        int pi = own ? keys[ki].pat : keys[ki].older;
        if (n[pi] == 0)
            continue;
        double k, kse;
        if (kcal_fit_origin(x[pi], y[pi], sg[pi], n[pi], &k, &kse) < 0) {
            kcal_set_err(err, errlen, "the fit of %s over %zu copier counts "
                         "failed", keys[ki].key, n[pi]);
            return -1;
        }
        cal_cat(comment, commentlen, "%s = slope k of delta(c) = 1 + k*(c - 1) "
                "of %s (%s)\n", keys[ki].key, pats[pi],
                own ? "each copier reading its own target process"
                : "a raw file without own_*: copiers of one target, which "
                  "also contend on its page tables");
        if (k < 0) {
            cal_note(notes, "%s: the fit gave %.3g < 0 (concurrent copies ran "
                     "no slower than one); held at 0", keys[ki].key, k);
            k = 0;
        }
        if (cal_set_fit(out, keys[ki].key, k, kse, err, errlen) < 0)
            return -1;
    }
    return 0;
}
