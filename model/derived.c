/* derived: the derived rows' formulas, both models (docs/model.md
 * "Derived algorithms").
 *
 * Algorithms the paper does not have: libkcoll's beyond the paper. The
 * *_flags rows are paper algorithms whose synchronisations go through
 * libkcoll's shared-memory flags (algos/flags.c): in the paper model each
 * is its twin's row with every T_sm_X replaced by F_X (model_impl.h), the
 * paper's own omissions included, so the paper model compares the two on
 * their synchronisation alone; the full model charges what their code
 * does (p−1 contending copies, the own copy overlapping the closing wait,
 * pairwise's copy and closing synchronisation). direct_split and the
 * split rows have no twin: one row each, written for its code, in both
 * models. The copy_in_out rows pass the message through shared memory.
 * None has per-step messages to charge sync_step for.
 * Owns those formulas and the chunk size the split rows cut a block into
 * (kcal_model_split_chunk), which libkcoll cuts with. */
#include "model/model_impl.h"

/* max(T_memcpy, F_barrier): the own block is copied while the others
 * finish reading this process's buffer. */
static void add_memcpy_or_flag(acc *a, int p)
{
    double copy = a->in_place ? 0 : a->own * a->beta_local;
    double sync = flag_cost(a, KCAL_SM_BARRIER, p);
    if (copy > sync)
        a->t.copy += copy;
    else
        a->t.sync += sync;
}

/* parallel_read_flags, parallel_write_flags, paper (parallel_read's row):
 * Total cost = F_bcast + X(n) + P(p,n) + F_gather */
void kcal_t_parallel_flags(acc *a, int p, int k)
{
    (void)k;
    add_flag(a, KCAL_SM_BCAST, p);
    add_x(a, 1);
    add_lock(a, 1, p);
    add_flag(a, KCAL_SM_GATHER, p);
}

/* parallel_read_flags, parallel_write_flags, full:
 * Total cost = F_bcast + X(n) + P(p−1,n) + F_gather */
void kcal_t_full_parallel_flags(acc *a, int p, int k)
{
    (void)k;
    add_flag(a, KCAL_SM_BCAST, p);
    add_x(a, 1);
    add_lock(a, 1, p - 1);
    add_flag(a, KCAL_SM_GATHER, p);
}

/* direct_split (both models), with c = ⌈n/p⌉:
 * Total cost = F_allgather + max((p−1)·(X(c) + l·pages(c)),
 *                                X(n−c) + P(p−1, n−c)) + F_barrier
 * the root's p−1 writes of the last c bytes against every reader's read
 * of the first n−c bytes, at the same time (the full model adds μ to
 * each side's calls while both run). */
void kcal_t_direct_split(acc *a, int p, int k)
{
    (void)k;
    uint64_t c = a->n / (uint64_t)p + (a->n % (uint64_t)p != 0);
    acc w, r;
    acc_piece(&w, a, c, 1);
    acc_piece(&r, a, a->n - c, 1);
    if (c > 0) {
        add_x(&w, p - 1);
        add_lock(&w, p - 1, 1);
    }
    if (a->n - c > 0) {
        add_x(&r, 1);
        add_lock(&r, 1, p - 1);
    }
    if (c > 0 && a->n - c > 0) { /* the root writes the readers while they
                                  * read the root */
        add_mutual(&w, p - 1);
        add_mutual(&r, 1);
    }
    double tw = w.t.startup + w.t.copy + w.t.lock;
    double tr = r.t.startup + r.t.copy + r.t.lock;
    terms_add(&a->t, tw > tr ? &w.t : &r.t);
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_flag(a, KCAL_SM_BARRIER, p);
}

/* The copy_in_out rows (derived, all five collectives), with m = ⌈n/C⌉
 * chunks of C = KCAL_STAGING_CHUNK bytes and c = min(n, C). No system
 * call, no page pinned: neither α nor l. Their full rows add the one
 * thing the paper's terms do not see here: passing a chunk from one core
 * to another costs more than its two copies (add_pass, the probe's pass
 * phase; dirty_beta on its c bytes for params without it). Without that
 * term the rows were far under the measured times, and gather's put
 * copy_in_out first where parallel_write_flags was faster (docs/machine.md
 * "The model's comments: the measurements behind them"), so the probe
 * measures the pass itself (probe/pass.h) and gather's full row pays it
 * too. */
