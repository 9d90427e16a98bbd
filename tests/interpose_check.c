/* interpose_check: an application that knows nothing of kcoll. It calls
 * only MPI_* (and PMPI_* for its reference results), so run under
 * LD_PRELOAD=libkcoll_pmpi.so its collectives are the interposer's, and
 * without it the MPI library's (tests/interpose.sh runs both).
 *
 * --mode matrix: MPI_Bcast, MPI_Scatter, MPI_Gather, MPI_Allgather and
 *   MPI_Alltoall with blocks of {0, 48, 4800, 72000} bytes, roots {0, p-1},
 *   in place and not, on MPI_COMM_WORLD, a duplicate, a split in reversed
 *   rank order, MPI_COMM_SELF and an intercommunicator; with MPI_BYTE,
 *   MPI_INT, MPI_DOUBLE, a derived contiguous type (3 doubles), a vector of
 *   3 doubles with holes, a struct of 2 doubles listed out of order (size =
 *   extent = true extent, yet not contiguous) on every process; a vector at
 *   the root only (scatter's send side, gather's receive side, bcast's
 *   buffer) with plain doubles elsewhere; and send and receive types that
 *   differ per process. Each call runs through MPI_* and through PMPI_* from
 *   identical buffers, and every byte of every buffer (holes included) must
 *   match; the MPI_BYTE calls are also checked against the values they must
 *   hold. Rank 0 prints what a run under the interposer must show in its
 *   KCOLL_STATS table: "expect <coll> <what> <calls>" with <what> kcoll (an
 *   algorithm of libkcoll), local (a communicator of one process) or
 *   mpi(intercomm).
 * --mode reduce: MPI_Reduce (roots 0 and p-1, in place at p-1 with Open
 *   MPI only; NULL recvbuf at the non-roots), MPI_Allreduce and MPI_Reduce_scatter_block, in place and
 *   not, of {0, 1, 1000, 100003} elements (blocks), on MPI_COMM_WORLD, a
 *   split in reversed rank order and MPI_COMM_SELF: MPI_DOUBLE/MPI_SUM of
 *   integer values (exact in any order) and of fractions (within
 *   rounding of the rank-order sum), MPI_INT/MPI_MAX, MPI_2INT/MPI_MAXLOC
 *   (ties frequent), a non-commutative user op (2x2 matrix product) and
 *   MPI_DOUBLE_INT/MPI_MAXLOC (padding: libkcoll hands it to the MPI
 *   library), each element against the fold x_0 op (x_1 op (...)) the
 *   program computes itself; nothing written past the result, the send
 *   buffer unchanged. Also MPI_Allreduce and MPI_Reduce on an
 *   intercommunicator. Rank 0 prints "expect <coll> <what> <calls>" as
 *   the matrix does, <what> also mpi(type-op).
 * --mode errors: with MPI_ERRORS_RETURN a bad root and a negative count
 *   return MPI_ERR_ROOT / MPI_ERR_COUNT instead of aborting; so do the
 *   reductions' bad root, count (Open MPI), op, datatype and recvbuf
 *   MPI_IN_PLACE.
 * --mode fatal: a bad root with the default MPI_ERRORS_ARE_FATAL: the job
 *   must abort ("survived" on stdout means it did not).
 * --mode strict: run with KCOLL_SIMULATE_NO_CMA=1 KCOLL_STRICT=1, where
 *   libkcoll fails every call with MPI_ERR_OTHER: an error handler of our
 *   own on the communicator sees the error once per call, and the call
 *   returns it (the five and the three reductions). Prints "strict: calls
 *   N errors E class C handler H last L".
 * --mode strict-fatal: the same with MPI_ERRORS_ARE_FATAL: must abort.
 * --mode loop: the five collectives on 64 MiB buffers, for ever (until a
 *   signal ends the job); rank 0 prints "loop: running" as it starts them.
 * --mode attr: on duplicates of MPI_COMM_WORLD that carry an attribute
 *   whose copy callback refuses (MPI_ERR_OTHER), and one whose callback
 *   accepts, with MPI_ERRORS_RETURN: the five collectives of 64 KiB blocks
 *   return MPI_SUCCESS with the right data, and no copy callback ever runs
 *   (the program copies no communicator after setting them). Prints
 *   "attr: rank R: N wrong, copies C".
 * --mode attr-fatal: the same with the default MPI_ERRORS_ARE_FATAL: must
 *   not abort. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

enum { BCAST, SCATTER, GATHER, ALLGATHER, ALLTOALL, NCOLL };
static const char *const coll_names[NCOLL] = {"bcast", "scatter", "gather",
                                              "allgather", "alltoall"};
enum { KCOLL, LOCAL, INTERCOMM, NWHAT };
static const char *const what_names[NWHAT] = {"kcoll", "local",
                                              "mpi(intercomm)"};

static int world_rank, world_size;
static long checked, failures;
static long expect[NCOLL][NWHAT];

static void fail(const char *fmt, const char *a, const char *b, int c, int d)
{
    failures++;
    if (failures <= 20) {
        fprintf(stderr, "interpose_check: FAIL (rank %d) ", world_rank);
        fprintf(stderr, fmt, a, b, c, d);
        fputc('\n', stderr);
    }
}

static unsigned char pat(uint64_t seed, int owner, size_t i)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull ^ ((uint64_t)owner << 40) ^ i;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return (unsigned char)(x >> 32);
}

/* ---- the types ----------------------------------------------------------- */

