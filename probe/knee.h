/* knee: the copy rate against the working set, for the cache knee and the
 * full model's β(working set) (issue 9; docs/probe.md "The cache knee").
 *
 * hwloc reports what the CPU or the hypervisor says the last-level cache
 * is, and a VM may be told the host's whole L3 (260 MiB, 508 MiB seen) while
 * its own share is a fraction of that: only a measurement finds where
 * copies leave the cache. For each working set W = 64 KiB, 128 KiB, ... the
 * probe copies chunks rotating over W/2 bytes of source and W/2 bytes of
 * destination, so once warm every copy finds in cache what W lets stay
 * there. Two patterns (raw phase "ws"): memcpy inside the probe (no system
 * call in the way: the knee is taken from it, before the cold buffers are
 * sized) and process_vm_readv from the target (the model's β(W), with the
 * start-up and pinning of each call taken off by the fit).
 * Library code: returns error codes, never prints. */
#ifndef KCAL_KNEE_H
#define KCAL_KNEE_H

#include <stddef.h>

#include "probe/phases.h"
#include "fit/raw.h"

/* The smallest working set measured. */
#define KCAL_KNEE_MIN_BYTES ((size_t)64 << 10)
/* Pages of one copy at most (a CMA call pins one batch of up to 1024). */
#define KCAL_KNEE_CHUNK_PAGES 256

/* The working sets W = 64 KiB · 2^i up to max_bytes, in pages (W / page).
 * Returns the count (<= max). */
size_t kcal_knee_ws_list(size_t page, size_t max_bytes, long *out, size_t max);

/* The largest working set to measure: 4 times the cache hwloc reports, at
 * least 16 MiB, at most cap_bytes. */
size_t kcal_knee_max_bytes(unsigned long llc_bytes, size_t cap_bytes);

typedef struct {
    kcal_cma_setup *cs; /* the target and our buffer; cs->remote_bytes and
                         * cs->local_bytes bound W: W/2 of each for cma,
                         * W of ours for memcpy */
    const long *ws_pages;
    size_t n_ws;
    int passes;     /* samples per point, one per pass */
    int first_pass; /* the raw rep of the first (a slice's offset) */
} kcal_knee_setup;

/* The moments of the probe the working sets are measured at
 * (probe_cmd.c), each with a share of the passes. Measured point by point,
 * a point's samples in one slice are a fraction of a second apart: on the
 * Xeon KVM guest one probe's 64 KiB-1 MiB points all read 1.7x slower
 * (β_ws 4.8e-11 against 2.7-2.9e-11 s/B in the probes before and after)
 * and the full model's median error over the next benchmark was 41 %
 * instead of 16 %. Spread over the run, a point's median needs the machine
 * slow in two slices of three to move. */
#define KCAL_KNEE_SLICES 3

/* Measure every working set of both patterns. One sample per point per
 * pass (raw rep first_pass + pass); a sample during which the probe was
 * preempted is taken again. 0, or -1 with err. */
int kcal_knee_measure(const kcal_knee_setup *k, kcal_raw *raw, char *err,
                      size_t errlen);

#endif
