/* The report's arithmetic on a hand-made joined table: the model's error
 * (summary.csv), the selection regret (ranking.csv), the speedup over `mpi`,
 * the headline numbers, the choice of throttle factors to plot, the noise
 * between two launches (noise.h) and the strict CSV errors (FILE:LINE). Every expected value is worked out by hand
 * in the comments next to it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "reports/join.h"
#include "reports/noise.h"
#include "reports/plots.h"

#define MH "collective,p,size_bytes,algorithm,k,median_s,min_s,max_s,iterations,oversubscribed\n"
#define PH "collective,p,size_bytes,algorithm,k,predicted_s,rank\n"

static const char *PRED =
    "collective,p,size_bytes,algorithm,k,predicted_s,rank\n"
    "scatter,2,1024,parallel_read,,1e-6,1\n"
    "scatter,2,1024,sequential_write,,2e-6,2\n"
    "scatter,2,16384,parallel_read,,10e-6,1\n"
    "scatter,2,16384,sequential_write,,12e-6,2\n"
    "scatter,2,1048576,parallel_read,,400e-6,1\n"
    "scatter,2,1048576,sequential_write,,500e-6,2\n"
    /* rank 1 at p = 4 was not measured: the predictor's pick among what
     * was measured is then throttled_read:2 (rank 2). */
    "scatter,4,65536,parallel_read,,25e-6,1\n"
    "scatter,4,65536,throttled_read,2,30e-6,2\n"
    "scatter,4,65536,throttled_read,3,40e-6,3\n";

/* Columns in another order than the contract's: found by name. The header
 * repeats (per-run files concatenated). */
static const char *MEAS =
    "collective,p,size_bytes,algorithm,k,median_s,min_s,max_s,iterations,oversubscribed\n"
    "scatter,2,1024,parallel_read,,2e-6,1.5e-6,3e-6,100,0\n"
    "scatter,2,1024,sequential_write,,3e-6,2e-6,4e-6,100,0\n"
    "scatter,2,1024,mpi,,4e-6,3e-6,5e-6,100,0\n"
    "scatter,2,16384,parallel_read,,8e-6,7e-6,9e-6,100,0\n"
    "scatter,2,16384,sequential_write,,15e-6,14e-6,16e-6,100,0\n"
    "collective,p,size_bytes,algorithm,k,median_s,min_s,max_s,iterations,oversubscribed\n"
    "scatter,2,16384,mpi,,20e-6,19e-6,21e-6,100,0\n"
    "scatter,2,1048576,parallel_read,,500e-6,480e-6,520e-6,50,0\n"
    "scatter,2,1048576,sequential_write,,400e-6,390e-6,410e-6,50,0\n"
    "scatter,2,1048576,mpi,,600e-6,590e-6,610e-6,50,0\n"
    "scatter,4,65536,throttled_read,2,60e-6,50e-6,70e-6,20,1\n"
    "scatter,4,65536,throttled_read,3,45e-6,40e-6,50e-6,20,1\n";

