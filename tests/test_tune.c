/* kcal tune's decisions (tune/tune.c) on made-up measurements: the
 * model's candidates, the winner of a point, the table's ranges and
 * merging, and the regret and measurement counts of the guided choice. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "model/params.h"
#include "tune/tune.h"

static kcal_tune_cand cand(kcal_coll c, const char *id, int k)
{
    return (kcal_tune_cand){!strcmp(id, "mpi") ? kcal_model_mpi(c)
                                               : kcal_model_find_algorithm(c, id),
                            k};
}

static void test_guide(void)
{
    kcal_params prm;
    char err[KCAL_ERRLEN];
    CHECK(kcal_params_load_embedded("knl", &prm, err, sizeof err) == 0);
    /* The first candidate is the model's own choice; all are distinct and
     * in the ranking's order (times not decreasing). */
    for (int c = 0; c < KCAL_COLL_COUNT; c++)
        for (int p = 2; p <= 16; p += 7) {
            kcal_tune_point pt = {.coll = (kcal_coll)c, .n = 65536};
            int got = kcal_tune_guide(&pt, KCAL_MODEL_PAPER, &prm, p, 3, 1.0);
            kcal_choice ch;
            CHECK(kcal_model_select(KCAL_MODEL_PAPER, &prm, (kcal_coll)c, p,
                                    65536, 0, NULL, &ch) == 0);
            CHECK(got >= 1);
            /* Beyond 3 only the ties of the third. */
            for (int i = 3; i < got; i++)
                CHECK(kcal_model_time(KCAL_MODEL_PAPER, &prm, (kcal_coll)c,
                                      pt.guided[i].alg, pt.guided[i].k, p,
                                      65536, 0, NULL) ==
                      kcal_model_time(KCAL_MODEL_PAPER, &prm, (kcal_coll)c,
                                      pt.guided[2].alg, pt.guided[2].k, p,
                                      65536, 0, NULL));
            CHECK(pt.guided[0].alg == ch.alg && pt.guided[0].k == ch.k);
            for (int i = 1; i < got; i++) {
                CHECK(!(pt.guided[i].alg == pt.guided[i - 1].alg &&
                        pt.guided[i].k == pt.guided[i - 1].k));
                CHECK(kcal_model_time(KCAL_MODEL_PAPER, &prm, (kcal_coll)c,
                                      pt.guided[i].alg, pt.guided[i].k, p,
                                      65536, 0, NULL) >=
                      kcal_model_time(KCAL_MODEL_PAPER, &prm, (kcal_coll)c,
                                      pt.guided[i - 1].alg,
                                      pt.guided[i - 1].k, p, 65536, 0, NULL));
                CHECK(!kcal_model_is_mpi(pt.guided[i].alg));
            }
            kcal_tune_point_free(&pt);
        }
    /* Ties with the last one asked for come too, and nothing else: every
     * candidate left out is predicted slower than every one taken. At
     * p = 2 the paper model gives the six allgathers one time on these
     * params: asking for one gives all six. */
    for (int c = 0; c < KCAL_COLL_COUNT; c++)
        for (int want = 1; want <= 3; want++) {
            kcal_tune_point tp = {.coll = (kcal_coll)c, .n = 1 << 20};
            int got = kcal_tune_guide(&tp, KCAL_MODEL_PAPER, &prm, 4, want, 1.0);
            kcal_prediction *pred;
            long n = kcal_model_rank(KCAL_MODEL_PAPER, &prm, (kcal_coll)c, 4,
                                     1 << 20, 0, 0, &pred);
            double slowest_taken = 0;
            for (long i = 0; i < n; i++) {
                kcal_tune_cand x = {pred[i].alg, pred[i].k};
                if (kcal_model_is_mpi(x.alg))
                    continue;
                if (kcal_tune_is_guided(&tp, &x))
                    slowest_taken = pred[i].seconds;
            }
            for (long i = 0; i < n; i++) {
                kcal_tune_cand x = {pred[i].alg, pred[i].k};
                if (!kcal_model_is_mpi(x.alg) && !kcal_tune_is_guided(&tp, &x))
                    CHECK(pred[i].seconds > slowest_taken);
            }
            CHECK(got >= want || got == n);
            free(pred);
            kcal_tune_point_free(&tp);
        }
    kcal_tune_point ring = {.coll = KCAL_COLL_ALLGATHER, .n = 1 << 20};
    CHECK(kcal_tune_guide(&ring, KCAL_MODEL_PAPER, &prm, 2, 1, 1.0) == 6);
    kcal_tune_point_free(&ring);
    /* alltoall has three algorithms: asking for 4 gives 3. At p = 8, scatter
     * has 5 + 6 throttle factors: asking for 100 gives all 11. */
    kcal_tune_point pt = {.coll = KCAL_COLL_ALLTOALL, .n = 4096};
    CHECK(kcal_tune_guide(&pt, KCAL_MODEL_PAPER, &prm, 2, 4, 1.0) == 3);
    pt.coll = KCAL_COLL_SCATTER;
    CHECK(kcal_tune_guide(&pt, KCAL_MODEL_PAPER, &prm, 8, 100, 1.0) == 11);
    CHECK(kcal_tune_guide(&pt, KCAL_MODEL_PAPER, &prm, 8, 0, 1.0) == -1);
    kcal_tune_point_free(&pt);
    /* With the MPI library's measured line below 64K, the model's choice
     * there is mpi; mpi is never a guided candidate (it is always
     * measured anyway). */
    CHECK(kcal_params_set(&prm, "mpi_bcast_a", 1e-6) == 0);
    CHECK(kcal_params_set(&prm, "mpi_bcast_b", 1e-10) == 0);
    CHECK(kcal_params_set(&prm, "mpi_bcast_below", 65536) == 0);
    pt = (kcal_tune_point){.coll = KCAL_COLL_BCAST, .n = 1024};
    CHECK(kcal_tune_guide(&pt, KCAL_MODEL_PAPER, &prm, 4, 3, 1.0) == 3);
    for (int i = 0; i < pt.n_guided; i++)
        CHECK(!kcal_model_is_mpi(pt.guided[i].alg));
    kcal_tune_point_free(&pt);
    kcal_params_free(&prm);
}

