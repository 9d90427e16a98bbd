/* calibrate_part: the fits kcal_calibrate_params (calibrate.c) runs, one
 * per probe phase, each in fit/calibrate_<name>.c after the probe/<name>.c
 * that measures it, and what they share to leave their result: a key and
 * its standard error, a note, a line of the params file's `#` header.
 *
 *   calibrate_phases.c      T1, T2, T3(N): alpha, lock; the batch means
 *   calibrate_bandwidth.c   T4(N) − T3(N): beta, beta_hot
 *   calibrate_contention.c  gamma_a, gamma_b
 *   calibrate_sm.c          sm_*, sync_step, sm_flag
 *   calibrate_knee.c        memcpy_ws_*, cache_knee, beta_ws_*
 *   calibrate_concurrent.c  conc_hot, conc_cold
 *   calibrate_mutual.c      cma_mutual
 *   calibrate_write.c       alpha_write, lock_write, beta_write (the write
 *                           sweeps of probe/phases.c and probe/bandwidth.c)
 *   calibrate_dirty.c       dirty_beta, dirty_bytes
 *   calibrate_pass.c        pass_a, pass_b, pass_next, pass_spread
 *   calibrate_reduce.c      reduce_beta, reduce_<op>_<class>_beta (the
 *                           reductions' op that kcal-sm-bench times for
 *                           probe/reduce.c)
 *   calibrate_sm_handoff.c  cma_context, mpi_* (the MPI library's and
 *                           libkcoll's collectives that probe/sm.c times)
 *
 * Every fit takes the raw samples and writes into out; notes (may be NULL)
 * gets what was held or assumed, comment (may be NULL) the header lines.
 * Each returns 0 (absent samples leave its keys absent), or -1 with err.
 * Internal to fit/. Library code: returns error codes, never prints. */
#ifndef KCAL_CALIBRATE_PART_H
#define KCAL_CALIBRATE_PART_H

#include <stddef.h>

#include "fit/calibrate.h"
#include "fit/calibrate_points.h"
#include "model/params.h"

/* ---- what every fit leaves (calibrate_part.c) ---------------------------- */

void cal_note(kcal_calibrate_notes *notes, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append to the header comment (buf may be NULL). */
void cal_cat(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* key = v; -1 with err when v is not a finite number >= 0. */
int cal_set_num(kcal_params *p, const char *key, double v, char *err,
                size_t errlen);
/* key = v and key_stderr = se (0 when not finite). */
int cal_set_fit(kcal_params *p, const char *key, double v, double se,
                char *err, size_t errlen);
/* y = a + b·x with both ≥ 0 (see calibrate_part.c). */
int cal_line_nonneg(const double *x, const double *y, const double *se,
                    size_t n, const char *phase, const char *ka,
                    const char *kb, kcal_calibrate_notes *notes, double *a,
                    double *b, double *sa, double *sb, char *err,
                    size_t errlen);
/* key = the weighted mean of n differences, held at 0 when negative. */
int cal_mean_nonneg(kcal_params *out, const char *key, const double *y,
                    const double *sg, size_t n, const char *points,
                    const char *faster, kcal_calibrate_notes *notes,
                    char *err, size_t errlen);

/* ---- the fits, in the order kcal_calibrate_params runs them -------------- */

/* Batch means (fit.h): the passes of the probe run in time order
 * (rep = pass), so fitting each fifth of them separately shows the
 * machine's drift. */
#define KCAL_BATCHES 5

/* What the T3 fit hands the fits after it. */
typedef struct {
    const char *lock_pat;  /* the T3 pattern fitted */
    const char *copy_pat;  /* the T4 pattern of β: cold, else hot */
    double x[MAXPTS], y[MAXPTS], se[MAXPTS]; /* the T3 curve */
    size_t n;
    double alpha, lock;    /* fitted (α may be T2: calibrate_phases.c) */
    int batched;           /* the batch means below were computable */
    double ba, bl, bb;     /* their standard errors of α, l, β */
} cal_t3;

/* The batch-means standard errors of α, l and β (T4 of copy_pat). 0, or
 * -1 with too few passes. */
int cal_batch_se(const kcal_raw *raw, const char *lock_pat,
                 const char *copy_pat, double page, double *se_alpha,
                 double *se_lock, double *se_beta);

int cal_phases(const kcal_raw *raw, double page, cal_t3 *t3,
               kcal_params *out, kcal_calibrate_notes *notes, char *comment,
               size_t commentlen, char *err, size_t errlen);
int cal_bandwidth(const kcal_raw *raw, double page, const cal_t3 *t3,
                  kcal_params *out, char *comment, size_t commentlen,
                  char *err, size_t errlen);
int cal_contention(const kcal_raw *raw, double alpha, double lock,
                   kcal_params *out, kcal_calibrate_notes *notes,
                   char *comment, size_t commentlen, char *err,
                   size_t errlen);
int cal_sm(const kcal_raw *raw, kcal_params *out,
           kcal_calibrate_notes *notes, char *comment, size_t commentlen,
           char *err, size_t errlen);
int cal_knee(const kcal_raw *raw, double page, double alpha, double lock,
             kcal_params *out, kcal_calibrate_notes *notes, char *comment,
             size_t commentlen, char *err, size_t errlen);
int cal_concurrent(const kcal_raw *raw, double alpha, double lock,
                   kcal_params *out, kcal_calibrate_notes *notes,
                   char *comment, size_t commentlen, char *err,
                   size_t errlen);
int cal_mutual(const kcal_raw *raw, kcal_params *out,
               kcal_calibrate_notes *notes, char *comment, size_t commentlen,
               char *err, size_t errlen);
int cal_write(const kcal_raw *raw, double page, kcal_params *out,
              kcal_calibrate_notes *notes, char *comment, size_t commentlen,
              char *err, size_t errlen);
int cal_dirty(const kcal_raw *raw, double page, kcal_params *out,
              kcal_calibrate_notes *notes, char *comment, size_t commentlen,
              char *err, size_t errlen);
int cal_pass(const kcal_raw *raw, kcal_params *out,
             kcal_calibrate_notes *notes, char *comment, size_t commentlen,
             char *err, size_t errlen);
int cal_reduce(const kcal_raw *raw, kcal_params *out,
               kcal_calibrate_notes *notes, char *comment, size_t commentlen,
               char *err, size_t errlen);
int cal_sm_sync_step(const kcal_raw *raw, kcal_params *out, char *comment,
                     size_t commentlen, char *err, size_t errlen);
int cal_sm_flag(const kcal_raw *raw, kcal_params *out, char *comment,
                size_t commentlen, char *err, size_t errlen);
/* After every key the full model uses but these (they ask the model). */
int cal_sm_context(const kcal_raw *raw, kcal_params *out,
                   kcal_calibrate_notes *notes, char *comment,
                   size_t commentlen, char *err, size_t errlen);
int cal_sm_mpi(const kcal_raw *raw, kcal_params *out,
               kcal_calibrate_notes *notes, char *comment, size_t commentlen,
               char *err, size_t errlen);

#endif
