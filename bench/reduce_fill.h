/* reduce_fill: the send data of kcal-bench-mpi's reductions, per (type,
 * op), chosen so that every order of folding p processes' elements gives
 * the same bits: --check then compares libkcoll's result with the MPI
 * library's byte for byte, whatever order each reduces in. No MPI. */
#ifndef KCAL_REDUCE_FILL_H
#define KCAL_REDUCE_FILL_H

#include <stddef.h>

#include "bench/reduce_names.h"

/* n bytes (whole elements of t) of rank `rank` of p, pattern `seed`:
 *   sum   whole numbers in [0, B), B = min(2^20, the type's largest exact
 *         whole number / p): no overflow, saturation (Open MPI 4.1
 *         saturates MPI_SUM on MPI_UNSIGNED_CHAR) or rounding;
 *   prod  ±1 (1 unsigned), and 0 one time in 16, except one process per
 *         element (element i % p) with ±2 or ±3: the product stays within
 *         ±3;
 *   min, max  random bits (integers), whole numbers in ±2^20 (floating
 *         point: no NaN, whose comparisons depend on the order);
 *   band, bor, bxor  bits set with probability 7/8, 1/8 and 1/2, so that
 *         p = 8 keeps about a third of them set, or clear;
 *   land, lor, lxor  0 with probability 1/8, 7/8 and 1/2, else an odd
 *         (non-zero) number;
 *   minloc, maxloc  values in [−4, 4) (ties: the lowest index wins) with
 *         random indices.
 * Doubles summed are the whole numbers below 2^20 the benchmark has always
 * used, the same bits.
 *
 * t is a row of reduce_names.h or one of the two below: the probe's rates
 * (model/reduce_rates.def names a row per type class, probe/reduce.h)
 * fill MPI_Reduce_local's operands here too, so that the ops the MPI
 * library does not vectorise branch on the data kcal bench measures with.
 * reduce_types.def names no row for C's bool and double complex (kcal
 * bench does not take them), so their rules are derived here, once:
 *   bool            the value the rule gives, != 0 (land, lor,
 *                   lxor: false with the probabilities above);
 *   double_complex  two doubles, real then imaginary part, each the
 *                   value the rule gives the next double (prod's
 *                   process with ±2 or ±3: part i % p). */
void kcal_reduce_fill(unsigned char *b, size_t n, const kcal_reduce_type *t,
                      const kcal_reduce_op *op, unsigned seed, int rank,
                      int p);

extern const kcal_reduce_type kcal_reduce_fill_bool;
extern const kcal_reduce_type kcal_reduce_fill_double_complex;

/* The row named name: reduce_names.h's, or "bool", "double_complex"
 * above; NULL if none. */
const kcal_reduce_type *kcal_reduce_fill_type(const char *name);

#endif
