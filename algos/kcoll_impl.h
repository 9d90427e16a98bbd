/* kcoll_impl: what the algorithm files of libkcoll share (not installed).
 *
 * - kcoll_comm (comm.c): the per-communicator state, built on the first call
 *   on a communicator and cached in an MPI attribute: a private duplicate for
 *   control messages, the peers' pids by rank, whether the processes share a
 *   node and whether CMA is permitted. Plus the small control messages.
 * - kcoll_cma_* (cma.c): the only place data moves between processes.
 * - kcoll_mpi_* (fallback.c): the MPI built-ins with byte counts > INT_MAX,
 *   used where CMA is forbidden, by the benchmark ("mpi") and by the tests.
 * - one function per algorithm (scatter.c, gather.c, bcast.c, allgather.c,
 *   alltoall.c), dispatched by kcoll.c. */
#ifndef KCOLL_IMPL_H
#define KCOLL_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <mpi.h>

#include "kcoll.h"

typedef struct kcoll_comm {
    MPI_Comm comm; /* private duplicate: our control never matches users' */
    int rank, size;
    pid_t *pids;     /* pid of each rank of the communicator */
    int spans_nodes; /* some processes do not share this node */
    int cma_ok;      /* a real 1-byte read worked on every process */
    unsigned seq;    /* collective calls so far (same on every rank) */
} kcoll_comm;

/* The state of `comm`, built collectively on the first call. MPI code. */
int kcoll_comm_get(MPI_Comm comm, kcoll_comm **out);

/* Tag of control messages of `phase` (< 16) in the current call: the call
 * count is in it, so a message can never match a later call's receive. */
static inline int kcoll_tag(const kcoll_comm *c, int phase)
{
    return (int)(((c->seq & 0x3ffu) << 4) | (unsigned)phase);
}

/* Control messages carry a status (0, or 1 when the sender's data is bad) so
 * a failed copy is reported by every process whose result it spoils. */
int kcoll_ctl_send(kcoll_comm *c, int dest, int tag, int status);
/* src may be MPI_ANY_SOURCE; ORs the received status into *status. */
int kcoll_ctl_recv(kcoll_comm *c, int src, int tag, int *status);
/* Same with an address and a status (address 0 when not needed). */
int kcoll_ctl_send_addr(kcoll_comm *c, int dest, int tag, uint64_t addr,
                        int status);
int kcoll_ctl_recv_addr(kcoll_comm *c, int src, int tag, uint64_t *addr,
                        int *status);
/* Non-blocking control sends, for patterns where every process sends
 * before it receives (rings, pairwise exchanges): a blocking send could wait
 * for its receiver forever under a transport without eager sends. Messages
 * are an address and a status, received with kcoll_ctl_recv_addr. */
typedef struct {
    MPI_Request *req;
    uint64_t *msg; /* 2 per request, alive until kcoll_outbox_finish */
    int n, cap;
} kcoll_outbox;

void kcoll_outbox_init(kcoll_outbox *o);
int kcoll_outbox_send(kcoll_comm *c, kcoll_outbox *o, int dest, int tag,
                      uint64_t addr, int status);
/* Waits for every send and frees the box; returns rc if it is an error. */
int kcoll_outbox_finish(kcoll_outbox *o, int rc);

/* Every process learns whether any failed: the closing synchronisation of
 * the algorithms whose model row ends with T_sm_barrier. */
int kcoll_ctl_allstatus(kcoll_comm *c, int *status);

static inline uint64_t kcoll_addr(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* One contiguous piece of a transfer: len bytes at `local` in this process
 * and at `remote` in the peer. */
typedef struct {
    void *local;
    uint64_t remote;
    size_t len;
} kcoll_seg;

/* Move every byte of every segment; loops over short transfers, batches at
 * most IOV_MAX segments per call and at most 1 GiB per call. 0 or an errno. */
int kcoll_cma_readv(pid_t pid, const kcoll_seg *segs, size_t nseg);
int kcoll_cma_writev(pid_t pid, const kcoll_seg *segs, size_t nseg);
int kcoll_cma_read(pid_t pid, void *local, uint64_t remote, size_t len);
int kcoll_cma_write(pid_t pid, const void *local, uint64_t remote, size_t len);
/* For tests: cap the bytes of one system call (0 = no cap beyond 1 GiB) so
 * the short-transfer loop runs on small buffers. */
extern size_t kcoll_cma_call_limit;

/* The MPI built-ins with MPI_BYTE semantics for any size_t n. */
int kcoll_mpi_scatter(const void *sendbuf, void *recvbuf, size_t n, int root,
                      MPI_Comm comm);
int kcoll_mpi_gather(const void *sendbuf, void *recvbuf, size_t n, int root,
                     MPI_Comm comm);
int kcoll_mpi_bcast(void *buf, size_t n, int root, MPI_Comm comm);
int kcoll_mpi_allgather(const void *sendbuf, void *recvbuf, size_t n,
                        MPI_Comm comm);
int kcoll_mpi_alltoall(const void *sendbuf, void *recvbuf, size_t n,
                       MPI_Comm comm);

/* Arguments of one call as the algorithms see them. For bcast the buffer is
 * recvbuf. k is the parameter after the colon (0 when none). */
typedef struct {
    const void *sendbuf;
    void *recvbuf;
    size_t n;
    int root;
    int k;
} kcoll_args;

typedef int (*kcoll_algorithm_fn)(kcoll_comm *c, const kcoll_args *a);

int kcoll_scatter_parallel_read(kcoll_comm *c, const kcoll_args *a);
int kcoll_scatter_sequential_write(kcoll_comm *c, const kcoll_args *a);
int kcoll_scatter_throttled_read(kcoll_comm *c, const kcoll_args *a);
int kcoll_gather_parallel_write(kcoll_comm *c, const kcoll_args *a);
int kcoll_gather_sequential_read(kcoll_comm *c, const kcoll_args *a);
int kcoll_gather_throttled_write(kcoll_comm *c, const kcoll_args *a);
int kcoll_bcast_direct_read(kcoll_comm *c, const kcoll_args *a);
int kcoll_bcast_direct_write(kcoll_comm *c, const kcoll_args *a);
int kcoll_bcast_knomial(kcoll_comm *c, const kcoll_args *a);
int kcoll_bcast_scatter_allgather(kcoll_comm *c, const kcoll_args *a);
int kcoll_allgather_ring_neighbor(kcoll_comm *c, const kcoll_args *a);
int kcoll_allgather_ring_source_read(kcoll_comm *c, const kcoll_args *a);
int kcoll_allgather_ring_source_write(kcoll_comm *c, const kcoll_args *a);
int kcoll_allgather_recursive_doubling(kcoll_comm *c, const kcoll_args *a);
int kcoll_allgather_bruck(kcoll_comm *c, const kcoll_args *a);
int kcoll_alltoall_pairwise(kcoll_comm *c, const kcoll_args *a);

/* Propagate an MPI error code. */
#define KCOLL_TRY(call)                                                      \
    do {                                                                     \
        int kcoll_rc_ = (call);                                              \
        if (kcoll_rc_ != MPI_SUCCESS)                                        \
            return kcoll_rc_;                                                \
    } while (0)

#endif
