/* The paper model: formulas against values worked out by hand from model.md,
 * the ranking's rules, and the paper's own conclusions on the KNL defaults. */
#include <stdlib.h>

#include "check.h"
#include "model.h"

/* α = 1 µs, β = 1 ns/B, l = 0.1 µs/page, s = 4096, γ(c) = 0.1c² + 1.5c,
 * every T_sm_X(p) = 2 µs + 1 µs·log2 p. */
static kcal_params hand_params(void)
{
    kcal_params p;
    kcal_params_init(&p);
    kcal_params_set(&p, "alpha", 1e-6);
    kcal_params_set(&p, "beta", 1e-9);
    kcal_params_set(&p, "lock", 1e-7);
    kcal_params_set(&p, "page", 4096);
    kcal_params_set(&p, "gamma_a", 0.1);
    kcal_params_set(&p, "gamma_b", 1.5);
    for (int op = 0; op < KCAL_SM_COUNT; op++) {
        char key[32];
        snprintf(key, sizeof key, "sm_%s_a", kcal_sm_name(op));
        kcal_params_set(&p, key, 2e-6);
        snprintf(key, sizeof key, "sm_%s_b", kcal_sm_name(op));
        kcal_params_set(&p, key, 1e-6);
    }
    return p;
}

static double t(const kcal_params *p, kcal_coll c, const char *id, int k,
                int procs, uint64_t n, int in_place)
{
    const kcal_algorithm *a = kcal_model_find_algorithm(c, id);
    CHECK(a != NULL);
    return a ? kcal_model_time(KCAL_MODEL_PAPER, p, c, a, k, procs, n,
                               in_place, NULL)
             : -1;
}

