/* phases: CMA call timing and the T1/T2/T3 sweeps (see phases.h). */
#include "probe/phases.h"
#include "common/err.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>

long kcal_involuntary_switches(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) < 0)
        return -1;
    return ru.ru_nivcsw;
}

void kcal_meter_tick(kcal_meter *m, const char *phase, double units)
{
    if (!m)
        return;
    m->done += units;
    if (m->pr)
        kcal_progress_update(m->pr, phase, m->done, m->total);
}

/* Next `len` bytes of a buffer of `size`, wrapping; page aligned. */
static size_t next_region(size_t *cur, size_t len, size_t size)
{
    if (*cur + len > size)
        *cur = 0;
    size_t off = *cur;
    *cur += len;
    return off;
}

double kcal_cma_time(kcal_cma_setup *s, kcal_call_kind kind, long pages,
                     int inner, int rotate)
{
    size_t len = (size_t)pages * s->page;
    struct iovec l, r;
    unsigned long liovcnt = 1, riovcnt = 1;
    ssize_t want = 1;
    l.iov_base = s->local;
    l.iov_len = 1;
    r.iov_base = s->remote;
    r.iov_len = len;
    switch (kind) {
    case KCAL_CALL_SYSCALL:
        liovcnt = riovcnt = 0;
        want = 0;
        break;
    case KCAL_CALL_STARTUP:
        r.iov_len = 1;
        break;
    case KCAL_CALL_LOCK:
        if (s->simulate_flat_t3) /* a kernel that pins only the 1st page */
            r.iov_len = s->page;
        break;
    case KCAL_CALL_LOCK_LIOV0:
        liovcnt = 0;
        want = 0;
        break;
    case KCAL_CALL_COPY:
    case KCAL_CALL_COPY_WRITE:
        l.iov_len = len;
        want = (ssize_t)len;
        break;
    case KCAL_CALL_STARTUP_WRITE:
        r.iov_len = 1;
        break;
    case KCAL_CALL_LOCK_WRITE:
        break;
    }
    int writes = kind == KCAL_CALL_STARTUP_WRITE ||
                 kind == KCAL_CALL_LOCK_WRITE || kind == KCAL_CALL_COPY_WRITE;
    int copies = kind == KCAL_CALL_COPY || kind == KCAL_CALL_COPY_WRITE;
    double t0 = kcal_now();
    for (int i = 0; i < inner; i++) {
        if (rotate) {
            r.iov_base = s->remote + next_region(&s->rcur, len, s->remote_bytes);
            if (copies)
                l.iov_base = s->local + next_region(&s->lcur, len, s->local_bytes);
        }
        ssize_t got = writes
                          ? process_vm_writev(s->pid, &l, liovcnt, &r, riovcnt, 0)
                          : process_vm_readv(s->pid, &l, liovcnt, &r, riovcnt, 0);
        if (got != want) {
            if (got >= 0)
                errno = EIO;
            return -1;
        }
    }
    return (kcal_now() - t0) / inner;
}

int kcal_cma_calibrate(kcal_cma_setup *s, kcal_call_kind kind, long pages,
                       int rotate)
{
    double best = INFINITY;
    for (int i = 0; i < s->warmup; i++) {
        double t = kcal_cma_time(s, kind, pages, 1, rotate);
        if (t < 0)
            return -1;
        if (t < best)
            best = t;
    }
    if (!(best > 0))
        best = 1e-7;
    double inner = ceil(s->min_sample / best);
    return inner < 1 ? 1 : inner > 4096 ? 4096 : (int)inner;
}

size_t kcal_phases_page_list(int per_octave, long max_pages, long *out,
                             size_t max)
{
    size_t n = 0;
    for (long p = 1; p < 8 && p <= max_pages && n < max; p *= 2)
        out[n++] = p;
    for (int k = 0; n < max; k++) {
        long p = lround(8 * exp2((double)k / per_octave));
        if (p > max_pages)
            break;
        if (n == 0 || p > out[n - 1])
            out[n++] = p;
    }
    if (n < max && n > 0 && out[n - 1] < max_pages)
        out[n++] = max_pages;
    return n;
}

