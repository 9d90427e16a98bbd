/* reduce_op: what libkcoll reduces itself, the fold of one chunk and the
 * MPI library's reductions (reduce.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "algos/reduce.h"
#include "algos/reduce_types.h"

/* The class of a predefined type (KCOLL_RC_*; 0: none the reductions
 * know). A padded pair has its class too: reducible() refuses it for its
 * holes. Types a build lacks are MPI_DATATYPE_NULL here, which no caller
 * passes. */
unsigned kcoll_red_type_class(MPI_Datatype t)
{
    static const struct {
        MPI_Datatype t;
        unsigned cls;
    } types[] = {
#define KCOLL_RTYPE(handle, cls) {handle, cls},
#define KCOLL_RTYPE_NAMED(name, handle, ctype, cls) {handle, cls},
#define KCOLL_RTYPE_PAIR(name, handle, vtype) {handle, KCOLL_RC_PAIR},
#include "algos/reduce_types.def"
    };
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (t == types[i].t)
            return types[i].cls;
    return 0;
}

/* The predefined ops: handle, name (NULL for those no reduction applies)
 * and the classes they are defined on. */
static const struct {
    MPI_Op op;
    const char *name;
    unsigned cls;
} ops[] = {
#define KCOLL_ROP(name, handle, classes) {handle, #name, classes},
#define KCOLL_ROP_NONE(handle) {handle, NULL, 0},
#include "algos/reduce_types.def"
};

/* A predefined op's row, or -1 (a user's op). */
static int op_row(MPI_Op op)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (op == ops[i].op)
            return (int)i;
    return -1;
}

/* The classes a predefined op is defined on; -1: not a predefined op
 * (a user's), 0: a predefined op no reduction here applies (MPI_REPLACE,
 * MPI_NO_OP, MPI_OP_NULL). */
static int op_classes(MPI_Op op)
{
    int i = op_row(op);
    return i < 0 ? -1 : (int)ops[i].cls;
}

/* The last predefined (type, op) asked, per thread: a loop of the same
 * reduction asks once. Predefined handles are never freed, so the entry
 * stays right; a user's type or op is asked every time (its handle may be
 * freed and reused for another). */
static _Thread_local struct {
    MPI_Datatype type;
    MPI_Op op;
    size_t esize; /* 0: the pair is not one libkcoll reduces */
    int set;
} last;

static int reducible(MPI_Datatype type, MPI_Op op, size_t *esize);

int kcoll_reducible(MPI_Datatype type, MPI_Op op, size_t *esize)
{
    if (last.set && last.type == type && last.op == op) {
        *esize = last.esize;
        return last.esize != 0;
    }
    int ok = reducible(type, op, esize);
    if (kcoll_red_type_class(type) && op_classes(op) >= 0)
        last.type = type, last.op = op, last.esize = *esize, last.set = 1;
    return ok;
}

int kcoll_red_rate(MPI_Datatype type, MPI_Op op)
{
    static _Thread_local struct {
        MPI_Datatype type;
        MPI_Op op;
        int rate, set;
    } memo;
    if (memo.set && memo.type == type && memo.op == op)
        return memo.rate;
    unsigned cls = kcoll_red_type_class(type);
    int row = op_row(op);
    const char *name = row < 0 ? NULL : ops[row].name;
    kcal_pkey k = cls && name ? kcal_reduce_rate_key(name, cls) : -1;
    int rate = k >= KCAL_PK_MEMBER(reduce_rate, 0) &&
                       k < KCAL_PK_MEMBER(reduce_rate, KCAL_N_MEMBERS_REDOP)
                   ? k - KCAL_PK_MEMBER(reduce_rate, 0)
                   : -1;
    if (cls && name)
        memo.type = type, memo.op = op, memo.rate = rate, memo.set = 1;
    return rate;
}

int kcoll_red_predefined(MPI_Datatype type, MPI_Op op)
{
    return kcoll_red_type_class(type) && op_classes(op) >= 0;
}

static int reducible(MPI_Datatype type, MPI_Op op, size_t *esize)
{
    *esize = 0;
    if (type == MPI_DATATYPE_NULL)
        return 0;
    int size;
    MPI_Aint lb, extent, tlb, textent;
    if (MPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0 ||
        MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS ||
        MPI_Type_get_true_extent(type, &tlb, &textent) != MPI_SUCCESS ||
        lb != 0 || tlb != 0 || extent != size || textent != size)
        return 0;
    int cls = op_classes(op);
    if (cls == 0 || (cls > 0 && !(kcoll_red_type_class(type) & (unsigned)cls)))
        return 0;
    *esize = (size_t)size;
    return 1;
}

