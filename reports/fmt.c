/* fmt: numbers for people (fmt.h). */
#include "fmt.h"

#include <math.h>
#include <stdio.h>

#include "sizes.h"

const char *kcal_fmt_time(double s, char *buf, size_t len)
{
    if (!isfinite(s))
        snprintf(buf, len, "–");
    else if (s >= 1e-3)
        snprintf(buf, len, "%.3g ms", s * 1e3);
    else
        snprintf(buf, len, "%.3g µs", s * 1e6);
    return buf;
}

const char *kcal_fmt_bytes(double b, char *buf, size_t len)
{
    if (b >= 1 << 30)
        snprintf(buf, len, "%.3g GiB", b / (1 << 30));
    else if (b >= 1 << 20)
        snprintf(buf, len, "%.3g MiB", b / (1 << 20));
    else if (b >= 1 << 10)
        snprintf(buf, len, "%.3g KiB", b / (1 << 10));
    else
        snprintf(buf, len, "%.0f B", b);
    return buf;
}

const char *kcal_fmt_size(uint64_t n, char *buf, size_t len)
{
    return kcal_sizes_format(n, buf, len);
}
