/* kcal-bench-mpi: the MPI benchmark program behind `kcal bench`; it also runs
 * directly under any launcher (mpirun, srun):
 *
 *   kcal-bench-mpi --coll C [--sizes LIST|MIN:MAX] [--algorithm ID[,ID...]]
 *                  [--type T] [--op O] [--iterations N] [--warmup N]
 *                  [--cold] [--check] [--root R] [--no-auto-limit]
 *                  [--quiet] [--progress] [--mpi NAME] [--expect-p P]
 *                  [--library]
 *
 * Measures every algorithm of the collective (every throttle factor k;
 * ring_neighbor with j = 1 unless --algorithm names another j), the MPI
 * library's own collective as algorithm "mpi", libkcoll's own choice
 * (algorithm NULL, which may hand small messages to the MPI library) as
 * "auto", and the copy limit as "limit" (below), interleaved: each
 * iteration runs every variant once, in turn, so machine noise hits all
 * alike. Every timed call comes right after an untimed call of the same
 * variant, so it starts from the state the variant's own calls leave, as
 * in a loop of that variant alone: measured in turns without that, a
 * variant whose peers write into the receive buffer (parallel_write) left
 * its lines owned by another core, and the next variant that wrote them
 * locally (sequential_read, MPI_Gather) paid a cross-core transfer per
 * line: 12 µs instead of 6 µs at 64 KiB, the slow mode of issue 8; and
 * with a receive buffer per variant instead, how much of a variant's data
 * the one before had left in cache made its time spread from 35 to 55 µs
 * (bcast, 1 MiB).
 *
 * limit: the copies alone, as fast as the busiest process can make them:
 * every process copies its own block locally (kcal_copy, in pieces as
 * libkcoll does: the root of scatter and gather, every process of
 * allgather and alltoall) and reads, with one
 * process_vm_readv each, every block it receives from the process holding
 * it (n bytes at each non-root of scatter and bcast, (p−1)·n at gather's
 * root and at every allgather and alltoall process), all processes at
 * once, into the collective's own buffers, with no synchronisation but the
 * barrier before; timed like the variants (the slowest process), in the
 * same run. It charges every copy to the process that receives the data:
 * algorithms that split the copying between the sender's and the
 * receiver's cores (parallel_write, direct_split, scatter_allgather) can
 * beat it.
 * --algorithm ID[,ID...] measures only those (an id without k: every k),
 * besides mpi; --no-auto-limit leaves out auto and limit: `kcal tune`
 * measures only the candidates it chose, and counts them.
 * Timing: warm-up iterations, a barrier before each timed call; the time
 * of an iteration is its span, from the first process's start to the last
 * process's end, on the node's one clock (CLOCK_MONOTONIC); median, min
 * and max over iterations. Not OSU's maximum of each process's own
 * duration: processes leave a barrier up to a control message apart, and
 * for an algorithm whose root does not wait for the others (copy_in_out
 * of bcast and scatter; gather's sources) the per-process maximum then
 * hides the root's part whenever the root leaves first (tests/algos_bench.sh
 * delays every rank but 0 by 300 µs: the maximum measured copy_in_out in
 * 1.7 µs). The span cannot be fooled so. It is not the whole story of the
 * fast launches seen on the 2-core Xeon guest, where copy_in_out at 1-8
 * KiB ran at a fifth of its usual time in a few launches (bcast 8 KiB 0.53
 * µs, gather 0.72, against 2.7-2.9) before the change and once after it
 * (gather 1-8 KiB 0.31-0.82 µs): a state of the host as well. `limit`
 * keeps the slowest process's own duration: it is the copies alone, not a
 * collective. --cold rewrites the send data with a new pattern before
 * every iteration, so no call reads what the previous one left behind.
 * --check compares every result with the MPI built-in on patterned data and
 * exits 1 on a mismatch (no CSV then).
 * The reductions reduce doubles summed, or with --type and --op
 * (bench/reduce_names.h, checked as kcal bench checks them) that type
 * under that op, on data exact in every order of folding
 * (bench/reduce_fill.h); their limit applies the same op.
 *
 * Rank 0 prints CSV on stdout (model.md columns of measurements):
 * collective,p,size_bytes,algorithm,k,median_s,min_s,max_s,iterations,oversubscribed,
 * p25_s,p75_s,half1_s,half2_s,p05_s (quartiles, the medians of the odd and
 * the even iterations, the 5th percentile: columns.h)
 * `oversubscribed` is 1 when this node runs more ranks than it has cores
 * (common/cores.h, the rule kcal bench uses for --oversubscribe).
 * Progress goes to stderr, or with --progress as "#progress DONE TOTAL WHAT"
 * lines on stdout for `kcal bench` to draw, after one "#library TEXT" line
 * naming the MPI library (common/mpi_flavor.h: "MPICH 4.0.2 (ch4:ucx)").
 * --mpi NAME (openmpi, mpich) and --expect-p P, which kcal bench passes,
 * make a run under the wrong launcher fail at once (exit 2) instead of
 * measuring nonsense: a launcher of one MPI library starts a program built
 * for another as P singletons, each with an MPI_COMM_WORLD of 1 process.
 * --library prints the library's line and exits. Exit 0, 1 (a failed call or
 * check), 2 (bad options, or a size whose buffers overflow or do not fit in
 * the node's memory: bench/capacity.h), 3 (CMA is forbidden here). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <mpi.h>

#include "bench/bench_opts.h"
#include "bench/bench_stats.h"
#include "bench/bench_world.h"
#include "bench/capacity.h"
#include "bench/reduce_fill.h"
#include "common/columns.h"
#include "common/copy.h"
#include "algos/kcoll.h"
#include "algos/kcoll_impl.h"
#include "algos/reduce.h"
#include "algos/verify.h"
#include "model/model.h"
#include "common/quantile.h"
#include "bench/perf_ctl.h"
#include "common/sizes.h"

static int me, p;

/* The rows of --loop: calls timed back to back, the slowest rank's wall
 * time per call. */
