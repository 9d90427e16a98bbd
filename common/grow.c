/* grow: the doubling array (grow.h). */
#include "common/grow.h"

#include <stdint.h>
#include <stdlib.h>

void *kcal_grow_to(void *array, size_t *cap, size_t need, size_t elem,
                   size_t first)
{
    if (need <= *cap)
        return array;
    size_t n = *cap ? *cap : first;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return NULL;
        n *= 2;
    }
    if (n == 0 || elem == 0 || n > SIZE_MAX / elem)
        return NULL;
    void *a = realloc(array, n * elem);
    if (a)
        *cap = n;
    return a;
}

void *kcal_grow(void *array, size_t *cap, size_t count, size_t elem,
                size_t first)
{
    if (count < *cap)
        return array;
    size_t n = *cap ? *cap : first;
    if (*cap && n > SIZE_MAX / 2)
        return NULL;
    return kcal_grow_to(array, cap, *cap ? 2 * n : n, elem, first);
}
