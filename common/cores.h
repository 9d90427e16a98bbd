/* cores: the one rule for "how many cores has this machine", shared by
 * kcal bench (when to add --oversubscribe), kcal-bench-mpi (the
 * oversubscribed column), the probe's topology and the report's machine
 * description, so they never disagree: hwloc's Core objects, else its PUs
 * (some virtual machines and containers show no cores), else 0 (unknown).
 * It compiles into kcal and into kcal-bench-mpi (linked with hwloc). */
#ifndef KCAL_CORES_H
#define KCAL_CORES_H

struct hwloc_topology; /* hwloc_topology_t, without including hwloc.h */

/* The cores of a loaded topology; 0 when it has neither cores nor PUs. */
int kcal_cores_of(struct hwloc_topology *topology);

/* Load this machine's topology and count its cores; 0 when hwloc cannot. */
int kcal_cores(void);

#endif
