/* calibrate_mutual: cma_mutual from the mutual calls of probe/mutual.c
 * (calibrate_part.h; issue 8). */
#include "fit/calibrate_part.h"

#include <math.h>

/* cma_mutual (issue 8): what a CMA call pays when its target makes CMA
 * calls of its own at the same moment, per call: at each c >= 2 the
 * median of the mutual pattern (each reader reading the next, which reads
 * meanwhile) less that of own (each its passive target), and their
 * weighted mean over the c. Both patterns are 1-page calls, so pinning and
 * copy cancel; what is left is the bouncing of the target's memory-map
 * and task locks between the cores. Every c's difference goes into the
 * comment. */
int cal_mutual(const kcal_raw *raw, kcal_params *out,
               kcal_calibrate_notes *notes, char *comment,
               size_t commentlen, char *err, size_t errlen)
{
    const char *ph = KCAL_PHASE_MUTUAL;
    if (!cal_has_pattern(raw, ph, KCAL_PATTERN_MUTUAL) ||
        !cal_has_pattern(raw, ph, KCAL_PATTERN_OWN))
        return 0;
    long cv[MAXPTS];
    double y[MAXPTS], sg[MAXPTS];
    size_t nc = cal_distinct(raw, ph, KCAL_PATTERN_MUTUAL, 1, cv, MAXPTS);
    size_t n = 0;
    cal_cat(comment, commentlen, "mutual calls, 1 page: mutual - own per call =");
    for (size_t i = 0; i < nc; i++) {
        kcal_stat mu, own;
        if (cv[i] < 2 ||
            cal_point(raw, ph, KCAL_PATTERN_MUTUAL, (int)cv[i], -1, &mu) < 0 ||
            cal_point(raw, ph, KCAL_PATTERN_OWN, (int)cv[i], -1, &own) < 0)
            continue;
        y[n] = mu.median - own.median;
        sg[n] = sqrt(mu.se * mu.se + own.se * own.se);
        cal_cat(comment, commentlen, " c=%ld %.3g s (%.3g - %.3g)", cv[i], y[n],
                mu.median, own.median);
        n++;
    }
    cal_cat(comment, commentlen, "\n");
    if (n == 0) {
        cal_note(notes, "cma_mutual: no c >= 2 with both patterns");
        return 0;
    }
    return cal_mean_nonneg(out, "cma_mutual", y, sg, n, "reader counts",
                           "a call whose target calls too ran no slower",
                           notes, err, errlen);
}
