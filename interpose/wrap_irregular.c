/* wrap_irregular: MPI_Scatterv, MPI_Gatherv, MPI_Allgatherv and
 * MPI_Alltoallv of libkcoll_pmpi.so (see interpose.h; the rules in
 * docs/interpose.md, "The v-collectives").
 *
 * The path is decided as for wrap.c's five, from what every process knows
 * alike (kcoll_ip_comm_state, and the root): an intercommunicator, or a
 * communicator whose libkcoll state could not be built, goes to the MPI
 * library unchanged. So does a call whose arguments MPI says are erroneous
 * at this process, which the MPI library then reports as it always does: a
 * root out of range, a negative count, MPI_DATATYPE_NULL, a counts or
 * displacements array that is NULL where this process uses it, MPI_IN_PLACE
 * where MPI does not allow it (scatterv's recvbuf and gatherv's sendbuf at
 * a non-root, sendbuf at a scatterv's root, recvbuf of the other three),
 * and a block whose bytes or byte offset overflow. Arguments MPI says a
 * process ignores (scatterv's send side and gatherv's receive side at
 * non-roots, the send side beside MPI_IN_PLACE) are never looked at.
 *
 * Every other call goes to kcoll_scatterv ... kcoll_alltoallv (algorithm
 * NULL), whose counts and displacements are bytes: the interposer converts
 * each side of this process on its own, and whether it packs never changes
 * its path (a peer may describe the same bytes with another type map):
 *   - a contiguous type (kcoll_layout): counts times the size, and
 *     displacements times the extent, measured from the lowest block
 *     holding data (a negative displacement moves the base kcoll gets, not
 *     the data);
 *   - any other type: the blocks packed one after the other in rank order
 *     into a packing buffer (kcoll_layout_pack), or received there and
 *     unpacked block by block into the user's buffer after the call (only
 *     the type map's bytes are written). In place, the blocks this process
 *     sends from recvbuf are packed first (its own block for gatherv's
 *     root and allgatherv, every block for alltoallv).
 * Counts that do not match between a sender and its receiver are
 * libkcoll's MPI_ERR_TRUNCATE at the receiver, as the MPI library's would
 * be; errors go through the communicator's error handler
 * (kcoll_ip_raise_error). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "interpose/interpose.h"
#include "algos/stats.h"

/* The four and their KCOLL_STATS names, from algos/irregular.def. */
enum {
#define KCOLL_VCOLL(ID, name, REGULAR) ID,
#include "algos/irregular.def"
};
static const char *const vname[] = {
#define KCOLL_VCOLL(ID, name, REGULAR) #name,
#include "algos/irregular.def"
};

#define VPASS(v, why, bytes, call)                                           \
    KCOLL_IP_PASS_NAMED(vname[v], why, bytes, call)

/* The KCOLL_STATS bytes of a call handed on (libkcoll's own measure): the
 * p-block side's total where this process has one (many: its counts,
 * comm's remote group's size of them on an intercommunicator), else its
 * one block; 0 for an invalid call. Read only with KCOLL_STATS on. */
