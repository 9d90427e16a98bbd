/* params: reader and writer of `kcal-params-1` files (model.md, "The params
 * file"). Parsing is strict because a silently misread β or l turns every
 * prediction wrong without any sign; unknown keys are kept (forward
 * compatibility) and flagged so the caller can warn. */
#include "model/params.h"
#include "common/err.h"
#include "common/infile.h"
#include "common/grow.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every key model.md defines, and the extension keys `kcal probe` writes:
 * the one table of what a key is (kcal fit asks it which `# meta` entries of
 * a raw file are numbers). A key ending in `_stderr` or `_dof` of a numeric
 * key is known and numeric too. */
static const struct {
    const char *name;
    kcal_key_kind kind;
    int required;
} key_table[] = {
    {"alpha", KCAL_KEY_NUMBER, 1},
    {"beta", KCAL_KEY_NUMBER, 1},
    {"lock", KCAL_KEY_NUMBER, 1},
    {"page", KCAL_KEY_META_NUMBER, 1},
    {"gamma_a", KCAL_KEY_NUMBER, 1},
    {"gamma_b", KCAL_KEY_NUMBER, 1},
    {"sm_bcast_a", KCAL_KEY_NUMBER, 0},
    {"sm_bcast_b", KCAL_KEY_NUMBER, 0},
    {"sm_gather_a", KCAL_KEY_NUMBER, 0},
    {"sm_gather_b", KCAL_KEY_NUMBER, 0},
    {"sm_allgather_a", KCAL_KEY_NUMBER, 0},
    {"sm_allgather_b", KCAL_KEY_NUMBER, 0},
    {"sm_barrier_a", KCAL_KEY_NUMBER, 0},
    {"sm_barrier_b", KCAL_KEY_NUMBER, 0},
    /* probe extensions: cache sizes in bytes, what was measured */
    {"l1d_cache", KCAL_KEY_META_NUMBER, 0},
    {"l2_cache", KCAL_KEY_META_NUMBER, 0},
    {"l3_cache", KCAL_KEY_META_NUMBER, 0},
    {"max_readers", KCAL_KEY_META_NUMBER, 0},
    /* the full model's terms (model.md "Beyond the paper"): in-cache copy
     * time per byte (s/byte), one control-message step (s) */
    {"beta_hot", KCAL_KEY_NUMBER, 0},
    {"sync_step", KCAL_KEY_NUMBER, 0},
    /* issue 9: the measured cache knee (bytes), concurrent copies' δ(c)
     * slope in and out of cache, the writes' own start-up, pinning and
     * copy time where they differ from the reads' (and beta_ws_<size>,
     * below) */
    {"cache_knee", KCAL_KEY_NUMBER, 0},
    {"conc_hot", KCAL_KEY_NUMBER, 0},
    {"conc_cold", KCAL_KEY_NUMBER, 0},
    {"alpha_write", KCAL_KEY_NUMBER, 0},
    {"lock_write", KCAL_KEY_NUMBER, 0},
    {"beta_write", KCAL_KEY_NUMBER, 0},
    /* issue 9: reading lines another core just wrote, an extra
     * dirty_beta (s/byte) per byte up to dirty_bytes (bytes) */
    {"dirty_beta", KCAL_KEY_NUMBER, 0},
    {"dirty_bytes", KCAL_KEY_NUMBER, 0},
    /* chunks passed between cores (probe/pass.h): the first chunk of a
     * stream costs pass_a (s) + pass_b (s/byte) beyond its two copies,
     * each further chunk pass_next (s) */
    {"pass_a", KCAL_KEY_NUMBER, 0},
    {"pass_b", KCAL_KEY_NUMBER, 0},
    {"pass_next", KCAL_KEY_NUMBER, 0},
    /* issue 8: what a CMA call pays when its target makes CMA calls of
     * its own at that moment (s per call; probe/mutual.h) */
    {"cma_mutual", KCAL_KEY_NUMBER, 0},
    /* issue 8: what a collective pays once for making CMA calls at all,
     * beyond α measured in a loop of calls (s; fit/calibrate.c) */
    {"cma_context", KCAL_KEY_NUMBER, 0},
    /* libkcoll's shared-memory flags (the derived rows): one flag seen by
     * one polling process (s), against sync_step's MPI message. The MPI library's own collectives (model.md
     * "The MPI library as a candidate"): its measured line T_mpi = a + b·v
     * (s, s/byte), and the size below which it beat every libkcoll
     * algorithm in the probe's measurement (bytes) */
    {"sm_flag", KCAL_KEY_NUMBER, 0},
    {"mpi_scatter_a", KCAL_KEY_NUMBER, 0},
    {"mpi_scatter_b", KCAL_KEY_NUMBER, 0},
    {"mpi_scatter_below", KCAL_KEY_NUMBER, 0},
    {"mpi_scatter_mask", KCAL_KEY_NUMBER, 0},
    {"mpi_gather_a", KCAL_KEY_NUMBER, 0},
    {"mpi_gather_b", KCAL_KEY_NUMBER, 0},
    {"mpi_gather_below", KCAL_KEY_NUMBER, 0},
    {"mpi_gather_mask", KCAL_KEY_NUMBER, 0},
    {"mpi_bcast_a", KCAL_KEY_NUMBER, 0},
    {"mpi_bcast_b", KCAL_KEY_NUMBER, 0},
    {"mpi_bcast_below", KCAL_KEY_NUMBER, 0},
    {"mpi_bcast_mask", KCAL_KEY_NUMBER, 0},
    {"mpi_allgather_a", KCAL_KEY_NUMBER, 0},
    {"mpi_allgather_b", KCAL_KEY_NUMBER, 0},
    {"mpi_allgather_below", KCAL_KEY_NUMBER, 0},
    {"mpi_allgather_mask", KCAL_KEY_NUMBER, 0},
    {"mpi_alltoall_a", KCAL_KEY_NUMBER, 0},
    {"mpi_alltoall_b", KCAL_KEY_NUMBER, 0},
    {"mpi_alltoall_below", KCAL_KEY_NUMBER, 0},
    {"mpi_alltoall_mask", KCAL_KEY_NUMBER, 0},
    {"machine", KCAL_KEY_TEXT, 0},
    {"cpu", KCAL_KEY_TEXT, 0},
    {"cores", KCAL_KEY_TEXT, 0},
    {"sockets", KCAL_KEY_TEXT, 0},
    {"numa", KCAL_KEY_TEXT, 0},
    {"kernel", KCAL_KEY_TEXT, 0},
    {"date", KCAL_KEY_TEXT, 0},
    {"source", KCAL_KEY_TEXT, 0},
    {"cma_method", KCAL_KEY_TEXT, 0},
    /* the network between nodes, Hockney (kcal probe --network; the
     * two-level rows of model/two_level.c) */
    {"net_alpha", KCAL_KEY_NUMBER, 0},
    {"net_beta", KCAL_KEY_NUMBER, 0},
    {"net_gap", KCAL_KEY_NUMBER, 0},
    {"net_hosts", KCAL_KEY_TEXT, 0},
    {"net_probe", KCAL_KEY_TEXT, 0},
    /* probe extensions */
    {"hostname", KCAL_KEY_TEXT, 0},
    {"beta_cache", KCAL_KEY_TEXT, 0},
    {"oversubscribed", KCAL_KEY_TEXT, 0},
    {"probe", KCAL_KEY_TEXT, 0},
};
#define N_KEYS (sizeof key_table / sizeof key_table[0])