static void cio_chunks(const acc *a, uint64_t *m, uint64_t *c)
{
    uint64_t chunk = KCAL_STAGING_CHUNK;
    *m = a->n / chunk + (a->n % chunk != 0);
    *c = a->n < chunk ? a->n : chunk;
}

/* copy_in_out, bcast, full:
 * Total cost = (m + 1)·c·β + pass(c, m) + F_bcast
 * the readers copy out while the root copies in; β carries δ(p − 1) for
 * the p − 1 readers copying at once (registry conc). */
void kcal_t_copy_in_out(acc *a, int p, int k)
{
    (void)k;
    uint64_t m, c;
    cio_chunks(a, &m, &c);
    a->t.copy += (double)(m + 1) * (double)c * a->beta_local;
    add_pass(a, c, m, 1);
    add_flag(a, KCAL_SM_BCAST, p);
}

/* copy_in_out, bcast, paper:
 * Total cost = c·β + m·(p−1)·c·β + F_bcast
 * (= the full row without the pass at p = 2). The paper measures no
 * factor for copies running at once, and its term for readers of one
 * source (γ(c), the page lock) grows with their number; so the p − 1
 * copies out of a chunk are charged one after another, one source's
 * bandwidth shared. Without it the paper model put copy_in_out first at
 * every size for p = 64 on the KNL file. */
void kcal_t_copy_in_out_paper(acc *a, int p, int k)
{
    (void)k;
    uint64_t m, c;
    cio_chunks(a, &m, &c);
    double readers = p > 2 ? p - 1 : 1;
    a->t.copy += (1 + (double)m * readers) * (double)c * a->beta_local;
    add_flag(a, KCAL_SM_BCAST, p);
}

/* scatter and gather: the root copies every other block's m chunks, into
 * its staging area (scatter) or out of each source's (gather), one after
 * another, while the one process whose block it is copies the other end
 * of the pipeline; the root's own block is copied before (gather: while
 * the sources copy their first chunks in) or after (scatter: while the
 * last reader copies its last chunk out), whichever end is longer counts
 * (n_own = 0 in place, else n; F_op is F_bcast for scatter, whose readers
 * wait for the root's word, F_gather for gather, whose root waits for
 * each source's):
 * Total cost (paper) = ((p − 1)·m·c + max(n_own, c))·β + F_op
 * Total cost (scatter, full) = max((p − 1)·m·c·β + n_own·β,
 *                                  (p − 2)·m·c·β + c·β + m·c·β
 *                                  + pass(c, m)) + F_bcast
 *   the last reader copies its m chunks out behind the root's stream,
 *   paying the pass of one stream (add_pass);
 * Total cost (gather, full) = the paper's + (p − 1)·pass(c, m)
 *   the root's copies out of p − 1 streams (with the pass keys only). */
static void staged_root(acc *a, int p, kcal_sm_op op, int full)
{
    uint64_t m, c;
    cio_chunks(a, &m, &c);
    double own = a->in_place ? 0 : a->own; /* n but in a v-collective */
    double stream = (double)(p - 1) * (double)m * (double)c * a->beta_local;
    double root_end = stream + own * a->beta_local;
    double reader_end = stream + (double)c * a->beta_local;
    double pass = 0;
    /* Gather's copies out without the pass keys: at the clean rate, as
     * before them (measured so: the sources have finished their slots
     * while the root copies its own block). */
    if (full && (op == KCAL_SM_BCAST || has_pass(a))) {
        acc d = *a;
        d.t.copy = 0;
        add_pass(&d, c, m, op == KCAL_SM_BCAST ? 1 : p - 1);
        pass = d.t.copy;
    }
    if (full && op == KCAL_SM_BCAST)
        reader_end += pass; /* scatter: the last reader's stream */
    else if (own < (double)c)
        root_end = reader_end;
    if (op != KCAL_SM_BCAST) { /* gather: the root's copies out */
        root_end += pass;
        reader_end += pass;
    }
    a->t.copy += root_end > reader_end ? root_end : reader_end;
    add_flag(a, op, p);
}

/* copy_in_out, scatter, paper: Total cost as staged_root says. */
void kcal_t_scatter_copy_in_out_paper(acc *a, int p, int k)
{
    (void)k;
    staged_root(a, p, KCAL_SM_BCAST, 0);
}

/* copy_in_out, scatter, full: Total cost as staged_root says. */
void kcal_t_scatter_copy_in_out(acc *a, int p, int k)
{
    (void)k;
    staged_root(a, p, KCAL_SM_BCAST, 1);
}

