/* interpose: what the files of libkcoll_pmpi.so share (not installed).
 *
 * libkcoll_pmpi.so is the LD_PRELOAD interposer: it defines MPI_Bcast,
 * MPI_Scatter, MPI_Gather, MPI_Allgather and MPI_Alltoall (wrap.c),
 * MPI_Reduce, MPI_Allreduce and MPI_Reduce_scatter_block (wrap_reduce.c),
 * MPI_Scatterv, MPI_Gatherv, MPI_Allgatherv and MPI_Alltoallv
 * (wrap_irregular.c), and the Fortran symbols Open MPI's mpif.h, `use mpi`
 * and `use mpi_f08` bindings call (fortran.c), and hands each call to
 * libkcoll (algorithm NULL: its own choice, table, model or MPI library)
 * or, where kcoll does not apply, to the MPI library's PMPI_ entry point
 * unchanged. The rules, and why they are the same on every process:
 * docs/interpose.md.
 *
 *   - kcoll_ip_* (wrap.c, wrap_reduce.c, wrap_irregular.c): one function
 *     per collective with the MPI signature, for the C and the Fortran
 *     entry points alike, and what decides their path (kcoll or the MPI
 *     library), in wrap.c; the packing buffers (kcoll_ip_scratch).
 *   - kcoll_layout_* (layout.c): where the data of (count, datatype) lie,
 *     and packing them into / out of a contiguous buffer for a process
 *     whose datatype is not contiguous.
 * Nothing but the MPI and Fortran names is exported (interpose/exports.map):
 * libkcoll's objects are linked in, hidden. */
#ifndef KCOLL_INTERPOSE_H
#define KCOLL_INTERPOSE_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "algos/kcoll_impl.h"

int kcoll_ip_bcast(void *buf, int count, MPI_Datatype type, int root,
                   MPI_Comm comm);
int kcoll_ip_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm);
int kcoll_ip_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm);
int kcoll_ip_allgather(const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm);
int kcoll_ip_alltoall(const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm);
int kcoll_ip_reduce(const void *sendbuf, void *recvbuf, int count,
                    MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm);
int kcoll_ip_allreduce(const void *sendbuf, void *recvbuf, int count,
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm);
int kcoll_ip_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                  int recvcount, MPI_Datatype type, MPI_Op op,
                                  MPI_Comm comm);
int kcoll_ip_scatterv(const void *sendbuf, const int *sendcounts,
                      const int *displs, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm);
int kcoll_ip_gatherv(const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf,
                     const int *recvcounts, const int *displs,
                     MPI_Datatype recvtype, int root, MPI_Comm comm);
int kcoll_ip_allgatherv(const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf,
                        const int *recvcounts, const int *displs,
                        MPI_Datatype recvtype, MPI_Comm comm);
int kcoll_ip_alltoallv(const void *sendbuf, const int *sendcounts,
                       const int *sdispls, MPI_Datatype sendtype,
                       void *recvbuf, const int *recvcounts,
                       const int *rdispls, MPI_Datatype recvtype,
                       MPI_Comm comm);

/* The MPI names' definitions: the objects are built -fvisibility=hidden. */
#define KCOLL_EXPORT __attribute__((visibility("default")))

/* ---- the path of a call (wrap.c) ----------------------------------------- */

/* Why a call went to the MPI library unchanged: its KCOLL_STATS row. The
 * pointers are compared, not the text. */
extern const char kcoll_ip_why_intercomm[]; /* "mpi(intercomm)" */
extern const char kcoll_ip_why_invalid[];   /* "mpi(invalid)" */
extern const char kcoll_ip_why_no_state[];  /* "mpi(no-state)" */

/* libkcoll's state of comm when kcoll takes calls on it; else *why says
 * why not (the same on every process of comm: MPI_COMM_NULL is invalid,
 * an intercommunicator intercomm, a state comm.c could not build
 * no-state). MPI_SUCCESS or an error of building the state. */
int kcoll_ip_comm_state(MPI_Comm comm, kcoll_comm **c, const char **why);

