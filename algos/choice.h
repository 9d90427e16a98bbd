/* choice: what one call of libkcoll runs, and why — the one place that
 * decides (not installed).
 *
 * In order, for a call on communicator c:
 *   1. the user's id ("direct_read", "throttled_read:4") runs as named; a
 *      throttled id without k gets the model's best k;
 *   2. where CMA is forbidden the MPI library's collective runs (or, with
 *      KCOLL_STRICT=1, the call fails);
 *   3. algorithm NULL on a communicator that spans nodes runs in two levels
 *      (two_level.c, two_level_reduce.c), unless the model hands the size
 *      to the MPI library;
 *   4. algorithm NULL on one node: the run-time verified choice (verify.h):
 *      the model, or a $KCOLL_TABLE rule, proposes a few candidates per
 *      size class, the MPI library's collective always among them, and
 *      libkcoll keeps the one its first calls measured fastest on every
 *      rank; with KCOLL_VERIFY=0 the pure choice of before: a table rule,
 *      else the MPI library below the probed crossover (mpi_<coll>_below,
 *      mpi_<coll>_mask), else the model's first (alg, k).
 * The MPI library's collective is decided in one place: the model's
 * ranking (kcal_model_rank puts its measured row first where it applies),
 * read once per communicator and collective for the pure choice's fast
 * path. */
#ifndef KCOLL_CHOICE_H
#define KCOLL_CHOICE_H

#include <stddef.h>
#include <stdint.h>

#include "algos/kcoll_impl.h"

typedef enum {
    KCOLL_PLAN_ALG = 0,  /* alg with k (or the local copy at p = 1) */
    KCOLL_PLAN_MPI,      /* the MPI library's own collective */
    KCOLL_PLAN_TWO_LEVEL /* two_level.c: alg, or NULL (each node chooses) */
} kcoll_plan_kind;

/* Why a call runs what it runs: the KCOLL_STATS rows say it. */
typedef enum {
    KCOLL_WHY_USER = 0,  /* the user named it */
    KCOLL_WHY_MODEL,     /* the model's first choice (KCOLL_VERIFY=0) */
    KCOLL_WHY_TABLE,     /* a $KCOLL_TABLE rule (KCOLL_VERIFY=0) */
    KCOLL_WHY_HANDOFF,   /* below the probed crossover (KCOLL_VERIFY=0) */
    KCOLL_WHY_VERIFIED,  /* the candidate measured fastest */
    KCOLL_WHY_EXPLORING, /* a candidate's turn while they are measured */
    KCOLL_WHY_NO_CMA,    /* CMA is forbidden here */
    KCOLL_WHY_NO_MODEL,  /* the params or the table cannot be used */
    KCOLL_WHY_NO_STATE   /* the communicator's state could not be built
                          * (comm.c): the MPI library on it, for good */
} kcoll_why;

typedef struct kcoll_verify_slot kcoll_verify_slot;

typedef struct {
    kcoll_plan_kind kind;
    const kcal_algorithm *alg; /* KCOLL_PLAN_ALG; TWO_LEVEL: NULL or the
                                * user's */
    int k;
    kcoll_why why;
    /* Verification's feedback (verify.h): the slot this call belongs to,
     * whether to time it, and what to do after it. NULL: nothing. */
    kcoll_verify_slot *slot;
    int timed;
    /* An exploring call that is timed: the ranks start it together
     * (a barrier on the communicator) and the call counts as its span,
     * as kcal bench times its rows. */
    int sync;
} kcoll_plan;

/* One candidate of the verified choice (verify.h): alg is a registry
 * algorithm or kcal_model_mpi(coll). */
typedef struct {
    const kcal_algorithm *alg;
    int k;
    double predicted; /* seconds; 0 where the model has no row (mpi) */
} kcoll_candidate;

/* The candidates of a NULL call of coll with n bytes on c (a reduction's
 * op at rate `rate`, kcoll_red_rate: priced at it), in the order
 * the model ranks them (a $KCOLL_TABLE rule first; the MPI library's
 * collective where the model ranks it, else last), distinct algorithms
 * with their best k, those predicted within `spread` times the best and,
 * whatever their predicted time, the next ones until own_min of
 * libkcoll's algorithms are listed, at most max (the MPI library's
 * always among them). Returns the count (>= 1: the MPI library's alone
 * when the params or the table cannot be used). */
int kcoll_choice_candidates(kcoll_comm *c, kcal_coll coll, int rate,
                            uint64_t n, int in_place, double spread,
                            int own_min, kcoll_candidate *out, int max);

/* Whether libkcoll's row alg of coll, predicted at t seconds, is the twin
 * of one of the n listed (choice.c says when): the candidates skip it. */
int kcoll_choice_twin(kcal_coll coll, const kcoll_candidate *cand, int n,
                      const kcal_algorithm *alg, double t);

/* The params the choice prices with ($KCAL_PARAMS, else the embedded
 * default), read once; NULL where they do not read. */
const kcal_params *kcoll_choice_params(void);

/* The params prm as a reduction whose op's rate is `rate` sees them
 * (kcoll_red_rate; -1: prm itself; kcal_params_reduce_view). */
void kcoll_choice_rate_view(const kcal_params *prm, int rate,
                            kcal_params *view);

