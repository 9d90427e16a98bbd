/* test_model's second part: the algorithms' shapes against the report's
 * old computation, kcal_model_select and kcal_model_rank_into against
 * rankings worked out here, and params that overflow a double. */
#include <stdlib.h>
#include <string.h>

#include "tests/test_model.h"

/* reports/report_doc.c's alg_shape and counts_p_transfers as they were
 * before the registry (strcmp on the id), kept here as the oracle
 * kcal_model_shape must reproduce. */
static void report_alg_shape(const char *alg, int p, int k, int *steps, int *conc)
{
    *steps = 1;
    *conc = p;
    if (!strcmp(alg, "parallel_read") || !strcmp(alg, "parallel_write")) {
        *steps = 1;
        *conc = p;
    } else if (!strcmp(alg, "direct_read")) {
        /* issue 9: the p − 1 readers; the root holds the message and
         * copies nothing (scatter's and gather's roots copy their own
         * block meanwhile, so p copies run there). */
        *steps = 1;
        *conc = p > 1 ? p - 1 : 1;
    } else if (!strcmp(alg, "sequential_write") ||
               !strcmp(alg, "sequential_read") ||
               !strcmp(alg, "direct_write")) {
        *steps = p;
        *conc = 1;
    } else if (!strncmp(alg, "throttled_", 10)) {
        *steps = k ? (p + k - 1) / k : p;
        *conc = k ? k : 1;
    } else if (!strcmp(alg, "knomial")) {
        *steps = k ? kcal_ceil_log_k(p, k) : 1;
        *conc = k ? k : 1;
    } else if (!strncmp(alg, "ring_", 5) || !strcmp(alg, "pairwise")) {
        *steps = p > 1 ? p - 1 : 1;
        *conc = p;
    } else if (!strcmp(alg, "recursive_doubling") || !strcmp(alg, "bruck")) {
        *steps = kcal_ceil_log2(p);
        *conc = p;
    } else if (!strcmp(alg, "scatter_allgather")) {
        *steps = 2 * p - 1;
        *conc = p;
    }
    if (*steps < 1)
        *steps = 1;
}

static int report_counts_p_transfers(const char *alg)
{
    return !strcmp(alg, "sequential_write") || !strcmp(alg, "sequential_read") ||
           !strcmp(alg, "direct_write") || !strcmp(alg, "scatter_allgather");
}

static kcal_shape shape(kcal_coll c, const char *id, int p, int k)
{
    kcal_shape s = {-1, -1, -1};
    const kcal_algorithm *a = kcal_model_find_algorithm(c, id);
    CHECK(a && kcal_model_shape(c, a, p, k, &s) == 0);
    return s;
}

#define CHECK_SHAPE(c, id, p, k, st, co, pp)                                 \
    do {                                                                     \
        kcal_shape s_ = shape(c, id, p, k);                                  \
        CHECK(s_.steps == (st) && s_.concurrent == (co) &&                   \
              s_.paper_charges_p == (pp));                                   \
    } while (0)

