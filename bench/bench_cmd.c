/* bench_cmd: `kcal bench`, the launcher of the MPI benchmark program.
 *
 *   kcal bench --coll C --p P [--sizes LIST|MIN:MAX] [--algorithm ID]
 *              [--iterations N] [--warmup N] [--cold] [--check]
 *              [--format table|csv] [--mpirun CMD] [-q]
 *
 * Checks the options, then runs `CMD -np P [--oversubscribe] kcal-bench-mpi
 * ...` (CMD: --mpirun, else $KCAL_MPIRUN, else mpirun; --oversubscribe is
 * added for mpirun/mpiexec when P exceeds the cores hwloc reports), draws
 * the program's progress on stderr, and prints its CSV, or a table with the
 * speed-up of each algorithm over the MPI library's own collective. Nothing
 * reaches stdout unless the run succeeded. The benchmark program is
 * $KCAL_BENCH_MPI, else kcal-bench-mpi next to this executable or in its
 * build directory (build/kcal-bench-mpi after `make`). */
#include <errno.h>
#include <hwloc.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "columns.h"
#include "model.h"
#include "sizes.h"

#define CMD "bench"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kcal bench --coll C --p P [--sizes LIST|MIN:MAX] "
            "[--algorithm ID]\n"
            "                  [--iterations N] [--warmup N] [--cold] "
            "[--check]\n"
            "                  [--format table|csv] [--mpirun CMD] [-q]\n\n"
            "Runs the reference collectives (libkcoll) and the MPI library's "
            "own (algorithm\n`mpi`) under `mpirun -np P`, interleaved, "
            "OSU-style (barrier, max over ranks,\nmedian/min/max over "
            "iterations).\n\n"
            "  --coll C          scatter, gather, bcast, allgather or "
            "alltoall\n"
            "  --p P             processes (on this node)\n"
            "  --sizes S         sizes in bytes: 4K,1M or MIN:MAX doubling "
            "(default %s)\n"
            "  --algorithm ID    only this algorithm (id or id:k; `mpi` for "
            "the built-in only)\n"
            "  --iterations N    timed iterations per size (default 50)\n"
            "  --warmup N        untimed iterations first (default 5)\n"
            "  --cold            new send data before every iteration\n"
            "  --check           compare every result with the MPI built-in; "
            "fail on mismatch\n"
            "  --format F        table (default) or csv\n"
            "  --mpirun CMD      launcher (default $KCAL_MPIRUN, else "
            "mpirun); gets -np P\n"
            "  -q                no progress on stderr\n",
            KCAL_DEFAULT_SIZES);
}

static int hwloc_cores(void)
{
    hwloc_topology_t t;
    int cores = 0;
    if (hwloc_topology_init(&t) != 0)
        return 0;
    if (hwloc_topology_load(t) == 0)
        cores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
    hwloc_topology_destroy(t);
    return cores;
}

/* $KCAL_BENCH_MPI, or kcal-bench-mpi near this executable. */
static int find_program(char *out, size_t len)
{
    const char *env = getenv("KCAL_BENCH_MPI");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return access(out, X_OK) == 0 ? 0 : -1;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    const char *dir = dirname(exe);
    const char *tries[] = {"%s/kcal-bench-mpi", "%s/build/kcal-bench-mpi",
                           "%s/../kcal-bench-mpi"};
    for (size_t i = 0; i < sizeof tries / sizeof tries[0]; i++) {
        snprintf(out, len, tries[i], dir);
        if (access(out, X_OK) == 0)
            return 0;
    }
    snprintf(out, len, "%s/build/kcal-bench-mpi", dir);
    return -1;
}

static int is_mpirun(const char *word)
{
    const char *base = strrchr(word, '/');
    base = base ? base + 1 : word;
    return !strcmp(base, "mpirun") || !strcmp(base, "mpiexec") ||
           !strcmp(base, "orterun");
}

typedef struct {
    char *data;
    size_t len, cap;
} text;

static int text_add(text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *d = realloc(t->data, cap);
        if (!d)
            return -1;
        t->data = d;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
    return 0;
}

/* Run argv with stdout on a pipe: "#progress" lines drive the progress
 * display, the rest is kept in *out. Returns the exit status or -1. */
static int run_child(char **argv, text *out, int quiet)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        /* Open MPI's mpirun refuses root without these; kcal probe sets
         * them the same way, so both commands run where the other does. */
        if (geteuid() == 0) {
            setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
            setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "kcal bench: cannot run %s: %s\n", argv[0],
                strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "r");
    kcal_progress pr;
    kcal_progress_init(&pr, CMD, quiet);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int progressed = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        double done, total;
        char what[128];
        if (!strncmp(line, "#progress ", 10)) {
            if (sscanf(line + 10, "%lf %lf %127[^\n]", &done, &total, what) == 3) {
                kcal_progress_update(&pr, what, done, total);
                progressed = 1;
            }
            continue;
        }
        text_add(out, line, (size_t)n);
    }
    free(line);
    fclose(f);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (progressed && rc == 0)
        kcal_progress_finish(&pr, "done");
    return rc;
}

