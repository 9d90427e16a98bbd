/* vcounts: see vcounts.h. */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/infile.h"
#include "common/vcounts.h"

/* Blocks of a file above this are a typo, not a measurement: 256 TiB. */
#define MAX_BLOCK ((uint64_t)1 << 48)

static int number(const char *s, uint64_t lo, uint64_t *out)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo)
        return -1;
    *out = v;
    return 0;
}

int kcal_vcounts_parse(const char *spec, kcal_vcounts *out, char *err,
                       size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->factor = 1;
    if (!spec || !*spec) {
        snprintf(err, errlen, "--counts: empty");
        return -1;
    }
    if (strcmp(spec, "uniform") == 0)
        return 0;
    if (strcmp(spec, "sparse") == 0) {
        out->kind = KCAL_VCOUNTS_SPARSE;
        return 0;
    }
    if (strncmp(spec, "skew:", 5) == 0) {
        out->kind = KCAL_VCOUNTS_SKEW;
        if (number(spec + 5, 1, &out->factor) == 0 &&
            out->factor <= 1000000)
            return 0;
        snprintf(err, errlen,
                 "--counts: '%s': skew:F takes a factor F of 1 to 1000000",
                 spec);
        return -1;
    }
    if (strncmp(spec, "random:", 7) == 0) {
        out->kind = KCAL_VCOUNTS_RANDOM;
        if (number(spec + 7, 0, &out->seed) == 0)
            return 0;
        snprintf(err, errlen,
                 "--counts: '%s': random:S takes a seed S of decimal digits",
                 spec);
        return -1;
    }
    if (strncmp(spec, "file:", 5) == 0 && spec[5]) {
        out->kind = KCAL_VCOUNTS_FILE;
        if (strlen(spec + 5) < sizeof out->path) {
            strcpy(out->path, spec + 5);
            return 0;
        }
        snprintf(err, errlen, "--counts: file path too long");
        return -1;
    }
    snprintf(err, errlen,
             "--counts: '%s': not uniform, skew:F, random:SEED, sparse or "
             "file:PATH",
             spec);
    return -1;
}

const char *kcal_vcounts_name(const kcal_vcounts *v, char *buf, size_t len)
{
    switch (v->kind) {
    case KCAL_VCOUNTS_SKEW:
        snprintf(buf, len, "skew:%" PRIu64, v->factor);
        break;
    case KCAL_VCOUNTS_RANDOM:
        snprintf(buf, len, "random:%" PRIu64, v->seed);
        break;
    case KCAL_VCOUNTS_SPARSE:
        snprintf(buf, len, "sparse");
        break;
    case KCAL_VCOUNTS_FILE:
        snprintf(buf, len, "file:%s", v->path);
        break;
    default:
        snprintf(buf, len, "uniform");
    }
    return buf;
}

/* splitmix64: a fixed generator, so random:S is the same matrix on every
 * machine and in every process that draws it. */
static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int kcal_vcounts_parse_buf(const char *data, size_t len, const char *name,
                           int p, uint64_t *m, char *err, size_t errlen)
{
    size_t want = (size_t)p * (size_t)p, got = 0, i = 0;
    int line = 1;
    while (i < len) {
        char c = data[i];
        if (c == '#') {
            while (i < len && data[i] != '\n')
                i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            line += c == '\n';
            i++;
            continue;
        }
        /* A token: up to the next blank, newline or comment. */
        size_t start = i;
        while (i < len && data[i] != ' ' && data[i] != '\t' &&
               data[i] != '\r' && data[i] != '\n' && data[i] != '#')
            i++;
        char tok[32];
        size_t tl = i - start;
        uint64_t x;
        if (tl < sizeof tok) {
            memcpy(tok, data + start, tl);
            tok[tl] = '\0';
        }
        if (tl >= sizeof tok || strlen(tok) != tl || number(tok, 0, &x) ||
            x > MAX_BLOCK) {
            snprintf(err, errlen, "%s:%d: '%.*s' is not a byte count (0 to "
                                  "2^48)",
                     name, line, (int)(tl < 24 ? tl : 24), data + start);
            return -1;
        }
        if (got < want)
            m[got] = x;
        got++;
    }
    if (got != want) {
        snprintf(err, errlen,
                 "%s: %zu byte counts, where p = %d needs %zu (p lines of p)",
                 name, got, p, want);
        return -1;
    }
    return 0;
}

