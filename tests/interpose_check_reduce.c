/* interpose_check --mode reduce: MPI_Reduce, MPI_Allreduce and
 * MPI_Reduce_scatter_block against the fold this program works out itself
 * (tests/interpose_check.c says what the mode checks). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tests/interpose_check.h"

/* The three reductions, each against a reference this program computes
 * itself: every process can make every process's input (red_gen), so the
 * reference is the fold MPI defines, x_0 op (x_1 op (... op x_{p-1})),
 * worked out locally without the MPI library. */
enum { RED_REDUCE, RED_ALLREDUCE, RED_RSB, NRED };
static const char *const red_names[NRED] = {"reduce", "allreduce",
                                            "reduce_scatter_block"};
enum { RW_KCOLL, RW_LOCAL, RW_TYPE_OP, RW_INTERCOMM, NRWHAT };
static const char *const red_what_names[NRWHAT] = {
    "kcoll", "local", "mpi(type-op)", "mpi(intercomm)"};
static long red_expect[NRED][NRWHAT];

/* The cases: (type, op) pairs. DSUM holds integer-valued doubles (every
 * order of the sum is exact), DFRAC fractions (the MPI library may sum in
 * another order: within rounding); DINT has padding, which libkcoll hands
 * to the MPI library. */
enum { R_DSUM, R_DFRAC, R_IMAX, R_2INT, R_MATMUL, R_DINT, NRCASE };
static const char *const rcase_names[NRCASE] = {
    "MPI_DOUBLE/MPI_SUM", "MPI_DOUBLE/MPI_SUM fractions", "MPI_INT/MPI_MAX",
    "MPI_2INT/MPI_MAXLOC", "user matrix product (non-commutative)",
    "MPI_DOUBLE_INT/MPI_MAXLOC"};
typedef struct { int v, i; } two_int;
typedef struct { double v; int i; } double_int;
typedef struct { uint32_t m[4]; } mat2; /* 2x2, row-major */
static MPI_Datatype rcase_type[NRCASE];
static MPI_Op rcase_op[NRCASE];
static size_t rcase_size[NRCASE];

static uint64_t mix(uint64_t seed, int owner, size_t i)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull ^ ((uint64_t)owner << 40) ^ i;
    x ^= x >> 31;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 29;
    return x;
}

/* inout = in · inout: applied in rank order, the product is
 * x_0 · x_1 · ... · x_{p-1}, which no other order gives. */
static void mat_mul(const mat2 *a, mat2 *b)
{
    mat2 c = {{a->m[0] * b->m[0] + a->m[1] * b->m[2],
               a->m[0] * b->m[1] + a->m[1] * b->m[3],
               a->m[2] * b->m[0] + a->m[3] * b->m[2],
               a->m[2] * b->m[1] + a->m[3] * b->m[3]}};
    *b = c;
}

static void matmul_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++)
        mat_mul((const mat2 *)in + k, (mat2 *)inout + k);
}

static void red_setup(void)
{
    static MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_UINT32_T, &mat);
    MPI_Type_commit(&mat);
    static MPI_Op matop;
    MPI_Op_create(matmul_op, 0, &matop);
    const MPI_Datatype t[NRCASE] = {MPI_DOUBLE, MPI_DOUBLE, MPI_INT,
                                    MPI_2INT,   mat,        MPI_DOUBLE_INT};
    const MPI_Op o[NRCASE] = {MPI_SUM,    MPI_SUM, MPI_MAX,
                              MPI_MAXLOC, matop,   MPI_MAXLOC};
    const size_t s[NRCASE] = {sizeof(double), sizeof(double), sizeof(int),
                              sizeof(two_int), sizeof(mat2),
                              sizeof(double_int)};
    for (int c = 0; c < NRCASE; c++) {
        rcase_type[c] = t[c];
        rcase_op[c] = o[c];
        rcase_size[c] = s[c];
    }
}

static void red_teardown(void)
{
    MPI_Type_free(&rcase_type[R_MATMUL]);
    MPI_Op_free(&rcase_op[R_MATMUL]);
}

/* Element i of rank r's input. Small ranges make MAXLOC's ties (the lower
 * index wins) frequent; the indices fall with the rank, so the lower index
 * is not the lower rank's. */
static void red_gen(int cs, uint64_t seed, int r, size_t i, void *out)
{
    uint64_t h = mix(seed, r, i);
    switch (cs) {
    case R_DSUM:
        *(double *)out = (double)(int64_t)(h % 2000001) - 1000000.0;
        break;
    case R_DFRAC:
        *(double *)out = ((double)(h % 1000003) - 500000.0) / 7.0;
        break;
    case R_IMAX:
        *(int *)out = (int)(uint32_t)h;
        break;
    case R_2INT:
        *(two_int *)out = (two_int){(int)(h % 4), 100 - 10 * r + (int)(i % 3)};
        break;
    case R_MATMUL:
        for (int k = 0; k < 4; k++)
            ((mat2 *)out)->m[k] = (uint32_t)(h >> (16 * k)) % 7;
        break;
    default: {
        double_int d;
        memset(&d, 0, sizeof d);
        d.v = (double)(h % 4);
        d.i = 100 - 10 * r + (int)(i % 3);
        memcpy(out, &d, sizeof d);
        break;
    }
    }
}

