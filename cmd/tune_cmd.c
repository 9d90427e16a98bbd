/* tune_cmd: `kcal tune`, model-guided tuning into a selection table.
 *
 *   kcal tune --p P [--colls LIST] [--sizes LIST|MIN:MAX] [--candidates N]
 *             [--counts LIST] [--model paper|full] [--exhaustive]
 *             [--params FILE | --machine NAME] [--iters N] [--warmup N]
 *             [--mpi NAME] [--mpirun CMD] [--timeout S] [-q] [-v]  > table
 *
 * For each collective and size (a point) the paper model (or --model
 * full), with the params libkcoll would use ($KCAL_PARAMS or the embedded
 * default; --params), ranks the algorithms at p, and only its N best
 * (algorithm, k), any it predicts within S times its best (S from the
 * params' spread of passing chunks between cores: kcal_tune_window) and
 * the MPI library's own collective are measured (tune.h). The measuring is
 * `kcal bench`'s: kcal-bench-mpi under the launcher (bench_run.h), one
 * interleaved run per collective and set of candidates, over the sizes
 * that share that set. The fastest median per point wins; neighbouring
 * sizes with the same winner become one rule of a `kcoll-table 1` file
 * (model/table.h), printed on stdout only when every run succeeded.
 * --exhaustive measures every candidate instead, prints that table, and
 * says on stderr how many measurements the exhaustive and the guided
 * table needed and the regret of the guided table against it, both from
 * the same measurements.
 *
 * The v-collectives (scatterv ... alltoallv) are always measured
 * exhaustively: one kcal-vcoll-bench run per distribution of --counts,
 * every row of irregular.def and mpi; their rules are the one crossover
 * and one row that minimise the summed worst slowdown (tune.h,
 * kcal_tune_vsplit). docs/tune.md has the method and the format. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/bench_run.h"
#include "bench/capacity.h"
#include "cmd/cli.h"
#include "common/cores.h"
#include "model/model.h"
#include "common/sizes.h"
#include "common/vcounts.h"
#include "model/table.h"
#include "cmd/tune_vcoll.h"
#include "tune/tune.h"

#define CMD "tune"
#define DEFAULT_TIMEOUT 3600 /* per run, as kcal bench */
#define DEFAULT_SIZES "1K:4M"
#define DEFAULT_CANDIDATES 3
#define DEFAULT_COUNTS "uniform,skew:16"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kcal tune --p P [--colls LIST] [--sizes LIST|MIN:MAX] "
            "[--candidates N]\n"
            "                 [--counts LIST] [--model paper|full]"
            "\n"
            "                 [--exhaustive] [--params FILE | --machine "
            "NAME]\n"
            "                 [--iters N] [--warmup N] [--mpi NAME] "
            "[--mpirun CMD]\n"
            "                 [--timeout S] [-q] [-v]  > table\n\n"
            "Measures, for each collective and size, the model's N best "
            "algorithms, those it\npredicts within S times its best (S: "
            "how far passing chunks between cores\nmoved during the probe, "
            "from the params) and the MPI library's own collective\n(as "
            "kcal bench does), and prints a selection table (kcoll-table 1, "
            "docs/tune.md)\nof the fastest: use it with KCOLL_TABLE=FILE.\n\n"
            "  --p P            processes (on this node; more than its cores "
            "is measured\n"
            "                   oversubscribed, and the table says so)\n"
            "  --colls LIST     collectives, comma-separated (default all: "
            "scatter,gather,\n"
            "                   bcast,allgather,alltoall,reduce,allreduce,\n"
            "                   reduce_scatter_block,scatterv,gatherv,"
            "allgatherv,alltoallv)\n"
            "  --sizes S        sizes in bytes: 4K,1M or MIN:MAX doubling "
            "(default %s);\n"
            "                   a rule runs from its size to the next one "
            "minus 1, the first\n"
            "                   from 0, the last with no upper end\n"
            "  --candidates N   at least the model's N best (algorithm, k) "
            "per size (default\n"
            "                   %d); those within S of its best come too "
            "(S %.2f..%.2f;\n"
            "                   %.2f for params without a measured spread)\n"
            "  --counts LIST    the v-collectives' block distributions, "
            "comma-separated\n"
            "                   (as kcal bench's --counts; default %s); "
            "the v-collectives\n"
            "                   are measured exhaustively: every row and "
            "mpi\n"
            "  --model M        the model that ranks them: paper or full\n"
            "                   (docs/model.md); default as libkcoll: full for\n"
            "                   params kcal probe measured, else paper\n"
            "  --exhaustive     measure every candidate instead; print that "
            "table, and on\n"
            "                   stderr the measurements each needed and the "
            "regret of the\n"
            "                   model-guided table against it\n"
            "  --params FILE    the model's params (else --machine "
            "knl|broadwell|power8,\n"
            "                   else $KCAL_PARAMS, else the embedded knl: "
            "libkcoll's)\n"
            "  --iters N        timed iterations per size (default 30; the "
            "median counts)\n"
            "  --warmup N       untimed iterations first (default 5)\n"
            "  --mpi NAME       the MPI library libkcoll and `mpi` run over: "
            "openmpi\n"
            "                   (default; $KCAL_MPI) or mpich (make "
            "MPI=mpich; docs/mpi.md)\n"
            "  --mpirun CMD     launcher (default $KCAL_MPIRUN, else --mpi's); "
            "gets -np P\n"
            "  --timeout S      end a run after S seconds, exit 1 (default "
            "%d; 0: no limit)\n"
            "  -q, --quiet      no progress on stderr (failures, warnings "
            "and --exhaustive's\n"
            "                   counts and regret still)\n"
            "  -v, --verbose    each run's command line, and mpirun's "
            "messages as they come\n"
            "Exit: 0 ok, 1 a run failed, 2 bad option or a run that cannot "
            "fit here,\n3 CMA forbidden here.\n",
            DEFAULT_SIZES, DEFAULT_CANDIDATES, KCAL_TUNE_WINDOW_FLOOR,
            KCAL_TUNE_WINDOW_CAP, KCAL_TUNE_WINDOW_DEFAULT, DEFAULT_COUNTS,
            DEFAULT_TIMEOUT);
}