#define KCAL_BENCH_LOOP_HEADER                                                \
    "collective,p,size_bytes,algorithm,k,calls,seconds_per_call,"            \
    "oversubscribed"

/* The same check as kcal bench's, for runs under another launcher: every
 * size's buffers fit in size_t and, for the ranks on this node, in its
 * memory; else exit 2 before allocating anything (a wrapped p*n would time
 * an empty buffer and report a bogus success). */
static void check_sizes(const options *o, const uint64_t *sizes, size_t n)
{
    uint64_t mem = kcal_capacity_memory(), per_rank, total;
    int local = kcal_bench_local_ranks(), bad = 0;
    char msg[256] = "";
    for (size_t i = 0; i < n && !bad; i++) {
        char sz[32], a[32], m[32];
        kcal_sizes_format(sizes[i], sz, sizeof sz);
        if (kcal_capacity_bench_bytes(o->coll, (uint64_t)p, (uint64_t)local,
                                      sizes[i], o->check, &per_rank,
                                      &total) != 0 || per_rank > SIZE_MAX - 2) {
            snprintf(msg, sizeof msg, "size %s is too large for %s at p = %d: "
                     "its buffers' size overflows", sz,
                     kcal_coll_name(o->coll), p);
            bad = 1;
        } else if (o->type &&
                   kcal_reduce_check_size(o->type, sizes[i], msg,
                                          sizeof msg) != 0) {
            bad = 1;
        } else if (mem && total > mem) {
            snprintf(msg, sizeof msg, "size %s needs %s of buffers on this "
                     "node, more than its %s of memory", sz,
                     kcal_capacity_format_bytes(total, a, sizeof a),
                     kcal_capacity_format_bytes(mem, m, sizeof m));
            bad = 1;
        }
    }
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any)
        bench_usage_error(bad ? msg : "a size does not fit on another node", NULL);
}

/* Random bytes, or with t the values of reduce_fill.h, exact under op in
 * every order. */
static void fill(unsigned char *b, size_t n, unsigned seed,
                 const kcal_reduce_type *t, const kcal_reduce_op *op)
{
    if (t) {
        kcal_reduce_fill(b, n, t, op, seed, me, p);
        return;
    }
    uint64_t x = 0x9e3779b97f4a7c15ULL * (seed + 1) + (uint64_t)me * 0x632be59bd9b4e019ULL;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        memcpy(b + i, &x, 8);
    }
    for (; i < n; i++)
        b[i] = (unsigned char)(x >> (8 * (i % 8)));
}

/* One size's buffers: send and receive, the reference result of --check,
 * and every rank's send and receive buffer addresses (for the limit). */
typedef struct {
    unsigned char *send, *recv, *ref;
    size_t slen, rlen;
    uint64_t *at; /* rank r's send at at[2r], its receive buffer at[2r+1] */
} buffers;

static pid_t *pids;

/* A reduction's n bytes as kcoll_args: --type and --op, or without them
 * doubles summed (bytes OR'd where n is not a multiple of 8), as the
 * benchmark has always reduced and the probe reduces. */
static kcoll_args reduction_args(const options *o, buffers *b, size_t n)
{
    if (!o->type)
        return kcoll_bytes_reduction(b->send, b->recv, n, o->root);
    return (kcoll_args){b->send, b->recv, n, o->root, 0, o->mpi_type,
                        o->mpi_op, o->type->size};
}

/* A reduction's limit (its type and op): each process reads its slice of
 * the vector (its block, reduce_scatter_block) from every other one and
 * folds it in, as fast as it can (MPI_Reduce_local on what it read, in
 * cache-sized pieces); for allreduce it then reads the other slices, for
 * reduce it writes its slice into the root's buffer. The least each
 * process must move and reduce when all share the work; 0 or 1 (a copy
 * failed). */