size_t kcal_phases_count_list(long lo, long hi, long *out, size_t max)
{
    size_t n = 0;
    for (long v = lo; v <= hi && v <= 8 && n < max; v++)
        out[n++] = v;
    for (int k = 1; n < max; k++) {
        long v = lround(8 * exp2(k / 4.0));
        if (v >= hi)
            break;
        if (v > out[n - 1])
            out[n++] = v;
    }
    if (n < max && (n == 0 || out[n - 1] < hi) && hi >= lo)
        out[n++] = hi;
    return n;
}

static const char *sweep_label(const char *phase)
{
    if (!strcmp(phase, KCAL_PHASE_SYSCALL))
        return "T1 syscall";
    if (!strcmp(phase, KCAL_PHASE_STARTUP))
        return "T2 start-up";
    if (!strcmp(phase, KCAL_PHASE_LOCK))
        return "T3 lock+pin";
    if (!strcmp(phase, KCAL_PHASE_COPY))
        return "T4 copy";
    if (!strcmp(phase, KCAL_PHASE_STARTUP_WRITE) ||
        !strcmp(phase, KCAL_PHASE_LOCK_WRITE) ||
        !strcmp(phase, KCAL_PHASE_COPY_WRITE))
        return "T2-T4 writes";
    return phase;
}

void kcal_sweep_free(kcal_sweep *w)
{
    free(w->pages);
    free(w->inner);
    free(w->rep);
    memset(w, 0, sizeof *w);
}

int kcal_sweep_init(kcal_sweep *w, kcal_cma_setup *s, kcal_call_kind kind,
                    int rotate, const char *phase, const char *pattern,
                    const long *pages, size_t n, char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    w->kind = kind;
    w->rotate = rotate;
    w->phase = phase;
    w->pattern = pattern;
    w->n = n;
    w->pages = calloc(n, sizeof *w->pages);
    w->inner = calloc(n, sizeof *w->inner);
    w->rep = calloc(n, sizeof *w->rep);
    if (!w->pages || !w->inner || !w->rep) {
        kcal_sweep_free(w);
        kcal_set_err(err, errlen, "out of memory");
        return -1;
    }
    memcpy(w->pages, pages, n * sizeof *pages);
    for (size_t i = 0; i < n; i++)
        if ((w->inner[i] = kcal_cma_calibrate(s, kind, pages[i], rotate)) < 0) {
            kcal_set_err(err, errlen, "%s (%ld pages): process_vm_readv: %s", phase,
                    pages[i], strerror(errno));
            kcal_sweep_free(w);
            return -1;
        }
    return 0;
}

int kcal_sweep_pass(kcal_sweep *w, kcal_cma_setup *s, int reps, kcal_raw *raw,
                    char *err, size_t errlen)
{
    for (size_t i = 0; i < w->n; i++) {
        long pages = w->pages[i], bytes;
        switch (w->kind) {
        case KCAL_CALL_SYSCALL:
        case KCAL_CALL_LOCK_LIOV0: bytes = 0; break;
        case KCAL_CALL_COPY:
        case KCAL_CALL_COPY_WRITE: bytes = pages * (long)s->page; break;
        default: bytes = 1;
        }
        if (w->kind == KCAL_CALL_SYSCALL)
            pages = 0;
        for (int k = 0; k < reps; k++) {
            /* A sample during which the scheduler took the core away times
             * another process, not the call: take it again (a few times;
             * on a machine that is never quiet, keep the last one). */
            double t;
            for (int tries = 0;; tries++) {
                long before = kcal_involuntary_switches();
                t = kcal_cma_time(s, w->kind, w->pages[i], w->inner[i],
                                  w->rotate);
                if (t < 0 || kcal_involuntary_switches() == before ||
                    tries == 20)
                    break;
                s->retaken++;
            }
            if (t < 0) {
                kcal_set_err(err, errlen, "%s (%ld pages): process_vm_readv: %s",
                        w->phase, w->pages[i], strerror(errno));
                return -1;
            }
            if (kcal_raw_add(raw, w->phase, w->pattern, 1, pages, bytes,
                             w->rep[i]++, t) < 0) {
                kcal_set_err(err, errlen, "out of memory");
                return -1;
            }
        }
        kcal_meter_tick(s->meter, sweep_label(w->phase), reps);
    }
    return 0;
}
