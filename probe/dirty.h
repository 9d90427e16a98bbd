/* dirty: reading lines another core just wrote (issue 9; docs/probe.md
 * "Lines another core just wrote").
 *
 * Several algorithms read, in one step, data another process wrote a
 * moment before in the same call: allgather's ring_neighbor reads the
 * block its neighbour has just copied into its result buffer,
 * recursive_doubling and bruck read what the partner received in the
 * previous round, knomial's levels below the first read what the level
 * above delivered. Those lines sit modified in the writer core's private
 * cache, and a process_vm_readv of them from another core is slower than
 * a read of clean lines: each line has to come out of the other core's
 * cache. β, β(W) and the other copy phases read clean lines only, so this
 * phase measures the difference.
 *
 * For each size N (16 KiB doubling up to 8 MiB), per pass, two samples of
 * one timed process_vm_readv of N bytes from the target into the reader's
 * buffer, both right after a round trip to the target over its pipes
 * (each side polling, as MPI processes spin between steps: target.h):
 *   clean  the range read once untimed (the reader's destination warm),
 *          then a round trip in which the target writes nothing, then
 *          the timed read;
 *   dirty  a round trip in which the target rewrites the range, then the
 *          timed read (the destination warm from the clean sample).
 * Raw phase "dirty", patterns "clean" and "dirty", one row per sample
 * (rep = the pass); a sample during which the reader was preempted is
 * taken again. The fit (calibrate.c) takes d(N) = T_dirty − T_clean =
 * e·min(N, C): dirty_beta = e, dirty_bytes = C.
 *
 * The target must run on another core than the reader (on one core the
 * "other core" is the reader's own: nothing to measure).
 * Library code: returns error codes, never prints. */
#ifndef KCAL_DIRTY_H
#define KCAL_DIRTY_H

#include <stddef.h>

#include "probe/phases.h"
#include "fit/raw.h"
#include "probe/target.h"

/* The sizes measured: 16 KiB doubling up to 8 MiB. */
#define KCAL_DIRTY_MIN_BYTES ((size_t)16 << 10)
#define KCAL_DIRTY_MAX_BYTES ((size_t)8 << 20)

/* The sizes N (bytes) from KCAL_DIRTY_MIN_BYTES up to max_bytes (at most
 * KCAL_DIRTY_MAX_BYTES), multiples of page: every doubling, or with
 * `quick` every other one (16K, 64K, 256K, ...). Returns the count
 * (<= max). */
size_t kcal_dirty_size_list(size_t page, size_t max_bytes, int quick,
                            long *out, size_t max);

typedef struct {
    kcal_target *target; /* bound to another core than the reader's */
    char *local;         /* the reader's destination, pre-faulted */
    size_t local_bytes;
    size_t page;
    const long *sizes; /* N in bytes; sizes beyond either buffer are skipped */
    size_t n_sizes;
    int passes; /* samples per point, one per pass over the sizes */
    kcal_meter *meter;
    long retaken; /* out: samples taken again (the reader was preempted) */
} kcal_dirty_setup;

/* Measure both patterns at every size. 0, or -1 with err. */
int kcal_dirty_measure(kcal_dirty_setup *s, kcal_raw *raw, char *err,
                       size_t errlen);

#endif