enum { T_BYTE, T_INT, T_DOUBLE, T_CONTIG3, T_VECTOR3, T_SWAPPED2, NTYPES };
static MPI_Datatype types[NTYPES];
static const char *const type_names[NTYPES] = {
    "MPI_BYTE", "MPI_INT", "MPI_DOUBLE", "contiguous(3,double)",
    "vector(3,1,2,double)", "struct{double@8,double@0}"};

static void make_types(void)
{
    types[T_BYTE] = MPI_BYTE;
    types[T_INT] = MPI_INT;
    types[T_DOUBLE] = MPI_DOUBLE;
    MPI_Type_contiguous(3, MPI_DOUBLE, &types[T_CONTIG3]);
    MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &types[T_VECTOR3]);
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {8, 0};
    MPI_Datatype dd[2] = {MPI_DOUBLE, MPI_DOUBLE};
    MPI_Type_create_struct(2, lens, disps, dd, &types[T_SWAPPED2]);
    for (int t = T_CONTIG3; t < NTYPES; t++)
        MPI_Type_commit(&types[t]);
}

static int tsize(int t)
{
    int s;
    MPI_Type_size(types[t], &s);
    return s;
}

static MPI_Aint textent(int t)
{
    MPI_Aint lb, e;
    MPI_Type_get_extent(types[t], &lb, &e);
    return e;
}

/* ---- configurations: which type each process uses on each side ---------- */

enum { SEND, RECV };
enum { C_BYTE, C_INT, C_DOUBLE, C_CONTIG3, C_VECTOR, C_SWAPPED, C_ROOT_VECTOR,
       C_MIXED, NCFG };
static const char *const cfg_names[NCFG] = {
    "byte", "int", "double", "contig3", "vector", "swapped", "root-vector",
    "mixed"};

/* The side of a rooted collective that holds p blocks at the root (bcast:
 * its one buffer, counted as the send side at the root). */
static int root_side(int coll)
{
    return coll == GATHER ? RECV : SEND;
}

static int pick(int cfg, int coll, int rank, int root, int side)
{
    switch (cfg) {
    case C_BYTE: return T_BYTE;
    case C_INT: return T_INT;
    case C_DOUBLE: return T_DOUBLE;
    case C_CONTIG3: return T_CONTIG3;
    case C_VECTOR: return T_VECTOR3;
    case C_SWAPPED: return T_SWAPPED2;
    case C_ROOT_VECTOR:
        if (coll == ALLGATHER || coll == ALLTOALL)
            return rank == root && side == RECV ? T_VECTOR3 : T_DOUBLE;
        return rank == root && side == root_side(coll) ? T_VECTOR3 : T_DOUBLE;
    default: /* C_MIXED */
        if (rank % 2)
            return side == SEND ? T_DOUBLE : T_VECTOR3;
        return side == SEND ? T_VECTOR3 : T_CONTIG3;
    }
}

