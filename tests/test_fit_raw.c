/* test_fit_raw: the raw CSV of `kcal probe --raw` round-trips exactly, and a
 * malformed file is refused with FILE:LINE. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/check.h"
#include "fit/raw.h"

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

/* Write len bytes (NULs included) to dir/name. */
static const char *write_bytes(const char *name, const char *data, size_t len)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    fwrite(data, 1, len, f);
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

static void expect_bytes_error(const char *name, const char *data,
                               size_t len, const char *want)
{
    kcal_raw r;
    char err[512] = "";
    const char *path = write_bytes(name, data, len);
    CHECK(kcal_raw_read(path, &r, err, sizeof err) < 0);
    CHECK(r.n == 0 && r.n_meta == 0);
    if (!strstr(err, want)) {
        fprintf(stderr, "error '%s' lacks '%s'\n", err, want);
        CHECK(0);
    }
    /* The same text from memory: the same verdict and message (but the
     * name). */
    char err2[512] = "";
    CHECK(kcal_raw_parse(data, len, name, &r, err2, sizeof err2) < 0);
    CHECK(r.n == 0 && r.n_meta == 0);
    const char *colon = strchr(want, ':');
    if (colon && !strstr(err2, colon)) {
        fprintf(stderr, "memory error '%s' lacks '%s'\n", err2, colon);
        CHECK(0);
    }
    unlink(path);
}

/* H3: a NUL byte used to end the line silently (the rest was dropped and
 * the row, or a meta value, accepted); the params and report readers
 * reject NULs, and so does this one, with FILE:LINE. */
static void test_nul(void)
{
    static const char row[] = "phase,pattern,readers,pages,bytes,rep,seconds\n"
                              "lock,x,1,1,1,0,1e-6\0garbage\n";
    expect_bytes_error("nul.csv", row, sizeof row - 1, "nul.csv:2: NUL byte");
    static const char meta[] = "# meta cpu Xeon\0 and more\n"
                               "phase,pattern,readers,pages,bytes,rep,seconds\n";
    expect_bytes_error("nulmeta.csv", meta, sizeof meta - 1,
                       "nulmeta.csv:1: NUL byte");
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* H5: input without newlines used to grow one line without bound
 * (`kcal fit /dev/zero` reached 1 GB, then said "no header line"). Lines
 * and files are capped: one clear error, at once. */
static void test_limits(void)
{
    /* A hang would be the failure: die instead of waiting forever. */
    alarm(60);
    kcal_raw r;
    char err[512] = "";
    double t0 = now_s();
    CHECK(kcal_raw_read("/dev/zero", &r, err, sizeof err) < 0);
    CHECK(strstr(err, "/dev/zero:1: NUL byte") != NULL);
    CHECK(now_s() - t0 < 2);

    size_t len = 3 * KCAL_RAW_MAX_LINE;
    char *longl = malloc(len);
    memset(longl, 'x', len);
    t0 = now_s();
    expect_bytes_error("long.csv", longl, len, "long.csv:1: line longer than");
    CHECK(now_s() - t0 < 2);
    /* One byte under the cap is a line (here: not the header). */
    memcpy(longl, "# ", 2);
    longl[KCAL_RAW_MAX_LINE] = '\n';
    const char *h = "phase,pattern,readers,pages,bytes,rep,seconds\n";
    memcpy(longl + KCAL_RAW_MAX_LINE + 1, h, strlen(h));
    const char *path = write_bytes("edge.csv", longl,
                                   KCAL_RAW_MAX_LINE + 1 + strlen(h));
    CHECK(kcal_raw_read(path, &r, err, sizeof err) == 0);
    kcal_raw_free(&r);
    unlink(path);
    free(longl);

    /* A file larger than any probe writes: refused before reading it (a
     * sparse file, so the test costs no disk). */
    char big[256];
    snprintf(big, sizeof big, "%s/big.csv", dir);
    int fd = open(big, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    CHECK(fd >= 0 && ftruncate(fd, (off_t)KCAL_RAW_MAX_BYTES + 1) == 0);
    close(fd);
    t0 = now_s();
    CHECK(kcal_raw_read(big, &r, err, sizeof err) < 0);
    CHECK(strstr(err, "big.csv: too large for a raw file") != NULL);
    CHECK(now_s() - t0 < 2);
    unlink(big);
    alarm(0);
}

/* H11: kcal probe asks this before measuring; nothing is left behind. */
static void test_check_writable(void)
{
    char path[256], err[512] = "";
    snprintf(path, sizeof path, "%s/nodir/raw.csv", dir);
    CHECK(kcal_raw_check_writable(path, err, sizeof err) < 0);
    CHECK(strstr(err, "nodir/raw.csv: cannot create it") != NULL);
    CHECK(kcal_raw_check_writable(dir, err, sizeof err) < 0);
    CHECK(strstr(err, "is a directory") != NULL);
    snprintf(path, sizeof path, "%s/ok.csv", dir);
    CHECK(kcal_raw_check_writable(path, err, sizeof err) == 0);
    CHECK(access(path, F_OK) != 0);
    /* The directory is empty again (rmdir in main fails otherwise). */
    CHECK(rmdir(dir) == 0 && mkdir(dir, 0700) == 0);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trip();
    test_errors();
    test_nul();
    test_limits();
    test_check_writable();
    CHECK(rmdir(dir) == 0);
    return check_report();
}
