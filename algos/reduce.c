/* reduce: the reduction algorithms (model/algorithms.def's reductions). Data move only
 * by CMA; every element is folded in rank order, x_0 ⊕ (… ⊕ x_{p−1})
 * (reduce.h), in chunks of C = KCAL_REDUCE_CHUNK bytes that stay in cache
 * between the read that brings a peer's piece and the op that consumes it,
 * as XHC pipelines its reductions. With n the vector's bytes, X(b) one
 * CMA read of b bytes (α + b·β, in pieces of C), R(b) the op applied to b
 * bytes, and S one synchronisation through the shared-memory flags
 * (flags.c; model.md's F_allgather and F_barrier):
 *
 *   allreduce read_all
 *     Total cost = S + (p−1)·(X(n) + R(n)) + S
 *     Every rank reads every other rank's whole vector and folds it; no
 *     second phase, so the least synchronisation: for small vectors and
 *     small p. In place its result waits in scratch until every peer has
 *     read the input it overwrites.
 *   allreduce reduce_scatter_allgather
 *     Total cost = S + (p−1)·(X(n/p) + R(n/p)) + S + (p−1)·X(n/p) + S
 *     Rank r folds slice r of the vector (p near-equal slices of whole
 *     elements) straight into its recvbuf, then reads the other slices from
 *     their owners' recvbufs. Each rank moves 2·(p−1)/p·n and reduces
 *     (p−1)/p·n, where read_all moves and reduces (p−1)·n.
 *   reduce root_read
 *     Total cost = S + (p−1)·(X(n) + R(n)) + S
 *     The root alone reads and folds; the others wait in the closing S.
 *   reduce reduce_scatter_write
 *     Total cost = S + (p−1)·(X(n/p) + R(n/p)) + W(n/p) + S
 *     Rank r folds slice r and writes it (process_vm_writev, W) into the
 *     root's recvbuf chunk by chunk: the root gets p − 1 writers instead of
 *     reading p − 1 whole vectors. At an in-place root, slice r of the
 *     root's buffer is read and written by rank r alone, each chunk read
 *     before it is written.
 *   reduce_scatter_block reduce_scatter_read
 *     Total cost = S + (p−1)·(X(n/p) + R(n/p)) + S  (n: the whole vector,
 *     p blocks) Rank r folds block r. In place its result waits in scratch
 *     until the others have read the block 0 of its buffer it lands on.
 *   copy_in_out (reduce, allreduce, reduce_scatter_block; staged_fold
 *   below): no CMA, every chunk through the staging areas, with L the
 *   local copy's cost per byte and P(c, m) m chunks of c bytes passed from
 *   the core that wrote them (model/reduction.c):
 *     reduce, allreduce: Total cost = 2·n·L + (p−1)·(R(n) + P(c, m)) + F
 *     reduce_scatter_block (n: one block): every rank copies its p blocks
 *     in, the folding rank its own block's p chunks out:
 *     Total cost = (p + 1)·n·L + (p−1)·(R(n) + P(c, m)) + F
 *     F: the areas' flags (allgather's, for reduce gather's).
 * Every algorithm ends with a closing S in which every rank learns whether
 * any read, write or op failed, so all return the same result, and no rank
 * returns while another may still read its buffers (root_read's root, which
 * nobody reads and whose own failures are the only ones, waits for no one). */
#include <stdlib.h>
#include <string.h>

#include "algos/choice.h"
#include "algos/reduce.h"

/* Elements of the vector (reduce, allreduce) or of one block. */
static size_t count(const kcoll_args *a)
{
    return a->n / a->esize;
}

/* Elements [*lo, *hi) of slice s of count elements in p slices. */
static void slice(size_t count, int p, int s, size_t *lo, size_t *hi)
{
    size_t q = count / (size_t)p, extra = count % (size_t)p;
    *lo = q * (size_t)s + ((size_t)s < extra ? (size_t)s : extra);
    *hi = *lo + q + ((size_t)s < extra);
}

/* Elements per chunk, and its bytes (one element when it is above C). */
static size_t chunk_elems(const kcoll_args *a)
{
    size_t m = KCAL_REDUCE_CHUNK / a->esize;
    return m ? m : 1;
}

