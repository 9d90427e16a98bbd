/* allgather: rank r's n-byte block lands at recvbuf + r·n on every rank.
 * With sendbuf = MPI_IN_PLACE the block is already at recvbuf + r·n.
 * Paper Section V-A; model.md, with X(n) = α + n·β:
 *
 *   ring_neighbor:j    T_memcpy + T_sm_allgather + (p−1)·(X(n) + l·pages(n))
 *                      + T_sm_barrier
 *     Each rank reads from left = r−j; in step t it reads block r−j·(t+1),
 *     which left received in its step t−1, so left sends a token after each
 *     step (the first carries the address of its own block, the second
 *     that of its recvbuf). Needs gcd(p, j) = 1.
 *     Step 0 reads left's own block where the user put it (its send
 *     buffer), not the copy in left's recvbuf, and each rank copies its
 *     own block last: lines another core has just written cost more to
 *     read (up to twice: docs/machine.md, "allgather and alltoall" and
 *     "The local copy in pieces"); reading the send buffer brings the
 *     step to ring_source_read's time, which reads the send buffers.
 *   ring_source_read   as ring_neighbor
 *     In step t = 1..p−1 read block r−t straight from its source; the
 *     sources never change, so only the address allgather and the closing
 *     synchronisation are needed. Its slow mode in kcal bench (issue 8:
 *     median far above the minimum) came from the variant timed before it
 *     on the same buffers: after ring_source_write, which leaves this
 *     process's recvbuf lines owned by the other core, or ring_neighbor,
 *     which leaves the sources' sendbufs out of cache, it took up to twice
 *     as long (docs/machine.md, "allgather and alltoall"; gather.c has
 *     what was ruled out); kcal bench now times every variant in its own
 *     steady state.
 *   ring_source_write  as ring_neighbor; step t writes this rank's block
 *     into rank r+t.
 *   recursive_doubling T_memcpy + T_sm_allgather + lg p·α
 *                      + (p−1)·(n·β + l·pages(n)) + T_sm_barrier
 *     In round m = 2^i a rank reads, in one call, the 2^i-block group of its
 *     partner r XOR m. When p is not a power of two and the partner does not
 *     exist, another member of that group (which holds the same blocks) is
 *     read instead; a group wholly beyond p is skipped. Round 1 reads the
 *     partner's own block from its send buffer (ready from the start, and
 *     not just written by the partner's core: gather_addrs); from
 *     round 2 each source sends a token to its readers when it finished
 *     the round before, its own block copied in before the first. At p = 2
 *     that nearly halved the call from 4 to 256 KiB (docs/machine.md,
 *     "allgather and alltoall").
 *   bruck              T_sm_allgather + lg p·α + (p−1)·(2·n·β + l·pages(n))
 *                      + T_sm_barrier
 *     Blocks r, r+1, ... accumulate at the start of a temporary buffer; in
 *     round i a rank appends the first min(2^i, p−2^i) blocks of rank r+2^i,
 *     then rotates the result down by r blocks (the second n·β). Round 0
 *     reads rank r+1's own block from its send buffer, as
 *     recursive_doubling's round 1 does, with no token (about half the
 *     call at 64 KiB, p = 2: docs/machine.md).
 *   ring_source_read_flags (derived)
 *                paper: T_memcpy + F_allgather + (p−1)·(X(n) + l·pages(n))
 *                       + F_barrier  (the ring row with F_X for T_sm_X)
 *                full:  F_allgather + (p−1)·(X(n) + l·pages(n))
 *                       + max(T_memcpy, F_barrier)
 *     ring_source_read with the shared-memory flags of flags.c: each rank
 *     posts where its block is, reads block r−t from rank r−t in step
 *     t = 1..p−1 as soon as that rank's address is there, says done (with
 *     its status), and only then copies its own block, while the others
 *     finish reading it; then it waits for every other rank's done. Every
 *     rank reports any rank's failure, as ring_source_read's closing
 *     allreduce does. Reading first and copying last was faster than the
 *     other order (and than MPI_Allgather) at p = 2 from 1 MiB to 4 MiB
 *     (docs/machine.md, "allgather and alltoall"): the own copy overlaps
 *     the peer's reading. The model has no term for that; the full row
 *     charges the copy where it overlaps the wait.
 *   copy_in_out (derived)  one formula for both models:
 *                (p·m·c + n_own)·T_memcpy(1) + F_allgather,
 *                c = min(n, C), m = ⌈n/C⌉ chunks of C = 16 KiB,
 *                n_own = n (0 in place)
 *     No system call (bcast.c's copy_in_out, every process a root): in
 *     round i every rank copies chunk i of its block into its own staging
 *     area (staging.c), then chunk i of every other rank's block out of
 *     theirs as each one's progress word says it is in. The word counts
 *     half-rounds: 2i + 1 once chunk i is in, 2i + 2 once round i's copies
 *     out are done, which frees slot i for chunk i + SLOTS. The own block
 *     last. Each rank copies m chunks in and (p − 1)·m out. */
