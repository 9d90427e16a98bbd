/* dirty: reading lines another core just wrote (see dirty.h). */
#include "probe/dirty.h"
#include "common/err.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

size_t kcal_dirty_size_list(size_t page, size_t max_bytes, int quick,
                            long *out, size_t max)
{
    size_t n = 0;
    if (max_bytes > KCAL_DIRTY_MAX_BYTES)
        max_bytes = KCAL_DIRTY_MAX_BYTES;
    for (size_t b = KCAL_DIRTY_MIN_BYTES; b <= max_bytes && n < max;
         b *= quick ? 4 : 2)
        if (page && b % page == 0)
            out[n++] = (long)b;
    return n;
}

/* One process_vm_readv of len bytes from the start of the target's
 * buffer into ours. Seconds (timed) or 0 (untimed), -1 with errno. */
static double read_range(const kcal_dirty_setup *s, size_t len, int timed)
{
    struct iovec l = {s->local, len}, r = {s->target->base, len};
    double t0 = timed ? kcal_now() : 0;
    ssize_t got = process_vm_readv(s->target->pid, &l, 1, &r, 1, 0);
    double t = timed ? kcal_now() - t0 : 0;
    if (got != (ssize_t)len) {
        if (got >= 0)
            errno = EIO;
        return -1;
    }
    return t;
}

/* One sample of a pattern: the clean one reads the range untimed first
 * and then has the target write nothing; the dirty one has it rewrite
 * the range. Either way the timed read follows a round trip to the target
 * (both polling: target.h), so the two differ only in what the target
 * wrote. -1 with errno, and *what names the call that failed. */
static double sample(const kcal_dirty_setup *s, size_t len, int dirty,
                     const char **what)
{
    if (!dirty) {
        *what = "process_vm_readv";
        if (read_range(s, len, 0) < 0)
            return -1;
    }
    *what = "the target's rewrite";
    if (kcal_target_rewrite(s->target, 0, dirty ? len : 0) < 0)
        return -1;
    *what = "process_vm_readv";
    return read_range(s, len, 1);
}

int kcal_dirty_measure(kcal_dirty_setup *s, kcal_raw *raw, char *err,
                       size_t errlen)
{
    static const char *const patterns[2] = {KCAL_PATTERN_CLEAN,
                                            KCAL_PATTERN_DIRTY};
    size_t max = s->local_bytes < s->target->bytes ? s->local_bytes
                                                   : s->target->bytes;
    /* One untimed sample of each pattern and size first (a warm-up: the
     * first touches of a range by either side are not what is measured). */
    for (size_t i = 0; i < s->n_sizes; i++) {
        size_t len = (size_t)s->sizes[i];
        const char *what;
        if (len > max)
            continue;
        if (sample(s, len, 0, &what) < 0 || sample(s, len, 1, &what) < 0)
            goto fail;
    }
    for (int pass = 0; pass < s->passes; pass++)
        for (size_t i = 0; i < s->n_sizes; i++) {
            size_t len = (size_t)s->sizes[i];
            if (len > max)
                continue;
            /* Clean first: its untimed read leaves the destination warm
             * for the dirty sample too. */
            for (int d = 0; d < 2; d++) {
                double t;
                const char *what;
                for (int tries = 0;; tries++) {
                    /* The whole sample, untimed read and round trip too:
                     * a preemption there leaves another process's lines
                     * in the caches. A sample is at most a few ms; 5
                     * tries, then the last one stays (a machine that is
                     * never quiet). */
                    long before = kcal_involuntary_switches();
                    t = sample(s, len, d, &what);
                    if (t < 0 || kcal_involuntary_switches() == before ||
                        tries == 4)
                        break;
                    s->retaken++;
                }
                if (t < 0) {
                    kcal_set_err(err, errlen, "lines just written (%zu "
                                 "bytes): %s: %s", len, what,
                                 strerror(errno));
                    return -1;
                }
                if (kcal_raw_add(raw, KCAL_PHASE_DIRTY, patterns[d], 1,
                                 (long)(len / s->page), (long)len, pass,
                                 t) < 0) {
                    kcal_set_err(err, errlen, "out of memory");
                    return -1;
                }
                kcal_meter_tick(s->meter, "dirty lines", 1);
            }
        }
    return 0;
fail:
    kcal_set_err(err, errlen, "lines just written: warm-up: %s",
                 strerror(errno));
    return -1;
}