static void test_join(void)
{
    kcal_join_table t;
    char err[512] = "";
    kcal_join_init(&t);
    CHECK(kcal_join_parse_predicted(&t, PRED, "p.csv", err, sizeof err) == 0);
    CHECK(kcal_join_parse_measured(&t, MEAS, "m.csv", err, sizeof err) == 0);
    CHECK(kcal_join_finish(&t, err, sizeof err) == 0);
    /* 9 predicted + 11 measured rows over 12 keys: 8 joined, 1 predicted
     * only (parallel_read p=4), 3 measured only (the mpi rows). */
    CHECK(t.n == 12);
    CHECK(t.pred_only == 1);
    CHECK(t.meas_only == 3);

    kcal_join_summary *s;
    long ns = kcal_join_summarise(&t, &s);
    /* parallel_read p=2: 16K |10-8|/8 = 25 %, 1M |400-500|/500 = 20 %:
     * MAPE 22.5, max 25 at 16K, signed (+25 - 20)/2 = +2.5.
     * sequential_write p=2: 16K |12-15|/15 = 20 %, 1M |500-400|/400 = 25 %:
     * MAPE 22.5, max 25 at 1M, signed (-20 + 25)/2 = +2.5.
     * throttled_read:2 p=4: |30-60|/60 = 50 %; :3: |40-45|/45 = 11.11 %. */
    CHECK(ns == 4);
    if (ns == 4) {
        CHECK_STR(s[0].alg, "parallel_read");
        CHECK(s[0].p == 2 && s[0].k == 0 && s[0].points == 2);
        CHECK_NEAR(s[0].mape_pct, 22.5, 1e-12);
        CHECK_NEAR(s[0].max_ape_pct, 25.0, 1e-12);
        CHECK(s[0].worst_size == 16384);
        CHECK_NEAR(s[0].mean_signed_pct, 2.5, 1e-12);
        CHECK(!s[0].oversubscribed);
        CHECK_STR(s[1].alg, "sequential_write");
        CHECK_NEAR(s[1].mape_pct, 22.5, 1e-12);
        CHECK_NEAR(s[1].max_ape_pct, 25.0, 1e-12);
        CHECK(s[1].worst_size == 1048576);
        CHECK_STR(s[2].alg, "throttled_read");
        CHECK(s[2].p == 4 && s[2].k == 2 && s[2].points == 1);
        CHECK_NEAR(s[2].mape_pct, 50.0, 1e-12);
        CHECK(s[2].oversubscribed);
        CHECK(s[3].k == 3);
        CHECK_NEAR(s[3].mape_pct, 100.0 * 5 / 45, 1e-12);
    }

    kcal_join_rank *r;
    long nr = kcal_join_rank_sizes(&t, &r);
    /* p=2 1K: predicted parallel_read (2 µs) is the measured best: regret 0,
     * speedup 4/2 = 2. 16K: same, speedup 20/8 = 2.5. 1M: predicted
     * parallel_read measured 500, best sequential_write 400: regret
     * 100*(500-400)/400 = 25 %, speedup 600/400 = 1.5. p=4 64K: predicted
     * throttled_read:2 (60), best throttled_read:3 (45): regret 33.33 %, no
     * mpi measured. */
    CHECK(nr == 4);
    if (nr == 4) {
        char a[64], b[64];
        CHECK(r[0].size == 1024);
        CHECK_STR(kcal_join_alg_label(r[0].predicted_best, a, sizeof a), "parallel_read");
        CHECK_STR(kcal_join_alg_label(r[0].measured_best, b, sizeof b), "parallel_read");
        CHECK_NEAR(r[0].regret_pct, 0.0, 1e-12);
        CHECK_NEAR(r[0].speedup, 2.0, 1e-12);
        CHECK(r[1].size == 16384);
        CHECK_NEAR(r[1].speedup, 2.5, 1e-12);
        CHECK(r[2].size == 1048576);
        CHECK_STR(kcal_join_alg_label(r[2].predicted_best, a, sizeof a), "parallel_read");
        CHECK_STR(kcal_join_alg_label(r[2].measured_best, b, sizeof b), "sequential_write");
        CHECK_NEAR(r[2].regret_pct, 25.0, 1e-12);
        CHECK_NEAR(r[2].speedup, 1.5, 1e-12);
        CHECK(r[3].p == 4 && r[3].oversubscribed);
        CHECK_STR(kcal_join_alg_label(r[3].predicted_best, a, sizeof a), "throttled_read:2");
        CHECK_STR(kcal_join_alg_label(r[3].measured_best, b, sizeof b), "throttled_read:3");
        CHECK_NEAR(r[3].regret_pct, 100.0 * 15 / 45, 1e-12);
        CHECK(r[3].mpi == NULL && isnan(r[3].speedup));
    }
    /* Headlines leave the oversubscribed p=4 out: APEs {25, 20, 20, 25}
     * have median 22.5; regrets {0, 0, 25} have mean 8.333. */
    CHECK_NEAR(kcal_join_median_ape(&t), 22.5, 1e-12);
    /* Per collective: the same four points, two of them predicted too fast
     * (parallel_read at 1M, sequential_write at 16K); no bcast at all. */
    int pts = -1, under = -1;
    CHECK_NEAR(kcal_join_median_ape_of(&t, "scatter", &pts, &under), 22.5,
               1e-12);
    CHECK(pts == 4 && under == 2);
    CHECK(isnan(kcal_join_median_ape_of(&t, "bcast", &pts, &under)));
    CHECK(pts == 0 && under == 0);
    CHECK_NEAR(kcal_join_mean_regret(r, nr), 25.0 / 3, 1e-12);
    /* Right first choices: 1K (the same algorithm) and 16K (regret 0) of
     * the three points; the oversubscribed p=4 is not judged. */
    int judged = -1;
    CHECK(kcal_join_right_picks(r, nr, &judged) == 2 && judged == 3);

    /* The written tables: the exact columns of the issue, k empty where it
     * does not apply, oversubscribed rows only in their own file. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(kcal_join_write_summary(f, s, ns, 0) == 0);
    fclose(f);
    CHECK_STR(buf, "collective,p,algorithm,k,points,mape_pct,max_ape_pct\n"
                   "scatter,2,parallel_read,,2,22.5000,25.0000\n"
                   "scatter,2,sequential_write,,2,22.5000,25.0000\n");
    free(buf);
    f = open_memstream(&buf, &len);
    CHECK(kcal_join_write_ranking(f, r, nr, 1) == 0);
    fclose(f);
    CHECK_STR(buf, "collective,p,size_bytes,predicted_best,measured_best,regret_pct,tie\n"
                   "scatter,4,65536,throttled_read:2,throttled_read:3,33.3333,0\n");
    free(buf);
    f = open_memstream(&buf, &len);
    CHECK(kcal_join_write_ranking(f, r, nr, 0) == 0);
    fclose(f);
    CHECK_STR(buf, "collective,p,size_bytes,predicted_best,measured_best,regret_pct,tie\n"
                   "scatter,2,1024,parallel_read,parallel_read,0.0000,0\n"
                   "scatter,2,16384,parallel_read,parallel_read,0.0000,0\n"
                   "scatter,2,1048576,parallel_read,sequential_write,25.0000,0\n");
    free(buf);
    /* speedup.csv: the best kcoll algorithm against mpi where mpi ran. */
    f = open_memstream(&buf, &len);
    CHECK(kcal_join_write_speedup(f, r, nr, 0) == 0);
    fclose(f);
    CHECK_STR(buf, "collective,p,size_bytes,best_algorithm,best_s,mpi_s,speedup\n"
                   "scatter,2,1024,parallel_read,2.000000e-06,4.000000e-06,2.0000\n"
                   "scatter,2,16384,parallel_read,8.000000e-06,2.000000e-05,2.5000\n"
                   "scatter,2,1048576,sequential_write,4.000000e-04,6.000000e-04,1.5000\n");
    free(buf);
    free(s);
    free(r);
    kcal_join_free(&t);
}

