/* calibrate_knee: the cache knee, memcpy_ws_* and β(working set) from
 * the working-set sweep of probe/knee.c (calibrate_part.h; issue 9). */
#include "fit/calibrate_part.h"
#include "common/err.h"
#include "common/sizes.h"
#include "fit/fit.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The key of β at working set W bytes: beta_ws_ and W as kcal's sizes
 * write it, in lower case (beta_ws_64k, beta_ws_512m). */
static void ws_key(const char *prefix, uint64_t w, char *key, size_t len)
{
    char sz[32];
    kcal_sizes_format(w, sz, sizeof sz);
    for (char *c = sz; *c; c++)
        *c = (char)tolower((unsigned char)*c);
    snprintf(key, len, "%s%s", prefix, sz);
}

int kcal_calibrate_knee(const kcal_raw *raw, double page, double *knee,
                        double *se)
{
    long wv[MAXPTS];
    size_t nw = cal_distinct(raw, KCAL_PHASE_WS, KCAL_PATTERN_MEMCPY, 0, wv,
                             MAXPTS);
    double lw[MAXPTS], lr[MAXPTS], sr[MAXPTS];
    size_t n = 0;
    for (size_t i = 0; i < nw; i++) {
        kcal_stat st;
        if (cal_point(raw, KCAL_PHASE_WS, KCAL_PATTERN_MEMCPY, 0, wv[i],
                      &st) < 0 || !(st.median > 0))
            continue;
        /* log rate = log(bytes per call) - log(median): only the log of
         * the median matters for where the rate falls. */
        lw[n] = log((double)wv[i] * page);
        lr[n] = -log(st.median);
        sr[n] = st.se / st.median; /* relative error = error of the log */
        n++;
    }
    if (n < 3)
        return -1;
    /* The rate out of cache is the largest working set's; the knee is
     * where the rate last falls below 1.5 times it, interpolated in
     * log-log between the two working sets around it. */
    double th = lr[n - 1] + log(1.5);
    size_t k = n;
    for (size_t i = n - 1; i > 0; i--)
        if (lr[i - 1] > th && lr[i] <= th) {
            k = i;
            break;
        }
    if (k == n)
        return -1;
    double f = (lr[k - 1] - th) / (lr[k - 1] - lr[k]);
    double lk = lw[k - 1] + f * (lw[k] - lw[k - 1]);
    /* Delta method over the three logs the crossing depends on. */
    double d = lr[k - 1] - lr[k], span = lw[k] - lw[k - 1];
    double da = span * (th - lr[k]) / (d * d);   /* d lk / d lr[k-1] */
    double db = span * (lr[k - 1] - th) / (d * d); /* d lk / d lr[k] */
    double dt = -span / d;                         /* d lk / d th */
    double v = da * da * sr[k - 1] * sr[k - 1] + db * db * sr[k] * sr[k] +
               dt * dt * sr[n - 1] * sr[n - 1];
    *knee = exp(lk);
    *se = *knee * sqrt(v);
    return 0;
}

/* The keys <prefix><W> of one curve of time per byte against working set
 * (points ascending in W, standard errors se), made non-decreasing first.
 * A larger working set cannot copy faster: each level of the cache holds
 * what the one below it holds. Where the measured time per byte falls as
 * W grows, the machine changed while the probe measured (on the Xeon
 * guest one probe read 6.7 GB/s at 2M and 12 at 4M while its memcpy
 * samples at 1M took 42-47 µs in one block of passes and 80-120 in
 * others), and a model that believed it chose sequential_write over
 * parallel_read at 1M (0.55x the MPI library): the falling runs are
 * pooled to their weighted mean (isotonic regression). */
static int set_curve(kcal_params *out, const char *prefix, const char *name,
                     const char *label, const uint64_t *pw, const double *pb, const double *pse,
                     size_t np, kcal_calibrate_notes *notes, char *comment,
                     size_t commentlen, char *err, size_t errlen)
{
    double fitted[MAXPTS];
    int changed = np ? kcal_fit_nondecreasing(pb, pse, np, fitted) : 0;
    if (changed < 0) {
        kcal_set_err(err, errlen, "out of memory fitting %s", name);
        return -1;
    }
    /* Pooling within the noise (flat stretches of the curve) is routine;
     * a point moved by more than 3 standard errors is worth a note. */
    int moved = 0;
    for (size_t i = 0; changed > 0 && i < np; i++)
        moved += fabs(fitted[i] - pb[i]) > 3 * pse[i];
    if (moved > 0)
        cal_note(notes, "%s: the copy rate rose with the working set "
                 "beyond the noise; %d of %zu points pooled to one "
                 "non-decreasing %s (the header lists both), as a larger "
                 "working set cannot copy faster: the machine changed while the "
                 "probe measured", name, changed, np, label);
    if (changed > 0)
        cal_cat(comment, commentlen, "%s made non-decreasing (pooled):", name);
    for (size_t i = 0; i < np; i++) {
        char key[64], sz[32];
        if (changed > 0 && fitted[i] != pb[i])
            cal_cat(comment, commentlen, " %s %.3g GB/s",
                    kcal_sizes_format(pw[i], sz, sizeof sz), 1e-9 / fitted[i]);
        ws_key(prefix, pw[i], key, sizeof key);
        if (cal_set_fit(out, key, fitted[i], pse[i], err, errlen) < 0)
            return -1;
    }
    if (changed > 0)
        cal_cat(comment, commentlen, "\n");
    return 0;
}

