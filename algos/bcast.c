/* bcast: the root's n bytes end up in buf on every rank (n is the whole
 * message here). Paper Section V-B; model.md, with X(n) = α + n·β,
 * P(c,n) = l·γ(c)·pages(n):
 *
 *   direct_read        T_sm_bcast + X(n) + P(p,n) + T_sm_gather
 *     The root broadcasts its buffer address; all others read it at once.
 *   direct_write       T_sm_gather + p·(X(n) + l·pages(n)) + T_sm_bcast
 *     The root gathers the addresses and writes to one rank after another.
 *   knomial:k          T_sm_bcast + log_k p·(X(n) + P(k,n))
 *     A radix-k tree over ranks relative to the root: ⌈log_k p⌉ rounds; in
 *     round m = k^i every process that has the data (relative rank < m)
 *     lets children v + j·m (j = 1..k−1) read it at once and waits for them
 *     before the next round (k−1 readers per source; the model charges
 *     γ(k), the paper's "up to k readers"). The address travels with the
 *     go-ahead, so the tree needs no separate address broadcast.
 *   scatter_allgather  T_sm_allgather + T_seqwrite_scatter(⌈n/p⌉)
 *                      + T_ring_allgather(⌈n/p⌉)
 *     Chunk r = bytes [r·c, (r+1)·c) with c = ⌈n/p⌉ (the last ones may be
 *     short or empty). After an allgather of addresses the root writes chunk
 *     r into rank r (sequential_write), then a ring (ring_neighbor, j = 1):
 *     in step t each rank reads chunk r−1−t from its left neighbour once
 *     that neighbour holds it. The root holds every chunk and reads none,
 *     and the rank after the root reads from it while the root is still
 *     writing: at p = 2 the two halves move at once, one by each process.
 *   direct_split (derived)  F_allgather + max((p−1)·W(c), X(n−c) + P(p−1,n−c))
 *                           + F_barrier,  c = ⌈n/p⌉, W(c) = X(c) + l·pages(c)
 *     direct_read with the root's core helping: the root writes the last c
 *     bytes into each other rank, one after the other, while every other
 *     rank reads the first n − c bytes from the root at once, so the root
 *     and the readers copy about the same amount ((p−1)·c against n − c).
 *     At p = 2 the two halves move at once, one by each core, as in
 *     scatter_allgather, with one synchronisation less: every process posts
 *     its buffer's address (F_allgather), and at the end the root waits for
 *     the readers' done flags (they read its buffer) and the readers for
 *     the root's (it wrote theirs): F_barrier. The synchronisations are the
 *     shared-memory flags of flags.c. A failed write of the root is
 *     reported by every reader (the root's one done flag cannot say which
 *     rank's tail it spoiled). Up to some tens of KiB two CMA calls at
 *     once each cost more than alone, in either direction (alone a write
 *     costs what a read does), in the other process's page walk, so the
 *     two halves take nearly as long as one whole read; a smaller or
 *     larger share for the root did not pay, so the halves stay even
 *     (docs/machine.md, "bcast"). Where a host makes one bare read cheap,
 *     the MPI library's bcast, that read plus its hand-offs, gains it all
 *     and this row does not (docs/machine.md, "bcast at 64 KiB, launch by
 *     launch").
 *   copy_in_out (derived)  (m + 1)·T_memcpy(c) + F_bcast,
 *                          c = min(n, C), m = ⌈n/C⌉ chunks of C = 16 KiB
 *     No system call: the root copies the message chunk by chunk into a
 *     staging area of its own (staging.c, KCAL_STAGING_SLOTS slots of C bytes)
 *     and the others copy each chunk out as soon as the root's progress
 *     flag says it is in, so the root's copy of chunk i runs while the
 *     others copy chunk i − 1: m + 1 chunk copies one after the other,
 *     and one flag hand-off to start. As XHC's copy-in/copy-out below its
 *     single-copy threshold; worth it where a CMA call's start-up and
 *     pinning cost more than a second copy through the cache (up to some
 *     tens of KiB; the model finds where from the probed α, l, β and
 *     sm_flag). The root overwrites a slot only once every reader has
 *     copied out what was in it, in this call (chunk i − SLOTS) or the
 *     last one that used the area (every process flags when its part of a
 *     call is over, and the next root waits for that before its first
 *     chunk instead of the readers making the root wait at the end). */
#include <stdlib.h>
#include <string.h>

#include "algos/kcoll_impl.h"

