/* bench_cmd: `kcal bench`, the launcher of the MPI benchmark program.
 *
 *   kcal bench --coll C --p P [--sizes LIST|MIN:MAX] [--algorithm ID]
 *              [--type T] [--op O] [--counts D] [--iterations N]
 *              [--warmup N] [--cold] [--check] [--format table|csv]
 *              [--mpi NAME] [--mpirun CMD] [--timeout S] [-q] [-v]
 *   kcal bench --library [--mpi NAME] [--mpirun CMD]
 *
 * Checks the options, and that the run fits this machine (the process count
 * and every size's buffers: bench/capacity.h), then runs `CMD -np P
 * [--oversubscribe] kcal-bench-mpi ...` through bench_run.h (CMD:
 * --mpirun, else $KCAL_MPIRUN, else the launcher of the MPI library of
 * --mpi, else $KCAL_MPI, else Open MPI: common/mpi_flavor.h; its own
 * process group, ended at the timeout or when kcal is stopped). It draws the program's progress on
 * stderr and prints its CSV, or a table with the speed-up of each algorithm
 * over the MPI library's own collective. Nothing reaches stdout unless the
 * run succeeded. mpirun's own messages are kept out of the way: a failure
 * is one line (the program's own message) naming a file with all of them;
 * -v shows them as they come. The benchmark program is $KCAL_BENCH_MPI,
 * else kcal-bench-mpi next to this executable or in its build directory
 * (build/kcal-bench-mpi after `make`, build-mpich/kcal-bench-mpi after
 * `make MPI=mpich`); the table's header names the library it ran with.
 * A v-collective (--coll scatterv|gatherv|allgatherv|alltoallv, with
 * --counts D: common/vcounts.h) runs kcal-vcoll-bench the same way
 * ($KCAL_VCOLL_BENCH, else found likewise), with the same rows (mpi, the
 * ids of algos/irregular.def, auto, limit) and the same CSV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/bench_run.h"
#include "bench/capacity.h"
#include "bench/reduce_names.h"
#include "cmd/cli.h"
#include "common/cores.h"
#include "common/grow.h"
#include "model/model.h"
#include "common/mpi_flavor.h"
#include "common/sizes.h"
#include "common/vcounts.h"
#include "model/irregular.h"

#define CMD "bench"
/* A stopped or deadlocked rank would otherwise hang kcal bench (and make
 * report) forever; an hour is far beyond any default run on one node (the
 * default sizes take seconds at p = 2 and under a minute at p = 8 on two
 * cores), and --timeout 0 lifts it. */
#define DEFAULT_TIMEOUT 3600

