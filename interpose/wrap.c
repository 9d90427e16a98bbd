/* wrap: MPI_Bcast, MPI_Scatter, MPI_Gather, MPI_Allgather and
 * MPI_Alltoall of libkcoll_pmpi.so (see interpose.h; the rules in
 * docs/interpose.md), and what wrap_reduce.c's reductions and
 * wrap_irregular.c's v-collectives share: the path of a call
 * (kcoll_ip_comm_state ...) and the packing buffers (kcoll_ip_scratch).
 *
 * Every process of a collective must take the same path, kcoll or the MPI
 * library, or they deadlock. So the path depends only on what every
 * process knows alike: the communicator (an intracommunicator whose
 * processes share a node: comm.c works it out collectively, once) and the
 * root. Datatypes never decide it: MPI lets each process describe its data
 * with its own type map of the same signature, so a process whose data are
 * not contiguous packs them into a contiguous buffer (MPI_Pack), or
 * receives into one and unpacks, and takes the kcoll path like the others.
 * The byte count n is the same on every process of a correct program (the
 * signatures match), and so is libkcoll's choice for it (table, model, or
 * the MPI library below the measured crossover).
 *
 * A call whose arguments MPI says are erroneous at this process (a bad
 * root, a negative count, MPI_DATATYPE_NULL, MPI_IN_PLACE where MPI does not
 * allow it, send and receive sizes that differ) goes to the MPI library
 * unchanged, which reports it as it always does. Arguments MPI says a
 * process ignores (the send side at non-roots of a scatter, the receive
 * side at non-roots of a gather, the send count and type with MPI_IN_PLACE)
 * are never looked at.
 *
 * Errors of the kcoll path go through the communicator's error handler,
 * as the MPI library's would: MPI_ERRORS_ARE_FATAL aborts, MPI_ERRORS_RETURN
 * returns the code. With KCOLL_STATS=1 a call handed to the MPI library here
 * is recorded as "mpi(<why>)"; libkcoll records the others itself. */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/interpose.h"
#include "algos/stats.h"

/* ---- the path of a call (interpose.h) ------------------------------------ */

const char kcoll_ip_why_intercomm[] = "mpi(intercomm)";
const char kcoll_ip_why_invalid[] = "mpi(invalid)";
const char kcoll_ip_why_no_state[] = "mpi(no-state)";

