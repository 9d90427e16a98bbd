/* cores: the core count (see cores.h). */
#include "common/cores.h"

#include <hwloc.h>

int kcal_cores_of(struct hwloc_topology *topology)
{
    int n = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
    if (n <= 0)
        n = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU);
    return n > 0 ? n : 0;
}

int kcal_cores(void)
{
    hwloc_topology_t t;
    int cores = 0;
    if (hwloc_topology_init(&t) != 0)
        return 0;
    if (hwloc_topology_load(t) == 0)
        cores = kcal_cores_of(t);
    hwloc_topology_destroy(t);
    return cores;
}
