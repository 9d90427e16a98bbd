/* vcoll_check: libkcoll's irregular collectives (kcoll_scatterv,
 * kcoll_gatherv, kcoll_allgatherv, kcoll_alltoallv; algos/kcoll.h) against
 * the pattern each block must carry and against the MPI library's own
 * MPI_Scatterv, MPI_Gatherv, MPI_Allgatherv and MPI_Alltoallv (MPI_BYTE,
 * int counts), run under mpirun at any p.
 *
 * For every v-collective, every algorithm of its rows in
 * algos/irregular.def (read here through the X-macros: a new row is tested
 * without a change here), "mpi" and NULL:
 *   - counts uniform, skewed (one rank 16x the others, a different one
 *     from case to case), random (seeded: the same on every rank), sparse
 *     (about one block in four not empty) and all zero, each around base
 *     sizes 1, 7, 4096 and 65536 + 13 bytes;
 *   - displacements, one layout after the other from case to case:
 *     packed in rank order (zero-length blocks then share
 *     an offset with the next: not an overlap), with gaps between blocks,
 *     and in reverse rank order with gaps; a receiver's layout differs
 *     from rank to rank where MPI lets displacements be local (allgatherv,
 *     alltoallv), and alltoallv's send side has a layout of its own;
 *   - every root of scatterv and gatherv (--few-roots: roots 0, p/2 and
 *     p - 1 only), in place and not (MPI_IN_PLACE as MPI defines it; the
 *     arguments MPI says a process ignores are passed as NULL, or as a
 *     wrong count, so that reading them shows);
 *   - receive buffers with guard bytes before and after: every byte
 *     outside the receive regions (gaps, guards) must keep its value, every
 *     byte inside must be the sender's pattern, and the MPI library's
 *     result from an identical buffer must equal it byte for byte (where
 *     the MPI library's own result is wrong, a NOTE line and a count on
 *     the summary, not a failure: MPICH 4.0.2's MPI_Allgatherv at p = 1
 *     ignores displs); send buffers must be left as they were.
 * A smaller matrix runs again on MPI_COMM_WORLD split in reversed rank
 * order (ranks that are not the world's). NULL's scatterv, gatherv and
 * alltoallv run between regular copy_in_out calls, their pairs staged at
 * some ranks only (interleaved()).
 * Then the errors:
 *   - an unknown id, and another v-collective's id, are MPI_ERR_ARG on
 *     every rank; a root out of range is MPI_ERR_ROOT on every rank;
 *   - overlapping receive regions at one process (allgatherv's and
 *     alltoallv's receivers, gatherv's root) are MPI_ERR_ARG there, its
 *     receive buffer untouched, while every other process gets
 *     MPI_SUCCESS and its right data (every algorithm, "mpi" and NULL);
 *   - counts that differ between a sender and a receiver (the receiver
 *     or the sender off by one either way; allgatherv also 0 against n:
 *     elsewhere one end would skip the pair as empty and the other wait,
 *     which MPI leaves erroneous and docs/libkcoll.md says) are an error
 *     at that receiver (algos/kcoll.h: MPI_ERR_TRUNCATE; another error code
 *     is counted and named on the summary, not failed), for every
 *     libkcoll algorithm, and nobody hangs; after each error case a right
 *     call on the same communicator must still be right.
 * Each case runs under alarm(): a case that hangs prints what it was and
 * exits 3. Prints one line per failure and
 * "vcoll_check p=P: N cases, F failed"; exit 1 on a failure. */
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "algos/kcoll.h"

/* The v-collectives and their algorithms, from the registry. */
enum {
#define KCOLL_VCOLL(ID, name, ...) V_##ID,
#include "algos/irregular.def"
    V_COUNT
};

static const char *const vcoll_names[V_COUNT] = {
#define KCOLL_VCOLL(ID, name, ...) #name,
#include "algos/irregular.def"
};

static const struct {
    int vcoll;
    const char *id;
    const char *path; /* ROOT_WINDOW: the id takes ":w" */
} rows[] = {
#define KCOLL_VALGORITHM(VCOLL, id, fn, regular, path) {V_##VCOLL, #id, #path},
#include "algos/irregular.def"
};

static int windowed(int i)
{
    return strcmp(rows[i].path, "ROOT_WINDOW") == 0;
}
#define NROWS ((int)(sizeof rows / sizeof *rows))

enum { UNIFORM, SKEWED, RANDOM, SPARSE, ZERO, NDIST };
static const char *const dist_names[NDIST] = {"uniform", "skewed", "random",
                                              "sparse", "zero"};
enum { PACKED, GAPS, REVERSE, NLAYOUT };
static const char *const layout_names[NLAYOUT] = {"packed", "gaps",
                                                  "reverse"};

#define GUARD 64

static int world_rank, world_size, cases, failed, other_codes;
static int few_roots;
static char current[512]; /* the case running, for the alarm */

static void on_alarm(int sig)
{
    (void)sig;
    char line[640];
    int n = snprintf(line, sizeof line,
                     "vcoll_check: rank %d: HANG (no return in 60 s): %s\n",
                     world_rank, current);
    if (n > 0)
        (void)!write(2, line, (size_t)n < sizeof line ? (size_t)n
                                                     : sizeof line - 1);
    _exit(3);
}

static int root_wanted(int root, int p)
{
    return !few_roots || root == 0 || root == p / 2 || root == p - 1;
}

/* One case, as its failure lines name it. */
typedef struct {
    int vc;
    const char *alg;
    int dist, layout, in_place, root;
    size_t base;
    MPI_Comm comm;
    const char *comm_name;
    unsigned seed;
} vcase;

static void describe(const vcase *k, char *out, size_t len)
{
    snprintf(out, len, "%s alg=%s dist=%s base=%zu layout=%s root=%d%s %s",
             vcoll_names[k->vc], k->alg ? k->alg : "NULL",
             dist_names[k->dist], k->base, layout_names[k->layout], k->root,
             k->in_place ? " in-place" : "", k->comm_name);
}

