/* copy: the local copy in blocks, and around the page-alias penalty
 * (copy.h). */
#include "common/copy.h"

#include <stdint.h>
#include <string.h>

int kcal_copy_near_alias(const void *dst, const void *src)
{
    uintptr_t d = ((uintptr_t)dst - (uintptr_t)src) &
                  (KCAL_COPY_ALIAS_PAGE - 1);
    return d >= 1 && d <= KCAL_COPY_ALIAS_WINDOW;
}

/* 32-byte vectors with unaligned loads and stores (GCC's generic vectors:
 * AVX2 where the CPU has it, picked once at load time by target_clones,
 * else pairs of SSE2 moves). Four per iteration, so the loads of one
 * iteration do not wait for its stores; the tail (< 128 bytes) is
 * memcpy's, far below the sizes where glibc uses `rep movsb`. */
typedef long long kcal_v32 __attribute__((vector_size(32), aligned(1),
                                          may_alias));

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void vector_copy(char *d, const char *s, size_t n)
{
    size_t i = 0;
    for (; i + 128 <= n; i += 128) {
        kcal_v32 a = *(const kcal_v32 *)(s + i);
        kcal_v32 b = *(const kcal_v32 *)(s + i + 32);
        kcal_v32 c = *(const kcal_v32 *)(s + i + 64);
        kcal_v32 e = *(const kcal_v32 *)(s + i + 96);
        *(kcal_v32 *)(d + i) = a;
        *(kcal_v32 *)(d + i + 32) = b;
        *(kcal_v32 *)(d + i + 64) = c;
        *(kcal_v32 *)(d + i + 96) = e;
    }
    memcpy(d + i, s + i, n - i);
}

void kcal_copy(void *dst, const void *src, size_t n)
{
    char *d = dst;
    const char *s = src;
    if (n >= KCAL_COPY_ALIAS_MIN && kcal_copy_near_alias(dst, src)) {
        vector_copy(d, s, n);
        return;
    }
    while (n > KCAL_COPY_BLOCK) {
        memcpy(d, s, KCAL_COPY_BLOCK);
        d += KCAL_COPY_BLOCK;
        s += KCAL_COPY_BLOCK;
        n -= KCAL_COPY_BLOCK;
    }
    memcpy(d, s, n);
}
