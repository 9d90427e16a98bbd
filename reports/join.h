/* join: the report's numbers. Reads the CSV of `kcal predict --format csv`
 * and of `kcal bench --format csv` (columns.h: KCAL_CSV_PREDICTED_HEADER and
 * KCAL_CSV_MEASURED_HEADER), joins them on collective,p,size_bytes,algorithm,k,
 * and derives what the report shows:
 *   - the model's absolute percentage error per (collective, p, algorithm, k)
 *     over sizes >= KCAL_JOIN_MIN_ERR_SIZE (summary.csv);
 *   - per (collective, p, size) the predicted best vs the measured best and
 *     the selection regret (ranking.csv);
 *   - per (collective, p, size) the speedup of the best kcoll algorithm over
 *     the MPI library's own collective (`mpi` in the bench CSV).
 * join_read.c reads the two files; join.c joins the rows and derives the
 * rest. Library code: returns error codes with "FILE:LINE: what" in err;
 * never prints or exits. */
#ifndef KCAL_JOIN_H
#define KCAL_JOIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The error statistics cover sizes from 16 KiB up: below that the model's
 * start-up terms dominate and single-digit-µs timer noise swamps them. */
#define KCAL_JOIN_MIN_ERR_SIZE 16384u

/* The bench's name for the MPI library's own collective (not a model
 * algorithm: it has a measurement but never a prediction). */
#define KCAL_JOIN_MPI "mpi"
/* The bench's other reference rows, measured but never predicted and never
 * a candidate of the ranking: libkcoll's own choice (algorithm NULL) and
 * the copy limit (docs/bench.md). */
#define KCAL_JOIN_AUTO "auto"
#define KCAL_JOIN_LIMIT "limit"

/* mpi, auto or limit: a reference row, not a model algorithm. */
int kcal_join_is_reference(const char *alg);

/* A collective column's place in the report: the registry's order for
 * a collective (model/collectives.def), then the v-collectives
 * (algos/irregular.def's order) under any distribution of their counts
 * (a label, common/vcounts.h: "alltoallv", "alltoallv-skew-16"); -1 for
 * any other name. kcal_join_coll_cmp orders two names by it, then labels
 * of one v-collective by name (the uniform one, the bare name, first). */
int kcal_join_coll_order(const char *name);
int kcal_join_coll_cmp(const char *a, const char *b);

/* The distinct collectives of a report's rows, in kcal_join_coll_cmp's
 * order: start empty, add each row's; names point into the rows. */
#define KCAL_JOIN_MAX_COLLS 64
typedef struct {
    const char *name[KCAL_JOIN_MAX_COLLS];
    int n;
} kcal_join_colls;
void kcal_join_colls_add(kcal_join_colls *s, const char *name);

/* One (collective, p, size, algorithm, k) point: what was predicted, what
 * was measured, or both. k is 0 where the CSV leaves it empty. */
typedef struct {
    char coll[48]; /* a collective, or a v-collective's label
                    * (common/vcounts.h: KCAL_VCOUNTS_LABEL_LEN) */
    int p;
    uint64_t size;
    char alg[40];
    int k;

    int has_pred;
    double predicted_s;
    int rank;

    int has_meas;
    double median_s, min_s, max_s;
    long iterations;
    int oversubscribed;
    /* issue 9, when the bench CSV has them: the quartiles of the
     * iterations, and the medians of the odd and the even iterations */
    int has_quartiles, has_halves;
    double p25_s, p75_s, half1_s, half2_s;

    const char *pred_file, *meas_file; /* source file and line, for messages */
    int pred_line, meas_line;
} kcal_join_row;

typedef struct {
    kcal_join_row *rows;
    size_t n, cap;
    /* Rows seen in one file but not the other (after kcal_join_finish). */
    size_t pred_only, meas_only;
    char **names; /* file names the rows point to (owned) */
    size_t n_names;
} kcal_join_table;

void kcal_join_init(kcal_join_table *t);
void kcal_join_free(kcal_join_table *t);

/* What the readers accept at most. A full sweep's CSV is a few MiB with
 * lines under 200 bytes; past these limits the input is not a CSV of kcal
 * bench or kcal predict, and reading on would only use up memory. */
#define KCAL_JOIN_MAX_FILE (64u << 20) /* bytes */
#define KCAL_JOIN_MAX_LINE 4096        /* bytes, without the newline */

/* Which file a text is: `kcal predict --format csv` or `kcal bench
 * --format csv`. */
typedef enum { KCAL_JOIN_PREDICTED, KCAL_JOIN_MEASURED } kcal_join_side;

/* Parse len bytes of CSV from `name` (any bytes: a NUL byte, a line over
 * KCAL_JOIN_MAX_LINE or more than KCAL_JOIN_MAX_FILE bytes are errors). The
 * header must hold the contract's columns (columns.h; any order, extra
 * columns ignored); repeated identical header lines are allowed so per-run
 * files can be concatenated. Returns 0 or -1 with "name:line: ..." */
int kcal_join_parse(kcal_join_table *t, kcal_join_side side, const char *data,
                    size_t len, const char *name, char *err, size_t errlen);
/* The same for a NUL-terminated text. */
int kcal_join_parse_predicted(kcal_join_table *t, const char *text,
                              const char *name, char *err, size_t errlen);
int kcal_join_parse_measured(kcal_join_table *t, const char *text,
                             const char *name, char *err, size_t errlen);
/* Read a whole file (or pipe) and parse it as above; stops reading at the
 * first NUL byte, over-long line or byte past KCAL_JOIN_MAX_FILE. */
int kcal_join_read_predicted(kcal_join_table *t, const char *path, char *err,
                             size_t errlen);
