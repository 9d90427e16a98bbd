/* bench_run: see bench_run.h. */
#include "cmd/bench_run.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/capacity.h"
#include "common/columns.h"
#include "common/exe.h"
#include "common/grow.h"
#include "common/launch.h"
#include "common/sizes.h"

typedef struct {
    char *data;
    size_t len, cap;
} text;

static int text_add(text *t, const char *s, size_t n)
{
    char *d = kcal_grow_to(t->data, &t->cap, t->len + n + 1, 1, 4096);
    if (!d)
        return -1;
    t->data = d;
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
    return 0;
}

/* What the job's stdout lines drive: "#progress" lines the progress
 * display, "#library" the library's name, the rest (the CSV) is kept. */
typedef struct {
    const kcal_bench_job *job;
    text out;
    int progressed, oom;
} job_output;

static void on_line(void *ctx, const char *line)
{
    job_output *j = ctx;
    double done, total;
    char what[128];
    if (!strncmp(line, "#progress ", 10)) {
        if (j->job->pr &&
            sscanf(line + 10, "%lf %lf %127[^\n]", &done, &total, what) == 3) {
            if (j->job->total > 0) {
                done += j->job->done_before;
                total = j->job->total;
                if (done > total)
                    done = total;
            }
            kcal_progress_update(j->job->pr, what, done, total);
            j->progressed = 1;
        }
        return;
    }
    if (!strncmp(line, "#library ", 9)) {
        if (j->job->library)
            snprintf(j->job->library, KCAL_BENCH_LIBRARY_LEN, "%s", line + 9);
        return;
    }
    if (text_add(&j->out, line, strlen(line)) || text_add(&j->out, "\n", 1))
        j->oom = 1;
}

const kcal_bench_program kcal_bench_mpi_program = {"kcal-bench-mpi",
                                                   "KCAL_BENCH_MPI"};
const kcal_bench_program kcal_bench_vcoll_program = {"kcal-vcoll-bench",
                                                     "KCAL_VCOLL_BENCH"};

static const kcal_bench_program *program_of(const kcal_bench_job *j)
{
    return j->program ? j->program : &kcal_bench_mpi_program;
}

static const kcal_mpi_flavor *flavor_of(const kcal_bench_job *j)
{
    return j->mpi ? j->mpi : kcal_mpi_flavor_find("openmpi");
}

/* One line for a run that did not succeed: the program's own message (not
 * the launcher's frames around it), and where the launcher's whole output
 * went. */
static int report_failure(const kcal_bench_job *j, const kcal_launch_result *r)
{
    char line[512], log[PATH_MAX], where[PATH_MAX + 64] = "", dflt[256];
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s: ", program_of(j)->name);
    const char *own = kcal_launch_err_line(r, prefix, line, sizeof line);
    if (!j->verbose && kcal_launch_save_err(r, j->cmd, log, sizeof log) == 0)
        snprintf(where, sizeof where, "; the launcher's output: %s", log);
    if (r->exec_errno) {
        kcal_cli_error(j->cmd, "cannot run the launcher '%s': %s (--mpirun, "
                       "$KCAL_MPIRUN or --mpi)",
                       j->launcher && *j->launcher
                           ? j->launcher
                           : kcal_mpi_flavor_launcher(flavor_of(j), dflt,
                                                      sizeof dflt),
                       strerror(r->exec_errno));
        return KCAL_EXIT_FAIL;
    }
    if (r->timed_out) {
        kcal_cli_error(j->cmd, "no result after --timeout %ld s (a rank "
                       "stopped or hung?): ended the launcher and its ranks%s",
                       j->timeout, where);
        return KCAL_EXIT_FAIL;
    }
    if (r->status == KCAL_EXIT_FORBIDDEN) {
        kcal_cli_error(j->cmd, "CMA (process_vm_readv) is not permitted on "
                       "this machine: see kcal probe%s", where);
        return KCAL_EXIT_FORBIDDEN;
    }
    if (r->status == 0)
        kcal_cli_error(j->cmd, "the benchmark printed no results%s", where);
    else if (own)
        kcal_cli_error(j->cmd, "%s (exit %d%s)", own, r->status, where);
    else
        kcal_cli_error(j->cmd, j->check && r->status == 1
                       ? "the run failed (exit %d): a result differed from "
                         "the MPI built-in or a call failed%s"
                       : "the benchmark failed (exit %d)%s",
                       r->status, *where ? where
                       : j->verbose ? "; see the messages above" : "");
    return KCAL_EXIT_FAIL;
}

