/* two_level: predicted times across nodes (docs/model.md "Across nodes:
 * the two-level rows", derived): libkcoll's two-level collectives
 * (algos/two_level.c), one row per node-step algorithm and k, and the MPI
 * library's flat collective over all P ranks for comparison ("mpi_flat").
 *
 * P ranks, ppn on each of N = P/ppn nodes, consecutive in rank order. The
 * node steps are model.h's rows at p = ppn; the MPI library's part is a
 * stated algorithm in Hockney terms with the params' network keys:
 * T_net(m) = net_alpha + m·net_beta per message, net_gap (optional, 0 when
 * absent) per further message that leaves a node at once. */
#ifndef KCAL_TWO_LEVEL_H
#define KCAL_TWO_LEVEL_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

typedef struct {
    double alpha, beta, gap; /* net_alpha, net_beta, net_gap */
} kcal_net;

/* The network keys of prm: 0 with *net filled, or -1 when net_alpha or
 * net_beta is absent (kcal probe --network measures them; nothing is
 * guessed). */
int kcal_net_get(const kcal_params *prm, kcal_net *net);

/* One row. node NULL: the MPI library's flat collective ("mpi_flat"). */
typedef struct {
    const kcal_algorithm *node; /* the node step's algorithm */
    int k;                      /* its k (0 where it takes none) */
    double seconds;
    kcal_terms node_terms; /* the node steps (allgather: its node allgather
                            * and the bcast of the other nodes' blocks;
                            * mpi_flat: its messages inside a node) */
    double net_startup;    /* net_alpha and net_gap terms */
    double net_copy;       /* net_beta terms */
    int overlap;           /* 1: seconds = max(node, network) (alltoall),
                            * else their sum */
    int rank;
} kcal_tl_prediction;

/* Whether (p, ppn) is a layout the rows model: 1 <= ppn < p, p a multiple
 * of ppn. */
int kcal_two_level_layout_ok(long p, long ppn);

/* One row at (p, ppn, n); node NULL for mpi_flat, else an algorithm of c
 * with a k valid at ppn (any k at ppn = 1: the node step is a local copy).
 * Fills *out (may be NULL) and returns its seconds (inf or NaN when the
 * params overflow), or -1 on bad arguments. */
double kcal_two_level_time(kcal_model_kind model, const kcal_params *prm,
                           const kcal_net *net, kcal_coll c,
                           const kcal_algorithm *node, int k, int p, int ppn,
                           uint64_t n, int in_place, kcal_tl_prediction *out);

/* Every row: two_level with each of c's algorithms as the node step (every
 * k of 2..ppn−1, or only only_k; ring_neighbor j = 1), then mpi_flat; ranked
 * fastest first, equal times sharing a rank (ties keep that order). *out is
 * malloc'ed; returns the count, or -1 (bad arguments, out of memory). */
long kcal_two_level_rank(kcal_model_kind model, const kcal_params *prm,
                         const kcal_net *net, kcal_coll c, int p, int ppn,
                         uint64_t n, int in_place, int only_k,
                         kcal_tl_prediction **out);

/* The row's algorithm column: "two_level:<id>" or "mpi_flat". */
const char *kcal_two_level_name(const kcal_tl_prediction *pr, char *buf,
                                size_t len);

#endif
