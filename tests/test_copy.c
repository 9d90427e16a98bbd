/* common/copy: kcal_copy moves exactly n bytes, whatever n is against its
 * block (0, 1, one byte either side of a block boundary, several blocks and
 * a tail) and whatever the alignment of either end, and writes nothing
 * outside [dst, dst + n); and near a page alias (dst 1..63 bytes past src
 * modulo 4 KiB, copy.h) it takes its vector loop, as exact. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "common/copy.h"

#define GUARD 64

static void one(size_t n, size_t src_off, size_t dst_off)
{
    size_t room = n + 2 * GUARD + 64;
    unsigned char *src = malloc(room), *dst = malloc(room);
    CHECK(src && dst);
    for (size_t i = 0; i < room; i++) {
        src[i] = (unsigned char)(i * 131 + 7);
        dst[i] = 0xA5;
    }
    kcal_copy(dst + GUARD + dst_off, src + GUARD + src_off, n);
    CHECK(memcmp(dst + GUARD + dst_off, src + GUARD + src_off, n) == 0);
    for (size_t i = 0; i < GUARD + dst_off; i++)
        CHECK(dst[i] == 0xA5);
    for (size_t i = GUARD + dst_off + n; i < room; i++)
        CHECK(dst[i] == 0xA5);
    free(src);
    free(dst);
}

/* dst exactly `dist` bytes past src modulo 4 KiB: both areas start on a
 * page, src at 0 and dst at dist (dist < 2 pages). */
static void near_alias(size_t n, size_t dist)
{
    size_t room = n + 2 * 4096 + GUARD;
    unsigned char *src = aligned_alloc(4096, room + (4096 - room % 4096));
    unsigned char *dst = aligned_alloc(4096, room + (4096 - room % 4096));
    CHECK(src && dst);
    for (size_t i = 0; i < room; i++) {
        src[i] = (unsigned char)(i * 131 + 7);
        dst[i] = 0xA5;
    }
    size_t d = dist % 4096;
    CHECK(kcal_copy_near_alias(dst + dist, src) == (d >= 1 && d <= 63));
    kcal_copy(dst + dist, src, n);
    CHECK(memcmp(dst + dist, src, n) == 0);
    for (size_t i = 0; i < dist; i++)
        CHECK(dst[i] == 0xA5);
    for (size_t i = dist + n; i < room; i++)
        CHECK(dst[i] == 0xA5);
    free(src);
    free(dst);
}

int main(void)
{
    /* Sizes either side of the vector loop's minimum and of its 128-byte
     * step, and distances inside, at and beyond the window's ends. */
    const size_t an[] = {1, 1023, 1024, 1025, 1151, 16384 + 17,
                         KCAL_COPY_BLOCK + 129, 300000};
    const size_t ad[] = {0, 1, 16, 31, 32, 63, 64, 4095, 4096, 4096 + 16};
    for (size_t i = 0; i < sizeof an / sizeof *an; i++)
        for (size_t j = 0; j < sizeof ad / sizeof *ad; j++)
            near_alias(an[i], ad[j]);
    /* Modulo the page: 16 bytes before the source is 4080 past it. */
    char buf[8192];
    CHECK(!kcal_copy_near_alias(buf, buf + 16));
    CHECK(kcal_copy_near_alias(buf + 4096 + 16, buf));

    const size_t b = KCAL_COPY_BLOCK;
    const size_t sizes[] = {0, 1, 63, 4096, b - 1, b, b + 1, 2 * b,
                            3 * b + 17, 8 * b + 4095};
    const size_t offs[][2] = {{0, 0}, {1, 0}, {0, 1}, {16, 48}, {63, 5}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (size_t j = 0; j < sizeof offs / sizeof *offs; j++)
            one(sizes[i], offs[j][0], offs[j][1]);
    /* The block must stay far below any L2 (the reason for it, copy.h)
     * and far above the size where a call's overhead shows. */
    CHECK(b >= 64 * 1024 && b <= 256 * 1024);
    return check_report();
}
