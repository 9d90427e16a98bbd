/* kcal-vcoll-bench: the irregular collectives (kcoll_scatterv, gatherv,
 * allgatherv, alltoallv: algos/irregular.def) against the MPI library's
 * own v-collective: the program `kcal bench --coll V --counts D` launches
 * (cmd/bench_cmd.c), and scripts/bench-irregular directly; it runs under
 * any launcher:
 *
 *   kcal-vcoll-bench --coll C --counts D [--sizes LIST|MIN:MAX]
 *                    [--algorithm ID[,ID...]] [--iterations MAX]
 *                    [--min-iterations N] [--budget SECONDS] [--warmup N]
 *                    [--root R] [--quiet] [--progress] [--mpi NAME]
 *                    [--expect-p P]
 *   kcal-vcoll-bench --library     (the MPI library's version line)
 *
 * One launch measures one collective and one count distribution over the
 * sizes, each size's rows interleaved: `mpi` (MPI_Scatterv, ... with
 * MPI_BYTE), every id of algos/irregular.def for the collective (made
 * from the .def's X-macros, so a new row is measured without a change
 * here; --algorithm keeps only the ids it names), `auto` (algorithm NULL:
 * its per-pair hand-off comes from $KCAL_PARAMS, algos/irregular.c;
 * verified at run time, it explores after the warm-up, settle_auto) and
 * `limit`. The timing is kcal-bench-mpi's (bench/bench_mpi.c says why):
 * each iteration runs every row once, in an order drawn anew for the
 * iteration (the same on every rank: bench/bench_stats.h), so the host's
 * drift hits all rows alike; each timed call comes right after an
 * untimed call of the same row (it starts from the state its own calls
 * leave) and a barrier; its time is its span, from the first process's
 * start to the last process's end on the node's one clock
 * (CLOCK_MONOTONIC), i.e. at least the slowest process's own time.
 *
 * limit, as kcal-bench-mpi's: the copies alone, each charged to the
 * process that receives the data, all processes at once with no
 * synchronisation but the barrier before: every process copies its own
 * block locally (kcal_copy) and reads every block it receives from the
 * process that holds it, one process_vm_readv per block that has bytes,
 * into the collective's own buffer; timed as the slowest process's own
 * duration. Under skewed counts it is the busiest process's bytes.
 *
 * Sizes: SIZE is the mean block, in bytes (a list "4K,1M" or "MIN:MAX"
 * doubling: common/sizes.h). --counts D is the distribution of the
 * blocks, common/vcounts.h's, the one `kcal predict --counts` reads, so
 * a measurement and a prediction mean the same matrix M (M[s·p + d]:
 * bytes rank s sends rank d): uniform, skew:F (rank 1's blocks, what it
 * sends and what it receives, F x SIZE), random:SEED (uniform in
 * 0..2 x SIZE, the same on every rank), sparse (most blocks 0: a quarter
 * of the pairs 4 x SIZE), file:PATH. Each collective takes the entries
 * vcounts.h names: alltoallv all of M, scatterv row `root` (default 0),
 * gatherv column `root`, allgatherv column 0.
 *
 * Iterations, adaptively: --warmup rounds (default 5) first, untimed; the
 * slowest rank's time of a warm-up round then sets this size's timed
 * iterations to --budget (default 1.5 s) over it, within --min-iterations
 * (20) and --iterations (300), the same on every rank (kcal bench gives
 * both its --iterations: a fixed count). The first warm-up round also
 * checks every row's result against the pattern the senders wrote (a
 * mismatch: exit 1, no CSV).
 *
 * Rank 0 prints, when every call succeeded, kcal-bench-mpi's CSV on
 * stdout (common/columns.h: KCAL_CSV_MEASURED_HEADER, k empty, the
 * collective's name with its distribution in the first column:
 * kcal_vcounts_label, "alltoallv" for uniform counts, "alltoallv-skew-16"
 * for skew:16, as kcal predict --counts writes it). --progress, --mpi and --expect-p are kcal bench's, as
 * for kcal-bench-mpi (a "#library" line first, "#progress DONE TOTAL
 * WHAT" lines per size unless --quiet; a run of another library's build
 * or under another library's launcher stops with one line, exit 2).
 * Without --progress and --quiet, one line per size on stderr gives its
 * iterations. Exit 0; 1 a call failed or a result was wrong; 2 bad
 * options; 3 CMA is forbidden between the ranks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "algos/irregular.h"
#include "algos/kcoll.h"
#include "algos/kcoll_impl.h"
#include "algos/verify.h"
#include "algos/vkey.h"
#include "bench/bench_stats.h"
#include "bench/bench_world.h"
#include "common/columns.h"
#include "common/copy.h"
#include "common/quantile.h"
#include "common/sizes.h"
#include "common/vcounts.h"

static int me, p;

/* The collectives and their libkcoll rows, from the .def. */
static const char *const vnames[KCOLL_VCOLL_COUNT] = {
#define KCOLL_VCOLL(ID, name, REGULAR) [KCOLL_VCOLL_##ID] = #name,
#include "algos/irregular.def"
};

