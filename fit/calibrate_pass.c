/* calibrate_pass: pass_a, pass_b, pass_next, pass_mutual and pass_spread
 * from the chunks passed between cores of probe/pass.c
 * (calibrate_part.h). */
#include "fit/calibrate_part.h"
#include "common/err.h"
#include "common/sizes.h"
#include "fit/fit.h"
#include "model/keys.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The fewest passes a slice's median of pass_spread is taken from. */
#define SPREAD_MIN_PASSES 5

/* Median and standard error of the pass samples of one pattern, slice,
 * stream length m and chunk size c. 0, or -1 when there are none (or out
 * of memory). */
static int pass_stat(const kcal_raw *raw, const char *pattern, long slice,
                     int m, long c, kcal_stat *st)
{
    return cal_point_sel(raw, KCAL_PHASE_PASS, pattern, m, slice, c, 0, -1,
                         st);
}

static int is_cross(const kcal_sample *s, int m, long c)
{
    return s->readers == m && s->bytes == c &&
           !strcmp(s->phase, KCAL_PHASE_PASS) &&
           !strcmp(s->pattern, KCAL_PATTERN_CROSS);
}

/* Per pass (slice and rep), the time of one further chunk of c bytes
 * passed across the cores, copies included: (T_cross(m, c) −
 * T_cross(1, c)) / (m − 1) of the stream and the one-chunk stream of that
 * pass (pass.c takes them one after the other). Into next and slice_of
 * (malloc'd, *n each, both NULL on failure); 0, or -1 out of memory. */
static int next_per_pass(const kcal_raw *raw, int m, long c, double **next,
                         long **slice_of, size_t *n)
{
    size_t n1 = 0, nm = 0;
    for (size_t i = 0; i < raw->n; i++) {
        n1 += (size_t)is_cross(&raw->s[i], 1, c);
        nm += (size_t)is_cross(&raw->s[i], m, c);
    }
    size_t *one = malloc((n1 + 1) * sizeof *one);
    *next = malloc((nm + 1) * sizeof **next);
    *slice_of = malloc((nm + 1) * sizeof **slice_of);
    *n = 0;
    if (!one || !*next || !*slice_of) {
        free(one), free(*next), free(*slice_of);
        *next = NULL, *slice_of = NULL;
        return -1;
    }
    n1 = 0;
    for (size_t i = 0; i < raw->n; i++)
        if (is_cross(&raw->s[i], 1, c))
            one[n1++] = i;
    for (size_t i = 0; i < raw->n; i++) {
        const kcal_sample *s = &raw->s[i];
        if (!is_cross(s, m, c))
            continue;
        for (size_t j = 0; j < n1; j++) {
            const kcal_sample *o = &raw->s[one[j]];
            if (o->pages == s->pages && o->rep == s->rep) {
                (*next)[*n] = (s->seconds - o->seconds) / (m - 1);
                (*slice_of)[(*n)++] = s->pages;
                break;
            }
        }
    }
    free(one);
    return 0;
}

/* pass_spread: how far a further chunk's time moved over the probe (the
 * host moves the two vCPUs: pass.h), as the dearest slice's median of its
 * per-pass values (next_per_pass) over the cheapest slice's, at the
 * stream's m and c, with the standard error of the two medians (taken as
 * independent). Medians of the slices, not percentiles of the passes: the
 * passes of a slice are milliseconds apart, so they differ by noise, and
 * the first of each can be several times the others (tests/samples/raw.csv:
 * 9-13 us against 0.4-0.9), which percentiles over all passes would
 * report as movement. No key with one slice (a probe from before the
 * slices); no key, and a note, with fewer than two slices of
 * SPREAD_MIN_PASSES passes or a cheapest median not above 0. The header
 * gives each slice's median. */
