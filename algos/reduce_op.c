/* reduce_op: what libkcoll reduces itself, the fold of one chunk and the
 * MPI library's reductions (reduce.h). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "algos/reduce.h"

/* The classes of predefined types of MPI 4.0 §6.9.2, as bits. */
enum {
    C_INT = 1 << 0,   /* C integer */
    F_INT = 1 << 1,   /* Fortran integer */
    FLOATING = 1 << 2,
    LOGICAL = 1 << 3,
    COMPLEX = 1 << 4,
    BYTE = 1 << 5,
    PAIR = 1 << 6     /* MINLOC and MAXLOC's (value, index) pairs */
};

/* The class of a predefined type (0: not one libkcoll reduces). Types a
 * build lacks are MPI_DATATYPE_NULL here, which no caller passes. */
static unsigned type_class(MPI_Datatype t)
{
    static const MPI_Datatype c_int[] = {
        MPI_INT, MPI_LONG, MPI_SHORT, MPI_UNSIGNED_SHORT, MPI_UNSIGNED,
        MPI_UNSIGNED_LONG, MPI_LONG_LONG_INT, MPI_UNSIGNED_LONG_LONG,
        MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_INT8_T, MPI_INT16_T,
        MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T,
        MPI_UINT64_T};
    static const MPI_Datatype floating[] = {MPI_FLOAT, MPI_DOUBLE, MPI_REAL,
                                            MPI_DOUBLE_PRECISION};
    static const MPI_Datatype complex[] = {MPI_C_FLOAT_COMPLEX,
                                           MPI_C_DOUBLE_COMPLEX, MPI_COMPLEX,
                                           MPI_DOUBLE_COMPLEX};
    static const MPI_Datatype pair[] = {MPI_2INT, MPI_FLOAT_INT, MPI_2REAL,
                                        MPI_2DOUBLE_PRECISION, MPI_2INTEGER};
    static const struct {
        const MPI_Datatype *t;
        size_t n;
        unsigned cls;
    } classes[] = {
        {c_int, sizeof c_int / sizeof *c_int, C_INT},
        {floating, sizeof floating / sizeof *floating, FLOATING},
        {complex, sizeof complex / sizeof *complex, COMPLEX},
        {pair, sizeof pair / sizeof *pair, PAIR},
    };
    if (t == MPI_INTEGER)
        return F_INT;
    if (t == MPI_C_BOOL || t == MPI_LOGICAL)
        return LOGICAL;
    if (t == MPI_BYTE)
        return BYTE;
    for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
        for (size_t j = 0; j < classes[i].n; j++)
            if (t == classes[i].t[j])
                return classes[i].cls;
    return 0;
}

/* The classes a predefined op is defined on; -1: not a predefined op
 * (a user's), 0: a predefined op no reduction here applies (MPI_REPLACE,
 * MPI_NO_OP, MPI_OP_NULL). */
static int op_classes(MPI_Op op)
{
    static const struct {
        MPI_Op op;
        unsigned cls;
    } ops[] = {
        {MPI_MAX, C_INT | F_INT | FLOATING},
        {MPI_MIN, C_INT | F_INT | FLOATING},
        {MPI_SUM, C_INT | F_INT | FLOATING | COMPLEX},
        {MPI_PROD, C_INT | F_INT | FLOATING | COMPLEX},
        {MPI_LAND, C_INT | LOGICAL},
        {MPI_LOR, C_INT | LOGICAL},
        {MPI_LXOR, C_INT | LOGICAL},
        {MPI_BAND, C_INT | F_INT | BYTE},
        {MPI_BOR, C_INT | F_INT | BYTE},
        {MPI_BXOR, C_INT | F_INT | BYTE},
        {MPI_MAXLOC, PAIR},
        {MPI_MINLOC, PAIR},
        {MPI_REPLACE, 0},
        {MPI_NO_OP, 0},
        {MPI_OP_NULL, 0},
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (op == ops[i].op)
            return (int)ops[i].cls;
    return -1;
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
    if (type_class(type) && op_classes(op) >= 0)
        last.type = type, last.op = op, last.esize = *esize, last.set = 1;
    return ok;
}

int kcoll_red_predefined(MPI_Datatype type, MPI_Op op)
{
    return type_class(type) && op_classes(op) >= 0;
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
    if (cls == 0 || (cls > 0 && !(type_class(type) & (unsigned)cls)))
        return 0;
    *esize = (size_t)size;
    return 1;
}

int kcoll_red_fold(kcoll_comm *c, const kcoll_args *a,
                   const uint64_t *src, const void *own, size_t e0, size_t m,
                   void *acc, void *tmp, int *rc)
{
    size_t off = e0 * a->esize, len = m * a->esize;
    int p = c->size, me = c->rank, failed = 0;
    /* x_{p−1} first, then x_r ⊕ acc for r = p − 2 down to 0. */
    if (p - 1 == me)
        memcpy(acc, (const char *)own + off, len);
    else
        failed = kcoll_cma_read(c->pids[p - 1], acc, src[p - 1] + off, len) != 0;
    for (int r = p - 2; r >= 0 && !failed; r--) {
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
