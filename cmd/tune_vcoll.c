/* tune_vcoll: `kcal tune` for the v-collectives (tune_vcoll.h). */
#include "cmd/tune_vcoll.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/bench_run.h"
#include "cmd/cli.h"
#include "common/sizes.h"
#include "model/irregular.h"

#define CMD "tune"

int kcal_tune_vparse_counts(const char *list, long p, const uint64_t *sizes,
                            size_t nsizes, const int *vcolls, int nv,
                            kcal_vcounts *dists, int *n)
{
    char err[512];
    *n = 0;
    for (const char *s = list;;) {
        size_t len = strcspn(s, ",");
        char spec[4200], a[4200], b[4200];
        snprintf(spec, sizeof spec, "%.*s", (int)len, s);
        if (*n == KCAL_TUNE_MAX_COUNTS) {
            kcal_cli_error(CMD, "--counts: more than %d distributions",
                           KCAL_TUNE_MAX_COUNTS);
            return -1;
        }
        if (kcal_vcounts_parse(spec, &dists[*n], err, sizeof err) != 0) {
            kcal_cli_error(CMD, "%s", err);
            return -1;
        }
        kcal_vcounts_name(&dists[*n], a, sizeof a);
        for (int i = 0; i < *n; i++)
            if (!strcmp(kcal_vcounts_name(&dists[i], b, sizeof b), a)) {
                kcal_cli_error(CMD, "--counts: %s is listed twice", a);
                return -1;
            }
        for (int v = 0; v < nv; v++)
            if (kcal_bench_vfit(CMD, kcal_model_vcoll_name(vcolls[v]),
                                &dists[*n], spec, (int)p, sizes,
                                nsizes) != 0)
                return -1;
        ++*n;
        if (!s[len])
            break;
        s += len + 1;
    }
    return 0;
}

char *kcal_tune_vcounts_list(const kcal_vcounts *dists, int n, char *buf,
                             size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int d = 0; d < n && at < len; d++) {
        char name[4200];
        at += (size_t)snprintf(buf + at, len - at, "%s%s", d ? ", " : "",
                               kcal_vcounts_name(&dists[d], name,
                                                 sizeof name));
    }
    return buf;
}

/* The rows of one kcal-vcoll-bench run (distribution d) into v: every
 * candidate at every size; its auto and limit rows, which the program
 * always adds, are left out. 0, or -1 after the error line. */
static int take_vrows(const char *csv, kcal_tune_vset *v, size_t d,
                      const kcal_vcounts *dist, int p)
{
    const char *name = kcal_model_vcoll_name(v->vcoll);
    char label[KCAL_VCOUNTS_LABEL_LEN], dn[4200], sz[32];
    kcal_vcounts_label(name, dist, label);
    const char *s = NULL;
    kcal_bench_row row;
    int got;
    while ((got = kcal_bench_next_row(csv, &s, p, CMD, &row)) > 0)
        if (strcmp(row.alg, "auto") && strcmp(row.alg, "limit") &&
            (strcmp(row.coll, label) || row.k[0] ||
             kcal_tune_vrecord(v, d, row.alg, row.size, row.med) != 0)) {
            kcal_cli_error(CMD, "the benchmark printed a row kcal tune did "
                                "not ask for: %.80s", s);
            return -1;
        }
    if (got < 0)
        return -1;
    for (size_t c = 0; c <= v->n_rows; c++)
        for (size_t i = 0; i < v->n_sizes; i++)
            if (isnan(v->times[(d * (1 + v->n_rows) + c) * v->n_sizes +
                               i])) {
                kcal_cli_error(CMD, "the benchmark did not measure %s of %s "
                               "at %s under --counts %s",
                               kcal_tune_vname(v, c), name,
                               kcal_sizes_format(v->sizes[i], sz, sizeof sz),
                               kcal_vcounts_name(dist, dn, sizeof dn));
                return -1;
            }
    return 0;
}

