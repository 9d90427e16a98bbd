/* algos_check_modes: the cases of each --mode of the correctness suite
 * (tests/algos_check.c's comment says what each checks), made of the
 * cases and matrices of tests/algos_check_case.c. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tests/algos_check.h"
#include "algos/choice.h"
#include "algos/kcoll.h"
#include "algos/kcoll_impl.h"
#include "algos/tuned.h"

static const size_t sizes[] = {0, 1, 4095, 4096, 4097, 65549, (1u << 20) + 5};
#define NSIZES (sizeof sizes / sizeof sizes[0])

void full(void)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    bad_ids(MPI_COMM_WORLD);
    matrix(MPI_COMM_WORLD, "world", sizes, NSIZES, 1);
    /* Sub-communicator: every other rank, in reversed order, so its ranks
     * differ from the world ranks. */
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &sub);
    matrix(sub, "split", sizes, NSIZES, 1);
    MPI_Comm_free(&sub);
    /* Intercommunicators are refused, at once and without communication. */
    if (p >= 2) {
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, world_rank % 2 ? 0 : 1,
                             99, &inter);
        unsigned char x[8] = {0};
        cases++;
        if (kcoll_bcast(x, sizeof x, 0, inter, "direct_read") != MPI_ERR_COMM)
            fail("bcast on an intercommunicator", "want MPI_ERR_COMM");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    /* NULL: the model's choice, on world; the second round finds it
     * remembered with the communicator. A throttled id without k too. */
    for (int round = 0; round < 2; round++) {
        for (int coll = 0; coll < NCOLL; coll++)
            for (int i = 0; i < 3; i++)
                run_case(coll, NULL, (size_t[]){1, 65549, (1u << 20) + 5}[i],
                         p - 1, 0, MPI_COMM_WORLD, "world");
        if (p >= 3)
            run_case(GATHER, "throttled_write", 65549, 0, 0, MPI_COMM_WORLD,
                     "world");
    }
    /* NULL calls that repeat the last one but for the root, for in place,
     * or for the communicator: libkcoll remembers the last NULL call's
     * arguments and runs a repeat without looking them up again
     * (algos/kcoll.c), so each of these must be told from a repeat. */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -world_rank, &rev);
    for (int coll = 0; coll < NCOLL; coll++)
        for (int i = 0; i < 2; i++) {
            size_t n = (size_t[]){1, 4097}[i];
            int rooted = coll == SCATTER || coll == GATHER || coll == BCAST;
            for (int r = 0; r < 4; r++)
                run_case(coll, NULL, n, rooted ? r % p : 0,
                         0, MPI_COMM_WORLD, "world");
            if (coll != BCAST) {
                run_case(coll, NULL, n, 0, 1, MPI_COMM_WORLD, "world");
                run_case(coll, NULL, n, 0, 0, MPI_COMM_WORLD, "world");
            }
            run_case(coll, NULL, n, 0, 0, rev, "reversed");
            run_case(coll, NULL, n, 0, 0, MPI_COMM_WORLD, "world");
        }
    MPI_Comm_free(&rev);
    /* Communicators freed and re-created: the cached state goes with them. */
    for (int i = 0; i < 3; i++) {
        MPI_Comm d;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        run_case(ALLGATHER, "ring_source_read", 4097, 0, 0, d, "dup");
        run_case(BCAST, "direct_read", 4097, 0, 0, d, "dup");
        MPI_Comm_free(&d);
    }
}

/* The virtual nodes' group size, KCOLL_VIRTUAL_NODES. */
static int virtual_k(void)
{
    const char *v = getenv("KCOLL_VIRTUAL_NODES");
    return v ? atoi(v) : 0;
}

/* libkcoll's verdict on comm against the world ranks of its members: it
 * spans nodes when they fall into more than one group of K. */
static void check_spans(MPI_Comm comm, const char *name, int k)
{
    int mine = world_rank / k, lo, hi;
    MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, comm);
    kcoll_comm *c;
    cases++;
    if (kcoll_comm_get(comm, &c) != MPI_SUCCESS) {
        fail(name, "kcoll_comm_get failed");
    } else if (c->spans_nodes != (lo != hi)) {
        char d[80];
        snprintf(d, sizeof d, "spans_nodes %d, want %d (K = %d)",
                 c->spans_nodes, lo != hi, k);
        fail(name, d);
    }
}

/* The ids of vnodes: every algorithm once, throttled ones with k = 2 (fits
 * nodes of 3 or more), k = p − 1 (fits none but a node of p) and without
 * k; ring_neighbor with j = 1 and j = p − 1; and NULL (a NULL entry). */
