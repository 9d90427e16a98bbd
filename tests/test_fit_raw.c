/* test_fit_raw: the raw CSV of `kcal probe --raw` round-trips exactly, and a
 * malformed file is refused with FILE:LINE. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "raw.h"

static char dir[] = "/tmp/kcal-test-raw-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return path;
}

static void test_round_trip(void)
{
    kcal_raw a, b;
    kcal_raw_init(&a);
    CHECK(kcal_raw_set_meta(&a, "page", "4096") == 0);
    CHECK(kcal_raw_set_meta(&a, "cpu", "AMD EPYC 7B13 64-Core Processor") == 0);
    CHECK(kcal_raw_set_meta(&a, "cpu", "replaced value") == 0);
    double awkward[] = {1.0 / 3, 1.3e-6, 5e-324, 0.1 + 0.2, 123456.789e-9};
    for (int i = 0; i < 5; i++)
        CHECK(kcal_raw_add(&a, "lock", "one_byte_local", 1, 1 << i, 1, i,
                           awkward[i]) == 0);
    CHECK(kcal_raw_add(&a, "contention", "distinct", 64, 1024, 1, 7, 2.5e-4) == 0);
    CHECK(kcal_raw_add(&a, "bad,phase", "x", 1, 1, 1, 0, 1) < 0);
    CHECK(kcal_raw_add(&a, "phase", "", 1, 1, 1, 0, 1) < 0);
    char path[256], err[256];
    snprintf(path, sizeof path, "%s/rt.csv", dir);
    CHECK(kcal_raw_save(path, &a, err, sizeof err) == 0);
    CHECK(kcal_raw_read(path, &b, err, sizeof err) == 0);
    CHECK(b.n == a.n);
    for (size_t i = 0; i < a.n && i < b.n; i++) {
        CHECK_STR(b.s[i].phase, a.s[i].phase);
        CHECK_STR(b.s[i].pattern, a.s[i].pattern);
        CHECK(b.s[i].readers == a.s[i].readers && b.s[i].pages == a.s[i].pages &&
              b.s[i].bytes == a.s[i].bytes && b.s[i].rep == a.s[i].rep);
        CHECK(b.s[i].seconds == a.s[i].seconds); /* bit-exact */
    }
    CHECK_STR(kcal_raw_get_meta(&b, "page"), "4096");
    CHECK_STR(kcal_raw_get_meta(&b, "cpu"), "replaced value");
    CHECK(b.n_meta == 2);
    CHECK(kcal_raw_select(&b, "lock", NULL, 0, -1, NULL, 0) == 5);
    CHECK(kcal_raw_select(&b, "lock", "one_byte_local", 1, 4, NULL, 0) == 1);
    CHECK(kcal_raw_select(&b, "contention", "same", 0, -1, NULL, 0) == 0);
    /* The header is exactly the contract's. */
    FILE *f = fopen(path, "r");
    char line[256];
    while (fgets(line, sizeof line, f) && line[0] == '#')
        ;
    fclose(f);
    CHECK_STR(line, "phase,pattern,readers,pages,bytes,rep,seconds\n");
    /* No temporary file left behind. */
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    CHECK(access(tmp, F_OK) != 0);
    unlink(path);
    kcal_raw_free(&a);
    kcal_raw_free(&b);
}

static void expect_error(const char *name, const char *text, const char *want)
{
    kcal_raw r;
    char err[512] = "";
    const char *path = write_file(name, text);
    CHECK(kcal_raw_read(path, &r, err, sizeof err) < 0);
    CHECK(r.n == 0 && r.n_meta == 0);
    if (!strstr(err, want)) {
        fprintf(stderr, "error '%s' lacks '%s'\n", err, want);
        CHECK(0);
    }
    unlink(path);
}

static void test_errors(void)
{
    const char *h = "phase,pattern,readers,pages,bytes,rep,seconds\n";
    char buf[512];
    expect_error("nohdr.csv", "lock,x,1,1,1,0,1e-6\n", "nohdr.csv:1: expected the header");
    expect_error("empty.csv", "# meta page 4096\n", "empty.csv:1: no header");
    snprintf(buf, sizeof buf, "%slock,x,1,1,1,0\n", h);
    expect_error("short.csv", buf, "short.csv:2: expected 7");
    snprintf(buf, sizeof buf, "%slock,x,1,1,1,0,1e-6,9\n", h);
    expect_error("long.csv", buf, "long.csv:2: expected 7");
    snprintf(buf, sizeof buf, "%slock,x,1,1,1,0,1e-6\nlock,x,1,one,1,0,1e-6\n", h);
    expect_error("num.csv", buf, "num.csv:3: readers, pages");
    snprintf(buf, sizeof buf, "%slock,x,1,1,1,0,-1e-6\n", h);
    expect_error("neg.csv", buf, "neg.csv:2: seconds");
    snprintf(buf, sizeof buf, "%slock,x,1,1,1,0,nan\n", h);
    expect_error("nan.csv", buf, "nan.csv:2: seconds");
    expect_error("meta.csv", "# meta page\n", "meta.csv:1: meta line");
    kcal_raw r;
    char err[256];
    CHECK(kcal_raw_read("/nonexistent/raw.csv", &r, err, sizeof err) < 0);
    CHECK(strstr(err, "/nonexistent/raw.csv") != NULL);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trip();
    test_errors();
    rmdir(dir);
    return check_report();
}
