/* The full model (--model full, model.md "Beyond the paper"): its formulas
 * against values worked out by hand, the fall-back to the paper's terms
 * when its keys are absent, and the footprint that decides hot or cold. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "model/model.h"

/* α = 2 µs, β = 1 ns/B, l = 0.1 µs/page, s = 4096, γ(c) = 0.5c² + c (γ(2)
 * = 4), T_sm: bcast 1 µs, gather 2 µs, allgather 3 µs, barrier 4 µs (no
 * log2 p growth). With `full`: beta_hot = 0.25 ns/B, l3_cache = 1 MiB,
 * sync_step = 0.5 µs. */
static kcal_params hand_params(int full)
{
    kcal_params p;
    kcal_params_init(&p);
    kcal_params_set(&p, "alpha", 2e-6);
    kcal_params_set(&p, "beta", 1e-9);
    kcal_params_set(&p, "lock", 1e-7);
    kcal_params_set(&p, "page", 4096);
    kcal_params_set(&p, "gamma_a", 0.5);
    kcal_params_set(&p, "gamma_b", 1);
    kcal_params_set(&p, "sm_bcast_a", 1e-6);
    kcal_params_set(&p, "sm_gather_a", 2e-6);
    kcal_params_set(&p, "sm_allgather_a", 3e-6);
    kcal_params_set(&p, "sm_barrier_a", 4e-6);
    if (full) {
        kcal_params_set(&p, "beta_hot", 2.5e-10);
        kcal_params_set(&p, "l3_cache", 1048576);
        kcal_params_set(&p, "sync_step", 5e-7);
    }
    return p;
}

static double tm(kcal_model_kind m, const kcal_params *p, kcal_coll c,
                 const char *id, int k, int procs, uint64_t n, int in_place,
                 kcal_terms *terms)
{
    const kcal_algorithm *a = kcal_model_find_algorithm(c, id);
    CHECK(a != NULL);
    return a ? kcal_model_time(m, p, c, a, k, procs, n, in_place, terms) : -1;
}

static double full(const kcal_params *p, kcal_coll c, const char *id, int k,
                   int procs, uint64_t n)
{
    return tm(KCAL_MODEL_FULL, p, c, id, k, procs, n, 0, NULL);
}

static double paper(const kcal_params *p, kcal_coll c, const char *id, int k,
                    int procs, uint64_t n)
{
    return tm(KCAL_MODEL_PAPER, p, c, id, k, procs, n, 0, NULL);
}

static void test_names(void)
{
    kcal_model_kind m;
    CHECK(kcal_model_from_name("full", &m) == 0 && m == KCAL_MODEL_FULL);
    CHECK(kcal_model_from_name("paper", &m) == 0 && m == KCAL_MODEL_PAPER);
    CHECK(kcal_model_from_name("fancy", &m) == -1);
    CHECK_STR(kcal_model_name(KCAL_MODEL_FULL), "full");
    CHECK_STR(kcal_model_name(KCAL_MODEL_PAPER), "paper");
}

static void test_footprint(void)
{
    /* 2·p·n, p·n, p·(p+1)·n, bruck p·(2p+1)·n, 2·p²·n, p = 1: 2·n */
    CHECK(kcal_model_footprint(KCAL_COLL_SCATTER, "parallel_read", 4, 1000) == 8000);
    CHECK(kcal_model_footprint(KCAL_COLL_GATHER, "sequential_read", 2, 1000) == 4000);
    CHECK(kcal_model_footprint(KCAL_COLL_BCAST, "direct_read", 4, 1000) == 4000);
    CHECK(kcal_model_footprint(KCAL_COLL_ALLGATHER, "ring_neighbor", 3, 1000) == 12000);
    CHECK(kcal_model_footprint(KCAL_COLL_ALLGATHER, "bruck", 3, 1000) == 21000);
    CHECK(kcal_model_footprint(KCAL_COLL_ALLTOALL, "pairwise", 3, 1000) == 18000);
    CHECK(kcal_model_footprint(KCAL_COLL_ALLTOALL, "pairwise", 1, 1000) == 2000);
    /* bruck's scratch comes from its registry row, not from its name: no
     * id, an unknown id or another collective's id adds none. */
    CHECK(kcal_model_footprint(KCAL_COLL_ALLGATHER, NULL, 3, 1000) == 12000);
    CHECK(kcal_model_footprint(KCAL_COLL_ALLGATHER, "brook", 3, 1000) == 12000);
    CHECK(kcal_model_footprint(KCAL_COLL_ALLTOALL, "bruck", 3, 1000) == 18000);
    CHECK(kcal_model_footprint(KCAL_COLL_ALLGATHER, "bruck", 64, 1 << 20) ==
          64.0 * 129 * 1048576);
}

/* The busiest process's working set (algorithms.def's ws column):
 * sequential rows 2·p·n (the root copies every block), parallel and
 * throttled rows 2·n, bcast direct_write p·n, direct_read and knomial
 * 2·n, allgather 2·p·n (+ bruck's p·n), alltoall (3p − 1)·n, p = 1 2·n. */
static void test_working_set(void)
{
    CHECK(kcal_model_working_set(KCAL_COLL_SCATTER, "sequential_write", 4, 0, 1000) == 8000);
    CHECK(kcal_model_working_set(KCAL_COLL_GATHER, "sequential_read", 3, 0, 1000) == 6000);
    CHECK(kcal_model_working_set(KCAL_COLL_SCATTER, "parallel_read", 4, 0, 1000) == 2000);
    CHECK(kcal_model_working_set(KCAL_COLL_GATHER, "parallel_write_flags", 8, 0, 1000) == 2000);
    CHECK(kcal_model_working_set(KCAL_COLL_SCATTER, "throttled_read", 5, 2, 1000) == 2000);
    CHECK(kcal_model_working_set(KCAL_COLL_BCAST, "direct_write", 4, 0, 1000) == 4000);
    CHECK(kcal_model_working_set(KCAL_COLL_BCAST, "direct_read", 4, 0, 1000) == 2000);
    CHECK(kcal_model_working_set(KCAL_COLL_BCAST, "knomial", 8, 3, 1000) == 2000);
    /* The chunked bcasts: each process copies p − 1 of p chunks in and
     * out: 2·n·(p−1)/p; at p = 2 the one chunk read (written) and its
     * destination (source): n. */
    CHECK(kcal_model_working_set(KCAL_COLL_BCAST, "scatter_allgather", 4, 0, 1000) == 1500);
    CHECK(kcal_model_working_set(KCAL_COLL_BCAST, "direct_split", 2, 0, 1000) == 1000);
    CHECK(kcal_model_working_set(KCAL_COLL_ALLGATHER, "ring_neighbor", 3, 1, 1000) == 6000);
    CHECK(kcal_model_working_set(KCAL_COLL_ALLGATHER, "bruck", 3, 0, 1000) == 9000);
    CHECK(kcal_model_working_set(KCAL_COLL_ALLTOALL, "pairwise", 3, 0, 1000) == 8000);
    CHECK(kcal_model_working_set(KCAL_COLL_ALLTOALL, "pairwise", 1, 0, 1000) == 2000);
    /* Never more than the node's footprint at p = 2. */
    CHECK(kcal_model_working_set(KCAL_COLL_ALLTOALL, "pairwise", 2, 0, 1000) <=
          kcal_model_footprint(KCAL_COLL_ALLTOALL, "pairwise", 2, 1000));
}

