/* The one size parser: suffixes, lists, ranges and every kind of bad size. */
#include <stdlib.h>

#include "tests/check.h"
#include "common/sizes.h"

static uint64_t one(const char *s)
{
    uint64_t v = 0;
    char err[256];
    CHECK(kcal_sizes_parse_one(s, &v, err, sizeof err) == 0);
    return v;
}

static void bad(const char *s, const char *want)
{
    uint64_t v;
    char err[256] = "";
    CHECK(kcal_sizes_parse_one(s, &v, err, sizeof err) < 0);
    CHECK(strstr(err, want) != NULL);
}

int main(void)
{
    CHECK(one("1") == 1);
    CHECK(one("4097") == 4097);
    CHECK(one("1K") == 1024 && one("1k") == 1024);
    CHECK(one("4M") == 4u << 20);
    CHECK(one("1G") == 1u << 30);
    CHECK(one("3T") == 3ull << 40);
    CHECK(one("18446744073709551615") == UINT64_MAX);
    bad("0", "zero");
    bad("0K", "zero");
    bad("-1", "not a positive number");
    bad("", "not a positive number");
    bad("abc", "not a positive number");
    bad("1KB", "trailing garbage");
    bad("1.5M", "trailing garbage");
    bad("4 M", "trailing garbage");
    bad("18446744073709551616", "too large");
    bad("16777216T", "too large");

    uint64_t *v;
    size_t n;
    char err[256];
    CHECK(kcal_sizes_parse("1K:8M", &v, &n, err, sizeof err) == 0);
    CHECK(n == 14 && v[0] == 1024 && v[13] == 8u << 20);
    free(v);
    CHECK(kcal_sizes_parse("3:20", &v, &n, err, sizeof err) == 0);
    CHECK(n == 3 && v[0] == 3 && v[1] == 6 && v[2] == 12);
    free(v);
    CHECK(kcal_sizes_parse("64K,1K,1M", &v, &n, err, sizeof err) == 0);
    CHECK(n == 3 && v[0] == 65536 && v[1] == 1024 && v[2] == 1048576);
    free(v);
    CHECK(kcal_sizes_parse("1K", &v, &n, err, sizeof err) == 0 && n == 1);
    free(v);
    CHECK(kcal_sizes_parse("8M:1K", &v, &n, err, sizeof err) < 0 && strstr(err, "MIN is above MAX"));
    CHECK(kcal_sizes_parse("1K,,2K", &v, &n, err, sizeof err) < 0 && strstr(err, "empty item"));
    CHECK(kcal_sizes_parse("1K,x", &v, &n, err, sizeof err) < 0 && v == NULL);
    CHECK(kcal_sizes_parse("1K:", &v, &n, err, sizeof err) < 0);

    char buf[32];
    CHECK_STR(kcal_sizes_format(4096, buf, sizeof buf), "4K");
    CHECK_STR(kcal_sizes_format(4097, buf, sizeof buf), "4097");
    CHECK_STR(kcal_sizes_format(8u << 20, buf, sizeof buf), "8M");
    CHECK_STR(kcal_sizes_format(1536, buf, sizeof buf), "1536");
    return check_report();
}