static int pass_spread(const kcal_raw *raw, int m, long c, kcal_params *out,
                       kcal_calibrate_notes *notes, char *comment,
                       size_t commentlen, char *err, size_t errlen)
{
    const char *key = KCAL_KEY_NAME(pass_spread);
    double *v, *w;
    long *sl;
    size_t n;
    char a[32];
    if (next_per_pass(raw, m, c, &v, &sl, &n) < 0)
        goto oom;
    if (!(w = malloc((n + 1) * sizeof *w))) {
        free(v), free(sl);
        goto oom;
    }
    long slices[MAXPTS];
    size_t ns = cal_distinct(raw, KCAL_PHASE_PASS, KCAL_PATTERN_CROSS, 0,
                             slices, MAXPTS);
    kcal_stat lo = {0}, hi = {0};
    size_t used = 0;
    cal_cat(comment, commentlen, "pass spread: a further chunk of %s across "
            "the cores, copies included, median per slice in us:",
            kcal_sizes_format((uint64_t)c, a, sizeof a));
    for (size_t j = 0; j < ns; j++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (sl[i] == slices[j])
                w[k++] = v[i];
        kcal_stat st;
        if (k < SPREAD_MIN_PASSES || kcal_stat_robust(w, k, &st) < 0)
            continue;
        cal_cat(comment, commentlen, " %.3g", 1e6 * st.median);
        if (!used || st.median < lo.median)
            lo = st;
        if (!used || st.median > hi.median)
            hi = st;
        used++;
    }
    free(v);
    free(sl);
    free(w);
    if (used < 2 || !(lo.median > 0)) {
        cal_cat(comment, commentlen, "\n");
        if (used >= 2)
            cal_note(notes, "%s: the cheapest slice's further chunk took "
                     "%.3g us, not above 0: not written", key,
                     1e6 * lo.median);
        else if (ns >= 2) /* one slice: a probe from before them, silent */
            cal_note(notes, "%s: %zu slice(s) of %d passes or more with a "
                     "stream of %d chunks of %s: it needs 2: not written",
                     key, used, SPREAD_MIN_PASSES, m,
                     kcal_sizes_format((uint64_t)c, a, sizeof a));
        return 0;
    }
    double r = hi.median / lo.median;
    double rl = lo.se / lo.median, rh = hi.se / hi.median;
    cal_cat(comment, commentlen, "; %s %.3g\n", key, r);
    return cal_set_fit(out, key, r, r * sqrt(rl * rl + rh * rh), err,
                       errlen);
oom:
    kcal_set_err(err, errlen, "out of memory fitting %s", key);
    return -1;
}

/* The extra E = T_pattern − T_local of m chunks of c bytes, per slice
 * the difference of the medians with standard error √(se² + se_local²),
 * the dearest slice's, or with three slices or more the second dearest
 * (cal_pass says why), into e and e_se; the cheapest slice's into lo.
 * 0, or -1 with no slice measured at (m, c). */
static int slice_extra(const kcal_raw *raw, const char *pattern,
                       const long *slices, size_t ns, int m, long c,
                       double *e, double *e_se, double *lo)
{
    /* The slices' E, descending (insertion: a handful). */
    double d[MAXPTS], dse[MAXPTS];
    size_t nd = 0;
    for (size_t j = 0; j < ns && nd < MAXPTS; j++) {
        kcal_stat cr, lc;
        if (pass_stat(raw, pattern, slices[j], m, c, &cr) < 0 ||
            pass_stat(raw, KCAL_PATTERN_LOCAL, slices[j], m, c, &lc) < 0)
            continue;
        size_t q = nd++;
        double v = cr.median - lc.median;
        for (; q > 0 && d[q - 1] < v; q--)
            d[q] = d[q - 1], dse[q] = dse[q - 1];
        d[q] = v;
        dse[q] = sqrt(cr.se * cr.se + lc.se * lc.se);
    }
    if (!nd)
        return -1;
    size_t at = nd >= 3 ? 1 : 0;
    *e = d[at], *e_se = dse[at], *lo = d[nd - 1];
    return 0;
}

/* pass_mutual: each further chunk's extra when both cores pass at once
 * (probe/pass.c's mutual streams: each side copies its chunk into its own
 * ring and the other's out, as every rank of an allreduce or allgather
 * copy_in_out does), (E_mutual(m, C) − E_mutual(1, C)) / (m − 1) at the
 * stream's m and C, E_mutual against the control of the same copies on
 * one core (one side's), slices as slice_extra. On the Zen 5 guest a
 * further 16 KiB chunk cost 1.4 µs so against 0.2 µs one way (issue 29:
 * the model put the mutual rows at 0.3-0.7 of their measured time with
 * pass_next alone). No key, silently, without mutual streams (a probe
 * from before them); held at 0, with a note, when negative. The header
 * gives E_mutual at both m. */