static void usage(FILE *f)
{
    char types[512], ops[512];
    fprintf(f,
            "usage: kcal bench --coll C --p P [--sizes LIST|MIN:MAX] "
            "[--algorithm ID]\n"
            "                  [--type T] [--op O] [--counts D] "
            "[--iterations N] [--warmup N]\n"
            "                  [--cold] [--check] [--format table|csv] "
            "[--mpi NAME]\n"
            "                  [--mpirun CMD] [--timeout S] [-q] [-v]\n"
            "       kcal bench --library [--mpi NAME] [--mpirun CMD]\n\n"
            "Runs the reference collectives (libkcoll) and the MPI library's "
            "own (algorithm\n`mpi`) under its launcher with P processes, "
            "interleaved, each call after a barrier\nand timed from the first "
            "process's start to the last one's end (median/min/max\nover "
            "iterations), plus libkcoll's own choice (`auto`) and the copy "
            "limit\n(`limit`: the busiest process's copies alone).\n\n"
            "  --coll C          scatter, gather, bcast, allgather, alltoall,\n"
            "                    reduce, allreduce or reduce_scatter_block; or a "
            "v-collective:\n"
            "                    scatterv, gatherv, allgatherv or alltoallv\n"
            "  --p P             processes (on this node; at most %d per core "
            "and what the\n"
            "                    process limits leave room for)\n"
            "  --sizes S         sizes in bytes: 4K,1M or MIN:MAX doubling "
            "(default %s);\n"
            "                    every size's buffers must fit in this "
            "machine's memory\n"
            "  --algorithm ID    only this algorithm (id or id:k; `mpi` for "
            "the built-in only;\n"
            "                    mpi, auto and limit are always measured)\n"
            "  --type T          a reduction's elements (default %s; every "
            "size a whole\n"
            "                    number of them):\n"
            "                    %s\n"
            "  --op O            a reduction's op (default %s; where MPI "
            "defines it on T):\n"
            "                    %s\n"
            "  --counts D        a v-collective's blocks, each size the mean "
            "block (default\n"
            "                    uniform): uniform, skew:F (rank 1's F times "
            "the others'),\n"
            "                    random:SEED, sparse or file:PATH (a P x P "
            "matrix of bytes;\n"
            "                    docs/model.md); every row's result is "
            "checked once\n"
            "  --iterations N    timed iterations per size (default 50)\n"
            "  --warmup N        untimed iterations first (default 5)\n"
            "  --cold            new send data before every iteration\n"
            "  --check           compare every result with the MPI built-in; "
            "fail on mismatch\n"
            "  --format F        table (default) or csv\n"
            "  --mpi NAME        the MPI library: openmpi (default; "
            "$KCAL_MPI) or mpich (the\n"
            "                    MPICH ABI): its build of the benchmark "
            "(make, make MPI=mpich)\n"
            "                    under its launcher (mpirun.openmpi, "
            "mpiexec.mpich);\n"
            "                    `mpi` is its collective\n"
            "  --library         print the MPI library the benchmark runs "
            "with, and exit\n"
            "  --mpirun CMD      launcher (default $KCAL_MPIRUN, else "
            "--mpi's); gets -np P\n"
            "  --timeout S       end the run after S seconds, exit 1 "
            "(default %d: a stopped\n"
            "                    or deadlocked rank would hang forever, and "
            "default runs take\n"
            "                    seconds to minutes; 0: no limit)\n"
            "  -q, --quiet       no progress on stderr\n"
            "  -v, --verbose     show mpirun's own messages as they come (by "
            "default a failure\n"
            "                    is one line naming a file that keeps them)\n"
            "Exit: 0 ok, 1 the run failed, 2 bad option or a run that cannot "
            "fit here,\n3 CMA forbidden here.\n",
            KCAL_CAPACITY_OVERSUB, KCAL_DEFAULT_SIZES,
            KCAL_REDUCE_DEFAULT_TYPE,
            kcal_reduce_names(1, 20, types, sizeof types),
            KCAL_REDUCE_DEFAULT_OP,
            kcal_reduce_names(0, 20, ops, sizeof ops), DEFAULT_TIMEOUT);
}

static void print_table(const char *csv, const char *coll, int p, int cores,
                        long warmup, const char *library,
                        const kcal_reduce_type *type, const kcal_reduce_op *op,
                        const char *counts)
{
    kcal_bench_row *rows = NULL;
    size_t n = 0, cap = 0;
    const char *s = strchr(csv, '\n'); /* skip the header */
    while (s && *++s) {
        kcal_bench_row r;
        if (kcal_bench_parse_row(s, &r) != 0) {
            s = strchr(s, '\n');
            continue;
        }
        kcal_bench_row *grown = kcal_grow(rows, &cap, n, sizeof *grown, 64);
        if (!grown)
            break; /* out of memory: the table shows the rows read so far */
        rows = grown;
        rows[n++] = r;
        s = strchr(s, '\n');
    }
    int over = n > 0 && rows[0].over;
    printf("# kcal bench: %s, p = %d, %ld iterations after %ld warm-up, "
           "times in microseconds\n",
           coll, p, n ? rows[0].iters : 0L, warmup);
    if (*library)
        printf("# MPI library: %s (`mpi` is its collective)\n", library);
    if (type)
        printf("# elements: %s (%zu bytes) under %s; limit applies the same "
               "op (docs/bench.md)\n", type->name, type->size, op->name);
    if (counts)
        printf("# counts: %s, each size the mean block (docs/model.md, "
               "\"Irregular collectives\")\n", counts);
    if (over)
        printf("# OVERSUBSCRIBED: %d processes on %d cores: these times are "
               "not contention measurements\n", p, cores);
    printf("# vs_mpi = median of mpi / median of the row (> 1: faster than "
           "the MPI library)\n"
           "# auto = libkcoll's own choice (algorithm NULL); limit = the "
           "copies of the busiest\n"
           "# process alone (docs/bench.md); x_limit = median / median of "
           "limit\n");
    printf("%8s  %-22s %3s %12s %12s %12s %7s %7s\n", "size", "algorithm",
           "k", "median_us", "min_us", "max_us", "vs_mpi", "x_limit");
    for (size_t i = 0; i < n; i++) {
        double mpi = 0, limit = 0;
        for (size_t j = 0; j < n; j++) {
            if (rows[j].size == rows[i].size && !strcmp(rows[j].alg, "mpi"))
                mpi = rows[j].med;
            if (rows[j].size == rows[i].size && !strcmp(rows[j].alg, "limit"))
                limit = rows[j].med;
        }
        char sz[32], ratio[16] = "-", xl[16] = "-";
        if (mpi > 0 && rows[i].med > 0)
            snprintf(ratio, sizeof ratio, "%.2f", mpi / rows[i].med);
        if (limit > 0)
            snprintf(xl, sizeof xl, "%.2f", rows[i].med / limit);
        printf("%8s  %-22s %3s %12.1f %12.1f %12.1f %7s %7s\n",
               kcal_sizes_format(rows[i].size, sz, sizeof sz), rows[i].alg,
               rows[i].k[0] ? rows[i].k : "-", rows[i].med * 1e6,
               rows[i].min * 1e6, rows[i].max * 1e6, ratio, xl);
    }
    free(rows);
}

