/* verify: libkcoll's own choice checked at run time (not installed).
 *
 * A prediction priced on the machine as the probe found it can be wrong
 * minutes later: on a KVM guest whose host moves the vCPUs, passing a
 * 16 KiB chunk between the two cores cost 1.8 µs or 9.7 µs from one minute
 * to the next, and copy_in_out, which lives on such passes, ran 4-5× its
 * prediction in two launches of three (docs/machine.md). So for calls that
 * leave the algorithm to libkcoll, the model (or a $KCOLL_TABLE rule)
 * only proposes; the machine as it is now decides:
 *
 *   candidates  per (communicator, collective, size class, in place): the
 *               model's best few distinct algorithms (best k each) whose
 *               predicted time is within KCOLL_VERIFY_SPREAD of the best
 *               (a table's rule first), none the twin of one listed (a
 *               prediction within KCOLL_VERIFY_TWIN of its: rows the
 *               model prices alike move alike; choice.c), and at least KCOLL_VERIFY_OWN of
 *               libkcoll's whatever their prediction (the model's first
 *               can run several times its prediction, and then libkcoll's
 *               next is the fallback that is fastest: scatter at 64 KiB
 *               with copy_in_out slowed 4x ran 0.60-0.70x the best row
 *               while parallel_read_split, predicted at 4.03x copy_in_out,
 *               was left out), at most KCOLL_VERIFY_MAX − 1, and the MPI
 *               library's own collective, always. Rank 0 proposes and
 *               broadcasts them, so every rank runs the same list whatever
 *               its environment says.
 *   explore     the class's first calls run each candidate in turn: one
 *               untimed call (first-touch, windows, caches), then E timed
 *               ones (E from the predicted time: more for short calls,
 *               whose times are noisier), each started together (a
 *               barrier) and timed on the node's one clock; where E >= 6
 *               a candidate whose first two spans (one MAX reduction)
 *               both exceed KCOLL_VERIFY_CUT times the least span of the
 *               candidates before it is cut there. After the
 *               last, one MAX reduction of the ranks' starts and ends
 *               gives every rank the same spans, first start to last end,
 *               as kcal bench times its rows; every rank keeps the
 *               candidate verify_pick.h picks from those spans (the
 *               least time, plus its excess, below, among medians
 *               within KCOLL_VERIFY_STEADY of the least; within
 *               KCOLL_VERIFY_TIE the model's order). Not each rank's
 *               own duration: where the root
 *               does not wait (bcast's and scatter's copy_in_out) it
 *               leaves first, and its part of the call is in no rank's
 *               own time; and a rank's own time in a run of calls holds
 *               its wait for the others' previous call.
 *   decided     a call costs what it cost before, plus a counter; every
 *               S-th call is timed into a ring of local times (S so the
 *               clock stays well under 1 % of the call).
 *   re-check    one MAX reduction of the ranks' median of that ring:
 *               the first when the ring is full, its timed calls started
 *               together (a barrier) as the exploration's were, which
 *               validates the decision (KCOLL_VERIFY_DRIFT times the
 *               deciding time explores again, and so does the class's
 *               first decision where another candidate came within
 *               KCOLL_VERIFY_CONFIRM of it: its first calls are its
 *               coldest); then every C calls (C
 *               from the decided time: a check per millisecond or so of
 *               collective time, so its reduction stays near 0.2 %),
 *               the first of which sets the steady state, and later
 *               ones above KCOLL_VERIFY_DRIFT times that steady state
 *               in KCOLL_VERIFY_DRIFT_CHECKS checks in a row explore
 *               again (one alone, at 1-8 MiB, was a burst of the host's:
 *               its exploration's slower candidates then cost more than
 *               the burst did).
 *   pace        each check's reduction also carries the wall time per
 *               call since the last check (the program's own time
 *               between calls included): what a candidate's pace
 *               exceeds its quartile by is added to its quartile in the
 *               class's later explorations (a timed call is a perturbed
 *               one, and some candidates run far slower back to back
 *               than barrier-started).
 *   trial       a periodic exploration's switch away from a decision
 *               whose pace is known, and once per class a duel of the
 *               first decision with its runner-up within
 *               KCOLL_VERIFY_DUEL: the new decision runs until its pace
 *               is known, and the faster pace stays; a lost trial takes
 *               the old decision back without exploring.
 *   re-explore  also after a bounded share of the class's time, so a
 *               candidate that became faster is found: when the calls
 *               since the last exploration have cost
 *               1/KCOLL_VERIFY_BUDGET of what one exploration costs
 *               (doubling after each one that kept the decision).
 * Every step happens at the same call on every rank (counts of the same
 * collective calls), so ranks never wait for a reduction another skips.
 * The numbers and how they were chosen: docs/libkcoll.md. */