static char **vnode_specs(int coll, int p, int *count)
{
    size_t na;
    const kcal_algorithm *algs = kcal_model_algorithms((kcal_coll)coll, &na);
    char **out = calloc(4 * na + 1, sizeof *out);
    int c = 0;
    for (size_t i = 0; i < na; i++) {
        char buf[80];
        if (algs[i].kind == KCAL_PARAM_NONE) {
            out[c++] = strdup(algs[i].id);
            continue;
        }
        int lo = algs[i].kind == KCAL_PARAM_STRIDE ? 1 : 2;
        for (int k = lo; k <= p - 1; k = k < p - 1 ? p - 1 : p) {
            snprintf(buf, sizeof buf, "%s:%d", algs[i].id, k);
            out[c++] = strdup(buf);
        }
        if (algs[i].kind == KCAL_PARAM_THROTTLE && p >= 3)
            out[c++] = strdup(algs[i].id);
    }
    out[c++] = NULL; /* the model's choice */
    *count = c;
    return out;
}

static void vnode_matrix(MPI_Comm comm, const char *name)
{
    int p;
    MPI_Comm_size(comm, &p);
    static const size_t vs[] = {0, 1, 4097, 65549};
    int roots[3] = {0, p / 2, p - 1};
    for (int coll = 0; coll < NCOLL; coll++) {
        int count;
        char **specs = vnode_specs(coll, p, &count);
        int rooted = coll == SCATTER || coll == GATHER || coll == BCAST;
        for (int sp = 0; sp < count; sp++)
            for (size_t i = 0; i < sizeof vs / sizeof *vs; i++)
                for (int r = 0; r < (rooted ? 3 : 1); r++) {
                    if (r > 0 && roots[r] == roots[r - 1])
                        continue;
                    for (int ip = 0; ip < (coll == BCAST ? 1 : 2); ip++)
                        run_case(coll, specs[sp], vs[i], roots[r], ip, comm,
                                 name);
                }
        /* Large enough for every node step to run a CMA algorithm. */
        for (int ip = 0; ip < (coll == BCAST ? 1 : 2); ip++)
            run_case(coll, NULL, (1u << 20) + 5, p - 1, ip, comm, name);
        /* Every root, twice: each leaders' communicator made, found again
         * and, past the table's slots, replaced. */
        if (rooted)
            for (int round = 0; round < 2; round++)
                for (int r = 0; r < p; r++)
                    run_case(coll, specs[0], 4097, r, round, comm, name);
        free_specs(specs, count);
    }
}

void vnodes(void)
{
    int p, k = virtual_k();
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (k < 1) {
        fail("vnodes", "KCOLL_VIRTUAL_NODES is not set");
        return;
    }
    bad_ids(MPI_COMM_WORLD);
    check_spans(MPI_COMM_WORLD, "world", k);
    vnode_matrix(MPI_COMM_WORLD, "world");
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &sub);
    check_spans(sub, "split", k);
    vnode_matrix(sub, "split");
    MPI_Comm_free(&sub);
    /* Evens first, then odds: every virtual node of 2 or more has ranks
     * that are not consecutive here. */
    MPI_Comm_split(MPI_COMM_WORLD, 0, (world_rank % 2) * p + world_rank,
                   &sub);
    check_spans(sub, "interleaved", k);
    vnode_matrix(sub, "interleaved");
    MPI_Comm_free(&sub);
    /* One virtual node: the flat algorithms, CMA checked inside it. */
    MPI_Comm_split(MPI_COMM_WORLD, world_rank / k, world_rank, &sub);
    check_spans(sub, "one node", k);
    for (int coll = 0; coll < NCOLL; coll++)
        run_case(coll, NULL, 65549, 0, 0, sub, "one node");
    MPI_Comm_free(&sub);
}

void strict(void)
{
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    for (int coll = 0; coll < NCOLL; coll++) {
        int count;
        char **specs = specs_for(coll, p, &count);
        bufs b;
        bufs_alloc(&b, (size_t)p * 64, (size_t)p * 64, 1);
        bufs_init(&b, coll, me, p, 64, 0, 0, 1);
        int rc = call(coll, 1, &b, 64, 0, 0, MPI_COMM_WORLD, specs[0], me);
        cases++;
        if (rc == MPI_SUCCESS)
            fail(coll_names[coll], "KCOLL_STRICT=1 without CMA returned success");
        bufs_free(&b);
        free_specs(specs, count);
    }
}

