/* sm: T_sm_X(p), the small-message shared-memory collectives of the model
 * (X = bcast, gather, allgather, barrier), measured with real MPI: the MPI
 * library's launcher starts the helper kcal-sm-bench (probe/mpi/sm_bench.c,
 * of that library's build) at each p. The launcher is the library's
 * (common/mpi_flavor.h: mpirun.openmpi, mpiexec.mpich) unless the caller
 * gives another (--mpirun CMD or $KCAL_MPIRUN; it may carry arguments,
 * split at blanks). Launching (the root variables Open MPI wants, the
 * process group, the timeout, ending the job) is common/launch.h's, as for
 * kcal bench.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_SM_H
#define KCAL_SM_H

#include <stddef.h>

#include "common/mpi_flavor.h"
#include "probe/phases.h"
#include "fit/raw.h"

typedef struct {
    const char *mpirun; /* NULL: the flavor's launcher */
    const kcal_mpi_flavor *mpi; /* the MPI library; NULL: Open MPI */
    const char *helper; /* path of kcal-sm-bench */
    const long *ps;     /* the p to measure (each >= 2) */
    size_t n_ps;
    int reps, inner, warmup;
    double timeout;     /* seconds per mpirun launch */
    kcal_meter *meter;
    double tick_units;  /* progress units per launch */
    /* The reductions' op (reduce.h), timed in the first launch: the
     * helper's extra arguments (NULL-terminated), NULL for none. */
    char *const *first_args;
} kcal_sm_setup;

/* Find kcal-sm-bench of flavor mpi's build: $KCAL_SM_BENCH, else next to
 * the running kcal (its directory, its build/ subdirectory, or its parent
 * for build/asan/kcal; build-mpich/ for MPICH: kcal_mpi_flavor_program).
 * Returns buf, or NULL when none exists. */
const char *kcal_sm_find_helper(const kcal_mpi_flavor *mpi, char *buf,
                                size_t len);

/* Run every p of ps; add phases sm_<X> (pattern "mpi", readers = p) to raw,
 * and the first launch's reduce samples (reduce.h) with first_args.
 * 0, or -1 with the reason in err; samples of the p that worked stay. */
int kcal_sm_measure(const kcal_sm_setup *s, kcal_raw *raw, char *err,
                    size_t errlen);

#endif
