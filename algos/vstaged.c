/* vstaged: scatterv's, gatherv's and alltoallv's staged pairs, copied
 * through the staging areas (staging.c) instead of an MPI message or a
 * CMA call: the copy_in_out rows (every pair of at most
 * KCAL_V_SLOT_BLOCK bytes) and algorithm NULL's staged range
 * (irregular.c: the measured crossover to at most KCAL_V_STAGED_MAX).
 *
 * Why: at p = 2 on the Zen 4 guest the MPI library's scatterv and gatherv
 * took 0.37-0.56 us at 1-2 KiB blocks and libkcoll's message pairs a few
 * per cent more, while the regular scatter's and gather's copy_in_out
 * took 0.22-0.31 us (the probe's mpi_scatter_below line).
 *
 * A pair is staged or not by its count, which both ends know; a peer
 * knows nothing of the other pairs. So each staged block has a place of
 * its own that needs no other count: one slot, the peer's position in
 * the root's order (root + 1, root + 2, ...), its first
 * KCAL_V_SLOT_HEADER bytes the block's count as the writer saw it.
 *   scatterv: the root copies each staged block into its area, position
 *     after position, and flags its progress as position + 1; the peer
 *     waits for that, checks the count (another is MPI_ERR_TRUNCATE at
 *     the peer, its buffer untouched), copies the block out and flags
 *     DONE. A position SLOTS on reuses a slot: the root first waits for
 *     the slot's last reader, when that one was staged.
 *   gatherv: the peer copies its block into slot 0 of its own area and
 *     flags 1, and is done; the root copies the staged blocks out in its
 *     order, checks each count (another: MPI_ERR_TRUNCATE at the root,
 *     that block untouched), and flags DONE.
 *   alltoallv: every rank writes its staged blocks into its own area,
 *     each at the receiver's position in its order (me + 1, me + 2, ...),
 *     flagging position + 1, then copies out the staged blocks meant for
 *     it, each once its sender has flagged it, and flags DONE. Only where
 *     p − 1 <= SLOTS, so that no slot is reused within a call: a writer
 *     waiting for a reader that waits for a third writer could close a
 *     cycle. Larger communicators stage nothing (alike on every rank).
 * A write waits for the readers of the writer's last write alone
 * (kcoll_staging_wait_free_some): a peer whose pair was not staged never
 * flags this call.
 * Cost (model row: the regular copy_in_out per pair; ROOT_SUM, for
 * alltoallv COLUMN_SUM): the root's (a receiver's) copies one after
 * another, Σ_staged (n_r·T_memcpy(1)), plus one flag passed between two
 * cores per pair, no system call, no message. */
#include <string.h>

#include "algos/irregular.h"

/* rank r's position in the order of `from` (root, writer): 0 .. p − 2 */
static uint64_t position(int r, int root, int p)
{
    return (uint64_t)((r - root - 1 + p) % p);
}

static void put(char *slot, const void *block, size_t n)
{
    uint64_t count = n;
    memcpy(slot, &count, sizeof count);
    kcal_copy(slot + KCAL_V_SLOT_HEADER, block, n);
}

/* The block in slot into `to` when its count is n, else
 * MPI_ERR_TRUNCATE. */
static int take(const char *slot, void *to, size_t n)
{
    uint64_t count;
    memcpy(&count, slot, sizeof count);
    if (count != n)
        return MPI_ERR_TRUNCATE;
    kcal_copy(to, slot + KCAL_V_SLOT_HEADER, n);
    return MPI_SUCCESS;
}

static int peer_part(kcoll_comm *c, const kcoll_vargs *a, int out, int *rest)
{
    int root = a->root, me = c->rank;
    size_t n = out ? a->rcount : a->scount;
    if (!kcoll_v_staged(a, root, n))
        return MPI_SUCCESS;
    *rest = 0;
    if (out) {
        uint64_t at = position(me, root, c->size);
        kcoll_flag_wait_progress(c, root, c->seq, at + 1);
        int rc = take(kcoll_staging_slot(c, root, at), a->recvbuf, n);
        kcoll_flag_progress(c, KCOLL_PROGRESS_DONE);
        return rc;
    }
    unsigned char *readers = kcoll_staging_wait_free_some(c);
    put(kcoll_staging_slot(c, me, 0), a->sendbuf, n);
    readers[root] = 1;
    kcoll_flag_progress(c, 1);
    return MPI_SUCCESS;
}

