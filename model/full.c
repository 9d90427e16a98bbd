/* full: the full model's formulas (docs/model.md "Beyond the paper: the
 * full model", `--model full`).
 *
 * The paper's terms, with three kinds of change, each measured on the
 * machine it runs on (kcal probe) and each falling back to the paper's term
 * when its key is absent:
 *   - the copies' β: the call's working set looked up on the measured
 *     β(W) curve, or in-cache copies at beta_hot, concurrent copies'
 *     δ(c), the write keys (working_set.c);
 *   - per-step synchronisation: algorithms whose steps wait for a
 *     point-to-point control message from the previous step pay sync_step
 *     per step, and every T_sm_X is at least ⌈lg p⌉·sync_step (the paper
 *     has no such term: 0 when absent); CMA calls whose targets call too
 *     pay μ, a collective's first call cma_context, reads of lines another
 *     core just wrote dirty_beta (model_impl.h);
 *   - structure: where the reference implementation (algos/) does less
 *     than the paper's formula charges, the formula follows the code; each
 *     such change is explained next to it. These have no key.
 * Owns those formulas and kcal_model_full_time, which sets a call up for
 * them. The derived rows' full formulas are in derived.c. */
#include "model/model_impl.h"

/* The rounds of recursive doubling and Bruck from the second: round
 * m = 2^i reads the min(m, p − m) blocks its source gathered so far, each
 * round's source having written them earlier in the call (its own block
 * copied in, the rest received in the rounds before). Round 1 reads the
 * source's own block from its send buffer, untouched in the call
 * (allgather.c). */
static void add_dirty_rounds(acc *a, int p)
{
    for (long m = 2; m < p; m *= 2)
        add_dirty(a, (double)(m < p - m ? m : p - m) * (double)a->n, 1);
}

/* The per-round tokens of recursive_doubling and bruck: one for every
 * round from the second (add_dirty_rounds says why not the first). */
static void add_token_rounds(acc *a, int p)
{
    int rounds = kcal_ceil_log2(p);
    if (rounds > 1)
        add_steps(a, rounds - 1);
}

/* parallel_read, parallel_write, direct_read:
 * Total cost = T_sm_bcast + X(n) + P(p−1,n) + T_sm_gather
 * Change: P(p−1, n), not P(p, n): the root does not read (write) its own
 * block, it copies it locally meanwhile (scatter.c, gather.c) or holds the
 * message (bcast.c), so p − 1 copies contend. At p = 2 one copy runs
 * alone: γ(1) = 1. */
void kcal_t_full_parallel(acc *a, int p, int k)
{
    (void)k;
    add_sm(a, KCAL_SM_BCAST, p);
    add_x(a, 1);
    add_lock(a, 1, p - 1);
    add_sm(a, KCAL_SM_GATHER, p);
}

/* sequential_write, sequential_read:
 * Total cost = T_memcpy + T_sm_gather + (p−1)·(X(n) + l·pages(n))
 *              + T_sm_bcast
 * Change: (p−1), not p. The root's own block is the local copy T_memcpy
 * already charges; only the p−1 other blocks cross processes (scatter.c,
 * gather.c: the loop runs v = 1..p−1). The paper's p doubles the copy cost
 * at p = 2. As in the paper: the local copy + direct_write's row. */
void kcal_t_full_sequential(acc *a, int p, int k)
{
    add_memcpy(a);
    kcal_t_full_direct_write(a, p, k);
}

/* direct_write:
 * Total cost = T_sm_gather + (p−1)·(X(n) + l·pages(n)) + T_sm_bcast
 * Change: (p−1), not p: the root holds the message and writes it into the
 * p−1 others (bcast.c). */
void kcal_t_full_direct_write(acc *a, int p, int k)
{
    (void)k;
    add_sm(a, KCAL_SM_GATHER, p);
    add_x(a, p - 1);
    add_lock(a, p - 1, 1);
    add_sm(a, KCAL_SM_BCAST, p);
}