static const char *const sm_names[KCAL_SM_COUNT] = {"bcast", "gather",
                                                    "allgather", "barrier"};

const char *kcal_sm_name(kcal_sm_op op)
{
    return (op >= 0 && op < KCAL_SM_COUNT) ? sm_names[op] : NULL;
}

/* prefix<size>: digits and an optional k, m or g (beta_ws_, issue 9;
 * memcpy_ws_, issue 8). */
static int is_size_key(const char *key, const char *prefix)
{
    size_t plen = strlen(prefix);
    if (strncmp(key, prefix, plen))
        return 0;
    const char *c = key + plen;
    if (!isdigit((unsigned char)*c))
        return 0;
    while (isdigit((unsigned char)*c))
        c++;
    if (*c == 'k' || *c == 'm' || *c == 'g')
        c++;
    return *c == '\0';
}

/* The kind of a key of the table, or KCAL_KEY_UNKNOWN. */
static kcal_key_kind table_kind(const char *key)
{
    for (size_t i = 0; i < N_KEYS; i++)
        if (!strcmp(key_table[i].name, key))
            return key_table[i].kind;
    if (is_size_key(key, KCAL_WS_PREFIX) ||
        is_size_key(key, KCAL_MEMCPY_WS_PREFIX))
        return KCAL_KEY_NUMBER;
    return KCAL_KEY_UNKNOWN;
}

