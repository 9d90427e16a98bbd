/* gatherv: rank r's block (sendcount bytes) lands at the root's recvbuf +
 * displs[r] (recvcounts[r] bytes). Costs as model.md's gather rows with
 * n_r per pair (the model has no v rows yet):
 *
 *   parallel_write   T_addr + max_r (X(n_r) + l·pages(n_r)), the p − 1
 *     writes contending on the root's memory: the root sends each rank the
 *     address its block goes to, every rank writes it with
 *     process_vm_writev at once and says done (with whether its copy or
 *     its count was bad); the root returns when every rank has. With
 *     `below` (algorithm NULL) a block shorter than the measured crossover
 *     goes as one MPI message instead, decided alike at both ends.
 *   sequential_read  Σ_r (X(n_r) + l·pages(n_r)) at the root: each rank
 *     sends the root its block's address, the root reads the blocks one
 *     after another (no contention) and tells each rank it is done. */
#include <stdlib.h>

#include "algos/irregular.h"

/* A done message's status as the root returns it. */
static int done_rc(const kcoll_vmsg *m)
{
    return m->status == 2 ? MPI_ERR_TRUNCATE
           : m->status    ? MPI_ERR_OTHER
                          : MPI_SUCCESS;
}

/* The root's own block, unless in place. */
static int own_block(const kcoll_vargs *a)
{
    if (a->in_place)
        return MPI_SUCCESS;
    if (a->rcounts[a->root] != a->scount)
        return MPI_ERR_TRUNCATE;
    kcal_copy(a->recvbuf + a->rdispls[a->root], a->sendbuf, a->scount);
    return MPI_SUCCESS;
}

/* The first error of the done messages of the CMA pairs (m[p + r]). */
static int dones_rc(const kcoll_vargs *a, int p, const kcoll_vmsg *m)
{
    int rc = MPI_SUCCESS;
    for (int r = 0; r < p && rc == MPI_SUCCESS; r++)
        if (r != a->root && a->rcounts[r] &&
            !kcoll_v_by_message(a, r, a->rcounts[r]))
            rc = done_rc(&m[p + r]);
    return rc;
}

int kcoll_gatherv_parallel_write(kcoll_comm *c, const kcoll_vargs *a)
{
    int p = c->size, me = c->rank, root = a->root, rc;
    kcoll_vreqs q;
    if (me != root) {
        size_t n = a->scount;
        if (n == 0)
            return MPI_SUCCESS;
        KCOLL_TRY(kcoll_vreqs_init(c, &q, 1));
        kcoll_vmsg m;
        int by_msg = kcoll_v_by_message(a, root, n);
        rc = by_msg ? kcoll_vreqs_send(c, &q, a->sendbuf, n, root,
                                       KCOLL_VTAG_DATA)
                    : kcoll_vreqs_recv(c, &q, &m, sizeof m, root,
                                       KCOLL_VTAG_ADDR);
        KCOLL_TRY(kcoll_vreqs_finish(&q, rc));
        if (by_msg)
            return MPI_SUCCESS;
        kcoll_vmsg done = {0, n, 0};
        if (m.count != n)
            done.status = 2;
        else if (kcoll_cma_write(a->pids[root], a->sendbuf, m.addr, n) != 0)
            done.status = 1;
        KCOLL_TRY(MPI_Send(&done, 3, MPI_UINT64_T, root,
                           kcoll_tag(c, KCOLL_VTAG_DONE), c->comm));
        return done_rc(&done);
    }
    kcoll_vmsg *m = kcoll_v_work(c, KCOLL_VWORK_MSG, sizeof *m * 2 * (size_t)p);
    if (!m)
        return MPI_ERR_NO_MEM;
    rc = kcoll_vreqs_init(c, &q, 2 * p);
    for (int r = 0; r < p && rc == MPI_SUCCESS; r++) {
        size_t n = a->rcounts[r];
        char *block = a->recvbuf + a->rdispls[r];
        if (r == root || n == 0)
            continue;
        if (kcoll_v_by_message(a, r, n)) {
            rc = kcoll_vreqs_recv(c, &q, block, n, r, KCOLL_VTAG_DATA);
            continue;
        }
        m[r] = (kcoll_vmsg){kcoll_addr(block), n, 0};
        rc = kcoll_vreqs_send(c, &q, &m[r], sizeof *m, r, KCOLL_VTAG_ADDR);
        if (rc == MPI_SUCCESS)
            rc = kcoll_vreqs_recv(c, &q, &m[p + r], sizeof *m, r,
                                  KCOLL_VTAG_DONE);
    }
    int own = own_block(a);
    rc = kcoll_vreqs_finish(&q, rc);
    if (rc == MPI_SUCCESS)
        rc = dones_rc(a, p, m);
    KCOLL_TRY(rc);
    return own;
}

