/* target: the process CMA reads from. A forked child that owns a buffer of
 * pre-faulted pages (the probe must time locking and pinning, not page
 * faults) and sleeps until told to stop. The buffer sits at the same
 * address in the child as the (untouched, then unmapped) reservation in the
 * parent, so readers address it with `base`.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_TARGET_H
#define KCAL_TARGET_H

#include <stddef.h>
#include <sys/types.h>

#include "topo.h"

typedef struct {
    pid_t pid;
    int ctl_fd;  /* write end; closing it tells the child to exit */
    char *base;  /* buffer address in the child */
    size_t bytes;
} kcal_target;

/* Start a target with `bytes` of 4 KiB-paged memory (transparent huge pages
 * off, so one page is `page` bytes as in the model), bound to `core` when
 * topo is not NULL. 0, or -1 with a message in err. */
int kcal_target_start(kcal_target *t, size_t bytes, kcal_topo *topo, int core,
                      char *err, size_t errlen);

/* Stop and reap the child (no zombie). Safe on a target that never started
 * or was already stopped. */
void kcal_target_stop(kcal_target *t);

#endif
