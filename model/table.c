/* table: the `kcoll-table 1` selection table. See table.h and docs/tune.md.
 *
 * A file is a header line, then rules, one per line:
 *
 *   kcoll-table 1 measured by kcal tune on host x (2 cores), p = 2
 *   # collective  p   size (bytes)   choice
 *   scatter       2   0..4095        mpi
 *   scatter       2   4K..           parallel_read_flags
 *
 * Ranges are inclusive: N, A..B, A.. (no upper end), ..B, or * (any);
 * sizes take binary suffixes (64K = 65536). `#` starts a comment anywhere.
 * The checks that need the registry (ids, k) come from model/, so a table
 * never names what libkcoll cannot run. */
#include "model/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/infile.h"
#include "common/grow.h"
#include "common/sizes.h"

void kcal_table_init(kcal_table *t)
{
    memset(t, 0, sizeof *t);
}

void kcal_table_free(kcal_table *t)
{
    free(t->rules);
    free(t->by_coll);
    kcal_table_init(t);
}

/* Digits, and for sizes an optional binary suffix. 0, or -1 with why. */
static int parse_number(const char *s, size_t len, int size, uint64_t *out,
                        const char **why)
{
    uint64_t v = 0;
    size_t i = 0;
    if (len == 0) {
        *why = "a number is missing";
        return -1;
    }
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10) {
            *why = "is too large";
            return -1;
        }
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (i == 0) {
        *why = "is not a whole number";
        return -1;
    }
    if (i < len) {
        static const char suffixes[] = "KMGT";
        const char *at = size && i + 1 == len
                             ? strchr(suffixes, s[i] & ~0x20)
                             : NULL;
        if (!at || !*at) {
            *why = size ? "is not a size (digits and an optional K, M, G or T)"
                        : "is not a whole number";
            return -1;
        }
        for (int shift = (int)(at - suffixes) + 1; shift > 0; shift--) {
            if (v > UINT64_MAX / 1024) {
                *why = "is too large";
                return -1;
            }
            v *= 1024;
        }
    }
    *out = v;
    return 0;
}

/* A range token: *, N, A..B, A.., ..B. For p (size = 0) values are
 * 1..KCAL_TABLE_P_MAX; sizes are 0 and up. 0, or -1 with the reason. */
static int parse_range(const char *tok, int size, uint64_t *lo, uint64_t *hi,
                       char *why, size_t whylen)
{
    const char *what = size ? "size range" : "p range";
    uint64_t min = size ? 0 : 1, max = size ? UINT64_MAX : KCAL_TABLE_P_MAX;
    uint64_t open = size ? KCAL_TABLE_N_OPEN : KCAL_TABLE_P_OPEN;
    const char *reason;
    if (!strcmp(tok, "*")) {
        *lo = min;
        *hi = open;
        return 0;
    }
    const char *dots = strstr(tok, "..");
    size_t len = strlen(tok);
    size_t a_len = dots ? (size_t)(dots - tok) : len;
    const char *b = dots ? dots + 2 : NULL;
    if (a_len == 0) {
        *lo = min;
    } else if (parse_number(tok, a_len, size, lo, &reason) != 0) {
        snprintf(why, whylen, "%s '%s': '%.*s' %s", what, tok, (int)a_len,
                 tok, reason);
        return -1;
    }
    if (!dots) {
        *hi = *lo;
    } else if (!*b) {
        *hi = open;
        if (a_len == 0) {
            snprintf(why, whylen, "%s '%s' has no end (write * for any)",
                     what, tok);
            return -1;
        }
    } else if (parse_number(b, strlen(b), size, hi, &reason) != 0) {
        snprintf(why, whylen, "%s '%s': '%s' %s", what, tok, b, reason);
        return -1;
    }
    if (!size && (*lo < min || *lo > max || (*hi != open && *hi > max))) {
        uint64_t bad = *lo < min || *lo > max ? *lo : *hi;
        snprintf(why, whylen, "%s '%s': p = %llu is not between 1 and %d",
                 what, tok, (unsigned long long)bad, KCAL_TABLE_P_MAX);
        return -1;
    }
    if (*lo > *hi) {
        snprintf(why, whylen, "%s '%s' is reversed (its start is after its "
                 "end)", what, tok);
        return -1;
    }
    return 0;
}

