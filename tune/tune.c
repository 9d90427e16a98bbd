/* tune: see tune.h. */
#include "tune/tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/grow.h"
#include "model/keys.h"

char *kcal_tune_cand_format(const kcal_tune_cand *c, char *buf, size_t len)
{
    if (c->k > 0)
        snprintf(buf, len, "%s:%d", c->alg->id, c->k);
    else
        snprintf(buf, len, "%s", c->alg->id);
    return buf;
}

static int same(const kcal_tune_cand *a, const kcal_tune_cand *b)
{
    return a->alg == b->alg && a->k == b->k;
}

double kcal_tune_window(const kcal_params *prm)
{
    if (!kcal_params_has_key(prm, KCAL_PK_pass_spread))
        return KCAL_TUNE_WINDOW_DEFAULT;
    double s = kcal_params_get_key(prm, KCAL_PK_pass_spread, 0);
    return s < KCAL_TUNE_WINDOW_FLOOR ? KCAL_TUNE_WINDOW_FLOOR
           : s > KCAL_TUNE_WINDOW_CAP ? KCAL_TUNE_WINDOW_CAP
                                      : s;
}

char *kcal_tune_window_describe(const kcal_params *prm, char *buf,
                                size_t len)
{
    const char *key = KCAL_KEY_NAME(pass_spread);
    double s = kcal_tune_window(prm);
    if (!kcal_params_has_key(prm, KCAL_PK_pass_spread)) {
        snprintf(buf, len, "S = %.2f, the default without %s", s, key);
        return buf;
    }
    double v = kcal_params_get_key(prm, KCAL_PK_pass_spread, 0);
    snprintf(buf, len, "S = %.2f from %s %.3g%s", s, key, v,
             v > KCAL_TUNE_WINDOW_CAP     ? ", capped"
             : v < KCAL_TUNE_WINDOW_FLOOR ? ", at the floor"
                                          : "");
    return buf;
}

int kcal_tune_guide(kcal_tune_point *pt, kcal_model_kind model,
                    const kcal_params *prm, int p, int want, double window)
{
    free(pt->guided);
    pt->guided = NULL;
    pt->n_guided = 0;
    if (want < 1 || !(window >= 1))
        return -1;
    kcal_prediction *pred;
    long n = kcal_model_rank(model, prm, pt->coll, p, pt->n, 0, 0, &pred);
    if (n < 0)
        return -1;
    pt->guided = calloc((size_t)(n > 0 ? n : 1), sizeof *pt->guided);
    if (!pt->guided) {
        free(pred);
        return -1;
    }
    /* The ranking lists each (algorithm, k) once, fastest first. Those
     * tied with the want-th come too: the model cannot tell them apart
     * (the three ring allgathers share one formula), and which of them
     * the tie order happens to list first says nothing about the
     * machine. Those within the window of the fastest come too: the
     * machine moved that much while the probe measured it, so the model
     * cannot rule them out. */
    double last = 0, first = 0;
    for (long i = 0; i < n; i++) {
        if (kcal_model_is_mpi(pred[i].alg) || !isfinite(pred[i].seconds) ||
            pred[i].seconds < 0)
            continue;
        if (!pt->n_guided)
            first = pred[i].seconds;
        if (pt->n_guided >= want && pred[i].seconds != last &&
            !(pred[i].seconds <= first * window))
            break;
        pt->guided[pt->n_guided++] = (kcal_tune_cand){pred[i].alg, pred[i].k};
        last = pred[i].seconds;
    }
    free(pred);
    return pt->n_guided;
}

int kcal_tune_record(kcal_tune_point *pt, const kcal_tune_cand *cand,
                     double median)
{
    for (size_t i = 0; i < pt->n_times; i++)
        if (same(&pt->times[i].cand, cand)) {
            pt->times[i].median = median;
            return 0;
        }
    kcal_tune_time *grown = kcal_grow(pt->times, &pt->cap_times, pt->n_times,
                                      sizeof *grown, 8);
    if (!grown)
        return -1;
    pt->times = grown;
    pt->times[pt->n_times++] = (kcal_tune_time){*cand, median};
    return 0;
}

int kcal_tune_is_guided(const kcal_tune_point *pt, const kcal_tune_cand *c)
{
    if (kcal_model_is_mpi(c->alg))
        return 1;
    for (int i = 0; i < pt->n_guided; i++)
        if (same(&pt->guided[i], c))
            return 1;
    return 0;
}