/* throttled_read, throttled_write:
 * Total cost = T_sm_bcast + ⌈(p−1)/k⌉·(X(n) + P(k,n) + sync_step)
 * Changes: ⌈(p−1)/k⌉ rounds, not ⌈p/k⌉: p−1 processes read (write) while
 * the root copies its own block, as in the sequential rows. Each round
 * starts when a token from the previous one arrives (scatter.c, gather.c):
 * one control message per round. */
void kcal_t_full_throttled(acc *a, int p, int k)
{
    double steps = (double)((p - 1 + k - 1) / k);
    add_sm(a, KCAL_SM_BCAST, p);
    add_x(a, steps);
    add_lock(a, steps, k);
    add_steps(a, steps);
}

/* knomial:
 * Total cost = T_sm_bcast + log_k p·(X(n) + P(k,n) + sync_step)
 *              + (log_k p − 1)·dirty(n)
 * Changes: each level starts with a go-ahead message from the parent
 * (bcast.c): one control message per level; below the first level a child
 * reads what its parent received one level before. */
void kcal_t_full_knomial(acc *a, int p, int k)
{
    double steps = kcal_ceil_log_k(p, k);
    add_sm(a, KCAL_SM_BCAST, p);
    add_x(a, steps);
    add_lock(a, steps, k);
    add_steps(a, steps);
    add_dirty(a, (double)a->n, steps - 1);
}

/* ring_neighbor:
 * Total cost = T_memcpy + T_sm_allgather + (p−1)·(X(n) + l·pages(n) + μ
 *              + sync_step) + T_sm_barrier + (p−2)·dirty(n)
 * Changes: its step t reads a block its left neighbour received in step
 * t−1, so it waits for that neighbour's token (allgather.c), and every
 * step but the first reads lines that neighbour just wrote (the first
 * reads its own block where the user put it). */
void kcal_t_full_ring_neighbor(acc *a, int p, int k)
{
    kcal_t_ring(a, p, k);
    add_mutual(a, p - 1);
    add_steps(a, p - 1);
    add_dirty(a, (double)a->n, p - 2);
}

/* ring_source_read, ring_source_write:
 * Total cost = the ring row + (p−1)·μ
 * every process's p − 1 calls made while their targets make theirs. They
 * read (write) every block at its source, which holds it from the start:
 * no per-step message. */
void kcal_t_full_ring(acc *a, int p, int k)
{
    kcal_t_ring(a, p, k);
    add_mutual(a, p - 1);
}

/* recursive_doubling:
 * Total cost = the paper's row + lg p·μ + (⌈lg p⌉ − 1)·sync_step
 *              + the dirty reads of the rounds from the second
 * Every round from the second waits for its source's token; the first
 * reads the partner's send buffer, ready from the start (allgather.c). */
void kcal_t_full_recursive_doubling(acc *a, int p, int k)
{
    kcal_t_recursive_doubling(a, p, k);
    add_mutual(a, kcal_ceil_log2(p));
    add_token_rounds(a, p);
    add_dirty_rounds(a, p);
}

/* bruck as allgather.c runs it: the own block copied into the temporary
 * buffer (also in place), p − 1 blocks read in ⌈lg p⌉ rounds, then the
 * p·n-byte temporary rotated into the result:
 * Total cost = T_memcpy(n) + T_sm_allgather + lg p·(α + μ)
 *              + (p−1)·(n·β + l·pages(n)) + p·n·β + T_sm_barrier
 *              + (lg p − 1)·sync_step + the dirty reads of the rounds
 * (no token before the first round, as recursive_doubling)
 * Change: 2·p·n bytes copied in all, where the paper charges 2·(p−1)·n
 * (at p = 2 twice as much: the rotation copies every block, the own one
 * included, and the own block is copied twice). */
void kcal_t_full_bruck_copies(acc *a, int p, int k)
{
    (void)k;
    a->t.copy += (double)a->n * a->beta_local; /* own block into tmp */
    add_sm(a, KCAL_SM_ALLGATHER, p);
    a->t.startup += kcal_ceil_log2(p) * a->alpha;
    add_mutual(a, kcal_ceil_log2(p));
    a->t.copy += (p - 1) * (double)a->n * a->beta;
    add_lock(a, p - 1, 1);
    a->t.copy += (double)p * (double)a->n * a->beta_local; /* the rotation */
    add_sm(a, KCAL_SM_BARRIER, p);
    add_token_rounds(a, p);
    add_dirty_rounds(a, p);
}

