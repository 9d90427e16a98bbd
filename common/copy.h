/* copy: the local copy every kcal and libkcoll path makes (a process's own
 * block, a buffer set aside, the memcpy rate kcal probe measures and the
 * bench's `limit` row counts).
 *
 * One memcpy of a large block can be slower than the same bytes copied in
 * pieces, because glibc picks its copy loop by size: on AMD it stops using
 * `rep movsb` above the L2 size (glibc's rep_movsb_stop_threshold) and runs
 * a vector loop there, which on the Zen 5 guest of docs/machine.md is
 * 11-23 % slower from 1 MiB to 16 MiB (scripts/bench-copy). Open MPI's
 * datatype engine copies contiguous data in 128 KiB blocks
 * (opal_datatype_memcpy_block_size) and so never meets that loop; that was
 * most of why its MPI_Alltoall beat libkcoll's at 4-8 MiB (issue 8). The
 * block is far below any L2 and far above the size where a call costs
 * anything, so it holds on machines where glibc never switches too. */
#ifndef KCAL_COPY_H
#define KCAL_COPY_H

#include <stddef.h>

/* The block size of kcal_copy (bytes). */
#define KCAL_COPY_BLOCK ((size_t)128 * 1024)

/* memcpy(dst, src, n) in KCAL_COPY_BLOCK pieces; the areas must not overlap. */
void kcal_copy(void *dst, const void *src, size_t n);

#endif