static uint64_t pass_bytes(MPI_Comm comm, const char *why, int many,
                           const int *counts, MPI_Datatype many_type,
                           int count, MPI_Datatype one_type)
{
    if (why == kcoll_ip_why_invalid)
        return 0;
    if (!many)
        return kcoll_ip_pass_bytes(comm, why, count, one_type, 0);
    int p = 0, inter = 0;
    if (!counts || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    (inter ? PMPI_Comm_remote_size : PMPI_Comm_size)(comm, &p);
    uint64_t t = 0;
    for (int i = 0; i < p; i++)
        t += kcoll_ip_pass_bytes(comm, why, counts[i], many_type, 0);
    return t;
}

/* rc, or the first error of rc2 (a failed pack still takes part). */
static int first_error(int rc, int rc2)
{
    return rc != MPI_SUCCESS ? rc : rc2;
}

/* ---- the sides of a call at this process -------------------------------- */

/* A side of p blocks (scatterv's send at the root, gatherv's receive at
 * the root, allgatherv's receive, alltoallv's both), as kcoll gets it. */
typedef struct {
    const char *buf;             /* the user's */
    const int *counts, *displs;  /* the user's, in elements of the type */
    kcoll_layout l;              /* one element */
    size_t *bcounts, *bdispls;   /* kcoll's, in bytes (p each) */
    char *base;                  /* kcoll's buffer */
    size_t total;                /* packed: the bytes of every block */
    int packed;                  /* base is a packing buffer */
} vside;

/* A side of one block (scatterv's receive, gatherv's and allgatherv's
 * send). */
typedef struct {
    kcoll_layout l; /* the block: l.count elements */
    size_t n;       /* its bytes */
    int packed;     /* not contiguous, and bytes to move */
} oside;

/* Block i of s in the user's buffer: displs[i] extents from buf. */
static const char *user_block(const vside *s, int i)
{
    return (const char *)((uintptr_t)s->buf +
                          (uintptr_t)((MPI_Aint)s->displs[i] * s->l.extent));
}

/* Checks the side (buf, counts, displs, type) of p blocks and converts
 * its counts and displacements to bytes in bc and bd (p each): 0, or -1
 * where MPI calls it erroneous (or a byte count or offset overflows). A
 * contiguous side is kcoll's as it is, measured from its lowest block
 * with data; another is packed in rank order (base set by the caller). */
static int many_side(vside *s, const void *buf, const int *counts,
                     const int *displs, MPI_Datatype type, int p, size_t *bc,
                     size_t *bd)
{
    if (!counts || !displs || kcoll_layout_of(type, 1, &s->l) != MPI_SUCCESS)
        return -1;
    s->buf = buf;
    s->counts = counts;
    s->displs = displs;
    s->bcounts = bc;
    s->bdispls = bd;
    s->base = (char *)buf;
    s->total = 0;
    int64_t lo = INT64_MAX, *off = (int64_t *)bd; /* offsets, for now */
    for (int i = 0; i < p; i++) {
        if (counts[i] < 0 ||
            __builtin_mul_overflow((size_t)counts[i], (size_t)s->l.size,
                                   &bc[i]) ||
            __builtin_add_overflow(s->total, bc[i], &s->total) ||
            __builtin_mul_overflow((int64_t)displs[i],
                                   (int64_t)s->l.extent, &off[i]))
            return -1;
        if (bc[i] && off[i] < lo)
            lo = off[i];
    }
    s->packed = !s->l.contiguous && s->total > 0;
    if (s->packed) {
        size_t at = 0;
        for (int i = 0; i < p; i++) {
            bd[i] = at;
            at += bc[i];
        }
        return 0;
    }
    if (s->total == 0)
        lo = 0;
    for (int i = 0; i < p; i++) {
        int64_t d;
        if (!bc[i])
            bd[i] = 0; /* no bytes: any address will do */
        else if (__builtin_sub_overflow(off[i], lo, &d))
            return -1;
        else
            bd[i] = (size_t)d;
    }
    s->base = (char *)((uintptr_t)buf + (uintptr_t)lo);
    return 0;
}

/* Checks the side (count, type) of one block: 0, or -1 (erroneous). */
static int one_side(oside *o, int count, MPI_Datatype type)
{
    if (count < 0 ||
        kcoll_layout_of(type, (size_t)count, &o->l) != MPI_SUCCESS ||
        __builtin_mul_overflow((size_t)count, (size_t)o->l.size, &o->n))
        return -1;
    o->packed = !o->l.contiguous && o->n > 0;
    return 0;
}

/* Pack (or unpack) block i of s between the user's buffer and s->base. */
static int move_block(kcoll_comm *c, const vside *s, int i, int unpack)
{
    if (!s->bcounts[i])
        return MPI_SUCCESS;
    kcoll_layout b = s->l;
    b.count = (size_t)s->counts[i];
    char *packed = s->base + s->bdispls[i];
    return unpack ? kcoll_layout_unpack(c, &b, packed,
                                        (void *)user_block(s, i))
                  : kcoll_layout_pack(c, &b, user_block(s, i), packed);
}

/* Every block of s but `skip` (-1: none); every block is tried, the first
 * error returned. */
static int move_blocks(kcoll_comm *c, const vside *s, int p, int skip,
                       int unpack)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < p; i++)
        if (i != skip)
            rc = first_error(rc, move_block(c, s, i, unpack));
    return rc;
}

/* The packing buffer `which` as s's base: MPI_ERR_NO_MEM if it cannot be
 * had. */
