/* calibrate: from the raw samples of `kcal probe` to a params set.
 *
 * Owns which samples feed which parameter (model.md, "Probing on a current
 * Linux kernel"): T3(N) gives α and l, T4(N) − T3(N) gives β (and beta_hot
 * from the in-cache copies), the contention samples give γ(c), the MPI
 * samples T_sm_X and sync_step; the batch means over the probe's passes;
 * the `# meta` entries copied into the params file; and the summary and
 * notes that say what was measured and what was assumed. One fit per
 * probe phase, each in fit/calibrate_<probe file>.c (calibrate_part.h
 * lists them), on the least-squares fits of fit.h. `kcal probe` and
 * `kcal fit` both end in kcal_calibrate_params, so re-fitting a saved raw
 * file gives the same params file.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_CALIBRATE_H
#define KCAL_CALIBRATE_H

#include <stddef.h>
#include <stdio.h>

#include "model/params.h"
#include "fit/raw.h"

/* Messages about the fit (what was constrained, what was extrapolated),
 * for the caller to print on stderr. */
#define KCAL_CALIBRATE_MAX_NOTES 24
typedef struct {
    char text[KCAL_CALIBRATE_MAX_NOTES][320];
    int n;
} kcal_calibrate_notes;

/* Fit every parameter from raw samples and copy the metadata (`# meta`
 * entries) into out (initialised by the caller, normally empty). notes (may
 * be NULL) receives the notes; comment (may be NULL) a summary for the
 * params file's `#` header: the measured points (T1, γ(c) per pattern, T_sm
 * per p). Returns 0, or -1 with a message naming what is missing or
 * invalid in err. */
int kcal_calibrate_params(const kcal_raw *raw, kcal_params *out,
                          kcal_calibrate_notes *notes, char *comment,
                          size_t commentlen, char *err, size_t errlen);

/* The per-point statistics behind the fit, as CSV:
 *   phase,pattern,readers,pages,bytes,n,median_s,spread_s,se_s
 * one row per distinct (phase, pattern, readers, pages), in the order the
 * points first appear (bytes: the point's first sample's). 0, or -1 (out
 * of memory or a write error). */
#define KCAL_POINTS_HEADER \
    "phase,pattern,readers,pages,bytes,n,median_s,spread_s,se_s"
int kcal_calibrate_write_points(FILE *f, const kcal_raw *raw);

/* Does T3 grow with N? Slope of the medians of phase lock/pattern over N
 * (weighted fit) more than 3 standard errors above 0 and T3(Nmax) at least
 * 1.2·T3(Nmin). 1 yes, 0 no, -1 too few points. */
int kcal_calibrate_lock_grows(const kcal_raw *raw, const char *pattern);

/* The cache knee (issue 9): where the memcpy rate of the working-set
 * sweep (phase ws, pattern memcpy) last falls below 1.5 times its rate at
 * the largest working set, in bytes, interpolated in log-log, and its
 * standard error. page: bytes per page (the raw `pages` column holds W in
 * pages). 0, or -1 when there are fewer than 3 points or the rate never
 * falls that far (the sweep did not outgrow the cache). */
int kcal_calibrate_knee(const kcal_raw *raw, double page, double *knee,
                        double *se);

/* The prefix of the full model's β(working set) keys: beta_ws_64k, ... */
#define KCAL_WS_KEY_PREFIX KCAL_WS_PREFIX

#endif