int kcoll_gatherv_sequential_read(kcoll_comm *c, const kcoll_vargs *a)
{
    int p = c->size, me = c->rank, root = a->root, rc;
    kcoll_vreqs q;
    if (me != root) {
        size_t n = a->scount;
        if (n == 0)
            return MPI_SUCCESS;
        KCOLL_TRY(kcoll_vreqs_init(c, &q, 2));
        kcoll_vmsg m = {kcoll_addr(a->sendbuf), n, 0}, done;
        int by_msg = kcoll_v_by_message(a, root, n);
        rc = by_msg ? kcoll_vreqs_send(c, &q, a->sendbuf, n, root,
                                       KCOLL_VTAG_DATA)
                    : kcoll_vreqs_send(c, &q, &m, sizeof m, root,
                                       KCOLL_VTAG_ADDR);
        if (rc == MPI_SUCCESS && !by_msg)
            rc = kcoll_vreqs_recv(c, &q, &done, sizeof done, root,
                                  KCOLL_VTAG_DONE);
        KCOLL_TRY(kcoll_vreqs_finish(&q, rc));
        /* The root read it: only a count that differs is this rank's. */
        return by_msg || done.status != 2 ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
    }
    kcoll_vmsg *m = kcoll_v_work(c, KCOLL_VWORK_MSG, sizeof *m * 2 * (size_t)p);
    if (!m)
        return MPI_ERR_NO_MEM;
    rc = kcoll_vreqs_init(c, &q, 2 * p);
    for (int r = 0; r < p && rc == MPI_SUCCESS; r++) {
        size_t n = a->rcounts[r];
        if (r == root || n == 0)
            continue;
        rc = kcoll_v_by_message(a, r, n)
                 ? kcoll_vreqs_recv(c, &q, a->recvbuf + a->rdispls[r], n, r,
                                    KCOLL_VTAG_DATA)
                 : kcoll_vreqs_recv(c, &q, &m[r], sizeof *m, r,
                                    KCOLL_VTAG_ADDR);
    }
    /* A message that failed (a count that differs) spoils that block
     * alone: the reads and their done messages still go to every other
     * rank, which waits for them. */
    int bad = kcoll_vreqs_finish(&q, MPI_SUCCESS), status = 0;
    KCOLL_TRY(rc);
    rc = kcoll_vreqs_init(c, &q, p);
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int r = (root + i) % p;
        size_t n = a->rcounts[r];
        if (n == 0 || kcoll_v_by_message(a, r, n))
            continue;
        int rrc = kcoll_v_read(a, r, &m[r], a->recvbuf + a->rdispls[r], n,
                               &status);
        if (bad == MPI_SUCCESS)
            bad = rrc;
        m[p + r] = (kcoll_vmsg){0, n, rrc == MPI_ERR_TRUNCATE ? 2u : 0u};
        rc = kcoll_vreqs_send(c, &q, &m[p + r], sizeof *m, r,
                              KCOLL_VTAG_DONE);
    }
    int own = own_block(a);
    rc = kcoll_vreqs_finish(&q, rc);
    KCOLL_TRY(rc);
    KCOLL_TRY(bad);
    KCOLL_TRY(own);
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}