void test_shape(void)
{
    /* Worked by hand at p = 8 (k = 3 where there is one): ⌈8/3⌉ = 3,
     * ⌈log₃ 8⌉ = 2, ⌈log₂ 8⌉ = 3, 2p − 1 = 15. */
    CHECK_SHAPE(KCAL_COLL_SCATTER, "parallel_read", 8, 0, 1, 8, 0);
    CHECK_SHAPE(KCAL_COLL_SCATTER, "sequential_write", 8, 0, 8, 1, 1);
    CHECK_SHAPE(KCAL_COLL_SCATTER, "throttled_read", 8, 3, 3, 3, 0);
    CHECK_SHAPE(KCAL_COLL_GATHER, "parallel_write", 8, 0, 1, 8, 0);
    CHECK_SHAPE(KCAL_COLL_GATHER, "sequential_read", 8, 0, 8, 1, 1);
    CHECK_SHAPE(KCAL_COLL_GATHER, "throttled_write", 8, 3, 3, 3, 0);
    CHECK_SHAPE(KCAL_COLL_BCAST, "direct_read", 8, 0, 1, 7, 0);
    CHECK_SHAPE(KCAL_COLL_BCAST, "direct_write", 8, 0, 8, 1, 1);
    CHECK_SHAPE(KCAL_COLL_BCAST, "knomial", 8, 3, 2, 3, 0);
    CHECK_SHAPE(KCAL_COLL_BCAST, "scatter_allgather", 8, 0, 15, 8, 1);
    CHECK_SHAPE(KCAL_COLL_ALLGATHER, "ring_neighbor", 8, 1, 7, 8, 0);
    CHECK_SHAPE(KCAL_COLL_ALLGATHER, "ring_neighbor", 8, 3, 7, 8, 0);
    CHECK_SHAPE(KCAL_COLL_ALLGATHER, "ring_source_read", 8, 0, 7, 8, 0);
    CHECK_SHAPE(KCAL_COLL_ALLGATHER, "ring_source_write", 8, 0, 7, 8, 0);
    CHECK_SHAPE(KCAL_COLL_ALLGATHER, "recursive_doubling", 8, 0, 3, 8, 0);
    CHECK_SHAPE(KCAL_COLL_ALLGATHER, "bruck", 8, 0, 3, 8, 0);
    CHECK_SHAPE(KCAL_COLL_ALLTOALL, "pairwise", 8, 0, 7, 8, 0);
    /* The derived rows: their twins' shapes (parallel: p as the paper row
     * charges γ(p)); direct_split's p − 1 readers; the rings' p − 1 steps. */
    CHECK_SHAPE(KCAL_COLL_SCATTER, "parallel_read_flags", 8, 0, 1, 8, 0);
    CHECK_SHAPE(KCAL_COLL_GATHER, "parallel_write_flags", 8, 0, 1, 8, 0);
    CHECK_SHAPE(KCAL_COLL_SCATTER, "parallel_read_split", 8, 0, 1, 8, 0);
    CHECK_SHAPE(KCAL_COLL_GATHER, "parallel_write_split", 8, 0, 1, 8, 0);
    CHECK_SHAPE(KCAL_COLL_BCAST, "direct_split", 8, 0, 1, 7, 0);
    CHECK_SHAPE(KCAL_COLL_BCAST, "copy_in_out", 8, 0, 1, 7, 0);
    /* scatter and gather copy_in_out: the root and one other copy at once */
    CHECK_SHAPE(KCAL_COLL_SCATTER, "copy_in_out", 8, 0, 1, 1, 0);
    CHECK_SHAPE(KCAL_COLL_GATHER, "copy_in_out", 8, 0, 1, 1, 0);
    CHECK_SHAPE(KCAL_COLL_ALLGATHER, "ring_source_read_flags", 8, 0, 7, 8, 0);
    CHECK_SHAPE(KCAL_COLL_ALLTOALL, "pairwise_flags", 8, 0, 7, 8, 0);
    CHECK_SHAPE(KCAL_COLL_ALLTOALL, "pairwise_flags", 1, 0, 1, 1, 0);
    /* allgather and alltoall copy_in_out: one pipeline, every process
     * copying at once */
    CHECK_SHAPE(KCAL_COLL_ALLGATHER, "copy_in_out", 8, 0, 1, 8, 0);
    CHECK_SHAPE(KCAL_COLL_ALLTOALL, "copy_in_out", 8, 0, 1, 8, 0);
    /* A throttle factor not known (k = 0): one copy at a time, ⌈p/1⌉ steps
     * for throttled_*, 1 for knomial (log_1 is undefined). */
    CHECK_SHAPE(KCAL_COLL_SCATTER, "throttled_read", 8, 0, 8, 1, 0);
    CHECK_SHAPE(KCAL_COLL_BCAST, "knomial", 8, 0, 1, 1, 0);
    CHECK_SHAPE(KCAL_COLL_BCAST, "knomial", 8, 1, 1, 1, 0);
    /* p = 5, k = 2: ⌈5/2⌉ = 3, ⌈log₂ 5⌉ = 3; scatter_allgather 9 steps */
    CHECK_SHAPE(KCAL_COLL_GATHER, "throttled_write", 5, 2, 3, 2, 0);
    CHECK_SHAPE(KCAL_COLL_BCAST, "knomial", 5, 2, 3, 2, 0);
    CHECK_SHAPE(KCAL_COLL_BCAST, "scatter_allgather", 5, 0, 9, 5, 1);
    CHECK_SHAPE(KCAL_COLL_ALLGATHER, "bruck", 5, 0, 3, 5, 0);
    /* p = 1: never fewer than one step */
    CHECK_SHAPE(KCAL_COLL_ALLGATHER, "recursive_doubling", 1, 0, 1, 1, 0);
    CHECK_SHAPE(KCAL_COLL_ALLTOALL, "pairwise", 1, 0, 1, 1, 0);
    CHECK_SHAPE(KCAL_COLL_SCATTER, "sequential_write", 1, 0, 1, 1, 1);

    /* The report's own computation, over every algorithm of the paper (the
     * oracle predates the derived ones: checked by hand above), p and k. */
    static const size_t paper_rows[KCAL_COLL_COUNT] = {3, 3, 4, 5, 1};
    int mismatches = 0;
    for (int c = 0; c < KCAL_COLL_COUNT; c++) {
        size_t na;
        const kcal_algorithm *a = kcal_model_algorithms((kcal_coll)c, &na);
        CHECK(na > paper_rows[c]);
        for (size_t i = 0; i < paper_rows[c] && i < na; i++)
            for (int p = 1; p <= 70; p++)
                for (int k = 0; k <= p; k++) {
                    int st, co;
                    if (k == 1 && !strcmp(a[i].id, "knomial"))
                        continue; /* the report's version loops forever */
                    kcal_shape s;
                    report_alg_shape(a[i].id, p, k, &st, &co);
                    if (kcal_model_shape((kcal_coll)c, &a[i], p, k, &s) != 0 ||
                        s.steps != st || s.concurrent != co ||
                        s.paper_charges_p != report_counts_p_transfers(a[i].id))
                        mismatches++;
                }
    }
    CHECK(mismatches == 0);

    /* Refused: an algorithm of another collective, p < 1, k < 0, NULL. */
    kcal_shape s;
    const kcal_algorithm *bruck = kcal_model_find_algorithm(KCAL_COLL_ALLGATHER, "bruck");
    const kcal_algorithm fake = *bruck;
    CHECK(kcal_model_shape(KCAL_COLL_ALLTOALL, bruck, 4, 0, &s) == -1);
    CHECK(kcal_model_shape(KCAL_COLL_ALLGATHER, bruck, 0, 0, &s) == -1);
    CHECK(kcal_model_shape(KCAL_COLL_ALLGATHER, bruck, 4, -1, &s) == -1);
    CHECK(kcal_model_shape(KCAL_COLL_ALLGATHER, NULL, 4, 0, &s) == -1);
    CHECK(kcal_model_shape(KCAL_COLL_ALLGATHER, &fake, 4, 0, &s) == -1);
}