#ifndef KCOLL_VERIFY_H
#define KCOLL_VERIFY_H

#include <stdint.h>

#include "algos/choice.h"

#define KCOLL_VERIFY_MAX 5        /* candidates: libkcoll's few + MPI's */
#define KCOLL_VERIFY_SAMPLES 8    /* E at most */
#define KCOLL_VERIFY_CUT 2.0      /* a candidate whose first spans all */
#define KCOLL_VERIFY_CUT_AFTER 2  /* ... 2 of them, exceed 2x the least */
#define KCOLL_VERIFY_CUT_MIN 6    /* ... before it is cut, where E >= 6 */
#define KCOLL_VERIFY_SPREAD 4.0   /* candidates predicted within 4× */
#define KCOLL_VERIFY_OWN 2        /* ... and at least 2 of libkcoll's */
#define KCOLL_VERIFY_TWIN 0.005   /* predicted within 0.5 %: one listed */
#define KCOLL_VERIFY_DRIFT 1.3    /* re-explore when 1.3× slower */
#define KCOLL_VERIFY_DRIFT_CHECKS 2 /* ... in that many checks in a row */
#define KCOLL_VERIFY_STEADY 1.3   /* a median 1.3× the least's: never */
#define KCOLL_VERIFY_BIMODAL 1.15 /* a median 1.15× its quartile: timed
                                   * at median / 1.15 (verify_pick.h) */
#define KCOLL_VERIFY_CONFIRM 1.5  /* a first decision this close: twice */
#define KCOLL_VERIFY_TIE 1.05     /* this close: the model's order decides */
#define KCOLL_VERIFY_MPI_MEDIAN 1.05 /* a pick whose median is 1.05x the MPI
                                      * library's: the least median instead
                                      * (verify_pick.h) */
#define KCOLL_VERIFY_DUEL 1.1     /* a first decision's runner-up this
                                   * close: both run as the program runs */
#define KCOLL_VERIFY_TRIAL 1.0    /* a trial's candidate paced above the
                                   * decision before it: taken back */
#define KCOLL_VERIFY_BUDGET 100   /* re-exploring costs <= 1 % */
#define KCOLL_VERIFY_RING 8       /* timed calls the drift check uses */
#define KCOLL_VERIFY_CLASSES 128  /* two size classes per octave */

/* The domains a communicator verifies choices in: each collective of
 * kcal_coll, and after them each v-collective (algos/irregular.def's
 * order), in the size class of the call's key, the same on every rank
 * (irregular.c: allgatherv's largest block; the others' agreed largest
 * pair, vkey.h). A v-collective's candidates are the regular rows that
 * stand for its rows in the model (irregular.h) and the MPI library's
 * v-collective. Then each reduction once more per op with a rate of its
 * own (kcoll_impl.h's KCOLL_RATE_DOMS; kcoll_verify_dom): its candidates
 * are priced at that rate, and its decisions are its own. */
#define KCOLL_VERIFY_VDOM(v) (KCAL_COLL_COUNT + (int)(v))
#define KCOLL_VERIFY_DOMS KCOLL_DOMAINS

/* The domain of a call of coll whose op's rate is `rate` (kcoll_red_rate:
 * -1 for reduce_beta's, every data collective's): coll itself, or a
 * reduction's own domain for that rate. */
int kcoll_verify_dom(kcal_coll coll, int rate);

/* The size class of n: two per octave, [2^i, 1.5·2^i) and
 * [1.5·2^i, 2^(i+1)); class 0 holds n = 0 and 1. */
int kcoll_verify_size_class(uint64_t n);

/* The plan of a NULL call on c (one node, p >= 2, CMA allowed) through the
 * verification of (coll, n's class, in_place). On the class's first call
 * this is collective over c (rank 0's candidates are broadcast).
 * MPI_SUCCESS or an MPI error. */
int kcoll_verify_plan(kcoll_comm *c, kcal_coll coll, int rate, uint64_t n,
                      int in_place, kcoll_plan *plan);
