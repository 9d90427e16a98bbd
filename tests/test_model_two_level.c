/* The rows across nodes (model/two_level.c, model.md "Across nodes: the
 * two-level rows", derived) against values worked out by hand, the
 * network keys they need, the layouts they accept and their ranking. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/check.h"
#include "model/model.h"
#include "model/two_level.h"

/* α = 2 µs, β = 1 ns/B, l = 0.1 µs/page, s = 4096, γ(c) = 0.5c² + c
 * (γ(2) = 4, γ(3) = 7.5, γ(4) = 12), T_sm: bcast 1 µs, gather 2 µs,
 * allgather 3 µs, barrier 4 µs (no log2 p growth), sync_step 0.5 µs;
 * network: net_alpha 5 µs, net_beta 0.5 ns/B, net_gap 0.25 µs. */
static kcal_params hand_params(void)
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
    kcal_params_set(&p, "sync_step", 5e-7);
    kcal_params_set(&p, "net_alpha", 5e-6);
    kcal_params_set(&p, "net_beta", 5e-10);
    kcal_params_set(&p, "net_gap", 2.5e-7);
    return p;
}

/* One row's time (node id NULL: mpi_flat), in µs. */
static double row(const kcal_params *prm, kcal_coll c, const char *id, int k,
                  int p, int ppn, uint64_t n, int in_place,
                  kcal_tl_prediction *out)
{
    kcal_net net;
    CHECK(kcal_net_get(prm, &net) == 0);
    const kcal_algorithm *a = id ? kcal_model_find_algorithm(c, id) : NULL;
    CHECK(!id || a);
    return 1e6 * kcal_two_level_time(KCAL_MODEL_PAPER, prm, &net, c, a, k, p,
                                     ppn, n, in_place, out);
}

static void test_network_keys(void)
{
    kcal_params p = hand_params();
    kcal_net net;
    CHECK(kcal_net_get(&p, &net) == 0);
    CHECK(net.alpha == 5e-6 && net.beta == 5e-10 && net.gap == 2.5e-7);
    kcal_params q;
    kcal_params_init(&q);
    kcal_params_set(&q, "net_alpha", 1e-6);
    CHECK(kcal_net_get(&q, &net) == -1); /* no net_beta: nothing guessed */
    kcal_params_set(&q, "net_beta", 1e-10);
    CHECK(kcal_net_get(&q, &net) == 0 && net.gap == 0);
    kcal_params_free(&q);
    kcal_params_free(&p);
}

static void test_layout(void)
{
    CHECK(kcal_two_level_layout_ok(512, 64));
    CHECK(kcal_two_level_layout_ok(8, 1));
    CHECK(!kcal_two_level_layout_ok(64, 64)); /* one node */
    CHECK(!kcal_two_level_layout_ok(10, 4));  /* not a multiple */
    CHECK(!kcal_two_level_layout_ok(8, 0));
    kcal_params p = hand_params();
    kcal_net net;
    kcal_net_get(&p, &net);
    const kcal_algorithm *bc = kcal_model_find_algorithm(KCAL_COLL_BCAST,
                                                         "direct_read");
    /* A node algorithm of another collective, or a layout of one node. */
    CHECK(kcal_two_level_time(KCAL_MODEL_PAPER, &p, &net, KCAL_COLL_GATHER, bc,
                              0, 8, 4, 4096, 0, NULL) < 0);
    CHECK(kcal_two_level_time(KCAL_MODEL_PAPER, &p, &net, KCAL_COLL_BCAST, bc,
                              0, 8, 8, 4096, 0, NULL) < 0);
    kcal_params_free(&p);
}

