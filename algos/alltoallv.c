/* alltoallv: rank s's block for d (sendcounts[d] bytes at sendbuf +
 * sdispls[d]) lands at recvbuf + rdispls[s] of rank d (recvcounts[s]
 * bytes). Cost as model.md's pairwise with n_sd per pair (model.md
 * "Irregular collectives"):
 *
 *   pairwise  T_addr + Σ_s (X(n_sd) + l·pages(n_sd)) at the busiest
 *             receiver d, + one done message per pair
 *     Every sender posts to each receiver the address and count of its
 *     block (a message per pair, not an alltoall: a pair with nothing to
 *     move sends nothing, so a sparse exchange costs what it moves); each
 *     receiver reads its blocks with process_vm_readv in pairwise order
 *     (r XOR t for p a power of two, else r − t: one reader per source
 *     per step), then tells each source it is done, and returns when its
 *     own sources are done with it. With `below` (algorithm NULL) a block
 *     shorter than the measured crossover goes as one MPI message
 *     instead: sender and receiver decide alike from the count both know,
 *     so no agreement is needed, and an exchange of small blocks is the
 *     MPI library's own linear exchange on libkcoll's communicator.
 *
 *   copy_in_out  Σ_s n_sd·T_memcpy(1) at the busiest receiver d for
 *     the blocks of at most 16 KiB − 64 B (KCAL_V_SLOT_BLOCK), plus
 *     pairwise for the larger: each rank copies its such blocks into its
 *     staging area, then copies the ones meant for it out of their
 *     senders' areas as they are flagged (vstaged.c; no system call, no
 *     message). Where p − 1 > KCAL_STAGING_SLOTS, and across nodes:
 *     pairwise.
 *
 * kcoll_alltoallv_messages is that exchange alone, for a NULL call in
 * which every pair of this process goes as a message (irregular.c's
 * short way): T_msg per block, the receives posted before the sends as
 * above; a process with one block in and one out (p = 2) runs one
 * MPI_Sendrecv. */
#include <stdlib.h>

#include "algos/irregular.h"

/* This rank's block to itself, unless in place: MPI_ERR_TRUNCATE (and no
 * copy) where its two counts differ. */
static int own_block(const kcoll_vargs *a, int me)
{
    if (a->in_place)
        return MPI_SUCCESS;
    if (a->rcounts[me] != a->scounts[me])
        return MPI_ERR_TRUNCATE;
    kcal_copy(a->recvbuf + a->rdispls[me], a->sendbuf + a->sdispls[me],
              a->rcounts[me]);
    return MPI_SUCCESS;
}

