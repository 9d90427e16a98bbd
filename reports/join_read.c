/* join_read: reading the two CSVs into a join table (see join.h): the
 * fields, the contract's columns, and the bytes of a file, checked as they
 * come in. */
#include "reports/join.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/columns.h"
#include "common/err.h"
#include "common/grow.h"
#include "model/model.h"

enum { MAX_FIELDS = 32 };

static const char *keep_name(kcal_join_table *t, const char *name)
{
    for (size_t i = 0; i < t->n_names; i++)
        if (!strcmp(t->names[i], name))
            return t->names[i];
    char **nn = realloc(t->names, (t->n_names + 1) * sizeof *nn);
    if (!nn)
        return NULL;
    t->names = nn;
    if (!(nn[t->n_names] = strdup(name)))
        return NULL;
    return nn[t->n_names++];
}

static kcal_join_row *push_row(kcal_join_table *t)
{
    kcal_join_row *grown = kcal_grow(t->rows, &t->cap, t->n, sizeof *grown,
                                     256);
    if (!grown)
        return NULL;
    t->rows = grown;
    kcal_join_row *r = &t->rows[t->n++];
    memset(r, 0, sizeof *r);
    return r;
}

/* ---- CSV fields ------------------------------------------------------- */

/* Split line (modified in place) at commas. The contract's CSVs carry no
 * quoted fields, so a quote is an error rather than something to guess at. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    char *s = line;
    for (;;) {
        if (n == max)
            return -1;
        f[n++] = s;
        char *c = strchr(s, ',');
        if (!c)
            break;
        *c = '\0';
        s = c + 1;
    }
    return n;
}

/* A name of [a-z0-9_] (an algorithm, a collective); with label, also the
 * rest of a v-collective label's alphabet (common/vcounts.h: letters,
 * digits, '.', '_', '+', '-'). */
static int parse_chars(const char *s, char *out, size_t outlen, int label)
{
    size_t n = strlen(s);
    if (n == 0 || n >= outlen)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
              (label && ((c >= 'A' && c <= 'Z') || c == '.' || c == '+' ||
                         c == '-'))))
            return -1;
    }
    memcpy(out, s, n + 1);
    return 0;
}

static int parse_name(const char *s, char *out, size_t outlen)
{
    return parse_chars(s, out, outlen, 0);
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    if (!*s || *s == '+' || *s == ' ')
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v == 0)
        return -1;
    *out = v;
    return 0;
}

/* A time in seconds: finite and > 0 (a zero time cannot be measured and
 * would make a percentage error meaningless). */
static int parse_time(const char *s, double *out)
{
    if (!*s || *s == ' ')
        return -1;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v <= 0)
        return -1;
    *out = v;
    return 0;
}

static int parse_bool(const char *s, int *out)
{
    if (!strcmp(s, "0") || !strcmp(s, "no") || !strcmp(s, "false"))
        *out = 0;
    else if (!strcmp(s, "1") || !strcmp(s, "yes") || !strcmp(s, "true"))
        *out = 1;
    else
        return -1;
    return 0;
}

/* ---- the two files ---------------------------------------------------- */

enum { C_COLL, C_P, C_SIZE, C_ALG, C_K, C_PRED, C_RANK, C_MEDIAN, C_MIN,
       C_MAX, C_ITER, C_OVERSUB, C_P25, C_P75, C_HALF1, C_HALF2, C_COUNT };

/* C_P25 .. C_HALF2 (issue 9) are read when the header has them: files of
 * an older kcal bench lack them. */
static const char *const col_names[C_COUNT] = {
    "collective", "p", "size_bytes", "algorithm", "k", "predicted_s", "rank",
    "median_s", "min_s", "max_s", "iterations", "oversubscribed",
    "p25_s", "p75_s", "half1_s", "half2_s",
};

/* The columns a file must have: those its writer writes (columns.h), as
 * C_* indices ending in -1. A name the parser does not know is a contract
 * changed on one side only: -1, and every file is rejected (the tests
 * catch it). */