static void test_two_level_rows(void)
{
    kcal_params p = hand_params();
    kcal_tl_prediction o;
    /* gather, P = 8, ppn = 4 (N = 2, lg N = 1), n = 4096 (one page),
     * sequential_read at p = 4: T_memcpy 4.096 + T_sm_gather 2
     * + 4·(X = 2 + 4.096, + l·pages 0.1) + T_sm_bcast 1 = 31.88 µs;
     * network: 1·5 + (N−1)·B·net_beta = 16384·0.5 ns = 8.192 µs. */
    CHECK_NEAR(row(&p, KCAL_COLL_GATHER, "sequential_read", 0, 8, 4, 4096, 0,
                   &o), 31.88 + 13.192, 1e-9);
    CHECK_NEAR(o.node_terms.startup + o.node_terms.copy + o.node_terms.lock +
               o.node_terms.sync, 31.88e-6, 1e-9);
    CHECK_NEAR(o.net_startup, 5e-6, 1e-9);
    CHECK_NEAR(o.net_copy, 8.192e-6, 1e-9);
    CHECK(!o.overlap);
    /* scatter, the same layout, parallel_read at p = 4: T_sm_bcast 1
     * + X 6.096 + l·γ(4)·1 = 1.2 + T_sm_gather 2 = 10.296; + 13.192. */
    CHECK_NEAR(row(&p, KCAL_COLL_SCATTER, "parallel_read", 0, 8, 4, 4096, 0,
                   NULL), 10.296 + 13.192, 1e-9);
    /* bcast, P = 16, ppn = 4 (N = 4, lg N = 2), n = 8192 (2 pages),
     * knomial:2 at p = 4: T_sm_bcast 1 + 2·(X 10.192 + l·γ(2)·2 = 0.8)
     * = 22.984; network 2·(5 + 4.096) = 18.192. */
    CHECK_NEAR(row(&p, KCAL_COLL_BCAST, "knomial", 2, 16, 4, 8192, 0, NULL),
               22.984 + 18.192, 1e-9);
    /* allgather, P = 6, ppn = 3 (N = 2), n = 4096, ring_neighbor:1 at p = 3:
     * T_memcpy 4.096 + 3 + 2·6.196 + 4 = 23.488; network (N−1)·T_net(B),
     * B = 12288: 5 + 6.144 = 11.144; then the best bcast of the other node's
     * 12288 bytes (3 pages) at p = 3: direct_split, F_X = T_sm_X (no
     * sm_flag): 3 + max(2·W(4096) = 12.392, X(8192) 10.192 + P(2, 8192)
     * 0.8) + 4 = 19.392 (direct_read: 1 + 14.288 + 2.25 + 2 = 19.538). */
    CHECK_NEAR(row(&p, KCAL_COLL_ALLGATHER, "ring_neighbor", 1, 6, 3, 4096, 0,
                   NULL), 23.488 + 11.144 + 19.392, 1e-9);
    /* alltoall, P = 4, ppn = 2, n = 4096, pairwise at p = 2: 3 + 6.196 =
     * 9.196; network: M = 2·2 = 4 messages at once: 5 + 3·0.25 + 4·2.048
     * = 13.942; they overlap: the larger. */
    CHECK_NEAR(row(&p, KCAL_COLL_ALLTOALL, "pairwise", 0, 4, 2, 4096, 0, &o),
               13.942, 1e-9);
    CHECK(o.overlap);
    /* In place the P·n bytes are set aside first: 9.196 + 16.384. */
    CHECK_NEAR(row(&p, KCAL_COLL_ALLTOALL, "pairwise", 0, 4, 2, 4096, 1, NULL),
               25.58, 1e-9);
    /* One rank per node: the node step is the local copy, n·β. */
    CHECK_NEAR(row(&p, KCAL_COLL_GATHER, "parallel_write", 0, 4, 1, 4096, 0,
                   NULL), 4.096 + 2 * 5 + 3 * 4096 * 0.5e-3, 1e-9);
    kcal_params_free(&p);
}