/* Reads of lines another process wrote in the same call: dirty_beta per
 * byte on at most dirty_bytes of each such read, in the rows that make
 * them; nothing without both keys, and never in the paper model. */
static void test_dirty_reads(void)
{
    const double rel = 1e-12;
    kcal_params p = hand_params(1);
    double rn = full(&p, KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 3, 65536);
    double rs = full(&p, KCAL_COLL_ALLGATHER, "ring_source_read", 0, 3, 65536);
    double rd = full(&p, KCAL_COLL_ALLGATHER, "recursive_doubling", 0, 4, 65536);
    double br = full(&p, KCAL_COLL_ALLGATHER, "bruck", 0, 5, 65536);
    double kn = full(&p, KCAL_COLL_BCAST, "knomial", 2, 5, 65536);
    double pw = tm(KCAL_MODEL_FULL, &p, KCAL_COLL_ALLTOALL, "pairwise", 0, 3, 65536, 1, NULL);
    double pw_out = full(&p, KCAL_COLL_ALLTOALL, "pairwise", 0, 3, 65536);
    double paper_rn = paper(&p, KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 3, 65536);
    double cio_ag = full(&p, KCAL_COLL_ALLGATHER, "copy_in_out", 0, 3, 40000);
    double cio_a2a = full(&p, KCAL_COLL_ALLTOALL, "copy_in_out", 0, 3, 40000);
    double cio_bc = full(&p, KCAL_COLL_BCAST, "copy_in_out", 0, 3, 40000);
    double cio_sc = full(&p, KCAL_COLL_SCATTER, "copy_in_out", 0, 2, 1000);
    double cio_ga = full(&p, KCAL_COLL_GATHER, "copy_in_out", 0, 3, 40000);
    double paper_cio = paper(&p, KCAL_COLL_ALLGATHER, "copy_in_out", 0, 3, 40000);
    kcal_params_set(&p, "dirty_beta", 1e-10);
    /* One key alone changes nothing. */
    CHECK(full(&p, KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 3, 65536) == rn);
    kcal_params_set(&p, "dirty_bytes", 131072);
    /* ring_neighbor p=3: step 0 reads the neighbour's send buffer
     * (clean), step 1 the block it received: one read of 64K under the
     * 128K cap, 65536·0.1 ns = 6.5536 µs more; ring_source_read reads
     * clean sources: unchanged. */
    CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 3, 65536),
               rn + 6.5536e-6, rel);
    CHECK(full(&p, KCAL_COLL_ALLGATHER, "ring_source_read", 0, 3, 65536) == rs);
    /* recursive_doubling p=4: round 1 reads the partner's send buffer
     * (clean), round 2 two blocks it gathered, 128K (the cap):
     * 131072·0.1 ns = 13.1072 µs. */
    CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "recursive_doubling", 0, 4, 65536),
               rd + 13.1072e-6, rel);
    /* bruck p=5: rounds m = 1, 2, 4 read 1, 2, 1 blocks; the first from
     * the source's send buffer (clean), then 128K (cap 128K) + 64K =
     * 192K·0.1 ns = 19.6608 µs. */
    CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "bruck", 0, 5, 65536),
               br + 19.6608e-6, rel);
    /* knomial p=5 k=2: 3 levels, the 2 below the first read what the
     * parent just received: 2·6.5536 µs. */
    CHECK_NEAR(full(&p, KCAL_COLL_BCAST, "knomial", 2, 5, 65536),
               kn + 13.1072e-6, rel);
    /* pairwise reads the peers' send buffers (clean); in place the copy
     * set aside just before: 2 reads of 64K. */
    CHECK(full(&p, KCAL_COLL_ALLTOALL, "pairwise", 0, 3, 65536) == pw_out);
    CHECK_NEAR(tm(KCAL_MODEL_FULL, &p, KCAL_COLL_ALLTOALL, "pairwise", 0, 3, 65536, 1, NULL),
               pw + 13.1072e-6, rel);
    /* A read larger than the cap pays the cap: ring_neighbor p=3 n=1M,
     * its one dirty read: 131072·0.1 ns = 13.1072 µs more than without
     * the keys; at p=2 its one read is of a send buffer: no change. */
    kcal_params q = hand_params(1);
    double big = full(&q, KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 3, 1 << 20);
    CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 3, 1 << 20),
               big + 13.1072e-6, rel);
    CHECK(full(&p, KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 2, 1 << 20) ==
          full(&q, KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 2, 1 << 20));
    CHECK(paper(&p, KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 3, 65536) == paper_rn);
    /* copy_in_out, n = 40000: 3 chunks of 16384 bytes, 1.6384 µs dirty
     * each. allgather and alltoall p=3: 2·3 chunks copied out while their
     * owners write, 9.8304 µs; bcast: each reader's 3, 4.9152 µs; gather:
     * the sources are done writing, nothing; scatter p=2 n=1000: the
     * reader's one chunk, 0.1 µs, now longer than the root's own copy. */
    CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "copy_in_out", 0, 3, 40000), cio_ag + 9.8304e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_ALLTOALL, "copy_in_out", 0, 3, 40000), cio_a2a + 9.8304e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_BCAST, "copy_in_out", 0, 3, 40000), cio_bc + 4.9152e-6, rel);
    CHECK(full(&p, KCAL_COLL_GATHER, "copy_in_out", 0, 3, 40000) == cio_ga);
    CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "copy_in_out", 0, 2, 1000), cio_sc + 0.1e-6, rel);
    CHECK(paper(&p, KCAL_COLL_ALLGATHER, "copy_in_out", 0, 3, 40000) == paper_cio);
    kcal_params_free(&q);
    kcal_params_free(&p);
}

/* Chunks passed between cores (the probe's pass keys): each copy_in_out
 * row pays pass_a + pass_b·c + (m − 1)·pass_next per stream on its
 * critical path, instead of dirty_beta; gather too (the root copies out
 * what its sources just wrote), which without the keys pays nothing as
 * before; never the paper rows. */
