/* reduce: ρ, the time per byte of the reductions' op (model.md
 * "Reductions": R(b) = b·ρ, the key reduce_beta), timed as libkcoll
 * applies it: MPI_Reduce_local(in, inout, count, MPI_DOUBLE, MPI_SUM), the
 * call of its fold (algos/reduce_op.c), in the MPI library whose T_sm the
 * probe measures. MPI_Reduce_local needs MPI_Init, and kcal does not link
 * MPI: the MPI helper kcal-sm-bench times it (probe/mpi/reduce_local.c),
 * in rank 0 of its first launch (probe/sm.c) before the T_sm ops, and
 * prints one line per sample; this module plans the sizes, hands them to
 * the helper as arguments and turns its lines into raw samples.
 *
 * Why not a plain loop inout[i] += in[i] in kcal: the MPI library's op is
 * vectorised; on the 2-core EPYC (Zen 5) guest Open MPI's summed 50-75
 * GB/s in cache where the loop, compiled as kcal is (-O2), summed 14-20.
 *
 * Sizes (bytes of one vector):
 *   hot   4 KiB, 8 KiB, ... (every other doubling with --quick) up to
 *         where in and inout together fill half of L2, and at most
 *         KCAL_REDUCE_CHUNK (the most the fold reduces at once); each
 *         sample one untimed call, then the call repeated on the same
 *         buffers for at least min_sample: in cache, as the fold's op is
 *   cold  one size, in and inout each as large as the last-level cache
 *         hwloc reports (8..64 MiB, 32 with --quick: 15 calls over 64
 *         MiB took 1.1 s on the loaded EPYC guest): the rate out of
 *         cache, the key reduce_beta_cold (fit/calibrate_reduce.c)
 *   rates every (op, type class) pair of model/reduce_rates.def (the
 *         keys reduce_<op>_<class>_beta; (sum, floating) is hot's
 *         reduce_beta): MPI_Reduce_local(op) on the class's type, both
 *         operands filled before every call, untimed, as kcal bench
 *         fills ranks 0 and 1 of 2 for the op (bench/reduce_fill.h, on
 *         the class's `fill` row of the .def), a new pattern each call,
 *         each call timed alone and the sample's summed: Open MPI does
 *         not vectorise the logical ops and MINLOC/MAXLOC, and their
 *         branches follow the data (on the Zen 3 guest MPI_LAND on ints
 *         0.154 ns/B on zeros, 0.280 on kcal bench's data; MPI_MINLOC on
 *         MPI_2INT 0.138 and 0.472: the model was 40 % and 62-65 % off
 *         kcal bench), and the branch predictor learns data it has seen
 *         (the same operands every call: land 0.17-0.29, minloc
 *         0.15-0.27, where new ones gave 0.40 and 0.63; repeated
 *         products also grow to inf). A pair's sample lasts min_sample
 *         with its fills. In cache as hot, at 4 of the hot sizes spread over
 *         their range (3 with --quick): the smallest, the largest and
 *         between: enough to tell the slope from the call's own cost.
 *         23 pairs x 4 sizes x 40 passes of 0.5 ms samples added 1.8 s
 *         to the helper's reduce part on the 2-core EPYC (Zen 3) guest,
 *         x 3 x 15 x 0.2 ms 0.5 s with --quick (filling the operands
 *         and the untimed call take the rest)
 *   rates out of cache: every pair again at one size,
 *         KCAL_REDUCE_RATE_COLD (1 MiB, beyond one core's L2 on the
 *         machines so far), the keys reduce_<op>_<class>_beta_cold: the
 *         fill leaves the operands in cache, so before each call the
 *         helper reads over cold's two vectors (2 x the last-level
 *         cache), and the call finds its operands in memory. One call
 *         per sample, in every KCAL_REDUCE_RATE_COLD_EVERY-th pass
 *         (_QUICK with --quick): 5 samples a pair (3), 7-11 ms each
 *         with the fill and the eviction: 1.0-1.3 s more in the helper's
 *         reduce part (0.5 s with --quick), on the Zen 5 guest
 * in passes over the sizes (rep = the pass), every pair in the same
 * passes, so a slow stretch of a shared host falls on every size and
 * pair alike; a sample during which the rank was preempted is taken
 * again (up to 4 times).
 *
 * Raw samples (raw.h): phase KCAL_PHASE_REDUCE, pattern KCAL_PATTERN_HOT,
 * KCAL_PATTERN_COLD, a pair's member name (max_int, minloc_pair: the
 * REDOP family of model/keys.def) or, out of cache, that name and
 * KCAL_PATTERN_COLD_SUFFIX (max_int_cold), readers 1, pages 0, bytes the
 * vector's, seconds per call. One phase for all: the columns mean the
 * same, and the pairs' passes are hot's (the fit's batch means count
 * them over the phase).
 * Library code: returns error codes, never prints. */
