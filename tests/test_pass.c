/* test_pass: the probe's chunk-passing measurement (probe/pass.h) records
 * one sample per point, pattern and pass (every chunk size with a
 * one-chunk stream, the largest also with a KCAL_PASS_STREAM-chunk one),
 * with the fields raw.h documents (`pages` the slice) and a positive time; ticks the meter by
 * the work it announced; and leaves no child behind. No timing asserted:
 * the machine is shared. */
#include <errno.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"
#include "model.h"
#include "pass.h"

static size_t count(const kcal_raw *r, const char *pattern, int m, long c,
                    long slice)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const kcal_sample *s = &r->s[i];
        if (!strcmp(s->phase, KCAL_PHASE_PASS) && !strcmp(s->pattern, pattern) &&
            s->readers == m && s->bytes == c && s->pages == slice &&
            s->seconds > 0)
            n++;
    }
    return n;
}

int main(void)
{
    long sizes[16];
    size_t n = kcal_pass_size_list(1, sizes, 16);
    /* quick: 1K, 4K, 16K; the largest is always the staging chunk */
    CHECK(n == 3);
    CHECK(sizes[0] == 1024 && sizes[n - 1] == (long)KCAL_STAGING_CHUNK);
    CHECK(kcal_pass_size_list(0, sizes, 16) == 5);

    n = kcal_pass_size_list(1, sizes, 16);
    kcal_meter meter = {NULL, 0, 0};
    kcal_pass_setup s = {.topo = NULL, .peer_core = 0, .sizes = sizes,
                         .n_sizes = n, .passes = 4, .slice = 3,
                         .meter = &meter};
    kcal_raw raw;
    kcal_raw_init(&raw);
    char err[256] = "";
    CHECK(kcal_pass_measure(&s, &raw, err, sizeof err) == 0);
    CHECK(raw.n == (size_t)(2 * 4 * (n + 1)));
    for (size_t i = 0; i < n; i++) {
        CHECK(count(&raw, KCAL_PATTERN_CROSS, 1, sizes[i], 3) == 4);
        CHECK(count(&raw, KCAL_PATTERN_LOCAL, 1, sizes[i], 3) == 4);
    }
    CHECK(count(&raw, KCAL_PATTERN_CROSS, KCAL_PASS_STREAM, sizes[n - 1], 3) == 4);
    CHECK(count(&raw, KCAL_PATTERN_LOCAL, KCAL_PASS_STREAM, sizes[n - 1], 3) == 4);
    CHECK(meter.done == kcal_pass_work(&s));
    /* The peer is reaped. */
    CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
    kcal_raw_free(&raw);

    /* No sizes (one core): nothing measured, no child. */
    kcal_raw_init(&raw);
    s.n_sizes = 0;
    CHECK(kcal_pass_measure(&s, &raw, err, sizeof err) == 0);
    CHECK(raw.n == 0 && kcal_pass_work(&s) == 0);
    kcal_raw_free(&raw);
    return check_report();
}
