/* kcal-vcoll-bench: the irregular collectives (kcoll_scatterv, gatherv,
 * allgatherv, alltoallv: algos/irregular.def) against the MPI library's
 * own v-collective, for scripts/bench-irregular; it runs under any
 * launcher:
 *
 *   kcal-vcoll-bench --coll C --counts D [--sizes LIST|MIN:MAX]
 *                    [--iterations MAX] [--min-iterations N]
 *                    [--budget SECONDS] [--warmup N] [--root R] [--quiet]
 *   kcal-vcoll-bench --library     (the MPI library's version line)
 *
 * One launch measures one collective and one count distribution over the
 * sizes, each size's rows interleaved: `mpi` (MPI_Scatterv, ... with
 * MPI_BYTE), every id of algos/irregular.def for the collective (made
 * from the .def's X-macros, so a new row is measured without a change
 * here) and `auto` (algorithm NULL: its per-pair hand-off comes from
 * $KCAL_PARAMS, algos/irregular.c). The timing is
 * kcal-bench-mpi's (bench/bench_mpi.c says why): each iteration runs every
 * row once, in an order drawn anew for the iteration (the same on every
 * rank: bench/bench_stats.h), so the host's drift hits all rows alike;
 * each timed call comes right after an untimed call of the same row (it
 * starts from the state its own calls leave) and a barrier; its time is
 * its span, from the first process's start to the last process's end on
 * the node's one clock (CLOCK_MONOTONIC), i.e. at least the slowest
 * process's own time. A row's time is the median of the spans.
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
 * (20) and --iterations (300), the same on every rank. The first warm-up
 * round also checks every row's result against the pattern the senders
 * wrote (a mismatch: exit 1, no CSV).
 *
 * Rank 0 prints, when every call succeeded, CSV on stdout:
 *   coll,dist,p,size,row,median_us,ratio_to_mpi
 * ratio_to_mpi = median(mpi) / median(row): above 1 the row is faster than
 * the MPI library. With no --quiet, one line per size on stderr gives its
 * iterations. Exit 0; 1 a call failed or a result was wrong; 2 bad
 * options. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mpi.h>

#include "algos/irregular.h"
#include "algos/kcoll.h"
#include "bench/bench_stats.h"
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

/* A row: its name in the CSV and the algorithm passed to kcoll ("mpi" is
 * the MPI library's collective, called directly; auto passes NULL). */
typedef struct {
    const char *name;
    const char *algorithm;
    int mpi;
} row;

typedef struct {
    kcoll_vcoll coll;
    kcal_vcounts dist;
    char dist_name[64];
    int have_dist;
    const char *sizes;
    long max_iters, min_iters, warmup;
    double budget;
    int root;
    int quiet;
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
} call;

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
                "[--quiet]\n       kcal-vcoll-bench --library\n");
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
            /* The MPI library's own words, first line (scripts name it). */
            char lib[MPI_MAX_LIBRARY_VERSION_STRING];
            int len;
            MPI_Get_library_version(lib, &len);
            lib[strcspn(lib, "\n,")] = '\0';
            if (me == 0)
                printf("%s\n", lib);
            MPI_Finalize();
            exit(0);
        }
        if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            o->quiet = 1;
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
    if (o->coll == KCOLL_VCOLL_COUNT || !o->have_dist)
        usage("--coll and --counts are required");
    if (o->max_iters < 1 || o->min_iters < 1 || o->warmup < 1)
        usage("--iterations, --min-iterations and --warmup are at least 1");
    if (o->min_iters > o->max_iters)
        o->min_iters = o->max_iters;
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
}

static void call_free(call *k)
{
    free(k->c), free(k->b);
    free(k->scounts), free(k->sdispls), free(k->rcounts), free(k->rdispls);
    free(k->iscounts), free(k->isdispls), free(k->ircounts), free(k->irdispls);
    free(k->send), free(k->recv);
}

