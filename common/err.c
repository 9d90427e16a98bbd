/* err: see err.h. */
#include "common/err.h"

#include <stdarg.h>
#include <stdio.h>

void kcal_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}