static void test_flat_rows(void)
{
    kcal_params p = hand_params();
    /* gather, P = 8, ppn = 2, n = 4096, binomial: d = 1 inside the node,
     * T_node = sync_step 0.5 + α 2 + 4.096 = 6.596; d = 2: 2 blocks over
     * the network, 5 + 4.096; d = 4: 4 blocks, 5 + 8.192. */
    CHECK_NEAR(row(&p, KCAL_COLL_GATHER, NULL, 0, 8, 2, 4096, 0, NULL),
               6.596 + 9.096 + 13.192, 1e-9);
    CHECK_NEAR(row(&p, KCAL_COLL_SCATTER, NULL, 0, 8, 2, 4096, 0, NULL),
               6.596 + 9.096 + 13.192, 1e-9);
    /* bcast: d = 1 inside, d = 2 and 4 over the network, n each. */
    CHECK_NEAR(row(&p, KCAL_COLL_BCAST, NULL, 0, 8, 2, 4096, 0, NULL),
               6.596 + 2 * 7.048, 1e-9);
    /* allgather, ring: 3 steps of T_net(n). */
    CHECK_NEAR(row(&p, KCAL_COLL_ALLGATHER, NULL, 0, 4, 2, 4096, 0, NULL),
               3 * 7.048, 1e-9);
    /* alltoall, pairwise, P = 4, ppn = 2: c_1 = 1 (0 -> 1 stays, 1 -> 2
     * leaves), c_2 = 2, c_3 = 1: 7.048 + (5 + 0.25 + 4.096) + 7.048. */
    CHECK_NEAR(row(&p, KCAL_COLL_ALLTOALL, NULL, 0, 4, 2, 4096, 0, NULL),
               7.048 + 9.346 + 7.048, 1e-9);
    kcal_params_free(&p);
}

/* A node row at p (id of c, NULL: the model's best), in µs. */
static double node_row(const kcal_params *prm, kcal_coll c, const char *id,
                       int p, uint64_t n)
{
    if (!id) {
        kcal_choice ch;
        CHECK(kcal_model_select(KCAL_MODEL_PAPER, prm, c, p, n, 0, NULL,
                                &ch) == 0);
        return 1e6 * ch.seconds;
    }
    const kcal_algorithm *a = kcal_model_find_algorithm(c, id);
    CHECK(a != NULL);
    return 1e6 * kcal_model_time(KCAL_MODEL_PAPER, prm, c, a, 0, p, n, 0,
                                 NULL);
}

/* The reductions: the node rows (model.md "Reductions", checked in
 * test_model.c) with the leaders' part worked by hand. The params have
 * no reduce_beta: the op R(m) is m·β, 1 ns/B. */
static void test_reduction_rows(void)
{
    kcal_params p = hand_params();
    kcal_tl_prediction o;
    /* reduce, P = 16, ppn = 4 (N = 4, L = 2), n = 4096: the leaders'
     * binomial Reduce, 2·(T_net = 5 + 2.048, + R = 4.096) = 22.288. */
    double t = node_row(&p, KCAL_COLL_REDUCE, "root_read", 4, 4096);
    CHECK(t > 0);
    CHECK_NEAR(row(&p, KCAL_COLL_REDUCE, "root_read", 0, 16, 4, 4096, 0, &o),
               t + 22.288, 1e-9);
    CHECK_NEAR(o.net_startup, 10e-6, 1e-12);
    CHECK_NEAR(o.net_copy, 4.096e-6, 1e-12);
    /* allreduce: the same leaders' part (recursive doubling), then the
     * result by the best bcast at ppn. */
    t = node_row(&p, KCAL_COLL_ALLREDUCE, "read_all", 4, 4096) +
        node_row(&p, KCAL_COLL_BCAST, NULL, 4, 4096);
    CHECK_NEAR(row(&p, KCAL_COLL_ALLREDUCE, "read_all", 0, 16, 4, 4096, 0,
                   NULL), t + 22.288, 1e-9);
    /* reduce_scatter_block, P = 8, ppn = 4 (N = 2), n = 4096: the node
     * reduce of P·n = 32768 bytes by reduce's copy_in_out (the same id),
     * the ring (N−1)·(T_net(B) + R(B)), B = 16384: 5 + 8.192 + 16.384,
     * then the best scatter of n at ppn. */
    t = node_row(&p, KCAL_COLL_REDUCE, "copy_in_out", 4, 32768) +
        node_row(&p, KCAL_COLL_SCATTER, NULL, 4, 4096);
    CHECK_NEAR(row(&p, KCAL_COLL_REDUCE_SCATTER_BLOCK, "copy_in_out", 0, 8, 4,
                   4096, 0, NULL), t + 29.576, 1e-9);
    /* reduce_scatter_read has no reduce row of its id: the best reduce. */
    t = node_row(&p, KCAL_COLL_REDUCE, NULL, 4, 32768) +
        node_row(&p, KCAL_COLL_SCATTER, NULL, 4, 4096);
    CHECK_NEAR(row(&p, KCAL_COLL_REDUCE_SCATTER_BLOCK, "reduce_scatter_read",
                   0, 8, 4, 4096, 0, NULL), t + 29.576, 1e-9);
    /* mpi_flat allreduce, P = 8, ppn = 4, n = 4096: d = 1, 2 inside the
     * node, T_node 6.596 + R 4.096 each; d = 4 over the network, 7.048
     * + 4.096. reduce is the same tree. */
    CHECK_NEAR(row(&p, KCAL_COLL_ALLREDUCE, NULL, 0, 8, 4, 4096, 0, NULL),
               2 * 10.692 + 11.144, 1e-9);
    CHECK_NEAR(row(&p, KCAL_COLL_REDUCE, NULL, 0, 8, 4, 4096, 0, NULL),
               2 * 10.692 + 11.144, 1e-9);
    /* mpi_flat reduce_scatter_block, P = 4, ppn = 2, recursive halving:
     * d = 1 inside, 4096 bytes: 10.692; d = 2 over the network, 8192
     * bytes: 5 + 4.096 + 8.192. */
    CHECK_NEAR(row(&p, KCAL_COLL_REDUCE_SCATTER_BLOCK, NULL, 0, 4, 2, 4096, 0,
                   NULL), 10.692 + 17.288, 1e-9);
    /* Every row of the three ranks, none at 0. */
    kcal_net net;
    kcal_net_get(&p, &net);
    for (int c = 0; c < KCAL_COLL_COUNT; c++) {
        if (!kcal_coll_is_reduction((kcal_coll)c))
            continue;
        kcal_tl_prediction *pr;
        size_t na;
        kcal_model_algorithms((kcal_coll)c, &na);
        long count = kcal_two_level_rank(KCAL_MODEL_PAPER, &p, &net,
                                         (kcal_coll)c, 8, 4, 65536, 0, 0, &pr);
        CHECK(count == (long)na + 1);
        for (long i = 0; i < count; i++)
            CHECK(pr[i].seconds > 0 && isfinite(pr[i].seconds));
        free(pr);
    }
    kcal_params_free(&p);
}