int kcoll_ip_comm_state(MPI_Comm comm, kcoll_comm **c, const char **why)
{
    *c = NULL;
    *why = NULL;
    if (comm == MPI_COMM_NULL) {
        *why = kcoll_ip_why_invalid;
        return MPI_SUCCESS;
    }
    int rc = kcoll_comm_get(comm, c);
    if (rc == MPI_ERR_COMM) { /* kcoll_comm_get refuses intercommunicators */
        int inter = 0;
        *why = PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter
                   ? kcoll_ip_why_intercomm
                   : kcoll_ip_why_invalid;
        *c = NULL;
        return MPI_SUCCESS;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    /* libkcoll's state could not be built on some process (comm.c): the
     * MPI library's, as it is, on every process. */
    if ((*c)->no_state) {
        *why = kcoll_ip_why_no_state;
        *c = NULL;
    }
    /* A communicator that spans nodes is kcoll's too: its two-level
     * collectives (algos/two_level.c) take it. */
    return MPI_SUCCESS;
}

int kcoll_ip_raise_error(MPI_Comm comm, int rc)
{
    if (rc != MPI_SUCCESS)
        PMPI_Comm_call_errhandler(comm, rc);
    return rc;
}

uint64_t kcoll_ip_pass_bytes(MPI_Comm comm, const char *why, int count,
                             MPI_Datatype type, int blocks)
{
    MPI_Count size = 0;
    int p = 1, inter = 0;
    if (why == kcoll_ip_why_invalid || count < 0 ||
        type == MPI_DATATYPE_NULL ||
        PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0)
        return 0;
    if (blocks && PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS)
        (inter ? PMPI_Comm_remote_size : PMPI_Comm_size)(comm, &p);
    return (uint64_t)count * (uint64_t)size * (uint64_t)p;
}

#define PASS(coll, why, bytes, call)                                         \
    KCOLL_IP_PASS(coll, why, bytes, call)

/* ---- buffers of the packed data (interpose.h) ---------------------------- */

/* Kept per thread between calls, as libkcoll keeps its scratch: a fresh
 * buffer per call would give peers new, unfaulted pages to copy. Buffers
 * above SCRATCH_KEEP are freed after their call. */
#define SCRATCH_KEEP ((size_t)64 << 20)

typedef struct {
    void *buf[2];
    size_t len[2];
} scratch_set;

static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static pthread_key_t scratch_key;

static void scratch_free(void *p)
{
    scratch_set *s = p;
    free(s->buf[0]);
    free(s->buf[1]);
    free(s);
}

static void scratch_init(void)
{
    pthread_key_create(&scratch_key, scratch_free);
}

static scratch_set *scratch_mine(void)
{
    pthread_once(&scratch_once, scratch_init);
    scratch_set *s = pthread_getspecific(scratch_key);
    if (!s && (s = calloc(1, sizeof *s)) && pthread_setspecific(scratch_key, s)) {
        free(s);
        s = NULL;
    }
    return s;
}

void *kcoll_ip_scratch(int which, size_t len)
{
    scratch_set *s = scratch_mine();
    if (!s)
        return NULL;
    if (len > s->len[which]) {
        free(s->buf[which]); /* nothing in it outlives a call */
        s->buf[which] = malloc(len);
        s->len[which] = s->buf[which] ? len : 0;
    }
    return s->buf[which];
}

void kcoll_ip_scratch_done(void)
{
    pthread_once(&scratch_once, scratch_init); /* the key, before reading it */
    scratch_set *s = pthread_getspecific(scratch_key);
    for (int i = 0; s && i < 2; i++)
        if (s->len[i] > SCRATCH_KEEP) {
            free(s->buf[i]);
            s->buf[i] = NULL;
            s->len[i] = 0;
        }
}

/* The element offset of block b of l (b blocks of per elements). */
static void *block_at(const void *buf, const kcoll_layout *l, size_t b,
                      size_t per)
{
    return (void *)((uintptr_t)buf + (uintptr_t)((MPI_Aint)(b * per) * l->extent));
}

/* l reduced to one block of per elements (pack one process's block). */
static kcoll_layout one_block(const kcoll_layout *l, size_t per)
{
    kcoll_layout b = *l;
    b.count = per;
    return b;
}

/* rc, or the first error of rc2: a failed pack still takes part in the
 * collective (the others would wait for it forever), then reports. */
static int first_error(int rc, int rc2)
{
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* n * p bytes without overflow (else SIZE_MAX: refused by the caller). */
static size_t times(size_t n, size_t p)
{
    size_t t;
    return __builtin_mul_overflow(n, p, &t) ? SIZE_MAX : t;
}

/* ---- the collectives ---------------------------------------------------- */

int kcoll_ip_bcast(void *buf, int count, MPI_Datatype type, int root,
                   MPI_Comm comm)
{
    kcoll_comm *c;
    const char *why;
    kcoll_layout l;
    int rc = kcoll_ip_comm_state(comm, &c, &why);
    if (rc != MPI_SUCCESS)
        return kcoll_ip_raise_error(comm, rc);
    if (!why && (count < 0 || root < 0 || root >= c->size ||
                 buf == MPI_IN_PLACE ||
                 kcoll_layout_of(type, (size_t)count, &l) != MPI_SUCCESS ||
                 times((size_t)count, (size_t)l.size) == SIZE_MAX))
        why = kcoll_ip_why_invalid;
    if (why)
        PASS(KCAL_COLL_BCAST, why,
             kcoll_ip_pass_bytes(comm, why, count, type, 0),
             PMPI_Bcast(buf, count, type, root, comm));
    size_t n = kcoll_layout_bytes(&l);
    if (l.contiguous || n == 0)
        return kcoll_ip_raise_error(comm,
                                    kcoll_bcast(buf, n, root, comm, NULL));
    void *tmp = kcoll_ip_scratch(KCOLL_IP_SEND_TMP, n);
    if (!tmp)
        return kcoll_ip_raise_error(comm, MPI_ERR_NO_MEM);
    if (c->rank == root)
        rc = kcoll_layout_pack(c, &l, buf, tmp);
    rc = first_error(rc, kcoll_bcast(tmp, n, root, comm, NULL));
    if (rc == MPI_SUCCESS && c->rank != root)
        rc = kcoll_layout_unpack(c, &l, tmp, buf);
    kcoll_ip_scratch_done();
    return kcoll_ip_raise_error(comm, rc);
}

/* The two sides of a scatter or gather at this process: `many` is the
 * root's side of p blocks (scatter's send, gather's receive), `one` every
 * process's single block (scatter's receive, gather's send), which may be
 * MPI_IN_PLACE at the root only. Their layouts go to *ml and *ol (*ol only
 * where it is used), the block's bytes to *n. NULL for a valid call, else
 * kcoll_ip_why_invalid. */
static const char *rooted_sides(int is_root, size_t p, const void *many_buf,
                                int many_count, MPI_Datatype many_type,
                                kcoll_layout *ml, const void *one_buf,
                                int one_count, MPI_Datatype one_type,
                                kcoll_layout *ol, size_t *n)
{
    if (is_root) {
        /* The root's block n is the many side's; its one side, unless in
         * place, must hold as many bytes. */
        if (many_buf == MPI_IN_PLACE || many_count < 0 ||
            kcoll_layout_of(many_type, p * (size_t)many_count, ml) !=
                MPI_SUCCESS ||
            times(times((size_t)many_count, (size_t)ml->size), p) == SIZE_MAX)
            return kcoll_ip_why_invalid;
        *n = (size_t)many_count * (size_t)ml->size;
        if (one_buf != MPI_IN_PLACE &&
            (one_count < 0 ||
             kcoll_layout_of(one_type, (size_t)one_count, ol) != MPI_SUCCESS ||
             times((size_t)one_count, (size_t)ol->size) != *n))
            return kcoll_ip_why_invalid;
        return NULL;
    }
    if (one_buf == MPI_IN_PLACE || one_count < 0 ||
        kcoll_layout_of(one_type, (size_t)one_count, ol) != MPI_SUCCESS ||
        times(times((size_t)one_count, (size_t)ol->size), p) == SIZE_MAX)
        return kcoll_ip_why_invalid;
    *n = kcoll_layout_bytes(ol);
    return NULL;
}

/* One scatter or gather at this process, past the checks: s and r are the
 * send and receive layouts where rooted_sides set them. */
typedef struct {
    kcoll_comm *c;
    const void *sendbuf;
    void *recvbuf;
    int recvcount;
    kcoll_layout s, r;
    int in_place;
    size_t n;
    int root;
    MPI_Comm comm;
} rooted_call;

/* A scatter whose sides are not both contiguous. A non-root receives into
 * scratch and unpacks. The root sends from a contiguous buffer (its own,
 * or the packed blocks) and receives in place unless its receive side is
 * contiguous too; then its block goes where its receive type says. */
static int scatter_packed(const rooted_call *k)
{
    kcoll_comm *c = k->c;
    size_t n = k->n, p = (size_t)c->size;
    int rc = MPI_SUCCESS, root = k->root;
    if (c->rank != root) {
        void *tmp = kcoll_ip_scratch(KCOLL_IP_RECV_TMP, n);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        rc = kcoll_scatter(k->sendbuf, tmp, n, root, k->comm, NULL);
        if (rc == MPI_SUCCESS)
            rc = kcoll_layout_unpack(c, &k->r, tmp, k->recvbuf);
        return rc;
    }
    const void *sb = k->sendbuf;
    if (!k->s.contiguous) {
        void *tmp = kcoll_ip_scratch(KCOLL_IP_SEND_TMP, n * p);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        rc = kcoll_layout_pack(c, &k->s, k->sendbuf, tmp);
        sb = tmp;
    }
    int own_after = !k->in_place && !k->r.contiguous;
    void *rb = k->in_place || own_after ? MPI_IN_PLACE : k->recvbuf;
    rc = first_error(rc, kcoll_scatter(sb, rb, n, root, k->comm, NULL));
    if (rc == MPI_SUCCESS && own_after)
        rc = kcoll_layout_unpack(c, &k->r, (const char *)sb + (size_t)root * n,
                                 k->recvbuf);
    return rc;
}

/* A gather whose sides are not both contiguous. A non-root packs into
 * scratch and sends that. The root gathers in place into a contiguous
 * buffer (recvbuf, or one to unpack from) after putting its own block
 * there. */
static int gather_packed(const rooted_call *k)
{
    kcoll_comm *c = k->c;
    size_t n = k->n, p = (size_t)c->size;
    int rc = MPI_SUCCESS, root = k->root;
    if (c->rank != root) {
        void *tmp = kcoll_ip_scratch(KCOLL_IP_SEND_TMP, n);
        if (!tmp)
            return MPI_ERR_NO_MEM;
        rc = kcoll_layout_pack(c, &k->s, k->sendbuf, tmp);
        return first_error(rc, kcoll_gather(tmp, k->recvbuf, n, root, k->comm,
                                            NULL));
    }
    void *rb = k->recvbuf;
    if (!k->r.contiguous &&
        !(rb = kcoll_ip_scratch(KCOLL_IP_RECV_TMP, n * p)))
        return MPI_ERR_NO_MEM;
    void *own = (char *)rb + (size_t)root * n;
    kcoll_layout rblock = one_block(&k->r, (size_t)k->recvcount);
    if (k->in_place) /* recv not contiguous: its own block is in recvbuf */
        rc = kcoll_layout_pack(c, &rblock,
                               block_at(k->recvbuf, &k->r, (size_t)root,
                                        (size_t)k->recvcount),
                               own);
    else if (k->s.contiguous)
        memcpy(own, k->sendbuf, n);
    else
        rc = kcoll_layout_pack(c, &k->s, k->sendbuf, own);
    rc = first_error(rc,
                     kcoll_gather(MPI_IN_PLACE, rb, n, root, k->comm, NULL));
    if (rc == MPI_SUCCESS && !k->r.contiguous)
        rc = kcoll_layout_unpack(c, &k->r, rb, k->recvbuf);
    return rc;
}

/* scatter and gather: the same checks and the same hand-off to the MPI
 * library, the root's `many` side being scatter's send and gather's
 * receive (rooted_sides); what moves data differs with the direction. */
static int rooted(kcal_coll coll, const void *sendbuf, int sendcount,
                  MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    int scatter = coll == KCAL_COLL_SCATTER;
    const void *many_buf = scatter ? sendbuf : recvbuf;
    const void *one_buf = scatter ? recvbuf : sendbuf;
    int many_count = scatter ? sendcount : recvcount;
    int one_count = scatter ? recvcount : sendcount;
    MPI_Datatype many_type = scatter ? sendtype : recvtype;
    MPI_Datatype one_type = scatter ? recvtype : sendtype;
    const char *why;
    rooted_call k = {.sendbuf = sendbuf, .recvbuf = recvbuf,
                     .recvcount = recvcount, .root = root, .comm = comm};
    kcoll_layout *ml = scatter ? &k.s : &k.r, *ol = scatter ? &k.r : &k.s;
    int rc = kcoll_ip_comm_state(comm, &k.c, &why);
    if (rc != MPI_SUCCESS)
        return kcoll_ip_raise_error(comm, rc);
    kcoll_comm *c = k.c;
    int is_root = 0;
    size_t p = c ? (size_t)c->size : 0;
    if (!why && (root < 0 || root >= c->size))
        why = kcoll_ip_why_invalid;
    if (!why) {
        is_root = c->rank == root;
        k.in_place = is_root && one_buf == MPI_IN_PLACE;
        why = rooted_sides(is_root, p, many_buf, many_count, many_type, ml,
                           one_buf, one_count, one_type, ol, &k.n);
    }
    if (why) {
        int rank = -1;
        if (why != kcoll_ip_why_invalid)
            PMPI_Comm_rank(comm, &rank);
        PASS(coll, why,
             rank == root
                 ? kcoll_ip_pass_bytes(comm, why, many_count, many_type, 1)
                 : kcoll_ip_pass_bytes(comm, why, one_count, one_type, 1),
             (scatter ? PMPI_Scatter : PMPI_Gather)(sendbuf, sendcount,
                                                    sendtype, recvbuf,
                                                    recvcount, recvtype, root,
                                                    comm));
    }
    int direct = is_root ? ml->contiguous && (k.in_place || ol->contiguous)
                         : ol->contiguous;
    if (k.n == 0 || direct)
        return kcoll_ip_raise_error(
            comm, (scatter ? kcoll_scatter : kcoll_gather)(sendbuf, recvbuf,
                                                           k.n, root, comm,
                                                           NULL));
    rc = scatter ? scatter_packed(&k) : gather_packed(&k);
    kcoll_ip_scratch_done();
    return kcoll_ip_raise_error(comm, rc);
}

int kcoll_ip_scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                     void *recvbuf, int recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm)
{
    return rooted(KCAL_COLL_SCATTER, sendbuf, sendcount, sendtype, recvbuf,
                  recvcount, recvtype, root, comm);
}

int kcoll_ip_gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                    void *recvbuf, int recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm)
{
    return rooted(KCAL_COLL_GATHER, sendbuf, sendcount, sendtype, recvbuf,
                  recvcount, recvtype, root, comm);
}

