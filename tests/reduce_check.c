/* reduce_check: libkcoll's reductions (algos/reduce.h) against the order
 * MPI defines and against the MPI library, run under mpirun at any p.
 *
 * For every reduction, every algorithm of its registry rows and NULL,
 * counts 0, 1, p − 1, 1000 and 100,003 elements (not a multiple of the
 * chunk or of p), in place and not, every root of reduce:
 *   - every predefined (type, op) pair it runs, on integers, checked
 *     exactly against the MPI library's result;
 *   - random doubles under MPI_SUM: libkcoll's algorithms give exactly
 *     x_0 + (x_1 + (… + x_{p−1})), the fold this test computes itself with
 *     MPI_Reduce_local from every rank's input, on every rank, bit for bit;
 *   - a non-commutative user op (2×2 unsigned matrices, multiplied) on a
 *     contiguous derived type: the product in rank order, exactly, from
 *     libkcoll and from the MPI library;
 *   - a type with padding (MPI_DOUBLE_INT, MAXLOC) goes to the MPI library
 *     and is right.
 * Under KCOLL_VIRTUAL_NODES every case runs twice: on the world (each
 * virtual node's ranks consecutive) and on a communicator of the same
 * processes, even world ranks first, where a node's ranks are not
 * consecutive (two_level_reduce.c: a non-commutative op goes to the MPI
 * library there, the others run in two levels and reorder the blocks).
 * Then the same call repeated on communicators freed and made anew, and
 * the errors: an unknown algorithm (MPI_ERR_ARG), a bad root
 * (MPI_ERR_ROOT), on every rank alike, and a read that fails (reduce
 * root_read from an input the root cannot read) is every rank's error,
 * after which the next call is right. With --few-roots, reduce runs at
 * roots 0, p/2 and p − 1 only (the first, a middle and the last slice).
 * Prints one line per failure and
 * "reduce_check p=P: N cases, F failed"; exit 1 on a failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <mpi.h>

#include "algos/reduce.h"
#include "algos/reduce_types.h"

static int rank, size, cases, failed;
/* The communicator the cases run on, and its name in a failure. */
static MPI_Comm comm;
static const char *comm_name = "world";
/* Run in virtual nodes (KCOLL_VIRTUAL_NODES): the reductions run in two
 * levels, node by node and then among the nodes, so a floating-point sum
 * is the rank-order fold re-associated, right within rounding. */
static int spans_nodes;
/* --few-roots: for tests/algos_reduce.sh's p = 8 pass, where reduce at
 * every root makes five sixths of the cases (2359 in 203 s on 2 cores). */
static int few_roots;

static int root_wanted(int root)
{
    return !few_roots || root == 0 || root == size / 2 || root == size - 1;
}

static void fail(const char *what, const char *coll, const char *alg,
                 size_t count, int in_place, int root)
{
    failed++;
    printf("FAIL rank %d on %s: %s: %s %s count=%zu%s root=%d\n", rank,
           comm_name, what, coll, alg ? alg : "NULL", count,
           in_place ? " in-place" : "", root);
}

/* 2×2 unsigned matrices: inout = in × inout, in rank order. */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    const unsigned *a = in;
    unsigned *b = inout;
    for (int i = 0; i < *len; i++, a += 4, b += 4) {
        unsigned r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                         a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, r, sizeof r);
    }
}

typedef struct {
    const char *name;
    MPI_Datatype type;
    MPI_Op op;
    int exact_mpi; /* compare with the MPI library's result bit for bit */
} pair;