/* Of a throttled family of five k only the best three are drawn. Medians
 * (16K, 1M): k2 (30, 300), k3 (8, 85), k4 (9, 80), k5 (20, 200),
 * k6 (7, 300). Family best per size: 7 and 80. Mean log ratio: k3
 * (ln 8/7 + ln 85/80)/2 = 0.097, k4 (ln 9/7)/2 = 0.126, k6 (ln 300/80)/2 =
 * 0.661, k5 0.98, k2 1.39: keep 3, 4, 6. */
static void test_plot_series(void)
{
    const char *m =
        "collective,p,size_bytes,algorithm,k,median_s,min_s,max_s,iterations,oversubscribed\n"
        "scatter,7,16384,throttled_read,2,30,30,30,1,0\n"
        "scatter,7,1048576,throttled_read,2,300,300,300,1,0\n"
        "scatter,7,16384,throttled_read,3,8,8,8,1,0\n"
        "scatter,7,1048576,throttled_read,3,85,85,85,1,0\n"
        "scatter,7,16384,throttled_read,4,9,9,9,1,0\n"
        "scatter,7,1048576,throttled_read,4,80,80,80,1,0\n"
        "scatter,7,16384,throttled_read,5,20,20,20,1,0\n"
        "scatter,7,1048576,throttled_read,5,200,200,200,1,0\n"
        "scatter,7,16384,throttled_read,6,7,7,7,1,0\n"
        "scatter,7,1048576,throttled_read,6,300,300,300,1,0\n"
        "scatter,7,16384,parallel_read,,50,50,50,1,0\n"
        "scatter,7,16384,mpi,,60,60,60,1,0\n"
        "gather,7,16384,mpi,,60,60,60,1,0\n";
    kcal_join_table t;
    char err[512] = "";
    kcal_join_init(&t);
    CHECK(kcal_join_parse_measured(&t, m, "m.csv", err, sizeof err) == 0);
    CHECK(kcal_join_finish(&t, err, sizeof err) == 0);
    char(*l)[64];
    size_t n;
    CHECK(kcal_plot_series(&t, "scatter", 7, &l, &n) == 0);
    /* Table order: algorithms by name, mpi last. */
    CHECK(n == 5);
    if (n == 5) {
        CHECK_STR(l[0], "parallel_read");
        CHECK_STR(l[1], "throttled_read:3");
        CHECK_STR(l[2], "throttled_read:4");
        CHECK_STR(l[3], "throttled_read:6");
        CHECK_STR(l[4], "mpi");
    }
    free(l);
    kcal_join_free(&t);
}

/* When the model predicts a tie, the predictor takes the algorithm it lists
 * first (the earlier CSV line), not whichever sorts first by name: here
 * ring_neighbor:1 although bruck sorts before it. Measured: ring_neighbor
 * 10 µs, bruck 8 µs, so the regret is 100*(10-8)/8 = 25 % and the point is
 * marked tied. At 1M the tie is broken by rank (bruck rank 1): not tied. */
