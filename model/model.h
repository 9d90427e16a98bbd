/* model: predicted times of the reference algorithms (docs/model.md).
 *
 * Owns the algorithms as the registry (algorithms.def) lists them, their
 * cost formulas and shapes, the ranking `kcal predict` prints and the choice
 * libkcoll makes (kcal_model_select). `--model paper` is the paper's model exactly as printed in
 * model.md; a refined model is a separate variant of kcal_model_kind so the
 * paper's formulas never change underneath it. */
#ifndef KCAL_MODEL_H
#define KCAL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "model/params.h"

/* The collectives, in model/collectives.def's order. */
typedef enum {
#define KCAL_COLLECTIVE(id, name) KCAL_COLL_##id,
#include "model/collectives.def"
    KCAL_COLL_COUNT
} kcal_coll;

/* KCAL_MODEL_PAPER: model.md's table exactly as printed. KCAL_MODEL_FULL:
 * model.md "Beyond the paper" — the paper's terms plus in-cache copies
 * (beta_hot, l3_cache), per-step synchronisation (sync_step) and the
 * structural fixes that follow the reference implementation (algos/): only
 * p − 1 remote copies in the sequential rows, the overlap of bcast
 * scatter_allgather's two halves. A key that is absent falls back to the
 * paper's term (see kcal_model_full_missing). */
typedef enum { KCAL_MODEL_PAPER = 0, KCAL_MODEL_FULL } kcal_model_kind;

/* The model used when none is named (kcal predict, kcal tune, libkcoll):
 * full for params that hold the probe's copy measurements of the full
 * model (kcal_model_full_measured: beta_ws_*, cache_knee, conc_*, the
 * write keys), paper otherwise (the paper's machine files). The rule of
 * model.md "Which model is the default": the full model became the
 * default where three `make report` runs showed it better on both the
 * median error and the mean regret. */
kcal_model_kind kcal_model_default(const kcal_params *prm);

/* Name ("paper", "full") and lookup; from_name returns 0 or -1. */
const char *kcal_model_name(kcal_model_kind m);
int kcal_model_from_name(const char *name, kcal_model_kind *out);

/* The full model's optional keys, and which of them a params set lacks
 * (bits). Without beta_hot or l3_cache every copy costs the cold β; without
 * sync_step no per-step synchronisation is charged (the paper's 0). */
enum {
    KCAL_FULL_NO_BETA_HOT = 1u << 0,
    KCAL_FULL_NO_L3 = 1u << 1,
    KCAL_FULL_NO_SYNC_STEP = 1u << 2
};
unsigned kcal_model_full_missing(const kcal_params *prm);

/* What kind of parameter an algorithm takes after the colon. */
typedef enum {
    KCAL_PARAM_NONE = 0,
    KCAL_PARAM_THROTTLE, /* k: 2 <= k <= p-1 (throttled_*, knomial) */
    KCAL_PARAM_STRIDE    /* j: 1 <= j <= p-1, gcd(p, j) = 1 (ring_neighbor) */
} kcal_param_kind;

/* Every algorithm's index in the registry (model/algorithms.def), in its
 * order: KCAL_ALG_<COLL>_<id>, e.g. KCAL_ALG_SCATTER_throttled_read. */
enum {
#define KCAL_ALGORITHM(coll, id, ...) KCAL_ALG_##coll##_##id,
#include "model/algorithms.def"
    KCAL_ALG_COUNT
};

/* Whether the paper has the algorithm (algorithms.def's origin column). */
typedef enum { KCAL_ORIGIN_PAPER = 0, KCAL_ORIGIN_DERIVED } kcal_alg_origin;

/* One registry row as the rest of kcal sees it. The formulas and shape
 * facts of the row stay inside model/; ask kcal_model_time,
 * kcal_model_shape and kcal_model_footprint. */
typedef struct {
    kcal_coll coll;
    const char *id;       /* model.md algorithm id, e.g. "throttled_read" */
    kcal_param_kind kind; /* what `k` means for it */
    int index;            /* KCAL_ALG_<COLL>_<id>: position in the registry */
    kcal_alg_origin origin; /* derived: model.md "Derived algorithms" */
} kcal_algorithm;

/* Time split by cause, for --explain; the sum is the predicted time. */
typedef struct {
    double startup; /* alpha terms */
    double copy;    /* n*beta terms, T_memcpy included */
    double lock;    /* l*gamma*pages terms */
    double sync;    /* T_sm terms (and sync_step in the full model) */
} kcal_terms;

