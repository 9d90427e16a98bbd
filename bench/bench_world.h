/* bench_world: what every MPI benchmark program kcal bench launches
 * (kcal-bench-mpi, kcal-vcoll-bench) checks about the job it finds itself
 * in before it measures, so both stop alike when they cannot measure:
 * the MPI library it runs with against the one kcal bench built it for,
 * the world size against the one kcal bench launched (a launcher of
 * another library starts P singletons), whether ranks outnumber cores,
 * whether CMA works between the ranks. Collective calls: every rank of
 * MPI_COMM_WORLD calls them alike, after MPI_Init. */
#ifndef KCAL_BENCH_WORLD_H
#define KCAL_BENCH_WORLD_H

#include <stddef.h>

/* The MPI library as one line into library (common/mpi_flavor.h: "MPICH
 * 4.0.2 (ch4:ucx)"). 0; or -1 with the reason in msg when it is not the
 * family mpi names (NULL: any) or the world is not expect_p processes
 * (0: any). Not collective. */
int kcal_bench_world_check(const char *mpi, long expect_p, char *library,
                           size_t len, char *msg, size_t msglen);

/* How many ranks of the world share this rank's node. */
int kcal_bench_local_ranks(void);

/* 1 when some node runs more ranks of the world than it has cores
 * (common/cores.h, the rule kcal bench uses for --oversubscribe). */
int kcal_bench_oversubscribed(void);

/* 1 when process_vm_readv works between the ranks (one kcoll_bcast of a
 * byte by direct_read, KCOLL_STRICT set so libkcoll cannot hide a refusal
 * behind the MPI library: it stays set for the program's life, as a row
 * that fell back would be the MPI library's time under libkcoll's name).
 * 0 after rank 0 printed "PROG: process_vm_readv is not permitted ...";
 * the program then exits 3 (KCAL_EXIT_FORBIDDEN). */
int kcal_bench_cma_permitted(const char *prog);

#endif
