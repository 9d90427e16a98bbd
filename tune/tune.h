/* tune: what `kcal tune` decides, apart from running anything (that is
 * tune_cmd.c): the candidates the model proposes for one point (a
 * collective and a size at p), the measured times of a point and its
 * winner, the selection table made of the winners (model/table.h), and
 * the cost and regret of the model-guided choice against the exhaustive
 * one. Library code: no printing, no MPI. docs/tune.md has the method. */
#ifndef KCAL_TUNE_H
#define KCAL_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "model/params.h"
#include "model/table.h"

/* One candidate: an algorithm of the registry with its k (0 where it
 * takes none), or kcal_model_mpi(coll) for the MPI library's own. */
typedef struct {
    const kcal_algorithm *alg;
    int k;
} kcal_tune_cand;

/* One measured candidate: its median time (seconds). */
typedef struct {
    kcal_tune_cand cand;
    double median;
} kcal_tune_time;

/* One point: coll at n bytes (p is the run's). guided: the model's
 * candidates (mpi, always measured, is not among them); times: what was
 * measured, mpi included. */
typedef struct {
    kcal_coll coll;
    uint64_t n;
    kcal_tune_cand *guided;
    int n_guided;
    kcal_tune_time *times;
    size_t n_times, cap_times;
} kcal_tune_point;

/* "id", "id:k" or "mpi", into buf. Returns buf. */
char *kcal_tune_cand_format(const kcal_tune_cand *c, char *buf, size_t len);

/* The window of the guided run (docs/tune.md): besides the model's N
 * best, every candidate it predicts within S times its best, S from how
 * far passing a chunk between cores moved during the probe (the params'
 * pass_spread, model/keys.def), held between the floor (even a steady
 * machine's model misranks by that much) and the cap (so the run stays
 * short on a host that moves its vCPUs a lot); without the key, the
 * default. */
#define KCAL_TUNE_WINDOW_FLOOR 1.25
#define KCAL_TUNE_WINDOW_CAP 2.0
#define KCAL_TUNE_WINDOW_DEFAULT KCAL_TUNE_WINDOW_FLOOR

/* S for the params prm. */
double kcal_tune_window(const kcal_params *prm);

/* How S came about, for the table's header: "S = 2.00 from pass_spread
 * 5.4, capped", "S = 1.25, the default without pass_spread". Returns
 * buf. */
char *kcal_tune_window_describe(const kcal_params *prm, char *buf,
                                size_t len);

/* The point's guided candidates, from the model's ranking at (coll, p, n)
 * with the params prm (the same ranking and ties as kcal predict;
 * libkcoll's is the paper model's), leaving out the MPI library's row
 * and candidates whose time is not finite: the `want` fastest distinct
 * (algorithm, k), any whose predicted time equals the want-th's (a tie
 * the model cannot break), and any predicted within window (S, >= 1)
 * times the fastest's (window 1: the want fastest and their ties alone).
 * Returns how many (fewer than want where the collective has fewer at p;
 * 0 when every time is inf or NaN), or -1 out of memory or on bad
 * arguments. */
int kcal_tune_guide(kcal_tune_point *pt, kcal_model_kind model,
                    const kcal_params *prm, int p, int want, double window);

/* Record a measured median for cand at the point (a second one for the
 * same candidate replaces the first). 0, or -1 out of memory. */
int kcal_tune_record(kcal_tune_point *pt, const kcal_tune_cand *cand,
                     double median);

/* Whether cand is one the guided run measures: mpi or a guided one. */
int kcal_tune_is_guided(const kcal_tune_point *pt, const kcal_tune_cand *c);

/* The fastest measured candidate (lowest median; a tie keeps the first
 * recorded), among every measured one or, guided_only, among mpi and the
 * guided ones. NULL when none was measured. */
const kcal_tune_time *kcal_tune_best(const kcal_tune_point *pt,
                                     int guided_only);

/* Add to t the rules for one collective at p from its points (sorted by
 * n, all of that collective), each winning (kcal_tune_best) from its size
 * to the next point's size minus 1, the first from 0, the last with no
 * upper end; neighbours with the same winner become one rule. 0, or -1
 * with why in err (a point without measurements, or kcal_table_add's
 * reason). */
