/* alltoall: block d of rank s's sendbuf lands at recvbuf + s·n of rank d.
 * With sendbuf = MPI_IN_PLACE the blocks to send are read from recvbuf.
 * Paper Section IV-C; model.md, with X(n) = α + n·β:
 *
 *   pairwise   T_sm_allgather + (p−1)·(X(n) + l·pages(n))
 *     After an allgather of the send buffers' addresses, in step t = 1..p−1
 *     each rank reads its block from rank r XOR t when p is a power of two,
 *     else from r−t: every source has one reader per step, so no contention.
 *     In place, the blocks to send are first copied aside, because peers
 *     read them while this rank overwrites recvbuf.
 *   pairwise_flags (derived)
 *        paper: F_allgather + (p−1)·(X(n) + l·pages(n))  (pairwise's row)
 *        full:  F_allgather + (p−1)·(X(n) + l·pages(n)) + max(T_memcpy, F_barrier)
 *               in place: p·n·β + F_allgather + (p−1)·(X(n) + l·pages(n))
 *                         + F_barrier
 *     pairwise with the shared-memory flags of flags.c: each rank posts its
 *     send buffer's address, reads in the same order as pairwise, says
 *     done, copies its own block while the others finish reading its
 *     buffer, and waits for every other rank's done flag. Reading first
 *     and copying last: as ring_source_read_flags (allgather.c), faster
 *     than the other order and than MPI_Alltoall at p = 2 from 1 MiB to
 *     4 MiB (docs/machine.md, "allgather and alltoall"). In place
 *     the blocks to send are copied aside first (p·n bytes), before the
 *     address is posted, and the own block is already in place.
 *     pairwise's paper row leaves out its own copy and its closing
 *     synchronisation (the code has both); the full row charges them.
 *   copy_in_out (derived)  one formula for both models:
 *                (2·(p−1)·m·c + n)·T_memcpy(1) + F_allgather,
 *                in place p·n more (the copy aside),
 *                c = min(n, C), m = ⌈n/C⌉ chunks of C = 16 KiB
 *     No system call (bcast.c's copy_in_out, every process a source of
 *     p − 1 blocks): each rank's stream is its blocks for ranks r+1, r+2,
 *     ..., r+p−1, chunk by chunk through its own staging area (staging.c).
 *     In step g every rank copies chunk g of its stream in, then chunk g
 *     of the stream of rank r − (g/m + 1), which is the one meant for it,
 *     out: the pairs of pairwise, in lockstep. The progress word counts
 *     half-steps (2g + 1 once chunk g is in, 2g + 2 once it copied its
 *     chunk g out); slot g is free again for chunk g + SLOTS once the one
 *     rank chunk g was for has copied it out. In place the blocks to send
 *     are copied aside first (the ones for ranks after r would be
 *     overwritten before they are sent); else the own block last. */
#include <stdlib.h>
#include <string.h>

#include "algos/kcoll_impl.h"

/* In place: the p blocks to send, copied aside into the communicator's
 * scratch (peers read them while this rank overwrites recvbuf); NULL out
 * of memory. */
static const char *set_aside(kcoll_comm *c, const kcoll_args *a)
{
    size_t len = (size_t)c->size * a->n;
    char *aside = kcoll_scratch(c, len);
    if (aside)
        kcal_copy(aside, a->recvbuf, len);
    return aside;
}