/* Rank r's input element i, as bytes of esize (a pattern per type). */
static void fill(void *buf, size_t count, size_t esize, MPI_Datatype type,
                 int r, unsigned salt)
{
    unsigned char *b = buf;
    for (size_t i = 0; i < count; i++) {
        uint64_t v = (i * 2654435761u + (uint64_t)r * 40503u + salt) ^
                     ((uint64_t)r << 7);
        if (type == MPI_DOUBLE) {
            /* random doubles of mixed magnitude: the order of a sum shows */
            double d = (double)(v % 1000003) * 1e-3 *
                       ((v >> 20) % 2 ? 1e8 : 1e-8) * ((v >> 21) % 2 ? -1 : 1);
            memcpy(b + i * esize, &d, sizeof d);
        } else if (type == MPI_2INT) {
            int pr[2] = {(int)(v % 7), r}; /* ties: MAXLOC's lowest index */
            memcpy(b + i * esize, pr, sizeof pr);
        } else if (type == MPI_C_BOOL) {
            b[i] = (v >> 3) % 3 == 0;
        } else {
            /* each 8 bytes of an element their own (the 2×2 matrices'
             * rows differ: [[a, b], [a, b]] matrices nearly commute,
             * and an order mistake would go unseen) */
            for (size_t k = 0; k < esize; k++) {
                uint64_t w = v ^ (uint64_t)(k / 8) * 0x9e3779b97f4a7c15u;
                b[i * esize + k] = (unsigned char)(w >> (8 * (k % 8)));
            }
            if (type == MPI_INT) /* small: no signed overflow in SUM/PROD */
                ((int *)buf)[i] = (int)(v % 5) + 1;
        }
    }
}

/* The fold in rank order of every rank's input: inputs of p ranks, one
 * after the other, each `total` elements; the result of element range
 * [first, first + n) into out. */
static void reference(const unsigned char *all, size_t total, size_t esize,
                      MPI_Datatype type, MPI_Op op, size_t first, size_t n,
                      void *out)
{
    memcpy(out, all + ((size_t)(size - 1) * total + first) * esize,
           n * esize);
    for (int r = size - 2; r >= 0; r--)
        MPI_Reduce_local(all + ((size_t)r * total + first) * esize, out,
                         (int)n, type, op);
}

/* One case: collective coll, algorithm alg, count elements (per block for
 * reduce_scatter_block). */
static void run_case(kcal_coll coll, const char *alg, const pair *pr,
                     size_t count, int in_place, int root, MPI_Datatype type)
{
    const char *cname = kcal_coll_name(coll);
    int esz;
    MPI_Type_size(type, &esz);
    size_t esize = (size_t)esz;
    size_t total = coll == KCAL_COLL_REDUCE_SCATTER_BLOCK ? count * size : count;
    size_t outn = coll == KCAL_COLL_REDUCE_SCATTER_BLOCK ? count : total;
    size_t tb = total * esize + 1, ob = outn * esize + 1;
    (void)pr->type;
    unsigned char *in = malloc(tb), *out = malloc(tb), *all = malloc(tb * (size_t)size), *ref = malloc(ob);
    unsigned salt = (unsigned)cases;
    fill(in, total, esize, type, rank, salt);
    MPI_Allgather(in, (int)(total * esize), MPI_BYTE, all,
                  (int)(total * esize), MPI_BYTE, comm);
    /* reduce: in place only at the root */
    int here_in_place = in_place && (coll != KCAL_COLL_REDUCE || rank == root);
    memset(out, 0xa5, tb);
    if (here_in_place)
        memcpy(out, in, total * esize);
    const void *send = here_in_place ? MPI_IN_PLACE : in;
    int rc;
    cases++;
    switch (coll) {
    case KCAL_COLL_REDUCE:
        rc = kcoll_reduce(send, out, count, type, pr->op, root, comm,
                          alg);
        break;
    case KCAL_COLL_ALLREDUCE:
        rc = kcoll_allreduce(send, out, count, type, pr->op, comm,
                             alg);
        break;
    default:
        rc = kcoll_reduce_scatter_block(send, out, count, type, pr->op,
                                        comm, alg);
    }
    if (rc != MPI_SUCCESS) {
        fail(pr->name, cname, alg, count, in_place, root);
        goto out;
    }
    int gets = coll != KCAL_COLL_REDUCE || rank == root;
    size_t first = coll == KCAL_COLL_REDUCE_SCATTER_BLOCK ? (size_t)rank * count
                                                          : 0;
    if (gets && outn > 0) {
        reference(all, total, esize, type, pr->op, first, outn, ref);
        /* Bit for bit the rank-order fold, except the MPI library's own
         * floating-point sum (its order is its own). */
        int exact = pr->exact_mpi || (alg && !spans_nodes);
        if (exact && memcmp(out, ref, outn * esize) != 0)
            fail(pr->name, cname, alg, count, in_place, root);
        for (size_t i = 0; !exact && i < outn; i++) {
            double o, r, mag = 0, v;
            memcpy(&o, out + i * esize, sizeof o);
            memcpy(&r, ref + i * esize, sizeof r);
            for (int k = 0; k < size; k++) {
                memcpy(&v, all + ((size_t)k * total + first + i) * esize,
                       sizeof v);
                mag += v < 0 ? -v : v;
            }
            if ((o - r > 1e-12 * mag || r - o > 1e-12 * mag)) {
                fail("double sum beyond rounding", cname, alg, count,
                     in_place, root);
                break;
            }
        }
    }
    if (coll != KCAL_COLL_REDUCE_SCATTER_BLOCK && coll != KCAL_COLL_REDUCE &&
        outn > 0) {
        /* the same bits on every rank */
        unsigned char *r0 = malloc(ob);
        memcpy(r0, out, outn * esize);
        MPI_Bcast(r0, (int)(outn * esize), MPI_BYTE, 0, comm);
        if (memcmp(r0, out, outn * esize) != 0)
            fail("ranks differ", cname, alg, count, in_place, root);
        free(r0);
    }
out:
    free(in);
    free(out);
    free(all);
    free(ref);
}

