/* plots: gnuplot data files and the gnuplot runs of the report (plots.h).
 * The look of the figures lives in reports/times.gp and reports/speedup.gp;
 * this file only chooses what to draw and hands gnuplot the data. */
#include "reports/plots.h"

#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "model/model.h"
#include "reports/outfile.h"
#include "common/sizes.h"
#include "reports/sbuf.h"
#include "common/err.h"

extern char **environ;


/* A gnuplot string literal: double quotes, so "\n" breaks the line. */
static void gp_string(kcal_sbuf *b, const char *s)
{
    kcal_sbuf_add(b, "\"");
    for (; *s; s++) {
        if (*s == '\n')
            kcal_sbuf_add(b, "\\n");
        else if (*s == '"' || *s == '\\')
            kcal_sbuf_add(b, "\\%c", *s);
        else
            kcal_sbuf_add(b, "%c", *s);
    }
    kcal_sbuf_add(b, "\"");
}

/* ---- gnuplot ---------------------------------------------------------- */

/* Run `gnuplot -e <vars> <script>` writing <png>.tmp, then rename it into
 * place: a failed run leaves no half-drawn image. */
static int run_gnuplot(const char *script, const char *vars_fmt_done,
                       const char *png_path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(script, &st) != 0) {
        kcal_set_err(err, errlen, "%s: %s (the gnuplot scripts live in reports/; "
                "--scripts DIR or $KCAL_REPORTS_DIR)", script, strerror(errno));
        return -1;
    }
    char *argv[] = {"gnuplot", "-e", (char *)vars_fmt_done, (char *)script,
                    NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
    if (rc != 0) {
        kcal_set_err(err, errlen, "cannot run gnuplot: %s (install gnuplot-nox)",
                strerror(rc));
        return -1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            kcal_set_err(err, errlen, "waitpid gnuplot: %s", strerror(errno));
            return -1;
        }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", png_path);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        stat(tmp, &st) != 0 || st.st_size == 0) {
        unlink(tmp);
        kcal_set_err(err, errlen, "gnuplot %s failed for %s (its message is above)",
                script, png_path);
        return -1;
    }
    if (rename(tmp, png_path) != 0) {
        kcal_set_err(err, errlen, "%s: %s", png_path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int ensure_dir(const char *dir, char *err, size_t errlen)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        kcal_set_err(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* ---- which series ----------------------------------------------------- */

typedef struct {
    size_t first, last; /* rows [first, last) of the table */
    double score;       /* throttled families: mean log(median / family best) */
    int keep;
} series;

static int same_series(const kcal_join_row *a, const kcal_join_row *b)
{
    return !strcmp(a->coll, b->coll) && a->p == b->p &&
           !strcmp(a->alg, b->alg) && a->k == b->k;
}

/* The measured series of (coll, p) in table order, each with keep set. */
static series *collect(const kcal_join_table *t, const char *coll, int p,
                       size_t *count)
{
    series *s = calloc(t->n ? t->n : 1, sizeof *s);
    if (!s)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < t->n;) {
        size_t j = i;
        int measured = 0;
        while (j < t->n && same_series(&t->rows[i], &t->rows[j]))
            measured |= t->rows[j++].has_meas;
        if (measured && !strcmp(t->rows[i].coll, coll) && t->rows[i].p == p)
            s[n++] = (series){i, j, 0, 1};
        i = j;
    }
    /* Families: consecutive series of one algorithm with several k. */
    for (size_t a = 0; a < n;) {
        size_t b = a;
        while (b < n && !strcmp(t->rows[s[a].first].alg, t->rows[s[b].first].alg))
            b++;
        if (b - a > KCAL_PLOT_TOP_K) {
            for (size_t m = a; m < b; m++) {
                double sum = 0;
                int cnt = 0;
                for (size_t r = s[m].first; r < s[m].last; r++) {
                    const kcal_join_row *row = &t->rows[r];
                    if (!row->has_meas)
                        continue;
                    double best = row->median_s;
                    for (size_t o = a; o < b; o++)
                        for (size_t q = s[o].first; q < s[o].last; q++)
                            if (t->rows[q].has_meas &&
                                t->rows[q].size == row->size &&
                                t->rows[q].median_s < best)
                                best = t->rows[q].median_s;
                    sum += log(row->median_s / best);
                    cnt++;
                }
                s[m].score = cnt ? sum / cnt : INFINITY;
            }
            /* Keep the KCAL_PLOT_TOP_K lowest scores (ties: smaller k). */
            for (size_t m = a; m < b; m++) {
                int better = 0;
                for (size_t o = a; o < b; o++)
                    better += s[o].score < s[m].score ||
                              (s[o].score == s[m].score && o < m);
                s[m].keep = better < KCAL_PLOT_TOP_K;
            }
        }
        a = b;
    }
    *count = n;
    return s;
}

int kcal_plot_series(const kcal_join_table *t, const char *coll, int p,
                     char (**labels)[64], size_t *n)
{
    size_t ns;
    series *s = collect(t, coll, p, &ns);
    if (!s)
        return -1;
    char(*l)[64] = calloc(ns ? ns : 1, sizeof *l);
    if (!l) {
        free(s);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < ns; i++)
        if (s[i].keep)
            kcal_join_alg_label(&t->rows[s[i].first], l[m++], sizeof l[0]);
    free(s);
    *labels = l;
    *n = m;
    return 0;
}

/* ---- the plots -------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The full model's prediction for the point of row r, looked up in the
 * other join of the same measurements. */
static const kcal_join_row *full_row(const kcal_join_table *full,
                                     const kcal_join_row *r)
{
    if (!full)
        return NULL;
    for (size_t i = 0; i < full->n; i++) {
        const kcal_join_row *f = &full->rows[i];
        if (f->has_pred && f->size == r->size && f->p == r->p &&
            f->k == r->k && !strcmp(f->alg, r->alg) && !strcmp(f->coll, r->coll))
            return f;
    }
    return NULL;
}

int kcal_plot_times(const kcal_plot_ctx *ctx, const kcal_join_table *t,
                    const kcal_join_table *full, const char *coll, int p,
                    const char *title, char *png, size_t pnglen, char *err,
                    size_t errlen)
{
    char datadir[4096], datapath[4200], pngpath[4200], script[4200];
    snprintf(datadir, sizeof datadir, "%s/data", ctx->out_dir);
    if (ensure_dir(datadir, err, errlen))
        return -1;
    snprintf(png, pnglen, "times-%s-p%d.png", coll, p);
    snprintf(datapath, sizeof datapath, "%s/times-%s-p%d.dat", datadir, coll, p);
    snprintf(pngpath, sizeof pngpath, "%s/%s", ctx->out_dir, png);
    snprintf(script, sizeof script, "%s/times.gp", ctx->scripts_dir);

    size_t ns;
    series *s = collect(t, coll, p, &ns);
    uint64_t *sizes = malloc((t->n ? t->n : 1) * sizeof *sizes);
    kcal_sbuf titles = {0}, models = {0}, fmodels = {0}, xt = {0}, cmd = {0};
    int rc = -1;
    if (!s || !sizes) {
        kcal_set_err(err, errlen, "out of memory");
        goto out;
    }
    kcal_outfile o;
    if (kcal_outfile_open(&o, datapath)) {
        kcal_set_err(err, errlen, "%s: %s", datapath, strerror(errno));
        goto out;
    }
    fprintf(o.f, "# kcal report: %s at p = %d; one block per series.\n"
                 "# size_bytes median_us low_us high_us predicted_us "
                 "predicted_full_us\n",
            coll, p);
    int drawn = 0;
    size_t nsizes = 0;
    for (size_t i = 0; i < ns; i++) {
        if (!s[i].keep)
            continue;
        char lab[64];
        const kcal_join_row *r0 = &t->rows[s[i].first];
        kcal_join_alg_label(r0, lab, sizeof lab);
        kcal_sbuf_add(&titles, "%s%s", drawn ? " " : "", lab);
        fprintf(o.f, "%s# series %s\n", drawn ? "\n\n" : "", lab);
        int has_model = 0, has_full = 0;
        for (size_t r = s[i].first; r < s[i].last; r++) {
            const kcal_join_row *row = &t->rows[r];
            if (!row->has_meas)
                continue; /* nothing measured: no point, and no line there */
            /* The bars: the interquartile range (issue 9) where the bench
             * CSV has it; a single 10 ms stall on a shared machine makes
             * min-max bars span decades and hide the points. */
            fprintf(o.f, "%llu %.6g %.6g %.6g ", (unsigned long long)row->size,
                    row->median_s * 1e6,
                    (row->has_quartiles ? row->p25_s : row->min_s) * 1e6,
                    (row->has_quartiles ? row->p75_s : row->max_s) * 1e6);
            if (row->has_pred)
                fprintf(o.f, "%.6g ", row->predicted_s * 1e6);
            else
                fprintf(o.f, "NaN ");
            const kcal_join_row *f = full_row(full, row);
            if (f)
                fprintf(o.f, "%.6g\n", f->predicted_s * 1e6);
            else
                fprintf(o.f, "NaN\n");
            has_model |= row->has_pred;
            has_full |= f != NULL;
            sizes[nsizes++] = row->size;
        }
        if (has_model)
            kcal_sbuf_add(&models, "%s%d", models.n ? " " : "", drawn);
        if (has_full)
            kcal_sbuf_add(&fmodels, "%s%d", fmodels.n ? " " : "", drawn);
        drawn++;
    }
    if (kcal_outfile_commit(&o)) {
        kcal_set_err(err, errlen, "%s: %s", datapath, strerror(errno));
        goto out;
    }
    if (!drawn) {
        kcal_set_err(err, errlen, "nothing measured for %s at p = %d", coll, p);
        goto out;
    }
    qsort(sizes, nsizes, sizeof *sizes, cmp_u64);
    /* One size only: give gnuplot an x range (an octave either side). */
    if (sizes[0] == sizes[nsizes - 1])
        kcal_sbuf_add(&cmd, "xr='[%llu:%llu]'; ",
                      (unsigned long long)sizes[0] / 2,
                      (unsigned long long)sizes[0] * 2);
    for (size_t i = 0; i < nsizes; i++) {
        if (i && sizes[i] == sizes[i - 1])
            continue;
        char lab[32];
        kcal_sbuf_add(&xt, "%s\"%s\" %llu", xt.n ? ", " : "",
                      kcal_sizes_format(sizes[i], lab, sizeof lab),
                      (unsigned long long)sizes[i]);
    }
    kcal_sbuf_add(&cmd, "datafile='%s'; outfile='%s.tmp'; nseries=%d; ",
                  datapath, pngpath, drawn);
    kcal_sbuf_add(&cmd, "titles='%s'; models='%s'; fmodels='%s'; xt='%s'; "
                  "ttl=", titles.s, models.s ? models.s : "",
                  fmodels.s ? fmodels.s : "", xt.s);
    gp_string(&cmd, title);
    if (titles.oom || models.oom || fmodels.oom || xt.oom || cmd.oom) {
        kcal_set_err(err, errlen, "out of memory");
        goto out;
    }
    /* Paths with a quote would break the gnuplot string literals. */
    if (strchr(datapath, '\'') || strchr(pngpath, '\'')) {
        kcal_set_err(err, errlen, "%s: a quote in the output path", pngpath);
        goto out;
    }
    rc = run_gnuplot(script, cmd.s, pngpath, err, errlen);
out:
    free(s);
    free(sizes);
    kcal_sbuf_free(&titles);
    kcal_sbuf_free(&models);
    kcal_sbuf_free(&fmodels);
    kcal_sbuf_free(&xt);
    kcal_sbuf_free(&cmd);
    return rc;
}

int kcal_plot_speedup(const kcal_plot_ctx *ctx, const kcal_join_rank *r,
                      long n, int p, const char *title, char *png,
                      size_t pnglen, char *err, size_t errlen)
{
    /* Columns: the collectives measured with `mpi` at this p; rows: sizes. */
    kcal_join_colls cs = {0};
    uint64_t *sizes = malloc((n ? n : 1) * sizeof *sizes);
    if (!sizes) {
        kcal_set_err(err, errlen, "out of memory");
        return -1;
    }
    size_t nsizes = 0;
    for (long i = 0; i < n; i++) {
        if (r[i].p != p || !r[i].mpi)
            continue;
        kcal_join_colls_add(&cs, r[i].coll);
        sizes[nsizes++] = r[i].size;
    }
    if (!nsizes) {
        free(sizes);
        return 1;
    }
    qsort(sizes, nsizes, sizeof *sizes, cmp_u64);

    char datadir[4096], datapath[4200], pngpath[4200], script[4200];
    snprintf(datadir, sizeof datadir, "%s/data", ctx->out_dir);
    if (ensure_dir(datadir, err, errlen)) {
        free(sizes);
        return -1;
    }
    snprintf(png, pnglen, "speedup-p%d.png", p);
    snprintf(datapath, sizeof datapath, "%s/speedup-p%d.dat", datadir, p);
    snprintf(pngpath, sizeof pngpath, "%s/%s", ctx->out_dir, png);
    snprintf(script, sizeof script, "%s/speedup.gp", ctx->scripts_dir);

    kcal_outfile o;
    if (kcal_outfile_open(&o, datapath)) {
        kcal_set_err(err, errlen, "%s: %s", datapath, strerror(errno));
        free(sizes);
        return -1;
    }
    int ncols = 0;
    fprintf(o.f, "size");
    for (int c = 0; c < cs.n; c++) {
        fprintf(o.f, " %s", cs.name[c]);
        ncols++;
    }
    fprintf(o.f, "\n");
    for (size_t i = 0; i < nsizes; i++) {
        if (i && sizes[i] == sizes[i - 1])
            continue;
        char lab[32];
        fprintf(o.f, "%s", kcal_sizes_format(sizes[i], lab, sizeof lab));
        for (int c = 0; c < cs.n; c++) {
            double v = NAN;
            for (long j = 0; j < n; j++)
                if (r[j].p == p && r[j].size == sizes[i] && r[j].mpi &&
                    !strcmp(r[j].coll, cs.name[c]))
                    v = r[j].speedup;
            if (isnan(v))
                fprintf(o.f, " NaN");
            else
                fprintf(o.f, " %.4f", v);
        }
        fprintf(o.f, "\n");
    }
    free(sizes);
    if (kcal_outfile_commit(&o)) {
        kcal_set_err(err, errlen, "%s: %s", datapath, strerror(errno));
        return -1;
    }
    if (strchr(datapath, '\'') || strchr(pngpath, '\'')) {
        kcal_set_err(err, errlen, "%s: a quote in the output path", pngpath);
        return -1;
    }
    kcal_sbuf cmd = {0};
    kcal_sbuf_add(&cmd, "datafile='%s'; outfile='%s.tmp'; ncols=%d; ttl=",
                  datapath, pngpath, ncols);
    gp_string(&cmd, title);
    if (cmd.oom) {
        kcal_sbuf_free(&cmd);
        kcal_set_err(err, errlen, "out of memory");
        return -1;
    }
    int rc = run_gnuplot(script, cmd.s, pngpath, err, errlen);
    kcal_sbuf_free(&cmd);
    return rc;
}
