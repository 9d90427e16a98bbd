/* scatterv: the root's block r (sendcounts[r] bytes at sendbuf +
 * displs[r]) lands in rank r's recvbuf. Costs as model.md's scatter rows
 * with n_r per pair, X(n) = α + n·β (the model has no v rows yet):
 *
 *   parallel_read     T_addr + max_r (X(n_r) + l·pages(n_r)), the p − 1
 *     reads contending on the root's memory: the root sends each reader
 *     the address of its block (one message each), every reader copies
 *     its block with process_vm_readv at once and says done; the root
 *     returns when every reader has. With `below` (algorithm NULL) a
 *     block shorter than the measured crossover goes as one MPI message
 *     instead: the pair decides alike, as both ends know the count.
 *   sequential_write  Σ_r (X(n_r) + l·pages(n_r)) at the root: each rank
 *     sends the root its receive address, the root writes the blocks one
 *     after another (no contention) and tells each rank it is done. */
#include <stdlib.h>

#include "algos/irregular.h"

int kcoll_scatterv_parallel_read(kcoll_comm *c, const kcoll_vargs *a)
{
    int p = c->size, me = c->rank, root = a->root, status = 0, rc;
    kcoll_vreqs q;
    if (me != root) {
        size_t n = a->rcount;
        if (n == 0)
            return MPI_SUCCESS;
        KCOLL_TRY(kcoll_vreqs_init(c, &q, 1));
        kcoll_vmsg m;
        rc = kcoll_v_by_message(a, root, n)
                 ? kcoll_vreqs_recv(c, &q, a->recvbuf, n, root, KCOLL_VTAG_DATA)
                 : kcoll_vreqs_recv(c, &q, &m, sizeof m, root, KCOLL_VTAG_ADDR);
        KCOLL_TRY(kcoll_vreqs_finish(&q, rc));
        if (kcoll_v_by_message(a, root, n))
            return MPI_SUCCESS;
        int rrc = kcoll_v_read(a, root, &m, a->recvbuf, n, &status);
        kcoll_vmsg done = {0, 0, (uint64_t)(status || rrc != MPI_SUCCESS)};
        KCOLL_TRY(MPI_Send(&done, 3, MPI_UINT64_T, root,
                           kcoll_tag(c, KCOLL_VTAG_DONE), c->comm));
        KCOLL_TRY(rrc);
        return status ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    kcoll_vmsg *m = kcoll_v_work(c, KCOLL_VWORK_MSG, sizeof *m * 2 * (size_t)p);
    if (!m)
        return MPI_ERR_NO_MEM;
    rc = kcoll_vreqs_init(c, &q, 2 * p);
    for (int r = 0; r < p && rc == MPI_SUCCESS; r++) {
        size_t n = a->scounts[r];
        const char *block = a->sendbuf + a->sdispls[r];
        if (r == root || n == 0)
            continue;
        if (kcoll_v_by_message(a, r, n)) {
            rc = kcoll_vreqs_send(c, &q, block, n, r, KCOLL_VTAG_DATA);
            continue;
        }
        m[r] = (kcoll_vmsg){kcoll_addr(block), n, 0};
        rc = kcoll_vreqs_send(c, &q, &m[r], sizeof *m, r, KCOLL_VTAG_ADDR);
        if (rc == MPI_SUCCESS)
            rc = kcoll_vreqs_recv(c, &q, &m[p + r], sizeof *m, r,
                                  KCOLL_VTAG_DONE);
    }
    int own = MPI_SUCCESS;
    if (!a->in_place && a->scounts[root] != a->rcount)
        own = MPI_ERR_TRUNCATE;
    else if (!a->in_place)
        kcal_copy(a->recvbuf, a->sendbuf + a->sdispls[root], a->rcount);
    rc = kcoll_vreqs_finish(&q, rc);
    /* A reader's failed copy spoils only its own result. */
    KCOLL_TRY(rc);
    return own;
}

int kcoll_scatterv_sequential_write(kcoll_comm *c, const kcoll_vargs *a)
{
    int p = c->size, me = c->rank, root = a->root, rc;
    kcoll_vreqs q;
    if (me != root) {
        size_t n = a->rcount;
        if (n == 0)
            return MPI_SUCCESS;
        KCOLL_TRY(kcoll_vreqs_init(c, &q, 2));
        kcoll_vmsg m = {kcoll_addr(a->recvbuf), n, 0}, done;
        int by_msg = kcoll_v_by_message(a, root, n);
        rc = by_msg ? kcoll_vreqs_recv(c, &q, a->recvbuf, n, root,
                                       KCOLL_VTAG_DATA)
                    : kcoll_vreqs_send(c, &q, &m, sizeof m, root,
                                       KCOLL_VTAG_ADDR);
        if (rc == MPI_SUCCESS && !by_msg)
            rc = kcoll_vreqs_recv(c, &q, &done, sizeof done, root,
                                  KCOLL_VTAG_DONE);
        KCOLL_TRY(kcoll_vreqs_finish(&q, rc));
        if (by_msg)
            return MPI_SUCCESS;
        return done.status == 2   ? MPI_ERR_TRUNCATE
               : done.status != 0 ? MPI_ERR_OTHER
                                  : MPI_SUCCESS;
    }
    kcoll_vmsg *m = kcoll_v_work(c, KCOLL_VWORK_MSG, sizeof *m * 2 * (size_t)p);
    if (!m)
        return MPI_ERR_NO_MEM;
    rc = kcoll_vreqs_init(c, &q, 2 * p);
    for (int r = 0; r < p && rc == MPI_SUCCESS; r++) {
        size_t n = a->scounts[r];
        if (r == root || n == 0)
            continue;
        rc = kcoll_v_by_message(a, r, n)
                 ? kcoll_vreqs_send(c, &q, a->sendbuf + a->sdispls[r], n, r,
                                    KCOLL_VTAG_DATA)
                 : kcoll_vreqs_recv(c, &q, &m[r], sizeof *m, r,
                                    KCOLL_VTAG_ADDR);
    }
    /* A failed message spoils that pair alone: the writes and their done
     * messages still go to every other rank, which waits for them. */
    int sent = kcoll_vreqs_finish(&q, MPI_SUCCESS);
    KCOLL_TRY(rc);
    rc = kcoll_vreqs_init(c, &q, p);
    /* The writes one after another, from the rank after the root. */
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int r = (root + i) % p;
        size_t n = a->scounts[r];
        if (n == 0 || kcoll_v_by_message(a, r, n))
            continue;
        m[p + r] = (kcoll_vmsg){0, n, 0};
        if (m[r].count != n)
            m[p + r].status = 2; /* the receiver's count differs */
        else if (kcoll_cma_write(a->pids[r], a->sendbuf + a->sdispls[r],
                                 m[r].addr, n) != 0)
            m[p + r].status = 1;
        rc = kcoll_vreqs_send(c, &q, &m[p + r], sizeof *m, r,
                              KCOLL_VTAG_DONE);
    }
    int own = MPI_SUCCESS;
    if (!a->in_place && a->scounts[root] != a->rcount)
        own = MPI_ERR_TRUNCATE;
    else if (!a->in_place)
        kcal_copy(a->recvbuf, a->sendbuf + a->sdispls[root], a->rcount);
    rc = kcoll_vreqs_finish(&q, rc);
    KCOLL_TRY(rc);
    KCOLL_TRY(sent);
    return own;
}
