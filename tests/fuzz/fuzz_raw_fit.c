/* fuzz_raw_fit: the raw sample reader (kcal_raw_parse) and everything
 * kcal fit does with what it accepts: the fit (kcal_calibrate_params) and
 * the per-point statistics (kcal_calibrate_write_points).
 *
 * Beyond what the sanitizers catch, it checks the contracts: a refused
 * input leaves the store empty with a message naming the input; an
 * accepted one writes (kcal_raw_write) a file that reads back to the same
 * samples and metadata, bit for bit; a fit that succeeds gives a params
 * file that formats and reads back (H2: kcal fit must never print a file
 * its own reader refuses). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/calibrate.h"
#include "model/params.h"
#include "fit/raw.h"

#define NAME "fuzz.csv"

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_raw_fit: %s: %s\n", what, detail);
    abort();
}

static void check_round_trip(const kcal_raw *r)
{
    char *buf = NULL, err[KCAL_ERRLEN] = "";
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m || kcal_raw_write(m, r) < 0 || fclose(m))
        fail("kcal_raw_write failed", "");
    kcal_raw b;
    if (kcal_raw_parse(buf, len, "written", &b, err, sizeof err) < 0)
        fail("a written raw file does not read back", err);
    if (b.n != r->n || b.n_meta != r->n_meta)
        fail("the written raw file reads back with other counts", buf);
    for (size_t i = 0; i < r->n; i++) {
        const kcal_sample *x = &r->s[i], *y = &b.s[i];
        if (strcmp(x->phase, y->phase) || strcmp(x->pattern, y->pattern) ||
            x->readers != y->readers || x->pages != y->pages ||
            x->bytes != y->bytes || x->rep != y->rep ||
            memcmp(&x->seconds, &y->seconds, sizeof x->seconds))
            fail("a sample reads back differently", buf);
    }
    for (size_t i = 0; i < r->n_meta; i++)
        if (strcmp(r->meta[i].key, b.meta[i].key) ||
            strcmp(r->meta[i].value, b.meta[i].value))
            fail("a meta entry reads back differently", r->meta[i].key);
    kcal_raw_free(&b);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    kcal_raw r;
    char err[KCAL_ERRLEN] = "";
    if (kcal_raw_parse((const char *)data, size, NAME, &r, err,
                       sizeof err) < 0) {
        if (r.n || r.n_meta || r.s || r.meta)
            fail("refused input left samples", err);
        if (strncmp(err, NAME, strlen(NAME)))
            fail("message does not name the input", err);
        return 0;
    }
    check_round_trip(&r);

    kcal_params p;
    kcal_params_init(&p);
    kcal_calibrate_notes notes;
    char comment[8192];
    if (kcal_calibrate_params(&r, &p, &notes, comment, sizeof comment, err,
                              sizeof err) == 0) {
        char *text = NULL;
        size_t len = 0;
        if (kcal_params_format(&p, comment, &text, &len, err, sizeof err) < 0)
            fail("the fit's params do not read back", err);
        free(text);
    } else if (!err[0]) {
        fail("the fit failed without a message", "");
    }
    kcal_params_free(&p);

    char *pts = NULL;
    size_t plen = 0;
    FILE *m = open_memstream(&pts, &plen);
    if (!m || kcal_calibrate_write_points(m, &r) < 0 || fclose(m))
        fail("kcal_calibrate_write_points failed", "");
    free(pts);
    kcal_raw_free(&r);
    return 0;
}
