/* quantile: the q-quantile of sorted numbers, linear between order
 * statistics; the one rule `kcal bench`'s quartiles and the report's
 * medians and noise floor share. */
#ifndef KCAL_QUANTILE_H
#define KCAL_QUANTILE_H

#include <stddef.h>

/* The q-quantile (0 <= q <= 1) of x[0..n-1], sorted ascending, n >= 1.
 * Where it falls half-way between two (the median of an even n) it is
 * their mean, computed as such. */
double kcal_quantile_sorted(const double *x, size_t n, double q);

#endif
