/* calibrate_part: what every per-phase fit leaves (see calibrate_part.h). */
#include "fit/calibrate_part.h"
#include "common/err.h"
#include "fit/fit.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cal_note(kcal_calibrate_notes *notes, const char *fmt, ...)
{
    if (!notes || notes->n >= KCAL_CALIBRATE_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(notes->text[notes->n++], sizeof notes->text[0], fmt, ap);
    va_end(ap);
}

int cal_set_num(kcal_params *p, const char *key, double v, char *err,
                size_t errlen)
{
    if (kcal_params_set(p, key, v) < 0) {
        kcal_set_err(err, errlen, "fitted %s = %g is not a finite number >= 0", key,
                v);
        return -1;
    }
    return 0;
}

int cal_set_fit(kcal_params *p, const char *key, double v, double se,
                char *err, size_t errlen)
{
    char k[64];
    if (cal_set_num(p, key, v, err, errlen) < 0)
        return -1;
    snprintf(k, sizeof k, "%s_stderr", key);
    return cal_set_num(p, k, isfinite(se) ? se : 0, err, errlen);
}

void cal_cat(char *buf, size_t len, const char *fmt, ...)
{
    if (!buf || !len)
        return;
    size_t used = strlen(buf);
    if (used + 1 >= len)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, len - used, fmt, ap);
    va_end(ap);
}

/* y = a + b·x through (x, y, se), both coefficients ≥ 0 (params are): a
 * negative free coefficient is held at 0 and the other refitted, with a
 * note naming its key (ka for a, kb for b). 0, or -1 with err. */
int cal_line_nonneg(const double *x, const double *y, const double *se,
                    size_t n, const char *phase, const char *ka,
                    const char *kb, kcal_calibrate_notes *notes,
                    double *a, double *b, double *sa, double *sb,
                    char *err, size_t errlen)
{
    kcal_linfit lf;
    if (kcal_fit_line(x, y, se, n, &lf) < 0) {
        kcal_set_err(err, errlen, "the linear fit of %s failed", phase);
        return -1;
    }
    *a = lf.c0, *b = lf.c1, *sa = lf.se0, *sb = lf.se1;
    const char *held = NULL;
    double free_value = 0;
    if (lf.c1 < 0) {
        held = kb, free_value = lf.c1;
        if (kcal_fit_const(y, se, n, a, sa) < 0)
            goto fail;
        *b = *sb = 0;
    } else if (lf.c0 < 0) {
        held = ka, free_value = lf.c0;
        if (kcal_fit_origin(x, y, se, n, b, sb) < 0)
            goto fail;
        *a = *sa = 0;
    }
    if (held)
        cal_note(notes, "%s: the free fit gave %s = %.3g < 0; held at 0", phase,
                 held, free_value);
    return 0;
fail:
    kcal_set_err(err, errlen, "the fit of %s with %s held at 0 failed", phase,
                 held);
    return -1;
}

/* key = the weighted mean of n differences y (seconds, standard errors
 * sg), with its standard error; a negative mean is held at 0 with a note
 * saying why it came out so (`faster`). `points` names the n in the
 * error message. 0 or -1. */
int cal_mean_nonneg(kcal_params *out, const char *key, const double *y,
                    const double *sg, size_t n, const char *points,
                    const char *faster, kcal_calibrate_notes *notes,
                    char *err, size_t errlen)
{
    double v, se;
    if (kcal_fit_const(y, sg, n, &v, &se) < 0) {
        kcal_set_err(err, errlen, "the fit of %s over %zu %s failed", key, n,
                     points);
        return -1;
    }
    if (v < 0) {
        cal_note(notes, "%s: the fit gave %.3g s < 0 (%s); held at 0", key, v,
                 faster);
        v = 0;
    }
    return cal_set_fit(out, key, v, se, err, errlen);
}