static int take_scratch(vside *s, int which)
{
    if (!s->packed)
        return MPI_SUCCESS;
    s->base = kcoll_ip_scratch(which, s->total);
    return s->base ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* Byte arrays for up to two sides of p blocks: on the stack for small
 * communicators. */
#define SMALL_P 16
typedef struct {
    size_t small[4 * SMALL_P];
    size_t *a;
} varrays;

static size_t *arrays_get(varrays *v, int p)
{
    v->a = p <= SMALL_P ? v->small : malloc(sizeof(size_t) * 4 * (size_t)p);
    return v->a;
}

static void arrays_done(varrays *v)
{
    if (v->a != v->small)
        free(v->a);
    kcoll_ip_scratch_done();
}

/* ---- the collectives ---------------------------------------------------- */

int kcoll_ip_scatterv(const void *sendbuf, const int *sendcounts,
                      const int *displs, MPI_Datatype sendtype, void *recvbuf,
                      int recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm)
{
    kcoll_comm *c;
    const char *why;
    int rc = kcoll_ip_comm_state(comm, &c, &why);
    if (rc != MPI_SUCCESS)
        return kcoll_ip_raise_error(comm, rc);
    int is_root = 0, p = c ? c->size : 0;
    if (!why && (root < 0 || root >= p))
        why = kcoll_ip_why_invalid;
    varrays v; /* not initialised: 4 · SMALL_P words */
    v.a = NULL;
    vside s = {.packed = 0};
    oside r = {.packed = 0};
    int in_place = 0;
    if (!why) {
        is_root = c->rank == root;
        in_place = is_root && recvbuf == MPI_IN_PLACE;
        if (is_root && !arrays_get(&v, p))
            return kcoll_ip_raise_error(comm, MPI_ERR_NO_MEM);
        if ((is_root && (sendbuf == MPI_IN_PLACE ||
                         many_side(&s, sendbuf, sendcounts, displs, sendtype,
                                   p, v.a, v.a + p))) ||
            (!in_place && (recvbuf == MPI_IN_PLACE ||
                           one_side(&r, recvcount, recvtype))))
            why = kcoll_ip_why_invalid;
    }
    if (why) {
        if (v.a)
            arrays_done(&v);
        int rank = -1;
        if (why != kcoll_ip_why_invalid)
            PMPI_Comm_rank(comm, &rank);
        VPASS(SCATTERV, why,
              pass_bytes(comm, why, root == MPI_ROOT ||
                                        (why != kcoll_ip_why_intercomm &&
                                         rank == root),
                         sendcounts, sendtype,
                         root == MPI_PROC_NULL ? 0 : recvcount, recvtype),
              PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                            recvcount, recvtype, root, comm));
    }
    /* The root's send side packed unless contiguous (its own block not,
     * in place); the receive side into a packing buffer unless
     * contiguous. */
    void *rb = in_place ? MPI_IN_PLACE : recvbuf;
    if (is_root)
        rc = take_scratch(&s, KCOLL_IP_SEND_TMP);
    if (rc == MPI_SUCCESS && r.packed &&
        !(rb = kcoll_ip_scratch(KCOLL_IP_RECV_TMP, r.n)))
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        arrays_done(&v);
        return kcoll_ip_raise_error(comm, rc);
    }
    if (s.packed)
        rc = move_blocks(c, &s, p, in_place ? root : -1, 0);
    rc = first_error(rc, kcoll_scatterv(s.base, s.bcounts, s.bdispls, rb,
                                        r.n, root, comm, NULL));
    if (rc == MPI_SUCCESS && r.packed)
        rc = kcoll_layout_unpack(c, &r.l, rb, recvbuf);
    arrays_done(&v);
    return kcoll_ip_raise_error(comm, rc);
}