/* The window: S from pass_spread, held between the floor and the cap, the
 * default without it; and the guided candidates are the want best, their
 * ties, and every one predicted within S times the best, nothing else. */
static void test_window(void)
{
    kcal_params prm;
    char err[KCAL_ERRLEN], buf[128];
    CHECK(kcal_params_load_embedded("knl", &prm, err, sizeof err) == 0);
    CHECK(kcal_tune_window(&prm) == KCAL_TUNE_WINDOW_DEFAULT);
    CHECK_STR(kcal_tune_window_describe(&prm, buf, sizeof buf),
              "S = 1.25, the default without pass_spread");
    CHECK(kcal_params_set(&prm, "pass_spread", 1.1) == 0);
    CHECK(kcal_tune_window(&prm) == KCAL_TUNE_WINDOW_FLOOR);
    CHECK_STR(kcal_tune_window_describe(&prm, buf, sizeof buf),
              "S = 1.25 from pass_spread 1.1, at the floor");
    CHECK(kcal_params_set(&prm, "pass_spread", 5.39) == 0);
    CHECK(kcal_tune_window(&prm) == KCAL_TUNE_WINDOW_CAP);
    CHECK_STR(kcal_tune_window_describe(&prm, buf, sizeof buf),
              "S = 2.00 from pass_spread 5.39, capped");
    CHECK(kcal_params_set(&prm, "pass_spread", 1.4) == 0);
    CHECK(kcal_tune_window(&prm) == 1.4);
    CHECK_STR(kcal_tune_window_describe(&prm, buf, sizeof buf),
              "S = 1.40 from pass_spread 1.4");

    /* Scatter at p = 4, 64 KiB on the KNL params: the paper model puts its
     * 4th candidate 1.33 times its best, the 5th 1.48 times. The N best
     * alone (window 1, the old choice) leave the 4th out; within a spread
     * of 1.4 it is measured, the 5th is not. */
    kcal_tune_point pt = {.coll = KCAL_COLL_SCATTER, .n = 65536};
    kcal_prediction *pred;
    long n = kcal_model_rank(KCAL_MODEL_PAPER, &prm, pt.coll, 4, pt.n, 0, 0,
                             &pred);
    kcal_tune_cand r[8];
    double t[8];
    int nr = 0;
    for (long i = 0; i < n && nr < 8; i++)
        if (!kcal_model_is_mpi(pred[i].alg)) {
            r[nr] = (kcal_tune_cand){pred[i].alg, pred[i].k};
            t[nr++] = pred[i].seconds;
        }
    free(pred);
    CHECK(nr >= 5);
    CHECK(t[2] < t[3] && t[3] / t[0] > 1.3 && t[3] / t[0] < 1.4 &&
          t[4] / t[0] > 1.4);
    CHECK(kcal_tune_guide(&pt, KCAL_MODEL_PAPER, &prm, 4, 3, 1.0) == 3);
    CHECK(!kcal_tune_is_guided(&pt, &r[3]));
    CHECK(kcal_tune_guide(&pt, KCAL_MODEL_PAPER, &prm, 4, 3,
                          KCAL_TUNE_WINDOW_DEFAULT) == 3);
    CHECK(kcal_tune_guide(&pt, KCAL_MODEL_PAPER, &prm, 4, 3,
                          kcal_tune_window(&prm)) == 4);
    CHECK(kcal_tune_is_guided(&pt, &r[3]) && !kcal_tune_is_guided(&pt, &r[4]));
    /* At least want, however narrow the window; below 1 it is refused. */
    CHECK(kcal_tune_guide(&pt, KCAL_MODEL_PAPER, &prm, 4, 5, 1.4) == 5);
    CHECK(kcal_tune_guide(&pt, KCAL_MODEL_PAPER, &prm, 4, 3, 0.9) == -1);
    kcal_tune_point_free(&pt);

    /* Everywhere: beyond the want-th's ties, guided exactly when within
     * the window of the best. */
    for (int c = 0; c < KCAL_COLL_COUNT; c++)
        for (int p = 2; p <= 16; p *= 2) {
            kcal_tune_point q = {.coll = (kcal_coll)c, .n = 1 << 20};
            CHECK(kcal_tune_guide(&q, KCAL_MODEL_PAPER, &prm, p, 1, 1.7) >= 1);
            n = kcal_model_rank(KCAL_MODEL_PAPER, &prm, q.coll, p, q.n, 0, 0,
                                &pred);
            double best = -1;
            for (long i = 0; i < n; i++) {
                kcal_tune_cand x = {pred[i].alg, pred[i].k};
                if (kcal_model_is_mpi(x.alg))
                    continue;
                if (best < 0)
                    best = pred[i].seconds;
                CHECK(kcal_tune_is_guided(&q, &x) ==
                      (pred[i].seconds <= 1.7 * best));
            }
            free(pred);
            kcal_tune_point_free(&q);
        }
    kcal_params_free(&prm);
}