typedef struct {
    const char *colls, *sizes, *params, *machine, *counts;
    long candidates;
    int exhaustive;
    kcal_launch_opts launch; /* --p, --iters, --warmup, --mpi, ... */
    kcal_model_kind model;
    int model_named; /* --model given; else kcal_model_default */
} options;

static const struct option longopts[] = {
    KCAL_LONGOPT_P,
    {"colls", required_argument, 0, 'c'},
    {"sizes", required_argument, 0, 's'},
    {"candidates", required_argument, 0, 'n'},
    {"counts", required_argument, 0, 'D'},
    {"model", required_argument, 0, 'o'},
    {"exhaustive", no_argument, 0, 'e'},
    {"params", required_argument, 0, 'P'},
    {"machine", required_argument, 0, 'M'},
    {"iters", required_argument, 0, KCAL_OPT_ITERS},
    {"iterations", required_argument, 0, KCAL_OPT_ITERS},
    KCAL_LONGOPT_WARMUP,
    KCAL_LONGOPTS_LAUNCH_END};

/* kcal tune's own options (kcal_cli_option_fn). */
static int tune_option(int c, const char *arg, void *ctx)
{
    options *o = ctx;
    switch (c) {
    case 'c': o->colls = arg; return 0;
    case 's': o->sizes = arg; return 0;
    case 'D': o->counts = arg; return 0;
    case 'e': o->exhaustive = 1; return 0;
    case 'o':
        o->model_named = 1;
        if (kcal_model_from_name(arg, &o->model) != 0) {
            kcal_cli_error(CMD, "--model: '%s' is not paper or full", arg);
            return -1;
        }
        return 0;
    case 'P': o->params = arg; return 0;
    case 'M': o->machine = arg; return 0;
    case 'n':
        return kcal_cli_int_option(CMD, "--candidates", arg, 1, 100000,
                                   "a count >= 1", &o->candidates);
    default: return KCAL_CLI_NOT_MINE;
    }
}

/* --colls: names, each once. Fills colls[] with the registry's
 * collectives and vcolls[] with the v-collectives (kcal_model_vcoll_index),
 * each in the given order; NULL (no --colls): every collective of the
 * registry, reductions included, and every v-collective. */