static void test_tie(void)
{
    const char *pred =
        "collective,p,size_bytes,algorithm,k,predicted_s,rank\n"
        "allgather,2,65536,ring_neighbor,1,5e-6,1\n"
        "allgather,2,65536,bruck,,5e-6,1\n"
        "allgather,2,1048576,bruck,,50e-6,1\n"
        "allgather,2,1048576,ring_neighbor,1,60e-6,2\n";
    const char *meas =
        MH "allgather,2,65536,bruck,,8e-6,8e-6,8e-6,5,0\n"
           "allgather,2,65536,ring_neighbor,1,10e-6,10e-6,10e-6,5,0\n"
           "allgather,2,1048576,bruck,,80e-6,80e-6,80e-6,5,0\n"
           "allgather,2,1048576,ring_neighbor,1,70e-6,70e-6,70e-6,5,0\n";
    kcal_join_table t;
    char err[512] = "";
    kcal_join_init(&t);
    CHECK(kcal_join_parse_predicted(&t, pred, "p.csv", err, sizeof err) == 0);
    CHECK(kcal_join_parse_measured(&t, meas, "m.csv", err, sizeof err) == 0);
    CHECK(kcal_join_finish(&t, err, sizeof err) == 0);
    kcal_join_rank *r;
    long nr = kcal_join_rank_sizes(&t, &r);
    CHECK(nr == 2);
    if (nr == 2) {
        char a[64];
        CHECK_STR(kcal_join_alg_label(r[0].predicted_best, a, sizeof a), "ring_neighbor:1");
        CHECK_NEAR(r[0].regret_pct, 25.0, 1e-12);
        CHECK(r[0].tied);
        /* 1M: bruck (rank 1) measured 80, ring_neighbor 70: 14.29 %. */
        CHECK_STR(kcal_join_alg_label(r[1].predicted_best, a, sizeof a), "bruck");
        CHECK_NEAR(r[1].regret_pct, 100.0 * 10 / 70, 1e-12);
        CHECK(!r[1].tied);
    }
    free(r);
    kcal_join_free(&t);
}

/* Each bad input is rejected with FILE:LINE and what was wrong. */
static void expect_error(int measured, const char *text, const char *want)
{
    kcal_join_table t;
    char err[512] = "";
    kcal_join_init(&t);
    int rc = measured ? kcal_join_parse_measured(&t, text, "x.csv", err, sizeof err)
                      : kcal_join_parse_predicted(&t, text, "x.csv", err, sizeof err);
    if (rc == 0)
        rc = kcal_join_finish(&t, err, sizeof err);
    CHECK(rc == -1);
    if (!strstr(err, want)) {
        fprintf(stderr, "error '%s' lacks '%s'\n", err, want);
        CHECK(!"error message");
    }
    kcal_join_free(&t);
}


static void test_errors(void)
{
    expect_error(1, "", "x.csv:1: empty file");
    expect_error(1, PH "scatter,2,1024,parallel_read,,1e-6,1\n",
                 "x.csv:1: header lacks column 'median_s'");
    expect_error(1, MH "scatter,2,1024,mpi,,1e-6,1e-6,1e-6,10\n",
                 "x.csv:2: 9 fields, the header has 10");
    expect_error(1, MH "scatter,2,1024,mpi,,1e-6,1e-6,1e-6,10,0\n"
                       "scatter,2,1024,mpi,,abc,1e-6,1e-6,10,0\n",
                 "x.csv:3: bad median_s 'abc'");
    expect_error(1, MH "scatter,2,1024,mpi,,2e-6,3e-6,4e-6,10,0\n",
                 "x.csv:2: not min_s <= median_s <= max_s");
    expect_error(1, MH "scatter,2,1024,mpi,,1e-6,1e-6,1e-6,10,maybe\n",
                 "x.csv:2: bad oversubscribed 'maybe'");
    expect_error(1, MH "scatter,2,1024,mpi,,0,0,1e-6,10,0\n",
                 "x.csv:2: bad median_s '0'");
    expect_error(0, PH "scater,2,1024,parallel_read,,1e-6,1\n",
                 "x.csv:2: bad collective 'scater'");
    expect_error(0, PH "scatter,0,1024,parallel_read,,1e-6,1\n",
                 "x.csv:2: bad p '0'");
    expect_error(0, PH "scatter,2,1K,parallel_read,,1e-6,1\n",
                 "x.csv:2: bad size_bytes '1K'");
    expect_error(0, PH "scatter,2,1024,throttled_read,x,1e-6,1\n",
                 "x.csv:2: bad k 'x'");
    expect_error(0, PH "scatter,2,1024,parallel_read,,nan,1\n",
                 "x.csv:2: bad predicted_s 'nan'");
    expect_error(0, PH "scatter,2,1024,parallel_read,,1e-6,1\n\n",
                 "x.csv:3: empty line");
    expect_error(0, PH "scatter,2,1024,mpi,,1e-6,1\n",
                 "x.csv:2: 'mpi' is the MPI library's collective");
    expect_error(0, PH "scatter,2,1024,parallel_read,,1e-6,1\n"
                       "scatter,2,1024,sequential_write,,2e-6,2\n"
                       "scatter,2,1024,parallel_read,,1e-6,1\n",
                 "x.csv:4: duplicate row scatter,p=2,1024 bytes,parallel_read (first at x.csv:2)");
    expect_error(0, PH "scatter,2,1024,\"parallel_read\",,1e-6,1\n",
                 "x.csv:2: quoted fields");
}

/* Bytes that are no CSV of kcal: a NUL byte, a line over
 * KCAL_JOIN_MAX_LINE, more than KCAL_JOIN_MAX_FILE bytes. Each is named
 * with its line, and nothing is parsed. */