static int contract_columns(int measured, int *need, size_t max)
{
    char head[256];
    snprintf(head, sizeof head, "%s",
             measured ? KCAL_CSV_MEASURED_REQUIRED : KCAL_CSV_PREDICTED_HEADER);
    size_t n = 0;
    for (char *save = NULL, *name = strtok_r(head, ",", &save); name;
         name = strtok_r(NULL, ",", &save)) {
        int c = 0;
        while (c < C_COUNT && strcmp(col_names[c], name))
            c++;
        if (c == C_COUNT || n + 1 >= max)
            return -1;
        need[n++] = c;
    }
    need[n] = -1;
    return 0;
}

/* The optional columns of a measured row (issue 9): both quartiles or
 * neither, both halves or neither; a quartile outside min..max is bad.
 * NULL, or the name of the bad column. */
static const char *parse_spread(char **f, const int *idx, kcal_join_row *r)
{
    if (idx[C_P25] >= 0 && idx[C_P75] >= 0 && *f[idx[C_P25]] &&
        *f[idx[C_P75]]) {
        if (parse_time(f[idx[C_P25]], &r->p25_s) ||
            !(r->min_s <= r->p25_s && r->p25_s <= r->median_s))
            return "p25_s";
        if (parse_time(f[idx[C_P75]], &r->p75_s) ||
            !(r->median_s <= r->p75_s && r->p75_s <= r->max_s))
            return "p75_s";
        r->has_quartiles = 1;
    }
    if (idx[C_HALF1] >= 0 && idx[C_HALF2] >= 0 && *f[idx[C_HALF1]] &&
        *f[idx[C_HALF2]]) {
        if (parse_time(f[idx[C_HALF1]], &r->half1_s))
            return "half1_s";
        if (parse_time(f[idx[C_HALF2]], &r->half2_s))
            return "half2_s";
        r->has_halves = 1;
    }
    return NULL;
}

/* Parse buf (NUL-terminated, modified in place, owned by the caller), whose
 * bytes scan_text has accepted. */
