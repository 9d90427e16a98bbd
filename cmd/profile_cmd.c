/* profile_cmd: `kcal profile`, where a collective's time goes.
 *
 *   kcal profile --coll C --p P --size N [--algorithm LIST] [--seconds S]
 *                [--frequency HZ] [--format table|csv] [--keep DIR]
 *                [--perf PATH] [--mpi NAME] [--mpirun CMD] [--timeout S]
 *                [-q] [-v]
 *
 * For each item of --algorithm (default mpi,auto: the MPI library's
 * collective and libkcoll's own choice; any algorithm id:k, limit too),
 * kcal-bench-mpi --loop times the calls back to back, once alone to learn
 * a call's time and once under `perf record -a -e cpu-clock` for about S
 * seconds of calls (default 2). perf's events are switched on only around
 * the timed loop (perf_ctl.h), so MPI_Init and the warm-up stay out.
 * perf report's samples, classed by perf_classes.h, divided by the
 * sampling rate and the calls, give the CPU time per call of each phase,
 * summed over the CPUs: the kernel's CMA copy, its page pinning, spin
 * locks, the rest of the kernel, local memcpy, libkcoll's flags, the MPI
 * library, the rest, idle CPUs and other processes. Both CPUs' time is
 * there (perf -a), so a rank that waits shows as flags or MPI time and an
 * idle core as idle.
 *
 * perf must be able to record system-wide (root, or
 * kernel.perf_event_paranoid <= 0); hardware counters are not needed
 * (cpu-clock is a software event: KVM guests without a virtual PMU have
 * it). Nothing is printed on stdout unless every run succeeded. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/bench_run.h"
#include "bench/capacity.h"
#include "cmd/cli.h"
#include "common/cores.h"
#include "model/model.h"
#include "bench/perf_classes.h"
#include "common/sizes.h"

#define CMD "profile"
#define DEFAULT_TIMEOUT 600
#define PROGRAM "kcal-bench-mpi"
#define LOOP_HEADER                                                           \
    "collective,p,size_bytes,algorithm,k,calls,seconds_per_call,"            \
    "oversubscribed"
#define CALIBRATION_CALLS 200
#define MAX_ITEMS 16

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kcal profile --coll C --p P --size N [--algorithm LIST] "
            "[--seconds S]\n"
            "                    [--frequency HZ] [--format table|csv] "
            "[--keep DIR] [--perf PATH]\n"
            "                    [--mpi NAME] [--mpirun CMD] [--timeout S] "
            "[-q] [-v]\n\n"
            "Where a collective's time goes: each algorithm's calls run back "
            "to back under\n`perf record -a -e cpu-clock`, and the samples "
            "are split into the phases of a\nCMA call (copy, page pinning), "
            "the rest of the kernel, local copies, libkcoll's\nflags, the MPI "
            "library, idle CPUs and other processes, as CPU microseconds per\n"
            "call summed over the CPUs (docs/bench.md).\n\n"
            "  --coll C          scatter, gather, bcast, allgather, alltoall,\n"
            "                    reduce, allreduce or reduce_scatter_block\n"
            "  --p P             processes (on this node)\n"
            "  --size N          message size in bytes (4K, 1M, ...; one)\n"
            "  --algorithm LIST  comma-separated: mpi, auto, limit, or an "
            "algorithm id\n"
            "                    (id:k for throttled and strided ones); "
            "default mpi,auto\n"
            "  --seconds S       seconds of calls to profile per item "
            "(default 2)\n"
            "  --frequency HZ    samples per second per CPU (default 4999)\n"
            "  --format F        table (default) or csv\n"
            "  --keep DIR        keep each item's perf.data in DIR (for perf "
            "report)\n"
            "  --perf PATH       the perf program (default $KCAL_PERF, else "
            "perf)\n"
            "  --mpi NAME        openmpi (default; $KCAL_MPI) or mpich\n"
            "  --mpirun CMD      launcher (default $KCAL_MPIRUN, else --mpi's)\n"
            "  --timeout S       end a run after S seconds, exit 1 (default "
            "%d)\n"
            "  -q, --quiet       no progress on stderr\n"
            "  -v, --verbose     show mpirun's and perf's messages as they "
            "come\n"
            "perf must record system-wide: root, or "
            "kernel.perf_event_paranoid <= 0.\n"
            "Exit: 0 ok, 1 a run failed, 2 bad option, 3 CMA forbidden "
            "here.\n",
            DEFAULT_TIMEOUT);
}

typedef struct {
    const char *coll_s, *size_s, *algs, *format, *keep, *perf;
    long seconds, freq;
    kcal_launch_opts launch; /* --p, --mpi, --mpirun, --timeout, -q, -v */
} options;