static void expect_bytes_error(const char *data, size_t len, const char *want)
{
    kcal_join_table t;
    char err[512] = "";
    kcal_join_init(&t);
    CHECK(kcal_join_parse(&t, KCAL_JOIN_MEASURED, data, len, "x.csv", err,
                          sizeof err) == -1);
    if (!strstr(err, want)) {
        fprintf(stderr, "error '%s' lacks '%s'\n", err, want);
        CHECK(!"error message");
    }
    CHECK(t.n == 0);
    kcal_join_free(&t);
}

static void test_bytes(void)
{
    static const char nul[] = MH "scatter,2,1024,mpi,,1e-6,1e-6,1e-6,10,0\n"
                                 "scatter,2,2048,mpi,\0,1e-6,1e-6,1e-6,10,0\n";
    expect_bytes_error(nul, sizeof nul - 1, "x.csv:3: NUL byte");
    /* A NUL-terminated text cannot carry one: it ends there (line 3 is
     * then cut short). */
    expect_error(1, nul, "x.csv:3: 5 fields, the header has 10");

    size_t n = KCAL_JOIN_MAX_LINE + 1;
    char *line = malloc(n + 2);
    memset(line, 'a', n);
    memcpy(line + n, "\n", 2);
    expect_bytes_error(line, n + 1, "x.csv:1: line longer than 4096 bytes");
    /* Exactly the limit is a line like any other (here a bad header). */
    expect_bytes_error(line + 1, n, "x.csv:1: header lacks column");
    free(line);

    size_t big = KCAL_JOIN_MAX_FILE + 1;
    char *text = malloc(big);
    for (size_t i = 0; i < big; i++)
        text[i] = i % 2 ? '\n' : 'x';
    expect_bytes_error(text, big, "x.csv: larger than 64 MiB");
    free(text);

    /* Headers and no rows: an empty join, not a crash (found by fuzzing:
     * the join sorted a NULL array, undefined behaviour). */
    {
        kcal_join_table e;
        char msg[512] = "";
        kcal_join_init(&e);
        CHECK(kcal_join_parse_predicted(&e, PH, "p.csv", msg, sizeof msg) == 0);
        CHECK(kcal_join_parse_measured(&e, MH, "m.csv", msg, sizeof msg) == 0);
        CHECK(kcal_join_finish(&e, msg, sizeof msg) == 0);
        CHECK(e.n == 0 && e.pred_only == 0 && e.meas_only == 0);
        kcal_join_summary *s;
        kcal_join_rank *r;
        CHECK(kcal_join_summarise(&e, &s) == 0);
        CHECK(kcal_join_rank_sizes(&e, &r) == 0);
        free(s);
        free(r);
        kcal_join_free(&e);
    }

    /* The same limits hold for a file read from a path, and a directory
     * says what it is. */
    kcal_join_table t;
    char err[512] = "";
    kcal_join_init(&t);
    CHECK(kcal_join_read_measured(&t, "/dev/zero", err, sizeof err) == -1);
    CHECK(strstr(err, "/dev/zero:1: NUL byte") != NULL);
    CHECK(kcal_join_read_predicted(&t, "/", err, sizeof err) == -1);
    CHECK_STR(err, "/: Is a directory");
    kcal_join_free(&t);
}

/* issue 9: the appended bench columns, the repeat error and noise ties,
 * worked by hand. */
