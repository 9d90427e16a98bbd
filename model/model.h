/* model: predicted times of the reference algorithms (docs/model.md).
 *
 * Owns the list of algorithms per collective, the cost formulas and the
 * ranking. `--model paper` is the paper's model exactly as printed in
 * model.md; a refined model is a separate variant of kcal_model_kind so the
 * paper's formulas never change underneath it. */
#ifndef KCAL_MODEL_H
#define KCAL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"

typedef enum {
    KCAL_COLL_SCATTER = 0,
    KCAL_COLL_GATHER,
    KCAL_COLL_BCAST,
    KCAL_COLL_ALLGATHER,
    KCAL_COLL_ALLTOALL,
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

/* Bytes one call of (c, alg) touches on the node, summed over the p
 * processes' buffers; the full model uses beta_hot when this is below
 * l3_cache. */
double kcal_model_footprint(kcal_coll c, const char *alg, int p, uint64_t n);

/* What kind of parameter an algorithm takes after the colon. */
typedef enum {
    KCAL_PARAM_NONE = 0,
    KCAL_PARAM_THROTTLE, /* k: 2 <= k <= p-1 (throttled_*, knomial) */
    KCAL_PARAM_STRIDE    /* j: 1 <= j <= p-1, gcd(p, j) = 1 (ring_neighbor) */
} kcal_param_kind;

/* The row of model.md's table an algorithm's time follows; algorithms that
 * share a row share its formula (parallel_read, parallel_write and
 * direct_read, say). Each model is one switch over these. */
typedef enum {
    KCAL_ROW_PARALLEL,
    KCAL_ROW_SEQUENTIAL,
    KCAL_ROW_THROTTLED,
    KCAL_ROW_DIRECT_WRITE,
    KCAL_ROW_KNOMIAL,
    KCAL_ROW_SCATTER_ALLGATHER,
    KCAL_ROW_RING_NEIGHBOR,
    KCAL_ROW_RING_SOURCE,
    KCAL_ROW_RECURSIVE_DOUBLING,
    KCAL_ROW_BRUCK,
    KCAL_ROW_PAIRWISE
} kcal_row;

typedef struct {
    const char *id;       /* model.md algorithm id, e.g. "throttled_read" */
    kcal_param_kind kind; /* what `k` means for it */
    kcal_row row;         /* which formula gives its time */
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
int kcal_coll_from_name(const char *name, kcal_coll *out); /* 0 or -1 */

/* The algorithms of a collective, in model.md order. */
const kcal_algorithm *kcal_model_algorithms(kcal_coll c, size_t *count);
const kcal_algorithm *kcal_model_find_algorithm(kcal_coll c, const char *id);

/* Whether k is valid for alg at p (for KCAL_PARAM_NONE k must be 0). */
int kcal_model_k_valid(const kcal_algorithm *alg, int p, int k);

/* Predicted time of one (algorithm, k) for p processes and n bytes (model.md
 * "Message size"). `terms` may be NULL. Returns seconds, or a negative value
 * when (alg, k, p) is invalid. */
double kcal_model_time(kcal_model_kind model, const kcal_params *prm,
                       kcal_coll c, const kcal_algorithm *alg, int k, int p,
                       uint64_t n, int in_place, kcal_terms *terms);

/* Every (algorithm, k) of a collective at p: throttle factors 2..p-1 (or only
 * `only_k` when > 0), ring_neighbor with j = 1. Fills *out (malloc'ed, caller
 * frees) ranked fastest first. Returns the count, or -1 on bad arguments. */
long kcal_model_rank(kcal_model_kind model, const kcal_params *prm,
                     kcal_coll c, int p, uint64_t n, int in_place, int only_k,
                     kcal_prediction **out);

/* The first-ranked algorithm: writes "id" or "id:k" into buf. 0 or -1. */
int kcal_model_best(kcal_model_kind model, const kcal_params *prm,
                    kcal_coll c, int p, uint64_t n, int in_place, char *buf,
                    size_t buflen);

/* Helpers shared with algos/ (same definitions as model.md). */
uint64_t kcal_pages(uint64_t n, double page);
int kcal_ceil_log2(long p);
int kcal_ceil_log_k(long p, long k);
double kcal_gamma(const kcal_params *prm, int c);

#endif
