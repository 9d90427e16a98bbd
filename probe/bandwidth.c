/* bandwidth: cache-cold or cache-hot T4(N) sweep (see bandwidth.h). */
#include "bandwidth.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

size_t kcal_bandwidth_pool_bytes(unsigned long llc)
{
    const size_t unit = 4u << 20;
    size_t want = 2 * (size_t)llc;
    if (want < 2 * unit)
        want = 2 * unit;
    return (want + unit - 1) / unit * unit;
}

int kcal_bandwidth_sweep(kcal_cma_setup *s, const long *pages, size_t n,
                         int cold, kcal_raw *raw, char *err, size_t errlen)
{
    const char *pattern = cold ? "cold" : "hot";
    int *inner = calloc(n, sizeof *inner), *rep = calloc(n, sizeof *rep);
    int rc = -1;
    if (!inner || !rep) {
        set_err(err, errlen, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if ((inner[i] = kcal_cma_calibrate(s, KCAL_CALL_COPY, pages[i], cold)) < 0) {
            set_err(err, errlen, "T4(%ld pages): process_vm_readv: %s",
                    pages[i], strerror(errno));
            goto done;
        }
    for (int pass = 0; pass < s->passes; pass++)
        for (size_t i = 0; i < n; i++) {
            int reps = s->reps / s->passes + (pass < s->reps % s->passes);
            for (int k = 0; k < reps; k++) {
                double t = kcal_cma_time(s, KCAL_CALL_COPY, pages[i], inner[i], cold);
                if (t < 0) {
                    set_err(err, errlen, "T4(%ld pages): process_vm_readv: %s",
                            pages[i], strerror(errno));
                    goto done;
                }
                if (kcal_raw_add(raw, "copy", pattern, 1, pages[i],
                                 pages[i] * (long)s->page, rep[i]++, t) < 0) {
                    set_err(err, errlen, "out of memory");
                    goto done;
                }
            }
            kcal_meter_tick(s->meter, cold ? "T4 copy, cache-cold" : "T4 copy, cache-hot", reps);
        }
    rc = 0;
done:
    free(inner);
    free(rep);
    return rc;
}
