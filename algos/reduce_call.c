/* reduce_call: kcoll_reduce, kcoll_allreduce and kcoll_reduce_scatter_block
 * (kcoll.h): the communicator's state, the arguments, what to run, and
 * the KCOLL_STATS record.
 *
 * What a call runs depends only on what every rank knows alike (MPI's
 * rules: the same count, type, op and root on every rank), so every rank
 * takes the same path:
 *   - the MPI library's collective, on the communicator's private split,
 *     when the state could not be built ("mpi(no-state)"), when the user
 *     names "mpi", when libkcoll does not reduce (type, op) itself
 *     ("mpi(type-op)": reduce.h), where CMA is forbidden (KCOLL_STRICT=1:
 *     MPI_ERR_OTHER instead) and across nodes ("mpi(nodes)": the two-level
 *     reductions are not written yet);
 *   - at p = 1 the copy of the input, or nothing in place;
 *   - the user's algorithm (reductions.def);
 *   - algorithm NULL: choose() below. */
#include <limits.h>
#include <string.h>

#include "algos/config.h"
#include "algos/reduce.h"
#include "algos/stats.h"

/* The MPI library's collective (counts are int there). */
static int run_mpi(kcoll_red_coll coll, const kcoll_red_args *a, MPI_Comm comm)
{
    if (a->count > (size_t)INT_MAX)
        return MPI_ERR_COUNT;
    int n = (int)a->count;
    switch (coll) {
    case KCOLL_RED_REDUCE:
        return MPI_Reduce(a->sendbuf, a->recvbuf, n, a->type, a->op, a->root,
                          comm);
    case KCOLL_RED_ALLREDUCE:
        return MPI_Allreduce(a->sendbuf, a->recvbuf, n, a->type, a->op, comm);
    case KCOLL_RED_REDUCE_SCATTER_BLOCK:
        return MPI_Reduce_scatter_block(a->sendbuf, a->recvbuf, n, a->type,
                                        a->op, comm);
    default:
        return MPI_ERR_ARG;
    }
}

/* p = 1: the result is the input. */
static void local_copy(kcoll_red_coll coll, const kcoll_red_args *a)
{
    (void)coll;
    if (a->sendbuf != MPI_IN_PLACE)
        memcpy(a->recvbuf, a->sendbuf, a->count * a->esize);
}

/* Algorithm NULL on one node with CMA: n is the vector's bytes (all p
 * blocks for reduce_scatter_block). */
static const kcoll_red_algorithm *choose(kcoll_red_coll coll, int p,
                                         size_t n)
{
    (void)p;
    (void)n;
    size_t count;
    return kcoll_red_algorithms(coll, &count);
}

typedef struct {
    const kcoll_red_algorithm *alg; /* NULL: the MPI library's */
    const char *name;               /* for KCOLL_STATS */
    int local;                      /* p = 1: the copy */
} red_plan;

static int plan_call(kcoll_comm *c, kcoll_red_coll coll, const char *algorithm,
                     int reducible, size_t bytes, red_plan *plan)
{
    *plan = (red_plan){NULL, "mpi", 0};
    int named_mpi = algorithm && strcmp(algorithm, "mpi") == 0;
    const kcoll_red_algorithm *named =
        algorithm && !named_mpi ? kcoll_red_find(coll, algorithm) : NULL;
    if (algorithm && !named_mpi && !named)
        return MPI_ERR_ARG;
    if (c->no_state) {
        plan->name = "mpi(no-state)";
    } else if (named_mpi) {
    } else if (!reducible) {
        plan->name = "mpi(type-op)";
    } else if (c->size == 1) {
        *plan = (red_plan){NULL, "local", 1};
    } else if (!c->cma_ok) {
        if (kcoll_config_on(KCOLL_CFG_STRICT))
            return MPI_ERR_OTHER;
    } else if (c->spans_nodes) {
        plan->name = "mpi(nodes)";
    } else {
        plan->alg = named ? named : choose(coll, c->size, bytes);
        if (plan->alg)
            plan->name = plan->alg->id;
    }
    return MPI_SUCCESS;
}

static int call(kcoll_red_coll coll, const void *sendbuf, void *recvbuf,
                size_t count, MPI_Datatype type, MPI_Op op, int root,
                MPI_Comm comm, const char *algorithm)
{
    double t0 = kcoll_stats_on() ? kcoll_stats_now() : 0;
    kcoll_comm *c;
    KCOLL_TRY(kcoll_comm_get(comm, &c));
    int p = c->size;
    if (coll == KCOLL_RED_REDUCE && (root < 0 || root >= p))
        return MPI_ERR_ROOT;
    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    if (op == MPI_OP_NULL)
        return MPI_ERR_OP;
    size_t esize, total = count, bytes;
    int reducible = kcoll_reducible(type, op, &esize);
    if ((coll == KCOLL_RED_REDUCE_SCATTER_BLOCK &&
         __builtin_mul_overflow(count, (size_t)p, &total)) ||
        __builtin_mul_overflow(total, esize ? esize : 1, &bytes))
        return MPI_ERR_COUNT;
    red_plan plan;
    KCOLL_TRY(plan_call(c, coll, algorithm, reducible, bytes, &plan));
    kcoll_red_args a = {sendbuf, recvbuf, count, esize, type, op, root};
    int rc = MPI_SUCCESS;
    if (plan.local)
        local_copy(coll, &a);
    else if (!plan.alg)
        rc = run_mpi(coll, &a, c->comm);
    else if (count > 0) {
        c->seq++;
        rc = plan.alg->fn(c, &a);
    }
    if (kcoll_stats_on())
        kcoll_stats_add_named(kcoll_red_coll_name(coll), plan.name, 0, bytes,
                              kcoll_stats_now() - t0);
    return rc;
}

int kcoll_reduce(const void *sendbuf, void *recvbuf, size_t count,
                 MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                 const char *algorithm)
{
    return call(KCOLL_RED_REDUCE, sendbuf, recvbuf, count, type, op, root,
                comm, algorithm);
}

int kcoll_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                    MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                    const char *algorithm)
{
    return call(KCOLL_RED_ALLREDUCE, sendbuf, recvbuf, count, type, op, 0,
                comm, algorithm);
}

int kcoll_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                               size_t recvcount, MPI_Datatype type, MPI_Op op,
                               MPI_Comm comm, const char *algorithm)
{
    return call(KCOLL_RED_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf, recvcount,
                type, op, 0, comm, algorithm);
}