static int parse_csv(kcal_join_table *t, char *buf, const char *name,
                     int measured, char *err, size_t errlen)
{
    int need[C_COUNT + 1];
    if (contract_columns(measured, need, C_COUNT + 1)) {
        kcal_set_err(err, errlen, "%s: the %s CSV contract names a column "
                     "this reader does not know", name,
                     measured ? "measured" : "predicted");
        return -1;
    }
    const char *fname = keep_name(t, name);
    if (!fname) {
        kcal_set_err(err, errlen, "%s: out of memory", name);
        return -1;
    }
    int idx[C_COUNT];
    int nhead = 0;
    char *header = NULL;
    int lineno = 0, rc = -1;
    char *line = buf;
    /* Walk lines by hand: strtok would merge empty lines, which are errors. */
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r')
            line[--len] = '\0';
        char *next = nl ? nl + 1 : NULL;
        if (len == 0) {
            kcal_set_err(err, errlen, "%s:%d: empty line", name, lineno);
            goto out;
        }
        if (strchr(line, '"')) {
            kcal_set_err(err, errlen, "%s:%d: quoted fields are not part of the "
                    "CSV contract", name, lineno);
            goto out;
        }
        if (!header) {
            header = strdup(line);
            char *f[MAX_FIELDS];
            nhead = split(line, f, MAX_FIELDS);
            if (!header || nhead < 0) {
                kcal_set_err(err, errlen, "%s:%d: bad header", name, lineno);
                goto out;
            }
            for (int c = 0; c < C_COUNT; c++) {
                idx[c] = -1;
                for (int i = 0; i < nhead; i++)
                    if (!strcmp(f[i], col_names[c]))
                        idx[c] = i;
            }
            for (const int *c = need; *c >= 0; c++)
                if (idx[*c] < 0) {
                    kcal_set_err(err, errlen, "%s:%d: header lacks column '%s' "
                            "(is this the CSV of kcal %s --format csv?)",
                            name, lineno, col_names[*c],
                            measured ? "bench" : "predict");
                    goto out;
                }
            line = next;
            continue;
        }
        if (!strcmp(line, header)) { /* files concatenated: header again */
            line = next;
            continue;
        }
        char *f[MAX_FIELDS];
        int nf = split(line, f, MAX_FIELDS);
        if (nf != nhead) {
            kcal_set_err(err, errlen, "%s:%d: %d fields, the header has %d", name,
                    lineno, nf < 0 ? MAX_FIELDS : nf, nhead);
            goto out;
        }
        kcal_join_row *r = push_row(t);
        if (!r) {
            kcal_set_err(err, errlen, "%s: out of memory", name);
            goto out;
        }
        long v;
        const char *bad = NULL;
        if (parse_chars(f[idx[C_COLL]], r->coll, sizeof r->coll, 1) ||
            kcal_join_coll_order(r->coll) < 0)
            bad = "collective";
        else if (parse_long(f[idx[C_P]], 1, 1000000, &v) || !(r->p = (int)v))
            bad = "p";
        else if (parse_u64(f[idx[C_SIZE]], &r->size))
            bad = "size_bytes";
        else if (parse_name(f[idx[C_ALG]], r->alg, sizeof r->alg))
            bad = "algorithm";
        else if (*f[idx[C_K]] &&
                 (parse_long(f[idx[C_K]], 1, 1000000, &v) || !(r->k = (int)v)))
            bad = "k";
        if (!bad && !measured) {
            if (parse_time(f[idx[C_PRED]], &r->predicted_s))
                bad = "predicted_s";
            else if (parse_long(f[idx[C_RANK]], 1, 100000000, &v))
                bad = "rank";
            else
                r->rank = (int)v;
            r->has_pred = 1;
            r->pred_file = fname;
            r->pred_line = lineno;
        } else if (!bad) {
            if (parse_time(f[idx[C_MEDIAN]], &r->median_s))
                bad = "median_s";
            else if (parse_time(f[idx[C_MIN]], &r->min_s))
                bad = "min_s";
            else if (parse_time(f[idx[C_MAX]], &r->max_s))
                bad = "max_s";
            else if (parse_long(f[idx[C_ITER]], 1, 1000000000, &r->iterations))
                bad = "iterations";
            else if (parse_bool(f[idx[C_OVERSUB]], &r->oversubscribed))
                bad = "oversubscribed";
            else if (!(r->min_s <= r->median_s && r->median_s <= r->max_s)) {
                kcal_set_err(err, errlen, "%s:%d: not min_s <= median_s <= max_s",
                        name, lineno);
                goto out;
            }
            if (!bad)
                bad = parse_spread(f, idx, r);
            r->has_meas = 1;
            r->meas_file = fname;
            r->meas_line = lineno;
        }
        if (bad) {
            /* Find the column again to quote what was there. */
            int c = 0;
            while (strcmp(col_names[c], bad))
                c++;
            kcal_set_err(err, errlen, "%s:%d: bad %s '%s'", name, lineno, bad,
                    f[idx[c]]);
            goto out;
        }
        if (kcal_join_is_reference(r->alg) && !measured) {
            kcal_set_err(err, errlen, "%s:%d: '%s' is %s, not a model algorithm",
                    name, lineno, r->alg,
                    !strcmp(r->alg, KCAL_JOIN_MPI) ? "the MPI library's collective"
                    : !strcmp(r->alg, KCAL_JOIN_AUTO) ? "libkcoll's own choice"
                                                      : "the copy limit");
            goto out;
        }
        line = next;
    }
    if (!header) {
        kcal_set_err(err, errlen, "%s:1: empty file (no header)", name);
        goto out;
    }
    rc = 0;
out:
    free(header);
    return rc;
}

/* ---- the bytes of a file -------------------------------------------- */

/* What a CSV of kcal cannot hold, looked for while reading, so that
 * /dev/zero or a stream without newlines is turned away after one buffer
 * rather than after filling the memory. `line` counts from 1; `len` is the
 * length of the current line so far. */
typedef struct {
    int line;
    size_t len;
} text_scan;

static const char *cmd_of(int measured)
{
    return measured ? "bench" : "predict";
}

