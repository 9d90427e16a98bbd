/* The selection table (model/table.c): good tables read and look up as
 * written, every kind of bad input is refused with "file:line: what", and
 * what kcal_table_format writes reads back to the same rules. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/check.h"
#include "model/table.h"

static int parse(const char *text, kcal_table *t, char *err, size_t len)
{
    err[0] = '\0';
    return kcal_table_parse_buf(text, strlen(text), "t.table", t, err, len);
}

/* The rule's choice as "id" or "id:k", "none" when nothing matches. */
static const char *lookup(const kcal_table *t, kcal_coll c, int p, uint64_t n)
{
    static char buf[80];
    const kcal_table_rule *r = kcal_table_lookup(t, c, p, n);
    if (!r)
        return "none";
    if (r->k)
        snprintf(buf, sizeof buf, "%s:%d", r->alg->id, r->k);
    else
        snprintf(buf, sizeof buf, "%s", r->alg->id);
    return buf;
}

static void test_good(void)
{
    const char *text =
        "# a comment before the header\n"
        "\n"
        "kcoll-table 1 measured by hand on a test machine   \n"
        "# collective p size choice\n"
        "scatter 2 0..4095 mpi\n"
        "scatter 2 4K..1M-1 parallel_read\n" /* refused below: '1M-1' */
        "";
    kcal_table t;
    char err[KCAL_ERRLEN] = "";
    CHECK(parse(text, &t, err, sizeof err) == -1);
    CHECK_STR(err, "t.table:6: size range '4K..1M-1': '1M-1' is not a size "
                   "(digits and an optional K, M, G or T)");

    text = "kcoll-table 1 measured by hand on a test machine   \n"
           "scatter   2     0..4095       mpi   # small: the MPI library\n"
           "scatter   2     4K..1048575   parallel_read\n"
           "scatter   2     1M..          sequential_write\r\n"
           "scatter   3..   *             throttled_read:2\n"
           "bcast     *     64K           direct_read\n"
           "bcast     2..4  ..64K-ish     direct_read\n";
    CHECK(parse(text, &t, err, sizeof err) == -1);
    CHECK(strncmp(err, "t.table:7: size range '..64K-ish'", 33) == 0);

    text = "kcoll-table 1 measured by hand on a test machine   \n"
           "scatter   2     0..4095       mpi   # small: the MPI library\n"
           "scatter   2     4K..1048575   parallel_read\n"
           "scatter   2     1M..          sequential_write\r\n"
           "scatter   3..   *             throttled_read:2\n"
           "bcast     *     64K           direct_read\n"
           "bcast     1..4  ..65535       mpi\n"
           "gather    4..8  0..          throttled_write\n"
           "allgather\t5\t*\tring_neighbor:3\n"
           "alltoall  2..2  1k..2k        pairwise_flags\n";
    CHECK(parse(text, &t, err, sizeof err) == 0);
    CHECK_STR(err, "");
    CHECK_STR(t.about, "measured by hand on a test machine");
    CHECK(t.count == 9);
    CHECK(t.rules[0].line == 2 && t.rules[8].line == 10);
    CHECK_STR(lookup(&t, KCAL_COLL_SCATTER, 2, 0), "mpi");
    CHECK_STR(lookup(&t, KCAL_COLL_SCATTER, 2, 4095), "mpi");
    CHECK_STR(lookup(&t, KCAL_COLL_SCATTER, 2, 4096), "parallel_read");
    CHECK_STR(lookup(&t, KCAL_COLL_SCATTER, 2, 1048575), "parallel_read");
    CHECK_STR(lookup(&t, KCAL_COLL_SCATTER, 2, 1048576), "sequential_write");
    CHECK_STR(lookup(&t, KCAL_COLL_SCATTER, 2, UINT64_MAX), "sequential_write");
    CHECK_STR(lookup(&t, KCAL_COLL_SCATTER, 1, 4096), "none");
    CHECK_STR(lookup(&t, KCAL_COLL_SCATTER, 3, 1), "throttled_read:2");
    CHECK_STR(lookup(&t, KCAL_COLL_SCATTER, 1000000, 1), "throttled_read:2");
    CHECK_STR(lookup(&t, KCAL_COLL_BCAST, 64, 65536), "direct_read");
    CHECK_STR(lookup(&t, KCAL_COLL_BCAST, 5, 65535), "none");
    CHECK_STR(lookup(&t, KCAL_COLL_BCAST, 4, 65535), "mpi");
    CHECK_STR(lookup(&t, KCAL_COLL_BCAST, 4, 65537), "none");
    CHECK_STR(lookup(&t, KCAL_COLL_GATHER, 8, 12345), "throttled_write");
    CHECK(kcal_table_lookup(&t, KCAL_COLL_GATHER, 8, 1)->k == 0);
    CHECK_STR(lookup(&t, KCAL_COLL_GATHER, 9, 1), "none");
    CHECK_STR(lookup(&t, KCAL_COLL_ALLGATHER, 5, 7), "ring_neighbor:3");
    CHECK_STR(lookup(&t, KCAL_COLL_ALLGATHER, 4, 7), "none");
    CHECK_STR(lookup(&t, KCAL_COLL_ALLTOALL, 2, 1023), "none");
    CHECK_STR(lookup(&t, KCAL_COLL_ALLTOALL, 2, 1024), "pairwise_flags");
    CHECK_STR(lookup(&t, KCAL_COLL_ALLTOALL, 2, 2048), "pairwise_flags");
    CHECK_STR(lookup(&t, KCAL_COLL_ALLTOALL, 2, 2049), "none");
    CHECK(kcal_model_is_mpi(kcal_table_lookup(&t, KCAL_COLL_SCATTER, 2, 1)->alg));
    CHECK(kcal_table_lookup(&t, KCAL_COLL_COUNT, 2, 1) == NULL);
    CHECK(kcal_table_lookup(NULL, KCAL_COLL_SCATTER, 2, 1) == NULL);

    /* Written and read back: the same rules, and the same text again. */
    char *out = NULL, *again = NULL;
    size_t len = 0, len2 = 0;
    CHECK(kcal_table_format(&t, "two\nlines", &out, &len, err, sizeof err) == 0);
    kcal_table u;
    CHECK(out && kcal_table_parse_buf(out, len, "out", &u, err, sizeof err) == 0);
    CHECK(u.count == t.count);
    for (size_t i = 0; i < t.count && i < u.count; i++) {
        char a[200], b[200];
        CHECK_STR(kcal_table_format_rule(&u.rules[i], b, sizeof b),
                  kcal_table_format_rule(&t.rules[i], a, sizeof a));
    }
    CHECK(kcal_table_format(&u, "two\nlines", &again, &len2, err, sizeof err) == 0);
    CHECK(again && len == len2 && !memcmp(out, again, len));
    CHECK(out && strstr(out, "kcoll-table 1 measured by hand on a test machine\n"
                             "# two\n# lines\n") == out);
    CHECK(out && strstr(out, "\nscatter      2      1M..               "
                             "sequential_write\n"));
    CHECK(out && strstr(out, "\nbcast        1..4   0..65535           mpi\n"));
    CHECK(out && strstr(out, "\nscatter      3..    *                  "
                             "throttled_read:2\n"));
    free(out);
    free(again);
    kcal_table_free(&u);
    kcal_table_free(&t);
    CHECK(t.rules == NULL && t.count == 0);

    /* The longest header a line holds is kept whole (fuzz_table found a
     * long one cut short, which then wrote back differently). */
    char header[KCAL_TABLE_MAX_LINE + 1];
    memset(header, '\t', sizeof header);
    memcpy(header, "kcoll-table 1 x", 15);
    header[KCAL_TABLE_MAX_LINE - 1] = 'y';
    header[KCAL_TABLE_MAX_LINE] = '\0';
    CHECK(parse(header, &t, err, sizeof err) == 0);
    CHECK(strlen(t.about) == KCAL_TABLE_MAX_LINE - 14);
    CHECK(kcal_table_format(&t, NULL, &out, &len, err, sizeof err) == 0);
    free(out);
    kcal_table_free(&t);

    /* A header alone is a table without rules: nothing matches. */
    CHECK(parse("kcoll-table 1 empty", &t, err, sizeof err) == 0);
    CHECK(t.count == 0);
    CHECK_STR(lookup(&t, KCAL_COLL_BCAST, 2, 1), "none");
    kcal_table_free(&t);
}