static int run(const options *o, const row *r, call *k)
{
    MPI_Comm w = MPI_COMM_WORLD;
    switch (o->coll) {
    case KCOLL_VCOLL_SCATTERV:
        return r->mpi ? MPI_Scatterv(k->send, k->iscounts, k->isdispls,
                                     MPI_BYTE, k->recv, (int)k->rcount,
                                     MPI_BYTE, o->root, w)
                      : kcoll_scatterv(k->send, k->scounts, k->sdispls,
                                       k->recv, k->rcount, o->root, w,
                                       r->algorithm);
    case KCOLL_VCOLL_GATHERV:
        return r->mpi ? MPI_Gatherv(k->send, (int)k->scount, MPI_BYTE,
                                    k->recv, k->ircounts, k->irdispls,
                                    MPI_BYTE, o->root, w)
                      : kcoll_gatherv(k->send, k->scount, k->recv,
                                      k->rcounts, k->rdispls, o->root, w,
                                      r->algorithm);
    case KCOLL_VCOLL_ALLGATHERV:
        return r->mpi ? MPI_Allgatherv(k->send, (int)k->scount, MPI_BYTE,
                                       k->recv, k->ircounts, k->irdispls,
                                       MPI_BYTE, w)
                      : kcoll_allgatherv(k->send, k->scount, k->recv,
                                         k->rcounts, k->rdispls, w,
                                         r->algorithm);
    default:
        return r->mpi ? MPI_Alltoallv(k->send, k->iscounts, k->isdispls,
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

/* One size: warm-up (its first round checked), the iterations, and rank
 * 0's rows appended to out. Returns 1 when a call or check failed on any
 * rank. */
static int measure(const options *o, const row *rows, int nr, size_t n,
                   FILE *out)
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
            lead[i] = -t0;
            tail[i] = t1;
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!failed) {
        MPI_Reduce(me == 0 ? MPI_IN_PLACE : lead, lead, (int)per, MPI_DOUBLE,
                   MPI_MAX, 0, MPI_COMM_WORLD);
        MPI_Reduce(me == 0 ? MPI_IN_PLACE : tail, tail, (int)per, MPI_DOUBLE,
                   MPI_MAX, 0, MPI_COMM_WORLD);
    }
    if (me == 0 && !failed) {
        double *med = alloc(sizeof(double) * (size_t)nr);
        for (int j = 0; j < nr; j++) {
            double *x = lead + (size_t)j * (size_t)iters;
            for (long it = 0; it < iters; it++)
                x[it] += tail[(size_t)j * (size_t)iters + (size_t)it];
            med[j] = kcal_bench_median(x, iters);
        }
        for (int j = 0; j < nr; j++)
            fprintf(out, "%s,%s,%d,%zu,%s,%.4f,%.4f\n", vnames[o->coll],
                    o->dist_name, p, n, rows[j].name, med[j] * 1e6,
                    med[0] / med[j]);
        free(med);
        if (!o->quiet)
            fprintf(stderr, "kcal-vcoll-bench: %s %s size %zu: %ld "
                            "iterations\n", vnames[o->coll], o->dist_name,
                    n, iters);
    }
    free(lead);
    free(tail);
    free(order);
    call_free(&k);
    return failed;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    options o;
    parse(argc, argv, &o);
    uint64_t *sizes;
    size_t nsizes;
    char err[256];
    if (kcal_sizes_parse(o.sizes, &sizes, &nsizes, err, sizeof err) != 0)
        usage(err);
    /* The rows: mpi first (ratio_to_mpi divides by it), the .def's ids of
     * the collective, auto. */
    row rows[NVROWS + 2];
    int nr = 0;
    rows[nr++] = (row){"mpi", "mpi", 1};
    for (size_t i = 0; i < NVROWS; i++)
        if (vrows[i].coll == o.coll)
            rows[nr++] = (row){vrows[i].id, vrows[i].id, 0};
    rows[nr++] = (row){"auto", NULL, 0};
    /* A row that fell back to the MPI library where CMA is forbidden
     * would be MPI's time under libkcoll's name. */
    setenv("KCOLL_STRICT", "1", 1);
    char *buf = NULL;
    size_t blen = 0;
    FILE *out = me == 0 ? open_memstream(&buf, &blen) : NULL;
    int failed = 0;
    for (size_t si = 0; si < nsizes && !failed; si++)
        failed = measure(&o, rows, nr, (size_t)sizes[si], out);
    if (me == 0) {
        fclose(out);
        if (!failed) {
            printf("coll,dist,p,size,row,median_us,ratio_to_mpi\n%s", buf);
            fflush(stdout);
        }
        free(buf);
    }
    free(sizes);
    MPI_Finalize();
    return failed ? 1 : 0;
}
