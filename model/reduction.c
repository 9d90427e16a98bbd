/* reduction: the reductions' formulas (docs/model.md "Reductions"), one
 * for both models, as the derived rows have (algorithms.def).
 *
 * A reduction's data move as the other collectives' do, by CMA reads (and
 * writes) in chunks of C = KCAL_REDUCE_CHUNK, each its own call:
 *   Xc(b) = ⌈b/C⌉·α + b·β + l·γ(c)·pages(b)
 * and the op runs on what was read: R(b) = b·ρ, ρ the key reduce_beta
 * (MPI_SUM on doubles in cache), or β where no probe measured it (an op
 * reads two streams and writes one, as a copy reads one and writes one:
 * the same order, an estimate until `kcal probe` times MPI_Reduce_local).
 * R is charged in the copy term (`--explain`'s "copy" column). Every row
 * publishes its addresses (F_allgather) and ends with one status reduction
 * (F_barrier) in which no rank returns while a peer may still read it.
 *
 * Where several ranks read one source at once the page lock contends,
 * γ(c): every rank folds in the same rank order (reduce.h), so in each
 * step of a fold the p − 1 readers of a slice or vector read the same
 * source. The allgather phase's readers are staggered (rank r reads
 * r + t), γ(1). */
#include "model/model_impl.h"

/* Xc of `bytes`, `times` times, c readers of one source at once. */
static void add_chunked(acc *a, double bytes, double times, int c)
{
    if (!(bytes > 0) || !(times > 0))
        return;
    double calls = ceil(bytes / (double)KCAL_REDUCE_CHUNK);
    a->t.startup += times * calls * a->alpha;
    a->t.copy += times * bytes * a->beta;
    a->t.lock += times * a->lock * kcal_model_gamma(a->prm, c) *
                 (double)kcal_pages((uint64_t)bytes, a->prm->page);
}

/* R(bytes), `times` times. */
static void add_reduce(acc *a, double bytes, double times)
{
    double rho = kcal_params_get_key(a->prm, KCAL_PK_reduce_beta, 0);
    a->t.copy += times * bytes * (rho > 0 ? rho : a->beta_local);
}

/* The fold of `bytes` over p processes: p − 1 chunked reads, c readers
 * of one source at once, each read folded in, (p−1)·(Xc + R). */
static void add_fold(acc *a, double bytes, int p, int c)
{
    add_chunked(a, bytes, p - 1, c);
    add_reduce(a, bytes, p - 1);
}

/* The fold's first step at rank p − 1: its own input copied into the
 * accumulator (MPI_Reduce_local folds into one of its two operands, and
 * x_{p−1} ⊕ … keeps every rank's operands in one order), `bytes` at the
 * local copy's rate. Rank p − 1 is then the busiest: the others read
 * x_{p−1} into their accumulators, a read they make anyway. Without it
 * read_all, reduce_scatter_allgather and reduce_scatter_read ran
 * 1.3-1.7x their predictions on the Zen 4 guest (docs/model.md). Only
 * read_all makes it for doubles summed: in the rows where one process
 * alone folds an element, rank p − 1 folds x_{p−1} ⊕ x_{p−2} instead,
 * reading x_{p−2} into the accumulator (algos/reduce_op.c), wherever
 * the op commutes, as the sum of doubles the model prices does. */
static void add_first_copy(acc *a, double bytes)
{
    a->t.copy += bytes * a->beta_local;
}

/* One rank's slice of n bytes in p near-equal slices (the largest). */
static double slice(const acc *a, int p)
{
    return ceil((double)a->n / (double)p);
}

/* The result staged and copied into place (in place, read_all and
 * reduce_scatter_read). */
static void add_staged(acc *a)
{
    if (a->in_place)
        a->t.copy += (double)a->n * a->beta_local;
}

/* allreduce read_all:
 * Total cost = F_allgather + n·β_local + (p−1)·(Xc(n) + R(n)) + F_barrier
 *              (+ n·β_local in place) */
void kcal_t_allreduce_read_all(acc *a, int p, int k)
{
    (void)k;
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_first_copy(a, (double)a->n);
    add_fold(a, (double)a->n, p, p - 1);
    add_staged(a);
    add_flag(a, KCAL_SM_BARRIER, p);
}

/* allreduce reduce_scatter_allgather:
 * Total cost = F_allgather + (p−1)·(Xc(n/p) + R(n/p))
 *              + F_barrier + (p−1)·X(n/p) + F_barrier */
void kcal_t_allreduce_rs_allgather(acc *a, int p, int k)
{
    (void)k;
    double s = slice(a, p);
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_fold(a, s, p, p - 1);
    add_flag(a, KCAL_SM_BARRIER, p);
    a->t.startup += (p - 1) * a->alpha;
    a->t.copy += (p - 1) * s * a->beta;
    a->t.lock += (p - 1) * a->lock *
                 (double)kcal_pages((uint64_t)s, a->prm->page);
    add_flag(a, KCAL_SM_BARRIER, p);
}

/* reduce root_read:
 * Total cost = F_allgather + (p−1)·(Xc(n) + R(n)) + F_barrier */
void kcal_t_reduce_root_read(acc *a, int p, int k)
{
    (void)k;
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_fold(a, (double)a->n, p, 1);
    add_flag(a, KCAL_SM_BARRIER, p);
}

double kcal_model_reduce_fold_per_write(const kcal_params *prm)
{
    double rho = kcal_params_get_key(prm, KCAL_PK_reduce_beta, 0);
    double beta = prm->beta;
    if (!(beta > 0))
        return 1;
    return (beta + (rho > 0 ? rho : beta)) / beta;
}