/* Each bad table (len bytes) is refused with exactly this message. */
static void bad_len(const char *text, size_t len, const char *want)
{
    kcal_table t;
    char err[KCAL_ERRLEN] = "";
    int rc = kcal_table_parse_buf(text, len, "t.table", &t, err, sizeof err);
    CHECK(rc == -1);
    CHECK(t.count == 0 && t.rules == NULL);
    if (strcmp(err, want)) {
        fprintf(stderr, "  for table: %s\n", text);
        CHECK_STR(err, want);
    } else {
        CHECK(1);
    }
}

static void bad(const char *text, const char *want)
{
    bad_len(text, strlen(text), want);
}

#define H "kcoll-table 1 test\n"

static void test_bad(void)
{
    bad("", "t.table:1: empty: a selection table starts with 'kcoll-table 1 "
            "<where and how it was measured>'");
    bad("# only\n\n", "t.table:2: empty: a selection table starts with "
                      "'kcoll-table 1 <where and how it was measured>'");
    bad("scatter 2 * mpi\n", "t.table:1: not a selection table: the first "
        "line must be 'kcoll-table 1 <where and how it was measured>'");
    bad("kcoll-tables 1 x\n", "t.table:1: not a selection table: the first "
        "line must be 'kcoll-table 1 <where and how it was measured>'");
    bad("kcoll-table\n", "t.table:1: the header names no version (want "
        "'kcoll-table 1')");
    bad("kcoll-table 2 x\n", "t.table:1: kcoll-table version '2' is not one "
        "this reader knows (1)");
    bad("kcoll-table 1   # nothing\n", "t.table:1: the header says nothing "
        "after 'kcoll-table 1': name where and how the table was measured");
    bad(H "scan 2 * mpi\n", "t.table:2: unknown collective 'scan' "
        "(scatter, gather, bcast, allgather, alltoall, reduce, allreduce, "
        "reduce_scatter_block; scatterv, gatherv, allgatherv, alltoallv)");
    bad(H "alltoallv 2 * parallel_read\n", "t.table:2: 'parallel_read' is "
        "not an algorithm of alltoallv (nor mpi)");
    bad(H "alltoallv 2 * pairwise:1\n", "t.table:2: 'pairwise' takes no "
        "window (no ':w')");
    bad(H "scatterv 2 * throttled_read:0\n", "t.table:2: the window in "
        "'throttled_read:0' is not between 1 and 1073741824");
    bad(H "scatterv 2..4 * throttled_read:4\n", "t.table:2: w = 4 fits no "
        "p of the rule (throttled_read needs 1 <= w <= p - 1)");
    bad(H "gatherv 2 0..4K mpi\ngatherv 2 4K.. sequential_read\n",
        "t.table:3: overlaps the rule of line 2 (gatherv      2      0..4K"
        "              mpi): rules of a collective must not share a (p, "
        "size)");
    bad(H "scatter 2 * parallel_write\n", "t.table:2: 'parallel_write' is "
        "not an algorithm of scatter (nor mpi)");
    bad(H "scatter 2 * :2\n", "t.table:2: ':2' is not an algorithm of "
        "scatter");
    bad(H "scatter 2 *\n", "t.table:2: want 4 fields (collective, p range, "
        "size range, algorithm), got 3");
    bad(H "scatter 2 * mpi extra\n", "t.table:2: want 4 fields (collective, "
        "p range, size range, algorithm), got 5");
    bad(H "scatter 2 * parallel_read:2\n", "t.table:2: 'parallel_read' "
        "takes no parameter (no ':k')");
    bad(H "scatter 2 * mpi:1\n", "t.table:2: 'mpi' takes no parameter "
        "(no ':k')");
    bad(H "scatter 4 * throttled_read:x\n", "t.table:2: k in "
        "'throttled_read:x': 'x' is not a whole number");
    bad(H "scatter 4 * throttled_read:\n", "t.table:2: k in "
        "'throttled_read:': '' a number is missing");
    bad(H "scatter 4 * throttled_read:0\n", "t.table:2: k in "
        "'throttled_read:0' is not between 1 and 1073741824");
    bad(H "scatter 4 * throttled_read:1\n", "t.table:2: k = 1 fits no p of "
        "the rule (throttled_read needs 2 <= k <= p - 1)");
    bad(H "scatter 3..8 * throttled_read:8\n", "t.table:2: k = 8 fits no p "
        "of the rule (throttled_read needs 2 <= k <= p - 1)");
    bad(H "bcast 2..8 * knomial:2\n", "t.table:2: knomial has no throttle "
        "factor below p = 3: start its p range at 3 (it starts at 2)");
    bad(H "allgather 2..4 * ring_neighbor:4\n", "t.table:2: j = 4 fits no p "
        "of the rule (ring_neighbor needs 1 <= j <= p - 1)");
    bad(H "scatter 8..2 * mpi\n", "t.table:2: p range '8..2' is reversed "
        "(its start is after its end)");
    bad(H "scatter 2 1M..4K mpi\n", "t.table:2: size range '1M..4K' is "
        "reversed (its start is after its end)");
    bad(H "scatter 0 * mpi\n", "t.table:2: p range '0': p = 0 is not "
        "between 1 and 1073741824");
    bad(H "scatter 2..4294967296 * mpi\n", "t.table:2: p range "
        "'2..4294967296': p = 4294967296 is not between 1 and 1073741824");
    bad(H "scatter 2K * mpi\n", "t.table:2: p range '2K': '2K' is not a "
        "whole number");
    bad(H "scatter -2 * mpi\n", "t.table:2: p range '-2': '-2' is not a "
        "whole number");
    bad(H "scatter 2 .. mpi\n", "t.table:2: size range '..' has no end "
        "(write * for any)");
    bad(H "scatter 2 16777216T mpi\n", "t.table:2: size range '16777216T': "
        "'16777216T' is too large");
    bad(H "scatter 2 99999999999999999999 mpi\n", "t.table:2: size range "
        "'99999999999999999999': '99999999999999999999' is too large");
    bad(H "scatter 2 4X mpi\n", "t.table:2: size range '4X': '4X' is not a "
        "size (digits and an optional K, M, G or T)");
    bad(H "scatter 2 0..4K mpi\n"
          "gather 2 0..4K mpi\n"
          "scatter 1..3 4K..8K parallel_read\n",
        "t.table:4: overlaps the rule of line 2 (scatter      2      0..4K   "
        "           mpi): rules of a collective must not share a (p, size)");
    bad(H "scatter * * mpi\nscatter 7 1 mpi\n", "t.table:3: overlaps the "
        "rule of line 2 (scatter      *      *                  mpi): rules "
        "of a collective must not share a (p, size)");
    bad(H "scatter 2 * mpi\n\x01\n", "t.table:3: a control character (byte "
        "0x01): not a text table");
    bad_len(H "scatter 2 * mpi\0\n", strlen(H) + 17, "t.table:2: a control character (byte "
        "0x00): not a text table");
    char long_line[2000];
    memset(long_line, ' ', sizeof long_line);
    memcpy(long_line, H, strlen(H));
    long_line[sizeof long_line - 1] = '\0';
    bad(long_line, "t.table:2: line longer than 1024 characters");
    /* The limit on rules: 4096 fit, one more does not. */
    size_t cap = (KCAL_TABLE_MAX_RULES + 2) * 40;
    char *many = malloc(cap), *w = many;
    w += sprintf(w, H);
    for (int i = 0; i <= KCAL_TABLE_MAX_RULES; i++)
        w += sprintf(w, "bcast 2 %d mpi\n", i);
    bad(many, "t.table:4098: more than 4096 rules");
    kcal_table t;
    char err[KCAL_ERRLEN];
    *strrchr(many, 'b') = '\0';
    CHECK(parse(many, &t, err, sizeof err) == 0);
    CHECK(t.count == KCAL_TABLE_MAX_RULES);
    CHECK_STR(lookup(&t, KCAL_COLL_BCAST, 2, 4095), "mpi");
    CHECK_STR(lookup(&t, KCAL_COLL_BCAST, 2, 4096), "none");
    kcal_table_free(&t);
    free(many);
}

