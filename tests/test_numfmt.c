/* common/numfmt: the same bytes as printf's "%.9g" and "%ld" for every
 * kind of value: random bit patterns (NaN, inf, subnormal, negative),
 * times over the whole range the fast path covers and beyond it, the
 * values just around a rounding half, exact halves (ties to even), and
 * the powers of ten where the exponent and the e-style/fixed choice
 * change. */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/numfmt.h"
#include "tests/check.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_u64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static double uniform(void) /* [0, 1) */
{
    return (double)(next_u64() >> 11) / 9007199254740992.0;
}

static long g9_tried, g9_wrong;

static void same_g9(double v)
{
    char got[KCAL_NUMFMT_LEN], want[KCAL_NUMFMT_LEN];
    size_t n = kcal_numfmt_g9(v, got);
    snprintf(want, sizeof want, "%.9g", v);
    g9_tried++;
    if (strcmp(got, want) != 0 || n != strlen(want)) {
        if (g9_wrong++ < 10)
            fprintf(stderr, "numfmt_g9(%a = %.17g): '%s' (%zu), printf '%s'\n",
                    v, v, got, n, want);
    }
}

/* v and its neighbours, `steps` doubles either way. */
static void around_g9(double v, int steps)
{
    double up = v, down = v;
    same_g9(v);
    for (int i = 0; i < steps; i++) {
        up = nextafter(up, INFINITY);
        down = nextafter(down, -INFINITY);
        same_g9(up);
        same_g9(down);
    }
}

static void same_long(long v)
{
    char got[KCAL_NUMFMT_LEN], want[KCAL_NUMFMT_LEN];
    size_t n = kcal_numfmt_long(v, got);
    snprintf(want, sizeof want, "%ld", v);
    CHECK_STR(got, want);
    CHECK(n == strlen(want));
}

int main(void)
{
    const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, -NAN,
                              DBL_MIN, DBL_MAX, DBL_TRUE_MIN, -DBL_MAX,
                              1, 0.5, 0.1, 1e-5, 1e-4, 1e-3, 1e8, 1e9, 1e10,
                              123456789, 999999999.5, 999999999.4,
                              99999.99995, 0.000099999999949, 1.5e-6,
                              3.1415926535, -2.5e-7};
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        around_g9(special[i], 4);

    /* Any bit pattern: every class of double. */
    for (int i = 0; i < 300000; i++) {
        uint64_t bits = next_u64();
        double v;
        memcpy(&v, &bits, sizeof v);
        same_g9(v);
    }
    /* Log-uniform from 1e-25 to 1e40: the fast path's range (1e-19 to
     * 1e36) and past both of its ends. */
    for (int i = 0; i < 300000; i++)
        same_g9(exp(log(1e-25) + uniform() * (log(1e40) - log(1e-25))));
    /* Times as kcal predicts them: 1e-7 to 100 s. */
    for (int i = 0; i < 300000; i++)
        same_g9(exp(log(1e-7) + uniform() * (log(100) - log(1e-7))));
    /* Halves: the double nearest m.5·10^(e−9) for 9-digit m, where the
     * rounding is decided by bits a long double may not hold, and the
     * doubles next to it. */
    for (int i = 0; i < 20000; i++) {
        char text[64];
        unsigned long m = 100000000ul + next_u64() % 900000000ul;
        int e = (int)(next_u64() % 60) - 22;
        snprintf(text, sizeof text, "%lu5e%d", m, e - 9);
        around_g9(strtod(text, NULL), 3);
    }
    /* Exact halves, which printf rounds to even: whole numbers and
     * quarters whose 10th significant digit is a 5 and nothing after. */
    for (int i = 0; i < 20000; i++) {
        double m = (double)(100000000 + next_u64() % 900000000);
        around_g9(m + 0.5, 1);
        around_g9((m * 10 + 5) / 4, 1);
        around_g9(ldexp(m + 0.5, -(int)(next_u64() % 40)), 1);
    }
    /* Every power of ten the fast path and printf's style change at. */
    for (int e = -25; e <= 40; e++) {
        const char *const mant[] = {"1", "9.999999995", "9.9999999949999",
                                    "9.99999999", "1.00000001", "5"};
        for (size_t j = 0; j < sizeof mant / sizeof mant[0]; j++) {
            char text[64];
            snprintf(text, sizeof text, "%se%d", mant[j], e);
            around_g9(strtod(text, NULL), 3);
        }
    }
    CHECK(g9_tried > 1000000);
    CHECK(g9_wrong == 0);

    const long longs[] = {0, 1, -1, 9, 10, -10, 99, 100, 1024, 2147483647,
                          -2147483648L, LONG_MAX, LONG_MIN, LONG_MIN + 1};
    for (size_t i = 0; i < sizeof longs / sizeof longs[0]; i++)
        same_long(longs[i]);
    for (int i = 0; i < 1000; i++)
        same_long((long)next_u64() >> (next_u64() % 63));
    return check_report();
}