const kcal_tune_time *kcal_tune_best(const kcal_tune_point *pt,
                                     int guided_only)
{
    const kcal_tune_time *best = NULL;
    for (size_t i = 0; i < pt->n_times; i++) {
        const kcal_tune_time *t = &pt->times[i];
        if (guided_only && !kcal_tune_is_guided(pt, &t->cand))
            continue;
        if (!isfinite(t->median) || t->median < 0)
            continue;
        if (!best || t->median < best->median)
            best = t;
    }
    return best;
}

int kcal_tune_table_add(kcal_table *t, const kcal_tune_point *pts,
                        size_t count, int p, int guided_only, char *err,
                        size_t errlen)
{
    size_t i = 0;
    while (i < count) {
        const kcal_tune_time *w = kcal_tune_best(&pts[i], guided_only);
        if (!w) {
            kcal_set_err(err, errlen, "%s at %llu bytes: nothing measured",
                         kcal_coll_name(pts[i].coll),
                         (unsigned long long)pts[i].n);
            return -1;
        }
        /* The run of neighbours this winner also wins. */
        size_t j = i + 1;
        for (; j < count; j++) {
            const kcal_tune_time *x = kcal_tune_best(&pts[j], guided_only);
            if (!x || !same(&x->cand, &w->cand))
                break;
        }
        kcal_table_rule r = {
            .coll = pts[i].coll, .p_lo = p, .p_hi = p,
            .n_lo = i == 0 ? 0 : pts[i].n,
            .n_hi = j < count ? pts[j].n - 1 : KCAL_TABLE_N_OPEN,
            .alg = w->cand.alg, .k = w->cand.k};
        if (kcal_table_add(t, &r, err, errlen) != 0)
            return -1;
        i = j;
    }
    return 0;
}

void kcal_tune_compare(const kcal_tune_point *pts, size_t count,
                       kcal_tune_regret *out)
{
    *out = (kcal_tune_regret){0};
    double sum = 0;
    for (size_t i = 0; i < count; i++) {
        const kcal_tune_time *best = kcal_tune_best(&pts[i], 0);
        const kcal_tune_time *g = kcal_tune_best(&pts[i], 1);
        if (!best || !g || best->median <= 0)
            continue;
        size_t guided = 0;
        for (size_t m = 0; m < pts[i].n_times; m++)
            guided += (size_t)kcal_tune_is_guided(&pts[i],
                                                  &pts[i].times[m].cand);
        double r = (g->median - best->median) / best->median;
        sum += r;
        if (r > out->max)
            out->max = r;
        out->points++;
        out->guided_measurements += guided;
        out->exhaustive_measurements += pts[i].n_times;
    }
    out->mean = out->points ? sum / (double)out->points : 0;
}

void kcal_tune_point_free(kcal_tune_point *pt)
{
    free(pt->guided);
    free(pt->times);
    pt->guided = NULL;
    pt->times = NULL;
    pt->n_guided = 0;
    pt->n_times = pt->cap_times = 0;
}

int kcal_tune_vinit(kcal_tune_vset *v, const char *name, size_t n_dists,
                    const uint64_t *sizes, size_t n_sizes)
{
    *v = (kcal_tune_vset){0};
    v->vcoll = kcal_model_vcoll_index(name);
    v->rows = kcal_model_valgorithms(name, &v->n_rows);
    if (v->vcoll < 0 || !v->rows || !n_dists || !n_sizes)
        return -1;
    size_t cells = n_dists * (1 + v->n_rows) * n_sizes;
    v->sizes = malloc(sizeof *v->sizes * n_sizes);
    v->times = malloc(sizeof *v->times * cells);
    if (!v->sizes || !v->times) {
        kcal_tune_vfree(v);
        return -1;
    }
    memcpy(v->sizes, sizes, sizeof *v->sizes * n_sizes);
    for (size_t i = 0; i < cells; i++)
        v->times[i] = NAN;
    v->n_dists = n_dists;
    v->n_sizes = n_sizes;
    return 0;
}

static double *vcell(const kcal_tune_vset *v, size_t d, size_t c, size_t i)
{
    return &v->times[(d * (1 + v->n_rows) + c) * v->n_sizes + i];
}

int kcal_tune_vrecord(kcal_tune_vset *v, size_t d, const char *alg,
                      uint64_t n, double median)
{
    size_t c = 0, i = 0;
    while (c <= v->n_rows && strcmp(kcal_tune_vname(v, c), alg))
        c++;
    while (i < v->n_sizes && v->sizes[i] != n)
        i++;
    if (d >= v->n_dists || c > v->n_rows || i == v->n_sizes)
        return -1;
    *vcell(v, d, c, i) = median;
    return 0;
}

