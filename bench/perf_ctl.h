/* perf_ctl: switch a `perf record --control fifo:CTL,ACK -D -1` session on
 * and off around the part of a run worth profiling.
 *
 * scripts/profile-collective starts perf with its events disabled and
 * names the two fifos in KCAL_PERF_CTL and KCAL_PERF_ACK; kcal-bench-mpi
 * --loop then enables the events just before its timed loop and disables
 * them just after, so MPI_Init, the buffers' first touch and the warm-up
 * calls stay out of the profile. Without the variables nothing happens. */
#ifndef KCAL_PERF_CTL_H
#define KCAL_PERF_CTL_H

/* Sends cmd ("enable" or "disable") to perf and waits for its "ack".
 * 0 when done or when no perf session is named; -1 with a message in err
 * when the fifos named cannot be used. */
int kcal_perf_ctl(const char *cmd, char *err, int errlen);

#endif