static const struct option longopts[] = {
    {"coll", required_argument, 0, 'c'},
    KCAL_LONGOPT_P,
    {"size", required_argument, 0, 's'},
    {"algorithm", required_argument, 0, 'a'},
    {"seconds", required_argument, 0, 'S'},
    {"frequency", required_argument, 0, 'F'},
    {"format", required_argument, 0, 'f'},
    {"keep", required_argument, 0, 'k'},
    {"perf", required_argument, 0, 'P'},
    KCAL_LONGOPTS_LAUNCH_END};

/* kcal profile's own options (kcal_cli_option_fn). */
static int profile_option(int c, const char *arg, void *ctx)
{
    options *o = ctx;
    switch (c) {
    case 'c': o->coll_s = arg; return 0;
    case 's': o->size_s = arg; return 0;
    case 'a': o->algs = arg; return 0;
    case 'f': o->format = arg; return 0;
    case 'k': o->keep = arg; return 0;
    case 'P': o->perf = arg; return 0;
    case 'S':
        return kcal_cli_int_option(CMD, "--seconds", arg, 1, 3600,
                                   "1 to 3600 seconds", &o->seconds);
    case 'F':
        return kcal_cli_int_option(CMD, "--frequency", arg, 1, 100000,
                                   "1 to 100000 Hz", &o->freq);
    default: return KCAL_CLI_NOT_MINE;
    }
}

/* The items of --algorithm, split in place into items[] (at most
 * MAX_ITEMS), each mpi, auto, limit or an algorithm of coll valid at p
 * with its k where it takes one: one item is one perf run, so it must be
 * one variant. The count, or -1 (the error line printed). */
static int split_items(char *list, kcal_coll coll, const options *o,
                       char **items)
{
    int n = 0;
    char *save = NULL;
    for (char *it = strtok_r(list, ",", &save); it;
         it = strtok_r(NULL, ",", &save)) {
        if (n == MAX_ITEMS) {
            kcal_cli_error(CMD, "--algorithm: at most %d items", MAX_ITEMS);
            return -1;
        }
        items[n++] = it;
        if (!strcmp(it, "mpi") || !strcmp(it, "auto") || !strcmp(it, "limit"))
            continue;
        char id[64];
        const char *colon = strchr(it, ':');
        size_t len = colon ? (size_t)(colon - it) : strlen(it);
        snprintf(id, sizeof id, "%.*s", (int)(len < 63 ? len : 63), it);
        const kcal_algorithm *a = kcal_model_find_algorithm(coll, id);
        if (!a) {
            kcal_cli_error(CMD, "--algorithm: '%s' is not mpi, auto, limit "
                           "or an algorithm of %s", it, o->coll_s);
            return -1;
        }
        long k = 0;
        if (!colon && a->kind == KCAL_PARAM_THROTTLE) {
            kcal_cli_error(CMD, "--algorithm: %s: name its throttle factor "
                           "(%s:k, 2 <= k < p): one item is one variant", id,
                           id);
            return -1;
        }
        if (colon && (kcal_cli_int(colon + 1, 1, 1 << 20, &k) != 0 ||
                      !kcal_model_k_valid(a, (int)o->launch.p, (int)k))) {
            kcal_cli_error(CMD, "--algorithm: '%s' is not valid at p = %ld",
                           it, o->launch.p);
            return -1;
        }
    }
    if (n == 0)
        kcal_cli_error(CMD, "--algorithm: no item in '%s'", o->algs);
    return n ? n : -1;
}

/* Runs argv with stdout read line by line into on_line and stderr into
 * the file err_path. The exit status (128 + N after signal N), or -1
 * when argv[0] cannot be started (errno set). */
