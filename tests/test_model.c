/* The paper model: formulas against values worked out by hand from model.md,
 * the ranking's rules, and the paper's own conclusions on the KNL defaults;
 * the shapes and the selection are in tests/model_shape_select.c
 * (tests/test_model.h). */
#include <stdlib.h>
#include <string.h>

#include "algos/reduce_types.h"
#include "tests/test_model.h"

/* The one count of test_model's two files (tests/check.h). */
int check_pass_count, check_fail_count;

/* α = 1 µs, β = 1 ns/B, l = 0.1 µs/page, s = 4096, γ(c) = 0.1c² + 1.5c,
 * every T_sm_X(p) = 2 µs + 1 µs·log2 p. */
kcal_params hand_params(void)
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
    CHECK(kcal_model_gamma(&p, 1) == 1);
    CHECK_NEAR(kcal_model_gamma(&p, 2), 3.4, rel);
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

/* The derived rows (model.md "Derived algorithms"), worked by hand on the
 * same params: in the paper model a *_flags row is its twin's with F_X for
 * T_sm_X, in the full model what its code does; a flag synchronisation
 * F_X costs T_sm_X, scaled by sm_flag / sync_step when the params have
 * both. */
static double full_t(const kcal_params *p, kcal_coll c, const char *id, int procs,
                     uint64_t n, int in_place, kcal_terms *terms)
{
    const kcal_algorithm *a = kcal_model_find_algorithm(c, id);
    CHECK(a != NULL);
    return a ? kcal_model_time(KCAL_MODEL_FULL, p, c, a, 0, procs, n, in_place, terms) : -1;
}

/* kcal_model_reduce_slice: the slices tile [0, count) in rank order,
 * the root's the larger by k = 1 + 1/((p − 1)·F), within the elements
 * that do not divide; F from the params, (β + ρ)/β. */
static void test_reduce_slices(void)
{
    static const uint64_t counts[] = {0, 1, 2, 7, 1000, 131072, 1048573};
    static const double Fs[] = {1, 1.15, 5.4};
    for (size_t fi = 0; fi < sizeof Fs / sizeof *Fs; fi++)
    for (int p = 1; p <= 9; p++)
        for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++)
            for (int root = 0; root < p; root++) {
                uint64_t count = counts[ci], at = 0, s0 = 0, s1 = 0;
                for (int r = 0; r < p; r++) {
                    uint64_t lo, hi;
                    kcal_model_reduce_slice(count, p, root, r, Fs[fi], &lo,
                                            &hi);
                    CHECK(lo == at && hi >= lo);
                    at = hi;
                    if (r == root)
                        s0 = hi - lo;
                    else
                        s1 = hi - lo;
                }
                CHECK(at == count);
                if (p > 1) { /* s₀ = k·s₁, the remainder's < p elements on s₀ */
                    double k = 1 + 1 / ((p - 1) * Fs[fi]);
                    CHECK(s0 >= s1);
                    CHECK((double)s0 >= k * (double)s1 - 1e-9);
                    CHECK((double)s0 <= k * (double)(s1 + 1) + p - 1);
                }
            }
    /* p = 2: the root folds 65 % of a vector at F = 1.15, 54 % at 5.4 */
    uint64_t lo, hi;
    kcal_model_reduce_slice(1000000, 2, 0, 0, 1.15, &lo, &hi);
    CHECK(lo == 0 && hi > 645000 && hi < 655000);
    kcal_model_reduce_slice(1000000, 2, 1, 1, 1.15, &lo, &hi);
    CHECK(hi == 1000000 && lo > 345000 && lo < 355000);
    kcal_model_reduce_slice(1000000, 2, 0, 0, 5.4, &lo, &hi);
    CHECK(lo == 0 && hi > 537000 && hi < 547000);
    kcal_model_reduce_slice(1000000, 2, 0, 0, 0.5, &lo, &hi); /* as 1 */
    CHECK(hi > 662000 && hi < 672000);
    /* F = (β + ρ)/β; ρ = β where the params lack it */
    kcal_params hp = hand_params();
    CHECK_NEAR(kcal_model_reduce_fold_per_write(&hp), 2, 1e-12);
    kcal_params_set(&hp, "reduce_beta", 0.15e-9);
    CHECK_NEAR(kcal_model_reduce_fold_per_write(&hp), 1.15, 1e-12);
    kcal_params_free(&hp);
}

