/* raw: sample store and raw CSV file of `kcal probe` (see raw.h). */
#include "fit/raw.h"
#include "common/err.h"
#include "common/grow.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void kcal_raw_init(kcal_raw *r)
{
    memset(r, 0, sizeof *r);
}

void kcal_raw_free(kcal_raw *r)
{
    for (size_t i = 0; i < r->n_meta; i++) {
        free(r->meta[i].key);
        free(r->meta[i].value);
    }
    free(r->meta);
    free(r->s);
    kcal_raw_init(r);
}

/* Names go into a CSV without quoting: no separators, no line breaks. */
static int name_ok(const char *s, size_t max)
{
    size_t len = strlen(s);
    if (len == 0 || len >= max)
        return 0;
    return strcspn(s, ", \t\r\n\"#") == len;
}

int kcal_raw_add(kcal_raw *r, const char *phase, const char *pattern,
                 int readers, long pages, long bytes, int rep, double seconds)
{
    if (!name_ok(phase, sizeof r->s->phase) ||
        !name_ok(pattern, sizeof r->s->pattern))
        return -1;
    kcal_sample *grown = kcal_grow(r->s, &r->cap, r->n, sizeof *grown, 1024);
    if (!grown)
        return -1;
    r->s = grown;
    kcal_sample *s = &r->s[r->n++];
    memset(s, 0, sizeof *s);
    strcpy(s->phase, phase);
    strcpy(s->pattern, pattern);
    s->readers = readers;
    s->pages = pages;
    s->bytes = bytes;
    s->rep = rep;
    s->seconds = seconds;
    return 0;
}

int kcal_raw_set_meta(kcal_raw *r, const char *key, const char *value)
{
    /* What the reader would refuse or read differently (it drops a line's
     * trailing CR), the writer never writes. */
    size_t len = strlen(value);
    if (!name_ok(key, 64) || len == 0 || strchr(value, '\n') ||
        value[len - 1] == '\r' || len > KCAL_RAW_MAX_LINE / 2)
        return -1;
    for (size_t i = 0; i < r->n_meta; i++)
        if (!strcmp(r->meta[i].key, key)) {
            char *v = strdup(value);
            if (!v)
                return -1;
            free(r->meta[i].value);
            r->meta[i].value = v;
            return 0;
        }
    kcal_raw_meta *m = kcal_grow(r->meta, &r->cap_meta, r->n_meta, sizeof *m,
                                 16);
    if (!m)
        return -1;
    r->meta = m;
    char *k = strdup(key), *v = strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    r->meta[r->n_meta].key = k;
    r->meta[r->n_meta].value = v;
    r->n_meta++;
    return 0;
}

const char *kcal_raw_get_meta(const kcal_raw *r, const char *key)
{
    for (size_t i = 0; i < r->n_meta; i++)
        if (!strcmp(r->meta[i].key, key))
            return r->meta[i].value;
    return NULL;
}

int kcal_raw_write(FILE *f, const kcal_raw *r)
{
    for (size_t i = 0; i < r->n_meta; i++)
        fprintf(f, "# meta %s %s\n", r->meta[i].key, r->meta[i].value);
    fprintf(f, "%s\n", KCAL_RAW_HEADER);
    for (size_t i = 0; i < r->n; i++) {
        const kcal_sample *s = &r->s[i];
        fprintf(f, "%s,%s,%d,%ld,%ld,%d,%.17g\n", s->phase, s->pattern,
                s->readers, s->pages, s->bytes, s->rep, s->seconds);
    }
    return ferror(f) ? -1 : 0;
}

/* The temporary file kcal_raw_save writes and renames: next to path, so
 * the rename stays in one file system. malloc'd; NULL when out of memory. */
static char *tmp_name(const char *path)
{
    size_t len = strlen(path) + 32;
    char *tmp = malloc(len);
    if (tmp)
        snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
    return tmp;
}

int kcal_raw_check_writable(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        kcal_set_err(err, errlen, "%s: is a directory", path);
        return -1;
    }
    char *tmp = tmp_name(path);
    if (!tmp) {
        kcal_set_err(err, errlen, "%s: out of memory", path);
        return -1;
    }
    /* Exactly what kcal_raw_save will do first, then undone. */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0) {
        kcal_set_err(err, errlen, "%s: cannot create it: %s", path,
                     strerror(errno));
        free(tmp);
        return -1;
    }
    close(fd);
    unlink(tmp);
    free(tmp);
    return 0;
}

