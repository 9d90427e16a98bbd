/* fortran: the Fortran entry points of libkcoll_pmpi.so (see interpose.h).
 *
 * Open MPI's Fortran bindings do not go through the C names: mpif.h and
 * `use mpi` call mpi_bcast_ (libmpi_mpifh), whose code calls PMPI_Bcast
 * directly, and `use mpi_f08` calls ompi_bcast_f, the same function under
 * its internal name. So the interposer defines every name a Fortran call
 * can arrive by (MPI_BCAST, mpi_bcast, mpi_bcast_, mpi_bcast__ for the four
 * name manglings, ompi_bcast_f for mpi_f08), converts the handles
 * (MPI_Comm_f2c, MPI_Type_f2c, MPI_Op_f2c) and the buffers, and calls the same
 * kcoll_ip_* as the C names (the v-collectives' INTEGER arrays as int
 * arrays). The error code goes to ierr.
 *
 * Fortran's MPI_IN_PLACE and MPI_BOTTOM are not C's: they are common
 * blocks (mpi_fortran_in_place_, mpi_fortran_bottom_ ...), and a Fortran
 * program passes their address. Open MPI recognises them by comparing the
 * address with its four spellings of each; the interposer asks the dynamic
 * linker for the same symbols (dlsym with RTLD_DEFAULT resolves them as
 * Open MPI's own references resolve: to the one definition the program
 * uses, the executable's or libmpi's), once, on the first Fortran call.
 * MPICH (the interposer of make MPI=mpich, docs/mpi.md) keeps its own
 * differently: libmpichfort's MPIR_F_MPI_IN_PLACE and MPIR_F_MPI_BOTTOM
 * hold the addresses of its common blocks' members (set by its Fortran
 * MPI_Init, before any collective), and its mpi_f08 constants are the
 * variables MPIR_F08_MPI_IN_PLACE and MPIR_F08_MPI_BOTTOM themselves. The
 * names of one library are absent under the other, so looking for all is
 * safe. */
#include <dlfcn.h>
#include <pthread.h>

#include "interpose/interpose.h"

#define N_SPELLINGS 4
#define N_ADDRESSES (N_SPELLINGS + 2)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const void *in_place[N_ADDRESSES], *bottom[N_ADDRESSES];

static void find_constants(void)
{
    static const char *const in_place_names[N_SPELLINGS] = {
        "mpi_fortran_in_place_", "mpi_fortran_in_place",
        "mpi_fortran_in_place__", "MPI_FORTRAN_IN_PLACE"};
    static const char *const bottom_names[N_SPELLINGS] = {
        "mpi_fortran_bottom_", "mpi_fortran_bottom", "mpi_fortran_bottom__",
        "MPI_FORTRAN_BOTTOM"};
    for (int i = 0; i < N_SPELLINGS; i++) {
        in_place[i] = dlsym(RTLD_DEFAULT, in_place_names[i]);
        bottom[i] = dlsym(RTLD_DEFAULT, bottom_names[i]);
    }
    /* MPICH: a pointer to the constant (mpif.h, `use mpi`), and the
     * mpi_f08 constant itself. */
    void *const *f_in_place = dlsym(RTLD_DEFAULT, "MPIR_F_MPI_IN_PLACE");
    void *const *f_bottom = dlsym(RTLD_DEFAULT, "MPIR_F_MPI_BOTTOM");
    in_place[N_SPELLINGS] = f_in_place ? *f_in_place : NULL;
    bottom[N_SPELLINGS] = f_bottom ? *f_bottom : NULL;
    in_place[N_SPELLINGS + 1] = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_IN_PLACE");
    bottom[N_SPELLINGS + 1] = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_BOTTOM");
}

/* A Fortran buffer argument as C sees it: MPI_IN_PLACE, MPI_BOTTOM or
 * itself. */
static void *f2c_buffer(void *buf)
{
    pthread_once(&once, find_constants);
    for (int i = 0; buf && i < N_ADDRESSES; i++) {
        if (in_place[i] && buf == in_place[i])
            return MPI_IN_PLACE;
        if (bottom[i] && buf == bottom[i])
            return MPI_BOTTOM;
    }
    return buf;
}

static void set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr)
        *ierr = (MPI_Fint)rc;
}

