/* calibrate_sm: T_sm_X(p), sync_step and sm_flag from what kcal-sm-bench
 * timed for probe/sm.c (calibrate_part.h). */
#include "fit/calibrate_part.h"
#include "fit/fit.h"
#include "model/params.h"

#include <math.h>
#include <stdio.h>

int cal_sm(const kcal_raw *raw, kcal_params *out,
           kcal_calibrate_notes *notes, char *comment, size_t commentlen,
           char *err, size_t errlen)
{
    int measured = 0;
    for (int op = 0; op < KCAL_SM_COUNT; op++) {
        char phase[32], ka[48], kb[48];
        snprintf(phase, sizeof phase, KCAL_PHASE_SM_PREFIX "%s", kcal_sm_name(op));
        snprintf(ka, sizeof ka, "sm_%s_a", kcal_sm_name(op));
        snprintf(kb, sizeof kb, "sm_%s_b", kcal_sm_name(op));
        long pv[MAXPTS];
        size_t np = cal_distinct(raw, phase, NULL, 1, pv, MAXPTS), n = 0;
        double x[MAXPTS], y[MAXPTS], se[MAXPTS];
        if (np == 0)
            continue;
        measured = 1;
        cal_cat(comment, commentlen, "T_sm_%s measured:", kcal_sm_name(op));
        for (size_t i = 0; i < np; i++) {
            kcal_stat st;
            if (pv[i] < 2 || cal_point(raw, phase, NULL, (int)pv[i], -1, &st) < 0)
                continue;
            x[n] = log2((double)pv[i]);
            y[n] = st.median;
            se[n] = st.se;
            cal_cat(comment, commentlen, " p=%ld %.3g s", pv[i], st.median);
            n++;
        }
        cal_cat(comment, commentlen, "\n");
        double a = 0, b = 0, sa = 0, sb = 0;
        if (n == 1) {
            /* T_sm(p) = a + b·log2 p at one p: b is not identifiable. */
            a = y[0];
            sa = se[0];
            cal_note(notes, "%s: measured at p = %g only: %s = T_sm(p), %s = 0 "
                     "(the log2 p growth needs at least 2 values of p)", phase,
                     exp2(x[0]), ka, kb);
        } else if (n >= 2) {
            if (cal_line_nonneg(x, y, se, n, phase, ka, kb, notes, &a, &b,
                                &sa, &sb, err, errlen) < 0)
                return -1;
        } else {
            continue;
        }
        if (cal_set_fit(out, ka, a, sa, err, errlen) < 0 ||
            cal_set_fit(out, kb, b, sb, err, errlen) < 0)
            return -1;
    }
    if (!measured)
        cal_cat(comment, commentlen, "T_sm not measured (no MPI run): the sm_* "
                "keys are absent and count as 0\n");
    return 0;
}

/* A ping-pong key: the median of phase's samples (half a ping-pong) at the
 * smallest p of 2 or more it was measured at; the smallest p is the
 * cleanest (no idle ranks competing for cores). `what` says what bounced.
 * Absent samples leave the key absent. 0 or -1. */
static int fit_ping_pong(const kcal_raw *raw, const char *phase,
                         const char *key, const char *what, kcal_params *out,
                         char *comment, size_t commentlen, char *err,
                         size_t errlen)
{
    long pv[MAXPTS];
    size_t np = cal_distinct(raw, phase, NULL, 1, pv, MAXPTS);
    for (size_t i = 0; i < np; i++) {
        kcal_stat st;
        if (pv[i] < 2 || cal_point(raw, phase, NULL, (int)pv[i], -1, &st) < 0)
            continue;
        cal_cat(comment, commentlen, "%s = median of half %s ping-pong between "
                "2 of %ld ranks, %zu samples: %.3g s\n", key, what, pv[i], st.n,
                st.median);
        return cal_set_fit(out, key, st.median, st.se, err, errlen);
    }
    return 0;
}

/* sync_step (the full model): one point-to-point control message between
 * two ranks, timed by kcal-sm-bench as half an 8-byte ping-pong (phase
 * sm_step). */
int cal_sm_sync_step(const kcal_raw *raw, kcal_params *out, char *comment,
                     size_t commentlen, char *err, size_t errlen)
{
    return fit_ping_pong(raw, KCAL_PHASE_SM_STEP, "sync_step", "an 8-byte",
                         out, comment, commentlen, err, errlen);
}

/* sm_flag (the derived *_flags rows): one flag in shared memory seen by a
 * polling rank, timed by kcal-sm-bench as half a flag ping-pong (phase
 * sm_flag). */
int cal_sm_flag(const kcal_raw *raw, kcal_params *out, char *comment,
                size_t commentlen, char *err, size_t errlen)
{
    return fit_ping_pong(raw, KCAL_PHASE_SM_FLAG, "sm_flag",
                         "a shared-memory flag", out, comment, commentlen,
                         err, errlen);
}
