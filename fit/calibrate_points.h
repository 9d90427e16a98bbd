/* calibrate_points: the measured points the per-phase fits read from the
 * raw samples (calibrate_part.h), and the per-point statistics of
 * `kcal fit --points` (kcal_calibrate_write_points, calibrate.h).
 *
 * A point is one (phase, pattern, readers, pages) of the raw file, or one
 * (phase, pattern, readers, bytes) for the phases that key their points by
 * size; its value is the robust median of its samples and that median's
 * standard error (fit.h kcal_stat), never 0 (a zero spread would give the
 * point infinite weight). Internal to fit/.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_CALIBRATE_POINTS_H
#define KCAL_CALIBRATE_POINTS_H

#include <stddef.h>

#include "fit/fit.h"
#include "fit/raw.h"

/* The most points of one curve a fit reads (the probe measures fewer). */
#define MAXPTS 256

/* The distinct values of `pages` (or, by_readers, `readers`) of one
 * phase/pattern (pattern NULL: any), ascending; at most max. */
size_t cal_distinct(const kcal_raw *raw, const char *phase,
                    const char *pattern, int by_readers, long *out,
                    size_t max);

/* The statistic of one point: readers 0 and pages, bytes < 0 for any;
 * samples with rep in [rep_lo, rep_hi) only (rep_hi < 0: all). 0 or -1
 * (no samples, out of memory). */
int cal_point_sel(const kcal_raw *raw, const char *phase, const char *pattern,
                  int readers, long pages, long bytes, long rep_lo,
                  long rep_hi, kcal_stat *st);
int cal_point_reps(const kcal_raw *raw, const char *phase,
                   const char *pattern, int readers, long pages, long rep_lo,
                   long rep_hi, kcal_stat *st);
int cal_point(const kcal_raw *raw, const char *phase, const char *pattern,
              int readers, long pages, kcal_stat *st);

/* A curve over N: x pages, y medians, se their standard errors, at each
 * page count of phase/pattern (any readers; reps as cal_point_sel).
 * Arrays of MAXPTS; returns the number of points. */
size_t cal_curve_reps(const kcal_raw *raw, const char *phase,
                      const char *pattern, long rep_lo, long rep_hi,
                      double *x, double *y, double *se);
size_t cal_curve(const kcal_raw *raw, const char *phase, const char *pattern,
                 double *x, double *y, double *se);

/* The copy term's points T4 − T3 over N·s bytes (see calibrate_points.c). */
size_t cal_copy_minus_lock(const double *x, const double *y, const double *se,
                           size_t n, const double *x4, const double *y4,
                           const double *se4, size_t n4, double page,
                           double *bx, double *by, double *bs);

/* Has phase samples of pattern (NULL: any)? 1 or 0. */
int cal_has_pattern(const kcal_raw *raw, const char *phase,
                    const char *pattern);

/* One phase's points by (readers, bytes): pp readers, nn bytes, med and
 * se; *n points (at most max). 0 or -1 (out of memory). */
int cal_bytes_points(const kcal_raw *raw, const char *phase,
                     const char *pattern, int *pp, long *nn, double *med,
                     double *se, size_t max, size_t *n);

#endif
