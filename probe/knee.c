/* knee: copy rate against the working set (see knee.h). */
#include "probe/knee.h"
#include "common/copy.h"
#include "common/err.h"

#include <errno.h>
#include <math.h>
#include <string.h>

size_t kcal_knee_max_bytes(unsigned long llc_bytes, size_t cap_bytes)
{
    size_t want = 4 * (size_t)llc_bytes;
    if (want < ((size_t)16 << 20))
        want = (size_t)16 << 20;
    return want > cap_bytes ? cap_bytes : want;
}

size_t kcal_knee_ws_list(size_t page, size_t max_bytes, long *out, size_t max)
{
    size_t n = 0;
    for (size_t w = KCAL_KNEE_MIN_BYTES; w <= max_bytes && n < max; w *= 2)
        if (w >= 2 * page)
            out[n++] = (long)(w / page);
    return n;
}

/* One point's copies: chunks of `chunk` pages rotating over `half` pages of
 * source and of destination. */
typedef struct {
    int memcpy_pattern;
    long ws, chunk, half;
    int inner;
    size_t scur, dcur; /* rotation cursors (bytes) */
} point;

static double now(void) { return kcal_now(); }

static double time_memcpy(kcal_cma_setup *cs, point *pt, int inner)
{
    size_t len = (size_t)pt->chunk * cs->page, span = (size_t)pt->half * cs->page;
    char *src = cs->local, *dst = cs->local + span;
    double t0 = now();
    for (int i = 0; i < inner; i++) {
        if (pt->scur + len > span)
            pt->scur = 0;
        kcal_copy(dst + pt->scur, src + pt->scur, len);
        pt->scur += len;
    }
    double t = (now() - t0) / inner;
    /* Keep the copies: the compiler must not drop a memcpy whose result
     * nobody reads. */
    __asm__ volatile("" : : "r"(dst) : "memory");
    return t;
}

static double time_cma(kcal_cma_setup *cs, point *pt, int inner)
{
    kcal_cma_setup s = *cs;
    s.remote_bytes = s.local_bytes = (size_t)pt->half * cs->page;
    s.rcur = pt->scur;
    s.lcur = pt->dcur;
    double t = kcal_cma_time(&s, KCAL_CALL_COPY, pt->chunk, inner, 1);
    pt->scur = s.rcur;
    pt->dcur = s.lcur;
    return t;
}

static double time_point(kcal_cma_setup *cs, point *pt, int inner)
{
    return pt->memcpy_pattern ? time_memcpy(cs, pt, inner)
                              : time_cma(cs, pt, inner);
}

int kcal_knee_measure(const kcal_knee_setup *k, kcal_raw *raw, char *err,
                      size_t errlen)
{
    kcal_cma_setup *cs = k->cs;
    /* Point by point, not pass by pass: a sample must find in cache what
     * its own working set leaves there, not what the previous point's
     * (up to 512 MiB) left. Each point starts with one untimed rotation
     * over its whole working set, and each sample spans a whole rotation
     * where that takes at most 8 ms (beyond, the copies miss the cache
     * whatever came before). */
    for (size_t i = 0; i < k->n_ws; i++)
        for (int m = 0; m < 2; m++) {
            point pt;
            memset(&pt, 0, sizeof pt);
            pt.memcpy_pattern = m;
            pt.ws = k->ws_pages[i];
            pt.half = pt.ws / 2;
            size_t need = (size_t)pt.half * cs->page;
            /* memcpy keeps both halves in our buffer, cma one in each. */
            if (m ? 2 * need > cs->local_bytes
                  : need > cs->local_bytes || need > cs->remote_bytes)
                continue;
            pt.chunk = pt.half < KCAL_KNEE_CHUNK_PAGES ? pt.half
                                                       : KCAL_KNEE_CHUNK_PAGES;
            long rot = pt.half / pt.chunk; /* calls per rotation */
            double best = INFINITY;
            for (long w = 0; w < rot + cs->warmup; w++) {
                double t = time_point(cs, &pt, 1);
                if (t < 0)
                    goto fail;
                if (t < best)
                    best = t;
            }
            if (!(best > 0))
                best = 1e-7;
            double inner = ceil(cs->min_sample / best);
            double whole = fmin((double)rot, ceil(8e-3 / best));
            if (inner < whole)
                inner = whole;
            int n_inner = inner < 1 ? 1 : inner > 1e6 ? 1000000 : (int)inner;
            for (int pass = 0; pass < k->passes; pass++) {
                double t;
                for (int tries = 0;; tries++) {
                    long before = kcal_involuntary_switches();
                    t = time_point(cs, &pt, n_inner);
                    /* At most 3 tries: a sample of up to 8 ms on a busy
                     * machine is often preempted, and 20 tries (the T1-T4
                     * sweeps' limit, for 0.5 ms samples) made a quick
                     * probe take 25 s instead of 6 under load. */
                    if (t < 0 || kcal_involuntary_switches() == before ||
                        tries == 2)
                        break;
                    cs->retaken++;
                }
                if (t < 0)
                    goto fail;
                if (kcal_raw_add(raw, KCAL_PHASE_WS,
                                 m ? KCAL_PATTERN_MEMCPY : KCAL_PATTERN_CMA, 1,
                                 pt.ws, pt.chunk * (long)cs->page,
                                 k->first_pass + pass, t) < 0) {
                    kcal_set_err(err, errlen, "out of memory");
                    return -1;
                }
                kcal_meter_tick(cs->meter, "cache knee", 1);
            }
        }
    return 0;
fail:
    kcal_set_err(err, errlen, "working-set copies: process_vm_readv: %s",
                 strerror(errno));
    return -1;
}
