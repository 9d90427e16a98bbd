/* irregular: the model of the v-collectives (docs/model.md "Irregular
 * collectives"), for `kcal predict --counts`.
 *
 * A v-collective moves a different block per pair, given as the p × p
 * matrix M of bytes (common/vcounts.h: M[s·p + d] from s to d). Each of
 * its algorithms (algos/irregular.def) is a regular algorithm with a size
 * per pair, so the model prices one pair's block of n bytes with that
 * regular row's formula (model/algorithms.def, either model) at the same
 * p: its start-up, copy and lock terms, divided among the copies the row
 * charges on its critical path, are the pair's; its synchronisation is
 * the call's, once. The pairs then add up along the algorithm's critical
 * path (irregular.def's path column), where the busiest process decides:
 * the longest pair when the root's peers copy at once (the contention of
 * p − 1 copies, as the regular row charges, even where some pairs are
 * empty), the sum over the root's pairs when it copies them in turn, the
 * lane that ends last when at most w copy at once (each pair priced with
 * the contention of w copies), the
 * largest sum over one rank's sources (allgatherv) or one column of M
 * (alltoallv). A pair of 0 bytes costs nothing: libkcoll moves nothing
 * and sends nothing for it. */
#ifndef KCAL_MODEL_IRREGULAR_H
#define KCAL_MODEL_IRREGULAR_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

typedef enum {
    KCAL_VPATH_ROOT_MAX = 0,
    KCAL_VPATH_ROOT_SUM,
    KCAL_VPATH_ROOT_WINDOW,
    KCAL_VPATH_SOURCES_SUM,
    KCAL_VPATH_COLUMN_SUM
} kcal_vpath;

/* One row of algos/irregular.def as the model sees it. */
typedef struct {
    const char *coll; /* "alltoallv" */
    const char *id;   /* "pairwise" */
    kcal_coll regular;
    const kcal_algorithm *row; /* the regular row that prices a pair */
    kcal_vpath path;
    /* The regular row that prices a pair above KCAL_V_SLOT_BLOCK, or
     * NULL: row prices every pair (irregular.def's KCOLL_VSLOT). */
    const kcal_algorithm *large;
} kcal_valgorithm;

/* Whether name is a v-collective ("scatterv" ... "alltoallv"), and the
 * list of them for messages. */
int kcal_model_is_vcoll(const char *name);
/* Its place in irregular.def's order (0 ...), or -1 for another name. */
int kcal_model_vcoll_index(const char *name);
/* The name at that place, or NULL out of range. */
const char *kcal_model_vcoll_name(int index);
const char *kcal_model_vcoll_list(void);

/* The rows of v-collective `name` in irregular.def's order (*n of them),
 * or NULL for a name that is none. */
const kcal_valgorithm *kcal_model_valgorithms(const char *name, size_t *n);

/* The blocks the collective uses of M (vcounts.h says which): into b
 * (p·p entries, 0 where unused), so a prediction and a benchmark read
 * the same ones. */
void kcal_model_vblocks(kcal_coll regular, int p, const uint64_t *m,
                        uint64_t *b);

/* Whether a takes a window w (the ROOT_WINDOW rows: "id:w", w copies
 * at once, 1 <= w <= p − 1). */
int kcal_model_vwindowed(const kcal_valgorithm *a);

/* Predicted seconds of a at p >= 2 for the matrix m, terms split as
 * kcal_model_time's (terms may be NULL); w: a windowed row's window
 * (ignored by the others); negative for p < 2 or a window out of
 * 1..p − 1. */
double kcal_model_vtime(kcal_model_kind model, const kcal_params *prm,
                        const kcal_valgorithm *a, int p, int w,
                        const uint64_t *m, kcal_terms *terms);

/* The MPI library's row (kcal_model_mpi_time of the regular collective)
 * at the block that gives the busiest process's bytes, (its bytes moved
 * in or out) / (p − 1): -1 where the params have no such row. */
double kcal_model_vmpi_time(const kcal_params *prm, const char *vcoll, int p,
                            const uint64_t *m);

/* Where algorithm NULL stops sending a's blocks as MPI messages: the
 * smallest power of two n (64 B to 1 GiB) at which a's regular row, every
 * block n, is predicted faster than the MPI library's measured line
 * mpi_<regular>_a + mpi_<regular>_b·(p − 1)·n, read past the collective's
 * own crossover (a v-collective has no copy_in_out below it: its MPI
 * library's side is one message per pair). 0 where the params lack the
 * line; 2^30 where the row never wins below it. */
uint64_t kcal_model_vcrossover(kcal_model_kind model, const kcal_params *prm,
                               const kcal_valgorithm *a, int p);

/* The staged row's bound, whatever the model or a table says: libkcoll
 * does not verify the v-collectives' choice at run time (algos/verify.h),
 * and a copy through the staging areas passes its chunks between cores,
 * which the host can make 4-5x slower from one minute to the next (the
 * regular collectives' copy_in_out, algos/verify.h). Up to 4 KiB the MPI
 * library's own v-collective copies its blocks through shared memory too
 * (Open MPI's eager limit: bcast 0.37 -> 3.2 us at 4 KiB,
 * docs/machine.md), so the slow state costs both; above it the MPI
 * library reads by CMA once, and the staged row would risk being the
 * slower. At 256 B-4 KiB blocks, p = 2 on the Zen 4 guest, allgatherv's
 * copy_in_out ran at 1.2-4.1x the MPI library (docs/machine.md,
 * "allgatherv's copy_in_out"). */
#define KCAL_V_STAGED_MAX 4096

/* A staged block's slot in the staging areas (algos/vstaged.c): its
 * count as the writer saw it, then the block. scatterv's, gatherv's and
 * alltoallv's copy_in_out stage the blocks that fit one and run the
 * others as their large row's pairs (irregular.def's KCOLL_VSLOT), and
 * the model prices them so. */
#define KCAL_V_SLOT_HEADER 64
#define KCAL_V_SLOT_BLOCK (KCAL_STAGING_CHUNK - KCAL_V_SLOT_HEADER)
_Static_assert(KCAL_V_STAGED_MAX <= KCAL_V_SLOT_BLOCK,
               "NULL's staged range fits one slot");

/* The v-collective's staged row (algos/irregular.def's KCOLL_VSTAGED),
 * or NULL where it has none. */
const kcal_valgorithm *kcal_model_vstaged_row(const char *vcoll);

/* Where the staged row st stops winning: the smallest power of two n (64 B
 * to 1 GiB) at which the collective's first row, every block n, is
 * predicted faster than st at p (64: never slower; 0 where either row
 * cannot be priced with these params). */
uint64_t kcal_model_vstaged(kcal_model_kind model, const kcal_params *prm,
                            const kcal_valgorithm *first,
                            const kcal_valgorithm *st, int p);

#endif