int kcoll_red_commutes(MPI_Datatype type, MPI_Op op)
{
    unsigned cls = kcoll_red_type_class(type);
    if (op_classes(op) <= 0 || op == MPI_MINLOC || op == MPI_MAXLOC)
        return 0;
    if (cls & (KCOLL_RC_C_INT | KCOLL_RC_F_INT | KCOLL_RC_LOGICAL |
               KCOLL_RC_BYTE))
        return 1;
    return cls == KCOLL_RC_FLOATING && (op == MPI_SUM || op == MPI_PROD);
}

int kcoll_red_fold(kcoll_comm *c, const kcoll_args *a,
                   const uint64_t *src, const void *own, size_t e0, size_t m,
                   void *acc, void *tmp, int commuted, int *rc)
{
    size_t off = e0 * a->esize, len = m * a->esize;
    int p = c->size, me = c->rank, failed = 0, r = p - 2;
    /* x_{p−1} first, then x_r ⊕ acc for r = p − 2 down to 0. Rank p − 1
     * holds x_{p−1} itself: MPI_Reduce_local folds into its second
     * operand, so it would copy its own input into acc first, n/p more
     * bytes through its cache than any other rank moves. Where the op
     * commutes (kcoll_red_commutes) it reads x_{p−2} into acc instead
     * and folds its own input into that: x_{p−1} ⊕ x_{p−2}, the same
     * bits. */
    if (p - 1 == me && commuted && p > 1) {
        failed = kcoll_cma_read(c->pids[p - 2], acc, src[p - 2] + off, len) != 0;
        if (!failed && *rc == MPI_SUCCESS)
            *rc = MPI_Reduce_local((const char *)own + off, acc, (int)m,
                                   a->type, a->op);
        r = p - 3;
    } else if (p - 1 == me)
        memcpy(acc, (const char *)own + off, len);
    else
        failed = kcoll_cma_read(c->pids[p - 1], acc, src[p - 1] + off, len) != 0;
    for (; r >= 0 && !failed; r--) {
        const void *in = (const char *)own + off;
        if (r != me) {
            failed = kcoll_cma_read(c->pids[r], tmp, src[r] + off, len) != 0;
            in = tmp;
        }
        if (!failed && *rc == MPI_SUCCESS)
            *rc = MPI_Reduce_local(in, acc, (int)m, a->type, a->op);
    }
    return failed;
}

kcoll_args kcoll_bytes_reduction(const void *sendbuf, void *recvbuf,
                                 size_t n, int root)
{
    int dbl = n % sizeof(double) == 0;
    return (kcoll_args){sendbuf, recvbuf, n, root, 0,
                        dbl ? MPI_DOUBLE : MPI_BYTE, dbl ? MPI_SUM : MPI_BOR,
                        dbl ? sizeof(double) : 1};
}

int kcoll_mpi_reduction(kcal_coll coll, const kcoll_args *a, MPI_Comm comm)
{
    size_t count = a->esize ? a->n / a->esize : 0;
    if (count > (size_t)INT_MAX)
        return MPI_ERR_COUNT;
    int n = (int)count;
    switch (coll) {
    case KCAL_COLL_REDUCE:
#ifdef MPICH_VERSION
        /* MPICH 4.0.2's MPI_Reduce with MPI_IN_PLACE at a root other than 0
         * reads out of bounds and crashes (pmodels/mpich#6540; ASan:
         * negative-size-param in its memcpy): the root's input goes from a
         * copy instead. */
        if (a->sendbuf == MPI_IN_PLACE && a->root != 0) {
            int me;
            MPI_Comm_rank(comm, &me);
            if (me == a->root) {
                void *in = malloc(a->n ? a->n : 1);
                if (!in)
                    return MPI_ERR_NO_MEM;
                memcpy(in, a->recvbuf, a->n);
                int rc = MPI_Reduce(in, a->recvbuf, n, a->type, a->op,
                                    a->root, comm);
                free(in);
                return rc;
            }
        }
#endif
        return MPI_Reduce(a->sendbuf, a->recvbuf, n, a->type, a->op, a->root,
                          comm);
    case KCAL_COLL_ALLREDUCE:
        return MPI_Allreduce(a->sendbuf, a->recvbuf, n, a->type, a->op, comm);
    case KCAL_COLL_REDUCE_SCATTER_BLOCK:
        return MPI_Reduce_scatter_block(a->sendbuf, a->recvbuf, n, a->type,
                                        a->op, comm);
    default:
        return MPI_ERR_ARG;
    }
}
