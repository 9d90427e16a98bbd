/* sbuf: a growing string for the report's generated text (gnuplot command
 * lines, the analysis paragraphs). Out of memory is sticky (oom) and checked
 * once at the end, so building a text needs no error check per line. */
#ifndef KCAL_SBUF_H
#define KCAL_SBUF_H

#include <stddef.h>

typedef struct {
    char *s; /* NUL-terminated once anything was added; NULL before */
    size_t n, cap;
    int oom;
} kcal_sbuf;

/* Append printf-style; after a failed allocation, nothing (oom is set). */
void kcal_sbuf_add(kcal_sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The text, handed to the caller (who frees it), or NULL after an
 * allocation failure (the buffer is then freed). b is empty afterwards. */
char *kcal_sbuf_take(kcal_sbuf *b);

/* Free the text; b is empty afterwards. */
void kcal_sbuf_free(kcal_sbuf *b);

#endif
