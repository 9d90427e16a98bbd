/* reduce_fill: exact send data for every (type, op) (reduce_fill.h). */
#include "bench/reduce_fill.h"

#include <stdint.h>
#include <string.h>

#include "algos/reduce_types.h"

/* The types reduce_types.def names no row for (reduce_fill.h): a bool
 * stores a value's truth, a double complex's parts are doubles. */
const kcal_reduce_type kcal_reduce_fill_bool = {
    "bool", sizeof(_Bool), KCOLL_RC_LOGICAL, 0, 0, sizeof(_Bool), 0};
const kcal_reduce_type kcal_reduce_fill_double_complex = {
    "double_complex", sizeof(double _Complex), KCOLL_RC_COMPLEX, 1, 1,
    sizeof(double), 0};

const kcal_reduce_type *kcal_reduce_fill_type(const char *name)
{
    for (size_t i = 0; i < kcal_reduce_ntypes; i++)
        if (!strcmp(name, kcal_reduce_types[i].name))
            return &kcal_reduce_types[i];
    if (!strcmp(name, kcal_reduce_fill_bool.name))
        return &kcal_reduce_fill_bool;
    if (!strcmp(name, kcal_reduce_fill_double_complex.name))
        return &kcal_reduce_fill_double_complex;
    return NULL;
}

static uint64_t next(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* v (a whole number, or bits) as the value of t at `at`: floating point
 * converted (a complex's part: a double), integers cut to their width, a
 * bool v != 0. */
static void put(unsigned char *at, const kcal_reduce_type *t, int64_t v)
{
    if (t->cls == KCOLL_RC_LOGICAL) {
        _Bool l = v != 0;
        memcpy(at, &l, sizeof l);
    } else if (t->is_float && t->vsize == sizeof(double)) {
        double d = (double)v;
        memcpy(at, &d, sizeof d);
    } else if (t->is_float) {
        float f = (float)v;
        memcpy(at, &f, sizeof f);
    } else {
        uint64_t u = (uint64_t)v;
        uint8_t u8 = (uint8_t)u;
        uint16_t u16 = (uint16_t)u;
        uint32_t u32 = (uint32_t)u;
        const void *from = t->vsize == 1 ? (const void *)&u8
                           : t->vsize == 2 ? (const void *)&u16
                           : t->vsize == 4 ? (const void *)&u32
                                           : (const void *)&u;
        memcpy(at, from, t->vsize);
    }
}

/* The largest whole number of t that the sum of p values must not pass. */
static uint64_t sum_bound(const kcal_reduce_type *t, int p)
{
    uint64_t top = t->is_float ? (t->vsize == sizeof(double) ? 1ULL << 53
                                                             : 1ULL << 24)
                   : t->vsize >= 8 ? (t->is_signed ? INT64_MAX : UINT64_MAX)
                   : (1ULL << (8 * t->vsize - (t->is_signed ? 1 : 0))) - 1;
    uint64_t b = top / (uint64_t)(p > 0 ? p : 1);
    b = b < (1ULL << 20) ? b : 1ULL << 20;
    return b ? b : 1;
}

void kcal_reduce_fill(unsigned char *b, size_t n, const kcal_reduce_type *t,
                      const kcal_reduce_op *op, unsigned seed, int rank,
                      int p)
{
    uint64_t x = 0x9e3779b97f4a7c15ULL * (seed + 1) + (uint64_t)rank;
    /* The op's rule, named once: the probe fills before every call it
     * times (probe/reduce.h). */
    static const char *const names[] = {"sum", "prod", "min", "max", "band",
                                        "bor", "bxor", "land", "lor", "lxor"};
    enum { SUM, PROD, MIN, MAX, BAND, BOR, BXOR, LAND, LOR, LXOR, LOC } r = SUM;
    while (r < LOC && strcmp(op->name, names[r]))
        r++;
    uint64_t bound = sum_bound(t, p);
    int neg = t->is_signed;
    /* A complex: its parts one after the other, each a value. */
    size_t step = t->cls == KCOLL_RC_COMPLEX ? t->vsize : t->size;
    for (size_t i = 0; i + step <= n; i += step) {
        uint64_t u = next(&x);
        int64_t v;
        if (r == SUM) {
            v = (int64_t)(u % bound);
        } else if (r == PROD) {
            int64_t mag = (i / step) % (size_t)p == (size_t)rank
                              ? 2 + (int64_t)((u >> 8) & 1) : 1;
            v = u % 16 == 0 ? 0 : neg && (u >> 9) & 1 ? -mag : mag;
        } else if (r == MIN || r == MAX) {
            v = t->is_float ? (int64_t)(u % (1ULL << 21)) - (1 << 20)
                            : (int64_t)u;
        } else if (r == BAND) {
            v = (int64_t)~(u & next(&x) & next(&x));
        } else if (r == BOR) {
            v = (int64_t)(u & next(&x) & next(&x));
        } else if (r == BXOR) {
            v = (int64_t)u;
        } else if (r != LOC) { /* land, lor, lxor: 0 or odd */
            int zero = r == LAND ? u % 8 == 0 : r == LOR ? u % 8 != 0
                                                         : u % 2 == 0;
            v = zero ? 0 : (int64_t)((u >> 8) | 1);
        } else { /* minloc, maxloc: the value, then the int index */
            v = (int64_t)(u % 8) - 4;
            int index = (int)(next(&x) % (1u << 20));
            memcpy(b + i + t->vsize, &index, sizeof index);
        }
        put(b + i, t, v);
    }
}
