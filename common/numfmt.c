/* numfmt: "%.9g" and "%ld" without printf (numfmt.h says why). */
#include "common/numfmt.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

size_t kcal_numfmt_long(long v, char *out)
{
    char rev[24];
    size_t n = 0, len = 0;
    /* The magnitude as unsigned: -LONG_MIN does not fit a long. */
    unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
    do {
        rev[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        out[len++] = '-';
    while (n)
        out[len++] = rev[--n];
    out[len] = '\0';
    return len;
}

#ifdef __SIZEOF_INT128__
/* 5^i for i = 0..27 (5^27 < 2^63). */
static const uint64_t pow5[] = {
    1ull,
    5ull,
    25ull,
    125ull,
    625ull,
    3125ull,
    15625ull,
    78125ull,
    390625ull,
    1953125ull,
    9765625ull,
    48828125ull,
    244140625ull,
    1220703125ull,
    6103515625ull,
    30517578125ull,
    152587890625ull,
    762939453125ull,
    3814697265625ull,
    19073486328125ull,
    95367431640625ull,
    476837158203125ull,
    2384185791015625ull,
    11920928955078125ull,
    59604644775390625ull,
    298023223876953125ull,
    1490116119384765625ull,
    7450580596923828125ull};
#define POW5_MAX 27

/* v = mant·2^exp2 (v > 0 and normal) times 10^s rounded to a whole
 * number, exactly: mant·5^s·2^(exp2 + s) in 128 bits (mant < 2^53,
 * 5^s < 2^63), then to nearest, ties to even, which is what printf does
 * with the exact binary value in the default rounding mode. 0 when s is
 * out of the table or the point falls outside the 128 bits. */
static int scaled_round(uint64_t mant, int exp2, int s, uint64_t *whole)
{
    int shift = -(exp2 + s); /* bits after the point */
    if (s < 0 || s > POW5_MAX || shift < 1 || shift > 120)
        return 0;
    unsigned __int128 x = (unsigned __int128)mant * pow5[s];
    unsigned __int128 w = x >> shift;
    unsigned __int128 rest = x - (w << shift);
    unsigned __int128 half = (unsigned __int128)1 << (shift - 1);
    w += rest > half || (rest == half && (w & 1));
    if (w >> 63)
        return 0;
    *whole = (uint64_t)w;
    return 1;
}

/* The 9 significant digits m (10^8 <= m < 10^9) and decimal exponent e of
 * v > 0 as printf rounds them, exactly; 0 outside about 10^-19 <= v <
 * 10^9, which printf is left to (the times kcal predicts lie well
 * inside). */
static int digits9(double v, uint32_t *m, int *e)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int biased = (int)(bits >> 52 & 0x7ff);
    if (biased == 0 || biased == 0x7ff)
        return 0; /* subnormal, inf, NaN */
    uint64_t mant = (bits & ((1ull << 52) - 1)) | 1ull << 52;
    int exp2 = biased - 1075; /* v = mant·2^exp2 */
    /* v lies in [2^(exp2+52), 2^(exp2+53)): its decimal exponent is this
     * or one more. */
    int ex = (int)floor((exp2 + 52) * 0.30102999566398119521);
    uint64_t r;
    if (!scaled_round(mant, exp2, 8 - ex, &r))
        return 0;
    /* 10 digits: the exponent is one more, or v is 9.999999995·10^ex or
     * more, which rounds up to 1.00000000·10^(ex+1): at ex + 1 either way.
     * There v < 2^(exp2+53) < 10^(ex+1.31) gives 9 digits. */
    if (r >= 1000000000u && !scaled_round(mant, exp2, 8 - ++ex, &r))
        return 0;
    if (r < 100000000u || r >= 1000000000u)
        return 0; /* not expected: printf decides */
    *m = (uint32_t)r;
    *e = ex;
    return 1;
}

/* printf's %g with precision 9 of m·10^(e−8): e-style below 10^-4 and
 * from 10^9, else fixed; trailing zeros and a bare point dropped. */
static size_t format_g9(uint32_t m, int e, char *out)
{
    char d[9];
    for (int i = 8; i >= 0; i--, m /= 10)
        d[i] = (char)('0' + m % 10);
    int last = 8; /* the last digit kept: no trailing zeros */
    while (last > 0 && d[last] == '0')
        last--;
    size_t len = 0;
    if (e < -4 || e >= 9) {
        out[len++] = d[0];
        if (last > 0) {
            out[len++] = '.';
            for (int i = 1; i <= last; i++)
                out[len++] = d[i];
        }
        out[len++] = 'e';
        out[len++] = e < 0 ? '-' : '+';
        int a = e < 0 ? -e : e;
        if (a >= 100)
            out[len++] = (char)('0' + a / 100);
        out[len++] = (char)('0' + a / 10 % 10);
        out[len++] = (char)('0' + a % 10);
    } else if (e >= 0) {
        for (int i = 0; i <= e; i++)
            out[len++] = d[i];
        if (last > e) {
            out[len++] = '.';
            for (int i = e + 1; i <= last; i++)
                out[len++] = d[i];
        }
    } else {
        out[len++] = '0';
        out[len++] = '.';
        for (int i = e + 1; i < 0; i++)
            out[len++] = '0';
        for (int i = 0; i <= last; i++)
            out[len++] = d[i];
    }
    out[len] = '\0';
    return len;
}
#endif

size_t kcal_numfmt_g9(double v, char *out)
{
#ifdef __SIZEOF_INT128__
    uint32_t m;
    int e;
    if (v > 0 && digits9(v, &m, &e))
        return format_g9(m, e, out);
#endif
    /* Zero, negative, inf, NaN, far from 1, no 128-bit integers: printf
     * itself. */
    return (size_t)snprintf(out, KCAL_NUMFMT_LEN, "%.9g", v);
}
