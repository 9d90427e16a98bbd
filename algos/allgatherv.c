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
 *     sends its block to each of them), the others are read. */
#include <stdlib.h>

#include "algos/irregular.h"

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
    if (!a->in_place && a->rcounts[me] != a->scount && bad == MPI_SUCCESS)
        bad = MPI_ERR_TRUNCATE;
    else if (!a->in_place)
        kcal_copy(a->recvbuf + a->rdispls[me], a->sendbuf, a->scount);
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
