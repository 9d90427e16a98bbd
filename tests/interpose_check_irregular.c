/* interpose_check --mode irregular: MPI_Scatterv, MPI_Gatherv,
 * MPI_Allgatherv and MPI_Alltoallv, each call through MPI_* and through
 * PMPI_* from identical buffers, every byte of every buffer (holes and
 * gaps included) equal (tests/interpose_check.c says what the mode
 * checks). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tests/interpose_check.h"

enum { V_SCATTERV, V_GATHERV, V_ALLGATHERV, V_ALLTOALLV, NV };
static const char *const v_names[NV] = {"scatterv", "gatherv", "allgatherv",
                                        "alltoallv"};
enum { VW_KCOLL, VW_LOCAL, VW_INTERCOMM, NVWHAT };
static const char *const vwhat_names[NVWHAT] = {"kcoll", "local",
                                                "mpi(intercomm)"};
static long v_expect[NV][NVWHAT];

/* The types. Counts are in units: one element of MPI_INT or MPI_DOUBLE,
 * or three doubles in the vector configurations, where a process's side
 * is either one vector(3,1,2,double) (holes between the doubles) or three
 * MPI_DOUBLEs per unit. */
enum { VC_INT, VC_DOUBLE, VC_VECTOR, VC_MIXED, NVCFG };
static const char *const vcfg_names[NVCFG] = {"MPI_INT", "MPI_DOUBLE",
                                              "vector", "mixed"};
static MPI_Datatype vec3;

enum { SEND, RECV };

/* The type of this process's side, and its elements per unit. */
static MPI_Datatype vtype(int v, int cfg, int rank, int side, int *per_unit)
{
    *per_unit = 1;
    switch (cfg) {
    case VC_INT: return MPI_INT;
    case VC_DOUBLE: return MPI_DOUBLE;
    case VC_VECTOR: return vec3;
    default: /* odd ranks send doubles and receive vectors; even the
              * other way round. allgatherv: odd ranks doubles, even
              * vectors, on both sides (Open MPI 4.1.4's own
              * MPI_Allgatherv, the reference, hangs at p >= 3 when a
              * process's send and receive types differ from its peers'
              * the other way round) */
        if (v == V_ALLGATHERV)
            side = rank % 2 ? SEND : RECV;
        if ((rank % 2) == (side == SEND)) {
            *per_unit = 3;
            return MPI_DOUBLE;
        }
        return vec3;
    }
}

/* Count patterns: every block alike, skewed (1 to 9 times the base, by
 * pair), sparse (most blocks empty). The count of the block from `from`
 * to `to`; symmetric: the same both ways (alltoallv in place). */
enum { P_UNIFORM, P_SKEWED, P_SPARSE, NPAT };
static const char *const pat_names[NPAT] = {"uniform", "skewed", "sparse"};

static int units(int pat, int base, int from, int to, int symmetric)
{
    if (symmetric && from > to) {
        int t = from;
        from = to;
        to = t;
    }
    switch (pat) {
    case P_UNIFORM: return base;
    case P_SKEWED: return base * (1 + (from * 7 + to * 3) % 9) / 3;
    default: return (from + 2 * to) % 3 == 0 ? base + from : 0;
    }
}

/* Layouts of a side of p blocks in its buffer: in rank order and packed;
 * in reverse rank order with gaps; the same with the buffer pointer in the
 * middle (negative displacements); every block at displacement 0 (a send
 * side may overlap itself; a receive side then takes the gaps). */
enum { L_PACKED, L_GAPS, L_NEGATIVE, L_SHARED, NLAYOUT };
static const char *const layout_names[NLAYOUT] = {"packed", "gaps",
                                                  "negative displs",
                                                  "shared send blocks"};

typedef struct {
    int counts[64], displs[64]; /* elements (p <= 64) */
    MPI_Datatype type;
    MPI_Aint extent;
    size_t len;  /* bytes allocated */
    size_t skip; /* bytes from the allocation to the pointer passed */
} vlayout;

