/* stats: what libkcoll did with each process's calls, for KCOLL_STATS=1.
 *
 * Every public entry point (and the LD_PRELOAD interposer, and the
 * two-level path) adds one record per call: collective, the name of what
 * ran ("parallel_read", "throttled_read:4", "mpi" for the MPI library's own
 * collective, "two_level:<intra id>"), the bytes of the call's whole buffer
 * (p blocks of n, or bcast's n) and the wall time spent in it. At
 * MPI_Finalize, rank 0 of MPI_COMM_WORLD prints its table on stderr: the
 * calls that rank took part in (every collective's rows are the same on
 * every rank of its communicator; a sub-communicator without rank 0 is not
 * shown). Off (KCOLL_STATS unset, empty or "0"): one load and a branch. */
#ifndef KCOLL_STATS_H
#define KCOLL_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* Whether KCOLL_STATS is on (read once per process). */
int kcoll_stats_on(void);

/* Seconds on the clock the records use (MPI_Wtime). */
double kcoll_stats_now(void);

/* One call. name is copied (at most KCOLL_STATS_NAME - 1 bytes); k > 0 is
 * appended as ":k". Safe from any thread. Calls after the table is full
 * (KCOLL_STATS_ROWS distinct rows) are counted in one "other" row. */
#define KCOLL_STATS_NAME 64
#define KCOLL_STATS_ROWS 64
void kcoll_stats_add(kcal_coll coll, const char *name, int k, uint64_t bytes,
                     double seconds);
/* The same for a collective named by a static string (the v-collectives,
 * which are not kcal_coll). */
void kcoll_stats_add_named(const char *coll, const char *name, int k,
                           uint64_t bytes, double seconds);

/* One decision of the verified choice (verify.h): the class's first size,
 * the candidates with their agreed times (seconds) and what was kept. */
#define KCOLL_STATS_CANDIDATES 5
typedef struct {
    const char *coll; /* the collective's name (a v-collective's too) */
    int p, in_place, ncand, chosen;
    uint64_t n;
    const char *name[KCOLL_STATS_CANDIDATES]; /* registry ids, "mpi" */
    int k[KCOLL_STATS_CANDIDATES];
    double seconds[KCOLL_STATS_CANDIDATES];
    int cut[KCOLL_STATS_CANDIDATES]; /* measured by its first calls alone */
    double paced[KCOLL_STATS_CANDIDATES]; /* what it stands for in the
                                           * program's loop where it ran
                                           * decided, seconds (0) */
    char why[64]; /* "first", "kept", "switched", after "drift 1.4x, ",
                   * "periodic, " or "confirm, "; "duel, trial";
                   * "trial 1.5x, reverted" */
    double extra;  /* the exploration's cost beyond as many calls of the
                    * decision, seconds (the slowest rank's) */
    uint64_t next; /* calls to the next periodic exploration */
} kcoll_stats_decision;

/* Record one (the first KCOLL_STATS_DECISIONS; later ones are counted). */
#define KCOLL_STATS_DECISIONS 64
void kcoll_stats_add_decision(const kcoll_stats_decision *d);

/* The table as text ("collective algorithm calls bytes seconds" rows under
 * a header), then the decisions, for the finalize hook and the tests;
 * returns the length snprintf would have written. */
size_t kcoll_stats_format(char *buf, size_t len);

#endif
