/* reduce: what libkcoll's reductions share (not installed): MPI_Reduce,
 * MPI_Allreduce and MPI_Reduce_scatter_block whose data move by
 * process_vm_readv and process_vm_writev and whose ops run in this
 * process, on cache-sized chunks (KCAL_REDUCE_CHUNK).
 *
 *   reduce_op.c  what libkcoll reduces itself (the (type, op) pairs MPI
 *                defines, on types without holes), the fold of one chunk
 *                of every rank's data in rank order, the MPI library's
 *                reductions;
 *   reduce.c     the algorithms, rows of model/algorithms.def like the
 *                other collectives' (their kcoll_args carry type, op and
 *                the element size; n is bytes).
 *
 * Order of reduction: every element of every algorithm is
 * x_0 ⊕ (x_1 ⊕ (… ⊕ x_{p−1})), x_r being rank r's, applied as
 * MPI_Reduce_local applies an op (inout = in ⊕ inout). So the result is
 * the same on every rank, from call to call, and from one libkcoll
 * algorithm to another, bit for bit, floating point included, and a
 * non-commutative op is applied in rank order as MPI requires. The MPI
 * library's own collective may order a floating-point sum differently.
 * Two limits, docs/libkcoll.md: rank p − 1 folds its first step as
 * x_{p−1} ⊕ x_{p−2} where that gives the same bits (kcoll_red_commutes);
 * and MPI_Reduce_local itself may give an element other bits at another
 * place in a call (Open MPI 4.1's avx MIN and MAX where +0 meets −0). */
#ifndef KCOLL_REDUCE_H
#define KCOLL_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "algos/kcoll_impl.h"

/* Whether libkcoll reduces (type, op) itself, and the element size: type
 * is contiguous without holes (size = extent = true extent, lower bound
 * 0), and op is a user-defined op, or a predefined op MPI defines on that
 * predefined type (MPI 4.0 §6.9.2). Anything else (MPI_REPLACE, a pair
 * type with padding, a predefined op on a derived type) goes to the MPI
 * library, which applies or refuses it as it always does; type and op are
 * the same on every rank (MPI's rule), so is this answer. */
int kcoll_reducible(MPI_Datatype type, MPI_Op op, size_t *esize);

/* Whether type and op are both predefined handles, which MPI never frees
 * (a handle of a user's may be freed and come back as another). */
int kcoll_red_predefined(MPI_Datatype type, MPI_Op op);

/* The class of a predefined type (KCOLL_RC_* of algos/reduce_types.h; 0:
 * none the reductions know). */
unsigned kcoll_red_type_class(MPI_Datatype t);

/* The model's rate for op on type (model/reduce_rates.def): the index
 * of its reduce_<op>_<class>_beta key among the REDOP family's members,
 * or -1 where it has none of its own (MPI_SUM on floating point, whose
 * rate is reduce_beta; a user's op or type). The reductions' choice
 * prices and decides each such op apart (verify.h's rate domains).
 * Remembered per thread for the last predefined pair asked. */
int kcoll_red_rate(MPI_Datatype type, MPI_Op op);

/* Whether x ⊕ y and y ⊕ x are the same bits for every x and y of type:
 * the predefined ops on the integer, logical and byte classes (but
 * MINLOC and MAXLOC), and MPI_SUM and MPI_PROD on the real floating
 * types, which IEEE 754 rounds alike either way (only which of two NaNs'
 * payloads survives may differ, as it may between two compilers of the
 * MPI library's own op). Not MPI_MIN or MPI_MAX on floating types (of
 * +0 and −0 they keep the operand compared second), not complex (a
 * product's parts may be contracted into FMAs in either order), not a
 * user's op. */
int kcoll_red_commutes(MPI_Datatype type, MPI_Op op);

/* The fold of elements [e0, e0 + m) over every rank, m·esize at most
 * KCAL_REDUCE_CHUNK (or one element): acc gets x_0 ⊕ (x_1 ⊕ (… ⊕ x_{p−1})) of those
 * elements, where x_r lies at src[r] in rank r (this rank's at own),
 * read into tmp (KCAL_REDUCE_CHUNK bytes) when remote. `commuted`: the
 * op commutes (kcoll_red_commutes) and no other rank folds these
 * elements, so rank p − 1 may fold x_{p−1} ⊕ x_{p−2} without copying its
 * own input first. Returns 0, or 1 when a read failed (acc is then not
 * the result). MPI_Reduce_local's errors are returned through *rc. */
int kcoll_red_fold(kcoll_comm *c, const kcoll_args *a,
                   const uint64_t *src, const void *own, size_t e0, size_t m,
                   void *acc, void *tmp, int commuted, int *rc);

/* n bytes as the benchmark's and the probe's reductions take them:
 * doubles summed, or bytes OR'd when n is not a multiple of 8. */
kcoll_args kcoll_bytes_reduction(const void *sendbuf, void *recvbuf,
                                 size_t n, int root);

/* The MPI library's reduction coll (a reduction of kcal_coll) of a->n /
 * a->esize elements of a->type under a->op, on comm. MPI_ERR_COUNT above
 * INT_MAX elements. */
int kcoll_mpi_reduction(kcal_coll coll, const kcoll_args *a, MPI_Comm comm);

#endif
