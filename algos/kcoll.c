/* kcoll: the public entry points. Resolves the algorithm (the user's "id"
 * or "id:k", or the model's choice when it is NULL or lacks its throttle
 * factor), checks the arguments, and sends the call to the algorithm's
 * function (the dispatch table below, generated from the registry
 * model/algorithms.def), to a local copy (p = 1), or to the MPI built-in
 * where CMA is forbidden or the model cannot choose. Choosing is
 * kcal_model_select's job (model/); this file remembers its answers per
 * communicator and reads the params once per process. Where the params hold
 * the MPI library's measured line and it beats every algorithm (small
 * messages), the model's choice is "mpi" and the call runs the MPI
 * library's own collective (kcoll_handoffs counts these, for the tests).
 * A communicator that spans nodes goes to two_level.c, whose node steps
 * come back here through kcoll_intra. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algos/config.h"
#include "algos/kcoll_impl.h"
#include "model/model.h"
#include "model/params.h"
#include "algos/stats.h"
#include "algos/tuned.h"

atomic_ulong kcoll_handoffs;

static const kcoll_algorithm_fn dispatch[KCAL_ALG_COUNT] = {
#define KCAL_ALGORITHM(coll, id, kind, fn, ...) [KCAL_ALG_##coll##_##id] = fn,
#include "model/algorithms.def"
};

/* Params for the model's choices: $KCAL_PARAMS (config.h) or the embedded
 * default, read once per process (pthread_once: calls may come from any
 * thread) and
 * never changed afterwards, so readers need no lock. A file that does not
 * read is reported once, here, and leaves the model unable to choose. */
static pthread_once_t params_once = PTHREAD_ONCE_INIT;
static kcal_params params;
static int params_ok;

static void read_params(void)
{
    char err[KCAL_ERRLEN];
    const char *file = kcoll_config_path(KCOLL_CFG_PARAMS);
    kcal_params_init(&params);
    params_ok = kcal_params_choose(file,
                                   file ? NULL : KCAL_PARAMS_DEFAULT_MACHINE,
                                   &params, NULL, 0, err, sizeof err) == 0;
    if (!params_ok)
        fprintf(stderr, "kcoll: warning: $%s: %s; calls that leave the "
                        "algorithm to the model use the MPI library's own "
                        "collectives (pid %ld)\n",
                kcoll_config_name(KCOLL_CFG_PARAMS), err, (long)getpid());
}

static const kcal_params *get_params(void)
{
    pthread_once(&params_once, read_params);
    return params_ok ? &params : NULL;
}

static void warn_nonfinite(kcal_coll coll, const kcal_algorithm *only, int p,
                           uint64_t n)
{
    static atomic_int warned;
    if (!atomic_exchange(&warned, 1))
        fprintf(stderr, "kcoll: warning: %s: every predicted time of %s%s%s "
                        "at p = %d, n = %llu overflows (inf or NaN); using "
                        "the MPI library's own collective where the model "
                        "chooses (pid %ld)\n",
                params.origin, kcal_coll_name(coll), only ? " " : "",
                only ? only->id : "", p, (unsigned long long)n,
                (long)getpid());
}

/* What this thread's current call ran, for KCOLL_STATS (stats.h): set by
 * prepare() once it knows, read by the entry points' record(). name NULL:
 * the call failed before it chose (nothing is recorded). */
typedef struct {
    const char *name;
    int k, p;
} call_record;
static _Thread_local call_record last;

