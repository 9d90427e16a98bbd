/* algos_check_case: one case of the correctness suite (tests/algos_check.c)
 * and the matrices of them: buffers filled with a pattern that shows a
 * block misplaced or shifted, the kcoll call and the MPI built-in's from
 * identical buffers, compared byte for byte; every (algorithm, k) valid at
 * p, and the ids libkcoll must refuse. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tests/algos_check.h"
#include "algos/kcoll.h"
#include "algos/kcoll_impl.h"

const char *coll_names[NCOLL] = {"scatter", "gather", "bcast", "allgather",
                                 "alltoall"};

long cases, failures;
int world_rank;

void fail(const char *what, const char *detail)
{
    failures++;
    fprintf(stderr, "algos_check: FAIL (world rank %d) %s: %s\n", world_rank,
            what, detail);
}

/* Patterned data: depends on owner, block, offset and a per-case seed, so a
 * block in the wrong place or shifted by any amount shows. */
static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

void pattern(unsigned char *buf, size_t n, int owner, int block,
             unsigned seed)
{
    uint64_t base = ((uint64_t)owner << 48) ^ ((uint64_t)block << 32) ^ seed;
    size_t w = 0;
    for (; w + 8 <= n; w += 8) {
        uint64_t v = mix(base + w);
        memcpy(buf + w, &v, 8);
    }
    for (; w < n; w++)
        buf[w] = (unsigned char)mix(base + w);
}

size_t check_pattern(const unsigned char *buf, size_t n, int owner,
                     int block, unsigned seed)
{
    uint64_t base = ((uint64_t)owner << 48) ^ ((uint64_t)block << 32) ^ seed;
    size_t w = 0;
    for (; w + 8 <= n; w += 8) {
        uint64_t v = mix(base + w);
        if (memcmp(buf + w, &v, 8))
            return w;
    }
    for (; w < n; w++)
        if (buf[w] != (unsigned char)mix(base + w))
            return w;
    return (size_t)-1;
}

