/* predict_irregular: see predict_irregular.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "cmd/predict_irregular.h"
#include "common/sizes.h"
#include "model/irregular.h"

/* One size's rows: the v-algorithms (a windowed one once per window w,
 * 1 .. p − 1), then the MPI library's where the params have it. */
typedef struct {
    const char *id;
    int w; /* a windowed row's window, else 0 */
    double seconds;
    kcal_terms terms;
    int rank;
} vrow;

/* Room for the rows of one size at p. */
static vrow *rows_new(const kcal_vpredict_request *r)
{
    size_t na;
    kcal_model_valgorithms(r->vcoll, &na);
    return malloc(sizeof(vrow) * (na * (size_t)r->p + 1));
}

/* The rows at size n into rows (ranked); their count, or -1 with a
 * message in err (the counts cannot be made). */
static int rows_at(const kcal_vpredict_request *r, const kcal_params *prm,
                   uint64_t n, vrow *rows, char *err, size_t errlen)
{
    size_t pp = (size_t)r->p * (size_t)r->p, na;
    uint64_t *m = rows ? malloc(sizeof *m * pp) : NULL;
    if (!m) {
        snprintf(err, errlen, "out of memory for a %ld x %ld matrix", r->p,
                 r->p);
        return -1;
    }
    if (kcal_vcounts_matrix(&r->counts, (int)r->p, n, m, err, errlen) < 0) {
        free(m);
        return -1;
    }
    const kcal_valgorithm *a = kcal_model_valgorithms(r->vcoll, &na);
    int count = 0;
    for (size_t i = 0; i < na; i++) {
        int windowed = kcal_model_vwindowed(&a[i]);
        for (int w = windowed; w <= (windowed ? (int)r->p - 1 : 0); w++) {
            rows[count].id = a[i].id;
            rows[count].w = w;
            rows[count].seconds = kcal_model_vtime(r->model, prm, &a[i],
                                                   (int)r->p, w, m,
                                                   &rows[count].terms);
            count++;
        }
    }
    double mpi = kcal_model_vmpi_time(prm, r->vcoll, (int)r->p, m);
    if (mpi >= 0)
        rows[count++] = (vrow){"mpi", 0, mpi, {0, 0, 0, mpi}, 0};
    free(m);
    /* Rank: insertion sort by time, equal times share a rank. */
    for (int i = 1; i < count; i++)
        for (int j = i; j > 0 && rows[j].seconds < rows[j - 1].seconds; j--) {
            vrow t = rows[j];
            rows[j] = rows[j - 1];
            rows[j - 1] = t;
        }
    for (int i = 0; i < count; i++)
        rows[i].rank = i && rows[i].seconds == rows[i - 1].seconds
                           ? rows[i - 1].rank
                           : i + 1;
    return count;
}

int kcal_predict_irregular_check(const char *cmd,
                                 const kcal_vpredict_request *r,
                                 const kcal_params *prm)
{
    if (r->p < 2) {
        kcal_cli_error(cmd, "--coll %s: --p must be 2 or more (at p = 1 "
                            "it is one local copy)", r->vcoll);
        return -1;
    }
    char err[KCAL_ERRLEN];
    vrow *rows = rows_new(r);
    int rc = 0;
    for (size_t s = 0; s < r->n_sizes && rc == 0; s++) {
        int count = rows_at(r, prm, r->sizes[s], rows, err, sizeof err);
        if (count < 0) {
            kcal_cli_error(cmd, "%s", err);
            rc = -1;
        }
        for (int i = 0; i < count && rc == 0; i++)
            if (!isfinite(rows[i].seconds) || rows[i].seconds < 0) {
                kcal_cli_error(cmd, "%s: %s %s at p = %ld, n = %llu: the "
                                    "predicted time is not finite",
                               prm->origin, r->vcoll, rows[i].id, r->p,
                               (unsigned long long)r->sizes[s]);
                rc = -1;
            }
        if (r->counts.kind == KCAL_VCOUNTS_FILE)
            break; /* the same matrix at every size */
    }
    free(rows);
    return rc;
}

/* s as a JSON string (a file's path may hold anything). */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