static void test_chunk_pass(void)
{
    const double rel = 1e-12;
    kcal_params p = hand_params(1);
    double ag = full(&p, KCAL_COLL_ALLGATHER, "copy_in_out", 0, 3, 40000);
    double a2a = full(&p, KCAL_COLL_ALLTOALL, "copy_in_out", 0, 3, 40000);
    double bc = full(&p, KCAL_COLL_BCAST, "copy_in_out", 0, 3, 40000);
    double sc = full(&p, KCAL_COLL_SCATTER, "copy_in_out", 0, 2, 1000);
    double ga = full(&p, KCAL_COLL_GATHER, "copy_in_out", 0, 3, 40000);
    double paper_ga = paper(&p, KCAL_COLL_GATHER, "copy_in_out", 0, 3, 40000);
    double rn = full(&p, KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 3, 65536);
    kcal_params_set(&p, "pass_a", 0.5e-6);
    kcal_params_set(&p, "pass_b", 1e-10);
    kcal_params_set(&p, "pass_next", 1e-6);
    /* dirty_beta too: the copy_in_out rows charge the pass keys instead */
    kcal_params_set(&p, "dirty_beta", 1e-10);
    kcal_params_set(&p, "dirty_bytes", 131072);
    /* n = 40000: m = 3 chunks of c = 16384; one stream 0.5 + 1.6384 + 2·1
     * = 4.1384 µs. allgather and alltoall p = 3: 2 streams, 8.2768 µs;
     * bcast: 1; gather p = 3: the root's 2 streams; scatter p = 2,
     * n = 1000: the reader's one chunk, 0.5 + 0.1 µs. */
    CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "copy_in_out", 0, 3, 40000), ag + 8.2768e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_ALLTOALL, "copy_in_out", 0, 3, 40000), a2a + 8.2768e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_BCAST, "copy_in_out", 0, 3, 40000), bc + 4.1384e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_GATHER, "copy_in_out", 0, 3, 40000), ga + 8.2768e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "copy_in_out", 0, 2, 1000), sc + 0.6e-6, rel);
    CHECK(paper(&p, KCAL_COLL_GATHER, "copy_in_out", 0, 3, 40000) == paper_ga);
    /* The CMA rows keep dirty_beta: ring_neighbor p = 3, 1 read of 64K. */
    CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 3, 65536), rn + 6.5536e-6, rel);
    /* pass_mutual: the rows where every process copies out of the others'
     * areas while they copy out of its own pay it for each further chunk
     * instead of pass_next (3 µs for 1 µs: 2 more per further chunk, 2
     * further chunks, 2 streams at p = 3: 8 µs); the rows with one reader
     * at a time (bcast, scatter, gather, reduce) do not change. */
    double ar = full(&p, KCAL_COLL_ALLREDUCE, "copy_in_out", 0, 3, 40000);
    double rsb = full(&p, KCAL_COLL_REDUCE_SCATTER_BLOCK, "copy_in_out", 0, 3, 40000);
    double rd = full(&p, KCAL_COLL_REDUCE, "copy_in_out", 0, 3, 40000);
    kcal_params_set(&p, "pass_mutual", 3e-6);
    CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "copy_in_out", 0, 3, 40000), ag + 16.2768e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_ALLTOALL, "copy_in_out", 0, 3, 40000), a2a + 16.2768e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_ALLREDUCE, "copy_in_out", 0, 3, 40000), ar + 8e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_REDUCE_SCATTER_BLOCK, "copy_in_out", 0, 3, 40000), rsb + 8e-6, rel);
    CHECK(full(&p, KCAL_COLL_REDUCE, "copy_in_out", 0, 3, 40000) == rd);
    CHECK_NEAR(full(&p, KCAL_COLL_BCAST, "copy_in_out", 0, 3, 40000), bc + 4.1384e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_GATHER, "copy_in_out", 0, 3, 40000), ga + 8.2768e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "copy_in_out", 0, 2, 1000), sc + 0.6e-6, rel);
    /* A v-collective's pair whose own block is one chunk (a skewed
     * allgatherv): nothing passes back after the first chunk, so its 2
     * further chunks per stream pay pass_next: with pass_mutual at 3 µs
     * the pair costs 8 µs less than with own = n, beyond what the smaller
     * own block saves with pass_mutual = pass_next (its local copy). */
    {
        const kcal_algorithm *cio =
            kcal_model_find_algorithm(KCAL_COLL_ALLGATHER, "copy_in_out");
        double d[2];
        for (int i = 0; i < 2; i++) {
            kcal_params_set(&p, "pass_mutual", i ? 3e-6 : 1e-6);
            d[i] = kcal_model_pair_time(KCAL_MODEL_FULL, &p, KCAL_COLL_ALLGATHER,
                                        cio, 0, 3, 40000, 40000, NULL) -
                   kcal_model_pair_time(KCAL_MODEL_FULL, &p, KCAL_COLL_ALLGATHER,
                                        cio, 0, 3, 40000, 16384, NULL);
        }
        CHECK_NEAR(d[1] - d[0], 8e-6, 1e-9);
        CHECK_NEAR(kcal_model_pair_time(KCAL_MODEL_FULL, &p, KCAL_COLL_ALLGATHER,
                                        cio, 0, 3, 40000, 40000, NULL),
                   full(&p, KCAL_COLL_ALLGATHER, "copy_in_out", 0, 3, 40000), rel);
    }
    kcal_params_free(&p);
}

/* CMA calls whose targets make their own at the same moment (issue 8,
 * cma_mutual = μ): every call of the rows whose processes read or write
 * each other pays μ more, in the full model only; rows where only one
 * side makes calls, and copy_in_out (none), do not change. */
/* cma_context: once per collective that makes CMA calls, whatever their
 * number, in the full model only; copy_in_out (no call) and p = 1 (a local
 * copy) unchanged, and every other registered algorithm of every
 * collective up by exactly the key at p = 2 and 5 (each makes calls). */
static void test_cma_context(void)
{
    const double rel = 1e-12, ctx = 0.4e-6;
    const uint64_t sizes[] = {1024, 65536, 4 << 20};
    kcal_params p = hand_params(1);
    for (int c = 0; c < KCAL_COLL_COUNT; c++) {
        size_t na;
        const kcal_algorithm *a = kcal_model_algorithms((kcal_coll)c, &na);
        for (size_t i = 0; i < na; i++)
            for (int procs = 1; procs <= 5; procs += procs == 1 ? 1 : 3)
                for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                    int k = a[i].kind == KCAL_PARAM_THROTTLE ? 2
                            : a[i].kind == KCAL_PARAM_STRIDE  ? 1
                                                              : 0;
                    if (procs > 1 && !kcal_model_k_valid(&a[i], procs, k))
                        continue;
                    kcal_params_set(&p, "cma_context", 0);
                    double f0 = full(&p, (kcal_coll)c, a[i].id, k, procs, sizes[s]);
                    double p0 = paper(&p, (kcal_coll)c, a[i].id, k, procs, sizes[s]);
                    kcal_params_set(&p, "cma_context", ctx);
                    double f1 = full(&p, (kcal_coll)c, a[i].id, k, procs, sizes[s]);
                    double p1 = paper(&p, (kcal_coll)c, a[i].id, k, procs, sizes[s]);
                    int calls = procs > 1 && strcmp(a[i].id, "copy_in_out") != 0;
                    int fails = check_fail_count;
                    CHECK_NEAR(f1, f0 + (calls ? ctx : 0), rel);
                    CHECK(p1 == p0);
                    if (check_fail_count != fails)
                        fprintf(stderr, "  (%s %s, p = %d, n = %llu)\n",
                                kcal_coll_name((kcal_coll)c), a[i].id, procs,
                                (unsigned long long)sizes[s]);
                }
    }
    kcal_params_free(&p);
}

