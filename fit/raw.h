/* raw: the raw timing samples of `kcal probe`, and their CSV file.
 *
 * Owns the sample store and the raw CSV format that `kcal probe --raw` writes
 * and `kcal fit` reads. Columns (exactly, in this order):
 *   phase,pattern,readers,pages,bytes,rep,seconds
 * preceded by `# meta KEY VALUE` lines that carry the probe's metadata (cpu,
 * kernel, page size, ...) so a re-fit writes the same params file. Seconds
 * are written with 17 significant digits: a write-read round trip is exact.
 *
 * The phase and pattern names below are the contract between the writer
 * (kcal probe) and the readers (calibrate, kcal fit): both use the
 * KCAL_PHASE_* and KCAL_PATTERN_* names, never the bare strings.
 * For the sweeps (syscall, startup, lock, copy) `rep` is the pass, so it
 * orders the samples in time (the fit's batch means use that).
 * Library code: returns error codes, never prints. */
#ifndef KCAL_RAW_H
#define KCAL_RAW_H

#include <stddef.h>
#include <stdio.h>

#define KCAL_RAW_HEADER "phase,pattern,readers,pages,bytes,rep,seconds"

/* Phases (model.md, "Probing on a current Linux kernel") and their
 * patterns. */
#define KCAL_PHASE_SYSCALL "syscall" /* T1: liovcnt = riovcnt = 0 */
#define KCAL_PHASE_STARTUP "startup" /* T2: 1 byte local, 1 byte remote */
#define KCAL_PATTERN_NONE "-"        /* the pattern of T1 and T2 */
/* T3(N): 1 byte local, N pages remote; the pattern says which call: */
#define KCAL_PHASE_LOCK "lock"
#define KCAL_PATTERN_ONE_BYTE_LOCAL "one_byte_local" /* a current kernel's */
#define KCAL_PATTERN_LIOVCNT_ZERO "liovcnt_zero"     /* the paper's fallback */
/* T4(N): N pages local and remote, out of cache or in it. */
#define KCAL_PHASE_COPY "copy"
#define KCAL_PATTERN_COLD "cold"
#define KCAL_PATTERN_HOT "hot"
/* T3(N) with `readers` concurrent readers, one row per reader and
 * repetition: on distinct pages of one target (the paper's one-to-all, the
 * one γ is fitted on), the same pages, or each reader its own target. */
#define KCAL_PHASE_CONTENTION "contention"
#define KCAL_PATTERN_DISTINCT "distinct"
#define KCAL_PATTERN_SAME "same"
#define KCAL_PATTERN_OWN "own"
/* 8-byte MPI collectives among `readers` ranks, never more than the cores:
 * phase KCAL_PHASE_SM_PREFIX + the op (kcal_sm_name: sm_bcast, sm_gather,
 * sm_allgather, sm_barrier), and sm_step, half an 8-byte ping-pong. */
/* The cache knee (issue 9): copies rotating over a working set of W bytes
 * (W/2 read, W/2 written), W from 64 KiB up to 4x the last-level cache
 * (capped). `pages` holds W in pages (the point), `bytes` the bytes of one
 * call; pattern memcpy is a plain memcpy inside the probe, cma a
 * process_vm_readv from the target. */
#define KCAL_PHASE_WS "ws"
#define KCAL_PATTERN_MEMCPY "memcpy"
#define KCAL_PATTERN_CMA "cma"
/* Concurrent copies (issue 9): `readers` processes copy N pages each at
 * once (process_vm_readv, one row per copier and repetition), in cache
 * (one region again and again) or out of it (rotating over large
 * buffers): distinct_* and same_* read distinct or the same pages of one
 * target process; own_* each copier its own target process, as the
 * collectives' concurrent copies do (conc_hot and conc_cold come from
 * these; the one-target patterns also contend on that process's page
 * tables, γ(c)'s cost). Raw files before own_* fit from distinct_*. */
#define KCAL_PHASE_CONCURRENT "concurrent"
#define KCAL_PATTERN_DISTINCT_HOT "distinct_hot"
#define KCAL_PATTERN_DISTINCT_COLD "distinct_cold"
#define KCAL_PATTERN_SAME_HOT "same_hot"
#define KCAL_PATTERN_SAME_COLD "same_cold"
#define KCAL_PATTERN_OWN_HOT "own_hot"
#define KCAL_PATTERN_OWN_COLD "own_cold"
/* Mutual calls (issue 8; probe/mutual.h): `readers` processes make
 * 1-page process_vm_readv calls at once, each reading its own passive
 * target (pattern own, the same as KCAL_PATTERN_OWN) or the next of them,
 * which is reading meanwhile (pattern mutual); seconds per call, one row
 * per reader and repetition, c >= 2. cma_mutual comes from these. */
#define KCAL_PHASE_MUTUAL "mutual"
#define KCAL_PATTERN_MUTUAL "mutual"
/* Writes (issue 9): T2, T3(N) and T4(N) with process_vm_writev, the remote
 * side written; the patterns are those of startup, lock and copy. */
#define KCAL_PHASE_STARTUP_WRITE "startup_write"
#define KCAL_PHASE_LOCK_WRITE "lock_write"
#define KCAL_PHASE_COPY_WRITE "copy_write"
/* Lines another core just wrote (issue 9; probe/dirty.h): one
 * process_vm_readv of `bytes` = N bytes (`pages` = N / page) from the
 * target, right after the target rewrote the range (pattern dirty: the
 * lines modified in its core's cache) or after it wrote nothing and the
 * reader read the range once untimed (pattern clean); `rep` the pass. */