typedef struct {
    char alg[64], k[16];
    unsigned long long size;
    double med, min, max;
    long iters;
    int over;
} row;

static void print_table(const char *csv, const char *coll, int p, int cores,
                        long warmup)
{
    row *rows = NULL;
    size_t n = 0, cap = 0;
    const char *s = strchr(csv, '\n'); /* skip the header */
    while (s && *++s) {
        row r = {0};
        char c[32];
        int pp;
        if (sscanf(s, "%31[^,],%d,%llu,%63[^,],%15[^,],%lf,%lf,%lf,%ld,%d", c,
                   &pp, &r.size, r.alg, r.k, &r.med, &r.min, &r.max, &r.iters,
                   &r.over) != 10) {
            /* k is empty where it does not apply: read without it. */
            r.k[0] = '\0';
            if (sscanf(s, "%31[^,],%d,%llu,%63[^,],,%lf,%lf,%lf,%ld,%d", c,
                       &pp, &r.size, r.alg, &r.med, &r.min, &r.max, &r.iters,
                       &r.over) != 9) {
                s = strchr(s, '\n');
                continue;
            }
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            rows = realloc(rows, cap * sizeof *rows);
        }
        rows[n++] = r;
        s = strchr(s, '\n');
    }
    int over = n > 0 && rows[0].over;
    printf("# kcal bench: %s, p = %d, %ld iterations after %ld warm-up, "
           "times in microseconds\n",
           coll, p, n ? rows[0].iters : 0L, warmup);
    if (over)
        printf("# OVERSUBSCRIBED: %d processes on %d cores: these times are "
               "not contention measurements\n", p, cores);
    printf("# vs_mpi = median of mpi / median of the algorithm (> 1: "
           "faster than the MPI library)\n");
    printf("%8s  %-20s %3s %12s %12s %12s %7s\n", "size", "algorithm", "k",
           "median_us", "min_us", "max_us", "vs_mpi");
    for (size_t i = 0; i < n; i++) {
        double mpi = 0;
        for (size_t j = 0; j < n; j++)
            if (rows[j].size == rows[i].size && !strcmp(rows[j].alg, "mpi"))
                mpi = rows[j].med;
        char sz[32], ratio[16] = "-";
        if (mpi > 0 && rows[i].med > 0)
            snprintf(ratio, sizeof ratio, "%.2f", mpi / rows[i].med);
        printf("%8s  %-20s %3s %12.1f %12.1f %12.1f %7s\n",
               kcal_size_format(rows[i].size, sz, sizeof sz), rows[i].alg,
               rows[i].k[0] ? rows[i].k : "-", rows[i].med * 1e6,
               rows[i].min * 1e6, rows[i].max * 1e6, ratio);
    }
    free(rows);
}