void bufs_alloc(bufs *b, size_t slen, size_t rlen, size_t off)
{
    b->slen = slen;
    b->rlen = rlen;
    b->s_mem = malloc(slen + off + 1);
    b->r_mem = malloc(rlen + off + 1);
    if (!b->s_mem || !b->r_mem) {
        fprintf(stderr, "algos_check: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    b->s = b->s_mem + off;
    b->r = b->r_mem + off;
}

void bufs_free(bufs *b)
{
    free(b->s_mem);
    free(b->r_mem);
}

/* Initial contents of one case, identical for kcoll and the reference. */
void bufs_init(bufs *b, int coll, int me, int p, size_t n, int root,
               int in_place, unsigned seed)
{
    memset(b->s, 0xa5, b->slen);
    memset(b->r, 0x5a, b->rlen);
    switch (coll) {
    case SCATTER:
        if (me == root)
            for (int blk = 0; blk < p; blk++)
                pattern(b->s + (size_t)blk * n, n, root, blk, seed);
        break;
    case GATHER:
        pattern(b->s, n, me, 0, seed);
        if (in_place && me == root)
            pattern(b->r + (size_t)me * n, n, me, 0, seed);
        break;
    case BCAST:
        if (me == root)
            pattern(b->r, n, root, 0, seed);
        break;
    case ALLGATHER:
        pattern(b->s, n, me, 0, seed);
        if (in_place)
            pattern(b->r + (size_t)me * n, n, me, 0, seed);
        break;
    case ALLTOALL:
        for (int blk = 0; blk < p; blk++) {
            pattern(b->s + (size_t)blk * n, n, me, blk, seed);
            if (in_place)
                pattern(b->r + (size_t)blk * n, n, me, blk, seed);
        }
        break;
    }
}

int call(int coll, int kcoll, bufs *b, size_t n, int root,
         int in_place, MPI_Comm comm, const char *alg, int me)
{
    const void *s = b->s;
    void *r = b->r;
    switch (coll) {
    case SCATTER:
        if (in_place && me == root)
            r = MPI_IN_PLACE;
        return kcoll ? kcoll_scatter(s, r, n, root, comm, alg)
                     : kcoll_mpi_scatter(s, r, n, root, comm);
    case GATHER:
        if (in_place && me == root)
            s = MPI_IN_PLACE;
        return kcoll ? kcoll_gather(s, r, n, root, comm, alg)
                     : kcoll_mpi_gather(s, r, n, root, comm);
    case BCAST:
        return kcoll ? kcoll_bcast(r, n, root, comm, alg)
                     : kcoll_mpi_bcast(r, n, root, comm);
    case ALLGATHER:
        if (in_place)
            s = MPI_IN_PLACE;
        return kcoll ? kcoll_allgather(s, r, n, comm, alg)
                     : kcoll_mpi_allgather(s, r, n, comm);
    default:
        if (in_place)
            s = MPI_IN_PLACE;
        return kcoll ? kcoll_alltoall(s, r, n, comm, alg)
                     : kcoll_mpi_alltoall(s, r, n, comm);
    }
}

size_t first_diff(const unsigned char *a, const unsigned char *b,
                  size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return i;
    return (size_t)-1;
}

/* One case: kcoll against the built-in, from identical buffers. */
void run_case(int coll, const char *alg, size_t n, int root,
              int in_place, MPI_Comm comm, const char *comm_name)
{
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    size_t pn = (size_t)p * n, slen = n, rlen = n;
    if (coll == SCATTER)
        slen = pn;
    if (coll == GATHER || coll == ALLGATHER)
        rlen = pn;
    if (coll == ALLTOALL)
        slen = rlen = pn;
    if (coll == BCAST)
        slen = 0;
    unsigned seed = (unsigned)(cases * 7919u);
    size_t off = (size_t)((cases + me) % 4) * 3; /* 0, 3, 6, 9 */
    bufs k, ref;
    bufs_alloc(&k, slen, rlen, off);
    bufs_alloc(&ref, slen, rlen, (off + 1) % 8);
    bufs_init(&k, coll, me, p, n, root, in_place, seed);
    bufs_init(&ref, coll, me, p, n, root, in_place, seed);
    cases++;
    char what[200];
    snprintf(what, sizeof what, "%s %s n=%zu root=%d %s comm=%s(p=%d)",
             coll_names[coll], alg ? alg : "(NULL)", n, root,
             in_place ? "in-place" : "not-in-place", comm_name, p);
    int rc = call(coll, 1, &k, n, root, in_place, comm, alg, me);
    int rc_ref = call(coll, 0, &ref, n, root, in_place, comm, alg, me);
    char detail[120];
    size_t at;
    if (rc != MPI_SUCCESS || rc_ref != MPI_SUCCESS) {
        snprintf(detail, sizeof detail, "returned %d (reference %d)", rc,
                 rc_ref);
        fail(what, detail);
    } else if ((at = first_diff(k.r, ref.r, rlen)) != (size_t)-1) {
        snprintf(detail, sizeof detail,
                 "recvbuf differs from MPI at byte %zu of %zu (block %zu)",
                 at, rlen, n ? at / n : 0);
        fail(what, detail);
    } else if ((at = first_diff(k.s, ref.s, slen)) != (size_t)-1) {
        snprintf(detail, sizeof detail, "sendbuf changed at byte %zu", at);
        fail(what, detail);
    }
    bufs_free(&k);
    bufs_free(&ref);
}

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* Every (algorithm, k) spec valid at p; *count entries, caller frees. */
char **specs_for(int coll, int p, int *count)
{
    size_t na;
    const kcal_algorithm *algs = kcal_model_algorithms((kcal_coll)coll, &na);
    char **out = malloc(sizeof(char *) * (na * (size_t)(p + 2)));
    int c = 0;
    for (size_t i = 0; i < na; i++) {
        if (algs[i].kind == KCAL_PARAM_NONE) {
            out[c++] = strdup(algs[i].id);
            continue;
        }
        int stride = algs[i].kind == KCAL_PARAM_STRIDE;
        for (int k = stride ? 1 : 2; k <= p - 1; k++) {
            if (stride && gcd(p, k) != 1)
                continue;
            char buf[80];
            snprintf(buf, sizeof buf, "%s:%d", algs[i].id, k);
            out[c++] = strdup(buf);
        }
        if (stride && p == 1) { /* the plain ring, j = 1 */
            char buf[80];
            snprintf(buf, sizeof buf, "%s:1", algs[i].id);
            out[c++] = strdup(buf);
        }
    }
    *count = c;
    return out;
}

void free_specs(char **s, int count)
{
    for (int i = 0; i < count; i++)
        free(s[i]);
    free(s);
}

void matrix(MPI_Comm comm, const char *comm_name, const size_t *sz,
            size_t nsz, int all_algs)
{
    int p;
    MPI_Comm_size(comm, &p);
    int roots[3] = {0, p / 2, p - 1};
    for (int coll = 0; coll < NCOLL; coll++) {
        int count;
        char **specs = specs_for(coll, p, &count);
        if (!all_algs && count > 1)
            count = 1;
        int rooted = coll == SCATTER || coll == GATHER || coll == BCAST;
        for (int s = 0; s < count; s++)
            for (size_t i = 0; i < nsz; i++)
                for (int r = 0; r < (rooted ? 3 : 1); r++) {
                    if (r > 0 && roots[r] == roots[r - 1])
                        continue;
                    if (r == 2 && roots[2] == roots[0])
                        continue;
                    for (int ip = 0; ip < (coll == BCAST ? 1 : 2); ip++)
                        run_case(coll, specs[s], sz[i], roots[r], ip, comm,
                                 comm_name);
                }
        free_specs(specs, count);
    }
}

/* Ids that must be refused with an error code, without hanging. */
void bad_ids(MPI_Comm comm)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    char buf[64], big[16];
    unsigned char x[64] = {0}, y[64 * 16] = {0};
    snprintf(buf, sizeof buf, "throttled_read:%d", p);
    snprintf(big, sizeof big, "knomial:%d", p);
    const struct {
        int coll;
        const char *id;
    } bad[] = {
        {SCATTER, "nope"},
        {SCATTER, ""},
        {SCATTER, ":3"},
        {SCATTER, "throttled_read:"},
        {SCATTER, "throttled_read:x"},
        {SCATTER, "throttled_read:3x"},
        {SCATTER, "throttled_read:0"},
        {SCATTER, "throttled_read:1"},
        {SCATTER, "throttled_read:-2"},
        {SCATTER, buf},
        {SCATTER, "parallel_read:2"},
        {SCATTER, "parallel_write"},
        {GATHER, "parallel_read"},
        {GATHER, "throttled_write:99999999999"},
        {BCAST, big},
        {BCAST, "knomial:1"},
        {ALLGATHER, "ring_neighbor:0"},
        {ALLGATHER, p % 2 == 0 && p > 2 ? "ring_neighbor:2" : "ring_neighbor:-1"},
        {ALLGATHER, "pairwise"},
        {ALLTOALL, "bruck"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = call(bad[i].coll, 1,
                      &(bufs){.s = y, .r = y, .slen = sizeof y,
                              .rlen = sizeof y},
                      p <= 16 ? 4 : 0, 0, 0, comm, bad[i].id, me);
        cases++;
        if (rc == MPI_SUCCESS)
            fail(bad[i].id, "accepted, want an error code");
    }
    (void)x;
    /* A root out of range is refused too. */
    cases++;
    if (kcoll_bcast(x, 1, p, comm, "direct_read") == MPI_SUCCESS)
        fail("bcast root=p", "accepted, want an error code");
}