int kcoll_bcast_direct_read(kcoll_comm *c, const kcoll_args *a)
{
    int tag = kcoll_tag(c, 0), status = 0;
    uint64_t src = c->rank == a->root ? kcoll_addr(a->recvbuf) : 0;
    KCOLL_TRY(MPI_Bcast(&src, 1, MPI_UINT64_T, a->root, c->comm));
    if (c->rank != a->root) {
        status = kcoll_cma_read(c->pids[a->root], a->recvbuf, src, a->n) != 0;
        KCOLL_TRY(kcoll_ctl_send(c, a->root, tag, status));
        return status ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    for (int i = 1; i < c->size; i++)
        KCOLL_TRY(kcoll_ctl_recv(c, MPI_ANY_SOURCE, tag, &status));
    return MPI_SUCCESS;
}

int kcoll_bcast_direct_write(kcoll_comm *c, const kcoll_args *a)
{
    int tag = kcoll_tag(c, 0), status = 0, p = c->size;
    uint64_t mine = kcoll_addr(a->recvbuf);
    if (c->rank != a->root) {
        KCOLL_TRY(MPI_Gather(&mine, 1, MPI_UINT64_T, NULL, 1, MPI_UINT64_T,
                             a->root, c->comm));
        KCOLL_TRY(kcoll_ctl_recv(c, a->root, tag, &status));
        return status ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    uint64_t dst[p];
    KCOLL_TRY(MPI_Gather(&mine, 1, MPI_UINT64_T, dst, 1, MPI_UINT64_T,
                         a->root, c->comm));
    int failed = 0;
    for (int v = 1; v < p; v++) {
        int r = (a->root + v) % p;
        int st = kcoll_cma_write(c->pids[r], a->recvbuf, dst[r], a->n) != 0;
        failed |= st;
        KCOLL_TRY(kcoll_ctl_send(c, r, tag, st));
    }
    return failed ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_bcast_knomial(kcoll_comm *c, const kcoll_args *a)
{
    int tag_go = kcoll_tag(c, 0), tag_done = kcoll_tag(c, 1);
    int p = c->size, k = a->k, status = 0;
    long v = (c->rank - a->root + p) % p, first = 1;
    if (v != 0) {
        long m = 1;
        while (m * k <= v)
            m *= k;
        int parent = (int)((v % m + a->root) % p);
        uint64_t src = 0;
        KCOLL_TRY(kcoll_ctl_recv_addr(c, parent, tag_go, &src, &status));
        status |= kcoll_cma_read(c->pids[parent], a->recvbuf, src, a->n) != 0;
        KCOLL_TRY(kcoll_ctl_send(c, parent, tag_done, 0));
        first = m * k;
    }
    for (long m = first; m < p; m *= k) {
        int children = 0;
        for (long j = 1; j < k && v + j * m < p; j++, children++)
            KCOLL_TRY(kcoll_ctl_send_addr(c, (int)((v + j * m + a->root) % p),
                                          tag_go, kcoll_addr(a->recvbuf),
                                          status));
        int ignored = 0;
        for (int i = 0; i < children; i++)
            KCOLL_TRY(kcoll_ctl_recv(c, MPI_ANY_SOURCE, tag_done, &ignored));
    }
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* scatter_allgather: this rank's own chunk has come from the root (wait for
 * the root's word); then tell the right neighbour, whose ring step t needs
 * this rank's step t−1 (the root needs no token). */
static int own_chunk_arrived(kcoll_comm *c, int root, int right,
                             int tag_chunk, int tag_ring, int *status)
{
    KCOLL_TRY(kcoll_ctl_recv(c, root, tag_chunk, status));
    if (right != root)
        KCOLL_TRY(kcoll_ctl_send(c, right, tag_ring, *status));
    return MPI_SUCCESS;
}

int kcoll_bcast_scatter_allgather(kcoll_comm *c, const kcoll_args *a)
{
    int tag_chunk = kcoll_tag(c, 0), tag_ring = kcoll_tag(c, 1);
    int tag_done = kcoll_tag(c, 2);
    int p = c->size, me = c->rank, root = a->root, status = 0;
    int left = (me - 1 + p) % p, right = (me + 1) % p;
    size_t chunk = (a->n + (size_t)p - 1) / (size_t)p;
    uint64_t *addr = malloc(sizeof(uint64_t) * (size_t)p);
    if (!addr)
        return MPI_ERR_NO_MEM;
    uint64_t mine = kcoll_addr(a->recvbuf);
    int rc = MPI_Allgather(&mine, 1, MPI_UINT64_T, addr, 1, MPI_UINT64_T,
                           c->comm);
    if (rc != MPI_SUCCESS)
        goto out;
#define CHUNK_LO(r) ((size_t)(r) * chunk < a->n ? (size_t)(r) * chunk : a->n)
#define CHUNK_LEN(r) (CHUNK_LO((r) + 1) - CHUNK_LO(r))
    if (me == root) {
        for (int v = 1; v < p; v++) {
            int r = (root + v) % p;
            int st = kcoll_cma_write(c->pids[r],
                                     (char *)a->recvbuf + CHUNK_LO(r),
                                     addr[r] + CHUNK_LO(r), CHUNK_LEN(r)) != 0;
            status |= st;
            if ((rc = kcoll_ctl_send(c, r, tag_chunk, st)) != MPI_SUCCESS)
                goto out;
        }
    } else {
        /* The root holds every chunk from the start, so the rank after it
         * reads at once, while the root is still writing the chunks (the
         * scatter and the ring overlap; the model adds them up). Every
         * other rank waits for its own chunk, then for tokens. */
        int have_own = 0;
        if (left != root) {
            if ((rc = own_chunk_arrived(c, root, right, tag_chunk, tag_ring,
                                        &status)) != MPI_SUCCESS)
                goto out;
            have_own = 1;
        }
        for (int t = 0; t < p - 1; t++) {
            if (left != root &&
                (rc = kcoll_ctl_recv(c, left, tag_ring, &status)) != MPI_SUCCESS)
                goto out;
            int b = ((me - 1 - t) % p + p) % p;
            status |= kcoll_cma_read(c->pids[left],
                                     (char *)a->recvbuf + CHUNK_LO(b),
                                     addr[left] + CHUNK_LO(b),
                                     CHUNK_LEN(b)) != 0;
            if (!have_own) {
                if ((rc = own_chunk_arrived(c, root, right, tag_chunk,
                                            tag_ring, &status)) != MPI_SUCCESS)
                    goto out;
                have_own = 1;
            }
            if (t + 1 < p - 1 && right != root &&
                (rc = kcoll_ctl_send(c, right, tag_ring, status)) != MPI_SUCCESS)
                goto out;
        }
        /* Left may reuse its buffer once this rank stopped reading it. */
        if ((rc = kcoll_ctl_send(c, left, tag_done, 0)) != MPI_SUCCESS)
            goto out;
    }
#undef CHUNK_LO
#undef CHUNK_LEN
    if (right != root) {
        int ignored = 0;
        rc = kcoll_ctl_recv(c, right, tag_done, &ignored);
    } else {
        rc = MPI_SUCCESS;
    }
out:
    free(addr);
    if (rc != MPI_SUCCESS)
        return rc;
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_bcast_direct_split(kcoll_comm *c, const kcoll_args *a)
{
    KCOLL_TRY(kcoll_flags_get(c));
    int p = c->size;
    size_t tail = a->n / (size_t)p + (a->n % (size_t)p != 0);
    size_t head = a->n - tail;
    char *buf = a->recvbuf;
    kcoll_flag_post(c, kcoll_addr(buf));
    if (c->rank == a->root) {
        int failed = 0;
        for (int v = 1; v < p && tail > 0; v++) {
            int r = (a->root + v) % p;
            uint64_t dst = kcoll_flag_wait_post(c, r);
            failed |= kcoll_cma_write(c->pids[r], buf + head, dst + head,
                                      tail) != 0;
        }
        kcoll_flag_done(c, failed);
        /* The readers read this buffer until their done flags. */
        for (int v = 1; v < p; v++)
            kcoll_flag_wait_done(c, (a->root + v) % p);
        return failed ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    uint64_t src = kcoll_flag_wait_post(c, a->root);
    int failed = head > 0 &&
                 kcoll_cma_read(c->pids[a->root], buf, src, head) != 0;
    kcoll_flag_done(c, failed);
    failed |= kcoll_flag_wait_done(c, a->root); /* the root wrote the tail */
    return failed ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_bcast_copy_in_out(kcoll_comm *c, const kcoll_args *a)
{
    uint64_t m, seq = c->seq;
    KCOLL_TRY(kcoll_staging_enter(c, a->n, 1, 0, &m));
    int p = c->size, me = c->rank, root = a->root;
    const uint64_t chunk = KCAL_STAGING_CHUNK, slots = KCAL_STAGING_SLOTS;
    char *buf = a->recvbuf;
    if (me == root) {
        kcoll_staging_wait_free(c);
        for (uint64_t i = 0; i < m; i++) {
            if (i >= slots)
                for (int r = 0; r < p; r++)
                    if (r != me)
                        kcoll_flag_wait_progress(c, r, seq, i - slots + 1);
            kcal_copy(kcoll_staging_slot(c, root, i), buf + i * chunk,
                      kcoll_staging_chunk_len(a->n, i));
            kcoll_flag_progress(c, i + 1);
        }
    } else {
        kcoll_staging_drain(c, root, 0, m, buf, a->n, 0);
    }
    kcoll_flag_progress(c, KCOLL_PROGRESS_DONE);
    return MPI_SUCCESS;
}
