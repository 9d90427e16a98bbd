/* wrap_reduce: MPI_Reduce, MPI_Allreduce and MPI_Reduce_scatter_block of
 * libkcoll_pmpi.so (see interpose.h; the rules in docs/interpose.md).
 *
 * The path is decided as for wrap.c's five, from what every process knows
 * alike (kcoll_ip_comm_state): an intercommunicator, or a communicator
 * whose libkcoll state could not be built, goes to the MPI library
 * unchanged. So does a call whose arguments MPI 4.0 (§6.9.1, §6.9.6,
 * §6.10.1) says are erroneous at this process, which the MPI library then
 * reports as it always does: a negative count, MPI_DATATYPE_NULL,
 * MPI_OP_NULL, a root out of range, recvbuf MPI_IN_PLACE where recvbuf is
 * significant (a reduce's root, every process of the other two), or
 * sendbuf MPI_IN_PLACE at a reduce's non-root ("in place" is the root's
 * option alone there). A reduce's recvbuf at a non-root is insignificant
 * and never looked at. With KCOLL_STATS=1 these calls are recorded as
 * "mpi(<why>)" under the collective's name.
 *
 * Unlike the five, nothing is packed: MPI requires the same datatype and op
 * on every process of a reduction, so libkcoll's own verdict on (type,
 * op) is the same everywhere (algos/reduce.h, kcoll_reducible: a type with
 * holes or a pair libkcoll does not reduce runs the MPI library's
 * collective inside libkcoll, "mpi(type-op)"). Every other call goes to
 * kcoll_* with algorithm NULL; its errors go through the communicator's
 * error handler. */
#include "interpose/interpose.h"
#include "algos/reduce.h"
#include "algos/stats.h"

/* Whether MPI lets this process make the call (c: comm's state). */
static int valid(kcal_coll coll, const kcoll_comm *c,
                 const void *sendbuf, const void *recvbuf, int count,
                 MPI_Datatype type, MPI_Op op, int root)
{
    if (count < 0 || type == MPI_DATATYPE_NULL || op == MPI_OP_NULL)
        return 0;
    if (coll != KCAL_COLL_REDUCE)
        return recvbuf != MPI_IN_PLACE;
    if (root < 0 || root >= c->size)
        return 0;
    return c->rank == root ? recvbuf != MPI_IN_PLACE
                           : sendbuf != MPI_IN_PLACE;
}

/* The MPI library's collective, with the call's own arguments. */
static int pass(kcal_coll coll, const void *sendbuf, void *recvbuf,
                int count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm)
{
    switch (coll) {
    case KCAL_COLL_REDUCE:
        return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
    case KCAL_COLL_ALLREDUCE:
        return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
    default:
        return PMPI_Reduce_scatter_block(sendbuf, recvbuf, count, type, op,
                                         comm);
    }
}

/* count: the vector's elements (reduce, allreduce) or each process's
 * block (reduce_scatter_block). */
static int reduction(kcal_coll coll, const void *sendbuf, void *recvbuf,
                     int count, MPI_Datatype type, MPI_Op op, int root,
                     MPI_Comm comm)
{
    kcoll_comm *c;
    const char *why;
    int rc = kcoll_ip_comm_state(comm, &c, &why);
    if (rc != MPI_SUCCESS)
        return kcoll_ip_raise_error(comm, rc);
    if (!why && !valid(coll, c, sendbuf, recvbuf, count, type, op, root))
        why = kcoll_ip_why_invalid;
    if (why)
        KCOLL_IP_PASS(coll, why,
                      kcoll_ip_pass_bytes(
                          comm, why, count, type,
                          coll == KCAL_COLL_REDUCE_SCATTER_BLOCK),
                      pass(coll, sendbuf, recvbuf, count, type, op, root,
                           comm));
    size_t n = (size_t)count;
    switch (coll) {
    case KCAL_COLL_REDUCE:
        rc = kcoll_reduce(sendbuf, recvbuf, n, type, op, root, comm, NULL);
        break;
    case KCAL_COLL_ALLREDUCE:
        rc = kcoll_allreduce(sendbuf, recvbuf, n, type, op, comm, NULL);
        break;
    default:
        rc = kcoll_reduce_scatter_block(sendbuf, recvbuf, n, type, op, comm,
                                        NULL);
        break;
    }
    return kcoll_ip_raise_error(comm, rc);
}

int kcoll_ip_reduce(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
    return reduction(KCAL_COLL_REDUCE, sendbuf, recvbuf, count, type, op,
                     root, comm);
}

int kcoll_ip_allreduce(const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    return reduction(KCAL_COLL_ALLREDUCE, sendbuf, recvbuf, count, type, op,
                     0, comm);
}

int kcoll_ip_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                  int recvcount, MPI_Datatype type, MPI_Op op,
                                  MPI_Comm comm)
{
    return reduction(KCAL_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf,
                     recvcount, type, op, 0, comm);
}

/* ---- the C entry points -------------------------------------------------- */

/* kcoll_impl.h sends libkcoll's own uses of these names to PMPI_; here
 * they are the interposer's definitions. */
#undef MPI_Reduce
#undef MPI_Allreduce
#undef MPI_Reduce_scatter_block

KCOLL_EXPORT int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype datatype, MPI_Op op, int root,
                            MPI_Comm comm)
{
    return kcoll_ip_reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
}

KCOLL_EXPORT int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op,
                               MPI_Comm comm)
{
    return kcoll_ip_allreduce(sendbuf, recvbuf, count, datatype, op, comm);
}

KCOLL_EXPORT int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                          int recvcount,
                                          MPI_Datatype datatype, MPI_Op op,
                                          MPI_Comm comm)
{
    return kcoll_ip_reduce_scatter_block(sendbuf, recvbuf, recvcount,
                                         datatype, op, comm);
}
