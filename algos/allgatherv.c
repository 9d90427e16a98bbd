/* allgatherv: rank s's block (its sendcount bytes, recvcounts[s] at every
 * receiver) lands at recvbuf + displs[s] of every rank. Cost as model.md's
 * ring_source_read with n_s per source (model.md "Irregular collectives"):
 *
 *   source_read  T_sm_allgather + Σ_{s≠r} (X(n_s) + l·pages(n_s))
 *                + T_sm_barrier
 *     After an allgather of every rank's block address and count, rank r
 *     reads block r − 1, r − 2, ... with process_vm_readv: in each step
 *     every source has one reader if the ranks keep pace. A count that
 *     differs from the sender's is MPI_ERR_TRUNCATE at that receiver,
 *     which leaves the block alone. The closing synchronisation keeps
 *     every source valid until its last reader is done. Across nodes the
 *     blocks of ranks CMA does not reach go as MPI messages (each rank
 *     sends its block to each of them), the others are read.
 *
 *   source_read_flags  F_allgather + Σ_{s≠r} (X(n_s) + l·pages(n_s))
 *                + F_barrier (ring_source_read_flags' flag terms)
 *     The same reads, with the shared-memory flags (flags.c) for both
 *     synchronisations instead of MPI messages: each rank posts its
 *     block's address and bytes, reads each source's as soon as it is
 *     posted, says it is done, and returns once every reader of its own
 *     block is. An MPI_Allgather of 24 bytes and the closing reduction
 *     cost about 0.4 and 0.6 us at p = 2; a flag is seen after 0.17
 *     (flags.c). At 8-64 KiB blocks with uniform counts, p = 2 on the
 *     Zen 4 guest, source_read ran at 0.95-1.0x the MPI library's
 *     allgatherv and this row at 1.07-1.22x (docs/machine.md,
 *     "allgatherv's flags row"): NULL's first row. The flags are one
 *     node's: across nodes this row is source_read.
 *
 *   copy_in_out  F_allgather + Σ_{s≠r} (m_s + m_r)·T_memcpy(C) ... as
 *                allgather's copy_in_out (derived) with n_s per source
 *     No system call: each rank posts its block's bytes (the flags),
 *     then in rounds i = 0, 1, ... copies chunk i of its block into its
 *     staging area (staging.c) and every other rank's chunk i out, as
 *     allgather's copy_in_out does, for as many rounds as the largest
 *     posted block has chunks (the same on every rank, whatever its own
 *     recvcounts say). A posted count that differs from recvcounts[s]
 *     is MPI_ERR_TRUNCATE at that receiver, which leaves the block
 *     alone. Across nodes this row is source_read. */
#include <stdlib.h>

#include "algos/irregular.h"

/* This rank's own block, unless in place: MPI_ERR_TRUNCATE (and no copy)
 * where its receive count differs from its send count. */
static int own_block(const kcoll_vargs *a, int me)
{
    if (a->in_place)
        return MPI_SUCCESS;
    if (a->rcounts[me] != a->scount)
        return MPI_ERR_TRUNCATE;
    kcal_copy(a->recvbuf + a->rdispls[me], a->sendbuf, a->scount);
    return MPI_SUCCESS;
}

