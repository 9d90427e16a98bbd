/* copy: the local copy every kcal and libkcoll path makes (a process's own
 * block, a buffer set aside, copy_in_out's chunks, the memcpy rate kcal
 * probe measures and the bench's `limit` row counts).
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

/* The page-alias penalty. On the Zen 5 guest of docs/machine.md, glibc
 * 2.36's memcpy (which uses `rep movsb` from 2112 bytes to the L2 size
 * there) moves 3 GB/s instead of 60-80 when the destination lies 1 to 31
 * bytes past the source modulo 4 KiB (dst − src ≡ 1..31 mod 4096), at
 * every size from 4 KiB to 256 KiB; a plain vector loop moves 44 GB/s
 * there (scripts/bench-copy measures both). The kernel's copy in
 * process_vm_readv has the same penalty (2.3 GB/s against 10), which
 * kcal cannot avoid for the user's buffers, but copy_in_out copies only
 * through kcal_copy: a staging slot sits at a fixed offset of its shared
 * window and a malloc'd block 16 bytes past a page (above the mmap
 * threshold) or anywhere in the heap, so whether every chunk of a call
 * pays the penalty depends on where the buffers landed.
 * So a copy whose distance modulo KCAL_COPY_ALIAS_PAGE is 1 to
 * KCAL_COPY_ALIAS_WINDOW bytes (twice the window measured, for CPUs whose
 * window is wider), and at least KCAL_COPY_ALIAS_MIN bytes long, runs the
 * vector loop instead of memcpy. */
#define KCAL_COPY_ALIAS_PAGE ((size_t)4096)
#define KCAL_COPY_ALIAS_WINDOW ((size_t)63)
#define KCAL_COPY_ALIAS_MIN ((size_t)1024)

/* Whether dst lies 1..KCAL_COPY_ALIAS_WINDOW bytes past src modulo
 * KCAL_COPY_ALIAS_PAGE: kcal_copy's vector loop (from KCAL_COPY_ALIAS_MIN
 * bytes). */
int kcal_copy_near_alias(const void *dst, const void *src);

/* The block size of kcal_copy (bytes). */
#define KCAL_COPY_BLOCK ((size_t)128 * 1024)

/* memcpy(dst, src, n) in KCAL_COPY_BLOCK pieces, or the vector loop near
 * a page alias (above); the areas must not overlap. */
void kcal_copy(void *dst, const void *src, size_t n);

#endif
