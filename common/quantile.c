/* quantile: see quantile.h. */
#include "common/quantile.h"

double kcal_quantile_sorted(const double *x, size_t n, double q)
{
    double at = q * (double)(n - 1);
    size_t lo = (size_t)at;
    if (lo + 1 >= n)
        return x[n - 1];
    double f = at - (double)lo;
    /* (a + b) / 2, not a + (b - a) / 2: the median's last digit as the
     * report always printed it. */
    return f == 0.5 ? (x[lo] + x[lo + 1]) / 2 : x[lo] + f * (x[lo + 1] - x[lo]);
}