static int pass_mutual(const kcal_raw *raw, const long *slices, size_t ns,
                       int m, long c, kcal_params *out,
                       kcal_calibrate_notes *notes, char *comment,
                       size_t commentlen, char *err, size_t errlen)
{
    const char *key = KCAL_KEY_NAME(pass_mutual);
    double e1, se1, lo1, em, sem, lom;
    if (!cal_has_pattern(raw, KCAL_PHASE_PASS, KCAL_PATTERN_MUTUAL) ||
        slice_extra(raw, KCAL_PATTERN_MUTUAL, slices, ns, 1, c, &e1, &se1,
                    &lo1) < 0 ||
        slice_extra(raw, KCAL_PATTERN_MUTUAL, slices, ns, m, c, &em, &sem,
                    &lom) < 0)
        return 0;
    double next = (em - e1) / (m - 1);
    double next_se = sqrt(se1 * se1 + sem * sem) / (m - 1);
    char a[32];
    cal_cat(comment, commentlen, "chunks passed both ways at once, extra per "
            "stream T_mutual - T_local in us: 1x%s %.3g [%.3g] %dx%s %.3g "
            "[%.3g]; each further chunk: %.3g us\n",
            kcal_sizes_format((uint64_t)c, a, sizeof a), 1e6 * e1, 1e6 * lo1,
            m, a, 1e6 * em, 1e6 * lom, 1e6 * next);
    if (next < 0) {
        cal_note(notes, "%s: a mutual stream of %d chunks cost less beyond "
                 "its copies than one chunk: held at 0", key, m);
        next = 0;
    }
    return cal_set_fit(out, key, next, next_se, err, errlen);
}

/* Chunks passed between cores (probe/pass.h): per slice (the moment of the
 * probe, raw `pages`) and stream of m chunks of c bytes the extra
 * E = T_cross − T_local, the difference of the medians with standard
 * error √(se_cross² + se_local²); per (m, c) the dearest slice's, or with
 * three slices or more the second dearest (the cost changes with where
 * the host runs the vCPUs, and a choice priced in the cheap state loses in
 * the dear one: pass.h; but one slice that another job disturbed, 8 µs at
 * 16 KiB where the others read 2.7-3.6 on the Xeon guest, should not set
 * it). The first chunk's
 * extra, from the one-chunk streams at every c, fitted as
 * E(1, c) = pass_a + pass_b·c (weighted line; a negative coefficient held
 * at 0 and the other fitted alone); each further chunk of a stream, from
 * the longest stream at the largest c (a full KCAL_STAGING_CHUNK):
 * pass_next = (E(m, C) − E(1, C)) / (m − 1), held at 0 when negative.
 * No keys, and a note, with fewer than 2 sizes or no longer stream. The
 * header lists E per point, with its range over the slices. With the
 * longer stream, pass_spread too (above): the keys above price one state
 * of the machine, and kcal tune needs to know how far the others are
 * (docs/tune.md). */
