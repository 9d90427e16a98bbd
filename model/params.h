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

#define KCAL_PARAMS_FORMAT "kcal-params-1"
#define KCAL_ERRLEN 512

/* Shared-memory control collectives of the model (T_sm_X). */
typedef enum {
    KCAL_SM_BCAST = 0,
    KCAL_SM_GATHER,
    KCAL_SM_ALLGATHER,
    KCAL_SM_BARRIER,
    KCAL_SM_COUNT
} kcal_sm_op;

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

/* The full model's β(working set) keys (issue 9): beta_ws_ followed by
 * the working set as a size in lower case: beta_ws_64k, beta_ws_512m. */
#define KCAL_WS_PREFIX "beta_ws_"

/* The full model's memcpy-rate curve (issue 8): the time per byte of a
 * plain memcpy at working set W, for the copies a process makes in its
 * own memory (T_memcpy, copy_in_out's staging): memcpy_ws_64k, ... */
#define KCAL_MEMCPY_WS_PREFIX "memcpy_ws_"

/* What a key is, from the one table of keys (model.md "The params file"). */
typedef enum {
    KCAL_KEY_UNKNOWN = 0, /* not a key of model.md: kept, warned about */
    KCAL_KEY_NUMBER,      /* a model parameter, or a <key>_stderr/_dof */
    KCAL_KEY_META_NUMBER, /* a number the probe records about the machine
                           * (page, cache sizes, max_readers): a raw file's
                           * `# meta` entry that kcal fit copies as a number */
    KCAL_KEY_TEXT,        /* metadata text (cpu, kernel, date, ...) */
} kcal_key_kind;
kcal_key_kind kcal_params_key_kind(const char *key);

/* Lookup: NULL when absent. */
const kcal_param *kcal_params_find(const kcal_params *p, const char *key);
/* Numeric value of key, or `fallback` when absent or text. */
double kcal_params_get(const kcal_params *p, const char *key, double fallback);

/* Check that all required keys are present. Returns 0 or -1 with a message
 * naming the first missing key. */
int kcal_params_validate(const kcal_params *p, const char *name, char *err,
                         size_t errlen);

/* Name of the shared-memory op as used in keys (sm_<name>_a). */
const char *kcal_sm_name(kcal_sm_op op);

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