static int limit_reduction(const options *o, buffers *b, size_t n)
{
    kcoll_args a = reduction_args(o, b, n);
    size_t es = a.esize;
    size_t vec = o->coll == KCAL_COLL_REDUCE_SCATTER_BLOCK ? n * (size_t)p : n;
    size_t per = o->coll == KCAL_COLL_REDUCE_SCATTER_BLOCK
                     ? n
                     : (vec / es + (size_t)p - 1) / (size_t)p * es;
    size_t lo = (size_t)me * per;
    size_t len = lo >= vec ? 0 : vec - lo < per ? vec - lo : per;
    size_t chunk = KCAL_REDUCE_CHUNK / es * es;
    unsigned char *acc = o->coll == KCAL_COLL_REDUCE_SCATTER_BLOCK
                             ? b->recv
                             : b->recv + lo;
    static unsigned char *tmp; /* one chunk, for the life of the run */
    if (!tmp && !(tmp = malloc(chunk)))
        return 1;
    int failed = 0;
    for (size_t off = 0; off < len && !failed; off += chunk) {
        size_t m = len - off < chunk ? len - off : chunk;
        memcpy(acc + off, b->send + lo + off, m);
        for (int t = 1; t < p && !failed; t++) {
            int q = (me + t) % p;
            failed = kcoll_cma_read(pids[q], tmp, b->at[2 * q] + lo + off, m);
            if (!failed)
                MPI_Reduce_local(tmp, acc + off, (int)(m / es), a.type,
                                 a.op);
        }
        if (!failed && o->coll == KCAL_COLL_REDUCE && me != o->root)
            failed = kcoll_cma_write(pids[o->root], acc + off,
                                     b->at[2 * o->root + 1] + lo + off, m);
    }
    for (int t = 1; o->coll == KCAL_COLL_ALLREDUCE && t < p && !failed; t++) {
        int q = (me + t) % p;
        size_t qlo = (size_t)q * per;
        size_t qlen = qlo >= vec ? 0 : vec - qlo < per ? vec - qlo : per;
        if (qlen)
            failed = kcoll_cma_read(pids[q], b->recv + qlo,
                                    b->at[2 * q + 1] + qlo, qlen);
    }
    return failed;
}

/* The limit: the copies of the receiver-charged schedule, each process its
 * own, with no synchronisation but the barrier before. Every process copies
 * its own block locally (memcpy), and reads each block it receives from
 * the process that holds it (one process_vm_readv each), into the
 * collective's own buffers (the same bytes the collective writes there). */
static int limit_copies(const options *o, buffers *b, size_t n)
{
    int root = o->root, failed = 0;
    unsigned char *s = b->send, *r = b->recv;
#define SEND_AT(q) (b->at[2 * (q)])
#define RECV_AT(q) (b->at[2 * (q) + 1])
    switch (o->coll) {
    case KCAL_COLL_SCATTER: /* the root its block, each other its own */
        if (me == root)
            kcal_copy(r, s + (size_t)root * n, n);
        else
            failed = kcoll_cma_read(pids[root], r, SEND_AT(root) + (uint64_t)me * n, n);
        break;
    case KCAL_COLL_GATHER: /* the root: its block, then every other one */
        if (me != root)
            break;
        kcal_copy(r + (size_t)root * n, s, n);
        for (int q = 0; q < p && !failed; q++)
            if (q != root)
                failed = kcoll_cma_read(pids[q], r + (size_t)q * n, SEND_AT(q), n);
        break;
    case KCAL_COLL_BCAST: /* each other the message */
        if (me != root)
            failed = kcoll_cma_read(pids[root], r, RECV_AT(root), n);
        break;
    case KCAL_COLL_ALLGATHER: /* its block, then every other one */
        kcal_copy(r + (size_t)me * n, s, n);
        for (int t = 1; t < p && !failed; t++) {
            int q = (me - t + p) % p;
            failed = kcoll_cma_read(pids[q], r + (size_t)q * n, SEND_AT(q), n);
        }
        break;
    case KCAL_COLL_REDUCE:
    case KCAL_COLL_ALLREDUCE:
    case KCAL_COLL_REDUCE_SCATTER_BLOCK:
        failed = limit_reduction(o, b, n);
        break;
    default: /* alltoall: its block, then every other one's block for it */
        kcal_copy(r + (size_t)me * n, s + (size_t)me * n, n);
        for (int t = 1; t < p && !failed; t++) {
            int q = (me - t + p) % p;
            failed = kcoll_cma_read(pids[q], r + (size_t)q * n,
                                    SEND_AT(q) + (uint64_t)me * n, n);
        }
    }
#undef SEND_AT
#undef RECV_AT
    return failed ? MPI_ERR_OTHER : MPI_SUCCESS;
}

