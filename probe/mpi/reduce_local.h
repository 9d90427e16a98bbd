/* reduce_local: kcal-sm-bench's timing of the reductions' op,
 * MPI_Reduce_local(in, inout, count, MPI_DOUBLE, MPI_SUM), for the probe's
 * reduce phase (probe/reduce.h says what it measures and why, and owns the
 * argument and line formats). Runs in one rank, after MPI_Init. */
#ifndef KCAL_REDUCE_LOCAL_H
#define KCAL_REDUCE_LOCAL_H

#include <stdio.h>

/* argv[0] is KCAL_REDUCE_ARG, then PASSES MIN_SAMPLE PATTERN:BYTES ...
 * (argc of them). Prints one KCAL_REDUCE_LINE line per sample to out.
 * 0; -1 with a message in err for bad arguments, out of memory or a
 * failed call. */
int kcal_reduce_local_run(int argc, char **argv, FILE *out, char *err,
                          size_t errlen);

#endif