static int kind_is_numeric(kcal_key_kind k)
{
    return k == KCAL_KEY_NUMBER || k == KCAL_KEY_META_NUMBER;
}

/* A `<numeric key>_stderr` or `_dof` key. */
static int is_derived_numeric(const char *key)
{
    static const char *const suffixes[] = {"_stderr", "_dof", NULL};
    size_t len = strlen(key);
    for (const char *const *s = suffixes; *s; s++) {
        size_t sl = strlen(*s);
        if (len > sl && !strcmp(key + len - sl, *s)) {
            char base[128];
            if (len - sl >= sizeof base)
                return 0;
            memcpy(base, key, len - sl);
            base[len - sl] = '\0';
            return kind_is_numeric(table_kind(base));
        }
    }
    return 0;
}

kcal_key_kind kcal_params_key_kind(const char *key)
{
    kcal_key_kind k = table_kind(key);
    if (k == KCAL_KEY_UNKNOWN && is_derived_numeric(key))
        k = KCAL_KEY_NUMBER;
    return k;
}

static int key_is_numeric(const char *key)
{
    return kind_is_numeric(kcal_params_key_kind(key));
}

static int key_is_known(const char *key)
{
    return kcal_params_key_kind(key) != KCAL_KEY_UNKNOWN;
}

static int key_is_text(const char *key)
{
    return table_kind(key) == KCAL_KEY_TEXT;
}

static int key_name_ok(const char *key)
{
    if (!*key)
        return 0;
    for (const char *c = key; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
              *c == '_'))
            return 0;
    return 1;
}

void kcal_params_init(kcal_params *p)
{
    memset(p, 0, sizeof *p);
    p->alpha = p->beta = p->lock = p->page = p->gamma_a = p->gamma_b = NAN;
}

void kcal_params_free(kcal_params *p)
{
    for (size_t i = 0; i < p->n_entries; i++) {
        free(p->entries[i].key);
        free(p->entries[i].text);
    }
    free(p->entries);
    kcal_params_init(p);
}

/* Keep the mirrored fields in step with the entries. */
static void mirror(kcal_params *p, const char *key, double v)
{
    if (!strcmp(key, "alpha"))
        p->alpha = v;
    else if (!strcmp(key, "beta"))
        p->beta = v;
    else if (!strcmp(key, "lock"))
        p->lock = v;
    else if (!strcmp(key, "page"))
        p->page = v;
    else if (!strcmp(key, "gamma_a"))
        p->gamma_a = v;
    else if (!strcmp(key, "gamma_b"))
        p->gamma_b = v;
    else if (!strncmp(key, "sm_", 3)) {
        for (int op = 0; op < KCAL_SM_COUNT; op++) {
            size_t nl = strlen(sm_names[op]);
            if (!strncmp(key + 3, sm_names[op], nl) && key[3 + nl] == '_' &&
                key[4 + nl] && !key[5 + nl]) {
                if (key[4 + nl] == 'a')
                    p->sm_a[op] = v;
                else if (key[4 + nl] == 'b')
                    p->sm_b[op] = v;
            }
        }
    }
}