/* A range as the file writes it (the inverse of parse_range). */
static char *format_range(uint64_t lo, uint64_t hi, int size, char *buf,
                          size_t len)
{
    uint64_t min = size ? 0 : 1, open = size ? KCAL_TABLE_N_OPEN
                                             : KCAL_TABLE_P_OPEN;
    char a[32], b[32];
    if (size) {
        kcal_sizes_format(lo, a, sizeof a);
        kcal_sizes_format(hi, b, sizeof b);
    } else {
        snprintf(a, sizeof a, "%llu", (unsigned long long)lo);
        snprintf(b, sizeof b, "%llu", (unsigned long long)hi);
    }
    if (lo == min && hi == open)
        snprintf(buf, len, "*");
    else if (hi == open)
        snprintf(buf, len, "%s..", a);
    else if (lo == hi)
        snprintf(buf, len, "%s", a);
    else
        snprintf(buf, len, "%s..%s", a, b);
    return buf;
}

/* The rule's collective and choice's id as the file names them. */
static const char *rule_coll(const kcal_table_rule *r)
{
    return r->vcoll ? kcal_model_vcoll_name(r->vcoll - 1)
                    : kcal_coll_name(r->coll);
}

static const char *rule_id(const kcal_table_rule *r)
{
    return r->vcoll ? (r->valg ? r->valg->id : "mpi") : r->alg->id;
}

char *kcal_table_format_rule(const kcal_table_rule *r, char *buf, size_t len)
{
    char pr[80], nr[80], choice[96];
    format_range((uint64_t)r->p_lo, (uint64_t)r->p_hi, 0, pr, sizeof pr);
    format_range(r->n_lo, r->n_hi, 1, nr, sizeof nr);
    if (r->k > 0)
        snprintf(choice, sizeof choice, "%s:%d", rule_id(r), r->k);
    else
        snprintf(choice, sizeof choice, "%s", rule_id(r));
    snprintf(buf, len, "%-12s %-6s %-18s %s", rule_coll(r), pr, nr, choice);
    return buf;
}

static int overlaps(const kcal_table_rule *a, const kcal_table_rule *b)
{
    return a->coll == b->coll && a->vcoll == b->vcoll &&
           a->p_lo <= b->p_hi && b->p_lo <= a->p_hi && a->n_lo <= b->n_hi &&
           b->n_lo <= a->n_hi;
}

/* A v-collective's window: only its windowed rows take one, 1..p - 1. */
static int check_window(const kcal_table_rule *r, char *why, size_t whylen)
{
    if (r->k < 0 || (r->k > 0 && (!r->valg ||
                                  !kcal_model_vwindowed(r->valg)))) {
        snprintf(why, whylen, "'%s' takes no window (no ':w')", rule_id(r));
        return -1;
    }
    if (r->k > 0 && r->p_hi != KCAL_TABLE_P_OPEN && r->k > r->p_hi - 1) {
        snprintf(why, whylen, "w = %d fits no p of the rule (%s needs "
                 "1 <= w <= p - 1)", r->k, rule_id(r));
        return -1;
    }
    return 0;
}

/* A regular collective's k against its algorithm and p range. */
static int check_k(const kcal_table_rule *r, char *why, size_t whylen)
{
    const kcal_algorithm *a = r->alg;
    if (r->k < 0) {
        snprintf(why, whylen, "k = %d is negative", r->k);
        return -1;
    }
    if (kcal_model_is_mpi(a) || a->kind == KCAL_PARAM_NONE) {
        if (r->k != 0) {
            snprintf(why, whylen, "'%s' takes no parameter (no ':k')", a->id);
            return -1;
        }
    } else if (a->kind == KCAL_PARAM_THROTTLE) {
        /* Throttle factors are 2..p-1: none exists below p = 3. */
        if (r->p_lo < 3) {
            snprintf(why, whylen, "%s has no throttle factor below p = 3: "
                     "start its p range at 3 (it starts at %d)", a->id,
                     r->p_lo);
            return -1;
        }
        if (r->k == 1 || (r->k > 0 && r->p_hi != KCAL_TABLE_P_OPEN &&
                          r->k > r->p_hi - 1)) {
            snprintf(why, whylen, "k = %d fits no p of the rule (%s needs "
                     "2 <= k <= p - 1)", r->k, a->id);
            return -1;
        }
    } else if (r->k > 1 && r->p_hi != KCAL_TABLE_P_OPEN &&
               r->k > r->p_hi - 1) {
        snprintf(why, whylen, "j = %d fits no p of the rule (%s needs "
                 "1 <= j <= p - 1)", r->k, a->id);
        return -1;
    }
    return 0;
}

