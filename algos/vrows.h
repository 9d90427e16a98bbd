/* vrows: the v-collectives' rows, from algos/irregular.def (vrows.c).
 * irregular.c runs them; the verified choice (verify.c, choice.c) names
 * and prices a v-collective's rows by the regular rows that stand for
 * them in the model (irregular.def's `regular`). */
#ifndef KCOLL_VROWS_H
#define KCOLL_VROWS_H

#include "algos/irregular.h"

typedef struct {
    kcoll_vcoll coll;
    const char *id;
    kcoll_valgorithm_fn fn;
    int windowed;        /* takes ":w" (the ROOT_WINDOW path) */
    const char *regular; /* the regular row the model prices it with */
} kcoll_vrow;

/* v's name and the index of a name (-1: none), the regular collective,
 * the regular row of v's row `id` (NULL: no such row), and v's rows'
 * regular rows in irregular.def's order (how many, at most max). */
const char *kcoll_v_name(int v);
int kcoll_v_from_name(const char *name);
kcal_coll kcoll_v_regular(int v);
const kcal_algorithm *kcoll_v_row_regular(int v, const char *id);
int kcoll_v_regular_rows(int v, const kcal_algorithm **out, int max);
/* Rows of one v-collective, at most (vrows.c asserts irregular.def's
 * total fits, so no collective's rows are cut). */
#define KCOLL_VROWS_MAX 16
/* The id of v's row that regular row alg stands for (alg's own id where
 * none: "mpi"). */
const char *kcoll_v_row_id(int v, const kcal_algorithm *alg);

/* The regular row that v's row stands on (the model prices it with). */
const kcal_algorithm *kcoll_vrow_regular(const kcoll_vrow *row);
/* The row of v that the regular row alg stands for (NULL: none). */
const kcoll_vrow *kcoll_vrow_of_regular(kcoll_vcoll v,
                                       const kcal_algorithm *alg);
/* The row of a user's "id" or "id:w" (NULL: the collective's first), or
 * NULL for "mpi"; *window the w given (0: none, the root chooses).
 * MPI_ERR_ARG for an unknown id, a window on a row without one, or w
 * outside 1 .. max(p − 1, 1). */
int kcoll_vrow_find(kcoll_vcoll v, const char *spec, int p,
                    const kcoll_vrow **out, int *window);
/* The row-th row of v (irregular.def's order), or NULL. */
const kcoll_vrow *kcoll_vrow_nth(kcoll_vcoll v, int row);

#endif