/* One ranked prediction. k is 0 where the algorithm takes no parameter. */
typedef struct {
    const kcal_algorithm *alg;
    int k;
    double seconds;
    kcal_terms terms;
    int rank; /* 1 = fastest; equal times share a rank */
} kcal_prediction;

const char *kcal_coll_name(kcal_coll c);
/* Every collective's name, comma separated ("scatter, gather, ..."): for
 * messages that list the valid ones. */
const char *kcal_coll_list(void);
/* Whether c is a reduction (reduce, allreduce, reduce_scatter_block: the
 * last rows of collectives.def), whose calls also carry a type and an op. */
int kcal_coll_is_reduction(kcal_coll c);
int kcal_coll_from_name(const char *name, kcal_coll *out); /* 0 or -1 */

/* The algorithms of a collective, in model.md order: its rows of the
 * registry (model/algorithms.def). The MPI library's own collective is not
 * one of them (kcal_model_mpi). */
const kcal_algorithm *kcal_model_algorithms(kcal_coll c, size_t *count);
const kcal_algorithm *kcal_model_find_algorithm(kcal_coll c, const char *id);

/* Whether k is valid for alg at p (for KCAL_PARAM_NONE k must be 0). */
int kcal_model_k_valid(const kcal_algorithm *alg, int p, int k);

/* What an algorithm does per step, from its registry row: the counts its
 * model.md row multiplies by. */
typedef struct {
    int steps;      /* sequential steps, each ending in a synchronisation;
                     * at least 1 */
    int concurrent; /* copies running at once within a step (the c of γ(c)) */
    int paper_charges_p; /* 1: the paper row charges p transfers,
                          * p·(X(n) + l·pages(n)), where the algorithm makes
                          * p − 1 remote ones (the root's own block is a
                          * local copy or already in place): sequential_*,
                          * direct_write and scatter_allgather's scatter */
} kcal_shape;

/* The shape of alg (an algorithm of c) at p with parameter k. k = 0 where
 * alg takes a throttle factor but none is known counts as one copy at a
 * time: ⌈p/k⌉ = p steps for throttled_*, 1 step for knomial (also at k = 1,
 * where log_k p has no value). Returns 0, or -1 when alg is not one of c's,
 * p < 1 or k < 0. */
int kcal_model_shape(kcal_coll c, const kcal_algorithm *alg, int p, int k,
                     kcal_shape *out);

/* Bytes one call of (c, alg) touches on the node, summed over the p
 * processes' buffers; the full model uses beta_hot when this is below
 * l3_cache. alg is an id of c (NULL or unknown: the collective's buffers
 * without any algorithm's scratch space). */
double kcal_model_footprint(kcal_coll c, const char *alg, int p, uint64_t n);

/* The bytes the busiest process's copies touch in one call (model.md
 * "Which β a call uses"): what the full model looks the β(working set)
 * curve up at. k: the throttle factor (0 when none). */
double kcal_model_working_set(kcal_coll c, const char *alg, int p, int k,
                              uint64_t n);

/* Predicted time of one (algorithm, k) for p processes and n bytes (model.md
 * "Message size"). `terms` may be NULL. Returns seconds, or a negative value
 * when (alg, k, p) is invalid. Params that pass kcal_params_validate can
 * still overflow a double: the result may be inf or NaN (see
 * kcal_model_find_nonfinite). */
double kcal_model_time(kcal_model_kind model, const kcal_params *prm,
                       kcal_coll c, const kcal_algorithm *alg, int k, int p,
                       uint64_t n, int in_place, kcal_terms *terms);

/* kcal_model_time with every peer's block n and the process's own block,
 * the one it copies locally (T_memcpy), `own` bytes: a v-collective's
 * pair, where the two differ (model/irregular.c). Not in place. */
double kcal_model_pair_time(kcal_model_kind model, const kcal_params *prm,
                            kcal_coll c, const kcal_algorithm *alg, int k,
                            int p, uint64_t n, uint64_t own,
                            kcal_terms *terms);

/* Every (algorithm, k) of a collective at p: throttle factors 2..p-1 (or only
 * `only_k` when > 0), ring_neighbor with j = 1. Fills *out (malloc'ed, caller
 * frees) ranked fastest first. Returns the count, or -1 on bad arguments.
 * Ranks are among the registry's algorithms; where the MPI library's row
 * applies (kcal_model_mpi_time) it comes first, with rank 1: it is the
 * choice there, and the algorithms keep the ranks they have without it. */
