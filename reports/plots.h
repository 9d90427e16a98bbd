/* plots: the report's figures. Writes gnuplot data files from a joined table
 * and runs the gnuplot scripts of reports/ (times.gp, speedup.gp) on them,
 * producing pngcairo images of about 1000x700. Library code: returns 0 or -1
 * with a message in err; gnuplot's own diagnostics go to its stderr. */
#ifndef KCAL_PLOTS_H
#define KCAL_PLOTS_H

#include <stddef.h>

#include "reports/join.h"

/* Of each throttled family (an algorithm measured with several k), only the
 * best few k are drawn: more lines than this make the plot unreadable. */
#define KCAL_PLOT_TOP_K 3

typedef struct {
    const char *scripts_dir; /* where times.gp and speedup.gp live */
    const char *out_dir;     /* PNGs go here, data files under out_dir/data */
} kcal_plot_ctx;

/* The series drawn for (coll, p): every measured (algorithm, k) except the
 * throttle factors outside the best KCAL_PLOT_TOP_K of their family (ranked
 * by the geometric mean over sizes of their measured median relative to the
 * family's best at each size). Writes labels ("id" or "id:k") into a
 * malloc'ed array of `n` strings of 64 bytes (caller frees). 0 or -1. */
int kcal_plot_series(const kcal_join_table *t, const char *coll, int p,
                     char (**labels)[64], size_t *n);

/* One plot of measured times (points, min-max bars) and model (lines) for
 * (coll, p). `title` may hold newlines. The image is written to
 * out_dir/<png> where png = "times-<coll>-p<P>.png". `full` (may be NULL):
 * the same measurements joined with the full model's predictions, drawn as
 * dashed lines of the series' colour next to the paper model's solid ones.
 * 0, or -1 with err. */
int kcal_plot_times(const kcal_plot_ctx *ctx, const kcal_join_table *t,
                    const kcal_join_table *full, const char *coll, int p,
                    const char *title, char *png, size_t pnglen, char *err,
                    size_t errlen);

/* The bar chart of the speedup over `mpi` per collective and size for one
 * p: out_dir/speedup-p<P>.png. Returns 0 (png set), 1 when there is nothing
 * to draw at this p (no `mpi` measured), -1 on error. */
int kcal_plot_speedup(const kcal_plot_ctx *ctx, const kcal_join_rank *r,
                      long n, int p, const char *title, char *png,
                      size_t pnglen, char *err, size_t errlen);

#endif
