/* raw: the raw timing samples of `kcal probe`, and their CSV file.
 *
 * Owns the sample store and the raw CSV format that `kcal probe --raw` writes
 * and `kcal fit` reads. Columns (exactly, in this order):
 *   phase,pattern,readers,pages,bytes,rep,seconds
 * preceded by `# meta KEY VALUE` lines that carry the probe's metadata (cpu,
 * kernel, page size, ...) so a re-fit writes the same params file. Seconds
 * are written with 17 significant digits: a write-read round trip is exact.
 *
 * Phases (model.md, "Probing on a current Linux kernel"):
 *   syscall   T1: liovcnt = riovcnt = 0             (pattern "-")
 *   startup   T2: 1 byte local, 1 byte remote       (pattern "-")
 *   lock      T3(N): 1 byte local, N pages remote   (pattern "one_byte_local"
 *             or "liovcnt_zero" when the probe fell back to the paper's call)
 *   copy      T4(N): N pages local and remote       (pattern "cold" or "hot")
 *   contention T3(N) with `readers` concurrent readers (pattern "distinct",
 *             "same" or "own"); one row per reader and repetition
 *   sm_bcast, sm_gather, sm_allgather, sm_barrier: 8-byte MPI collective among
 *             `readers` ranks, never more than the cores (pattern "mpi")
 * For the sweeps (syscall, startup, lock, copy) `rep` is the pass, so it
 * orders the samples in time (the fit's batch means use that).
 * Library code: returns error codes, never prints. */
#ifndef KCAL_RAW_H
#define KCAL_RAW_H

#include <stddef.h>
#include <stdio.h>

#define KCAL_RAW_HEADER "phase,pattern,readers,pages,bytes,rep,seconds"

typedef struct {
    char phase[24];
    char pattern[24];
    int readers;
    long pages;
    long bytes;
    int rep;
    double seconds;
} kcal_sample;

typedef struct {
    char *key;
    char *value;
} kcal_raw_meta;

typedef struct {
    kcal_sample *s;
    size_t n, cap;
    kcal_raw_meta *meta;
    size_t n_meta, cap_meta;
} kcal_raw;

void kcal_raw_init(kcal_raw *r);
void kcal_raw_free(kcal_raw *r);

/* Append one sample; 0 or -1 (out of memory, or a name too long). */
int kcal_raw_add(kcal_raw *r, const char *phase, const char *pattern,
                 int readers, long pages, long bytes, int rep, double seconds);

/* Set (add or replace) a metadata entry; 0 or -1. */
int kcal_raw_set_meta(kcal_raw *r, const char *key, const char *value);
const char *kcal_raw_get_meta(const kcal_raw *r, const char *key);

/* Write the CSV (meta lines, header, samples). 0 or -1 (errno). */
int kcal_raw_write(FILE *f, const kcal_raw *r);

/* Write to `path` through a temporary file and rename, so a failure leaves
 * no half-written file. 0 or -1 with a message in err. */
int kcal_raw_save(const char *path, const kcal_raw *r, char *err,
                  size_t errlen);

/* Read a raw CSV file. 0, or -1 with "FILE:LINE: what" in err (r empty). */
int kcal_raw_read(const char *path, kcal_raw *r, char *err, size_t errlen);

/* Samples of one point: every sample with this phase, pattern (NULL: any),
 * readers (0: any) and pages (-1: any). Returns the count; fills up to max
 * seconds into out (out may be NULL to count). */
size_t kcal_raw_select(const kcal_raw *r, const char *phase,
                       const char *pattern, int readers, long pages,
                       double *out, size_t max);

#endif