/* ---- one call, through MPI_* and PMPI_* ---------------------------------- */

typedef struct {
    unsigned char *buf[2], *ref[2]; /* SEND, RECV */
    size_t len[2];
} buffers;

static void buffers_make(buffers *b, size_t slen, size_t rlen, uint64_t seed,
                         int rank)
{
    b->len[SEND] = slen + 64;
    b->len[RECV] = rlen + 64;
    for (int s = 0; s < 2; s++) {
        b->buf[s] = malloc(b->len[s]);
        b->ref[s] = malloc(b->len[s]);
        for (size_t i = 0; i < b->len[s]; i++)
            b->buf[s][i] = pat(seed + (uint64_t)s * 7919, rank, i);
        memcpy(b->ref[s], b->buf[s], b->len[s]);
    }
}

static void buffers_free(buffers *b)
{
    for (int s = 0; s < 2; s++) {
        free(b->buf[s]);
        free(b->ref[s]);
    }
}

static void compare(const buffers *b, const char *what, int rc, int rrc)
{
    checked++;
    if (rc != MPI_SUCCESS || rrc != MPI_SUCCESS) {
        fail("%s: rc %s (%d, reference %d)", what, "", rc, rrc);
        return;
    }
    for (int s = 0; s < 2; s++)
        if (memcmp(b->buf[s], b->ref[s], b->len[s])) {
            size_t i = 0;
            while (b->buf[s][i] == b->ref[s][i])
                i++;
            fail("%s: %s buffer differs from PMPI's at byte %d of %d", what,
                 s == SEND ? "send" : "receive", (int)i, (int)b->len[s]);
            return;
        }
}

static int is_inter(MPI_Comm comm)
{
    int inter;
    MPI_Comm_test_inter(comm, &inter);
    return inter;
}

/* What rank 0's KCOLL_STATS must count for a call on comm. */
static void count(int coll, MPI_Comm comm)
{
    if (world_rank != 0)
        return;
    int size = 0;
    if (is_inter(comm))
        expect[coll][INTERCOMM]++;
    else if ((MPI_Comm_size(comm, &size), size) == 1)
        expect[coll][LOCAL]++;
    else
        expect[coll][KCOLL]++;
}

