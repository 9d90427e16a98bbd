/* fmt: numbers for people (fmt.h). */
#include <ctype.h>
#include <string.h>
#include "reports/fmt.h"

#include <math.h>
#include <stdio.h>

#include "common/sizes.h"

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

/* Does word w (len n) say nothing about which CPU it is? */
static int cpu_noise(const char *w, size_t n)
{
    static const char *const drop[] = {"CPU", "Processor", "processor", NULL};
    for (const char *const *d = drop; *d; d++)
        if (strlen(*d) == n && !strncmp(w, *d, n))
            return 1;
    /* "96-Core", "8-core" */
    size_t i = 0;
    while (i < n && isdigit((unsigned char)w[i]))
        i++;
    return i > 0 && (n - i == 5) &&
           (!strncmp(w + i, "-Core", 5) || !strncmp(w + i, "-core", 5));
}

const char *kcal_fmt_cpu(const char *cpu, char *buf, size_t len)
{
    if (!len)
        return buf;
    char tmp[256];
    size_t t = 0;
    /* drop (R), (TM), (tm), (r) */
    for (const char *c = cpu; *c && t < sizeof tmp - 1;) {
        if (!strncmp(c, "(R)", 3) || !strncmp(c, "(r)", 3)) {
            c += 3;
        } else if (!strncmp(c, "(TM)", 4) || !strncmp(c, "(tm)", 4)) {
            c += 4;
        } else {
            tmp[t++] = *c++;
        }
    }
    tmp[t] = '\0';
    size_t o = 0;
    buf[0] = '\0';
    for (char *w = tmp; *w;) {
        while (*w == ' ')
            w++;
        if (!*w || *w == '@')
            break; /* the clock and what follows */
        size_t n = strcspn(w, " ");
        if (!cpu_noise(w, n) && o + n + 2 < len) {
            if (o)
                buf[o++] = ' ';
            memcpy(buf + o, w, n);
            o += n;
            buf[o] = '\0';
        }
        w += n;
    }
    if (!o)
        snprintf(buf, len, "%s", cpu);
    return buf;
}