static int call(const options *o, const variant *v, buffers *b, size_t n)
{
    const char *alg = v->kind == V_KCOLL ? v->spec : NULL;
    int mpi = v->kind == V_MPI;
    if (v->kind == V_LIMIT)
        return limit_copies(o, b, n);
    if (kcal_coll_is_reduction(o->coll)) {
        kcoll_args a = reduction_args(o, b, n);
        size_t count = n / a.esize;
        if (mpi)
            return kcoll_mpi_reduction(o->coll, &a, MPI_COMM_WORLD);
        if (o->coll == KCAL_COLL_REDUCE)
            return kcoll_reduce(a.sendbuf, a.recvbuf, count, a.type, a.op,
                                a.root, MPI_COMM_WORLD, alg);
        if (o->coll == KCAL_COLL_ALLREDUCE)
            return kcoll_allreduce(a.sendbuf, a.recvbuf, count, a.type, a.op,
                                   MPI_COMM_WORLD, alg);
        return kcoll_reduce_scatter_block(a.sendbuf, a.recvbuf, count, a.type,
                                          a.op, MPI_COMM_WORLD, alg);
    }
    switch (o->coll) {
    case KCAL_COLL_SCATTER:
        return mpi ? kcoll_mpi_scatter(b->send, b->recv, n, o->root, MPI_COMM_WORLD)
                   : kcoll_scatter(b->send, b->recv, n, o->root, MPI_COMM_WORLD, alg);
    case KCAL_COLL_GATHER:
        return mpi ? kcoll_mpi_gather(b->send, b->recv, n, o->root, MPI_COMM_WORLD)
                   : kcoll_gather(b->send, b->recv, n, o->root, MPI_COMM_WORLD, alg);
    case KCAL_COLL_BCAST:
        return mpi ? kcoll_mpi_bcast(b->recv, n, o->root, MPI_COMM_WORLD)
                   : kcoll_bcast(b->recv, n, o->root, MPI_COMM_WORLD, alg);
    case KCAL_COLL_ALLGATHER:
        return mpi ? kcoll_mpi_allgather(b->send, b->recv, n, MPI_COMM_WORLD)
                   : kcoll_allgather(b->send, b->recv, n, MPI_COMM_WORLD, alg);
    default:
        return mpi ? kcoll_mpi_alltoall(b->send, b->recv, n, MPI_COMM_WORLD)
                   : kcoll_alltoall(b->send, b->recv, n, MPI_COMM_WORLD, alg);
    }
}

/* One call of v. In the benchmark built with the test hooks
 * (kcal-bench-mpi-hooks, scripts/bench-auto), the MPI library's row is
 * slowed as libkcoll's own calls of it are ($KCOLL_TEST_SLOW "coll:mpi:F"),
 * so the table stays one machine. */
static int run(const options *o, const variant *v, buffers *b, size_t n)
{
    kcoll_plan mpi = {.kind = KCOLL_PLAN_MPI};
    if (v->kind != V_MPI || !kcoll_test_slowed(o->coll, &mpi))
        return call(o, v, b, n);
    double t0 = kcoll_verify_clock();
    int rc = call(o, v, b, n);
    kcoll_test_slow(MPI_COMM_WORLD, o->coll, &mpi, n, t0);
    return rc;
}

/* auto's exploration, before anything is timed (its rows are the verified
 * choice, not the candidates' turns): calls of auto until its size class
 * has decided and the first check after the decision found it steady
 * (algos/verify.h: a decision the check finds drifted explores again; at
 * most 1000 calls, the same number on every rank: the state moves by
 * counts of the same calls). With
 * KCOLL_VERIFY=0, or where the call does not verify (p = 1, CMA
 * forbidden), one call. Returns the calls made, or -1 after a failed one. */
static long settle_auto(const options *o, const variant *v, int nv,
                        buffers *b, size_t n)
{
    const variant *a = NULL;
    for (int i = 0; i < nv; i++)
        if (v[i].kind == V_AUTO)
            a = &v[i];
    if (!a)
        return 0;
    int failed = 0, in_place = 0; /* the benchmark never calls in place */
    long calls = 0;
    kcoll_verify_state st = {0};
    do { /* a failed call goes on with the others: no rank waits alone */
        failed |= run(o, a, b, n) != MPI_SUCCESS;
        kcoll_comm *c; /* the first call made it, on every rank */
        if (kcoll_comm_get(MPI_COMM_WORLD, &c) == MPI_SUCCESS)
            kcoll_verify_describe(c, o->coll, n, in_place, &st);
    } while (++calls < 1000 && st.exists && st.ncand > 1 &&
             (st.exploring || st.explorations == 0 || st.baseline == 0));
    return failed ? -1 : calls;
}

/* New send data (and for bcast the root's buffer), and with --check the
 * built-in's result for it in b->ref. */
static void prepare_data(const options *o, buffers *b, size_t n, unsigned seed)
{
    const kcal_reduce_type *t = o->type;
    const kcal_reduce_op *op = o->op;
    char err[8];
    /* Without --type and --op: doubles summed, where the buffer holds
     * whole doubles (the same whole numbers as ever); else random bytes. */
    if (!t && kcal_coll_is_reduction(o->coll) && b->slen % sizeof(double) == 0)
        kcal_reduce_choose(o->coll, NULL, NULL, &t, &op, err, sizeof err);
    fill(b->send, b->slen, seed, t, op);
    if (o->coll == KCAL_COLL_BCAST && me == o->root)
        fill(b->recv, b->rlen, seed, NULL, NULL);
    if (o->check) {
        variant mpi = {"", "mpi", -1, V_MPI};
        unsigned char *keep = b->recv;
        if (o->coll == KCAL_COLL_BCAST)
            memcpy(b->ref, b->recv, b->rlen);
        b->recv = b->ref;
        run(o, &mpi, b, n);
        b->recv = keep;
    }
}

