/* algos/config: the one table of libkcoll's environment variables
 * (algos/config.def), read once per process whichever thread asks first,
 * with one rule for every number (decimal digits only: ' 2', '+2' and
 * '2 ' are refused alike, where KCOLL_VIRTUAL_NODES used to take the first
 * two and warn about the third) and one warning for a refused value; and
 * the places users read about them, algos/kcoll.h's "Environment" list
 * and docs/libkcoll.md's "Environment" section, name exactly the table's
 * variables. Run from the top of the tree (make test does). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algos/config.h"
#include "tests/check.h"

static const char *const names[KCOLL_CFG_COUNT] = {
#define KCOLL_VAR(id, name, type, dflt, lo, hi, meaning) name,
#include "algos/config.def"
#undef KCOLL_VAR
};

static void test_rule(void)
{
    long long v = -7;
    CHECK(kcoll_config_parse_number("2", 1, 10, &v) == 0 && v == 2);
    CHECK(kcoll_config_parse_number("007", 1, 10, &v) == 0 && v == 7);
    CHECK(kcoll_config_parse_number("0", 0, 10, &v) == 0 && v == 0);
    CHECK(kcoll_config_parse_number("2147483647", 1, 2147483647, &v) == 0 &&
          v == 2147483647);
    v = -7;
    static const char *const refused[] = {
        " 2", "+2", "2 ", "\t2", "2\n", "-1", "", "0x10", "1e3", "2.0",
        "2,", "two", "0", "11", "2147483648", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        long long hi = !strcmp(refused[i], "0") || !strcmp(refused[i], "11")
                           ? 10
                           : 2147483647;
        int rc = kcoll_config_parse_number(refused[i], 1, hi, &v);
        CHECK(rc == -1);
        if (rc != -1)
            fprintf(stderr, "  '%s' was taken as %lld\n", refused[i], v);
    }
    CHECK(v == -7); /* a refused value writes nothing */
    CHECK(kcoll_config_parse_number(NULL, 0, 10, &v) == -1);
}

/* The first reads come from several threads at once. */
static void *first_read(void *arg)
{
    long long *out = arg;
    *out = kcoll_config_number(KCOLL_CFG_VIRTUAL_NODES) * 1000 +
           kcoll_config_on(KCOLL_CFG_STRICT);
    return NULL;
}

static void test_read_once(void)
{
    setenv("KCOLL_VIRTUAL_NODES", " 2", 1);
    setenv("KCOLL_PACK_LIMIT", "+2", 1);
    setenv("KCOLL_SIMULATE_NO_STATE", "2 ", 1);
    setenv("KCOLL_STATS", "0", 1);
    setenv("KCOLL_STRICT", "yes", 1);
    setenv("KCOLL_SIMULATE_NO_CMA", "", 1);
    setenv("KCOLL_TABLE", "", 1);
    setenv("KCAL_PARAMS", "/x.params", 1);

    /* The warnings go to stderr: into a file for a while. */
    char path[] = "/tmp/kcal-test-config-XXXXXX";
    int fd = mkstemp(path), saved = dup(STDERR_FILENO);
    CHECK(fd >= 0 && saved >= 0);
    fflush(stderr);
    dup2(fd, STDERR_FILENO);
    pthread_t t[4];
    long long got[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, first_read, &got[i]);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    for (int i = 0; i < 4; i++)
        CHECK(got[i] == 1); /* virtual nodes refused: 0; strict on */

    CHECK(kcoll_config_number(KCOLL_CFG_VIRTUAL_NODES) == 0);
    CHECK(kcoll_config_number(KCOLL_CFG_PACK_LIMIT) == 2147483647);
    CHECK(kcoll_config_number(KCOLL_CFG_SIMULATE_NO_STATE) == -1);
    CHECK(!kcoll_config_on(KCOLL_CFG_STATS));
    CHECK(kcoll_config_on(KCOLL_CFG_STRICT));
    CHECK(!kcoll_config_on(KCOLL_CFG_SIMULATE_NO_CMA));
    CHECK(kcoll_config_path(KCOLL_CFG_TABLE) == NULL);
    CHECK_STR(kcoll_config_path(KCOLL_CFG_PARAMS), "/x.params");
    CHECK_STR(kcoll_config_name(KCOLL_CFG_TABLE), "KCOLL_TABLE");
    /* Read once: later changes are not seen. */
    setenv("KCAL_PARAMS", "/y.params", 1);
    setenv("KCOLL_STATS", "1", 1);
    CHECK_STR(kcoll_config_path(KCOLL_CFG_PARAMS), "/x.params");
    CHECK(!kcoll_config_on(KCOLL_CFG_STATS));

    /* One warning per refused number, in one format, once. */
    FILE *f = fdopen(fd, "r");
    rewind(f);
    char line[512];
    int lines = 0;
    static const char *const want[] = {
        "kcoll: warning: KCOLL_VIRTUAL_NODES=' 2' is not a whole number from "
        "1 to 2147483647 (decimal digits only); using the default (pid ",
        "kcoll: warning: KCOLL_SIMULATE_NO_STATE='2 ' is not a whole number "
        "from 0 to 2147483647 (decimal digits only); using the default (pid ",
        "kcoll: warning: KCOLL_PACK_LIMIT='+2' is not a whole number from 1 "
        "to 2147483647 (decimal digits only); using the default (pid "};
    while (f && fgets(line, sizeof line, f)) {
        if (lines < 3)
            CHECK(!strncmp(line, want[lines], strlen(want[lines])));
        lines++;
    }
    CHECK(lines == 3);
    if (f)
        fclose(f);
    unlink(path);
}

