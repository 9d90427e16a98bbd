/* interpose_check: an application that knows nothing of kcoll. It calls
 * only MPI_* (and PMPI_* for its reference results), so run under
 * LD_PRELOAD=libkcoll_pmpi.so its collectives are the interposer's, and
 * without it the MPI library's (tests/interpose.sh runs both). Its modes
 * are in four files (tests/interpose_check.h says which holds what).
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
 * --mode irregular: MPI_Scatterv, MPI_Gatherv, MPI_Allgatherv and
 *   MPI_Alltoallv on MPI_COMM_WORLD, a split in reversed rank order and
 *   MPI_COMM_SELF, with MPI_INT, MPI_DOUBLE, a vector of 3 doubles with
 *   holes on every process, and per process mixed (send doubles, receive
 *   vectors, or the other way round); counts uniform, skewed (1 to 9
 *   times apart) and sparse (most blocks empty), of 5 and 3000 units;
 *   blocks packed in rank order, in reverse order with gaps, the same
 *   with negative displacements, and every send block at displacement 0;
 *   every root (roots 0 and p-1 for the other layouts), in place and not
 *   (alltoallv in place with counts the same both ways). Also
 *   MPI_Alltoallv on an intercommunicator. Each call through MPI_* and
 *   PMPI_* from identical buffers, every byte equal; rank 0 prints
 *   "expect <coll> <what> <calls>" as the matrix does.
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tests/interpose_check.h"

const char *const coll_names[NCOLL] = {"bcast", "scatter", "gather",
                                       "allgather", "alltoall"};
enum { KCOLL, LOCAL, INTERCOMM, NWHAT };
static const char *const what_names[NWHAT] = {"kcoll", "local",
                                              "mpi(intercomm)"};

int world_rank, world_size;
long checked, failures;
static long expect[NCOLL][NWHAT];

void fail(const char *fmt, const char *a, const char *b, int c, int d)
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

int is_inter(MPI_Comm comm)
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
    else if (!strcmp(mode, "irregular"))
        bad = irregular();
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
