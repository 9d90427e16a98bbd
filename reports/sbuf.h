/* sbuf: a growing string for the report's generated text (gnuplot scripts,
 * report.md, index.html). Out of memory is sticky (oom) and checked once at
 * the end, so building a document needs no error check per line. */
#ifndef KCAL_SBUF_H
#define KCAL_SBUF_H

#include <stddef.h>

typedef struct {
    char *s; /* NUL-terminated once anything was added; NULL before */
    size_t n, cap;
    int oom;
} sbuf;

void sb_add(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