/* pairwise as alltoall.c runs it: the paper's row + the local copy of the
 * own block (n bytes), or in place the copy aside of the whole p·n-byte
 * buffer that peers then read, + the closing synchronisation:
 * Total cost = T_memcpy + T_sm_allgather + (p−1)·(X(n) + l·pages(n) + μ)
 *              + T_sm_barrier (+ (p−1)·dirty(n) in place)
 * Change: the paper's row has neither the local copy nor the closing
 * allreduce that keeps every source's buffer valid until its readers are
 * done (ring_source_read's row has it, and the two are the same code at
 * p = 2). */
void kcal_t_full_pairwise(acc *a, int p, int k)
{
    a->t.copy += (a->in_place ? (double)p * (double)a->n : a->own) * a->beta_local;
    kcal_t_pairwise(a, p, k);
    add_sm(a, KCAL_SM_BARRIER, p);
    add_mutual(a, p - 1);
    if (a->in_place) /* the peers read the copy set aside just before */
        add_dirty(a, (double)a->n, p - 1);
}

/* scatter_allgather, with c = ⌈n/p⌉ and W = X(c) + l·pages(c):
 * Total cost (p = 2) = T_sm_allgather + W + μ + 2·sync_step
 * Total cost (p ≥ 3) = T_sm_allgather + 2·(p−1)·(W + μ) + p·sync_step
 * Changes (bcast.c): one MPI_Allgather of addresses is the only shared-
 * memory collective (the pieces' T_sm_gather, T_sm_bcast, T_sm_barrier and
 * second T_sm_allgather are not run); the bcast is in place, so neither
 * piece makes a local copy (no T_memcpy); the root writes p−1 chunks, not
 * p; and the rank after the root reads from the root, which holds every
 * chunk, while the root is still writing. The last rank, p−1 places after
 * the root, can start its p−1 ring reads only after the root wrote its
 * chunk (p−1 writes in), so for p ≥ 3 the halves add up; at p = 2 the last
 * rank is the one after the root: the root's one write and its one read
 * run at the same time, W instead of 2·W. The ring's tokens add one
 * control message per step (at p = 2 the root's "your chunk is written"),
 * and the last rank's done message to its left neighbour, which that
 * neighbour waits for before it returns, one more after them
 * (docs/machine.md "The model's comments: the measurements behind
 * them"). */
void kcal_t_full_scatter_allgather(acc *a, int p, int k)
{
    (void)k;
    uint64_t chunk = a->n / (uint64_t)p + (a->n % (uint64_t)p != 0);
    acc w;
    acc_piece(&w, a, chunk, 1);
    double transfers = p == 2 ? 1 : 2.0 * (p - 1);
    add_x(&w, transfers);
    add_lock(&w, transfers, 1);
    add_mutual(a, transfers); /* the root's writes meet the readers' reads */
    terms_add(&a->t, &w.t);
    add_sm(a, KCAL_SM_ALLGATHER, p);
    add_steps(a, p);
}

void kcal_model_full_time(acc *a, kcal_coll c, const kcal_algorithm *alg,
                          int k, int p, const kcal_copy_base *base)
{
    a->full = 1;
    if (a->setup->measured) {
        kcal_copy_base own;
        if (!base) {
            kcal_model_copy_base(a->prm, c, alg, p, a->n, &own);
            base = &own;
        }
        kcal_model_copy_rates(base, kcal_model_copy_delta(base, alg, p, k),
                              &a->beta, &a->beta_local);
        a->alpha = base->fc.alpha;
        a->lock = base->fc.lock;
    } else {
        a->beta = kcal_model_full_beta(a->prm, c, alg, p, a->n);
        a->beta_local = a->beta;
    }
    if (p == 1) { /* model.md: for p = 1 every collective is a local copy */
        add_memcpy(a);
        return;
    }
    kcal_model_facts[alg->index].full(a, p, k);
    add_context(a);
}
