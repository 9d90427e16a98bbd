/* fuzz_vcounts: the reader of a count matrix file (kcal_vcounts_parse_buf,
 * `kcal predict --counts file:PATH`) on any bytes, for p = 1 + the first
 * byte % 8.
 *
 * Beyond what the sanitizers catch, it checks the reader's contract: a
 * refused input says which (its name) and, for a bad number, on which
 * line; an accepted one has p·p counts of at most 2^48, which written out
 * as text read back to the same matrix. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/vcounts.h"

#define NAME "fuzz.counts"

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_vcounts: %s: %s\n", what, detail);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    int p = 1 + data[0] % 8;
    uint64_t m[64], again[64];
    char err[512] = "";
    if (kcal_vcounts_parse_buf((const char *)data + 1, size - 1, NAME, p, m,
                               err, sizeof err) < 0) {
        if (strncmp(err, NAME ":", strlen(NAME) + 1) != 0)
            fail("message does not name the input", err);
        return 0;
    }
    char text[64 * 24];
    size_t used = 0;
    for (int i = 0; i < p * p; i++) {
        if (m[i] > ((uint64_t)1 << 48))
            fail("a count above 2^48 accepted", "");
        used += (size_t)snprintf(text + used, sizeof text - used, "%llu%c",
                                 (unsigned long long)m[i],
                                 (i + 1) % p ? ' ' : '\n');
    }
    if (kcal_vcounts_parse_buf(text, used, NAME, p, again, err, sizeof err) <
            0 ||
        memcmp(m, again, sizeof m[0] * (size_t)(p * p)) != 0)
        fail("the matrix written out does not read back", err);
    return 0;
}
