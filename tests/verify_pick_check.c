/* verify_pick_check: the verified choice's pick (algos/verify_pick.h) fed
 * made-up spans, no MPI run: a candidate bimodal as copy_in_out was on
 * the Zen 4 guest (gatherv 8 KiB: quartile 2.78 µs, median 4.33, Open
 * MPI's 3.5) is not chosen for its quartile, and is where it made fewer
 * than KCOLL_VERIFY_CUT_MIN calls or the ranks are oversubscribed; a
 * steady candidate with the usual spread is chosen on its quartile;
 * within KCOLL_VERIFY_TIE the model's order decides unless the MPI
 * library's collective is faster than it; a pick whose median trails the
 * MPI library's by more than KCOLL_VERIFY_MPI_MEDIAN gives way to the
 * least median; a paced excess counts; a candidate that
 * failed somewhere is never chosen, and with every one failed the MPI
 * library's collective is. */
#include <stdarg.h>

#include "algos/verify_pick.h"
#include "tests/check.h"

/* Candidate i's n spans, in µs (stored in seconds, as verify.c's). */
static void spans(kcoll_verify_pick *pk, int i, unsigned n, ...)
{
    va_list ap;
    va_start(ap, n);
    for (unsigned j = 0; j < n; j++)
        pk->span[i][j] = 1e-6 * va_arg(ap, double);
    va_end(ap);
    pk->ran[i] = n;
    if (i >= pk->n)
        pk->n = i + 1;
}

/* Candidate i's 8 spans, all t µs. */
static void steady(kcoll_verify_pick *pk, int i, double t)
{
    spans(pk, i, 8, t, t, t, t, t, t, t, t);
}

/* copy_in_out (0, the model's first) fast in a quarter of its calls and
 * slow in the rest, Open MPI's collective (1) steady at 3.5: the spans
 * of the launches that ran auto at 0.82-0.92x Open MPI. */
static void bimodal(kcoll_verify_pick *pk, unsigned e)
{
    *pk = (kcoll_verify_pick){.mpi = 1};
    if (e == 8)
        spans(pk, 0, 8, 2.70, 2.78, 4.30, 4.33, 4.33, 4.40, 4.50, 2.75);
    else
        spans(pk, 0, 4, 2.78, 4.33, 4.33, 4.40);
    spans(pk, 1, e, 3.45, 3.50, 3.52, 3.48, 3.55, 3.60, 3.47, 3.51);
}