static int scan_text(text_scan *sc, const char *p, size_t n, const char *name,
                     int measured, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\n') {
            sc->line++;
            sc->len = 0;
        } else if (p[i] == '\0') {
            kcal_set_err(err, errlen, "%s:%d: NUL byte: not a CSV of kcal %s "
                         "--format csv", name, sc->line, cmd_of(measured));
            return -1;
        } else if (++sc->len > KCAL_JOIN_MAX_LINE) {
            kcal_set_err(err, errlen, "%s:%d: line longer than %d bytes: not "
                         "a CSV of kcal %s --format csv", name, sc->line,
                         KCAL_JOIN_MAX_LINE, cmd_of(measured));
            return -1;
        }
    }
    return 0;
}

static int too_large(const char *name, int measured, char *err, size_t errlen)
{
    kcal_set_err(err, errlen, "%s: larger than %u MiB: not a CSV of kcal %s "
                 "--format csv", name, KCAL_JOIN_MAX_FILE >> 20,
                 cmd_of(measured));
    return -1;
}

int kcal_join_parse(kcal_join_table *t, kcal_join_side side, const char *data,
                    size_t len, const char *name, char *err, size_t errlen)
{
    int measured = side == KCAL_JOIN_MEASURED;
    text_scan sc = {1, 0};
    if (len > KCAL_JOIN_MAX_FILE)
        return too_large(name, measured, err, errlen);
    if (scan_text(&sc, data, len, name, measured, err, errlen))
        return -1;
    char *buf = malloc(len + 1);
    if (!buf) {
        kcal_set_err(err, errlen, "%s: out of memory", name);
        return -1;
    }
    memcpy(buf, data, len);
    buf[len] = '\0';
    int rc = parse_csv(t, buf, name, measured, err, errlen);
    free(buf);
    return rc;
}

int kcal_join_parse_predicted(kcal_join_table *t, const char *text,
                              const char *name, char *err, size_t errlen)
{
    return kcal_join_parse(t, KCAL_JOIN_PREDICTED, text, strlen(text), name,
                           err, errlen);
}

int kcal_join_parse_measured(kcal_join_table *t, const char *text,
                             const char *name, char *err, size_t errlen)
{
    return kcal_join_parse(t, KCAL_JOIN_MEASURED, text, strlen(text), name,
                           err, errlen);
}

/* The whole of path, checked by scan_text as it comes in and never more
 * than KCAL_JOIN_MAX_FILE bytes: a NUL-terminated malloc'ed copy, or NULL
 * with the message. Reads pipes and devices too (no size asked first). */
static char *read_text(const char *path, int measured, char *err,
                       size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        kcal_set_err(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    text_scan sc = {1, 0};
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (cap - n < 4096) {
            size_t ncap = cap ? 2 * cap : 1 << 16;
            if (ncap > KCAL_JOIN_MAX_FILE + 2)
                ncap = KCAL_JOIN_MAX_FILE + 2; /* one byte past the cap */
            char *nb = realloc(buf, ncap);
            if (!nb) {
                kcal_set_err(err, errlen, "%s: out of memory", path);
                goto fail;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, f);
        if (got == 0)
            break;
        if (scan_text(&sc, buf + n, got, path, measured, err, errlen))
            goto fail;
        n += got;
        if (n > KCAL_JOIN_MAX_FILE) {
            too_large(path, measured, err, errlen);
            goto fail;
        }
    }
    if (ferror(f)) {
        kcal_set_err(err, errlen, "%s: %s", path, strerror(errno));
        goto fail;
    }
    fclose(f);
    buf[n] = '\0';
    return buf;
fail:
    fclose(f);
    free(buf);
    return NULL;
}

static int read_file(kcal_join_table *t, const char *path, int measured,
                     char *err, size_t errlen)
{
    char *text = read_text(path, measured, err, errlen);
    if (!text)
        return -1;
    int rc = parse_csv(t, text, path, measured, err, errlen);
    free(text);
    return rc;
}

int kcal_join_read_predicted(kcal_join_table *t, const char *path, char *err,
                             size_t errlen)
{
    return read_file(t, path, 0, err, errlen);
}

int kcal_join_read_measured(kcal_join_table *t, const char *path, char *err,
                            size_t errlen)
{
    return read_file(t, path, 1, err, errlen);
}
