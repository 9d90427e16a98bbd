/* grow: room for one more element at the end of a growing array.
 *
 * The readers and tables of kcal (params entries, raw samples, join rows,
 * ranked predictions, bench rows) all append to an array that doubles when
 * full; this is that doubling, once, with the overflow check none of the
 * copies had. Library code: returns NULL on failure, never prints. */
#ifndef KCAL_GROW_H
#define KCAL_GROW_H

#include <stddef.h>

/* `array` holds `count` elements of `elem` bytes in room for *cap. Returns
 * an array with room for count + 1 (array itself when there is room, else a
 * realloc of it to twice *cap, or to `first` elements when *cap is 0, with
 * *cap updated), or NULL when memory or size_t runs out; array is then
 * still valid and *cap unchanged. Use as
 *     T *a = kcal_grow(x->items, &x->cap, x->n, sizeof *a, 16);
 *     if (!a) return -1;
 *     x->items = a;                                                       */
void *kcal_grow(void *array, size_t *cap, size_t count, size_t elem,
                size_t first);

/* The same for room for `need` elements at once (doubling until there is):
 * for byte buffers that take a chunk at a time. */
void *kcal_grow_to(void *array, size_t *cap, size_t need, size_t elem,
                   size_t first);

#endif
