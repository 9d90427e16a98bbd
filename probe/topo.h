/* topo: what the probe needs from hwloc — core count, caches, sockets, NUMA
 * nodes, CPU model — and binding a process to one core.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_TOPO_H
#define KCAL_TOPO_H

#include <stddef.h>

typedef struct kcal_topo kcal_topo;

typedef struct {
    int cores, pus, sockets, numa;
    unsigned long l1d, l2, l3; /* bytes of one cache of each level; 0 absent */
    unsigned long llc;         /* the last level that exists */
    char cpu[128];
} kcal_topo_info;

/* Load the topology of this machine; NULL on failure. */
kcal_topo *kcal_topo_load(void);
void kcal_topo_free(kcal_topo *t);
void kcal_topo_get_info(const kcal_topo *t, kcal_topo_info *info);

/* Bind the calling process to core `core` (0-based, taken modulo the core
 * count). Returns 0 or -1; `desc` (may be NULL) receives e.g.
 * "core 1 (PU 1)". */
int kcal_topo_bind_core(kcal_topo *t, int core, char *desc, size_t desclen);

/* Describe core `core` as kcal_topo_bind_core would bind it, without
 * binding anything ("core 0 (PU 0)"). */
void kcal_topo_core_desc(kcal_topo *t, int core, char *desc, size_t desclen);

#endif
