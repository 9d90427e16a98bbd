/* kcoll: the public entry points. Parses the algorithm id, picks one with
 * the paper model when the id is NULL, checks the arguments, and sends the
 * call to the algorithm's function, to a local copy (p = 1), or to the MPI
 * built-in where CMA is forbidden. Selection and prediction live in model/;
 * this file only asks kcal_model_best. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kcoll_impl.h"
#include "model.h"
#include "params.h"

typedef struct {
    kcal_coll coll;
    const char *id;
    kcoll_algorithm_fn fn;
} entry;

static const entry table[] = {
    {KCAL_COLL_SCATTER, "parallel_read", kcoll_scatter_parallel_read},
    {KCAL_COLL_SCATTER, "sequential_write", kcoll_scatter_sequential_write},
    {KCAL_COLL_SCATTER, "throttled_read", kcoll_scatter_throttled_read},
    {KCAL_COLL_GATHER, "parallel_write", kcoll_gather_parallel_write},
    {KCAL_COLL_GATHER, "sequential_read", kcoll_gather_sequential_read},
    {KCAL_COLL_GATHER, "throttled_write", kcoll_gather_throttled_write},
    {KCAL_COLL_BCAST, "direct_read", kcoll_bcast_direct_read},
    {KCAL_COLL_BCAST, "direct_write", kcoll_bcast_direct_write},
    {KCAL_COLL_BCAST, "knomial", kcoll_bcast_knomial},
    {KCAL_COLL_BCAST, "scatter_allgather", kcoll_bcast_scatter_allgather},
    {KCAL_COLL_ALLGATHER, "ring_neighbor", kcoll_allgather_ring_neighbor},
    {KCAL_COLL_ALLGATHER, "ring_source_read", kcoll_allgather_ring_source_read},
    {KCAL_COLL_ALLGATHER, "ring_source_write", kcoll_allgather_ring_source_write},
    {KCAL_COLL_ALLGATHER, "recursive_doubling", kcoll_allgather_recursive_doubling},
    {KCAL_COLL_ALLGATHER, "bruck", kcoll_allgather_bruck},
    {KCAL_COLL_ALLTOALL, "pairwise", kcoll_alltoall_pairwise},
};

/* Params for NULL algorithms: $KCAL_PARAMS or the embedded default, read
 * once per process. */
static kcal_params params;
static int params_state; /* 0 not read, 1 ok, -1 failed */

static const kcal_params *get_params(void)
{
    if (params_state == 0) {
        char err[KCAL_ERRLEN];
        kcal_params_init(&params);
        params_state = kcal_params_choose(NULL, NULL, &params, NULL, 0, err,
                                          sizeof err) == 0 ? 1 : -1;
    }
    return params_state == 1 ? &params : NULL;
}

static int env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* "id" or "id:k" -> table entry and k. For ids without k, throttle factors
 * default to the model's best k at p, ring_neighbor's j to 1. */
static int parse(kcal_coll coll, const char *spec, int p, uint64_t n,
                 int in_place, const entry **out, int *k)
{
    char best[96];
    if (!spec) {
        const kcal_params *prm = get_params();
        if (!prm)
            return MPI_ERR_OTHER;
        if (kcal_model_best(KCAL_MODEL_PAPER, prm, coll, p, n, in_place, best,
                            sizeof best) != 0)
            return MPI_ERR_OTHER;
        spec = best;
    }
    char id[64];
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (len == 0 || len >= sizeof id)
        return MPI_ERR_ARG;
    memcpy(id, spec, len);
    id[len] = '\0';
    const entry *e = NULL;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].coll == coll && !strcmp(table[i].id, id))
            e = &table[i];
    const kcal_algorithm *alg = kcal_model_find_algorithm(coll, id);
    if (!e || !alg)
        return MPI_ERR_ARG;
    long v = 0;
    if (colon) {
        char *end;
        errno = 0;
        v = strtol(colon + 1, &end, 10);
        if (errno || end == colon + 1 || *end || v < 1 || v > INT_MAX)
            return MPI_ERR_ARG;
    } else if (alg->kind == KCAL_PARAM_STRIDE) {
        v = 1;
    } else if (alg->kind == KCAL_PARAM_THROTTLE) {
        const kcal_params *prm = get_params();
        kcal_prediction *pred = NULL;
        long cnt = prm ? kcal_model_rank(KCAL_MODEL_PAPER, prm, coll, p, n,
                                         in_place, 0, &pred)
                       : -1;
        for (long i = 0; i < cnt && v == 0; i++)
            if (pred[i].alg == alg)
                v = pred[i].k;
        free(pred);
        if (v == 0)
            return MPI_ERR_ARG; /* no valid k at this p */
    }
    /* At p = 1 everything is a local copy; j = 1 is the plain ring. */
    int ok = kcal_model_k_valid(alg, p, (int)v) ||
             (p == 1 && alg->kind == KCAL_PARAM_STRIDE && v == 1);
    if (!ok)
        return MPI_ERR_ARG;
    *out = e;
    *k = (int)v;
    return MPI_SUCCESS;
}

static void warn_fallback(void)
{
    static int warned;
    if (!warned) {
        warned = 1;
        fprintf(stderr, "kcoll: warning: process_vm_readv is not permitted "
                        "here (pid %ld); using the MPI library's own "
                        "collectives (set KCOLL_STRICT=1 to fail instead)\n",
                (long)getpid());
    }
}