/* Every case on comm (rank: this process's rank in it). */
static void run_all(const pair *pairs, size_t npairs)
{
    size_t counts[] = {0, 1, (size_t)size - 1, 1000, 100003};
    for (int coll = 0; coll < KCAL_COLL_COUNT; coll++) {
        if (!kcal_coll_is_reduction((kcal_coll)coll))
            continue;
        size_t na;
        const kcal_algorithm *rows =
            kcal_model_algorithms((kcal_coll)coll, &na);
        for (size_t ai = 0; ai < na + 1; ai++) {
            const char *alg = ai < na ? rows[ai].id : NULL;
            for (size_t pi = 0; pi < npairs; pi++)
                for (size_t ci = 0; ci < sizeof counts / sizeof *counts; ci++) {
                    /* every pair at two counts, double sum at all */
                    if (pi > 0 && ci != 3 && ci != 4 - (pi % 2) * 3)
                        continue;
                    size_t count = counts[ci];
                    if (coll == KCAL_COLL_REDUCE_SCATTER_BLOCK)
                        count = count / (size_t)size + (ci == 1);
                    for (int ip = 0; ip < 2; ip++) {
                        int roots = coll == KCAL_COLL_REDUCE ? size : 1;
                        for (int root = 0; root < roots; root++)
                            if (root_wanted(root))
                                run_case((kcal_coll)coll, alg, &pairs[pi],
                                         count, ip, root, pairs[pi].type);
                    }
                }
        }
    }
}

/* kcoll_red_commutes against the MPI library's own ops: where it says
 * x ⊕ y and y ⊕ x are the same bits (rank p − 1 then folds in the other
 * order, reduce_op.c), MPI_Reduce_local gives the same bits both ways on
 * values that would tell (signed zeros, infinities, a denormal, both
 * signs); and it says so of MPI_SUM on doubles (the fast path) but not of
 * MPI_MIN or MPI_MAX on doubles, whose ties of +0 and −0 keep one
 * operand. Every predefined (type, op) that libkcoll reduces itself. */
