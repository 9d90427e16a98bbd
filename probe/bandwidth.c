/* bandwidth: cache-cold or cache-hot T4(N) sweep (see bandwidth.h). */
#include "probe/bandwidth.h"

kcal_cold_cache kcal_bandwidth_cold_cache(const kcal_topo_info *ti)
{
    return (kcal_cold_cache){ti->llc, "the last-level cache hwloc reports"};
}

kcal_cold_cache kcal_bandwidth_cold_cache_knee(const kcal_topo_info *ti,
                                               double knee)
{
    if (knee > 0 && knee < 1e15)
        return (kcal_cold_cache){(unsigned long)knee,
                                 "the cache knee the probe measured"};
    return kcal_bandwidth_cold_cache(ti);
}

size_t kcal_bandwidth_pool_bytes(unsigned long cache_bytes, int *capped)
{
    const size_t unit = 4u << 20;
    size_t want = 2 * (size_t)cache_bytes;
    if (want < 2 * unit)
        want = 2 * unit;
    want = (want + unit - 1) / unit * unit;
    if (capped)
        *capped = want > KCAL_BANDWIDTH_POOL_MAX;
    return want > KCAL_BANDWIDTH_POOL_MAX ? KCAL_BANDWIDTH_POOL_MAX : want;
}

int kcal_bandwidth_sweep_init(kcal_sweep *w, kcal_cma_setup *s,
                              const long *pages, size_t n, int cold,
                              char *err, size_t errlen)
{
    return kcal_sweep_init(w, s, KCAL_CALL_COPY, cold, KCAL_PHASE_COPY,
                           cold ? KCAL_PATTERN_COLD : KCAL_PATTERN_HOT, pages,
                           n, err, errlen);
}
