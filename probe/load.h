/* load: how busy the machine was while the probe measured.
 *
 * Other processes slow CMA calls even when they never preempt the reader:
 * they share caches and memory bandwidth, and on a virtual machine the host
 * may run other guests on our vCPUs (steal time). The probe cannot undo
 * that, but it can say so. Compares the CPU time all CPUs spent busy
 * (/proc/stat) with what this process used (getrusage) over an interval.
 * Library code: returns error codes, never prints. */
#ifndef KCAL_LOAD_H
#define KCAL_LOAD_H

typedef struct {
    double t0;               /* kcal_now() at the start */
    double busy0, steal0;    /* /proc/stat, seconds */
    double self0;            /* our user+system seconds */
    int ok;
} kcal_load;

void kcal_load_start(kcal_load *l);

/* Fractions of the machine's CPU time (all CPUs) since start: used by other
 * processes, and stolen by the hypervisor. 0, or -1 when /proc/stat is
 * unreadable (both set to 0). */
int kcal_load_stop(const kcal_load *l, double *others, double *steal);

#endif