int kcoll_alltoall_pairwise(kcoll_comm *c, const kcoll_args *a)
{
    int p = c->size, me = c->rank, status = 0;
    size_t n = a->n;
    char *out = a->recvbuf;
    const char *src = a->sendbuf;
    if (src == MPI_IN_PLACE) {
        if (!(src = set_aside(c, a)))
            return MPI_ERR_NO_MEM;
    } else {
        kcal_copy(out + (size_t)me * n, src + (size_t)me * n, n);
    }
    uint64_t *addr = malloc(sizeof(uint64_t) * (size_t)p);
    if (!addr)
        return MPI_ERR_NO_MEM;
    uint64_t mine = kcoll_addr(src);
    int rc = MPI_Allgather(&mine, 1, MPI_UINT64_T, addr, 1, MPI_UINT64_T,
                           c->comm);
    int pow2 = (p & (p - 1)) == 0;
    for (int t = 1; t < p && rc == MPI_SUCCESS; t++) {
        int s = pow2 ? me ^ t : (me - t + p) % p;
        status |= kcoll_cma_read(c->pids[s], out + (size_t)s * n,
                                 addr[s] + (uint64_t)me * n, n) != 0;
    }
    free(addr);
    /* Sources must stay valid until every reader is done. */
    if (rc == MPI_SUCCESS)
        rc = kcoll_ctl_allstatus(c, &status);
    KCOLL_TRY(rc);
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_alltoall_pairwise_flags(kcoll_comm *c, const kcoll_args *a)
{
    KCOLL_TRY(kcoll_flags_get(c));
    int p = c->size, me = c->rank, status = 0;
    size_t n = a->n;
    char *out = a->recvbuf;
    const char *src = a->sendbuf;
    int in_place = src == MPI_IN_PLACE;
    if (in_place && !(src = set_aside(c, a)))
        return MPI_ERR_NO_MEM; /* the others wait, as in pairwise */
    kcoll_flag_post(c, kcoll_addr(src));
    int pow2 = (p & (p - 1)) == 0;
    for (int t = 1; t < p; t++) {
        int s = pow2 ? me ^ t : (me - t + p) % p;
        uint64_t from = kcoll_flag_wait_post(c, s);
        status |= kcoll_cma_read(c->pids[s], out + (size_t)s * n,
                                 from + (uint64_t)me * n, n) != 0;
    }
    kcoll_flag_done(c, status);
    if (!in_place)
        kcal_copy(out + (size_t)me * n, src + (size_t)me * n, n);
    for (int r = 0; r < p; r++)
        if (r != me)
            status |= kcoll_flag_wait_done(c, r);
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* copy_in_out's progress word in half-steps (step g: chunk g in, then the
 * chunk g meant for this rank out). */
#define HALF_IN KCOLL_HALF_IN
#define HALF_OUT KCOLL_HALF_OUT

int kcoll_alltoall_copy_in_out(kcoll_comm *c, const kcoll_args *a)
{
    int p = c->size, me = c->rank;
    size_t n = a->n;
    uint64_t m, seq = c->seq;
    /* HALF_OUT(steps) */
    KCOLL_TRY(kcoll_staging_enter(c, n, 2 * (uint64_t)(p - 1), 2, &m));
    const uint64_t chunk = KCAL_STAGING_CHUNK, slots = KCAL_STAGING_SLOTS;
    uint64_t steps = m * (uint64_t)(p - 1);
    char *out = a->recvbuf;
    const char *src = a->sendbuf;
    int in_place = src == MPI_IN_PLACE;
    if (in_place && !(src = set_aside(c, a)))
        return MPI_ERR_NO_MEM; /* the others wait, as in pairwise */
    kcoll_staging_wait_free(c);
    for (uint64_t g = 0; g < steps; g++) {
        int v = (int)(g / m) + 1;
        uint64_t i = g % m;
        size_t len = kcoll_staging_chunk_len(n, i);
        if (g >= slots) {
            /* Chunk g − slots was for rank me + (its block's v). */
            int was_for = (me + (int)((g - slots) / m) + 1) % p;
            kcoll_flag_wait_progress(c, was_for, seq, HALF_OUT(g - slots));
        }
        int to = (me + v) % p, from = (me - v + p) % p;
        kcal_copy(kcoll_staging_slot(c, me, g),
                  src + (size_t)to * n + i * chunk, len);
        kcoll_flag_progress(c, HALF_IN(g));
        kcoll_flag_wait_progress(c, from, seq, HALF_IN(g));
        kcal_copy(out + (size_t)from * n + i * chunk,
                  kcoll_staging_slot(c, from, g), len);
        kcoll_flag_progress(c, HALF_OUT(g));
    }
    if (!in_place)
        kcal_copy(out + (size_t)me * n, src + (size_t)me * n, n);
    kcoll_flag_progress(c, KCOLL_PROGRESS_DONE);
    return MPI_SUCCESS;
}