const kcal_param *kcal_params_find(const kcal_params *p, const char *key)
{
    for (size_t i = 0; i < p->n_entries; i++)
        if (!strcmp(p->entries[i].key, key))
            return &p->entries[i];
    return NULL;
}

double kcal_params_get(const kcal_params *p, const char *key, double fallback)
{
    const kcal_param *e = kcal_params_find(p, key);
    return (e && !e->is_text) ? e->value : fallback;
}

/* Add or replace; takes ownership of nothing (copies). */
static int put(kcal_params *p, const char *key, const char *text,
               double value, int is_text, int line)
{
    kcal_param *e = (kcal_param *)kcal_params_find(p, key);
    if (!e) {
        kcal_param *ne = kcal_grow(p->entries, &p->cap_entries, p->n_entries,
                                   sizeof *ne, 16);
        if (!ne)
            return -1;
        p->entries = ne;
        e = &p->entries[p->n_entries];
        memset(e, 0, sizeof *e);
        e->key = strdup(key);
        if (!e->key)
            return -1;
        p->n_entries++;
    }
    char *t = strdup(text);
    if (!t)
        return -1;
    free(e->text);
    e->text = t;
    e->value = is_text ? NAN : value;
    e->is_text = is_text;
    e->known = key_is_known(key);
    e->line = line;
    if (!is_text)
        mirror(p, key, value);
    return 0;
}

/* Shortest "%.Ng" that reads back to the same double: exact round trips,
 * and files people can still read. */
static void format_double(double v, char *buf, size_t len)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

/* The setters refuse what kcal_params_parse would refuse or read back
 * differently: whatever kcal probe and kcal fit set must be a file they
 * (and kcal predict) accept. */
const char *kcal_params_check_number(const char *key, double value)
{
    if (!key_name_ok(key))
        return "bad key (keys are [a-z0-9_])";
    if (!strcmp(key, "format"))
        return "'format' is the file's first line, not a key";
    if (key_is_text(key))
        return "is a text key";
    if (!isfinite(value))
        return "is not a finite number";
    if (value < 0)
        return "is negative";
    if (!strcmp(key, "page") && !(value >= 1))
        return "page size must be at least 1 byte";
    return NULL;
}

const char *kcal_params_check_text(const char *key, const char *text)
{
    if (!key_name_ok(key))
        return "bad key (keys are [a-z0-9_])";
    if (!strcmp(key, "format"))
        return "'format' is the file's first line, not a key";
    if (key_is_numeric(key))
        return "is a numeric key";
    if (strchr(text, '\n'))
        return "has a line break";
    if (strchr(text, '#'))
        return "has a '#' (a comment in a params file)";
    const char *c = text;
    while (isspace((unsigned char)*c))
        c++;
    if (!*c)
        return "has no value";
    return NULL;
}

int kcal_params_set(kcal_params *p, const char *key, double value)
{
    if (kcal_params_check_number(key, value))
        return -1;
    const kcal_param *e = kcal_params_find(p, key);
    if (e && e->is_text)
        return -1;
    /* -0 would be written "-0", which the reader refuses as negative. */
    if (value == 0)
        value = 0;
    char buf[64];
    format_double(value, buf, sizeof buf);
    return put(p, key, buf, value, 0, 0);
}

int kcal_params_set_text(kcal_params *p, const char *key, const char *text)
{
    if (kcal_params_check_text(key, text))
        return -1;
    /* Stored as the reader will see it: without surrounding blanks. */
    while (isspace((unsigned char)*text))
        text++;
    size_t len = strlen(text);
    while (len > 0 && isspace((unsigned char)text[len - 1]))
        len--;
    char *t = strndup(text, len);
    if (!t)
        return -1;
    int rc = put(p, key, t, NAN, 1, 0);
    free(t);
    return rc;
}