long kcal_model_rank(kcal_model_kind model, const kcal_params *prm,
                     kcal_coll c, int p, uint64_t n, int in_place, int only_k,
                     kcal_prediction **out);

/* kcal_model_rank for a caller that ranks size after size (kcal
 * predict): the ranking goes into r->pred (count predictions, the "mpi"
 * row first where it applies, as kcal_model_rank), in buffers kept from
 * one call to the next. At p = 1024 a ranking is 130 KiB, which malloc
 * gave back to the kernel on every free and faulted in again on the next
 * call. r starts zeroed and is the caller's alone (no thread shares it);
 * kcal_ranking_free releases it. Returns the count, or -1 (bad arguments,
 * out of memory). */
typedef struct {
    kcal_prediction *pred; /* the last call's ranking */
    size_t cap;
    struct kcal_rank_key *keys; /* select.c's: the sort's (time, index) */
    size_t keys_cap;
    size_t *runs; /* select.c's: where the sort's runs start */
    size_t runs_cap;
} kcal_ranking;

long kcal_model_rank_into(kcal_model_kind model, const kcal_params *prm,
                          kcal_coll c, int p, uint64_t n, int in_place,
                          int only_k, kcal_ranking *r);
void kcal_ranking_free(kcal_ranking *r);

/* The first (algorithm, k), in kcal_model_rank's candidates, whose time is
 * not finite: returns 1 and fills *bad (rank 0), 0 when every time is
 * finite, -1 on bad arguments. A scan: no allocation. */
int kcal_model_find_nonfinite(kcal_model_kind model, const kcal_params *prm,
                              kcal_coll c, int p, uint64_t n, int in_place,
                              int only_k, kcal_prediction *bad);

/* The MPI library's own collective as one more candidate (model.md "The
 * MPI library as a candidate"): a row named "mpi" that is not in the
 * registry (its index is -1: kcal_model_time, kcal_model_shape and the
 * registry's tables know nothing of it). Where the params hold what kcal
 * probe measured for the collective, for p >= 2 and n below
 * mpi_<c>_below (the size from which the best libkcoll algorithm beat the
 * MPI library at every measured size), kcal_model_select chooses it and
 * kcal_model_rank lists it first; its time is the measured line
 *   T_mpi(p, n) = mpi_<c>_a + mpi_<c>_b·v(p, n),
 *   v = ⌈log₂ p⌉·n for bcast, (p−1)·n for the others.
 * kcal_model_mpi_time returns T_mpi, or -1 where there is no such row
 * (keys absent, p < 2, n handed to libkcoll, or a time not finite).
 * n goes to the MPI library below mpi_<c>_below, and above it where
 * mpi_<c>_mask has the bit of n's size class (kcal_model_size_class): the
 * probe measured the MPI library faster there all the same. */
const kcal_algorithm *kcal_model_mpi(kcal_coll c);
/* ⌊log₂ n⌋ (0 for n = 0): the size class [2^i, 2^(i+1)) of mpi_<c>_mask's
 * bit i. */
int kcal_model_size_class(uint64_t n);
/* Whether the params hand n bytes of c to the MPI library: n below
 * `below`, or mask's bit for n's class set (the keys' values; below 0 for
 * none). */
int kcal_model_handed_off(double below, double mask, uint64_t n);
int kcal_model_is_mpi(const kcal_algorithm *alg);
/* c's staged row (copy_in_out): its data passes between cores through
 * the staging areas with no system call, so its time moves with what
 * passing lines costs at the moment, the quantity the host moves most
 * (pass_spread: 1.8 or 9.7 us per 16 KiB from one minute to the next). */
const kcal_algorithm *kcal_model_staged(kcal_coll c);
double kcal_model_mpi_time(const kcal_params *prm, kcal_coll c, int p,
                           uint64_t n);

/* The model's choice: what kcal_model_rank would rank first. */
typedef struct {
    const kcal_algorithm *alg;
    int k; /* 0 where alg takes no parameter; ring_neighbor's j is 1 */
    double seconds;
} kcal_choice;

enum {
    KCAL_SELECT_NONE = -1,     /* bad arguments, or no (alg, k) valid at p */
    KCAL_SELECT_NONFINITE = -2 /* every candidate's time is inf or NaN */
};

