/* vrows: the v-collectives' rows (algos/irregular.def) in one table:
 * each v-collective's name and regular collective, each row's id,
 * function, window and the regular row the model prices it with, and
 * the lookups of them. irregular.c runs the rows; the verified choice
 * (verify.c, choice.c) names and prices them through this file, not
 * through the entry points. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "algos/vrows.h"

static const char *const vnames[KCOLL_VCOLL_COUNT] = {
#define KCOLL_VCOLL(ID, name, REGULAR) [KCOLL_VCOLL_##ID] = #name,
#include "algos/irregular.def"
};

/* kcoll_comm keeps a crossover per v-collective (vbelow). */
_Static_assert(KCOLL_VCOLL_COUNT <= KCOLL_VCOLL_SLOTS,
               "kcoll_comm holds KCOLL_VCOLL_SLOTS v-collectives");

static const kcoll_vrow valgorithms[] = {
#define KCOLL_VALGORITHM(VCOLL, id, fn, regular, path)                       \
    {KCOLL_VCOLL_##VCOLL, #id, fn,                                           \
     KCAL_VPATH_##path == KCAL_VPATH_ROOT_WINDOW, #regular},
#include "algos/irregular.def"
};
#define NVALG (sizeof valgorithms / sizeof valgorithms[0])
_Static_assert(NVALG <= KCOLL_VROWS_MAX,
               "a v-collective's rows fit KCOLL_VROWS_MAX (raise it)");

static const kcal_coll vregular[KCOLL_VCOLL_COUNT] = {
#define KCOLL_VCOLL(ID, name, REGULAR) [KCOLL_VCOLL_##ID] = KCAL_COLL_##REGULAR,
#include "algos/irregular.def"
};

const char *kcoll_v_name(int v)
{
    return v >= 0 && v < KCOLL_VCOLL_COUNT ? vnames[v] : NULL;
}

int kcoll_v_from_name(const char *name)
{
    for (int v = 0; v < KCOLL_VCOLL_COUNT; v++)
        if (!strcmp(vnames[v], name))
            return v;
    return -1;
}

kcal_coll kcoll_v_regular(int v)
{
    return vregular[v];
}

/* Each row's regular row, found once: a verified v-collective looks
 * its decision's row up on every call, by pointer, not by a string
 * compare per row. */
static const kcal_algorithm *regular_of[NVALG];

static void find_regulars(void)
{
    for (size_t i = 0; i < NVALG; i++)
        regular_of[i] = kcal_model_find_algorithm(
            vregular[valgorithms[i].coll], valgorithms[i].regular);
}

static const kcal_algorithm *const *regulars(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, find_regulars);
    return regular_of;
}

const kcal_algorithm *kcoll_v_row_regular(int v, const char *id)
{
    for (size_t i = 0; i < NVALG; i++)
        if ((int)valgorithms[i].coll == v && !strcmp(valgorithms[i].id, id))
            return regulars()[i];
    return NULL;
}

int kcoll_v_regular_rows(int v, const kcal_algorithm **out, int max)
{
    const kcal_algorithm *const *reg = regulars();
    int n = 0;
    for (size_t i = 0; i < NVALG && n < max; i++)
        if ((int)valgorithms[i].coll == v && (out[n] = reg[i]))
            n++;
    return n;
}

const kcal_algorithm *kcoll_vrow_regular(const kcoll_vrow *row)
{
    return regulars()[row - valgorithms];
}

const kcoll_vrow *kcoll_vrow_of_regular(kcoll_vcoll v,
                                       const kcal_algorithm *alg)
{
    const kcal_algorithm *const *reg = regulars();
    for (size_t i = 0; i < NVALG; i++)
        if (valgorithms[i].coll == v && reg[i] == alg)
            return &valgorithms[i];
    return NULL;
}

const char *kcoll_v_row_id(int v, const kcal_algorithm *alg)
{
    const kcoll_vrow *row =
        v >= 0 && v < KCOLL_VCOLL_COUNT
            ? kcoll_vrow_of_regular((kcoll_vcoll)v, alg)
            : NULL;
    return row ? row->id : alg->id;
}

int kcoll_vrow_find(kcoll_vcoll v, const char *spec, int p,
                    const kcoll_vrow **out, int *window)
{
    *out = NULL;
    *window = 0;
    if (spec && strcmp(spec, "mpi") == 0)
        return MPI_SUCCESS;
    const char *colon = spec ? strchr(spec, ':') : NULL;
    size_t len = spec ? (colon ? (size_t)(colon - spec) : strlen(spec)) : 0;
    for (size_t i = 0; i < NVALG; i++)
        if (valgorithms[i].coll == v &&
            (!spec || (strlen(valgorithms[i].id) == len &&
                       strncmp(valgorithms[i].id, spec, len) == 0))) {
            if (colon) {
                char *end;
                errno = 0;
                long w = strtol(colon + 1, &end, 10);
                if (!valgorithms[i].windowed || errno || end == colon + 1 ||
                    *end || w < 1 || w > (p > 2 ? p - 1 : 1))
                    return MPI_ERR_ARG;
                *window = (int)w;
            }
            *out = &valgorithms[i];
            return MPI_SUCCESS;
        }
    return MPI_ERR_ARG;
}

const kcoll_vrow *kcoll_vrow_nth(kcoll_vcoll v, int row)
{
    for (size_t i = 0; i < NVALG; i++)
        if (valgorithms[i].coll == v && row-- == 0)
            return &valgorithms[i];
    return NULL;
}