#define MH9 "collective,p,size_bytes,algorithm,k,median_s,min_s,max_s,iterations,oversubscribed,p25_s,p75_s,half1_s,half2_s\n"
static void test_noise(void)
{
    const char *pred =
        PH "bcast,2,65536,direct_read,,5e-6,1\n"
           "bcast,2,65536,direct_write,,6e-6,2\n"
           "bcast,2,1048576,direct_read,,50e-6,1\n"
           "bcast,2,1048576,direct_write,,60e-6,2\n";
    /* 64K: direct_read 10.2 (halves 10, 10.4: noise 0.4) is predicted
     * best, direct_write 10 measured best (halves 9.9, 10.1: 0.2): they
     * differ by 0.2 < 0.4, a tie, regret 2 %. 1M: direct_read 110 (halves
     * 109, 111: 2) against direct_write 100 (99.5, 100.5: 1): 10 > 2, no
     * tie, regret 10 %. Repeat errors 100·|h1−h2|/mean: 0.4/10.2 = 3.92 %,
     * 0.2/10 = 2 %, 2/110 = 1.82 %, 1/100 = 1 %: median (1.82 + 2)/2 =
     * 1.909 %. */
    const char *meas =
        MH9 "bcast,2,65536,direct_read,,10.2e-6,9e-6,20e-6,100,0,10e-6,11e-6,10e-6,10.4e-6\n"
            "bcast,2,65536,direct_write,,10e-6,9e-6,20e-6,100,0,9.5e-6,11e-6,9.9e-6,10.1e-6\n"
            "bcast,2,1048576,direct_read,,110e-6,100e-6,200e-6,100,0,105e-6,115e-6,109e-6,111e-6\n"
            "bcast,2,1048576,direct_write,,100e-6,90e-6,200e-6,100,0,95e-6,105e-6,99.5e-6,100.5e-6\n";
    kcal_join_table t;
    char err[512] = "";
    kcal_join_init(&t);
    CHECK(kcal_join_parse_predicted(&t, pred, "p.csv", err, sizeof err) == 0);
    CHECK(kcal_join_parse_measured(&t, meas, "m.csv", err, sizeof err) == 0);
    CHECK(kcal_join_finish(&t, err, sizeof err) == 0);
    CHECK(t.n == 4 && t.rows[0].has_quartiles && t.rows[0].has_halves);
    int pts = 0;
    CHECK_NEAR(kcal_join_repeat_error(&t, &pts), (100 * 2 / 110.0 + 2) / 2, 1e-9);
    CHECK(pts == 4);
    kcal_join_rank *r;
    long nr = kcal_join_rank_sizes(&t, &r);
    CHECK(nr == 2);
    if (nr == 2) {
        CHECK(r[0].size == 65536 && r[0].noise_tie == 1);
        CHECK_NEAR(r[0].regret_pct, 2, 1e-9);
        CHECK(r[1].noise_tie == 0);
        CHECK_NEAR(r[1].regret_pct, 10, 1e-9);
        long ties = -1;
        CHECK_NEAR(kcal_join_mean_regret(r, nr), 6, 1e-9);
        CHECK_NEAR(kcal_join_mean_regret_no_ties(r, nr, &ties), 10, 1e-9);
        CHECK(ties == 1);
        char *buf;
        size_t len;
        FILE *f = open_memstream(&buf, &len);
        CHECK(kcal_join_write_ranking(f, r, nr, 0) == 0);
        fclose(f);
        CHECK(strstr(buf, "bcast,2,65536,direct_read,direct_write,2.0000,1\n") != NULL);
        free(buf);
    }
    free(r);
    kcal_join_free(&t);
    /* The old header still reads: no quartiles, no halves, no ties, no
     * repeat error. */
    kcal_join_init(&t);
    CHECK(kcal_join_parse_measured(&t, MEAS, "old.csv", err, sizeof err) == 0);
    CHECK(kcal_join_finish(&t, err, sizeof err) == 0);
    CHECK(t.n > 0 && !t.rows[0].has_quartiles && !t.rows[0].has_halves);
    CHECK(isnan(kcal_join_repeat_error(&t, NULL)));
    kcal_join_free(&t);
    /* A quartile outside min..median is refused with its line. */
    kcal_join_init(&t);
    CHECK(kcal_join_parse_measured(&t, MH9 "bcast,2,1024,mpi,,2e-6,1e-6,3e-6,9,0,2.5e-6,2.6e-6,2e-6,2e-6\n",
                                   "q.csv", err, sizeof err) == -1);
    CHECK(strstr(err, "q.csv:2: bad p25_s") != NULL);
    kcal_join_free(&t);
}

/* Two launches of the same sweep (noise.h): the between-launch floor over
 * the kcoll rows of 16K and more measured in both, the model's second
 * choice and margin, the marks, and the best row auto could have had. */