typedef struct {
    const char *coll_s, *sizes, *alg, *format;
    const char *type, *op; /* --type, --op: NULL when not given */
    const char *counts;    /* --counts: NULL when not given */
    int cold, check, library;
    kcal_launch_opts launch; /* --p, --iterations, --warmup, --mpi, ... */
} options;

static const struct option longopts[] = {
    {"coll", required_argument, 0, 'c'},
    KCAL_LONGOPT_P,
    {"sizes", required_argument, 0, 's'},
    {"algorithm", required_argument, 0, 'a'},
    {"iterations", required_argument, 0, KCAL_OPT_ITERS},
    KCAL_LONGOPT_WARMUP,
    {"cold", no_argument, 0, 'C'},
    {"check", no_argument, 0, 'K'},
    {"format", required_argument, 0, 'f'},
    {"library", no_argument, 0, 'L'},
    {"type", required_argument, 0, 'T'},
    {"op", required_argument, 0, 'O'},
    {"counts", required_argument, 0, 'D'},
    KCAL_LONGOPTS_LAUNCH_END};

/* kcal bench's own options (kcal_cli_option_fn). */
static int bench_option(int c, const char *arg, void *ctx)
{
    options *o = ctx;
    switch (c) {
    case 'c': o->coll_s = arg; return 0;
    case 's': o->sizes = arg; return 0;
    case 'a': o->alg = arg; return 0;
    case 'f': o->format = arg; return 0;
    case 'C': o->cold = 1; return 0;
    case 'K': o->check = 1; return 0;
    case 'L': o->library = 1; return 0;
    case 'T': o->type = arg; return 0;
    case 'O': o->op = arg; return 0;
    case 'D': o->counts = arg; return 0;
    default: return KCAL_CLI_NOT_MINE;
    }
}

/* --algorithm names an algorithm of coll that is valid at p. 0 or -1. */
static int check_algorithm(const options *o, kcal_coll coll)
{
    const char *alg = o->alg;
    if (!alg || !strcmp(alg, "mpi"))
        return 0;
    char id[64];
    const char *colon = strchr(alg, ':');
    size_t len = colon ? (size_t)(colon - alg) : strlen(alg);
    snprintf(id, sizeof id, "%.*s", (int)(len < 63 ? len : 63), alg);
    const kcal_algorithm *a = kcal_model_find_algorithm(coll, id);
    long k = 0;
    if (!a) {
        kcal_cli_error(CMD, "--algorithm: '%s' is not an algorithm of %s",
                       id, o->coll_s);
        return -1;
    }
    if (colon && (kcal_cli_int(colon + 1, 1, 1 << 20, &k) != 0 ||
                  !kcal_model_k_valid(a, (int)o->launch.p, (int)k))) {
        kcal_cli_error(CMD, "--algorithm: '%s' is not valid at p = %ld",
                       alg, o->launch.p);
        return -1;
    }
    if (!colon && a->kind == KCAL_PARAM_THROTTLE && o->launch.p < 3) {
        kcal_cli_error(CMD, "--algorithm: %s needs p >= 3", id);
        return -1;
    }
    return 0;
}

/* Every size is whole elements of a reduction's --type, and its buffers
 * (all p ranks of kcal-bench-mpi) fit in this machine's memory, and no
 * product overflows. 0 or -1. */
