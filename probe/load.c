/* load: CPU time used by others while the probe measured (see load.h). */
#include "probe/load.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/progress.h"

/* Busy (user nice system irq softirq) and steal seconds of all CPUs. */
static int cpu_seconds(double *busy, double *steal)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return -1;
    unsigned long long u, n, s, idle, io, irq, sirq, st;
    int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &u,
                     &n, &s, &idle, &io, &irq, &sirq, &st);
    fclose(f);
    if (got != 8)
        return -1;
    double hz = (double)sysconf(_SC_CLK_TCK);
    *busy = (double)(u + n + s + irq + sirq) / hz;
    *steal = (double)st / hz;
    return 0;
}

static double self_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) < 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
           (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
}

void kcal_load_start(kcal_load *l)
{
    l->t0 = kcal_now();
    l->self0 = self_seconds();
    l->ok = cpu_seconds(&l->busy0, &l->steal0) == 0;
}

int kcal_load_stop(const kcal_load *l, double *others, double *steal)
{
    double busy, st;
    *others = *steal = 0;
    if (!l->ok || cpu_seconds(&busy, &st) < 0)
        return -1;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    double span = (kcal_now() - l->t0) * (double)(ncpu > 0 ? ncpu : 1);
    if (!(span > 0))
        return -1;
    double mine = self_seconds() - l->self0;
    *others = (busy - l->busy0 - mine) / span;
    *steal = (st - l->steal0) / span;
    if (*others < 0) /* tick granularity (10 ms) */
        *others = 0;
    return 0;
}
