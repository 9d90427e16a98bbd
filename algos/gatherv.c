/* gatherv: rank r's block (sendcount bytes) lands at the root's recvbuf +
 * displs[r] (recvcounts[r] bytes). Costs as model.md's gather rows with
 * n_r per pair (model.md "Irregular collectives"):
 *
 *   parallel_write   T_addr + max_r (X(n_r) + l·pages(n_r)), the p − 1
 *     writes contending on the root's memory: the root sends each rank the
 *     address its block goes to, every rank writes it with
 *     process_vm_writev at once and says done (with whether its copy or
 *     its count was bad); the root returns when every rank has. With
 *     `below` (algorithm NULL) a block shorter than the measured crossover
 *     goes as one MPI message instead, decided alike at both ends.
 *   sequential_read  Σ_r (X(n_r) + l·pages(n_r)) at the root: each rank
 *     sends the root its block's address, the root reads the blocks one
 *     after another (no contention) and tells each rank it is done.
 *   parallel_write_split  the regular row's t_split with n_r per pair:
 *     parallel_write with the root's idle time put to work: each rank
 *     writes its block's chunks (kcal_model_split_chunk) from the front
 *     while the root, its own block copied, reads the chunks still left
 *     from the back, rank after rank, the two ends sharing the block's
 *     counter in the node's control slots (flags.c); both say done by
 *     message. Under skewed counts the one large block is copied by two
 *     cores. A communicator over several nodes runs parallel_write.
 *   throttled_write:w  the lane of w that ends last, Σ over its pairs of
 *     (X(n_r) + l·γ(w)·pages(n_r)) (the paper's throttled gather, Section
 *     IV-B, with a size per pair): parallel_write with at most w ranks
 *     writing at once, 1 <= w <= p − 1. The root sends the next rank in
 *     its order (root + 1, ...) its address whenever a done arrives, so
 *     a long block holds one lane while the short ones pass through the
 *     others; only the root knows w (named without one: the model's k
 *     for gather's throttled_write at the mean block).
 *   copy_in_out  Σ_r n_r·T_memcpy(1) at the root for the blocks of at
 *     most 16 KiB − 64 B (KCAL_V_SLOT_BLOCK), plus parallel_write for
 *     the larger: each such rank copies its block into its staging area
 *     and flags it, the root copies them out one after another (vstaged.c;
 *     no system call, no message). Across nodes: parallel_write.
 * All run vrooted.c's protocols with the data coming into the root. */
#include "algos/irregular.h"

int kcoll_gatherv_parallel_write(kcoll_comm *c, const kcoll_vargs *a)
{
    return kcoll_v_rooted_parallel(c, a, 0);
}

int kcoll_gatherv_sequential_read(kcoll_comm *c, const kcoll_vargs *a)
{
    return kcoll_v_rooted_sequential(c, a, 0);
}

int kcoll_gatherv_parallel_write_split(kcoll_comm *c, const kcoll_vargs *a)
{
    return kcoll_v_rooted_split(c, a, 0);
}

int kcoll_gatherv_throttled_write(kcoll_comm *c, const kcoll_vargs *a)
{
    return kcoll_v_rooted_window(c, a, 0);
}

int kcoll_gatherv_copy_in_out(kcoll_comm *c, const kcoll_vargs *a)
{
    return kcoll_v_rooted_copy_in_out(c, a, 0);
}