static int run_capture(char *const argv[], const char *err_path,
                       void (*on_line)(void *, char *), void *ctx)
{
    int fd[2];
    if (pipe2(fd, O_CLOEXEC) != 0)
        return -1;
    int ep[2]; /* the child's exec errno, if exec fails */
    if (pipe2(ep, O_CLOEXEC) != 0) {
        close(fd[0]);
        close(fd[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]), close(fd[1]), close(ep[0]), close(ep[1]);
        return -1;
    }
    if (pid == 0) {
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int null = open("/dev/null", O_RDONLY);
        if (e < 0 || null < 0 || dup2(fd[1], 1) < 0 || dup2(e, 2) < 0 ||
            dup2(null, 0) < 0)
            _exit(127);
        execvp(argv[0], argv);
        int err = errno;
        ssize_t w = write(ep[1], &err, sizeof err);
        (void)w;
        _exit(127);
    }
    close(fd[1]);
    close(ep[1]);
    FILE *f = fdopen(fd[0], "r");
    char *line = NULL;
    size_t cap = 0;
    while (f && getline(&line, &cap, f) >= 0)
        if (on_line)
            on_line(ctx, line);
    free(line);
    if (f)
        fclose(f);
    else
        close(fd[0]);
    int err = 0;
    ssize_t r = read(ep[0], &err, sizeof err);
    close(ep[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (r == (ssize_t)sizeof err) {
        errno = err;
        return -1;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The first line of a file, for a one-line message. */
static void first_line(const char *path, char *out, size_t len)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char buf[512];
    while (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = '\0';
        if (*buf) {
            snprintf(out, len, "%s", buf);
            break;
        }
    }
    fclose(f);
}

/* Can perf record system-wide here? 0, or -1 (the error line printed). */
static int perf_usable(const options *o, const char *dir)
{
    char data[4096], err[4096];
    snprintf(data, sizeof data, "%s/preflight.data", dir);
    snprintf(err, sizeof err, "%s/preflight.err", dir);
    char *argv[] = {(char *)o->perf, "record", "-a", "-e", "cpu-clock",
                    "-q", "-o", data, "--", "true", NULL};
    int st = run_capture(argv, err, NULL, NULL);
    unlink(data);
    if (st < 0) {
        kcal_cli_error(CMD, "cannot run %s: %s (Debian: apt-get install "
                       "linux-perf; or --perf PATH)", o->perf, strerror(errno));
        unlink(err);
        return -1;
    }
    if (st != 0) {
        char why[512];
        first_line(err, why, sizeof why);
        kcal_cli_error(CMD, "%s record -a cannot record system-wide here "
                       "(exit %d: %s): run as root or lower "
                       "kernel.perf_event_paranoid to 0",
                       o->perf, st, *why ? why : "no message");
        unlink(err);
        return -1;
    }
    unlink(err);
    return 0;
}

/* The one row of a --loop run: its seconds per call. 0, or -1. */
static int loop_time(const char *csv, double *t)
{
    const char *row = strchr(csv, '\n');
    if (!row || !row[1])
        return -1;
    row++;
    if (strchr(row, '\n') && strchr(row, '\n')[1])
        return -1; /* more than one variant: not one item */
    const char *f = row;
    for (int i = 0; i < 6 && f; i++) {
        f = strchr(f, ',');
        if (f)
            f++;
    }
    if (!f)
        return -1;
    char *end;
    *t = strtod(f, &end);
    return end != f && *t > 0 ? 0 : -1;
}

/* SIGTERM, SIGINT or SIGHUP while a run is on: the launcher ends the job
 * and raises the signal again once it is over (common/launch.c), which
 * lands here, so the fifos and perf.data in /tmp are removed before the
 * signal ends kcal. */
static const int profile_signals[] = {SIGTERM, SIGINT, SIGHUP};
static volatile sig_atomic_t profile_signal;

static void on_profile_signal(int sig)
{
    profile_signal = sig;
}

static void catch_signals(void)
{
    for (size_t i = 0; i < sizeof profile_signals / sizeof *profile_signals; i++) {
        struct sigaction old, sa;
        if (sigaction(profile_signals[i], NULL, &old) == 0 &&
            old.sa_handler == SIG_IGN)
            continue; /* nohup: stays ignored */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_profile_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(profile_signals[i], &sa, NULL);
    }
}

/* After the clean-up: end kcal as the signal would have. */
static void deliver_signal(void)
{
    if (!profile_signal)
        return;
    signal(profile_signal, SIG_DFL);
    raise(profile_signal);
}

typedef struct {
    double samples[KCAL_PC_COUNT];
    double total;
} tally;

static void add_line(void *ctx, char *line)
{
    tally *t = ctx;
    double n;
    kcal_perf_class c;
    if (kcal_perf_parse_line(line, PROGRAM, &n, &c) == 0) {
        t->samples[c] += n;
        t->total += n;
    }
}

typedef struct {
    const char *item;
    double alone, profiled; /* seconds per call without and with perf */
    long calls;
    double us[KCAL_PC_COUNT]; /* CPU microseconds per call */
} result;

int kcal_profile_main(int argc, char **argv)
{
    const char *perf = getenv("KCAL_PERF");
    options o = {.algs = "mpi,auto", .format = "table",
                 .perf = perf && *perf ? perf : "perf",
                 .seconds = 2, .freq = 4999,
                 .launch = {.min_p = 2, .timeout = DEFAULT_TIMEOUT}};
    int prc = kcal_cli_parse_launch(CMD, argc, argv, ":qvh", longopts, usage,
                                    profile_option, &o, &o.launch);
    if (prc != 0)
        return prc > 0 ? KCAL_EXIT_OK : KCAL_EXIT_USAGE;
    char library[KCAL_BENCH_LIBRARY_LEN] = "";
    kcal_coll coll;
    if (kcal_cli_coll_and_p(CMD, o.coll_s, &coll, &o.launch) != 0)
        return KCAL_EXIT_USAGE;
    if (!o.size_s) {
        kcal_cli_error(CMD, "--size is required");
        return KCAL_EXIT_USAGE;
    }
    if (kcal_cli_table_or_csv(CMD, o.format) != 0)
        return KCAL_EXIT_USAGE;
    char err[256];
    uint64_t *list;
    size_t nsizes;
    if (kcal_sizes_parse(o.size_s, &list, &nsizes, err, sizeof err) != 0) {
        kcal_cli_error(CMD, "--size: %s", err);
        return KCAL_EXIT_USAGE;
    }
    uint64_t n = list[0];
    free(list);
    if (nsizes != 1 || n == 0) {
        kcal_cli_error(CMD, "--size: '%s' is not one size of at least 1 byte",
                       o.size_s);
        return KCAL_EXIT_USAGE;
    }
    char listbuf[1024];
    if (strlen(o.algs) >= sizeof listbuf) {
        kcal_cli_error(CMD, "--algorithm: the list is too long");
        return KCAL_EXIT_USAGE;
    }
    strcpy(listbuf, o.algs);
    char *items[MAX_ITEMS];
    int nitems = split_items(listbuf, coll, &o, items);
    if (nitems < 0)
        return KCAL_EXIT_USAGE;
    int cores;
    if (kcal_cli_launch_fits(CMD, &o.launch, &cores) != 0)
        return KCAL_EXIT_USAGE;
    uint64_t per_rank, total, mem = kcal_capacity_memory();
    if (kcal_capacity_bench_bytes(coll, (uint64_t)o.launch.p,
                                  (uint64_t)o.launch.p, n, 0, &per_rank,
                                  &total) != 0 ||
        (mem && total > mem)) {
        kcal_cli_error(CMD, "--size: %s does not fit in this machine's memory "
                       "for %s at p = %ld", o.size_s, o.coll_s, o.launch.p);
        return KCAL_EXIT_USAGE;
    }
    if (o.keep) {
        struct stat st;
        if (stat(o.keep, &st) != 0 || !S_ISDIR(st.st_mode) ||
            access(o.keep, W_OK) != 0) {
            kcal_cli_error(CMD, "--keep: %s is not a writable directory",
                           o.keep);
            return KCAL_EXIT_USAGE;
        }
    }
    int over = cores > 0 && o.launch.p > cores;

    char dir[] = "/tmp/kcal-profile.XXXXXX";
    if (!mkdtemp(dir)) {
        kcal_cli_error(CMD, "cannot make a directory in /tmp: %s",
                       strerror(errno));
        return KCAL_EXIT_FAIL;
    }
    char ctl[64], ack[64], data[64], perr[64];
    snprintf(ctl, sizeof ctl, "%s/ctl", dir);
    snprintf(ack, sizeof ack, "%s/ack", dir);
    snprintf(data, sizeof data, "%s/perf.data", dir);
    snprintf(perr, sizeof perr, "%s/report.err", dir);
    int rc = KCAL_EXIT_OK, hold_ctl = -1, hold_ack = -1;
    result res[MAX_ITEMS];
    memset(res, 0, sizeof res);
    catch_signals();
    if (perf_usable(&o, dir) != 0) {
        rc = KCAL_EXIT_FAIL;
        goto done;
    }
    /* perf opens the fifos by name; holding both open here, read and
     * write, lets its opens and the benchmark's never block on a missing
     * other end. */
    if (mkfifo(ctl, 0600) != 0 || mkfifo(ack, 0600) != 0 ||
        (hold_ctl = open(ctl, O_RDWR | O_CLOEXEC)) < 0 ||
        (hold_ack = open(ack, O_RDWR | O_CLOEXEC)) < 0) {
        kcal_cli_error(CMD, "cannot make the perf control fifos in %s: %s",
                       dir, strerror(errno));
        rc = KCAL_EXIT_FAIL;
        goto done;
    }
    if (!o.launch.quiet && over)
        kcal_cli_warn(CMD, "%ld processes on %d cores: oversubscribed, so "
                           "the profile is not one of contention",
                      o.launch.p, cores);
    kcal_progress pr;
    kcal_progress_init(&pr, CMD, o.launch.quiet);
    char control[160], freq[32], sz[32];
    snprintf(control, sizeof control, "fifo:%s,%s", ctl, ack);
    snprintf(freq, sizeof freq, "%ld", o.freq);
    snprintf(sz, sizeof sz, "%llu", (unsigned long long)n);
    char *wrapper[] = {(char *)o.perf, "record", "-a", "-e", "cpu-clock",
                       "-F", freq, "-D", "-1", "--control", control, "-q",
                       "-o", data, "--", NULL};
    for (int i = 0; i < nitems && rc == KCAL_EXIT_OK && !profile_signal; i++) {
        result *r = &res[i];
        r->item = items[i];
        char iters[32], phase[160];
        for (int pass = 0; pass < 2 && rc == KCAL_EXIT_OK && !profile_signal;
             pass++) {
            r->calls = pass == 0 ? CALIBRATION_CALLS : r->calls;
            snprintf(iters, sizeof iters, "%ld", r->calls);
            char *args[] = {"--coll", (char *)kcal_coll_name(coll), "--sizes",
                            sz, "--algorithm", items[i], "--loop",
                            "--iterations", iters, "--warmup", "20",
                            "--quiet", NULL};
            snprintf(phase, sizeof phase, "%s: %s", items[i],
                     pass == 0 ? "timing alone" : "under perf");
            kcal_progress_update(&pr, phase, 2.0 * i + pass, 2.0 * nitems);
            if (pass == 1) {
                setenv("KCAL_PERF_CTL", ctl, 1);
                setenv("KCAL_PERF_ACK", ack, 1);
            }
            kcal_bench_job job = {.cmd = CMD, .launcher = o.launch.mpirun,
                                  .p = (int)o.launch.p, .cores = cores,
                                  .args = args, .timeout = o.launch.timeout,
                                  .verbose = o.launch.verbose,
                                  .mpi = o.launch.flavor, .library = library,
                                  .wrapper = pass == 1 ? wrapper : NULL,
                                  .header = LOOP_HEADER};
            char *csv = NULL;
            rc = kcal_bench_run(&job, &csv, NULL);
            unsetenv("KCAL_PERF_CTL");
            unsetenv("KCAL_PERF_ACK");
            if (rc != KCAL_EXIT_OK)
                break;
            double t = 0;
            if (loop_time(csv, &t) != 0) {
                kcal_cli_error(CMD, "%s: the benchmark printed no time per "
                               "call", items[i]);
                rc = KCAL_EXIT_FAIL;
            } else if (pass == 0) {
                r->alone = t;
                double calls = ceil((double)o.seconds / t);
                r->calls = calls < 100 ? 100 : calls > 1e8 ? 100000000 : (long)calls;
            } else {
                r->profiled = t;
            }
            free(csv);
        }
        if (rc != KCAL_EXIT_OK)
            break;
        tally t = {{0}, 0};
        char *rep[] = {(char *)o.perf, "report", "-i", data, "--stdio",
                       "--no-children", "-n", "--sort", "comm,dso,sym", "-q",
                       "-t", "|", NULL};
        int st = run_capture(rep, perr, add_line, &t);
        if (st != 0 || t.total <= 0) {
            char line[512];
            first_line(perr, line, sizeof line);
            kcal_cli_error(CMD, "%s: perf report %s (%s)", items[i],
                           st != 0 ? "failed" : "found no samples",
                           *line ? line : "no message");
            rc = KCAL_EXIT_FAIL;
            break;
        }
        for (int c = 0; c < KCAL_PC_COUNT; c++)
            r->us[c] = t.samples[c] / (double)o.freq / (double)r->calls * 1e6;
        if (o.keep) {
            char kept[4096], safe[64];
            snprintf(safe, sizeof safe, "%s", items[i]);
            for (char *s = safe; *s; s++)
                if (*s == ':' || *s == '/')
                    *s = '_';
            snprintf(kept, sizeof kept, "%s/%s-p%ld-%s-%s.perf.data", o.keep,
                     kcal_coll_name(coll), o.launch.p, o.size_s, safe);
            char *mv[] = {"mv", "-f", data, kept, NULL};
            if (run_capture(mv, perr, NULL, NULL) != 0) {
                kcal_cli_error(CMD, "--keep: cannot move the profile to %s",
                               kept);
                rc = KCAL_EXIT_FAIL;
                break;
            }
        }
        unlink(data);
    }
    if (profile_signal)
        rc = KCAL_EXIT_FAIL; /* nothing on stdout: the signal ends kcal */
    if (rc == KCAL_EXIT_OK)
        kcal_progress_finish(&pr, "done");
    if (rc == KCAL_EXIT_OK && !strcmp(o.format, "csv")) {
        printf("collective,p,size_bytes,algorithm,class,cpu_seconds_per_call,"
               "seconds_per_call_alone,seconds_per_call_profiled,calls,"
               "oversubscribed\n");
        for (int i = 0; i < nitems; i++)
            for (int c = 0; c < KCAL_PC_COUNT; c++)
                printf("%s,%ld,%llu,%s,%s,%.6g,%.6g,%.6g,%ld,%d\n",
                       kcal_coll_name(coll), o.launch.p, (unsigned long long)n,
                       res[i].item, kcal_perf_class_id((kcal_perf_class)c),
                       res[i].us[c] * 1e-6, res[i].alone, res[i].profiled,
                       res[i].calls, over);
    } else if (rc == KCAL_EXIT_OK) {
        printf("# kcal profile: %s, p = %ld, %s; perf cpu-clock at %ld Hz, "
               "every CPU (%d)\n",
               kcal_coll_name(coll), o.launch.p, o.size_s, o.freq, cores);
        if (*library)
            printf("# MPI library: %s (`mpi` is its collective)\n", library);
        if (over)
            printf("# OVERSUBSCRIBED: %ld processes on %d cores: not a "
                   "profile of contention\n", o.launch.p, cores);
        printf("# calls back to back; rows below the line: CPU microseconds "
               "per call, summed over the CPUs\n");
        int w = 14; /* every column as wide as the longest item */
        for (int i = 0; i < nitems; i++)
            if ((int)strlen(res[i].item) > w)
                w = (int)strlen(res[i].item);
        printf("%-32s", "");
        for (int i = 0; i < nitems; i++)
            printf(" %*s", w, res[i].item);
        printf("\n%-32s", "wall us per call, alone");
        for (int i = 0; i < nitems; i++)
            printf(" %*.2f", w, res[i].alone * 1e6);
        printf("\n%-32s", "wall us per call, under perf");
        for (int i = 0; i < nitems; i++)
            printf(" %*.2f", w, res[i].profiled * 1e6);
        printf("\n%-32s", "calls profiled");
        for (int i = 0; i < nitems; i++)
            printf(" %*ld", w, res[i].calls);
        printf("\n");
        for (int i = 0; i < 32 + (w + 1) * nitems; i++)
            putchar('-');
        printf("\n");
        for (int c = 0; c < KCAL_PC_COUNT; c++) {
            printf("%-32s", kcal_perf_class_name((kcal_perf_class)c));
            for (int i = 0; i < nitems; i++)
                printf(" %*.2f", w, res[i].us[c]);
            printf("\n");
        }
        printf("%-32s", "total (about CPUs x wall)");
        for (int i = 0; i < nitems; i++) {
            double s = 0;
            for (int c = 0; c < KCAL_PC_COUNT; c++)
                s += res[i].us[c];
            printf(" %*.2f", w, s);
        }
        printf("\n");
    }
done:
    if (hold_ctl >= 0)
        close(hold_ctl);
    if (hold_ack >= 0)
        close(hold_ack);
    unlink(ctl);
    unlink(ack);
    unlink(data);
    unlink(perr);
    rmdir(dir);
    deliver_signal();
    return rc;
}
