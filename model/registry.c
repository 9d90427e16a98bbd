/* registry: the algorithms of model/algorithms.def as the model sees them.
 *
 * Owns the registry's rows (their public half, kcal_algorithm, and their
 * model half: the formula each model uses and the shape facts), the
 * collectives' and the models' names, the lookups by name, which k an
 * algorithm takes, and kcal_model_shape. No code in model/ lists
 * algorithms or switches on their names: a row names its formulas. */
#include "model/model_impl.h"

/* The registry's public half, in algorithms.def order: a collective's rows
 * are contiguous (tests/test_model.c checks), so its list is a slice. */
static const kcal_algorithm registry[KCAL_ALG_COUNT] = {
#define KCAL_ALGORITHM(coll, id, kind, fn, paper, full, steps, conc, paper_p, \
                       scratch, ws, origin)                                   \
    [KCAL_ALG_##coll##_##id] = {KCAL_COLL_##coll, #id, KCAL_PARAM_##kind,     \
                                KCAL_ALG_##coll##_##id,                        \
                                KCAL_ORIGIN_##origin},
#include "model/algorithms.def"
};

/* The model half: per algorithm its formula in each model and the shape
 * facts of its row. Counts are functions of p and k (kcal_model_count). */
const kcal_row_facts kcal_model_facts[KCAL_ALG_COUNT] = {
#define KCAL_ALGORITHM(coll, id, kind, fn, paper, full, steps, conc, paper_p, \
                       scratch, ws, ...)                                      \
    [KCAL_ALG_##coll##_##id] = {kcal_##paper,  kcal_##full, N_##steps,        \
                                N_##conc,      N_##scratch, paper_p, ws},
#include "model/algorithms.def"
};

static const char *const coll_names[KCAL_COLL_COUNT] = {
#define KCAL_COLLECTIVE(id, name) [KCAL_COLL_##id] = #name,
#include "model/collectives.def"
};

const char *kcal_coll_name(kcal_coll c)
{
    return (c >= 0 && c < KCAL_COLL_COUNT) ? coll_names[c] : NULL;
}

const char *kcal_coll_list(void)
{
    static const char list[] = ""
#define KCAL_COLLECTIVE(id, name) ", " #name
#include "model/collectives.def"
        ;
    return list + 2;
}

int kcal_coll_is_reduction(kcal_coll c)
{
    return c >= KCAL_COLL_REDUCE && c < KCAL_COLL_COUNT;
}

int kcal_coll_from_name(const char *name, kcal_coll *out)
{
    for (int c = 0; c < KCAL_COLL_COUNT; c++)
        if (!strcmp(coll_names[c], name)) {
            *out = (kcal_coll)c;
            return 0;
        }
    return -1;
}

static const char *const model_names[] = {"paper", "full"};

int kcal_model_kind_ok(kcal_model_kind m)
{
    return m == KCAL_MODEL_PAPER || m == KCAL_MODEL_FULL;
}

const char *kcal_model_name(kcal_model_kind m)
{
    return kcal_model_kind_ok(m) ? model_names[m] : NULL;
}

int kcal_model_from_name(const char *name, kcal_model_kind *out)
{
    for (int m = 0; m < 2; m++)
        if (!strcmp(name, model_names[m])) {
            *out = (kcal_model_kind)m;
            return 0;
        }
    return -1;
}

const kcal_algorithm *kcal_model_algorithms(kcal_coll c, size_t *count)
{
    size_t first = 0, n = 0;
    if (c >= 0 && c < KCAL_COLL_COUNT) {
        while (first < KCAL_ALG_COUNT && registry[first].coll != c)
            first++;
        while (first + n < KCAL_ALG_COUNT && registry[first + n].coll == c)
            n++;
    }
    *count = n;
    return n ? &registry[first] : NULL;
}

const kcal_algorithm *kcal_model_find_algorithm(kcal_coll c, const char *id)
{
    size_t n;
    const kcal_algorithm *a = kcal_model_algorithms(c, &n);
    for (size_t i = 0; i < n; i++)
        if (!strcmp(a[i].id, id))
            return &a[i];
    return NULL;
}

const kcal_algorithm *kcal_model_staged(kcal_coll c)
{
    static const int staged[KCAL_COLL_COUNT] = {
        [KCAL_COLL_SCATTER] = KCAL_ALG_SCATTER_copy_in_out,
        [KCAL_COLL_GATHER] = KCAL_ALG_GATHER_copy_in_out,
        [KCAL_COLL_BCAST] = KCAL_ALG_BCAST_copy_in_out,
        [KCAL_COLL_ALLGATHER] = KCAL_ALG_ALLGATHER_copy_in_out,
        [KCAL_COLL_ALLTOALL] = KCAL_ALG_ALLTOALL_copy_in_out,
        [KCAL_COLL_REDUCE] = KCAL_ALG_REDUCE_copy_in_out,
        [KCAL_COLL_ALLREDUCE] = KCAL_ALG_ALLREDUCE_copy_in_out,
        [KCAL_COLL_REDUCE_SCATTER_BLOCK] =
            KCAL_ALG_REDUCE_SCATTER_BLOCK_copy_in_out,
    };
    _Static_assert(KCAL_COLL_COUNT == 8, "a staged row per collective");
    return c >= 0 && c < KCAL_COLL_COUNT ? &registry[staged[c]] : NULL;
}

int kcal_model_is_row_of(kcal_coll c, const kcal_algorithm *alg)
{
    return alg && alg->index >= 0 && alg->index < KCAL_ALG_COUNT &&
           alg == &registry[alg->index] && alg->coll == c;
}

static long gcd(long a, long b)
{
    while (b) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int kcal_model_k_valid(const kcal_algorithm *alg, int p, int k)
{
    switch (alg->kind) {
    case KCAL_PARAM_NONE:
        return k == 0;
    case KCAL_PARAM_THROTTLE: /* k = 1 and k = p are the non-throttled rows */
        return k >= 2 && k <= p - 1;
    case KCAL_PARAM_STRIDE: /* j = 1 is the plain ring, valid for every p */
        return k == 1 || (k >= 1 && k <= p - 1 && gcd(p, k) == 1);
    }
    return 0;
}

int kcal_model_shape(kcal_coll c, const kcal_algorithm *alg, int p, int k,
                     kcal_shape *out)
{
    if (!kcal_model_is_row_of(c, alg) || p < 1 || k < 0)
        return -1;
    const kcal_row_facts *f = &kcal_model_facts[alg->index];
    out->steps = kcal_model_count(f->steps, p, k);
    if (out->steps < 1) /* p = 1: ⌈log₂ 1⌉ = p − 1 = 0 steps */
        out->steps = 1;
    out->concurrent = kcal_model_copies_at_once(alg, p, k);
    out->paper_charges_p = f->paper_charges_p;
    return 0;
}