/* allgather and alltoall: every process sends and receives; MPI_IN_PLACE
 * (at every process, MPI's rule) leaves the send side to recvbuf.
 * send_blocks: 1 for allgather, p for alltoall. */
typedef int (*everyone_fn)(const void *, void *, size_t, MPI_Comm,
                           const char *);

static int everyone(kcal_coll coll, everyone_fn fn, const void *sendbuf,
                    int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    kcoll_comm *c;
    const char *why;
    kcoll_layout s, r;
    int rc = kcoll_ip_comm_state(comm, &c, &why);
    if (rc != MPI_SUCCESS)
        return kcoll_ip_raise_error(comm, rc);
    int in_place = sendbuf == MPI_IN_PLACE;
    int alltoall = coll == KCAL_COLL_ALLTOALL;
    size_t n = 0, p = c ? (size_t)c->size : 0, send_blocks = alltoall ? p : 1;
    if (!why) {
        if (recvbuf == MPI_IN_PLACE || recvcount < 0 ||
            kcoll_layout_of(recvtype, p * (size_t)recvcount, &r) !=
                MPI_SUCCESS ||
            times(times((size_t)recvcount, (size_t)r.size), p) == SIZE_MAX)
            why = kcoll_ip_why_invalid;
        else
            n = (size_t)recvcount * (size_t)r.size;
        if (!why && !in_place &&
            (sendcount < 0 ||
             kcoll_layout_of(sendtype, send_blocks * (size_t)sendcount, &s) !=
                 MPI_SUCCESS ||
             times((size_t)sendcount, (size_t)s.size) != n))
            why = kcoll_ip_why_invalid;
    }
    if (why)
        PASS(coll, why, kcoll_ip_pass_bytes(comm, why, recvcount, recvtype, 1),
             (alltoall ? PMPI_Alltoall : PMPI_Allgather)(
                 sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                 comm));
    if (n == 0 || (r.contiguous && (in_place || s.contiguous)))
        return kcoll_ip_raise_error(comm, fn(sendbuf, recvbuf, n, comm, NULL));
    void *rb = recvbuf;
    if (!r.contiguous) {
        if (!(rb = kcoll_ip_scratch(KCOLL_IP_RECV_TMP, n * p)))
            return kcoll_ip_raise_error(comm, MPI_ERR_NO_MEM);
        /* In place, what this process sends is in recvbuf: its own block
         * (allgather) or every block (alltoall). */
        if (in_place && alltoall) {
            rc = kcoll_layout_pack(c, &r, recvbuf, rb);
        } else if (in_place) {
            kcoll_layout own = one_block(&r, (size_t)recvcount);
            rc = kcoll_layout_pack(
                c, &own,
                block_at(recvbuf, &r, (size_t)c->rank, (size_t)recvcount),
                (char *)rb + (size_t)c->rank * n);
        }
    }
    const void *sb = sendbuf;
    if (!in_place && !s.contiguous) {
        void *tmp = kcoll_ip_scratch(KCOLL_IP_SEND_TMP, n * send_blocks);
        if (!tmp) {
            kcoll_ip_scratch_done();
            return kcoll_ip_raise_error(comm, MPI_ERR_NO_MEM);
        }
        rc = first_error(rc, kcoll_layout_pack(c, &s, sendbuf, tmp));
        sb = tmp;
    }
    rc = first_error(rc, fn(sb, rb, n, comm, NULL));
    if (rc == MPI_SUCCESS && !r.contiguous)
        rc = kcoll_layout_unpack(c, &r, rb, recvbuf);
    kcoll_ip_scratch_done();
    return kcoll_ip_raise_error(comm, rc);
}

