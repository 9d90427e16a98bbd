/* check: the smallest test harness that says what failed and where.
 * Each CHECK counts; main ends with `return check_report();`, which prints
 * "N passed, N failed" for the file and exits non-zero on any failure. */
#ifndef KCAL_CHECK_H
#define KCAL_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

/* A test of several files keeps one count: each of its files defines
 * CHECK_SHARED_COUNTS before it includes this, and the file with main
 * defines the two counts (tests/test_model.h). */
#ifdef CHECK_SHARED_COUNTS
extern int check_pass_count, check_fail_count;
#else
static int check_pass_count, check_fail_count;
#endif

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (cond) {                                                          \
            check_pass_count++;                                              \
        } else {                                                             \
            check_fail_count++;                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
        }                                                                    \
    } while (0)

/* |got - want| <= rel * |want| (or <= rel when want is 0). */
#define CHECK_NEAR(got, want, rel)                                           \
    do {                                                                     \
        double g_ = (got), w_ = (want), r_ = (rel);                          \
        double tol_ = w_ != 0 ? fabs(w_) * r_ : r_;                          \
        if (fabs(g_ - w_) <= tol_) {                                         \
            check_pass_count++;                                              \
        } else {                                                             \
            check_fail_count++;                                              \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, want %.17g (rel %g)\n", \
                    __FILE__, __LINE__, #got, g_, w_, r_);                   \
        }                                                                    \
    } while (0)

#define CHECK_STR(got, want)                                                 \
    do {                                                                     \
        const char *g_ = (got), *w_ = (want);                                \
        if (g_ && w_ && strcmp(g_, w_) == 0) {                               \
            check_pass_count++;                                              \
        } else {                                                             \
            check_fail_count++;                                              \
            fprintf(stderr, "%s:%d: CHECK_STR failed: %s = \"%s\", want \"%s\"\n", \
                    __FILE__, __LINE__, #got, g_ ? g_ : "(null)",            \
                    w_ ? w_ : "(null)");                                     \
        }                                                                    \
    } while (0)

static inline int check_report(void)
{
    printf("%d passed, %d failed\n", check_pass_count, check_fail_count);
    return check_fail_count == 0 ? 0 : 1;
}

#endif