/* One intracommunicator call of coll with blocks of `block` bytes. */
static void run(int coll, int cfg, size_t block, int root, int in_place,
                MPI_Comm comm, const char *comm_name, uint64_t seed)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int st = pick(cfg, coll, rank, root, SEND);
    int rt = pick(cfg, coll, rank, root, RECV);
    if (coll == BCAST)
        st = rt = pick(cfg, coll, rank, root, rank == root ? SEND : RECV);
    int sc = (int)(block / (size_t)tsize(st)), rcnt = (int)(block / (size_t)tsize(rt));
    /* Elements on each side at this process. */
    size_t sblocks = 1, rblocks = 1;
    if (coll == SCATTER)
        sblocks = rank == root ? (size_t)p : 0;
    if (coll == GATHER)
        rblocks = rank == root ? (size_t)p : 0;
    if (coll == ALLGATHER)
        rblocks = (size_t)p;
    if (coll == ALLTOALL)
        sblocks = rblocks = (size_t)p;
    if (coll == BCAST)
        sblocks = 0;
    buffers b;
    buffers_make(&b, sblocks * (size_t)sc * (size_t)textent(st),
                 rblocks * (size_t)rcnt * (size_t)textent(rt), seed, rank);
    char what[256];
    snprintf(what, sizeof what, "%s %s block %zu root %d%s on %s (%s/%s)",
             coll_names[coll], cfg_names[cfg], block, root,
             in_place ? " in place" : "", comm_name, type_names[st],
             type_names[rt]);
    MPI_Datatype S = types[st], R = types[rt];
    int rc = MPI_SUCCESS, rrc = MPI_SUCCESS;
    void *sb = b.buf[SEND], *rb = b.buf[RECV];
    void *ssb = b.ref[SEND], *rrb = b.ref[RECV];
    switch (coll) {
    case BCAST:
        rc = MPI_Bcast(rb, rcnt, R, root, comm);
        rrc = PMPI_Bcast(rrb, rcnt, R, root, comm);
        break;
    case SCATTER:
        if (in_place && rank == root)
            rb = rrb = MPI_IN_PLACE;
        rc = MPI_Scatter(sb, sc, S, rb, rcnt, R, root, comm);
        rrc = PMPI_Scatter(ssb, sc, S, rrb, rcnt, R, root, comm);
        break;
    case GATHER:
        if (in_place && rank == root)
            sb = ssb = MPI_IN_PLACE;
        rc = MPI_Gather(sb, sc, S, rb, rcnt, R, root, comm);
        rrc = PMPI_Gather(ssb, sc, S, rrb, rcnt, R, root, comm);
        break;
    case ALLGATHER:
        if (in_place)
            sb = ssb = MPI_IN_PLACE;
        rc = MPI_Allgather(sb, sc, S, rb, rcnt, R, comm);
        rrc = PMPI_Allgather(ssb, sc, S, rrb, rcnt, R, comm);
        break;
    default:
        if (in_place)
            sb = ssb = MPI_IN_PLACE;
        rc = MPI_Alltoall(sb, sc, S, rb, rcnt, R, comm);
        rrc = PMPI_Alltoall(ssb, sc, S, rrb, rcnt, R, comm);
        break;
    }
    compare(&b, what, rc, rrc);
    count(coll, comm);

    /* MPI_BYTE: the values themselves, independently of PMPI. Block j of
     * rank r's initial send buffer is pat(seed, r, j·block + i). */
    if (cfg == C_BYTE && !in_place && rc == MPI_SUCCESS && block > 0) {
        const unsigned char *got = b.buf[RECV];
        size_t bad = 0;
        /* Receive block j: whose send buffer (the RECV pattern for bcast,
         * whose one buffer is both), from which offset. */
        for (size_t j = 0; j < rblocks; j++) {
            int owner = coll == BCAST || coll == SCATTER ? root : (int)j;
            size_t from = coll == SCATTER || coll == ALLTOALL
                              ? (size_t)rank * block
                              : 0;
            uint64_t s = coll == BCAST ? seed + 7919 : seed;
            for (size_t i = 0; i < block; i++)
                bad += got[j * block + i] != pat(s, owner, from + i);
        }
        if (bad)
            fail("%s: %s wrong bytes (%d)", what, "", (int)bad, 0);
    }
    buffers_free(&b);
}

static void run_comm(MPI_Comm comm, const char *name, uint64_t *seed)
{
    static const size_t blocks[] = {0, 48, 4800, 72000};
    int p;
    MPI_Comm_size(comm, &p);
    int roots[2] = {0, p - 1};
    for (int coll = 0; coll < NCOLL; coll++)
        for (int cfg = 0; cfg < NCFG; cfg++)
            for (size_t bi = 0; bi < sizeof blocks / sizeof blocks[0]; bi++)
                for (int ri = 0; ri < (p > 1 ? 2 : 1); ri++)
                    for (int ip = 0; ip < (coll == BCAST ? 1 : 2); ip++) {
                        /* Rootless collectives take root 0 (root-vector's
                         * odd one out) once. */
                        if ((coll == ALLGATHER || coll == ALLTOALL) && ri)
                            continue;
                        run(coll, cfg, blocks[bi], roots[ri], ip, comm, name,
                            ++*seed);
                    }
}

/* An intercommunicator: the lower half of the world and the upper half.
 * Falls through to the MPI library; the results must still be right. */