/* The same for domain dom (KCOLL_VERIFY_VDOM(v): n a v-collective's size
 * class's key, alike on every rank, its largest block). */
int kcoll_verify_plan_dom(kcoll_comm *c, int dom, uint64_t n, int in_place,
                          kcoll_plan *plan);

/* The head of every slot: what a quiet call reads and writes. A decided
 * call is quiet when it is neither timed nor due for a check or an
 * exploration (kcoll_verify_plan_slot): it runs the decision and nothing
 * else, so it costs what the decision costs plus a compare. quiet_until
 * is the first call count that is not quiet (0 while exploring; never
 * reached where one candidate is all there is). */
typedef struct {
    uint64_t calls;       /* decided calls since the last exploration */
    uint64_t quiet_until;
    const kcal_algorithm *alg; /* the decision */
    int k, is_mpi;
#ifdef KCOLL_TEST_HOOKS
    /* Whether the test hook slows this decision's quiet calls, for the
     * rules of generation slow_gen (0: not yet asked):
     * kcoll_test_quiet_slowed. */
    unsigned slow_gen;
    int slowed;
#endif
} kcoll_verify_hot;

/* The decision of s for a quiet call, counted, or NULL where the call is
 * not quiet (then kcoll_verify_plan_slot plans it). Never collective. */
static inline kcoll_verify_hot *kcoll_verify_quiet(kcoll_verify_slot *s)
{
    kcoll_verify_hot *h = (kcoll_verify_hot *)(void *)s;
    if (h->calls + 1 >= h->quiet_until)
        return NULL;
    h->calls++;
    return h;
}

/* The plan of a quiet call of decision h (sync 0, no slot: nothing to
 * observe), for the test hook and a caller that times it. */
static inline kcoll_plan kcoll_verify_hot_plan(const kcoll_verify_hot *h)
{
    return (kcoll_plan){.kind = h->is_mpi ? KCOLL_PLAN_MPI : KCOLL_PLAN_ALG,
                        .alg = h->alg, .k = h->k, .why = KCOLL_WHY_VERIFIED};
}

/* What a call of s's decision costs, the same on every rank (the
 * slowest rank's median when it was decided), or 0 where none is known
 * (no slot, exploring, one candidate): vkey.c spaces its agreements by
 * it. */
double kcoll_verify_call_time(const kcoll_verify_slot *s);

/* The same in two halves, for a caller that keeps the slot of a call it
 * repeats (kcoll.c): the slot of (coll, rate, n's class, in_place) on c, NULL
 * before kcoll_verify_plan made it; and the plan from a slot (never
 * collective). A slot lives as long as c's state. */
kcoll_verify_slot *kcoll_verify_slot_of(kcoll_comm *c, kcal_coll coll,
                                        int rate, uint64_t n, int in_place);
kcoll_verify_slot *kcoll_verify_slot_dom(kcoll_comm *c, int dom, uint64_t n,
                                         int in_place);
void kcoll_verify_plan_slot(kcoll_verify_slot *s, kcoll_plan *plan);

/* After the call of plan (see kcoll_choice_observe): its start and end
 * (when plan->timed) and its result here (a candidate that failed on any
 * rank is never chosen). */
int kcoll_verify_observe(kcoll_comm *c, const kcoll_plan *plan, double t0,
                         double t1, int call_rc);

/* The median of v[0..n), n <= max(KCOLL_VERIFY_SAMPLES, KCOLL_VERIFY_RING)
 * (0 for n = 0): what the ring's check and the exploration compare, and
 * vhelp.c's policies (verify_pick.c, beside the quartile). */
double kcoll_verify_median(const double *v, unsigned n);

/* The clock of the timed calls (CLOCK_MONOTONIC, seconds). */
double kcoll_verify_clock(void);

/* Free c's slots (with its state). */
void kcoll_verify_free(kcoll_comm *c);

/* What a class has decided, for the benchmark and the tests. exists: the
 * class has had a call; exploring: its candidates are being measured;
 * chosen: the index of the decision in cand (when not exploring);
 * agreed: the last exploration's times, seconds, the same on every rank
 * (0 before the first exploration ends); explorations: how many ended;
 * calls: calls since the last exploration ended. */
