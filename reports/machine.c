/* machine: describe this host with hwloc (topology, CPU model, caches) and
 * uname (host name, kernel release). */
#include "reports/machine.h"
#include "common/cores.h"

#include <hwloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

int kcal_machine_describe(kcal_machine *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->host, sizeof m->host, "unknown");
    snprintf(m->cpu, sizeof m->cpu, "unknown CPU");
    snprintf(m->kernel, sizeof m->kernel, "unknown kernel");
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(m->host, sizeof m->host, "%s", u.nodename);
        snprintf(m->kernel, sizeof m->kernel, "Linux %.80s %.40s", u.release,
                 u.machine);
    }
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo))
        return -1;
    if (hwloc_topology_load(topo)) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    m->cores = kcal_cores_of(topo);
    m->pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    m->sockets = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    m->numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    /* CPUModel sits on the package objects on x86 (and on the root on some
     * other platforms). */
    hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0);
    const char *model = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
    if (!model)
        model = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), "CPUModel");
    if (model)
        snprintf(m->cpu, sizeof m->cpu, "%s", model);
    /* Last-level cache: the deepest cache level hwloc knows of. */
    static const hwloc_obj_type_t levels[] = {
        HWLOC_OBJ_L5CACHE, HWLOC_OBJ_L4CACHE, HWLOC_OBJ_L3CACHE,
        HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        hwloc_obj_t c = hwloc_get_obj_by_type(topo, levels[i], 0);
        if (c && c->attr && c->attr->cache.size) {
            m->llc_bytes = c->attr->cache.size;
            m->llc_level = (int)c->attr->cache.depth;
            break;
        }
    }
    hwloc_topology_destroy(topo);
    return 0;
}