static void run_inter(uint64_t *seed)
{
    if (world_size < 2)
        return;
    int low = world_rank < world_size / 2;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, low, world_rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? world_size / 2 : 0, 7,
                         &inter);
    int hr, remote;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_remote_size(inter, &remote);
    for (size_t n = 8; n <= 8000; n *= 10) {
        buffers b;
        /* bcast from the low group's rank 0 to the high group */
        int root = low ? (hr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        buffers_make(&b, n, n, ++*seed, world_rank);
        int rc = MPI_Bcast(b.buf[RECV], (int)n, MPI_BYTE, root, inter);
        int rrc = PMPI_Bcast(b.ref[RECV], (int)n, MPI_BYTE, root, inter);
        compare(&b, "bcast on an intercommunicator", rc, rrc);
        count(BCAST, inter);
        buffers_free(&b);
        /* allgather: every process gets the remote group's blocks */
        buffers_make(&b, n, n * (size_t)remote, ++*seed, world_rank);
        rc = MPI_Allgather(b.buf[SEND], (int)n, MPI_BYTE, b.buf[RECV], (int)n,
                           MPI_BYTE, inter);
        rrc = PMPI_Allgather(b.ref[SEND], (int)n, MPI_BYTE, b.ref[RECV],
                             (int)n, MPI_BYTE, inter);
        compare(&b, "allgather on an intercommunicator", rc, rrc);
        count(ALLGATHER, inter);
        buffers_free(&b);
    }
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

static int matrix(void)
{
    make_types();
    uint64_t seed = 1;
    MPI_Comm dup, split;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &split);
    run_comm(MPI_COMM_WORLD, "MPI_COMM_WORLD", &seed);
    run_comm(dup, "a duplicate", &seed);
    run_comm(split, "a reversed split", &seed);
    run_comm(MPI_COMM_SELF, "MPI_COMM_SELF", &seed);
    run_inter(&seed);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);
    for (int t = T_CONTIG3; t < NTYPES; t++)
        MPI_Type_free(&types[t]);
    long all = 0;
    PMPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) {
        for (int c = 0; c < NCOLL; c++)
            for (int w = 0; w < NWHAT; w++)
                if (expect[c][w])
                    printf("expect %s %s %ld\n", coll_names[c], what_names[w],
                           expect[c][w]);
        printf("interpose_check p=%d: %ld calls on rank 0 checked, %ld "
               "failed in all\n",
               world_size, checked, all);
    }
    return all != 0;
}

/* ---- reductions (--mode reduce) ------------------------------------------- */

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

static int reductions(void)
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

/* ---- errors --------------------------------------------------------------- */

static int handler_calls, handler_code;

static void on_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

