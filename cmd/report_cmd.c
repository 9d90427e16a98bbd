/* report_cmd: `kcal report` — join what `kcal bench` measured with what
 * `kcal predict` predicted for the same points and write the report:
 * summary.csv, ranking.csv, speedup.csv, the gnuplot data and PNGs, and
 * report.md + index.html, all under --out (default reports/out).
 *
 * Measuring and predicting are separate commands (reports/make-report runs
 * them); this one only reads their CSVs, so a report can be redrawn from
 * saved files without measuring again. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cli.h"
#include "common/exe.h"
#include "reports/fmt.h"
#include "reports/join.h"
#include "reports/machine.h"
#include "model/model.h"
#include "reports/noise.h"
#include "reports/outfile.h"
#include "reports/plots.h"
#include "reports/report_doc.h"
#include "reports/report_input.h"

static const char *const CMD = "report";

typedef struct {
    const char *measured, *measured_again, *predicted, *predicted_full,
        *params_file, *machine, *out, *scripts, *mpi_library;
    int no_plots, quiet;
} options;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: kcal report --measured BENCH.csv --predicted PREDICT.csv\n"
        "                   [--predicted-full FULL.csv] [--measured-again BENCH2.csv]\n"
        "                   [--params FILE | --machine knl|broadwell|power8]\n"
        "                   [--mpi-library TEXT] [--out DIR] [--scripts DIR]\n"
        "                   [--no-plots] [-q]\n"
        "\n"
        "Join the CSV of `kcal bench --format csv` with that of `kcal predict\n"
        "--format csv` on collective,p,size_bytes,algorithm,k and write into DIR\n"
        "(default reports/out):\n"
        "  summary.csv   collective,p,algorithm,k,points,mape_pct,max_ape_pct:\n"
        "                the model's absolute %% error, sizes >= 16K\n"
        "  ranking.csv   collective,p,size_bytes,predicted_best,measured_best,\n"
        "                regret_pct\n"
        "  speedup.csv   best kcoll algorithm against the MPI library (`mpi`)\n"
        "  summary-full.csv, ranking-full.csv  the same for --predicted-full\n"
        "                (`kcal predict --model full --format csv`), which the\n"
        "                plots draw dashed and report.md compares with the paper\n"
        "  times-<coll>-p<P>.png, speedup-p<P>.png, data/*.dat (gnuplot)\n"
        "  report.md, index.html\n"
        "Oversubscribed runs (more ranks than cores) go to *-oversubscribed.csv\n"
        "and are labelled in every plot and table. --params must name the\n"
        "params the predictions were made with (shown in the report).\n"
        "  --measured-again BENCH2.csv  a second launch of kcal bench over the\n"
        "                 same points (or some of them): the report shows how far\n"
        "                 the times moved between the launches (the noise floor)\n"
        "                 and which choices lie inside it\n"
        "  --mpi-library TEXT  the MPI library `mpi` was measured with (`kcal\n"
        "                 bench --library` says, e.g. \"MPICH 4.0.2 (ch4:ucx)\"): named\n"
        "                 in the machine table, the speedup section and plots\n"
        "  --scripts DIR  the gnuplot scripts (default: $KCAL_REPORTS_DIR, else\n"
        "                 reports/ beside the kcal binary, else ./reports)\n"
        "  --no-plots     tables and report only (no gnuplot)\n"
        "  -q             no progress on stderr\n");
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"measured", required_argument, 0, 'm'},
        {"measured-again", required_argument, 0, 'A'},
        {"predicted", required_argument, 0, 'p'},
        {"predicted-full", required_argument, 0, 'F'},
        {"params", required_argument, 0, 'P'},
        {"machine", required_argument, 0, 'M'},
        {"out", required_argument, 0, 'o'},
        {"scripts", required_argument, 0, 's'},
        {"mpi-library", required_argument, 0, 'L'},
        {"no-plots", no_argument, 0, 'n'},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->out = "reports/out";
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":q", longopts, NULL)) != -1) {
        switch (c) {
        case 'm': o->measured = optarg; break;
        case 'A': o->measured_again = optarg; break;
        case 'p': o->predicted = optarg; break;
        case 'F': o->predicted_full = optarg; break;
        case 'P': o->params_file = optarg; break;
        case 'M': o->machine = optarg; break;
        case 'o': o->out = optarg; break;
        case 's': o->scripts = optarg; break;
        case 'L': o->mpi_library = *optarg ? optarg : NULL; break;
        case 'n': o->no_plots = 1; break;
        case 'q': o->quiet = 1; break;
        default:
            return kcal_cli_other_option(CMD, c, argv, usage);
        }
    }
    if (kcal_cli_no_operands(CMD, argc, argv, optind) != 0)
        return -1;
    if (!o->measured || !o->predicted) {
        kcal_cli_error(CMD, "--measured and --predicted are required "
                       "(kcal report --help)");
        return -1;
    }
    if (!*o->out) {
        kcal_cli_error(CMD, "--out is empty");
        return -1;
    }
    return 0;
}

static int mkdir_p(const char *dir)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *s = path + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            if (mkdir(path, 0777) && errno != EEXIST)
                return -1;
            *s = '/';
        }
    if (mkdir(path, 0777) && errno != EEXIST)
        return -1;
    return 0;
}

/* The gnuplot scripts: --scripts, $KCAL_REPORTS_DIR, reports/ beside the
 * binary (./kcal) or two levels up (build/asan/kcal), share/kcal/reports
 * of an installed kcal (make install), else ./reports. */