/* A point of scatter at n with the guided set {parallel_read,
 * sequential_write} and these medians for mpi, parallel_read,
 * sequential_write and parallel_read_flags (negative: not measured). */
static kcal_tune_point point(uint64_t n, double mpi, double pr, double sw,
                             double flags)
{
    kcal_tune_point pt = {.coll = KCAL_COLL_SCATTER, .n = n};
    pt.guided = calloc(2, sizeof *pt.guided);
    pt.guided[0] = cand(KCAL_COLL_SCATTER, "parallel_read", 0);
    pt.guided[1] = cand(KCAL_COLL_SCATTER, "sequential_write", 0);
    pt.n_guided = 2;
    const char *ids[] = {"mpi", "parallel_read", "sequential_write",
                         "parallel_read_flags"};
    double t[] = {mpi, pr, sw, flags};
    for (int i = 0; i < 4; i++)
        if (t[i] >= 0) {
            kcal_tune_cand c = cand(KCAL_COLL_SCATTER, ids[i], 0);
            CHECK(kcal_tune_record(&pt, &c, t[i]) == 0);
        }
    return pt;
}

static const char *best_id(const kcal_tune_point *pt, int guided_only)
{
    const kcal_tune_time *b = kcal_tune_best(pt, guided_only);
    return b ? b->cand.alg->id : "none";
}