/* copy_in_out, gather, paper: Total cost as staged_root says. */
void kcal_t_gather_copy_in_out_paper(acc *a, int p, int k)
{
    (void)k;
    staged_root(a, p, KCAL_SM_GATHER, 0);
}

/* copy_in_out, gather, full: Total cost as staged_root says. */
void kcal_t_gather_copy_in_out(acc *a, int p, int k)
{
    (void)k;
    staged_root(a, p, KCAL_SM_GATHER, 1);
}

/* copy_in_out, allgather: every process copies m chunks of its block in
 * and the p − 1 others' m chunks out, round after round, all processes at
 * once (the full model's β carries δ(p)), and its own block unless in
 * place:
 * Total cost (paper) = (p·m·c + n_own)·β + F_allgather
 * Total cost (full) = the paper row + (p − 1)·pass_mutual(c, m)
 *   each chunk copied out was written by its owner's core in the same
 *   round, while that core copies out of this one's area
 *   (add_pass_mutual). */
static void all_sources_cio(acc *a, int p, double chunks_per_m,
                            double local, int dirty)
{
    uint64_t m, c;
    cio_chunks(a, &m, &c);
    a->t.copy += (chunks_per_m * (double)m * (double)c + local) * a->beta_local;
    /* The chunks this process passes back meanwhile: its own block's (n
     * but in a v-collective's pair). */
    uint64_t own = (uint64_t)a->own, chunk = KCAL_STAGING_CHUNK;
    if (dirty)
        add_pass_mutual(a, c, m, p - 1, own / chunk + (own % chunk != 0));
    add_flag(a, KCAL_SM_ALLGATHER, p);
}

static void allgather_cio(acc *a, int p, int dirty)
{
    all_sources_cio(a, p, p, a->in_place ? 0 : (double)a->n, dirty);
}

/* copy_in_out, allgather, paper: Total cost as allgather_cio says. */
void kcal_t_allgather_copy_in_out_paper(acc *a, int p, int k)
{
    (void)k;
    allgather_cio(a, p, 0);
}

/* copy_in_out, allgather, full: Total cost as allgather_cio says. */
void kcal_t_allgather_copy_in_out(acc *a, int p, int k)
{
    (void)k;
    allgather_cio(a, p, 1);
}

/* copy_in_out, alltoall: every process copies its p − 1 outgoing blocks
 * in and p − 1 incoming ones out, chunk by chunk, and its own block; in
 * place the p blocks aside first instead of the own block:
 * Total cost (paper) = (2·(p−1)·m·c + n)·β + F_allgather
 *                      (in place (2·(p−1)·m·c + p·n)·β + F_allgather)
 * Total cost (full) = the paper row + (p − 1)·pass_mutual(c, m), as
 *                     allgather's */
static void alltoall_cio(acc *a, int p, int dirty)
{
    all_sources_cio(a, p, 2.0 * (p - 1),
                    (a->in_place ? (double)p : 1.0) * (double)a->n, dirty);
}

/* copy_in_out, alltoall, paper: Total cost as alltoall_cio says. */
void kcal_t_alltoall_copy_in_out_paper(acc *a, int p, int k)
{
    (void)k;
    alltoall_cio(a, p, 0);
}

/* copy_in_out, alltoall, full: Total cost as alltoall_cio says. */
void kcal_t_alltoall_copy_in_out(acc *a, int p, int k)
{
    (void)k;
    alltoall_cio(a, p, 1);
}

uint64_t kcal_model_split_chunk(uint64_t n)
{
    const uint64_t page = 4096;
    uint64_t chunk = (uint64_t)ceil(sqrt((double)n * 16384.0));
    if (chunk > 0 && n / chunk < KCAL_SPLIT_HALVES_BELOW)
        chunk = n / 2 + n % 2; /* halves: nothing left to race for */
    if (chunk < KCAL_SPLIT_MIN_CHUNK)
        chunk = KCAL_SPLIT_MIN_CHUNK;
    return (chunk + page - 1) / page * page;
}