static void vlayout_make(vlayout *l, int layout, int side, int p,
                         const int *counts)
{
    MPI_Aint lb;
    MPI_Type_get_extent(l->type, &lb, &l->extent);
    if (layout == L_SHARED && side == RECV)
        layout = L_GAPS;
    int pos = 0, most = 0;
    for (int k = 0; k < p; k++) {
        int j = layout == L_PACKED || layout == L_SHARED ? k : p - 1 - k;
        l->counts[j] = counts[j];
        l->displs[j] = layout == L_SHARED ? 0 : pos;
        pos += counts[j] + (layout == L_PACKED ? 0 : 1 + j % 3);
        most = counts[j] > most ? counts[j] : most;
    }
    int total = layout == L_SHARED ? most : pos;
    int shift = layout == L_NEGATIVE ? total / 2 : 0;
    for (int j = 0; j < p; j++)
        l->displs[j] -= shift;
    l->skip = (size_t)shift * (size_t)l->extent;
    l->len = (size_t)total * (size_t)l->extent + 64;
}

static unsigned char vpat(uint64_t seed, int owner, size_t i)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull ^ ((uint64_t)owner << 40) ^ i;
    x ^= x >> 29;
    x *= 0xbf58476d1ce4e5b9ull;
    return (unsigned char)(x >> 32);
}

typedef struct {
    unsigned char *buf, *ref;
    size_t len;
} vbuf;

static void vbuf_make(vbuf *b, size_t len, uint64_t seed, int rank)
{
    b->len = len;
    b->buf = malloc(len ? len : 1);
    b->ref = malloc(len ? len : 1);
    for (size_t i = 0; i < len; i++)
        b->buf[i] = vpat(seed, rank, i);
    memcpy(b->ref, b->buf, len);
}

static int vbuf_differs(const vbuf *b)
{
    for (size_t i = 0; i < b->len; i++)
        if (b->buf[i] != b->ref[i])
            return (int)i + 1;
    return 0;
}

static void vcount(int v, MPI_Comm comm)
{
    if (world_rank != 0)
        return;
    int size;
    MPI_Comm_size(comm, &size);
    v_expect[v][is_inter(comm) ? VW_INTERCOMM
                : size == 1    ? VW_LOCAL
                               : VW_KCOLL]++;
}