/* inout = in op inout, as MPI_Reduce_local applies op. */
static void red_apply(int cs, const void *in, void *inout)
{
    switch (cs) {
    case R_DSUM:
    case R_DFRAC:
        *(double *)inout = *(const double *)in + *(double *)inout;
        break;
    case R_IMAX:
        if (*(const int *)in > *(int *)inout)
            *(int *)inout = *(const int *)in;
        break;
    case R_2INT: {
        const two_int *a = in;
        two_int *b = inout;
        if (a->v > b->v || (a->v == b->v && a->i < b->i))
            *b = *a;
        break;
    }
    case R_MATMUL:
        mat_mul(in, inout);
        break;
    default: {
        const double_int *a = in;
        double_int *b = inout;
        if (a->v > b->v || (a->v == b->v && a->i < b->i)) {
            b->v = a->v;
            b->i = a->i;
        }
        break;
    }
    }
}

/* Whether got is element i of the fold over p ranks. */
static int red_right(int cs, uint64_t seed, int p, size_t i, const void *got)
{
    unsigned char acc[32], x[32];
    double mag = 0;
    red_gen(cs, seed, p - 1, i, acc);
    if (cs == R_DFRAC)
        mag = fabs(*(double *)acc);
    for (int r = p - 2; r >= 0; r--) {
        red_gen(cs, seed, r, i, x);
        red_apply(cs, x, acc);
        if (cs == R_DFRAC)
            mag += fabs(*(double *)x);
    }
    if (cs == R_DFRAC)
        return fabs(*(const double *)got - *(double *)acc) <=
               (double)p * DBL_EPSILON * mag;
    if (cs == R_DINT) { /* the padding is not data */
        const double_int *g = got, *w = (const double_int *)acc;
        return g->v == w->v && g->i == w->i;
    }
    return memcmp(got, acc, rcase_size[cs]) == 0;
}

static void red_count(int coll, int cs, MPI_Comm comm)
{
    if (world_rank != 0)
        return;
    int size = 0;
    MPI_Comm_size(comm, &size);
    red_expect[coll][is_inter(comm)    ? RW_INTERCOMM
                     : cs == R_DINT    ? RW_TYPE_OP
                     : size == 1       ? RW_LOCAL
                                       : RW_KCOLL]++;
}

#define RED_GUARD 64
static const unsigned char guard_byte = 0xa5;

/* One reduction of count elements (reduce, allreduce) or blocks of count
 * (reduce_scatter_block) on comm. A reduce's non-roots pass recvbuf NULL
 * (MPI: not significant there). in_place: MPI_IN_PLACE where MPI allows it
 * (a reduce's root, every process of the other two). */
static void red_run(int coll, int cs, size_t count, int root, int in_place,
                    MPI_Comm comm, const char *comm_name, uint64_t seed)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    size_t es = rcase_size[cs];
    size_t n = coll == RED_RSB ? count * (size_t)p : count; /* input */
    size_t out0 = coll == RED_RSB ? count * (size_t)rank : 0;
    size_t outn = coll == RED_RSB ? count : n; /* result elements */
    int gets = coll != RED_REDUCE || rank == root;
    int mine_in_place = in_place && gets;
    /* The receive buffer: the result, or the input too in place. */
    size_t rlen = (mine_in_place ? n : outn) * es;
    unsigned char *send = malloc(n * es + 1), *recv = malloc(rlen + RED_GUARD);
    for (size_t i = 0; i < n; i++)
        red_gen(cs, seed, rank, i, send + i * es);
    memset(recv, guard_byte, rlen + RED_GUARD);
    if (mine_in_place)
        memcpy(recv, send, n * es);
    const void *sb = mine_in_place ? MPI_IN_PLACE : send;
    void *rb = gets ? recv : NULL;
    MPI_Datatype t = rcase_type[cs];
    MPI_Op op = rcase_op[cs];
    int rc;
    if (coll == RED_REDUCE)
        rc = MPI_Reduce(sb, rb, (int)count, t, op, root, comm);
    else if (coll == RED_ALLREDUCE)
        rc = MPI_Allreduce(sb, rb, (int)count, t, op, comm);
    else
        rc = MPI_Reduce_scatter_block(sb, rb, (int)count, t, op, comm);
    red_count(coll, cs, comm);
    checked++;
    char what[256];
    snprintf(what, sizeof what, "%s %s count %zu root %d%s on %s",
             red_names[coll], rcase_names[cs], count, root,
             in_place ? " in place" : "", comm_name);
    if (rc != MPI_SUCCESS) {
        fail("%s: rc %s%d", what, "", rc, 0);
    } else if (gets) {
        size_t wrong = 0, first = 0;
        for (size_t k = 0; k < outn; k++)
            if (!red_right(cs, seed, p, out0 + k, recv + k * es) && !wrong++)
                first = k;
        if (wrong)
            fail("%s: %s%d wrong elements, the first %d", what, "",
                 (int)wrong, (int)first);
        /* Nothing written past the result (in place: past the input). */
        for (size_t k = rlen; k < rlen + RED_GUARD; k++)
            if (recv[k] != guard_byte) {
                fail("%s: %s byte %d past the result written", what, "",
                     (int)(k - rlen), 0);
                break;
            }
    }
    /* The send buffer is input only. */
    if (!mine_in_place)
        for (size_t i = 0; i < n; i++) {
            unsigned char x[32];
            red_gen(cs, seed, rank, i, x);
            if (memcmp(x, send + i * es, es)) {
                fail("%s: %s send element %d changed", what, "", (int)i, 0);
                break;
            }
        }
    free(send);
    free(recv);
}

