/* vhelp_check: the root's help policy (algos/vhelp.h) fed made-up times,
 * no MPI run: the class explores rule, none and all in turn (one untimed
 * and KCOLL_VHELP_SAMPLES timed calls each), keeps the least median
 * (a tie: the rule; an outlier in one call does not decide), holds it
 * KCOLL_VHELP_AGAIN calls, explores again, doubles the wait when the
 * policy is kept and starts over when it changes; classes (the largest
 * pair, the own block) and v-collectives keep apart. Prints
 * "vhelp_check: N checks, F failed". */
#include <stdio.h>
#include <stdlib.h>

#include "algos/kcoll_impl.h"
#include "algos/vhelp.h"

static int checks, failed;

#define CHECK(cond)                                                          \
    do {                                                                     \
        checks++;                                                            \
        if (!(cond)) {                                                       \
            failed++;                                                        \
            fprintf(stderr, "vhelp_check: FAIL line %d: %s\n", __LINE__,     \
                    #cond);                                                  \
        }                                                                    \
    } while (0)

/* One call of the class: the policy it runs, timed at cost[policy]. */
static kcoll_vhelp_policy call(kcoll_comm *c, int v, uint64_t most,
                               uint64_t own, const double *cost)
{
    void *slot;
    kcoll_vhelp_policy p = kcoll_vhelp_choose(c, v, most, own, &slot);
    if (slot)
        kcoll_vhelp_observe(slot, cost[p]);
    return p;
}

/* An exploration: the three policies in turn, 1 + samples calls each. */
static void explore(kcoll_comm *c, int v, uint64_t most, uint64_t own,
                    const double *cost)
{
    for (int p = 0; p < KCOLL_VHELP_POLICIES; p++)
        for (int i = 0; i <= KCOLL_VHELP_SAMPLES; i++)
            CHECK(call(c, v, most, own, cost) == (kcoll_vhelp_policy)p);
}

int main(void)
{
    kcoll_comm *c = calloc(1, sizeof *c);
    const double all_fast[] = {2e-6, 3e-6, 1e-6};
    const double none_fast[] = {2e-6, 1e-6, 3e-6};
    const double tie[] = {1e-6, 1e-6, 1e-6};
    /* first exploration, then the decision held until the re-exploration */
    explore(c, 0, 1 << 20, 1 << 20, all_fast);
    for (int i = 1; i < KCOLL_VHELP_AGAIN; i++)
        CHECK(call(c, 0, 1 << 20, 1 << 20, none_fast) == KCOLL_VHELP_ALL);
    /* the 256th call explores again; "all" kept: the wait doubles */
    explore(c, 0, 1 << 20, 1 << 20, all_fast);
    for (int i = 1; i < 2 * KCOLL_VHELP_AGAIN; i++)
        CHECK(call(c, 0, 1 << 20, 1 << 20, all_fast) == KCOLL_VHELP_ALL);
    /* the host changed: "none" wins, and the wait starts over */
    explore(c, 0, 1 << 20, 1 << 20, none_fast);
    for (int i = 1; i < KCOLL_VHELP_AGAIN; i++)
        CHECK(call(c, 0, 1 << 20, 1 << 20, all_fast) == KCOLL_VHELP_NONE);
    CHECK(call(c, 0, 1 << 20, 1 << 20, tie) == KCOLL_VHELP_RULE);
    /* another class (a smaller own block), another v-collective: their
     * own explorations, unaffected by the first */
    explore(c, 0, 1 << 20, 4096, tie);
    CHECK(call(c, 0, 1 << 20, 4096, all_fast) == KCOLL_VHELP_RULE);
    explore(c, 1, 1 << 20, 1 << 20, none_fast);
    CHECK(call(c, 1, 1 << 20, 1 << 20, all_fast) == KCOLL_VHELP_NONE);
    /* one slow call of the best does not decide (the median) */
    kcoll_comm *d = calloc(1, sizeof *d);
    for (int p = 0; p < KCOLL_VHELP_POLICIES; p++)
        for (int i = 0; i <= KCOLL_VHELP_SAMPLES; i++) {
            void *slot;
            CHECK(kcoll_vhelp_choose(d, 0, 65536, 0, &slot) ==
                  (kcoll_vhelp_policy)p);
            double t = p == KCOLL_VHELP_ALL ? (i == 2 ? 1e-3 : 1e-6) : 2e-6;
            kcoll_vhelp_observe(slot, t);
        }
    CHECK(call(d, 0, 65536, 0, tie) == KCOLL_VHELP_ALL);
    /* the split_from each policy sets (irregular.h's kcoll_vargs) */
    CHECK(kcoll_vhelp_split_from(KCOLL_VHELP_ALL) == 0);
    CHECK(kcoll_vhelp_split_from(KCOLL_VHELP_NONE) == UINT64_MAX);
    CHECK(kcoll_vhelp_split_from(KCOLL_VHELP_RULE) > 0 &&
          kcoll_vhelp_split_from(KCOLL_VHELP_RULE) < UINT64_MAX);
    kcoll_vhelp_free(c);
    kcoll_vhelp_free(d);
    free(c);
    free(d);
    printf("vhelp_check: %d checks, %d failed\n", checks, failed);
    return failed != 0;
}