static void test_best_and_table(void)
{
    kcal_tune_point pts[5] = {
        point(1024, 1.0, 2.0, 3.0, 1.5),   /* mpi wins either way */
        point(4096, 3.0, 2.0, 2.5, 1.0),   /* flags best; guided: pr */
        point(65536, 9.0, 4.0, 4.0, 5.0),  /* tie: the first recorded */
        point(1 << 20, 90, 40, 30, -1),    /* sw; flags not measured */
        point(4 << 20, 360, 170, 120, 100) /* flags; guided: sw */
    };
    CHECK_STR(best_id(&pts[0], 0), "mpi");
    CHECK_STR(best_id(&pts[0], 1), "mpi");
    CHECK_STR(best_id(&pts[1], 0), "parallel_read_flags");
    CHECK_STR(best_id(&pts[1], 1), "parallel_read");
    CHECK_STR(best_id(&pts[2], 0), "parallel_read");
    CHECK_STR(best_id(&pts[3], 0), "sequential_write");
    CHECK_STR(best_id(&pts[4], 1), "sequential_write");
    kcal_tune_cand flags = cand(KCAL_COLL_SCATTER, "parallel_read_flags", 0);
    CHECK(!kcal_tune_is_guided(&pts[1], &flags));
    CHECK(kcal_tune_is_guided(&pts[1], &pts[1].times[0].cand)); /* mpi */
    /* Recording a candidate again replaces its time. */
    kcal_tune_point again = point(1, 5, 4, 3, 2);
    CHECK(kcal_tune_record(&again, &flags, 9) == 0);
    CHECK(again.n_times == 4);
    CHECK_STR(best_id(&again, 0), "sequential_write");
    kcal_tune_point_free(&again);

    /* Guided table: mpi 0..4095, parallel_read 4K..1M-1 (two points
     * merged), sequential_write from 1M on (two points merged). */
    kcal_table t;
    char err[KCAL_ERRLEN] = "";
    kcal_table_init(&t);
    snprintf(t.about, sizeof t.about, "test");
    CHECK(kcal_tune_table_add(&t, pts, 5, 4, 1, err, sizeof err) == 0);
    CHECK(t.count == 3);
    char line[200];
    CHECK_STR(kcal_table_format_rule(&t.rules[0], line, sizeof line),
              "scatter      4      0..4095            mpi");
    CHECK_STR(kcal_table_format_rule(&t.rules[1], line, sizeof line),
              "scatter      4      4K..1048575        parallel_read");
    CHECK_STR(kcal_table_format_rule(&t.rules[2], line, sizeof line),
              "scatter      4      1M..               sequential_write");
    kcal_table_free(&t);
    /* Exhaustive table: every winner, nothing to merge but none. */
    kcal_table_init(&t);
    snprintf(t.about, sizeof t.about, "test");
    CHECK(kcal_tune_table_add(&t, pts, 5, 4, 0, err, sizeof err) == 0);
    CHECK(t.count == 5);
    CHECK_STR(kcal_table_format_rule(&t.rules[1], line, sizeof line),
              "scatter      4      4K..65535          parallel_read_flags");
    CHECK_STR(kcal_table_format_rule(&t.rules[4], line, sizeof line),
              "scatter      4      4M..               parallel_read_flags");
    CHECK(kcal_table_index(&t) == 0);
    CHECK(kcal_table_lookup(&t, KCAL_COLL_SCATTER, 4, 3 << 20)->alg ==
          kcal_model_find_algorithm(KCAL_COLL_SCATTER, "sequential_write"));
    CHECK(kcal_table_lookup(&t, KCAL_COLL_SCATTER, 5, 1) == NULL);
    kcal_table_free(&t);
    /* One point: one rule for every size. */
    kcal_table_init(&t);
    CHECK(kcal_tune_table_add(&t, &pts[3], 1, 2, 0, err, sizeof err) == 0);
    CHECK(t.count == 1 && t.rules[0].n_lo == 0 &&
          t.rules[0].n_hi == KCAL_TABLE_N_OPEN);
    kcal_table_free(&t);
    /* A point without measurements cannot make a rule. */
    kcal_tune_point empty = {.coll = KCAL_COLL_SCATTER, .n = 8};
    kcal_table_init(&t);
    CHECK(kcal_tune_table_add(&t, &empty, 1, 2, 0, err, sizeof err) == -1);
    CHECK_STR(err, "scatter at 8 bytes: nothing measured");
    kcal_table_free(&t);

    /* Regret: point 1 guided 2.0 against 1.0 (+100 %), point 3 guided 30
     * against 30 (flags not measured: the best of what was), point 4 120
     * against 100 (+20 %), the others 0: mean 24 %, max 100 %. Counts:
     * guided 3 per point (mpi, pr, sw), exhaustive what was measured
     * (4, 4, 4, 3, 4). */
    kcal_tune_regret r;
    kcal_tune_compare(pts, 5, &r);
    CHECK(r.points == 5);
    CHECK_NEAR(r.mean, 0.24, 1e-12);
    CHECK_NEAR(r.max, 1.0, 1e-12);
    CHECK(r.guided_measurements == 15);
    CHECK(r.exhaustive_measurements == 19);
    /* A point with nothing measured is left out of both. */
    kcal_tune_point six[6];
    memcpy(six, pts, sizeof pts);
    six[5] = empty;
    kcal_tune_compare(six, 6, &r);
    CHECK(r.points == 5 && r.exhaustive_measurements == 19);
    for (int i = 0; i < 5; i++)
        kcal_tune_point_free(&pts[i]);
}