#ifndef KCAL_REDUCE_H
#define KCAL_REDUCE_H

#include <stddef.h>

#include "fit/raw.h"
#include "model/keys.h"

/* The helper's arguments after REPS INNER WARMUP:
 *   reduce PASSES MIN_SAMPLE PATTERN[,PATTERN...]:BYTES[,BYTES...][@EVERY] ...
 * each argument every pattern at every size (the pairs come as one
 * argument, their cold samples as another: cmd/probe_run.c has room for
 * KCAL_REDUCE_MAX_SIZES + 7), in every pass, or with @EVERY in passes 0,
 * EVERY, 2·EVERY, ...; a pattern hot, cold, a pair's member name or that
 * name out of cache (max_int_cold: needs cold's vectors, which evict it);
 * and the line it prints per sample:
 *   kcal-reduce PATTERN BYTES REP SECONDS */
#define KCAL_REDUCE_ARG "reduce"
#define KCAL_REDUCE_LINE "kcal-reduce"

#define KCAL_REDUCE_MIN_BYTES 4096L
#define KCAL_REDUCE_COLD_MIN (8L << 20)
#define KCAL_REDUCE_COLD_MAX (64L << 20)
#define KCAL_REDUCE_COLD_QUICK (32L << 20) /* --quick's cap */
#define KCAL_REDUCE_MAX_SIZES 16
#define KCAL_REDUCE_RATE_SIZES 4        /* the pairs' sizes */
#define KCAL_REDUCE_RATE_SIZES_QUICK 3
#define KCAL_REDUCE_RATE_COLD (1L << 20)
#define KCAL_REDUCE_RATE_COLD_EVERY 8 /* of 40 passes: 5 samples */
#define KCAL_REDUCE_RATE_COLD_EVERY_QUICK 5 /* of 15: 3 */

typedef struct {
    long hot[KCAL_REDUCE_MAX_SIZES]; /* bytes per vector, ascending */
    size_t n_hot;
    long cold; /* bytes per vector */
    int passes;
    double min_sample; /* seconds, the least one hot sample lasts */
    unsigned char rate[KCAL_N_MEMBERS_REDOP]; /* 1: time pair i of
                                                 reduce_rates.def */
    long rate_bytes[KCAL_REDUCE_RATE_SIZES]; /* ascending, of hot's */
    size_t n_rate_bytes;
    long rate_cold;      /* bytes per vector out of cache; 0: none */
    int rate_cold_every; /* the passes that time them: every n-th */
} kcal_reduce_plan;

/* The plan for a machine whose L2 (one core's) and last-level cache are
 * l2 and llc bytes (0: unknown, then KCAL_REDUCE_CHUNK and the smallest
 * cold size); every pair of reduce_rates.def. */
void kcal_reduce_plan_make(kcal_reduce_plan *p, unsigned long l2,
                           unsigned long llc, int quick, double min_sample);

/* The helper's arguments for plan p: at most max - 1 pointers into argv
 * (NULL-terminated), their text in buf. Returns the count, or -1 when
 * max or len is too small. */
int kcal_reduce_args(const kcal_reduce_plan *p, char *buf, size_t len,
                     char **argv, int max);

/* The member name of pair i of reduce_rates.def ("max_int"), or NULL
 * when there is no pair i; and the pair of a name, or -1. */
const char *kcal_reduce_rate_name(int i);
int kcal_reduce_rate_index(const char *name);

/* The pair of a raw pattern: a member name (*cold 0) or that name and
 * KCAL_PATTERN_COLD_SUFFIX (*cold 1); -1 for any other. */
int kcal_reduce_rate_pattern(const char *pattern, int *cold);

/* One line of the helper's output: 1 (a sample, added to raw), 0 (not a
 * reduce line), -1 (a reduce line that does not parse, or out of
 * memory). */
int kcal_reduce_parse_line(const char *line, kcal_raw *raw);

#endif