/* One call of v on comm: counts of pattern `pat` times base units. */
static void vrun(int v, int cfg, int pat, int base, int layout, int root,
                 int in_place, MPI_Comm comm, const char *comm_name,
                 uint64_t seed)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    int sym = v == V_ALLTOALLV && in_place;
    int sper, rper;
    vlayout s, r;
    s.type = vtype(v, cfg, rank, SEND, &sper);
    r.type = vtype(v, cfg, rank, RECV, &rper);
    int scounts[64], rcounts[64], one_s = 0, one_r = 0;
    /* The sides this process has, in elements of its own types. */
    int many_s = (v == V_SCATTERV && rank == root) || v == V_ALLTOALLV;
    int many_r = (v == V_GATHERV && rank == root) || v == V_ALLGATHERV ||
                 v == V_ALLTOALLV;
    for (int j = 0; j < p; j++) {
        int from = v == V_SCATTERV ? root : rank; /* what this one sends */
        scounts[j] = sper * units(pat, base, from, j, sym);
        /* allgatherv: each sender's one block, whoever receives */
        int src = v == V_GATHERV || v == V_ALLGATHERV || v == V_ALLTOALLV
                      ? j
                      : root;
        rcounts[j] = rper * units(pat, base, src,
                                  v == V_ALLGATHERV ? 0 : rank, sym);
    }
    if (v == V_SCATTERV)
        one_r = rper * units(pat, base, root, rank, 0);
    if (v == V_GATHERV)
        one_s = sper * units(pat, base, rank, root, 0);
    if (v == V_ALLGATHERV)
        one_s = sper * units(pat, base, rank, 0, 0);
    if (many_s)
        vlayout_make(&s, layout, SEND, p, scounts);
    else {
        MPI_Aint lb;
        MPI_Type_get_extent(s.type, &lb, &s.extent);
        s.len = (size_t)one_s * (size_t)s.extent + 64;
        s.skip = 0;
    }
    if (many_r)
        vlayout_make(&r, layout, RECV, p, rcounts);
    else {
        MPI_Aint lb;
        MPI_Type_get_extent(r.type, &lb, &r.extent);
        r.len = (size_t)one_r * (size_t)r.extent + 64;
        r.skip = 0;
    }
    vbuf sb, rb;
    vbuf_make(&sb, s.len, seed, rank);
    vbuf_make(&rb, r.len, seed + 7919, rank);
    void *S = sb.buf + s.skip, *SS = sb.ref + s.skip;
    void *R = rb.buf + r.skip, *RR = rb.ref + r.skip;
    int rc = MPI_SUCCESS, rrc = MPI_SUCCESS;
    switch (v) {
    case V_SCATTERV:
        if (in_place && rank == root)
            R = RR = MPI_IN_PLACE;
        rc = MPI_Scatterv(S, s.counts, s.displs, s.type, R, one_r, r.type,
                          root, comm);
        rrc = PMPI_Scatterv(SS, s.counts, s.displs, s.type, RR, one_r, r.type,
                            root, comm);
        break;
    case V_GATHERV:
        if (in_place && rank == root)
            S = SS = MPI_IN_PLACE;
        rc = MPI_Gatherv(S, one_s, s.type, R, r.counts, r.displs, r.type,
                         root, comm);
        rrc = PMPI_Gatherv(SS, one_s, s.type, RR, r.counts, r.displs, r.type,
                           root, comm);
        break;
    case V_ALLGATHERV:
        if (in_place)
            S = SS = MPI_IN_PLACE;
        rc = MPI_Allgatherv(S, one_s, s.type, R, r.counts, r.displs, r.type,
                            comm);
        rrc = PMPI_Allgatherv(SS, one_s, s.type, RR, r.counts, r.displs,
                              r.type, comm);
        break;
    default:
        if (in_place)
            S = SS = MPI_IN_PLACE;
        rc = MPI_Alltoallv(S, s.counts, s.displs, s.type, R, r.counts,
                           r.displs, r.type, comm);
        rrc = PMPI_Alltoallv(SS, s.counts, s.displs, s.type, RR, r.counts,
                             r.displs, r.type, comm);
        break;
    }
    vcount(v, comm);
    checked++;
    char what[256];
    snprintf(what, sizeof what, "%s %s %s base %d %s root %d%s on %s",
             v_names[v], vcfg_names[cfg], pat_names[pat], base,
             layout_names[layout], root, in_place ? " in place" : "",
             comm_name);
    int at;
    if (rc != MPI_SUCCESS || rrc != MPI_SUCCESS)
        fail("%s: rc %s%d (reference %d)", what, "", rc, rrc);
    else if ((at = vbuf_differs(&sb)))
        fail("%s: %s send buffer differs from PMPI's at byte %d of %d", what,
             "", at - 1, (int)sb.len);
    else if ((at = vbuf_differs(&rb)))
        fail("%s: %s receive buffer differs from PMPI's at byte %d of %d",
             what, "", at - 1, (int)rb.len);
    free(sb.buf);
    free(sb.ref);
    free(rb.buf);
    free(rb.ref);
}

#ifdef OPEN_MPI
enum { MPI_ALLGATHERV_NEGATIVE_AT_ONE = 1 };
#else
enum { MPI_ALLGATHERV_NEGATIVE_AT_ONE = 0 };
#endif