static void test_mutual_calls(void)
{
    const double rel = 1e-12, mu = 0.3e-6;
    const uint64_t n = 65536;
    kcal_params p = hand_params(1);
    struct {
        kcal_coll c;
        const char *id;
        int k, procs;
        double calls; /* μ per process on the critical path */
    } rows[] = {
        {KCAL_COLL_ALLGATHER, "ring_source_read", 0, 3, 2},
        {KCAL_COLL_ALLGATHER, "ring_source_write", 0, 3, 2},
        {KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 3, 2},
        {KCAL_COLL_ALLGATHER, "ring_source_read_flags", 0, 3, 2},
        {KCAL_COLL_ALLGATHER, "recursive_doubling", 0, 4, 2},
        {KCAL_COLL_ALLGATHER, "bruck", 0, 5, 3},
        {KCAL_COLL_ALLTOALL, "pairwise", 0, 3, 2},
        {KCAL_COLL_ALLTOALL, "pairwise_flags", 0, 3, 2},
        {KCAL_COLL_BCAST, "scatter_allgather", 0, 2, 1},
        {KCAL_COLL_BCAST, "scatter_allgather", 0, 3, 4},
        {KCAL_COLL_BCAST, "direct_split", 0, 2, 1},
        /* one side calls: nothing */
        {KCAL_COLL_SCATTER, "parallel_read", 0, 3, 0},
        {KCAL_COLL_SCATTER, "parallel_read_flags", 0, 3, 0},
        {KCAL_COLL_GATHER, "parallel_write_flags", 0, 3, 0},
        {KCAL_COLL_SCATTER, "sequential_write", 0, 3, 0},
        {KCAL_COLL_BCAST, "direct_read", 0, 3, 0},
        {KCAL_COLL_BCAST, "knomial", 2, 5, 0},
        {KCAL_COLL_ALLGATHER, "copy_in_out", 0, 3, 0},
        {KCAL_COLL_ALLTOALL, "copy_in_out", 0, 3, 0},
    };
    enum { NR = sizeof rows / sizeof rows[0] };
    double before[NR], paper_before[NR];
    for (int i = 0; i < NR; i++) {
        before[i] = full(&p, rows[i].c, rows[i].id, rows[i].k, rows[i].procs, n);
        paper_before[i] = paper(&p, rows[i].c, rows[i].id, rows[i].k, rows[i].procs, n);
    }
    double split = full(&p, KCAL_COLL_SCATTER, "parallel_read_split", 0, 2, n);
    double split_in = tm(KCAL_MODEL_FULL, &p, KCAL_COLL_SCATTER,
                         "parallel_read_split", 0, 2, n, 1, NULL);
    kcal_params_set(&p, "cma_mutual", mu);
    for (int i = 0; i < NR; i++) {
        double t = full(&p, rows[i].c, rows[i].id, rows[i].k, rows[i].procs, n);
        int fails = check_fail_count;
        CHECK_NEAR(t, before[i] + rows[i].calls * mu, rel);
        if (check_fail_count != fails)
            fprintf(stderr, "  (%s, p = %d)\n", rows[i].id, rows[i].procs);
        CHECK(paper(&p, rows[i].c, rows[i].id, rows[i].k, rows[i].procs, n) ==
              paper_before[i]);
    }
    /* parallel_read_split at 64 KiB, two halves of 32 KiB: the owner
     * takes both while the root copies its own block (no call of the root
     * meets the owner's: unchanged); in place the root has no own copy and
     * takes one half at once, its call and the owner's at the same
     * moment: one μ. */
    CHECK(full(&p, KCAL_COLL_SCATTER, "parallel_read_split", 0, 2, n) == split);
    CHECK_NEAR(tm(KCAL_MODEL_FULL, &p, KCAL_COLL_SCATTER, "parallel_read_split",
                  0, 2, n, 1, NULL),
               split_in + mu, rel);
    kcal_params_free(&p);
}

/* The default model: paper for params without the probe's copy
 * measurements (the paper's machine files, a hand-made file), full once a
 * file holds them. */
static void test_default_model(void)
{
    kcal_params p = hand_params(1);
    CHECK(kcal_model_default(&p) == KCAL_MODEL_PAPER);
    kcal_params_set(&p, "beta_ws_64k", 1e-10);
    CHECK(kcal_model_default(&p) == KCAL_MODEL_FULL);
    kcal_params_free(&p);
    kcal_params q = hand_params(0);
    kcal_params_set(&q, "conc_cold", 0.1);
    CHECK(kcal_model_default(&q) == KCAL_MODEL_FULL);
    kcal_params_free(&q);
}

/* Synchronisations at their latency: T_sm_X, or ⌈lg p⌉ messages of
 * sync_step when that is more; the paper model keeps T_sm_X. */
static void test_sync_latency(void)
{
    const double rel = 1e-12;
    kcal_params p = hand_params(1);
    kcal_params_set(&p, "sync_step", 2.5e-6);
    /* direct_write p=2 n=64K, hot (64K·2 < 1 MiB): T_sm_gather 2 → 2.5,
     * T_sm_bcast 1 → 2.5: 2.5 + (2 + 16.384 + 1.6) + 2.5 = 24.984 µs. */
    kcal_terms t;
    CHECK_NEAR(tm(KCAL_MODEL_FULL, &p, KCAL_COLL_BCAST, "direct_write", 0, 2, 65536, 0, &t),
               24.984e-6, rel);
    CHECK_NEAR(t.sync, 5e-6, rel);
    /* T_sm_allgather 3 and T_sm_barrier 4 stay above one message. */
    CHECK_NEAR(tm(KCAL_MODEL_FULL, &p, KCAL_COLL_ALLGATHER, "ring_source_read", 0, 2, 65536, 0, &t),
               16.384e-6 + 3e-6 + 2e-6 + 16.384e-6 + 1.6e-6 + 4e-6, rel);
    /* p = 4: two messages, 5 µs, above every T_sm. */
    CHECK_NEAR(tm(KCAL_MODEL_FULL, &p, KCAL_COLL_ALLGATHER, "ring_source_read", 0, 4, 1024, 0, &t),
               1024 * 2.5e-10 + 5e-6 + 3 * (2e-6 + 1024 * 2.5e-10 + 1e-7) + 5e-6, rel);
    /* The paper model: T_sm as measured. */
    CHECK_NEAR(tm(KCAL_MODEL_PAPER, &p, KCAL_COLL_BCAST, "direct_write", 0, 2, 65536, 0, &t),
               2e-6 + 2 * (2e-6 + 65.536e-6 + 1.6e-6) + 1e-6, rel);
    kcal_params_free(&p);
}

