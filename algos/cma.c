/* cma: the one place where data moves between processes.
 *
 * process_vm_readv/process_vm_writev may move fewer bytes than asked: the
 * kernel stops at MAX_RW_COUNT (about 2 GiB) per call, and at the first page
 * it cannot pin. So every transfer loops until each byte has moved, batches
 * at most IOV_MAX iovecs per call (more is EINVAL), and caps one call at
 * 1 GiB so the byte count always fits the ssize_t it returns. A call that
 * moves nothing is an error (EFAULT) rather than an endless loop. */
#include <errno.h>
#include <limits.h>
#include <sys/uio.h>
#include <unistd.h>

#include "algos/kcoll_impl.h"

#define KCOLL_IOV_BATCH 1024 /* the Linux UIO_MAXIOV; sysconf may say less */
#define KCOLL_CALL_MAX ((size_t)1 << 30)

size_t kcoll_cma_call_limit;

static size_t iov_max(void)
{
    static size_t cached;
    if (!cached) {
        long v = sysconf(_SC_IOV_MAX);
        cached = v > 0 && v < KCOLL_IOV_BATCH ? (size_t)v : KCOLL_IOV_BATCH;
    }
    return cached;
}

static int transfer(pid_t pid, int write, const kcoll_seg *segs, size_t nseg)
{
    struct iovec liov[KCOLL_IOV_BATCH], riov[KCOLL_IOV_BATCH];
    size_t cap = KCOLL_CALL_MAX;
    if (kcoll_cma_call_limit && kcoll_cma_call_limit < cap)
        cap = kcoll_cma_call_limit;
    size_t i = 0, off = 0; /* next byte to move: segs[i], offset off */
    while (i < nseg) {
        size_t cnt = 0, total = 0;
        for (size_t j = i; j < nseg && cnt < iov_max() && total < cap; j++) {
            size_t o = j == i ? off : 0;
            size_t len = segs[j].len - o;
            if (len == 0)
                continue;
            if (len > cap - total)
                len = cap - total;
            liov[cnt].iov_base = (char *)segs[j].local + o;
            liov[cnt].iov_len = len;
            riov[cnt].iov_base = (void *)(uintptr_t)(segs[j].remote + o);
            riov[cnt].iov_len = len;
            cnt++;
            total += len;
        }
        if (cnt == 0)
            return 0; /* only empty segments were left */
        ssize_t got = write ? process_vm_writev(pid, liov, cnt, riov, cnt, 0)
                            : process_vm_readv(pid, liov, cnt, riov, cnt, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (got == 0)
            return EFAULT;
        size_t left = (size_t)got;
        while (left > 0 || (i < nseg && segs[i].len == off)) {
            size_t avail = segs[i].len - off;
            if (left < avail) {
                off += left;
                left = 0;
            } else {
                left -= avail;
                i++;
                off = 0;
            }
            if (i == nseg)
                break;
        }
    }
    return 0;
}

int kcoll_cma_readv(pid_t pid, const kcoll_seg *segs, size_t nseg)
{
    return transfer(pid, 0, segs, nseg);
}

int kcoll_cma_writev(pid_t pid, const kcoll_seg *segs, size_t nseg)
{
    return transfer(pid, 1, segs, nseg);
}

int kcoll_cma_read(pid_t pid, void *local, uint64_t remote, size_t len)
{
    kcoll_seg s = {local, remote, len};
    return transfer(pid, 0, &s, 1);
}

int kcoll_cma_write(pid_t pid, const void *local, uint64_t remote, size_t len)
{
    kcoll_seg s = {(void *)local, remote, len};
    return transfer(pid, 1, &s, 1);
}
