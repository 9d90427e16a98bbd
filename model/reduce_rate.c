/* reduce_rate: which measured rate a reduction's op is priced at, and the
 * params as that op sees them (model.h). The formulas read one key,
 * reduce_beta (model/reduction.c); an op other than MPI_SUM on doubles
 * swaps its own key in, so no formula, ranking or choice needs to know
 * which op a call applies. */
#include "model/model.h"
#include "algos/reduce_types.h"

#include <string.h>

typedef struct {
    const char *name;
    unsigned classes;
} rclass;

static const rclass classes[] = {
#define KCAL_REDUCE_CLASS(name, cls, handle, ctype, fill) {#name, cls},
#include "model/reduce_rates.def"
};

static const struct {
    const char *op, *cls;
} rates[KCAL_N_MEMBERS_REDOP] = {
#define KCAL_REDUCE_RATE(op, cls) {#op, #cls},
#include "model/reduce_rates.def"
};

kcal_pkey kcal_reduce_rate_key(const char *op, unsigned cls)
{
    if (!op)
        return -1;
    const char *name = NULL;
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++)
        if (classes[i].classes & cls)
            name = classes[i].name;
    if (!name)
        return -1;
    if (!strcmp(op, "sum") && !strcmp(name, "floating"))
        return KCAL_PK_reduce_beta;
    for (int i = 0; i < KCAL_N_MEMBERS_REDOP; i++)
        if (!strcmp(rates[i].op, op) && !strcmp(rates[i].cls, name))
            return KCAL_PK_MEMBER(reduce_rate, i);
    return -1;
}

void kcal_params_reduce_view(const kcal_params *base, kcal_pkey rate,
                             kcal_params *view)
{
    *view = *base;
    if (rate < 0 || rate == KCAL_PK_reduce_beta ||
        !kcal_params_has_key(base, rate))
        return;
    view->at[KCAL_PK_reduce_beta] = base->at[rate];
}