/* Scratch for the fold: tmp (one chunk), acc (one chunk) and `extra`
 * bytes after them. */
typedef struct {
    char *tmp, *acc, *extra;
} red_scratch;

static int get_scratch(kcoll_comm *c, const kcoll_args *a, size_t extra,
                       red_scratch *s)
{
    size_t cb = chunk_elems(a) * a->esize;
    char *base = kcoll_scratch(c, 2 * cb + extra);
    if (!base)
        return MPI_ERR_NO_MEM;
    *s = (red_scratch){base, base + cb, base + 2 * cb};
    return MPI_SUCCESS;
}

/* Where this rank's input is. */
static const void *input(const kcoll_args *a)
{
    return a->sendbuf == MPI_IN_PLACE ? a->recvbuf : a->sendbuf;
}

/* The synchronisations go through the shared-memory flags (flags.c), as
 * the model prices them (model/reduction.c: F_allgather, F_barrier): on
 * the Xeon KVM guest at p = 2 the MPI_Allgather of the addresses and the
 * MPI_Allreduce of the status made root_read 2-11 % slower than Open
 * MPI's MPI_Reduce at 8K-256K, where its copies alone were not
 * (docs/machine.md, "The reductions' synchronisations"). Every row runs
 * on one node (two_level_reduce.c takes a communicator across nodes), so
 * the flags' shared window always exists.
 *
 * Publish this rank's input address (with recv, its recvbuf's too) for
 * the call; then, where it reads the others (`wait`), wait for every
 * rank's: rank r's input at (*src)[r], its recvbuf at (*src)[p + r]. */
static int exchange(kcoll_comm *c, const kcoll_args *a, int recv, int wait,
                    uint64_t **src)
{
    size_t p = (size_t)c->size;
    KCOLL_TRY(kcoll_flags_get(c));
    /* Before the post: once posted, the peers read this rank's buffers
     * and wait for its done, so nothing may fail after it. */
    *src = wait ? malloc(sizeof(uint64_t) * 2 * p) : NULL;
    if (wait && !*src)
        return MPI_ERR_NO_MEM;
    uint64_t in = kcoll_addr(input(a)), out = kcoll_addr(a->recvbuf);
    if (recv)
        kcoll_flag_post_block(c, in, out);
    else
        kcoll_flag_post(c, in);
    for (int r = 0; wait && r < c->size; r++) {
        uint64_t *s = *src;
        if (r == c->rank) {
            s[r] = in;
            s[p + (size_t)r] = out;
        } else if (recv) {
            s[r] = kcoll_flag_wait_block(c, r, &s[p + (size_t)r]);
        } else {
            s[r] = kcoll_flag_wait_post(c, r);
        }
    }
    return MPI_SUCCESS;
}

/* The closing synchronisation: this rank says it is done (and whether a
 * read, write or op failed) and waits for the done of every other rank,
 * so all return the same result, and none returns while a peer may still
 * read or write its buffers. */