/* MPICH 4.0.2 (Debian 12) crashes in its own MPI_Reduce with MPI_IN_PLACE
 * at a root other than 0 (pmodels/mpich#6540, fixed after 4.1.1): not
 * called there, where the call may be the MPI library's. */
#ifdef OPEN_MPI
enum { IN_PLACE_AT_OTHER_ROOTS = 1 };
#else
enum { IN_PLACE_AT_OTHER_ROOTS = 0 };
#endif

static void red_comm(MPI_Comm comm, const char *name, uint64_t *seed)
{
    static const size_t counts[] = {0, 1, 1000, 100003};
    int p;
    MPI_Comm_size(comm, &p);
    for (int cs = 0; cs < NRCASE; cs++)
        for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++)
            for (int ip = 0; ip < 2; ip++) {
                red_run(RED_REDUCE, cs, counts[ci], 0, ip, comm, name, ++*seed);
                if (p > 1 && (!ip || IN_PLACE_AT_OTHER_ROOTS))
                    red_run(RED_REDUCE, cs, counts[ci], p - 1, ip, comm, name,
                            ++*seed);
                red_run(RED_ALLREDUCE, cs, counts[ci], 0, ip, comm, name,
                        ++*seed);
                red_run(RED_RSB, cs, counts[ci], 0, ip, comm, name, ++*seed);
            }
}

/* An intercommunicator (the world's lower and upper halves): MPI_Allreduce
 * gives each group the sum of the other's data, MPI_Reduce the low group's
 * rank 0 the high group's; both are the MPI library's. */
static void red_inter(void)
{
    if (world_size < 2)
        return;
    int low = world_rank < world_size / 2, n = 1000;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, low, world_rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? world_size / 2 : 0, 9,
                         &inter);
    int hr;
    MPI_Comm_rank(half, &hr);
    int *mine = malloc((size_t)n * sizeof *mine);
    int *got = malloc((size_t)n * sizeof *got);
    for (int i = 0; i < n; i++)
        mine[i] = world_rank * 1000 + i;
    /* The other group's world ranks: [lo, hi). */
    int lo = low ? world_size / 2 : 0, hi = low ? world_size : world_size / 2;
    long wrong = 0;
    int rc = MPI_Allreduce(mine, got, n, MPI_INT, MPI_SUM, inter);
    for (int i = 0; rc == MPI_SUCCESS && i < n; i++) {
        int want = 0;
        for (int r = lo; r < hi; r++)
            want += r * 1000 + i;
        wrong += got[i] != want;
    }
    red_count(RED_ALLREDUCE, R_IMAX, inter);
    checked++;
    if (rc != MPI_SUCCESS || wrong)
        fail("%s%sallreduce on an intercommunicator: rc %d, %d wrong", "", "",
             rc, (int)wrong);
    int root = low ? (hr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    memset(got, 0, (size_t)n * sizeof *got);
    rc = MPI_Reduce(mine, got, n, MPI_INT, MPI_SUM, root, inter);
    wrong = 0;
    for (int i = 0; rc == MPI_SUCCESS && root == MPI_ROOT && i < n; i++) {
        int want = 0;
        for (int r = lo; r < hi; r++)
            want += r * 1000 + i;
        wrong += got[i] != want;
    }
    red_count(RED_REDUCE, R_IMAX, inter);
    checked++;
    if (rc != MPI_SUCCESS || wrong)
        fail("%s%sreduce on an intercommunicator: rc %d, %d wrong", "", "",
             rc, (int)wrong);
    free(mine);
    free(got);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

int reductions(void)
{
    red_setup();
    uint64_t seed = 1;
    MPI_Comm split;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &split);
    red_comm(MPI_COMM_WORLD, "MPI_COMM_WORLD", &seed);
    red_comm(split, "a reversed split", &seed);
    red_comm(MPI_COMM_SELF, "MPI_COMM_SELF", &seed);
    red_inter();
    MPI_Comm_free(&split);
    red_teardown();
    long all = 0;
    PMPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) {
        for (int c = 0; c < NRED; c++)
            for (int w = 0; w < NRWHAT; w++)
                if (red_expect[c][w])
                    printf("expect %s %s %ld\n", red_names[c],
                           red_what_names[w], red_expect[c][w]);
        printf("interpose_check reduce p=%d: %ld calls on rank 0 checked, "
               "%ld failed in all\n",
               world_size, checked, all);
    }
    return all != 0;
}