int kcal_raw_save(const char *path, const kcal_raw *r, char *err,
                  size_t errlen)
{
    char *tmp = tmp_name(path);
    if (!tmp) {
        kcal_set_err(err, errlen, "%s: out of memory", path);
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        kcal_set_err(err, errlen, "%s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    int rc = kcal_raw_write(f, r);
    int saved = errno;
    if (fclose(f) != 0 && rc == 0) {
        rc = -1;
        saved = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        saved = errno;
    }
    if (rc < 0) {
        kcal_set_err(err, errlen, "%s: %s", path, strerror(saved));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}

/* Split one CSV line into exactly 7 fields (in place). */
static int split7(char *line, char **f)
{
    int n = 0;
    f[n++] = line;
    for (char *c = line; *c; c++)
        if (*c == ',') {
            if (n == 7)
                return -1;
            *c = '\0';
            f[n++] = c + 1;
        }
    return n == 7 ? 0 : -1;
}

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* One line (no NUL in it, newline removed, NUL-terminated at len). 0, or
 * -1 with err. */
static int parse_line(kcal_raw *r, char *line, size_t len, const char *name,
                      long lineno, int *have_header, char *err, size_t errlen)
{
    while (len > 0 && line[len - 1] == '\r')
        line[--len] = '\0';
    if (len == 0)
        return 0;
    if (line[0] == '#') {
        if (!strncmp(line, "# meta ", 7)) {
            char *key = line + 7, *sp = strchr(key, ' ');
            if (!sp || !sp[1]) {
                kcal_set_err(err, errlen, "%s:%ld: meta line without a value",
                             name, lineno);
                return -1;
            }
            *sp = '\0';
            if (kcal_raw_set_meta(r, key, sp + 1) < 0) {
                kcal_set_err(err, errlen, "%s:%ld: bad meta entry '%s' (a key "
                             "under 64 bytes without blanks, ',', '\"' or "
                             "'#'; a value of at most %d bytes)", name, lineno, key,
                             KCAL_RAW_MAX_LINE / 2);
                return -1;
            }
        }
        return 0;
    }
    if (!*have_header) {
        if (strcmp(line, KCAL_RAW_HEADER)) {
            kcal_set_err(err, errlen, "%s:%ld: expected the header '%s'", name,
                         lineno, KCAL_RAW_HEADER);
            return -1;
        }
        *have_header = 1;
        return 0;
    }
    char *fld[7];
    long readers, pages, bytes, rep;
    if (split7(line, fld) < 0) {
        kcal_set_err(err, errlen, "%s:%ld: expected 7 comma-separated fields",
                     name, lineno);
        return -1;
    }
    if (parse_long(fld[2], 0, 1 << 20, &readers) < 0 ||
        parse_long(fld[3], -1, 1L << 40, &pages) < 0 ||
        parse_long(fld[4], 0, 1L << 50, &bytes) < 0 ||
        parse_long(fld[5], 0, 1L << 30, &rep) < 0) {
        kcal_set_err(err, errlen, "%s:%ld: readers, pages, bytes and rep must "
                     "be whole numbers", name, lineno);
        return -1;
    }
    char *end;
    errno = 0;
    double sec = strtod(fld[6], &end);
    /* ERANGE on underflow still yields the nearest double: keep it. */
    if (end == fld[6] || *end || !isfinite(sec) || sec < 0 ||
        (errno && errno != ERANGE)) {
        kcal_set_err(err, errlen, "%s:%ld: seconds '%s' is not a finite "
                     "number >= 0", name, lineno, fld[6]);
        return -1;
    }
    if (kcal_raw_add(r, fld[0], fld[1], (int)readers, pages, bytes, (int)rep,
                     sec) < 0) {
        kcal_set_err(err, errlen, "%s:%ld: bad phase or pattern name", name,
                     lineno);
        return -1;
    }
    return 0;
}

/* Line by line over text that arrives in pieces (a file read in chunks,
 * or one buffer): each line is gathered in a buffer of KCAL_RAW_MAX_LINE
 * bytes, so input without newlines costs no more memory than that. */
typedef struct {
    kcal_raw *r;
    const char *name;
    char line[KCAL_RAW_MAX_LINE + 1];
    size_t len;
    long lineno;
    int have_header;
} line_reader;

static int feed(line_reader *lr, const char *data, size_t n, char *err,
                size_t errlen)
{
    while (n > 0) {
        const char *nl = memchr(data, '\n', n);
        size_t take = nl ? (size_t)(nl - data) : n;
        /* The params and report readers refuse NULs too: a NUL would end
         * the line for every string function and silently drop the rest. */
        if (memchr(data, '\0', take)) {
            kcal_set_err(err, errlen, "%s:%ld: NUL byte in line", lr->name,
                         lr->lineno + 1);
            return -1;
        }
        if (take > KCAL_RAW_MAX_LINE - lr->len) {
            kcal_set_err(err, errlen, "%s:%ld: line longer than %d bytes (a "
                         "raw file's lines are short: is this a raw file?)",
                         lr->name, lr->lineno + 1, KCAL_RAW_MAX_LINE);
            return -1;
        }
        memcpy(lr->line + lr->len, data, take);
        lr->len += take;
        if (!nl)
            return 0;
        lr->line[lr->len] = '\0';
        if (parse_line(lr->r, lr->line, lr->len, lr->name, ++lr->lineno,
                       &lr->have_header, err, errlen) < 0)
            return -1;
        lr->len = 0;
        data += take + 1;
        n -= take + 1;
    }
    return 0;
}

/* The last line (without a newline), and whether there was a header. */
static int finish(line_reader *lr, char *err, size_t errlen)
{
    if (lr->len > 0) {
        lr->line[lr->len] = '\0';
        if (parse_line(lr->r, lr->line, lr->len, lr->name, ++lr->lineno,
                       &lr->have_header, err, errlen) < 0)
            return -1;
    }
    if (!lr->have_header) {
        kcal_set_err(err, errlen, "%s:%ld: no header line '%s'", lr->name,
                     lr->lineno ? lr->lineno : 1, KCAL_RAW_HEADER);
        return -1;
    }
    return 0;
}

int kcal_raw_parse(const char *data, size_t len, const char *name,
                   kcal_raw *r, char *err, size_t errlen)
{
    kcal_raw_init(r);
    line_reader *lr = calloc(1, sizeof *lr);
    if (!lr) {
        kcal_set_err(err, errlen, "%s: out of memory", name);
        return -1;
    }
    lr->r = r;
    lr->name = name;
    int rc = feed(lr, data, len, err, errlen) < 0 || finish(lr, err, errlen) < 0
                 ? -1
                 : 0;
    free(lr);
    if (rc < 0)
        kcal_raw_free(r);
    return rc;
}

int kcal_raw_read(const char *path, kcal_raw *r, char *err, size_t errlen)
{
    kcal_raw_init(r);
    FILE *f = fopen(path, "r");
    if (!f) {
        kcal_set_err(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    /* A regular file larger than any probe writes is refused before a
     * byte is read; other files (pipes, devices) are counted as read. */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
        (unsigned long long)st.st_size > KCAL_RAW_MAX_BYTES) {
        kcal_set_err(err, errlen, "%s: too large for a raw file (%lld bytes; "
                     "at most %llu)", path, (long long)st.st_size,
                     (unsigned long long)KCAL_RAW_MAX_BYTES);
        fclose(f);
        return -1;
    }
    line_reader *lr = calloc(1, sizeof *lr);
    char *chunk = malloc(1 << 16);
    int rc = -1;
    if (!lr || !chunk) {
        kcal_set_err(err, errlen, "%s: out of memory", path);
        goto done;
    }
    lr->r = r;
    lr->name = path;
    unsigned long long total = 0;
    size_t got;
    while ((got = fread(chunk, 1, 1 << 16, f)) > 0) {
        total += got;
        if (total > KCAL_RAW_MAX_BYTES) {
            kcal_set_err(err, errlen, "%s: too large for a raw file (more "
                         "than %llu bytes)", path,
                         (unsigned long long)KCAL_RAW_MAX_BYTES);
            goto done;
        }
        if (feed(lr, chunk, got, err, errlen) < 0)
            goto done;
    }
    if (ferror(f)) {
        kcal_set_err(err, errlen, "%s: %s", path, strerror(errno));
        goto done;
    }
    rc = finish(lr, err, errlen);
done:
    free(chunk);
    free(lr);
    fclose(f);
    if (rc < 0)
        kcal_raw_free(r);
    return rc;
}

size_t kcal_raw_select(const kcal_raw *r, const char *phase,
                       const char *pattern, int readers, long pages,
                       double *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const kcal_sample *s = &r->s[i];
        if (strcmp(s->phase, phase) || (pattern && strcmp(s->pattern, pattern)) ||
            (readers && s->readers != readers) || (pages >= 0 && s->pages != pages))
            continue;
        if (out && n < max)
            out[n] = s->seconds;
        n++;
    }
    return n;
}
