/* verify_pick: which candidate an exploration's spans choose (not
 * installed). Pure: no MPI call, no clock, so tests/verify_pick_check.c
 * feeds it made-up spans; verify.c fills it from the one MAX reduction
 * that gives every rank the same spans, so every rank picks alike.
 *
 * A candidate's time is its spans' lower quartile, or, where its spans'
 * median is above KCOLL_VERIFY_BIMODAL times that quartile and it made
 * at least KCOLL_VERIFY_CUT_MIN timed calls (not oversubscribed), the
 * median over KCOLL_VERIFY_BIMODAL: a candidate fast in a quarter of its
 * calls and slow in the others caught the host in a passing state, and
 * a program letting libkcoll choose runs it at its median. On the Zen 4
 * guest (gatherv and alltoallv, 8 KiB, p = 2) copy_in_out's spans had a
 * lower quartile of 2.78 µs and a median of 4.33 against Open MPI's
 * 3.5: within KCOLL_VERIFY_STEADY of the least median, chosen on its
 * quartile, it ran 0.82-0.92x Open MPI for the rest of the launch
 * (docs/libkcoll.md). Plus the candidate's excess where the class has
 * run it decided (verify.c: its pace less this time). Then the least
 * among those whose median is within KCOLL_VERIFY_STEADY of the least
 * median, and within KCOLL_VERIFY_TIE of it the first in the model's
 * order that is not slower than the MPI library's collective. Last, where
 * that one's median and the MPI library's collective's both count (at
 * least KCOLL_VERIFY_CUT_MIN spans, not oversubscribed) and the pick's is
 * above KCOLL_VERIFY_MPI_MEDIAN times the MPI library's, the candidate
 * with the least median instead: kcal bench, and a program, see medians,
 * and letting libkcoll choose is never to be slower than the MPI
 * library. */
#ifndef KCOLL_VERIFY_PICK_H
#define KCOLL_VERIFY_PICK_H

#include "algos/verify.h"

typedef struct {
    /* In. */
    int n;   /* candidates, in the model's order */
    int mpi; /* the MPI library's collective's index (-1: none) */
    int oversubscribed;
    unsigned ran[KCOLL_VERIFY_MAX]; /* spans each has: E, fewer if cut */
    double span[KCOLL_VERIFY_MAX][KCOLL_VERIFY_SAMPLES];
    int failed[KCOLL_VERIFY_MAX]; /* a call of it failed on some rank */
    int paced[KCOLL_VERIFY_MAX];  /* excess[i] is known */
    double excess[KCOLL_VERIFY_MAX];
    /* Out. raw: the time from the spans alone (INFINITY: failed);
     * agreed: raw plus the excess, what decides; trails: 1 where a
     * candidate's median and the chosen one's both count and its is
     * above KCOLL_VERIFY_MPI_MEDIAN times the chosen one's (no near tie,
     * whatever its time: verify.c's duel passes it over). */
    double raw[KCOLL_VERIFY_MAX], agreed[KCOLL_VERIFY_MAX];
    int trails[KCOLL_VERIFY_MAX];
} kcoll_verify_pick;

/* The chosen index: always one of pk->n (the MPI library's where every
 * candidate failed somewhere and it is among them). */
int kcoll_verify_pick_best(kcoll_verify_pick *pk);

#endif