static const struct {
    kcoll_vcoll coll;
    const char *id;
} vrows[] = {
#define KCOLL_VALGORITHM(VCOLL, id, ...) {KCOLL_VCOLL_##VCOLL, #id},
#include "algos/irregular.def"
};
#define NVROWS (sizeof vrows / sizeof vrows[0])

/* A row: its name in the CSV and the algorithm passed to kcoll (auto
 * passes NULL); mpi is the MPI library's collective, called directly, and
 * limit the copies alone. */
typedef enum { ROW_KCOLL, ROW_MPI, ROW_LIMIT } row_kind;

typedef struct {
    const char *name;
    const char *algorithm;
    row_kind kind;
    int w; /* a windowed row named with its window ("id:w"), else 0 */
} row;

typedef struct {
    kcoll_vcoll coll;
    kcal_vcounts dist;
    char dist_name[64];
    char label[KCAL_VCOUNTS_LABEL_LEN]; /* the CSV's collective column */
    int have_dist;
    const char *sizes, *algorithm, *mpi;
    long max_iters, min_iters, warmup, expect_p;
    double budget;
    int root;
    int quiet, progress, library;
} options;

/* One size's arguments: counts (c[i*p+j]: bytes rank i sends rank j; the
 * rooted and allgather collectives use the blocks b[j]), this rank's
 * counts and displacements in size_t and int, and the buffers. */
typedef struct {
    uint64_t *c;
    size_t *b;
    size_t *scounts, *sdispls, *rcounts, *rdispls;
    int *iscounts, *isdispls, *ircounts, *irdispls;
    size_t scount, rcount, slen, rlen;
    unsigned char *send, *recv;
    uint64_t *at; /* rank r's send buffer at at[2r], its receive at[2r+1] */
} call;

static pid_t *pids; /* every rank's, for the limit */

static void usage(const char *msg)
{
    if (me == 0) {
        if (msg)
            fprintf(stderr, "kcal-vcoll-bench: %s\n", msg);
        fprintf(stderr,
                "usage: kcal-vcoll-bench --coll scatterv|gatherv|allgatherv|"
                "alltoallv --counts uniform|skew:F|random:SEED|sparse|file:PATH\n"
                "       [--sizes LIST|MIN:MAX] [--iterations MAX] "
                "[--min-iterations N] [--budget S] [--warmup N] [--root R] "
                "[--quiet]\n       [--algorithm ID[,ID...]] [--progress] [--mpi NAME] "
                "[--expect-p P]\n       kcal-vcoll-bench --library\n");
    }
    MPI_Finalize();
    exit(msg ? 2 : 0);
}

static long whole(const char *s, const char *opt)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 0) {
        char m[128];
        snprintf(m, sizeof m, "%s: '%s' is not a whole number", opt, s);
        usage(m);
    }
    return v;
}

