/* gather: every rank's n-byte block lands at recvbuf + r·n of the root.
 * With sendbuf = MPI_IN_PLACE at the root its block is already there.
 * Paper Section IV-B; model.md, with X(n) = α + n·β, P(c,n) = l·γ(c)·pages(n):
 *
 *   parallel_write    as parallel_read:  T_sm_bcast + X(n) + P(p,n) + T_sm_gather
 *     The root broadcasts its recvbuf address; every other rank writes its
 *     block at once and reports (with its status) to the root.
 *   sequential_read   as sequential_write:
 *                     T_memcpy + T_sm_gather + p·(X(n) + l·pages(n)) + T_sm_bcast
 *     The root gathers the sendbuf addresses and reads the blocks one after
 *     the other, releasing each rank as soon as its block is read.
 *   throttled_write:k as throttled_read: T_sm_bcast + ⌈p/k⌉·(X(n) + P(k,n))
 *     At most k writers at a time, with the token chain of Section IV-A3
 *     (writer q waits for q−k, passes on to q+k; the root waits for the last
 *     k writers). Tokens carry the writers' status to the root.
 *   parallel_write_flags (derived)  as parallel_read_flags (scatter.c):
 *                     paper: F_bcast + X(n) + P(p,n) + F_gather
 *                     full:  F_bcast + X(n) + P(p−1,n) + F_gather
 *     parallel_write with the shared-memory flags of flags.c: the root posts
 *     its recvbuf address and copies its own block while every other rank
 *     writes its block and says done (with its status); the root waits for
 *     the p−1 done flags.
 *
 *   parallel_write_split (derived)  as parallel_read_split (scatter.c):
 *                     F_allgather + (when the last chunk ends) + F_barrier
 *     parallel_write_flags with the root's idle time put to work: each
 *     rank's block is cut into chunks (kcal_model_split_chunk) that the
 *     rank writes into the root's recvbuf and the root, after copying its
 *     own block, reads from the rank's sendbuf, both taking them from one
 *     counter (kcoll_flag_claim). Each rank posts its sendbuf's address,
 *     says done after its last chunk (with its status) and waits for the
 *     root's done (the root may still be reading its sendbuf); the root
 *     waits for every done. The root's read pins the pages of the rank it
 *     reads, the rank's write the root's; pinning is most of a large CMA
 *     call (scatter.c), so two processes pinning half each finish sooner.
 *   copy_in_out (derived)  as scatter's (scatter.c), F_gather:
 *                     ((p−1)·m·c + max(n_own, c))·T_memcpy(1) + F_gather
 *     No system call, and every source at work at once: each rank copies
 *     its block chunk by chunk into its own staging area (staging.c) and
 *     counts the chunks in its progress word; its sendbuf is free as soon
 *     as the last chunk is in. The root copies its own block first (the
 *     sources fill their first slots meanwhile), then drains the sources
 *     rank after rank; its progress word counts the chunks copied out over
 *     all sources, which tells a source when a slot is free again (its
 *     block is chunks (v−1)·m .. v·m − 1 of that count).
 *
 * Why writes at p = 2: the root's own block is a local copy, so with
 * sequential_read the root copies 2·n bytes (its own block, then the
 * other's) while the other process waits; with the writes the two copies
 * run on the two cores at once (at 1 MiB on the Xeon guest of
 * docs/machine.md, "scatter and gather", parallel_write took about a
 * third of sequential_read's time).
 *
 * The slow mode of sequential_read (issue 8) was not in the algorithm but
 * in how the benchmark measured it: all variants shared one recvbuf, and
 * after parallel_write the root's block 1 was last written by the other
 * core, so the root's next read into it paid a cross-core ownership
 * transfer per cache line (about twice the time of the same copy from
 * the copying core's own cache). Page faults, transparent huge pages,
 * context switches and the two processes sharing a core were ruled out
 * (getrusage, /proc/vmstat and sched_getcpu around every call). The same
 * transfer is why a process_vm_writev into the root looked dearer than
 * the root's read there: the written lines were last owned by the root's
 * core; with the lines in the copying core's cache, reads and writes cost
 * the same. kcal bench now runs an untimed call of a variant before each
 * timed one, so every variant is timed in its own steady state
 * (bench/bench_mpi.c). */
