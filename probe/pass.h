/* pass: what it costs to pass a chunk from one core to another through
 * shared memory, the way libkcoll's copy_in_out algorithms pass theirs
 * (algos/staging.c), beyond the two copies themselves.
 *
 * A peer process, forked and bound to another core than the probe's,
 * copies a stream of m chunks of c bytes from its own buffer into the
 * slots of a shared area (KCAL_STAGING_SLOTS slots, as libkcoll's), raising
 * a progress word after each; the probe waits for each chunk and copies it
 * out into its own buffer, acknowledging each. One sample is one stream,
 * from the peer's start (its CLOCK_MONOTONIC, which every core shares) to
 * the probe's last copy out: every chunk's copy in, the hand-off, and its
 * copy out. The control is the same 2·m copies on the probe's core alone,
 * through a private area. Their difference is what the model's β terms do
 * not see: the cores fetching lines the other just wrote (the copy out)
 * or still holds (the copy in overwrites slots the probe read), and the
 * wait for the progress word.
 *
 * Why its own measurement: the probe's dirty phase (dirty.h) reads lines
 * once, with process_vm_readv, after a round trip; copy_in_out moves every
 * chunk both ways. On the 2-core Xeon KVM guest a 16 KiB round took about
 * 4.3 µs against 0.25 µs on one core (scripts/bench-coherence), where
 * dirty_beta charged 1.1 µs, and the model put copy_in_out first for
 * gather at 4-32 KiB where it measured 1.5-2x slower than
 * parallel_write_flags.
 *
 * The cost changes with where a shared host runs the two vCPUs: on the
 * Xeon guest one probe saw 3.8 µs at 16 KiB, one seven minutes later
 * 0.1 µs (both vCPUs on one physical core, it seems), and the benchmark
 * right after it 3-4 µs again. So the probe measures the pass in
 * KCAL_PASS_SLICES slices spread over its run, and the fit keeps, per
 * point, the second dearest slice's: a model that prices copy_in_out in its
 * cheap state picks it where it then runs 1.3-1.5x slower than a CMA row
 * (scatter and gather at 64-128 KiB in that benchmark). How far the
 * slices lay apart is a key of its own (pass_spread): kcal tune measures
 * what the model cannot rule out within it.
 *
 * Raw samples (raw.h): phase KCAL_PHASE_PASS, pattern KCAL_PATTERN_CROSS
 * (the two cores) or KCAL_PATTERN_LOCAL (the control), readers = m (chunks
 * in the stream), bytes = c, pages = the slice, seconds per stream. */
#ifndef KCAL_PASS_H
#define KCAL_PASS_H

#include <stddef.h>

#include "probe/phases.h"
#include "fit/raw.h"
#include "probe/topo.h"

/* The stream lengths measured: one chunk (the hand-off alone) and a
 * pipeline of KCAL_PASS_STREAM (the cost of each further chunk). */
#define KCAL_PASS_STREAM 8

/* The moments of the probe the pass is measured at (probe_cmd.c). */
#define KCAL_PASS_SLICES 5

/* Chunk sizes c (1 KiB .. KCAL_STAGING_CHUNK, every doubling; every other
 * with quick) into out; how many. */
size_t kcal_pass_size_list(int quick, long *out, size_t max);

typedef struct {
    kcal_topo *topo; /* NULL: no binding */
    int peer_core;   /* another core than the one the probe runs on */
    const long *sizes;
    size_t n_sizes;
    int passes; /* samples per point, one per pass over the points */
    int slice;  /* which of the KCAL_PASS_SLICES this is (raw `pages`) */
    kcal_meter *meter;
    long retaken; /* out: samples taken again (the probe was preempted) */
} kcal_pass_setup;

/* Work units one kcal_pass_measure ticks (for the progress meter). */
double kcal_pass_work(const kcal_pass_setup *s);

/* Measure: per pass, at each c one stream of 1 chunk, and at the largest
 * c one of KCAL_PASS_STREAM, each across the cores and locally. 0, or -1
 * with a message in err; the peer is gone either way. */
int kcal_pass_measure(kcal_pass_setup *s, kcal_raw *raw, char *err,
                      size_t errlen);

#endif
