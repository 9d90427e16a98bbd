/* fallback: the MPI library's own collectives with MPI_BYTE semantics for
 * any size_t n. Used where CMA is forbidden, where the model cannot choose,
 * as algorithm "mpi" of the benchmark and as the reference of the tests.
 *
 * MPI counts are int: a block above INT_MAX bytes becomes one element of a
 * derived type of n bytes (1 GiB pieces plus the remainder), whose extent is
 * n so block r still starts at r*n. Every collective passes the same
 * (count, type) for sending and receiving, so the type signatures match on
 * every process. The piece count must fit an int too: n / 1 GiB above
 * INT_MAX (2^61 bytes) is refused with MPI_ERR_COUNT rather than cast. */
#include <limits.h>

#include "algos/kcoll_impl.h"
#include "algos/reduce.h"

size_t kcoll_mpi_max_count = INT_MAX;
size_t kcoll_mpi_piece = (size_t)1 << 30;

int kcoll_bytes_type(size_t n, size_t max_count, size_t piece,
                     MPI_Datatype *type, int *count)
{
    *type = MPI_BYTE;
    *count = 0;
    if (max_count > INT_MAX || piece == 0 || piece > max_count)
        return MPI_ERR_ARG;
    if (n <= max_count) {
        *count = (int)n;
        return MPI_SUCCESS;
    }
    size_t q = n / piece, r = n % piece;
    if (q > max_count || n > (size_t)PTRDIFF_MAX)
        return MPI_ERR_COUNT; /* (int)q would wrap; MPI_Aint would too */
    MPI_Datatype one = MPI_DATATYPE_NULL, pieces = MPI_DATATYPE_NULL,
                 whole = MPI_DATATYPE_NULL;
    int rc = MPI_Type_contiguous((int)piece, MPI_BYTE, &one);
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_contiguous((int)q, one, &pieces);
    if (rc == MPI_SUCCESS && r == 0) {
        whole = pieces;
        pieces = MPI_DATATYPE_NULL;
    } else if (rc == MPI_SUCCESS) {
        /* The remainder right after the pieces: size and extent are n. */
        int lens[2] = {1, (int)r};
        MPI_Aint disps[2] = {0, (MPI_Aint)(q * piece)};
        MPI_Datatype types[2] = {pieces, MPI_BYTE};
        rc = MPI_Type_create_struct(2, lens, disps, types, &whole);
    }
    if (rc == MPI_SUCCESS)
        rc = MPI_Type_commit(&whole);
    if (one != MPI_DATATYPE_NULL)
        MPI_Type_free(&one);
    if (pieces != MPI_DATATYPE_NULL)
        MPI_Type_free(&pieces);
    if (rc != MPI_SUCCESS) {
        if (whole != MPI_DATATYPE_NULL)
            MPI_Type_free(&whole);
        return rc;
    }
    *type = whole;
    *count = 1;
    return MPI_SUCCESS;
}

void kcoll_bytes_type_free(MPI_Datatype *type)
{
    if (*type != MPI_BYTE && *type != MPI_DATATYPE_NULL)
        MPI_Type_free(type);
}

int kcoll_mpi_coll(kcal_coll coll, const void *sendbuf, void *recvbuf,
                   size_t n, int root, MPI_Comm comm)
{
    if (kcal_coll_is_reduction(coll)) {
        kcoll_args a = kcoll_bytes_reduction(sendbuf, recvbuf, n, root);
        return kcoll_mpi_reduction(coll, &a, comm);
    }
    return kcoll_mpi_data(coll, sendbuf, recvbuf, n, root, comm);
}

int kcoll_mpi_data_derived(kcal_coll coll, const void *sendbuf,
                           void *recvbuf, size_t n, int root, MPI_Comm comm)
{
    MPI_Datatype t;
    int count;
    KCOLL_TRY(kcoll_bytes_type(n, kcoll_mpi_max_count, kcoll_mpi_piece, &t,
                               &count));
    int rc = kcoll_mpi_typed(coll, sendbuf, recvbuf, count, t, root, comm);
    kcoll_bytes_type_free(&t);
    return rc;
}

int kcoll_mpi_scatter(const void *sendbuf, void *recvbuf, size_t n, int root,
                      MPI_Comm comm)
{
    return kcoll_mpi_coll(KCAL_COLL_SCATTER, sendbuf, recvbuf, n, root, comm);
}

int kcoll_mpi_gather(const void *sendbuf, void *recvbuf, size_t n, int root,
                     MPI_Comm comm)
{
    return kcoll_mpi_coll(KCAL_COLL_GATHER, sendbuf, recvbuf, n, root, comm);
}

int kcoll_mpi_bcast(void *buf, size_t n, int root, MPI_Comm comm)
{
    return kcoll_mpi_coll(KCAL_COLL_BCAST, NULL, buf, n, root, comm);
}

int kcoll_mpi_allgather(const void *sendbuf, void *recvbuf, size_t n,
                        MPI_Comm comm)
{
    return kcoll_mpi_coll(KCAL_COLL_ALLGATHER, sendbuf, recvbuf, n, 0, comm);
}

int kcoll_mpi_alltoall(const void *sendbuf, void *recvbuf, size_t n,
                       MPI_Comm comm)
{
    return kcoll_mpi_coll(KCAL_COLL_ALLTOALL, sendbuf, recvbuf, n, 0, comm);
}
