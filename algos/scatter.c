/* scatter: the root's sendbuf holds p blocks of n bytes; block r goes to
 * rank r. With recvbuf = MPI_IN_PLACE at the root its block stays put.
 * Paper Section IV-A; model.md, with X(n) = α + n·β, P(c,n) = l·γ(c)·pages(n):
 *
 *   parallel_read     T_sm_bcast + X(n) + P(p,n) + T_sm_gather
 *     The root broadcasts its sendbuf address; every other rank reads its
 *     block at once and reports to the root, which copies its own block
 *     meanwhile and returns after p−1 reports.
 *   sequential_write  T_memcpy + T_sm_gather + p·(X(n) + l·pages(n)) + T_sm_bcast
 *     The root gathers the recvbuf addresses and writes the blocks one after
 *     the other, releasing each rank as soon as its block is written.
 *     The slowest scatter from 512 KiB up, and at 1 MiB the broadest
 *     spread: all the copying is the root's. At p = 2 the root's core
 *     touches 4·n bytes a call (its sendbuf, its own and the peer's
 *     recvbuf); where that straddles its L2, each call finds a varying
 *     part of it in a shared L3 (docs/machine.md, "kcal profile"). A write pins the peer's pages but copies on the root's
 *     core; no order of the copies changes what one core must move. Kept
 *     as the paper's reference row.
 *   throttled_read:k  T_sm_bcast + ⌈p/k⌉·(X(n) + P(k,n))
 *     At most k readers at a time (Section IV-A3): non-root reader q
 *     (0..p−2, counted from root+1) waits for a token from reader q−k, reads,
 *     and passes the token to reader q+k; the root waits only for the last k
 *     readers, which finish after every earlier one.
 *   parallel_read_flags (derived)
 *                     paper: F_bcast + X(n) + P(p,n) + F_gather
 *                     full:  F_bcast + X(n) + P(p−1,n) + F_gather
 *     parallel_read with its two synchronisations made through the
 *     shared-memory flags of flags.c instead of MPI messages: the root posts
 *     its sendbuf address, every other rank reads its block and says done,
 *     the root copies its own block meanwhile and waits for the p−1 done
 *     flags. F_X is a flag synchronisation (model.md: T_sm_X scaled by
 *     sm_flag / sync_step); the paper row is parallel_read's with F_X, the
 *     full one has P(p−1, n): the root reads nothing, so p−1 copies
 *     contend. Flags cost less than MPI messages for small blocks
 *     (docs/machine.md, "scatter and gather").
 *   parallel_read_split (derived)  one formula for both models:
 *                     F_allgather + (when the last chunk ends) + F_barrier
 *     parallel_read_flags with the root's idle time put to work: each
 *     block is cut into chunks (kcal_model_split_chunk: halves
 *     below 576 KiB, then about √(n · 16 KiB)) and the rank it belongs to and the root take them from
 *     one counter (kcoll_flag_claim): the rank reads its chunks, the root,
 *     after copying its own block, writes the chunks still left into the
 *     rank's recvbuf, rank after rank. No machine's ratio is built in: the
 *     shares settle by themselves at whatever memcpy and CMA cost here.
 *     Each rank posts its recvbuf's address, says done after its last
 *     chunk and waits for the root's done (the root may still be writing
 *     into its buffer); the root waits for every done (they read its
 *     sendbuf). Why: most of a large CMA read is the kernel pinning the
 *     root's pages one by one (__get_user_pages, follow_page_pte), not
 *     the copy, while the root, done with its own memcpy, waits out the
 *     rest (docs/machine.md, "kcal profile"). A write pins the pages of
 *     the process written to, so the root's share costs the reader
 *     nothing.
 *   copy_in_out (derived)  one formula for both models:
 *                     ((p−1)·m·c + max(n_own, c))·T_memcpy(1) + F_bcast,
 *                     c = min(n, C), m = ⌈n/C⌉ chunks of C = 16 KiB,
 *                     n_own = n (0 in place)
 *     bcast's copy_in_out (bcast.c) with a block per reader: no system
 *     call; the root copies the others' blocks, rank after rank, chunk by
 *     chunk into its staging area (staging.c), one stream of (p−1)·m
 *     chunks through its slots; each rank copies its m chunks out as the
 *     root's progress word passes them and counts them in its own, which
 *     says when the root may reuse a slot (chunk g − SLOTS belongs to one
 *     rank). The root copies its own block last, while the last rank
 *     copies its last chunk out, and returns without waiting: the next
 *     call through the areas waits for this one instead. Worth it where a
 *     CMA call's start-up and page pinning cost more than a second copy
 *     through the cache (the model finds where). */
