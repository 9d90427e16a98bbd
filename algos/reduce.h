/* reduce: libkcoll's reductions (not installed): MPI_Reduce, MPI_Allreduce
 * and MPI_Reduce_scatter_block whose data move by process_vm_readv and
 * process_vm_writev and whose ops run in this process, on cache-sized
 * chunks.
 *
 *   reduce_op.c  what libkcoll reduces itself (the (type, op) pairs MPI
 *                defines, on types without holes) and the fold of one chunk
 *                of every rank's data, in rank order;
 *   reduce.c     the algorithms (algos/reductions.def);
 *   reduce_call.c the public entry points: arguments, the choice, p = 1,
 *                the MPI library's collective, KCOLL_STATS.
 *
 * Order of reduction: every element of every algorithm is
 * x_0 ⊕ (x_1 ⊕ (… ⊕ x_{p−1})), x_r being rank r's, applied as
 * MPI_Reduce_local applies an op (inout = in ⊕ inout). So the result is
 * the same on every rank, from call to call, and from one libkcoll
 * algorithm to another, bit for bit, floating point included, and a
 * non-commutative op is applied in rank order as MPI requires. The MPI
 * library's own collective may order a floating-point sum differently. */
#ifndef KCOLL_REDUCE_H
#define KCOLL_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "algos/kcoll_impl.h"

typedef enum {
    KCOLL_RED_REDUCE = 0,
    KCOLL_RED_ALLREDUCE,
    KCOLL_RED_REDUCE_SCATTER_BLOCK,
    KCOLL_RED_COUNT
} kcoll_red_coll;

/* "reduce", "allreduce", "reduce_scatter_block". */
const char *kcoll_red_coll_name(kcoll_red_coll coll);

/* One call as the algorithms see it. count: elements of the whole vector
 * (reduce, allreduce) or of one rank's block (reduce_scatter_block);
 * esize: bytes per element (the type has no holes: kcoll_reducible). */
typedef struct {
    const void *sendbuf; /* MPI_IN_PLACE: the input is in recvbuf */
    void *recvbuf;
    size_t count, esize;
    MPI_Datatype type;
    MPI_Op op;
    int root;
} kcoll_red_args;

typedef int (*kcoll_red_fn)(kcoll_comm *c, const kcoll_red_args *a);

/* One per row of reductions.def. */
#define KCOLL_REDUCTION(coll, id, fn) int fn(kcoll_comm *c, const kcoll_red_args *a);
#include "algos/reductions.def"

typedef struct {
    kcoll_red_coll coll;
    const char *id;
    kcoll_red_fn fn;
} kcoll_red_algorithm;

/* The rows of coll (*n of them), in reductions.def's order. */
const kcoll_red_algorithm *kcoll_red_algorithms(kcoll_red_coll coll,
                                                size_t *n);
/* The row of coll named id, or NULL. */
const kcoll_red_algorithm *kcoll_red_find(kcoll_red_coll coll,
                                          const char *id);

/* Whether libkcoll reduces (type, op) itself, and the element size: type
 * is contiguous without holes (size = extent = true extent, lower bound
 * 0), and op is a user-defined op, or a predefined op MPI defines on that
 * predefined type (MPI 4.0 §6.9.2). Anything else (MPI_REPLACE, a pair
 * type with padding, a predefined op on a derived type) goes to the MPI
 * library, which applies or refuses it as it always does; type and op are
 * the same on every rank (MPI's rule), so is this answer. */
int kcoll_reducible(MPI_Datatype type, MPI_Op op, size_t *esize);

/* Chunk of the fold: the most bytes of one element range reduced at a
 * time, two of them (the running result and the peer's data just read)
 * staying in a core's L2 cache. */
#define KCOLL_RED_CHUNK ((size_t)256 << 10)

/* The fold of elements [e0, e0 + m) over every rank, m·esize at most
 * KCOLL_RED_CHUNK: acc gets x_0 ⊕ (x_1 ⊕ (… ⊕ x_{p−1})) of those
 * elements, where x_r lies at src[r] in rank r (this rank's at own),
 * read into tmp (KCOLL_RED_CHUNK bytes) when remote. Returns 0, or 1
 * when a read failed (acc is then not the result). MPI_Reduce_local's
 * errors are returned through *rc. */
int kcoll_red_fold(kcoll_comm *c, const kcoll_red_args *a,
                   const uint64_t *src, const void *own, size_t e0, size_t m,
                   void *acc, void *tmp, int *rc);

#endif