static void test_launches(void)
{
    const char *pred =
        PH "scatter,2,16384,parallel_read,,10e-6,1\n"
           "scatter,2,16384,sequential_write,,10.5e-6,2\n"
           "scatter,2,16384,throttled_read,2,30e-6,3\n"
           "scatter,2,1048576,parallel_read,,400e-6,1\n"
           "scatter,2,1048576,sequential_write,,500e-6,2\n"
           "scatter,2,1024,parallel_read,,1e-6,1\n";
    const char *first =
        MH "scatter,2,16384,parallel_read,,8e-6,7e-6,9e-6,10,0\n"
           "scatter,2,16384,sequential_write,,9e-6,8e-6,10e-6,10,0\n"
           "scatter,2,16384,mpi,,7e-6,6e-6,8e-6,10,0\n"
           "scatter,2,16384,auto,,7.7e-6,7e-6,8e-6,10,0\n"
           "scatter,2,1048576,parallel_read,,440e-6,400e-6,500e-6,10,0\n"
           "scatter,2,1048576,sequential_write,,410e-6,400e-6,500e-6,10,0\n"
           "scatter,2,1048576,mpi,,600e-6,500e-6,700e-6,10,0\n"
           "scatter,2,1024,parallel_read,,1e-6,0.5e-6,2e-6,10,0\n";
    /* Changes 100·|t1 − t2| / min: 16K parallel_read 10.4 vs 8: 30 %,
     * sequential_write 9 vs 9: 0; 1M parallel_read 400 vs 440: 10 %,
     * sequential_write 451 vs 410: 10 %. Not counted: mpi and auto (not a
     * model candidate), 1K (below 16K), throttled_read:2 (not measured in
     * the first launch). Sorted 0, 10, 10, 30: median 10, 90th percentile
     * at 0.9·3 = 2.7: 10 + 0.7·20 = 24. */
    const char *again =
        MH "scatter,2,16384,parallel_read,,10.4e-6,9e-6,11e-6,10,0\n"
           "scatter,2,16384,sequential_write,,9e-6,8e-6,10e-6,10,0\n"
           "scatter,2,16384,throttled_read,2,20e-6,19e-6,21e-6,10,0\n"
           "scatter,2,16384,mpi,,70e-6,60e-6,80e-6,10,0\n"
           "scatter,2,16384,auto,,77e-6,70e-6,80e-6,10,0\n"
           "scatter,2,1048576,parallel_read,,400e-6,390e-6,410e-6,10,0\n"
           "scatter,2,1048576,sequential_write,,451e-6,400e-6,500e-6,10,0\n"
           "scatter,2,1024,parallel_read,,3e-6,2e-6,4e-6,10,0\n";
    kcal_join_table t, a;
    char err[512] = "";
    kcal_join_init(&t);
    kcal_join_init(&a);
    CHECK(kcal_join_parse_predicted(&t, pred, "p.csv", err, sizeof err) == 0);
    CHECK(kcal_join_parse_measured(&t, first, "m.csv", err, sizeof err) == 0);
    CHECK(kcal_join_finish(&t, err, sizeof err) == 0);
    CHECK(kcal_join_parse_measured(&a, again, "a.csv", err, sizeof err) == 0);
    CHECK(kcal_join_finish(&a, err, sizeof err) == 0);

    const kcal_join_row *f = kcal_join_find(&t, "scatter", 2, 1048576, "sequential_write", 0);
    CHECK(f && f->median_s == 410e-6 && f->predicted_s == 500e-6);
    CHECK(kcal_join_find(&t, "scatter", 2, 1048576, "throttled_read", 2) == NULL);
    CHECK(kcal_join_find(&t, "bcast", 2, 16384, "parallel_read", 0) == NULL);

    kcal_noise_floor nf;
    CHECK(kcal_noise_floor_of(&t, &a, &nf) == 0);
    CHECK(nf.rows == 4 && nf.points == 2);
    CHECK_NEAR(nf.median_pct, 10, 1e-9);
    CHECK_NEAR(nf.p90_pct, 24, 1e-9);
    CHECK_NEAR(kcal_noise_change_pct(410e-6, 451e-6), 10, 1e-9);
    CHECK_NEAR(kcal_noise_change_pct(451e-6, 410e-6), 10, 1e-9);
    /* One launch: no floor, no marks. */
    CHECK(kcal_noise_floor_of(&t, NULL, &nf) == 0);
    CHECK(nf.rows == 0 && isnan(nf.median_pct) && isnan(nf.p90_pct));

    kcal_join_rank *r;
    long nr = kcal_join_rank_sizes(&t, &r);
    CHECK(nr == 3);
    if (nr == 3) {
        char lab[64];
        /* 1K: one algorithm measured, no second choice, no margin. */
        CHECK(r[0].size == 1024 && r[0].predicted_second == NULL);
        CHECK(isnan(kcal_noise_margin_pct(&r[0])));
        /* 16K: first parallel_read (right: regret 0), second
         * sequential_write (throttled_read:2 was not measured); margin
         * 100·0.5/10 = 5 % < 10: `margin`. The best row is mpi (7 µs). */
        CHECK(r[1].size == 16384);
        CHECK_STR(kcal_join_alg_label(r[1].predicted_second, lab, sizeof lab), "sequential_write");
        CHECK_NEAR(kcal_noise_margin_pct(&r[1]), 5, 1e-9);
        CHECK(kcal_noise_marks(&r[1], 10) == KCAL_NOISE_MARGIN);
        CHECK(kcal_noise_marks(&r[1], 4.9) == 0);
        CHECK(kcal_noise_marks(&r[1], NAN) == 0);
        CHECK(kcal_noise_best_row(&r[1]) == r[1].mpi);
        /* 1M: parallel_read predicted, sequential_write best: regret
         * 100·30/410 = 7.3 % < 10: `regret`; margin 25 %; mpi slower. */
        CHECK_NEAR(r[2].regret_pct, 100.0 * 30 / 410, 1e-9);
        CHECK_NEAR(kcal_noise_margin_pct(&r[2]), 25, 1e-9);
        CHECK(kcal_noise_marks(&r[2], 10) == KCAL_NOISE_REGRET);
        CHECK(kcal_noise_marks(&r[2], 30) == (KCAL_NOISE_REGRET | KCAL_NOISE_MARGIN));
        CHECK(kcal_noise_best_row(&r[2]) == r[2].measured_best);
        /* The second launch at 16K: its fastest kcoll row is
         * sequential_write (throttled_read:2 at 20 is slower), with its
         * own mpi and auto; at 1M parallel_read, no auto. */
        kcal_noise_again g;
        kcal_noise_again_of(&a, &r[1], &g);
        CHECK(g.best && !strcmp(g.best->alg, "sequential_write"));
        CHECK(g.mpi && g.mpi->median_s == 70e-6);
        CHECK(g.auto_choice && g.auto_choice->median_s == 77e-6);
        CHECK(g.best_row == g.best); /* mpi 70 is slower there */
        kcal_noise_again_of(&a, &r[2], &g);
        CHECK(g.best && !strcmp(g.best->alg, "parallel_read") && !g.auto_choice);
        CHECK(g.best_row == g.best && !g.mpi);
        kcal_noise_again_of(NULL, &r[2], &g);
        CHECK(!g.best && !g.mpi && !g.auto_choice);
    }
    free(r);
    /* Quantiles: sorted in place, linear between neighbours. */
    double v[] = {4, 1, 3, 2};
    CHECK_NEAR(kcal_join_quantile(v, 4, 0.5), 2.5, 1e-12);
    CHECK(v[0] == 1 && v[3] == 4);
    CHECK_NEAR(kcal_join_quantile(v, 4, 0.9), 3.7, 1e-12);
    CHECK_NEAR(kcal_join_quantile(v, 4, 1), 4, 1e-12);
    CHECK_NEAR(kcal_join_quantile(v, 1, 0.9), 1, 1e-12);
    CHECK(isnan(kcal_join_quantile(v, 0, 0.5)));
    kcal_join_free(&t);
    kcal_join_free(&a);
}

