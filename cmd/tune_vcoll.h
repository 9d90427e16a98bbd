/* tune_vcoll: `kcal tune`'s part for the v-collectives (scatterv ...
 * alltoallv): the --counts distributions, one kcal-vcoll-bench run per
 * distribution over every size, every row of algos/irregular.def and
 * mpi (always exhaustive: the model's window does not apply), the rows
 * into a kcal_tune_vset (tune/tune.h, which chooses the crossover and
 * the row), and the scores on stderr. docs/tune.md "The v-collectives". */
#ifndef KCAL_TUNE_VCOLL_H
#define KCAL_TUNE_VCOLL_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/bench_run.h"
#include "common/vcounts.h"
#include "tune/tune.h"

#define KCAL_TUNE_MAX_COUNTS 16 /* distributions in one --counts */

/* --counts: distributions, each once, into dists[] (*n of them, at most
 * KCAL_TUNE_MAX_COUNTS), each making a matrix at p for every size (a
 * file: p x p counts) whose buffers fit in this machine's memory for
 * each of the nv v-collectives vcolls[] (kcal_model_vcoll_index), as
 * kcal bench checks them. 0, or -1 after the one error line. */
int kcal_tune_vparse_counts(const char *list, long p, const uint64_t *sizes,
                            size_t nsizes, const int *vcolls, int nv,
                            kcal_vcounts *dists, int *n);

/* The distributions' names, "uniform, skew:16", into buf. Returns buf. */
char *kcal_tune_vcounts_list(const kcal_vcounts *dists, int n, char *buf,
                             size_t len);

/* Measure v (set up by kcal_tune_vinit) under each of the ndists
 * distributions: one run of kcal-vcoll-bench each, through job (every
 * field but args set; its done_before grows by each run's work), iters
 * timed iterations and warmup untimed ones per size.
 * KCAL_EXIT_OK, or the failed run's exit status after its error line. */
int kcal_tune_vmeasure(kcal_bench_job *job, kcal_tune_vset *v,
                       const kcal_vcounts *dists, int ndists, long iters,
                       long warmup, int quiet);

/* The calls one distribution's run makes (kcal-vcoll-bench's rows: mpi,
 * every row, auto and limit, each size, warmup + iters times): the
 * progress's unit, as kcal-bench-mpi's calls are the others'. */
double kcal_tune_vrun_calls(const kcal_tune_vset *v, long iters,
                            long warmup);

/* The measurements v keeps: mpi and every row, at every size, under
 * every distribution. */
size_t kcal_tune_vmeasurements(const kcal_tune_vset *v);

/* On stderr: each candidate's score (its worst slowdown over the
 * distributions) per size, and the crossover and row chosen from them. */
void kcal_tune_vsay(const kcal_tune_vset *v, const char *dists);

#endif