static void fail(const vcase *k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fail(const vcase *k, const char *fmt, ...)
{
    char what[400], desc[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    describe(k, desc, sizeof desc);
    failed++;
    printf("FAIL rank %d: %s: %s\n", world_rank, desc, what);
    fflush(stdout);
}

static void begin(const vcase *k, const char *what)
{
    char desc[300];
    describe(k, desc, sizeof desc);
    snprintf(current, sizeof current, "%s%s", what, desc);
    cases++;
    alarm(60);
}

/* splitmix64: the counts, the same sequence on every rank. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The byte i of the block rank s sends to rank d in case `seed`: a block
 * in the wrong place, from the wrong rank, or shifted by any amount shows. */
static inline unsigned char pat(int s, int d, size_t i, unsigned seed)
{
    uint32_t h = (uint32_t)i * 2654435761u ^
                 ((uint32_t)s * 40503u + (uint32_t)d * 7919u + seed * 97u);
    return (unsigned char)(h >> 24 ^ h >> 11 ^ (uint32_t)i);
}

static void fill_pat(unsigned char *to, size_t n, int s, int d, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        to[i] = pat(s, d, i, seed);
}

/* What a byte outside every region holds, and must still hold. */
static inline unsigned char poison(size_t i)
{
    return (unsigned char)(0x5a + i * 7 + (i >> 8));
}

/* One block's count under distribution `dist`; `heavy`: the 16x rank. */
static size_t one_count(int dist, size_t base, int heavy, uint64_t *rng)
{
    switch (dist) {
    case UNIFORM:
        return base;
    case SKEWED:
        return heavy ? 16 * base : base;
    case RANDOM:
        return (size_t)(rng_next(rng) % (2 * base + 1));
    case SPARSE:
        return rng_next(rng) % 4 == 0 ? 1 + (size_t)(rng_next(rng) % (2 * base))
                                      : 0;
    default:
        return 0;
    }
}

/* The p x p counts C[s * p + d] (bytes from s to d), the same on every
 * rank; symmetric for alltoallv in place (what a rank sends to d is what
 * it receives from d). */
static void count_matrix(size_t *C, int p, const vcase *k, int symmetric)
{
    uint64_t rng = 0x1234567ULL + k->seed;
    int heavy = (int)(k->seed % (unsigned)p);
    for (int s = 0; s < p; s++)
        for (int d = 0; d < p; d++)
            C[s * p + d] = one_count(k->dist, k->base, s == heavy, &rng);
    if (symmetric)
        for (int s = 0; s < p; s++)
            for (int d = 0; d < s; d++)
                C[s * p + d] = C[d * p + s];
}

/* One count per rank (scatterv: what the root sends each; gatherv,
 * allgatherv: what each sends). */
static void count_vector(size_t *c, int p, const vcase *k)
{
    uint64_t rng = 0x7654321ULL + k->seed;
    int heavy = (int)(k->seed % (unsigned)p);
    for (int r = 0; r < p; r++)
        c[r] = one_count(k->dist, k->base, r == heavy, &rng);
}

/* Displacements of p blocks of n[] bytes in layout `kind`; the extent. */
static size_t layout(const size_t *n, int p, int kind, size_t *displs)
{
    size_t at = 0;
    for (int j = 0; j < p; j++) {
        int r = kind == REVERSE ? p - 1 - j : j;
        if (kind == GAPS)
            at += 1 + (size_t)(r * 5 % 11);
        else if (kind == REVERSE)
            at += 2 + (size_t)(r % 3);
        displs[r] = at;
        at += n[r];
    }
    return at + (kind == PACKED ? 0 : 3);
}

/* A receive buffer: GUARD bytes, the extent, GUARD bytes; poisoned. */
typedef struct {
    unsigned char *mem;
    size_t len;
} gbuf;

static gbuf gbuf_new(size_t extent)
{
    gbuf g = {malloc(extent + 2 * GUARD), extent + 2 * GUARD};
    for (size_t i = 0; i < g.len; i++)
        g.mem[i] = poison(i);
    return g;
}

static unsigned char *base_of(gbuf g)
{
    return g.mem + GUARD;
}

/* Where offset `at` of a receive buffer lies: which block, or a gap. */
static void where(size_t at, const size_t *n, const size_t *displs, int p,
                  char *out, size_t len)
{
    if (at < GUARD) {
        snprintf(out, len, "guard before the buffer, %zu bytes before it",
                 GUARD - at);
        return;
    }
    size_t off = at - GUARD;
    for (int r = 0; n && r < p; r++)
        if (off >= displs[r] && off < displs[r] + n[r]) {
            snprintf(out, len, "block of rank %d (%zu bytes at %zu), byte %zu",
                     r, n[r], displs[r], off - displs[r]);
            return;
        }
    snprintf(out, len, "offset %zu, outside every receive region", off);
}

/* got against want, byte for byte; the first difference named. The MPI
 * library's result (reference) that differs is counted, not failed. */
static int ref_wrong;
static int compare(const vcase *k, const char *who, int reference,
                    const unsigned char *got,
                   const unsigned char *want, size_t len, const size_t *n,
                   const size_t *displs, int p)
{
    if (memcmp(got, want, len) == 0)
        return 1;
    size_t at = 0, diffs = 0;
    for (size_t i = 0; i < len; i++)
        if (got[i] != want[i]) {
            if (!diffs)
                at = i;
            diffs++;
        }
    char w[160];
    where(at, n, displs, p, w, sizeof w);
    if (reference) {
        /* The MPI library's own result is wrong (MPICH 4.0.2's
         * MPI_Allgatherv at p = 1 puts the block at offset 0, whatever
         * displs[0]): libkcoll is held to the pattern, not to it. */
        if (ref_wrong++ < 3) {
            char desc[300];
            describe(k, desc, sizeof desc);
            printf("NOTE rank %d: %s: %s: %zu bytes differ from the "
                   "pattern, the first in the %s\n",
                   world_rank, desc, who, diffs, w);
        }
        return 0;
    }
    fail(k, "%s: %zu bytes differ, the first in the %s (got 0x%02x, want "
            "0x%02x)",
         who, diffs, w, got[at], want[at]);
    return 0;
}

static size_t *sizes_new(int p)
{
    return calloc((size_t)p + 1, sizeof(size_t));
}

static int *to_int(const size_t *v, int p)
{
    int *o = calloc((size_t)p + 1, sizeof(int));
    for (int r = 0; v && r < p; r++)
        o[r] = (int)v[r];
    return v ? o : (free(o), NULL);
}

static void check_rc(const vcase *k, int rc, int want, const char *what)
{
    if (rc != want) {
        char s[MPI_MAX_ERROR_STRING] = "";
        int l = 0;
        MPI_Error_string(rc, s, &l);
        fail(k, "%s: returned %d (%s), want %d", what, rc, s, want);
    }
}

/* ---- scatterv ---------------------------------------------------------- */

/* victim: -1, or the receiver of a mismatch (mismatches()): its
 * recvcount off by recv_delta, or the root's sendcounts[victim] off by
 * send_delta (-1000: 0 bytes); only its return code is checked then. */
static void scatterv_case(const vcase *k, int recv_delta, int send_delta,
                          int victim)
{
    int p, me;
    MPI_Comm_size(k->comm, &p);
    MPI_Comm_rank(k->comm, &me);
    int R = k->root, is_root = me == R, ip = k->in_place && is_root;
    size_t *c = sizes_new(p), *sd = sizes_new(p);
    count_vector(c, p, k);
    size_t sext = layout(c, p, k->layout, sd);
    /* the root's send side: sendbuf exact, gaps with their own bytes */
    unsigned char *send = NULL, *send0 = NULL;
    size_t *sc = c;
    size_t *sc_bad = NULL;
    if (is_root) {
        send = malloc(sext + 1);
        for (size_t i = 0; i < sext; i++)
            send[i] = (unsigned char)~poison(i);
        for (int d = 0; d < p; d++)
            fill_pat(send + sd[d], c[d], R, d, k->seed);
        send0 = malloc(sext + 1);
        memcpy(send0, send, sext);
        if (victim >= 0 && send_delta) {
            sc_bad = sizes_new(p);
            memcpy(sc_bad, c, sizeof(size_t) * (size_t)p);
            sc_bad[victim] = send_delta == -1000 ? 0 : c[victim] + (size_t)send_delta;
            sc = sc_bad;
        }
    }
    size_t rc_n = c[me];
    if (victim == me && recv_delta)
        rc_n = recv_delta == -1000 ? 0 : c[me] + (size_t)recv_delta;
    gbuf got = gbuf_new(c[me]), ref = gbuf_new(c[me]), want = gbuf_new(c[me]);
    if (!ip)
        fill_pat(base_of(want) , c[me], R, me, k->seed);
    /* In place the root's recvcount is ignored: a wrong one shows a read. */
    size_t pass_n = ip ? c[me] + 3 : rc_n;
    int rc = kcoll_scatterv(is_root ? send : NULL, is_root ? sc : NULL,
                            is_root ? sd : NULL,
                            ip ? MPI_IN_PLACE : base_of(got), pass_n, R,
                            k->comm, k->alg);
    alarm(0);
    if (victim >= 0) {
        if (me == victim && rc == MPI_SUCCESS)
            fail(k, "mismatched counts (recv %+d, send %+d at rank %d): "
                    "MPI_SUCCESS at the receiver",
                 recv_delta, send_delta, victim);
        else if (me == victim && rc != MPI_ERR_TRUNCATE)
            other_codes++;
        goto out;
    }
    check_rc(k, rc, MPI_SUCCESS, "kcoll_scatterv");
    int *ic = to_int(c, p), *id = to_int(sd, p);
    MPI_Scatterv(is_root ? send : NULL, is_root ? ic : NULL,
                 is_root ? id : NULL, MPI_BYTE,
                 ip ? MPI_IN_PLACE : base_of(ref), (int)c[me], MPI_BYTE, R,
                 k->comm);
    free(ic);
    free(id);
    size_t one[1] = {c[me]}, zero[1] = {0};
    if (rc == MPI_SUCCESS)
        compare(k, "receive buffer", 0, got.mem, want.mem, got.len, one, zero, 1);
    compare(k, "MPI_Scatterv's receive buffer (the test's reference)", 1,
            ref.mem, want.mem, ref.len, one, zero, 1);
    if (is_root && memcmp(send, send0, sext) != 0)
        fail(k, "the root's send buffer changed");
out:
    free(got.mem);
    free(ref.mem);
    free(want.mem);
    free(send);
    free(send0);
    free(sc_bad);
    free(c);
    free(sd);
}

/* ---- gatherv ----------------------------------------------------------- */

/* overlap: the root's displacements make block 1 overlap block 0. */
static void gatherv_case(const vcase *k, int overlap, int recv_delta,
                         int send_delta, int sender)
{
    int p, me;
    MPI_Comm_size(k->comm, &p);
    MPI_Comm_rank(k->comm, &me);
    int R = k->root, is_root = me == R, ip = k->in_place && is_root;
    int mismatch = sender >= 0;
    size_t *c = sizes_new(p), *rd = sizes_new(p);
    count_vector(c, p, k);
    size_t rext = is_root ? layout(c, p, k->layout, rd) : 0;
    int ovl = overlap && is_root;
    size_t *rd_bad = NULL;
    if (ovl) { /* block 1 starts in the middle of block 0 */
        rd_bad = sizes_new(p);
        memcpy(rd_bad, rd, sizeof(size_t) * (size_t)p);
        rd_bad[1] = rd[0] + c[0] / 2;
    }
    size_t sn = c[me];
    if (mismatch && me == sender && send_delta)
        sn = send_delta == -1000 ? 0 : c[me] + (size_t)send_delta;
    size_t *rcv = c, *rc_bad = NULL;
    if (mismatch && is_root && recv_delta) {
        rc_bad = sizes_new(p);
        memcpy(rc_bad, c, sizeof(size_t) * (size_t)p);
        rc_bad[sender] = recv_delta == -1000 ? 0 : c[sender] + (size_t)recv_delta;
        rcv = rc_bad;
    }
    /* the send buffer: as many bytes as sent (more than c[me] if so) */
    unsigned char *send = malloc(sn + 1), *send0 = malloc(sn + 1);
    fill_pat(send, sn, me, R, k->seed);
    memcpy(send0, send, sn);
    gbuf got = {0}, ref = {0}, want = {0};
    if (is_root) {
        got = gbuf_new(rext);
        ref = gbuf_new(rext);
        want = gbuf_new(rext);
        for (int s = 0; s < p; s++)
            fill_pat(base_of(want) + rd[s], c[s], s, R, k->seed);
        if (ip) {
            fill_pat(base_of(got) + rd[R], c[R], R, R, k->seed);
            fill_pat(base_of(ref) + rd[R], c[R], R, R, k->seed);
        }
    }
    unsigned char *got0 = NULL;
    if (ovl) {
        got0 = malloc(got.len);
        memcpy(got0, got.mem, got.len);
    }
    int rc = kcoll_gatherv(ip ? MPI_IN_PLACE : send, ip ? c[me] + 5 : sn,
                           is_root ? base_of(got) : NULL,
                           is_root ? rcv : NULL,
                           is_root ? (ovl ? rd_bad : rd) : NULL, R, k->comm,
                           k->alg);
    alarm(0);
    if (mismatch) {
        if (is_root && rc == MPI_SUCCESS)
            fail(k, "mismatched counts (root's recvcount %+d, sender %d's "
                    "sendcount %+d): MPI_SUCCESS at the root",
                 recv_delta, sender, send_delta);
        else if (is_root && rc != MPI_ERR_TRUNCATE)
            other_codes++;
        goto out;
    }
    if (ovl) {
        check_rc(k, rc, MPI_ERR_ARG, "overlapping receive regions at the root");
        if (memcmp(got.mem, got0, got.len) != 0)
            fail(k, "overlapping receive regions: the root's receive buffer "
                    "was written");
    } else {
        check_rc(k, rc, MPI_SUCCESS, "kcoll_gatherv");
    }
    int *ic = to_int(c, p), *id = to_int(rd, p);
    MPI_Gatherv(ip ? MPI_IN_PLACE : send, (int)c[me], MPI_BYTE,
                is_root ? base_of(ref) : NULL, is_root ? ic : NULL,
                is_root ? id : NULL, MPI_BYTE, R, k->comm);
    free(ic);
    free(id);
    if (is_root) {
        if (rc == MPI_SUCCESS && !ovl)
            compare(k, "the root's receive buffer", 0, got.mem, want.mem,
                    got.len, c, rd, p);
        compare(k, "MPI_Gatherv's receive buffer (the test's reference)", 1,
                ref.mem, want.mem, ref.len, c, rd, p);
    }
    if (!ip && memcmp(send, send0, sn) != 0)
        fail(k, "the send buffer changed");
out:
    free(got.mem);
    free(ref.mem);
    free(want.mem);
    free(got0);
    free(send);
    free(send0);
    free(rd_bad);
    free(rc_bad);
    free(c);
    free(rd);
}

/* ---- allgatherv -------------------------------------------------------- */

/* overlap: rank `bad`'s displacements make block 1 overlap block 0.
 * Mismatch (sender >= 0): `victim`'s recvcounts[sender] off by recv_delta,
 * or sender's sendcount off by send_delta (every other rank sees it). */
static void allgatherv_case(const vcase *k, int bad, int recv_delta,
                            int send_delta, int sender, int victim)
{
    int p, me;
    MPI_Comm_size(k->comm, &p);
    MPI_Comm_rank(k->comm, &me);
    int ip = k->in_place;
    int mismatch = sender >= 0;
    size_t *c = sizes_new(p), *rd = sizes_new(p);
    count_vector(c, p, k);
    /* displacements are local: each rank its own layout */
    size_t rext = layout(c, p, (k->layout + me) % NLAYOUT, rd);
    int ovl = bad == me;
    size_t *rd_pass = rd, *rd_bad = NULL;
    if (ovl) {
        rd_bad = sizes_new(p);
        memcpy(rd_bad, rd, sizeof(size_t) * (size_t)p);
        rd_bad[1] = rd[0] + c[0] / 2;
        rd_pass = rd_bad;
    }
    size_t sn = c[me];
    if (mismatch && me == sender && send_delta)
        sn = send_delta == -1000 ? 0 : c[me] + (size_t)send_delta;
    size_t *rcv = c, *rc_bad = NULL;
    if (mismatch && me == victim && recv_delta) {
        rc_bad = sizes_new(p);
        memcpy(rc_bad, c, sizeof(size_t) * (size_t)p);
        rc_bad[sender] = recv_delta == -1000 ? 0 : c[sender] + (size_t)recv_delta;
        rcv = rc_bad;
    }
    unsigned char *send = malloc(sn + 1), *send0 = malloc(sn + 1);
    fill_pat(send, sn, me, 0, k->seed);
    memcpy(send0, send, sn);
    gbuf got = gbuf_new(rext), ref = gbuf_new(rext), want = gbuf_new(rext);
    for (int s = 0; s < p; s++)
        fill_pat(base_of(want) + rd[s], c[s], s, 0, k->seed);
    if (ip) {
        fill_pat(base_of(got) + rd_pass[me], c[me], me, 0, k->seed);
        fill_pat(base_of(ref) + rd[me], c[me], me, 0, k->seed);
    }
    unsigned char *got0 = malloc(got.len);
    memcpy(got0, got.mem, got.len);
    int rc = kcoll_allgatherv(ip ? MPI_IN_PLACE : send, ip ? c[me] + 5 : sn,
                              base_of(got), rcv, rd_pass, k->comm, k->alg);
    alarm(0);
    if (mismatch) {
        int sees = recv_delta ? me == victim : me != sender;
        if (sees && rc == MPI_SUCCESS)
            fail(k, "mismatched counts (rank %d's recvcounts[%d] %+d, rank "
                    "%d's sendcount %+d): MPI_SUCCESS at receiver %d",
                 victim, sender, recv_delta, sender, send_delta, me);
        else if (sees && rc != MPI_ERR_TRUNCATE)
            other_codes++;
        goto out;
    }
    if (ovl) {
        check_rc(k, rc, MPI_ERR_ARG, "overlapping receive regions here");
        if (memcmp(got.mem, got0, got.len) != 0)
            fail(k, "overlapping receive regions: the receive buffer was "
                    "written");
    } else {
        check_rc(k, rc, MPI_SUCCESS, bad >= 0 ? "kcoll_allgatherv while "
                                                "another rank's regions "
                                                "overlap"
                                              : "kcoll_allgatherv");
    }
    int *ic = to_int(c, p), *id = to_int(rd, p);
    MPI_Allgatherv(ip ? MPI_IN_PLACE : send, (int)c[me], MPI_BYTE,
                   base_of(ref), ic, id, MPI_BYTE, k->comm);
    free(ic);
    free(id);
    if (rc == MPI_SUCCESS && !ovl)
        compare(k, "receive buffer", 0, got.mem, want.mem, got.len, c, rd, p);
    compare(k, "MPI_Allgatherv's receive buffer (the test's reference)", 1,
            ref.mem, want.mem, ref.len, c, rd, p);
    if (!ip && memcmp(send, send0, sn) != 0)
        fail(k, "the send buffer changed");
out:
    free(got.mem);
    free(ref.mem);
    free(want.mem);
    free(got0);
    free(send);
    free(send0);
    free(rd_bad);
    free(rc_bad);
    free(c);
    free(rd);
}

/* ---- alltoallv --------------------------------------------------------- */

/* overlap at rank `bad`; mismatch on the pair sender -> victim: victim's
 * recvcounts[sender] off by recv_delta, or sender's sendcounts[victim] off
 * by send_delta. */
static void alltoallv_case(const vcase *k, int bad, int recv_delta,
                           int send_delta, int sender, int victim)
{
    int p, me;
    MPI_Comm_size(k->comm, &p);
    MPI_Comm_rank(k->comm, &me);
    int ip = k->in_place;
    int mismatch = sender >= 0;
    size_t *C = calloc((size_t)p * (size_t)p + 1, sizeof(size_t));
    count_matrix(C, p, k, ip);
    size_t *sc = sizes_new(p), *rcv = sizes_new(p), *sd = sizes_new(p),
           *rd = sizes_new(p);
    for (int r = 0; r < p; r++) {
        sc[r] = C[me * p + r];
        rcv[r] = C[r * p + me];
    }
    size_t sext = layout(sc, p, (k->layout + 1) % NLAYOUT, sd);
    size_t rext = layout(rcv, p, (k->layout + me) % NLAYOUT, rd);
    int ovl = bad == me;
    size_t *rd_pass = rd, *rd_bad = NULL;
    if (ovl) {
        rd_bad = sizes_new(p);
        memcpy(rd_bad, rd, sizeof(size_t) * (size_t)p);
        rd_bad[1] = rd[0] + rcv[0] / 2;
        rd_pass = rd_bad;
    }
    size_t *sc_pass = sc, *sc_bad = NULL, *rc_pass = rcv, *rc_bad = NULL;
    size_t sext_pass = sext;
    if (mismatch && me == sender && send_delta) {
        sc_bad = sizes_new(p);
        memcpy(sc_bad, sc, sizeof(size_t) * (size_t)p);
        sc_bad[victim] = send_delta == -1000 ? 0 : sc[victim] + (size_t)send_delta;
        sc_pass = sc_bad;
        sext_pass = sext + 2; /* room for the extra byte past the last */
    }
    if (mismatch && me == victim && recv_delta) {
        rc_bad = sizes_new(p);
        memcpy(rc_bad, rcv, sizeof(size_t) * (size_t)p);
        rc_bad[sender] = recv_delta == -1000 ? 0 : rcv[sender] + (size_t)recv_delta;
        rc_pass = rc_bad;
    }
    unsigned char *send = malloc(sext_pass + 1), *send0 = malloc(sext_pass + 1);
    for (size_t i = 0; i < sext_pass; i++)
        send[i] = (unsigned char)~poison(i);
    for (int d = 0; d < p; d++)
        fill_pat(send + sd[d], sc[d], me, d, k->seed);
    memcpy(send0, send, sext_pass);
    gbuf got = gbuf_new(rext), ref = gbuf_new(rext), want = gbuf_new(rext);
    for (int s = 0; s < p; s++)
        fill_pat(base_of(want) + rd[s], rcv[s], s, me, k->seed);
    if (ip) /* what goes to d is where what comes from d goes */
        for (int d = 0; d < p; d++) {
            fill_pat(base_of(got) + rd_pass[d], rcv[d], me, d, k->seed);
            fill_pat(base_of(ref) + rd[d], rcv[d], me, d, k->seed);
        }
    unsigned char *got0 = malloc(got.len);
    memcpy(got0, got.mem, got.len);
    int rc = kcoll_alltoallv(ip ? MPI_IN_PLACE : send, ip ? NULL : sc_pass,
                             ip ? NULL : sd, base_of(got), rc_pass, rd_pass,
                             k->comm, k->alg);
    alarm(0);
    if (mismatch) {
        if (me == victim && rc == MPI_SUCCESS)
            fail(k, "mismatched counts on %d -> %d (recv %+d, send %+d): "
                    "MPI_SUCCESS at the receiver",
                 sender, victim, recv_delta, send_delta);
        else if (me == victim && rc != MPI_ERR_TRUNCATE)
            other_codes++;
        goto out;
    }
    if (ovl) {
        check_rc(k, rc, MPI_ERR_ARG, "overlapping receive regions here");
        if (memcmp(got.mem, got0, got.len) != 0)
            fail(k, "overlapping receive regions: the receive buffer was "
                    "written");
    } else {
        check_rc(k, rc, MPI_SUCCESS, bad >= 0 ? "kcoll_alltoallv while "
                                                "another rank's regions "
                                                "overlap"
                                              : "kcoll_alltoallv");
    }
    int *isc = to_int(sc, p), *isd = to_int(sd, p), *irc = to_int(rcv, p),
        *ird = to_int(rd, p);
    MPI_Alltoallv(ip ? MPI_IN_PLACE : send, isc, isd, MPI_BYTE, base_of(ref),
                  irc, ird, MPI_BYTE, k->comm);
    free(isc);
    free(isd);
    free(irc);
    free(ird);
    if (rc == MPI_SUCCESS && !ovl)
        compare(k, "receive buffer", 0, got.mem, want.mem, got.len, rcv, rd, p);
    compare(k, "MPI_Alltoallv's receive buffer (the test's reference)", 1,
            ref.mem, want.mem, ref.len, rcv, rd, p);
    if (!ip && memcmp(send, send0, sext_pass) != 0)
        fail(k, "the send buffer changed");
out:
    free(got.mem);
    free(ref.mem);
    free(want.mem);
    free(got0);
    free(send);
    free(send0);
    free(rd_bad);
    free(sc_bad);
    free(rc_bad);
    free(C);
    free(sc);
    free(rcv);
    free(sd);
    free(rd);
}

/* One right case of any v-collective. */
static void run_case(const vcase *k)
{
    begin(k, "");
    switch (k->vc) {
    case V_SCATTERV:
        scatterv_case(k, 0, 0, -1);
        break;
    case V_GATHERV:
        gatherv_case(k, 0, 0, 0, -1);
        break;
    case V_ALLGATHERV:
        allgatherv_case(k, -1, 0, 0, -1, -1);
        break;
    case V_ALLTOALLV:
        alltoallv_case(k, -1, 0, 0, -1, -1);
        break;
    default:
        fail(k, "no test for this v-collective (tests/vcoll_check.c)");
    }
    alarm(0);
}

/* The algorithms of v-collective vc at p: its rows (a windowed one also
 * with the windows 1 and p − 1: one copy at a time, and the parallel
 * row's p − 1 with the window's protocol), "mpi", NULL. */
static int algorithms(int vc, int p, const char **out)
{
    static char names[NROWS][2][48];
    int n = 0;
    for (int i = 0; i < NROWS; i++)
        if (rows[i].vcoll == vc) {
            out[n++] = rows[i].id;
            for (int j = 0; j < 2 && windowed(i); j++) {
                int w = j ? p - 1 : 1;
                if (j && w <= 1)
                    break;
                snprintf(names[i][j], sizeof names[i][j], "%s:%d",
                         rows[i].id, w);
                out[n++] = names[i][j];
            }
        }
    out[n++] = "mpi";
    out[n++] = NULL;
    return n;
}

static unsigned next_seed(void)
{
    static unsigned s = 1;
    return s++;
}

/* The matrix of right cases on comm: every algorithm, distribution,
 * base, in place and not, root; the layouts of layouts_mask in turn (each
 * (algorithm, distribution) meets each layout across the bases, roots and
 * in-placeness, in a third of the time of every layout for every case). */
static void matrix(MPI_Comm comm, const char *name, const size_t *bases,
                   int nbases, int dists_mask, int layouts_mask)
{
    int p, turn = 0;
    MPI_Comm_size(comm, &p);
    for (int vc = 0; vc < V_COUNT; vc++) {
        const char *algs[3 * NROWS + 2];
        int na = algorithms(vc, p, algs);
        int rooted = vc == V_SCATTERV || vc == V_GATHERV;
        for (int a = 0; a < na; a++)
            for (int dist = 0; dist < NDIST; dist++) {
                if (!(dists_mask >> dist & 1))
                    continue;
                for (int b = 0; b < nbases; b++) {
                    if (dist == ZERO && b > 0)
                        continue; /* all zero is all zero at any base */
                    for (int ip = 0; ip < 2; ip++)
                        for (int root = 0; root < (rooted ? p : 1); root++) {
                            if (rooted && !root_wanted(root, p))
                                continue;
                            /* the layouts in turn, case after case */
                            int lay;
                            do
                                lay = turn++ % NLAYOUT;
                            while (!(layouts_mask >> lay & 1));
                            vcase k = {vc, algs[a], dist, lay, ip, root,
                                       bases[b], comm, name, next_seed()};
                            run_case(&k);
                        }
                }
            }
    }
}

/* NULL's rooted calls repeated with the same counts, in place and not,
 * uniform and skewed: the root explores its three help policies
 * (algos/vhelp.h) over a class's first calls, one untimed and
 * KCOLL_VHELP_SAMPLES timed each, so 3 x 5 calls run every one of them,
 * each result checked. */
static void repeated(MPI_Comm comm)
{
    int dists[] = {UNIFORM, SKEWED};
    for (int vc = V_SCATTERV; vc <= V_GATHERV; vc++)
        for (int d = 0; d < 2; d++)
            for (int ip = 0; ip < 2; ip++)
                for (int i = 0; i < 16; i++) {
                    vcase k = {vc, NULL, dists[d], PACKED, ip, 0,
                               65536 + 13, comm, "repeated", next_seed()};
                    run_case(&k);
                }
}

/* Staged pairs next to the regular collectives' copy_in_out, which share
 * the staging areas (algos/vstaged.c): NULL scatterv and gatherv calls,
 * and alltoallv calls (at most 8 ranks),
 * whose pairs are staged at some ranks only (a 1000-byte block, inside
 * NULL's staged range where the params give one), empty at others and
 * long at the rest (40000 bytes: CMA or a message), the roles turning
 * from call to call, between bcast and allgather copy_in_out calls rooted
 * at a rank that had no staged pair. A process that staged nothing never
 * flags the call; a writer that waited for it would hang here (alarm). */
static void interleaved(MPI_Comm comm)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    size_t *n = sizes_new(p), *at = sizes_new(p), total = 0;
    const size_t sizes[3] = {1000, 0, 40000};
    for (int i = 0; i < p; i++)
        total += 40000;
    unsigned char *big = malloc(total), *mine = malloc(40000);
    unsigned char *all = malloc((size_t)p * 2000), *b = malloc(2000);
    unsigned char *recv = malloc(total);
    size_t *sc = sizes_new(p), *rcn = sizes_new(p), *sd = sizes_new(p),
           *rd = sizes_new(p);
    for (int it = 0; it < 24; it++) {
        int root = it % p;
        for (int r = 0; r < p; r++) {
            n[r] = sizes[(size_t)(r + it) % 3];
            at[r] = (size_t)r * 40000;
        }
        vcase k = {it % 2 ? V_GATHERV : V_SCATTERV, NULL, UNIFORM, PACKED,
                   0, root, 1000, comm, "interleaved", (unsigned)it};
        begin(&k, "interleaved: ");
        int rc;
        if (it % 2 == 0) {
            for (size_t i = 0; i < total && me == root; i++)
                big[i] = (unsigned char)(i / 40000 * 31 + i + (size_t)it);
            memset(mine, 0, 40000);
            rc = kcoll_scatterv(big, n, at, mine, n[me], root, comm, NULL);
            for (size_t i = 0; rc == MPI_SUCCESS && i < n[me]; i++)
                if (mine[i] != (unsigned char)((size_t)me * 31 +
                                               (size_t)me * 40000 + i +
                                               (size_t)it)) {
                    fail(&k, "scatterv byte %zu wrong", i);
                    break;
                }
        } else {
            for (size_t i = 0; i < n[me]; i++)
                mine[i] = (unsigned char)(me * 7 + (int)i + it);
            memset(big, 0, total);
            rc = kcoll_gatherv(mine, n[me], big, n, at, root, comm, NULL);
            for (int r = 0; rc == MPI_SUCCESS && me == root && r < p; r++)
                for (size_t i = 0; i < n[r]; i++)
                    if (big[at[r] + i] != (unsigned char)(r * 7 + (int)i +
                                                          it)) {
                        fail(&k, "gatherv block %d byte %zu wrong", r, i);
                        break;
                    }
        }
        if (rc != MPI_SUCCESS)
            fail(&k, "returned %d", rc);
        /* alltoallv: pair s -> d staged, empty or long by s + 2d */
        for (int r = 0; r < p && p <= 8; r++) {
            sc[r] = sizes[(size_t)(me + 2 * r + it) % 3];
            rcn[r] = sizes[(size_t)(r + 2 * me + it) % 3];
            sd[r] = rd[r] = (size_t)r * 40000;
        }
        for (size_t i = 0; i < total && p <= 8; i++)
            big[i] = (unsigned char)(me + (int)(i / 40000) * 5 + (int)i + it);
        rc = p <= 8 ? kcoll_alltoallv(big, sc, sd, recv, rcn, rd, comm, NULL)
                    : MPI_SUCCESS;
        for (int r = 0; rc == MPI_SUCCESS && r < p && p <= 8; r++)
            for (size_t i = 0; i < rcn[r]; i++)
                if (recv[rd[r] + i] !=
                    (unsigned char)(r + me * 5 + (int)(rd[me] + i) + it)) {
                    fail(&k, "alltoallv block from %d byte %zu wrong", r, i);
                    break;
                }
        if (rc != MPI_SUCCESS)
            fail(&k, "alltoallv returned %d", rc);
        /* a regular copy_in_out rooted at a rank with no staged pair */
        int other = (root + 2) % p;
        for (int i = 0; i < 2000; i++)
            b[i] = me == other ? (unsigned char)(i + it) : 0;
        rc = kcoll_bcast(b, 2000, other, comm, "copy_in_out");
        for (int i = 0; rc == MPI_SUCCESS && i < 2000; i++)
            if (b[i] != (unsigned char)(i + it)) {
                fail(&k, "bcast copy_in_out byte %d wrong", i);
                break;
            }
        if (rc == MPI_SUCCESS)
            rc = kcoll_allgather(b, all, 2000, comm, "copy_in_out");
        for (int r = 0; rc == MPI_SUCCESS && r < p; r++)
            if (memcmp(all + (size_t)r * 2000, b, 2000) != 0) {
                fail(&k, "allgather copy_in_out block %d wrong", r);
                break;
            }
        if (rc != MPI_SUCCESS)
            fail(&k, "a regular copy_in_out returned %d", rc);
        alarm(0);
    }
    free(n);
    free(at);
    free(big);
    free(mine);
    free(all);
    free(b);
    free(recv);
    free(sc);
    free(rcn);
    free(sd);
    free(rd);
}

/* Errors the same on every rank: unknown ids, a root out of range. */
static void bad_ids(MPI_Comm comm)
{
    int p, me;
    MPI_Comm_size(comm, &p);
    MPI_Comm_rank(comm, &me);
    unsigned char s[64] = {0}, r[64 * 64] = {0};
    size_t *c = sizes_new(p), *d = sizes_new(p);
    for (int i = 0; i < p; i++) {
        c[i] = 1;
        d[i] = (size_t)i;
    }
    for (int vc = 0; vc < V_COUNT; vc++) {
        /* an unknown id, the first id of another v-collective, a window
         * on a row without one, windows 0 and past p − 1 */
        const char *foreign = NULL, *first = NULL, *win = NULL;
        for (int i = 0; i < NROWS; i++) {
            if (rows[i].vcoll != vc && !foreign)
                foreign = rows[i].id;
            if (rows[i].vcoll == vc && !first)
                first = rows[i].id;
            if (rows[i].vcoll == vc && windowed(i) && !win)
                win = rows[i].id;
        }
        char plain_w[64], zero_w[64], past_w[64];
        snprintf(plain_w, sizeof plain_w, "%s:1", first);
        snprintf(zero_w, sizeof zero_w, "%s:0", win ? win : "");
        snprintf(past_w, sizeof past_w, "%s:%d", win ? win : "",
                 p > 2 ? p : 2);
        const char *ids[] = {"no_such_algorithm", foreign, plain_w,
                             win ? zero_w : NULL, win ? past_w : NULL};
        for (int i = 0; i < 5; i++) {
            if (!ids[i])
                continue;
            vcase k = {vc, ids[i], UNIFORM, PACKED, 0, 0, 1, comm,
                       "unknown id", 0};
            begin(&k, "");
            int rc = MPI_SUCCESS;
            switch (vc) {
            case V_SCATTERV:
                rc = kcoll_scatterv(s, c, d, r, 1, 0, comm, ids[i]);
                break;
            case V_GATHERV:
                rc = kcoll_gatherv(s, 1, r, c, d, 0, comm, ids[i]);
                break;
            case V_ALLGATHERV:
                rc = kcoll_allgatherv(s, 1, r, c, d, comm, ids[i]);
                break;
            case V_ALLTOALLV:
                rc = kcoll_alltoallv(s, c, d, r, c, d, comm, ids[i]);
                break;
            }
            alarm(0);
            check_rc(&k, rc, MPI_ERR_ARG, "an unknown id");
        }
    }
    /* roots p and -1 */
    for (int i = 0; i < 2; i++) {
        int root = i ? -1 : p;
        for (int vc = V_SCATTERV; vc <= V_GATHERV; vc++) {
            vcase k = {vc, NULL, UNIFORM, PACKED, 0, root, 1, comm,
                       "bad root", 0};
            begin(&k, "");
            int rc = vc == V_SCATTERV
                         ? kcoll_scatterv(s, c, d, r, 1, root, comm, NULL)
                         : kcoll_gatherv(s, 1, r, c, d, root, comm, NULL);
            alarm(0);
            check_rc(&k, rc, MPI_ERR_ROOT, "a root out of range");
        }
    }
    free(c);
    free(d);
}

/* Overlapping receive regions at one rank (the last; gatherv: the root),
 * every algorithm, two sizes (pairs by message and by CMA under NULL). */
static void overlaps(MPI_Comm comm, const char *name)
{
    int p;
    MPI_Comm_size(comm, &p);
    if (p < 2)
        return; /* two blocks are needed to overlap */
    int vcs[] = {V_GATHERV, V_ALLGATHERV, V_ALLTOALLV};
    size_t bases[] = {7, 65549};
    for (int v = 0; v < 3; v++) {
        const char *algs[3 * NROWS + 2];
        int na = algorithms(vcs[v], p, algs);
        for (int a = 0; a < na; a++)
            for (int b = 0; b < 2; b++)
                for (int lay = 0; lay < NLAYOUT; lay += 2) {
                    int bad = p - 1;
                    vcase k = {vcs[v], algs[a], UNIFORM, lay, 0, bad,
                               bases[b], comm, name, next_seed()};
                    begin(&k, "overlap: ");
                    if (vcs[v] == V_GATHERV)
                        gatherv_case(&k, 1, 0, 0, -1);
                    else if (vcs[v] == V_ALLGATHERV)
                        allgatherv_case(&k, bad, 0, 0, -1, -1);
                    else
                        alltoallv_case(&k, bad, 0, 0, -1, -1);
                    alarm(0);
                    /* then a right call on the same communicator */
                    k.seed = next_seed();
                    run_case(&k);
                }
    }
}

/* Counts that differ between the sender (rank 0; scatterv: the root) and
 * the receiver (rank p - 1; gatherv: the root): the receiver's count or
 * the sender's one byte more or one byte less, or (zero) 0 against n,
 * allgatherv only (its ranks exchange every count; in the others one side
 * skips a pair it counts empty while the other waits for it, erroneous
 * as MPI says: docs/libkcoll.md "Irregular collectives"). Every libkcoll
 * algorithm (the rows; "mpi" is the MPI library's, which need not see a
 * short message). */
static void mismatches(MPI_Comm comm, const char *name, int zero)
{
    int p;
    MPI_Comm_size(comm, &p);
    int sender = 0, victim = p - 1;
    int deltas[] = {1, -1}; /* zero: -1000, 0 bytes against n */
    size_t bases[] = {7, 65549};
    for (int i = 0; i < NROWS; i++) {
        int vc = rows[i].vcoll;
        if (zero && vc != V_ALLGATHERV)
            continue;
        for (int b = 0; b < 2; b++)
            for (int side = 0; side < 2; side++)
                for (int di = 0; di < (zero ? 1 : 2); di++) {
                    int delta = zero ? -1000 : deltas[di];
                    int rd = side == 0 ? delta : 0;
                    int sd = side == 1 ? delta : 0;
                    vcase k = {vc, rows[i].id, UNIFORM, GAPS, 0, 0, bases[b],
                               comm, name, next_seed()};
                    begin(&k, "mismatch: ");
                    switch (vc) {
                    case V_SCATTERV:
                        k.root = sender;
                        scatterv_case(&k, rd, sd, victim);
                        break;
                    case V_GATHERV:
                        k.root = victim;
                        gatherv_case(&k, 0, rd, sd, sender);
                        break;
                    case V_ALLGATHERV:
                        if (sd && p == 1)
                            break; /* no other receiver */
                        allgatherv_case(&k, -1, rd, sd, sender, victim);
                        break;
                    case V_ALLTOALLV:
                        alltoallv_case(&k, -1, rd, sd, sender, victim);
                        break;
                    }
                    alarm(0);
                    k.seed = next_seed();
                    k.root = 0;
                    run_case(&k);
                }
    }
}

/* Rank 0's progress on stderr: each part's cases and seconds. */
static void phase(const char *what)
{
    static double t0;
    static int c0;
    double now = MPI_Wtime();
    if (world_rank == 0 && what)
        fprintf(stderr, "vcoll_check: %s: %d cases, %.1f s\n", what,
                cases - c0, now - t0);
    t0 = now;
    c0 = cases;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    few_roots = argc > 1 && !strcmp(argv[1], "--few-roots");
    signal(SIGALRM, on_alarm);
    phase(NULL);
    /* The MPI reference calls return their errors too (a wrong test
     * shows as a failure, not an abort). */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    size_t bases[] = {1, 7, 4096, 65536 + 13};
    matrix(MPI_COMM_WORLD, "world", bases, 4, 0x1f, 0x7);
    phase("matrix on the world");
    /* A communicator whose ranks are not the world's: reversed. */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, -world_rank, &rev);
    size_t rbases[] = {7, 65536 + 13};
    matrix(rev, "reversed", rbases, 2, 1 << RANDOM | 1 << SKEWED,
           1 << GAPS | 1 << REVERSE);
    phase("matrix on the reversed world");
    repeated(MPI_COMM_WORLD);
    phase("NULL repeated: the root's help policies in turn");
    interleaved(MPI_COMM_WORLD);
    phase("NULL's staged pairs between regular copy_in_out calls");
    bad_ids(MPI_COMM_WORLD);
    overlaps(MPI_COMM_WORLD, "world");
    overlaps(rev, "reversed");
    phase("unknown ids, bad roots, overlaps");
    mismatches(MPI_COMM_WORLD, "world", 0);
    phase("mismatched counts, one byte off");
    /* Last: a side that thinks a pair empty must not leave the other
     * waiting (a hang here stops the run at its alarm). */
    mismatches(MPI_COMM_WORLD, "world", 1);
    phase("mismatched counts, 0 against n");
    MPI_Comm_free(&rev);

    int total_bad, total_cases, total_other, total_ref;
    MPI_Allreduce(&ref_wrong, &total_ref, 1, MPI_INT, MPI_SUM,
                  MPI_COMM_WORLD);
    MPI_Allreduce(&failed, &total_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&cases, &total_cases, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&other_codes, &total_other, 1, MPI_INT, MPI_SUM,
                  MPI_COMM_WORLD);
    if (world_rank == 0) {
        if (total_ref)
            printf("vcoll_check: the MPI library's own result differed "
                   "from the pattern %d times (NOTE lines; not libkcoll's, "
                   "not counted as failures)\n",
                   total_ref);
        if (total_other)
            printf("vcoll_check: %d mismatched-count cases returned an error "
                   "other than MPI_ERR_TRUNCATE\n",
                   total_other);
        printf("vcoll_check p=%d: %d cases, %d failed\n", world_size,
               total_cases, total_bad);
    }
    MPI_Finalize();
    return total_bad != 0;
}
