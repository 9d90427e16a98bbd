/* noise: the second launch against the first (noise.h). */
#include "reports/noise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double kcal_noise_change_pct(double a, double b)
{
    return 100.0 * fabs(a - b) / (a < b ? a : b);
}

/* A row the floor counts, in either launch. */
static int counts(const kcal_join_row *r)
{
    return r && r->has_meas && !r->oversubscribed &&
           r->size >= KCAL_JOIN_MIN_ERR_SIZE && !kcal_join_is_reference(r->alg);
}

static int same_point(const kcal_join_row *a, const kcal_join_row *b)
{
    return a->p == b->p && a->size == b->size && !strcmp(a->coll, b->coll);
}

int kcal_noise_floor_of(const kcal_join_table *first,
                        const kcal_join_table *again, kcal_noise_floor *out)
{
    memset(out, 0, sizeof *out);
    out->median_pct = out->p90_pct = NAN;
    if (!again || !again->n)
        return 0;
    double *v = malloc(again->n * sizeof *v);
    /* The points seen, to count them: rows of one point are not adjacent
     * (the table is sorted by algorithm before size). */
    const kcal_join_row **pts = malloc(again->n * sizeof *pts);
    if (!v || !pts) {
        free(v);
        free(pts);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < again->n; i++) {
        const kcal_join_row *b = &again->rows[i];
        if (!counts(b))
            continue;
        const kcal_join_row *a =
            kcal_join_find(first, b->coll, b->p, b->size, b->alg, b->k);
        if (!counts(a))
            continue;
        v[n++] = kcal_noise_change_pct(a->median_s, b->median_s);
        int seen = 0;
        for (int j = 0; j < out->points && !seen; j++)
            seen = same_point(pts[j], b);
        if (!seen)
            pts[out->points++] = b;
    }
    out->rows = (int)n;
    if (n) {
        out->median_pct = kcal_join_quantile(v, n, 0.5);
        out->p90_pct = kcal_join_quantile(v, n, 0.9);
    }
    free(v);
    free(pts);
    return 0;
}

/* The best kcoll row or mpi, whichever measured faster (the kcoll row on
 * a tie); either may be NULL. */
static const kcal_join_row *faster(const kcal_join_row *best,
                                   const kcal_join_row *mpi)
{
    return mpi && (!best || mpi->median_s < best->median_s) ? mpi : best;
}

void kcal_noise_again_of(const kcal_join_table *again, const kcal_join_rank *r,
                         kcal_noise_again *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; again && i < again->n; i++) {
        const kcal_join_row *q = &again->rows[i];
        if (!q->has_meas || q->p != r->p || q->size != r->size ||
            strcmp(q->coll, r->coll))
            continue;
        if (!strcmp(q->alg, KCAL_JOIN_MPI))
            out->mpi = q;
        else if (!strcmp(q->alg, KCAL_JOIN_AUTO))
            out->auto_choice = q;
        else if (!kcal_join_is_reference(q->alg) &&
                 (!out->best || q->median_s < out->best->median_s))
            out->best = q;
    }
    out->best_row = faster(out->best, out->mpi);
}

double kcal_noise_margin_pct(const kcal_join_rank *r)
{
    if (!r->predicted_best || !r->predicted_second)
        return NAN;
    double a = r->predicted_best->predicted_s;
    return 100.0 * (r->predicted_second->predicted_s - a) / a;
}

unsigned kcal_noise_marks(const kcal_join_rank *r, double floor_pct)
{
    if (isnan(floor_pct))
        return 0;
    unsigned m = 0;
    if (r->regret_pct > 0 && r->regret_pct < floor_pct)
        m |= KCAL_NOISE_REGRET;
    double margin = kcal_noise_margin_pct(r);
    if (!isnan(margin) && margin < floor_pct)
        m |= KCAL_NOISE_MARGIN;
    return m;
}

const kcal_join_row *kcal_noise_best_row(const kcal_join_rank *r)
{
    return faster(r->measured_best, r->mpi);
}