int kcoll_allgatherv_source_read(kcoll_comm *c, const kcoll_vargs *a)
{
    int p = c->size, me = c->rank, status = 0, bad = MPI_SUCCESS;
    kcoll_vmsg *m = kcoll_v_work(c, KCOLL_VWORK_MSG, sizeof *m * (size_t)p);
    kcoll_vreqs q;
    if (!m || kcoll_vreqs_init(c, &q, 2 * p) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    kcoll_vmsg mine = {kcoll_addr(a->sendbuf), a->scount, 0};
    int rc = MPI_Allgather(&mine, 3, MPI_UINT64_T, m, 3, MPI_UINT64_T,
                           c->comm);
    /* Ranks CMA does not reach (other nodes) exchange the blocks as
     * messages, posted before the reads. */
    for (int r = 0; r < p && rc == MPI_SUCCESS; r++) {
        if (r == me || a->pids[r])
            continue;
        /* A sender's count that differs still gets its receive (MPI
         * truncates a longer message), so no send waits for ever. */
        if (m[r].count)
            rc = kcoll_vreqs_recv(c, &q, a->recvbuf + a->rdispls[r],
                                  a->rcounts[r], r, KCOLL_VTAG_DATA);
        if (a->rcounts[r] != m[r].count && bad == MPI_SUCCESS)
            bad = MPI_ERR_TRUNCATE;
        if (rc == MPI_SUCCESS && a->scount)
            rc = kcoll_vreqs_send(c, &q, a->sendbuf, a->scount, r,
                                  KCOLL_VTAG_DATA);
    }
    for (int t = 1; t < p && rc == MPI_SUCCESS; t++) {
        int s = (me - t + p) % p;
        size_t n = a->rcounts[s];
        if (!a->pids[s] || (n == 0 && m[s].count == 0))
            continue;
        int rrc = kcoll_v_read(a, s, &m[s], a->recvbuf + a->rdispls[s], n,
                               &status);
        if (bad == MPI_SUCCESS)
            bad = rrc;
    }
    int own = own_block(a, me);
    if (bad == MPI_SUCCESS)
        bad = own;
    int frc = kcoll_vreqs_finish(&q, MPI_SUCCESS);
    if (bad == MPI_SUCCESS && frc != MPI_SUCCESS)
        bad = frc; /* this rank's own: the others still meet below */
    /* Sources must stay valid until every reader is done. */
    int any = status;
    if (rc == MPI_SUCCESS)
        rc = kcoll_ctl_allstatus(c, &any);
    KCOLL_TRY(rc);
    KCOLL_TRY(bad);
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_allgatherv_source_read_flags(kcoll_comm *c, const kcoll_vargs *a)
{
    /* Every rank makes this test alike (the flags' window is collective). */
    if (c->spans_nodes)
        return kcoll_allgatherv_source_read(c, a);
    KCOLL_TRY(kcoll_flags_get(c));
    int p = c->size, me = c->rank, status = 0, bad = MPI_SUCCESS;
    kcoll_flag_post_block(c, kcoll_addr(a->sendbuf), a->scount);
    for (int t = 1; t < p; t++) {
        int s = (me - t + p) % p;
        uint64_t count, from = kcoll_flag_wait_block(c, s, &count);
        kcoll_vmsg m = {from, count, 0};
        size_t n = a->rcounts[s];
        if (n == 0 && count == 0)
            continue;
        int rrc = kcoll_v_read(a, s, &m, a->recvbuf + a->rdispls[s], n,
                               &status);
        if (bad == MPI_SUCCESS)
            bad = rrc;
    }
    kcoll_flag_done(c, status);
    int own = own_block(a, me);
    if (bad == MPI_SUCCESS)
        bad = own;
    /* Every reader of this rank's block is done before it may change. */
    for (int t = 1; t < p; t++)
        kcoll_flag_wait_done(c, (me + t) % p);
    KCOLL_TRY(bad);
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* copy_in_out's rounds: the chunks of an n-byte block. */
static uint64_t chunks(uint64_t n)
{
    return n / KCAL_STAGING_CHUNK + (n % KCAL_STAGING_CHUNK != 0);
}

int kcoll_allgatherv_copy_in_out(kcoll_comm *c, const kcoll_vargs *a)
{
    if (c->spans_nodes) /* every rank makes this test alike */
        return kcoll_allgatherv_source_read(c, a);
    kcoll_vmsg *w = kcoll_v_work(c, KCOLL_VWORK_MSG,
                                 sizeof *w * (size_t)c->size);
    if (!w)
        return MPI_ERR_NO_MEM;
    uint64_t unused, seq = c->seq;
    /* The areas and flags; the progress bound is checked below, on the
     * posted counts every rank sees alike. */
    KCOLL_TRY(kcoll_staging_enter(c, 0, 2, 2, &unused));
    int p = c->size, me = c->rank, bad = MPI_SUCCESS;
    const uint64_t chunk = KCAL_STAGING_CHUNK, slots = KCAL_STAGING_SLOTS;
    kcoll_flag_post_block(c, 0, a->scount);
    uint64_t rounds = 0;
    for (int s = 0; s < p; s++) {
        uint64_t n = a->scount;
        if (s != me)
            kcoll_flag_wait_block(c, s, &n);
        w[s].count = n;
        if (chunks(n) > rounds)
            rounds = chunks(n);
        if (s != me && n != a->rcounts[s] && bad == MPI_SUCCESS)
            bad = MPI_ERR_TRUNCATE;
    }
    if (KCOLL_HALF_OUT(rounds) >= KCOLL_PROGRESS_DONE) {
        kcoll_flag_progress(c, KCOLL_PROGRESS_DONE);
        return MPI_ERR_COUNT;
    }
    uint64_t mine = chunks(a->scount);
    kcoll_staging_wait_free(c);
    for (uint64_t i = 0; i < rounds; i++) {
        if (i < mine) {
            if (i >= slots) /* every other rank has chunk i − slots */
                for (int r = 0; r < p; r++)
                    if (r != me)
                        kcoll_flag_wait_progress(c, r, seq,
                                                 KCOLL_HALF_OUT(i - slots));
            kcal_copy(kcoll_staging_slot(c, me, i), a->sendbuf + i * chunk,
                      kcoll_staging_chunk_len(a->scount, i));
        }
        kcoll_flag_progress(c, KCOLL_HALF_IN(i));
        for (int v = 1; v < p; v++) {
            int r = (me + v) % p;
            uint64_t n = w[r].count;
            if (i >= chunks(n) || n != a->rcounts[r])
                continue;
            kcoll_flag_wait_progress(c, r, seq, KCOLL_HALF_IN(i));
            kcal_copy(a->recvbuf + a->rdispls[r] + i * chunk,
                      kcoll_staging_slot(c, r, i),
                      kcoll_staging_chunk_len(n, i));
        }
        kcoll_flag_progress(c, KCOLL_HALF_OUT(i));
    }
    int own = own_block(a, me);
    kcoll_flag_progress(c, KCOLL_PROGRESS_DONE);
    return bad != MPI_SUCCESS ? bad : own;
}