/* The checks a rule needs beyond its syntax: its k against its algorithm
 * and p range, and no overlap with an earlier rule. 0, or -1 with why. */
static int check_rule(const kcal_table *t, const kcal_table_rule *r,
                      char *why, size_t whylen)
{
    if (r->vcoll ? check_window(r, why, whylen) != 0
                 : check_k(r, why, whylen) != 0)
        return -1;
    for (size_t i = 0; i < t->count; i++)
        if (overlaps(&t->rules[i], r)) {
            char other[160];
            kcal_table_format_rule(&t->rules[i], other, sizeof other);
            if (t->rules[i].line > 0)
                snprintf(why, whylen, "overlaps the rule of line %d (%s): "
                         "rules of a collective must not share a (p, size)",
                         t->rules[i].line, other);
            else
                snprintf(why, whylen, "overlaps the rule '%s'", other);
            return -1;
        }
    return 0;
}

static int append(kcal_table *t, const kcal_table_rule *r)
{
    kcal_table_rule *grown = kcal_grow(t->rules, &t->cap, t->count,
                                       sizeof *grown, 16);
    if (!grown)
        return -1;
    t->rules = grown;
    t->rules[t->count++] = *r;
    return 0;
}

int kcal_table_add(kcal_table *t, const kcal_table_rule *r, char *err,
                   size_t errlen)
{
    char why[400];
    const char *vname = r->vcoll ? kcal_model_vcoll_name(r->vcoll - 1)
                                 : NULL;
    int bad_v = r->vcoll && (!vname || r->coll != KCAL_COLL_COUNT || r->alg ||
                             (r->valg && strcmp(r->valg->coll, vname)));
    int bad_c = !r->vcoll &&
                (r->coll < 0 || r->coll >= KCAL_COLL_COUNT || !r->alg ||
                 r->valg ||
                 (!kcal_model_is_mpi(r->alg) && r->alg->coll != r->coll) ||
                 (kcal_model_is_mpi(r->alg) &&
                  r->alg != kcal_model_mpi(r->coll)));
    if (bad_v || bad_c || r->p_lo < 1 || r->p_lo > r->p_hi ||
        (r->p_hi > KCAL_TABLE_P_MAX && r->p_hi != KCAL_TABLE_P_OPEN) ||
        r->n_lo > r->n_hi) {
        kcal_set_err(err, errlen, "a rule with a bad collective, algorithm "
                     "or range");
        return -1;
    }
    if (t->count >= KCAL_TABLE_MAX_RULES) {
        kcal_set_err(err, errlen, "more than %d rules", KCAL_TABLE_MAX_RULES);
        return -1;
    }
    if (check_rule(t, r, why, sizeof why) != 0) {
        kcal_set_err(err, errlen, "%s", why);
        return -1;
    }
    if (append(t, r) != 0) {
        kcal_set_err(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

typedef struct {
    int coll, p_lo;
    uint64_t n_lo;
    size_t index;
} sort_key;

static int by_coll_then_size(const void *va, const void *vb)
{
    const sort_key *a = va, *b = vb;
    if (a->coll != b->coll)
        return a->coll < b->coll ? -1 : 1;
    if (a->n_lo != b->n_lo)
        return a->n_lo < b->n_lo ? -1 : 1;
    return (a->p_lo > b->p_lo) - (a->p_lo < b->p_lo);
}

int kcal_table_index(kcal_table *t)
{
    size_t n = t->count ? t->count : 1;
    sort_key *keys = malloc(sizeof *keys * n);
    size_t *order = malloc(sizeof *order * n);
    if (!keys || !order) {
        free(keys);
        free(order);
        return -1;
    }
    for (size_t i = 0; i < t->count; i++)
        keys[i] = (sort_key){(int)t->rules[i].coll, t->rules[i].p_lo,
                             t->rules[i].n_lo, i};
    qsort(keys, t->count, sizeof *keys, by_coll_then_size);
    for (size_t i = 0; i < t->count; i++)
        order[i] = keys[i].index;
    free(keys);
    free(t->by_coll);
    t->by_coll = order;
    /* The v-collectives' rules (coll KCAL_COLL_COUNT) sort last, out of
     * every collective's range. */
    size_t i = 0;
    for (int c = 0; c <= KCAL_COLL_COUNT; c++) {
        while (i < t->count && (int)t->rules[order[i]].coll < c)
            i++;
        t->first[c] = i;
    }
    return 0;
}

const kcal_table_rule *kcal_table_lookup(const kcal_table *t, kcal_coll coll,
                                         int p, uint64_t n)
{
    if (!t || !t->by_coll || coll < 0 || coll >= KCAL_COLL_COUNT)
        return NULL;
    for (size_t i = t->first[coll]; i < t->first[coll + 1]; i++) {
        const kcal_table_rule *r = &t->rules[t->by_coll[i]];
        if (r->n_lo > n)
            break; /* sorted by n_lo: no later rule starts at or below n */
        if (n <= r->n_hi && p >= r->p_lo && p <= r->p_hi)
            return r;
    }
    return NULL;
}

int kcal_table_vchoice(const kcal_table *t, int vcoll, int p,
                       uint64_t *below, const kcal_valgorithm **valg,
                       int *w, uint64_t staged[2])
{
    if (!t || !t->by_coll)
        return 0;
    int found = 0, chained = 1;
    uint64_t x = 0;
    const kcal_table_rule *last = NULL, *first_alg = NULL;
    /* By n_lo (the index's order): the chain of `mpi` rules from 0 ends
     * at the first gap or the first algorithm. */
    for (size_t i = t->first[KCAL_COLL_COUNT]; i < t->count; i++) {
        const kcal_table_rule *r = &t->rules[t->by_coll[i]];
        if (r->vcoll != vcoll + 1 || p < r->p_lo || p > r->p_hi)
            continue;
        found++;
        if (r->valg)
            last = r;
        if (r->valg && !first_alg && chained && r->n_lo == x)
            first_alg = r; /* right where the chain ends */
        if (!chained)
            continue;
        if (r->valg || r->n_lo > x)
            chained = 0;
        else if (r->n_hi == KCAL_TABLE_N_OPEN)
            x = UINT64_MAX, chained = 0;
        else
            x = r->n_hi + 1;
    }
    if (found) {
        *below = x;
        *valg = last ? last->valg : NULL;
        *w = last ? last->k : 0;
        staged[0] = staged[1] = 0;
        const kcal_valgorithm *st =
            kcal_model_vstaged_row(kcal_model_vcoll_name(vcoll));
        if (first_alg && first_alg != last && st && first_alg->valg == st &&
            first_alg->n_hi != KCAL_TABLE_N_OPEN &&
            first_alg->n_lo <= KCAL_V_STAGED_MAX) {
            staged[0] = first_alg->n_lo;
            staged[1] = first_alg->n_hi < KCAL_V_STAGED_MAX
                            ? first_alg->n_hi
                            : KCAL_V_STAGED_MAX;
        }
    }
    return found;
}

/* Split a line (NUL-terminated, comment removed) at blanks. */
static int split(char *s, char **tok, int max)
{
    int n = 0;
    for (;;) {
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s)
            return n;
        if (n < max)
            tok[n] = s;
        n++;
        while (*s && *s != ' ' && *s != '\t')
            s++;
        if (*s)
            *s++ = '\0';
    }
}

/* The header: "kcoll-table 1 <about>". 0, or -1 with why. */
static int parse_header(kcal_table *t, char *s, char *why, size_t whylen)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t flen = strlen(KCAL_TABLE_FORMAT);
    if (strncmp(s, KCAL_TABLE_FORMAT, flen) ||
        (s[flen] != ' ' && s[flen] != '\t' && s[flen])) {
        snprintf(why, whylen, "not a selection table: the first line must "
                 "be '%s %d <where and how it was measured>'",
                 KCAL_TABLE_FORMAT, KCAL_TABLE_VERSION);
        return -1;
    }
    s += flen;
    while (*s == ' ' || *s == '\t')
        s++;
    char *v = s;
    while (*s && *s != ' ' && *s != '\t')
        s++;
    if (s == v) {
        snprintf(why, whylen, "the header names no version (want '%s %d')",
                 KCAL_TABLE_FORMAT, KCAL_TABLE_VERSION);
        return -1;
    }
    if ((size_t)(s - v) != 1 || *v != '0' + KCAL_TABLE_VERSION) {
        snprintf(why, whylen, "%s version '%.*s' is not one this reader "
                 "knows (%d)", KCAL_TABLE_FORMAT, (int)(s - v), v,
                 KCAL_TABLE_VERSION);
        return -1;
    }
    while (*s == ' ' || *s == '\t')
        s++;
    size_t len = strlen(s);
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    if (len == 0) {
        snprintf(why, whylen, "the header says nothing after '%s %d': "
                 "name where and how the table was measured",
                 KCAL_TABLE_FORMAT, KCAL_TABLE_VERSION);
        return -1;
    }
    if (len >= sizeof t->about)
        len = sizeof t->about - 1; /* cannot happen: lines are shorter */
    memcpy(t->about, s, len);
    t->about[len] = '\0';
    return 0;
}

/* The choice: mpi, id or id:k, for collective c. 0, or -1 with why. */
static int parse_choice(kcal_coll c, const char *tok, kcal_table_rule *r,
                        char *why, size_t whylen)
{
    const char *colon = strchr(tok, ':');
    size_t len = colon ? (size_t)(colon - tok) : strlen(tok);
    char id[64];
    if (len == 0 || len >= sizeof id) {
        snprintf(why, whylen, "'%s' is not an algorithm of %s", tok,
                 kcal_coll_name(c));
        return -1;
    }
    memcpy(id, tok, len);
    id[len] = '\0';
    r->alg = !strcmp(id, "mpi") ? kcal_model_mpi(c)
                                : kcal_model_find_algorithm(c, id);
    if (!r->alg) {
        snprintf(why, whylen, "'%s' is not an algorithm of %s (nor mpi)", id,
                 kcal_coll_name(c));
        return -1;
    }
    r->k = 0;
    if (colon) {
        uint64_t k;
        const char *reason;
        if (parse_number(colon + 1, strlen(colon + 1), 0, &k, &reason) != 0) {
            snprintf(why, whylen, "k in '%s': '%s' %s", tok, colon + 1,
                     reason);
            return -1;
        }
        if (kcal_model_is_mpi(r->alg) || r->alg->kind == KCAL_PARAM_NONE) {
            snprintf(why, whylen, "'%s' takes no parameter (no ':k')", id);
            return -1;
        }
        if (k < 1 || k > KCAL_TABLE_P_MAX) {
            snprintf(why, whylen, "k in '%s' is not between 1 and %d", tok,
                     KCAL_TABLE_P_MAX);
            return -1;
        }
        r->k = (int)k;
    }
    return 0;
}

/* A v-collective's choice: mpi, id or id:w. 0, or -1 with why. */
static int parse_vchoice(const char *vname, const char *tok,
                         kcal_table_rule *r, char *why, size_t whylen)
{
    const char *colon = strchr(tok, ':');
    size_t len = colon ? (size_t)(colon - tok) : strlen(tok), na = 0;
    const kcal_valgorithm *rows = kcal_model_valgorithms(vname, &na);
    r->valg = NULL;
    r->k = 0;
    if (len != 3 || strncmp(tok, "mpi", 3)) {
        for (size_t i = 0; i < na && !r->valg; i++)
            if (strlen(rows[i].id) == len && !strncmp(rows[i].id, tok, len))
                r->valg = &rows[i];
        if (!r->valg) {
            snprintf(why, whylen, "'%.*s' is not an algorithm of %s (nor "
                     "mpi)", (int)len, tok, vname);
            return -1;
        }
    }
    if (colon) {
        uint64_t w;
        const char *reason;
        if (!r->valg || !kcal_model_vwindowed(r->valg)) {
            snprintf(why, whylen, "'%.*s' takes no window (no ':w')",
                     (int)len, tok);
            return -1;
        }
        if (parse_number(colon + 1, strlen(colon + 1), 0, &w, &reason) !=
                0 ||
            w < 1 || w > KCAL_TABLE_P_MAX) {
            snprintf(why, whylen, "the window in '%s' is not between 1 and "
                     "%d", tok, KCAL_TABLE_P_MAX);
            return -1;
        }
        r->k = (int)w;
    }
    return 0;
}

/* One rule line, split into tokens. 0, or -1 with why. */
static int parse_rule(const kcal_table *t, char **tok, int ntok,
                      kcal_table_rule *r, char *why, size_t whylen)
{
    if (ntok != 4) {
        snprintf(why, whylen, "want 4 fields (collective, p range, size "
                 "range, algorithm), got %d", ntok);
        return -1;
    }
    int v = kcal_model_vcoll_index(tok[0]);
    if (v >= 0) {
        r->vcoll = v + 1;
        r->coll = KCAL_COLL_COUNT;
    } else if (kcal_coll_from_name(tok[0], &r->coll) != 0) {
        snprintf(why, whylen, "unknown collective '%s' (%s; %s)", tok[0],
                 kcal_coll_list(), kcal_model_vcoll_list());
        return -1;
    }
    uint64_t lo, hi;
    if (parse_range(tok[1], 0, &lo, &hi, why, whylen) != 0)
        return -1;
    r->p_lo = (int)lo;
    r->p_hi = hi == KCAL_TABLE_P_OPEN ? KCAL_TABLE_P_OPEN : (int)hi;
    if (parse_range(tok[2], 1, &r->n_lo, &r->n_hi, why, whylen) != 0)
        return -1;
    if (r->vcoll ? parse_vchoice(tok[0], tok[3], r, why, whylen) != 0
                 : parse_choice(r->coll, tok[3], r, why, whylen) != 0)
        return -1;
    return check_rule(t, r, why, whylen);
}

int kcal_table_parse_buf(const char *data, size_t len, const char *name,
                         kcal_table *t, char *err, size_t errlen)
{
    kcal_table_init(t);
    snprintf(t->origin, sizeof t->origin, "%s", name);
    char line[KCAL_TABLE_MAX_LINE + 2], why[600];
    int lineno = 0, have_header = 0;
    size_t at = 0;
    while (at < len) {
        lineno++;
        const char *start = data + at;
        const char *nl = memchr(start, '\n', len - at);
        size_t n = nl ? (size_t)(nl - start) : len - at;
        at += n + (nl ? 1 : 0);
        if (n > 0 && start[n - 1] == '\r')
            n--; /* a file saved with CRLF ends reads the same */
        if (n > KCAL_TABLE_MAX_LINE) {
            snprintf(why, sizeof why, "line longer than %d characters",
                     KCAL_TABLE_MAX_LINE);
            goto bad;
        }
        for (size_t i = 0; i < n; i++)
            if ((unsigned char)start[i] < 0x20 && start[i] != '\t') {
                snprintf(why, sizeof why, "a control character (byte 0x%02x)"
                         ": not a text table", (unsigned char)start[i]);
                goto bad;
            }
        memcpy(line, start, n);
        line[n] = '\0';
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *tok[8];
        char copy[sizeof line];
        memcpy(copy, line, n + 1);
        int ntok = split(copy, tok, 8);
        if (ntok == 0)
            continue;
        if (!have_header) {
            if (parse_header(t, line, why, sizeof why) != 0)
                goto bad;
            have_header = 1;
            continue;
        }
        if (t->count >= KCAL_TABLE_MAX_RULES) {
            snprintf(why, sizeof why, "more than %d rules",
                     KCAL_TABLE_MAX_RULES);
            goto bad;
        }
        kcal_table_rule r = {.line = lineno};
        if (parse_rule(t, tok, ntok, &r, why, sizeof why) != 0)
            goto bad;
        if (append(t, &r) != 0) {
            snprintf(why, sizeof why, "out of memory");
            goto bad;
        }
    }
    if (!have_header) {
        kcal_set_err(err, errlen, "%s:%d: empty: a selection table starts "
                     "with '%s %d <where and how it was measured>'", name,
                     lineno ? lineno : 1, KCAL_TABLE_FORMAT,
                     KCAL_TABLE_VERSION);
        kcal_table_free(t);
        return -1;
    }
    if (kcal_table_index(t) != 0) {
        kcal_set_err(err, errlen, "%s: out of memory", name);
        kcal_table_free(t);
        return -1;
    }
    return 0;
bad:
    kcal_set_err(err, errlen, "%s:%d: %s", name, lineno, why);
    kcal_table_free(t);
    return -1;
}

int kcal_table_read(const char *path, kcal_table *t, char *err, size_t errlen)
{
    kcal_table_init(t);
    FILE *f = kcal_infile_open(path, err, errlen);
    if (!f)
        return -1;
    char *buf = malloc(KCAL_TABLE_MAX_BYTES + 1);
    if (!buf) {
        fclose(f);
        kcal_set_err(err, errlen, "%s: out of memory", path);
        return -1;
    }
    size_t len = fread(buf, 1, KCAL_TABLE_MAX_BYTES + 1, f);
    int bad = ferror(f);
    fclose(f);
    int rc = -1;
    if (bad)
        kcal_set_err(err, errlen, "%s: read error", path);
    else if (len > KCAL_TABLE_MAX_BYTES)
        kcal_set_err(err, errlen, "%s: larger than %u bytes: not a "
                     "selection table", path, KCAL_TABLE_MAX_BYTES);
    else
        rc = kcal_table_parse_buf(buf, len, path, t, err, errlen);
    free(buf);
    return rc;
}

/* Appends printf output to a growing string. 0, or -1 out of memory. */
typedef struct {
    char *s;
    size_t len, cap;
} text;

static int text_add(text *b, const char *s)
{
    size_t n = strlen(s);
    char *grown = kcal_grow_to(b->s, &b->cap, b->len + n + 1, 1, 1024);
    if (!grown)
        return -1;
    b->s = grown;
    memcpy(b->s + b->len, s, n + 1);
    b->len += n;
    return 0;
}

static int same_rules(const kcal_table *a, const kcal_table *b)
{
    if (a->count != b->count || strcmp(a->about, b->about))
        return 0;
    for (size_t i = 0; i < a->count; i++) {
        const kcal_table_rule *x = &a->rules[i], *y = &b->rules[i];
        if (x->coll != y->coll || x->p_lo != y->p_lo || x->p_hi != y->p_hi ||
            x->n_lo != y->n_lo || x->n_hi != y->n_hi || x->alg != y->alg ||
            x->k != y->k || x->vcoll != y->vcoll || x->valg != y->valg)
            return 0;
    }
    return 1;
}

int kcal_table_format(const kcal_table *t, const char *comment, char **text_out,
                      size_t *len, char *err, size_t errlen)
{
    *text_out = NULL;
    *len = 0;
    text b = {0};
    char line[KCAL_TABLE_MAX_LINE + 64];
    int oom = 0;
    snprintf(line, sizeof line, "%s %d %s\n", KCAL_TABLE_FORMAT,
             KCAL_TABLE_VERSION, t->about);
    oom |= text_add(&b, line);
    for (const char *c = comment; c && *c;) {
        const char *nl = strchr(c, '\n');
        size_t n = nl ? (size_t)(nl - c) : strlen(c);
        snprintf(line, sizeof line, "#%s%.*s\n", n ? " " : "", (int)n, c);
        oom |= text_add(&b, line);
        c += n + (nl ? 1 : 0);
    }
    snprintf(line, sizeof line, "%-12s %-6s %-18s %s\n", "# collective", "p",
             "size (bytes)", "choice");
    oom |= text_add(&b, line);
    for (size_t i = 0; i < t->count; i++) {
        kcal_table_format_rule(&t->rules[i], line, sizeof line - 1);
        strcat(line, "\n");
        oom |= text_add(&b, line);
    }
    if (oom || !b.s) {
        free(b.s);
        kcal_set_err(err, errlen, "out of memory");
        return -1;
    }
    kcal_table back;
    char why[KCAL_ERRLEN];
    if (kcal_table_parse_buf(b.s, b.len, "the table", &back, why,
                             sizeof why) != 0) {
        kcal_set_err(err, errlen, "the table would not read back: %s", why);
        free(b.s);
        return -1;
    }
    int same = same_rules(t, &back);
    kcal_table_free(&back);
    if (!same) {
        kcal_set_err(err, errlen, "the table would not read back to the "
                     "same rules");
        free(b.s);
        return -1;
    }
    *text_out = b.s;
    *len = b.len;
    return 0;
}
