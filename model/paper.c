/* paper: the paper's model (docs/model.md "Notation" and "The paper model",
 * `--model paper`).
 *
 * Owns model.md's notation (pages(n), ⌈log₂ p⌉, ⌈log_k p⌉, γ(c)) and the
 * paper's formulas as printed, each the row of model.md's table of the
 * same name, with X(n) = α + n·β and P(c, n) = l·γ(c)·pages(n) (the terms:
 * model_impl.h). The full model's formulas are separate functions
 * (full.c), so these never change underneath it; the derived rows'
 * formulas are in derived.c. */
#include "model/model_impl.h"

uint64_t kcal_pages(uint64_t n, double page)
{
    if (n == 0)
        return 0;
    if (page == floor(page) && page <= 1e18) {
        uint64_t s = (uint64_t)page;
        return n / s + (n % s != 0);
    }
    return (uint64_t)ceil((double)n / page);
}

/* The smallest i with 2^i >= p, at most 62: the bits of p − 1. In a
 * count of bits, not a loop of shifts: every synchronisation term asks
 * for it, once per candidate of a ranking. */
int kcal_ceil_log2(long p)
{
    if (p <= 1)
        return 0;
    int i = 64 - __builtin_clzl((unsigned long)(p - 1));
    return i < 62 ? i : 62;
}

int kcal_ceil_log_k(long p, long k)
{
    int i = 0;
    long v = 1;
    while (v < p) {
        i++;
        if (v > p / k) /* next power exceeds p: done without overflow */
            break;
        v *= k;
    }
    return i;
}

double kcal_model_gamma(const kcal_params *prm, int c)
{
    return gamma_at(prm, c);
}

/* parallel_read, parallel_write, direct_read:
 * Total cost = T_sm_bcast + X(n) + P(p,n) + T_sm_gather */
void kcal_t_parallel(acc *a, int p, int k)
{
    (void)k;
    add_sm(a, KCAL_SM_BCAST, p);
    add_x(a, 1);
    add_lock(a, 1, p);
    add_sm(a, KCAL_SM_GATHER, p);
}

/* sequential_write, sequential_read:
 * Total cost = T_memcpy + T_sm_gather + p·(X(n) + l·pages(n)) + T_sm_bcast
 * = the root's local copy + direct_write's row (the same p writes). */
void kcal_t_sequential(acc *a, int p, int k)
{
    add_memcpy(a);
    kcal_t_direct_write(a, p, k);
}

/* throttled_read, throttled_write:
 * Total cost = T_sm_bcast + ⌈p/k⌉·(X(n) + P(k,n)) */
void kcal_t_throttled(acc *a, int p, int k)
{
    double steps = (double)((p + k - 1) / k);
    add_sm(a, KCAL_SM_BCAST, p);
    add_x(a, steps);
    add_lock(a, steps, k);
}

/* ring_neighbor (its stride j does not change the cost), ring_source_read,
 * ring_source_write:
 * Total cost = T_memcpy + T_sm_allgather + (p−1)·(X(n) + l·pages(n))
 *              + T_sm_barrier */
void kcal_t_ring(acc *a, int p, int k)
{
    (void)k;
    add_memcpy(a);
    add_sm(a, KCAL_SM_ALLGATHER, p);
    add_x(a, p - 1);
    add_lock(a, p - 1, 1);
    add_sm(a, KCAL_SM_BARRIER, p);
}

/* recursive_doubling:
 * Total cost = T_memcpy + T_sm_allgather + lg p·α
 *              + (p−1)·(n·β + l·pages(n)) + T_sm_barrier */
void kcal_t_recursive_doubling(acc *a, int p, int k)
{
    (void)k;
    add_memcpy(a);
    add_sm(a, KCAL_SM_ALLGATHER, p);
    a->t.startup += kcal_ceil_log2(p) * a->alpha;
    a->t.copy += (p - 1) * (double)a->n * a->beta;
    add_lock(a, p - 1, 1);
    add_sm(a, KCAL_SM_BARRIER, p);
}

/* bruck:
 * Total cost = T_sm_allgather + lg p·α + (p−1)·(2·n·β + l·pages(n))
 *              + T_sm_barrier */
void kcal_t_bruck(acc *a, int p, int k)
{
    (void)k;
    add_sm(a, KCAL_SM_ALLGATHER, p);
    a->t.startup += kcal_ceil_log2(p) * a->alpha;
    a->t.copy += (p - 1) * 2.0 * (double)a->n * a->beta;
    add_lock(a, p - 1, 1);
    add_sm(a, KCAL_SM_BARRIER, p);
}

/* pairwise:
 * Total cost = T_sm_allgather + (p−1)·(X(n) + l·pages(n)) */
void kcal_t_pairwise(acc *a, int p, int k)
{
    (void)k;
    add_sm(a, KCAL_SM_ALLGATHER, p);
    add_x(a, p - 1);
    add_lock(a, p - 1, 1);
}

/* direct_write:
 * Total cost = T_sm_gather + p·(X(n) + l·pages(n)) + T_sm_bcast */
void kcal_t_direct_write(acc *a, int p, int k)
{
    (void)k;
    add_sm(a, KCAL_SM_GATHER, p);
    add_x(a, p);
    add_lock(a, p, 1);
    add_sm(a, KCAL_SM_BCAST, p);
}

/* knomial:
 * Total cost = T_sm_bcast + log_k p·(X(n) + P(k,n)) */
void kcal_t_knomial(acc *a, int p, int k)
{
    double steps = kcal_ceil_log_k(p, k);
    add_sm(a, KCAL_SM_BCAST, p);
    add_x(a, steps);
    add_lock(a, steps, k);
}

/* scatter_allgather:
 * Total cost = T_sm_allgather + T_seqwrite_scatter(⌈n/p⌉)
 *              + T_ring_allgather(⌈n/p⌉)
 * each piece with its own row's terms. */
void kcal_t_scatter_allgather(acc *a, int p, int k)
{
    (void)k;
    uint64_t chunk = a->n / (uint64_t)p + (a->n % (uint64_t)p != 0);
    acc piece;
    add_sm(a, KCAL_SM_ALLGATHER, p);
    acc_init(&piece, a->setup, chunk, a->in_place);
    kcal_t_sequential(&piece, p, 0);
    terms_add(&a->t, &piece.t);
    acc_init(&piece, a->setup, chunk, a->in_place);
    kcal_t_ring(&piece, p, 1);
    terms_add(&a->t, &piece.t);
}

void kcal_model_paper_time(acc *a, const kcal_algorithm *alg, int k, int p)
{
    if (p == 1) { /* model.md: for p = 1 every collective is a local copy */
        add_memcpy(a);
        return;
    }
    kcal_model_facts[alg->index].paper(a, p, k);
}