static void f_bcast(void *buffer, MPI_Fint *count, MPI_Fint *datatype,
                    MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, kcoll_ip_bcast(f2c_buffer(buffer), (int)*count,
                                  PMPI_Type_f2c(*datatype), (int)*root,
                                  PMPI_Comm_f2c(*comm)));
}

static void f_scatter(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                      void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                      MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, kcoll_ip_scatter(f2c_buffer(sendbuf), (int)*sendcount,
                                    PMPI_Type_f2c(*sendtype),
                                    f2c_buffer(recvbuf), (int)*recvcount,
                                    PMPI_Type_f2c(*recvtype), (int)*root,
                                    PMPI_Comm_f2c(*comm)));
}

static void f_gather(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                     void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                     MPI_Fint *root, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, kcoll_ip_gather(f2c_buffer(sendbuf), (int)*sendcount,
                                   PMPI_Type_f2c(*sendtype),
                                   f2c_buffer(recvbuf), (int)*recvcount,
                                   PMPI_Type_f2c(*recvtype), (int)*root,
                                   PMPI_Comm_f2c(*comm)));
}

static void f_allgather(void *sendbuf, MPI_Fint *sendcount,
                        MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                        MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, kcoll_ip_allgather(f2c_buffer(sendbuf), (int)*sendcount,
                                      PMPI_Type_f2c(*sendtype),
                                      f2c_buffer(recvbuf), (int)*recvcount,
                                      PMPI_Type_f2c(*recvtype),
                                      PMPI_Comm_f2c(*comm)));
}

static void f_alltoall(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                       void *recvbuf, MPI_Fint *recvcount, MPI_Fint *recvtype,
                       MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, kcoll_ip_alltoall(f2c_buffer(sendbuf), (int)*sendcount,
                                     PMPI_Type_f2c(*sendtype),
                                     f2c_buffer(recvbuf), (int)*recvcount,
                                     PMPI_Type_f2c(*recvtype),
                                     PMPI_Comm_f2c(*comm)));
}

/* The reductions: op and datatype are handles like the communicator. */
static void f_reduce(void *sendbuf, void *recvbuf, MPI_Fint *count,
                     MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *root,
                     MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, kcoll_ip_reduce(f2c_buffer(sendbuf), f2c_buffer(recvbuf),
                                   (int)*count, PMPI_Type_f2c(*datatype),
                                   PMPI_Op_f2c(*op), (int)*root,
                                   PMPI_Comm_f2c(*comm)));
}

static void f_allreduce(void *sendbuf, void *recvbuf, MPI_Fint *count,
                        MPI_Fint *datatype, MPI_Fint *op, MPI_Fint *comm,
                        MPI_Fint *ierr)
{
    set_ierr(ierr, kcoll_ip_allreduce(f2c_buffer(sendbuf),
                                      f2c_buffer(recvbuf), (int)*count,
                                      PMPI_Type_f2c(*datatype),
                                      PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm)));
}

static void f_reduce_scatter_block(void *sendbuf, void *recvbuf,
                                   MPI_Fint *recvcount, MPI_Fint *datatype,
                                   MPI_Fint *op, MPI_Fint *comm,
                                   MPI_Fint *ierr)
{
    set_ierr(ierr, kcoll_ip_reduce_scatter_block(
                       f2c_buffer(sendbuf), f2c_buffer(recvbuf),
                       (int)*recvcount, PMPI_Type_f2c(*datatype),
                       PMPI_Op_f2c(*op), PMPI_Comm_f2c(*comm)));
}

