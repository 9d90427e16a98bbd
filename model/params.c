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

/* What the registry says of a name, from one kcal_key_lookup (a scan of
 * its rows; the reader asks both facts of every line): slot is its slot
 * in p->at (model/keys.h), or -1 for an open family's key (beta_ws_64k,
 * alpha_stderr) and for a name that is no key; kind is
 * kcal_params_key_kind's. */
typedef struct {
    kcal_pkey slot;
    kcal_key_kind kind;
} key_facts;

static key_facts facts_of(const char *key)
{
    kcal_pkey k = kcal_key_lookup(key, NULL, NULL);
    const kcal_key_info *in = kcal_key_info_of(k);
    key_facts f = {k, in ? in->kind : KCAL_KEY_UNKNOWN};
    if (k < 0 || (k < KCAL_PK_ROWS && in->members != KCAL_MEMBERS_NONE))
        f.slot = -1;
    return f;
}

static kcal_pkey slot_of(const char *key)
{
    return facts_of(key).slot;
}

/* The kind of a key of the registry (model/keys.def), its standard-error
 * and degrees-of-freedom keys included, or KCAL_KEY_UNKNOWN. */
kcal_key_kind kcal_params_key_kind(const char *key)
{
    return facts_of(key).kind;
}

static int kind_is_numeric(kcal_key_kind k)
{
    return k == KCAL_KEY_NUMBER || k == KCAL_KEY_META_NUMBER;
}

static int key_is_numeric(const char *key)
{
    return kind_is_numeric(kcal_params_key_kind(key));
}

static int key_is_text(const char *key)
{
    return kcal_params_key_kind(key) == KCAL_KEY_TEXT;
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
static void mirror(kcal_params *p, kcal_pkey k, double v)
{
    switch (k) {
    case KCAL_PK_alpha: p->alpha = v; return;
    case KCAL_PK_beta: p->beta = v; return;
    case KCAL_PK_lock: p->lock = v; return;
    case KCAL_PK_page: p->page = v; return;
    case KCAL_PK_gamma_a: p->gamma_a = v; return;
    case KCAL_PK_gamma_b: p->gamma_b = v; return;
    }
    if (k >= KCAL_PK_sm_a_0 && k < KCAL_PK_sm_a_0 + KCAL_SM_COUNT)
        p->sm_a[k - KCAL_PK_sm_a_0] = v;
    else if (k >= KCAL_PK_sm_b_0 && k < KCAL_PK_sm_b_0 + KCAL_SM_COUNT)
        p->sm_b[k - KCAL_PK_sm_b_0] = v;
}

/* "64k" -> 65536; 0 when it is not a size. Looser than the reader's
 * size keys (digits, then k, m or g): the model took any numeric entry
 * whose name reads so, and still does. */
static double curve_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0))
        return 0;
    switch (*end) {
    case 'k': v *= 1024.0; end++; break;
    case 'm': v *= 1048576.0; end++; break;
    case 'g': v *= 1073741824.0; end++; break;
    default: break;
    }
    return *end ? 0 : v;
}

/* One point (w, v) into a curve kept sorted by w, after the points of the
 * same w; ignored unless both are positive and there is room. */
static void curve_add(kcal_curve *c, double w, double v)
{
    if (!(w > 0) || !(v > 0) || c->n >= KCAL_CURVE_MAX)
        return;
    size_t j = c->n++;
    while (j > 0 && c->w[j - 1] > w) {
        c->w[j] = c->w[j - 1];
        c->v[j] = c->v[j - 1];
        j--;
    }
    c->w[j] = w;
    c->v[j] = v;
}

static const kcal_pkey curve_family[KCAL_CURVE_COUNT] = {
    [KCAL_CURVE_BETA_WS] = KCAL_PK_beta_ws,
    [KCAL_CURVE_MEMCPY_WS] = KCAL_PK_memcpy_ws,
};