/* Under KCOLL_SIMULATE_NO_STATE=1: see the mode's comment at the top. */
void nostate(void)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    kcoll_comm *c = NULL;
    cases++;
    if (kcoll_comm_get(MPI_COMM_WORLD, &c) != MPI_SUCCESS || !c->no_state)
        fail("no state", "MPI_COMM_WORLD is not marked no_state here");
    unsigned long built = atomic_load(&kcoll_state_builds);
    const size_t fs[] = {0, 4097, 65549};
    matrix(MPI_COMM_WORLD, "world without state", fs, 3, 1);
    bad_ids(MPI_COMM_WORLD);
    cases++;
    if (atomic_load(&kcoll_state_builds) != built)
        fail("no state", "a failed state was built again");
    /* Per communicator: the half without world rank 1 builds its own. */
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, p - world_rank, &half);
    matrix(half, "odd/even half", fs, 3, 0);
    cases++;
    if (kcoll_comm_get(half, &c) != MPI_SUCCESS ||
        c->no_state != (world_rank % 2 == 1))
        fail("no state", "the odd/even half's state is not what world rank 1 "
                         "says");
    MPI_Comm_free(&half);
}

/* > 2 GiB in total at p = 2, checked against the pattern. */
void big(void)
{
    int p, me;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    size_t n = ((size_t)2 << 30) + 4097; /* one bcast above MAX_RW_COUNT */
    unsigned char *buf = malloc(n);
    if (!buf) {
        fail("big", "no memory");
        return;
    }
    if (me == 0)
        pattern(buf, n, 0, 0, 42);
    else
        memset(buf, 0, n);
    cases++;
    int rc = kcoll_bcast(buf, n, 0, MPI_COMM_WORLD, "direct_read");
    size_t at = check_pattern(buf, n, 0, 0, 42);
    if (rc != MPI_SUCCESS || at != (size_t)-1) {
        char d[100];
        snprintf(d, sizeof d, "rc %d, first wrong byte %zu", rc, at);
        fail("bcast direct_read n=2GiB+4097", d);
    }
    free(buf);
    /* Scatter: the root's buffer is p blocks of 1 GiB + 5, so the block
     * offsets pass 2 GiB. */
    n = ((size_t)1 << 30) + 5;
    unsigned char *send = me == 0 ? malloc((size_t)p * n) : NULL;
    unsigned char *recv = malloc(n);
    if (me == 0)
        for (int b = 0; b < p; b++)
            pattern(send + (size_t)b * n, n, 0, b, 7);
    memset(recv, 0, n);
    cases++;
    rc = kcoll_scatter(send, recv, n, 0, MPI_COMM_WORLD, "sequential_write");
    at = check_pattern(recv, n, 0, me, 7);
    if (rc != MPI_SUCCESS || at != (size_t)-1) {
        char d[100];
        snprintf(d, sizeof d, "rc %d, first wrong byte %zu", rc, at);
        fail("scatter sequential_write n=1GiB+5", d);
    }
    free(send);
    free(recv);
}

/* Calls that need the model's choice, when it cannot make one: results
 * must equal the MPI built-in's (run_case compares) and rc must be 0. */
void modelless(void)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    static const size_t ns[] = {0, 1, 4097, 65549};
    for (int coll = 0; coll < NCOLL; coll++)
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
            for (int ip = 0; ip < (coll == BCAST ? 1 : 2); ip++)
                run_case(coll, NULL, ns[i], p - 1, ip, MPI_COMM_WORLD, "world");
    /* A throttled id without k also needs the model (from p = 3). */
    if (p >= 3) {
        run_case(SCATTER, "throttled_read", 4097, 0, 0, MPI_COMM_WORLD, "world");
        run_case(BCAST, "knomial", 65549, 1, 0, MPI_COMM_WORLD, "world");
    }
    /* Named algorithms do not. */
    run_case(BCAST, "direct_read", 4097, 0, 0, MPI_COMM_WORLD, "world");
    run_case(ALLGATHER, "ring_neighbor", 4097, 0, 1, MPI_COMM_WORLD, "world");
    /* Again on the same communicator: the remembered verdict. */
    run_case(GATHER, NULL, 4097, 0, 0, MPI_COMM_WORLD, "world");
}

/* The model hands small messages to the MPI library: count the calls
 * that went to it, per size, on every rank. */
