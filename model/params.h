/* params: the per-machine model parameters and the `*.params` file format.
 *
 * Owns reading, writing and querying `kcal-params-1` files as specified in
 * docs/model.md ("The params file"). Library code: returns error
 * codes and fills an error buffer ("FILE:LINE: what"); never prints or exits.
 */
#ifndef KCAL_PARAMS_H
#define KCAL_PARAMS_H

#include <stddef.h>
#include <stdio.h>

#include "model/keys.h"

#define KCAL_PARAMS_FORMAT "kcal-params-1"
#define KCAL_ERRLEN 512

/* The β(W) and memcpy-rate curves (issues 8, 9): the points of a family
 * of size keys (beta_ws_<W>, memcpy_ws_<W>), ascending in W. */
#define KCAL_CURVE_MAX 64
typedef struct {
    size_t n;
    double w[KCAL_CURVE_MAX], v[KCAL_CURVE_MAX];
} kcal_curve;

/* Which curve of kcal_params.curves. */
enum { KCAL_CURVE_BETA_WS = 0, KCAL_CURVE_MEMCPY_WS, KCAL_CURVE_COUNT };

/* One `key value` line, kept in file order so a written file reads like the
 * one that was parsed, and unknown keys survive a round trip. */
typedef struct kcal_param {
    char *key;
    char *text;   /* the value as written (always set) */
    double value; /* numeric value; NAN for text keys */
    int is_text;  /* 1 for metadata text keys */
    int known;    /* 0: not a key of model.md (kept, warned about) */
    int line;     /* line in the source file; 0 when set in code */
} kcal_param;

typedef struct kcal_params {
    /* Required keys, mirrored here for speed (the model reads them in loops). */
    double alpha;   /* s: start-up of one CMA call */
    double beta;    /* s/byte: copy time per byte */
    double lock;    /* s/page: lock+pin one page without contention */
    double page;    /* bytes: page size */
    double gamma_a; /* gamma(c) = gamma_a*c^2 + gamma_b*c for c >= 2 */
    double gamma_b;
    double sm_a[KCAL_SM_COUNT]; /* T_sm_X(p) = sm_a + sm_b*log2(p), p >= 2 */
    double sm_b[KCAL_SM_COUNT];

    kcal_param *entries; /* every key in file order */
    size_t n_entries, cap_entries;
    char origin[256]; /* where these came from: a path or "embedded knl" */

    /* The keys of model/keys.def by slot, kept in step with the entries by
     * every change (so a lookup by id is one load, and readers on any
     * thread see a finished index): at[k] is 1 + the entry's index, 0
     * when the key is absent. curves hold the beta_ws_<W> and
     * memcpy_ws_<W> points. Read them through kcal_params_find_key,
     * kcal_params_get_key and kcal_params_curve. */
    size_t at[KCAL_PK_SLOTS];
    kcal_curve curves[KCAL_CURVE_COUNT];
} kcal_params;

/* Initialise an empty set (no keys). Free with kcal_params_free. */
void kcal_params_init(kcal_params *p);
void kcal_params_free(kcal_params *p);

/* Parse `text` (NUL-terminated) that came from `name` (used in messages).
 * Returns 0, or -1 with "name:line: message" in err. On error *p is left
 * empty (freed and re-initialised). */
int kcal_params_parse(const char *text, const char *name, kcal_params *p,
                      char *err, size_t errlen);

/* The same from len bytes in memory (not NUL-terminated; a NUL byte is an
 * error naming its line). */
int kcal_params_parse_buf(const char *data, size_t len, const char *name,
                          kcal_params *p, char *err, size_t errlen);

/* Read and parse a file (at most 64 MiB). Same contract as
 * kcal_params_parse. */
int kcal_params_read(const char *path, kcal_params *p, char *err,
                     size_t errlen);

/* Write in kcal-params-1 format: `comment` (may be NULL, may hold several
 * lines) as `#` lines, then `format`, then every key in order. Numbers are
 * written with the fewest digits that read back to the same double, so a
 * write-read round trip is bit-exact. Returns 0 or -1 (errno from stdio). */
int kcal_params_write(FILE *f, const kcal_params *p, const char *comment);

/* The file kcal_params_write would write, in memory (*text, malloc'd,
 * *len bytes), checked to read back with kcal_params_parse to the same keys
 * and values, so a command never prints a params file its own reader
 * refuses. 0, or -1 with "the params file would not read back: <why>" in
 * err (*text NULL). */