/* Before a checked call: poison what the call must write. */
static void poison(const options *o, buffers *b)
{
    if (o->coll != KCAL_COLL_BCAST || me != o->root)
        memset(b->recv, 0xee, b->rlen);
}

static int verify(const options *o, const variant *v, buffers *b, size_t n)
{
    int significant = !((o->coll == KCAL_COLL_GATHER ||
                         o->coll == KCAL_COLL_REDUCE) && me != o->root);
    if (!significant || !memcmp(b->recv, b->ref, b->rlen))
        return 0;
    size_t at = 0;
    while (b->recv[at] == b->ref[at])
        at++;
    fprintf(stderr,
            "kcal-bench-mpi: CHECK FAILED: %s %s n=%zu rank %d: result differs "
            "from the MPI built-in at byte %zu\n",
            kcal_coll_name(o->coll), v->kind == V_KCOLL ? v->spec : v->name, n,
            me, at);
    return 1;
}

/* Seconds on the node's one clock (CLOCK_MONOTONIC): every process reads
 * the same, so a call's span runs from one process's start to another's
 * end (as probe/mpi/sm_bench.c times the hand-off points). */
static double node_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void progress(const options *o, double done, double total,
                     const char *what)
{
    static double last;
    if (me != 0 || o->quiet)
        return;
    double now = MPI_Wtime();
    if (done < total && now - last < 0.25)
        return;
    last = now;
    if (o->progress) {
        printf("#progress %.0f %.0f %s\n", done, total, what);
        fflush(stdout);
    } else {
        fprintf(stderr, "kcal-bench-mpi: [%s] %.0f%%\n", what,
                total > 0 ? 100.0 * done / total : 100.0);
    }
}

/* One stretch of --loop for variant v: `calls` calls back to back between
 * two barriers, the perf session (perf_ctl.h) switched on around them;
 * this rank's wall time added to *dt. 0, 1 after a failed call (reported
 * on stderr), -1 when perf could not be switched on. */