/* An error of the kcoll path, through comm's error handler (as the MPI
 * library's own would go); returns rc. */
int kcoll_ip_raise_error(MPI_Comm comm, int rc);

/* The KCOLL_STATS bytes of a call handed on: count elements of type,
 * times the (remote) group's size when blocks is set; 0 for an invalid
 * call. */
uint64_t kcoll_ip_pass_bytes(MPI_Comm comm, const char *why, int count,
                             MPI_Datatype type, int blocks);

/* Hand the call to the MPI library unchanged (it reports its own errors
 * through comm's handler) and return its code, recorded as why when
 * KCOLL_STATS is on under coll (kcoll_stats_add, algos/stats.h). */
#define KCOLL_IP_PASS(coll, why, bytes, call)                                \
    KCOLL_IP_PASS_NAMED(kcal_coll_name(coll), why, bytes, call)

/* The same for a collective named by a static string (the v-collectives,
 * which are not kcal_coll: kcoll_stats_add_named). */
#define KCOLL_IP_PASS_NAMED(name, why, bytes, call)                          \
    do {                                                                     \
        if (!kcoll_stats_on())                                               \
            return call;                                                     \
        double t0_ = kcoll_stats_now();                                      \
        int rc_ = call;                                                      \
        kcoll_stats_add_named(name, why, 0, bytes, kcoll_stats_now() - t0_); \
        return rc_;                                                          \
    } while (0)

/* ---- buffers of packed data (wrap.c) ------------------------------------- */

/* This thread's packing buffer `which` (KCOLL_IP_SEND_TMP or
 * KCOLL_IP_RECV_TMP) of at least len bytes, kept between calls (a fresh
 * one per call would give peers new, unfaulted pages to copy); NULL when
 * it cannot be allocated. Its contents do not outlive the call:
 * kcoll_ip_scratch_done at the call's end frees buffers above 64 MiB. */
enum { KCOLL_IP_SEND_TMP, KCOLL_IP_RECV_TMP };
void *kcoll_ip_scratch(int which, size_t len);
void kcoll_ip_scratch_done(void);

/* ---- datatypes (layout.c) ------------------------------------------------ */

/* count elements of one datatype, as one process passes them. */
typedef struct {
    MPI_Datatype type;
    size_t count;     /* elements (a root's p blocks: p times the count) */
    MPI_Count size;   /* bytes of data in one element */
    MPI_Aint extent;  /* from one element to the next */
    int contiguous;   /* the data are the bytes [buf, buf + count·size) in
                       * type-map order: raw bytes are the packed form */
} kcoll_layout;

/* The layout of count elements of type: MPI_SUCCESS, or MPI_ERR_TYPE for
 * MPI_DATATYPE_NULL or a type whose size or extent MPI cannot tell. A
 * verdict on a derived type is worked out once and cached on the type (an
 * attribute, copied by MPI_Type_dup, freed with the type). */
int kcoll_layout_of(MPI_Datatype type, size_t count, kcoll_layout *out);

/* The bytes of l: l->count * l->size (no overflow: the caller checked). */
static inline size_t kcoll_layout_bytes(const kcoll_layout *l)
{
    return l->count * (size_t)l->size;
}

/* Pack the l->count elements at buf into out (kcoll_layout_bytes(l)
 * bytes), or unpack them from in into buf, touching nothing of buf but
 * the type map's bytes. MPI_Pack and MPI_Unpack in pieces whose packed size
 * fits an int; an element larger than that goes through a send to itself
 * on c's private communicator. MPI_SUCCESS or an MPI error code. */
int kcoll_layout_pack(kcoll_comm *c, const kcoll_layout *l, const void *buf,
                      void *out);
int kcoll_layout_unpack(kcoll_comm *c, const kcoll_layout *l, const void *in,
                        void *buf);

/* For tests: the largest packed piece (default INT_MAX bytes), from
 * $KCOLL_PACK_LIMIT when it is set, so the piecewise and the send-to-self
 * paths run on small types. */
extern size_t kcoll_pack_limit;

#endif