#include <string.h>

#include "algos/kcoll_impl.h"

static void copy_own(const kcoll_args *a)
{
    if (a->recvbuf != MPI_IN_PLACE)
        kcal_copy(a->recvbuf, (const char *)a->sendbuf + (size_t)a->root * a->n,
               a->n);
}

int kcoll_scatter_parallel_read(kcoll_comm *c, const kcoll_args *a)
{
    int tag = kcoll_tag(c, 0), status = 0;
    uint64_t src = c->rank == a->root ? kcoll_addr(a->sendbuf) : 0;
    KCOLL_TRY(MPI_Bcast(&src, 1, MPI_UINT64_T, a->root, c->comm));
    if (c->rank != a->root) {
        status = kcoll_cma_read(c->pids[a->root], a->recvbuf,
                                src + (uint64_t)c->rank * a->n, a->n) != 0;
        KCOLL_TRY(kcoll_ctl_send(c, a->root, tag, status));
        return status ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    copy_own(a);
    for (int i = 1; i < c->size; i++)
        KCOLL_TRY(kcoll_ctl_recv(c, MPI_ANY_SOURCE, tag, &status));
    return MPI_SUCCESS; /* the readers report their own failures */
}

int kcoll_scatter_sequential_write(kcoll_comm *c, const kcoll_args *a)
{
    int tag = kcoll_tag(c, 0), status = 0, p = c->size;
    if (c->rank != a->root) {
        uint64_t mine = kcoll_addr(a->recvbuf);
        KCOLL_TRY(MPI_Gather(&mine, 1, MPI_UINT64_T, NULL, 1, MPI_UINT64_T,
                             a->root, c->comm));
        KCOLL_TRY(kcoll_ctl_recv(c, a->root, tag, &status));
        return status ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    uint64_t dst[p];
    uint64_t mine = 0;
    KCOLL_TRY(MPI_Gather(&mine, 1, MPI_UINT64_T, dst, 1, MPI_UINT64_T,
                         a->root, c->comm));
    copy_own(a);
    int failed = 0;
    for (int v = 1; v < p; v++) {
        int r = (a->root + v) % p;
        int st = kcoll_cma_write(c->pids[r],
                                 (const char *)a->sendbuf + (size_t)r * a->n,
                                 dst[r], a->n) != 0;
        failed |= st;
        KCOLL_TRY(kcoll_ctl_send(c, r, tag, st));
    }
    return failed ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_scatter_throttled_read(kcoll_comm *c, const kcoll_args *a)
{
    int tag_token = kcoll_tag(c, 0), tag_done = kcoll_tag(c, 1);
    int p = c->size, k = a->k, readers = p - 1, status = 0;
    uint64_t src = c->rank == a->root ? kcoll_addr(a->sendbuf) : 0;
    KCOLL_TRY(MPI_Bcast(&src, 1, MPI_UINT64_T, a->root, c->comm));
    if (c->rank == a->root) {
        copy_own(a);
        int last = k < readers ? k : readers;
        for (int i = 0; i < last; i++)
            KCOLL_TRY(kcoll_ctl_recv(c, MPI_ANY_SOURCE, tag_done, &status));
        return MPI_SUCCESS;
    }
    int q = (c->rank - a->root - 1 + p) % p;
    int chain = 0; /* a failure upstream does not spoil this block */
    if (q >= k)
        KCOLL_TRY(kcoll_ctl_recv(c, (a->root + 1 + q - k) % p, tag_token,
                                 &chain));
    status = kcoll_cma_read(c->pids[a->root], a->recvbuf,
                            src + (uint64_t)c->rank * a->n, a->n) != 0;
    if (q + k < readers)
        KCOLL_TRY(kcoll_ctl_send(c, (a->root + 1 + q + k) % p, tag_token, 0));
    else
        KCOLL_TRY(kcoll_ctl_send(c, a->root, tag_done, 0));
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_scatter_parallel_read_flags(kcoll_comm *c, const kcoll_args *a)
{
    KCOLL_TRY(kcoll_flags_get(c));
    if (c->rank != a->root) {
        uint64_t src = kcoll_flag_wait_post(c, a->root);
        int failed = kcoll_cma_read(c->pids[a->root], a->recvbuf,
                                    src + (uint64_t)c->rank * a->n, a->n) != 0;
        kcoll_flag_done(c, failed);
        return failed ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    kcoll_flag_post(c, kcoll_addr(a->sendbuf));
    copy_own(a);
    for (int r = 0; r < c->size; r++)
        if (r != a->root)
            kcoll_flag_wait_done(c, r);
    return MPI_SUCCESS; /* the readers report their own failures */
}

int kcoll_scatter_parallel_read_split(kcoll_comm *c, const kcoll_args *a)
{
    KCOLL_TRY(kcoll_flags_get(c));
    size_t n = a->n, m = (size_t)kcal_model_split_chunk(n);
    uint64_t q = (n + m - 1) / m, i;
    int failed = 0;
    if (c->rank != a->root) {
        char *dst = a->recvbuf;
        kcoll_flag_post(c, kcoll_addr(dst));
        uint64_t src = kcoll_flag_wait_post(c, a->root) +
                       (uint64_t)c->rank * n;
        while ((i = kcoll_flag_claim(c, c->rank, q, 0)) < q) {
            size_t off = (size_t)i * m, len = n - off < m ? n - off : m;
            failed |= kcoll_cma_read(c->pids[a->root], dst + off, src + off,
                                     len) != 0;
        }
        kcoll_flag_done(c, failed);
        failed |= kcoll_flag_wait_done(c, a->root); /* its writes into dst */
        return failed ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    kcoll_flag_post(c, kcoll_addr(a->sendbuf));
    copy_own(a);
    for (int v = 1; v < c->size; v++) {
        int r = (a->root + v) % c->size;
        uint64_t dst = kcoll_flag_wait_post(c, r);
        const char *blk = (const char *)a->sendbuf + (size_t)r * n;
        while ((i = kcoll_flag_claim(c, r, q, 1)) < q) {
            size_t off = (size_t)i * m, len = n - off < m ? n - off : m;
            failed |= kcoll_cma_write(c->pids[r], blk + off, dst + off,
                                      len) != 0;
        }
    }
    kcoll_flag_done(c, failed);
    for (int v = 1; v < c->size; v++)
        kcoll_flag_wait_done(c, (a->root + v) % c->size);
    return failed ? MPI_ERR_OTHER : MPI_SUCCESS; /* the readers report theirs */
}

int kcoll_scatter_copy_in_out(kcoll_comm *c, const kcoll_args *a)
{
    int p = c->size, root = a->root;
    uint64_t m, first, seq = c->seq;
    KCOLL_TRY(kcoll_staging_enter_rooted(c, a->n, root, &m, &first));
    if (c->rank != root) {
        kcoll_staging_drain(c, root, first, m, a->recvbuf, a->n, 0);
        kcoll_flag_progress(c, KCOLL_PROGRESS_DONE);
        return MPI_SUCCESS;
    }
    const uint64_t chunk = KCAL_STAGING_CHUNK, slots = KCAL_STAGING_SLOTS;
    kcoll_staging_wait_free(c);
    uint64_t g = 0; /* chunks of the stream copied in */
    for (int v = 1; v < p; v++) {
        const char *blk = (const char *)a->sendbuf +
                          (size_t)((root + v) % p) * a->n;
        for (uint64_t i = 0; i < m; i++, g++) {
            if (g >= slots) {
                /* Slot g's last chunk, g − slots, is its owner's. */
                uint64_t old = g - slots;
                int owner = (root + 1 + (int)(old / m)) % p;
                kcoll_flag_wait_progress(c, owner, seq, old % m + 1);
            }
            kcal_copy(kcoll_staging_slot(c, root, g), blk + i * chunk,
                      kcoll_staging_chunk_len(a->n, i));
            kcoll_flag_progress(c, g + 1);
        }
    }
    /* The last reader copies out the last chunk meanwhile. */
    copy_own(a);
    kcoll_flag_progress(c, KCOLL_PROGRESS_DONE);
    return MPI_SUCCESS;
}