/* The candidates of a verified v-collective v (verify.h's domains) whose
 * call's largest block is n: a $KCOLL_TABLE rule's row first, then every
 * row of v (as the regular rows that stand for them) in the model's order
 * at blocks of n, at most max − 1, and the MPI library's v-collective
 * last. The communicator's static decision for v (kcoll_choice_irregular)
 * is known. */
int kcoll_choice_vcandidates(kcoll_comm *c, int v, uint64_t n, int in_place,
                             kcoll_candidate *out, int max);

/* The plan of a call of coll with n bytes (in_place as the choice may use
 * it: allgather and alltoall only; a reduction's op's rate, kcoll_red_rate,
 * -1 for the others) and the user's algorithm (NULL: the choice's). MPI_SUCCESS, MPI_ERR_ARG (an unknown id, a k out of range, a
 * throttled id without k at p < 3) or MPI_ERR_OTHER (CMA forbidden under
 * KCOLL_STRICT=1). */
int kcoll_choose(kcoll_comm *c, kcal_coll coll, int rate,
                 const char *algorithm, size_t n, int in_place,
                 kcoll_plan *plan);

/* Whether kcoll_choose ends a NULL call of n bytes on c in the verified
 * choice (kcoll_verify_plan): one node, CMA working, p >= 2, n > 0,
 * verification on. kcoll.c's quick path asks the same. */
int kcoll_choice_verified(const kcoll_comm *c, size_t n);

/* After the call ran, with its start and end on kcoll_verify_clock when
 * plan->timed and its result here: the verification's bookkeeping, which
 * may end with one small reduction over c (at the same call on every
 * rank, so it must be called whatever the call returned). MPI_SUCCESS or
 * the reduction's error. */
int kcoll_choice_observe(kcoll_comm *c, const kcoll_plan *plan, double t0,
                         double t1, int call_rc);

/* Around one call of plan in verify.h's domain dom (a collective, or a
 * v-collective's KCOLL_VERIFY_VDOM): start makes the barrier the plan
 * asks for and reads the start time where it is timed or the test hook
 * slows it (MPI_SUCCESS or the barrier's error, and then no call);
 * finish applies the hook (n the call's size class key) and observes the
 * call, whose result is rc: the call's result, or the observation's
 * error where the call succeeded. */
int kcoll_choice_start(kcoll_comm *c, int dom, const kcoll_plan *plan,
                       double *t0);
int kcoll_choice_finish(kcoll_comm *c, int dom, const kcoll_plan *plan,
                        size_t n, double t0, int rc);

/* The window of a windowed v-row (scatterv throttled_read, gatherv
 * throttled_write) named without one, at its root, the only process the
 * window concerns: the model's best k for the regular collective's
 * throttled row at the mean block n (cached as that row's choice is);
 * 1 at p = 2, and p − 1 (no throttle) where the model cannot choose. */
int kcoll_choice_vwindow(kcoll_comm *c, kcal_coll regular, uint64_t n);

/* What algorithm NULL runs for a v-collective on c (irregular.c). */
typedef struct {
    int use_mpi; /* the MPI library's v-collective, every call */
    /* A pair whose block is shorter goes as one MPI message; allgatherv:
     * a call whose largest block is shorter is the MPI library's, unless
     * the staged row takes it. */
    uint64_t below;
    int row, window; /* a table rule's row (-1: the first) and window */
} kcoll_vdecision;

/* The irregular collectives' choice (irregular.c) for v-collective v
 * (irregular.def's index and name), from what every process of the call
 * knows alike: d->use_mpi = 1 runs the MPI library's v-collective (no
 * state, CMA forbidden on a one-node communicator; or, for a user's
 * NULL, params that do not read and no table rule, or a table that does
 * not read); else the algorithm runs. For NULL (user_named 0) the rest
 * of *d, and c->vstaged_from[v] .. c->vstaged_to[v] (both 0: none): the
 * largest blocks of a call that runs v's staged row (irregular.def's
 * KCOLL_VSTAGED) on one node. A $KCOLL_TABLE rule of v at this p gives below, row and window
 * and the staged range (kcal_table_vchoice); else below is the larger of
 * the regular collective's measured crossover (mpi_<coll>_below) and the
 * model's for one pair (kcal_model_vcrossover), and where v has a staged
 * row the range runs from that measured crossover to the block where the
 * model prices the first row faster (kcal_model_vstaged), at most
 * KCAL_V_STAGED_MAX (model/irregular.h). Decided on the first NULL call of v on c by rank 0
 * and broadcast (so collective on that call): ranks whose params or
 * table differ still run the same protocol, as the regular collectives'
 * candidates are (verify.h). MPI_ERR_OTHER where CMA is forbidden under
 * KCOLL_STRICT=1. */
int kcoll_choice_irregular(kcoll_comm *c, int v, const char *vname,
                           int user_named, kcoll_vdecision *d);

/* A name for what a plan runs, for KCOLL_STATS: the id (k apart), "mpi". */
const char *kcoll_plan_name(const kcoll_plan *plan);

/* Calls the pure choice handed to the MPI library below the measured
 * crossover (kcoll.c counted these before): for the tests. */
extern atomic_ulong kcoll_handoffs;

#endif