static void check_commutes(void)
{
    static const MPI_Datatype types[] = {
#define KCOLL_RTYPE(handle, cls) handle,
#define KCOLL_RTYPE_NAMED(name, handle, ctype, cls) handle,
#define KCOLL_RTYPE_PAIR(name, handle, vtype) handle,
#include "algos/reduce_types.def"
    };
    static const MPI_Op ops[] = {
#define KCOLL_ROP(name, handle, classes) handle,
#include "algos/reduce_types.def"
    };
    static const double fv[] = {0.0, -0.0, 1.0, -1.0, 4.9e-310, -2.5e-8,
                                3.25, 1e300, 1.0 / 0.0, -1.0 / 0.0};
    enum { V = sizeof fv / sizeof *fv, N = V * V };
    int checked = 0;
    for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++)
        for (size_t oi = 0; oi < sizeof ops / sizeof *ops; oi++) {
            MPI_Datatype t = types[ti];
            unsigned cls = kcoll_red_type_class(t);
            size_t esize;
            if (t == MPI_DATATYPE_NULL || !kcoll_reducible(t, ops[oi], &esize) ||
                !kcoll_red_commutes(t, ops[oi]) || esize > 16)
                continue;
            unsigned char x[N * 16], y[N * 16], xy[N * 16], yx[N * 16];
            int floating = cls == KCOLL_RC_FLOATING;
            /* a logical holds 0 or 1 (a C bool of 2 is no bool) */
            int vals = cls == KCOLL_RC_LOGICAL ? 2 : 4;
            for (int i = 0; i < N; i++) {
                double a = fv[i / V], b = fv[i % V];
                if (floating && esize == sizeof(float)) {
                    float fa = (float)a, fb = (float)b;
                    memcpy(x + i * esize, &fa, esize);
                    memcpy(y + i * esize, &fb, esize);
                } else if (floating && esize == sizeof(double)) {
                    memcpy(x + i * esize, &a, esize);
                    memcpy(y + i * esize, &b, esize);
                } else { /* integers and bytes 0..3, logicals 0..1 */
                    memset(x + i * esize, 0, esize);
                    memset(y + i * esize, 0, esize);
                    x[i * esize] = (unsigned char)(i / V % vals);
                    y[i * esize] = (unsigned char)(i % V % vals);
                }
            }
            memcpy(xy, y, N * esize); /* x ⊕ y */
            MPI_Reduce_local(x, xy, N, t, ops[oi]);
            memcpy(yx, x, N * esize); /* y ⊕ x */
            MPI_Reduce_local(y, yx, N, t, ops[oi]);
            checked++;
            cases++;
            if (memcmp(xy, yx, N * esize) != 0)
                fail("an op said to commute does not", "kcoll_red_commutes",
                     NULL, ti * 100 + oi, 0, 0);
        }
    cases += 3;
    if (!kcoll_red_commutes(MPI_DOUBLE, MPI_SUM) || checked < 20)
        fail("double sum (and the integer ops) commute", "kcoll_red_commutes",
             NULL, (size_t)checked, 0, 0);
    if (kcoll_red_commutes(MPI_DOUBLE, MPI_MIN) ||
        kcoll_red_commutes(MPI_DOUBLE, MPI_MAX))
        fail("double min and max do not commute", "kcoll_red_commutes", NULL,
             0, 0, 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *vn = getenv("KCOLL_VIRTUAL_NODES");
    spans_nodes = vn && atoi(vn) > 0 && atoi(vn) < size;
    few_roots = argc > 1 && !strcmp(argv[1], "--few-roots");
    MPI_Op matop;
    MPI_Op_create(matmul, 0, &matop);
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_UNSIGNED, &mat);
    MPI_Type_commit(&mat);
    pair pairs[] = {
        {"double sum", MPI_DOUBLE, MPI_SUM, 0},
        {"int sum", MPI_INT, MPI_SUM, 1},
        {"int prod", MPI_INT, MPI_PROD, 1},
        {"long long max", MPI_LONG_LONG, MPI_MAX, 1},
        {"short min", MPI_SHORT, MPI_MIN, 1},
        {"unsigned band", MPI_UNSIGNED, MPI_BAND, 1},
        {"byte bor", MPI_BYTE, MPI_BOR, 1},
        {"uint64 bxor", MPI_UINT64_T, MPI_BXOR, 1},
        {"bool land", MPI_C_BOOL, MPI_LAND, 1},
        {"bool lor", MPI_C_BOOL, MPI_LOR, 1},
        {"int lxor", MPI_INT, MPI_LXOR, 1},
        {"2int maxloc", MPI_2INT, MPI_MAXLOC, 1},
        {"2int minloc", MPI_2INT, MPI_MINLOC, 1},
        {"matrix product (user, non-commutative)", mat, matop, 1},
    };
    size_t npairs = sizeof pairs / sizeof *pairs;
    comm = MPI_COMM_WORLD;
    if (rank == 0)
        check_commutes();
    run_all(pairs, npairs);
    if (spans_nodes && size >= 3) {
        /* Even world ranks first: a virtual node's ranks are not
         * consecutive in this communicator. */
        MPI_Comm shuffled;
        MPI_Comm_split(MPI_COMM_WORLD, 0, (rank % 2) * size + rank,
                       &shuffled);
        comm = shuffled;
        comm_name = "even ranks first";
        MPI_Comm_rank(comm, &rank);
        run_all(pairs, npairs);
        comm = MPI_COMM_WORLD;
        comm_name = "world";
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_free(&shuffled);
    }
    /* A type with padding goes to the MPI library: (value, rank) MAXLOC. */
    {
        struct {
            double v;
            int i;
        } mine[3], got[3];
        for (int i = 0; i < 3; i++) {
            mine[i].v = (double)((rank * 7 + i * 3) % 5);
            mine[i].i = rank;
        }
        cases++;
        if (kcoll_allreduce(mine, got, 3, MPI_DOUBLE_INT, MPI_MAXLOC,
                            MPI_COMM_WORLD, NULL) != MPI_SUCCESS)
            fail("double_int maxloc", "allreduce", NULL, 3, 0, 0);
        for (int i = 0; i < 3; i++) {
            double best = -1;
            int at = 0;
            for (int r = 0; r < size; r++)
                if ((double)((r * 7 + i * 3) % 5) > best) {
                    best = (double)((r * 7 + i * 3) % 5);
                    at = r;
                }
            if (got[i].v != best || got[i].i != at)
                fail("double_int maxloc value", "allreduce", NULL, 3, 0, 0);
        }
    }
    /* The same call again on communicators freed and made anew (libkcoll
     * remembers a repeated reduction's state, algos/kcoll.c): a handle
     * that comes back as a communicator of another size must get its own
     * state. Rank r adds r + 1; each call three times. */
    for (int round = 0; round < 4; round++) {
        MPI_Comm sub;
        MPI_Comm_split(MPI_COMM_WORLD, round % 2 ? rank % 2 : 0, rank, &sub);
        int subsize, want = 0, mine = rank + 1, got;
        MPI_Comm_size(sub, &subsize);
        MPI_Allreduce(&mine, &want, 1, MPI_INT, MPI_SUM, sub);
        for (int i = 0; i < 3; i++) {
            cases++;
            got = -1;
            if (kcoll_allreduce(&mine, &got, 1, MPI_INT, MPI_SUM, sub, NULL) !=
                    MPI_SUCCESS ||
                got != want)
                fail("repeated call on a new communicator", "allreduce", NULL,
                     1, 0, 0);
        }
        MPI_Comm_free(&sub);
    }
    /* Errors, the same on every rank. */
    double x = 1, y;
    cases += 2;
    if (kcoll_allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
                        "no_such_algorithm") != MPI_ERR_ARG)
        fail("unknown id is MPI_ERR_ARG", "allreduce", "no_such_algorithm", 1,
             0, 0);
    if (kcoll_reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, size, MPI_COMM_WORLD,
                     NULL) != MPI_ERR_ROOT)
        fail("root p is MPI_ERR_ROOT", "reduce", NULL, 1, 0, size);
    /* A failed read is every rank's error: rank p − 1's input is a page
     * nobody may read (it never touches it itself: the root reads it), so
     * the root's CMA read fails; the others learn it from the root's done
     * flag (algos/reduce.c) and must not return MPI_SUCCESS. Then the
     * same call with a readable input, which must be right: a failure
     * leaves the flags in step. On one node only (across virtual nodes
     * the named row runs inside two levels, whose errors are theirs). */
    if (size > 1 && !spans_nodes) {
        long page = sysconf(_SC_PAGESIZE);
        double *hole = mmap(NULL, (size_t)page, PROT_NONE,
                            MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        double ok_in[4] = {1, 2, 3, 4}, out[4] = {0};
        const double *in = rank == size - 1 ? hole : ok_in;
        cases += 2;
        if (kcoll_reduce(in, out, 4, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD,
                         "root_read") == MPI_SUCCESS)
            fail("an unreadable input is every rank's error", "reduce",
                 "root_read", 4, 0, 0);
        if (kcoll_reduce(ok_in, out, 4, MPI_DOUBLE, MPI_SUM, 0,
                         MPI_COMM_WORLD, "root_read") != MPI_SUCCESS ||
            (rank == 0 && (out[0] != size || out[3] != 4.0 * size)))
            fail("the call after a failed one", "reduce", "root_read", 4, 0,
                 0);
        munmap(hole, (size_t)page);
    }
    int bad = failed, total_bad, total_cases;
    MPI_Allreduce(&bad, &total_bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&cases, &total_cases, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        printf("reduce_check p=%d: %d cases, %d failed\n", size, total_cases,
               total_bad);
    MPI_Type_free(&mat);
    MPI_Op_free(&matop);
    MPI_Finalize();
    return total_bad != 0;
}
