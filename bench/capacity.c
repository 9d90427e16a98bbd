/* capacity: what this machine lets a job use (see capacity.h). */
#include "bench/capacity.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int mul(uint64_t a, uint64_t b, uint64_t *out)
{
    return __builtin_mul_overflow(a, b, out) ? -1 : 0;
}

int kcal_capacity_coll_buffers(kcal_coll coll, uint64_t p, uint64_t n,
                             uint64_t *send, uint64_t *recv)
{
    uint64_t pn;
    if (mul(p, n, &pn) != 0 || pn > SIZE_MAX)
        return -1;
    switch (coll) {
    case KCAL_COLL_SCATTER: *send = pn, *recv = n; break;
    case KCAL_COLL_GATHER: *send = n, *recv = pn; break;
    case KCAL_COLL_BCAST: *send = 0, *recv = n; break;
    case KCAL_COLL_ALLGATHER: *send = n, *recv = pn; break;
    case KCAL_COLL_REDUCE:
    case KCAL_COLL_ALLREDUCE: *send = n, *recv = n; break;
    case KCAL_COLL_REDUCE_SCATTER_BLOCK: *send = pn, *recv = n; break;
    default: *send = pn, *recv = pn; break;
    }
    return 0;
}

int kcal_capacity_bench_bytes(kcal_coll coll, uint64_t p, uint64_t ranks,
                            uint64_t n, int check, uint64_t *per_rank,
                            uint64_t *total)
{
    uint64_t send, recv, sum;
    if (kcal_capacity_coll_buffers(coll, p, n, &send, &recv) != 0 ||
        __builtin_add_overflow(send, recv, &sum) ||
        (check && __builtin_add_overflow(sum, recv, &sum)) ||
        mul(ranks, sum, total) != 0)
        return -1;
    *per_rank = sum;
    return 0;
}

/* The number a scanf format picks out of a small file (absent, "max" and
 * garbage: 0). The format has one %llu conversion. */
static uint64_t scan_u64(const char *path, const char *fmt)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    unsigned long long v = 0;
    if (fscanf(f, fmt, &v) != 1)
        v = 0;
    fclose(f);
    return v;
}

/* A number from a one-line file. */
static uint64_t read_u64(const char *path)
{
    return scan_u64(path, "%llu");
}

uint64_t kcal_capacity_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t ram = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    /* cgroup v2, then v1 (which says "no limit" with a huge number). */
    static const char *const cg[] = {"/sys/fs/cgroup/memory.max",
                                     "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
    for (size_t i = 0; i < sizeof cg / sizeof cg[0]; i++) {
        uint64_t lim = read_u64(cg[i]);
        if (lim > 0 && (ram == 0 || lim < ram))
            ram = lim;
    }
    return ram;
}

/* Tasks (threads) that real user uid runs now, from /proc/PID/status. */
static uint64_t user_tasks(uid_t uid)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    uint64_t tasks = 0;
    struct dirent *e;
    char path[300], line[256];
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        long ruid = -1, threads = 0;
        while (fgets(line, sizeof line, f)) {
            if (!strncmp(line, "Uid:", 4))
                ruid = strtol(line + 4, NULL, 10);
            else if (!strncmp(line, "Threads:", 8))
                threads = strtol(line + 8, NULL, 10);
        }
        fclose(f);
        if (ruid == (long)uid && threads > 0)
            tasks += (uint64_t)threads;
    }
    closedir(d);
    return tasks;
}

/* Every task on the system now: /proc/loadavg's "running/total". */
static uint64_t system_tasks(void)
{
    return scan_u64("/proc/loadavg", "%*s %*s %*s %*u/%llu");
}

/* Ranks that fit in `left` free tasks. */
static long ranks_in(uint64_t left)
{
    if (left <= KCAL_CAPACITY_LAUNCH_TASKS)
        return 0;
    uint64_t r = (left - KCAL_CAPACITY_LAUNCH_TASKS) / KCAL_CAPACITY_TASKS_PER_RANK;
    return r > (uint64_t)1 << 30 ? 1L << 30 : (long)r;
}

long kcal_capacity_max_ranks(int cores, char *why, size_t whylen)
{
    if (cores <= 0) {
        long on = sysconf(_SC_NPROCESSORS_ONLN);
        cores = on > 0 ? (int)on : 1;
    }
    long best = (long)cores * KCAL_CAPACITY_OVERSUB;
    snprintf(why, whylen, "%d ranks per core on %d core%s: beyond that the "
             "run times the scheduler, not the collective",
             KCAL_CAPACITY_OVERSUB, cores, cores == 1 ? "" : "s");

    /* The user's process limit counts threads; root is exempt from it. */
    struct rlimit rl;
    uid_t uid = getuid();
    if (uid != 0 && getrlimit(RLIMIT_NPROC, &rl) == 0 &&
        rl.rlim_cur != RLIM_INFINITY) {
        uint64_t used = user_tasks(uid), lim = rl.rlim_cur;
        long r = ranks_in(lim > used ? lim - used : 0);
        if (r < best) {
            best = r;
            snprintf(why, whylen, "the user's process limit, ulimit -u %llu with "
                     "%llu already in use, leaves room for %ld ranks of %d "
                     "threads", (unsigned long long)lim,
                     (unsigned long long)used, r, KCAL_CAPACITY_TASKS_PER_RANK);
        }
    }
    uint64_t pid_max = read_u64("/proc/sys/kernel/pid_max");
    uint64_t threads_max = read_u64("/proc/sys/kernel/threads-max");
    uint64_t sys = pid_max && threads_max ? (pid_max < threads_max ? pid_max
                                                                   : threads_max)
                                          : pid_max ? pid_max : threads_max;
    if (sys > 0) {
        uint64_t used = system_tasks();
        long r = ranks_in(sys > used ? sys - used : 0);
        if (r < best) {
            best = r;
            snprintf(why, whylen, "the system's task limit, %s %llu with %llu "
                     "already in use, leaves room for %ld ranks of %d threads",
                     sys == pid_max ? "pid_max" : "threads-max",
                     (unsigned long long)sys, (unsigned long long)used, r,
                     KCAL_CAPACITY_TASKS_PER_RANK);
        }
    }
    /* cgroup v2, then v1: a container's own limit ("max": none). */
    static const char *const cg[][2] = {
        {"/sys/fs/cgroup/pids.max", "/sys/fs/cgroup/pids.current"},
        {"/sys/fs/cgroup/pids/pids.max", "/sys/fs/cgroup/pids/pids.current"}};
    for (size_t i = 0; i < sizeof cg / sizeof cg[0]; i++) {
        uint64_t lim = read_u64(cg[i][0]), used = read_u64(cg[i][1]);
        if (lim == 0)
            continue;
        long r = ranks_in(lim > used ? lim - used : 0);
        if (r < best) {
            best = r;
            snprintf(why, whylen, "the cgroup's pids.max, %llu with %llu "
                     "already in use, leaves room for %ld ranks of %d threads",
                     (unsigned long long)lim, (unsigned long long)used, r,
                     KCAL_CAPACITY_TASKS_PER_RANK);
        }
        break;
    }
    return best;
}

char *kcal_capacity_format_bytes(uint64_t n, char *buf, size_t len)
{
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB",
                                       "PiB", "EiB"};
    double v = (double)n;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof unit / sizeof unit[0]) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, len, "%llu bytes", (unsigned long long)n);
    else
        snprintf(buf, len, "%.*f %s", v < 10 ? 1 : 0, v, unit[u]);
    return buf;
}