static void test_derived_rows(void)
{
    kcal_params p = hand_params();
    const double rel = 1e-12;
    double sm3 = 2e-6 + 1e-6 * log2(3), sm6 = 2e-6 + 1e-6 * log2(6);
    /* Without sm_flag the paper rows equal their twins' (parallel_read p=4
     * n=10000: 21.28 µs; ring p=6 n=1000: 2·T_sm(6) + 11.5 µs; pairwise
     * p=3 n=0: T_sm(3) + 2·α). */
    CHECK_NEAR(t(&p, KCAL_COLL_SCATTER, "parallel_read_flags", 0, 4, 10000, 0), 21.28e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_GATHER, "parallel_write_flags", 0, 4, 10000, 0), 21.28e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_ALLGATHER, "ring_source_read_flags", 0, 6, 1000, 0), 2 * sm6 + 11.5e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_ALLTOALL, "pairwise_flags", 0, 3, 0, 0), sm3 + 2e-6, rel);
    /* ... in place pairwise's row has no copy: T_sm(3) + 2·2.1 µs */
    CHECK_NEAR(t(&p, KCAL_COLL_ALLTOALL, "pairwise_flags", 0, 3, 1000, 1), sm3 + 4.2e-6, rel);
    /* The full rows: parallel_read_flags P(3) = 0.1·5.4·3 = 1.62 µs:
     * 4 + 11 + 1.62 + 4; ring T_sm(6) + 5·2.1 + max(T_memcpy 1, T_sm(6));
     * pairwise p=3 n=0: T_sm(3) + 2·α + max(0, T_sm(3)); in place n=1000:
     * the aside copy 3 µs + T_sm(3) + 2·2.1 + T_sm(3). */
    CHECK_NEAR(full_t(&p, KCAL_COLL_SCATTER, "parallel_read_flags", 4, 10000, 0, NULL), 20.62e-6, rel);
    CHECK_NEAR(full_t(&p, KCAL_COLL_ALLGATHER, "ring_source_read_flags", 6, 1000, 0, NULL),
               2 * sm6 + 10.5e-6, rel);
    CHECK_NEAR(full_t(&p, KCAL_COLL_ALLTOALL, "pairwise_flags", 3, 0, 0, NULL), 2 * sm3 + 2e-6, rel);
    CHECK_NEAR(full_t(&p, KCAL_COLL_ALLTOALL, "pairwise_flags", 3, 1000, 1, NULL), 2 * sm3 + 7.2e-6, rel);
    /* direct_split, one row in both models. p=2 n=8192: halves of 4096
     * bytes; the root's write and the reader's read both 1 + 4.096 + 0.1
     * µs; T_sm_allgather(2) + T_sm_barrier(2) = 6 µs */
    CHECK_NEAR(t(&p, KCAL_COLL_BCAST, "direct_split", 0, 2, 8192, 0), 11.196e-6, rel);
    /* p=4 n=10000: c = 2500 (1 page), the root writes 3·(1 + 2.5 + 0.1) =
     * 10.8 µs, each reader reads 7500 bytes (2 pages) in 1 + 7.5 +
     * 0.1·5.4·2 = 9.58 µs: the root's 10.8 + 8 µs of sync */
    CHECK_NEAR(t(&p, KCAL_COLL_BCAST, "direct_split", 0, 4, 10000, 0), 18.8e-6, rel);
    CHECK_NEAR(full_t(&p, KCAL_COLL_BCAST, "direct_split", 4, 10000, 0, NULL), 18.8e-6, rel);
    /* p = 1: the local copy */
    CHECK_NEAR(t(&p, KCAL_COLL_BCAST, "direct_split", 0, 1, 1000, 0), 1e-6, rel);
    /* copy_in_out: m chunks of c = min(n, 16 KiB), no α, no l. p=2
     * n=40000: m = 3, (3 + 1)·16.384 µs of copies + T_sm_bcast(2) 3 µs,
     * both models; n=1000: 2·1 + 3 µs. p=4 n=40000, paper: the 3
     * readers' copies one after another, 16.384·(1 + 3·3) + T_sm_bcast(4)
     * 4 µs; full (no concurrent-copy factor in these params): 4·16.384 + 4.
     * p = 1: the local copy. */
    CHECK_NEAR(t(&p, KCAL_COLL_BCAST, "copy_in_out", 0, 2, 40000, 0), 68.536e-6, rel);
    CHECK_NEAR(full_t(&p, KCAL_COLL_BCAST, "copy_in_out", 2, 40000, 0, NULL), 68.536e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_BCAST, "copy_in_out", 0, 2, 1000, 0), 5e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_BCAST, "copy_in_out", 0, 4, 40000, 0), 167.84e-6, rel);
    CHECK_NEAR(full_t(&p, KCAL_COLL_BCAST, "copy_in_out", 4, 40000, 0, NULL), 69.536e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_BCAST, "copy_in_out", 0, 1, 1000, 0), 1e-6, rel);

    /* scatter and gather copy_in_out, one row in both models: the root's
     * (p − 1)·m chunk copies plus the longer of its own block and one
     * chunk (the other end of the pipeline), + F_bcast or F_gather.
     * p=2 n=40000: m = 3, 3·16.384 + 40 µs + 3 µs; in place the last
     * chunk, 16.384, instead of the own block. p=4 n=1000: 3·1 + 1 µs +
     * T_sm(4) 4 µs. gather p=3 n=20000: m = 2, 2·2·16.384 + 20 µs + sm3.
     * p = 1: the local copy. */
    CHECK_NEAR(t(&p, KCAL_COLL_SCATTER, "copy_in_out", 0, 2, 40000, 0), 92.152e-6, rel);
    CHECK_NEAR(full_t(&p, KCAL_COLL_SCATTER, "copy_in_out", 2, 40000, 0, NULL), 92.152e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_SCATTER, "copy_in_out", 0, 2, 40000, 1), 68.536e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_SCATTER, "copy_in_out", 0, 4, 1000, 0), 8e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_GATHER, "copy_in_out", 0, 4, 1000, 0), 8e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_GATHER, "copy_in_out", 0, 3, 20000, 0), 85.536e-6 + sm3, rel);
    CHECK_NEAR(full_t(&p, KCAL_COLL_GATHER, "copy_in_out", 3, 20000, 0, NULL), 85.536e-6 + sm3, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_GATHER, "copy_in_out", 0, 1, 1000, 0), 1e-6, rel);
    /* allgather copy_in_out: p·m chunk copies (m in, (p−1)·m out) + the
     * own block + F_allgather. p=2 n=40000: 2·3·16.384 + 40 + 3 µs; in
     * place 98.304 + 3; p=4 n=1000: 4·1 + 1 + T_sm(4) 4 µs. alltoall:
     * 2·(p−1)·m chunk copies + the own block, in place the p blocks aside
     * instead: p=2 n=40000 2·3·16.384 + 40 + 3 and 98.304 + 80 + 3 µs;
     * p=3 n=1000: 2·2·1 + 1 µs + sm3. */
    CHECK_NEAR(t(&p, KCAL_COLL_ALLGATHER, "copy_in_out", 0, 2, 40000, 0), 141.304e-6, rel);
    CHECK_NEAR(full_t(&p, KCAL_COLL_ALLGATHER, "copy_in_out", 2, 40000, 0, NULL), 141.304e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_ALLGATHER, "copy_in_out", 0, 2, 40000, 1), 101.304e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_ALLGATHER, "copy_in_out", 0, 4, 1000, 0), 9e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_ALLTOALL, "copy_in_out", 0, 2, 40000, 0), 141.304e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_ALLTOALL, "copy_in_out", 0, 2, 40000, 1), 181.304e-6, rel);
    CHECK_NEAR(full_t(&p, KCAL_COLL_ALLTOALL, "copy_in_out", 3, 1000, 0, NULL), 5e-6 + sm3, rel);

    /* The chunks of the *_split rows: √(n·16 KiB) in pages, >= 32 KiB;
     * halves where that makes fewer than 6 chunks (below 576 KiB). */
    CHECK(kcal_model_split_chunk(0) == 32768);
    CHECK(kcal_model_split_chunk(1) == 32768);
    CHECK(kcal_model_split_chunk(49152) == 32768);   /* 24 KiB halves: 32 */
    CHECK(kcal_model_split_chunk(65536) == 32768);   /* √2^30: 2 chunks */
    CHECK(kcal_model_split_chunk(131072) == 65536);  /* 46341: 2.8 chunks */
    CHECK(kcal_model_split_chunk(262144) == 131072);
    CHECK(kcal_model_split_chunk(524288) == 262144); /* 92682: 5.7 chunks */
    CHECK(kcal_model_split_chunk(589824) == 98304);  /* 98304: 6 chunks */
    CHECK(kcal_model_split_chunk(1048576) == 131072);
    CHECK(kcal_model_split_chunk(8388608) == 372736); /* 370728 -> 91 pages */
    CHECK(kcal_model_split_chunk(100001) == 53248);  /* 50001 -> 13 pages */
    /* parallel_read_split / parallel_write_split, one row in both models.
     * p=2 n=64 KiB: 2 chunks of 32 KiB (8 pages), each C = α 1 + 32.768 +
     * l·γ(2)·8 = 0.1·3.4·8 = 2.72 µs = 36.488 µs. The root's memcpy
     * (65.536 µs) outlasts the owner's first chunk, so the owner took both
     * when the root arrives: 2·36.488 + F_allgather(2) 3 + F_barrier(2) 3. */
    CHECK_NEAR(t(&p, KCAL_COLL_SCATTER, "parallel_read_split", 0, 2, 65536, 0), 78.976e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_GATHER, "parallel_write_split", 0, 2, 65536, 0), 78.976e-6, rel);
    CHECK_NEAR(full_t(&p, KCAL_COLL_SCATTER, "parallel_read_split", 2, 65536, 0, NULL), 78.976e-6, rel);
    /* In place the root has no copy: it takes the second chunk at once,
     * one chunk each: 36.488 + 6. */
    kcal_terms st;
    CHECK_NEAR(kcal_model_time(KCAL_MODEL_PAPER, &p, KCAL_COLL_GATHER,
                               kcal_model_find_algorithm(KCAL_COLL_GATHER, "parallel_write_split"),
                               0, 2, 65536, 1, &st), 42.488e-6, rel);
    CHECK_NEAR(st.startup, 1e-6, rel);
    CHECK_NEAR(st.lock, 2.72e-6, rel);
    /* p=3 in place: C = 1 + 32.768 + 0.1·γ(3)·8 = 4.32 -> 38.088 µs; the
     * root takes rank 1's second chunk (at 0), and rank 2 has taken both
     * of its own by the time the root gets there (38.088): rank 2's
     * 76.176 + 2·T_sm(3) (2 + lg 3 µs each). */
    CHECK_NEAR(kcal_model_time(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER,
                               kcal_model_find_algorithm(KCAL_COLL_SCATTER, "parallel_read_split"),
                               0, 3, 65536, 1, NULL), 76.176e-6 + 2 * sm3, rel);
    /* The root last: p=2 n=1 MiB in place would balance; with its 1048.576
     * µs memcpy (8 chunks of 128 KiB, C = 1 + 131.072 + 0.1·3.4·32 =
     * 10.88 -> 142.952 µs) the root arrives when the owner has started its
     * 8th chunk (k0 = ⌊1048.576/142.952⌋ + 1 = 8): the owner's 8 chunks. */
    CHECK_NEAR(t(&p, KCAL_COLL_SCATTER, "parallel_read_split", 0, 2, 1048576, 0),
               8 * 142.952e-6 + 6e-6, 1e-9);

    /* sm_flag alone changes nothing: F_X is T_sm_X scaled by sm_flag /
     * sync_step, and needs both. */
    kcal_params_set(&p, "sm_flag", 0.5e-6);
    CHECK_NEAR(t(&p, KCAL_COLL_SCATTER, "parallel_read_flags", 0, 4, 10000, 0), 21.28e-6, rel);
    /* sync_step 1 µs: F_X = T_sm_X / 2; p=4: 2 + 11 + 2.28 + 2 µs, below
     * parallel_read's 21.28 µs */
    kcal_params_set(&p, "sync_step", 1e-6);
    CHECK_NEAR(t(&p, KCAL_COLL_SCATTER, "parallel_read_flags", 0, 4, 10000, 0), 17.28e-6, rel);
    CHECK_NEAR(t(&p, KCAL_COLL_SCATTER, "parallel_read", 0, 4, 10000, 0), 21.28e-6, rel);
    /* direct_split p=4: 10.8 + F_allgather 2 + F_barrier 2 */
    CHECK_NEAR(t(&p, KCAL_COLL_BCAST, "direct_split", 0, 4, 10000, 0), 14.8e-6, rel);
    /* sm_flag 0.1 µs: F_X = T_sm_X / 10. Ring p=6 n=1000, paper: T_memcpy
     * 1 + F_allgather + 10.5 + F_barrier; full: F_allgather + 10.5 + the
     * copy, since F_barrier = T_sm(6)/10 < T_memcpy 1 µs */
    kcal_params_set(&p, "sm_flag", 0.1e-6);
    CHECK_NEAR(t(&p, KCAL_COLL_ALLGATHER, "ring_source_read_flags", 0, 6, 1000, 0),
               2 * sm6 / 10 + 11.5e-6, rel);
    kcal_terms tm;
    double s = full_t(&p, KCAL_COLL_ALLGATHER, "ring_source_read_flags", 6, 1000, 0, &tm);
    CHECK_NEAR(s, sm6 / 10 + 11.5e-6, rel);
    CHECK_NEAR(tm.copy, 6e-6, rel);      /* T_memcpy + 5·n·β */
    CHECK_NEAR(tm.sync, sm6 / 10, rel); /* F_allgather only */
    CHECK_NEAR(tm.startup + tm.copy + tm.lock + tm.sync, s, 1e-15);
    kcal_params_free(&p);
}

