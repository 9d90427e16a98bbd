/* join: parse predicted and measured CSVs, join them, and compute the
 * model's error and the predictor's selection regret (see join.h). */
#include "reports/join.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/columns.h"
#include "common/err.h"
#include "common/grow.h"
#include "model/model.h"

enum { MAX_FIELDS = 32 };

void kcal_join_init(kcal_join_table *t)
{
    memset(t, 0, sizeof *t);
}

void kcal_join_free(kcal_join_table *t)
{
    free(t->rows);
    for (size_t i = 0; i < t->n_names; i++)
        free(t->names[i]);
    free(t->names);
    kcal_join_init(t);
}

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

static int parse_name(const char *s, char *out, size_t outlen)
{
    size_t n = strlen(s);
    if (n == 0 || n >= outlen)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
            return -1;
    }
    memcpy(out, s, n + 1);
    return 0;
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
        kcal_coll coll;
        const char *bad = NULL;
        if (parse_name(f[idx[C_COLL]], r->coll, sizeof r->coll) ||
            kcal_coll_from_name(r->coll, &coll))
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

/* ---- the join --------------------------------------------------------- */

static int coll_order(const char *name)
{
    kcal_coll c;
    return kcal_coll_from_name(name, &c) ? KCAL_COLL_COUNT : (int)c;
}

int kcal_join_is_reference(const char *alg)
{
    return !strcmp(alg, KCAL_JOIN_MPI) || !strcmp(alg, KCAL_JOIN_AUTO) ||
           !strcmp(alg, KCAL_JOIN_LIMIT);
}

/* 0 for a model algorithm, then mpi, auto, limit. */
static int reference_order(const char *alg)
{
    return !strcmp(alg, KCAL_JOIN_MPI)    ? 1
           : !strcmp(alg, KCAL_JOIN_AUTO) ? 2
           : !strcmp(alg, KCAL_JOIN_LIMIT) ? 3
                                           : 0;
}

/* The join's one order: collective (model order), p, then with by_alg
 * algorithm (mpi, auto and limit last, so a plot's reference series
 * come after the model's) and k, then size. Without by_alg it orders the points
 * (collective, p, size) the ranking groups rows by, so the ranking lists
 * collectives and p in the same order as the joined rows. */
static int cmp_order(const kcal_join_row *a, const kcal_join_row *b,
                     int by_alg)
{
    int ca = coll_order(a->coll), cb = coll_order(b->coll);
    if (ca != cb)
        return ca < cb ? -1 : 1;
    if (a->p != b->p)
        return a->p < b->p ? -1 : 1;
    if (by_alg) {
        int ma = reference_order(a->alg), mb = reference_order(b->alg);
        if (ma != mb)
            return ma - mb;
        int s = strcmp(a->alg, b->alg);
        if (s)
            return s;
        if (a->k != b->k)
            return a->k < b->k ? -1 : 1;
    }
    if (a->size != b->size)
        return a->size < b->size ? -1 : 1;
    return 0;
}

/* A row's key: (collective, p, algorithm, k, size). */
static int cmp_key(const kcal_join_row *a, const kcal_join_row *b)
{
    return cmp_order(a, b, 1);
}

static int cmp_rows(const void *pa, const void *pb)
{
    const kcal_join_row *a = pa, *b = pb;
    int c = cmp_key(a, b);
    if (c)
        return c;
    /* Predicted before measured, then by line: duplicates are reported at
     * their second occurrence. */
    if (a->has_pred != b->has_pred)
        return b->has_pred - a->has_pred;
    int la = a->has_pred ? a->pred_line : a->meas_line;
    int lb = b->has_pred ? b->pred_line : b->meas_line;
    return (la > lb) - (la < lb);
}

char *kcal_join_alg_label(const kcal_join_row *r, char *buf, size_t len)
{
    if (r->k)
        snprintf(buf, len, "%s:%d", r->alg, r->k);
    else
        snprintf(buf, len, "%s", r->alg);
    return buf;
}