static void test_hand_values(void)
{
    kcal_params p = hand_params();
    const double rel = 1e-12;
    /* γ(1) = 1 by definition; γ(2) = 0.4 + 3 */
    CHECK(kcal_gamma(&p, 1) == 1);
    CHECK_NEAR(kcal_gamma(&p, 2), 3.4, rel);
    /* parallel_read p=4 n=10000: pages 3, T_sm(4) = 4 µs each,
     * X = 1 + 10 µs, P(4) = 0.1·7.6·3 = 2.28 µs → 4 + 11 + 2.28 + 4 */
    CHECK_NEAR(t(&p, KCAL_COLL_SCATTER, "parallel_read", 0, 4, 10000, 0), 21.28e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_GATHER, "parallel_write", 0, 4, 10000, 0), 21.28e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_BCAST, "direct_read", 0, 4, 10000, 0), 21.28e-6, rel);
    /* throttled_read p=5 k=2 n=4096: 3 steps, T_sm_bcast(5) = 2 + log2 5 µs,
     * X = 5.096 µs, P(2) = 0.34 µs */
    double sm5 = 2e-6 + 1e-6 * log2(5);
    CHECK_NEAR(t(&p, KCAL_COLL_SCATTER, "throttled_read", 2, 5, 4096, 0), sm5 + 3 * 5.436e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_GATHER, "throttled_write", 2, 5, 4096, 0), sm5 + 3 * 5.436e-6, rel);
    /* sequential_write in place p=2 n=4096: 3 + 2·(1 + 4.096 + 0.1) + 3 µs */
    CHECK_NEAR(t(&p, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 4096, 1), 16.392e-6, rel);
    /* ... and not in place adds T_memcpy = 4.096 µs */
    CHECK_NEAR(t(&p, KCAL_COLL_GATHER, "sequential_read", 0, 2, 4096, 0), 20.488e-6, rel);
    /* knomial p=10 k=3 n=8192: ⌈log3 10⌉ = 3 steps, pages 2, γ(3) = 5.4 */
    CHECK_NEAR(t(&p, KCAL_COLL_BCAST, "knomial", 3, 10, 8192, 0),
               2e-6 + 1e-6 * log2(10) + 3 * (9.192e-6 + 1.08e-6), rel);
    /* direct_write p=3 n=4097: pages 2, 2·T_sm(3) + 3·(1 + 4.097 + 0.2) µs */
    double sm3 = 2e-6 + 1e-6 * log2(3);
    CHECK_NEAR(t(&p, KCAL_COLL_BCAST, "direct_write", 0, 3, 4097, 0), 2 * sm3 + 15.891e-6, rel);
    /* bruck p=6 n=1000: lg 6 = 3, 2·T_sm(6) + 3 + 5·(2 + 0.1) µs */
    double sm6 = 2e-6 + 1e-6 * log2(6);
    CHECK_NEAR(t(&p, KCAL_COLL_ALLGATHER, "bruck", 0, 6, 1000, 0), 2 * sm6 + 13.5e-6, rel);
    /* recursive_doubling p=6 n=1000: memcpy 1 + 3 + 5·1.1 µs + 2·T_sm(6) */
    CHECK_NEAR(t(&p, KCAL_COLL_ALLGATHER, "recursive_doubling", 0, 6, 1000, 0), 2 * sm6 + 9.5e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_ALLGATHER, "recursive_doubling", 0, 6, 1000, 1), 2 * sm6 + 8.5e-6, rel);
    /* ring p=6 n=1000: memcpy 1 + 5·(1 + 1 + 0.1) µs + 2·T_sm(6); all three agree */
    CHECK_NEAR(t(&p, KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 6, 1000, 0), 2 * sm6 + 11.5e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_ALLGATHER, "ring_source_read", 0, 6, 1000, 0), 2 * sm6 + 11.5e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_ALLGATHER, "ring_source_write", 0, 6, 1000, 0), 2 * sm6 + 11.5e-6, rel);
    /* pairwise p=3 n=0: no pages, T_sm(3) + 2·α */
    CHECK_NEAR(t(&p, KCAL_COLL_ALLTOALL, "pairwise", 0, 3, 0, 0), sm3 + 2e-6, rel);
    /* scatter_allgather p=4 n=10001: chunks of 2501 bytes (1 page):
     * 4 + [2.501 + 4 + 4·3.601 + 4] + [2.501 + 4 + 3·3.601 + 4] µs */
    CHECK_NEAR(t(&p, KCAL_COLL_BCAST, "scatter_allgather", 0, 4, 10001, 0), 50.209e-6, rel);
    /* p = 1: a local copy, whatever the algorithm */
    CHECK_NEAR(t(&p, KCAL_COLL_ALLTOALL, "pairwise", 0, 1, 1000, 0), 1e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_SCATTER, "parallel_read", 0, 1, 1000, 0), 1e-6, rel);
    CHECK(t(&p, KCAL_COLL_SCATTER, "parallel_read", 0, 1, 1000, 1) == 0);

    /* Terms add up to the time and land in the right bucket. */
    kcal_terms tm;
    const kcal_algorithm *a = kcal_model_find_algorithm(KCAL_COLL_SCATTER, "parallel_read");
    double s = kcal_model_time(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, a, 0, 4, 10000, 0, &tm);
    CHECK_NEAR(tm.startup, 1e-6, rel);
    CHECK_NEAR(tm.copy, 10e-6, rel);
    CHECK_NEAR(tm.lock, 2.28e-6, rel);
    CHECK_NEAR(tm.sync, 8e-6, rel);
    CHECK_NEAR(tm.startup + tm.copy + tm.lock + tm.sync, s, 1e-15);

    /* Invalid (algorithm, k, p) are refused. */
    const kcal_algorithm *tr = kcal_model_find_algorithm(KCAL_COLL_SCATTER, "throttled_read");
    CHECK(kcal_model_time(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, tr, 5, 5, 1, 0, NULL) < 0);
    CHECK(kcal_model_time(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, tr, 1, 5, 1, 0, NULL) < 0);
    CHECK(kcal_model_time(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, a, 2, 5, 1, 0, NULL) < 0);
    const kcal_algorithm *rn = kcal_model_find_algorithm(KCAL_COLL_ALLGATHER, "ring_neighbor");
    CHECK(kcal_model_k_valid(rn, 6, 5) && !kcal_model_k_valid(rn, 6, 2) && !kcal_model_k_valid(rn, 6, 3));
    CHECK(kcal_model_find_algorithm(KCAL_COLL_SCATTER, "bruck") == NULL);
    kcal_params_free(&p);
}

static void test_helpers(void)
{
    CHECK(kcal_pages(0, 4096) == 0 && kcal_pages(1, 4096) == 1);
    CHECK(kcal_pages(4096, 4096) == 1 && kcal_pages(4097, 4096) == 2);
    CHECK(kcal_ceil_log2(1) == 0 && kcal_ceil_log2(2) == 1 && kcal_ceil_log2(5) == 3);
    CHECK(kcal_ceil_log2(64) == 6 && kcal_ceil_log2(65) == 7);
    CHECK(kcal_ceil_log_k(1, 2) == 0 && kcal_ceil_log_k(9, 3) == 2);
    CHECK(kcal_ceil_log_k(10, 3) == 3 && kcal_ceil_log_k(64, 63) == 2);
    CHECK(kcal_ceil_log_k(1000000, 999999) == 2);
    CHECK(kcal_ceil_log_k(1000000, 2) == 20);
}