/* The curve whose prefix starts key, or -1. */
static int curve_of(const char *key)
{
    for (int c = 0; c < KCAL_CURVE_COUNT; c++) {
        const char *pre = kcal_key_info_of(curve_family[c])->prefix;
        if (!strncmp(key, pre, strlen(pre)))
            return c;
    }
    return -1;
}

/* The whole curve again from the entries, in file order. */
static void curve_rebuild(kcal_params *p, int c)
{
    size_t plen = strlen(kcal_key_info_of(curve_family[c])->prefix);
    p->curves[c].n = 0;
    for (size_t i = 0; i < p->n_entries; i++) {
        const kcal_param *e = &p->entries[i];
        if (!e->is_text && curve_of(e->key) == c)
            curve_add(&p->curves[c], curve_size(e->key + plen), e->value);
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

/* The entry of key, f its facts_of: by its slot where it has one (one
 * load), else by name. */
static kcal_param *find_entry(const kcal_params *p, const char *key,
                              key_facts f)
{
    if (f.slot >= 0)
        return (kcal_param *)kcal_params_find_key(p, f.slot);
    return (kcal_param *)kcal_params_find(p, key);
}

/* Set e (key's entry, f its facts_of), or add key when e is NULL; copies
 * what it keeps. The curves are the caller's to rebuild. */
static int put_entry(kcal_params *p, kcal_param *e, const char *key,
                     key_facts f, const char *text, double value, int is_text,
                     int line)
{
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
    e->known = f.kind != KCAL_KEY_UNKNOWN;
    e->line = line;
    if (f.slot >= 0)
        p->at[f.slot] = (size_t)(e - p->entries) + 1;
    if (!is_text)
        mirror(p, f.slot, value);
    return 0;
}

/* Add or replace; takes ownership of nothing (copies). */
static int put(kcal_params *p, const char *key, const char *text,
               double value, int is_text, int line)
{
    key_facts f = facts_of(key);
    if (put_entry(p, find_entry(p, key, f), key, f, text, value, is_text,
                  line) < 0)
        return -1;
    int c = curve_of(key);
    if (c >= 0)
        curve_rebuild(p, c);
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
    if (slot_of(key) == KCAL_PK_page && !(value >= 1))
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
    key_facts kf = facts_of(key);
    const kcal_param *dup = find_entry(p, key, kf);
    if (dup) {
        kcal_set_err(err, errlen, "%s:%d: duplicate key '%s' (first on line %d)",
                name, lineno, key, dup->line);
        return -1;
    }

    int is_text;
    double v = NAN;
    if (kind_is_numeric(kf.kind)) {
        const char *why;
        if (parse_number(value, &v, &why) < 0) {
            kcal_set_err(err, errlen, "%s:%d: value '%s' of '%s' %s", name, lineno,
                    value, key, why);
            return -1;
        }
        if (kf.slot == KCAL_PK_page && !(v >= 1)) {
            kcal_set_err(err, errlen, "%s:%d: page size must be at least 1 byte",
                    name, lineno);
            return -1;
        }
        is_text = 0;
    } else if (kf.kind == KCAL_KEY_TEXT) {
        is_text = 1;
    } else {
        /* Unknown: keep it as a number when it reads as one, else as text. */
        const char *why;
        is_text = parse_number(value, &v, &why) < 0;
    }
    /* A new key (dup above); kcal_params_parse rebuilds the curves once
     * at the end, not at each of their keys. */
    if (put_entry(p, NULL, key, kf, value, v, is_text, lineno) < 0) {
        kcal_set_err(err, errlen, "%s:%d: out of memory", name, lineno);
        return -1;
    }
    return 0;
}

int kcal_params_validate(const kcal_params *p, const char *name, char *err,
                         size_t errlen)
{
    for (kcal_pkey k = 0; k < KCAL_PK_ROWS; k++)
        if (kcal_key_info_of(k)->required && !kcal_params_has_key(p, k)) {
            kcal_set_err(err, errlen, "%s: missing required key '%s'", name,
                         kcal_key_name(k));
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
    for (int c = 0; c < KCAL_CURVE_COUNT && rc == 0; c++)
        curve_rebuild(p, c);
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