static void test_hand_values(void)
{
    kcal_params p = hand_params(1);
    const double rel = 1e-12;
    CHECK(kcal_model_full_missing(&p) == 0);
    /* scatter sequential_write p=2 n=64K: footprint 256K fits 1 MiB → β_hot;
     * pages 16. T_memcpy 16.384 + T_sm_gather 2 + (p−1)·(α 2 + 16.384 +
     * l·16 = 1.6) + T_sm_bcast 1 = 39.368 µs. */
    CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 65536), 39.368e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_GATHER, "sequential_read", 0, 2, 65536), 39.368e-6, rel);
    /* The paper's row on the same params: cold β, p = 2 transfers:
     * 65.536 + 2 + 2·(2 + 65.536 + 1.6) + 1 = 206.808 µs. */
    CHECK_NEAR(paper(&p, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 65536), 206.808e-6, rel);
    /* n = 1 MiB: footprint 4 MiB > l3 → cold β; pages 256:
     * 1048.576 + 2 + (2 + 1048.576 + 25.6) + 1 = 2127.752 µs. */
    CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 1048576), 2127.752e-6, rel);
    /* n = 256K: footprint 1 MiB, the whole cache: not below it → cold:
     * 262.144 + 2 + (2 + 262.144 + 6.4) + 1 = 535.688 µs. */
    CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 262144), 535.688e-6, rel);
    /* bcast scatter_allgather p=2 n=64K: chunk 32K (8 pages), hot; the
     * root's write and the other's read overlap: W = 2 + 8.192 + 0.8;
     * + T_sm_allgather 3 + 2 sync steps (the root's token, the other's
     * done) 1 = 14.992 µs. */
    kcal_terms tr;
    CHECK_NEAR(tm(KCAL_MODEL_FULL, &p, KCAL_COLL_BCAST, "scatter_allgather", 0, 2, 65536, 0, &tr),
               14.992e-6, rel);
    CHECK_NEAR(tr.startup, 2e-6, rel);
    CHECK_NEAR(tr.copy, 8.192e-6, rel);
    CHECK_NEAR(tr.lock, 0.8e-6, rel);
    CHECK_NEAR(tr.sync, 4e-6, rel);
    /* p=4: chunk 16K (4 pages), W = 2 + 4.096 + 0.4 = 6.496, 2·3 transfers
     * = 38.976 + 3 + 4·0.5 (3 ring tokens, the done) = 43.976 µs. */
    CHECK_NEAR(full(&p, KCAL_COLL_BCAST, "scatter_allgather", 0, 4, 65536), 43.976e-6, rel);
    /* allgather p=3 n=64K: footprint 3·4·64K = 768K, hot. ring:
     * 16.384 + 3 + 2·(2 + 16.384 + 1.6) + 4 = 63.352; ring_neighbor adds
     * 2 steps · 0.5; the source variants do not synchronise per step. */
    CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 3, 65536), 64.352e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "ring_source_read", 0, 3, 65536), 63.352e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "ring_source_write", 0, 3, 65536), 63.352e-6, rel);
    /* bruck p=2 n=64K: footprint 2·5·64K = 640K, hot; as allgather.c runs
     * it (issue 9): own block 16.384 + 3 + 1·2 + 1·(16.384 + 1.6) +
     * rotation 2·16.384 + 4 = 76.136 µs; its one round reads the source's
     * send buffer, ready from the start: no token. */
    CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "bruck", 0, 2, 65536), 76.136e-6, rel);
    /* recursive_doubling p=2 n=64K: footprint 2·3·64K = 384K, hot:
     * 16.384 + 3 + 2 + (16.384 + 1.6) + 4 = 43.368 µs, no token. Their
     * synchronisations against ring_source_read's (the same allgather
     * and barrier, no tokens): a token for every round but the first,
     * none at p = 2 (⌈lg p⌉ = 1 round), one at p = 3 and 4 (2 rounds),
     * two at p = 5 (3 rounds). */
    const int ps[] = {2, 3, 4, 5};
    const double tokens[] = {0, 1, 1, 2};
    for (int i = 0; i < 4; i++) {
        kcal_terms t_rs, t_rd, t_br;
        tm(KCAL_MODEL_FULL, &p, KCAL_COLL_ALLGATHER, "ring_source_read", 0, ps[i], 4096, 0, &t_rs);
        tm(KCAL_MODEL_FULL, &p, KCAL_COLL_ALLGATHER, "recursive_doubling", 0, ps[i], 4096, 0, &t_rd);
        tm(KCAL_MODEL_FULL, &p, KCAL_COLL_ALLGATHER, "bruck", 0, ps[i], 4096, 0, &t_br);
        CHECK_NEAR(t_rd.sync - t_rs.sync, tokens[i] * 0.5e-6, 1e-9);
        CHECK_NEAR(t_br.sync - t_rs.sync, tokens[i] * 0.5e-6, 1e-9);
    }
    CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "recursive_doubling", 0, 2, 65536), 43.368e-6, rel);
    /* throttled_read p=5 k=2 n=4K: hot; ⌈(p−1)/k⌉ = 2 rounds; T_sm_bcast
     * at its latency, ⌈lg 5⌉ = 3 messages of sync_step 0.5 = 1.5 > 1:
     * 1.5 + 2·(2 + 1.024 + 0.1·4·1) + 2·0.5 = 9.348 µs (paper: ⌈5/2⌉ = 3
     * cold rounds, T_sm_bcast as measured, 1 + 3·(2 + 4.096 + 0.4) =
     * 20.488 µs). */
    CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "throttled_read", 2, 5, 4096), 9.348e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_GATHER, "throttled_write", 2, 5, 4096), 9.348e-6, rel);
    CHECK_NEAR(paper(&p, KCAL_COLL_SCATTER, "throttled_read", 2, 5, 4096), 20.488e-6, rel);
    /* knomial p=5 k=2 n=4K: 3 levels: 1.5 + 3·3.424 + 3·0.5 = 13.272 µs. */
    CHECK_NEAR(full(&p, KCAL_COLL_BCAST, "knomial", 2, 5, 4096), 13.272e-6, rel);
    /* direct_write p=3 n=64K, hot: 2 + 2·(2 + 16.384 + 1.6) + 1 = 42.968. */
    CHECK_NEAR(full(&p, KCAL_COLL_BCAST, "direct_write", 0, 3, 65536), 42.968e-6, rel);
    /* parallel_read: p − 1 = 1 reader, γ(1) = 1, at β_hot:
     * p=2 n=64K: 1 + (2 + 16.384) + 0.1·1·16 + 2 = 22.984; at p = 3 two
     * readers contend, γ(2) = 4: 1 + 18.384 + 0.1·4·16 + 2 = 27.784.
     * pairwise: the paper's row plus its own block's local copy (issue 9)
     * and its closing T_sm_barrier (4): p=2: 16.384 + 3 + (2 + 16.384 +
     * 1.6) + 4 = 43.368, ring_source_read's time (the same code at p = 2). */
    CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "parallel_read", 0, 2, 65536), 22.984e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_BCAST, "direct_read", 0, 2, 65536), 22.984e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_GATHER, "parallel_write", 0, 3, 65536), 27.784e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_ALLTOALL, "pairwise", 0, 2, 65536), 43.368e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "ring_source_read", 0, 2, 65536), 43.368e-6, rel);
    /* p = 1: the local copy, hot. */
    CHECK_NEAR(full(&p, KCAL_COLL_BCAST, "direct_read", 0, 1, 4096), 1.024e-6, rel);
    /* in place drops T_memcpy as in the paper. */
    CHECK_NEAR(tm(KCAL_MODEL_FULL, &p, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 65536, 1, NULL),
               (39.368 - 16.384) * 1e-6, rel);
    kcal_params_free(&p);
}

