/* Params files: exact round trip, strict rejection with line numbers,
 * unknown keys kept, the choice between sources. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "model/params.h"

static char *write_to_string(const kcal_params *p, const char *comment)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(kcal_params_write(f, p, comment) == 0);
    fclose(f);
    return buf;
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void test_round_trip(void)
{
    kcal_params p, q;
    char err[KCAL_ERRLEN];
    kcal_params_init(&p);
    /* Values that need all 17 digits, tiny, huge and exact ones. */
    const double vals[] = {1.0 / 3.0, 1.43e-6, 1.0 / 3.29e9, 4096, 0.11,
                           DBL_MIN, DBL_MAX / 2, 0.1 + 0.2, 0, 2.5e-310};
    const char *keys[] = {"alpha", "beta", "lock", "page", "gamma_a",
                          "gamma_b", "sm_bcast_a", "sm_bcast_b",
                          "sm_barrier_a", "alpha_stderr"};
    for (int i = 0; i < 10; i++)
        CHECK(kcal_params_set(&p, keys[i], vals[i]) == 0);
    CHECK(kcal_params_set_text(&p, "cpu", "AMD EPYC 9R14 96-Core Processor") == 0);
    CHECK(kcal_params_set_text(&p, "cma_method", "iovec") == 0);
    CHECK(kcal_params_set(&p, "future_key", 42.5) == 0);
    char *text = write_to_string(&p, "written by test_params\nsecond line");
    CHECK(kcal_params_parse(text, "mem", &q, err, sizeof err) == 0);
    CHECK(q.n_entries == p.n_entries);
    for (size_t i = 0; i < p.n_entries && i < q.n_entries; i++) {
        CHECK_STR(q.entries[i].key, p.entries[i].key);
        CHECK_STR(q.entries[i].text, p.entries[i].text);
        if (!p.entries[i].is_text)
            CHECK(same_bits(q.entries[i].value, p.entries[i].value));
    }
    CHECK(same_bits(q.alpha, 1.0 / 3.0));
    CHECK(same_bits(q.beta, 1.43e-6));
    CHECK(same_bits(q.gamma_b, DBL_MIN));
    CHECK(same_bits(q.sm_a[KCAL_SM_BCAST], DBL_MAX / 2));
    CHECK(same_bits(q.sm_b[KCAL_SM_BCAST], 0.1 + 0.2));
    CHECK(same_bits(q.sm_a[KCAL_SM_BARRIER], 0));
    CHECK(same_bits(kcal_params_get(&q, "alpha_stderr", -1), 2.5e-310));
    CHECK_STR(kcal_params_find(&q, "cpu")->text, "AMD EPYC 9R14 96-Core Processor");
    CHECK(kcal_params_find(&q, "future_key")->known == 0);
    CHECK(kcal_params_find(&q, "alpha_stderr")->known == 1);
    /* Write-read-write gives the same text. */
    char *again = write_to_string(&q, "written by test_params\nsecond line");
    CHECK_STR(again, text);
    free(text);
    free(again);
    kcal_params_free(&q);
    kcal_params_free(&p);

    /* The embedded defaults survive a round trip too. */
    for (const char *const *m = kcal_params_embedded_names(); *m; m++) {
        CHECK(kcal_params_load_embedded(*m, &p, err, sizeof err) == 0);
        text = write_to_string(&p, NULL);
        CHECK(kcal_params_parse(text, "mem", &q, err, sizeof err) == 0);
        CHECK(same_bits(p.alpha, q.alpha) && same_bits(p.beta, q.beta) &&
              same_bits(p.lock, q.lock) && same_bits(p.page, q.page) &&
              same_bits(p.gamma_a, q.gamma_a) && same_bits(p.gamma_b, q.gamma_b));
        free(text);
        kcal_params_free(&p);
        kcal_params_free(&q);
    }
}