/* The fastest (algorithm, k) of c at (p, n): among every algorithm, or only
 * among only_alg's parameters when only_alg is not NULL (its best k). The
 * same candidates and tie order as kcal_model_rank (model.md order, then
 * smaller k), but a scan: no allocation, no shared state, so any thread may
 * call it. Candidates whose time is not finite are never chosen. Without
 * only_alg, where the MPI library's row applies (kcal_model_mpi_time) it is
 * the choice: out->alg is kcal_model_mpi(c), k 0. Returns 0,
 * KCAL_SELECT_NONE or KCAL_SELECT_NONFINITE. */
int kcal_model_select(kcal_model_kind model, const kcal_params *prm,
                      kcal_coll c, int p, uint64_t n, int in_place,
                      const kcal_algorithm *only_alg, kcal_choice *out);

/* What the full model charges for the copies of one call (issue 9), for
 * `kcal predict --explain` and the report: the call's footprint, the β it
 * gets and from which keys, the concurrent copies' δ(c), and for a *_write
 * row the write keys. beta is the per-byte time the formula uses, δ and the
 * write scale included. alg NULL: the collective's buffers alone, one copy
 * at a time. */
typedef enum {
    KCAL_BETA_FROM_BETA = 0, /* β: nothing better in the params */
    KCAL_BETA_FROM_L3,       /* beta_hot or β by hwloc's l3_cache */
    KCAL_BETA_FROM_KNEE,     /* beta_hot or β by the measured cache_knee */
    KCAL_BETA_FROM_WS        /* the measured β(working set) curve */
} kcal_beta_source;

typedef struct {
    double footprint; /* bytes, kcal_model_footprint */
    double working_set; /* bytes β(W) was looked up at (kcal_model_working_set,
                         * or the footprint once it passes cache_knee); 0
                         * without a β(W) curve */
    double beta;      /* s/byte, δ and write scale included */
    double beta_local; /* s/byte of a copy within one process's memory
                        * (T_memcpy, staging): the memcpy_ws curve at the
                        * same working set, else beta before the write
                        * scale; δ included */
    kcal_beta_source beta_source;
    int concurrent;   /* copies at once (the registry's conc at p, k) */
    double conc;      /* k of δ(c) = 1 + k·(c − 1) for this call */
    double delta;     /* δ(concurrent) */
    int writes;       /* a *_write row */
    int write_keys;   /* bits: 1 alpha_write, 2 lock_write, 4 beta_write */
    double alpha, lock, write_scale;
} kcal_full_copy;

/* Whether the params hold any of issue 9's keys (beta_ws_*, cache_knee,
 * conc_*, *_write): without them the full model is as before. */
int kcal_model_full_measured(const kcal_params *prm);

void kcal_model_full_copy(const kcal_params *prm, kcal_coll c,
                          const kcal_algorithm *alg, int p, int k, uint64_t n,
                          kcal_full_copy *out);

/* model.md's notation, for model/ and for reports/: pages(n) = ⌈n/s⌉,
 * ⌈log₂ p⌉, ⌈log_k p⌉ and γ(c) (γ(1) = 1, 0 for c <= 0). */
uint64_t kcal_pages(uint64_t n, double page);
int kcal_ceil_log2(long p);
int kcal_ceil_log_k(long p, long k);
double kcal_model_gamma(const kcal_params *prm, int c);

/* The chunks the *_split algorithms cut each n-byte block into: the bytes
 * of a chunk (the last may be shorter), in whole 4 KiB pages and at least
 * KCAL_SPLIT_MIN_CHUNK. Each chunk is one system call (α) and shares are
 * settled a chunk at a time, so q chunks cost q·α/2 per process and leave
 * up to a chunk's time of imbalance; the sum is least near q = √(n·b/α),
 * b the per-byte pin and copy cost, α about five pages' pinning on the
 * machines measured: chunks of √(n · 16 KiB) (128 KiB at 1 MiB, 364 KiB
 * at 8 MiB). Where that gives fewer than KCAL_SPLIT_HALVES_BELOW chunks
 * (below 576 KiB) the block is cut in two halves instead: the owner takes
 * one from the front and the root the other from the back, where with a
 * few chunks the middle one went to whichever came first and its lines
 * moved between the cores from call to call (docs/machine.md "The Zen 5
 * guest: where a CMA call's time goes"). libkcoll cuts with it and the
 * model charges it, so the two never disagree. */
