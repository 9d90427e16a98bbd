/* verify_pick: which candidate an exploration's spans choose
 * (verify_pick.h has the rule; docs/libkcoll.md the numbers). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algos/verify_pick.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double kcoll_verify_median(const double *v, unsigned n)
{
    double tmp[KCOLL_VERIFY_SAMPLES > KCOLL_VERIFY_RING ? KCOLL_VERIFY_SAMPLES
                                                        : KCOLL_VERIFY_RING];
    if (n == 0)
        return 0;
    memcpy(tmp, v, n * sizeof *v);
    qsort(tmp, n, sizeof *tmp, cmp_double);
    return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* The lower quartile of v[0..n) (n <= KCOLL_VERIFY_SAMPLES): the
 * smallest of 3 or 4, the second of 6 or 8. Not the median: on a loaded
 * machine a rank descheduled for a time slice adds milliseconds to any
 * call, and a span counts every rank's; with 4 samples two such calls
 * made the median (MPI_Alltoall of 1 MiB, p = 2: 0.41 ms unloaded, a
 * 28 ms median) worse than a candidate slowed 10x (verify_check
 * --mode opposite failed 1 run in 7 at load 9). Such noise only ever
 * adds. */
static double lower_quartile(const double *v, unsigned n)
{
    double tmp[KCOLL_VERIFY_SAMPLES];
    if (n == 0)
        return 0;
    memcpy(tmp, v, n * sizeof *v);
    qsort(tmp, n, sizeof *tmp, cmp_double);
    return tmp[(n - 1) / 4];
}

/* Candidate i's time from its spans alone (verify_pick.h). The median
 * counts only with KCOLL_VERIFY_CUT_MIN spans or more (calls predicted
 * under 200 µs, where the passing states are, and enough spans that two
 * descheduled ones do not make the median), and not oversubscribed,
 * where every call is a time slice and only the quartile is the
 * candidate's. */
static double spans_time(const kcoll_verify_pick *pk, int i)
{
    unsigned n = pk->ran[i];
    double q = lower_quartile(pk->span[i], n);
    if (n < KCOLL_VERIFY_CUT_MIN || pk->oversubscribed)
        return q;
    return fmax(q, kcoll_verify_median(pk->span[i], n) / KCOLL_VERIFY_BIMODAL);
}

/* What candidate i's time t stands for in a program's loop: t plus its
 * own excess where it has run decided, else plus the least of the
 * others' (one not yet run is not held back for that), t where none
 * has. */
static double weigh(const kcoll_verify_pick *pk, int i, double t)
{
    if (pk->paced[i])
        return t + pk->excess[i];
    double e = INFINITY;
    for (int j = 0; j < pk->n; j++)
        if (pk->paced[j])
            e = fmin(e, pk->excess[j]);
    return isfinite(e) ? t + e : t;
}

/* Among the candidates within KCOLL_VERIFY_TIE of the least time
 * (best's), the first in the model's order, unless it is slower than the
 * MPI library's collective: differences that small are the exploration's
 * noise, and what it cannot tell apart, barrier-started, may differ back
 * to back. On the Xeon guest (scatter, 16 KiB, p = 2) parallel_read_flags
 * and parallel_read_split measured 1.26-1.42 us and 1.28-1.51 in 25
 * explorations, split least in 9 of them by 0.2-7 %, while 1,000 calls
 * back to back took 1.2-1.4 us each against split's 1.9-2.5: a loop of
 * 10,000 calls letting libkcoll choose ran 1.16-1.24x the fixed
 * parallel_read_flags, mostly in the calls after such a switch. */
static int tie_break(const kcoll_verify_pick *pk, const double *mid,
                     double least, int best)
{
    double mpi = pk->mpi >= 0 ? pk->agreed[pk->mpi] : INFINITY;
    for (int i = 0; i < best; i++)
        if (mid[i] <= KCOLL_VERIFY_STEADY * least &&
            pk->agreed[i] <= KCOLL_VERIFY_TIE * pk->agreed[best] &&
            pk->agreed[i] <= mpi)
            return i;
    return best;
}

/* Whether candidate i's median says what a program's calls of it take:
 * enough spans (KCOLL_VERIFY_CUT_MIN), not oversubscribed (spans_time's
 * condition for weighing the median at all). */
static int median_counts(const kcoll_verify_pick *pk, int i)
{
    return pk->ran[i] >= KCOLL_VERIFY_CUT_MIN && !pk->oversubscribed &&
           !pk->failed[i];
}

/* best, or where its median is above KCOLL_VERIFY_MPI_MEDIAN times the
 * MPI library's collective's (both counting), the least median of those
 * that count: the time ranks the spans' lower part, and a candidate led
 * there while its median, what a program's calls of it take, trailed
 * the MPI library's. On the Zen 4 guest (gather, 8 KiB, p = 2, a launch
 * that caught the host passing lines slowly) copy_in_out's spans were
 * uniformly slow, quartile 3.7-4.4 us and median 4.5, against Open
 * MPI's 3.8: not bimodal, it kept a time below Open MPI's quartile, and
 * auto ran 0.84-0.86x the MPI library in 2 launches of 10. */
static int mpi_guard(const kcoll_verify_pick *pk, const double *mid, int best)
{
    int m = pk->mpi;
    if (m < 0 || best == m || !median_counts(pk, best) ||
        !median_counts(pk, m) || !(mid[best] > KCOLL_VERIFY_MPI_MEDIAN * mid[m]))
        return best;
    int least = m;
    for (int i = 0; i < pk->n; i++)
        if (median_counts(pk, i) && mid[i] < mid[least])
            least = i;
    return least;
}

int kcoll_verify_pick_best(kcoll_verify_pick *pk)
{
    double mid[KCOLL_VERIFY_MAX], least = INFINITY;
    for (int i = 0; i < pk->n; i++) {
        int ok = !pk->failed[i] && pk->ran[i] > 0;
        pk->raw[i] = ok ? spans_time(pk, i) : INFINITY;
        pk->agreed[i] = weigh(pk, i, pk->raw[i]);
        mid[i] = ok ? weigh(pk, i, kcoll_verify_median(pk->span[i], pk->ran[i]))
                    : INFINITY;
        least = fmin(least, mid[i]);
    }
    /* The least time among the candidates whose median is within
     * KCOLL_VERIFY_STEADY of the least median (that one always is). */
    int best = -1;
    for (int i = 0; i < pk->n; i++)
        if (mid[i] <= KCOLL_VERIFY_STEADY * least &&
            (best < 0 || pk->agreed[i] < pk->agreed[best]))
            best = i;
    if (best < 0)
        best = 0;
    best = mpi_guard(pk, mid, tie_break(pk, mid, least, best));
    if (!isfinite(pk->agreed[best]) && pk->mpi >= 0) /* all failed */
        best = pk->mpi;
    for (int i = 0; i < pk->n; i++)
        pk->trails[i] = median_counts(pk, i) && median_counts(pk, best) &&
                        mid[i] > KCOLL_VERIFY_MPI_MEDIAN * mid[best];
    return best;
}