/* Files above this are not a matrix of byte counts kcal can use. */
#define MAX_FILE ((size_t)64 << 20)

static int read_file(const kcal_vcounts *v, int p, uint64_t *m, char *err,
                     size_t errlen)
{
    FILE *f = kcal_infile_open(v->path, err, errlen);
    if (!f)
        return -1;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = 0;
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? 2 * cap : 4096;
            char *nb = ncap <= MAX_FILE ? realloc(buf, ncap) : NULL;
            if (!nb) {
                snprintf(err, errlen, "%s: larger than %zu MiB, or out of "
                                      "memory",
                         v->path, MAX_FILE >> 20);
                rc = -1;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "%s: read error", v->path);
        rc = -1;
    }
    fclose(f);
    if (rc == 0)
        rc = kcal_vcounts_parse_buf(buf, len, v->path, p, m, err, errlen);
    free(buf);
    return rc;
}

int kcal_vcounts_matrix(const kcal_vcounts *v, int p, uint64_t n,
                        uint64_t *m, char *err, size_t errlen)
{
    if (v->kind == KCAL_VCOUNTS_FILE)
        return read_file(v, p, m, err, errlen);
    uint64_t seed = v->seed, big;
    if (__builtin_mul_overflow(n, v->kind == KCAL_VCOUNTS_SPARSE
                                      ? (uint64_t)4
                                      : v->factor,
                               &big) ||
        __builtin_mul_overflow(n, (uint64_t)2, &(uint64_t){0})) {
        snprintf(err, errlen, "--counts: blocks of %" PRIu64 " bytes overflow",
                 n);
        return -1;
    }
    for (int s = 0; s < p; s++)
        for (int d = 0; d < p; d++) {
            uint64_t *x = &m[(size_t)s * (size_t)p + (size_t)d];
            switch (v->kind) {
            case KCAL_VCOUNTS_SKEW:
                *x = s == 1 || d == 1 ? big : n;
                break;
            case KCAL_VCOUNTS_RANDOM:
                *x = next(&seed) % (2 * n + 1);
                break;
            case KCAL_VCOUNTS_SPARSE:
                *x = (s + d) % 4 == 0 ? big : 0;
                break;
            default:
                *x = n;
            }
        }
    return 0;
}

const char *kcal_vcounts_label(const char *coll, const kcal_vcounts *v,
                               char *buf)
{
    char spec[4200];
    kcal_vcounts_name(v, spec, sizeof spec);
    if (v->kind == KCAL_VCOUNTS_UNIFORM) {
        snprintf(buf, KCAL_VCOUNTS_LABEL_LEN, "%s", coll);
        return buf;
    }
    const char *tail = spec;
    if (v->kind == KCAL_VCOUNTS_FILE) { /* "file:" and the base name */
        const char *slash = strrchr(v->path, '/');
        snprintf(spec, sizeof spec, "file:%s", slash ? slash + 1 : v->path);
    }
    int at = snprintf(buf, KCAL_VCOUNTS_LABEL_LEN, "%s-", coll);
    for (; at > 0 && at < KCAL_VCOUNTS_LABEL_LEN - 1 && *tail; tail++) {
        unsigned char c = (unsigned char)*tail;
        buf[at++] = isalnum(c) || c == '.' || c == '_' || c == '+' ? (char)c
                                                                   : '-';
    }
    if (at > 0)
        buf[at < KCAL_VCOUNTS_LABEL_LEN ? at : KCAL_VCOUNTS_LABEL_LEN - 1] =
            '\0';
    return buf;
}