#include <stdlib.h>
#include <string.h>

#include "algos/kcoll_impl.h"

static char *block(const kcoll_args *a, int r)
{
    return (char *)a->recvbuf + (size_t)r * a->n;
}

static void copy_own(kcoll_comm *c, const kcoll_args *a)
{
    if (a->sendbuf != MPI_IN_PLACE)
        kcal_copy(block(a, c->rank), a->sendbuf, a->n);
}

/* Where this rank's own block can be read from. */
static const void *own_source(kcoll_comm *c, const kcoll_args *a)
{
    return a->sendbuf != MPI_IN_PLACE ? a->sendbuf : block(a, c->rank);
}

static int finish(kcoll_comm *c, int status)
{
    KCOLL_TRY(kcoll_ctl_allstatus(c, &status));
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_allgather_ring_neighbor(kcoll_comm *c, const kcoll_args *a)
{
    int tag = kcoll_tag(c, 0), p = c->size, me = c->rank, j = a->k;
    int left = (me - j % p + p) % p, right = (me + j) % p, status = 0;
    uint64_t own = 0, src = 0, ignored = 0;
    kcoll_outbox out;
    kcoll_outbox_init(&out);
    /* The first token carries where this rank's own block can be read,
     * the user's buffer (ready from the start; gather_addrs says why
     * not the copy in recvbuf), the second where recvbuf is: right reads
     * the blocks received here from step 1 on, never the own one. */
    int rc = kcoll_outbox_send(c, &out, right, tag,
                               kcoll_addr(own_source(c, a)), 0);
    for (int t = 0; t < p - 1 && rc == MPI_SUCCESS; t++) {
        rc = kcoll_ctl_recv_addr(c, left, tag,
                                 t == 0 ? &own : t == 1 ? &src : &ignored,
                                 &status);
        if (rc != MPI_SUCCESS)
            break;
        int b = (int)(((long)me - (long)j * (t + 1)) % p + p) % p;
        status |= kcoll_cma_read(c->pids[left], block(a, b),
                                 t == 0 ? own : src + (uint64_t)b * a->n,
                                 a->n) != 0;
        if (t + 1 < p - 1)
            rc = kcoll_outbox_send(c, &out, right, tag,
                                   t == 0 ? kcoll_addr(a->recvbuf) : 0, status);
    }
    copy_own(c, a); /* last: nobody reads it from recvbuf */
    KCOLL_TRY(kcoll_outbox_finish(&out, rc));
    return finish(c, status);
}

/* Every rank's `per_rank` addresses in one allgather: rank r's at
 * (*out)[per_rank·r ...]. recursive_doubling and Bruck send two: where
 * their own block can be read (own_source), then the buffer their later
 * rounds fill. Their first round reads the own block from the first: it
 * is the user's data, unchanged in the call, while the copy of it in the
 * round buffer was written a moment before by the source's core, and
 * reading lines another core just wrote cost up to twice as much
 * (docs/machine.md, "allgather and alltoall"). */
static int gather_addrs(kcoll_comm *c, const uint64_t *mine, int per_rank,
                        uint64_t **out)
{
    *out = malloc(sizeof(uint64_t) * (size_t)per_rank * (size_t)c->size);
    if (!*out)
        return MPI_ERR_NO_MEM;
    int rc = MPI_Allgather(mine, per_rank, MPI_UINT64_T, *out, per_rank,
                           MPI_UINT64_T, c->comm);
    if (rc != MPI_SUCCESS)
        free(*out);
    return rc;
}

int kcoll_allgather_ring_source_read(kcoll_comm *c, const kcoll_args *a)
{
    int p = c->size, me = c->rank, status = 0;
    uint64_t *src;
    copy_own(c, a);
    uint64_t mine = kcoll_addr(own_source(c, a));
    KCOLL_TRY(gather_addrs(c, &mine, 1, &src));
    for (int t = 1; t < p; t++) {
        int s = (me - t + p) % p;
        status |= kcoll_cma_read(c->pids[s], block(a, s), src[s], a->n) != 0;
    }
    free(src);
    return finish(c, status);
}

int kcoll_allgather_ring_source_write(kcoll_comm *c, const kcoll_args *a)
{
    int p = c->size, me = c->rank, status = 0;
    uint64_t *dst;
    copy_own(c, a);
    uint64_t mine = kcoll_addr(a->recvbuf);
    KCOLL_TRY(gather_addrs(c, &mine, 1, &dst));
    for (int t = 1; t < p; t++) {
        int d = (me + t) % p;
        status |= kcoll_cma_write(c->pids[d], own_source(c, a),
                                  dst[d] + (uint64_t)me * a->n, a->n) != 0;
    }
    free(dst);
    return finish(c, status);
}

/* Whom rank r reads from in round m (-1: nothing to read). */
static int rd_source(int r, int m, int p)
{
    int partner = r ^ m, group = partner & ~(m - 1);
    if (group >= p)
        return -1;
    if (partner < p)
        return partner;
    return group + (r & (m - 1)) % (p - group);
}

int kcoll_allgather_recursive_doubling(kcoll_comm *c, const kcoll_args *a)
{
    int tag = kcoll_tag(c, 0), p = c->size, me = c->rank, status = 0;
    uint64_t *addr;
    uint64_t mine[2] = {kcoll_addr(own_source(c, a)), kcoll_addr(a->recvbuf)};
    KCOLL_TRY(gather_addrs(c, mine, 2, &addr));
    int rc = MPI_SUCCESS;
    uint64_t ignored;
    kcoll_outbox out;
    kcoll_outbox_init(&out);
    for (int m = 1; m < p && rc == MPI_SUCCESS; m <<= 1) {
        /* Round 1 reads the partner's own block where the user put it:
         * ready from the start, so it needs no token. Later rounds read
         * the recvbuf groups, whose tokens say they are complete; the own
         * block is one of them, so it is copied in before the first. */
        if (m == 2)
            copy_own(c, a);
        for (int r = 0; r < p && rc == MPI_SUCCESS && m > 1; r++)
            if (r != me && rd_source(r, m, p) == me)
                rc = kcoll_outbox_send(c, &out, r, tag, 0, status);
        int s = rd_source(me, m, p);
        if (s < 0 || rc != MPI_SUCCESS)
            continue;
        int group = (me ^ m) & ~(m - 1);
        int count = group + m <= p ? m : p - group;
        if (m == 1) {
            status |= kcoll_cma_read(c->pids[s], block(a, s), addr[2 * s],
                                     a->n) != 0;
            continue;
        }
        if ((rc = kcoll_ctl_recv_addr(c, s, tag, &ignored, &status)) != MPI_SUCCESS)
            break;
        status |= kcoll_cma_read(c->pids[s], block(a, group),
                                 addr[2 * s + 1] + (uint64_t)group * a->n,
                                 (size_t)count * a->n) != 0;
    }
    if (p <= 2)
        copy_own(c, a); /* no round 2: last, while the partner reads */
    free(addr);
    KCOLL_TRY(kcoll_outbox_finish(&out, rc));
    return finish(c, status);
}

int kcoll_allgather_bruck(kcoll_comm *c, const kcoll_args *a)
{
    int tag = kcoll_tag(c, 0), p = c->size, me = c->rank, status = 0;
    size_t n = a->n;
    char *tmp = kcoll_scratch(c, (size_t)p * n);
    if (!tmp)
        return MPI_ERR_NO_MEM;
    uint64_t *addr;
    uint64_t mine[2] = {kcoll_addr(own_source(c, a)), kcoll_addr(tmp)};
    KCOLL_TRY(gather_addrs(c, mine, 2, &addr));
    int have = 1, rc = MPI_SUCCESS;
    uint64_t ignored;
    kcoll_outbox out;
    kcoll_outbox_init(&out);
    for (int d = 1; d < p && rc == MPI_SUCCESS; d <<= 1) {
        int reader = (me - d + p) % p, src = (me + d) % p;
        int count = d < p - d ? d : p - d;
        /* Round 1 reads src's own block where the user put it (ready, no
         * token; gather_addrs says why); later rounds read the start
         * of src's tmp, whose token says it holds them, the own block
         * first, so that is copied in before the first token. */
        if (d == 1) {
            status |= kcoll_cma_read(c->pids[src], tmp + n, addr[2 * src],
                                     n) != 0;
            have = 2;
            continue;
        }
        if (d == 2)
            kcal_copy(tmp, own_source(c, a), n);
        rc = kcoll_outbox_send(c, &out, reader, tag, 0, status);
        if (rc == MPI_SUCCESS)
            rc = kcoll_ctl_recv_addr(c, src, tag, &ignored, &status);
        if (rc != MPI_SUCCESS)
            break;
        status |= kcoll_cma_read(c->pids[src], tmp + (size_t)have * n,
                                 addr[2 * src + 1], (size_t)count * n) != 0;
        have += count;
    }
    if (p <= 2)
        kcal_copy(tmp, own_source(c, a), n); /* no round 2: last */
    free(addr);
    rc = kcoll_outbox_finish(&out, rc);
    if (rc == MPI_SUCCESS) {
        /* tmp holds blocks me, me+1, ..., p−1, 0, ..., me−1. */
        size_t head = (size_t)(p - me) * n;
        kcal_copy(block(a, me), tmp, head);
        kcal_copy(block(a, 0), tmp + head, (size_t)me * n);
        /* Readers of tmp must be done before the next call reuses it. */
        rc = kcoll_ctl_allstatus(c, &status);
    }
    KCOLL_TRY(rc);
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_allgather_ring_source_read_flags(kcoll_comm *c, const kcoll_args *a)
{
    KCOLL_TRY(kcoll_flags_get(c));
    int p = c->size, me = c->rank, status = 0;
    kcoll_flag_post(c, kcoll_addr(own_source(c, a)));
    for (int t = 1; t < p; t++) {
        int s = (me - t + p) % p;
        uint64_t src = kcoll_flag_wait_post(c, s);
        status |= kcoll_cma_read(c->pids[s], block(a, s), src, a->n) != 0;
    }
    kcoll_flag_done(c, status);
    copy_own(c, a);
    for (int t = 1; t < p; t++)
        status |= kcoll_flag_wait_done(c, (me + t) % p);
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* copy_in_out's progress word in half-rounds (round i: chunk i in, then
 * every other chunk i out): kcoll_impl.h's KCOLL_HALF_*. */
#define HALF_IN KCOLL_HALF_IN
#define HALF_OUT KCOLL_HALF_OUT

int kcoll_allgather_copy_in_out(kcoll_comm *c, const kcoll_args *a)
{
    uint64_t m, seq = c->seq;
    KCOLL_TRY(kcoll_staging_enter(c, a->n, 2, 2, &m)); /* HALF_OUT(m) */
    int p = c->size, me = c->rank;
    const uint64_t chunk = KCAL_STAGING_CHUNK, slots = KCAL_STAGING_SLOTS;
    const char *own = own_source(c, a);
    kcoll_staging_wait_free(c);
    for (uint64_t i = 0; i < m; i++) {
        size_t len = kcoll_staging_chunk_len(a->n, i);
        if (i >= slots) /* every other rank has copied chunk i − slots out */
            for (int r = 0; r < p; r++)
                if (r != me)
                    kcoll_flag_wait_progress(c, r, seq, HALF_OUT(i - slots));
        kcal_copy(kcoll_staging_slot(c, me, i), own + i * chunk, len);
        kcoll_flag_progress(c, HALF_IN(i));
        for (int v = 1; v < p; v++) {
            int r = (me + v) % p;
            kcoll_flag_wait_progress(c, r, seq, HALF_IN(i));
            kcal_copy(block(a, r) + i * chunk, kcoll_staging_slot(c, r, i),
                      len);
        }
        kcoll_flag_progress(c, HALF_OUT(i));
    }
    copy_own(c, a);
    kcoll_flag_progress(c, KCOLL_PROGRESS_DONE);
    return MPI_SUCCESS;
}