int kcal_join_read_measured(kcal_join_table *t, const char *path, char *err,
                            size_t errlen);

/* Join: merge the predicted and the measured row of each key, sort by
 * collective (model order), p, algorithm, k, size, and count the rows that
 * have only one side. Call once, after reading both files. A key given
 * twice on the same side is an error naming both lines. 0 or -1. */
int kcal_join_finish(kcal_join_table *t, char *err, size_t errlen);

/* "id" or "id:k" into buf; returns buf. */
char *kcal_join_alg_label(const kcal_join_row *r, char *buf, size_t len);

/* The row of (coll, p, size, alg, k) in a finished table, or NULL. */
const kcal_join_row *kcal_join_find(const kcal_join_table *t, const char *coll,
                                    int p, uint64_t size, const char *alg,
                                    int k);

/* The q-quantile (0 <= q <= 1) of v[0..n-1], linear between the two
 * nearest values (q = 0.5: the median, the mean of the middle two for an
 * even n). Sorts v. NAN when n is 0. */
double kcal_join_quantile(double *v, size_t n, double q);

/* Absolute percentage error of a joined row: 100*|pred - meas|/meas. */
double kcal_join_ape(const kcal_join_row *r);

/* summary.csv: one line per (collective, p, algorithm, k) with at least one
 * joined point of size >= KCAL_JOIN_MIN_ERR_SIZE. */
typedef struct {
    char coll[48]; /* a collective, or a v-collective's label
                    * (common/vcounts.h: KCAL_VCOUNTS_LABEL_LEN) */
    int p;
    char alg[40];
    int k;
    int oversubscribed;
    int points;
    double mape_pct, max_ape_pct;
    double mean_signed_pct;  /* mean of 100*(pred-meas)/meas: < 0 = model too fast */
    uint64_t worst_size;     /* the size of max_ape_pct */
} kcal_join_summary;

/* ranking.csv: one line per (collective, p, size) with at least one joined
 * (predicted and measured) kcoll row. */
typedef struct {
    char coll[48]; /* a collective, or a v-collective's label
                    * (common/vcounts.h: KCAL_VCOUNTS_LABEL_LEN) */
    int p;
    uint64_t size;
    int oversubscribed;
    const kcal_join_row *predicted_best; /* lowest predicted rank among
                                          * measured; on a tie the one the
                                          * predicted CSV lists first */
    const kcal_join_row *predicted_second; /* the next in the same order,
                                            * NULL when one was measured */
    int tied; /* another measured algorithm shares predicted_best's rank */
    const kcal_join_row *measured_best;  /* lowest median among kcoll algorithms */
    double regret_pct;
    const kcal_join_row *mpi;            /* NULL when `mpi` was not measured */
    double speedup;                      /* mpi median / measured_best median; NAN without mpi */
    int noise_tie; /* issue 9: predicted_best's median is above
                    * measured_best's by less than either's own noise (the
                    * difference of its halves' medians, else half its
                    * interquartile range): ranking.csv's `tie` */
    const kcal_join_row *auto_choice;    /* `auto`, NULL when not measured */
    const kcal_join_row *limit;          /* `limit`, NULL when not measured */
} kcal_join_rank;

/* Both return the count (>= 0) and a malloc'ed array (caller frees), or -1
 * on allocation failure. Pointers in kcal_join_rank point into t->rows. */
long kcal_join_summarise(const kcal_join_table *t, kcal_join_summary **out);
long kcal_join_rank_sizes(const kcal_join_table *t, kcal_join_rank **out);

/* Whether a row counts in the headline error: joined (predicted and
 * measured), not oversubscribed, size >= KCAL_JOIN_MIN_ERR_SIZE. */
int kcal_join_in_headline(const kcal_join_row *r);

/* Headline numbers over the non-oversubscribed points: the median APE of all
 * rows kcal_join_in_headline counts and the mean regret over ranking rows.
 * NAN when there is nothing to average. */
double kcal_join_median_ape(const kcal_join_table *t);
/* The same median over one collective's rows (coll NULL: all); *points gets
 * how many rows it covers and *under how many of them the model predicts
 * faster than measured (either may be NULL). NAN when none (or out of
 * memory). */
double kcal_join_median_ape_of(const kcal_join_table *t, const char *coll,
                               int *points, int *under);
double kcal_join_mean_regret(const kcal_join_rank *r, long n);
/* The same without the points that are noise ties; *ties (may be NULL)
 * gets how many were left out. */
double kcal_join_mean_regret_no_ties(const kcal_join_rank *r, long n,
                                     long *ties);
/* Right first choices among the points that are not oversubscribed: the
 * predicted best is the measured best, or costs nothing more (regret 0).
 * *of gets how many points were judged. */
int kcal_join_right_picks(const kcal_join_rank *r, long n, int *of);
/* The repeat error, the report's noise floor: the median over the
 * headline's points (kcoll algorithms) that have both halves of
 * 100·|half1 − half2| / mean(half1, half2); *points (may be NULL) how many.
 * NAN when no point has halves. */
double kcal_join_repeat_error(const kcal_join_table *t, int *points);

/* Write the two tables (header included). Return 0 or -1 (errno). The
 * `oversubscribed` selector picks which rows: 0 = not oversubscribed only,
 * 1 = oversubscribed only. */
int kcal_join_write_summary(FILE *f, const kcal_join_summary *s, long n,
                            int oversubscribed);
int kcal_join_write_ranking(FILE *f, const kcal_join_rank *r, long n,
                            int oversubscribed);
/* speedup.csv: collective,p,size_bytes,best_algorithm,best_s,mpi_s,speedup */
int kcal_join_write_speedup(FILE *f, const kcal_join_rank *r, long n,
                            int oversubscribed);

#endif