typedef struct {
    int exists, exploring, chosen, ncand;
    kcoll_candidate cand[KCOLL_VERIFY_MAX];
    double agreed[KCOLL_VERIFY_MAX];
    double raw[KCOLL_VERIFY_MAX]; /* agreed without the paced excess:
                                   * the spans' time (verify_pick.h) */
    unsigned explorations, switches, checks;
    uint64_t calls;
    int samples;                  /* E */
    int ran[KCOLL_VERIFY_MAX]; /* timed calls each made: E, fewer where cut */
    uint64_t check_every, explore_at; /* in calls since the decision */
    double baseline; /* the steady state the first check found (0: none) */
    double extra; /* the last exploration's cost beyond as many calls of
                   * the decision, seconds (the slowest rank's) */
    unsigned drifted; /* checks in a row that found a drift */
} kcoll_verify_state;

void kcoll_verify_describe(kcoll_comm *c, kcal_coll coll, uint64_t n,
                           int in_place, kcoll_verify_state *out);
void kcoll_verify_describe_dom(kcoll_comm *c, int dom, uint64_t n,
                               int in_place, kcoll_verify_state *out);

/* Test builds only (-DKCOLL_TEST_HOOKS): $KCOLL_TEST_SLOW makes one
 * algorithm slow, "coll:id:factor[:rank][:after][:when]" (several, comma
 * separated; coll a collective or a verifying v-collective, dom the
 * call's domain; rank -1 for every rank; when "any", "steady" for the
 * calls started as a program makes them, back to back, or "synced" for
 * the barrier-started ones): each such call of id (or "mpi") of coll, on
 * that world rank only
 * if given, from the after-th such call of this process on, spins for
 * factor − 1 times the fastest such call at that size class: the call's
 * slowest rank (one MAX reduction per call) for a rule of every rank,
 * this process's own for a rule of one rank (so a rule for every rank
 * must be on every rank). A factor written "Nus" is a floor instead: the
 * call spins until N µs from its start (candidates given one floor
 * measure alike: a close decision, whatever the machine's state). Without
 * the define it is nothing. */
#ifdef KCOLL_TEST_HOOKS
#define KCOLL_TEST_HOOKS_ON 1
/* Whether a rule slows this call (then it is timed from its start). */
int kcoll_test_slowed(int dom, const kcoll_plan *plan);
void kcoll_test_slow(MPI_Comm comm, int dom, const kcoll_plan *plan,
                     size_t n, double t0);
/* Replace the rules (the same syntax; "" for none), counts from 0. */
void kcoll_test_slow_rules(const char *rules);
/* The rules' generation: 1 for $KCOLL_TEST_SLOW's, one more at each
 * kcoll_test_slow_rules. */
extern unsigned kcoll_test_rules_gen;
/* Whether a rule slows the quiet calls of decision h of domain dom (plan
 * sync 0), asked once per decision and rules: a quiet call of a test
 * build then costs a load and a compare more than the library users
 * link, not a walk of the rules (66 instructions a call, callgrind, as
 * many as libkcoll's whole part of a quiet 1 KiB MPI_Scatter now; the
 * hooked runs of scripts/bench-auto measured auto at 1-2 KiB at a median
 * 0.944x the MPI library's call with the walk, 0.984x without it:
 * docs/machine.md, "The decided call"). */
static inline int kcoll_test_quiet_slowed(int dom, kcoll_verify_hot *h)
{
    if (h->slow_gen != kcoll_test_rules_gen) {
        kcoll_plan plan = kcoll_verify_hot_plan(h);
        h->slowed = kcoll_test_slowed(dom, &plan);
        h->slow_gen = kcoll_test_rules_gen;
    }
    return h->slowed;
}
/* The class's next call on c (decided) starts a periodic exploration, as
 * if its re-exploration interval had passed (the same call on every
 * rank). */
void kcoll_test_explore_soon(kcoll_comm *c, int dom, uint64_t n,
                             int in_place);
#else
#define KCOLL_TEST_HOOKS_ON 0
static inline int kcoll_test_quiet_slowed(int dom, kcoll_verify_hot *h)
{
    (void)dom, (void)h;
    return 0;
}
static inline int kcoll_test_slowed(int dom, const kcoll_plan *plan)
{
    (void)dom, (void)plan;
    return 0;
}
static inline void kcoll_test_slow(MPI_Comm comm, int dom,
                                   const kcoll_plan *plan, size_t n, double t0)
{
    (void)comm, (void)dom, (void)plan, (void)n, (void)t0;
}
#endif

#endif