void handoff(void)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    /* 131085: above the crossover, in the size class of mpi_<coll>_mask's
     * bit 17 (131072..262143), which the script sets: to the MPI library
     * too. 262157, the next class: libkcoll. */
    static const size_t small[] = {1, 1024, 4097, 65549 + 65536},
                        large[] = {262144 + 13};
    for (int coll = 0; coll < NCOLL; coll++)
        for (int ip = 0; ip < (coll == BCAST ? 1 : 2); ip++) {
            for (size_t i = 0; i < sizeof small / sizeof *small; i++) {
                unsigned long before = atomic_load(&kcoll_handoffs);
                run_case(coll, NULL, small[i], p - 1, ip, MPI_COMM_WORLD, "world");
                if (atomic_load(&kcoll_handoffs) != before + 1) {
                    char d[80];
                    snprintf(d, sizeof d, "n=%zu: %lu calls handed to MPI, want 1",
                             small[i], atomic_load(&kcoll_handoffs) - before);
                    fail(coll_names[coll], d);
                }
            }
            unsigned long before = atomic_load(&kcoll_handoffs);
            run_case(coll, NULL, large[0], p - 1, ip, MPI_COMM_WORLD, "world");
            if (atomic_load(&kcoll_handoffs) != before)
                fail(coll_names[coll], "n=262157 went to MPI: want a libkcoll algorithm");
        }
    /* A named algorithm never goes to the MPI library. */
    unsigned long before = atomic_load(&kcoll_handoffs);
    run_case(GATHER, "parallel_write_flags", 1024, 0, 0, MPI_COMM_WORLD, "world");
    if (atomic_load(&kcoll_handoffs) != before)
        fail("gather parallel_write_flags n=1024", "went to MPI: want the named algorithm");
}

/* What the table of tests/algos_mpi.sh gives one call: want is "mpi",
 * "none" (no rule) or "id:k" (k -1: the model's best k). */
static void check_decision(kcal_coll coll, int p, uint64_t n, const char *want)
{
    const kcal_algorithm *alg = NULL;
    int k = -2;
    char got[80];
    kcoll_tuned_verdict v = kcoll_tuned_decide(coll, p, n, &alg, &k);
    if (v == KCOLL_TUNED_MPI)
        snprintf(got, sizeof got, "mpi");
    else if (v == KCOLL_TUNED_NONE)
        snprintf(got, sizeof got, "none");
    else
        snprintf(got, sizeof got, "%s:%d", alg ? alg->id : "?", k);
    cases++;
    if (strcmp(got, want)) {
        char d[200];
        snprintf(d, sizeof d, "p=%d n=%llu: the table gives %s, want %s", p,
                 (unsigned long long)n, got, want);
        fail(kcal_coll_name(coll), d);
    }
}

/* NULL calls under the forcing table: each decided by a rule (counted)
 * or not, with the built-in's result either way. */
static void table_case(int coll, size_t n, int ip, MPI_Comm comm,
                       const char *name, int decided)
{
    unsigned long d0 = atomic_load(&kcoll_tuned_decisions);
    unsigned long h0 = atomic_load(&kcoll_handoffs);
    int p;
    MPI_Comm_size(comm, &p);
    run_case(coll, NULL, n, p - 1, ip, comm, name);
    unsigned long d = atomic_load(&kcoll_tuned_decisions) - d0;
    if (d != (unsigned long)decided || atomic_load(&kcoll_handoffs) != h0) {
        char detail[160];
        snprintf(detail, sizeof detail, "n=%zu on %s: %lu calls decided by "
                 "the table (want %d), %lu handed off by the model (want 0)",
                 n, name, d, decided, atomic_load(&kcoll_handoffs) - h0);
        fail(coll_names[coll], detail);
    }
}

