/* vkey: the size class every rank of a per-pair v-collective's NULL call
 * verifies it in (scatterv, gatherv, alltoallv; not installed).
 *
 * The verified choice (verify.h) keeps a decision per size class, and
 * every rank must take the same class on the same call, or ranks run
 * different protocols and wait for each other for ever. allgatherv's
 * ranks all know every count (its class is its largest block's), but a
 * scatterv's non-root knows only its own block, an alltoallv's rank only
 * its row and column. So the class is agreed, and the agreement is
 * reused across calls:
 *   key     the largest block any rank moves to or from another rank,
 *           as one MAX reduction found it at the last agreement;
 *   agree   at NULL calls every rank counts alike (calls of this
 *           v-collective on this communicator that go to the verified
 *           choice): the first, then 1, 2, 4, ... calls apart, doubling up
 *           to KCOLL_VKEY_EVERY calls or KCOLL_VKEY_SPAN seconds of the
 *           key's decided calls (its time, agreed: verify.h), whichever
 *           is fewer, and from one call apart again once an agreement
 *           finds the key moved or a rank's own largest block changed
 *           since the last one (the reduction carries both).
 * So a steady program pays one two-word reduction (a 16-byte
 * MPI_Allreduce: a median of 0.82 us at p = 2 on the Zen 3 guest, Open
 * MPI) per KCOLL_VKEY_SPAN of its calls or per KCOLL_VKEY_EVERY calls
 * (at least 0.4 us each): about 0.2 %; and one that changes its
 * distribution is followed within that span, or within a call where a
 * call takes longer. Why the span: at 4 MiB mean blocks with skew:16 a
 * call takes 8 ms, and a count alone left a key gone stale for up to
 * 1024 of them, seconds; an exploration of the new class then ran
 * inside kcal bench's timed calls (auto 1.05x the MPI library against
 * 1.8x, scripts/bench-irregular on the Zen 3 guest, 2026-12-03).
 * Between agreements a call runs the key's
 * decision whatever its own counts: every candidate moves any counts
 * right (its pairs decide alike at both ends), so a stale key costs
 * time, never a wrong result or a mismatch. */
#ifndef KCOLL_VKEY_H
#define KCOLL_VKEY_H

#include <stdint.h>

#include "algos/kcoll_impl.h"

#define KCOLL_VKEY_EVERY 1024   /* calls between agreements, at most */
#define KCOLL_VKEY_SPAN 500e-6  /* ... and decided calls' seconds */

/* This process's largest block to or from another rank in a call of
 * v-collective v (irregular.def's order) where it is rank me of p: a
 * rooted call's root its p-block side, its peer its one block, alltoallv
 * its row and its column; allgatherv's largest block, its own too (the
 * same on every rank: its key needs no agreement). */
uint64_t kcoll_vkey_mine(int v, const size_t *scounts, size_t scount,
                         const size_t *rcounts, size_t rcount, int root,
                         int me, int p);

/* The agreed key of this NULL call of v on c, given this process's own
 * largest block and what a call of the current key's decision costs
 * (kcoll_verify_call_time: the same on every rank; 0 unknown):
 * collective over c->comm on the calls that agree (the same calls on
 * every rank), else no message. MPI_SUCCESS or the reduction's error. */
int kcoll_vkey_agree(kcoll_comm *c, int v, uint64_t mine, double call_s,
                     uint64_t *key);

/* allgatherv's key, its largest block (every rank knows every count:
 * nothing to agree), noted for kcoll_vkey_last. */
void kcoll_vkey_note(kcoll_comm *c, int v, uint64_t key);

/* The key of v's last verified call on c (0: none yet), the same on
 * every rank: the class the benchmark and the tests describe. */
uint64_t kcoll_vkey_last(const kcoll_comm *c, int v);

#endif