static void test_format(void)
{
    char buf[64];
    kcal_tune_cand c = cand(KCAL_COLL_BCAST, "knomial", 3);
    CHECK_STR(kcal_tune_cand_format(&c, buf, sizeof buf), "knomial:3");
    c = cand(KCAL_COLL_BCAST, "mpi", 0);
    CHECK_STR(kcal_tune_cand_format(&c, buf, sizeof buf), "mpi");
    c = cand(KCAL_COLL_ALLGATHER, "ring_neighbor", 1);
    CHECK_STR(kcal_tune_cand_format(&c, buf, sizeof buf), "ring_neighbor:1");
}

/* One v-collective's times, t[d][c][i] as kcal_tune_vset holds them,
 * then its rules at p = 2 as the table writes them. */
static void vrules(const char *name, size_t nd, const uint64_t *sizes,
                   size_t m, const double *t, char *out, size_t len)
{
    kcal_tune_vset v;
    CHECK(kcal_tune_vinit(&v, name, nd, sizes, m) == 0);
    for (size_t d = 0; d < nd; d++)
        for (size_t c = 0; c <= v.n_rows; c++)
            for (size_t i = 0; i < m; i++)
                CHECK(kcal_tune_vrecord(&v, d, kcal_tune_vname(&v, c),
                                        sizes[i],
                                        t[(d * (1 + v.n_rows) + c) * m +
                                          i]) == 0);
    kcal_table tb;
    kcal_table_init(&tb);
    char err[256] = "", buf[128];
    CHECK(kcal_tune_vtable_add(&tb, &v, 2, err, sizeof err) == 0);
    CHECK_STR(err, "");
    size_t at = 0;
    out[0] = '\0';
    for (size_t r = 0; r < tb.count; r++)
        at += (size_t)snprintf(out + at, len - at, "%s%s", r ? "; " : "",
                               kcal_table_format_rule(&tb.rules[r], buf,
                                                      sizeof buf));
    /* squeeze the columns' padding */
    for (char *s = out, *w = out;; s++) {
        if (*s == ' ' && w > out && w[-1] == ' ')
            continue;
        if (!(*w++ = *s))
            break;
    }
    kcal_table_free(&tb);
    kcal_tune_vfree(&v);
}

