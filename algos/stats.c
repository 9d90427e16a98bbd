/* stats: the KCOLL_STATS table (see stats.h). A fixed table under a mutex:
 * with stats on, a call costs a lock and a short scan (tens of ns beside
 * calls of microseconds); with stats off, nothing is recorded. The table is
 * printed from a delete callback of an attribute on MPI_COMM_SELF: MPI_Finalize
 * deletes those first, while MPI still works (the standard's hook), so an
 * application needs no change to get its table. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "algos/config.h"
#include "algos/stats.h"

typedef struct {
    kcal_coll coll;
    char name[KCOLL_STATS_NAME];
    unsigned long long calls, bytes;
    double seconds;
} stats_row;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static stats_row rows[KCOLL_STATS_ROWS];
static int nrows, overflowed;
static stats_row other = {.name = "other"};
static int hook_set;

int kcoll_stats_on(void)
{
    return kcoll_config_on(KCOLL_CFG_STATS);
}

double kcoll_stats_now(void)
{
    return MPI_Wtime();
}

static int print_at_finalize(MPI_Comm comm, int keyval, void *attr,
                             void *extra)
{
    (void)comm, (void)attr, (void)extra;
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        char buf[KCOLL_STATS_ROWS * 128 + 256];
        size_t need = kcoll_stats_format(buf, sizeof buf);
        fputs(buf, stderr);
        if (need >= sizeof buf)
            fputs("\n", stderr);
    }
    /* Free the keyval on the way out (the attribute is going anyway). */
    int kv = keyval;
    PMPI_Comm_free_keyval(&kv);
    return MPI_SUCCESS;
}

/* Under the lock. MPI must be initialized and not finalizing: the first
 * record comes from inside an MPI call, so it is. */
static void set_hook(void)
{
    int kv;
    hook_set = 1;
    if (PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, print_at_finalize, &kv,
                                NULL) == MPI_SUCCESS)
        PMPI_Comm_set_attr(MPI_COMM_SELF, kv, NULL);
}

static void add_to(stats_row *r, uint64_t bytes, double seconds)
{
    r->calls++;
    r->bytes += bytes;
    r->seconds += seconds;
}

void kcoll_stats_add(kcal_coll coll, const char *name, int k, uint64_t bytes,
                     double seconds)
{
    char full[KCOLL_STATS_NAME];
    if (k > 0)
        snprintf(full, sizeof full, "%s:%d", name, k);
    else
        snprintf(full, sizeof full, "%s", name);
    pthread_mutex_lock(&lock);
    if (!hook_set)
        set_hook();
    int i;
    for (i = 0; i < nrows; i++)
        if (rows[i].coll == coll && strcmp(rows[i].name, full) == 0)
            break;
    if (i == nrows && nrows < KCOLL_STATS_ROWS) {
        rows[i].coll = coll;
        memcpy(rows[i].name, full, sizeof full);
        nrows++;
    }
    if (i < nrows) {
        add_to(&rows[i], bytes, seconds);
    } else {
        overflowed = 1;
        add_to(&other, bytes, seconds);
    }
    pthread_mutex_unlock(&lock);
}

size_t kcoll_stats_format(char *buf, size_t len)
{
    size_t used = 0;
#define PUT(...)                                                             \
    do {                                                                     \
        int w_ = snprintf(buf + (used < len ? used : len),                   \
                          used < len ? len - used : 0, __VA_ARGS__);          \
        used += w_ > 0 ? (size_t)w_ : 0;                                     \
    } while (0)
    pthread_mutex_lock(&lock);
    PUT("kcoll stats (rank 0 of MPI_COMM_WORLD):\n");
    PUT("%-10s %-32s %10s %16s %12s\n", "collective", "algorithm", "calls",
        "bytes", "seconds");
    for (int i = 0; i < nrows; i++)
        PUT("%-10s %-32s %10llu %16llu %12.6f\n", kcal_coll_name(rows[i].coll),
            rows[i].name, rows[i].calls, rows[i].bytes, rows[i].seconds);
    if (overflowed)
        PUT("%-10s %-32s %10llu %16llu %12.6f\n", "(any)", other.name,
            other.calls, other.bytes, other.seconds);
    pthread_mutex_unlock(&lock);
#undef PUT
    return used;
}