/* The bytes per call of the working set of `pages` pages (pattern memcpy
 * or cma): the first of its samples' that is not 0; 0 when none is. */
static long ws_bytes(const kcal_raw *raw, const char *pattern, long pages)
{
    long bytes = 0;
    for (size_t j = 0; j < raw->n && !bytes; j++)
        if (!strcmp(raw->s[j].phase, KCAL_PHASE_WS) &&
            !strcmp(raw->s[j].pattern, pattern) && raw->s[j].pages == pages)
            bytes = raw->s[j].bytes;
    return bytes;
}

/* cache_knee from the memcpy copies, and β(W) = (T4(N, W) − α − l·N)/(N·s)
 * of the CMA copies at each working set W (the start-up and pinning of the
 * call taken off with the fitted α and l). */
int cal_knee(const kcal_raw *raw, double page, double alpha,
             double lock, kcal_params *out,
             kcal_calibrate_notes *notes, char *comment,
             size_t commentlen, char *err, size_t errlen)
{
    if (!cal_has_pattern(raw, KCAL_PHASE_WS, NULL))
        return 0;
    long wv[MAXPTS];
    size_t nw = cal_distinct(raw, KCAL_PHASE_WS, KCAL_PATTERN_MEMCPY, 0, wv,
                             MAXPTS);
    if (nw)
        cal_cat(comment, commentlen, "memcpy rate by working set (memcpy_ws_*):");
    /* The memcpy curve's points: time per byte of one memcpy at W, no
     * start-up to take off (a call of a few ns against µs copies). */
    uint64_t mw[MAXPTS];
    double mb[MAXPTS], mse[MAXPTS];
    size_t nm = 0;
    for (size_t i = 0; i < nw; i++) {
        kcal_stat st;
        char sz[32];
        size_t nb = kcal_raw_select(raw, KCAL_PHASE_WS, KCAL_PATTERN_MEMCPY, 1,
                                    wv[i], NULL, 0);
        if (!nb || cal_point(raw, KCAL_PHASE_WS, KCAL_PATTERN_MEMCPY, 0,
                             wv[i], &st) < 0)
            continue;
        long bytes = ws_bytes(raw, KCAL_PATTERN_MEMCPY, wv[i]);
        if (bytes <= 0 || !(st.median > 0))
            continue;
        uint64_t w = (uint64_t)((double)wv[i] * page);
        cal_cat(comment, commentlen, " %s %.3g GB/s",
                kcal_sizes_format(w, sz, sizeof sz),
                (double)bytes / st.median * 1e-9);
        mw[nm] = w, mb[nm] = st.median / (double)bytes;
        mse[nm] = st.se > 0 ? st.se / (double)bytes : mb[nm] * 1e-6;
        nm++;
    }
    if (nw)
        cal_cat(comment, commentlen, "\n");
    if (set_curve(out, KCAL_MEMCPY_WS_PREFIX, "memcpy_ws", "memcpy(W)", mw, mb, mse, nm,
                  notes, comment, commentlen, err, errlen) < 0)
        return -1;
    double knee, kse;
    if (kcal_calibrate_knee(raw, page, &knee, &kse) == 0) {
        char a[32];
        cal_cat(comment, commentlen, "cache_knee = where the memcpy rate last "
                "falls below 1.5 times the largest working set's: %s\n",
                kcal_sizes_format((uint64_t)llround(knee), a, sizeof a));
        if (cal_set_fit(out, "cache_knee", knee, kse, err, errlen) < 0)
            return -1;
    } else if (nw) {
        cal_note(notes, "cache knee: the memcpy rate does not fall below 1.5 "
                 "times the largest working set's rate: no cache_knee (the "
                 "working sets measured may not outgrow the cache)");
    }
    nw = cal_distinct(raw, KCAL_PHASE_WS, KCAL_PATTERN_CMA, 0, wv, MAXPTS);
    if (nw)
        cal_cat(comment, commentlen, "CMA copy rate by working set (beta_ws_*):");
    /* The points first (working sets ascending), the keys after the
     * curve is made non-decreasing (below). */
    uint64_t pw[MAXPTS];
    double pb[MAXPTS], pse[MAXPTS];
    size_t np = 0;
    for (size_t i = 0; i < nw; i++) {
        kcal_stat st;
        long bytes = ws_bytes(raw, KCAL_PATTERN_CMA, wv[i]);
        if (bytes <= 0 || cal_point(raw, KCAL_PHASE_WS, KCAL_PATTERN_CMA, 0,
                                    wv[i], &st) < 0)
            continue;
        double n_pages = ceil((double)bytes / page);
        double b = (st.median - alpha - lock * n_pages) / (double)bytes;
        char sz[32];
        uint64_t w = (uint64_t)((double)wv[i] * page);
        if (!(b > 0)) {
            cal_note(notes, "beta_ws at %s: the copy took no longer than "
                     "alpha + l*N: left out", kcal_sizes_format(w, sz, sizeof sz));
            continue;
        }
        cal_cat(comment, commentlen, " %s %.3g GB/s",
                kcal_sizes_format(w, sz, sizeof sz), 1e-9 / b);
        pw[np] = w, pb[np] = b;
        pse[np++] = st.se > 0 ? st.se / (double)bytes : b * 1e-6;
    }
    if (nw)
        cal_cat(comment, commentlen, "\n");
    return set_curve(out, KCAL_WS_KEY_PREFIX, "beta_ws", "beta(W)", pw, pb, pse, np,
                     notes, comment, commentlen, err, errlen);
}