static const char *find_scripts(const char *opt, char *buf, size_t len)
{
    if (opt)
        return opt;
    const char *env = getenv("KCAL_REPORTS_DIR");
    if (env && *env)
        return env;
    char exe[PATH_MAX];
    if (kcal_exe_dir(exe, sizeof exe) == 0) {
        static const char *const rel[] = {"reports", "../../reports",
                                          "../share/kcal/reports"};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            struct stat st;
            char gp[PATH_MAX + 32];
            if (snprintf(buf, len, "%s/%s", exe, rel[i]) >= (int)len ||
                snprintf(gp, sizeof gp, "%s/times.gp", buf) >= (int)sizeof gp)
                continue;
            if (stat(gp, &st) == 0)
                return buf;
        }
    }
    return "reports";
}

static int write_table(const char *dir, const char *name,
                       int (*fn)(FILE *, const void *, long, int),
                       const void *rows, long n, int over)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    kcal_outfile o;
    if (kcal_outfile_open(&o, path) || fn(o.f, rows, n, over) ||
        kcal_outfile_commit(&o)) {
        kcal_cli_error(CMD, "%s: %s", path, strerror(errno));
        if (o.f)
            kcal_outfile_abort(&o);
        return -1;
    }
    return 0;
}

/* Adapters: the table writers take typed arrays. */
static int w_summary(FILE *f, const void *r, long n, int over)
{
    return kcal_join_write_summary(f, r, n, over);
}
static int w_ranking(FILE *f, const void *r, long n, int over)
{
    return kcal_join_write_ranking(f, r, n, over);
}
static int w_speedup(FILE *f, const void *r, long n, int over)
{
    return kcal_join_write_speedup(f, r, n, over);
}

/* Whether any measured row of the second launch was measured in the
 * first. */