int kcal_tune_table_add(kcal_table *t, const kcal_tune_point *pts,
                        size_t count, int p, int guided_only, char *err,
                        size_t errlen);

/* The guided choice against the exhaustive one, both from the points'
 * measurements: per point r = (t_guided − t_best) / t_best, where t_best
 * is the fastest measured time and t_guided the fastest among mpi and the
 * guided candidates; mean and max over the points, and how many
 * measurements each needed (the guided: mpi and its candidates per point;
 * the exhaustive: every measured one). Points where either is missing
 * are left out; *points says how many counted. */
typedef struct {
    size_t points;
    size_t guided_measurements, exhaustive_measurements;
    double mean, max;
} kcal_tune_regret;

void kcal_tune_compare(const kcal_tune_point *pts, size_t count,
                       kcal_tune_regret *out);

void kcal_tune_point_free(kcal_tune_point *pt);

/* A v-collective at p (docs/tune.md "The v-collectives"): every
 * candidate measured under each distribution of the blocks, over the
 * same sizes (a pair's mean block, ascending). Candidate 0 is mpi,
 * candidate 1 + r the row r of kcal_model_valgorithms (irregular.def's
 * order; a windowed row without a window: its root chooses). */
typedef struct {
    int vcoll; /* kcal_model_vcoll_index */
    const kcal_valgorithm *rows;
    size_t n_rows, n_dists, n_sizes;
    uint64_t *sizes;
    double *times; /* [(d · (1 + n_rows) + c) · n_sizes + i], NaN unset */
} kcal_tune_vset;

/* Set v up for v-collective `name`, n_dists distributions and the sizes
 * (copied; ascending, distinct). 0, or -1 for an unknown name, no
 * distribution or size, or out of memory. */
int kcal_tune_vinit(kcal_tune_vset *v, const char *name, size_t n_dists,
                    const uint64_t *sizes, size_t n_sizes);

/* Record distribution d's median for candidate `alg` ("mpi" or a row
 * id) at size n. 0, or -1 for a candidate or size v does not have. */
int kcal_tune_vrecord(kcal_tune_vset *v, size_t d, const char *alg,
                      uint64_t n, double median);

/* The candidate's name: "mpi" or the row's id. */
const char *kcal_tune_vname(const kcal_tune_vset *v, size_t c);

/* Candidate c's score at size i: its worst slowdown, the largest over
 * the distributions of its time over the fastest candidate's there
 * (1: the fastest under every one). NaN when a time is missing or not
 * positive. */
double kcal_tune_vscore(const kcal_tune_vset *v, size_t c, size_t i);

/* The one crossover and one row libkcoll can follow alike on every rank
 * (kcal_table_vchoice): *split j in 0..n_sizes (the sizes below the j-th
 * go as mpi), *staged k in j..n_sizes − 1 (the sizes from the j-th to
 * below the k-th run the v-collective's staged row, kcal_model_vstaged_row,
 * where it has one; each at most KCAL_V_STAGED_MAX; k = j: none) and *row
 * r (candidate 1 + r from the k-th on; 0 when j = n_sizes) minimising the
 * sum of mpi's scores below j, the staged row's from j to k and the row's
 * from k. Ties: the larger j (libkcoll only where it pays), then the
 * smaller k, then the row first in irregular.def. 0, or -1 when a score
 * is NaN. */
int kcal_tune_vsplit(const kcal_tune_vset *v, size_t *split, size_t *staged,
                     size_t *row);

/* Add to t the rules of that choice at p: "0..s_j−1 mpi" when j > 0,
 * "s_j..min(s_k−1, KCAL_V_STAGED_MAX) staged-row" when k > j, and the
 * row from there (from s_j when k = j, from 0 when j = 0) when j <
 * n_sizes; j = n_sizes is one rule "* mpi". 0, or -1 with why in err. */
int kcal_tune_vtable_add(kcal_table *t, const kcal_tune_vset *v, int p,
                         char *err, size_t errlen);

void kcal_tune_vfree(kcal_tune_vset *v);

#endif
