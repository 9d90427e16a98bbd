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
 *     k writers). Tokens carry the writers' status to the root. */
#include <string.h>

#include "kcoll_impl.h"

static void copy_own(kcoll_comm *c, const kcoll_args *a)
{
    if (a->sendbuf != MPI_IN_PLACE)
        memcpy((char *)a->recvbuf + (size_t)c->rank * a->n, a->sendbuf, a->n);
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