static void test_ranking(void)
{
    kcal_params p = hand_params();
    kcal_prediction *pr;
    /* scatter at p = 64: 2 plain algorithms + throttle factors 2..63 */
    long n = kcal_model_rank(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, 64, 1 << 20, 0, 0, &pr);
    CHECK(n == 64);
    for (long i = 1; i < n; i++) {
        CHECK(pr[i].seconds >= pr[i - 1].seconds);
        CHECK(pr[i].rank >= pr[i - 1].rank);
    }
    char best[64];
    CHECK(kcal_model_best(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, 64, 1 << 20, 0, best, sizeof best) == 0);
    char want[64];
    snprintf(want, sizeof want, pr[0].alg->kind ? "%s:%d" : "%s", pr[0].alg->id, pr[0].k);
    CHECK_STR(best, want);
    free(pr);
    /* --k restricts the throttled family to one k */
    n = kcal_model_rank(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, 64, 1 << 20, 0, 4, &pr);
    CHECK(n == 3);
    free(pr);
    /* the three ring algorithms tie in the paper model and share a rank */
    n = kcal_model_rank(KCAL_MODEL_PAPER, &p, KCAL_COLL_ALLGATHER, 8, 1 << 20, 0, 0, &pr);
    CHECK(n == 5);
    int ring_rank = -1, rings = 0;
    for (long i = 0; i < n; i++)
        if (!strncmp(pr[i].alg->id, "ring_", 5)) {
            if (ring_rank < 0)
                ring_rank = pr[i].rank;
            CHECK(pr[i].rank == ring_rank);
            rings++;
            if (pr[i].alg->kind == KCAL_PARAM_STRIDE)
                CHECK(pr[i].k == 1);
        }
    CHECK(rings == 3);
    free(pr);
    /* p = 2 has no throttle factors; p = 1 ranks every algorithm equal */
    CHECK(kcal_model_rank(KCAL_MODEL_PAPER, &p, KCAL_COLL_BCAST, 2, 4096, 0, 0, &pr) == 3);
    free(pr);
    CHECK(kcal_model_rank(KCAL_MODEL_PAPER, &p, KCAL_COLL_BCAST, 1, 4096, 0, 0, &pr) == 3);
    CHECK(pr[0].rank == 1 && pr[1].rank == 1 && pr[2].rank == 1);
    free(pr);
    CHECK(kcal_model_rank(KCAL_MODEL_PAPER, &p, KCAL_COLL_BCAST, 0, 4096, 0, 0, &pr) == -1);
    kcal_params_free(&p);
}

/* The paper's conclusions (Sections IV-A4 and V-B4) hold with the KNL
 * defaults at p = 64. */
static void test_paper_conclusions(void)
{
    kcal_params knl;
    char err[KCAL_ERRLEN];
    CHECK(kcal_params_load_embedded("knl", &knl, err, sizeof err) == 0);
    kcal_prediction *pr;
    long n = kcal_model_rank(KCAL_MODEL_PAPER, &knl, KCAL_COLL_SCATTER, 64, 1 << 20, 0, 0, &pr);
    CHECK(n > 0);
    CHECK_STR(pr[0].alg->id, "throttled_read");
    CHECK(pr[0].k >= 4 && pr[0].k <= 8);
    double par = -1, seq = -1;
    for (long i = 0; i < n; i++) {
        if (!strcmp(pr[i].alg->id, "parallel_read"))
            par = pr[i].seconds;
        if (!strcmp(pr[i].alg->id, "sequential_write"))
            seq = pr[i].seconds;
    }
    CHECK(par > pr[0].seconds && seq > pr[0].seconds);
    free(pr);
    n = kcal_model_rank(KCAL_MODEL_PAPER, &knl, KCAL_COLL_BCAST, 64, 4 << 20, 0, 0, &pr);
    CHECK(n > 0);
    CHECK_STR(pr[0].alg->id, "scatter_allgather");
    free(pr);
    kcal_params_free(&knl);
}

int main(void)
{
    test_hand_values();
    test_helpers();
    test_ranking();
    test_paper_conclusions();
    return check_report();
}
