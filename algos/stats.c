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
    const char *coll; /* a static string: kcal_coll_name's, or a v name */
    char name[KCOLL_STATS_NAME];
    unsigned long long calls, bytes;
    double seconds;
} stats_row;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static stats_row rows[KCOLL_STATS_ROWS];
static int nrows, overflowed;
static stats_row other = {.name = "other"};
static int hook_set;
static kcoll_stats_decision decisions[KCOLL_STATS_DECISIONS];
static int ndecisions;
static unsigned long decisions_dropped;

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
        char probe[1];
        size_t need = kcoll_stats_format(probe, sizeof probe) + 1;
        char *buf = malloc(need);
        if (buf) {
            kcoll_stats_format(buf, need);
            fputs(buf, stderr);
            free(buf);
        }
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
    kcoll_stats_add_named(kcal_coll_name(coll), name, k, bytes, seconds);
}

void kcoll_stats_add_named(const char *coll, const char *name, int k,
                           uint64_t bytes, double seconds)
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
        if (strcmp(rows[i].coll, coll) == 0 &&
            strcmp(rows[i].name, full) == 0)
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

void kcoll_stats_add_decision(const kcoll_stats_decision *d)
{
    pthread_mutex_lock(&lock);
    if (!hook_set)
        set_hook();
    if (ndecisions < KCOLL_STATS_DECISIONS)
        decisions[ndecisions++] = *d;
    else
        decisions_dropped++;
    pthread_mutex_unlock(&lock);
}

/* "16K" for 16384: sizes as kcal's options write them. */
static const char *size_text(uint64_t n, char *buf, size_t len)
{
    static const char unit[] = "KMGT";
    int u = -1;
    while (n >= 1024 && n % 1024 == 0 && u < 3) {
        n /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%llu", (unsigned long long)n);
    else
        snprintf(buf, len, "%llu%c", (unsigned long long)n, unit[u]);
    return buf;
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
        PUT("%-10s %-32s %10llu %16llu %12.6f\n", rows[i].coll,
            rows[i].name, rows[i].calls, rows[i].bytes, rows[i].seconds);
    if (overflowed)
        PUT("%-10s %-32s %10llu %16llu %12.6f\n", "(any)", other.name,
            other.calls, other.bytes, other.seconds);
    if (ndecisions)
        PUT("kcoll decisions (rank 0 of MPI_COMM_WORLD; candidates with their "
            "measured times in us):\n");
    for (int i = 0; i < ndecisions; i++) {
        const kcoll_stats_decision *d = &decisions[i];
        char sz[32];
        PUT("decision %-10s p=%-3d %6s%s:", d->coll, d->p,
            size_text(d->n, sz, sizeof sz), d->in_place ? " in place" : "");
        for (int j = 0; j < d->ncand && j < KCOLL_STATS_CANDIDATES; j++) {
            if (d->k[j] > 0)
                PUT(" %s:%d %.2f", d->name[j], d->k[j], 1e6 * d->seconds[j]);
            else
                PUT(" %s %.2f", d->name[j], 1e6 * d->seconds[j]);
            if (d->paced[j] > 0)
                PUT(" (paced %.2f)", 1e6 * d->paced[j]);
            PUT("%s%s", d->cut[j] ? " (cut)" : "", j + 1 < d->ncand ? "," : "");
        }
        PUT("; cost %.1f us, next in %llu calls -> %s (%s)\n",
            1e6 * d->extra, (unsigned long long)d->next,
            d->name[d->chosen], d->why);
    }
    if (decisions_dropped)
        PUT("(%lu later decisions not listed)\n", decisions_dropped);
    pthread_mutex_unlock(&lock);
#undef PUT
    return used;
}