int kcoll_ip_gatherv(const void *sendbuf, int sendcount,
                     MPI_Datatype sendtype, void *recvbuf,
                     const int *recvcounts, const int *displs,
                     MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    kcoll_comm *c;
    const char *why;
    int rc = kcoll_ip_comm_state(comm, &c, &why);
    if (rc != MPI_SUCCESS)
        return kcoll_ip_raise_error(comm, rc);
    int is_root = 0, p = c ? c->size : 0;
    if (!why && (root < 0 || root >= p))
        why = kcoll_ip_why_invalid;
    varrays v; /* not initialised: 4 · SMALL_P words */
    v.a = NULL;
    vside r = {.packed = 0};
    oside s = {.packed = 0};
    int in_place = 0;
    if (!why) {
        is_root = c->rank == root;
        in_place = is_root && sendbuf == MPI_IN_PLACE;
        if (is_root && !arrays_get(&v, p))
            return kcoll_ip_raise_error(comm, MPI_ERR_NO_MEM);
        if ((is_root && (recvbuf == MPI_IN_PLACE ||
                         many_side(&r, recvbuf, recvcounts, displs, recvtype,
                                   p, v.a, v.a + p))) ||
            (!in_place && (sendbuf == MPI_IN_PLACE ||
                           one_side(&s, sendcount, sendtype))))
            why = kcoll_ip_why_invalid;
    }
    if (why) {
        if (v.a)
            arrays_done(&v);
        int rank = -1;
        if (why != kcoll_ip_why_invalid)
            PMPI_Comm_rank(comm, &rank);
        VPASS(GATHERV, why,
              pass_bytes(comm, why, root == MPI_ROOT ||
                                        (why != kcoll_ip_why_intercomm &&
                                         rank == root),
                         recvcounts, recvtype,
                         root == MPI_PROC_NULL ? 0 : sendcount, sendtype),
              PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                           displs, recvtype, root, comm));
    }
    /* The send side: packed unless contiguous; the root's receive side
     * into a packing buffer unless contiguous, its own block packed there
     * first when in place. Without a buffer this process cannot take
     * part: MPI_ERR_NO_MEM (as wrap.c). */
    const void *sb = in_place ? MPI_IN_PLACE : sendbuf;
    void *tmp = NULL;
    if (s.packed && !(sb = tmp = kcoll_ip_scratch(KCOLL_IP_SEND_TMP, s.n)))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && is_root)
        rc = take_scratch(&r, KCOLL_IP_RECV_TMP);
    if (rc != MPI_SUCCESS) {
        arrays_done(&v);
        return kcoll_ip_raise_error(comm, rc);
    }
    if (tmp)
        rc = kcoll_layout_pack(c, &s.l, sendbuf, tmp);
    if (r.packed && in_place)
        rc = first_error(rc, move_block(c, &r, root, 0));
    rc = first_error(rc, kcoll_gatherv(sb, s.n, is_root ? r.base : recvbuf,
                                       r.bcounts, r.bdispls, root, comm,
                                       NULL));
    if (rc == MPI_SUCCESS && r.packed)
        rc = move_blocks(c, &r, p, in_place ? root : -1, 1);
    arrays_done(&v);
    return kcoll_ip_raise_error(comm, rc);
}

int kcoll_ip_allgatherv(const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf,
                        const int *recvcounts, const int *displs,
                        MPI_Datatype recvtype, MPI_Comm comm)
{
    kcoll_comm *c;
    const char *why;
    int rc = kcoll_ip_comm_state(comm, &c, &why);
    if (rc != MPI_SUCCESS)
        return kcoll_ip_raise_error(comm, rc);
    int p = c ? c->size : 0, in_place = sendbuf == MPI_IN_PLACE;
    varrays v; /* not initialised: 4 · SMALL_P words */
    v.a = NULL;
    vside r = {.packed = 0};
    oside s = {.packed = 0};
    if (!why) {
        if (!arrays_get(&v, p))
            return kcoll_ip_raise_error(comm, MPI_ERR_NO_MEM);
        if (recvbuf == MPI_IN_PLACE ||
            many_side(&r, recvbuf, recvcounts, displs, recvtype, p, v.a,
                      v.a + p) ||
            (!in_place && one_side(&s, sendcount, sendtype)))
            why = kcoll_ip_why_invalid;
    }
    if (why) {
        if (v.a)
            arrays_done(&v);
        VPASS(ALLGATHERV, why,
              pass_bytes(comm, why, 1, recvcounts, recvtype, 0, recvtype),
              PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                              recvcounts, displs, recvtype, comm));
    }
    /* As gatherv's root, at every process. */
    const void *sb = in_place ? MPI_IN_PLACE : sendbuf;
    void *tmp = NULL;
    if (s.packed && !(sb = tmp = kcoll_ip_scratch(KCOLL_IP_SEND_TMP, s.n)))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = take_scratch(&r, KCOLL_IP_RECV_TMP);
    if (rc != MPI_SUCCESS) {
        arrays_done(&v);
        return kcoll_ip_raise_error(comm, rc);
    }
    if (tmp)
        rc = kcoll_layout_pack(c, &s.l, sendbuf, tmp);
    if (r.packed && in_place)
        rc = first_error(rc, move_block(c, &r, c->rank, 0));
    rc = first_error(rc, kcoll_allgatherv(sb, s.n, r.base, r.bcounts,
                                          r.bdispls, comm, NULL));
    if (rc == MPI_SUCCESS && r.packed)
        rc = move_blocks(c, &r, p, in_place ? c->rank : -1, 1);
    arrays_done(&v);
    return kcoll_ip_raise_error(comm, rc);
}