int main(void)
{
    kcoll_verify_pick pk;

    /* The bimodal one loses to the MPI library's collective, whose
     * median it is within KCOLL_VERIFY_STEADY of (what chose it before). */
    bimodal(&pk, 8);
    CHECK(kcoll_verify_median(pk.span[0], 8) <=
          KCOLL_VERIFY_STEADY * kcoll_verify_median(pk.span[1], 8));
    CHECK(kcoll_verify_pick_best(&pk) == 1);
    CHECK_NEAR(pk.raw[0],
               kcoll_verify_median(pk.span[0], 8) / KCOLL_VERIFY_BIMODAL,
               1e-12);
    CHECK_NEAR(pk.raw[1], 3.47e-6, 1e-9); /* the second of 8 */

    /* ... and to a libkcoll row steady at 3.4 placed after it. */
    bimodal(&pk, 8);
    pk.mpi = 2;
    spans(&pk, 2, 8, 3.45, 3.50, 3.52, 3.48, 3.55, 3.60, 3.47, 3.51);
    spans(&pk, 1, 8, 3.38, 3.40, 3.41, 3.39, 3.45, 3.50, 3.40, 3.42);
    CHECK(kcoll_verify_pick_best(&pk) == 1);

    /* Four spans (calls predicted over 200 µs) or oversubscribed: the
     * quartile alone, two slow spans of four being a rank descheduled
     * as often as a passing state. */
    bimodal(&pk, 4);
    CHECK(kcoll_verify_pick_best(&pk) == 0);
    CHECK_NEAR(pk.raw[0], 2.78e-6, 1e-9);
    bimodal(&pk, 8);
    pk.oversubscribed = 1;
    CHECK(kcoll_verify_pick_best(&pk) == 0);

    /* A steady candidate whose median is within KCOLL_VERIFY_BIMODAL of
     * its quartile (copy_in_out in a fast launch: 1.33 against 1.58 µs
     * and 0.87 in the exploration) is timed at its quartile and wins. */
    pk = (kcoll_verify_pick){.mpi = 1};
    spans(&pk, 0, 8, 1.00, 1.05, 1.10, 1.12, 1.13, 1.14, 1.15, 1.16);
    spans(&pk, 1, 8, 2.80, 2.82, 2.85, 2.86, 2.87, 2.90, 2.91, 2.95);
    CHECK(kcoll_verify_pick_best(&pk) == 0);
    CHECK_NEAR(pk.raw[0], 1.05e-6, 1e-9);

    /* Within KCOLL_VERIFY_TIE of the least, the model's first ... */
    pk = (kcoll_verify_pick){.mpi = 2};
    steady(&pk, 0, 1.03);
    steady(&pk, 1, 1.00);
    steady(&pk, 2, 2.00);
    CHECK(kcoll_verify_pick_best(&pk) == 0);
    /* ... unless the MPI library's collective is faster than it: then
     * the least. */
    steady(&pk, 2, 1.02);
    CHECK(kcoll_verify_pick_best(&pk) == 1);

    /* A candidate uniformly slower than the MPI library's collective by
     * its median (copy_in_out on the Zen 4 guest, gather 8 KiB, slow
     * passing: quartile 3.75, median 4.48 against 3.9 and 4.0), ahead
     * only by its time (median / 1.15 = 3.89): the MPI library's. */
    pk = (kcoll_verify_pick){.mpi = 1};
    spans(&pk, 0, 8, 3.70, 3.75, 4.40, 4.45, 4.50, 4.50, 4.55, 4.60);
    spans(&pk, 1, 8, 3.80, 3.90, 3.95, 4.00, 4.00, 4.05, 4.10, 4.20);
    CHECK(pk.n == 2);
    CHECK(kcoll_verify_pick_best(&pk) == 1);
    CHECK(pk.agreed[0] < pk.agreed[1]); /* the time alone: the other */
    CHECK(pk.trails[0] && !pk.trails[1]); /* no duel's runner-up */
    /* ... or a third candidate, behind the first by its time (3.93)
     * but ahead of the MPI library's by its median (3.95). */
    spans(&pk, 2, 8, 3.92, 3.93, 3.94, 3.95, 3.95, 3.96, 3.97, 3.98);
    CHECK(kcoll_verify_pick_best(&pk) == 2);
    CHECK(pk.agreed[0] < pk.agreed[2]);
    /* Within KCOLL_VERIFY_MPI_MEDIAN of it (median 4.18): kept. */
    pk = (kcoll_verify_pick){.mpi = 1};
    spans(&pk, 0, 8, 3.60, 3.65, 4.10, 4.15, 4.20, 4.20, 4.25, 4.30);
    spans(&pk, 1, 8, 3.80, 3.90, 3.95, 4.00, 4.00, 4.05, 4.10, 4.20);
    CHECK(kcoll_verify_pick_best(&pk) == 0);
    CHECK(!pk.trails[0] && !pk.trails[1]);
    /* With four spans each (calls over 200 us), no median counts. */
    pk = (kcoll_verify_pick){.mpi = 1};
    spans(&pk, 0, 4, 3.70, 4.45, 4.50, 4.60);
    spans(&pk, 1, 4, 3.90, 4.00, 4.05, 4.20);
    CHECK(kcoll_verify_pick_best(&pk) == 0);

    /* A paced excess (what its calls in a loop cost beyond its spans)
     * counts; an unpaced candidate is charged the least paced excess. */
    pk = (kcoll_verify_pick){.mpi = 2};
    steady(&pk, 0, 1.0);
    steady(&pk, 1, 1.5);
    steady(&pk, 2, 1.8);
    pk.paced[0] = pk.paced[1] = 1;
    pk.excess[0] = 2e-6, pk.excess[1] = 0.5e-6;
    CHECK(kcoll_verify_pick_best(&pk) == 1);
    CHECK_NEAR(pk.agreed[2], 2.3e-6, 1e-9);

    /* Failed somewhere: never chosen; all failed: the MPI library's. */
    pk = (kcoll_verify_pick){.mpi = 2};
    steady(&pk, 0, 1.0);
    steady(&pk, 1, 2.0);
    steady(&pk, 2, 3.0);
    pk.failed[0] = 1;
    CHECK(kcoll_verify_pick_best(&pk) == 1);
    CHECK(isinf(pk.raw[0]));
    pk.failed[1] = pk.failed[2] = 1;
    CHECK(kcoll_verify_pick_best(&pk) == 2);

    return check_report();
}