/* The benchmark program of the job's library into prog; 0, or -1 after
 * the error line. */
static int find_program(const kcal_bench_job *j, char *prog, size_t len)
{
    const kcal_mpi_flavor *f = flavor_of(j);
    const kcal_bench_program *b = program_of(j);
    if (kcal_mpi_flavor_program(f, b->env, b->name, prog, len) == 0)
        return 0;
    kcal_cli_error(j->cmd, "benchmark program %s not found (run %s, or set "
                   "%s)", prog, f->make_hint, b->env);
    return -1;
}

int kcal_bench_run(const kcal_bench_job *j, char **csv, int *progressed)
{
    *csv = NULL;
    if (progressed)
        *progressed = 0;
    if (j->library)
        j->library[0] = '\0';
    char prog[PATH_MAX];
    if (find_program(j, prog, sizeof prog) != 0)
        return KCAL_EXIT_FAIL;
    size_t na = 0;
    while (j->args[na])
        na++;
    char **argv = calloc(na + 7, sizeof *argv);
    if (!argv) {
        kcal_cli_error(j->cmd, "out of memory");
        return KCAL_EXIT_FAIL;
    }
    /* --progress: the "#library" line always, "#progress" lines unless
     * the args say --quiet; --mpi and --expect-p make a run of another
     * library's build, or under another library's launcher (P
     * singletons), fail with one line. */
    char np[16];
    snprintf(np, sizeof np, "%d", j->p);
    argv[0] = prog;
    memcpy(argv + 1, j->args, na * sizeof *argv);
    argv[na + 1] = "--progress";
    argv[na + 2] = "--mpi";
    argv[na + 3] = (char *)flavor_of(j)->name;
    argv[na + 4] = "--expect-p";
    argv[na + 5] = np;
    job_output out = {.job = j};
    kcal_launch_spec spec = {j->launcher, j->p, j->cores, argv,
                             (double)j->timeout, 0, j->verbose, on_line, &out,
                             j->mpi, j->wrapper, 0};
    const char *header = j->header ? j->header : KCAL_CSV_MEASURED_HEADER;
    size_t hlen = strlen(header);
    if (j->announce) {
        char line[8192];
        fprintf(stderr, "kcal %s: running %s\n", j->cmd,
                kcal_launch_describe(&spec, line, sizeof line));
    }
    fflush(stderr);
    kcal_launch_result r;
    char err[256];
    int rc;
    if (kcal_launch_run(&spec, &r, err, sizeof err) != 0) {
        kcal_cli_error(j->cmd, "cannot launch the benchmark: %s", err);
        free(out.out.data);
        free(argv);
        return KCAL_EXIT_FAIL;
    }
    if (out.oom) {
        kcal_cli_error(j->cmd, "out of memory for the benchmark's output");
        rc = KCAL_EXIT_FAIL;
    } else if (r.status != 0 || r.exec_errno || r.timed_out || !out.out.data ||
               strncmp(out.out.data, header, hlen) != 0 ||
               out.out.data[hlen] != '\n') {
        rc = report_failure(j, &r);
    } else {
        *csv = out.out.data;
        out.out.data = NULL;
        rc = KCAL_EXIT_OK;
    }
    if (progressed)
        *progressed = out.progressed;
    kcal_launch_result_free(&r);
    free(out.out.data);
    free(argv);
    return rc;
}