void kcal_tune_vsay(const kcal_tune_vset *v, const char *dists)
{
    const char *name = kcal_model_vcoll_name(v->vcoll);
    size_t j, k, r;
    char sz[32], sz2[32];
    fprintf(stderr, "kcal tune: %s, worst slowdown under %s (1.00: the "
            "fastest under each):\nkcal tune:   %-8s", name, dists, "size");
    for (size_t c = 0; c <= v->n_rows; c++)
        fprintf(stderr, " %*s", (int)strlen(kcal_tune_vname(v, c)) < 6
                                    ? 6 : (int)strlen(kcal_tune_vname(v, c)),
                kcal_tune_vname(v, c));
    fputc('\n', stderr);
    for (size_t i = 0; i < v->n_sizes; i++) {
        fprintf(stderr, "kcal tune:   %-8s",
                kcal_sizes_format(v->sizes[i], sz, sizeof sz));
        for (size_t c = 0; c <= v->n_rows; c++) {
            int w = (int)strlen(kcal_tune_vname(v, c));
            fprintf(stderr, " %*.2f", w < 6 ? 6 : w,
                    kcal_tune_vscore(v, c, i));
        }
        fputc('\n', stderr);
    }
    if (kcal_tune_vsplit(v, &j, &k, &r) != 0)
        return;
    if (j == v->n_sizes) {
        fprintf(stderr, "kcal tune: %s: mpi at every size\n", name);
        return;
    }
    fprintf(stderr, "kcal tune: %s: ", name);
    if (j > 0)
        fprintf(stderr, "mpi below %s, ",
                kcal_sizes_format(v->sizes[j], sz, sizeof sz));
    if (k > j) { /* the staged range as the table writes it */
        uint64_t to = k < v->n_sizes ? v->sizes[k] - 1 : UINT64_MAX;
        to = to > KCAL_V_STAGED_MAX ? KCAL_V_STAGED_MAX : to;
        kcal_sizes_format(to, sz2, sizeof sz2);
        if (j > 0)
            fprintf(stderr, "%s from %s to %s, ",
                    kcal_model_vstaged_row(name)->id,
                    kcal_sizes_format(v->sizes[j], sz, sizeof sz), sz2);
        else
            fprintf(stderr, "%s up to %s, ",
                    kcal_model_vstaged_row(name)->id, sz2);
    }
    fprintf(stderr, "%s %s\n", v->rows[r].id,
            j == 0 && k == 0 ? "at every size" : "from there");
}

int kcal_tune_vmeasure(kcal_bench_job *job, kcal_tune_vset *v,
                       const kcal_vcounts *dists, int ndists, long iters,
                       long warmup, int quiet)
{
    char *all = kcal_sizes_join(v->sizes, v->n_sizes);
    if (!all) {
        kcal_cli_error(CMD, "out of memory");
        return KCAL_EXIT_FAIL;
    }
    char it[32], wu[32];
    snprintf(it, sizeof it, "%ld", iters);
    snprintf(wu, sizeof wu, "%ld", warmup);
    int rc = KCAL_EXIT_OK;
    for (int d = 0; d < ndists && rc == KCAL_EXIT_OK; d++) {
        char dn[4200];
        kcal_vcounts_name(&dists[d], dn, sizeof dn);
        /* The adaptive iterations pinned, as kcal bench does. */
        char *args[] = {"--coll", (char *)kcal_model_vcoll_name(v->vcoll),
                        "--counts", dn, "--sizes", all,
                        "--iterations", it, "--min-iterations", it,
                        "--warmup", wu,
                        quiet ? "--quiet" : "--progress", NULL};
        job->args = args;
        char *csv;
        rc = kcal_bench_run(job, &csv, NULL);
        job->args = NULL;
        if (rc != KCAL_EXIT_OK)
            break;
        if (take_vrows(csv, v, (size_t)d, &dists[d], job->p) != 0)
            rc = KCAL_EXIT_FAIL;
        free(csv);
        job->done_before += kcal_tune_vrun_calls(v, iters, warmup);
    }
    free(all);
    return rc;
}

double kcal_tune_vrun_calls(const kcal_tune_vset *v, long iters,
                            long warmup)
{
    return (double)v->n_sizes * (double)(warmup + iters) *
           (double)(v->n_rows + 3);
}

size_t kcal_tune_vmeasurements(const kcal_tune_vset *v)
{
    return (v->n_rows + 1) * v->n_sizes * v->n_dists;
}