/* kcal_model_select is kcal_model_rank's first row, found by a scan: same
 * algorithm, same k, same time, same tie order; with only_alg, the first
 * row of that algorithm. Over every collective, both models, hand and
 * embedded params, and sizes where the winners change. */
void test_select(void)
{
    kcal_params sets[4];
    char err[KCAL_ERRLEN];
    sets[0] = hand_params();
    CHECK(kcal_params_load_embedded("knl", &sets[1], err, sizeof err) == 0);
    CHECK(kcal_params_load_embedded("broadwell", &sets[2], err, sizeof err) == 0);
    CHECK(kcal_params_load_embedded("power8", &sets[3], err, sizeof err) == 0);
    kcal_params_set(&sets[3], "beta_hot", 1e-11); /* make full differ */
    kcal_params_set(&sets[3], "l3_cache", 1 << 22);
    kcal_params_set(&sets[3], "sync_step", 1e-6);
    static const int ps[] = {1, 2, 3, 4, 5, 8, 17, 64};
    static const uint64_t ns[] = {0, 1, 4096, 65549, 1 << 20, 16 << 20};
    long cases = 0, bad = 0;
    for (int set = 0; set < 4; set++)
        for (int m = 0; m < 2; m++)
            for (int c = 0; c < KCAL_COLL_COUNT; c++)
                for (size_t ip = 0; ip < sizeof ps / sizeof *ps; ip++)
                    for (size_t in = 0; in < sizeof ns / sizeof *ns; in++)
                        for (int inplace = 0; inplace < 2; inplace++) {
                            kcal_prediction *pr;
                            long cnt = kcal_model_rank((kcal_model_kind)m, &sets[set],
                                                       (kcal_coll)c, ps[ip], ns[in],
                                                       inplace, 0, &pr);
                            kcal_choice ch;
                            int rc = kcal_model_select((kcal_model_kind)m, &sets[set],
                                                       (kcal_coll)c, ps[ip], ns[in],
                                                       inplace, NULL, &ch);
                            cases++;
                            if (cnt <= 0 || rc != 0 || ch.alg != pr[0].alg ||
                                ch.k != pr[0].k || ch.seconds != pr[0].seconds)
                                bad++;
                            size_t na;
                            const kcal_algorithm *a =
                                kcal_model_algorithms((kcal_coll)c, &na);
                            for (size_t i = 0; i < na; i++) {
                                long first = -1;
                                for (long r = 0; r < cnt && first < 0; r++)
                                    if (pr[r].alg == &a[i])
                                        first = r;
                                rc = kcal_model_select((kcal_model_kind)m, &sets[set],
                                                       (kcal_coll)c, ps[ip], ns[in],
                                                       inplace, &a[i], &ch);
                                cases++;
                                if (first < 0 ? rc != KCAL_SELECT_NONE
                                              : rc != 0 || ch.alg != &a[i] ||
                                                    ch.k != pr[first].k ||
                                                    ch.seconds != pr[first].seconds)
                                    bad++;
                            }
                            free(pr);
                        }
    CHECK(cases > 3000);
    CHECK(bad == 0);
    if (bad)
        fprintf(stderr, "test_select: %ld of %ld choices differ from the ranking\n",
                bad, cases);
    /* Throttle factors exist only from p = 3; ring_neighbor's j is 1. */
    const kcal_algorithm *tr = kcal_model_find_algorithm(KCAL_COLL_SCATTER, "throttled_read");
    const kcal_algorithm *rn = kcal_model_find_algorithm(KCAL_COLL_ALLGATHER, "ring_neighbor");
    kcal_choice ch;
    CHECK(kcal_model_select(KCAL_MODEL_PAPER, &sets[0], KCAL_COLL_SCATTER, 2, 4096, 0, tr, &ch) ==
          KCAL_SELECT_NONE);
    CHECK(kcal_model_select(KCAL_MODEL_PAPER, &sets[0], KCAL_COLL_SCATTER, 3, 4096, 0, tr, &ch) == 0 &&
          ch.alg == tr && ch.k == 2);
    CHECK(kcal_model_select(KCAL_MODEL_PAPER, &sets[0], KCAL_COLL_ALLGATHER, 6, 4096, 0, rn, &ch) == 0 &&
          ch.alg == rn && ch.k == 1);
    /* only_alg must be one of c's; p must be at least 1. */
    CHECK(kcal_model_select(KCAL_MODEL_PAPER, &sets[0], KCAL_COLL_GATHER, 8, 4096, 0, tr, &ch) ==
          KCAL_SELECT_NONE);
    CHECK(kcal_model_select(KCAL_MODEL_PAPER, &sets[0], KCAL_COLL_GATHER, 0, 4096, 0, NULL, &ch) ==
          KCAL_SELECT_NONE);
    for (int i = 0; i < 4; i++)
        kcal_params_free(&sets[i]);
}