static int root_part(kcoll_comm *c, kcoll_vargs *a, int out)
{
    int p = c->size, root = a->root;
    const size_t *many = out ? a->scounts : a->rcounts;
    int any = 0;
    for (int r = 0; r < p && !any; r++)
        any = r != root && kcoll_v_staged(a, r, many[r]);
    if (!any)
        return MPI_SUCCESS;
    size_t *view = kcoll_v_work(c, KCOLL_VWORK_COUNTS, sizeof *view * (size_t)p);
    if (!view)
        return MPI_ERR_NO_MEM;
    memcpy(view, many, sizeof *view * (size_t)p);
    int rc = MPI_SUCCESS;
    uint64_t seq = c->seq;
    unsigned char *readers = out ? kcoll_staging_wait_free_some(c) : NULL;
    for (int i = 1; i < p; i++) {
        int r = (root + i) % p;
        size_t n = many[r];
        if (!kcoll_v_staged(a, r, n))
            continue;
        uint64_t at = (uint64_t)(i - 1);
        view[r] = 0;
        if (!out) {
            kcoll_flag_wait_progress(c, r, seq, 1);
            int e = take(kcoll_staging_slot(c, r, 0),
                         a->recvbuf + a->rdispls[r], n);
            rc = rc != MPI_SUCCESS ? rc : e;
            continue;
        }
        if (at >= KCAL_STAGING_SLOTS) { /* the slot's last reader */
            int o = (root + 1 + (int)(at - KCAL_STAGING_SLOTS)) % p;
            if (kcoll_v_staged(a, o, many[o]))
                kcoll_flag_wait_progress(c, o, seq, KCOLL_PROGRESS_DONE);
        }
        put(kcoll_staging_slot(c, root, at), a->sendbuf + a->sdispls[r], n);
        readers[r] = 1;
        kcoll_flag_progress(c, at + 1);
    }
    if (!out) /* the peers' slots are free */
        kcoll_flag_progress(c, KCOLL_PROGRESS_DONE);
    if (out)
        a->scounts = view;
    else
        a->rcounts = view;
    return rc;
}

int kcoll_v_rooted_stage(kcoll_comm *c, kcoll_vargs *a, int out, int *rest)
{
    *rest = 1;
    if (!a->staged_to || a->staged)
        return MPI_SUCCESS;
    a->staged = 1;
    return c->rank == a->root ? root_part(c, a, out)
                              : peer_part(c, a, out, rest);
}

int kcoll_alltoallv_stage(kcoll_comm *c, kcoll_vargs *a)
{
    int p = c->size, me = c->rank, any = 0;
    if (!a->staged_to || a->staged || !kcoll_alltoallv_stages(p))
        return MPI_SUCCESS;
    a->staged = 1;
    for (int r = 0; r < p && !any; r++)
        any = r != me && (kcoll_v_staged(a, r, a->scounts[r]) ||
                          kcoll_v_staged(a, r, a->rcounts[r]));
    if (!any)
        return MPI_SUCCESS;
    size_t *view = kcoll_v_work(c, KCOLL_VWORK_COUNTS,
                                sizeof *view * 2 * (size_t)p);
    if (!view)
        return MPI_ERR_NO_MEM;
    size_t *sv = view, *rv = view + p;
    memcpy(sv, a->scounts, sizeof *sv * (size_t)p);
    memcpy(rv, a->rcounts, sizeof *rv * (size_t)p);
    uint64_t seq = c->seq;
    unsigned char *readers = NULL;
    for (int t = 1; t < p; t++) { /* the writes: nothing waits here */
        int d = (me + t) % p;
        size_t n = a->scounts[d];
        if (!kcoll_v_staged(a, d, n))
            continue;
        if (!readers)
            readers = kcoll_staging_wait_free_some(c);
        put(kcoll_staging_slot(c, me, (uint64_t)(t - 1)),
            a->sendbuf + a->sdispls[d], n);
        readers[d] = 1;
        sv[d] = 0;
        kcoll_flag_progress(c, (uint64_t)t);
    }
    int rc = MPI_SUCCESS, read = 0;
    for (int t = 1; t < p; t++) { /* the reads, each once it is written */
        int s = (me - t + p) % p;
        size_t n = a->rcounts[s];
        if (!kcoll_v_staged(a, s, n))
            continue;
        uint64_t at = position(me, s, p);
        kcoll_flag_wait_progress(c, s, seq, at + 1);
        int e = take(kcoll_staging_slot(c, s, at), a->recvbuf + a->rdispls[s],
                     n);
        rc = rc != MPI_SUCCESS ? rc : e;
        rv[s] = 0;
        read = 1;
    }
    if (read)
        kcoll_flag_progress(c, KCOLL_PROGRESS_DONE);
    a->scounts = sv;
    a->rcounts = rv;
    return rc;
}

int kcoll_alltoallv_copy_in_out(kcoll_comm *c, const kcoll_vargs *a)
{
    if (c->spans_nodes) /* no areas across nodes: alike on every rank */
        return kcoll_alltoallv_pairwise(c, a);
    kcoll_vargs b = *a;
    if (!b.staged) { /* named, or a table's row: every rank is here */
        KCOLL_TRY(kcoll_staging_ready(c));
        b.staged_from = 1;
        b.staged_to = KCAL_V_SLOT_BLOCK;
    }
    int rc = kcoll_alltoallv_stage(c, &b);
    int more = kcoll_alltoallv_pairwise(c, &b);
    return rc != MPI_SUCCESS ? rc : more;
}

int kcoll_v_rooted_copy_in_out(kcoll_comm *c, const kcoll_vargs *a, int out)
{
    if (c->spans_nodes) /* no areas across nodes: alike on every rank */
        return kcoll_v_rooted_parallel(c, a, out);
    kcoll_vargs b = *a;
    if (!b.staged) { /* named, or a table's row: every rank is here */
        KCOLL_TRY(kcoll_staging_ready(c));
        b.staged_from = 1;
        b.staged_to = KCAL_V_SLOT_BLOCK;
    }
    int rest, rc = kcoll_v_rooted_stage(c, &b, out, &rest);
    if (!rest)
        return rc;
    int more = kcoll_v_rooted_parallel(c, &b, out);
    return rc != MPI_SUCCESS ? rc : more;
}