static int parse_colls(const char *list, kcal_coll *colls, int *n,
                       int *vcolls, int *nv)
{
    *n = *nv = 0;
    if (!list) {
        for (int c = 0; c < KCAL_COLL_COUNT; c++)
            colls[(*n)++] = (kcal_coll)c;
        while (kcal_model_vcoll_name(*nv))
            vcolls[*nv] = *nv, ++*nv;
        return 0;
    }
    const char *s = list;
    for (;;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char name[32];
        kcal_coll c;
        snprintf(name, sizeof name, "%.*s", (int)(len < 31 ? len : 31), s);
        int v = len > 31 ? -1 : kcal_model_vcoll_index(name);
        if (len == 0 || len > 31 ||
            (v < 0 && kcal_coll_from_name(name, &c) != 0)) {
            kcal_cli_error(CMD, "--colls: '%.*s' is not a collective (%s, "
                           "%s)", (int)len, s, kcal_coll_list(),
                           kcal_model_vcoll_list());
            return -1;
        }
        int twice = 0;
        for (int i = 0; i < (v < 0 ? *n : *nv); i++)
            twice |= v < 0 ? colls[i] == c : vcolls[i] == v;
        if (twice) {
            kcal_cli_error(CMD, "--colls: %s is listed twice", name);
            return -1;
        }
        if (v < 0)
            colls[(*n)++] = c;
        else
            vcolls[(*nv)++] = v;
        if (!end)
            return 0;
        s = end + 1;
    }
}

static int by_size(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Every size's buffers fit in this machine's memory (kcal bench's check).
 * 0 or -1. */
static int check_fit(long p, const kcal_coll *colls, int ncolls,
                     const uint64_t *sizes, size_t nsizes)
{
    uint64_t mem = kcal_capacity_memory();
    for (int c = 0; c < ncolls; c++)
        for (size_t i = 0; i < nsizes; i++) {
            uint64_t per_rank, total;
            char sz[32], a[32], m[32];
            kcal_sizes_format(sizes[i], sz, sizeof sz);
            if (kcal_capacity_bench_bytes(colls[c], (uint64_t)p, (uint64_t)p,
                                          sizes[i], 0, &per_rank,
                                          &total) != 0) {
                kcal_cli_error(CMD, "--sizes: %s is too large for %s at "
                               "p = %ld: its buffers' size overflows 64 bits",
                               sz, kcal_coll_name(colls[c]), p);
                return -1;
            }
            if (mem && total > mem) {
                kcal_cli_error(CMD, "--sizes: %s needs %s of buffers for %s "
                               "at p = %ld, more than this machine's %s of "
                               "memory", sz,
                               kcal_capacity_format_bytes(total, a, sizeof a),
                               kcal_coll_name(colls[c]), p,
                               kcal_capacity_format_bytes(mem, m, sizeof m));
                return -1;
            }
        }
    return 0;
}

/* One launch of kcal-bench-mpi: a collective, the sizes (points) that
 * share a set of candidates, and that set as --algorithm's list ("" for
 * every candidate: the exhaustive run). */
typedef struct {
    kcal_coll coll;
    char algs[2048];
    size_t *points; /* indices into the points array */
    size_t n_points;
    int variants; /* mpi and the candidates */
} run_plan;

/* The guided candidates of a point as --algorithm's list. */
static void guided_list(const kcal_tune_point *pt, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int i = 0; i < pt->n_guided && at < len; i++) {
        char c[96];
        kcal_tune_cand_format(&pt->guided[i], c, sizeof c);
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? "," : "", c);
    }
}

/* How many candidates the exhaustive run measures for coll at p: every
 * (algorithm, k) the model ranks (both models rank the same ones), as
 * kcal-bench-mpi runs them. */
static int all_candidates(const kcal_params *prm, kcal_coll coll, int p)
{
    kcal_prediction *pred;
    long n = kcal_model_rank(KCAL_MODEL_PAPER, prm, coll, p, 1, 0, 0, &pred);
    int count = 0;
    for (long i = 0; i < n; i++)
        count += !kcal_model_is_mpi(pred[i].alg);
    free(pred);
    return count;
}