#define KCAL_SPLIT_MIN_CHUNK ((uint64_t)32 << 10)
#define KCAL_SPLIT_HALVES_BELOW 6
uint64_t kcal_model_split_chunk(uint64_t n);

/* copy_in_out (bcast, derived): the message goes through a shared area of
 * KCAL_STAGING_SLOTS slots of KCAL_STAGING_CHUNK bytes, the root copying
 * chunk i in while the others copy chunk i − 1 out (algos/staging.c,
 * algos/bcast.c). 16 KiB: two such copies in cache take about as long as
 * a flag's hand-off between cores, so a smaller chunk would add flag
 * latency faster than it shortens the pipeline's fill; 16 slots let the
 * root run up to 256 KiB ahead of the slowest reader. libkcoll copies with these and the model charges them. */
#define KCAL_STAGING_CHUNK ((uint64_t)16 << 10)
#define KCAL_STAGING_SLOTS 16

/* The reductions' chunk (algos/reduce.c): the most bytes of one element
 * range folded at a time, read by one CMA call. Two of them (the running
 * result and the peer's piece just read) stay in a core's L2 (1 MiB on
 * Zen 4 and 5, 2 MiB on the Xeon guests); 256 KiB was 1.2-1.6x faster
 * than 32 KiB from 256 KiB to 4 MiB at p = 2 on the Zen 5 guest (fewer
 * calls, each pinning more pages at once). On the Zen 3 guest (L2 512
 * KiB) 1 and 4 MiB made root_read 3-7 % faster from 512 KiB up
 * (docs/machine.md, "The reductions' chunk on the Zen 3 guest"): not
 * yet measured where it was chosen. */
#define KCAL_REDUCE_CHUNK ((uint64_t)256 << 10)

/* reduce_scatter_write's slices (algos/reduce.c cuts with them, the
 * model charges them): every process folds a slice of the vector, and all
 * but the root then write theirs into the root, so the root's slice is
 * larger by the write it saves. With per-byte costs f of a fold's step (a
 * read and the op) and w of a write, the root's (p − 1)·f·s₀ equals the
 * others' ((p − 1)·f + w)·s₁ when s₀ = s₁·(1 + 1/((p − 1)·F)), F = f / w.
 * kcal_model_reduce_fold_per_write prices F from the params as the op sees
 * them (kcal_params_reduce_view): F = (β + ρ)/β, a read and the op against
 * a write, ρ the op's rate (β where the params lack it). At p = 2 on the
 * Zen 3 guest the root's share 0.5 ran 1.02-1.22x Open MPI's reduce of
 * doubles at 256K-8M, 0.6 1.23-1.42x, 0.65 1.34-1.57x, 0.7 1.27-1.48x,
 * 0.75 1.22-1.37x (docs/machine.md "The reduce's uneven slices"), and its
 * probes give F = 1.14-1.24, shares 0.62-0.64; for MINLOC on 2int (ρ 30x
 * the sum's) F = 5.4, share 0.54. Every rank must cut alike whatever file
 * it read: libkcoll takes rank 0's F (algos/reduce.c). */
double kcal_model_reduce_fold_per_write(const kcal_params *prm);
/* Elements [*lo, *hi) of rank r's slice of count elements, slices in rank
 * order, the root's s₀ and every other's s₁ as above for F (p = 1: the
 * whole). */
void kcal_model_reduce_slice(uint64_t count, int p, int root, int r,
                             double F, uint64_t *lo, uint64_t *hi);

/* The rate a reduction's op is priced at (model.md "Reductions"): the key
 * for op (the name of a KCOLL_ROP row of algos/reduce_types.def, "max")
 * on a type of class cls (its KCOLL_RC_* bit, algos/reduce_types.h):
 * KCAL_PK_reduce_beta for MPI_SUM on floating point, the
 * reduce_<op>_<class>_beta slot of another pair of model/reduce_rates.def,
 * -1 for what it does not price (a user's op, a class it has no type
 * of, an op MPI does not define on the class). */
kcal_pkey kcal_reduce_rate_key(const char *op, unsigned cls);

/* The params as a reduction whose rate key is `rate` sees them: *view is
 * base with reduce_beta read from `rate` where
 * base holds that key, else base as it is. Cheap (a copy of the index,
 * no allocation): view borrows base's entries, so use it while base
 * lives and unchanged, never set a key in it, never free it. */
void kcal_params_reduce_view(const kcal_params *base, kcal_pkey rate,
                             kcal_params *view);

#endif