/* The reference order: by_time of select.c, written again. */
static int ref_by_time(const void *va, const void *vb)
{
    const kcal_prediction *a = va, *b = vb;
    if (a->seconds != b->seconds)
        return a->seconds < b->seconds ? -1 : 1;
    if (a->alg != b->alg)
        return a->alg < b->alg ? -1 : 1;
    return (a->k > b->k) - (a->k < b->k);
}

static int same_prediction(const kcal_prediction *a, const kcal_prediction *b)
{
    return a->alg == b->alg && a->k == b->k && a->rank == b->rank &&
           !memcmp(&a->seconds, &b->seconds, sizeof a->seconds) &&
           !memcmp(&a->terms, &b->terms, sizeof a->terms);
}

/* One ranking of kcal_model_rank_into against the candidates timed one by
 * one (kcal_model_time, model.md order, k ascending), sorted by qsort and
 * ranked here. Returns 1 when they are the same. */
static int rank_matches(kcal_ranking *r, kcal_model_kind m,
                        const kcal_params *prm, kcal_coll c, int p,
                        uint64_t n, int in_place)
{
    long cnt = kcal_model_rank_into(m, prm, c, p, n, in_place, 0, r);
    size_t na;
    const kcal_algorithm *a = kcal_model_algorithms(c, &na);
    kcal_prediction *ref = calloc((size_t)(2 * p + 16), sizeof *ref);
    long nref = 0;
    for (size_t i = 0; i < na; i++) {
        int lo = a[i].kind == KCAL_PARAM_NONE     ? 0
                 : a[i].kind == KCAL_PARAM_STRIDE ? 1
                                                  : 2;
        int hi = a[i].kind == KCAL_PARAM_THROTTLE ? p - 1 : lo;
        for (int k = lo; k <= hi; k++) {
            kcal_prediction *q = &ref[nref++];
            q->alg = &a[i];
            q->k = k;
            q->seconds = kcal_model_time(m, prm, c, &a[i], k, p, n, in_place,
                                         &q->terms);
        }
    }
    qsort(ref, (size_t)nref, sizeof *ref, ref_by_time);
    for (long i = 0; i < nref; i++)
        ref[i].rank = i > 0 && ref[i].seconds == ref[i - 1].seconds
                          ? ref[i - 1].rank
                          : (int)i + 1;
    int ok = cnt == nref;
    for (long i = 0; ok && i < nref; i++)
        ok = same_prediction(&r->pred[i], &ref[i]);
    free(ref);
    return ok;
}