/* The rows of a run's CSV into the points. 0, or -1 after the error line
 * (a row that does not belong, or a candidate the run should have
 * measured and did not). */
static int take_rows(const char *csv, const run_plan *r, kcal_tune_point *pts,
                     int p)
{
    const char *s = NULL;
    kcal_bench_row row;
    int got;
    while ((got = kcal_bench_next_row(csv, &s, p, CMD, &row)) > 0) {
        kcal_tune_point *pt = NULL;
        for (size_t i = 0; i < r->n_points; i++)
            if (pts[r->points[i]].n == row.size)
                pt = &pts[r->points[i]];
        kcal_tune_cand cand = {0};
        cand.alg = !strcmp(row.alg, "mpi")
                       ? kcal_model_mpi(r->coll)
                       : kcal_model_find_algorithm(r->coll, row.alg);
        cand.k = row.k[0] ? atoi(row.k) : 0;
        if (!pt || !cand.alg || strcmp(row.coll, kcal_coll_name(r->coll))) {
            kcal_cli_error(CMD, "the benchmark printed a row kcal tune did "
                                "not ask for: %.80s", s);
            return -1;
        }
        if (kcal_tune_record(pt, &cand, row.med) != 0) {
            kcal_cli_error(CMD, "out of memory");
            return -1;
        }
    }
    if (got < 0)
        return -1;
    for (size_t i = 0; i < r->n_points; i++) {
        const kcal_tune_point *pt = &pts[r->points[i]];
        if ((int)pt->n_times != r->variants) {
            char sz[32];
            kcal_cli_error(CMD, "the benchmark measured %zu variants of %s at "
                           "%s, want %d", pt->n_times,
                           kcal_coll_name(pt->coll),
                           kcal_sizes_format(pt->n, sz, sizeof sz),
                           r->variants);
            return -1;
        }
    }
    return 0;
}

/* The header's text: where and how the table was measured. */
static void describe(const options *o, int cores, int over,
                     const kcal_params *prm, int regular, const char *dists,
                     char *buf, size_t len)
{
    char host[256] = "?", when[32] = "?", cand[192], win[96];
    if (gethostname(host, sizeof host - 1) != 0)
        snprintf(host, sizeof host, "?");
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(when, sizeof when, "%Y-%m-%dT%H:%MZ", &tm);
    if (!regular)
        snprintf(cand, sizeof cand, "no regular collective");
    else if (o->exhaustive)
        snprintf(cand, sizeof cand, "every candidate");
    else
        snprintf(cand, sizeof cand, "the %s model's %ld best and those "
                 "within S of its best (%s) and mpi",
                 kcal_model_name(o->model), o->candidates,
                 kcal_tune_window_describe(prm, win, sizeof win));
    char cores_s[64];
    if (cores > 0)
        snprintf(cores_s, sizeof cores_s, "%d cores", cores);
    else
        snprintf(cores_s, sizeof cores_s, "cores unknown");
    char over_s[96];
    if (over)
        snprintf(over_s, sizeof over_s, "OVERSUBSCRIBED (%ld processes on %d "
                 "cores)", o->launch.p, cores);
    else
        snprintf(over_s, sizeof over_s, "not oversubscribed");
    char v[1100] = "";
    if (dists)
        snprintf(v, sizeof v, "; v-collectives: every row and mpi under %s",
                 dists);
    snprintf(buf, len, "kcal tune on %s (%s), p = %ld, %s, %s%s, median of "
             "%ld iterations, params %s, %s", host, cores_s, o->launch.p,
             over_s, cand, v, o->launch.iters, prm->origin, when);
}

static void free_all(kcal_tune_point *pts, size_t npts, run_plan *runs,
                     size_t nruns)
{
    for (size_t i = 0; pts && i < npts; i++)
        kcal_tune_point_free(&pts[i]);
    free(pts);
    for (size_t i = 0; i < nruns; i++)
        free(runs[i].points);
    free(runs);
}

/* On stderr: the measurements of each table and the regret of the guided
 * one, per candidate count up to N (the same measurements, so one
 * exhaustive run gives them all). */
