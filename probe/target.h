/* target: the process CMA reads from. A forked child that owns a buffer of
 * pre-faulted pages (the probe must time locking and pinning, not page
 * faults) and sleeps until told to stop, or to rewrite part of its buffer
 * (kcal_target_rewrite: lines another core just wrote, probe/dirty.h). The
 * buffer sits at the same address in the child as the (untouched, then
 * unmapped) reservation in the parent, so readers address it with `base`.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_TARGET_H
#define KCAL_TARGET_H

#include <stddef.h>
#include <sys/types.h>

#include "probe/topo.h"

typedef struct {
    pid_t pid;
    int ctl_fd;  /* write end; closing it tells the child to exit */
    char *base;  /* buffer address in the child */
    size_t bytes;
    /* kcal_target_rewrite's reply pipe (read end); open exactly while
     * ctl_fd is, so a target set up as {.pid = -1, .ctl_fd = -1} stays
     * safe to stop */
    int reply_fd;
} kcal_target;

/* Start a target with `bytes` of 4 KiB-paged memory (transparent huge pages
 * off, so one page is `page` bytes as in the model), bound to `core` when
 * topo is not NULL. 0, or -1 with a message in err. */
int kcal_target_start(kcal_target *t, size_t bytes, kcal_topo *topo, int core,
                      char *err, size_t errlen);

/* Ask the target to rewrite bytes [off, off + len) of its buffer and wait
 * until it has: the lines it wrote are then modified in its core's private
 * cache. Every call stores new values (a generation count, and each page
 * stamped with its index: no page ever becomes identical to another or to
 * the zero page). len 0 is the same round trip with nothing written, for a
 * control that wakes up from the pipe as the rewrite does. 0, or -1 with
 * errno (EINVAL: the range is outside the buffer; EPIPE: the child is
 * gone). Never raises SIGPIPE. Neither side sleeps while rewrites come
 * back to back: the probe polls for the reply, the target for the next
 * request (for 20 ms after each, then it sleeps again). */
int kcal_target_rewrite(kcal_target *t, size_t off, size_t len);

/* Stop and reap the child (no zombie). Safe on a target that never started
 * or was already stopped. */
void kcal_target_stop(kcal_target *t);

#endif
