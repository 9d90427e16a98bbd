/* bandwidth: T4(N), the full copy of N pages, from which the fit takes β
 * (slope of T4 − T3 over N·s, model.md).
 *
 * Where the data sits decides β: a copy out of DRAM is several times slower
 * than one out of cache. Cold (the default) rotates every call to the next
 * region of remote and local buffers that are each larger than the
 * last-level cache (up to a cap, below), so no copy finds its data cached;
 * hot copies the same region again and again (in cache after the warm-up). The
 * samples carry pattern "cold" or "hot", the params key `beta_cache` which.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_BANDWIDTH_H
#define KCAL_BANDWIDTH_H

#include "probe/phases.h"
#include "probe/topo.h"

/* The cache the cold rotation buffers must outgrow, and who says how large
 * it is. Today the last-level cache hwloc reports; a measured cache knee
 * (T4 per byte against the buffer size) is meant to replace it here, with
 * its own source, and the sizing below stays as it is. */
typedef struct {
    unsigned long bytes;
    const char *source; /* for messages: "the last-level cache hwloc ..." */
} kcal_cold_cache;

kcal_cold_cache kcal_bandwidth_cold_cache(const kcal_topo_info *ti);

/* The same once the probe measured the cache knee (knee.h; bytes, <= 0:
 * not measured): the knee, else hwloc's last-level cache. */
kcal_cold_cache kcal_bandwidth_cold_cache_knee(const kcal_topo_info *ti,
                                               double knee);

/* The cap on each rotation buffer. hwloc reports what CPUID or the
 * hypervisor says, and a VM may be told the host's whole L3 (260 MiB and
 * 508 MiB seen): twice that is a gigabyte per buffer, two buffers (ours
 * and the target's), faulted in page by page before the first sample -
 * 8 s of system time on such a VM, and gigabytes a small VM may not have.
 * 256 MiB outgrows any cache of up to 128 MiB twice over (the per-socket
 * or per-die LLC of current server parts); on a machine whose cache
 * really is larger, cold copies partly hit it and β reads low, which the
 * probe says when it caps (the measured cache knee will settle it). */
#define KCAL_BANDWIDTH_POOL_MAX ((size_t)256 << 20)

/* Bytes of each rotation buffer to outgrow a cache of cache_bytes: twice
 * it, at least 8 MiB, a multiple of 4 MiB (1024 pages), at most
 * KCAL_BANDWIDTH_POOL_MAX. *capped (may be NULL) is set when the cap
 * applied. */
size_t kcal_bandwidth_pool_bytes(unsigned long cache_bytes, int *capped);

/* The T4(N) sweep (phase copy, pattern cold or hot), calibrated; run it
 * with kcal_sweep_pass. 0, or -1 with err. */
int kcal_bandwidth_sweep_init(kcal_sweep *w, kcal_cma_setup *s,
                              const long *pages, size_t n, int cold,
                              char *err, size_t errlen);

#endif
