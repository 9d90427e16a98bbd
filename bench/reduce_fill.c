/* reduce_fill: exact send data for every (type, op) (reduce_fill.h). */
#include "bench/reduce_fill.h"

#include <stdint.h>
#include <string.h>

static uint64_t next(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* v (a whole number, or bits) as the value of t at `at`: floating point
 * converted, integers cut to their width. */
static void put(unsigned char *at, const kcal_reduce_type *t, int64_t v)
{
    if (t->is_float && t->vsize == sizeof(double)) {
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
    const char *o = op->name;
    uint64_t bound = sum_bound(t, p);
    int neg = t->is_signed;
    for (size_t i = 0; i + t->size <= n; i += t->size) {
        uint64_t u = next(&x);
        int64_t v;
        if (!strcmp(o, "sum")) {
            v = (int64_t)(u % bound);
        } else if (!strcmp(o, "prod")) {
            int64_t mag = (i / t->size) % (size_t)p == (size_t)rank
                              ? 2 + (int64_t)((u >> 8) & 1) : 1;
            v = u % 16 == 0 ? 0 : neg && (u >> 9) & 1 ? -mag : mag;
        } else if (!strcmp(o, "min") || !strcmp(o, "max")) {
            v = t->is_float ? (int64_t)(u % (1ULL << 21)) - (1 << 20)
                            : (int64_t)u;
        } else if (!strcmp(o, "band")) {
            v = (int64_t)~(u & next(&x) & next(&x));
        } else if (!strcmp(o, "bor")) {
            v = (int64_t)(u & next(&x) & next(&x));
        } else if (!strcmp(o, "bxor")) {
            v = (int64_t)u;
        } else if (o[0] == 'l') { /* land, lor, lxor: 0 or odd */
            int zero = !strcmp(o, "land") ? u % 8 == 0
                       : !strcmp(o, "lor") ? u % 8 != 0 : u % 2 == 0;
            v = zero ? 0 : (int64_t)((u >> 8) | 1);
        } else { /* minloc, maxloc: the value, then the int index */
            v = (int64_t)(u % 8) - 4;
            int index = (int)(next(&x) % (1u << 20));
            memcpy(b + i + t->vsize, &index, sizeof index);
        }
        put(b + i, t, v);
    }
}
