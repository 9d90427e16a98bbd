/* fallback: the MPI library's own collectives with MPI_BYTE semantics for
 * any size_t n. Used where CMA is forbidden, as algorithm "mpi" of the
 * benchmark and as the reference of the tests.
 *
 * MPI counts are int: a block above INT_MAX bytes becomes one element of a
 * derived type of n bytes (1 GiB pieces plus the remainder), whose extent is
 * n so block r still starts at r*n. */
#include <limits.h>

#include "kcoll_impl.h"

#define PIECE ((size_t)1 << 30)

/* *type is MPI_BYTE (count n) or a committed type to free (count 1). */
static int bytes_type(size_t n, MPI_Datatype *type, int *count)
{
    if (n <= INT_MAX) {
        *type = MPI_BYTE;
        *count = (int)n;
        return MPI_SUCCESS;
    }
    size_t q = n / PIECE, r = n % PIECE;
    MPI_Datatype piece, pieces;
    KCOLL_TRY(MPI_Type_contiguous((int)PIECE, MPI_BYTE, &piece));
    KCOLL_TRY(MPI_Type_contiguous((int)q, piece, &pieces));
    MPI_Type_free(&piece);
    if (r == 0) {
        *type = pieces;
    } else {
        int lens[2] = {1, (int)r};
        MPI_Aint disps[2] = {0, (MPI_Aint)(q * PIECE)};
        MPI_Datatype types[2] = {pieces, MPI_BYTE};
        KCOLL_TRY(MPI_Type_create_struct(2, lens, disps, types, type));
        MPI_Type_free(&pieces);
    }
    *count = 1;
    return MPI_Type_commit(type);
}

static void free_type(MPI_Datatype *t)
{
    if (*t != MPI_BYTE)
        MPI_Type_free(t);
}

int kcoll_mpi_scatter(const void *sendbuf, void *recvbuf, size_t n, int root,
                      MPI_Comm comm)
{
    MPI_Datatype t;
    int count, rc;
    KCOLL_TRY(bytes_type(n, &t, &count));
    rc = MPI_Scatter(sendbuf, count, t, recvbuf, count, t, root, comm);
    free_type(&t);
    return rc;
}

int kcoll_mpi_gather(const void *sendbuf, void *recvbuf, size_t n, int root,
                     MPI_Comm comm)
{
    MPI_Datatype t;
    int count, rc;
    KCOLL_TRY(bytes_type(n, &t, &count));
    rc = MPI_Gather(sendbuf, count, t, recvbuf, count, t, root, comm);
    free_type(&t);
    return rc;
}

int kcoll_mpi_bcast(void *buf, size_t n, int root, MPI_Comm comm)
{
    MPI_Datatype t;
    int count, rc;
    KCOLL_TRY(bytes_type(n, &t, &count));
    rc = MPI_Bcast(buf, count, t, root, comm);
    free_type(&t);
    return rc;
}

int kcoll_mpi_allgather(const void *sendbuf, void *recvbuf, size_t n,
                        MPI_Comm comm)
{
    MPI_Datatype t;
    int count, rc;
    KCOLL_TRY(bytes_type(n, &t, &count));
    rc = MPI_Allgather(sendbuf, count, t, recvbuf, count, t, comm);
    free_type(&t);
    return rc;
}

int kcoll_mpi_alltoall(const void *sendbuf, void *recvbuf, size_t n,
                       MPI_Comm comm)
{
    MPI_Datatype t;
    int count, rc;
    KCOLL_TRY(bytes_type(n, &t, &count));
    rc = MPI_Alltoall(sendbuf, count, t, recvbuf, count, t, comm);
    free_type(&t);
    return rc;
}
