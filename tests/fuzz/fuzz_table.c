/* fuzz_table: the selection table reader (kcal_table_parse_buf) on any
 * bytes.
 *
 * Beyond what the sanitizers catch, it checks the reader's contract: a
 * refused input leaves the table empty with a message "NAME:LINE: ..."
 * (the file and a line number); an accepted one looks every rule up at its
 * own corners and finds that rule (rules never overlap; a v-collective's
 * rule counts in kcal_table_vchoice at its p range's ends), formats
 * (kcal_table_format: written and read back to the same rules) to a text
 * that reads back and formats again to the very same bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/table.h"

#define NAME "fuzz.table"

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_table: %s: %s\n", what, detail);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kcal_table t, u;
    char err[KCAL_ERRLEN] = "";
    if (kcal_table_parse_buf((const char *)data, size, NAME, &t, err,
                             sizeof err) < 0) {
        if (t.count || t.rules || t.by_coll)
            fail("refused input left rules", err);
        const char *after = err + strlen(NAME);
        if (strncmp(err, NAME ":", strlen(NAME) + 1) ||
            after[1] < '1' || after[1] > '9')
            fail("message does not name the input and a line", err);
        return 0;
    }
    for (size_t i = 0; i < t.count; i++) {
        const kcal_table_rule *r = &t.rules[i];
        uint64_t below, staged[2];
        const kcal_valgorithm *valg;
        int w;
        /* A v-collective's rules are followed as a whole (crossover,
         * staged range and row): each must count at its own p range's
         * ends, and a staged range never passes KCAL_V_STAGED_MAX. */
        if (r->vcoll
                ? kcal_table_vchoice(&t, r->vcoll - 1, r->p_lo, &below,
                                     &valg, &w, staged) < 1 ||
                      staged[0] > staged[1] ||
                      staged[1] > KCAL_V_STAGED_MAX ||
                      kcal_table_vchoice(&t, r->vcoll - 1, r->p_hi, &below,
                                         &valg, &w, staged) < 1
                : kcal_table_lookup(&t, r->coll, r->p_lo, r->n_lo) != r ||
                      kcal_table_lookup(&t, r->coll, r->p_hi, r->n_hi) != r)
            fail("a rule is not what its own corners look up", t.about);
        if (r->line < 2)
            fail("a rule without its line", t.about);
    }
    char *text = NULL, *again = NULL;
    size_t len = 0, len2 = 0;
    if (kcal_table_format(&t, "fuzz", &text, &len, err, sizeof err) < 0)
        fail("an accepted table does not format", err);
    if (kcal_table_parse_buf(text, len, "formatted", &u, err, sizeof err) < 0)
        fail("the formatted table does not read back", err);
    if (kcal_table_format(&u, "fuzz", &again, &len2, err, sizeof err) < 0)
        fail("the formatted table does not format again", err);
    if (len != len2 || memcmp(text, again, len))
        fail("formatting is not stable", text);
    free(text);
    free(again);
    kcal_table_free(&u);
    kcal_table_free(&t);
    return 0;
}