static void parse(int argc, char **argv, options *o)
{
    *o = (options){.coll = KCOLL_VCOLL_COUNT, .sizes = "1K:8M",
                   .max_iters = 300, .min_iters = 20, .warmup = 5,
                   .budget = 1.5};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            usage(NULL);
        if (!strcmp(a, "--library")) {
            o->library = 1;
            continue;
        }
        if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            o->quiet = 1;
            continue;
        }
        if (!strcmp(a, "--progress")) {
            o->progress = 1;
            continue;
        }
        if (!v) {
            char m[128];
            snprintf(m, sizeof m, "%s needs a value", a);
            usage(m);
        }
        i++;
        if (!strcmp(a, "--coll")) {
            for (int k = 0; k < KCOLL_VCOLL_COUNT; k++)
                if (!strcmp(v, vnames[k]))
                    o->coll = (kcoll_vcoll)k;
            if (o->coll == KCOLL_VCOLL_COUNT)
                usage("--coll: scatterv, gatherv, allgatherv or alltoallv");
        } else if (!strcmp(a, "--counts")) {
            char err[256];
            if (kcal_vcounts_parse(v, &o->dist, err, sizeof err) != 0)
                usage(err);
            kcal_vcounts_name(&o->dist, o->dist_name, sizeof o->dist_name);
            o->have_dist = 1;
        } else if (!strcmp(a, "--sizes"))
            o->sizes = v;
        else if (!strcmp(a, "--iterations"))
            o->max_iters = whole(v, a);
        else if (!strcmp(a, "--min-iterations"))
            o->min_iters = whole(v, a);
        else if (!strcmp(a, "--warmup"))
            o->warmup = whole(v, a);
        else if (!strcmp(a, "--root"))
            o->root = (int)whole(v, a);
        else if (!strcmp(a, "--algorithm"))
            o->algorithm = v;
        else if (!strcmp(a, "--mpi"))
            o->mpi = v;
        else if (!strcmp(a, "--expect-p"))
            o->expect_p = whole(v, a);
        else if (!strcmp(a, "--budget")) {
            char *end;
            o->budget = strtod(v, &end);
            if (*end || !(o->budget >= 0))
                usage("--budget: seconds, 0 or more");
        } else {
            char m[128];
            snprintf(m, sizeof m, "unknown option '%s'", a);
            usage(m);
        }
    }
    if (o->library)
        return;
    if (o->coll == KCOLL_VCOLL_COUNT || !o->have_dist)
        usage("--coll and --counts are required");
    if (o->max_iters < 1 || o->min_iters < 1 || o->warmup < 1)
        usage("--iterations, --min-iterations and --warmup are at least 1");
    if (o->min_iters > o->max_iters)
        o->min_iters = o->max_iters;
    kcal_vcounts_label(vnames[o->coll], &o->dist, o->label);
    if (o->root >= p)
        usage("--root: a rank of the job");
}

/* The byte at offset k of the block rank src sends rank dst. */
static unsigned char pattern(int src, int dst, size_t k)
{
    return (unsigned char)(src * 31 + dst * 7 + (int)(k % 251) * 3 + 1);
}