static void test_embedded_values(void)
{
    kcal_params p;
    char err[KCAL_ERRLEN];
    CHECK(kcal_params_load_embedded("knl", &p, err, sizeof err) == 0);
    CHECK(p.alpha == 1.43e-6);
    CHECK_NEAR(1 / p.beta, 3.29e9, 1e-12);
    CHECK(p.lock == 0.25e-6 && p.page == 4096);
    CHECK(p.gamma_a == 0.11 && p.gamma_b == 1.6);
    CHECK(p.sm_a[KCAL_SM_GATHER] == 0 && p.sm_b[KCAL_SM_ALLGATHER] == 0);
    kcal_params_free(&p);
    CHECK(kcal_params_load_embedded("power8", &p, err, sizeof err) == 0);
    CHECK(p.page == 65536 && p.gamma_a == 0.04 && p.gamma_b == 1.95);
    CHECK_NEAR(1 / p.beta, 3.17e9, 1e-12);
    kcal_params_free(&p);
    CHECK(kcal_params_load_embedded("broadwell", &p, err, sizeof err) == 0);
    CHECK(p.alpha == 0.98e-6 && p.lock == 0.11e-6);
    kcal_params_free(&p);
    CHECK(kcal_params_load_embedded("nosuch", &p, err, sizeof err) < 0);
    CHECK(strstr(err, "nosuch") != NULL);
}

#define GOOD "format kcal-params-1\nalpha 1e-6\nbeta 1e-9\nlock 1e-7\npage 4096\ngamma_a 0.1\ngamma_b 1.5\n"

/* Parse `text`, expect failure with a message holding `want`. */
static void expect_error(const char *text, const char *want)
{
    kcal_params p;
    char err[KCAL_ERRLEN] = "";
    int rc = kcal_params_parse(text, "t.params", &p, err, sizeof err);
    CHECK(rc == -1);
    if (!strstr(err, want))
        fprintf(stderr, "  message '%s' lacks '%s'\n", err, want);
    CHECK(strstr(err, want) != NULL);
    CHECK(p.n_entries == 0 && p.entries == NULL);
}

static void test_rejections(void)
{
    expect_error("alpha 1\n", "t.params:1: expected 'format kcal-params-1'");
    expect_error("# c\n\nformat kcal-params-2\n", "t.params:3: expected 'format");
    expect_error("", "empty file");
    expect_error(GOOD "Alpha2 1\n", "t.params:8: bad key 'Alpha2'");
    expect_error(GOOD "sm-bcast-a 1\n", "t.params:8: bad key");
    expect_error("format kcal-params-1\nalpha\n", "t.params:2: key 'alpha' has no value");
    expect_error("format kcal-params-1\nalpha abc\n", "t.params:2: value 'abc' of 'alpha' is not a number");
    expect_error("format kcal-params-1\nalpha 1.0x\n", "t.params:2: value '1.0x' of 'alpha' is not a number");
    expect_error("format kcal-params-1\nbeta 1 2\n", "t.params:2: value '1 2' of 'beta' is not a number");
    expect_error("format kcal-params-1\n\nlock -1e-7\n", "t.params:3: value '-1e-7' of 'lock' is negative");
    expect_error("format kcal-params-1\nlock inf\n", "t.params:2: value 'inf' of 'lock' is not a finite");
    expect_error("format kcal-params-1\nlock nan\n", "t.params:2: value 'nan' of 'lock' is not a finite");
    expect_error("format kcal-params-1\nlock 1e999\n", "t.params:2: value '1e999' of 'lock' is not a finite");
    expect_error("format kcal-params-1\npage 0\n", "t.params:2: page size must be at least 1");
    expect_error(GOOD "alpha 2e-6\n", "t.params:8: duplicate key 'alpha' (first on line 2)");
    expect_error(GOOD "format kcal-params-1\n", "t.params:8: duplicate key 'format'");
    expect_error("format kcal-params-1\nalpha 1e-6\nbeta 1e-9\nlock 1e-7\npage 4096\ngamma_a 0.1\n",
                 "t.params: missing required key 'gamma_b'");
    expect_error("format kcal-params-1\nsm_gather_a -3\n" , "t.params:2: value '-3' of 'sm_gather_a' is negative");
    expect_error(GOOD "alpha_stderr x\n", "t.params:8: value 'x' of 'alpha_stderr' is not a number");
}

/* From memory with a length: a NUL is an error naming its line, and the
 * bytes need no terminating NUL. */
static void test_parse_buf(void)
{
    kcal_params p;
    char err[KCAL_ERRLEN] = "";
    static const char nul[] = GOOD "cpu a\0b\n";
    CHECK(kcal_params_parse_buf(nul, sizeof nul - 1, "m.params", &p, err, sizeof err) < 0);
    CHECK(strstr(err, "m.params:8: NUL byte in line") != NULL);
    CHECK(p.n_entries == 0);
    char buf[sizeof GOOD + 8];
    memcpy(buf, GOOD, sizeof GOOD - 1);
    memset(buf + sizeof GOOD - 1, 'x', 9); /* no NUL after the text */
    CHECK(kcal_params_parse_buf(buf, sizeof GOOD - 1, "m.params", &p, err, sizeof err) == 0);
    CHECK(p.gamma_b == 1.5);
    kcal_params_free(&p);
}

