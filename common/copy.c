/* copy: the local copy in blocks (copy.h). */
#include "copy.h"

#include <string.h>

void kcal_copy(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    while (n > KCAL_COPY_BLOCK) {
        memcpy(d, s, KCAL_COPY_BLOCK);
        d += KCAL_COPY_BLOCK;
        s += KCAL_COPY_BLOCK;
        n -= KCAL_COPY_BLOCK;
    }
    memcpy(d, s, n);
}