/* The bench's auto and limit rows: measured, never predicted, never a
 * candidate of the ranking (limit is faster than every algorithm here and
 * auto as fast as the best), kept with the point for the report's tables,
 * after mpi in the key order, and refused in a predicted CSV. */
static void test_reference_rows(void)
{
    kcal_join_table t;
    char err[512] = "";
    kcal_join_init(&t);
    CHECK(kcal_join_parse_predicted(&t, PH
                                    "gather,2,65536,parallel_write,,5e-6,1\n"
                                    "gather,2,65536,sequential_read,,6e-6,2\n",
                                    "p.csv", err, sizeof err) == 0);
    CHECK(kcal_join_parse_measured(&t, MH
                                   "gather,2,65536,limit,,3e-6,2e-6,4e-6,10,0\n"
                                   "gather,2,65536,auto,,4e-6,3e-6,5e-6,10,0\n"
                                   "gather,2,65536,parallel_write,,4e-6,3e-6,5e-6,10,0\n"
                                   "gather,2,65536,sequential_read,,7e-6,6e-6,8e-6,10,0\n"
                                   "gather,2,65536,mpi,,8e-6,7e-6,9e-6,10,0\n",
                                   "m.csv", err, sizeof err) == 0);
    CHECK(kcal_join_finish(&t, err, sizeof err) == 0);
    /* 2 joined + mpi, auto, limit measured only; sorted after the model's
     * algorithms in the order mpi, auto, limit. */
    CHECK(t.n == 5 && t.meas_only == 3);
    if (t.n == 5) {
        CHECK_STR(t.rows[2].alg, "mpi");
        CHECK_STR(t.rows[3].alg, "auto");
        CHECK_STR(t.rows[4].alg, "limit");
    }
    CHECK(kcal_join_is_reference("auto") && kcal_join_is_reference("limit") &&
          kcal_join_is_reference("mpi") && !kcal_join_is_reference("direct_split"));
    kcal_join_rank *r;
    long nr = kcal_join_rank_sizes(&t, &r);
    CHECK(nr == 1);
    if (nr == 1) {
        char a[64];
        /* The measured best is parallel_write (4 µs), not limit (3 µs) nor
         * auto (4 µs, listed first); speedup 8/4 = 2. */
        CHECK_STR(kcal_join_alg_label(r[0].measured_best, a, sizeof a), "parallel_write");
        CHECK_NEAR(r[0].speedup, 2.0, 1e-12);
        CHECK(r[0].auto_choice && r[0].auto_choice->median_s == 4e-6);
        CHECK(r[0].limit && r[0].limit->median_s == 3e-6);
        CHECK(r[0].mpi && r[0].mpi->median_s == 8e-6);
    }
    free(r);
    kcal_join_summary *sm;
    long ns = kcal_join_summarise(&t, &sm);
    CHECK(ns == 2); /* parallel_write and sequential_read only */
    free(sm);
    kcal_join_free(&t);
    kcal_join_init(&t);
    CHECK(kcal_join_parse_predicted(&t, PH "gather,2,1024,auto,,1e-6,1\n", "x.csv",
                                    err, sizeof err) == -1);
    CHECK(strstr(err, "x.csv:2: 'auto' is libkcoll's own choice") == err);
    kcal_join_free(&t);
    kcal_join_init(&t);
    CHECK(kcal_join_parse_predicted(&t, PH "gather,2,1024,limit,,1e-6,1\n", "x.csv",
                                    err, sizeof err) == -1);
    CHECK(strstr(err, "x.csv:2: 'limit' is the copy limit") == err);
    kcal_join_free(&t);
}

int main(void)
{
    test_bytes();
    test_noise();
    test_join();
    test_reference_rows();
    test_launches();
    test_plot_series();
    test_tie();
    test_errors();
    return check_report();
}
