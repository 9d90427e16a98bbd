/* kcoll: contention-aware single-copy collectives over MPI + Linux CMA.
 *
 * Built for Open MPI (libkcoll) or for the MPICH ABI: MPICH, MVAPICH,
 * Intel MPI (libkcoll-mpich, make MPI=mpich; docs/mpi.md). The reference
 * algorithms of docs/model.md, run for real: control (buffer addresses,
 * completion, throttling tokens) travels as small MPI messages on a
 * private communicator made from the communicator (a split: it runs none
 * of your attributes' copy callbacks), data moves only with
 * process_vm_readv/process_vm_writev. Semantics are those of the MPI
 * built-in with MPI_BYTE; n is in bytes: the block per process (scatter,
 * gather, allgather, alltoall) or the whole message (bcast).
 *
 * `algorithm` is a model.md id, optionally with a parameter after a colon
 * ("throttled_read:4", "knomial:8", "ring_neighbor:3"), or NULL for the
 * algorithm the default model ranks first for (p, n) (kcal_model_default:
 * the full model for params that kcal probe measured, the paper model for
 * the paper's machine files) with the params of $KCAL_PARAMS or the
 * embedded KNL file; a throttled id without k gets the model's best k.
 * The choice is made once per communicator, size and in-place-ness and
 * remembered with the communicator. On a communicator whose processes span
 * nodes the call runs in two levels: the algorithm (or the model's choice)
 * inside each node, the MPI library between nodes (docs/libkcoll.md
 * "Across nodes"). Every call returns MPI_SUCCESS or an MPI error code
 * (MPI_ERR_ARG for an unknown id or a parameter out of range, MPI_ERR_COMM
 * for an intercommunicator, MPI_ERR_OTHER for a failed copy or, with
 * KCOLL_STRICT=1, for a machine where CMA is forbidden); the library never
 * aborts or exits.
 *
 * When the model cannot choose (the $KCAL_PARAMS file does not read, or
 * every prediction overflows to inf or NaN), a call that needs its choice
 * runs the MPI library's own collective instead, after one warning line
 * per process on stderr; calls that name an algorithm (with its k) do not
 * need the model. When libkcoll's state of a communicator cannot be built
 * on some process, every call on that communicator runs the MPI library's
 * collective, for good, on every process alike (one warning per process).
 *
 * Environment (algos/config.def, read once per process; a number is
 * decimal digits only, anything else is one warning and the default):
 * KCAL_PARAMS (params for algorithm NULL; unset: the embedded KNL file),
 * KCOLL_TABLE (a selection table of kcal tune, before the model),
 * KCOLL_VERIFY=0 (the model's or the table's choice as it is, not timed
 * against its candidates at run time),
 * KCOLL_STRICT=1 (error instead of falling back to the MPI built-in where
 * CMA is forbidden), KCOLL_VIRTUAL_NODES=K (groups of K consecutive
 * MPI_COMM_WORLD ranks count as nodes: the two-level path on one machine),
 * KCOLL_STATS=1 (rank 0 prints what its calls ran at MPI_Finalize); for
 * tests: KCOLL_SIMULATE_NO_CMA=1 (behave as if CMA were forbidden),
 * KCOLL_SIMULATE_NO_STATE=R (building a communicator's state fails on world
 * rank R), KCOLL_PACK_LIMIT=B (the interposer packs in pieces of at most B
 * bytes), KCOLL_TEST_SLOW=coll:id:factor[:rank[:after]] (test builds only:
 * slow an algorithm's calls). */
#ifndef KCOLL_H
#define KCOLL_H

#include <stddef.h>

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's whole interface: libkcoll.so is built with
 * -fvisibility=hidden and exports only what is marked KCOLL_API. */
#if defined(__GNUC__)
#define KCOLL_API __attribute__((visibility("default")))
#else
#define KCOLL_API
#endif

KCOLL_API int kcoll_scatter(const void *sendbuf, void *recvbuf, size_t n,
                            int root, MPI_Comm comm, const char *algorithm);
KCOLL_API int kcoll_gather(const void *sendbuf, void *recvbuf, size_t n,
                           int root, MPI_Comm comm, const char *algorithm);