static int check_sizes(const options *o, kcal_coll coll, const uint64_t *list,
                       size_t nsizes, const kcal_reduce_type *type)
{
    uint64_t mem = kcal_capacity_memory();
    for (size_t i = 0; i < nsizes; i++) {
        uint64_t per_rank, total;
        char sz[32], a[32], b[32], m[32], err[256];
        if (type && kcal_reduce_check_size(type, list[i], err, sizeof err)) {
            kcal_cli_error(CMD, "%s", err);
            return -1;
        }
        kcal_sizes_format(list[i], sz, sizeof sz);
        if (kcal_capacity_bench_bytes(coll, (uint64_t)o->launch.p,
                                      (uint64_t)o->launch.p, list[i],
                                      o->check, &per_rank, &total) != 0) {
            kcal_cli_error(CMD, "--sizes: %s is too large for %s at p = %ld: "
                           "its buffers' size overflows 64 bits",
                           sz, o->coll_s, o->launch.p);
            return -1;
        }
        if (mem && total > mem) {
            kcal_cli_error(CMD, "--sizes: %s needs %s of buffers for %s at "
                           "p = %ld (%ld ranks x %s), more than this "
                           "machine's %s of memory",
                           sz, kcal_capacity_format_bytes(total, a, sizeof a),
                           o->coll_s, o->launch.p, o->launch.p,
                           kcal_capacity_format_bytes(per_rank, b, sizeof b),
                           kcal_capacity_format_bytes(mem, m, sizeof m));
            return -1;
        }
    }
    return 0;
}

/* A v-collective's options: no reduction's or --cold; --algorithm ids of
 * its irregular.def rows (or mpi); --counts makes a matrix at every size
 * and p (a file: p x p), whose buffers fit in this machine's memory. 0, or
 * -1 after the one line. *dist gets the distribution. */
static int check_vcoll(const options *o, const uint64_t *list, size_t nsizes,
                       kcal_vcounts *dist)
{
    char err[512];
    if (o->type || o->op || o->cold) {
        kcal_cli_error(CMD, "%s is not for a v-collective (%s)",
                       o->type ? "--type" : o->op ? "--op" : "--cold",
                       o->coll_s);
        return -1;
    }
    if (o->alg && strcmp(o->alg, "mpi")) {
        size_t n;
        const kcal_valgorithm *a = kcal_model_valgorithms(o->coll_s, &n);
        const char *item = o->alg;
        while (*item) {
            size_t len = strcspn(item, ",");
            int known = len == 3 && !strncmp(item, "mpi", 3);
            /* "id:w": a windowed row's window, 1 .. p − 1 */
            size_t idlen = strcspn(item, ",:");
            for (size_t i = 0; i < n && !known; i++) {
                if (strlen(a[i].id) != idlen || strncmp(a[i].id, item, idlen))
                    continue;
                if (idlen == len) {
                    known = 1;
                    continue;
                }
                char *end;
                long w = strtol(item + idlen + 1, &end, 10);
                if (!kcal_model_vwindowed(&a[i]) || end != item + len ||
                    end == item + idlen + 1 || w < 1 ||
                    w > (o->launch.p > 2 ? o->launch.p - 1 : 1)) {
                    kcal_cli_error(CMD, "--algorithm: '%.*s': %s takes %s",
                                   (int)len, item, a[i].id,
                                   kcal_model_vwindowed(&a[i])
                                       ? "a window from 1 to p - 1"
                                       : "no window");
                    return -1;
                }
                known = 1;
            }
            if (!known) {
                kcal_cli_error(CMD, "--algorithm: '%.*s' is not an algorithm "
                               "of %s", (int)len, item, o->coll_s);
                return -1;
            }
            item += len + (item[len] == ',');
        }
    }
    if (kcal_vcounts_parse(o->counts ? o->counts : "uniform", dist, err,
                           sizeof err) != 0) {
        kcal_cli_error(CMD, "%s", err);
        return -1;
    }
    return kcal_bench_vfit(CMD, o->coll_s, dist,
                           o->counts ? o->counts : "uniform", o->launch.p,
                           list, nsizes);
}

