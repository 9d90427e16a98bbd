/* machine: a short description of the machine the report was measured on
 * (host, CPU model, cores, sockets, NUMA nodes, last-level cache, kernel),
 * read from hwloc and uname. The params may come from another machine (the
 * paper's defaults), so the report names both. */
#ifndef KCAL_MACHINE_H
#define KCAL_MACHINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char host[80];
    char cpu[128];
    char kernel[160];
    int cores, pus, sockets, numa;
    uint64_t llc_bytes; /* 0 when hwloc reports no cache */
    int llc_level;
} kcal_machine;

/* Fill *m; fields hwloc cannot tell stay "unknown"/0. Returns 0, or -1 when
 * the hwloc topology cannot be loaded (uname fields are still set). */
int kcal_machine_describe(kcal_machine *m);

#endif