static void test_accepts(void)
{
    kcal_params p;
    char err[KCAL_ERRLEN];
    const char *text = "# comment\n  \n format   kcal-params-1  # trailing\n"
                       "alpha 1e-6 # s\nbeta 1e-9\nlock 1e-7\npage 4096\n"
                       "gamma_a 0.1\ngamma_b 1.5\nsm_gather_a 2e-6\n"
                       "sm_gather_b 1e-6\ncpu AMD EPYC 2-core\nnew_thing hello world\n";
    CHECK(kcal_params_parse(text, "ok.params", &p, err, sizeof err) == 0);
    CHECK(p.alpha == 1e-6 && p.gamma_b == 1.5);
    CHECK(p.sm_a[KCAL_SM_GATHER] == 2e-6 && p.sm_b[KCAL_SM_GATHER] == 1e-6);
    CHECK(p.sm_a[KCAL_SM_BCAST] == 0);
    CHECK_STR(kcal_params_find(&p, "cpu")->text, "AMD EPYC 2-core");
    const kcal_param *u = kcal_params_find(&p, "new_thing");
    CHECK(u && !u->known && u->is_text && u->line == 13);
    CHECK_STR(u ? u->text : NULL, "hello world");
    CHECK(kcal_params_get(&p, "sm_gather_b", -1) == 1e-6);
    CHECK(kcal_params_get(&p, "absent", -1) == -1);
    CHECK_STR(p.origin, "ok.params");
    /* Setters refuse what the format cannot hold. */
    CHECK(kcal_params_set(&p, "alpha", -1) < 0);
    CHECK(kcal_params_set(&p, "alpha", NAN) < 0);
    CHECK(kcal_params_set(&p, "Bad", 1) < 0);
    CHECK(kcal_params_set(&p, "cpu", 1) < 0);
    CHECK(kcal_params_set_text(&p, "alpha", "x") < 0);
    CHECK(kcal_params_set_text(&p, "cpu", "a # b") < 0);
    CHECK(kcal_params_set(&p, "alpha", 3e-6) == 0 && p.alpha == 3e-6);
    kcal_params_free(&p);
}

/* H2: what the setters accept must read back (kcal fit and kcal probe used
 * to print files their own reader refused: a `format` key, an empty value,
 * a page size under 1 byte, -0). */
static void test_setters_match_reader(void)
{
    kcal_params p;
    kcal_params_init(&p);
    CHECK(kcal_params_set_text(&p, "format", "kcal-params-1") < 0);
    CHECK(kcal_params_set(&p, "format", 1) < 0);
    CHECK(kcal_params_set_text(&p, "machine", "") < 0);
    CHECK(kcal_params_set_text(&p, "machine", "  \t ") < 0);
    CHECK(kcal_params_set(&p, "page", 0.5) < 0);
    CHECK(kcal_params_set(&p, "page", 0) < 0);
    CHECK_STR(kcal_params_check_number("page", 0.5),
              "page size must be at least 1 byte");
    CHECK_STR(kcal_params_check_text("machine", " "), "has no value");
    CHECK(kcal_params_check_text("format", "x") != NULL);
    CHECK(kcal_params_check_text("cpu", "Xeon") == NULL);
    CHECK(kcal_params_check_number("alpha", 1e-6) == NULL);
    /* Stored as the reader will read it. */
    CHECK(kcal_params_set_text(&p, "cpu", "  Xeon  Gold \t") == 0);
    CHECK_STR(kcal_params_find(&p, "cpu")->text, "Xeon  Gold");
    CHECK(kcal_params_set(&p, "l2_cache", -0.0) == 0);
    CHECK_STR(kcal_params_find(&p, "l2_cache")->text, "0");
    const char *keys[] = {"alpha", "beta", "lock", "page", "gamma_a", "gamma_b"};
    const double vals[] = {1e-6, 1e-9, 1e-7, 4096, 0.1, 1.5};
    for (int i = 0; i < 6; i++)
        CHECK(kcal_params_set(&p, keys[i], vals[i]) == 0);
    char *text = NULL, err[KCAL_ERRLEN] = "";
    size_t len = 0;
    CHECK(kcal_params_format(&p, "one\ntwo", &text, &len, err, sizeof err) == 0);
    CHECK(text && strlen(text) == len && !strncmp(text, "# one\n# two\nformat ", 19));
    kcal_params q;
    CHECK(text && kcal_params_parse(text, "mem", &q, err, sizeof err) == 0);
    CHECK_STR(kcal_params_find(&q, "cpu")->text, "Xeon  Gold");
    kcal_params_free(&q);
    free(text);
    /* A set the reader would refuse (here: a required key missing) is
     * not formatted. */
    kcal_params_free(&p);
    kcal_params_init(&p);
    CHECK(kcal_params_set(&p, "alpha", 1e-6) == 0);
    CHECK(kcal_params_format(&p, NULL, &text, &len, err, sizeof err) < 0);
    CHECK(text == NULL);
    CHECK(strstr(err, "would not read back") && strstr(err, "missing required key"));
    kcal_params_free(&p);
}

