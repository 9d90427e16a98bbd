/* capacity: what this machine lets a job use, so that kcal bench refuses a
 * run that cannot work (one line, exit 2) before it launches anything, and
 * kcal-bench-mpi checks the same again before it allocates:
 *   - the buffers of a collective at p ranks and n bytes, with the products
 *     p*n and p*per-rank checked for overflow (a wrapped size would time an
 *     empty buffer and report a bogus success);
 *   - the memory a job may use: physical RAM, or the memory cgroup's limit
 *     when lower (no swap counted: a benchmark that swaps times the disk);
 *   - how many ranks may start: each Open MPI 4.1 rank is 3 tasks (main
 *     thread and two progress threads) and mpirun a few more, so the tasks
 *     left under the user's process limit (RLIMIT_NPROC, which root is
 *     exempt from), the system's pid_max / threads-max and the cgroup's
 *     pids.max bound it; and KCAL_CAPACITY_OVERSUB ranks per core at most,
 *     since beyond that every barrier waits for scheduler time slices of
 *     busy-polling ranks: the run would time the scheduler, for hours.
 * It compiles into kcal and into kcal-bench-mpi. Library code: never prints. */
#ifndef KCAL_CAPACITY_H
#define KCAL_CAPACITY_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

#define KCAL_CAPACITY_OVERSUB 16        /* ranks per core */
#define KCAL_CAPACITY_TASKS_PER_RANK 3  /* threads of an Open MPI rank */
#define KCAL_CAPACITY_LAUNCH_TASKS 8    /* mpirun's threads and kcal's own */

/* The largest send and receive buffers one rank of `coll` uses at p ranks
 * and n bytes per block (scatter's root sends p*n, gather's root receives
 * p*n, allgather receives p*n, alltoall both; bcast has no send buffer).
 * 0, or -1 when p*n does not fit in size_t. */
int kcal_capacity_coll_buffers(kcal_coll coll, uint64_t p, uint64_t n,
                             uint64_t *send, uint64_t *recv);

/* What `ranks` ranks of kcal-bench-mpi allocate for one size: each the send
 * and receive buffers of a p-rank collective, and with check a reference
 * copy of the receive buffer. *per_rank and *total (ranks x per_rank);
 * 0, or -1 when any product or sum overflows 64 bits. */
int kcal_capacity_bench_bytes(kcal_coll coll, uint64_t p, uint64_t ranks,
                            uint64_t n, int check, uint64_t *per_rank,
                            uint64_t *total);

/* Bytes of memory a job may use here; 0 when unknown. */
uint64_t kcal_capacity_memory(void);

/* The most ranks a job may start on this machine with `cores` cores (0:
 * unknown, then the online CPUs count), and in why the phrase that says
 * which limit binds and why, e.g. "16 ranks per core on 2 cores: beyond
 * that the run times the scheduler, not the collective". */
long kcal_capacity_max_ranks(int cores, char *why, size_t whylen);

/* Bytes for people: "23.5 GiB", "512 MiB", "16 EiB" (rounded, binary). */
char *kcal_capacity_format_bytes(uint64_t n, char *buf, size_t len);

#endif