/* Without beta_hot, l3_cache and sync_step, the full model is the paper's
 * except for its structural changes: p − 1 transfers in the sequential
 * rows and direct_write, p − 1 contending copies in the parallel rows,
 * ⌈(p−1)/k⌉ throttled rounds, and bcast scatter_allgather's own formula.
 * Everything else is the paper's, to the bit. */
static void test_fallback(void)
{
    kcal_params p = hand_params(0);
    CHECK(kcal_model_full_missing(&p) ==
          (KCAL_FULL_NO_BETA_HOT | KCAL_FULL_NO_L3 | KCAL_FULL_NO_SYNC_STEP));
    static const struct {
        kcal_coll c;
        const char *id;
        int k;
    } same[] = {
        {KCAL_COLL_BCAST, "knomial", 2},
        {KCAL_COLL_ALLGATHER, "ring_neighbor", 1},
        {KCAL_COLL_ALLGATHER, "ring_source_read", 0},
        {KCAL_COLL_ALLGATHER, "recursive_doubling", 0},
    };
    static const int ps[] = {1, 3, 8, 64};
    static const uint64_t ns[] = {1, 4096, 65537, 8 << 20};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        for (size_t a = 0; a < 4; a++)
            for (size_t b = 0; b < 4; b++)
                CHECK(full(&p, same[i].c, same[i].id, same[i].k, ps[a], ns[b]) ==
                      paper(&p, same[i].c, same[i].id, same[i].k, ps[a], ns[b]));
    /* issue 9, following algos/: bruck copies 2·p·n bytes (the own block
     * into its temporary, p − 1 blocks read, the p·n-byte rotation) where
     * the paper charges 2·(p − 1)·n, so 2·n·β more; pairwise adds the local
     * copy of its own block, n·β, and its closing T_sm_barrier (4 µs). At
     * p = 1 both are the local copy. */
    for (size_t a = 0; a < 4; a++)
        for (size_t b = 0; b < 4; b++) {
            double nb = (double)ns[b] * p.beta;
            double extra = ps[a] == 1 ? 0 : 1;
            CHECK_NEAR(full(&p, KCAL_COLL_ALLGATHER, "bruck", 0, ps[a], ns[b]),
                       paper(&p, KCAL_COLL_ALLGATHER, "bruck", 0, ps[a], ns[b]) +
                           extra * 2 * nb, 1e-12);
            CHECK_NEAR(full(&p, KCAL_COLL_ALLTOALL, "pairwise", 0, ps[a], ns[b]),
                       paper(&p, KCAL_COLL_ALLTOALL, "pairwise", 0, ps[a], ns[b]) +
                           extra * (nb + 4e-6), 1e-12);
        }
    /* sequential: one transfer X(n) + l·pages(n) fewer than the paper. */
    for (size_t a = 1; a < 4; a++)
        for (size_t b = 0; b < 4; b++) {
            uint64_t n = ns[b];
            double one = p.alpha + (double)n * p.beta +
                         p.lock * (double)kcal_pages(n, p.page);
            CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "sequential_write", 0, ps[a], n),
                       paper(&p, KCAL_COLL_SCATTER, "sequential_write", 0, ps[a], n) - one,
                       1e-12);
            CHECK_NEAR(full(&p, KCAL_COLL_BCAST, "direct_write", 0, ps[a], n),
                       paper(&p, KCAL_COLL_BCAST, "direct_write", 0, ps[a], n) - one,
                       1e-12);
        }
    /* parallel: l·pages(n)·(γ(p) − γ(p−1)) less than the paper. */
    for (size_t a = 1; a < 4; a++)
        for (size_t b = 0; b < 4; b++) {
            double d = p.lock * (double)kcal_pages(ns[b], p.page) *
                       (kcal_model_gamma(&p, ps[a]) - kcal_model_gamma(&p, ps[a] - 1));
            CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "parallel_read", 0, ps[a], ns[b]),
                       paper(&p, KCAL_COLL_SCATTER, "parallel_read", 0, ps[a], ns[b]) - d,
                       1e-12);
            CHECK_NEAR(full(&p, KCAL_COLL_BCAST, "direct_read", 0, ps[a], ns[b]),
                       paper(&p, KCAL_COLL_BCAST, "direct_read", 0, ps[a], ns[b]) - d,
                       1e-12);
        }
    CHECK(full(&p, KCAL_COLL_GATHER, "parallel_write", 0, 1, 4096) ==
          paper(&p, KCAL_COLL_GATHER, "parallel_write", 0, 1, 4096));
    /* beta_hot without l3_cache: the fit cannot be decided, so cold β. */
    kcal_params_set(&p, "beta_hot", 1e-12);
    CHECK(kcal_model_full_missing(&p) == (KCAL_FULL_NO_L3 | KCAL_FULL_NO_SYNC_STEP));
    CHECK_NEAR(full(&p, KCAL_COLL_ALLTOALL, "pairwise", 0, 2, 4096),
               paper(&p, KCAL_COLL_ALLTOALL, "pairwise", 0, 2, 4096) +
                   4096 * p.beta + 4e-6, 1e-12);
    kcal_params_free(&p);
}

