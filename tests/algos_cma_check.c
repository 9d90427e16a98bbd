/* algos_cma_check: the CMA transfer loop of libkcoll (algos/cma.c), on this
 * process's own memory: short transfers (forced with a per-call cap), more
 * segments than IOV_MAX, empty segments, writes, a bad remote address (an
 * error, not a hang) and, when the machine has the memory, one transfer
 * above 2 GiB (the kernel's per-call MAX_RW_COUNT). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tests/check.h"
#include "algos/kcoll_impl.h"

static void fill(unsigned char *b, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)(i * 31 + (i >> 10) * 7 + seed);
}

static long mem_available_kib(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

int main(void)
{
    pid_t me = getpid();
    char probe = 'x', got = 0;
    int e = kcoll_cma_read(me, &got, kcoll_addr(&probe), 1);
    if (e == EPERM || e == ENOSYS) {
        fprintf(stderr, "skipped: process_vm_readv is not permitted here (%s)\n",
                strerror(e));
        return 77;
    }
    size_t n = (1u << 20) + 5;
    unsigned char *src = malloc(n), *dst = malloc(n);
    fill(src, n, 1);

    /* Plain read and write. */
    memset(dst, 0, n);
    CHECK(kcoll_cma_read(me, dst, kcoll_addr(src), n) == 0);
    CHECK(memcmp(src, dst, n) == 0);
    memset(dst, 0, n);
    CHECK(kcoll_cma_write(me, src, kcoll_addr(dst), n) == 0);
    CHECK(memcmp(src, dst, n) == 0);
    CHECK(kcoll_cma_read(me, dst, kcoll_addr(src), 0) == 0);

    /* Short transfers: at most 4097 bytes per system call. */
    kcoll_cma_call_limit = 4097;
    memset(dst, 0, n);
    CHECK(kcoll_cma_read(me, dst, kcoll_addr(src), n) == 0);
    CHECK(memcmp(src, dst, n) == 0);

    /* 3000 segments of 3 bytes, some empty, reversed: more than IOV_MAX,
     * and calls that end inside a segment. */
    kcoll_cma_call_limit = 1000;
    enum { NSEG = 3000 };
    kcoll_seg *segs = calloc(NSEG, sizeof *segs);
    memset(dst, 0, n);
    for (size_t i = 0; i < NSEG; i++) {
        segs[i].local = dst + 3 * i;
        segs[i].remote = kcoll_addr(src + 3 * (NSEG - 1 - i));
        segs[i].len = i % 7 == 3 ? 0 : 3;
    }
    CHECK(kcoll_cma_readv(me, segs, NSEG) == 0);
    int ok = 1;
    for (size_t i = 0; i < NSEG; i++)
        if (segs[i].len && memcmp(dst + 3 * i, src + 3 * (NSEG - 1 - i), 3))
            ok = 0;
        else if (!segs[i].len && memcmp(dst + 3 * i, "\0\0\0", 3))
            ok = 0;
    CHECK(ok);
    memset(dst, 0, n);
    for (size_t i = 0; i < NSEG; i++) {
        segs[i].local = src + 3 * i;
        segs[i].remote = kcoll_addr(dst + 3 * i);
        segs[i].len = 3;
    }
    CHECK(kcoll_cma_writev(me, segs, NSEG) == 0);
    CHECK(memcmp(src, dst, 3 * NSEG) == 0);
    free(segs);
    kcoll_cma_call_limit = 0;

    /* An unmapped remote page is an error, not an endless loop. */
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *hole = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(hole + page, (size_t)page);
    CHECK(kcoll_cma_read(me, dst, kcoll_addr(hole + page - 10), 100) != 0);
    CHECK(kcoll_cma_read(me, dst, kcoll_addr(hole + page), 100) == EFAULT);
    munmap(hole, (size_t)page);
    free(src);
    free(dst);

    /* Above 2 GiB in one transfer (2 GiB + 3 pages + 5 bytes each way). */
    size_t big = ((size_t)2 << 30) + 3 * 4096 + 5;
    if (mem_available_kib() > (long)(3 * (big >> 10))) {
        unsigned char *a = mmap(NULL, big, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        unsigned char *b = mmap(NULL, big, PROT_READ | PROT_WRITE,
                                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(a != MAP_FAILED && b != MAP_FAILED);
        if (a != MAP_FAILED && b != MAP_FAILED) {
            /* Huge pages where allowed: a million 4 KiB faults take ~10 s. */
            madvise(a, big, MADV_HUGEPAGE);
            madvise(b, big, MADV_HUGEPAGE);
            for (size_t i = 0; i < big; i += 4096)
                a[i] = (unsigned char)(i >> 12);
            a[big - 1] = 0x77;
            CHECK(kcoll_cma_read(me, b, kcoll_addr(a), big) == 0);
            int same = b[big - 1] == 0x77;
            for (size_t i = 0; i < big && same; i += 4096)
                same = b[i] == (unsigned char)(i >> 12);
            CHECK(same);
        }
        munmap(a, big);
        munmap(b, big);
    } else {
        printf("skipped the 2 GiB transfer: not enough free memory\n");
    }
    return check_report();
}
