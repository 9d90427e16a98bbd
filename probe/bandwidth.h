/* bandwidth: T4(N), the full copy of N pages, from which the fit takes β
 * (slope of T4 − T3 over N·s, model.md).
 *
 * Where the data sits decides β: a copy out of DRAM is several times slower
 * than one out of cache. Cold (the default) rotates every call to the next
 * region of remote and local buffers that are each larger than the
 * last-level cache hwloc reports, so no copy finds its data cached; hot
 * copies the same region again and again (in cache after the warm-up). The
 * samples carry pattern "cold" or "hot", the params key `beta_cache` which.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_BANDWIDTH_H
#define KCAL_BANDWIDTH_H

#include "phases.h"

/* Bytes of each rotation buffer for a last-level cache of `llc` bytes:
 * twice the LLC, at least 8 MiB, a multiple of 4 MiB (1024 pages). */
size_t kcal_bandwidth_pool_bytes(unsigned long llc);

/* The T4(N) sweep (phase copy, pattern cold or hot), calibrated; run it
 * with kcal_sweep_pass. 0, or -1 with err. */
int kcal_bandwidth_sweep_init(kcal_sweep *w, kcal_cma_setup *s,
                              const long *pages, size_t n, int cold,
                              char *err, size_t errlen);

#endif