int kcal_predict_irregular_print(const char *cmd,
                                 const kcal_vpredict_request *r,
                                 const kcal_params *prm, int *first)
{
    char err[KCAL_ERRLEN], dist[4200], sz[32];
    vrow *rows = rows_new(r);
    char label[KCAL_VCOUNTS_LABEL_LEN];
    kcal_vcounts_name(&r->counts, dist, sizeof dist);
    kcal_vcounts_label(r->vcoll, &r->counts, label);
    FILE *f = stdout;
    if (r->format == KCAL_PREDICT_TABLE)
        fprintf(f, "kcal predict: %s, p = %ld, counts %s, model %s, params "
                   "%s\n",
                r->vcoll, r->p, dist, kcal_model_name(r->model), prm->origin);
    size_t n_sizes = r->counts.kind == KCAL_VCOUNTS_FILE ? 1 : r->n_sizes;
    for (size_t s = 0; s < n_sizes; s++) {
        uint64_t n = r->sizes[s];
        int count = rows_at(r, prm, n, rows, err, sizeof err);
        if (count < 0) {
            kcal_cli_error(cmd, "%s", err);
            free(rows);
            return KCAL_EXIT_FAIL;
        }
        if (r->format == KCAL_PREDICT_TABLE) {
            if (r->counts.kind == KCAL_VCOUNTS_FILE)
                fprintf(f, "\nthe matrix of %s\n", r->counts.path);
            else
                fprintf(f, "\nsize %s (%llu bytes, the mean block)\n",
                        kcal_sizes_format(n, sz, sizeof sz),
                        (unsigned long long)n);
            fprintf(f, "  rank  algorithm              time_us   x_best%s\n",
                    r->explain ? "   startup      copy      lock      sync"
                               : "");
            /* A windowed row shows its best window alone (the rows come
             * fastest first); CSV and JSON give every window. */
            int hidden = 0;
            for (int i = 0; i < count; i++) {
                int seen = 0;
                for (int j = 0; j < i && rows[i].w; j++)
                    seen |= rows[j].w && !strcmp(rows[j].id, rows[i].id);
                if (seen) {
                    hidden++;
                    continue;
                }
                char id[48];
                if (rows[i].w)
                    snprintf(id, sizeof id, "%s:%d", rows[i].id, rows[i].w);
                else
                    snprintf(id, sizeof id, "%s", rows[i].id);
                fprintf(f, "  %4d  %-18s %12.3f %8.2f", rows[i].rank, id,
                        1e6 * rows[i].seconds,
                        rows[0].seconds > 0
                            ? rows[i].seconds / rows[0].seconds
                            : 1.0);
                if (r->explain)
                    fprintf(f, " %9.3f %9.3f %9.3f %9.3f",
                            1e6 * rows[i].terms.startup,
                            1e6 * rows[i].terms.copy,
                            1e6 * rows[i].terms.lock,
                            1e6 * rows[i].terms.sync);
                fprintf(f, "%s\n", rows[i].rank == 1 ? "  <- best" : "");
            }
            if (hidden)
                fprintf(f, "  (%d more rows: other windows; --format csv "
                           "shows them)\n",
                        hidden);
            continue;
        }
        for (int i = 0; i < count; i++) {
            if (r->format == KCAL_PREDICT_CSV) {
                fprintf(f, "%s,%ld,%llu,%s,", label, r->p,
                        (unsigned long long)n, rows[i].id);
                if (rows[i].w)
                    fprintf(f, "%d", rows[i].w);
                fprintf(f, ",%.9g,%d\n", rows[i].seconds, rows[i].rank);
                continue;
            }
            fprintf(f, "%s\n  {\"collective\": \"%s\", \"counts\": ",
                    *first ? "" : ",", r->vcoll);
            json_string(f, dist);
            fprintf(f,
                    ", \"p\": %ld, \"size_bytes\": %llu, \"algorithm\": "
                    "\"%s\", \"k\": %d, \"predicted_s\": %.9g, \"rank\": %d}",
                    r->p, (unsigned long long)n, rows[i].id, rows[i].w,
                    rows[i].seconds, rows[i].rank);
            *first = 0;
        }
    }
    free(rows);
    return KCAL_EXIT_OK;
}