const char *kcal_tune_vname(const kcal_tune_vset *v, size_t c)
{
    return c == 0 ? "mpi" : v->rows[c - 1].id;
}

double kcal_tune_vscore(const kcal_tune_vset *v, size_t c, size_t i)
{
    double worst = 0;
    for (size_t d = 0; d < v->n_dists; d++) {
        double fastest = INFINITY;
        for (size_t x = 0; x <= v->n_rows; x++) {
            double t = *vcell(v, d, x, i);
            if (!(t > 0) || !isfinite(t))
                return NAN;
            fastest = t < fastest ? t : fastest;
        }
        double r = *vcell(v, d, c, i) / fastest;
        worst = r > worst ? r : worst;
    }
    return worst;
}

/* The staged row's candidate index (1 + its row), or 0 for none. */
static size_t staged_candidate(const kcal_tune_vset *v)
{
    const kcal_valgorithm *st =
        kcal_model_vstaged_row(kcal_model_vcoll_name(v->vcoll));
    for (size_t r = 0; st && r < v->n_rows; r++)
        if (&v->rows[r] == st)
            return 1 + r;
    return 0;
}

int kcal_tune_vsplit(const kcal_tune_vset *v, size_t *split, size_t *staged,
                     size_t *row)
{
    size_t m = v->n_sizes, s = staged_candidate(v);
    double best = INFINITY;
    *split = *staged = m;
    *row = 0;
    /* From j = m down, so a tie keeps the larger j; k from j up, so it
     * keeps the shorter staged range; rows in order, so it keeps the
     * first. */
    for (size_t j = m + 1; j-- > 0;) {
        double below = 0;
        for (size_t i = 0; i < j; i++)
            below += kcal_tune_vscore(v, 0, i);
        for (size_t k = j; k == j || (s && k < m &&
                                      v->sizes[k - 1] <= KCAL_V_STAGED_MAX);
             k++) {
            double mid = below;
            for (size_t i = j; i < k; i++)
                mid += kcal_tune_vscore(v, s, i);
            for (size_t r = 0; r < (k < m ? v->n_rows : 1); r++) {
                double cost = mid;
                for (size_t i = k; i < m; i++)
                    cost += kcal_tune_vscore(v, 1 + r, i);
                if (isnan(cost))
                    return -1;
                if (cost < best) {
                    best = cost;
                    *split = j;
                    *staged = k;
                    *row = k < m ? r : 0;
                }
            }
        }
    }
    return 0;
}

int kcal_tune_vtable_add(kcal_table *t, const kcal_tune_vset *v, int p,
                         char *err, size_t errlen)
{
    size_t j, k, r;
    if (kcal_tune_vsplit(v, &j, &k, &r) != 0) {
        kcal_set_err(err, errlen, "%s: a candidate was not measured at "
                     "every size and distribution",
                     kcal_model_vcoll_name(v->vcoll));
        return -1;
    }
    kcal_table_rule mpi = {.coll = KCAL_COLL_COUNT, .p_lo = p, .p_hi = p,
                           .n_lo = 0, .n_hi = KCAL_TABLE_N_OPEN,
                           .vcoll = 1 + v->vcoll};
    if (j == v->n_sizes)
        return kcal_table_add(t, &mpi, err, errlen);
    if (j > 0) {
        mpi.n_hi = v->sizes[j] - 1;
        if (kcal_table_add(t, &mpi, err, errlen) != 0)
            return -1;
    }
    kcal_table_rule alg = mpi;
    alg.n_lo = j > 0 ? v->sizes[j] : 0;
    if (k > j) { /* the staged row, then the row right after it */
        alg.n_hi = v->sizes[k] - 1 < KCAL_V_STAGED_MAX ? v->sizes[k] - 1
                                                       : KCAL_V_STAGED_MAX;
        alg.valg = &v->rows[staged_candidate(v) - 1];
        if (kcal_table_add(t, &alg, err, errlen) != 0)
            return -1;
        alg.n_lo = alg.n_hi + 1;
    }
    alg.n_hi = KCAL_TABLE_N_OPEN;
    alg.valg = &v->rows[r];
    return kcal_table_add(t, &alg, err, errlen);
}

void kcal_tune_vfree(kcal_tune_vset *v)
{
    free(v->sizes);
    free(v->times);
    v->sizes = NULL;
    v->times = NULL;
}
