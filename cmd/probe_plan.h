/* probe_plan: what `kcal probe` measures, how often and in what buffers,
 * from its options and the machine's topology (a --quick plan measures
 * fewer points, fewer times), and the `# meta` entries the raw file, and
 * so the params file, carries about the run. Command code, shared by
 * probe_cmd.c (options, main) and probe_run.c (the measuring). */
#ifndef KCAL_PROBE_PLAN_H
#define KCAL_PROBE_PLAN_H

#include <stddef.h>

#include "cmd/cli.h"
#include "fit/raw.h"
#include "probe/bandwidth.h"
#include "probe/reduce.h"
#include "probe/topo.h"

#define PROBE_CMD "probe"

/* kcal probe's options (probe_cmd.c parses them). */
typedef struct {
    int quick, hot, no_sm;
    int network, same_node; /* --network (network_cmd.c), --same-node */
    long max_readers; /* 0: the core count */
    const char *raw_path, *params_file;
    kcal_launch_opts launch; /* --mpi, --mpirun, -q */
} probe_options;

#define MAX_POINTS 64 /* page counts, reader counts, rank counts */

typedef struct {
    /* T1..T4 sweeps: one sample per point per pass */
    int passes, warmup, per_octave;
    double min_sample;
    long pages[MAX_POINTS]; /* the N of T3(N) and T4(N) */
    size_t n_pages;
    /* contention: c = 1..C readers of c_pages pages each */
    int max_readers; /* C */
    int c_reps, c_warmup, c_passes;
    long c_pages;
    long counts[MAX_POINTS];
    size_t n_counts;
    /* T_sm: p = 2..P ranks, P <= cores (none with --no-sm) */
    int sm_reps, sm_inner, sm_warmup;
    long ps[MAX_POINTS];
    size_t n_ps;
    /* buffers (bytes): the target's (C·N contention pages, and at least
     * the cold rotation pool), and ours (the pool, or one batch of 1024
     * pages with --hot); the pool outgrows cold_cache unless capped */
    kcal_cold_cache cold_cache;
    int pool_capped;
    size_t pool_bytes, target_bytes, local_bytes;
    /* progress, in units of one sample of one sweep point */
    double sweep_units, sm_units; /* sm_units: per mpirun launch */
    /* issue 9: the working sets of the cache knee (pages), its passes; the
     * concurrent copies (counts as for contention; cc_pages per call, each
     * copier's cold rotation span, in the main target and in its own); the
     * writes' page counts (T3 and T4 with process_vm_writev) */
    size_t ws_max;
    long ws[MAX_POINTS];
    size_t n_ws;
    int ws_passes;
    int cc_reps, cc_warmup, cc_passes;
    long cc_pages;
    size_t cc_span;
    /* issue 8, mutual calls: the c >= 2 of counts, reps and passes */
    long mu_counts[MAX_POINTS];
    size_t n_mu_counts;
    int mu_reps, mu_passes;
    /* one target per reader/copier (contention's and the concurrent
     * copies' own patterns): C·N contention pages, and a cold span each */
    size_t own_bytes;
    long w_pages[MAX_POINTS];
    size_t n_w_pages;
    /* lines another core just wrote (dirty.h): the sizes N (bytes; none on
     * one core), samples per point */
    long d_sizes[MAX_POINTS];
    size_t n_d_sizes;
    int d_passes;
    /* chunks passed between cores (pass.h): the chunk sizes (none on one
     * core), samples per point */
    long pass_sizes[MAX_POINTS];
    size_t n_pass_sizes;
    int pass_passes;
    /* the reductions' op (reduce.h), timed in the first T_sm launch; none
     * without one */
    kcal_reduce_plan reduce;
} probe_plan;

/* The plan for these options on this machine (page: bytes per page). */
void probe_plan_make(probe_plan *pl, const probe_options *o,
                     const kcal_topo_info *ti, long page);

/* The raw file's `# meta` entries: the machine, the run, the page size,
 * the caches, max_readers. */
void probe_set_meta(kcal_raw *raw, const kcal_topo_info *ti,
                    const probe_options *o, long page, int max_readers);

#endif
