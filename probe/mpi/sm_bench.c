/* kcal-sm-bench: the small-message shared-memory collectives of the model,
 * T_sm_X for X = bcast, gather, allgather, barrier (model.md), and the full
 * model's sync_step (one point-to-point control message), timed among
 * the ranks mpirun started. Run by `kcal probe` (probe/sm.c), not by users.
 *
 * usage: kcal-sm-bench REPS INNER WARMUP [reduce PASSES MIN_SAMPLE SIZE...]
 * Each repetition times INNER back-to-back 8-byte (pointer-sized) calls after
 * a barrier (step: half of a rank-0/rank-1 ping-pong, see OP_STEP); the
 * time of one call is the slowest rank's mean, as a
 * collective is done when its last rank is. Rank 0 prints one line per
 * repetition: "kcal-sm OP P REP SECONDS".
 *
 * Then two measurements for libkcoll's choice (model.md "The MPI library as
 * a candidate"), in functions of their own:
 *   - flag: one flag written into shared memory (an MPI-3 shared window, as
 *     libkcoll's algos/flags.c) seen by a polling rank: half of a rank-0 /
 *     rank-1 flag ping-pong, "kcal-sm flag P REP SECONDS" (the fit's
 *     sm_flag);
 *   - the MPI library's own collectives and every libkcoll algorithm with
 *     n bytes at the sizes of mpi_sizes[] (measure_handoff), one line per
 *     repetition (at most 8) with the median of its (at most 10) calls:
 *     "kcal-mpi COLL P BYTES REP SECONDS" and
 *     "kcal-kcoll COLL ALGORITHM[:K] P BYTES REP SECONDS" (the fit's
 *     mpi_<coll>_a/_b and mpi_<coll>_below).
 *
 * With the `reduce` arguments (the probe gives them to its first launch
 * only), rank 0 first times the reductions' op MPI_Reduce_local while the
 * others wait (probe/mpi/reduce_local.h, probe/reduce.h). */
#include <mpi.h>

#include "algos/kcoll.h"
#include "algos/kcoll_impl.h" /* kcoll_coll_bytes, kcoll_mpi_coll */
#include "model/model.h"
#include "probe/mpi/reduce_local.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* OP_STEP: the full model's sync_step, one point-to-point control message
 * as libkcoll sends between steps (algos/comm.c kcoll_ctl_send/recv):
 * an 8-byte ping-pong between ranks 0 and 1, reported as half the round
 * trip; the other ranks wait. */
enum { OP_BCAST, OP_GATHER, OP_ALLGATHER, OP_BARRIER, OP_STEP, OP_COUNT };
static const char *const names[OP_COUNT] = {"bcast", "gather", "allgather",
                                            "barrier", "step"};

