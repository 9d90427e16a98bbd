/* table: the selection table, `kcoll-table 1` (docs/tune.md).
 *
 * Owns the text format that `kcal tune` writes and libkcoll reads
 * ($KCOLL_TABLE): one rule per line, "collective, p range, size range ->
 * algorithm[:k] or mpi", checked against the algorithm registry
 * (model/algorithms.def); reading it, looking a call up in it, and writing
 * it back. Library code: pure C, no MPI; returns errors as
 * "FILE:LINE: what" in the caller's buffer, never prints or exits. */
#ifndef KCAL_TABLE_H
#define KCAL_TABLE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "model/irregular.h"
#include "model/model.h"

#define KCAL_TABLE_FORMAT "kcoll-table"
#define KCAL_TABLE_VERSION 1
/* A table holds a few rules per collective; the limits keep a wrong file
 * (a binary, a log) from costing time or memory before it is refused. */
#define KCAL_TABLE_MAX_RULES 4096
#define KCAL_TABLE_MAX_LINE 1024
#define KCAL_TABLE_MAX_BYTES (1u << 20)
/* p values written in a table: 1 .. KCAL_TABLE_P_MAX. */
#define KCAL_TABLE_P_MAX (1 << 30)
/* The upper ends of open ranges ("4.." and "64K.."). */
#define KCAL_TABLE_P_OPEN INT_MAX
#define KCAL_TABLE_N_OPEN UINT64_MAX

/* One rule: calls of `coll` with p in [p_lo, p_hi] and n in [n_lo, n_hi]
 * (bytes per block as in kcoll's n; the whole message for bcast) run alg.
 * alg is kcal_model_mpi(coll) for `mpi`; k is the number after the colon,
 * 0 when none was given (an algorithm without a parameter, or one whose
 * k the model is left to choose).
 *
 * A v-collective's rule (vcoll > 0) speaks of a pair's block instead: n is
 * the bytes one process sends another, and the choice is `mpi` (valg
 * NULL) or a row of algos/irregular.def (valg), k a windowed row's window
 * (0: none given); coll is KCAL_COLL_COUNT and alg NULL. How libkcoll
 * follows such rules: kcal_table_vchoice. */
typedef struct {
    kcal_coll coll;
    int p_lo, p_hi;     /* p_hi KCAL_TABLE_P_OPEN: no upper end */
    uint64_t n_lo, n_hi; /* n_hi KCAL_TABLE_N_OPEN: no upper end */
    const kcal_algorithm *alg;
    int k;
    int line; /* in the file it came from; 0 when made in code */
    int vcoll; /* 1 + kcal_model_vcoll_index for a v-collective's rule;
                * 0 for the other collectives' */
    const kcal_valgorithm *valg;
} kcal_table_rule;

typedef struct {
    char origin[256]; /* the file name, for messages */
    /* The header's text after the version: where and how the table was
     * measured (a whole line fits: it is never cut). */
    char about[KCAL_TABLE_MAX_LINE + 1];
    kcal_table_rule *rules; /* in file order */
    size_t count, cap;
    /* rules[by_coll[i]] for i in [first[c], first[c + 1]): coll c's rules
     * by n_lo, for kcal_table_lookup. Built by kcal_table_index. */
    size_t *by_coll;
    size_t first[KCAL_COLL_COUNT + 1];
} kcal_table;

void kcal_table_init(kcal_table *t);
void kcal_table_free(kcal_table *t);

/* Parse len bytes (not NUL-terminated) that came from `name`. Returns 0,
 * or -1 with "name:line: what is wrong" in err and *t left empty. What is
 * refused: a missing or unknown header, an unknown collective, an id that
 * is not one of the collective's algorithms in the registry, a k that is
 * not a whole number in range or fits no p of its rule, a reversed range,
 * two rules of a collective whose ranges overlap, NUL bytes, lines longer
 * than KCAL_TABLE_MAX_LINE, more than KCAL_TABLE_MAX_RULES rules. */
int kcal_table_parse_buf(const char *data, size_t len, const char *name,
                         kcal_table *t, char *err, size_t errlen);

/* Read and parse a file (at most KCAL_TABLE_MAX_BYTES). Same contract;
 * a file that does not open is "path: cannot open: reason". */
int kcal_table_read(const char *path, kcal_table *t, char *err,
                    size_t errlen);

/* Add a rule made in code (kcal tune), checked as the reader checks one
 * (err without a line number). 0 or -1. kcal_table_index must follow
 * before a lookup. */
int kcal_table_add(kcal_table *t, const kcal_table_rule *r, char *err,
                   size_t errlen);

/* Build the lookup index (the reader does it itself). 0, or -1 out of
 * memory. */
int kcal_table_index(kcal_table *t);

/* The rule for a call of coll with p processes and n bytes, or NULL when
 * none matches. Rules never overlap, so at most one does. No allocation,
 * no shared state: any thread may call it on a table nobody changes. */
const kcal_table_rule *kcal_table_lookup(const kcal_table *t, kcal_coll coll,
                                         int p, uint64_t n);

/* What v-collective vcoll (kcal_model_vcoll_index) runs at p, as
 * libkcoll follows its rules: a choice the ranks of a call can make alike
 * although each knows only its own blocks. *below: the first pair size
 * that no chain of `mpi` rules from 0 covers (0 when no `mpi` rule starts
 * at 0): smaller pairs go as MPI messages. *valg and *w: the rule's
 * algorithm and window at the largest sizes (the last rule by size that
 * is not `mpi`), NULL when every rule is `mpi`. `mpi` rules above the
 * first algorithm's are not followed: both ends of a pair must take the
 * same side, and only the crossover is known to both. *staged: the
 * range of largest blocks that run the v-collective's staged row
 * (model/irregular.h: kcal_model_vstaged_row; {0, 0} for none): a rule
 * of that row with an upper end, right where the chain of `mpi` rules
 * ends and before the last rule, up to KCAL_V_STAGED_MAX at most
 * (allgatherv, whose ranks all know every block). Returns how many of
 * vcoll's rules cover p (0: the table says nothing, and *below, *valg,
 * *w, staged are left alone). */
int kcal_table_vchoice(const kcal_table *t, int vcoll, int p,
                       uint64_t *below, const kcal_valgorithm **valg,
                       int *w, uint64_t staged[2]);

/* The rule as it reads in a file: "scatter  4  64K..  throttled_read:3"
 * (columns padded, no newline), into buf. Returns buf. */
char *kcal_table_format_rule(const kcal_table_rule *r, char *buf,
                             size_t len);

/* The whole file: the header with t->about, `comment` (may be NULL, may
 * hold several lines) as `#` lines, a column line, then every rule in
 * order; checked to read back to the same rules, so a command never prints
 * a table its own reader refuses. *text is malloc'd (*len bytes). 0, or -1
 * with the reason in err (*text NULL). */
int kcal_table_format(const kcal_table *t, const char *comment, char **text,
                      size_t *len, char *err, size_t errlen);

#endif