static void test_file_and_add(void)
{
    kcal_table t;
    char err[KCAL_ERRLEN] = "";
    CHECK(kcal_table_read("/nonexistent/t.table", &t, err, sizeof err) == -1);
    CHECK_STR(err, "/nonexistent/t.table: cannot open: No such file or "
                   "directory");
    char path[] = "/tmp/test_table_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    const char *text = H "gather 2 * sequential_read\nbcast 2 * nope\n";
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    char want[300];
    snprintf(want, sizeof want, "%s:3: 'nope' is not an algorithm of bcast "
             "(nor mpi)", path);
    CHECK(kcal_table_read(path, &t, err, sizeof err) == -1);
    CHECK_STR(err, want);
    unlink(path);

    /* Rules made in code are checked as the reader checks them. */
    kcal_table_init(&t);
    snprintf(t.about, sizeof t.about, "made in code");
    const kcal_algorithm *pr =
        kcal_model_find_algorithm(KCAL_COLL_SCATTER, "parallel_read");
    kcal_table_rule r = {KCAL_COLL_SCATTER, 2, 2, 0, 4095,
                         kcal_model_mpi(KCAL_COLL_SCATTER), 0, 0, 0, NULL};
    CHECK(kcal_table_add(&t, &r, err, sizeof err) == 0);
    r = (kcal_table_rule){KCAL_COLL_SCATTER, 2, 2, 4096, KCAL_TABLE_N_OPEN,
                          pr, 0, 0, 0, NULL};
    CHECK(kcal_table_add(&t, &r, err, sizeof err) == 0);
    r.n_lo = 4095;
    CHECK(kcal_table_add(&t, &r, err, sizeof err) == -1);
    CHECK_STR(err, "overlaps the rule 'scatter      2      0..4095            "
                   "mpi'");
    r.n_lo = 0;
    r.coll = KCAL_COLL_GATHER; /* parallel_read is scatter's */
    CHECK(kcal_table_add(&t, &r, err, sizeof err) == -1);
    CHECK(t.count == 2);
    CHECK(kcal_table_index(&t) == 0);
    CHECK_STR(lookup(&t, KCAL_COLL_SCATTER, 2, 5000), "parallel_read");
    char *out;
    size_t len;
    CHECK(kcal_table_format(&t, NULL, &out, &len, err, sizeof err) == 0);
    CHECK_STR(out, "kcoll-table 1 made in code\n"
                   "# collective p      size (bytes)       choice\n"
                   "scatter      2      0..4095            mpi\n"
                   "scatter      2      4K..               parallel_read\n");
    free(out);
    /* A header the reader would not take is refused when written. */
    t.about[0] = '\0';
    CHECK(kcal_table_format(&t, NULL, &out, &len, err, sizeof err) == -1);
    CHECK(out == NULL);
    CHECK(strstr(err, "the table would not read back: the table:1: the "
                      "header says nothing") == err);
    kcal_table_free(&t);
}

