/* fuzz_params: the params reader (kcal_params_parse_buf) on any bytes.
 *
 * Beyond what the sanitizers catch, it checks the reader's contract: a
 * refused input leaves the set empty with a message that names the input;
 * an accepted one formats (kcal_params_format: written and read back to
 * the same keys and values, so a command can print it) to a text that
 * reads back and formats again to the very same bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/params.h"

#define NAME "fuzz.params"

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_params: %s: %s\n", what, detail);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kcal_params p, q;
    char err[KCAL_ERRLEN] = "";
    if (kcal_params_parse_buf((const char *)data, size, NAME, &p, err,
                              sizeof err) < 0) {
        if (p.n_entries || p.entries)
            fail("refused input left entries", err);
        if (strncmp(err, NAME, strlen(NAME)))
            fail("message does not name the input", err);
        return 0;
    }
    if (kcal_params_validate(&p, NAME, err, sizeof err) < 0)
        fail("accepted a set without its required keys", err);
    char *text = NULL, *again = NULL;
    size_t len = 0, len2 = 0;
    if (kcal_params_format(&p, "fuzz", &text, &len, err, sizeof err) < 0)
        fail("an accepted file does not format", err);
    if (kcal_params_parse_buf(text, len, "formatted", &q, err, sizeof err) < 0)
        fail("the formatted file does not read back", err);
    if (kcal_params_format(&q, "fuzz", &again, &len2, err, sizeof err) < 0)
        fail("the formatted file does not format again", err);
    if (len != len2 || memcmp(text, again, len))
        fail("formatting is not stable", text);
    /* What the model reads: the mirrored fields match the entries. */
    if (p.alpha != kcal_params_get(&p, "alpha", -1) ||
        p.page != kcal_params_get(&p, "page", -1))
        fail("mirrored fields differ from the entries", text);
    free(text);
    free(again);
    kcal_params_free(&q);
    kcal_params_free(&p);
    return 0;
}