#define KCAL_PHASE_DIRTY "dirty"
#define KCAL_PATTERN_CLEAN "clean"
#define KCAL_PATTERN_DIRTY "dirty"
/* A chunk passed between cores through shared memory (probe/pass.h): one
 * stream of `readers` = m chunks of `bytes` = c bytes each, copied in by
 * a process on another core and out by the probe (pattern cross), or both
 * copies on the probe's core alone (pattern local); `pages` the slice
 * (the moment of the probe it was measured at, 0, 1, ...), seconds per
 * stream, `rep` the pass within the slice. */
#define KCAL_PHASE_PASS "pass"
#define KCAL_PATTERN_CROSS "cross"
#define KCAL_PATTERN_LOCAL "local"
/* The reductions' op (probe/reduce.h): one MPI_Reduce_local(in, inout,
 * bytes / 8, MPI_DOUBLE, MPI_SUM) in kcal-sm-bench's rank 0, seconds per
 * call, readers 1, pages 0, `bytes` the bytes of one vector, `rep` the
 * pass; pattern hot (in and inout together within half of L2, the call
 * repeated on them) or cold (twice the last-level cache). reduce_beta
 * comes from the hot ones. A pair of model/reduce_rates.def, timed in
 * cache as hot on its class's type with its op, has its member name as
 * the pattern (max_int, minloc_pair): reduce_<op>_<class>_beta; timed
 * out of cache, that name and KCAL_PATTERN_COLD_SUFFIX (max_int_cold):
 * reduce_<op>_<class>_beta_cold. */
#define KCAL_PHASE_REDUCE "reduce"
#define KCAL_PATTERN_COLD_SUFFIX "_" KCAL_PATTERN_COLD
#define KCAL_PHASE_SM_PREFIX "sm_"
#define KCAL_PHASE_SM_STEP "sm_step"
/* sm_flag: half a ping-pong of flags in shared memory between ranks 0 and
 * 1 (libkcoll's control channel). mpi_<coll>: the MPI library's own
 * collective with `bytes` bytes among `readers` ranks, each call timed
 * alone (the slowest rank), the mean over a repetition's calls (pattern
 * mpi); kcoll_<coll>: the same for a libkcoll algorithm, the pattern being
 * the algorithm as libkcoll takes it ("throttled_read:2"). */
#define KCAL_PHASE_SM_FLAG "sm_flag"
#define KCAL_PHASE_MPI_PREFIX "mpi_"
#define KCAL_PHASE_KCOLL_PREFIX "kcoll_"
#define KCAL_PATTERN_MPI "mpi"

typedef struct {
    char phase[32]; /* "kcoll_reduce_scatter_block" is 26 */
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

/* Set (add or replace) a metadata entry; 0, or -1 for a bad key (empty,
 * 64 bytes or more, a blank, ',', '"' or '#' in it), an empty value, a line
 * break in it or a CR at its end, or one longer than half a line of the
 * file. */
int kcal_raw_set_meta(kcal_raw *r, const char *key, const char *value);
const char *kcal_raw_get_meta(const kcal_raw *r, const char *key);

/* Write the CSV (meta lines, header, samples). 0 or -1 (errno). */
int kcal_raw_write(FILE *f, const kcal_raw *r);

/* Write to `path` through a temporary file and rename, so a failure leaves
 * no half-written file. 0 or -1 with a message in err. */
int kcal_raw_save(const char *path, const kcal_raw *r, char *err,
                  size_t errlen);

/* Limits of the reader: a line (newline excluded; the longest a probe
 * writes is a few hundred bytes), and a file (the largest a probe writes,
 * --max-readers 1024 without --quick, is about 200 MB). Input beyond them
 * is refused with one line instead of filling memory. */
#define KCAL_RAW_MAX_LINE 4096
#define KCAL_RAW_MAX_BYTES (512ull << 20)

/* Can kcal_raw_save write `path`? Creates and removes the temporary file
 * it would write (nothing is left behind), so a long measurement is not
 * lost to a bad path at the end. 0, or -1 with "PATH: why" in err. */
int kcal_raw_check_writable(const char *path, char *err, size_t errlen);

/* Read a raw CSV file. 0, or -1 with "FILE:LINE: what" in err (r empty).
 * Refused: a NUL byte, a line longer than KCAL_RAW_MAX_LINE, a file larger
 * than KCAL_RAW_MAX_BYTES, a meta line without a value. */
int kcal_raw_read(const char *path, kcal_raw *r, char *err, size_t errlen);

/* The same from len bytes in memory (not NUL-terminated); name stands for
 * the file in messages. No size limit: the caller holds the bytes. */
int kcal_raw_parse(const char *data, size_t len, const char *name,
                   kcal_raw *r, char *err, size_t errlen);

/* Samples of one point: every sample with this phase, pattern (NULL: any),
 * readers (0: any) and pages (-1: any). Returns the count; fills up to max
 * seconds into out (out may be NULL to count). */
size_t kcal_raw_select(const kcal_raw *r, const char *phase,
                       const char *pattern, int readers, long pages,
                       double *out, size_t max);

#endif
