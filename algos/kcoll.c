/* kcoll: the public entry points. Each call gets the communicator's state
 * (comm.c), checks its arguments, asks choice.c what to run (the user's
 * algorithm, the verified choice, the MPI library's collective, two
 * levels across nodes) and runs it: an algorithm's function through the
 * dispatch table generated from the registry (model/algorithms.def), a
 * local copy at p = 1, the MPI built-in (fallback.c) or two_level.c, whose
 * node steps come back here through kcoll_intra. Then it tells choice.c
 * how long the call took, where the verification asked, and records it
 * for KCOLL_STATS. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "algos/choice.h"
#include "algos/config.h"
#include "algos/kcoll_impl.h"
#include "algos/reduce.h"
#include "algos/stats.h"
#include "algos/verify.h"

static const kcoll_algorithm_fn dispatch[KCAL_ALG_COUNT] = {
#define KCAL_ALGORITHM(coll, id, kind, fn, ...) [KCAL_ALG_##coll##_##id] = fn,
#include "model/algorithms.def"
};

/* What this thread's current call ran, for KCOLL_STATS (stats.h): set once
 * the call knows, read by the entry points' record(). name NULL: the call
 * failed before it chose (nothing is recorded). */
typedef struct {
    const char *name;
    int k, p;
} call_record;
static _Thread_local call_record last;

/* The op's rate of a reduction's call (kcoll_red_rate), -1 for a data
 * collective's. */
static int call_rate(kcal_coll coll, const kcoll_args *in)
{
    return kcal_coll_is_reduction(coll) ? kcoll_red_rate(in->type, in->op)
                                        : -1;
}

/* Everything a call does before it runs: the communicator's state,
 * argument checks and the plan. */
static int prepare(kcal_coll coll, int rate, MPI_Comm comm,
                   const char *algorithm, size_t n, int root, int in_place,
                   kcoll_comm **c, kcoll_plan *plan)
{
    last.name = NULL;
    KCOLL_TRY(kcoll_comm_get(comm, c));
    int p = (*c)->size, rooted = coll == KCAL_COLL_SCATTER ||
                                 coll == KCAL_COLL_GATHER ||
                                 coll == KCAL_COLL_BCAST ||
                                 coll == KCAL_COLL_REDUCE;
    if (rooted && (root < 0 || root >= p))
        return MPI_ERR_ROOT;
    size_t total;
    if (__builtin_mul_overflow(n, (size_t)p, &total))
        return MPI_ERR_COUNT;
    KCOLL_TRY(kcoll_choose(*c, coll, rate, algorithm, n, in_place, plan));
    int local = p == 1 && plan->kind == KCOLL_PLAN_ALG;
    last = (call_record){local ? "local" : kcoll_plan_name(plan),
                         local || plan->kind == KCOLL_PLAN_MPI ? 0 : plan->k,
                         p};
    return MPI_SUCCESS;
}

/* The KCOLL_STATS record of the call that began at t0 (blocks: p blocks of
 * n bytes, or 1 for bcast). */