static int error_class(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

static int errors(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    char buf[64] = {0}, all[4096];
    int bad = 0, root = world_size; /* one past the last rank */
    int rc = MPI_Bcast(buf, 8, MPI_BYTE, root, comm);
    bad += error_class(rc) != MPI_ERR_ROOT;
    rc = MPI_Scatter(all, 8, MPI_BYTE, buf, 8, MPI_BYTE, root, comm);
    bad += error_class(rc) != MPI_ERR_ROOT;
    rc = MPI_Gather(buf, 8, MPI_BYTE, all, 8, MPI_BYTE, -2, comm);
    bad += error_class(rc) != MPI_ERR_ROOT;
    rc = MPI_Allgather(buf, -1, MPI_BYTE, all, -1, MPI_BYTE, comm);
    bad += error_class(rc) != MPI_ERR_COUNT;
    /* The reductions (each wrong alike at every process: a process that
     * alone is wrong would leave the others waiting in kcoll). */
    int ibuf[4] = {0}, iout[4 * 64];
    rc = MPI_Reduce(ibuf, iout, 4, MPI_INT, MPI_SUM, root, comm);
    bad += error_class(rc) != MPI_ERR_ROOT;
#ifdef OPEN_MPI
    rc = MPI_Allreduce(ibuf, iout, -1, MPI_INT, MPI_SUM, comm);
    bad += error_class(rc) != MPI_ERR_COUNT;
#else /* MPICH 4.0 does not check a reduction's count (it crashes) */
    rc = MPI_Allreduce(ibuf, iout, 4, MPI_INT, MPI_OP_NULL, comm);
    bad += error_class(rc) != MPI_ERR_OP;
#endif
    /* Both libraries check the op against the type first. */
    rc = MPI_Allreduce(ibuf, iout, 4, MPI_DATATYPE_NULL, MPI_SUM, comm);
    bad += error_class(rc) != MPI_ERR_TYPE && error_class(rc) != MPI_ERR_OP;
    /* Open MPI 4.1 reports this one through MPI_COMM_WORLD's handler. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Allreduce(ibuf, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, comm);
    bad += rc == MPI_SUCCESS;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    rc = MPI_Reduce_scatter_block(iout, ibuf, 1, MPI_INT, MPI_OP_NULL, comm);
    bad += error_class(rc) != MPI_ERR_OP;
    /* still usable afterwards */
    rc = MPI_Bcast(buf, 8, MPI_BYTE, 0, comm);
    bad += rc != MPI_SUCCESS;
    ibuf[0] = 1;
    rc = MPI_Allreduce(ibuf, iout, 1, MPI_INT, MPI_SUM, comm);
    bad += rc != MPI_SUCCESS || iout[0] != world_size;
    MPI_Comm_free(&comm);
    printf("errors: rank %d: %d wrong\n", world_rank, bad);
    return bad != 0;
}

static int fatal(void)
{
    char buf[8] = {0};
    MPI_Bcast(buf, 8, MPI_BYTE, world_size, MPI_COMM_WORLD);
    printf("survived\n");
    return 0;
}

static int strict(int fatal_handler)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Errhandler eh;
    if (!fatal_handler) {
        MPI_Comm_create_errhandler(on_error, &eh);
        MPI_Comm_set_errhandler(comm, eh);
    }
    static char sbuf[1 << 16], rbuf[1 << 16];
    int calls = 0, errs = 0, cls = MPI_SUCCESS, n = 1024;
    int rcs[8];
    rcs[0] = MPI_Bcast(rbuf, n, MPI_BYTE, 0, comm);
    rcs[1] = MPI_Scatter(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, 0, comm);
    rcs[2] = MPI_Gather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, 0, comm);
    rcs[3] = MPI_Allgather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, comm);
    rcs[4] = MPI_Alltoall(sbuf, n / 8, MPI_BYTE, rbuf, n / 8, MPI_BYTE, comm);
    rcs[5] = MPI_Reduce(sbuf, rbuf, n / 4, MPI_INT, MPI_SUM, 0, comm);
    rcs[6] = MPI_Allreduce(sbuf, rbuf, n / 4, MPI_INT, MPI_SUM, comm);
    rcs[7] = MPI_Reduce_scatter_block(sbuf, rbuf, n / 32, MPI_INT, MPI_SUM,
                                      comm);
    for (int i = 0; i < 8; i++) {
        calls++;
        if (rcs[i] != MPI_SUCCESS) {
            errs++;
            cls = error_class(rcs[i]);
        }
    }
    printf("strict: calls %d errors %d class %s handler %d last %s\n", calls,
           errs, cls == MPI_ERR_OTHER ? "MPI_ERR_OTHER" : "other",
           handler_calls,
           handler_calls && handler_code == rcs[7] ? "same" : "different");
    if (!fatal_handler)
        MPI_Errhandler_free(&eh);
    MPI_Comm_free(&comm);
    return 0;
}

/* ---- attributes of the program's own ----------------------------------- */

static int copies;

static int copy_refuse(MPI_Comm comm, int keyval, void *extra, void *in,
                       void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra, (void)in, (void)out;
    copies++;
    *flag = 0;
    return MPI_ERR_OTHER;
}