/* kcal_model_rank_into: one ranking's buffers reused over calls that grow
 * and shrink them give the candidates in by_time's order (ties in model.md
 * order, then k), with competition ranks, as qsort gives them; also with
 * NaN times, which are no order and stay with qsort. kcal_model_rank is
 * the same ranking in a buffer of its own. */
void test_rank_into(void)
{
    kcal_params sets[3];
    char err[KCAL_ERRLEN];
    sets[0] = hand_params();
    CHECK(kcal_params_load_embedded("knl", &sets[1], err, sizeof err) == 0);
    sets[2] = hand_params();
    kcal_params_set(&sets[2], "lock", 0); /* 0·γ(c ≥ 2) = NaN */
    kcal_params_set(&sets[2], "gamma_a", 1e308);
    static const int ps[] = {1, 2, 3, 64, 5, 300, 8};
    static const uint64_t ns[] = {0, 4096, 1 << 20, 65549};
    kcal_ranking r = {0};
    long cases = 0, bad = 0;
    for (int set = 0; set < 3; set++)
        for (int m = 0; m < 2; m++)
            for (int c = 0; c < KCAL_COLL_COUNT; c++)
                for (size_t ip = 0; ip < sizeof ps / sizeof *ps; ip++)
                    for (size_t in = 0; in < sizeof ns / sizeof *ns; in++) {
                        cases++;
                        bad += !rank_matches(&r, (kcal_model_kind)m, &sets[set],
                                             (kcal_coll)c, ps[ip], ns[in],
                                             (int)(in & 1));
                    }
    CHECK(cases == 3 * 2 * KCAL_COLL_COUNT * 7 * 4);
    CHECK(bad == 0);
    if (bad)
        fprintf(stderr, "test_rank_into: %ld of %ld rankings differ\n", bad,
                cases);
    /* The one-off ranking is the reused one. */
    kcal_prediction *pr;
    long n = kcal_model_rank(KCAL_MODEL_FULL, &sets[1], KCAL_COLL_BCAST, 300,
                             1 << 20, 0, 0, &pr);
    CHECK(kcal_model_rank_into(KCAL_MODEL_FULL, &sets[1], KCAL_COLL_BCAST, 300,
                               1 << 20, 0, 0, &r) == n);
    int same = n > 0;
    for (long i = 0; same && i < n; i++)
        same = same_prediction(&pr[i], &r.pred[i]);
    CHECK(same);
    free(pr);
    CHECK(kcal_model_rank_into(KCAL_MODEL_PAPER, &sets[0], KCAL_COLL_BCAST, 0,
                               4096, 0, 0, &r) == -1);
    kcal_ranking_free(&r);
    CHECK(r.pred == NULL && r.cap == 0);
    for (int i = 0; i < 3; i++)
        kcal_params_free(&sets[i]);
}