static void test_vsplit(void)
{
    const uint64_t sz[3] = {1024, 65536, 1048576};
    char got[512];
    /* alltoallv: mpi, pairwise and copy_in_out (its staged row, never
     * the cheapest here). One distribution:
     * mpi wins 1K, pairwise 64K and 1M: the crossover at 64K. */
    const double one[] = {1, 4, 9, /* mpi */ 2, 2, 3, /* pairwise */
                          3, 5, 9 /* copy_in_out */};
    vrules("alltoallv", 1, sz, 3, one, got, sizeof got);
    CHECK_STR(got, "alltoallv 2 0..65535 mpi; alltoallv 2 64K.. pairwise");
    /* Two distributions that disagree at 64K: uniform prefers pairwise
     * (mpi 2x slower), skew mpi (pairwise 1.5x slower). Scores at 64K:
     * mpi 2, pairwise 1.5: the crossover stays at 64K. With mpi only
     * 1.2x slower under uniform it moves to 1M. */
    const double dis[] = {1, 4, 9, 2, 2, 3, 9, 9, 9, /* uniform */
                          1, 2, 9, 2, 3, 3, 9, 9, 9 /* skew */};
    vrules("alltoallv", 2, sz, 3, dis, got, sizeof got);
    CHECK_STR(got, "alltoallv 2 0..65535 mpi; alltoallv 2 64K.. pairwise");
    const double dis2[] = {1, 2.4, 9, 2, 2, 3, 9, 9, 9,
                           1, 2, 9, 2, 3, 3, 9, 9, 9};
    vrules("alltoallv", 2, sz, 3, dis2, got, sizeof got);
    CHECK_STR(got, "alltoallv 2 0..1048575 mpi; alltoallv 2 1M.. pairwise");
    /* mpi fastest everywhere: one rule. */
    const double all[] = {1, 1, 1, 2, 2, 2, 3, 3, 3};
    vrules("alltoallv", 1, sz, 3, all, got, sizeof got);
    CHECK_STR(got, "alltoallv 2 * mpi");
    /* A tie keeps mpi (the larger split). */
    const double tie[] = {1, 2, 2, 1, 2, 2, 4, 4, 4};
    vrules("alltoallv", 1, sz, 3, tie, got, sizeof got);
    CHECK_STR(got, "alltoallv 2 * mpi");
    /* gatherv: mpi, parallel_write_split, parallel_write,
     * sequential_read, throttled_write, copy_in_out (its staged row,
     * never cheaper here). The row from the split on is the
     * one best over those sizes together, not each size's winner:
     * sequential_read wins 1K and 64K but loses 1M by much, so
     * parallel_write (1.1 at 64K, first at 1M) holds all three from 0
     * (libkcoll beats mpi everywhere). A tie between rows keeps the first
     * (parallel_write_split = parallel_write at every size). */
    const double g[] = {5, 5, 5,       /* mpi */
                        3, 3.3, 2,     /* parallel_write_split */
                        3, 3.3, 2,     /* parallel_write */
                        1, 3, 8,       /* sequential_read */
                        4, 4, 4,       /* throttled_write */
                        4, 4, 4};      /* copy_in_out */
    vrules("gatherv", 1, sz, 3, g, got, sizeof got);
    CHECK_STR(got, "gatherv 2 * parallel_write_split");
    /* allgatherv: mpi, source_read_flags, source_read, copy_in_out (its
     * staged row). mpi wins 256 B, copy_in_out 1K to 8K, and
     * source_read_flags 64K: mpi below 1K, the staged range from 1K to
     * 4K (KCAL_V_STAGED_MAX: 8K would have cost less), then the row. */
    const uint64_t sa[5] = {256, 1024, 4096, 8192, 65536};
    const double a[] = {1, 2, 8, 8, 20,  /* mpi */
                        5, 5, 5, 5, 10,  /* source_read_flags */
                        6, 6, 6, 6, 12,  /* source_read */
                        2, 1, 2, 4, 40}; /* copy_in_out */
    vrules("allgatherv", 1, sa, 5, a, got, sizeof got);
    CHECK_STR(got, "allgatherv 2 0..1023 mpi; allgatherv 2 1K..4K "
                   "copy_in_out; allgatherv 2 4097.. source_read_flags");
    /* copy_in_out fastest at 64K too: the row from 1K (the staged range
     * and then the same row cost the same: the shorter range, none). */
    const double a2[] = {1, 2, 8, 8, 20, 5, 5, 5, 5, 10, 6, 6, 6, 6, 12,
                         2, 1, 2, 4, 5};
    vrules("allgatherv", 1, sa, 5, a2, got, sizeof got);
    CHECK_STR(got, "allgatherv 2 0..1023 mpi; allgatherv 2 1K.. copy_in_out");
    /* A missing time: no rules. */
    kcal_tune_vset v;
    CHECK(kcal_tune_vinit(&v, "alltoallv", 1, sz, 3) == 0);
    CHECK(kcal_tune_vrecord(&v, 0, "mpi", 1024, 1) == 0);
    CHECK(kcal_tune_vrecord(&v, 0, "ring", 1024, 1) == -1);
    CHECK(kcal_tune_vrecord(&v, 0, "mpi", 4096, 1) == -1);
    CHECK(kcal_tune_vrecord(&v, 1, "mpi", 1024, 1) == -1);
    CHECK(isnan(kcal_tune_vscore(&v, 0, 0)));
    size_t j, k, r;
    CHECK(kcal_tune_vsplit(&v, &j, &k, &r) == -1);
    kcal_tune_vfree(&v);
    CHECK(kcal_tune_vinit(&v, "alltoall", 1, sz, 3) == -1);
}

int main(void)
{
    test_guide();
    test_window();
    test_best_and_table();
    test_format();
    test_vsplit();
    return check_report();
}