int kcoll_ip_alltoallv(const void *sendbuf, const int *sendcounts,
                       const int *sdispls, MPI_Datatype sendtype,
                       void *recvbuf, const int *recvcounts,
                       const int *rdispls, MPI_Datatype recvtype,
                       MPI_Comm comm)
{
    kcoll_comm *c;
    const char *why;
    int rc = kcoll_ip_comm_state(comm, &c, &why);
    if (rc != MPI_SUCCESS)
        return kcoll_ip_raise_error(comm, rc);
    int p = c ? c->size : 0, in_place = sendbuf == MPI_IN_PLACE;
    varrays v; /* not initialised: 4 · SMALL_P words */
    v.a = NULL;
    vside r = {.packed = 0}, s = {.packed = 0};
    if (!why) {
        if (!arrays_get(&v, p))
            return kcoll_ip_raise_error(comm, MPI_ERR_NO_MEM);
        if (recvbuf == MPI_IN_PLACE ||
            many_side(&r, recvbuf, recvcounts, rdispls, recvtype, p, v.a,
                      v.a + p) ||
            (!in_place && many_side(&s, sendbuf, sendcounts, sdispls,
                                    sendtype, p, v.a + 2 * p, v.a + 3 * p)))
            why = kcoll_ip_why_invalid;
    }
    if (why) {
        if (v.a)
            arrays_done(&v);
        VPASS(ALLTOALLV, why,
              pass_bytes(comm, why, 1, recvcounts, recvtype, 0, recvtype),
              PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                             recvcounts, rdispls, recvtype, comm));
    }
    /* Each side packed unless contiguous; in place, what this process
     * sends is every block of recvbuf, packed first when the receive
     * side is packed (libkcoll sets the blocks aside before it
     * overwrites them). */
    rc = take_scratch(&s, KCOLL_IP_SEND_TMP);
    if (rc == MPI_SUCCESS)
        rc = take_scratch(&r, KCOLL_IP_RECV_TMP);
    if (rc != MPI_SUCCESS) {
        arrays_done(&v);
        return kcoll_ip_raise_error(comm, rc);
    }
    if (s.packed)
        rc = move_blocks(c, &s, p, -1, 0);
    if (r.packed && in_place)
        rc = first_error(rc, move_blocks(c, &r, p, -1, 0));
    rc = first_error(rc, kcoll_alltoallv(in_place ? MPI_IN_PLACE : s.base,
                                         s.bcounts, s.bdispls, r.base,
                                         r.bcounts, r.bdispls, comm, NULL));
    if (rc == MPI_SUCCESS && r.packed)
        rc = move_blocks(c, &r, p, -1, 1);
    arrays_done(&v);
    return kcoll_ip_raise_error(comm, rc);
}

/* ---- the C entry points -------------------------------------------------- */

/* kcoll_impl.h sends libkcoll's own uses of these names to PMPI_; here
 * they are the interposer's definitions. */
#undef MPI_Scatterv
#undef MPI_Gatherv
#undef MPI_Allgatherv
#undef MPI_Alltoallv

KCOLL_EXPORT int MPI_Scatterv(const void *sendbuf, const int sendcounts[],
                              const int displs[], MPI_Datatype sendtype,
                              void *recvbuf, int recvcount,
                              MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return kcoll_ip_scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf,
                             recvcount, recvtype, root, comm);
}

KCOLL_EXPORT int MPI_Gatherv(const void *sendbuf, int sendcount,
                             MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return kcoll_ip_gatherv(sendbuf, sendcount, sendtype, recvbuf,
                            recvcounts, displs, recvtype, root, comm);
}

KCOLL_EXPORT int MPI_Allgatherv(const void *sendbuf, int sendcount,
                                MPI_Datatype sendtype, void *recvbuf,
                                const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, MPI_Comm comm)
{
    return kcoll_ip_allgatherv(sendbuf, sendcount, sendtype, recvbuf,
                               recvcounts, displs, recvtype, comm);
}

KCOLL_EXPORT int MPI_Alltoallv(const void *sendbuf, const int sendcounts[],
                               const int sdispls[], MPI_Datatype sendtype,
                               void *recvbuf, const int recvcounts[],
                               const int rdispls[], MPI_Datatype recvtype,
                               MPI_Comm comm)
{
    return kcoll_ip_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                              recvcounts, rdispls, recvtype, comm);
}