/* parallel_read_split, parallel_write_split (one formula for both models),
 * with q = ⌈n/m⌉ chunks of m = kcal_model_split_chunk(n) bytes and one
 * chunk's copy C = X(n/q) + P(p, n/q) (all p processes copy at once):
 * Total cost = F_allgather + max over the processes of when their last
 *              chunk ends + F_barrier
 * Every non-root process copies chunks of its own block from time 0, one
 * every C; the root copies its own block first (T_memcpy, nothing in
 * place) and then, rank after rank, takes the next chunk of each block
 * that is still left. Both claim from one counter, so once the root
 * arrives at a block at time t, with k0 = min(q, ⌊t/C⌋ + 1) chunks already
 * taken, the root takes ⌈(q−k0)/2⌉ of the rest and the owner ⌊(q−k0)/2⌋.
 * The root's copies contend with the owners' like theirs (γ(p)); its
 * writes (scatter) and reads (gather) are charged alike. The terms are
 * those of the process that ends last. */
void kcal_t_split(acc *a, int p, int k)
{
    (void)k;
    uint64_t m = kcal_model_split_chunk(a->n);
    double q = (double)((a->n + m - 1) / m);
    /* One chunk's copy: its call, bytes and pages. */
    double startup = q > 0 ? a->alpha : 0;
    double copy = q > 0 ? (double)a->n / q * a->beta : 0;
    double lock = q > 0 ? a->lock * gamma_at(a->prm, p) *
                              a->pages / q
                        : 0;
    double cost = startup + copy + lock;
    double memcpy_t = a->in_place ? 0 : a->own * a->beta_local;
    double root_t = memcpy_t, root_chunks = 0, owner_chunks = 0;
    for (int r = 1; r < p && q > 0; r++) {
        double k0 = cost > 0 ? floor(root_t / cost) + 1 : q;
        if (k0 > q)
            k0 = q;
        double mine = ceil((q - k0) / 2);
        root_t += mine * cost;
        root_chunks += mine;
        if (q - mine > owner_chunks)
            owner_chunks = q - mine; /* the busiest owner */
        /* From the first block whose owner is done before the root gets
         * there, every later rank adds nothing (0·cost, q): at p = 1024
         * the loop ran a thousand ranks after its last change. */
        if (mine == 0 && isfinite(cost))
            break;
    }
    int root_last = root_t > owner_chunks * cost;
    double chunks = root_last ? root_chunks : owner_chunks;
    a->t.startup += chunks * startup;
    a->t.copy += chunks * copy + (root_last ? memcpy_t : 0);
    a->t.lock += chunks * lock;
    /* Once the root takes chunks too, its calls and an owner's run at the
     * same moment, each on the other's memory: μ for each of the root's
     * chunks on either side's path (none while the root copies its own
     * block and the owners alone call). */
    add_mutual(a, root_chunks < chunks ? root_chunks : chunks);
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_flag(a, KCAL_SM_BARRIER, p);
}

/* ring_source_read_flags, paper (the ring row):
 * Total cost = T_memcpy + F_allgather + (p−1)·(X(n) + l·pages(n))
 *              + F_barrier */
void kcal_t_ring_flags(acc *a, int p, int k)
{
    (void)k;
    add_memcpy(a);
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_x(a, p - 1);
    add_lock(a, p - 1, 1);
    add_flag(a, KCAL_SM_BARRIER, p);
}

/* ring_source_read_flags, full:
 * Total cost = F_allgather + (p−1)·(X(n) + l·pages(n) + μ)
 *              + max(T_memcpy, F_barrier) */
void kcal_t_full_ring_flags(acc *a, int p, int k)
{
    (void)k;
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_x(a, p - 1);
    add_lock(a, p - 1, 1);
    add_mutual(a, p - 1);
    add_memcpy_or_flag(a, p);
}

/* pairwise_flags, paper (pairwise's row):
 * Total cost = F_allgather + (p−1)·(X(n) + l·pages(n)) */
void kcal_t_pairwise_flags(acc *a, int p, int k)
{
    (void)k;
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_x(a, p - 1);
    add_lock(a, p - 1, 1);
}

/* pairwise_flags, full:
 * Total cost = F_allgather + (p−1)·(X(n) + l·pages(n) + μ)
 *              + max(T_memcpy, F_barrier)
 * in place the p blocks are copied aside before the address is posted
 * (and peers read them just after) and the own block is in place:
 * Total cost = p·n·β + (p−1)·dirty(n) + F_allgather + ... + F_barrier */
void kcal_t_full_pairwise_flags(acc *a, int p, int k)
{
    (void)k;
    if (a->in_place) {
        a->t.copy += (double)p * (double)a->n * a->beta_local;
        add_dirty(a, (double)a->n, p - 1);
    }
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_x(a, p - 1);
    add_lock(a, p - 1, 1);
    add_mutual(a, p - 1);
    add_memcpy_or_flag(a, p);
}

