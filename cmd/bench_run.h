/* bench_run: one run of a benchmark program (kcal-bench-mpi, or
 * kcal-vcoll-bench for the v-collectives) under the launcher, and its CSV rows: what `kcal bench` and `kcal tune` share.
 *
 * kcal_bench_run finds the program of the job's MPI library
 * ($KCAL_BENCH_MPI, else kcal-bench-mpi next to kcal or in its build
 * directory, and likewise $KCAL_VCOLL_BENCH, kcal-vcoll-bench: build/, or build-mpich/ for MPICH, common/mpi_flavor.h), runs
 * `LAUNCHER -np P [--oversubscribe] PROGRAM ARGS --progress --mpi NAME
 * --expect-p P` through common/launch.h (its own process group, ended at
 * the timeout or when kcal is stopped; the program stops with one line
 * when it runs with another MPI library or not as one job of P), draws the
 * program's "#progress" lines, keeps its "#library" line and the rest of
 * its stdout, the CSV.
 * A run that fails is one line on stderr: the program's own message (not
 * mpirun's frames around it), naming a file that keeps all of mpirun's
 * output (-v: they are shown as they come instead). Command code: it
 * prints that line itself. */
#ifndef KCAL_BENCH_RUN_H
#define KCAL_BENCH_RUN_H

#include <stdint.h>

#include "cmd/cli.h"
#include "common/mpi_flavor.h"
#include "common/vcounts.h"

#define KCAL_BENCH_LIBRARY_LEN 256

/* A benchmark program: its name (beside kcal or in its build directory,
 * and the prefix of its error lines) and the variable that overrides
 * where it is. */
typedef struct {
    const char *name, *env;
} kcal_bench_program;

/* kcal-bench-mpi (bench/bench_mpi.c): the regular collectives and the
 * reductions; kcal-vcoll-bench (bench/vcoll_bench.c): the v-collectives.
 * Both take the same protocol options and print the same CSV. */
extern const kcal_bench_program kcal_bench_mpi_program;
extern const kcal_bench_program kcal_bench_vcoll_program;

typedef struct {
    const char *cmd;      /* the command, for messages: "bench", "tune" */
    const char *launcher; /* --mpirun or $KCAL_MPIRUN; NULL: the library's */
    int p, cores;         /* cores > 0: --oversubscribe when p > cores */
    char *const *args;    /* the program's options, NULL-terminated */
    long timeout;         /* seconds; 0: none */
    int verbose;          /* mpirun's messages as they come */
    int check;            /* --check ran: exit 1 means a wrong result */
    int announce;         /* first say on stderr what runs */
    /* The program's progress, added to done_before out of total (total 0:
     * the run's own); pr NULL: not shown. */
    kcal_progress *pr;
    double done_before, total;
    const kcal_mpi_flavor *mpi; /* the MPI library; NULL: Open MPI */
    /* KCAL_BENCH_LIBRARY_LEN bytes for the MPI library's name ("MPICH
     * 4.0.2 (ch4:ucx)"), or NULL. */
    char *library;
    /* Words run before the launcher (kcal profile's perf record), or NULL;
     * the header the program's CSV starts with, NULL: the measured one
     * (KCAL_CSV_MEASURED_HEADER). */
    char *const *wrapper;
    const char *header;
    const kcal_bench_program *program; /* NULL: kcal_bench_mpi_program */
} kcal_bench_job;

/* Run the job. KCAL_EXIT_OK with *csv (malloc'd: the measured CSV, its
 * header first), or the exit status for the failure after printing its
 * line (KCAL_EXIT_FAIL; KCAL_EXIT_FORBIDDEN where CMA is not permitted).
 * *progressed says whether the program drew progress (may be NULL). */
int kcal_bench_run(const kcal_bench_job *job, char **csv, int *progressed);

/* The job's MPI library as its benchmark program names it (one launch at
 * p = 1 of `kcal-bench-mpi --library`), into job->library. KCAL_EXIT_OK,
 * or the exit status after printing the failure's line. */
int kcal_bench_library(const kcal_bench_job *job);

/* One row of the measured CSV (docs/model.md, columns.h). k is "" where
 * the algorithm takes none; times in seconds. */
typedef struct {
    char coll[48], alg[64], k[16]; /* coll: KCAL_VCOUNTS_LABEL_LEN */
    int p;
    unsigned long long size;
    double med, min, max;
    long iters;
    int over;
} kcal_bench_row;

/* Parse the line at s (up to its newline). 0, or -1 when it is not a row. */
int kcal_bench_parse_row(const char *s, kcal_bench_row *r);

/* A run's CSV (its header line, then rows), row after row: *at NULL
 * before the first, then the text of the row given. 1 with *r, 0 after
 * the last, -1 for a line that is not a row of p processes, after one
 * error line ("kcal CMD: the benchmark printed a row ..."). */
int kcal_bench_next_row(const char *csv, const char **at, int p,
                        const char *cmd, kcal_bench_row *r);

/* Whether kcal-vcoll-bench's buffers for v-collective vcoll under the
 * distribution dist (`counts`, as the user named it) fit in this
 * machine's memory at p ranks, every size of sizes: the p x p matrix's
 * bytes twice (each rank's send and receive buffers), p + 1 times for
 * allgatherv (each rank receives every block). 0, or -1 after one error
 * line ("kcal CMD: --sizes: 8M with --counts skew:16 needs ..."), also
 * for a matrix the distribution cannot make ("--counts: ..."). */
int kcal_bench_vfit(const char *cmd, const char *vcoll,
                    const kcal_vcounts *dist, const char *counts,
                    int p, const uint64_t *sizes, size_t nsizes);

#endif