/* Strict number: all of the value is one strtod number, finite, >= 0. */
static int parse_number(const char *s, double *out, const char **why)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end != '\0') {
        *why = "is not a number";
        return -1;
    }
    /* ERANGE alone also flags subnormals, which are finite and exact. */
    if (!isfinite(v)) {
        *why = "is not a finite number";
        return -1;
    }
    if (v < 0 || (v == 0 && signbit(v))) {
        *why = "is negative";
        return -1;
    }
    *out = v;
    return 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

static int parse_line(kcal_params *p, char *line, const char *name, int lineno,
                      int *seen_format, char *err, size_t errlen)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    char *s = trim(line);
    if (!*s)
        return 0;

    char *key = s;
    while (*s && !isspace((unsigned char)*s))
        s++;
    if (*s)
        *s++ = '\0';
    char *value = trim(s);

    if (!key_name_ok(key)) {
        kcal_set_err(err, errlen, "%s:%d: bad key '%s' (keys are [a-z0-9_])",
                name, lineno, key);
        return -1;
    }
    if (!*seen_format) {
        if (strcmp(key, "format") || strcmp(value, KCAL_PARAMS_FORMAT)) {
            kcal_set_err(err, errlen,
                    "%s:%d: expected 'format " KCAL_PARAMS_FORMAT
                    "' as the first line that is not a comment",
                    name, lineno);
            return -1;
        }
        *seen_format = 1;
        return 0;
    }
    if (!strcmp(key, "format")) {
        kcal_set_err(err, errlen, "%s:%d: duplicate key 'format'", name, lineno);
        return -1;
    }
    if (!*value) {
        kcal_set_err(err, errlen, "%s:%d: key '%s' has no value", name, lineno,
                key);
        return -1;
    }
    const kcal_param *dup = kcal_params_find(p, key);
    if (dup) {
        kcal_set_err(err, errlen, "%s:%d: duplicate key '%s' (first on line %d)",
                name, lineno, key, dup->line);
        return -1;
    }

    int is_text;
    double v = NAN;
    if (key_is_numeric(key)) {
        const char *why;
        if (parse_number(value, &v, &why) < 0) {
            kcal_set_err(err, errlen, "%s:%d: value '%s' of '%s' %s", name, lineno,
                    value, key, why);
            return -1;
        }
        if (!strcmp(key, "page") && !(v >= 1)) {
            kcal_set_err(err, errlen, "%s:%d: page size must be at least 1 byte",
                    name, lineno);
            return -1;
        }
        is_text = 0;
    } else if (key_is_text(key)) {
        is_text = 1;
    } else {
        /* Unknown: keep it as a number when it reads as one, else as text. */
        const char *why;
        is_text = parse_number(value, &v, &why) < 0;
    }
    if (put(p, key, value, v, is_text, lineno) < 0) {
        kcal_set_err(err, errlen, "%s:%d: out of memory", name, lineno);
        return -1;
    }
    return 0;
}

int kcal_params_validate(const kcal_params *p, const char *name, char *err,
                         size_t errlen)
{
    for (size_t i = 0; i < N_KEYS; i++)
        if (key_table[i].required && !kcal_params_find(p, key_table[i].name)) {
            kcal_set_err(err, errlen, "%s: missing required key '%s'", name,
                         key_table[i].name);
            return -1;
        }
    return 0;
}

