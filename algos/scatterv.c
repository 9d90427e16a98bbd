/* scatterv: the root's block r (sendcounts[r] bytes at sendbuf +
 * displs[r]) lands in rank r's recvbuf. Costs as model.md's scatter rows
 * with n_r per pair, X(n) = α + n·β (model.md "Irregular collectives"):
 *
 *   parallel_read     T_addr + max_r (X(n_r) + l·pages(n_r)), the p − 1
 *     reads contending on the root's memory: the root sends each reader
 *     the address of its block (one message each), every reader copies
 *     its block with process_vm_readv at once and says done; the root
 *     returns when every reader has. With `below` (algorithm NULL) a
 *     block shorter than the measured crossover goes as one MPI message
 *     instead: the pair decides alike, as both ends know the count.
 *   sequential_write  Σ_r (X(n_r) + l·pages(n_r)) at the root: each rank
 *     sends the root its receive address, the root writes the blocks one
 *     after another (no contention) and tells each rank it is done.
 *   parallel_read_split  the regular row's t_split with n_r per pair:
 *     parallel_read with the root's idle time put to work: each reader
 *     reads its block's chunks (kcal_model_split_chunk) from the front
 *     while the root, its own block copied, writes the chunks still left
 *     from the back, reader after reader, the two ends sharing the
 *     block's counter in the node's control slots (flags.c); both say
 *     done by message. Under skewed counts the one large block is copied
 *     by two cores. A communicator over several nodes runs parallel_read.
 *   throttled_read:w  the lane of w that ends last, Σ over its pairs of
 *     (X(n_r) + l·γ(w)·pages(n_r)) (the paper's throttled scatter,
 *     Section IV-A3, with a size per pair): parallel_read with at most w
 *     readers at once, 1 <= w <= p − 1. The paper passes a token from
 *     reader to reader; here a reader knows only its own count, not which
 *     others read by CMA, so the root keeps the window: it sends the next
 *     reader in its order (root + 1, ...) its address whenever a done
 *     arrives, and a long block holds one lane while the short ones pass
 *     through the others. Only the root knows w (named without one: the
 *     model's k for scatter's throttled_read at the mean block).
 *   copy_in_out  Σ_r n_r·T_memcpy(1) at the root for the blocks of at
 *     most 16 KiB − 64 B (KCAL_V_SLOT_BLOCK), plus parallel_read for
 *     the larger: the root copies them into its staging area one after
 *     another, each rank copies its own out as soon as it is flagged
 *     (vstaged.c; no system call, no message). Across nodes:
 *     parallel_read.
 * All run vrooted.c's protocols with the data going out of the root. */
#include "algos/irregular.h"

int kcoll_scatterv_parallel_read(kcoll_comm *c, const kcoll_vargs *a)
{
    return kcoll_v_rooted_parallel(c, a, 1);
}

int kcoll_scatterv_sequential_write(kcoll_comm *c, const kcoll_vargs *a)
{
    return kcoll_v_rooted_sequential(c, a, 1);
}

int kcoll_scatterv_parallel_read_split(kcoll_comm *c, const kcoll_vargs *a)
{
    return kcoll_v_rooted_split(c, a, 1);
}

int kcoll_scatterv_throttled_read(kcoll_comm *c, const kcoll_vargs *a)
{
    return kcoll_v_rooted_window(c, a, 1);
}

int kcoll_scatterv_copy_in_out(kcoll_comm *c, const kcoll_vargs *a)
{
    return kcoll_v_rooted_copy_in_out(c, a, 1);
}
