/* vsteps: the point-to-point steps of the v-collectives' pairs
 * (irregular.h): a call's working arrays kept with the communicator,
 * the non-blocking sends and receives of the pairs that go as MPI
 * messages, waited for together, the blocking ones of a process whose
 * pairs all go as messages, and one pair's CMA read. */
#include <stdlib.h>

#include "algos/irregular.h"

void *kcoll_v_work(kcoll_comm *c, int which, size_t len)
{
    if (len > c->vwork_len[which]) {
        free(c->vwork[which]); /* nothing in it outlives a call */
        c->vwork[which] = malloc(len);
        c->vwork_len[which] = c->vwork[which] ? len : 0;
    }
    return c->vwork[which];
}

int kcoll_vreqs_init(kcoll_comm *c, kcoll_vreqs *r, int cap)
{
    size_t k = (size_t)(cap > 0 ? cap : 1);
    /* One array: statuses, then requests, then the checks (each part's
     * size a multiple of the next one's alignment). */
    char *w = kcoll_v_work(c, KCOLL_VWORK_REQ,
                           k * (sizeof(MPI_Status) + sizeof(MPI_Request) +
                                sizeof(int)) +
                               2 * sizeof(void *));
    r->n = 0;
    r->cap = cap;
    if (!w)
        return MPI_ERR_NO_MEM;
    r->st = (MPI_Status *)w;
    uintptr_t q = (uintptr_t)(w + k * sizeof(MPI_Status));
    q = (q + sizeof(void *) - 1) & ~(uintptr_t)(sizeof(void *) - 1);
    r->req = (MPI_Request *)q;
    r->want = (int *)(r->req + k);
    return MPI_SUCCESS;
}

static int post(kcoll_comm *c, kcoll_vreqs *r, const void *buf, size_t len,
                int peer, int phase, int send)
{
    if (r->n >= r->cap)
        return MPI_ERR_INTERN;
    if (len > (size_t)INT32_MAX)
        return MPI_ERR_COUNT; /* messages carry blocks below the crossover */
    MPI_Request *q = &r->req[r->n];
    int rc = send ? MPI_Isend(buf, (int)len, MPI_BYTE, peer,
                              kcoll_tag(c, phase), c->comm, q)
                  : MPI_Irecv((void *)buf, (int)len, MPI_BYTE, peer,
                              kcoll_tag(c, phase), c->comm, q);
    if (rc == MPI_SUCCESS)
        r->want[r->n++] = !send && phase == KCOLL_VTAG_DATA ? (int)len : -1;
    return rc;
}

int kcoll_vreqs_send(kcoll_comm *c, kcoll_vreqs *r, const void *buf,
                     size_t len, int peer, int phase)
{
    return post(c, r, buf, len, peer, phase, 1);
}

int kcoll_vreqs_recv(kcoll_comm *c, kcoll_vreqs *r, void *buf, size_t len,
                     int peer, int phase)
{
    return post(c, r, buf, len, peer, phase, 0);
}

/* A received data message's length against the n bytes expected (MPI
 * reports a longer one). */
static int check_len(const MPI_Status *st, size_t n)
{
    int got = 0;
    KCOLL_TRY(MPI_Get_count(st, MPI_BYTE, &got));
    return (size_t)got == n ? MPI_SUCCESS : MPI_ERR_TRUNCATE;
}

int kcoll_vreqs_finish(kcoll_vreqs *r, int rc)
{
    int n = r->n, wrc = n ? MPI_Waitall(n, r->req, r->st) : MPI_SUCCESS;
    r->n = 0;
    if (wrc != MPI_SUCCESS) {
        /* MPI_ERR_IN_STATUS names the failed request's error in its
         * status (a longer message: MPI_ERR_TRUNCATE), and may leave
         * others pending: wait for each. */
        for (int i = 0; wrc == MPI_ERR_IN_STATUS && i < n; i++)
            if (r->st[i].MPI_ERROR != MPI_SUCCESS &&
                r->st[i].MPI_ERROR != MPI_ERR_PENDING)
                wrc = r->st[i].MPI_ERROR;
        for (int i = 0; i < n; i++)
            if (r->req[i] != MPI_REQUEST_NULL)
                MPI_Wait(&r->req[i], MPI_STATUS_IGNORE);
        return rc != MPI_SUCCESS ? rc : wrc;
    }
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++)
        if (r->want[i] >= 0)
            rc = check_len(&r->st[i], (size_t)r->want[i]);
    return rc;
}

int kcoll_v_message(kcoll_comm *c, void *buf, size_t n, int peer, int send)
{
    int tag = kcoll_tag(c, KCOLL_VTAG_DATA);
    if (n > (size_t)INT32_MAX)
        return MPI_ERR_COUNT;
    if (send)
        return MPI_Send(buf, (int)n, MPI_BYTE, peer, tag, c->comm);
    MPI_Status st;
    KCOLL_TRY(MPI_Recv(buf, (int)n, MPI_BYTE, peer, tag, c->comm, &st));
    return check_len(&st, n);
}

int kcoll_v_swap(kcoll_comm *c, const void *out, size_t n_out, int to,
                 void *in, size_t n_in, int from)
{
    int tag = kcoll_tag(c, KCOLL_VTAG_DATA);
    if (n_out > (size_t)INT32_MAX || n_in > (size_t)INT32_MAX)
        return MPI_ERR_COUNT;
    MPI_Status st;
    KCOLL_TRY(MPI_Sendrecv(out, (int)n_out, MPI_BYTE, to, tag, in, (int)n_in,
                           MPI_BYTE, from, tag, c->comm, &st));
    return check_len(&st, n_in);
}

int kcoll_v_read(const kcoll_vargs *a, int peer, const kcoll_vmsg *msg,
                 void *to, size_t want, int *status)
{
    if (msg->count != want)
        return MPI_ERR_TRUNCATE;
    if (want && kcoll_cma_read(a->pids[peer], to, msg->addr, want) != 0)
        *status = 1;
    return MPI_SUCCESS;
}
