/* sbuf: see sbuf.h. */
#include "reports/sbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void kcal_sbuf_add(kcal_sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->n;
        int w = vsnprintf(b->s ? b->s + b->n : NULL, room, fmt, ap);
        va_end(ap);
        if (w < 0) {
            b->oom = 1;
            return;
        }
        if ((size_t)w < room) {
            b->n += (size_t)w;
            return;
        }
        size_t cap = (b->cap + (size_t)w + 1) * 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            b->oom = 1;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
}

char *kcal_sbuf_take(kcal_sbuf *b)
{
    char *s = b->oom ? NULL : b->s;
    if (b->oom)
        free(b->s);
    *b = (kcal_sbuf){0};
    return s;
}

void kcal_sbuf_free(kcal_sbuf *b)
{
    free(b->s);
    *b = (kcal_sbuf){0};
}