/* Params that pass the checks but overflow a double: lock 0 with
 * γ(c ≥ 2) = inf makes 0·inf = NaN in every contended row; α = 1e308
 * makes every multi-step row inf. Selection skips them; predict finds
 * them first (kcal_model_find_nonfinite). */
void test_nonfinite(void)
{
    kcal_params p = hand_params();
    kcal_prediction bad;
    kcal_choice ch;
    CHECK(kcal_model_find_nonfinite(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, 64, 1 << 20, 0, 0,
                                    &bad) == 0);
    kcal_params_set(&p, "lock", 0);
    kcal_params_set(&p, "gamma_a", 1e308);
    const kcal_algorithm *par = kcal_model_find_algorithm(KCAL_COLL_SCATTER, "parallel_read");
    CHECK(isnan(kcal_model_time(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, par, 0, 4, 1024, 0, NULL)));
    CHECK(kcal_model_find_nonfinite(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, 4, 1024, 0, 0,
                                    &bad) == 1);
    CHECK(bad.alg == par && bad.k == 0 && isnan(bad.seconds) && isnan(bad.terms.lock) &&
          isfinite(bad.terms.copy));
    /* Only sequential_write (γ(1) = 1) and copy_in_out (no lock term)
     * stay finite: copy_in_out, the faster (3·1.024 + 1.024 + 4 µs), is
     * chosen. */
    CHECK(kcal_model_select(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, 4, 1024, 0, NULL, &ch) == 0);
    CHECK(ch.alg && !strcmp(ch.alg->id, "copy_in_out") && isfinite(ch.seconds));
    CHECK_NEAR(ch.seconds, 8.096e-6, 1e-12);
    /* ... and a throttled algorithm alone has no finite k. */
    const kcal_algorithm *tr = kcal_model_find_algorithm(KCAL_COLL_SCATTER, "throttled_read");
    CHECK(kcal_model_select(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, 4, 1024, 0, tr, &ch) ==
          KCAL_SELECT_NONFINITE);
    /* With --k the scan checks only that k (still NaN). */
    CHECK(kcal_model_find_nonfinite(KCAL_MODEL_FULL, &p, KCAL_COLL_SCATTER, 4, 1024, 0, 2,
                                    &bad) == 1);
    kcal_params_free(&p);

    p = hand_params();
    kcal_params_set(&p, "alpha", 1e308);
    kcal_params_set(&p, "beta", 1e308);
    CHECK(kcal_model_select(KCAL_MODEL_PAPER, &p, KCAL_COLL_BCAST, 8, 1 << 20, 0, NULL, &ch) ==
          KCAL_SELECT_NONFINITE);
    CHECK(kcal_model_find_nonfinite(KCAL_MODEL_PAPER, &p, KCAL_COLL_BCAST, 8, 1 << 20, 0, 0,
                                    &bad) == 1);
    CHECK(isinf(bad.seconds) && isinf(bad.terms.copy));
    CHECK(kcal_model_find_nonfinite(KCAL_MODEL_PAPER, &p, KCAL_COLL_BCAST, 0, 1, 0, 0, &bad) == -1);
    kcal_params_free(&p);
}