static void say_regret(const options *o, kcal_tune_point *pts, size_t npts,
                       const kcal_params *prm)
{
    kcal_tune_regret g;
    kcal_tune_compare(pts, npts, &g);
    double window = kcal_tune_window(prm);
    fprintf(stderr, "kcal tune: measurements: exhaustive %zu, model-guided "
            "(%ld candidates within S = %.2f + mpi) %zu = %.2f of "
            "exhaustive\n", g.exhaustive_measurements, o->candidates,
            window, g.guided_measurements,
            g.exhaustive_measurements
                ? (double)g.guided_measurements /
                      (double)g.exhaustive_measurements
                : 0);
    fprintf(stderr, "kcal tune: regret of the model-guided table against the "
            "exhaustive one over %zu points: mean %.2f %%, max %.2f %%\n",
            g.points, 100 * g.mean, 100 * g.max);
    if (!o->launch.quiet)
        for (size_t i = 0; i < npts; i++) {
            const kcal_tune_time *b = kcal_tune_best(&pts[i], 0);
            const kcal_tune_time *x = kcal_tune_best(&pts[i], 1);
            if (!b || !x || b == x)
                continue;
            char sz[32], bn[96], xn[96];
            fprintf(stderr, "kcal tune:   %s %s: guided %s %.1f us, best %s "
                    "%.1f us (+%.1f %%)\n", kcal_coll_name(pts[i].coll),
                    kcal_sizes_format(pts[i].n, sz, sizeof sz),
                    kcal_tune_cand_format(&x->cand, xn, sizeof xn),
                    x->median * 1e6,
                    kcal_tune_cand_format(&b->cand, bn, sizeof bn),
                    b->median * 1e6,
                    100 * (x->median - b->median) / b->median);
        }
    /* Fewer candidates, from the same measurements. */
    for (long n = 1; n < o->candidates; n++) {
        for (size_t i = 0; i < npts; i++)
            kcal_tune_guide(&pts[i], o->model, prm, (int)o->launch.p, (int)n,
                            window);
        kcal_tune_compare(pts, npts, &g);
        fprintf(stderr, "kcal tune: with %ld candidate%s + mpi: %zu "
                "measurements = %.2f of exhaustive, regret mean %.2f %%, max "
                "%.2f %%\n", n, n > 1 ? "s" : "", g.guided_measurements,
                g.exhaustive_measurements
                    ? (double)g.guided_measurements /
                          (double)g.exhaustive_measurements
                    : 0,
                100 * g.mean, 100 * g.max);
    }
}

