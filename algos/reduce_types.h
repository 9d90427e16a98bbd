/* reduce_types: the classes of predefined types of MPI 4.0 §6.9.2, as
 * bits, for the rows of algos/reduce_types.def (which types and ops the
 * reductions know, and which op MPI defines on which class). No MPI here:
 * kcal (bench/reduce_names.c) expands the rows' names and C types,
 * libkcoll (algos/reduce_op.c) their handles. */
#ifndef KCOLL_REDUCE_TYPES_H
#define KCOLL_REDUCE_TYPES_H

enum {
    KCOLL_RC_C_INT = 1 << 0, /* C integer */
    KCOLL_RC_F_INT = 1 << 1, /* Fortran integer */
    KCOLL_RC_FLOATING = 1 << 2,
    KCOLL_RC_LOGICAL = 1 << 3,
    KCOLL_RC_COMPLEX = 1 << 4,
    KCOLL_RC_BYTE = 1 << 5,
    KCOLL_RC_PAIR = 1 << 6 /* MINLOC and MAXLOC's (value, index) pairs */
};

#endif
