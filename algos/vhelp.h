/* vhelp: whether the root of a rooted v-collective (scatterv, gatherv)
 * helps its peers copy, measured at run time by the root alone (not
 * installed).
 *
 * Algorithm NULL runs the collective's split row (irregular.def), in
 * which the root, its own block done, may take chunks of a peer's block
 * from the other end (vrooted.c). Whether that pays depends on the
 * machine: at p = 2 with uniform counts it lost 15-35 % at 64K-1M on the
 * Zen 5 guest and won 1.2-1.5x there on the Zen 4 guest
 * (scripts/bench-irregular, docs/machine.md). The root alone decides it
 * for each pair and says so in the pair's address message, so the root
 * alone can measure it: no other process takes part, nothing is agreed,
 * no message is added. Per (v-collective, size class of the largest
 * pair it moves by CMA, size class of its own block) the root runs its
 * first calls with each of three policies in turn, one untimed call and
 * KCOLL_VHELP_SAMPLES timed ones each, and keeps the one whose median is
 * least (ties: the rule):
 *   rule  the fixed rule (irregular.h: KCOLL_V_HELP_MIN, and at least
 *         twice the root's own block);
 *   none  no pair helped (the plain parallel row's pairs);
 *   all   every pair it moves by CMA helped.
 * The root's own time is the call's: it returns after every peer's done
 * message. It explores again after KCOLL_VHELP_AGAIN calls of the class,
 * twice as long after each exploration that kept the policy, so a host
 * that changes is followed and a steady one pays less and less. */
#ifndef KCOLL_VHELP_H
#define KCOLL_VHELP_H

#include <stdint.h>

#include "algos/kcoll_impl.h"

#define KCOLL_VHELP_SAMPLES 4
#define KCOLL_VHELP_AGAIN 256 /* calls before the first re-exploration */

typedef enum { KCOLL_VHELP_RULE, KCOLL_VHELP_NONE, KCOLL_VHELP_ALL,
               KCOLL_VHELP_POLICIES } kcoll_vhelp_policy;

/* The policy's name for KCOLL_STATS ("rule", "none", "all"). */
const char *kcoll_vhelp_name(kcoll_vhelp_policy p);

/* The policy for the root's next call of v-collective v (0: scatterv,
 * 1: gatherv) whose largest CMA pair is `most` bytes and own block `own`;
 * *slot is what kcoll_vhelp_observe needs after the call (NULL: untimed
 * or nothing to learn). NULL state (out of memory): the rule. */
kcoll_vhelp_policy kcoll_vhelp_choose(kcoll_comm *c, int v, uint64_t most,
                                      uint64_t own, void **slot);

/* The root's time of the call that kcoll_vhelp_choose planned. */
void kcoll_vhelp_observe(void *slot, double seconds);

/* The split_from of a policy (irregular.h's kcoll_vargs). */
uint64_t kcoll_vhelp_split_from(kcoll_vhelp_policy p);

/* Free c's state (with the communicator's). */
void kcoll_vhelp_free(kcoll_comm *c);

#endif