/* The v-collectives: their counts and displacements are INTEGER arrays,
 * C's int arrays where MPI_Fint is int (Open MPI's and MPICH's default
 * builds, checked below); a build with another INTEGER would need them
 * converted, as the MPI library's own bindings do. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int),
               "the v-collectives' Fortran arrays are passed as int arrays");

static void f_scatterv(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *displs,
                       MPI_Fint *sendtype, void *recvbuf, MPI_Fint *recvcount,
                       MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
                       MPI_Fint *ierr)
{
    set_ierr(ierr, kcoll_ip_scatterv(
                       f2c_buffer(sendbuf), (const int *)sendcounts,
                       (const int *)displs, PMPI_Type_f2c(*sendtype),
                       f2c_buffer(recvbuf), (int)*recvcount,
                       PMPI_Type_f2c(*recvtype), (int)*root,
                       PMPI_Comm_f2c(*comm)));
}

static void f_gatherv(void *sendbuf, MPI_Fint *sendcount, MPI_Fint *sendtype,
                      void *recvbuf, MPI_Fint *recvcounts, MPI_Fint *displs,
                      MPI_Fint *recvtype, MPI_Fint *root, MPI_Fint *comm,
                      MPI_Fint *ierr)
{
    set_ierr(ierr, kcoll_ip_gatherv(
                       f2c_buffer(sendbuf), (int)*sendcount,
                       PMPI_Type_f2c(*sendtype), f2c_buffer(recvbuf),
                       (const int *)recvcounts, (const int *)displs,
                       PMPI_Type_f2c(*recvtype), (int)*root,
                       PMPI_Comm_f2c(*comm)));
}

static void f_allgatherv(void *sendbuf, MPI_Fint *sendcount,
                         MPI_Fint *sendtype, void *recvbuf,
                         MPI_Fint *recvcounts, MPI_Fint *displs,
                         MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, kcoll_ip_allgatherv(
                       f2c_buffer(sendbuf), (int)*sendcount,
                       PMPI_Type_f2c(*sendtype), f2c_buffer(recvbuf),
                       (const int *)recvcounts, (const int *)displs,
                       PMPI_Type_f2c(*recvtype), PMPI_Comm_f2c(*comm)));
}

static void f_alltoallv(void *sendbuf, MPI_Fint *sendcounts, MPI_Fint *sdispls,
                        MPI_Fint *sendtype, void *recvbuf,
                        MPI_Fint *recvcounts, MPI_Fint *rdispls,
                        MPI_Fint *recvtype, MPI_Fint *comm, MPI_Fint *ierr)
{
    set_ierr(ierr, kcoll_ip_alltoallv(
                       f2c_buffer(sendbuf), (const int *)sendcounts,
                       (const int *)sdispls, PMPI_Type_f2c(*sendtype),
                       f2c_buffer(recvbuf), (const int *)recvcounts,
                       (const int *)rdispls, PMPI_Type_f2c(*recvtype),
                       PMPI_Comm_f2c(*comm)));
}

/* Every name of one Fortran binding: the four manglings of mpi_<coll>
 * (mpif.h, `use mpi`) and Open MPI's ompi_<coll>_f (`use mpi_f08`). */
#define FORTRAN_NAMES(fn, upper, coll)                                       \
    __typeof__(fn) upper __attribute__((alias(#fn), visibility("default"))); \
    __typeof__(fn) mpi_##coll                                                \
        __attribute__((alias(#fn), visibility("default")));                  \
    __typeof__(fn) mpi_##coll##_                                             \
        __attribute__((alias(#fn), visibility("default")));                  \
    __typeof__(fn) mpi_##coll##__                                            \
        __attribute__((alias(#fn), visibility("default")));                  \
    __typeof__(fn) ompi_##coll##_f                                           \
        __attribute__((alias(#fn), visibility("default")))

FORTRAN_NAMES(f_bcast, MPI_BCAST, bcast);
FORTRAN_NAMES(f_scatter, MPI_SCATTER, scatter);
FORTRAN_NAMES(f_gather, MPI_GATHER, gather);
FORTRAN_NAMES(f_allgather, MPI_ALLGATHER, allgather);
FORTRAN_NAMES(f_alltoall, MPI_ALLTOALL, alltoall);
FORTRAN_NAMES(f_reduce, MPI_REDUCE, reduce);
FORTRAN_NAMES(f_allreduce, MPI_ALLREDUCE, allreduce);
FORTRAN_NAMES(f_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK,
              reduce_scatter_block);
FORTRAN_NAMES(f_scatterv, MPI_SCATTERV, scatterv);
FORTRAN_NAMES(f_gatherv, MPI_GATHERV, gatherv);
FORTRAN_NAMES(f_allgatherv, MPI_ALLGATHERV, allgatherv);
FORTRAN_NAMES(f_alltoallv, MPI_ALLTOALLV, alltoallv);