int kcal_params_parse(const char *text, const char *name, kcal_params *p,
                      char *err, size_t errlen)
{
    kcal_params_init(p);
    int seen_format = 0, lineno = 0, rc = 0;
    const char *cur = text;
    while (*cur && rc == 0) {
        const char *nl = strchr(cur, '\n');
        size_t len = nl ? (size_t)(nl - cur) : strlen(cur);
        lineno++;
        char *line = malloc(len + 1);
        if (!line) {
            kcal_set_err(err, errlen, "%s:%d: out of memory", name, lineno);
            rc = -1;
            break;
        }
        memcpy(line, cur, len);
        line[len] = '\0';
        if (memchr(cur, '\0', len)) {
            kcal_set_err(err, errlen, "%s:%d: NUL byte in line", name, lineno);
            rc = -1;
        } else {
            rc = parse_line(p, line, name, lineno, &seen_format, err, errlen);
        }
        free(line);
        cur = nl ? nl + 1 : cur + len;
    }
    if (rc == 0 && !seen_format) {
        kcal_set_err(err, errlen, "%s:%d: empty file: no 'format " KCAL_PARAMS_FORMAT
                "' line", name, lineno ? lineno : 1);
        rc = -1;
    }
    if (rc == 0)
        rc = kcal_params_validate(p, name, err, errlen);
    if (rc != 0)
        kcal_params_free(p);
    else
        snprintf(p->origin, sizeof p->origin, "%s", name);
    return rc;
}