/* The text of path from the first `from` to the next `to` after it (or
 * the end), malloc'ed; NULL when the file or `from` is missing. */
static char *section(const char *path, const char *from, const char *to)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *a = strstr(buf, from);
    if (!a)
        return NULL;
    char *b = strstr(a + strlen(from), to);
    size_t len = b ? (size_t)(b - a) : strlen(a);
    char *out = malloc(len + 1);
    memcpy(out, a, len);
    out[len] = '\0';
    return out;
}

static int in_table(const char *word, size_t len)
{
    for (int i = 0; i < KCOLL_CFG_COUNT; i++)
        if (strlen(names[i]) == len && !strncmp(names[i], word, len))
            return 1;
    return 0;
}

/* Every variable of the table is named in text, and every KCOLL_ or KCAL_
 * variable named there is the table's. */
static void same_variables(const char *where, const char *text)
{
    CHECK(text != NULL);
    if (!text)
        return;
    for (int i = 0; i < KCOLL_CFG_COUNT; i++) {
        const char *at = text;
        size_t len = strlen(names[i]);
        int found = 0;
        while (!found && (at = strstr(at, names[i]))) {
            char next = at[len];
            found = !(next == '_' || (next >= 'A' && next <= 'Z'));
            at += len;
        }
        CHECK(found);
        if (!found)
            fprintf(stderr, "  %s does not name %s\n", where, names[i]);
    }
    for (const char *c = text; *c; c++) {
        if (strncmp(c, "KCOLL_", 6) && strncmp(c, "KCAL_", 5))
            continue;
        if (c > text && (c[-1] == '_' || (c[-1] >= 'A' && c[-1] <= 'Z')))
            continue;
        size_t len = strspn(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
        int known = in_table(c, len);
        CHECK(known);
        if (!known)
            fprintf(stderr, "  %s names %.*s, which algos/config.def lacks\n",
                    where, (int)len, c);
        c += len - 1;
    }
}

static void test_documented(void)
{
    char *h = section("algos/kcoll.h", " * Environment", "*/");
    same_variables("algos/kcoll.h's Environment list", h);
    free(h);
    char *md = section("docs/libkcoll.md", "\n## Environment\n", "\n## ");
    same_variables("docs/libkcoll.md's Environment section", md);
    free(md);
}

int main(void)
{
    test_rule();
    test_read_once();
    test_documented();
    return check_report();
}