/* A counter for tests, not a lock-prefixed add on every call. */
static void count_handoff(void)
{
    atomic_store_explicit(&kcoll_handoffs,
                          atomic_load_explicit(&kcoll_handoffs,
                                               memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

/* Whether the model hands n bytes of coll's calls on c to the MPI library
 * (kcal_model_select chooses "mpi" exactly there: below mpi_<coll>_below
 * and in the size classes of mpi_<coll>_mask, with the line's keys,
 * p >= 2); the keys are read once per communicator and collective. */
static int handoff(kcoll_comm *c, kcal_coll coll, uint64_t n)
{
    if (!(c->handoff_known & (1u << coll))) {
        const kcal_params *prm = get_params();
        double below =
            prm ? kcal_params_get_key(prm, KCAL_PK_MEMBER(mpi_below, coll), 0)
                : 0;
        c->handoff[coll] = 0;
        c->handoff_mask[coll] = 0;
        if (below >= 1 && kcal_model_mpi_time(prm, coll, c->size, 0) >= 0) {
            c->handoff[coll] = below >= 18446744073709551615.0
                                   ? UINT64_MAX
                                   : (uint64_t)ceil(below);
            c->handoff_mask[coll] =
                kcal_params_get_key(prm, KCAL_PK_MEMBER(mpi_mask, coll), 0);
        }
        c->handoff_known |= 1u << coll;
    }
    return c->handoff[coll] &&
           kcal_model_handed_off((double)c->handoff[coll],
                                 c->handoff_mask[coll], n);
}

/* The slot of a key: a multiplicative hash of (coll, n, in_place, only). */
static kcoll_choice_slot *choice_slot(kcoll_comm *c, kcal_coll coll,
                                      uint64_t n, int in_place,
                                      const kcal_algorithm *only)
{
    uint64_t h = n ^ ((uint64_t)coll << 58) ^ ((uint64_t)in_place << 57) ^
                 ((uint64_t)(only ? only->index + 1 : 0) << 48);
    h *= 0x9e3779b97f4a7c15ull; /* the high bits mix every bit of the key */
    return &c->choices[(h >> 40) % KCOLL_CHOICE_SLOTS];
}

/* The model's (alg, k) for this call: among every algorithm (only = NULL)
 * or among only's throttle factors. MPI_SUCCESS with *out set, or
 * *use_mpi = 1 when the model chose the MPI library's collective (its
 * measured line is faster here: no warning) or cannot choose (the warning
 * is printed). */
static int choose(kcoll_comm *c, kcal_coll coll, uint64_t n, int in_place,
                  const kcal_algorithm *only, kcal_choice *out, int *use_mpi)
{
    const kcal_params *prm = get_params();
    if (!prm) {
        *use_mpi = 1;
        return MPI_SUCCESS;
    }
    kcoll_choice_slot *s = choice_slot(c, coll, n, in_place, only);
    if (!(s->used && s->coll == coll && s->n == n &&
          s->in_place == in_place && s->only == only)) {
        *s = (kcoll_choice_slot){.used = 1, .coll = coll, .n = n,
                                 .in_place = in_place, .only = only};
        /* The default model for these params: full for a probed file. */
        s->rc = kcal_model_select(kcal_model_default(prm), prm, coll,
                                  c->size, n, in_place, only, &s->choice);
    }
    if (s->rc == KCAL_SELECT_NONFINITE) {
        warn_nonfinite(coll, only, c->size, n);
        *use_mpi = 1;
        return MPI_SUCCESS;
    }
    if (s->rc != 0)
        return MPI_ERR_ARG; /* no valid (alg, k) at this p */
    if (kcal_model_is_mpi(s->choice.alg)) {
        /* Below the crossover kcal probe measured: hand off. */
        count_handoff();
        *use_mpi = 1;
        return MPI_SUCCESS;
    }
    *out = s->choice;
    return MPI_SUCCESS;
}

/* The user's "id" or "id:k" (spec not NULL) -> algorithm and k; k = -1 when
 * the id is a throttled one without k, which the model must choose. */
static int parse(kcal_coll coll, const char *spec, int p,
                 const kcal_algorithm **alg, int *k)
{
    char id[64];
    const char *colon = strchr(spec, ':');
    size_t len = colon ? (size_t)(colon - spec) : strlen(spec);
    if (len == 0 || len >= sizeof id)
        return MPI_ERR_ARG;
    memcpy(id, spec, len);
    id[len] = '\0';
    const kcal_algorithm *a = kcal_model_find_algorithm(coll, id);
    if (!a)
        return MPI_ERR_ARG;
    long v = 0;
    if (colon) {
        char *end;
        errno = 0;
        v = strtol(colon + 1, &end, 10);
        if (errno || end == colon + 1 || *end || v < 1 || v > INT_MAX)
            return MPI_ERR_ARG;
    } else if (a->kind == KCAL_PARAM_STRIDE) {
        v = 1;
    } else if (a->kind == KCAL_PARAM_THROTTLE) {
        if (p - 1 < 2)
            return MPI_ERR_ARG; /* no valid k at this p */
        *alg = a;
        *k = -1;
        return MPI_SUCCESS;
    }
    /* At p = 1 everything is a local copy; j = 1 is the plain ring. */
    int ok = kcal_model_k_valid(a, p, (int)v) ||
             (p == 1 && a->kind == KCAL_PARAM_STRIDE && v == 1);
    if (!ok)
        return MPI_ERR_ARG;
    *alg = a;
    *k = (int)v;
    return MPI_SUCCESS;
}

static void warn_no_cma(void)
{
    static atomic_int warned;
    if (!atomic_exchange(&warned, 1))
        fprintf(stderr, "kcoll: warning: process_vm_readv is not permitted "
                        "here (pid %ld); using the MPI library's own "
                        "collectives (set KCOLL_STRICT=1 to fail instead)\n",
                (long)getpid());
}

/* Everything a call does before the algorithm runs: the communicator's
 * state, argument checks, the algorithm and k, and whether to run the MPI
 * built-in instead (*use_mpi). Returns MPI_SUCCESS or the error to return. */
static int prepare(kcal_coll coll, MPI_Comm comm, const char *algorithm,
                   size_t n, int root, int rooted, int in_place,
                   kcoll_comm **c, const kcal_algorithm **alg, int *k,
                   int *use_mpi)
{
    last.name = NULL;
    KCOLL_TRY(kcoll_comm_get(comm, c));
    int p = (*c)->size;
    if (rooted && (root < 0 || root >= p))
        return MPI_ERR_ROOT;
    size_t total;
    if (__builtin_mul_overflow(n, (size_t)p, &total))
        return MPI_ERR_COUNT;
    *alg = NULL;
    *k = -1;
    if (algorithm)
        KCOLL_TRY(parse(coll, algorithm, p, alg, k));
    *use_mpi = 0;
    /* No state (comm.c): the MPI library on the user's communicator. */
    if ((*c)->no_state) {
        *use_mpi = 1;
        last = (call_record){"mpi(no-state)", 0, p};
        return MPI_SUCCESS;
    }
    /* Across nodes each node's state knows whether CMA works there. */
    if (!(*c)->spans_nodes && !(*c)->cma_ok) {
        if (kcoll_config_on(KCOLL_CFG_STRICT))
            return MPI_ERR_OTHER;
        warn_no_cma();
        *use_mpi = 1;
        last = (call_record){"mpi", 0, p};
        return MPI_SUCCESS;
    }
    /* Left to libkcoll: a rule of $KCOLL_TABLE decides first (tuned.h). */
    if (!algorithm &&
        kcoll_tuned_decide(coll, p, n, alg, k) == KCOLL_TUNED_MPI) {
        *use_mpi = 1;
        last = (call_record){"mpi", 0, p};
        return MPI_SUCCESS;
    }
    if (!*alg && handoff(*c, coll, (uint64_t)n)) {
        /* The model's choice below the measured crossover, without asking
         * it: these calls are a microsecond, and the question was a tenth
         * of what libkcoll added to them. */
        count_handoff();
        *use_mpi = 1;
        last = (call_record){"mpi", 0, p};
        return MPI_SUCCESS;
    }
    if ((*c)->spans_nodes) {
        /* two_level(): the nodes choose, at their size, and name what they
         * ran; a call of 0 bytes moves nothing and stays "two_level". */
        last = (call_record){"two_level", 0, p};
        return MPI_SUCCESS;
    }
    if (*k < 0) { /* NULL, or a throttled id without k */
        kcal_choice ch;
        KCOLL_TRY(choose(*c, coll, n, in_place, *alg, &ch, use_mpi));
        if (!*use_mpi) {
            *alg = ch.alg;
            *k = ch.k;
        }
    }
    last = *use_mpi ? (call_record){"mpi", 0, p}
                    : (call_record){(*alg)->id, *k, p};
    return MPI_SUCCESS;
}

/* The KCOLL_STATS record of the call that began at t0 (blocks: p blocks of
 * n bytes, or 1 for bcast). */
static void record(kcal_coll coll, size_t n, int blocks, double t0)
{
    if (last.name)
        kcoll_stats_add(coll, last.p == 1 ? "local" : last.name,
                        last.p == 1 ? 0 : last.k, /* no ring stride alone */
                        (uint64_t)n * (uint64_t)(blocks ? last.p : 1),
                        kcoll_stats_now() - t0);
}

static int run(kcoll_comm *c, const kcal_algorithm *alg, const kcoll_args *a)
{
    c->seq++;
    return dispatch[alg->index](c, a);
}

/* A call on a communicator that spans nodes (two_level.c; alg NULL or
 * a->k < 0: the model's choice per node), recorded for KCOLL_STATS as
 * two_level:<what this process's node step ran>. */
static _Thread_local char two_level_name[KCOLL_STATS_NAME];

static int two_level(kcoll_comm *c, kcal_coll coll, const kcal_algorithm *alg,
                     const kcoll_args *a)
{
    c->seq++;
    kcoll_ran ran = {NULL, 0, 0};
    int rc = kcoll_two_level_run(c, coll, alg, a, &ran);
    snprintf(two_level_name, sizeof two_level_name, "two_level:%s",
             ran.p == 1 ? "local" : ran.name ? ran.name : "none");
    last = (call_record){two_level_name, ran.p == 1 ? 0 : ran.k, c->size};
    return rc;
}

static int scatter_call(const void *sendbuf, void *recvbuf, size_t n, int root,
                  MPI_Comm comm, const char *algorithm)
{
    kcoll_comm *c;
    const kcal_algorithm *alg;
    int k, use_mpi;
    /* In place is known at the root only, so it must not steer the choice. */
    KCOLL_TRY(prepare(KCAL_COLL_SCATTER, comm, algorithm, n, root, 1, 0, &c,
                      &alg, &k, &use_mpi));
    if (use_mpi)
        return kcoll_mpi_scatter(sendbuf, recvbuf, n, root, c->comm);
    if (n == 0)
        return MPI_SUCCESS;
    kcoll_args a = {sendbuf, recvbuf, n, root, k};
    if (c->spans_nodes)
        return two_level(c, KCAL_COLL_SCATTER, alg, &a);
    if (c->size == 1) {
        if (recvbuf != MPI_IN_PLACE)
            kcal_copy(recvbuf, sendbuf, n);
        return MPI_SUCCESS;
    }
    return run(c, alg, &a);
}

static int gather_call(const void *sendbuf, void *recvbuf, size_t n, int root,
                 MPI_Comm comm, const char *algorithm)
{
    kcoll_comm *c;
    const kcal_algorithm *alg;
    int k, use_mpi;
    KCOLL_TRY(prepare(KCAL_COLL_GATHER, comm, algorithm, n, root, 1, 0, &c,
                      &alg, &k, &use_mpi));
    if (use_mpi)
        return kcoll_mpi_gather(sendbuf, recvbuf, n, root, c->comm);
    if (n == 0)
        return MPI_SUCCESS;
    kcoll_args a = {sendbuf, recvbuf, n, root, k};
    if (c->spans_nodes)
        return two_level(c, KCAL_COLL_GATHER, alg, &a);
    if (c->size == 1) {
        if (sendbuf != MPI_IN_PLACE)
            kcal_copy(recvbuf, sendbuf, n);
        return MPI_SUCCESS;
    }
    return run(c, alg, &a);
}

static int bcast_call(void *buf, size_t n, int root, MPI_Comm comm,
                const char *algorithm)
{
    kcoll_comm *c;
    const kcal_algorithm *alg;
    int k, use_mpi;
    KCOLL_TRY(prepare(KCAL_COLL_BCAST, comm, algorithm, n, root, 1, 0, &c, &alg,
                      &k, &use_mpi));
    if (use_mpi)
        return kcoll_mpi_bcast(buf, n, root, c->comm);
    if (n == 0 || c->size == 1)
        return MPI_SUCCESS;
    kcoll_args a = {NULL, buf, n, root, k};
    if (c->spans_nodes)
        return two_level(c, KCAL_COLL_BCAST, alg, &a);
    return run(c, alg, &a);
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
    const kcal_algorithm *alg;
    int k, use_mpi, in_place = sendbuf == MPI_IN_PLACE;
    KCOLL_TRY(prepare(coll, comm, algorithm, n, 0, 0, in_place, &c, &alg, &k,
                      &use_mpi));
    if (use_mpi)
        return mpi_fn(sendbuf, recvbuf, n, c->comm);
    if (n == 0)
        return MPI_SUCCESS;
    kcoll_args a = {sendbuf, recvbuf, n, 0, k};
    if (c->spans_nodes)
        return two_level(c, coll, alg, &a);
    if (c->size == 1) {
        if (!in_place)
            kcal_copy(recvbuf, sendbuf, n);
        return MPI_SUCCESS;
    }
    return run(c, alg, &a);
}

static int allgather_call(const void *sendbuf, void *recvbuf, size_t n,
                    MPI_Comm comm, const char *algorithm)
{
    return everyone(KCAL_COLL_ALLGATHER, kcoll_mpi_allgather, sendbuf,
                    recvbuf, n, comm, algorithm);
}

static int alltoall_call(const void *sendbuf, void *recvbuf, size_t n,
                   MPI_Comm comm, const char *algorithm)
{
    return everyone(KCAL_COLL_ALLTOALL, kcoll_mpi_alltoall, sendbuf, recvbuf,
                    n, comm, algorithm);
}

int kcoll_intra(kcal_coll coll, MPI_Comm node, const char *algorithm,
                const kcoll_args *a, kcoll_ran *ran)
{
    int rc;
    switch (coll) {
    case KCAL_COLL_SCATTER:
        rc = scatter_call(a->sendbuf, a->recvbuf, a->n, a->root, node,
                          algorithm);
        break;
    case KCAL_COLL_GATHER:
        rc = gather_call(a->sendbuf, a->recvbuf, a->n, a->root, node,
                         algorithm);
        break;
    case KCAL_COLL_BCAST:
        rc = bcast_call(a->recvbuf, a->n, a->root, node, algorithm);
        break;
    case KCAL_COLL_ALLGATHER:
        rc = allgather_call(a->sendbuf, a->recvbuf, a->n, node, algorithm);
        break;
    default:
        rc = alltoall_call(a->sendbuf, a->recvbuf, a->n, node, algorithm);
        break;
    }
    if (ran && last.name)
        *ran = (kcoll_ran){last.name, last.k, last.p};
    return rc;
}

/* The entry points: the call, and its KCOLL_STATS record when asked for. */
#define WITH_STATS(coll, n, blocks, call)                                    \
    do {                                                                     \
        if (!kcoll_stats_on())                                               \
            return call;                                                     \
        double t0_ = kcoll_stats_now();                                      \
        int rc_ = call;                                                      \
        record(coll, n, blocks, t0_);                                        \
        return rc_;                                                          \
    } while (0)

int kcoll_scatter(const void *sendbuf, void *recvbuf, size_t n, int root,
                  MPI_Comm comm, const char *algorithm)
{
    WITH_STATS(KCAL_COLL_SCATTER, n, 1,
               scatter_call(sendbuf, recvbuf, n, root, comm, algorithm));
}

int kcoll_gather(const void *sendbuf, void *recvbuf, size_t n, int root,
                 MPI_Comm comm, const char *algorithm)
{
    WITH_STATS(KCAL_COLL_GATHER, n, 1,
               gather_call(sendbuf, recvbuf, n, root, comm, algorithm));
}

int kcoll_bcast(void *buf, size_t n, int root, MPI_Comm comm,
                const char *algorithm)
{
    WITH_STATS(KCAL_COLL_BCAST, n, 0,
               bcast_call(buf, n, root, comm, algorithm));
}

int kcoll_allgather(const void *sendbuf, void *recvbuf, size_t n,
                    MPI_Comm comm, const char *algorithm)
{
    WITH_STATS(KCAL_COLL_ALLGATHER, n, 1,
               allgather_call(sendbuf, recvbuf, n, comm, algorithm));
}

int kcoll_alltoall(const void *sendbuf, void *recvbuf, size_t n,
                   MPI_Comm comm, const char *algorithm)
{
    WITH_STATS(KCAL_COLL_ALLTOALL, n, 1,
               alltoall_call(sendbuf, recvbuf, n, comm, algorithm));
}