static void test_choose(void)
{
    kcal_params p;
    char err[KCAL_ERRLEN], chosen[256];
    char path[] = "/tmp/kcal-test-params-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(GOOD, f);
    fclose(f);

    unsetenv("KCAL_PARAMS");
    CHECK(kcal_params_choose(NULL, NULL, &p, chosen, sizeof chosen, err, sizeof err) == 0);
    CHECK(p.alpha == 1.43e-6 && strstr(chosen, "embedded knl"));
    kcal_params_free(&p);

    setenv("KCAL_PARAMS", path, 1);
    CHECK(kcal_params_choose(NULL, NULL, &p, chosen, sizeof chosen, err, sizeof err) == 0);
    CHECK(p.alpha == 1e-6 && strstr(chosen, "$KCAL_PARAMS"));
    kcal_params_free(&p);
    /* --machine beats the environment, --params beats both. */
    CHECK(kcal_params_choose(NULL, "broadwell", &p, chosen, sizeof chosen, err, sizeof err) == 0);
    CHECK(p.alpha == 0.98e-6);
    kcal_params_free(&p);
    CHECK(kcal_params_choose(path, "broadwell", &p, chosen, sizeof chosen, err, sizeof err) == 0);
    CHECK(p.alpha == 1e-6 && strstr(chosen, "--params"));
    kcal_params_free(&p);
    CHECK(kcal_params_read("/nonexistent/x.params", &p, err, sizeof err) < 0);
    CHECK(strstr(err, "/nonexistent/x.params: cannot open") != NULL);
    unsetenv("KCAL_PARAMS");
    remove(path);
}

/* The registry of keys (model/keys.def): names and ids both ways, the
 * families' members, and the index by id kept in step with the entries
 * through parse, set, replace and free. */