int kcal_params_read(const char *path, kcal_params *p, char *err,
                     size_t errlen)
{
    kcal_params_init(p);
    FILE *f = kcal_infile_open(path, err, errlen);
    if (!f)
        return -1;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (cap - len < 4096) {
            cap = cap ? 2 * cap : 8192;
            if (cap > (64u << 20)) { /* a params file is a few hundred bytes */
                kcal_set_err(err, errlen, "%s: too large for a params file", path);
                free(buf);
                fclose(f);
                return -1;
            }
            char *nb = realloc(buf, cap + 1);
            if (!nb) {
                free(buf);
                fclose(f);
                kcal_set_err(err, errlen, "%s: out of memory", path);
                return -1;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        /* A NUL is refused below whatever follows: stop reading at once
         * (kcal predict --params /dev/zero). */
        if (got == 0 || memchr(buf + len - got, '\0', got))
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        kcal_set_err(err, errlen, "%s: read error", path);
        free(buf);
        return -1;
    }
    int rc = kcal_params_parse_buf(buf, len, path, p, err, errlen);
    free(buf);
    return rc;
}

int kcal_params_parse_buf(const char *data, size_t len, const char *name,
                          kcal_params *p, char *err, size_t errlen)
{
    kcal_params_init(p);
    const char *nul = memchr(data, '\0', len);
    if (nul) {
        /* Find the line of the NUL so the message can point at it. */
        int line = 1;
        for (const char *c = data; c < nul; c++)
            line += *c == '\n';
        kcal_set_err(err, errlen, "%s:%d: NUL byte in line", name, line);
        return -1;
    }
    char *text = malloc(len + 1);
    if (!text) {
        kcal_set_err(err, errlen, "%s: out of memory", name);
        return -1;
    }
    memcpy(text, data, len);
    text[len] = '\0';
    int rc = kcal_params_parse(text, name, p, err, errlen);
    free(text);
    return rc;
}

int kcal_params_write(FILE *f, const kcal_params *p, const char *comment)
{
    if (comment) {
        const char *c = comment;
        while (*c) {
            const char *nl = strchr(c, '\n');
            int len = nl ? (int)(nl - c) : (int)strlen(c);
            fprintf(f, "# %.*s\n", len, c);
            c += len + (nl ? 1 : 0);
        }
    }
    fprintf(f, "format " KCAL_PARAMS_FORMAT "\n");
    for (size_t i = 0; i < p->n_entries; i++)
        fprintf(f, "%s %s\n", p->entries[i].key, p->entries[i].text);
    return ferror(f) ? -1 : 0;
}

int kcal_params_format(const kcal_params *p, const char *comment,
                       char **text, size_t *len, char *err, size_t errlen)
{
    *text = NULL;
    *len = 0;
    char *buf = NULL;
    size_t n = 0;
    FILE *m = open_memstream(&buf, &n);
    if (!m) {
        kcal_set_err(err, errlen, "out of memory");
        return -1;
    }
    int bad = kcal_params_write(m, p, comment) < 0;
    if (fclose(m) != 0 || bad) {
        free(buf);
        kcal_set_err(err, errlen, "out of memory");
        return -1;
    }
    kcal_params q;
    char why[KCAL_ERRLEN];
    if (kcal_params_parse(buf, "output", &q, why, sizeof why) < 0) {
        kcal_set_err(err, errlen, "the params file would not read back: %s",
                     why);
        free(buf);
        return -1;
    }
    const char *diff = NULL;
    if (q.n_entries != p->n_entries)
        diff = p->n_entries ? p->entries[p->n_entries - 1].key : "format";
    for (size_t i = 0; !diff && i < p->n_entries; i++)
        if (strcmp(q.entries[i].key, p->entries[i].key) ||
            strcmp(q.entries[i].text, p->entries[i].text))
            diff = p->entries[i].key;
    kcal_params_free(&q);
    if (diff) {
        kcal_set_err(err, errlen, "the params file would not read back: "
                     "key '%s' reads differently", diff);
        free(buf);
        return -1;
    }
    *text = buf;
    *len = n;
    return 0;
}

/* ---- embedded defaults and the choice between sources ---- */

extern const char *const kcal_embedded_params_names[];
extern const char *const kcal_embedded_params_texts[];

const char *const *kcal_params_embedded_names(void)
{
    return kcal_embedded_params_names;
}

const char *kcal_params_embedded_text(const char *machine)
{
    for (int i = 0; kcal_embedded_params_names[i]; i++)
        if (!strcmp(kcal_embedded_params_names[i], machine))
            return kcal_embedded_params_texts[i];
    return NULL;
}

int kcal_params_load_embedded(const char *machine, kcal_params *p, char *err,
                              size_t errlen)
{
    const char *text = kcal_params_embedded_text(machine);
    kcal_params_init(p);
    if (!text) {
        char names[128] = "";
        for (int i = 0; kcal_embedded_params_names[i]; i++) {
            strncat(names, i ? "|" : "", sizeof names - strlen(names) - 1);
            strncat(names, kcal_embedded_params_names[i],
                    sizeof names - strlen(names) - 1);
        }
        kcal_set_err(err, errlen, "unknown machine '%s' (embedded: %s)", machine,
                names);
        return -1;
    }
    char name[96];
    snprintf(name, sizeof name, "data/%s.params (embedded)", machine);
    if (kcal_params_parse(text, name, p, err, errlen) < 0)
        return -1;
    snprintf(p->origin, sizeof p->origin, "embedded %s", machine);
    return 0;
}

int kcal_params_choose(const char *file, const char *machine, kcal_params *p,
                       char *chosen, size_t chosenlen, char *err,
                       size_t errlen)
{
    const char *env = getenv("KCAL_PARAMS");
    int rc;
    if (file) {
        rc = kcal_params_read(file, p, err, errlen);
        if (chosen)
            snprintf(chosen, chosenlen, "file %s (--params)", file);
    } else if (machine) {
        rc = kcal_params_load_embedded(machine, p, err, errlen);
        if (chosen)
            snprintf(chosen, chosenlen, "embedded %s (--machine)", machine);
    } else if (env && *env) {
        rc = kcal_params_read(env, p, err, errlen);
        if (chosen)
            snprintf(chosen, chosenlen, "file %s ($KCAL_PARAMS)", env);
    } else {
        rc = kcal_params_load_embedded(KCAL_PARAMS_DEFAULT_MACHINE, p, err,
                                       errlen);
        if (chosen)
            snprintf(chosen, chosenlen,
                     "embedded " KCAL_PARAMS_DEFAULT_MACHINE " (default; "
                     "--params, --machine or $KCAL_PARAMS to change)");
    }
    return rc;
}