int kcal_tune_main(int argc, char **argv)
{
    options o = {.sizes = DEFAULT_SIZES, .candidates = DEFAULT_CANDIDATES,
                 .launch = {.min_p = 2, .require_p = 1, .iters = 30,
                            .warmup = 5, .iters_option = "--iters",
                            .timeout = DEFAULT_TIMEOUT}};
    int prc = kcal_cli_parse_launch(CMD, argc, argv, ":qvh", longopts, usage,
                                    tune_option, &o, &o.launch);
    if (prc != 0)
        return prc > 0 ? KCAL_EXIT_OK : KCAL_EXIT_USAGE;
    kcal_coll colls[KCAL_COLL_COUNT];
    int vcolls[8], ncolls, nv;
    if (parse_colls(o.colls, colls, &ncolls, vcolls, &nv) != 0)
        return KCAL_EXIT_USAGE;
    if (o.counts && nv == 0) {
        kcal_cli_error(CMD, "--counts is for the v-collectives (%s): "
                       "--colls names none", kcal_model_vcoll_list());
        return KCAL_EXIT_USAGE;
    }
    char err[KCAL_ERRLEN];
    uint64_t *sizes;
    size_t nsizes;
    if (kcal_sizes_parse(o.sizes, &sizes, &nsizes, err, sizeof err) != 0) {
        kcal_cli_error(CMD, "--sizes: %s", err);
        return KCAL_EXIT_USAGE;
    }
    /* Rules run from one size to the next: in order, each once. */
    qsort(sizes, nsizes, sizeof *sizes, by_size);
    size_t u = 0;
    for (size_t i = 0; i < nsizes; i++)
        if (u == 0 || sizes[i] != sizes[u - 1])
            sizes[u++] = sizes[i];
    nsizes = u;
    int cores;
    if (kcal_cli_launch_fits(CMD, &o.launch, &cores) != 0) {
        free(sizes);
        return KCAL_EXIT_USAGE;
    }
    if (check_fit(o.launch.p, colls, ncolls, sizes, nsizes) != 0) {
        free(sizes);
        return KCAL_EXIT_USAGE;
    }
    kcal_vcounts *dists = calloc(KCAL_TUNE_MAX_COUNTS, sizeof *dists);
    int ndists = 0;
    if (!dists ||
        (nv && kcal_tune_vparse_counts(o.counts ? o.counts : DEFAULT_COUNTS,
                                       o.launch.p, sizes, nsizes, vcolls, nv,
                                       dists, &ndists) != 0)) {
        if (!dists)
            kcal_cli_error(CMD, "out of memory");
        free(dists);
        free(sizes);
        return KCAL_EXIT_USAGE;
    }
    kcal_params prm;
    char chosen[512];
    if (kcal_cli_load_params_quietly(CMD, o.params, o.machine, &prm, chosen,
                                     sizeof chosen) != 0) {
        free(dists);
        free(sizes);
        return KCAL_EXIT_USAGE;
    }
    if (!o.model_named)
        o.model = kcal_model_default(&prm);

    /* The points and the model's candidates for each. */
    size_t npts = (size_t)ncolls * nsizes;
    kcal_tune_point *pts = calloc(npts + 1, sizeof *pts);
    run_plan *runs = calloc(npts + 1, sizeof *runs);
    kcal_tune_vset *vs = calloc((size_t)nv + 1, sizeof *vs);
    size_t nruns = 0;
    int rc = KCAL_EXIT_FAIL;
    if (!pts || !runs || !vs) {
        kcal_cli_error(CMD, "out of memory");
        goto done;
    }
    for (int c = 0; c < ncolls; c++)
        for (size_t i = 0; i < nsizes; i++) {
            kcal_tune_point *pt = &pts[(size_t)c * nsizes + i];
            pt->coll = colls[c];
            pt->n = sizes[i];
            int got = kcal_tune_guide(pt, o.model, &prm, (int)o.launch.p,
                                      (int)o.candidates,
                                      kcal_tune_window(&prm));
            if (got < 0) {
                kcal_cli_error(CMD, "out of memory");
                goto done;
            }
            if (got == 0) {
                char sz[32];
                kcal_cli_error(CMD, "%s: every predicted time of %s at "
                               "p = %ld, n = %s is inf or NaN: the model "
                               "cannot choose candidates", prm.origin,
                               kcal_coll_name(colls[c]), o.launch.p,
                               kcal_sizes_format(sizes[i], sz, sizeof sz));
                rc = KCAL_EXIT_USAGE;
                goto done;
            }
        }
    if (!o.launch.quiet)
        kcal_cli_say_params(CMD, &prm, chosen);

    /* The runs: per collective every candidate at once (exhaustive), or
     * one run per set of guided candidates, over the sizes sharing it. */
    for (size_t i = 0; i < npts; i++) {
        char algs[sizeof runs->algs] = "";
        if (!o.exhaustive)
            guided_list(&pts[i], algs, sizeof algs);
        run_plan *r = NULL;
        for (size_t j = 0; j < nruns && !r; j++)
            if (runs[j].coll == pts[i].coll && !strcmp(runs[j].algs, algs))
                r = &runs[j];
        if (!r) {
            r = &runs[nruns++];
            r->coll = pts[i].coll;
            snprintf(r->algs, sizeof r->algs, "%s", algs);
            r->points = calloc(nsizes, sizeof *r->points);
            r->variants = 1 + (o.exhaustive
                                   ? all_candidates(&prm, pts[i].coll,
                                                    (int)o.launch.p)
                                   : pts[i].n_guided);
            if (!r->points) {
                kcal_cli_error(CMD, "out of memory");
                goto done;
            }
        }
        r->points[r->n_points++] = i;
    }
    for (int c = 0; c < nv; c++)
        if (kcal_tune_vinit(&vs[c], kcal_model_vcoll_name(vcolls[c]),
                            (size_t)ndists, sizes, nsizes) != 0) {
            kcal_cli_error(CMD, "out of memory");
            goto done;
        }
    double total = 0;
    for (size_t j = 0; j < nruns; j++)
        total += (double)runs[j].n_points *
                 (double)(o.launch.warmup + o.launch.iters) * runs[j].variants;
    for (int c = 0; c < nv; c++)
        total += ndists * kcal_tune_vrun_calls(&vs[c], o.launch.iters,
                                               o.launch.warmup);
    char dlist[1024];
    kcal_tune_vcounts_list(dists, ndists, dlist, sizeof dlist);

    int over = cores > 0 && o.launch.p > cores;
    if (!o.launch.quiet && ncolls) {
        size_t planned = 0;
        for (size_t j = 0; j < nruns; j++)
            planned += runs[j].n_points * (size_t)runs[j].variants;
        char win[96] = "";
        if (!o.exhaustive)
            kcal_tune_window_describe(&prm, win, sizeof win);
        fprintf(stderr, "kcal tune: p = %ld, %d collective%s x %zu sizes: "
                "%zu measurements (%s) in %zu runs%s%s\n", o.launch.p, ncolls,
                ncolls > 1 ? "s" : "", nsizes, planned,
                o.exhaustive ? "every candidate and mpi"
                             : "the model's best and mpi",
                nruns, *win ? "; " : "", win);
    }
    if (!o.launch.quiet && nv) {
        size_t planned = 0;
        for (int c = 0; c < nv; c++)
            planned += kcal_tune_vmeasurements(&vs[c]);
        fprintf(stderr, "kcal tune: p = %ld, %d v-collective%s x %zu sizes "
                "x %d distribution%s (%s): %zu measurements (every row and "
                "mpi: the model's window does not apply) in %d runs\n",
                o.launch.p, nv, nv > 1 ? "s" : "", nsizes, ndists,
                ndists > 1 ? "s" : "", dlist, planned, nv * ndists);
    }
    if (over)
        kcal_cli_warn(CMD, "%ld processes on %d cores: oversubscribed, so "
                           "times are not contention measurements, and the "
                           "table says so", o.launch.p, cores);
    fflush(stderr);

    kcal_progress pr;
    kcal_progress_init(&pr, CMD, o.launch.quiet);
    double done_before = 0;
    char it[32], wu[32];
    snprintf(it, sizeof it, "%ld", o.launch.iters);
    snprintf(wu, sizeof wu, "%ld", o.launch.warmup);
    for (size_t j = 0; j < nruns; j++) {
        run_plan *r = &runs[j];
        uint64_t *ns = malloc(sizeof *ns * (r->n_points ? r->n_points : 1));
        for (size_t i = 0; ns && i < r->n_points; i++)
            ns[i] = pts[r->points[i]].n;
        char *list = ns ? kcal_sizes_join(ns, r->n_points) : NULL;
        free(ns);
        if (!list) {
            kcal_cli_error(CMD, "out of memory");
            goto done;
        }
        char *args[16];
        int na = 0;
        args[na++] = "--coll";
        args[na++] = (char *)kcal_coll_name(r->coll);
        args[na++] = "--sizes";
        args[na++] = list;
        args[na++] = "--iterations";
        args[na++] = it;
        args[na++] = "--warmup";
        args[na++] = wu;
        if (r->algs[0]) {
            args[na++] = "--algorithm";
            args[na++] = r->algs;
        }
        args[na++] = "--no-auto-limit";
        args[na++] = o.launch.quiet ? "--quiet" : "--progress";
        args[na] = NULL;
        kcal_bench_job job = {CMD, o.launch.mpirun, (int)o.launch.p, cores, args,
                              o.launch.timeout, o.launch.verbose, 0,
                              o.launch.verbose, &pr, done_before, total,
                              o.launch.flavor, NULL, NULL, NULL, NULL};
        char *csv;
        int brc = kcal_bench_run(&job, &csv, NULL);
        free(list);
        if (brc != KCAL_EXIT_OK) {
            rc = brc;
            goto done;
        }
        int bad = take_rows(csv, r, pts, (int)o.launch.p);
        free(csv);
        if (bad)
            goto done;
        done_before += (double)r->n_points *
                       (double)(o.launch.warmup + o.launch.iters) *
                       r->variants;
    }

    /* The v-collectives: one run per distribution, every size. */
    for (int c = 0; c < nv; c++) {
        kcal_bench_job job = {CMD, o.launch.mpirun, (int)o.launch.p,
                              cores, NULL, o.launch.timeout,
                              o.launch.verbose, 0, o.launch.verbose, &pr,
                              done_before, total, o.launch.flavor, NULL,
                              NULL, NULL, &kcal_bench_vcoll_program};
        int vrc = kcal_tune_vmeasure(&job, &vs[c], dists, ndists,
                                     o.launch.iters, o.launch.warmup,
                                     o.launch.quiet);
        if (vrc != KCAL_EXIT_OK) {
            rc = vrc;
            goto done;
        }
        done_before = job.done_before;
    }

    /* The table: every collective's rules, measured at this p. */
    kcal_table t;
    kcal_table_init(&t);
    describe(&o, cores, over, &prm, ncolls, nv ? dlist : NULL, t.about,
             sizeof t.about);
    for (int c = 0; c < ncolls; c++)
        if (kcal_tune_table_add(&t, &pts[(size_t)c * nsizes], nsizes,
                                (int)o.launch.p, !o.exhaustive, err,
                                sizeof err) != 0) {
            kcal_cli_error(CMD, "cannot make the table: %s", err);
            kcal_table_free(&t);
            goto done;
        }
    /* The v-collectives' after the others' (tune.h: one crossover, one
     * row). */
    for (int c = 0; c < nv; c++)
        if (kcal_tune_vtable_add(&t, &vs[c], (int)o.launch.p, err,
                                 sizeof err) != 0) {
            kcal_cli_error(CMD, "cannot make the table: %s", err);
            kcal_table_free(&t);
            goto done;
        }
    char comment[1024], list[512] = "";
    size_t at = 0;
    for (size_t i = 0; i < nsizes && at < sizeof list; i++) {
        char sz[32];
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s",
                               i ? " " : "",
                               kcal_sizes_format(sizes[i], sz, sizeof sz));
    }
    snprintf(comment, sizeof comment,
             "%s"
             "measured sizes (bytes per block; bcast: the message%s): %s\n"
             "each rule runs from a measured size to the next one minus 1, "
             "the first from 0,\nthe last with no upper end; p is the "
             "measured one (widen it by hand if you like)",
             over ? "OVERSUBSCRIBED: more processes than cores, so these are "
                    "not contention measurements\n" : "",
             nv ? "; v-collectives: a pair's mean block" : "", list);
    char *text;
    size_t len;
    int frc = kcal_table_format(&t, comment, &text, &len, err, sizeof err);
    kcal_table_free(&t);
    if (frc != 0) {
        kcal_cli_error(CMD, "cannot write the table: %s", err);
        goto done;
    }
    if (!o.launch.quiet) {
        size_t measured = 0;
        for (size_t i = 0; i < npts; i++)
            measured += pts[i].n_times;
        for (int c = 0; c < nv; c++)
            measured += kcal_tune_vmeasurements(&vs[c]);
        char summary[128];
        snprintf(summary, sizeof summary, "%zu measurements in %zu runs",
                 measured, nruns + (size_t)(nv * ndists));
        kcal_progress_finish(&pr, summary);
    }
    if (!o.launch.quiet)
        for (int c = 0; c < nv; c++)
            kcal_tune_vsay(&vs[c], dlist);
    if (o.exhaustive && ncolls)
        say_regret(&o, pts, npts, &prm);
    if (o.exhaustive && nv && !o.launch.quiet)
        fprintf(stderr, "kcal tune: the v-collectives are measured "
                "exhaustively either way: not in the counts or the "
                "regret\n");
    fwrite(text, 1, len, stdout);
    free(text);
    rc = fflush(stdout) == 0 ? KCAL_EXIT_OK : KCAL_EXIT_FAIL;
done:
    for (int c = 0; vs && c < nv; c++)
        kcal_tune_vfree(&vs[c]);
    free(vs);
    free(dists);
    free_all(pts, npts, runs, nruns);
    free(sizes);
    kcal_params_free(&prm);
    return rc;
}