int kcal_bench_library(const kcal_bench_job *j)
{
    char prog[PATH_MAX], err[256];
    if (j->library)
        j->library[0] = '\0';
    if (find_program(j, prog, sizeof prog) != 0)
        return KCAL_EXIT_FAIL;
    char *argv[] = {prog, "--library", "--mpi", (char *)flavor_of(j)->name,
                    "--expect-p", "1", NULL};
    job_output out = {.job = j};
    kcal_launch_spec spec = {j->launcher, 1, 0, argv, (double)j->timeout, 0,
                             j->verbose, on_line, &out, j->mpi, NULL, 0};
    kcal_launch_result r;
    if (kcal_launch_run(&spec, &r, err, sizeof err) != 0) {
        kcal_cli_error(j->cmd, "cannot launch the benchmark: %s", err);
        free(out.out.data);
        return KCAL_EXIT_FAIL;
    }
    int rc = KCAL_EXIT_OK;
    size_t n = out.out.data ? strcspn(out.out.data, "\n") : 0;
    if (r.status != 0 || r.exec_errno || r.timed_out || n == 0)
        rc = report_failure(j, &r);
    else if (j->library)
        snprintf(j->library, KCAL_BENCH_LIBRARY_LEN, "%.*s", (int)n,
                 out.out.data);
    kcal_launch_result_free(&r);
    free(out.out.data);
    return rc;
}

int kcal_bench_parse_row(const char *s, kcal_bench_row *r)
{
    *r = (kcal_bench_row){0};
    if (sscanf(s, "%47[^,],%d,%llu,%63[^,],%15[^,],%lf,%lf,%lf,%ld,%d",
               r->coll, &r->p, &r->size, r->alg, r->k, &r->med, &r->min,
               &r->max, &r->iters, &r->over) == 10)
        return 0;
    /* k is empty where it does not apply: read without it. */
    r->k[0] = '\0';
    if (sscanf(s, "%47[^,],%d,%llu,%63[^,],,%lf,%lf,%lf,%ld,%d", r->coll,
               &r->p, &r->size, r->alg, &r->med, &r->min, &r->max, &r->iters,
               &r->over) == 9)
        return 0;
    return -1;
}

int kcal_bench_next_row(const char *csv, const char **at, int p,
                        const char *cmd, kcal_bench_row *r)
{
    const char *s = strchr(*at ? *at : csv, '\n');
    if (!s || !*++s)
        return 0;
    *at = s;
    if (kcal_bench_parse_row(s, r) != 0 || r->p != p) {
        kcal_cli_error(cmd, "the benchmark printed a row kcal %s cannot "
                            "read: %.80s", cmd, s);
        return -1;
    }
    return 1;
}

int kcal_bench_vfit(const char *cmd, const char *vcoll,
                    const kcal_vcounts *dist, const char *counts, int p,
                    const uint64_t *sizes, size_t nsizes)
{
    char err[512];
    size_t pp = (size_t)p;
    uint64_t *m = malloc(sizeof *m * pp * pp), mem = kcal_capacity_memory();
    if (!m) {
        kcal_cli_error(cmd, "out of memory for a %d x %d matrix", p, p);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < nsizes && rc == 0; i++) {
        if (kcal_vcounts_matrix(dist, p, sizes[i], m, err, sizeof err) != 0) {
            /* A file's own errors name the file; say which option. */
            kcal_cli_error(cmd, "%s%s",
                           strncmp(err, "--counts", 8) ? "--counts: " : "",
                           err);
            rc = -1;
            break;
        }
        long double total = 0;
        for (size_t k = 0; k < pp * pp; k++)
            total += (long double)m[k];
        total *= !strcmp(vcoll, "allgatherv") ? (long double)p + 1 : 2;
        char sz[32], a[32], b[32];
        if (mem && total > (long double)mem) {
            kcal_cli_error(cmd, "--sizes: %s with --counts %s needs %s of "
                           "buffers for %s at p = %d, more than this "
                           "machine's %s of memory",
                           kcal_sizes_format(sizes[i], sz, sizeof sz),
                           counts,
                           kcal_capacity_format_bytes(
                               total > 1.8e19L ? UINT64_MAX : (uint64_t)total,
                               a, sizeof a),
                           vcoll, p,
                           kcal_capacity_format_bytes(mem, b, sizeof b));
            rc = -1;
        }
    }
    free(m);
    return rc;
}
