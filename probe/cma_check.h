/* cma_check: is CMA allowed here, the way MPI ranks use it?
 *
 * A real 1-byte process_vm_readv from one forked child to a sibling (MPI
 * ranks are siblings, not descendants: that is what Yama ptrace_scope 1
 * forbids). A 0-byte call proves nothing: the kernel returns before the
 * permission check. The environment variables KCAL_PROBE_SIMULATE_EPERM=1 and
 * KCAL_PROBE_SIMULATE_ENOSYS=1 make the reading child report that error
 * instead (tests of the forbidden path on a machine where CMA works).
 * Library code: returns error codes, never prints. */
#ifndef KCAL_CMA_CHECK_H
#define KCAL_CMA_CHECK_H

#include <stddef.h>

/* 0: allowed. -1: forbidden or failing; msg receives one line naming the
 * cause and the fix; *errnum (may be NULL) the errno of the read. */
int kcal_cma_check(char *msg, size_t msglen, int *errnum);

#endif
