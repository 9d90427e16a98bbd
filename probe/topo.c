/* topo: hwloc topology and binding for the probe (see topo.h). */
#include "probe/topo.h"
#include "common/cores.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct kcal_topo {
    hwloc_topology_t topo;
};

kcal_topo *kcal_topo_load(void)
{
    kcal_topo *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    if (hwloc_topology_init(&t->topo) < 0) {
        free(t);
        return NULL;
    }
    if (hwloc_topology_load(t->topo) < 0) {
        hwloc_topology_destroy(t->topo);
        free(t);
        return NULL;
    }
    return t;
}

void kcal_topo_free(kcal_topo *t)
{
    if (!t)
        return;
    hwloc_topology_destroy(t->topo);
    free(t);
}

static int count(const kcal_topo *t, hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type(t->topo, type);
    return n > 0 ? n : 0;
}

static unsigned long cache_size(const kcal_topo *t, hwloc_obj_type_t type)
{
    hwloc_obj_t o = hwloc_get_obj_by_type(t->topo, type, 0);
    return o && o->attr ? (unsigned long)o->attr->cache.size : 0;
}

void kcal_topo_get_info(const kcal_topo *t, kcal_topo_info *info)
{
    memset(info, 0, sizeof *info);
    info->cores = kcal_cores_of(t->topo);
    info->pus = count(t, HWLOC_OBJ_PU);
    if (info->cores == 0)
        info->cores = 1;
    info->sockets = count(t, HWLOC_OBJ_PACKAGE);
    info->numa = count(t, HWLOC_OBJ_NUMANODE);
    info->l1d = cache_size(t, HWLOC_OBJ_L1CACHE);
    info->l2 = cache_size(t, HWLOC_OBJ_L2CACHE);
    info->l3 = cache_size(t, HWLOC_OBJ_L3CACHE);
    info->llc = info->l3 ? info->l3 : info->l2 ? info->l2 : info->l1d;
    /* hwloc puts the CPU model on the package object (x86: CPUID brand). */
    const char *model = NULL;
    hwloc_obj_t pkg = hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_PACKAGE, 0);
    if (pkg)
        model = hwloc_obj_get_info_by_name(pkg, "CPUModel");
    if (!model)
        model = hwloc_obj_get_info_by_name(hwloc_get_root_obj(t->topo),
                                           "CPUModel");
    /* A VM may report an empty model string. */
    snprintf(info->cpu, sizeof info->cpu, "%s",
             model && *model ? model : "unknown");
}

static hwloc_obj_t core_obj(kcal_topo *t, int core)
{
    int ncores = count(t, HWLOC_OBJ_CORE), npus = count(t, HWLOC_OBJ_PU);
    if (ncores > 0)
        return hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_CORE,
                                     (unsigned)(core % ncores));
    if (npus > 0)
        return hwloc_get_obj_by_type(t->topo, HWLOC_OBJ_PU,
                                     (unsigned)(core % npus));
    return NULL;
}

void kcal_topo_core_desc(kcal_topo *t, int core, char *desc, size_t desclen)
{
    hwloc_obj_t o = core_obj(t, core);
    if (!o)
        snprintf(desc, desclen, "core ?");
    else
        snprintf(desc, desclen, "core %u (PU %d)", o->logical_index,
                 hwloc_bitmap_first(o->cpuset));
}

int kcal_topo_bind_core(kcal_topo *t, int core, char *desc, size_t desclen)
{
    hwloc_obj_t o = core_obj(t, core);
    if (!o)
        return -1;
    /* One PU of the core: a hyperthread sibling must not share it. */
    hwloc_bitmap_t set = hwloc_bitmap_dup(o->cpuset);
    if (!set)
        return -1;
    hwloc_bitmap_singlify(set);
    int rc = hwloc_set_cpubind(t->topo, set, HWLOC_CPUBIND_PROCESS);
    if (desc && desclen)
        snprintf(desc, desclen, "core %u (PU %d)", o->logical_index,
                 hwloc_bitmap_first(set));
    hwloc_bitmap_free(set);
    return rc < 0 ? -1 : 0;
}