int cal_pass(const kcal_raw *raw, kcal_params *out,
             kcal_calibrate_notes *notes, char *comment,
             size_t commentlen, char *err, size_t errlen)
{
    if (!cal_has_pattern(raw, KCAL_PHASE_PASS, NULL))
        return 0;
    static const char *const keys = "pass_a, pass_b, pass_next";
    long slices[MAXPTS];
    size_t ns = cal_distinct(raw, KCAL_PHASE_PASS, KCAL_PATTERN_CROSS, 0,
                             slices, MAXPTS);
    int pm[MAXPTS];
    long pc[MAXPTS];
    double med[MAXPTS], se[MAXPTS];
    size_t np;
    if (cal_bytes_points(raw, KCAL_PHASE_PASS, KCAL_PATTERN_CROSS, pm, pc, med,
                         se, MAXPTS, &np) < 0) {
        kcal_set_err(err, errlen, "out of memory fitting %s", KCAL_PHASE_PASS);
        return -1;
    }
    double x[MAXPTS], y[MAXPTS], sg[MAXPTS];
    size_t n = 0;
    int long_m = 0;
    long long_c = 0;
    double long_e = 0, long_se = 0;
    char a[32];
    cal_cat(comment, commentlen, "chunks passed between cores, extra per stream "
            "T_cross - T_local in us (m chunks x c bytes), the %s of %zu "
            "slice(s) [the cheapest]:", ns >= 3 ? "second dearest" : "dearest",
            ns);
    for (size_t i = 0; i < np; i++) {
        double e, e_se, lo;
        if (slice_extra(raw, KCAL_PATTERN_CROSS, slices, ns, pm[i], pc[i], &e,
                        &e_se, &lo) < 0)
            continue;
        cal_cat(comment, commentlen, " %dx%s %.3g [%.3g]", pm[i],
                kcal_sizes_format((uint64_t)pc[i], a, sizeof a), 1e6 * e, 1e6 * lo);
        if (pm[i] == 1 && n < MAXPTS) {
            x[n] = (double)pc[i];
            y[n] = e;
            sg[n++] = e_se > 0 ? e_se : 1e-9;
        } else if (pm[i] > long_m || (pm[i] == long_m && pc[i] > long_c)) {
            long_m = pm[i], long_c = pc[i], long_e = e, long_se = e_se;
        }
    }
    cal_cat(comment, commentlen, "\n");
    /* x ascending (insertion sort: a handful), for the header and the fit */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && x[j - 1] > x[j]; j--) {
            double t = x[j];
            x[j] = x[j - 1], x[j - 1] = t;
            t = y[j], y[j] = y[j - 1], y[j - 1] = t;
            t = sg[j], sg[j] = sg[j - 1], sg[j - 1] = t;
        }
    if (long_m >= 2 && (pass_spread(raw, long_m, long_c, out, notes, comment,
                                    commentlen, err, errlen) < 0 ||
                        pass_mutual(raw, slices, ns, long_m, long_c, out,
                                    notes, comment, commentlen, err,
                                    errlen) < 0))
        return -1;
    if (n < 2 || long_m < 2) {
        cal_note(notes, "%s: %zu chunk size(s) of one-chunk streams and %s: the "
                 "fit needs 2 and one: not written", keys, n,
                 long_m < 2 ? "no longer stream" : "a longer stream");
        return 0;
    }
    kcal_linfit lf;
    if (kcal_fit_line(x, y, sg, n, &lf) < 0) {
        kcal_set_err(err, errlen, "out of memory fitting %s", KCAL_PHASE_PASS);
        return -1;
    }
    if (lf.c0 < 0) {
        lf.c0 = lf.se0 = 0;
        if (kcal_fit_origin(x, y, sg, n, &lf.c1, &lf.se1) < 0)
            return -1;
    } else if (lf.c1 < 0) {
        lf.c1 = lf.se1 = 0;
        if (kcal_fit_const(y, sg, n, &lf.c0, &lf.se0) < 0)
            return -1;
    }
    if (!(lf.c0 >= 0 && lf.c1 >= 0)) {
        cal_note(notes, "%s: passing a chunk between cores cost nothing beyond "
                 "the copies: not written", keys);
        return 0;
    }
    /* The one-chunk extra at the longer stream's c, from the measured
     * point (not from the line: a line's misfit there would show as a
     * per-chunk cost). */
    double first = lf.c0 + lf.c1 * (double)long_c, first_se = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i] == (double)long_c)
            first = y[i], first_se = sg[i];
    double next = (long_e - first) / (long_m - 1);
    double next_se = sqrt(long_se * long_se + first_se * first_se) /
                     (long_m - 1);
    if (next < 0) {
        cal_note(notes, "pass_next: a stream of %d chunks cost less beyond its "
                 "copies than one chunk: held at 0", long_m);
        next = 0;
    }
    cal_cat(comment, commentlen, "pass fit: E(1, c) = a + b*c over %zu sizes, "
            "dof %d, chi2 %.3g: a = %.3g us, b = %.3g ns/B; each further chunk "
            "of %s: %.3g us\n", n, lf.dof, lf.chisq, 1e6 * lf.c0, 1e9 * lf.c1,
            kcal_sizes_format((uint64_t)long_c, a, sizeof a), 1e6 * next);
    if (cal_set_fit(out, KCAL_KEY_NAME(pass_a), lf.c0, lf.se0, err,
                    errlen) < 0 ||
        cal_set_fit(out, KCAL_KEY_NAME(pass_b), lf.c1, lf.se1, err,
                    errlen) < 0 ||
        cal_set_fit(out, KCAL_KEY_NAME(pass_next), next, next_se, err,
                    errlen) < 0)
        return -1;
    return 0;
}