KCOLL_API int kcoll_bcast(void *buf, size_t n, int root, MPI_Comm comm,
                          const char *algorithm);
KCOLL_API int kcoll_allgather(const void *sendbuf, void *recvbuf, size_t n,
                              MPI_Comm comm, const char *algorithm);
KCOLL_API int kcoll_alltoall(const void *sendbuf, void *recvbuf, size_t n,
                             MPI_Comm comm, const char *algorithm);

/* The reductions: MPI_Reduce, MPI_Allreduce and MPI_Reduce_scatter_block
 * with MPI's arguments and semantics (MPI_IN_PLACE as MPI defines it for
 * each), counts in elements of `type` (recvcount: each rank's block). The
 * data move by CMA and the op runs in the calling processes
 * (MPI_Reduce_local) where the type has no holes and the op is a user's
 * or a predefined op MPI defines on the type; anything else runs the MPI
 * library's collective. Every libkcoll algorithm folds each element as
 * x_0 op (x_1 op (... op x_{p-1})), so its result is the same on every
 * rank and from call to call, bit for bit, and a non-commutative op is
 * applied in rank order. `algorithm`: an id of algos/reductions.def
 * ("read_all", "reduce_scatter_allgather", ...), "mpi", or NULL
 * (docs/libkcoll.md "Reductions" says what NULL runs). */
KCOLL_API int kcoll_reduce(const void *sendbuf, void *recvbuf, size_t count,
                           MPI_Datatype type, MPI_Op op, int root,
                           MPI_Comm comm, const char *algorithm);
KCOLL_API int kcoll_allreduce(const void *sendbuf, void *recvbuf,
                              size_t count, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm, const char *algorithm);
KCOLL_API int kcoll_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                                         size_t recvcount, MPI_Datatype type,
                                         MPI_Op op, MPI_Comm comm,
                                         const char *algorithm);

/* The irregular collectives: MPI_Scatterv, MPI_Gatherv, MPI_Allgatherv
 * and MPI_Alltoallv with MPI_BYTE semantics, every count and displacement
 * in bytes (size_t). MPI_IN_PLACE as MPI defines it: scatterv's recvbuf
 * and gatherv's sendbuf at the root, allgatherv's sendbuf (the own block
 * is already at recvbuf + displs[rank]) and alltoallv's sendbuf (the data
 * to send are read from recvbuf with recvcounts and rdispls). Arguments a
 * process ignores under MPI's rules (scatterv's send side and gatherv's
 * receive side at non-roots; the send side in place) are never read.
 * Counts that do not match between a sender and its receiver are
 * MPI_ERR_TRUNCATE where both ends move bytes by CMA (erroneous, as MPI
 * says, where one end counts none). Receive regions that overlap (MPI
 * forbids them) are MPI_ERR_ARG at that process, which still takes its
 * part in the collective (into scratch, its recvbuf untouched), so the
 * others neither wait nor fail. `algorithm`: an id of algos/irregular.def
 * ("parallel_read", "pairwise", ...), "mpi", or NULL (docs/libkcoll.md
 * "Irregular collectives" says what NULL runs). */
KCOLL_API int kcoll_scatterv(const void *sendbuf, const size_t *sendcounts,
                             const size_t *displs, void *recvbuf,
                             size_t recvcount, int root, MPI_Comm comm,
                             const char *algorithm);
KCOLL_API int kcoll_gatherv(const void *sendbuf, size_t sendcount,
                            void *recvbuf, const size_t *recvcounts,
                            const size_t *displs, int root, MPI_Comm comm,
                            const char *algorithm);
KCOLL_API int kcoll_allgatherv(const void *sendbuf, size_t sendcount,
                               void *recvbuf, const size_t *recvcounts,
                               const size_t *displs, MPI_Comm comm,
                               const char *algorithm);
KCOLL_API int kcoll_alltoallv(const void *sendbuf, const size_t *sendcounts,
                              const size_t *sdispls, void *recvbuf,
                              const size_t *recvcounts, const size_t *rdispls,
                              MPI_Comm comm, const char *algorithm);

#ifdef __cplusplus
}
#endif

#endif