void kcal_model_reduce_slice(uint64_t count, int p, int root, int r,
                             double F, uint64_t *lo, uint64_t *hi)
{
    if (p <= 1) {
        *lo = 0, *hi = count;
        return;
    }
    if (!(F >= 1) || !isfinite(F)) /* no cheaper fold than a write */
        F = 1;
    /* s₁ = count / (k + p − 1), k = s₀/s₁; s₀ takes the remainder */
    double k = 1.0 + 1.0 / ((double)(p - 1) * F);
    uint64_t s1 = (uint64_t)((double)count / (k + (double)(p - 1)));
    uint64_t s0 = count - (uint64_t)(p - 1) * s1;
    *lo = (uint64_t)r * s1 + (r > root ? s0 - s1 : 0);
    *hi = *lo + (r == root ? s0 : s1);
}

/* reduce reduce_scatter_write, with s₀ the root's slice and s₁ another's
 * (kcal_model_reduce_slice at the params' F), the busier of the two sides:
 * Total cost = F_allgather + max((p−1)·(Xc(s₀) + R(s₀)),
 *                                (p−1)·(Xc(s₁) + R(s₁)) + Xc(s₁)) + F_barrier
 * the last Xc a slice's writes into the root, p − 1 writers at once. F
 * balances the two as far as β and ρ tell; where it does not (the other
 * side's lock and start-up terms, a cut made at another F) the busier one
 * counts: cut for MPI_SUM on doubles, MINLOC on 2int (0.61 ns/B against
 * 0.02, Zen 3 guest) ran 1.5x a row that charged s₁ alone. */
void kcal_t_reduce_scatter_write(acc *a, int p, int k)
{
    (void)k;
    uint64_t lo, hi;
    kcal_model_reduce_slice(a->n, p, 0, p - 1,
                            kcal_model_reduce_fold_per_write(a->prm), &lo,
                            &hi);
    double s1 = p > 1 ? (double)(hi - lo) : (double)a->n;
    double s0 = (double)a->n - (double)(p - 1) * s1;
    add_flag(a, KCAL_SM_ALLGATHER, p);
    if (p > 1) {
        acc root, other;
        acc_piece(&root, a, (uint64_t)s0, a->in_place);
        acc_piece(&other, a, (uint64_t)s1, a->in_place);
        add_fold(&root, s0, p, p - 1);
        add_fold(&other, s1, p, p - 1);
        add_chunked(&other, s1, 1, p - 1);
        double tr = root.t.startup + root.t.copy + root.t.lock;
        double to = other.t.startup + other.t.copy + other.t.lock;
        terms_add(&a->t, tr > to ? &root.t : &other.t);
    } else {
        add_fold(a, s1, p, p - 1);
    }
    add_flag(a, KCAL_SM_BARRIER, p);
}

/* reduce_scatter_block reduce_scatter_read (n: one rank's block):
 * Total cost = F_allgather + (p−1)·(Xc(n) + R(n)) + F_barrier
 *              (+ n·β_local in place) */
void kcal_t_reduce_scatter_read(acc *a, int p, int k)
{
    (void)k;
    add_flag(a, KCAL_SM_ALLGATHER, p);
    add_fold(a, (double)a->n, p, p - 1);
    add_staged(a);
    add_flag(a, KCAL_SM_BARRIER, p);
}

/* copy_in_out (reduce, allreduce, reduce_scatter_block): m chunks of c
 * bytes (KCAL_STAGING_CHUNK whole elements) copied into the staging areas
 * by every process, all at once; a folding process (every one, or the
 * root) copies the last rank's chunk into its result and folds the other
 * p − 1 out of the areas, chunks their owners' cores wrote in the same
 * round:
 * Total cost = 2·m·c·β_local + (p−1)·(m·c·ρ + pass(c, m)) + F_X
 * (F_allgather for allreduce, F_gather for reduce). No system call.
 * Where every process folds (allreduce, reduce_scatter_block), each reads
 * the others' areas while they read its own: pass_mutual(c, m) for
 * pass(c, m) (add_pass_mutual); reduce's root reads alone.
 * reduce_scatter_block (n one block): every process copies its p blocks
 * in, so (p + 1)·m·c·β_local, the rest as allreduce's. */
static void staged(acc *a, int p, kcal_sm_op op, int copied_in)
{
    uint64_t chunk = KCAL_STAGING_CHUNK;
    uint64_t m = a->n / chunk + (a->n % chunk != 0);
    uint64_t c = a->n < chunk ? a->n : chunk;
    a->t.copy += (double)(copied_in + 1) * (double)a->n * a->beta_local;
    add_reduce(a, (double)a->n, p - 1);
    if (op == KCAL_SM_GATHER)
        add_pass(a, c, m, p - 1);
    else
        add_pass_mutual(a, c, m, p - 1, m);
    add_flag(a, op, p);
}

void kcal_t_allreduce_copy_in_out(acc *a, int p, int k)
{
    (void)k;
    staged(a, p, KCAL_SM_ALLGATHER, 1);
}

void kcal_t_reduce_copy_in_out(acc *a, int p, int k)
{
    (void)k;
    staged(a, p, KCAL_SM_GATHER, 1);
}

void kcal_t_reduce_scatter_copy_in_out(acc *a, int p, int k)
{
    (void)k;
    staged(a, p, KCAL_SM_ALLGATHER, p);
}