#include <string.h>

#include "algos/kcoll_impl.h"

static void copy_own(kcoll_comm *c, const kcoll_args *a)
{
    if (a->sendbuf != MPI_IN_PLACE)
        kcal_copy((char *)a->recvbuf + (size_t)c->rank * a->n, a->sendbuf, a->n);
}

int kcoll_gather_parallel_write(kcoll_comm *c, const kcoll_args *a)
{
    int tag = kcoll_tag(c, 0), status = 0;
    uint64_t dst = c->rank == a->root ? kcoll_addr(a->recvbuf) : 0;
    KCOLL_TRY(MPI_Bcast(&dst, 1, MPI_UINT64_T, a->root, c->comm));
    if (c->rank != a->root) {
        status = kcoll_cma_write(c->pids[a->root], a->sendbuf,
                                 dst + (uint64_t)c->rank * a->n, a->n) != 0;
        KCOLL_TRY(kcoll_ctl_send(c, a->root, tag, status));
        return status ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    copy_own(c, a);
    for (int i = 1; i < c->size; i++)
        KCOLL_TRY(kcoll_ctl_recv(c, MPI_ANY_SOURCE, tag, &status));
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_gather_sequential_read(kcoll_comm *c, const kcoll_args *a)
{
    int tag = kcoll_tag(c, 0), status = 0, p = c->size;
    if (c->rank != a->root) {
        uint64_t mine = kcoll_addr(a->sendbuf);
        KCOLL_TRY(MPI_Gather(&mine, 1, MPI_UINT64_T, NULL, 1, MPI_UINT64_T,
                             a->root, c->comm));
        KCOLL_TRY(kcoll_ctl_recv(c, a->root, tag, &status));
        return MPI_SUCCESS; /* the root reports a failed read */
    }
    uint64_t src[p];
    uint64_t mine = 0;
    KCOLL_TRY(MPI_Gather(&mine, 1, MPI_UINT64_T, src, 1, MPI_UINT64_T,
                         a->root, c->comm));
    copy_own(c, a);
    for (int v = 1; v < p; v++) {
        int r = (a->root + v) % p;
        status |= kcoll_cma_read(c->pids[r],
                                 (char *)a->recvbuf + (size_t)r * a->n,
                                 src[r], a->n) != 0;
        KCOLL_TRY(kcoll_ctl_send(c, r, tag, 0));
    }
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_gather_throttled_write(kcoll_comm *c, const kcoll_args *a)
{
    int tag_token = kcoll_tag(c, 0), tag_done = kcoll_tag(c, 1);
    int p = c->size, k = a->k, writers = p - 1, status = 0;
    uint64_t dst = c->rank == a->root ? kcoll_addr(a->recvbuf) : 0;
    KCOLL_TRY(MPI_Bcast(&dst, 1, MPI_UINT64_T, a->root, c->comm));
    if (c->rank == a->root) {
        copy_own(c, a);
        int last = k < writers ? k : writers;
        for (int i = 0; i < last; i++)
            KCOLL_TRY(kcoll_ctl_recv(c, MPI_ANY_SOURCE, tag_done, &status));
        return status ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    int q = (c->rank - a->root - 1 + p) % p;
    if (q >= k)
        KCOLL_TRY(kcoll_ctl_recv(c, (a->root + 1 + q - k) % p, tag_token,
                                 &status));
    int failed = kcoll_cma_write(c->pids[a->root], a->sendbuf,
                                 dst + (uint64_t)c->rank * a->n, a->n) != 0;
    status |= failed;
    if (q + k < writers)
        KCOLL_TRY(kcoll_ctl_send(c, (a->root + 1 + q + k) % p, tag_token,
                                 status));
    else
        KCOLL_TRY(kcoll_ctl_send(c, a->root, tag_done, status));
    return failed ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_gather_parallel_write_flags(kcoll_comm *c, const kcoll_args *a)
{
    KCOLL_TRY(kcoll_flags_get(c));
    if (c->rank != a->root) {
        uint64_t dst = kcoll_flag_wait_post(c, a->root);
        int failed = kcoll_cma_write(c->pids[a->root], a->sendbuf,
                                     dst + (uint64_t)c->rank * a->n,
                                     a->n) != 0;
        kcoll_flag_done(c, failed);
        return failed ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    kcoll_flag_post(c, kcoll_addr(a->recvbuf));
    copy_own(c, a);
    int status = 0;
    for (int r = 0; r < c->size; r++)
        if (r != a->root)
            status |= kcoll_flag_wait_done(c, r);
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_gather_parallel_write_split(kcoll_comm *c, const kcoll_args *a)
{
    KCOLL_TRY(kcoll_flags_get(c));
    size_t n = a->n, m = (size_t)kcal_model_split_chunk(n);
    uint64_t q = (n + m - 1) / m, i;
    int failed = 0;
    if (c->rank != a->root) {
        const char *src = a->sendbuf;
        kcoll_flag_post(c, kcoll_addr(src));
        uint64_t dst = kcoll_flag_wait_post(c, a->root) +
                       (uint64_t)c->rank * n;
        while ((i = kcoll_flag_claim(c, c->rank, q, 0)) < q) {
            size_t off = (size_t)i * m, len = n - off < m ? n - off : m;
            failed |= kcoll_cma_write(c->pids[a->root], src + off, dst + off,
                                      len) != 0;
        }
        kcoll_flag_done(c, failed);
        kcoll_flag_wait_done(c, a->root); /* it may still read src */
        return failed ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    kcoll_flag_post(c, kcoll_addr(a->recvbuf));
    copy_own(c, a);
    for (int v = 1; v < c->size; v++) {
        int r = (a->root + v) % c->size;
        uint64_t src = kcoll_flag_wait_post(c, r);
        char *blk = (char *)a->recvbuf + (size_t)r * n;
        while ((i = kcoll_flag_claim(c, r, q, 1)) < q) {
            size_t off = (size_t)i * m, len = n - off < m ? n - off : m;
            failed |= kcoll_cma_read(c->pids[r], blk + off, src + off,
                                     len) != 0;
        }
    }
    kcoll_flag_done(c, failed);
    for (int v = 1; v < c->size; v++)
        failed |= kcoll_flag_wait_done(c, (a->root + v) % c->size);
    return failed ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_gather_copy_in_out(kcoll_comm *c, const kcoll_args *a)
{
    int p = c->size, root = a->root;
    uint64_t m, first, seq = c->seq;
    KCOLL_TRY(kcoll_staging_enter_rooted(c, a->n, root, &m, &first));
    if (c->rank != root) {
        /* The root drains the sources in order: this block is chunks
         * first .. first + m − 1 of what it has copied out. */
        const uint64_t chunk = KCAL_STAGING_CHUNK, slots = KCAL_STAGING_SLOTS;
        const char *src = a->sendbuf;
        kcoll_staging_wait_free(c);
        for (uint64_t i = 0; i < m; i++) {
            if (i >= slots)
                kcoll_flag_wait_progress(c, root, seq, first + i - slots + 1);
            kcal_copy(kcoll_staging_slot(c, c->rank, i), src + i * chunk,
                      kcoll_staging_chunk_len(a->n, i));
            kcoll_flag_progress(c, i + 1);
        }
        /* The block is in the area: sendbuf is free again at once. */
        kcoll_flag_progress(c, KCOLL_PROGRESS_DONE);
        return MPI_SUCCESS;
    }
    /* The sources copy their first chunks in meanwhile. */
    copy_own(c, a);
    for (int v = 1; v < p; v++) {
        int r = (root + v) % p;
        /* Counted after the (v − 1)·m chunks of the sources before. */
        kcoll_staging_drain(c, r, 0, m, (char *)a->recvbuf + (size_t)r * a->n,
                            a->n, (uint64_t)(v - 1) * m);
    }
    kcoll_flag_progress(c, KCOLL_PROGRESS_DONE);
    return MPI_SUCCESS;
}