static int again_matches(const kcal_join_table *first,
                         const kcal_join_table *again)
{
    for (size_t i = 0; i < again->n; i++) {
        const kcal_join_row *b = &again->rows[i];
        const kcal_join_row *a =
            kcal_join_find(first, b->coll, b->p, b->size, b->alg, b->k);
        if (a && a->has_meas)
            return 1;
    }
    return 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* The params line of every plot title; with the full model, a line before
 * it says which line style is which model. */
static void params_title(const kcal_params *p, int full, char *buf, size_t len)
{
    int n = 0;
    if (full) {
        double hot = kcal_params_get_key(p, KCAL_PK_beta_hot, 0);
        double step = kcal_params_get_key(p, KCAL_PK_sync_step, 0);
        char hs[48];
        snprintf(hs, sizeof hs, "no %s", kcal_key_name(KCAL_PK_beta_hot));
        if (hot > 0)
            snprintf(hs, sizeof hs, "1/β_hot = %.3g GB/s", 1e-9 / hot);
        n = snprintf(buf, len, "models: paper (solid lines), full (dashed: "
                     "%s, %s = %.3g µs)\n", hs,
                     kcal_key_name(KCAL_PK_sync_step), step * 1e6);
        if (n < 0 || (size_t)n >= len)
            return;
    }
    snprintf(buf + n, len - (size_t)n,
             "%sparams %s: α = %.3g µs, 1/β = %.3g GB/s, "
             "l = %.3g µs/page, γ(c) = %.3g·c² + %.3g·c",
             full ? "" : "model: paper, ", base_name(p->origin),
             p->alpha * 1e6, 1e-9 / p->beta, p->lock * 1e6, p->gamma_a,
             p->gamma_b);
}

int kcal_report_main(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc > 0 ? KCAL_EXIT_OK : KCAL_EXIT_USAGE;

    kcal_params prm;
    kcal_params_init(&prm);
    kcal_join_table t, tf, ta;
    kcal_join_init(&t);
    kcal_join_init(&tf);
    kcal_join_init(&ta);
    kcal_noise_floor noise;
    kcal_join_summary *sum = NULL, *fsum = NULL;
    kcal_join_rank *rank = NULL, *frank = NULL;
    long nfs = 0, nfr = 0;
    kcal_report_plot *times = NULL, *speed = NULL;
    size_t n_times = 0, n_speed = 0;
    char err[1024];
    int status = KCAL_EXIT_USAGE;
    if (kcal_join_read_predicted(&t, o.predicted, err, sizeof err) ||
        kcal_join_read_measured(&t, o.measured, err, sizeof err) ||
        kcal_join_finish(&t, err, sizeof err)) {
        kcal_cli_error(CMD, "%s", err);
        goto out;
    }
    /* The full model: the same measurements joined a second time. */
    if (o.predicted_full &&
        (kcal_join_read_predicted(&tf, o.predicted_full, err, sizeof err) ||
         kcal_join_read_measured(&tf, o.measured, err, sizeof err) ||
         kcal_join_finish(&tf, err, sizeof err))) {
        kcal_cli_error(CMD, "%s", err);
        goto out;
    }
    /* The second launch: its own table, matched to the first by key. */
    if (o.measured_again &&
        (kcal_join_read_measured(&ta, o.measured_again, err, sizeof err) ||
         kcal_join_finish(&ta, err, sizeof err))) {
        kcal_cli_error(CMD, "%s", err);
        goto out;
    }
    if (o.measured_again && !again_matches(&t, &ta)) {
        kcal_cli_error(CMD, "no point of %s matches a point of %s (same "
                       "collective, p, size and algorithm): not a second "
                       "launch of the same sweep", o.measured_again,
                       o.measured);
        goto out;
    }
    status = KCAL_EXIT_FAIL;
    if (kcal_noise_floor_of(&t, o.measured_again ? &ta : NULL, &noise)) {
        kcal_cli_error(CMD, "out of memory");
        goto out;
    }
    if (o.predicted_full) {
        nfs = kcal_join_summarise(&tf, &fsum);
        nfr = kcal_join_rank_sizes(&tf, &frank);
        if (nfs < 0 || nfr < 0) {
            kcal_cli_error(CMD, "out of memory");
            goto out;
        }
    }
    long ns = kcal_join_summarise(&t, &sum);
    long nr = kcal_join_rank_sizes(&t, &rank);
    if (ns < 0 || nr < 0) {
        kcal_cli_error(CMD, "out of memory");
        goto out;
    }
    if (nr == 0) {
        kcal_cli_error(CMD, "no point of %s matches a point of %s (same "
                       "collective, p, size and algorithm): nothing to "
                       "compare", o.measured, o.predicted);
        status = KCAL_EXIT_USAGE;
        goto out;
    }
    /* The params only after the CSVs are known good: the line saying which
     * params were loaded must not come before a CSV's error, so a rejected
     * input gets exactly one line on stderr. */
    if (kcal_cli_load_params(CMD, o.params_file, o.machine, &prm) < 0) {
        status = KCAL_EXIT_USAGE;
        goto out;
    }
    size_t meas_kcoll_only = 0;
    int any_over = 0;
    for (size_t i = 0; i < t.n; i++) {
        meas_kcoll_only += t.rows[i].has_meas && !t.rows[i].has_pred &&
                           !kcal_join_is_reference(t.rows[i].alg);
        any_over |= t.rows[i].oversubscribed;
    }
    if (meas_kcoll_only)
        kcal_cli_warn(CMD, "%zu measured kcoll point%s without a prediction "
                      "(plotted, not in the error tables)", meas_kcoll_only,
                      meas_kcoll_only == 1 ? "" : "s");
    if (!o.quiet && t.pred_only)
        fprintf(stderr, "kcal %s: %zu predicted point%s not measured "
                "(left out)\n", CMD, t.pred_only, t.pred_only == 1 ? "" : "s");

    if (mkdir_p(o.out)) {
        kcal_cli_error(CMD, "%s: %s", o.out, strerror(errno));
        goto out;
    }
    for (int over = 0; over <= any_over; over++) {
        if (write_table(o.out, over ? "summary-oversubscribed.csv" : "summary.csv",
                        w_summary, sum, ns, over) ||
            write_table(o.out, over ? "ranking-oversubscribed.csv" : "ranking.csv",
                        w_ranking, rank, nr, over) ||
            write_table(o.out, over ? "speedup-oversubscribed.csv" : "speedup.csv",
                        w_speedup, rank, nr, over))
            goto out;
        if (o.predicted_full &&
            (write_table(o.out, over ? "summary-full-oversubscribed.csv"
                                     : "summary-full.csv",
                         w_summary, fsum, nfs, over) ||
             write_table(o.out, over ? "ranking-full-oversubscribed.csv"
                                     : "ranking-full.csv",
                         w_ranking, frank, nfr, over)))
            goto out;
    }

    kcal_machine mach;
    if (kcal_machine_describe(&mach))
        kcal_cli_warn(CMD, "hwloc could not load the topology: machine "
                      "description incomplete");

    /* One times plot per measured (collective, p); one speedup plot per p.
     * Rows are sorted by collective then p, so distinct pairs are runs. */
    times = calloc(t.n ? t.n : 1, sizeof *times);
    speed = calloc(t.n ? t.n : 1, sizeof *speed);
    if (!times || !speed) {
        kcal_cli_error(CMD, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < t.n; i++) {
        const kcal_join_row *r = &t.rows[i];
        if (!r->has_meas)
            continue;
        kcal_report_plot *last = n_times ? &times[n_times - 1] : NULL;
        if (last && !strcmp(last->coll, r->coll) && last->p == r->p) {
            last->oversubscribed |= r->oversubscribed;
            continue;
        }
        kcal_report_plot *pl = &times[n_times++];
        snprintf(pl->coll, sizeof pl->coll, "%s", r->coll);
        pl->p = r->p;
        pl->oversubscribed = r->oversubscribed;
    }
    for (long i = 0; i < nr; i++) {
        if (!rank[i].mpi)
            continue;
        size_t j = 0;
        while (j < n_speed && speed[j].p != rank[i].p)
            j++;
        if (j == n_speed) {
            speed[n_speed].p = rank[i].p;
            n_speed++;
        }
        speed[j].oversubscribed |= rank[i].oversubscribed;
    }
    /* By p, so the report lists them in order. */
    for (size_t a = 1; a < n_speed; a++)
        for (size_t b = a; b > 0 && speed[b - 1].p > speed[b].p; b--) {
            kcal_report_plot tmp = speed[b];
            speed[b] = speed[b - 1];
            speed[b - 1] = tmp;
        }

    if (!o.no_plots) {
        char sbuf[PATH_MAX];
        kcal_plot_ctx ctx = {find_scripts(o.scripts, sbuf, sizeof sbuf), o.out};
        char ptitle[512], title[1024], cpu[128];
        params_title(&prm, o.predicted_full != NULL, ptitle, sizeof ptitle);
        kcal_fmt_cpu(mach.cpu, cpu, sizeof cpu);
        kcal_progress pr;
        kcal_progress_init(&pr, CMD, o.quiet);
        size_t total = n_times + n_speed, done = 0;
        for (size_t i = 0; i < n_times; i++, done++) {
            kcal_report_plot *pl = &times[i];
            char over[160] = "";
            if (pl->oversubscribed)
                snprintf(over, sizeof over, "\nOVERSUBSCRIBED: %d ranks on %d "
                         "cores — not a contention measurement", pl->p,
                         mach.cores);
            snprintf(title, sizeof title, "%s, p = %d — measured on %s (%s, "
                     "%d cores)\n%s%s", pl->coll, pl->p, mach.host, cpu,
                     mach.cores, ptitle, over);
            char phase[64];
            snprintf(phase, sizeof phase, "plot %s p=%d", pl->coll, pl->p);
            kcal_progress_update(&pr, phase, (double)done, (double)total);
            if (kcal_plot_times(&ctx, &t, o.predicted_full ? &tf : NULL,
                                pl->coll, pl->p, title, pl->png,
                                sizeof pl->png, err, sizeof err)) {
                kcal_cli_error(CMD, "%s", err);
                goto out;
            }
        }
        for (size_t i = 0; i < n_speed; i++, done++) {
            kcal_report_plot *pl = &speed[i];
            snprintf(title, sizeof title, "speedup of the best kcoll algorithm "
                     "over %s's collective, p = %d — %s (%s)%s",
                     o.mpi_library ? o.mpi_library : "the MPI library",
                     pl->p, mach.host, cpu,
                     pl->oversubscribed ? "\nOVERSUBSCRIBED: not a contention "
                                          "measurement" : "");
            char phase[64];
            snprintf(phase, sizeof phase, "speedup p=%d", pl->p);
            kcal_progress_update(&pr, phase, (double)done, (double)total);
            int prc = kcal_plot_speedup(&ctx, rank, nr, pl->p, title, pl->png,
                                        sizeof pl->png, err, sizeof err);
            if (prc < 0) {
                kcal_cli_error(CMD, "%s", err);
                goto out;
            }
        }
        kcal_progress_update(&pr, "plots", (double)total, (double)total);
        char fin[64];
        snprintf(fin, sizeof fin, "%zu plots in %s", total, o.out);
        kcal_progress_finish(&pr, fin);
    } else {
        n_times = n_speed = 0; /* no images to show */
    }

    /* The report itself. */
    char generated[2048], stamp[64];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    snprintf(generated, sizeof generated,
             "Generated %s by `kcal report` from `%s` (measured, `kcal bench`) "
             "and `%s` (predicted, `kcal predict`)%s%s%s%s%s%s.",
             stamp, o.measured, o.predicted,
             o.predicted_full ? " and `" : "",
             o.predicted_full ? o.predicted_full : "",
             o.predicted_full ? "` (predicted, `kcal predict --model full`)"
                              : "",
             o.measured_again ? ", with `" : "",
             o.measured_again ? o.measured_again : "",
             o.measured_again ? "` (measured again, a second launch of "
                                "`kcal bench`)" : "");
    kcal_report_input in = {
        .table = &t, .summary = sum, .n_summary = ns, .ranking = rank,
        .n_ranking = nr, .params = &prm, .machine = &mach, .times = times,
        .n_times = n_times, .speedup = speed, .n_speedup = n_speed,
        .generated = generated, .full_table = o.predicted_full ? &tf : NULL,
        .full_summary = fsum, .n_full_summary = nfs, .full_ranking = frank,
        .n_full_ranking = nfr, .mpi_library = o.mpi_library,
        .again = o.measured_again ? &ta : NULL, .noise = &noise};
    char mdpath[PATH_MAX], htmlpath[PATH_MAX];
    snprintf(mdpath, sizeof mdpath, "%s/report.md", o.out);
    snprintf(htmlpath, sizeof htmlpath, "%s/index.html", o.out);
    kcal_outfile md, html;
    if (kcal_outfile_open(&md, mdpath)) {
        kcal_cli_error(CMD, "%s: %s", mdpath, strerror(errno));
        goto out;
    }
    if (kcal_outfile_open(&html, htmlpath)) {
        kcal_cli_error(CMD, "%s: %s", htmlpath, strerror(errno));
        kcal_outfile_abort(&md);
        goto out;
    }
    if (kcal_report_write(&in, md.f, html.f) || kcal_outfile_commit(&md) ||
        kcal_outfile_commit(&html)) {
        kcal_cli_error(CMD, "writing %s: %s", mdpath, strerror(errno));
        kcal_outfile_abort(&md);
        kcal_outfile_abort(&html);
        goto out;
    }

    printf("median model error: %.1f %%\n", kcal_join_median_ape(&t));
    printf("mean selection regret: %.1f %%\n", kcal_join_mean_regret(rank, nr));
    if (o.predicted_full) {
        printf("median model error, full model: %.1f %%\n",
               kcal_join_median_ape(&tf));
        printf("mean selection regret, full model: %.1f %%\n",
               kcal_join_mean_regret(frank, nfr));
    }
    if (o.measured_again) {
        if (noise.rows)
            printf("between-launch noise floor: median %.1f %%, 90th "
                   "percentile %.1f %% (%d rows at %d points)\n",
                   noise.median_pct, noise.p90_pct, noise.rows, noise.points);
        else
            printf("between-launch noise floor: none (no row of 16K or more "
                   "measured in both launches)\n");
    }
    printf("report: %s\n", mdpath);
    status = KCAL_EXIT_OK;
out:
    free(times);
    free(speed);
    free(sum);
    free(rank);
    free(fsum);
    free(frank);
    kcal_join_free(&t);
    kcal_join_free(&tf);
    kcal_join_free(&ta);
    kcal_params_free(&prm);
    return status;
}