static int loop_stretch(const options *o, const variant *v, buffers *b,
                        size_t n, long calls, double *dt)
{
    char err[256] = "";
    int ctl = me == 0 ? kcal_perf_ctl("enable", err, sizeof err) : 0;
    MPI_Bcast(&ctl, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (ctl != 0) {
        if (me == 0)
            fprintf(stderr, "kcal-bench-mpi: %s\n", err);
        return -1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = MPI_SUCCESS;
    for (long it = 0; it < calls && rc == MPI_SUCCESS; it++)
        rc = run(o, v, b, n);
    MPI_Barrier(MPI_COMM_WORLD);
    *dt += MPI_Wtime() - t0;
    if (me == 0 && kcal_perf_ctl("disable", err, sizeof err) != 0)
        fprintf(stderr, "kcal-bench-mpi: %s\n", err);
    if (rc == MPI_SUCCESS)
        return 0;
    fprintf(stderr, "kcal-bench-mpi: %s %s n=%zu rank %d: call failed\n",
            kcal_coll_name(o->coll), v->kind == V_KCOLL ? v->spec : v->name,
            n, me);
    return 1;
}

/* --loop: each variant's calls back to back, with no barrier between
 * them, as in an application's loop: its warm-up calls (without any, one
 * untimed set-up call of each variant first, below), then a barrier, the
 * timed calls, a barrier (loop_stretch). One row per variant: the
 * wall time per call of the slowest rank. The rows are for
 * scripts/profile-collective, which divides the profile's samples by
 * these calls, and for scripts/bench-auto, which compares auto's loop,
 * its exploration included, with the fixed algorithms' loops.
 *
 * --rounds R splits each variant's calls into R stretches and runs them
 * in R rounds, each round every variant's next stretch in a new order
 * (the same on every rank). A variant keeps its state from stretch to
 * stretch (auto's exploration stays in its first calls), and the
 * variants share the machine's states. Run one after another, each
 * variant's 10,000 calls of 16 KiB (20-90 ms) met its own state of a KVM
 * host: auto's loop came out 0.86-1.18x the fastest fixed one, 0.84-1.09x
 * in rounds of 10 (Zen 4 guest, scripts/bench-auto; docs/machine.md).
 * 0, or 1 after a failed call. */
static int loop_size(const options *o, const variant *v, int nv, buffers *b,
                     size_t n, char (*rows)[256], size_t *nrows, int over)
{
    long rounds = o->rounds > 0 ? o->rounds : 1;
    double *took = calloc((size_t)nv, sizeof *took);
    int *order = malloc((size_t)nv * sizeof *order), failed = 0;
    if (!took || !order) {
        fprintf(stderr, "kcal-bench-mpi: out of memory\n");
        free(took);
        free(order);
        return 1;
    }
    /* Set-up, untimed: what the communicator's state makes on first use
     * (the staging areas, the flags, shared windows) and the params, read
     * by the process's first NULL call, come once per job; here they
     * would fall on whichever variant came first in round 0 (the params
     * took 0.2-0.4 ms on the Zen 5 guest, a few percent of a 10,000-call
     * loop at 16 KiB there; the peers' pids came with bench_world's
     * check). So each fixed
     * variant makes one call first, and auto one of another size class
     * (one element), which reads the params; auto's class of n is left
     * untouched, its exploration in its loop. With warm-up calls, they
     * do it. */
    for (int i = 0; o->warmup == 0 && i < nv && !failed; i++)
        if (v[i].kind != V_LIMIT)
            failed = run(o, &v[i], b,
                         v[i].kind == V_AUTO ? (o->type ? o->type->size : 8)
                                             : n) != MPI_SUCCESS;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    for (long r = 0; r < rounds && !failed; r++) {
        for (int i = 0; i < nv; i++)
            order[i] = i;
        if (o->rounds > 0)
            kcal_bench_shuffle(order, nv, (uint64_t)r);
        long calls = o->iterations / rounds + (r < o->iterations % rounds);
        for (int i = 0; i < nv && !failed; i++) {
            const variant *vi = &v[order[i]];
            for (long it = 0; r == 0 && it < o->warmup && !failed; it++)
                failed = run(o, vi, b, n) != MPI_SUCCESS;
            MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX,
                          MPI_COMM_WORLD);
            if (failed)
                break;
            int rc = loop_stretch(o, vi, b, n, calls, &took[order[i]]);
            if (rc < 0) {
                free(took);
                free(order);
                return 1;
            }
            failed = rc;
            MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX,
                          MPI_COMM_WORLD);
        }
    }
    if (!failed)
        MPI_Reduce(me == 0 ? MPI_IN_PLACE : took, took, nv, MPI_DOUBLE,
                   MPI_MAX, 0, MPI_COMM_WORLD);
    for (int vi = 0; me == 0 && !failed && vi < nv; vi++) {
        char k[16] = "";
        if (v[vi].k >= 0)
            snprintf(k, sizeof k, "%d", v[vi].k);
        snprintf(rows[(*nrows)++], 256, "%s,%d,%zu,%s,%s,%ld,%.9g,%d",
                 kcal_coll_name(o->coll), p, n, v[vi].name, k,
                 o->iterations, took[vi] / (double)o->iterations, over);
    }
    free(took);
    free(order);
    return failed;
}

/* --library prints the library's line and the run ends (1); with
 * --progress kcal bench gets it first. */
static int say_library(const options *o, const char *library)
{
    if (o->library) {
        if (me == 0)
            printf("%s\n", library);
        return 1;
    }
    if (me == 0 && o->progress) {
        printf("#library %s\n", library);
        fflush(stdout);
    }
    return 0;
}

/* What the sizes of a run share: the variants, the times of one size's
 * iterations, and the rows kept until the end (a failed run prints no
 * half table). */
typedef struct {
    const options *o;
    const variant *v;
    int nv;
    const char *coll;
    int over;
    long iters;
    /* Per iteration and variant: lead = −start and tail = end of this
     * process's call (for limit 0 and its own duration), so one MAX
     * reduction of each gives −(first start) and the last end: their sum
     * is the span. */
    double *lead, *tail, *lmax, *tmax;
    int *order;
    char (*rows)[256];
    size_t nrows;
    double total, done;
    /* Test hooks: spoil one byte so the --check path is tested; every
     * rank but 0 starts its timed call skew seconds after the barrier, so
     * the span, not a process's own duration, is tested. */
    int corrupt;
    double skew;
} session;

