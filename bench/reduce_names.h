/* reduce_names: the types and ops `kcal bench --type T --op O` and
 * kcal-bench-mpi take for the reductions, by name, from the rows of
 * algos/reduce_types.def (the one home of which op MPI defines on which
 * type), and the one check both programs make of a choice. No MPI: kcal
 * links it, and kcal-bench-mpi maps a row to its handles by its index. */
#ifndef KCAL_REDUCE_NAMES_H
#define KCAL_REDUCE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

typedef struct {
    const char *name;
    size_t size;      /* bytes of one element */
    unsigned cls;     /* KCOLL_RC_* (algos/reduce_types.h) */
    int is_signed;    /* the value (of a pair: its first member) */
    int is_float;
    size_t vsize;     /* a pair's value; else size */
    int padded;       /* a pair with holes: libkcoll hands it to the MPI library */
} kcal_reduce_type;

typedef struct {
    const char *name;
    unsigned classes; /* the KCOLL_RC_* classes MPI defines it on */
} kcal_reduce_op;

/* The named rows, in reduce_types.def's order; index i of each is row i
 * of the .def's named types (KCOLL_RTYPE_NAMED and KCOLL_RTYPE_PAIR) and
 * of its ops (KCOLL_ROP). */
extern const kcal_reduce_type kcal_reduce_types[];
extern const size_t kcal_reduce_ntypes;
extern const kcal_reduce_op kcal_reduce_ops[];
extern const size_t kcal_reduce_nops;

#define KCAL_REDUCE_DEFAULT_TYPE "double"
#define KCAL_REDUCE_DEFAULT_OP "sum"

/* The names kcal bench takes, "a, b, c" into buf: the types (the padded
 * pairs left out) or, with types == 0, the ops; with indent > 0 broken
 * into lines of 80 columns, each but the first after indent blanks. */
const char *kcal_reduce_names(int types, int indent, char *buf, size_t len);

/* The choice of --type and --op (NULL: the default, double and sum) for
 * collective coll: 0 and the rows, or -1 and one line in err (without the
 * program's name) when an option names nothing, coll is no reduction,
 * MPI does not define the op on the type, or libkcoll would hand the type
 * to the MPI library (every row would then time it). */
int kcal_reduce_choose(kcal_coll coll, const char *type, const char *op,
                       const kcal_reduce_type **t, const kcal_reduce_op **o,
                       char *err, size_t len);

/* 0, or -1 and one line in err when n bytes are not whole elements of t
 * (the option named is --sizes). */
int kcal_reduce_check_size(const kcal_reduce_type *t, uint64_t n, char *err,
                           size_t len);

#endif
