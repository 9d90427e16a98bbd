/* bench_world: the checks of the benchmark programs' job (bench_world.h). */
#include "bench/bench_world.h"

#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "algos/kcoll.h"
#include "common/cores.h"
#include "common/mpi_flavor.h"

int kcal_bench_world_check(const char *mpi, long expect_p, char *library,
                           size_t len, char *msg, size_t msglen)
{
    int p = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int vlen = 0;
    MPI_Get_library_version(version, &vlen);
    kcal_mpi_flavor_describe_version(version, library, len);
    const kcal_mpi_flavor *want = mpi ? kcal_mpi_flavor_find(mpi) : NULL;
    const kcal_mpi_flavor *got = kcal_mpi_flavor_of_version(version);
    if (want && got != want) {
        snprintf(msg, msglen, "this program runs with %s, not %s (--mpi %s): "
                 "build it with %s", library, want->title, want->name,
                 want->make_hint);
        return -1;
    }
    if (expect_p && p != expect_p) {
        snprintf(msg, msglen, "MPI_COMM_WORLD has %d process%s, not %ld: "
                 "the launcher started them as separate jobs (a launcher of "
                 "another MPI library than this program's %s?)",
                 p, p == 1 ? "" : "es", expect_p, library);
        return -1;
    }
    return 0;
}

int kcal_bench_local_ranks(void)
{
    MPI_Comm node;
    int local = 1;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                        &node);
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    return local;
}

int kcal_bench_oversubscribed(void)
{
    int local = kcal_bench_local_ranks(), cores = kcal_cores();
    int over = cores > 0 && local > cores, any = 0;
    MPI_Allreduce(&over, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return any;
}

int kcal_bench_cma_permitted(const char *prog)
{
    setenv("KCOLL_STRICT", "1", 1);
    unsigned char probe = 0;
    if (kcoll_bcast(&probe, 1, 0, MPI_COMM_WORLD, "direct_read") == MPI_SUCCESS)
        return 1;
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0)
        fprintf(stderr, "%s: process_vm_readv is not permitted between these "
                        "processes: nothing to measure\n", prog);
    return 0;
}