/* The MPI library's collective as a candidate: its measured line, where it
 * applies (below the measured crossover), how it ranks and that it is the
 * choice there. */
static void test_mpi_row(void)
{
    kcal_params p = hand_params();
    const double rel = 1e-12;
    /* No keys: no row. */
    CHECK(kcal_model_mpi_time(&p, KCAL_COLL_GATHER, 2, 1000) < 0);
    kcal_params_set(&p, "mpi_gather_a", 5e-6);
    kcal_params_set(&p, "mpi_gather_b", 2e-9);
    kcal_params_set(&p, "mpi_bcast_a", 5e-6);
    kcal_params_set(&p, "mpi_bcast_b", 2e-9);
    kcal_params_set(&p, "mpi_bcast_below", 65536);
    /* The line alone hands nothing off: without the crossover no row. */
    CHECK(kcal_model_mpi_time(&p, KCAL_COLL_GATHER, 2, 1000) < 0);
    kcal_params_set(&p, "mpi_gather_below", 4096);
    /* T = a + b·v, v = (p−1)·n, ⌈log₂ p⌉·n for bcast */
    CHECK_NEAR(kcal_model_mpi_time(&p, KCAL_COLL_GATHER, 2, 1000), 7e-6, rel);
    CHECK_NEAR(kcal_model_mpi_time(&p, KCAL_COLL_GATHER, 4, 1000), 11e-6, rel);
    CHECK_NEAR(kcal_model_mpi_time(&p, KCAL_COLL_BCAST, 5, 1000), 11e-6, rel);
    /* Only below the crossover, from p = 2, for a collective with keys. */
    CHECK_NEAR(kcal_model_mpi_time(&p, KCAL_COLL_GATHER, 2, 4095), 5e-6 + 2e-9 * 4095, rel);
    CHECK(kcal_model_mpi_time(&p, KCAL_COLL_GATHER, 2, 4096) < 0);
    CHECK(kcal_model_mpi_time(&p, KCAL_COLL_GATHER, 1, 1000) < 0);
    CHECK(kcal_model_mpi_time(&p, KCAL_COLL_SCATTER, 2, 1000) < 0);
    const kcal_algorithm *m = kcal_model_mpi(KCAL_COLL_GATHER);
    CHECK(m && !strcmp(m->id, "mpi") && kcal_model_is_mpi(m) && m->index < 0);
    CHECK(!kcal_model_is_mpi(kcal_model_find_algorithm(KCAL_COLL_GATHER, "parallel_write")));
    CHECK(kcal_model_find_algorithm(KCAL_COLL_GATHER, "mpi") == NULL);
    CHECK(kcal_model_time(KCAL_MODEL_PAPER, &p, KCAL_COLL_GATHER, m, 0, 2, 1000, 0, NULL) < 0);

    /* gather p=2: below the crossover mpi comes first, ranked 1, and is
     * the choice whatever the predictions say: at n=1000 the line (7 µs)
     * beats parallel_write (3 + 2 + 0.34 + 3 = 8.34 µs, tied with
     * parallel_write_flags without sm_flag, and first of the two) but not
     * copy_in_out (2 + 3 = 5 µs), at n=3000 neither (11 against 10.34 and
     * 9 µs), but the MPI library was measured faster there. The
     * algorithms keep their own ranks. */
    kcal_prediction *pr;
    long n = kcal_model_rank(KCAL_MODEL_PAPER, &p, KCAL_COLL_GATHER, 2, 1000, 0, 0, &pr);
    CHECK(n == 6); /* mpi, the five rows valid at p = 2 (no throttled_write) */
    CHECK(n > 3 && pr[0].alg == m && pr[0].rank == 1 && pr[1].rank == 1 && pr[2].rank == 2 &&
          pr[3].rank == 2);
    CHECK_NEAR(pr[0].seconds, 7e-6, rel);
    CHECK_STR(pr[1].alg->id, "copy_in_out");
    CHECK_STR(pr[2].alg->id, "parallel_write");
    CHECK_STR(pr[3].alg->id, "parallel_write_flags");
    CHECK_NEAR(pr[1].seconds, 5e-6, rel);
    CHECK_NEAR(pr[2].seconds, 8.34e-6, rel);
    CHECK_NEAR(pr[0].terms.startup + pr[0].terms.copy, 7e-6, rel);
    free(pr);
    kcal_choice ch;
    CHECK(kcal_model_select(KCAL_MODEL_PAPER, &p, KCAL_COLL_GATHER, 2, 1000, 0, NULL, &ch) == 0);
    CHECK(ch.alg == m && ch.k == 0);
    CHECK_NEAR(ch.seconds, 7e-6, rel);
    CHECK(kcal_model_select(KCAL_MODEL_PAPER, &p, KCAL_COLL_GATHER, 2, 3000, 0, NULL, &ch) == 0);
    CHECK(ch.alg == m);
    CHECK_NEAR(ch.seconds, 11e-6, rel);
    /* From the crossover on: no row, the model's algorithm. */
    n = kcal_model_rank(KCAL_MODEL_PAPER, &p, KCAL_COLL_GATHER, 2, 4096, 0, 0, &pr);
    CHECK(n == 5);
    free(pr);
    /* copy_in_out 2·4.096 + 3 = 11.192 µs, parallel_write 11.196 */
    CHECK(kcal_model_select(KCAL_MODEL_PAPER, &p, KCAL_COLL_GATHER, 2, 4096, 0, NULL, &ch) == 0);
    CHECK_STR(ch.alg->id, "copy_in_out");
    /* only_alg (a throttled id without k) never chooses it. */
    const kcal_algorithm *pw = kcal_model_find_algorithm(KCAL_COLL_GATHER, "parallel_write");
    CHECK(kcal_model_select(KCAL_MODEL_PAPER, &p, KCAL_COLL_GATHER, 2, 1000, 0, pw, &ch) == 0 &&
          ch.alg == pw);
    /* The full model has the same row. */
    CHECK(kcal_model_select(KCAL_MODEL_FULL, &p, KCAL_COLL_GATHER, 2, 1000, 0, NULL, &ch) == 0 &&
          ch.alg == m);
    /* mpi_gather_mask: above the crossover, the size classes of its bits
     * go to the MPI library too: bit 13 is 8192..16383. */
    kcal_params_set(&p, "mpi_gather_mask", 8192);
    CHECK(kcal_model_mpi_time(&p, KCAL_COLL_GATHER, 2, 4096) < 0);
    CHECK(kcal_model_mpi_time(&p, KCAL_COLL_GATHER, 2, 8191) < 0);
    CHECK_NEAR(kcal_model_mpi_time(&p, KCAL_COLL_GATHER, 2, 8192), 5e-6 + 2e-9 * 8192, rel);
    CHECK(kcal_model_mpi_time(&p, KCAL_COLL_GATHER, 2, 16383) > 0);
    CHECK(kcal_model_mpi_time(&p, KCAL_COLL_GATHER, 2, 16384) < 0);
    CHECK(kcal_model_select(KCAL_MODEL_FULL, &p, KCAL_COLL_GATHER, 2, 10000, 0, NULL, &ch) == 0 &&
          ch.alg == m);
    CHECK(kcal_model_select(KCAL_MODEL_FULL, &p, KCAL_COLL_GATHER, 2, 20000, 0, NULL, &ch) == 0 &&
          ch.alg != m);
    /* below still rules beneath it; a mask without below hands nothing */
    CHECK(kcal_model_mpi_time(&p, KCAL_COLL_GATHER, 2, 1000) > 0);
    kcal_params_set(&p, "mpi_scatter_a", 5e-6);
    kcal_params_set(&p, "mpi_scatter_b", 2e-9);
    kcal_params_set(&p, "mpi_scatter_mask", 8192);
    CHECK(kcal_model_mpi_time(&p, KCAL_COLL_SCATTER, 2, 8192) < 0);
    /* the classes */
    CHECK(kcal_model_size_class(0) == 0 && kcal_model_size_class(1) == 0);
    CHECK(kcal_model_size_class(2) == 1 && kcal_model_size_class(4095) == 11);
    CHECK(kcal_model_size_class(4096) == 12);
    CHECK(kcal_model_handed_off(4096, 0, 4095) && !kcal_model_handed_off(4096, 0, 4096));
    CHECK(kcal_model_handed_off(512, 2048 + 65536, 3000));
    CHECK(kcal_model_handed_off(512, 2048 + 65536, 100000));
    CHECK(!kcal_model_handed_off(512, 2048 + 65536, 5000));
    CHECK(!kcal_model_handed_off(0, 2048, 3000));
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
    /* scatter at p = 64: 2 plain algorithms + throttle factors 2..63 + the
     * derived parallel_read_flags */
    long n = kcal_model_rank(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, 64, 1 << 20, 0, 0, &pr);
    CHECK(n == 67); /* 5 rows + 62 throttle factors */
    for (long i = 1; i < n; i++) {
        CHECK(pr[i].seconds >= pr[i - 1].seconds);
        CHECK(pr[i].rank >= pr[i - 1].rank);
    }
    kcal_choice best;
    CHECK(kcal_model_select(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, 64, 1 << 20, 0, NULL, &best) == 0);
    CHECK(best.alg == pr[0].alg && best.k == pr[0].k && best.seconds == pr[0].seconds);
    free(pr);
    /* --k restricts the throttled family to one k */
    n = kcal_model_rank(KCAL_MODEL_PAPER, &p, KCAL_COLL_SCATTER, 64, 1 << 20, 0, 4, &pr);
    CHECK(n == 6);
    free(pr);
    /* the three ring algorithms tie in the paper model and share a rank */
    n = kcal_model_rank(KCAL_MODEL_PAPER, &p, KCAL_COLL_ALLGATHER, 8, 1 << 20, 0, 0, &pr);
    CHECK(n == 7);
    int ring_rank = -1, rings = 0;
    for (long i = 0; i < n; i++)
        if (!strncmp(pr[i].alg->id, "ring_", 5) &&
            strcmp(pr[i].alg->id, "ring_source_read_flags")) {
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
    CHECK(kcal_model_rank(KCAL_MODEL_PAPER, &p, KCAL_COLL_BCAST, 2, 4096, 0, 0, &pr) == 5);
    free(pr);
    CHECK(kcal_model_rank(KCAL_MODEL_PAPER, &p, KCAL_COLL_BCAST, 1, 4096, 0, 0, &pr) == 5);
    CHECK(pr[0].rank == 1 && pr[1].rank == 1 && pr[2].rank == 1 && pr[3].rank == 1 &&
          pr[4].rank == 1);
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

/* The registry (model/algorithms.def): every collective's algorithms, in
 * model.md order, as contiguous rows whose index is their position. A
 * change to this list is a change of what kcal predicts, runs and reports:
 * `make docs-tables` writes it into `want` below, and until then `make
 * test` fails (tests/doc_tables.sh), so the change shows in this file's
 * diff too. */
static void test_registry(void)
{
    /* The paper's algorithms, then the derived ones (model.md "Derived
     * algorithms"). */
    /* kcal doc-tables test-pins: model/algorithms.def's, by docs-tables */
    enum { WANT_ROWS = 36, WANT_MAX = 7 };
    static const char *const want[KCAL_COLL_COUNT][WANT_MAX] = {
        [KCAL_COLL_SCATTER] = {"parallel_read", "sequential_write",
                               "throttled_read", "parallel_read_flags",
                               "parallel_read_split", "copy_in_out"},
        [KCAL_COLL_GATHER] = {"parallel_write", "sequential_read",
                              "throttled_write", "parallel_write_flags",
                              "parallel_write_split", "copy_in_out"},
        [KCAL_COLL_BCAST] = {"direct_read", "direct_write", "knomial",
                             "scatter_allgather", "direct_split",
                             "copy_in_out"},
        [KCAL_COLL_ALLGATHER] = {"ring_neighbor", "ring_source_read",
                                 "ring_source_write", "recursive_doubling",
                                 "bruck", "ring_source_read_flags",
                                 "copy_in_out"},
        [KCAL_COLL_ALLTOALL] = {"pairwise", "pairwise_flags", "copy_in_out"},
        [KCAL_COLL_REDUCE] = {"root_read", "reduce_scatter_write",
                              "copy_in_out"},
        [KCAL_COLL_ALLREDUCE] = {"read_all", "reduce_scatter_allgather",
                                 "copy_in_out"},
        [KCAL_COLL_REDUCE_SCATTER_BLOCK] = {"reduce_scatter_read",
                                            "copy_in_out"},
    };
    /* end kcal doc-tables test-pins */
    size_t total = 0;
    int next_index = 0;
    for (int c = 0; c < KCAL_COLL_COUNT; c++) {
        size_t n, nwant = 0;
        while (nwant < WANT_MAX && want[c][nwant])
            nwant++;
        const kcal_algorithm *a = kcal_model_algorithms((kcal_coll)c, &n);
        CHECK(n == nwant);
        for (size_t i = 0; i < n && i < nwant; i++) {
            CHECK_STR(a[i].id, want[c][i]);
            CHECK(a[i].coll == (kcal_coll)c);
            CHECK(a[i].index == next_index++);
            CHECK(kcal_model_find_algorithm((kcal_coll)c, want[c][i]) == &a[i]);
            kcal_param_kind k = !strcmp(a[i].id, "ring_neighbor") ? KCAL_PARAM_STRIDE
                                : !strncmp(a[i].id, "throttled_", 10) ||
                                          !strcmp(a[i].id, "knomial")
                                    ? KCAL_PARAM_THROTTLE
                                    : KCAL_PARAM_NONE;
            CHECK(a[i].kind == k);
            /* The derived rows follow the paper's (their ties lose). */
            CHECK(i == 0 || a[i].origin >= a[i - 1].origin);
        }
        /* The paper's collectives open with its rows; the reductions,
         * which the paper has not, are all derived. */
        CHECK(n == 0 || a[0].origin == (kcal_coll_is_reduction((kcal_coll)c)
                                            ? KCAL_ORIGIN_DERIVED
                                            : KCAL_ORIGIN_PAPER));
        total += n;
    }
    /* Every row belongs to exactly one collective's slice. */
    CHECK(total == KCAL_ALG_COUNT && (int)KCAL_ALG_COUNT == (int)WANT_ROWS);
    CHECK(KCAL_ALG_BCAST_knomial ==
          kcal_model_find_algorithm(KCAL_COLL_BCAST, "knomial")->index);
    size_t n;
    CHECK(kcal_model_algorithms((kcal_coll)KCAL_COLL_COUNT, &n) == NULL && n == 0);
}

/* model/reduce_rates.def against algos/reduce_types.def: a rate for
 * every (op, class) MPI defines on the model's classes but MPI_SUM on
 * floating point (reduce_beta), and none it does not. Then the key each
 * call is priced at, and the params as the op sees them: its rate, and
 * only its rate, moves the prediction, by the (p − 1)·n bytes read_all
 * folds. */
static void test_reduce_rates(void)
{
    static const struct {
        const char *name;
        unsigned classes;
    } ops[] = {
#define KCOLL_ROP(name, handle, classes) {#name, classes},
#include "algos/reduce_types.def"
    }, cls[] = {
#define KCAL_REDUCE_CLASS(name, classes, handle, ctype, fill) {#name, classes},
#include "model/reduce_rates.def"
    };
    int want = 0;
    for (size_t o = 0; o < sizeof ops / sizeof *ops; o++)
        for (size_t c = 0; c < sizeof cls / sizeof *cls; c++) {
            kcal_pkey k = kcal_reduce_rate_key(ops[o].name, cls[c].classes);
            char name[64];
            snprintf(name, sizeof name, "reduce_%s_%s_beta", ops[o].name,
                     cls[c].name);
            if (!(ops[o].classes & cls[c].classes))
                CHECK(k == -1);
            else if (!strcmp(ops[o].name, "sum") &&
                     !strcmp(cls[c].name, "floating"))
                CHECK(k == KCAL_PK_reduce_beta);
            else {
                want++;
                CHECK(k >= 0 && kcal_key_name(k) &&
                      !strcmp(kcal_key_name(k), name));
                CHECK(kcal_key_lookup(name, NULL, NULL) == k);
            }
        }
    CHECK(want == KCAL_N_MEMBERS_REDOP);
    /* Fortran integers are priced as C's; what the model has no type
     * of, and a user's op, at no rate of their own. */
    CHECK(kcal_reduce_rate_key("max", KCOLL_RC_F_INT) ==
          kcal_reduce_rate_key("max", KCOLL_RC_C_INT));
    CHECK(kcal_reduce_rate_key("max", 0) == -1);
    CHECK(kcal_reduce_rate_key(NULL, KCOLL_RC_C_INT) == -1);
    CHECK(kcal_reduce_rate_key("user", KCOLL_RC_C_INT) == -1);

    kcal_params p = hand_params();
    kcal_params_set(&p, "reduce_beta", 0.5e-9);
    kcal_params_set(&p, "reduce_max_int_beta", 2e-9);
    const kcal_algorithm *a = kcal_model_find_algorithm(KCAL_COLL_ALLREDUCE,
                                                        "read_all");
    CHECK(a != NULL);
    uint64_t n = 1 << 20;
    for (int procs = 2; a && procs <= 5; procs++) {
        kcal_params v;
        double base = kcal_model_time(KCAL_MODEL_PAPER, &p,
                                      KCAL_COLL_ALLREDUCE, a, 0, procs, n, 0,
                                      NULL);
        kcal_params_reduce_view(&p, kcal_reduce_rate_key("max", KCOLL_RC_C_INT),
                                &v);
        double max = kcal_model_time(KCAL_MODEL_PAPER, &v, KCAL_COLL_ALLREDUCE,
                                     a, 0, procs, n, 0, NULL);
        CHECK_NEAR(max - base, (procs - 1) * (double)n * 1.5e-9, 1e-9);
        CHECK(kcal_params_get_key(&v, KCAL_PK_beta, 0) == 1e-9);
        /* A pair the params lack, and MPI_SUM on doubles: reduce_beta. */
        kcal_params_reduce_view(&p, kcal_reduce_rate_key("min", KCOLL_RC_C_INT),
                                &v);
        CHECK(kcal_model_time(KCAL_MODEL_PAPER, &v, KCAL_COLL_ALLREDUCE, a, 0,
                              procs, n, 0, NULL) == base);
        kcal_params_reduce_view(&p, KCAL_PK_reduce_beta, &v);
        CHECK(kcal_params_get_key(&v, KCAL_PK_reduce_beta, 0) == 0.5e-9);
        kcal_params_reduce_view(&p, -1, &v);
        CHECK(kcal_params_get_key(&v, KCAL_PK_reduce_beta, 0) == 0.5e-9);
    }
    /* reduce_scatter_write cuts at the op's F and charges the busier
     * side. */
    kcal_params_set(&p, "reduce_minloc_pair_beta", 50e-9);
    kcal_params_set(&p, "reduce_maxloc_pair_beta", 100e-9);
    a = kcal_model_find_algorithm(KCAL_COLL_REDUCE, "reduce_scatter_write");
    CHECK(a != NULL);
    for (int procs = 2; a && procs <= 5; procs++) {
        kcal_params v50, v100;
        kcal_params_reduce_view(&p, kcal_reduce_rate_key("minloc", KCOLL_RC_PAIR),
                                &v50);
        kcal_params_reduce_view(&p, kcal_reduce_rate_key("maxloc", KCOLL_RC_PAIR),
                                &v100);
        /* Each cut at its own F = (β + ρ)/β: the two sides balance in
         * their per-byte terms, so the times differ by the root's
         * (p − 1)·s₀·(β + ρ), to the start-up and lock terms (0.1 %). */
        uint64_t lo, hi, lo2, hi2;
        kcal_model_reduce_slice(n, procs, 0, 0,
                                kcal_model_reduce_fold_per_write(&v50), &lo,
                                &hi);
        kcal_model_reduce_slice(n, procs, 0, 0,
                                kcal_model_reduce_fold_per_write(&v100), &lo2,
                                &hi2);
        CHECK(hi2 < hi); /* the slower op, the more even the cut */
        double d = kcal_model_time(KCAL_MODEL_PAPER, &v100, KCAL_COLL_REDUCE,
                                   a, 0, procs, n, 0, NULL) -
                   kcal_model_time(KCAL_MODEL_PAPER, &v50, KCAL_COLL_REDUCE,
                                   a, 0, procs, n, 0, NULL);
        double want = (procs - 1) * ((double)hi2 * (1e-9 + 100e-9) -
                                     (double)hi * (1e-9 + 50e-9));
        CHECK_NEAR(d, want, 1e-3);
    }
    kcal_params_free(&p);
}

int main(void)
{
    test_hand_values();
    test_derived_rows();
    test_reduce_slices();
    test_reduce_rates();
    test_mpi_row();
    test_helpers();
    test_ranking();
    test_paper_conclusions();
    test_registry();
    test_shape();
    test_select();
    test_nonfinite();
    test_rank_into();
    return check_report();
}