int kcal_bench_main(int argc, char **argv)
{
    const char *coll_s = NULL, *sizes = KCAL_DEFAULT_SIZES, *alg = NULL;
    const char *format = "table", *launcher = getenv("KCAL_MPIRUN");
    long p = 0, iters = 50, warmup = 5;
    int cold = 0, check = 0, quiet = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return KCAL_EXIT_OK;
        }
        if (!strcmp(a, "--cold")) {
            cold = 1;
            continue;
        }
        if (!strcmp(a, "--check")) {
            check = 1;
            continue;
        }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = 1;
            continue;
        }
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v || v[0] == '\0') {
            kcal_cli_error(CMD, "option %s needs a value (kcal bench --help)",
                           a);
            return KCAL_EXIT_USAGE;
        }
        i++;
        if (!strcmp(a, "--coll"))
            coll_s = v;
        else if (!strcmp(a, "--p")) {
            if (kcal_cli_int(v, 1, 1 << 20, &p) != 0) {
                kcal_cli_error(CMD, "--p: '%s' is not a process count >= 1",
                               v);
                return KCAL_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--sizes"))
            sizes = v;
        else if (!strcmp(a, "--algorithm"))
            alg = v;
        else if (!strcmp(a, "--iterations")) {
            if (kcal_cli_int(v, 1, 100000000, &iters) != 0) {
                kcal_cli_error(CMD, "--iterations: '%s' is not a count >= 1",
                               v);
                return KCAL_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--warmup")) {
            if (kcal_cli_int(v, 0, 100000000, &warmup) != 0) {
                kcal_cli_error(CMD, "--warmup: '%s' is not a count >= 0", v);
                return KCAL_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--format"))
            format = v;
        else if (!strcmp(a, "--mpirun"))
            launcher = v;
        else {
            kcal_cli_error(CMD, "unknown option '%s' (kcal bench --help)", a);
            return KCAL_EXIT_USAGE;
        }
    }
    kcal_coll coll;
    if (!coll_s || kcal_coll_from_name(coll_s, &coll) != 0) {
        kcal_cli_error(CMD, coll_s ? "--coll: unknown collective '%s' (scatter, "
                                     "gather, bcast, allgather, alltoall)"
                                   : "--coll is required%s",
                       coll_s ? coll_s : "");
        return KCAL_EXIT_USAGE;
    }
    if (p == 0) {
        kcal_cli_error(CMD, "--p is required");
        return KCAL_EXIT_USAGE;
    }
    if (strcmp(format, "table") && strcmp(format, "csv")) {
        kcal_cli_error(CMD, "--format: '%s' is not table or csv", format);
        return KCAL_EXIT_USAGE;
    }
    char err[256];
    uint64_t *list;
    size_t nsizes;
    if (kcal_sizes_parse(sizes, &list, &nsizes, err, sizeof err) != 0) {
        kcal_cli_error(CMD, "--sizes: %s", err);
        return KCAL_EXIT_USAGE;
    }
    free(list);
    if (alg && strcmp(alg, "mpi")) {
        char id[64];
        const char *colon = strchr(alg, ':');
        size_t len = colon ? (size_t)(colon - alg) : strlen(alg);
        snprintf(id, sizeof id, "%.*s", (int)(len < 63 ? len : 63), alg);
        const kcal_algorithm *a = kcal_model_find_algorithm(coll, id);
        long k = 0;
        if (!a) {
            kcal_cli_error(CMD, "--algorithm: '%s' is not an algorithm of %s",
                           id, coll_s);
            return KCAL_EXIT_USAGE;
        }
        if (colon && (kcal_cli_int(colon + 1, 1, 1 << 20, &k) != 0 ||
                      !kcal_model_k_valid(a, (int)p, (int)k))) {
            kcal_cli_error(CMD, "--algorithm: '%s' is not valid at p = %ld",
                           alg, p);
            return KCAL_EXIT_USAGE;
        }
        if (!colon && a->kind == KCAL_PARAM_THROTTLE && p < 3) {
            kcal_cli_error(CMD, "--algorithm: %s needs p >= 3", id);
            return KCAL_EXIT_USAGE;
        }
    }
    char prog[PATH_MAX];
    if (find_program(prog, sizeof prog) != 0) {
        kcal_cli_error(CMD, "benchmark program %s not found (run make, or "
                            "set KCAL_BENCH_MPI)", prog);
        return KCAL_EXIT_FAIL;
    }
    int cores = hwloc_cores();
    int over = cores > 0 && p > cores;

    /* argv: launcher words, -np P, [--oversubscribe], program, options. */
    char *words = strdup(launcher && *launcher ? launcher : "mpirun");
    char *args[64];
    int na = 0;
    for (char *w = strtok(words, " \t"); w && na < 40; w = strtok(NULL, " \t"))
        args[na++] = w;
    char np[32], it[32], wu[32];
    snprintf(np, sizeof np, "%ld", p);
    snprintf(it, sizeof it, "%ld", iters);
    snprintf(wu, sizeof wu, "%ld", warmup);
    int launcher_is_mpirun = na > 0 && is_mpirun(args[0]);
    args[na++] = "-np";
    args[na++] = np;
    if (over && launcher_is_mpirun)
        args[na++] = "--oversubscribe";
    args[na++] = prog;
    args[na++] = "--coll";
    args[na++] = (char *)kcal_coll_name(coll);
    args[na++] = "--sizes";
    args[na++] = (char *)sizes;
    args[na++] = "--iterations";
    args[na++] = it;
    args[na++] = "--warmup";
    args[na++] = wu;
    if (alg) {
        args[na++] = "--algorithm";
        args[na++] = (char *)alg;
    }
    if (cold)
        args[na++] = "--cold";
    if (check)
        args[na++] = "--check";
    args[na++] = quiet ? "--quiet" : "--progress";
    args[na] = NULL;
    if (!quiet) {
        fprintf(stderr, "kcal bench: running");
        for (int i = 0; i < na; i++)
            fprintf(stderr, " %s", args[i]);
        fprintf(stderr, "\n");
        if (over)
            kcal_cli_warn(CMD, "%ld processes on %d cores: oversubscribed, so "
                               "times are not contention measurements",
                          p, cores);
    }
    fflush(stderr);
    text out = {0};
    int rc = run_child(args, &out, quiet);
    free(words);
    if (rc == KCAL_EXIT_FORBIDDEN) {
        kcal_cli_error(CMD, "CMA (process_vm_readv) is not permitted on this "
                            "machine: see kcal probe");
        free(out.data);
        return KCAL_EXIT_FORBIDDEN;
    }
    if (rc != 0 || !out.data ||
        strncmp(out.data, KCAL_CSV_MEASURED_HEADER "\n",
                strlen(KCAL_CSV_MEASURED_HEADER "\n")) != 0) {
        kcal_cli_error(CMD, rc == 0 ? "the benchmark printed no results"
                            : check && rc == 1
                                ? "the run failed (exit 1): a result differed "
                                  "from the MPI built-in or a call failed; see "
                                  "the messages above"
                                : "the benchmark failed (exit %d); see the "
                                  "messages above",
                       rc);
        free(out.data);
        return KCAL_EXIT_FAIL;
    }
    if (!strcmp(format, "csv"))
        fputs(out.data, stdout);
    else
        print_table(out.data, kcal_coll_name(coll), (int)p, cores, warmup);
    free(out.data);
    return KCAL_EXIT_OK;
}