static int finish(kcoll_comm *c, int status, int rc)
{
    status |= rc != MPI_SUCCESS;
    kcoll_flag_done(c, status);
    for (int r = 0; r < c->size; r++)
        if (r != c->rank)
            status |= kcoll_flag_wait_done(c, r);
    if (rc != MPI_SUCCESS)
        return rc;
    return status ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* Fold elements [lo, hi) into dst (element lo at dst), chunk by chunk;
 * with `staged` each chunk is folded in s->acc and then copied to dst
 * (dst is this rank's own input, which the fold still reads), else
 * folded in dst itself. src: every rank's input address (per apart).
 * Where a chunk's result also goes to `root` (>= 0, not this rank), it
 * is written there at root_dst + the chunk's offset. `alone`: no other
 * rank folds these elements, so where the op commutes rank p − 1 may
 * fold in another order with the same bits (kcoll_red_fold); read_all's
 * ranks each fold every element, and stay in one order so that a NaN's
 * payload too is the same on every rank. Returns the failure status;
 * MPI_Reduce_local's error in *rc. */
static int fold_range(kcoll_comm *c, const kcoll_args *a,
                      const uint64_t *src, size_t lo, size_t hi, char *dst,
                      int staged, int root, uint64_t root_dst, int alone,
                      const red_scratch *s, int *rc)
{
    size_t step = chunk_elems(a);
    int failed = 0, commuted = alone && kcoll_red_commutes(a->type, a->op);
    for (size_t e0 = lo; e0 < hi && !failed && *rc == MPI_SUCCESS;
         e0 += step) {
        size_t m = hi - e0 < step ? hi - e0 : step, len = m * a->esize;
        char *at = dst ? dst + (e0 - lo) * a->esize : NULL;
        char *acc = staged || !at ? s->acc : at;
        failed = kcoll_red_fold(c, a, src, input(a), e0, m, acc, s->tmp,
                                commuted, rc);
        if (failed || *rc != MPI_SUCCESS)
            break;
        if (at && acc != at)
            memcpy(at, acc, len);
        if (root >= 0)
            failed = kcoll_cma_write(c->pids[root], acc,
                                     root_dst + e0 * a->esize, len) != 0;
    }
    return failed;
}

int kcoll_allreduce_read_all(kcoll_comm *c, const kcoll_args *a)
{
    int in_place = a->sendbuf == MPI_IN_PLACE, rc = MPI_SUCCESS;
    size_t n = count(a) * a->esize;
    red_scratch s;
    uint64_t *src;
    KCOLL_TRY(get_scratch(c, a, in_place ? n : 0, &s));
    KCOLL_TRY(exchange(c, a, 0, 1, &src));
    /* In place the peers read this rank's input, recvbuf, to the end of
     * their folds: the result waits in scratch. */
    char *dst = in_place ? s.extra : a->recvbuf;
    int failed = fold_range(c, a, src, 0, count(a), dst, 0, -1, 0, 0, &s, &rc);
    free(src);
    rc = finish(c, failed, rc);
    if (rc == MPI_SUCCESS && in_place)
        memcpy(a->recvbuf, s.extra, n);
    return rc;
}

int kcoll_allreduce_reduce_scatter_allgather(kcoll_comm *c,
                                             const kcoll_args *a)
{
    int p = c->size, me = c->rank, rc = MPI_SUCCESS, status;
    red_scratch s;
    uint64_t *src;
    KCOLL_TRY(get_scratch(c, a, 0, &s));
    KCOLL_TRY(exchange(c, a, 1, 1, &src));
    const uint64_t *out = src + p; /* the recvbufs */
    size_t lo, hi;
    slice(count(a), p, me, &lo, &hi);
    /* Slice me of recvbuf: nobody else reads it in this phase; in place
     * it is also this rank's input, so each chunk is staged. */
    char *dst = (char *)a->recvbuf + lo * a->esize;
    status = fold_range(c, a, src, lo, hi, dst, a->sendbuf == MPI_IN_PLACE,
                        -1, 0, 1, &s, &rc);
    /* The middle synchronisation: this rank's slice is reduced (progress
     * 1 of the call). A failure waits for the closing one: the others read
     * a slice that is not the result, and every rank returns the error. */
    kcoll_flag_progress(c, 1);
    for (int r = 0; r < p; r++)
        if (r != me)
            kcoll_flag_wait_progress(c, r, c->seq, 1);
    /* Every slice is reduced: read the others from their owners, the
     * next owner first so the p readers of one step spread over sources. */
    for (int t = 1; t < p && !status && rc == MPI_SUCCESS; t++) {
        int j = (me + t) % p;
        slice(count(a), p, j, &lo, &hi);
        size_t off = lo * a->esize;
        status = kcoll_cma_read(c->pids[j], (char *)a->recvbuf + off,
                                out[j] + off, (hi - lo) * a->esize) != 0;
    }
    free(src);
    return finish(c, status, rc);
}

int kcoll_reduce_root_read(kcoll_comm *c, const kcoll_args *a)
{
    int rc = MPI_SUCCESS, failed = 0, root = c->rank == a->root;
    red_scratch s;
    uint64_t *src;
    if (root)
        KCOLL_TRY(get_scratch(c, a, 0, &s));
    KCOLL_TRY(exchange(c, a, 0, root, &src));
    /* Nobody reads the root's buffer but the root: in place, each chunk
     * is staged only because the fold still reads it. */
    if (root)
        failed = fold_range(c, a, src, 0, count(a), a->recvbuf,
                            a->sendbuf == MPI_IN_PLACE, -1, 0, 1, &s, &rc);
    free(src);
    /* Half of finish(): only the root can fail and only its reads touch
     * another's buffer, so the others wait for its done (and learn its
     * result), and it waits for no one. They post no done, as nobody
     * waits for it: a rank's done word is then never a call ahead of a
     * peer still waiting for it (flags.c keeps only the latest). */
    if (root) {
        failed |= rc != MPI_SUCCESS;
        kcoll_flag_done(c, failed);
        return rc != MPI_SUCCESS ? rc : failed ? MPI_ERR_OTHER : MPI_SUCCESS;
    }
    return kcoll_flag_wait_done(c, a->root) ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* F of a's op on c (model.h's kcal_model_reduce_slice): rank 0's, priced
 * from its params as the op sees them, broadcast on the first call of
 * each op rate. MPI_SUCCESS or the broadcast's error. */
static int fold_per_write(kcoll_comm *c, const kcoll_args *a, double *F)
{
    int rate = kcoll_red_rate(a->type, a->op);
    double *f = &c->fold_per_write[rate + 1];
    if (*f == 0) {
        double mine = 1;
        const kcal_params *prm = kcoll_choice_params();
        if (c->rank == 0 && prm) {
            kcal_params view;
            kcoll_choice_rate_view(prm, rate, &view);
            mine = kcal_model_reduce_fold_per_write(&view);
        }
        KCOLL_TRY(MPI_Bcast(&mine, 1, MPI_DOUBLE, 0, c->comm));
        *f = mine;
    }
    *F = *f;
    return MPI_SUCCESS;
}

int kcoll_reduce_scatter_write(kcoll_comm *c, const kcoll_args *a)
{
    int p = c->size, me = c->rank, root = a->root, rc = MPI_SUCCESS;
    red_scratch s;
    uint64_t *src;
    double F;
    KCOLL_TRY(fold_per_write(c, a, &F));
    KCOLL_TRY(get_scratch(c, a, 0, &s));
    KCOLL_TRY(exchange(c, a, 1, 1, &src));
    /* the root's slice larger by the write it saves (model.h) */
    uint64_t lo64, hi64;
    kcal_model_reduce_slice(count(a), p, root, me, F, &lo64, &hi64);
    size_t lo = (size_t)lo64, hi = (size_t)hi64;
    int failed;
    if (me == root)
        failed = fold_range(c, a, src, lo, hi,
                            (char *)a->recvbuf + lo * a->esize,
                            a->sendbuf == MPI_IN_PLACE, -1, 0, 1, &s, &rc);
    else
        failed = fold_range(c, a, src, lo, hi, NULL, 1, root,
                            src[p + root], 1, &s, &rc);
    free(src);
    return finish(c, failed, rc);
}

int kcoll_reduce_scatter_block_read(kcoll_comm *c, const kcoll_args *a)
{
    int in_place = a->sendbuf == MPI_IN_PLACE, rc = MPI_SUCCESS;
    size_t n = count(a) * a->esize, lo = (size_t)c->rank * count(a);
    red_scratch s;
    uint64_t *src;
    KCOLL_TRY(get_scratch(c, a, in_place ? n : 0, &s));
    KCOLL_TRY(exchange(c, a, 0, 1, &src));
    /* In place the result lands on block 0 of this rank's input, which
     * rank 0 reads: it waits in scratch until the closing synchronisation.
     * The whole vector is p blocks: the fold's element indices are over
     * it, this rank's block starting at lo. */
    char *dst = in_place ? s.extra : a->recvbuf;
    int failed = fold_range(c, a, src, lo, lo + count(a), dst, 0, -1, 0, 1,
                            &s, &rc);
    free(src);
    rc = finish(c, failed, rc);
    if (rc == MPI_SUCCESS && in_place)
        memcpy(a->recvbuf, s.extra, n);
    return rc;
}

/* copy_in_out (allreduce, reduce, reduce_scatter_block): no system call.
 * Every process's stream is its input (reduce_scatter_block: its p
 * blocks). In round i every process copies chunk i of its stream into its
 * staging area (staging.c) and says so (KCOLL_HALF_IN); a process whose
 * result lies in chunk i (allreduce: every one, reduce: the root, for the
 * whole vector; reduce_scatter_block: rank r for block r) waits for every
 * chunk i to be in and folds its part of them in rank order straight out
 * of the areas into its recvbuf; every process then says it has read them
 * (KCOLL_HALF_OUT), which frees slot i for chunk i + SLOTS. Chunks are the
 * largest whole number of elements in a slot, so a block's edge is an
 * element's. In place the input chunk is in the area before the result
 * overwrites it (reduce_scatter_block: the result of the bytes at offset
 * x of block r lands at x, which an earlier or this round copied in). */
static int staged_fold(kcoll_comm *c, const kcoll_args *a, kcal_coll coll)
{
    size_t ce = KCAL_STAGING_CHUNK / a->esize * a->esize;
    if (ce == 0) /* an element larger than a slot */
        return kcoll_mpi_reduction(coll, a, c->comm);
    int p = c->size, me = c->rank, rc = MPI_SUCCESS;
    int root_only = coll == KCAL_COLL_REDUCE;
    int blocks = coll == KCAL_COLL_REDUCE_SCATTER_BLOCK;
    /* The stream's bytes, and the part [lo, hi) of it this rank folds. */
    size_t total = blocks ? (size_t)p * a->n : a->n;
    size_t lo = blocks ? (size_t)me * a->n : 0;
    size_t hi = root_only && me != a->root ? lo : lo + a->n;
    uint64_t chunks = total / ce + (total % ce != 0), m, seq = c->seq;
    /* the areas count slots of KCAL_STAGING_CHUNK: as many as chunks */
    KCOLL_TRY(kcoll_staging_enter(c, (size_t)chunks * KCAL_STAGING_CHUNK, 2,
                                  2, &m));
    const uint64_t slots = KCAL_STAGING_SLOTS;
    const char *own = input(a);
    kcoll_staging_wait_free(c);
    for (uint64_t i = 0; i < chunks; i++) {
        size_t off = (size_t)i * ce, len = total - off < ce ? total - off : ce;
        if (i >= slots) /* chunk i − slots has been folded where it is */
            for (int r = 0; r < p; r++)
                if (r != me && (!root_only || r == a->root))
                    kcoll_flag_wait_progress(c, r, seq,
                                             KCOLL_HALF_OUT(i - slots));
        kcal_copy(kcoll_staging_slot(c, me, i), own + off, len);
        kcoll_flag_progress(c, KCOLL_HALF_IN(i));
        size_t from = off > lo ? off : lo;
        size_t to = off + len < hi ? off + len : hi;
        if (from < to) {
            for (int r = 0; r < p; r++)
                if (r != me)
                    kcoll_flag_wait_progress(c, r, seq, KCOLL_HALF_IN(i));
            size_t at = from - off, bytes = to - from;
            char *acc = (char *)a->recvbuf + (from - lo);
            memcpy(acc, kcoll_staging_slot(c, p - 1, i) + at, bytes);
            for (int r = p - 2; r >= 0 && rc == MPI_SUCCESS; r--)
                rc = MPI_Reduce_local(kcoll_staging_slot(c, r, i) + at, acc,
                                      (int)(bytes / a->esize), a->type, a->op);
        }
        kcoll_flag_progress(c, KCOLL_HALF_OUT(i));
    }
    kcoll_flag_progress(c, KCOLL_PROGRESS_DONE);
    return rc;
}

int kcoll_allreduce_copy_in_out(kcoll_comm *c, const kcoll_args *a)
{
    return staged_fold(c, a, KCAL_COLL_ALLREDUCE);
}

int kcoll_reduce_copy_in_out(kcoll_comm *c, const kcoll_args *a)
{
    return staged_fold(c, a, KCAL_COLL_REDUCE);
}

int kcoll_reduce_scatter_block_copy_in_out(kcoll_comm *c, const kcoll_args *a)
{
    return staged_fold(c, a, KCAL_COLL_REDUCE_SCATTER_BLOCK);
}