/* kcal_table_vchoice's answer as "below alg[:w]", with " staged
 * from..to" where it names a staged range ("none" for no rule). */
static const char *vchoice(const kcal_table *t, const char *vname, int p)
{
    static char buf[120];
    uint64_t below = 7, staged[2] = {7, 7};
    const kcal_valgorithm *a = NULL;
    int w = -1;
    if (!kcal_table_vchoice(t, kcal_model_vcoll_index(vname), p, &below, &a,
                            &w, staged))
        return "none";
    snprintf(buf, sizeof buf, "%llu %s", (unsigned long long)below,
             a ? a->id : "-");
    if (w > 0)
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ":%d", w);
    if (staged[0] || staged[1])
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
                 " staged %llu..%llu", (unsigned long long)staged[0],
                 (unsigned long long)staged[1]);
    return buf;
}

/* allgatherv's staged row (copy_in_out): a rule of it with an upper end
 * right where the chain of mpi rules ends, before the last rule, is the
 * staged range, cut at KCAL_V_STAGED_MAX; anywhere else, or open-ended,
 * it is an ordinary row. */
static void test_vstaged(void)
{
    static const struct {
        const char *rules, *want;
    } cases[] = {
        {"allgatherv 2 0..255 mpi\nallgatherv 2 256..4096 copy_in_out\n"
         "allgatherv 2 4097.. source_read_flags\n",
         "256 source_read_flags staged 256..4096"},
        {"allgatherv 2 0..4095 copy_in_out\n"
         "allgatherv 2 4K.. source_read\n",
         "0 source_read staged 0..4095"},
        {"allgatherv 2 0..255 mpi\nallgatherv 2 256..64K copy_in_out\n"
         "allgatherv 2 65537.. source_read_flags\n",
         "256 source_read_flags staged 256..4096"},
        /* not right after the chain: a gap */
        {"allgatherv 2 0..255 mpi\nallgatherv 2 512..4096 copy_in_out\n"
         "allgatherv 2 4097.. source_read_flags\n",
         "256 source_read_flags"},
        /* the last rule: the row */
        {"allgatherv 2 0..255 mpi\nallgatherv 2 256.. copy_in_out\n",
         "256 copy_in_out"},
        /* starting above the bound */
        {"allgatherv 2 0..8191 mpi\nallgatherv 2 8K..16K copy_in_out\n"
         "allgatherv 2 16385.. source_read_flags\n",
         "8192 source_read_flags"},
        /* another row first */
        {"allgatherv 2 0..4096 source_read\n"
         "allgatherv 2 4097.. source_read_flags\n",
         "0 source_read_flags"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[400], err[400] = "";
        snprintf(text, sizeof text, "kcoll-table 1 staged\n%s",
                 cases[i].rules);
        kcal_table t;
        int rc = parse(text, &t, err, sizeof err);
        CHECK(rc == 0);
        if (rc != 0) {
            fprintf(stderr, "case %zu: %s\n", i, err);
            continue;
        }
        CHECK_STR(vchoice(&t, "allgatherv", 2), cases[i].want);
        kcal_table_free(&t);
    }
}

/* The v-collectives' rules: a pair's block, the crossover that a chain of
 * `mpi` rules from 0 makes, the algorithm of the largest sizes; they sit
 * beside the regular collectives' rules without touching their lookups,
 * and read back as written. */
static void test_vrules(void)
{
    const char *text =
        "kcoll-table 1 v\n"
        "alltoallv  2    0..1023    mpi\n"
        "alltoallv  2    1K..8K-ish mpi\n";
    kcal_table t;
    char err[400];
    CHECK(parse(text, &t, err, sizeof err) == -1);
    text = "kcoll-table 1 v\n"
           "alltoall   2    *          mpi\n"
           "alltoallv  2    0..1023    mpi\n"
           "alltoallv  2    1K..16383  mpi\n"
           "alltoallv  2    16K..1M    pairwise\n"
           "alltoallv  2    1M+1..     mpi   # not followed: after an algorithm\n"
           "alltoallv  3..  4K..       pairwise\n"
           "scatterv   2..  *          throttled_read:1\n"
           "gatherv    2    0..4095    mpi\n"
           "gatherv    2    8K..       sequential_read\n"
           "allgatherv 2    *          mpi\n";
    CHECK(parse(text, &t, err, sizeof err) == -1); /* 1M+1 is no size */
    text = "kcoll-table 1 v\n"
           "alltoall   2    *          mpi\n"
           "alltoallv  2    0..1023    mpi\n"
           "alltoallv  2    1K..16383  mpi\n"
           "alltoallv  2    16K..1M    pairwise\n"
           "alltoallv  2    1048577..  mpi   # not followed: after an algorithm\n"
           "alltoallv  3..  4K..       pairwise\n"
           "scatterv   2..  *          throttled_read:1\n"
           "gatherv    2    0..4095    mpi\n"
           "gatherv    2    8K..       sequential_read\n"
           "allgatherv 2    *          mpi\n";
    CHECK(parse(text, &t, err, sizeof err) == 0);
    CHECK_STR(err, "");
    CHECK(t.count == 10);
    CHECK_STR(vchoice(&t, "alltoallv", 2), "16384 pairwise");
    CHECK_STR(vchoice(&t, "alltoallv", 3), "0 pairwise");
    CHECK_STR(vchoice(&t, "alltoallv", 1), "none");
    CHECK_STR(vchoice(&t, "scatterv", 5), "0 throttled_read:1");
    CHECK_STR(vchoice(&t, "gatherv", 2), "4096 sequential_read"); /* a gap */
    CHECK_STR(vchoice(&t, "gatherv", 3), "none");
    CHECK_STR(vchoice(&t, "allgatherv", 2), "18446744073709551615 -");
    CHECK_STR(vchoice(NULL, "allgatherv", 2), "none");
    /* The regular alltoall's rules are its own. */
    CHECK_STR(lookup(&t, KCAL_COLL_ALLTOALL, 2, 20000), "mpi");
    CHECK_STR(lookup(&t, KCAL_COLL_REDUCE_SCATTER_BLOCK, 2, 20000), "none");
    CHECK_STR(lookup(&t, KCAL_COLL_ALLTOALL, 3, 20000), "none");
    char *out;
    size_t len;
    CHECK(kcal_table_format(&t, NULL, &out, &len, err, sizeof err) == 0);
    CHECK(out && strstr(out, "\nscatterv     2..    *                  "
                             "throttled_read:1\n"));
    free(out);
    /* Made in code: checked as read. */
    kcal_table u;
    kcal_table_init(&u);
    snprintf(u.about, sizeof u.about, "made in code");
    size_t na;
    const kcal_valgorithm *rows = kcal_model_valgorithms("gatherv", &na);
    kcal_table_rule r = {.coll = KCAL_COLL_COUNT, .p_lo = 2, .p_hi = 2,
                         .n_lo = 0, .n_hi = 4095,
                         .vcoll = kcal_model_vcoll_index("gatherv") + 1};
    CHECK(kcal_table_add(&u, &r, err, sizeof err) == 0);
    r.n_lo = 4096;
    r.n_hi = KCAL_TABLE_N_OPEN;
    r.valg = &rows[0];
    CHECK(kcal_table_add(&u, &r, err, sizeof err) == 0);
    r.vcoll = kcal_model_vcoll_index("scatterv") + 1; /* gatherv's row */
    r.n_lo = 0;
    CHECK(kcal_table_add(&u, &r, err, sizeof err) == -1);
    CHECK(u.count == 2 && kcal_table_index(&u) == 0);
    CHECK(kcal_table_vchoice(&u, kcal_model_vcoll_index("gatherv"), 2,
                             &(uint64_t){0}, &(const kcal_valgorithm *){0},
                             &(int){0}, (uint64_t[2]){0, 0}) == 2);
    kcal_table_free(&u);
    kcal_table_free(&t);
}

int main(void)
{
    test_vrules();
    test_vstaged();
    test_good();
    test_bad();
    test_file_and_add();
    return check_report();
}
