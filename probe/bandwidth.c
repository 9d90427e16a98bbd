/* bandwidth: cache-cold or cache-hot T4(N) sweep (see bandwidth.h). */
#include "bandwidth.h"


size_t kcal_bandwidth_pool_bytes(unsigned long llc)
{
    const size_t unit = 4u << 20;
    size_t want = 2 * (size_t)llc;
    if (want < 2 * unit)
        want = 2 * unit;
    return (want + unit - 1) / unit * unit;
}

int kcal_bandwidth_sweep_init(kcal_sweep *w, kcal_cma_setup *s,
                              const long *pages, size_t n, int cold,
                              char *err, size_t errlen)
{
    return kcal_sweep_init(w, s, KCAL_CALL_COPY, cold, KCAL_PHASE_COPY,
                           cold ? KCAL_PATTERN_COLD : KCAL_PATTERN_HOT, pages,
                           n, err, errlen);
}