/* Everything a call does before the algorithm runs: the communicator's
 * state, argument checks, the algorithm and k, and whether to fall back to
 * the MPI built-in (*fallback). Returns MPI_SUCCESS or the error to return. */
static int prepare(kcal_coll coll, MPI_Comm comm, const char *algorithm,
                   size_t n, int root, int rooted, int in_place,
                   kcoll_comm **c, const entry **e, int *k, int *fallback)
{
    KCOLL_TRY(kcoll_comm_get(comm, c));
    int p = (*c)->size;
    if (rooted && (root < 0 || root >= p))
        return MPI_ERR_ROOT;
    if (n > SIZE_MAX / (size_t)p)
        return MPI_ERR_COUNT;
    KCOLL_TRY(parse(coll, algorithm, p, n, in_place, e, k));
    if ((*c)->spans_nodes)
        return MPI_ERR_COMM;
    *fallback = 0;
    if (!(*c)->cma_ok) {
        if (env_on("KCOLL_STRICT"))
            return MPI_ERR_OTHER;
        warn_fallback();
        *fallback = 1;
    }
    return MPI_SUCCESS;
}

static int run(kcoll_comm *c, const entry *e, const kcoll_args *a)
{
    c->seq++;
    return e->fn(c, a);
}

int kcoll_scatter(const void *sendbuf, void *recvbuf, size_t n, int root,
                  MPI_Comm comm, const char *algorithm)
{
    kcoll_comm *c;
    const entry *e;
    int k, fallback;
    /* In place is known at the root only, so it must not steer the choice. */
    KCOLL_TRY(prepare(KCAL_COLL_SCATTER, comm, algorithm, n, root, 1, 0, &c,
                      &e, &k, &fallback));
    if (fallback)
        return kcoll_mpi_scatter(sendbuf, recvbuf, n, root, c->comm);
    if (n == 0)
        return MPI_SUCCESS;
    if (c->size == 1) {
        if (recvbuf != MPI_IN_PLACE)
            memcpy(recvbuf, sendbuf, n);
        return MPI_SUCCESS;
    }
    kcoll_args a = {sendbuf, recvbuf, n, root, k};
    return run(c, e, &a);
}

int kcoll_gather(const void *sendbuf, void *recvbuf, size_t n, int root,
                 MPI_Comm comm, const char *algorithm)
{
    kcoll_comm *c;
    const entry *e;
    int k, fallback;
    KCOLL_TRY(prepare(KCAL_COLL_GATHER, comm, algorithm, n, root, 1, 0, &c,
                      &e, &k, &fallback));
    if (fallback)
        return kcoll_mpi_gather(sendbuf, recvbuf, n, root, c->comm);
    if (n == 0)
        return MPI_SUCCESS;
    if (c->size == 1) {
        if (sendbuf != MPI_IN_PLACE)
            memcpy(recvbuf, sendbuf, n);
        return MPI_SUCCESS;
    }
    kcoll_args a = {sendbuf, recvbuf, n, root, k};
    return run(c, e, &a);
}

int kcoll_bcast(void *buf, size_t n, int root, MPI_Comm comm,
                const char *algorithm)
{
    kcoll_comm *c;
    const entry *e;
    int k, fallback;
    KCOLL_TRY(prepare(KCAL_COLL_BCAST, comm, algorithm, n, root, 1, 0, &c, &e,
                      &k, &fallback));
    if (fallback)
        return kcoll_mpi_bcast(buf, n, root, c->comm);
    if (n == 0 || c->size == 1)
        return MPI_SUCCESS;
    kcoll_args a = {NULL, buf, n, root, k};
    return run(c, e, &a);
}

/* allgather and alltoall take the same arguments and the same path: every
 * process sends and receives, MPI_IN_PLACE is allowed for sendbuf, and at
 * p = 1 the call is one local copy of n bytes. */
typedef int (*everyone_mpi_fn)(const void *, void *, size_t, MPI_Comm);

static int everyone(kcal_coll coll, everyone_mpi_fn mpi_fn,
                    const void *sendbuf, void *recvbuf, size_t n,
                    MPI_Comm comm, const char *algorithm)
{
    kcoll_comm *c;
    const entry *e;
    int k, fallback, in_place = sendbuf == MPI_IN_PLACE;
    KCOLL_TRY(prepare(coll, comm, algorithm, n, 0, 0, in_place, &c, &e, &k,
                      &fallback));
    if (fallback)
        return mpi_fn(sendbuf, recvbuf, n, c->comm);
    if (n == 0)
        return MPI_SUCCESS;
    if (c->size == 1) {
        if (!in_place)
            memcpy(recvbuf, sendbuf, n);
        return MPI_SUCCESS;
    }
    kcoll_args a = {sendbuf, recvbuf, n, 0, k};
    return run(c, e, &a);
}

int kcoll_allgather(const void *sendbuf, void *recvbuf, size_t n,
                    MPI_Comm comm, const char *algorithm)
{
    return everyone(KCAL_COLL_ALLGATHER, kcoll_mpi_allgather, sendbuf,
                    recvbuf, n, comm, algorithm);
}

int kcoll_alltoall(const void *sendbuf, void *recvbuf, size_t n,
                   MPI_Comm comm, const char *algorithm)
{
    return everyone(KCAL_COLL_ALLTOALL, kcoll_mpi_alltoall, sendbuf, recvbuf,
                    n, comm, algorithm);
}