static void test_key_registry(void)
{
    CHECK_STR(kcal_key_name(KCAL_PK_sync_step), "sync_step");
    CHECK(kcal_key_lookup("sync_step", NULL, NULL) == KCAL_PK_sync_step);
    CHECK(kcal_key_lookup("mpi_bcast_below", NULL, NULL) ==
          KCAL_PK_MEMBER(mpi_below, 2));
    CHECK_STR(kcal_key_name(KCAL_PK_MEMBER(mpi_below, 2)), "mpi_bcast_below");
    CHECK_STR(kcal_key_name(KCAL_PK_MEMBER(sm_b, KCAL_SM_BARRIER)),
              "sm_barrier_b");
    CHECK(kcal_key_name(KCAL_PK_beta_ws) == NULL); /* a family, no key */
    const char *m = NULL;
    size_t ml = 0;
    CHECK(kcal_key_lookup("beta_ws_64k", &m, &ml) == KCAL_PK_beta_ws);
    CHECK(m && ml == 3 && !strncmp(m, "64k", ml));
    CHECK(kcal_key_lookup("mpi_bcast_a_stderr", &m, &ml) ==
          KCAL_PK_key_stderr);
    CHECK(ml == strlen("mpi_bcast_a"));
    CHECK(kcal_key_lookup("mpi_scan_a", NULL, NULL) < 0);
    CHECK(kcal_key_lookup("cpu_stderr", NULL, NULL) < 0); /* text key */
    CHECK(kcal_key_lookup("sm_flag_a", NULL, NULL) < 0);
    char buf[64];
    CHECK_STR(kcal_key_family_name(KCAL_PK_key_dof, "gamma_a", buf,
                                   sizeof buf), "gamma_a_dof");
    CHECK(kcal_key_family_name(KCAL_PK_alpha, "x", buf, sizeof buf) == NULL);
    CHECK_STR(kcal_key_pattern(KCAL_PK_mpi_mask, buf, sizeof buf),
              "mpi_<coll>_mask");
    CHECK_STR(kcal_key_description(KCAL_PK_alpha, buf, sizeof buf),
              "start-up of one CMA call (s)");
    /* Every row has what the docs' key table shows. */
    for (kcal_pkey k = 0; k < KCAL_PK_ROWS; k++) {
        const kcal_key_info *in = kcal_key_info_of(k);
        CHECK(in && *in->name && *in->meaning && *in->phase);
    }

    kcal_params p;
    char err[KCAL_ERRLEN];
    CHECK(kcal_params_parse("format kcal-params-1\nalpha 1\nbeta 2\n"
                            "lock 3\npage 4096\ngamma_a 0\ngamma_b 1\n"
                            "beta_ws_1m 3e-10\nbeta_ws_64k 1e-10\n"
                            "mpi_gather_below 512\n",
                            "t", &p, err, sizeof err) == 0);
    CHECK(kcal_params_get_key(&p, KCAL_PK_beta, 0) == 2);
    CHECK(kcal_params_get_key(&p, KCAL_PK_MEMBER(mpi_below, 1), 0) == 512);
    CHECK(!kcal_params_has_key(&p, KCAL_PK_sync_step));
    /* A file from before pass_spread reads without it (an optional key);
     * one with it reads it as a known number. */
    CHECK(!kcal_params_has_key(&p, KCAL_PK_pass_spread));
    {
        kcal_params q;
        CHECK(kcal_params_parse("format kcal-params-1\nalpha 1\nbeta 2\n"
                                "lock 3\npage 4096\ngamma_a 0\ngamma_b 1\n"
                                "pass_spread 2.5\npass_spread_stderr 0.1\n",
                                "t", &q, err, sizeof err) == 0);
        CHECK(kcal_params_get_key(&q, KCAL_PK_pass_spread, 0) == 2.5);
        const kcal_param *e = kcal_params_find(&q, "pass_spread");
        CHECK(e && e->known && !e->is_text);
        CHECK(kcal_params_get(&q, "pass_spread_stderr", 0) == 0.1);
        kcal_params_free(&q);
    }
    const kcal_curve *ws = kcal_params_curve(&p, KCAL_CURVE_BETA_WS);
    CHECK(ws->n == 2 && ws->w[0] == 65536 && ws->v[0] == 1e-10 &&
          ws->w[1] == 1048576 && ws->v[1] == 3e-10);
    CHECK(kcal_params_curve(&p, KCAL_CURVE_MEMCPY_WS)->n == 0);
    /* Set, replace: the index and the curve follow. */
    CHECK(kcal_params_set(&p, "sync_step", 5e-7) == 0);
    CHECK(kcal_params_get_key(&p, KCAL_PK_sync_step, 0) == 5e-7);
    CHECK(kcal_params_set(&p, "beta", 7) == 0 && p.beta == 7);
    CHECK(kcal_params_get_key(&p, KCAL_PK_beta, 0) == 7);
    CHECK(kcal_params_set(&p, "beta_ws_64k", 2e-10) == 0);
    CHECK(ws->n == 2 && ws->v[0] == 2e-10);
    CHECK(kcal_params_set(&p, "beta_ws_4m", 9e-10) == 0);
    CHECK(ws->n == 3 && ws->w[2] == 4194304 && ws->v[2] == 9e-10);
    CHECK(kcal_params_set(&p, "sm_gather_b", 1e-7) == 0);
    CHECK(p.sm_b[KCAL_SM_GATHER] == 1e-7);
    CHECK(kcal_params_find_key(&p, KCAL_PK_MEMBER(sm_b, KCAL_SM_GATHER)) ==
          kcal_params_find(&p, "sm_gather_b"));
    kcal_params_free(&p);
    CHECK(!kcal_params_has_key(&p, KCAL_PK_beta));
    CHECK(kcal_params_curve(&p, KCAL_CURVE_BETA_WS)->n == 0);
}

int main(void)
{
    test_round_trip();
    test_embedded_values();
    test_rejections();
    test_accepts();
    test_parse_buf();
    test_setters_match_reader();
    test_choose();
    test_key_registry();
    return check_report();
}