void table(void)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p != 3) {
        if (world_rank == 0)
            fprintf(stderr, "algos_check: --mode table wants p = 3\n");
        failures++;
        return;
    }
    /* The rules of tests/algos_mpi.sh's table, as the lookup gives them. */
    check_decision(KCAL_COLL_SCATTER, 3, 4095, "mpi");
    check_decision(KCAL_COLL_SCATTER, 3, 4096, "sequential_write:0");
    check_decision(KCAL_COLL_SCATTER, 2, 4096, "none");
    check_decision(KCAL_COLL_GATHER, 3, 1, "throttled_write:2");
    check_decision(KCAL_COLL_BCAST, 3, 65549, "knomial:-1"); /* k 5 > p - 1 */
    check_decision(KCAL_COLL_BCAST, 8, 65549, "knomial:5");
    check_decision(KCAL_COLL_BCAST, 3, 1 << 20, "none");
    check_decision(KCAL_COLL_ALLGATHER, 3, 7, "ring_neighbor:2");
    check_decision(KCAL_COLL_ALLGATHER, 4, 7, "ring_neighbor:-1"); /* gcd 2 */
    check_decision(KCAL_COLL_ALLTOALL, 3, 4097, "none");
    check_decision(KCAL_COLL_ALLTOALL, 2, 4097, "mpi");
    static const size_t ns[] = {1, 4095, 4096, 65549};
    for (int coll = 0; coll < NCOLL; coll++)
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
            for (int ip = 0; ip < (coll == BCAST ? 1 : 2); ip++)
                table_case(coll, ns[i], ip, MPI_COMM_WORLD, "world",
                           coll != ALLTOALL);
    /* bcast above the rule's sizes: the model's choice. */
    table_case(BCAST, (1u << 20) + 5, 0, MPI_COMM_WORLD, "world", 0);
    /* A communicator of 2 (and one of 1): alltoall's p 1..2 rule applies
     * there, the p = 3 rules do not. */
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank == 0, world_rank, &sub);
    for (int coll = 0; coll < NCOLL; coll++)
        table_case(coll, 4097, 0, sub, "split", coll == ALLTOALL);
    MPI_Comm_free(&sub);
    /* A named algorithm is run as asked: no rule consulted. */
    unsigned long d0 = atomic_load(&kcoll_tuned_decisions);
    run_case(SCATTER, "parallel_read", 65549, 0, 0, MPI_COMM_WORLD, "world");
    if (atomic_load(&kcoll_tuned_decisions) != d0)
        fail("scatter parallel_read", "a named algorithm went through the table");
}

/* Every NULL call on world decided by the table, results right. */
void tabled(void)
{
    static const size_t ns[] = {0, 1, 4097, 65549, (1u << 20) + 5};
    for (int coll = 0; coll < NCOLL; coll++)
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
            for (int ip = 0; ip < (coll == BCAST ? 1 : 2); ip++)
                table_case(coll, ns[i], ip, MPI_COMM_WORLD, "world", 1);
}

/* One fallback case with a scaled-down type: kcoll_mpi_<coll> against the
 * MPI built-in called with plain MPI_BYTE counts (n is small here). */
static void types_case(int coll, size_t n, int root, int in_place)
{
    int me, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    size_t pn = (size_t)p * n, slen = n, rlen = n;
    if (coll == SCATTER)
        slen = pn;
    if (coll == GATHER || coll == ALLGATHER)
        rlen = pn;
    if (coll == ALLTOALL)
        slen = rlen = pn;
    unsigned seed = (unsigned)(cases * 7919u);
    bufs k, ref;
    bufs_alloc(&k, slen, rlen, 3);
    bufs_alloc(&ref, slen, rlen, 5);
    bufs_init(&k, coll, me, p, n, root, in_place, seed);
    bufs_init(&ref, coll, me, p, n, root, in_place, seed);
    cases++;
    int rc = call(coll, 0, &k, n, root, in_place, MPI_COMM_WORLD, NULL, me);
    const void *s = ref.s;
    void *r = ref.r;
    int cnt = (int)n, rc_ref;
    switch (coll) {
    case SCATTER:
        if (in_place && me == root)
            r = MPI_IN_PLACE;
        rc_ref = MPI_Scatter(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, root, MPI_COMM_WORLD);
        break;
    case GATHER:
        if (in_place && me == root)
            s = MPI_IN_PLACE;
        rc_ref = MPI_Gather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, root, MPI_COMM_WORLD);
        break;
    case BCAST:
        rc_ref = MPI_Bcast(r, cnt, MPI_BYTE, root, MPI_COMM_WORLD);
        break;
    case ALLGATHER:
        rc_ref = MPI_Allgather(in_place ? MPI_IN_PLACE : s, cnt, MPI_BYTE, r, cnt,
                               MPI_BYTE, MPI_COMM_WORLD);
        break;
    default:
        rc_ref = MPI_Alltoall(in_place ? MPI_IN_PLACE : s, cnt, MPI_BYTE, r, cnt,
                              MPI_BYTE, MPI_COMM_WORLD);
        break;
    }
    char what[120], detail[120];
    snprintf(what, sizeof what, "kcoll_mpi_%s n=%zu root=%d %s (piece %zu, max count %zu)",
             coll_names[coll], n, root, in_place ? "in-place" : "not-in-place",
             kcoll_mpi_piece, kcoll_mpi_max_count);
    size_t at;
    if (rc != MPI_SUCCESS || rc_ref != MPI_SUCCESS) {
        snprintf(detail, sizeof detail, "returned %d (reference %d)", rc, rc_ref);
        fail(what, detail);
    } else if ((at = first_diff(k.r, ref.r, rlen)) != (size_t)-1) {
        snprintf(detail, sizeof detail, "recvbuf differs from MPI_BYTE at byte %zu", at);
        fail(what, detail);
    }
    bufs_free(&k);
    bufs_free(&ref);
}

