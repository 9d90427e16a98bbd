/* tuned: $KCOLL_TABLE for calls with algorithm NULL (tuned.h). The table
 * is read once per process (pthread_once: calls may come from any thread)
 * and never changed afterwards, so lookups need no lock. */
#include "algos/tuned.h"
#include "algos/config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "model/params.h"
#include "model/table.h"

atomic_ulong kcoll_tuned_decisions;

static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static kcal_table table;
static enum { NO_TABLE, TABLE_OK, TABLE_BAD } table_state;

static void read_table(void)
{
    const char *path = kcoll_config_path(KCOLL_CFG_TABLE);
    char err[KCAL_ERRLEN];
    if (!path) {
        table_state = NO_TABLE;
        return;
    }
    if (kcal_table_read(path, &table, err, sizeof err) == 0) {
        table_state = TABLE_OK;
        return;
    }
    table_state = TABLE_BAD;
    fprintf(stderr, "kcoll: warning: $%s: %s; calls that leave the "
                    "algorithm to libkcoll use the MPI library's own "
                    "collectives (pid %ld)\n",
            kcoll_config_name(KCOLL_CFG_TABLE), err, (long)getpid());
}

/* A counter for tests, not a lock-prefixed add on every call. */
static void count_decision(void)
{
    atomic_store_explicit(&kcoll_tuned_decisions,
                          atomic_load_explicit(&kcoll_tuned_decisions,
                                               memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

kcoll_tuned_verdict kcoll_tuned_decide(kcal_coll coll, int p, uint64_t n,
                                       const kcal_algorithm **alg, int *k)
{
    pthread_once(&table_once, read_table);
    if (table_state == NO_TABLE)
        return KCOLL_TUNED_NONE;
    if (table_state == TABLE_BAD)
        return KCOLL_TUNED_MPI;
    const kcal_table_rule *r = kcal_table_lookup(&table, coll, p, n);
    if (!r)
        return KCOLL_TUNED_NONE;
    count_decision();
    if (kcal_model_is_mpi(r->alg))
        return KCOLL_TUNED_MPI;
    *alg = r->alg;
    /* The k libkcoll gives the same id named by the user (kcoll.c): j = 1
     * for ring_neighbor without one; the model's best for a throttle
     * factor left out or one that does not fit this p. At p = 1 every
     * call is a local copy and k is not used. */
    int given = r->k > 0 ? r->k : r->alg->kind == KCAL_PARAM_STRIDE ? 1 : 0;
    if (r->alg->kind == KCAL_PARAM_NONE)
        *k = 0;
    else if (p == 1 || (given > 0 && kcal_model_k_valid(r->alg, p, given)))
        *k = given > 0 ? given : 1;
    else
        *k = -1;
    return KCOLL_TUNED_ALG;
}

kcoll_tuned_verdict kcoll_tuned_vdecide(int v, int p, uint64_t *below,
                                        const kcal_valgorithm **valg,
                                        int *w, uint64_t staged[2])
{
    pthread_once(&table_once, read_table);
    if (table_state == NO_TABLE)
        return KCOLL_TUNED_NONE;
    if (table_state == TABLE_BAD)
        return KCOLL_TUNED_MPI;
    if (!kcal_table_vchoice(&table, v, p, below, valg, w, staged))
        return KCOLL_TUNED_NONE;
    count_decision();
    return KCOLL_TUNED_ALG;
}

int kcoll_tuned_unusable(void)
{
    pthread_once(&table_once, read_table);
    return table_state == TABLE_BAD;
}