/* issue 9: β(working set), concurrent copies and the write keys, worked
 * by hand. beta_ws_64k = 0.1 ns/B and beta_ws_1m = 0.4 ns/B: a footprint of
 * 256K lies half way in log between them, β = √(0.1·0.4) = 0.2 ns/B; 512K
 * lies 3/4 of the way, β = 0.1·4^0.75 = 0.2828 ns/B. conc_hot = conc_cold =
 * 0.5: two copies at once cost δ(2) = 1.5 per byte. */
static void test_measured_copies(void)
{
    const double rel = 1e-9;
    kcal_params p = hand_params(1);
    kcal_params_set(&p, "beta_ws_64k", 1e-10);
    kcal_params_set(&p, "beta_ws_1m", 4e-10);
    /* Without conc keys: scatter parallel_read p=2 n=64K: each process
     * copies one 64K block out of (into) one other place, working set 128K
     * (the node's footprint is 256K), a quarter of the way in log from 64K
     * to 1M: β = 0.1·4^0.25 ns/B; copy 65536·0.141421e-9 = 9.268190 µs:
     * 1 + (2 + 9.268190) + 0.1·16 + 2 = 15.868190 µs. */
    const double b128 = 1e-10 * pow(4, 0.25);
    CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "parallel_read", 0, 2, 65536),
               6.6e-6 + 65536 * b128, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "parallel_read", 0, 2, 65536), 15.868190e-6, 1e-6);
    /* Beyond the curve's ends: its end values (n = 1K p=2: 4K → 0.1 ns/B;
     * sequential_write = 0.1024 + 2 + (2 + 0.1024 + 0.1) + 1). */
    CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 1024), 5.3048e-6, rel);
    kcal_params_set(&p, "conc_hot", 0.5);
    kcal_params_set(&p, "conc_cold", 0.5);
    /* parallel_read runs p = 2 copies at once (the root's local one and
     * the other's read): copy 9.268190·1.5 = 13.902285 → 20.502285 µs. */
    kcal_terms t;
    CHECK_NEAR(tm(KCAL_MODEL_FULL, &p, KCAL_COLL_SCATTER, "parallel_read", 0, 2, 65536, 0, &t),
               6.6e-6 + 1.5 * 65536 * b128, rel);
    CHECK_NEAR(t.copy, 1.5 * 65536 * b128, rel);
    /* sequential_write copies one at a time, the root every block: working
     * set 2·p·n = 256K, half way: β = 0.2 ns/B: 13.1072 + 2 + (2 +
     * 13.1072 + 1.6) + 1 = 32.8144 µs. */
    CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 65536), 32.8144e-6, rel);
    /* pairwise p=2 n=64K: working set (3p − 1)·n = 320K (send, receive
     * and the block read), log₁₆ 5 of the way: β = 0.1·4^(log 5 / log 16)
     * = √5·0.1 ns/B; both ranks copy: ·1.5; 2 copies of 64K, + 3 + 2 +
     * 1.6 + the closing 4 = 10.6 µs. */
    double b320 = 1e-10 * sqrt(5.0);
    CHECK_NEAR(full(&p, KCAL_COLL_ALLTOALL, "pairwise", 0, 2, 65536),
               2 * 65536 * b320 * 1.5 + 10.6e-6, rel);
    /* A cold end that differs: conc_cold = 1.5 and the 64K..1M curve;
     * the 320K call is log(√5)/log 4 of the way to the cold end: k = 0.5
     * + that·1, δ(2) = 1 + k. */
    kcal_params_set(&p, "conc_cold", 1.5);
    CHECK_NEAR(full(&p, KCAL_COLL_ALLTOALL, "pairwise", 0, 2, 65536),
               2 * 65536 * b320 * (1.5 + log(sqrt(5.0)) / log(4.0)) + 10.6e-6,
               rel);
    kcal_params_set(&p, "conc_cold", 0.5);
    /* Writes: lock_write 0.2 µs/page, alpha_write 3 µs, beta_write twice
     * β: sequential_write (a *_write row) pays them, and its writes' n·β
     * at twice the curve; the root's own block is a memcpy, not a write,
     * at the curve: 13.1072 + 2 + (3 + 26.2144 + 3.2) + 1 = 48.5216 µs;
     * sequential_read keeps the reads' keys (32.8144 µs). */
    kcal_params_set(&p, "lock_write", 2e-7);
    kcal_params_set(&p, "alpha_write", 3e-6);
    kcal_params_set(&p, "beta_write", 2e-9);
    CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 65536), 48.5216e-6, rel);
    CHECK_NEAR(full(&p, KCAL_COLL_GATHER, "sequential_read", 0, 2, 65536), 32.8144e-6, rel);
    /* The paper model ignores all of it. */
    kcal_params q = hand_params(1);
    CHECK(paper(&p, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 65536) ==
          paper(&q, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 65536));
    /* The knee instead of l3_cache when there is no curve: 256K footprint
     * against a 128K knee is cold (β), against 1 MiB hwloc it was hot. */
    kcal_params_set(&q, "cache_knee", 131072);
    CHECK_NEAR(full(&q, KCAL_COLL_SCATTER, "parallel_read", 0, 2, 65536),
               1e-6 + 2e-6 + 65536e-9 + 1.6e-6 + 2e-6, rel);
    kcal_full_copy fc;
    kcal_model_full_copy(&q, KCAL_COLL_SCATTER,
                         kcal_model_find_algorithm(KCAL_COLL_SCATTER, "parallel_read"),
                         2, 0, 65536, &fc);
    CHECK(fc.beta_source == KCAL_BETA_FROM_KNEE && fc.footprint == 262144);
    CHECK(fc.working_set == 0);
    /* With the curve: looked up at the working set, 128K, while the node's
     * 256K stay below the knee; at a knee of 256K or less the node's
     * buffers no longer share the cache: the footprint, 256K (β 0.2). */
    kcal_model_full_copy(&p, KCAL_COLL_SCATTER,
                         kcal_model_find_algorithm(KCAL_COLL_SCATTER, "parallel_read"),
                         2, 0, 65536, &fc);
    CHECK(fc.beta_source == KCAL_BETA_FROM_WS && fc.working_set == 131072);
    kcal_params_set(&p, "cache_knee", 262144);
    kcal_model_full_copy(&p, KCAL_COLL_SCATTER,
                         kcal_model_find_algorithm(KCAL_COLL_SCATTER, "parallel_read"),
                         2, 0, 65536, &fc);
    CHECK(fc.working_set == 262144);
    CHECK_NEAR(fc.beta, 2e-10 * 1.5, rel);
    kcal_params_free(&q);
    kcal_params_free(&p);
}