static void *alloc(size_t n)
{
    void *q = malloc(n ? n : 1);
    if (!q) {
        fprintf(stderr, "kcal-vcoll-bench: rank %d: out of memory for %zu "
                        "bytes\n", me, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return q;
}

static size_t *prefix(const size_t *len, size_t *disp, int stride)
{
    size_t at = 0;
    for (int j = 0; j < p; j++) {
        disp[j] = at;
        at += len[(size_t)j * (size_t)stride];
    }
    return disp;
}

static int to_ints(const size_t *s, int *d)
{
    for (int j = 0; j < p; j++) {
        if (s[j] > (size_t)INT32_MAX)
            return 1;
        d[j] = (int)s[j];
    }
    return 0;
}

/* This rank's arguments and buffers for size n; the send data hold the
 * pattern. */
static void call_setup(const options *o, call *k, size_t n)
{
    size_t pp = (size_t)p;
    k->c = alloc(sizeof(uint64_t) * pp * pp);
    k->b = alloc(sizeof(size_t) * pp);
    char err[256];
    if (kcal_vcounts_matrix(&o->dist, p, n, k->c, err, sizeof err) != 0) {
        if (me == 0)
            fprintf(stderr, "kcal-vcoll-bench: size %zu: %s\n", n, err);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* The one-block collectives' blocks (vcounts.h): scatterv row root,
     * gatherv column root, allgatherv column 0. */
    for (int j = 0; j < p; j++)
        k->b[j] = (size_t)(o->coll == KCOLL_VCOLL_SCATTERV
                               ? k->c[(size_t)o->root * pp + (size_t)j]
                               : k->c[(size_t)j * pp +
                                      (size_t)(o->coll == KCOLL_VCOLL_GATHERV
                                                   ? o->root : 0)]);
    k->scounts = alloc(sizeof(size_t) * pp);
    k->sdispls = alloc(sizeof(size_t) * pp);
    k->rcounts = alloc(sizeof(size_t) * pp);
    k->rdispls = alloc(sizeof(size_t) * pp);
    k->iscounts = alloc(sizeof(int) * pp);
    k->isdispls = alloc(sizeof(int) * pp);
    k->ircounts = alloc(sizeof(int) * pp);
    k->irdispls = alloc(sizeof(int) * pp);
    size_t sum = 0;
    for (int j = 0; j < p; j++)
        sum += k->b[j];
    k->scount = k->rcount = 0;
    memset(k->scounts, 0, sizeof(size_t) * pp);
    memset(k->rcounts, 0, sizeof(size_t) * pp);
    memset(k->sdispls, 0, sizeof(size_t) * pp);
    memset(k->rdispls, 0, sizeof(size_t) * pp);
    switch (o->coll) {
    case KCOLL_VCOLL_SCATTERV:
        memcpy(k->scounts, k->b, sizeof(size_t) * pp);
        prefix(k->scounts, k->sdispls, 1);
        k->slen = me == o->root ? sum : 0;
        k->rcount = k->rlen = k->b[me];
        break;
    case KCOLL_VCOLL_GATHERV:
        memcpy(k->rcounts, k->b, sizeof(size_t) * pp);
        prefix(k->rcounts, k->rdispls, 1);
        k->scount = k->slen = k->b[me];
        k->rlen = me == o->root ? sum : 0;
        break;
    case KCOLL_VCOLL_ALLGATHERV:
        memcpy(k->rcounts, k->b, sizeof(size_t) * pp);
        prefix(k->rcounts, k->rdispls, 1);
        k->scount = k->slen = k->b[me];
        k->rlen = sum;
        break;
    default: /* alltoallv: my row and my column */
        k->slen = k->rlen = 0;
        for (int j = 0; j < p; j++) {
            k->scounts[j] = (size_t)k->c[(size_t)me * pp + (size_t)j];
            k->rcounts[j] = (size_t)k->c[(size_t)j * pp + (size_t)me];
            k->slen += k->scounts[j];
            k->rlen += k->rcounts[j];
        }
        prefix(k->scounts, k->sdispls, 1);
        prefix(k->rcounts, k->rdispls, 1);
        break;
    }
    if (to_ints(k->scounts, k->iscounts) || to_ints(k->sdispls, k->isdispls) ||
        to_ints(k->rcounts, k->ircounts) || to_ints(k->rdispls, k->irdispls) ||
        k->scount > (size_t)INT32_MAX || k->rcount > (size_t)INT32_MAX) {
        fprintf(stderr, "kcal-vcoll-bench: size %zu: a count or displacement "
                        "exceeds MPI's int\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    k->send = alloc(k->slen);
    k->recv = alloc(k->rlen);
    memset(k->recv, 0, k->rlen);
    /* The send data: the block for rank j (or this rank's one block). */
    if (o->coll == KCOLL_VCOLL_SCATTERV || o->coll == KCOLL_VCOLL_ALLTOALLV) {
        if (o->coll == KCOLL_VCOLL_ALLTOALLV || me == o->root)
            for (int j = 0; j < p; j++)
                for (size_t i = 0; i < k->scounts[j]; i++)
                    k->send[k->sdispls[j] + i] = pattern(me, j, i);
    } else {
        int dst = o->coll == KCOLL_VCOLL_GATHERV ? o->root : 0;
        for (size_t i = 0; i < k->scount; i++)
            k->send[i] = pattern(me, dst, i);
    }
    /* Where every rank's buffers are, for the limit's reads. */
    uint64_t mine[2] = {(uint64_t)(uintptr_t)k->send,
                        (uint64_t)(uintptr_t)k->recv};
    k->at = alloc(sizeof(uint64_t) * 2 * pp);
    MPI_Allgather(mine, 2, MPI_UINT64_T, k->at, 2, MPI_UINT64_T,
                  MPI_COMM_WORLD);
}

static void call_free(call *k)
{
    free(k->c), free(k->b);
    free(k->scounts), free(k->sdispls), free(k->rcounts), free(k->rdispls);
    free(k->iscounts), free(k->isdispls), free(k->ircounts), free(k->irdispls);
    free(k->send), free(k->recv), free(k->at);
}

/* The limit (the top of this file): this process's own copy, then one
 * process_vm_readv per block it receives with bytes, from the holder's
 * buffer into where the collective puts it. MPI_SUCCESS or
 * MPI_ERR_OTHER. */
static int limit(const options *o, call *k)
{
    size_t pp = (size_t)p;
    int failed = 0;
#define SEND_AT(q) (k->at[2 * (size_t)(q)])
    switch (o->coll) {
    case KCOLL_VCOLL_SCATTERV: /* the root its block, each other its own */
        if (me == o->root)
            kcal_copy(k->recv, k->send + k->sdispls[me], k->rcount);
        else if (k->rcount)
            failed = kcoll_cma_read(pids[o->root], k->recv,
                                    SEND_AT(o->root) + k->sdispls[me],
                                    k->rcount);
        break;
    case KCOLL_VCOLL_GATHERV: /* the root: its block, then every other one */
    case KCOLL_VCOLL_ALLGATHERV: /* every process likewise */
        if (o->coll == KCOLL_VCOLL_GATHERV && me != o->root)
            break;
        kcal_copy(k->recv + k->rdispls[me], k->send, k->scount);
        for (int t = 1; t < p && !failed; t++) {
            int q = (me - t + p) % p;
            if (k->rcounts[q])
                failed = kcoll_cma_read(pids[q], k->recv + k->rdispls[q],
                                        SEND_AT(q), k->rcounts[q]);
        }
        break;
    default: /* alltoallv: its own block, then each q's block for it, at
              * q's displacement (the prefix of q's row of M) */
        kcal_copy(k->recv + k->rdispls[me], k->send + k->sdispls[me],
                  k->rcounts[me]);
        for (int t = 1; t < p && !failed; t++) {
            int q = (me - t + p) % p;
            uint64_t at = 0;
            for (int j = 0; j < me; j++)
                at += k->c[(size_t)q * pp + (size_t)j];
            if (k->rcounts[q])
                failed = kcoll_cma_read(pids[q], k->recv + k->rdispls[q],
                                        SEND_AT(q) + at, k->rcounts[q]);
        }
    }
#undef SEND_AT
    return failed ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int run(const options *o, const row *r, call *k)
{
    MPI_Comm w = MPI_COMM_WORLD;
    if (r->kind == ROW_LIMIT)
        return limit(o, k);
    int mpi = r->kind == ROW_MPI;
    switch (o->coll) {
    case KCOLL_VCOLL_SCATTERV:
        return mpi ? MPI_Scatterv(k->send, k->iscounts, k->isdispls,
                                     MPI_BYTE, k->recv, (int)k->rcount,
                                     MPI_BYTE, o->root, w)
                      : kcoll_scatterv(k->send, k->scounts, k->sdispls,
                                       k->recv, k->rcount, o->root, w,
                                       r->algorithm);
    case KCOLL_VCOLL_GATHERV:
        return mpi ? MPI_Gatherv(k->send, (int)k->scount, MPI_BYTE,
                                    k->recv, k->ircounts, k->irdispls,
                                    MPI_BYTE, o->root, w)
                      : kcoll_gatherv(k->send, k->scount, k->recv,
                                      k->rcounts, k->rdispls, o->root, w,
                                      r->algorithm);
    case KCOLL_VCOLL_ALLGATHERV:
        return mpi ? MPI_Allgatherv(k->send, (int)k->scount, MPI_BYTE,
                                       k->recv, k->ircounts, k->irdispls,
                                       MPI_BYTE, w)
                      : kcoll_allgatherv(k->send, k->scount, k->recv,
                                         k->rcounts, k->rdispls, w,
                                         r->algorithm);
    default:
        return mpi ? MPI_Alltoallv(k->send, k->iscounts, k->isdispls,
                                      MPI_BYTE, k->recv, k->ircounts,
                                      k->irdispls, MPI_BYTE, w)
                      : kcoll_alltoallv(k->send, k->scounts, k->sdispls,
                                        k->recv, k->rcounts, k->rdispls, w,
                                        r->algorithm);
    }
}

/* Whether this rank's receive buffer holds what it should: 0 if so. */
static int check(const options *o, const row *r, const call *k, size_t n)
{
    for (int src = 0; src < p; src++) {
        size_t cnt, at;
        int from = src, dst = me;
        switch (o->coll) {
        case KCOLL_VCOLL_SCATTERV:
            if (src != o->root)
                continue;
            cnt = k->rcount, at = 0;
            break;
        case KCOLL_VCOLL_GATHERV:
            if (me != o->root)
                return 0;
            cnt = k->rcounts[src], at = k->rdispls[src];
            break;
        case KCOLL_VCOLL_ALLGATHERV:
            cnt = k->rcounts[src], at = k->rdispls[src], dst = 0;
            break;
        default:
            cnt = k->rcounts[src], at = k->rdispls[src];
            break;
        }
        for (size_t i = 0; i < cnt; i++)
            if (k->recv[at + i] != pattern(from, dst, i)) {
                fprintf(stderr, "kcal-vcoll-bench: CHECK FAILED: %s %s %s "
                                "size %zu rank %d: byte %zu of the block from "
                                "rank %d is wrong\n", vnames[o->coll],
                        o->dist_name, r->name, n, me, i, from);
                return 1;
            }
    }
    return 0;
}

static double node_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int report(const options *o, const row *r, int rc, size_t n)
{
    char es[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, es, &len);
    fprintf(stderr, "kcal-vcoll-bench: %s %s %s size %zu rank %d: %s\n",
            vnames[o->coll], o->dist_name, r->name, n, me, es);
    return 1;
}

/* auto's exploration before anything is timed, as kcal-bench-mpi settles
 * its auto: where the call verifies its choice (verify.h), calls of auto
 * until the calls have agreed on these counts' key (irregular.c) and its
 * size class has decided, its first check validated the decision and
 * the next set the steady state (at most 1000 + KCOLL_VKEY_EVERY calls,
 * the same number on every rank: the state moves by counts of the same
 * calls); elsewhere one call. 1 when a call failed
 * here. */
static int settle_auto(const options *o, const row *rows, int nr, call *k)
{
    const row *a = NULL;
    for (int j = 0; j < nr; j++)
        if (rows[j].kind == ROW_KCOLL && !rows[j].algorithm)
            a = &rows[j];
    if (!a)
        return 0;
    /* The key these counts make (algos/vkey.h): allgatherv's largest
     * block, the others' largest block any rank moves. Until the calls
     * have agreed on it (a previous size's can stand for up to
     * KCOLL_VKEY_EVERY calls) the class is not this size's. */
    uint64_t mine = kcoll_vkey_mine(o->coll, k->scounts, k->scount,
                                    k->rcounts, k->rcount, o->root, me, p),
             want = 0;
    MPI_Allreduce(&mine, &want, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    int failed = 0;
    long calls = 0;
    uint64_t key = 0;
    kcoll_verify_state st = {0};
    do { /* a failed call goes on with the others: no rank waits alone */
        failed |= run(o, a, k) != MPI_SUCCESS;
        kcoll_comm *c;
        /* The class the call was verified in: its key, the same on
         * every rank. */
        if (kcoll_comm_get(MPI_COMM_WORLD, &c) == MPI_SUCCESS) {
            key = kcoll_vkey_last(c, o->coll);
            kcoll_verify_describe_dom(c, KCOLL_VERIFY_VDOM(o->coll), key, 0,
                                      &st);
        }
    } while (++calls < 1000 + KCOLL_VKEY_EVERY && st.exists &&
             st.ncand > 1 &&
             (key != want || st.exploring || st.explorations == 0 ||
              st.baseline == 0));
    return failed;
}

/* One size: warm-up (its first round checked), auto's exploration, the
 * iterations, and rank 0's rows appended to out. Returns 1 when a call or
 * check failed on any rank. */
static int measure(const options *o, const row *rows, int nr, size_t n,
                   int over, FILE *out)
{
    call k;
    call_setup(o, &k, n);
    int failed = 0, *order = alloc(sizeof(int) * (size_t)nr);
    double t_round = 0;
    for (long w = 0; w < o->warmup && !failed; w++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = node_clock();
        for (int j = 0; j < nr; j++) {
            if (w == 0)
                memset(k.recv, 0xee, k.rlen);
            int rc = run(o, &rows[j], &k);
            if (rc != MPI_SUCCESS)
                failed = report(o, &rows[j], rc, n);
            else if (w == 0 && check(o, &rows[j], &k, n))
                failed = 1;
        }
        t_round = node_clock() - t0; /* the last round's */
        MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX,
                      MPI_COMM_WORLD);
    }
    if (!failed)
        failed = settle_auto(o, rows, nr, &k);
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &t_round, 1, MPI_DOUBLE, MPI_MAX,
                  MPI_COMM_WORLD);
    /* Timed iterations run each row twice: half the budget per round. */
    long iters = o->max_iters;
    if (t_round > 0 && o->budget / (2 * t_round) < (double)iters)
        iters = (long)(o->budget / (2 * t_round));
    if (iters < o->min_iters)
        iters = o->min_iters;
    size_t per = (size_t)nr * (size_t)iters;
    double *lead = alloc(sizeof(double) * per);
    double *tail = alloc(sizeof(double) * per);
    for (long it = 0; it < iters && !failed; it++) {
        kcal_bench_shuffle(order, nr, (uint64_t)it * 0x10001u + n);
        for (int j = 0; j < nr; j++) {
            const row *r = &rows[order[j]];
            int rc = run(o, r, &k); /* untimed: the row's own state */
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = node_clock();
            int rc2 = run(o, r, &k);
            double t1 = node_clock();
            if (rc == MPI_SUCCESS)
                rc = rc2;
            if (rc != MPI_SUCCESS)
                failed = report(o, r, rc, n);
            size_t i = (size_t)order[j] * (size_t)iters + (size_t)it;
            int own = r->kind == ROW_LIMIT; /* its own duration */
            lead[i] = own ? 0 : -t0;
            tail[i] = own ? t1 - t0 : t1;
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!failed) {
        MPI_Reduce(me == 0 ? MPI_IN_PLACE : lead, lead, (int)per, MPI_DOUBLE,
                   MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(me == 0 ? MPI_IN_PLACE : tail, tail, (int)per, MPI_DOUBLE,
                   MPI_MAX, 0, MPI_COMM_WORLD);
    }
    for (int j = 0; me == 0 && !failed && j < nr; j++) {
        double *x = lead + (size_t)j * (size_t)iters;
        for (long it = 0; it < iters; it++)
            x[it] += tail[(size_t)j * (size_t)iters + (size_t)it];
        double h1, h2;
        kcal_bench_halves(x, iters, &h1, &h2); /* before the sort */
        double med = kcal_bench_median(x, iters);
        char k[16] = "";
        if (rows[j].w)
            snprintf(k, sizeof k, "%d", rows[j].w);
        fprintf(out, "%s,%d,%zu,%s,%s,%.9g,%.9g,%.9g,%ld,%d,%.9g,%.9g,%.9g,"
                     "%.9g,%.9g\n",
                o->label, p, n, rows[j].name, k, med, x[0],
                x[iters - 1], iters, over,
                kcal_quantile_sorted(x, (size_t)iters, 0.25),
                kcal_quantile_sorted(x, (size_t)iters, 0.75), h1, h2,
                kcal_quantile_sorted(x, (size_t)iters, 0.05));
    }
    if (me == 0 && !failed && !o->quiet && !o->progress)
        fprintf(stderr, "kcal-vcoll-bench: %s %s size %zu: %ld iterations\n",
                vnames[o->coll], o->dist_name, n, iters);
    free(lead);
    free(tail);
    free(order);
    call_free(&k);
    return failed;
}

/* The rows: mpi, the .def's ids of the collective (those --algorithm
 * names, when given: an item "id:w" runs a windowed row with window w),
 * auto, limit; *nr of them. */
static row *make_rows(const options *o, int *nr)
{
    row *rows = alloc(sizeof(row) * (NVROWS * 4 + 3));
    int n = 0;
    rows[n++] = (row){"mpi", "mpi", ROW_MPI, 0};
    for (size_t i = 0; i < NVROWS; i++) {
        if (vrows[i].coll != o->coll)
            continue;
        if (!o->algorithm) {
            rows[n++] = (row){vrows[i].id, vrows[i].id, ROW_KCOLL, 0};
            continue;
        }
        /* each item of the comma-separated list that names this id */
        size_t len = strlen(vrows[i].id);
        for (const char *at = o->algorithm; *at;) {
            size_t item = strcspn(at, ",");
            if (item >= len && !strncmp(at, vrows[i].id, len) &&
                (item == len || at[len] == ':') && n < (int)NVROWS * 4) {
                int w = item == len ? 0 : atoi(at + len + 1);
                char *spec = alloc(item + 1);
                memcpy(spec, at, item);
                spec[item] = '\0';
                rows[n++] = (row){vrows[i].id, spec, ROW_KCOLL, w};
            }
            at += item + (at[item] == ',');
        }
    }
    if (o->algorithm && strcmp(o->algorithm, "mpi") && n == 1) {
        char m[192];
        snprintf(m, sizeof m, "--algorithm: '%s' names no algorithm of %s "
                 "(algos/irregular.def)", o->algorithm, vnames[o->coll]);
        usage(m);
    }
    rows[n++] = (row){"auto", NULL, ROW_KCOLL, 0};
    rows[n++] = (row){"limit", NULL, ROW_LIMIT, 0};
    *nr = n;
    return rows;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    options o;
    parse(argc, argv, &o);
    char library[256], msg[512];
    if (kcal_bench_world_check(o.mpi, o.expect_p, library, sizeof library,
                               msg, sizeof msg) != 0)
        usage(msg);
    if (o.library || o.progress) {
        if (me == 0)
            printf(o.library ? "%s\n" : "#library %s\n", library);
        fflush(stdout);
        if (o.library) {
            MPI_Finalize();
            return 0;
        }
    }
    uint64_t *sizes;
    size_t nsizes;
    char err[256];
    if (kcal_sizes_parse(o.sizes, &sizes, &nsizes, err, sizeof err) != 0)
        usage(err);
    int nr;
    row *rows = make_rows(&o, &nr);
    /* KCOLL_STRICT from here on: a row that fell back to the MPI library
     * where CMA is forbidden would be MPI's time under libkcoll's name. */
    if (!kcal_bench_cma_permitted("kcal-vcoll-bench")) {
        MPI_Finalize();
        return 3;
    }
    int over = kcal_bench_oversubscribed();
    pids = alloc(sizeof(pid_t) * (size_t)p);
    pid_t mine = getpid();
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, pids, (int)sizeof mine,
                  MPI_BYTE, MPI_COMM_WORLD);
    char *buf = NULL;
    size_t blen = 0;
    FILE *out = me == 0 ? open_memstream(&buf, &blen) : NULL;
    int failed = 0;
    for (size_t si = 0; si < nsizes && !failed; si++) {
        failed = measure(&o, rows, nr, (size_t)sizes[si], over, out);
        if (me == 0 && o.progress && !o.quiet) {
            char sz[32];
            printf("#progress %zu %zu %s %s\n", si + 1, nsizes,
                   vnames[o.coll], kcal_sizes_format(sizes[si], sz, sizeof sz));
            fflush(stdout);
        }
    }
    if (me == 0) {
        fclose(out);
        if (!failed) {
            printf("%s\n%s", KCAL_CSV_MEASURED_HEADER, buf);
            fflush(stdout);
        }
        free(buf);
    }
    free(rows);
    free(pids);
    free(sizes);
    MPI_Finalize();
    return failed ? 1 : 0;
}