int kcal_bench_main(int argc, char **argv)
{
    options o = {.sizes = KCAL_DEFAULT_SIZES, .format = "table",
                 .launch = {.iters = 50, .warmup = 5, .min_p = 1,
                            .iters_option = "--iterations",
                            .timeout = DEFAULT_TIMEOUT}};
    int prc = kcal_cli_parse_launch(CMD, argc, argv, ":qvh", longopts, usage,
                                    bench_option, &o, &o.launch);
    if (prc != 0)
        return prc > 0 ? KCAL_EXIT_OK : KCAL_EXIT_USAGE;
    char library[KCAL_BENCH_LIBRARY_LEN] = "";
    if (o.library) {
        kcal_bench_job job = {.cmd = CMD, .launcher = o.launch.mpirun,
                              .p = 1, .timeout = o.launch.timeout,
                              .verbose = o.launch.verbose,
                              .mpi = o.launch.flavor, .library = library};
        int rc = kcal_bench_library(&job);
        if (rc == KCAL_EXIT_OK)
            printf("%s\n", library);
        return rc;
    }
    kcal_coll coll = KCAL_COLL_BCAST;
    int vcoll;
    if (kcal_cli_any_coll_and_p(CMD, o.coll_s, &coll, &vcoll, &o.launch) ||
        kcal_cli_table_or_csv(CMD, o.format) != 0)
        return KCAL_EXIT_USAGE;
    if (o.counts && !vcoll) {
        kcal_cli_error(CMD, "--counts is for a v-collective (%s)",
                       kcal_model_vcoll_list());
        return KCAL_EXIT_USAGE;
    }
    char err[512];
    uint64_t *list;
    size_t nsizes;
    if (kcal_sizes_parse(o.sizes, &list, &nsizes, err, sizeof err) != 0) {
        kcal_cli_error(CMD, "--sizes: %s", err);
        return KCAL_EXIT_USAGE;
    }
    const kcal_reduce_type *type = NULL;
    const kcal_reduce_op *op = NULL;
    kcal_vcounts dist;
    char dist_name[300] = "";
    int cores;
    if (vcoll) {
        int bad = check_vcoll(&o, list, nsizes, &dist) ||
                  kcal_cli_launch_fits(CMD, &o.launch, &cores);
        free(list);
        if (bad)
            return KCAL_EXIT_USAGE;
        kcal_vcounts_name(&dist, dist_name, sizeof dist_name);
    } else {
        if ((o.type || o.op) &&
            kcal_reduce_choose(coll, o.type, o.op, &type, &op, err,
                               sizeof err) != 0) {
            kcal_cli_error(CMD, "%s", err);
            free(list);
            return KCAL_EXIT_USAGE;
        }
        if (check_algorithm(&o, coll) != 0 ||
            kcal_cli_launch_fits(CMD, &o.launch, &cores) != 0) {
            free(list);
            return KCAL_EXIT_USAGE;
        }
        int fits = check_sizes(&o, coll, list, nsizes, type);
        free(list);
        if (fits != 0)
            return KCAL_EXIT_USAGE;
    }
    const char *coll_name = vcoll ? o.coll_s : kcal_coll_name(coll);
    int over = cores > 0 && o.launch.p > cores;

    /* The program and its options; launch.h puts the launcher before. */
    char it[32], wu[32];
    snprintf(it, sizeof it, "%ld", o.launch.iters);
    snprintf(wu, sizeof wu, "%ld", o.launch.warmup);
    char *args[24];
    int na = 0;
    args[na++] = "--coll";
    args[na++] = (char *)coll_name;
    args[na++] = "--sizes";
    args[na++] = (char *)o.sizes;
    args[na++] = "--iterations";
    args[na++] = it;
    args[na++] = "--warmup";
    args[na++] = wu;
    if (o.alg) {
        args[na++] = "--algorithm";
        args[na++] = (char *)o.alg;
    }
    if (type) { /* both, the defaults filled in; kcal-bench-mpi checks again */
        args[na++] = "--type";
        args[na++] = (char *)type->name;
        args[na++] = "--op";
        args[na++] = (char *)op->name;
    }
    if (vcoll) { /* a fixed count: its adaptive iterations pinned */
        args[na++] = "--counts";
        args[na++] = dist_name;
        args[na++] = "--min-iterations";
        args[na++] = it;
    }
    if (o.cold)
        args[na++] = "--cold";
    if (o.check && !vcoll) /* kcal-vcoll-bench always checks */
        args[na++] = "--check";
    if (o.launch.quiet) /* bench_run adds --progress, --mpi and --expect-p */
        args[na++] = "--quiet";
    args[na] = NULL;

    if (!o.launch.quiet && over)
        kcal_cli_warn(CMD, "%ld processes on %d cores: oversubscribed, so "
                           "times are not contention measurements",
                      o.launch.p, cores);
    kcal_progress pr;
    kcal_progress_init(&pr, CMD, o.launch.quiet);
    kcal_bench_job job = {CMD, o.launch.mpirun, (int)o.launch.p, cores, args,
                          o.launch.timeout, o.launch.verbose, o.check,
                          !o.launch.quiet, &pr, 0, 0, o.launch.flavor,
                          library, NULL, NULL,
                          vcoll ? &kcal_bench_vcoll_program : NULL};
    char *csv;
    int progressed;
    int rc = kcal_bench_run(&job, &csv, &progressed);
    if (rc != KCAL_EXIT_OK)
        return rc;
    if (progressed)
        kcal_progress_finish(&pr, "done");
    if (!strcmp(o.format, "csv"))
        fputs(csv, stdout);
    else
        print_table(csv, coll_name, (int)o.launch.p, cores,
                    o.launch.warmup, library, type, op,
                    vcoll ? dist_name : NULL);
    free(csv);
    return KCAL_EXIT_OK;
}