int kcal_join_finish(kcal_join_table *t, char *err, size_t errlen)
{
    if (t->n) /* rows is NULL when both files hold only headers */
        qsort(t->rows, t->n, sizeof *t->rows, cmp_rows);
    size_t w = 0;
    for (size_t i = 0; i < t->n; i++) {
        kcal_join_row *r = &t->rows[i];
        if (w > 0 && !cmp_key(&t->rows[w - 1], r)) {
            kcal_join_row *o = &t->rows[w - 1];
            if ((o->has_pred && r->has_pred) || (o->has_meas && r->has_meas)) {
                char lab[64];
                int pred = r->has_pred;
                kcal_set_err(err, errlen,
                        "%s:%d: duplicate row %s,p=%d,%llu bytes,%s "
                        "(first at %s:%d)",
                        pred ? r->pred_file : r->meas_file,
                        pred ? r->pred_line : r->meas_line, r->coll, r->p,
                        (unsigned long long)r->size,
                        kcal_join_alg_label(r, lab, sizeof lab),
                        pred ? o->pred_file : o->meas_file,
                        pred ? o->pred_line : o->meas_line);
                return -1;
            }
            /* o is the predicted row (sorted first), r the measured one. */
            o->has_meas = 1;
            o->median_s = r->median_s;
            o->min_s = r->min_s;
            o->max_s = r->max_s;
            o->iterations = r->iterations;
            o->oversubscribed = r->oversubscribed;
            o->has_quartiles = r->has_quartiles;
            o->has_halves = r->has_halves;
            o->p25_s = r->p25_s;
            o->p75_s = r->p75_s;
            o->half1_s = r->half1_s;
            o->half2_s = r->half2_s;
            o->meas_file = r->meas_file;
            o->meas_line = r->meas_line;
            continue;
        }
        t->rows[w++] = *r;
    }
    t->n = w;
    t->pred_only = t->meas_only = 0;
    for (size_t i = 0; i < t->n; i++) {
        t->pred_only += t->rows[i].has_pred && !t->rows[i].has_meas;
        t->meas_only += !t->rows[i].has_pred && t->rows[i].has_meas;
    }
    return 0;
}

double kcal_join_ape(const kcal_join_row *r)
{
    return 100.0 * fabs(r->predicted_s - r->median_s) / r->median_s;
}

static int joined(const kcal_join_row *r)
{
    return r->has_pred && r->has_meas;
}

static int same_series(const kcal_join_row *a, const kcal_join_row *b)
{
    return !strcmp(a->coll, b->coll) && a->p == b->p &&
           !strcmp(a->alg, b->alg) && a->k == b->k;
}

long kcal_join_summarise(const kcal_join_table *t, kcal_join_summary **out)
{
    kcal_join_summary *s = calloc(t->n ? t->n : 1, sizeof *s);
    if (!s)
        return -1;
    long n = 0;
    /* Rows are sorted by series then size: one pass. */
    for (size_t i = 0; i < t->n;) {
        size_t j = i;
        kcal_join_summary cur = {0};
        double sum = 0, ssum = 0;
        for (; j < t->n && same_series(&t->rows[i], &t->rows[j]); j++) {
            const kcal_join_row *r = &t->rows[j];
            if (!joined(r) || r->size < KCAL_JOIN_MIN_ERR_SIZE)
                continue;
            double ape = kcal_join_ape(r);
            sum += ape;
            ssum += 100.0 * (r->predicted_s - r->median_s) / r->median_s;
            if (cur.points == 0 || ape > cur.max_ape_pct) {
                cur.max_ape_pct = ape;
                cur.worst_size = r->size;
            }
            cur.oversubscribed |= r->oversubscribed;
            cur.points++;
        }
        if (cur.points) {
            const kcal_join_row *r = &t->rows[i];
            memcpy(cur.coll, r->coll, sizeof cur.coll);
            memcpy(cur.alg, r->alg, sizeof cur.alg);
            cur.p = r->p;
            cur.k = r->k;
            cur.mape_pct = sum / cur.points;
            cur.mean_signed_pct = ssum / cur.points;
            s[n++] = cur;
        }
        i = j;
    }
    *out = s;
    return n;
}

/* A point: (collective, p, size), whatever the algorithm. */
static int cmp_point(const kcal_join_row *a, const kcal_join_row *b)
{
    return cmp_order(a, b, 0);
}

static int cmp_rowptr(const void *pa, const void *pb)
{
    const kcal_join_row *a = *(const kcal_join_row *const *)pa;
    const kcal_join_row *b = *(const kcal_join_row *const *)pb;
    int c = cmp_point(a, b);
    return c ? c : (a < b ? -1 : a > b);
}

/* How far a measured median moves by noise alone: the difference of the
 * medians of its two interleaved halves, else half the interquartile
 * range, else 0 (an older bench CSV: no ties then). */