/* The session's arrays for nsizes sizes; out of memory aborts the job. */
static void session_alloc(session *s, size_t nsizes)
{
    size_t per = (size_t)s->nv * (size_t)s->iters;
    s->rows = me == 0 ? calloc(nsizes * (size_t)s->nv, 256) : NULL;
    s->lead = malloc(sizeof(double) * per);
    s->tail = malloc(sizeof(double) * per);
    s->lmax = malloc(sizeof(double) * per);
    s->tmax = malloc(sizeof(double) * per);
    s->order = malloc(sizeof(int) * (size_t)s->nv);
    if (!s->lead || !s->tail || !s->lmax || !s->tmax || !s->order ||
        (me == 0 && !s->rows)) {
        fprintf(stderr, "kcal-bench-mpi: rank %d: out of memory for the "
                        "times of %ld iterations\n", me, s->iters);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    const char *ce = getenv("KCAL_BENCH_CORRUPT_FOR_TEST");
    s->corrupt = ce && !strcmp(ce, "1");
    const char *se = getenv("KCAL_BENCH_SKEW_US_FOR_TEST");
    s->skew = se && me != 0 ? atof(se) * 1e-6 : 0;
}

static void session_free(session *s)
{
    free(s->rows);
    free(s->lead);
    free(s->tail);
    free(s->lmax);
    free(s->tmax);
    free(s->order);
}

/* One size's buffers, their addresses known to every rank; out of memory
 * aborts the job. */
static void buffers_alloc(const options *o, buffers *b, size_t n)
{
    uint64_t slen = 0, rlen = 0; /* check_sizes: no overflow */
    kcal_capacity_coll_buffers(o->coll, (uint64_t)p, n, &slen, &rlen);
    *b = (buffers){.slen = (size_t)slen, .rlen = (size_t)rlen};
    b->send = malloc(b->slen + 1);
    b->recv = malloc(b->rlen + 1);
    b->ref = o->check ? malloc(b->rlen + 1) : NULL;
    b->at = malloc(sizeof *b->at * 2 * (size_t)p);
    if (!b->send || !b->recv || (o->check && !b->ref) || !b->at) {
        fprintf(stderr, "kcal-bench-mpi: rank %d: out of memory for %zu "
                        "bytes\n", me, b->slen + b->rlen);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(b->recv, 0, b->rlen);
    uint64_t mine[2] = {(uint64_t)(uintptr_t)b->send,
                        (uint64_t)(uintptr_t)b->recv};
    MPI_Allgather(mine, 2, MPI_UINT64_T, b->at, 2, MPI_UINT64_T,
                  MPI_COMM_WORLD);
}

static void buffers_free(buffers *b)
{
    free(b->send);
    free(b->recv);
    free(b->ref);
    free(b->at);
}

/* One iteration (it < 0: a warm-up one): every variant once (auto not in
 * a warm-up one: measure_size), in an order drawn for it, each timed call
 * after an untimed one and a barrier. Returns whether a call or check
 * failed on this rank. */
static int iteration(session *s, buffers *b, size_t n, long it,
                     const char *what)
{
    const options *o = s->o;
    const variant *v = s->v;
    int failed = 0;
    /* A new order every iteration, the same on every rank: each variant
     * then follows every other about equally often, so what one leaves
     * behind (caches, the peer's page tables, pending control messages)
     * is not always charged to the same next one. (Rotating a fixed order
     * did not do that: each variant followed the same one in every
     * iteration but one in nv.) */
    kcal_bench_shuffle(s->order, s->nv, (uint64_t)(it + o->warmup));
    for (int j = 0; j < s->nv; j++) {
        int vi = s->order[j];
        if (it < 0 && v[vi].kind == V_AUTO)
            continue;
        int checked = o->check && v[vi].kind <= V_AUTO;
        /* One untimed call first: the timed one then starts from the
         * state this variant's own previous call leaves (its steady
         * state, as a loop of it alone would), not from what another
         * variant left: which core last wrote the receive buffer, which
         * buffers are in cache. */
        int warm = run(o, &v[vi], b, n);
        if (checked)
            poison(o, b);
        MPI_Barrier(MPI_COMM_WORLD);
        if (s->skew > 0)
            for (double w = node_clock() + s->skew; node_clock() < w;)
                ;
        double t0 = node_clock();
        int rc = run(o, &v[vi], b, n);
        double t1 = node_clock();
        if (rc == MPI_SUCCESS)
            rc = warm;
        if (s->corrupt && v[vi].kind == V_KCOLL && me == p - 1 && b->rlen > 0)
            b->recv[b->rlen - 1] ^= 1;
        if (rc != MPI_SUCCESS) {
            char es[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(rc, es, &len);
            fprintf(stderr, "kcal-bench-mpi: %s %s n=%zu rank %d: %s\n",
                    s->coll, v[vi].kind == V_KCOLL ? v[vi].spec : v[vi].name,
                    n, me, es);
            failed = 1;
        }
        if (checked && verify(o, &v[vi], b, n))
            failed = 1;
        if (it >= 0) {
            size_t i = (size_t)vi * s->iters + (size_t)it;
            int own = v[vi].kind == V_LIMIT;
            s->lead[i] = own ? 0 : -t0;
            s->tail[i] = own ? t1 - t0 : t1;
        }
        progress(o, ++s->done, s->total, what);
    }
    return failed;
}

/* One row per variant for size n (rank 0): the span of each iteration,
 * from the reductions of lead and tail, and its statistics. */
static void size_rows(session *s, size_t n)
{
    long iters = s->iters;
    MPI_Reduce(s->lead, s->lmax, s->nv * (int)iters, MPI_DOUBLE, MPI_MAX, 0,
               MPI_COMM_WORLD);
    MPI_Reduce(s->tail, s->tmax, s->nv * (int)iters, MPI_DOUBLE, MPI_MAX, 0,
               MPI_COMM_WORLD);
    for (size_t i = 0; me == 0 && i < (size_t)s->nv * (size_t)iters; i++)
        s->tmax[i] += s->lmax[i]; /* the span, or limit's slowest */
    for (int vi = 0; me == 0 && vi < s->nv; vi++) {
        const variant *v = &s->v[vi];
        double *x = s->tmax + (size_t)vi * iters;
        double h1, h2;
        kcal_bench_halves(x, iters, &h1, &h2);
        double med = kcal_bench_median(x, iters);
        char k[16] = "";
        if (v->k >= 0)
            snprintf(k, sizeof k, "%d", v->k);
        snprintf(s->rows[s->nrows++], 256,
                 "%s,%d,%zu,%s,%s,%.9g,%.9g,%.9g,%ld,%d,%.9g,%.9g,"
                 "%.9g,%.9g,%.9g",
                 s->coll, p, n, v->name, k, med, x[0], x[iters - 1],
                 iters, s->over, kcal_quantile_sorted(x, (size_t)iters, 0.25),
                 kcal_quantile_sorted(x, (size_t)iters, 0.75), h1, h2,
                 kcal_quantile_sorted(x, (size_t)iters, 0.05));
    }
}

/* Every variant at size n: --loop's rows, or the interleaved iterations
 * and their rows. 0, or 1 when a call or check failed on any rank. */
static int measure_size(session *s, size_t n)
{
    const options *o = s->o;
    buffers b;
    buffers_alloc(o, &b, n);
    prepare_data(o, &b, n, 0);
    char what[64], sz[32];
    snprintf(what, sizeof what, "%s %s", s->coll,
             kcal_sizes_format(n, sz, sizeof sz));
    int failed = 0;
    if (o->loop)
        failed = loop_size(o, s->v, s->nv, &b, n, s->rows, &s->nrows,
                           s->over);
    /* The other variants' warm-up, then auto's exploration (settle_auto):
     * their first calls (first touch, caches) are behind it, and the
     * calls it measures run at their steady speed. In the benchmark with
     * the test hook the difference is large: the hook makes a call factor
     * times the slowed algorithm's fastest call so far, which is still
     * slow in its first calls; with auto exploring first, bcast at 32 KiB
     * (copy_in_out slowed 4x) measured copy_in_out 3.5-3.8 us and kept
     * direct_split, while its row then ran 2.7-3.2 us against 3.9-4.1
     * (6 launches of 10, Zen 5 guest, scripts/bench-auto). */
    for (long it = -o->warmup; !o->loop && it < s->iters && !failed; it++) {
        if (it == 0) { /* every rank, so none waits alone */
            failed = settle_auto(o, s->v, s->nv, &b, n) < 0;
            MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX,
                          MPI_COMM_WORLD);
            if (failed)
                break;
        }
        if (o->cold && it >= 0)
            prepare_data(o, &b, n, (unsigned)it + 1);
        failed = iteration(s, &b, n, it, what);
        int any = 0;
        if (o->check || failed) {
            MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
            failed = any;
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!failed && !o->loop)
        size_rows(s, n);
    buffers_free(&b);
    return failed;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    options o;
    bench_parse(argc, argv, &o);
    char library[256];
    bench_check_library(&o, library, sizeof library);
    if (say_library(&o, library)) {
        MPI_Finalize();
        return 0;
    }
    uint64_t *sizes;
    size_t nsizes;
    char err[256];
    if (kcal_sizes_parse(o.sizes, &sizes, &nsizes, err, sizeof err) != 0)
        bench_usage_error(err, NULL);
    check_sizes(&o, sizes, nsizes);
    int nv;
    variant *v = bench_variants(&o, &nv);
    if (!kcal_bench_cma_permitted("kcal-bench-mpi")) {
        MPI_Finalize();
        return 3;
    }
    session s = {.o = &o, .v = v, .nv = nv, .coll = kcal_coll_name(o.coll),
                 .over = kcal_bench_oversubscribed(), .iters = o.iterations};
    pids = malloc(sizeof *pids * (size_t)p);
    pid_t mine = getpid();
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, pids, (int)sizeof mine,
                  MPI_BYTE, MPI_COMM_WORLD);
    session_alloc(&s, nsizes);
    int autos = 0; /* auto is not in the warm-up iterations */
    for (int i = 0; i < nv; i++)
        autos += v[i].kind == V_AUTO;
    s.total = (double)nsizes * ((double)(o.warmup + s.iters) * nv -
                                (double)o.warmup * autos);
    int failed = 0;
    for (size_t si = 0; si < nsizes && !failed; si++)
        failed = measure_size(&s, (size_t)sizes[si]);
    if (me == 0 && !failed) {
        printf("%s\n", o.loop ? KCAL_BENCH_LOOP_HEADER : KCAL_CSV_MEASURED_HEADER);
        for (size_t i = 0; i < s.nrows; i++)
            printf("%s\n", s.rows[i]);
        fflush(stdout);
    }
    session_free(&s);
    free(pids);
    free(v);
    free(sizes);
    MPI_Finalize();
    return failed ? 1 : 0;
}