/* kcoll_bytes_type(n, max_count, piece) describes exactly n bytes. */
static void check_type(size_t n, size_t max_count, size_t piece, int want_rc)
{
    MPI_Datatype t;
    int count;
    char what[120], detail[160];
    snprintf(what, sizeof what, "kcoll_bytes_type(n=%zu, max_count=%zu, piece=%zu)", n,
             max_count, piece);
    cases++;
    int rc = kcoll_bytes_type(n, max_count, piece, &t, &count);
    if (rc != want_rc) {
        snprintf(detail, sizeof detail, "returned %d, want %d", rc, want_rc);
        fail(what, detail);
    }
    if (rc != MPI_SUCCESS) {
        if (t != MPI_BYTE || count != 0)
            fail(what, "an error left a type or a count behind");
        return;
    }
    MPI_Count size = -1, lb = -1, extent = -1;
    MPI_Type_size_x(t, &size);
    MPI_Type_get_extent_x(t, &lb, &extent);
    int derived = n > max_count;
    if ((MPI_Count)count * size != (MPI_Count)n ||
        (derived ? count != 1 || lb != 0 || extent != (MPI_Count)n
                 : t != MPI_BYTE || count != (int)n)) {
        snprintf(detail, sizeof detail, "count %d, size %lld, lb %lld, extent %lld", count,
                 (long long)size, (long long)lb, (long long)extent);
        fail(what, detail);
    }
    kcoll_bytes_type_free(&t);
}

void types(void)
{
    int p;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    /* The real limits, at sizes no test could allocate: types cost nothing. */
    const size_t gib = (size_t)1 << 30, im = INT_MAX;
    check_type(im, im, gib, MPI_SUCCESS);                /* largest plain count */
    check_type(im + 1, im, gib, MPI_SUCCESS);            /* 2 GiB: 2 pieces */
    check_type(3 * gib + 5, im, gib, MPI_SUCCESS);       /* pieces + remainder */
    check_type(im * gib, im, gib, MPI_SUCCESS);          /* most pieces allowed */
    check_type(im * gib + gib - 1, im, gib, MPI_SUCCESS);
    check_type((im + 1) * gib, im, gib, MPI_ERR_COUNT);  /* (int) would wrap */
    check_type(((size_t)1 << 32 | 1) * gib, im, gib, MPI_ERR_COUNT); /* wraps to 1 */
    check_type(SIZE_MAX, im, gib, MPI_ERR_COUNT);
    check_type(100, 1000, 0, MPI_ERR_ARG);
    check_type(100, 10, 64, MPI_ERR_ARG);                /* piece above max count */
    /* Every path of the five fallbacks with max_count 1000 and 64-byte
     * pieces: plain counts (n <= 1000), pieces with and without a
     * remainder, the most pieces allowed, and one piece too many. */
    kcoll_mpi_max_count = 1000;
    kcoll_mpi_piece = 64;
    static const size_t ns[] = {0, 999, 1000, 1001, 1024, 64000, 64063};
    int roots[2] = {0, p - 1};
    for (int coll = 0; coll < NCOLL; coll++)
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
            for (int r = 0; r < (coll <= BCAST && p > 1 ? 2 : 1); r++)
                for (int ip = 0; ip < (coll == BCAST ? 1 : 2); ip++)
                    types_case(coll, ns[i], roots[r], ip);
    unsigned char buf[8];
    for (int coll = 0; coll < NCOLL; coll++) {
        cases++;
        bufs b = {.s = buf, .r = buf, .slen = 0, .rlen = 0};
        int me;
        MPI_Comm_rank(MPI_COMM_WORLD, &me);
        if (call(coll, 0, &b, 64064, 0, 0, MPI_COMM_WORLD, NULL, me) != MPI_ERR_COUNT)
            fail(coll_names[coll], "1001 pieces with max count 1000: want MPI_ERR_COUNT");
    }
    kcoll_mpi_max_count = INT_MAX;
    kcoll_mpi_piece = gib;
}