static double median_noise(const kcal_join_row *r)
{
    if (r->has_halves)
        return fabs(r->half1_s - r->half2_s);
    if (r->has_quartiles)
        return (r->p75_s - r->p25_s) / 2;
    return 0;
}

/* issue 9: the predicted best and the measured best differ by less than
 * either's own noise. */
static int noise_tie(const kcal_join_row *pb, const kcal_join_row *mb)
{
    if (pb == mb)
        return 0;
    double d = pb->median_s - mb->median_s;
    double a = median_noise(pb), b = median_noise(mb);
    return d < (a > b ? a : b);
}

long kcal_join_rank_sizes(const kcal_join_table *t, kcal_join_rank **out)
{
    const kcal_join_row **by = malloc((t->n ? t->n : 1) * sizeof *by);
    kcal_join_rank *res = calloc(t->n ? t->n : 1, sizeof *res);
    if (!by || !res) {
        free(by);
        free(res);
        return -1;
    }
    for (size_t i = 0; i < t->n; i++)
        by[i] = &t->rows[i];
    qsort(by, t->n, sizeof *by, cmp_rowptr);
    long n = 0;
    for (size_t i = 0; i < t->n;) {
        size_t j = i;
        kcal_join_rank cur = {0};
        for (; j < t->n && !cmp_point(by[i], by[j]); j++) {
            const kcal_join_row *r = by[j];
            if (!r->has_meas)
                continue;
            cur.oversubscribed |= r->oversubscribed;
            if (!strcmp(r->alg, KCAL_JOIN_MPI)) {
                cur.mpi = r;
                continue;
            }
            if (!strcmp(r->alg, KCAL_JOIN_AUTO)) {
                cur.auto_choice = r;
                continue;
            }
            if (!strcmp(r->alg, KCAL_JOIN_LIMIT)) {
                cur.limit = r;
                continue;
            }
            /* The predictor chose among what was measured: the lowest rank.
             * Equal times share a rank; then the predictor takes the one it
             * lists first (kcal_model_select keeps the first of equal
             * times), which is the earlier line of the predicted CSV. */
            if (r->has_pred) {
                const kcal_join_row *b = cur.predicted_best;
                if (!b || r->rank < b->rank ||
                    (r->rank == b->rank && r->predicted_s < b->predicted_s) ||
                    (r->rank == b->rank && r->predicted_s == b->predicted_s &&
                     r->pred_file == b->pred_file && r->pred_line < b->pred_line))
                    cur.predicted_best = r;
            }
            if (!cur.measured_best || r->median_s < cur.measured_best->median_s)
                cur.measured_best = r;
        }
        if (cur.predicted_best) {
            /* Did another measured algorithm share the chosen one's rank? */
            cur.tied = 0;
            for (size_t q = i; q < j; q++)
                if (by[q] != cur.predicted_best && by[q]->has_pred &&
                    by[q]->has_meas && by[q]->rank == cur.predicted_best->rank)
                    cur.tied = 1;
            memcpy(cur.coll, by[i]->coll, sizeof cur.coll);
            cur.p = by[i]->p;
            cur.size = by[i]->size;
            double mb = cur.measured_best->median_s;
            cur.regret_pct = 100.0 * (cur.predicted_best->median_s - mb) / mb;
            cur.speedup = cur.mpi ? cur.mpi->median_s / mb : NAN;
            cur.noise_tie = noise_tie(cur.predicted_best, cur.measured_best);
            res[n++] = cur;
        }
        i = j;
    }
    free(by);
    *out = res;
    return n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int kcal_join_in_headline(const kcal_join_row *r)
{
    return joined(r) && !r->oversubscribed &&
           r->size >= KCAL_JOIN_MIN_ERR_SIZE;
}

double kcal_join_median_ape_of(const kcal_join_table *t, const char *coll,
                               int *points, int *under)
{
    int n = 0, u = 0;
    double med = NAN;
    double *v = malloc((t->n ? t->n : 1) * sizeof *v);
    if (v) {
        for (size_t i = 0; i < t->n; i++) {
            const kcal_join_row *r = &t->rows[i];
            if (!kcal_join_in_headline(r) || (coll && strcmp(r->coll, coll)))
                continue;
            v[n++] = kcal_join_ape(r);
            u += r->predicted_s < r->median_s;
        }
        if (n) {
            qsort(v, (size_t)n, sizeof *v, cmp_double);
            med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        }
        free(v);
    }
    if (points)
        *points = n;
    if (under)
        *under = u;
    return med;
}

double kcal_join_median_ape(const kcal_join_table *t)
{
    return kcal_join_median_ape_of(t, NULL, NULL, NULL);
}

double kcal_join_mean_regret(const kcal_join_rank *r, long n)
{
    double sum = 0;
    long m = 0;
    for (long i = 0; i < n; i++)
        if (!r[i].oversubscribed) {
            sum += r[i].regret_pct;
            m++;
        }
    return m ? sum / m : NAN;
}

double kcal_join_mean_regret_no_ties(const kcal_join_rank *r, long n,
                                     long *ties)
{
    double sum = 0;
    long m = 0, k = 0;
    for (long i = 0; i < n; i++) {
        if (r[i].oversubscribed)
            continue;
        if (r[i].noise_tie) {
            k++;
            continue;
        }
        sum += r[i].regret_pct;
        m++;
    }
    if (ties)
        *ties = k;
    return m ? sum / m : NAN;
}

int kcal_join_right_picks(const kcal_join_rank *r, long n, int *of)
{
    int right = 0, m = 0;
    for (long i = 0; i < n; i++) {
        if (r[i].oversubscribed)
            continue;
        m++;
        right += r[i].predicted_best == r[i].measured_best ||
                 r[i].regret_pct == 0;
    }
    *of = m;
    return right;
}

double kcal_join_repeat_error(const kcal_join_table *t, int *points)
{
    int n = 0;
    double med = NAN;
    double *v = malloc((t->n ? t->n : 1) * sizeof *v);
    if (v) {
        for (size_t i = 0; i < t->n; i++) {
            const kcal_join_row *r = &t->rows[i];
            double m = (r->half1_s + r->half2_s) / 2;
            if (r->has_meas && r->has_halves && !r->oversubscribed &&
                r->size >= KCAL_JOIN_MIN_ERR_SIZE && m > 0 &&
                strcmp(r->alg, KCAL_JOIN_MPI))
                v[n++] = 100.0 * fabs(r->half1_s - r->half2_s) / m;
        }
        if (n) {
            qsort(v, (size_t)n, sizeof *v, cmp_double);
            med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
        }
        free(v);
    }
    if (points)
        *points = n;
    return med;
}

/* ---- writing ---------------------------------------------------------- */

static void put_k(FILE *f, int k)
{
    if (k)
        fprintf(f, "%d", k);
}

int kcal_join_write_summary(FILE *f, const kcal_join_summary *s, long n,
                            int oversubscribed)
{
    fprintf(f, "%s\n", KCAL_CSV_SUMMARY_HEADER);
    for (long i = 0; i < n; i++) {
        if (s[i].oversubscribed != oversubscribed)
            continue;
        fprintf(f, "%s,%d,%s,", s[i].coll, s[i].p, s[i].alg);
        put_k(f, s[i].k);
        fprintf(f, ",%d,%.4f,%.4f\n", s[i].points, s[i].mape_pct,
                s[i].max_ape_pct);
    }
    return ferror(f) ? -1 : 0;
}

int kcal_join_write_ranking(FILE *f, const kcal_join_rank *r, long n,
                            int oversubscribed)
{
    fprintf(f, "%s\n", KCAL_CSV_RANKING_HEADER);
    for (long i = 0; i < n; i++) {
        if (r[i].oversubscribed != oversubscribed)
            continue;
        char a[64], b[64];
        fprintf(f, "%s,%d,%llu,%s,%s,%.4f,%d\n", r[i].coll, r[i].p,
                (unsigned long long)r[i].size,
                kcal_join_alg_label(r[i].predicted_best, a, sizeof a),
                kcal_join_alg_label(r[i].measured_best, b, sizeof b),
                r[i].regret_pct, r[i].noise_tie);
    }
    return ferror(f) ? -1 : 0;
}

int kcal_join_write_speedup(FILE *f, const kcal_join_rank *r, long n,
                            int oversubscribed)
{
    fprintf(f, "%s\n", KCAL_CSV_SPEEDUP_HEADER);
    for (long i = 0; i < n; i++) {
        if (r[i].oversubscribed != oversubscribed || !r[i].mpi)
            continue;
        char a[64];
        fprintf(f, "%s,%d,%llu,%s,%.6e,%.6e,%.4f\n", r[i].coll, r[i].p,
                (unsigned long long)r[i].size,
                kcal_join_alg_label(r[i].measured_best, a, sizeof a),
                r[i].measured_best->median_s, r[i].mpi->median_s,
                r[i].speedup);
    }
    return ferror(f) ? -1 : 0;
}