static void vcomm(MPI_Comm comm, const char *name, uint64_t *seed)
{
    static const int bases[] = {5, 3000};
    int p;
    MPI_Comm_size(comm, &p);
    for (int v = 0; v < NV; v++)
        for (int cfg = 0; cfg < NVCFG; cfg++)
            for (int pat = 0; pat < NPAT; pat++)
                for (size_t bi = 0; bi < sizeof bases / sizeof bases[0]; bi++)
                    for (int layout = 0; layout < NLAYOUT; layout++)
                        for (int root = 0; root < p; root++) {
                            int rooted = v == V_SCATTERV || v == V_GATHERV;
                            /* every root with one layout, the others at
                             * roots 0 and p - 1 */
                            if ((!rooted && root) ||
                                (rooted && layout != L_GAPS && root &&
                                 root != p - 1))
                                continue;
                            /* MPICH 4.0.2's own MPI_Allgatherv on one
                             * process ignores a negative displacement
                             * (it writes from recvbuf itself, past the
                             * block): the reference would be wrong */
                            if (!MPI_ALLGATHERV_NEGATIVE_AT_ONE &&
                                v == V_ALLGATHERV && layout == L_NEGATIVE &&
                                p == 1)
                                continue;
                            for (int ip = 0; ip < 2; ip++)
                                vrun(v, cfg, pat, bases[bi], layout, root, ip,
                                     comm, name, ++*seed);
                        }
}

/* An intercommunicator: the MPI library's; the results must still match. */
static void vinter(uint64_t *seed)
{
    if (world_size < 2)
        return;
    int low = world_rank < world_size / 2;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, low, world_rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? world_size / 2 : 0, 8,
                         &inter);
    int remote;
    MPI_Comm_remote_size(inter, &remote);
    int counts[64], displs[64], n = 0;
    for (int j = 0; j < remote; j++) {
        counts[j] = 100; /* both ways alike: the groups' sizes differ */
        displs[j] = n + 3;
        n += counts[j] + 3;
    }
    vbuf sb, rb;
    vbuf_make(&sb, (size_t)n * sizeof(int), ++*seed, world_rank);
    vbuf_make(&rb, (size_t)n * sizeof(int), ++*seed, world_rank);
    /* alltoallv: block j to and from the remote group's rank j (the same
     * counts both ways) */
    int rc = MPI_Alltoallv(sb.buf, counts, displs, MPI_INT, rb.buf, counts,
                           displs, MPI_INT, inter);
    int rrc = PMPI_Alltoallv(sb.ref, counts, displs, MPI_INT, rb.ref, counts,
                             displs, MPI_INT, inter);
    vcount(V_ALLTOALLV, inter);
    checked++;
    if (rc != MPI_SUCCESS || rrc != MPI_SUCCESS || vbuf_differs(&rb))
        fail("%s%salltoallv on an intercommunicator: rc %d / %d or data", "",
             "", rc, rrc);
    free(sb.buf);
    free(sb.ref);
    free(rb.buf);
    free(rb.ref);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

int irregular(void)
{
    MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vec3);
    MPI_Type_commit(&vec3);
    if (world_size > 64) {
        fprintf(stderr, "interpose_check: --mode irregular takes p <= 64\n");
        return 2;
    }
    uint64_t seed = 1;
    MPI_Comm split;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, -world_rank, &split);
    vcomm(MPI_COMM_WORLD, "MPI_COMM_WORLD", &seed);
    vcomm(split, "a reversed split", &seed);
    vcomm(MPI_COMM_SELF, "MPI_COMM_SELF", &seed);
    vinter(&seed);
    MPI_Comm_free(&split);
    MPI_Type_free(&vec3);
    long all = 0;
    PMPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0) {
        for (int v = 0; v < NV; v++)
            for (int w = 0; w < NVWHAT; w++)
                if (v_expect[v][w])
                    printf("expect %s %s %ld\n", v_names[v], vwhat_names[w],
                           v_expect[v][w]);
        printf("interpose_check irregular p=%d: %ld calls on rank 0 checked, "
               "%ld failed in all\n",
               world_size, checked, all);
    }
    return all != 0;
}
