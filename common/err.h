/* err: how library code reports what went wrong — a message written into the
 * caller's buffer ("FILE:LINE: what", "what"), never printed, so only a
 * command's main decides what reaches stderr. */
#ifndef KCAL_ERR_H
#define KCAL_ERR_H

#include <stddef.h>

/* printf into err (when err is non-NULL and errlen > 0). */
void kcal_set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