static void test_rank(void)
{
    kcal_params p = hand_params();
    kcal_net net;
    kcal_net_get(&p, &net);
    kcal_tl_prediction *pr;
    long count = kcal_two_level_rank(KCAL_MODEL_PAPER, &p, &net,
                                     KCAL_COLL_GATHER, 8, 4, 4096, 0, 0, &pr);
    /* parallel_write, sequential_read, throttled_write k = 2, 3,
     * parallel_write_flags, parallel_write_split, copy_in_out, then
     * mpi_flat. */
    CHECK(count == 8);
    int flat = 0, seq = 0;
    for (long i = 0; i < count; i++) {
        if (i > 0)
            CHECK(pr[i].seconds >= pr[i - 1].seconds);
        flat += !pr[i].node;
        if (pr[i].node && !strcmp(pr[i].node->id, "sequential_read")) {
            seq++;
            CHECK_NEAR(pr[i].seconds, 45.072e-6, 1e-9);
        }
    }
    CHECK(flat == 1 && seq == 1 && pr[0].rank == 1);
    char name[64];
    for (long i = 0; i < count; i++) {
        kcal_two_level_name(&pr[i], name, sizeof name);
        CHECK(pr[i].node ? !strncmp(name, "two_level:", 10) &&
                               !strcmp(name + 10, pr[i].node->id)
                         : !strcmp(name, "mpi_flat"));
    }
    free(pr);
    /* --k 3 keeps only throttled_write's k = 3. */
    count = kcal_two_level_rank(KCAL_MODEL_PAPER, &p, &net, KCAL_COLL_GATHER,
                                8, 4, 4096, 0, 3, &pr);
    CHECK(count == 7);
    free(pr);
    CHECK(kcal_two_level_rank(KCAL_MODEL_PAPER, &p, &net, KCAL_COLL_GATHER, 8,
                              8, 4096, 0, 0, &pr) == -1);
    kcal_params_free(&p);
}

int main(void)
{
    test_network_keys();
    test_layout();
    test_two_level_rows();
    test_flat_rows();
    test_reduction_rows();
    test_rank();
    return check_report();
}