static void call(int op, uint64_t *word, uint64_t *all, int rank)
{
    switch (op) {
    case OP_STEP:
        if (rank == 0) {
            MPI_Send(word, 1, MPI_UINT64_T, 1, 7, MPI_COMM_WORLD);
            MPI_Recv(word, 1, MPI_UINT64_T, 1, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(word, 1, MPI_UINT64_T, 0, 7, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            MPI_Send(word, 1, MPI_UINT64_T, 0, 7, MPI_COMM_WORLD);
        }
        break;
    case OP_BCAST:
        MPI_Bcast(word, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        break;
    case OP_GATHER:
        MPI_Gather(word, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0,
                   MPI_COMM_WORLD);
        break;
    case OP_ALLGATHER:
        MPI_Allgather(word, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T,
                      MPI_COMM_WORLD);
        break;
    default:
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* flag: half a ping-pong of flags in shared memory between ranks 0 and 1
 * (the others wait at the barriers), each flag in its own 128 bytes as
 * libkcoll's slots. */
static void measure_flag(int p, int rank, int reps, int inner, int warmup)
{
    volatile uint64_t *base = NULL;
    MPI_Win win;
    MPI_Aint size = rank == 0 ? 256 : 0;
    MPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD,
                            (void *)&base, &win);
    MPI_Aint got;
    int disp;
    MPI_Win_shared_query(win, 0, &got, &disp, (void *)&base);
    if (rank == 0)
        base[0] = base[16] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    volatile uint64_t *ping = base, *pong = base + 16;
    uint64_t v = 0;
    for (int r = -1; r < reps; r++) {
        int n = r < 0 ? warmup : inner;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        for (int i = 0; i < n; i++) {
            v++;
            if (rank == 0) {
                __atomic_store_n(ping, v, __ATOMIC_RELEASE);
                while (__atomic_load_n(pong, __ATOMIC_ACQUIRE) != v)
                    ;
            } else if (rank == 1) {
                while (__atomic_load_n(ping, __ATOMIC_ACQUIRE) != v)
                    ;
                __atomic_store_n(pong, v, __ATOMIC_RELEASE);
            }
        }
        double t = n ? (MPI_Wtime() - t0) / n / 2 : 0, tmax;
        MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (rank == 0 && r >= 0)
            printf("kcal-sm flag %d %d %.17g\n", p, r, tmax);
    }
    MPI_Win_free(&win);
}

/* Where libkcoll should hand small messages to the MPI library: the MPI
 * library's collectives and every libkcoll algorithm (every k) at a few
 * sizes, from far below to above where the algorithms overtake it (a few
 * KiB on current machines). Each call after a barrier, timed alone, its
 * span (node_clock), as kcal bench times them; every variant has its own
 * receive buffer and each repetition runs the variants in a new order (the
 * benchmark's lessons: docs/bench.md). */
static const size_t mpi_sizes[] = {256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
#define N_MPI_SIZES (sizeof mpi_sizes / sizeof mpi_sizes[0])

typedef struct {
    char spec[32]; /* "" for the MPI library */
} hvariant;

static int hcall(kcal_coll c, const char *spec, char *s, char *r, size_t n)
{
    const char *alg = spec[0] ? spec : NULL;
    if (kcal_coll_is_reduction(c)) /* doubles summed */
        return alg ? kcoll_coll_bytes(c, s, r, n, 0, MPI_COMM_WORLD, alg)
                   : kcoll_mpi_coll(c, s, r, n, 0, MPI_COMM_WORLD);
    switch (c) {
    case KCAL_COLL_SCATTER:
        return alg ? kcoll_scatter(s, r, n, 0, MPI_COMM_WORLD, alg)
                   : MPI_Scatter(s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, 0,
                                 MPI_COMM_WORLD);
    case KCAL_COLL_GATHER:
        return alg ? kcoll_gather(s, r, n, 0, MPI_COMM_WORLD, alg)
                   : MPI_Gather(s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE, 0,
                                MPI_COMM_WORLD);
    case KCAL_COLL_BCAST:
        return alg ? kcoll_bcast(r, n, 0, MPI_COMM_WORLD, alg)
                   : MPI_Bcast(r, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
    case KCAL_COLL_ALLGATHER:
        return alg ? kcoll_allgather(s, r, n, MPI_COMM_WORLD, alg)
                   : MPI_Allgather(s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE,
                                   MPI_COMM_WORLD);
    default:
        return alg ? kcoll_alltoall(s, r, n, MPI_COMM_WORLD, alg)
                   : MPI_Alltoall(s, (int)n, MPI_BYTE, r, (int)n, MPI_BYTE,
                                  MPI_COMM_WORLD);
    }
}

/* MPI, then every (algorithm, k) of c valid at p. */
static hvariant *hvariants(kcal_coll c, int p, int *count)
{
    size_t na;
    const kcal_algorithm *a = kcal_model_algorithms(c, &na);
    hvariant *v = calloc(na * (size_t)(p + 1) + 1, sizeof *v);
    int nv = 1;
    for (size_t i = 0; v && i < na; i++) {
        int lo = 0, hi = 0;
        if (a[i].kind == KCAL_PARAM_THROTTLE)
            lo = 2, hi = p - 1;
        else if (a[i].kind == KCAL_PARAM_STRIDE)
            lo = hi = 1;
        for (int k = lo; k <= hi; k++) {
            if (a[i].kind == KCAL_PARAM_NONE)
                snprintf(v[nv++].spec, sizeof v->spec, "%s", a[i].id);
            else if (kcal_model_k_valid(&a[i], p, k))
                snprintf(v[nv++].spec, sizeof v->spec, "%s:%d", a[i].id, k);
        }
    }
    *count = v ? nv : 0;
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Seconds on the node's one clock (CLOCK_MONOTONIC): every process reads
 * the same, so a call's span runs from one process's start to another's
 * end. */
static double node_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A call's time is its span, from the first process's start to the last
 * one's end, as kcal bench times it (bench/bench_mpi.c): the maximum of
 * each process's own duration hides the root's part of a call whose root
 * does not wait (copy_in_out of bcast, MPI's eager bcast) whenever the
 * root leaves the barrier first. */
static int measure_handoff(int p, int rank, int reps, int inner, int warmup)
{
    size_t max = mpi_sizes[N_MPI_SIZES - 1] * (size_t)p;
    char *s = malloc(max);
    if (!s)
        return -1;
    memset(s, rank + 1, max);
    int order[256];
    for (int c = 0; c < KCAL_COLL_COUNT; c++) {
        int nv;
        hvariant *v = hvariants((kcal_coll)c, p, &nv);
        char **r = v ? calloc((size_t)nv, sizeof *r) : NULL;
        for (int i = 0; r && i < nv; i++)
            if ((r[i] = malloc(max)))
                memset(r[i], rank + 1, max);
        for (int i = 0; r && i < nv; i++)
            if (!r[i])
                return -1;
        if (!r || nv > 256)
            return -1;
        for (size_t z = 0; z < N_MPI_SIZES; z++) {
            size_t n = mpi_sizes[z];
            for (int w = 0; w < warmup; w++)
                for (int i = 0; i < nv; i++)
                    hcall((kcal_coll)c, v[i].spec, s, r[i], n);
            for (int rep = 0; rep < reps; rep++) {
                /* A new order each repetition, the same on every rank. */
                uint64_t x = 0x9e3779b97f4a7c15ULL * (uint64_t)(rep + 1) | 1;
                for (int i = 0; i < nv; i++)
                    order[i] = i;
                for (int i = nv - 1; i > 0; i--) {
                    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                    int j = (int)(x % (uint64_t)(i + 1)), t = order[i];
                    order[i] = order[j];
                    order[j] = t;
                }
                for (int o = 0; o < nv; o++) {
                    int i = order[o];
                    double t_call[16];
                    for (int it = 0; it < inner; it++) {
                        MPI_Barrier(MPI_COMM_WORLD);
                        double t0 = node_clock();
                        if (hcall((kcal_coll)c, v[i].spec, s, r[i], n) !=
                            MPI_SUCCESS)
                            return -1;
                        double t1 = node_clock();
                        /* −(first start) and the last end in one MAX */
                        double mine[2] = {-t0, t1}, all[2];
                        MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX,
                                      MPI_COMM_WORLD);
                        t_call[it] = all[0] + all[1];
                    }
                    if (rank != 0)
                        continue;
                    /* The median call: one preempted call (tens of µs
                     * on a shared machine) must not move a point of a
                     * few µs, as it moves a mean. */
                    qsort(t_call, (size_t)inner, sizeof *t_call, cmp_double);
                    double med = inner % 2 ? t_call[inner / 2]
                                           : (t_call[inner / 2 - 1] +
                                              t_call[inner / 2]) / 2;
                    if (v[i].spec[0])
                        printf("kcal-kcoll %s %s %d %zu %d %.17g\n",
                               kcal_coll_name((kcal_coll)c), v[i].spec, p, n,
                               rep, med);
                    else
                        printf("kcal-mpi %s %d %zu %d %.17g\n",
                               kcal_coll_name((kcal_coll)c), p, n, rep, med);
                }
            }
        }
        for (int i = 0; i < nv; i++)
            free(r[i]);
        free(r);
        free(v);
    }
    free(s);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, p;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: kcal-sm-bench REPS INNER WARMUP "
                            "[reduce PASSES MIN_SAMPLE SIZE...]\n");
        MPI_Finalize();
        return 2;
    }
    int reps = atoi(argv[1]), inner = atoi(argv[2]), warmup = atoi(argv[3]);
    if (reps < 1 || inner < 1 || warmup < 0) {
        if (rank == 0)
            fprintf(stderr, "kcal-sm-bench: bad REPS/INNER/WARMUP\n");
        MPI_Finalize();
        return 2;
    }
    if (argc > 4) {
        char err[256] = "";
        int rc = rank == 0 ? kcal_reduce_local_run(argc - 4, argv + 4, stdout,
                                                   err, sizeof err)
                           : 0;
        MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rc != 0) {
            if (rank == 0)
                fprintf(stderr, "kcal-sm-bench: %s\n", err);
            MPI_Finalize();
            return 2;
        }
    }
    uint64_t word = (uint64_t)rank, *all = malloc((size_t)p * sizeof *all);
    if (!all)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int op = 0; op < OP_COUNT; op++) {
        for (int i = 0; i < warmup; i++)
            call(op, &word, all, rank);
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < inner; i++)
                call(op, &word, all, rank);
            double t = (MPI_Wtime() - t0) / inner, tmax;
            if (op == OP_STEP)
                t /= 2; /* one message of the round trip */
            MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (rank == 0)
                printf("kcal-sm %s %d %d %.17g\n", names[op], p, r, tmax);
        }
    }
    if (p >= 2) {
        measure_flag(p, rank, reps, inner, warmup);
        /* libkcoll's choice must not hand off while it is being measured,
         * and a calibration run must fail rather than measure the MPI
         * library under libkcoll's names (KCOLL_STRICT: no CMA is an
         * error). */
        unsetenv("KCAL_PARAMS");
        setenv("KCOLL_STRICT", "1", 1);
        /* At most 8 repetitions of 10 calls per point: every algorithm
         * with every k runs at 9 sizes, and the launch has a time limit
         * (about 130 variants at p = 64). */
        int reps_h = reps < 8 ? reps : 8, inner_h = inner < 10 ? inner : 10;
        if (measure_handoff(p, rank, reps_h, inner_h, warmup < 5 ? warmup : 5) < 0) {
            if (rank == 0)
                fprintf(stderr, "kcal-sm-bench: the hand-off measurement "
                                "failed (out of memory, or a libkcoll call)\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    fflush(stdout);
    free(all);
    MPI_Finalize();
    return 0;
}