static void record(kcal_coll coll, size_t n, int blocks, double t0)
{
    if (last.name)
        kcoll_stats_add(coll, last.name, last.k,
                        (uint64_t)n * (uint64_t)(blocks ? last.p : 1),
                        kcoll_stats_now() - t0);
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

/* At p = 1 every collective is one local copy of the block, or nothing in
 * place (bcast always is). */
static void local_copy(kcal_coll coll, const kcoll_args *a)
{
    const void *from = a->sendbuf;
    void *to = a->recvbuf;
    if (coll == KCAL_COLL_BCAST || from == MPI_IN_PLACE || to == MPI_IN_PLACE)
        return;
    kcal_copy(to, from, a->n);
}

static int execute(kcoll_comm *c, kcal_coll coll, const kcoll_plan *plan,
                   const kcoll_args *a)
{
    if (plan->kind == KCOLL_PLAN_MPI && kcal_coll_is_reduction(coll))
        return kcoll_mpi_reduction(coll, a, c->comm);
    if (plan->kind == KCOLL_PLAN_MPI)
        return kcoll_mpi_coll(coll, a->sendbuf, a->recvbuf, a->n, a->root,
                              c->comm);
    if (a->n == 0)
        return MPI_SUCCESS;
    if (plan->kind == KCOLL_PLAN_TWO_LEVEL)
        return two_level(c, coll, plan->alg, a);
    if (c->size == 1) {
        local_copy(coll, a);
        return MPI_SUCCESS;
    }
    c->seq++;
    return dispatch[plan->alg->index](c, a);
}

/* A planned call: what it runs, the test hook, the verification's
 * bookkeeping. */
static int run(kcoll_comm *c, kcal_coll coll, const kcoll_plan *plan,
               const kcoll_args *in)
{
    kcoll_args a = *in;
    a.k = plan->k;
    double t0;
    KCOLL_TRY(kcoll_choice_start(c, coll, plan, &t0));
    return kcoll_choice_finish(c, coll, plan, a.n, t0,
                               execute(c, coll, plan, &a));
}

/* In place steers the choice only where every process knows it:
 * allgather, alltoall, allreduce and reduce_scatter_block (at scatter's,
 * gather's and reduce's root only; bcast always is). */
static int choice_in_place(kcal_coll coll, const kcoll_args *in)
{
    return (coll == KCAL_COLL_ALLGATHER || coll == KCAL_COLL_ALLTOALL ||
            coll == KCAL_COLL_ALLREDUCE ||
            coll == KCAL_COLL_REDUCE_SCATTER_BLOCK) &&
           in->sendbuf == MPI_IN_PLACE;
}

/* The last call quick() ran, per thread (a reduction's only when its type
 * and op are predefined): the same call again (a loop) with algorithm
 * NULL and no KCOLL_STATS, while no state was freed
 * (kcoll_comm_generation), is the same verified slot on the same state,
 * and runs the slot's plan (repeat) without looking up the communicator,
 * its size class or, for a reduction, the type and op. On the Zen 5 guest
 * that took libkcoll's part of a reduction handed to the MPI library from
 * ~520 to ~220 instructions (callgrind) and auto from a median 0.95x to
 * 0.97x of the MPI library's call at 8-256 B (docs/machine.md). A data
 * collective keys on n with type MPI_BYTE and op MPI_OP_NULL. */
static _Thread_local struct {
    int set, root, in_place, red;
    kcal_coll coll;
    MPI_Comm comm;
    size_t count, n, esize;
    MPI_Datatype type;
    MPI_Op op;
    unsigned long gen;
    kcoll_comm *c;
    kcoll_verify_slot *slot;
} memo;

static void remember(kcal_coll coll, const kcoll_args *in, MPI_Comm comm,
                     kcoll_comm *c, int in_place, unsigned long gen)
{
    memo.set = 0;
    int red = kcal_coll_is_reduction(coll);
    if (red && !kcoll_red_predefined(in->type, in->op))
        return;
    kcoll_verify_slot *s = kcoll_verify_slot_of(c, coll, call_rate(coll, in),
                                                (uint64_t)in->n, in_place);
    if (!s)
        return;
    memo = (__typeof__(memo)){1, in->root, in->sendbuf == MPI_IN_PLACE, red,
                              coll,
                              comm, red ? in->n / in->esize : in->n, in->n,
                              in->esize, red ? in->type : MPI_BYTE,
                              red ? in->op : MPI_OP_NULL, gen, c, s};
}

/* Whether a NULL call repeats the one memo holds (count elements of type
 * under op; a data collective: n, MPI_BYTE, MPI_OP_NULL). KCOLL_STATS
 * needs no test here: memo is set only while it is off, and the
 * configuration is read once per process (config.h). */
static inline __attribute__((always_inline)) int
repeats(kcal_coll coll, MPI_Comm comm, size_t count, MPI_Datatype type,
        MPI_Op op, int root, const void *sendbuf)
{
    return memo.set && memo.comm == comm && memo.coll == coll &&
           memo.count == count && memo.type == type && memo.op == op &&
           memo.root == root && memo.in_place == (sendbuf == MPI_IN_PLACE) &&
           memo.gen == kcoll_comm_generation();
}

/* A quiet call's decision h (verify.h) run with a's buffers, and
 * nothing else: what execute() does for a verified plan (p >= 2, n > 0,
 * one node: kcoll_choice_verified), without its tests of the plan.
 * Inline, with coll a constant, so that the MPI library's call of a data
 * collective is one call (kcoll_mpi_data, kcoll_impl.h). */
static inline __attribute__((always_inline)) int
quiet_run(kcal_coll coll, const kcoll_verify_hot *h, kcoll_args *a)
{
    kcoll_comm *c = memo.c;
    a->k = h->k;
    if (h->is_mpi) {
        if (memo.red)
            return kcoll_mpi_reduction(coll, a, c->comm);
        return kcoll_mpi_data(coll, a->sendbuf, a->recvbuf, a->n, a->root,
                              c->comm);
    }
    c->seq++;
    return dispatch[h->alg->index](c, a);
}

/* The memo's slot's plan, run with these buffers. A quiet call (verify.h:
 * decided, neither timed nor due) runs its decision straight away: below
 * a few KiB, where the decision is often the MPI library's call, the
 * plan and the bookkeeping around it took libkcoll 347 instructions, 169
 * with the entry points inlined into one function (40-55 ns of a 0.3 us
 * MPI_Scatter on the Zen 5 guest), 85 with quiet_run inline too
 * (callgrind; docs/machine.md, "The decided call"). In the test builds
 * the hook slows it as it slows run()'s, asked once per decision
 * (kcoll_test_quiet_slowed). */
static inline __attribute__((always_inline)) int
repeat(kcal_coll coll, const void *sendbuf, void *recvbuf)
{
    kcoll_args a = {sendbuf, recvbuf, memo.n, memo.root, 0, memo.type,
                    memo.op, memo.esize};
    kcoll_verify_hot *h = kcoll_verify_quiet(memo.slot);
    if (h && !kcoll_test_quiet_slowed(coll, h))
        return quiet_run(coll, h, &a);
    if (h) {
        kcoll_plan plan = kcoll_verify_hot_plan(h);
        double t0 = kcoll_verify_clock();
        int rc = quiet_run(coll, h, &a);
        kcoll_test_slow(memo.c->comm, coll, &plan, a.n, t0);
        return rc;
    }
    kcoll_plan plan;
    kcoll_verify_plan_slot(memo.slot, &plan);
    return run(memo.c, coll, &plan, &a);
}

/* A call of algorithm NULL that KCOLL_STATS does not record, on a
 * communicator whose state the last call found (kcoll_comm_get's cache)
 * and where kcoll_choose would end in the verified choice
 * (kcoll_choice_verified). It goes straight to the verified choice's
 * slot; any other call, or one whose arguments prepare would refuse,
 * returns -1 and takes the whole path (call). Below a few KiB, where the
 * verified choice is the MPI library's call, the checks and steps of the
 * whole path were 5-10 % of the call on the Zen 5 guest
 * (docs/machine.md). */
static int quick(kcal_coll coll, const kcoll_args *in, MPI_Comm comm,
                 int *rc)
{
    unsigned long gen = kcoll_comm_generation();
    kcoll_comm *c;
    if (kcoll_comm_get(comm, &c) != MPI_SUCCESS ||
        !kcoll_choice_verified(c, in->n) ||
        in->n > SIZE_MAX / (size_t)c->size ||
        ((coll == KCAL_COLL_SCATTER || coll == KCAL_COLL_GATHER ||
          coll == KCAL_COLL_BCAST || coll == KCAL_COLL_REDUCE) &&
         (in->root < 0 || in->root >= c->size)))
        return -1;
    kcoll_plan plan;
    int in_place = choice_in_place(coll, in);
    *rc = kcoll_verify_plan(c, coll, call_rate(coll, in), (uint64_t)in->n,
                            in_place, &plan);
    if (*rc == MPI_SUCCESS) {
        remember(coll, in, comm, c, in_place, gen);
        *rc = run(c, coll, &plan, in);
    }
    return 0;
}

/* One call of coll with a's buffers, n, root (and a reduction's type, op
 * and element size). */
static int call(kcal_coll coll, const kcoll_args *in, MPI_Comm comm,
                const char *algorithm)
{
    int in_place = choice_in_place(coll, in);
    kcoll_comm *c;
    kcoll_plan plan;
    KCOLL_TRY(prepare(coll, call_rate(coll, in), comm, algorithm, in->n,
                      in->root, in_place, &c, &plan));
    return run(c, coll, &plan, in);
}

int kcoll_intra(kcal_coll coll, MPI_Comm node, const char *algorithm,
                const kcoll_args *a, kcoll_ran *ran)
{
    int rc = call(coll, a, node, algorithm);
    if (ran && last.name)
        *ran = (kcoll_ran){last.name, last.k, last.p};
    return rc;
}

/* The entry points: the call, and its KCOLL_STATS record when asked for
 * (blocks: the record counts p blocks of n bytes, else n). */
static int entry(kcal_coll coll, const kcoll_args *a, MPI_Comm comm,
                 const char *algorithm, int blocks)
{
    int rc;
    if (!kcoll_stats_on())
        return !algorithm && quick(coll, a, comm, &rc) == 0
                   ? rc
                   : call(coll, a, comm, algorithm);
    double t0 = kcoll_stats_now();
    rc = call(coll, a, comm, algorithm);
    record(coll, a->n, blocks, t0);
    return rc;
}

static inline __attribute__((always_inline)) int
data_entry(kcal_coll coll, const void *sendbuf, void *recvbuf, size_t n,
           int root, MPI_Comm comm, const char *algorithm)
{
    if (!algorithm &&
        repeats(coll, comm, n, MPI_BYTE, MPI_OP_NULL, root, sendbuf))
        return repeat(coll, sendbuf, recvbuf);
    kcoll_args a = {sendbuf, recvbuf, n, root, 0, MPI_BYTE, MPI_OP_NULL, 1};
    return entry(coll, &a, comm, algorithm, coll != KCAL_COLL_BCAST);
}

int kcoll_scatter(const void *sendbuf, void *recvbuf, size_t n, int root,
                  MPI_Comm comm, const char *algorithm)
{
    return data_entry(KCAL_COLL_SCATTER, sendbuf, recvbuf, n, root, comm,
                      algorithm);
}

int kcoll_gather(const void *sendbuf, void *recvbuf, size_t n, int root,
                 MPI_Comm comm, const char *algorithm)
{
    return data_entry(KCAL_COLL_GATHER, sendbuf, recvbuf, n, root, comm,
                      algorithm);
}

int kcoll_bcast(void *buf, size_t n, int root, MPI_Comm comm,
                const char *algorithm)
{
    return data_entry(KCAL_COLL_BCAST, NULL, buf, n, root, comm, algorithm);
}

int kcoll_allgather(const void *sendbuf, void *recvbuf, size_t n,
                    MPI_Comm comm, const char *algorithm)
{
    return data_entry(KCAL_COLL_ALLGATHER, sendbuf, recvbuf, n, 0, comm,
                      algorithm);
}

int kcoll_alltoall(const void *sendbuf, void *recvbuf, size_t n,
                   MPI_Comm comm, const char *algorithm)
{
    return data_entry(KCAL_COLL_ALLTOALL, sendbuf, recvbuf, n, 0, comm,
                      algorithm);
}

/* A reduction of count elements (per block for reduce_scatter_block). A
 * (type, op) libkcoll does not reduce itself (reduce.h) runs the MPI
 * library's collective on every rank alike (type and op are the same on
 * every rank), recorded as "mpi(type-op)", after the checks every call
 * gets. */
static int reduction(kcal_coll coll, const void *sendbuf, void *recvbuf,
                     size_t count, MPI_Datatype type, MPI_Op op, int root,
                     MPI_Comm comm, const char *algorithm)
{
    if (!algorithm && repeats(coll, comm, count, type, op, root, sendbuf))
        return repeat(coll, sendbuf, recvbuf);
    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    if (op == MPI_OP_NULL)
        return MPI_ERR_OP;
    size_t esize, n;
    int mine = kcoll_reducible(type, op, &esize);
    if (!mine) {
        int size = 0;
        MPI_Type_size(type, &size);
        esize = size > 0 ? (size_t)size : 1;
    }
    if (__builtin_mul_overflow(count, esize, &n))
        return MPI_ERR_COUNT;
    kcoll_args a = {sendbuf, recvbuf, n, root, 0, type, op, esize};
    int blocks = coll == KCAL_COLL_REDUCE_SCATTER_BLOCK;
    if (mine)
        return entry(coll, &a, comm, algorithm, blocks);
    kcoll_comm *c;
    kcoll_plan plan;
    double t0 = kcoll_stats_on() ? kcoll_stats_now() : 0;
    KCOLL_TRY(prepare(coll, -1, comm, algorithm, 0, root, 0, &c, &plan));
    int rc = kcoll_mpi_reduction(coll, &a, c->comm);
    if (kcoll_stats_on())
        kcoll_stats_add(coll, "mpi(type-op)", 0,
                        (uint64_t)n * (uint64_t)(blocks ? c->size : 1),
                        kcoll_stats_now() - t0);
    return rc;
}

int kcoll_reduce(const void *sendbuf, void *recvbuf, size_t count,
                 MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                 const char *algorithm)
{
    return reduction(KCAL_COLL_REDUCE, sendbuf, recvbuf, count, type, op, root,
                     comm, algorithm);
}

int kcoll_allreduce(const void *sendbuf, void *recvbuf, size_t count,
                    MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                    const char *algorithm)
{
    return reduction(KCAL_COLL_ALLREDUCE, sendbuf, recvbuf, count, type, op, 0,
                     comm, algorithm);
}

int kcoll_reduce_scatter_block(const void *sendbuf, void *recvbuf,
                               size_t recvcount, MPI_Datatype type, MPI_Op op,
                               MPI_Comm comm, const char *algorithm)
{
    return reduction(KCAL_COLL_REDUCE_SCATTER_BLOCK, sendbuf, recvbuf,
                     recvcount, type, op, 0, comm, algorithm);
}

int kcoll_coll_bytes(kcal_coll coll, const void *sendbuf, void *recvbuf,
                     size_t n, int root, MPI_Comm comm, const char *algorithm)
{
    if (!kcal_coll_is_reduction(coll))
        return data_entry(coll, sendbuf, recvbuf, n, root, comm, algorithm);
    kcoll_args a = kcoll_bytes_reduction(sendbuf, recvbuf, n, root);
    return reduction(coll, sendbuf, recvbuf, n / a.esize, a.type, a.op, root,
                     comm, algorithm);
}
