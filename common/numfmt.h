/* numfmt: numbers written exactly as printf writes them, without printf.
 *
 * `kcal predict --format csv` writes ~45,000 rows for the five collectives
 * at p = 1024, each with a "%.9g" time and two integers; printf's
 * conversions took longer than the model's predictions (scripts/
 * bench-predict). These write the same bytes: kcal_numfmt_g9 rounds the
 * exact binary value in 128-bit integers, as printf does, for values from
 * about 1e-19 to 1e9 and hands every other one to snprintf, so its output
 * is printf's in every case (tests/test_numfmt.c compares them). */
#ifndef KCAL_NUMFMT_H
#define KCAL_NUMFMT_H

#include <stddef.h>

/* Room for any "%.9g" ("-1.23456789e-308") and any long, with the NUL. */
#define KCAL_NUMFMT_LEN 32

/* What snprintf(out, KCAL_NUMFMT_LEN, "%.9g", v) writes in the default
 * rounding mode (kcal never changes it); returns its length. */
size_t kcal_numfmt_g9(double v, char *out);

/* What snprintf(out, KCAL_NUMFMT_LEN, "%ld", v) writes; returns its
 * length. */
size_t kcal_numfmt_long(long v, char *out);

#endif
