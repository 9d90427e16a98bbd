/* report_input: what a report is written from — the joined numbers of one
 * `kcal report` run (join.h), the params the predictions used, the machine
 * the times were measured on and the plots drawn. Filled by report_cmd.c,
 * read by the analysis (analysis.h), the model comparison (compare.h) and
 * the document (report_doc.h); none of them owns or frees any of it. */
#ifndef KCAL_REPORT_INPUT_H
#define KCAL_REPORT_INPUT_H

#include <stddef.h>

#include "reports/join.h"
#include "reports/machine.h"
#include "reports/noise.h"
#include "model/params.h"

typedef struct {
    char coll[48]; /* a collective, or a v-collective's label
                    * (common/vcounts.h: KCAL_VCOUNTS_LABEL_LEN) */
    int p;
    int oversubscribed;
    char png[128]; /* file name inside the output directory */
} kcal_report_plot;

typedef struct {
    const kcal_join_table *table;
    const kcal_join_summary *summary;
    long n_summary;
    const kcal_join_rank *ranking;
    long n_ranking;
    const kcal_params *params;
    const kcal_machine *machine;
    const kcal_report_plot *times; /* one per (collective, p) */
    size_t n_times;
    const kcal_report_plot *speedup; /* one per p (coll unused) */
    size_t n_speedup;
    const char *generated; /* date and command line, for the header */
    /* The full model (--model full) joined with the same measurements, or
     * NULL/0 when the report compares the paper model only. */
    const kcal_join_table *full_table;
    const kcal_join_summary *full_summary;
    long n_full_summary;
    const kcal_join_rank *full_ranking;
    long n_full_ranking;
    /* The MPI library `mpi` was measured with ("MPICH 4.0.2 (ch4:ucx)",
     * kcal report --mpi-library), or NULL when not given. */
    const char *mpi_library;
    /* The second launch of kcal bench over (some of) the same points
     * (kcal report --measured-again), or NULL; the floor is computed from
     * it (all NAN without it). */
    const kcal_join_table *again;
    const kcal_noise_floor *noise;
} kcal_report_input;

#endif