static int copy_accept(MPI_Comm comm, int keyval, void *extra, void *in,
                       void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static unsigned char attr_byte(int owner, size_t i)
{
    return (unsigned char)(owner * 31 + i * 7 + 1);
}

/* The five collectives on comm, 64 KiB blocks, root p - 1: each must
 * return MPI_SUCCESS and leave exactly the bytes MPI says. */
static int attr_calls(MPI_Comm comm)
{
    const size_t n = 64 << 10;
    int p = world_size, me = world_rank, root = p - 1, wrong = 0;
    unsigned char *s = malloc(n * (size_t)p), *r = malloc(n * (size_t)p);
    if (!s || !r)
        return 1;
    int cnt = (int)n;
    for (int coll = 0; coll < NCOLL; coll++) {
        for (size_t i = 0; i < n * (size_t)p; i++) {
            /* block b of the send side: what this process sends rank b
             * (alltoall), or the root's block b (scatter) */
            s[i] = attr_byte(coll == ALLTOALL ? me * p + (int)(i / n)
                                              : coll == SCATTER ? (int)(i / n)
                                                                : me,
                             i % n);
            r[i] = 0;
        }
        int rc;
        switch (coll) {
        case BCAST:
            if (me == root)
                memcpy(r, s, n);
            rc = MPI_Bcast(r, cnt, MPI_BYTE, root, comm);
            break;
        case SCATTER:
            rc = MPI_Scatter(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, root, comm);
            break;
        case GATHER:
            rc = MPI_Gather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, root, comm);
            break;
        case ALLGATHER:
            rc = MPI_Allgather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, comm);
            break;
        default:
            rc = MPI_Alltoall(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, comm);
            break;
        }
        size_t blocks = coll == BCAST || coll == SCATTER ? 1
                        : coll == GATHER && me != root ? 0
                                                       : (size_t)p;
        int bad = rc != MPI_SUCCESS;
        for (size_t i = 0; !bad && i < blocks * n; i++) {
            int b = (int)(i / n);
            int owner = coll == BCAST     ? root
                        : coll == SCATTER ? me
                        : coll == ALLTOALL ? b * p + me
                                           : b;
            bad = r[i] != attr_byte(owner, i % n);
        }
        if (bad) {
            wrong++;
            fail("%s on a communicator with an attribute: rc %s%d",
                 coll_names[coll], "", rc, 0);
        }
    }
    free(s);
    free(r);
    return wrong;
}

static int attr(int fatal_handler)
{
    int wrong = 0;
    for (int accept = 0; accept < 2; accept++) {
        MPI_Comm comm;
        int keyval;
        static int value = 42;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Comm_create_keyval(accept ? copy_accept : copy_refuse,
                               MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
        MPI_Comm_set_attr(comm, keyval, &value);
        if (!fatal_handler)
            MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        /* Twice: the first call builds libkcoll's state, the second uses it. */
        wrong += attr_calls(comm);
        wrong += attr_calls(comm);
        MPI_Comm_free(&comm);
        MPI_Comm_free_keyval(&keyval);
    }
    printf("attr: rank %d: %d wrong, copies %d\n", world_rank, wrong, copies);
    return wrong != 0 || copies != 0;
}

/* ---- a job to interrupt --------------------------------------------------- */

static int loop(void)
{
    size_t n = (size_t)64 << 20;
    int blk = (int)(n / (size_t)world_size);
    char *a = malloc(n), *b = malloc(n);
    if (!a || !b)
        return 1;
    memset(a, 1, n);
    memset(b, 2, n);
    if (world_rank == 0) {
        printf("loop: running\n");
        fflush(stdout);
    }
    for (;;) {
        MPI_Bcast(a, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
        MPI_Scatter(a, blk, MPI_BYTE, b, blk, MPI_BYTE, 0, MPI_COMM_WORLD);
        MPI_Gather(b, blk, MPI_BYTE, a, blk, MPI_BYTE, 0, MPI_COMM_WORLD);
        MPI_Allgather(b, blk, MPI_BYTE, a, blk, MPI_BYTE, MPI_COMM_WORLD);
        MPI_Alltoall(a, blk, MPI_BYTE, b, blk, MPI_BYTE, MPI_COMM_WORLD);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    const char *mode = argc > 2 && !strcmp(argv[1], "--mode") ? argv[2]
                                                               : "matrix";
    int bad;
    if (!strcmp(mode, "matrix"))
        bad = matrix();
    else if (!strcmp(mode, "reduce"))
        bad = reductions();
    else if (!strcmp(mode, "errors"))
        bad = errors();
    else if (!strcmp(mode, "fatal"))
        bad = fatal();
    else if (!strcmp(mode, "strict"))
        bad = strict(0);
    else if (!strcmp(mode, "strict-fatal"))
        bad = strict(1);
    else if (!strcmp(mode, "loop"))
        bad = loop();
    else if (!strcmp(mode, "attr"))
        bad = attr(0);
    else if (!strcmp(mode, "attr-fatal"))
        bad = attr(1);
    else {
        fprintf(stderr, "interpose_check: unknown mode %s\n", mode);
        bad = 2;
    }
    MPI_Finalize();
    return bad;
}