int kcoll_alltoallv_pairwise(kcoll_comm *c, const kcoll_vargs *a)
{
    int p = c->size, me = c->rank, status = 0, bad = MPI_SUCCESS;
    /* out[d]: what goes to d; in[s]: s's address message; done[2p]. */
    kcoll_vmsg *msg = kcoll_v_work(c, KCOLL_VWORK_MSG,
                                   sizeof *msg * 4 * (size_t)p);
    int *at = kcoll_v_work(c, KCOLL_VWORK_INT, sizeof *at * (size_t)p);
    kcoll_vreqs q;
    if (!msg || !at || kcoll_vreqs_init(c, &q, 4 * p) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    kcoll_vmsg *out = msg, *in = msg + p, *done = msg + 2 * p;
    int rc = MPI_SUCCESS;
    for (int s = 0; s < p && rc == MPI_SUCCESS; s++) {
        size_t n = a->rcounts[s];
        at[s] = -1;
        if (s == me || n == 0)
            continue;
        if (kcoll_v_by_message(a, s, n)) {
            rc = kcoll_vreqs_recv(c, &q, a->recvbuf + a->rdispls[s], n, s,
                                  KCOLL_VTAG_DATA);
        } else {
            at[s] = q.n;
            rc = kcoll_vreqs_recv(c, &q, &in[s], sizeof *in, s,
                                  KCOLL_VTAG_ADDR);
        }
    }
    for (int d = 0; d < p && rc == MPI_SUCCESS; d++) {
        size_t n = a->scounts[d];
        const char *block = a->sendbuf + a->sdispls[d];
        if (d == me || n == 0)
            continue;
        if (kcoll_v_by_message(a, d, n)) {
            rc = kcoll_vreqs_send(c, &q, block, n, d, KCOLL_VTAG_DATA);
            continue;
        }
        out[d] = (kcoll_vmsg){kcoll_addr(block), n, 0};
        rc = kcoll_vreqs_send(c, &q, &out[d], sizeof *out, d,
                              KCOLL_VTAG_ADDR);
        if (rc == MPI_SUCCESS)
            rc = kcoll_vreqs_recv(c, &q, &done[d], sizeof *done, d,
                                  KCOLL_VTAG_DONE);
    }
    int pow2 = (p & (p - 1)) == 0;
    for (int t = 1; t < p && rc == MPI_SUCCESS; t++) {
        int s = pow2 ? me ^ t : (me - t + p) % p;
        if (at[s] < 0)
            continue;
        rc = MPI_Wait(&q.req[at[s]], MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            break;
        int rrc = kcoll_v_read(a, s, &in[s], a->recvbuf + a->rdispls[s],
                               a->rcounts[s], &status);
        if (bad == MPI_SUCCESS)
            bad = rrc;
        done[p + s] = (kcoll_vmsg){0, a->rcounts[s], 0};
        rc = kcoll_vreqs_send(c, &q, &done[p + s], sizeof *done, s,
                              KCOLL_VTAG_DONE);
    }
    int own = own_block(a, me);
    if (bad == MPI_SUCCESS)
        bad = own;
    /* Returns once every reader of this rank's blocks is done. */
    rc = kcoll_vreqs_finish(&q, rc);
    KCOLL_TRY(rc);
    KCOLL_TRY(bad);
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int kcoll_alltoallv_messages(kcoll_comm *c, const kcoll_vargs *a)
{
    int p = c->size, me = c->rank, nin = 0, nout = 0, from = -1, to = -1;
    for (int i = 0; i < p; i++) {
        if (i != me && a->rcounts[i]) {
            nin++;
            from = i;
        }
        if (i != me && a->scounts[i]) {
            nout++;
            to = i;
        }
    }
    int rc = MPI_SUCCESS;
    char *in = from >= 0 ? a->recvbuf + a->rdispls[from] : NULL;
    const char *out = to >= 0 ? a->sendbuf + a->sdispls[to] : NULL;
    if (nin == 1 && nout == 1) { /* p = 2: one MPI_Sendrecv */
        rc = kcoll_v_swap(c, out, a->scounts[to], to, in, a->rcounts[from],
                          from);
    } else if (nin + nout == 1) {
        rc = nin ? kcoll_v_message(c, in, a->rcounts[from], from, 0)
                 : kcoll_v_message(c, (void *)out, a->scounts[to], to, 1);
    } else if (nin + nout > 1) {
        kcoll_vreqs q;
        rc = kcoll_vreqs_init(c, &q, nin + nout);
        for (int s = 0; s < p && rc == MPI_SUCCESS; s++)
            if (s != me && a->rcounts[s])
                rc = kcoll_vreqs_recv(c, &q, a->recvbuf + a->rdispls[s],
                                      a->rcounts[s], s, KCOLL_VTAG_DATA);
        for (int d = 0; d < p && rc == MPI_SUCCESS; d++)
            if (d != me && a->scounts[d])
                rc = kcoll_vreqs_send(c, &q, a->sendbuf + a->sdispls[d],
                                      a->scounts[d], d, KCOLL_VTAG_DATA);
        rc = kcoll_vreqs_finish(&q, rc);
    }
    int own = own_block(a, me);
    return rc != MPI_SUCCESS ? rc : own;
}