int kcoll_ip_allgather(const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount,
                       MPI_Datatype recvtype, MPI_Comm comm)
{
    return everyone(KCAL_COLL_ALLGATHER, kcoll_allgather, sendbuf, sendcount,
                    sendtype, recvbuf, recvcount, recvtype, comm);
}

int kcoll_ip_alltoall(const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm)
{
    return everyone(KCAL_COLL_ALLTOALL, kcoll_alltoall, sendbuf, sendcount,
                    sendtype, recvbuf, recvcount, recvtype, comm);
}

/* ---- the C entry points -------------------------------------------------- */

/* kcoll_impl.h sends libkcoll's own uses of these names to PMPI_; here
 * they are the interposer's definitions. */
#undef MPI_Bcast
#undef MPI_Scatter
#undef MPI_Gather
#undef MPI_Allgather
#undef MPI_Alltoall

KCOLL_EXPORT int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype,
                           int root, MPI_Comm comm)
{
    return kcoll_ip_bcast(buffer, count, datatype, root, comm);
}

KCOLL_EXPORT int MPI_Scatter(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm)
{
    return kcoll_ip_scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                            recvtype, root, comm);
}

KCOLL_EXPORT int MPI_Gather(const void *sendbuf, int sendcount,
                            MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm)
{
    return kcoll_ip_gather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                           recvtype, root, comm);
}

KCOLL_EXPORT int MPI_Allgather(const void *sendbuf, int sendcount,
                               MPI_Datatype sendtype, void *recvbuf,
                               int recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm)
{
    return kcoll_ip_allgather(sendbuf, sendcount, sendtype, recvbuf,
                              recvcount, recvtype, comm);
}

KCOLL_EXPORT int MPI_Alltoall(const void *sendbuf, int sendcount,
                              MPI_Datatype sendtype, void *recvbuf,
                              int recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm)
{
    return kcoll_ip_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                             recvtype, comm);
}
