/* sizes: one parser for `1K`, `4M`, `1K,64K,1M` and `1K:8M`, as the OSU
 * benchmarks' -m option, so predict, bench and the report agree on sizes. */
#include "common/sizes.h"
#include "common/err.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kcal_sizes_parse_one(const char *s, uint64_t *out, char *err, size_t errlen)
{
    const char *c = s;
    uint64_t v = 0;
    if (!isdigit((unsigned char)*c)) {
        kcal_set_err(err, errlen, "size '%s' is not a positive number of bytes "
                "(e.g. 4096, 64K, 4M)", s);
        return -1;
    }
    for (; isdigit((unsigned char)*c); c++) {
        unsigned d = (unsigned)(*c - '0');
        if (v > (UINT64_MAX - d) / 10) {
            kcal_set_err(err, errlen, "size '%s' is too large", s);
            return -1;
        }
        v = v * 10 + d;
    }
    unsigned shift = 0;
    switch (*c) {
    case 'k': case 'K': shift = 10; c++; break;
    case 'm': case 'M': shift = 20; c++; break;
    case 'g': case 'G': shift = 30; c++; break;
    case 't': case 'T': shift = 40; c++; break;
    default: break;
    }
    if (*c != '\0') {
        kcal_set_err(err, errlen, "size '%s' has trailing garbage '%s' (suffixes: "
                "K M G T)", s, c);
        return -1;
    }
    if (v == 0) {
        kcal_set_err(err, errlen, "size '%s' is zero", s);
        return -1;
    }
    if (shift && v > (UINT64_MAX >> shift)) {
        kcal_set_err(err, errlen, "size '%s' is too large", s);
        return -1;
    }
    *out = v << shift;
    return 0;
}

int kcal_sizes_parse(const char *spec, uint64_t **out, size_t *n, char *err,
                     size_t errlen)
{
    *out = NULL;
    *n = 0;
    char *copy = strdup(spec);
    if (!copy) {
        kcal_set_err(err, errlen, "out of memory");
        return -1;
    }
    uint64_t *v = NULL;
    size_t count = 0;
    int rc = -1;
    char *colon = strchr(copy, ':');
    if (colon) {
        *colon = '\0';
        uint64_t lo, hi;
        if (kcal_sizes_parse_one(copy, &lo, err, errlen) < 0 ||
            kcal_sizes_parse_one(colon + 1, &hi, err, errlen) < 0)
            goto done;
        if (lo > hi) {
            kcal_set_err(err, errlen, "size range '%s': MIN is above MAX", spec);
            goto done;
        }
        v = malloc(65 * sizeof *v);
        if (!v)
            goto done;
        for (uint64_t s = lo; s <= hi; s *= 2) {
            v[count++] = s;
            if (s > UINT64_MAX / 2)
                break;
        }
    } else {
        size_t cap = 1;
        for (const char *c = copy; *c; c++)
            cap += *c == ',';
        v = malloc(cap * sizeof *v);
        if (!v)
            goto done;
        char *tok = copy;
        /* strtok_r would skip empty items; "1K,,2K" is a mistake to report. */
        for (;;) {
            char *comma = strchr(tok, ',');
            if (comma)
                *comma = '\0';
            if (!*tok) {
                kcal_set_err(err, errlen, "size list '%s' has an empty item", spec);
                goto done;
            }
            if (kcal_sizes_parse_one(tok, &v[count], err, errlen) < 0)
                goto done;
            count++;
            if (!comma)
                break;
            tok = comma + 1;
        }
    }
    rc = 0;
done:
    free(copy);
    if (rc == 0) {
        *out = v;
        *n = count;
    } else {
        free(v);
    }
    return rc;
}

char *kcal_sizes_format(uint64_t n, char *buf, size_t buflen)
{
    static const char suffix[] = "KMGT";
    int i = -1;
    uint64_t v = n;
    while (v >= 1024 && v % 1024 == 0 && i < 3) {
        v /= 1024;
        i++;
    }
    if (i < 0)
        snprintf(buf, buflen, "%llu", (unsigned long long)n);
    else
        snprintf(buf, buflen, "%llu%c", (unsigned long long)v, suffix[i]);
    return buf;
}

char *kcal_sizes_join(const uint64_t *sizes, size_t n)
{
    char *all = malloc(n * 24 + 1), *w = all; /* 20 digits and a comma */
    if (!all)
        return NULL;
    *w = '\0';
    for (size_t i = 0; i < n; i++)
        w += sprintf(w, "%s%llu", i ? "," : "",
                     (unsigned long long)sizes[i]);
    return all;
}