/* issue 8: the memcpy curve (memcpy_ws_<W>) prices the copies a process
 * makes in its own memory, at the same working set as the CMA curve; the
 * CMA copies keep β(W). Worked by hand on test_measured_copies' curve
 * (beta_ws 0.1 ns/B at 64K, 0.4 at 1M) with memcpy_ws half of it (0.05,
 * 0.2): at a 256K working set β = 0.2 and the memcpy 0.1 ns/B. */
static void test_memcpy_curve(void)
{
    const double rel = 1e-9;
    kcal_params p = hand_params(1);
    kcal_params_set(&p, "beta_ws_64k", 1e-10);
    kcal_params_set(&p, "beta_ws_1m", 4e-10);
    kcal_params q = hand_params(1); /* the same without the memcpy curve */
    kcal_params_set(&q, "beta_ws_64k", 1e-10);
    kcal_params_set(&q, "beta_ws_1m", 4e-10);
    kcal_params_set(&p, "memcpy_ws_64k", 5e-11);
    kcal_params_set(&p, "memcpy_ws_1m", 2e-10);
    /* sequential_write, p = 2, 64K (working set 256K): the root's own
     * block at 0.1 ns/B, its write at 0.2: 6.5536 + 2 + (2 + 13.1072 +
     * 1.6) + 1 = 26.2608 µs (32.8144 without the curve). */
    CHECK_NEAR(full(&p, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 65536), 26.2608e-6, rel);
    CHECK_NEAR(full(&q, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 65536), 32.8144e-6, rel);
    kcal_full_copy fc;
    kcal_model_full_copy(&p, KCAL_COLL_SCATTER,
                         kcal_model_find_algorithm(KCAL_COLL_SCATTER, "sequential_write"),
                         2, 0, 65536, &fc);
    CHECK_NEAR(fc.beta, 2e-10, rel);
    CHECK_NEAR(fc.beta_local, 1e-10, rel);
    kcal_model_full_copy(&q, KCAL_COLL_SCATTER,
                         kcal_model_find_algorithm(KCAL_COLL_SCATTER, "sequential_write"),
                         2, 0, 65536, &fc);
    CHECK_NEAR(fc.beta_local, fc.beta, rel); /* no curve: β(W) */
    /* A row without a local copy is unchanged: bcast direct_read (in
     * place). */
    CHECK_NEAR(full(&p, KCAL_COLL_BCAST, "direct_read", 0, 2, 65536),
               full(&q, KCAL_COLL_BCAST, "direct_read", 0, 2, 65536), rel);
    /* copy_in_out copies only within processes: its copy term scales by
     * the two rates at its working set. */
    const kcal_algorithm *cio = kcal_model_find_algorithm(KCAL_COLL_BCAST, "copy_in_out");
    kcal_full_copy fp, fq;
    kcal_model_full_copy(&p, KCAL_COLL_BCAST, cio, 2, 0, 65536, &fp);
    kcal_model_full_copy(&q, KCAL_COLL_BCAST, cio, 2, 0, 65536, &fq);
    kcal_terms tp, tq;
    tm(KCAL_MODEL_FULL, &p, KCAL_COLL_BCAST, "copy_in_out", 0, 2, 65536, 0, &tp);
    tm(KCAL_MODEL_FULL, &q, KCAL_COLL_BCAST, "copy_in_out", 0, 2, 65536, 0, &tq);
    CHECK(fp.beta_local < fq.beta_local);
    CHECK_NEAR(tp.copy / tq.copy, fp.beta_local / fq.beta_local, rel);
    /* δ applies to the local copies too: conc 0.5, parallel_read's p = 2
     * copies at once; its local rate scales by 1.5 with it. */
    const kcal_algorithm *pr = kcal_model_find_algorithm(KCAL_COLL_SCATTER, "parallel_read");
    kcal_model_full_copy(&p, KCAL_COLL_SCATTER, pr, 2, 0, 65536, &fq);
    kcal_params_set(&p, "conc_hot", 0.5);
    kcal_params_set(&p, "conc_cold", 0.5);
    kcal_model_full_copy(&p, KCAL_COLL_SCATTER, pr, 2, 0, 65536, &fp);
    CHECK_NEAR(fp.beta_local, 1.5 * fq.beta_local, rel);
    /* Writes do not scale a process's own copy: beta_write twice β. */
    kcal_params_set(&p, "beta_write", 2e-9);
    kcal_model_full_copy(&p, KCAL_COLL_SCATTER,
                         kcal_model_find_algorithm(KCAL_COLL_SCATTER, "sequential_write"),
                         2, 0, 65536, &fc);
    CHECK_NEAR(fc.beta, 4e-10, rel);
    CHECK_NEAR(fc.beta_local, 1e-10, rel);
    /* The paper model ignores the curve. */
    CHECK(paper(&p, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 65536) ==
          paper(&q, KCAL_COLL_SCATTER, "sequential_write", 0, 2, 65536));
    kcal_params_free(&q);
    kcal_params_free(&p);
}

static void test_rank_best(void)
{
    kcal_params p = hand_params(1);
    kcal_prediction *pr;
    long n = kcal_model_rank(KCAL_MODEL_FULL, &p, KCAL_COLL_BCAST, 2, 65536, 0,
                             0, &pr);
    CHECK(n == 5); /* direct_read, direct_write, scatter_allgather, direct_split,
                    * copy_in_out */
    /* At p = 2 the overlapped halves make scatter_allgather the fastest. */
    CHECK(n > 0 && !strcmp(pr[0].alg->id, "scatter_allgather"));
    for (long i = 1; i < n; i++)
        CHECK(pr[i].seconds >= pr[i - 1].seconds);
    free(pr);
    kcal_choice ch;
    CHECK(kcal_model_select(KCAL_MODEL_FULL, &p, KCAL_COLL_BCAST, 2, 65536, 0,
                            NULL, &ch) == 0);
    CHECK(ch.alg && !strcmp(ch.alg->id, "scatter_allgather") && ch.k == 0);
    /* An unknown model is refused. */
    CHECK(kcal_model_rank((kcal_model_kind)7, &p, KCAL_COLL_BCAST, 2, 1, 0, 0,
                          &pr) == -1);
    CHECK(kcal_model_select((kcal_model_kind)7, &p, KCAL_COLL_BCAST, 2, 1, 0,
                            NULL, &ch) == KCAL_SELECT_NONE);
    kcal_params_free(&p);
}

int main(void)
{
    test_names();
    test_footprint();
    test_working_set();
    test_sync_latency();
    test_dirty_reads();
    test_chunk_pass();
    test_mutual_calls();
    test_cma_context();
    test_default_model();
    test_hand_values();
    test_fallback();
    test_measured_copies();
    test_memcpy_curve();
    test_rank_best();
    return check_report();
}