int kcal_params_format(const kcal_params *p, const char *comment,
                       char **text, size_t *len, char *err, size_t errlen);

/* Set (add or replace) a numeric or text key. Known numeric keys update the
 * mirrored fields. Returns 0, or -1 when kcal_params_check_number/_text
 * says why not, or for a number on a key already set as text. A text value
 * is stored without surrounding blanks (as the reader would see it); -0 is
 * stored as 0. */
int kcal_params_set(kcal_params *p, const char *key, double value);
int kcal_params_set_text(kcal_params *p, const char *key, const char *text);

/* Why the setters would refuse key = value (a short reason, such as "is
 * negative" or "has no value"), or NULL when they would not. The rules are
 * the reader's: what is set can be written and read back. */
const char *kcal_params_check_number(const char *key, double value);
const char *kcal_params_check_text(const char *key, const char *text);

/* The prefixes of the beta_ws_<W> and memcpy_ws_<W> keys (model/keys.def),
 * for code that makes their names itself. */
#define KCAL_WS_PREFIX (kcal_key_info_of(KCAL_PK_beta_ws)->prefix)
#define KCAL_MEMCPY_WS_PREFIX (kcal_key_info_of(KCAL_PK_memcpy_ws)->prefix)

/* What a key is, from the one table of keys (model/keys.def). */
kcal_key_kind kcal_params_key_kind(const char *key);

/* Lookup: NULL when absent. */
const kcal_param *kcal_params_find(const kcal_params *p, const char *key);
/* Numeric value of key, or `fallback` when absent or text. */
double kcal_params_get(const kcal_params *p, const char *key, double fallback);

/* The same by id (a slot of model/keys.h: KCAL_PK_sync_step,
 * KCAL_PK_MEMBER(mpi_below, c)), without a scan. */
static inline const kcal_param *kcal_params_find_key(const kcal_params *p,
                                                     kcal_pkey k)
{
    return k >= 0 && k < KCAL_PK_SLOTS && p->at[k] ? &p->entries[p->at[k] - 1]
                                                   : NULL;
}

static inline double kcal_params_get_key(const kcal_params *p, kcal_pkey k,
                                         double fallback)
{
    const kcal_param *e = kcal_params_find_key(p, k);
    return (e && !e->is_text) ? e->value : fallback;
}

/* Whether the key is set (as a number or as text). */
static inline int kcal_params_has_key(const kcal_params *p, kcal_pkey k)
{
    return kcal_params_find_key(p, k) != NULL;
}

/* A curve (KCAL_CURVE_BETA_WS, KCAL_CURVE_MEMCPY_WS): every numeric entry
 * whose name is the family's prefix and a size (strtod, then k, m or g)
 * greater than 0, with a value greater than 0, at most KCAL_CURVE_MAX of
 * them in file order, sorted by size (equal sizes in file order). */
static inline const kcal_curve *kcal_params_curve(const kcal_params *p,
                                                  int which)
{
    return &p->curves[which];
}

/* Check that all required keys are present. Returns 0 or -1 with a message
 * naming the first missing key. */
int kcal_params_validate(const kcal_params *p, const char *name, char *err,
                         size_t errlen);

/* Embedded defaults (data/<name>.params compiled in); the one used when
 * nothing else is named (the paper's Table IV machine). */
#define KCAL_PARAMS_DEFAULT_MACHINE "knl"
const char *kcal_params_embedded_text(const char *machine); /* NULL: unknown */
const char *const *kcal_params_embedded_names(void); /* NULL-terminated */
int kcal_params_load_embedded(const char *machine, kcal_params *p, char *err,
                              size_t errlen);

/* Which params a command uses: `file` if set, else `machine` if set, else
 * $KCAL_PARAMS, else KCAL_PARAMS_DEFAULT_MACHINE. (libkcoll reads
 * $KCAL_PARAMS through its own configuration, algos/config.def, and passes
 * it as `file`.) `chosen` (may be NULL) receives a
 * human-readable description such as "params: file x.params (--params)". */
int kcal_params_choose(const char *file, const char *machine, kcal_params *p,
                       char *chosen, size_t chosenlen, char *err,
                       size_t errlen);

#endif
