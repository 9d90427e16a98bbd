/* bench_opts: the options of kcal-bench-mpi (bench_mpi.c, whose opening
 * comment says what each does) and the variants they ask it to measure:
 * the MPI library's collective, libkcoll's algorithms with their k, auto
 * and limit. A bad option ends the program (exit 2, the line on rank 0's
 * stderr), as does a run under another MPI library than --mpi names or
 * with another world size than --expect-p. Private to kcal-bench-mpi;
 * every rank calls these alike, after MPI_Init. */
#ifndef KCAL_BENCH_OPTS_H
#define KCAL_BENCH_OPTS_H

#include <stddef.h>

#include <mpi.h>

#include "bench/reduce_names.h"
#include "model/model.h"

typedef enum {
    V_MPI,    /* the MPI library's collective */
    V_KCOLL,  /* a libkcoll algorithm, spec */
    V_AUTO,   /* libkcoll with algorithm NULL */
    V_LIMIT   /* the copies alone (the top of this file) */
} variant_kind;

typedef struct {
    char spec[64]; /* kcoll algorithm (V_KCOLL) */
    const char *name;
    int k; /* -1: none */
    variant_kind kind;
} variant;

typedef struct {
    kcal_coll coll;
    const char *sizes, *algorithm;
    long iterations, warmup;
    long rounds; /* --loop's calls in that many rounds of the variants in
                  * turn (0: each variant's calls in one loop) */
    const char *twin; /* --loop: this variant measured twice, the second
                       * named "<id>#2" (an A/A control: the loop's own
                       * noise) */
    int cold, check, root, quiet, progress, no_auto_limit, loop;
    const char *mpi; /* the MPI family kcal bench built this for, or NULL */
    long expect_p;   /* the world size kcal bench launched, or 0 */
    int library;     /* print the library and exit */
    /* A reduction's --type and --op (reduce_names.h), or NULL for both
     * when neither was given: then n bytes are doubles summed, or bytes
     * OR'd when n is not a multiple of 8 (kcoll_bytes_reduction). */
    const char *type_name, *op_name;
    const kcal_reduce_type *type;
    const kcal_reduce_op *op;
    MPI_Datatype mpi_type; /* their handles */
    MPI_Op mpi_op;
} options;

/* Rank 0 prints "kcal-bench-mpi: MSG[: ARG]"; every rank exits 2. */
void bench_usage_error(const char *msg, const char *arg)
    __attribute__((noreturn));

/* The options of argv; --help prints the usage and exits 0. */
void bench_parse(int argc, char **argv, options *o);

/* The MPI library as one line into library (mpi_flavor.h), checked
 * against --mpi and --expect-p. */
void bench_check_library(const options *o, char *library, size_t len);

/* Every variant to measure, in order (see bench_opts.c), *count of them;
 * the caller frees the array. */
variant *bench_variants(const options *o, int *count);

#endif
