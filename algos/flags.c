/* flags: the shared-memory control channel of the *_flags algorithms and
 * direct_split.
 *
 * Why: at p = 2 on the development machine one 8-byte MPI message costs
 * about 0.45 µs one way (half of a 0.9 µs MPI_Send/MPI_Recv round trip),
 * MPI_Allgather of 8 bytes 0.42 µs and MPI_Allreduce 0.59 µs, while a flag
 * written into shared memory is seen by a polling peer after 0.17 µs (half
 * of a 0.34 µs round trip). A CMA collective needs two synchronisations per
 * call (addresses, then completion), so below 64 KiB the MPI messages were
 * a third to a half of the whole call, and the MPI library's own eager path
 * won. This is the scheme of Open MPI's coll/xhc (XHC paper, Section
 * III-E): every process owns one slot, only its owner writes it (no atomic
 * read-modify-write, no lock), the others poll it; slots are 128 bytes
 * apart so no two owners share a cache line or an adjacent-line prefetch
 * pair.
 *
 * The slots live in an MPI-3 shared window (MPI_Win_allocate_shared) on the
 * communicator's private communicator, made on the first call of an algorithm
 * that needs it (collectively: every process runs the same algorithm) and
 * freed with the communicator's state.
 *
 * A slot holds, for the call with sequence number seq (kcoll_comm.seq, the
 * same on every process):
 *   post   = seq once the owner's address for this call is in addr[seq & 1]
 *            (and, for a v-collective, its block's bytes in count[seq & 1])
 *   done   = 2·seq + failed once the owner's part of the call is done
 * and after the p slots, one inbox per pair (kcoll_inbox below).
 * The address is double-buffered by the parity of seq: a process may post
 * the next call's address while a slow peer still reads this one's. Waiting
 * spins on the word with `pause`, and yields the core (sched_yield) after a
 * while, at once when the node runs more processes than it has cores, so an
 * oversubscribed peer can run. */
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "algos/kcoll_impl.h"

struct kcoll_flag_slot {
    _Atomic uint64_t post;
    _Atomic uint64_t done;
    uint64_t addr[2];
    /* copy_in_out (all five collectives): seq << 24 | chunks
     * this process has copied into its staging area or out of another's,
     * in the call with sequence number seq; KCOLL_PROGRESS_DONE when its
     * part is done. */
    _Atomic uint64_t progress;
    uint64_t count[2];
    char pad[64 - 7 * sizeof(uint64_t)];
    /* The second line: the chunk counter of the owner's block (the *_split
     * algorithms), which two processes update, kept off the line the
     * others poll. */
    _Atomic uint64_t claim;
    char pad2[64 - sizeof(uint64_t)];
};

_Static_assert(sizeof(struct kcoll_flag_slot) == 128,
               "a slot is two cache lines");

/* The inbox of one pair (root, peer): a letter from that root to that
 * peer (the split v-collectives, vrooted.c: where the peer's block is at
 * the root, its bytes, whether the root helps), double-buffered by the
 * parity of seq as a slot's addr is; seq[h] is the call of the letter in
 * half h. One box per pair, not per peer: only that root writes it, so
 * the box's half holds the call it waits for or an older one, never a
 * later one (a peer's box written by whichever process is root let a root
 * two calls ahead land its letter where the peer, still a call behind,
 * took it for its own: 3 processes, sparse counts). One line per pair:
 * p^2 lines after the slots, so only up to KCOLL_INBOX_MAX_P processes
 * (64: 256 KiB). */
struct kcoll_inbox {
    _Atomic uint64_t seq[2];
    uint64_t addr[2], count[2], help[2];
};

_Static_assert(sizeof(struct kcoll_inbox) == 64, "a box is one line");

int kcoll_flags_get(kcoll_comm *c)
{
    if (c->flags)
        return MPI_SUCCESS;
    MPI_Aint p = c->size;
    MPI_Aint boxes = p <= KCOLL_INBOX_MAX_P ? p * p : 0;
    MPI_Aint size = c->rank == 0 ? p * (MPI_Aint)sizeof(kcoll_flag_slot) +
                                       boxes * (MPI_Aint)sizeof(kcoll_inbox)
                                 : 0;
    void *mine = NULL;
    KCOLL_TRY(MPI_Win_allocate_shared(size, (int)sizeof(kcoll_flag_slot),
                                      MPI_INFO_NULL, c->comm, &mine,
                                      &c->flag_win));
    MPI_Aint got = 0;
    int disp = 0;
    void *base = NULL;
    int rc = MPI_Win_shared_query(c->flag_win, 0, &got, &disp, &base);
    if (rc == MPI_SUCCESS && c->rank == 0)
        memset(base, 0, (size_t)got);
    /* Every slot is zero before anyone polls one. */
    if (rc == MPI_SUCCESS)
        rc = MPI_Barrier(c->comm);
    if (rc != MPI_SUCCESS) {
        MPI_Win_free(&c->flag_win);
        return rc;
    }
    /* Oversubscribed: this communicator alone, or with the others that
     * share the node (a virtual node's neighbours, KCOLL_VIRTUAL_NODES). */
    c->flag_yield = kcoll_oversubscribed(c);
    c->flags = base;
    c->inbox = boxes ? (kcoll_inbox *)((kcoll_flag_slot *)base + p) : NULL;
    return MPI_SUCCESS;
}

void kcoll_flags_free(kcoll_comm *c, int finalizing)
{
    if (c->flags && !finalizing)
        MPI_Win_free(&c->flag_win);
    c->flags = NULL;
    c->inbox = NULL;
}

/* Spin until *w >= want; acquire, so what the owner wrote before its
 * release store is visible after. */
static uint64_t wait_ge(const kcoll_comm *c, _Atomic uint64_t *w,
                        uint64_t want)
{
    unsigned spins = 0;
    uint64_t v;
    while ((v = atomic_load_explicit(w, memory_order_acquire)) < want) {
        /* Spin a few thousand pauses (tens of µs: a copy of a few hundred
         * KiB) before giving the core away; oversubscribed, at once. */
        if (c->flag_yield || ++spins > 4096) {
            sched_yield();
            spins = c->flag_yield ? 0 : 4000;
        } else {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
        }
    }
    return v;
}

void kcoll_flag_post(kcoll_comm *c, uint64_t addr)
{
    kcoll_flag_slot *s = &c->flags[c->rank];
    s->addr[c->seq & 1] = addr;
    atomic_store_explicit(&s->post, c->seq, memory_order_release);
}

uint64_t kcoll_flag_wait_post(kcoll_comm *c, int r)
{
    kcoll_flag_slot *s = &c->flags[r];
    wait_ge(c, &s->post, c->seq);
    return s->addr[c->seq & 1];
}

void kcoll_flag_post_block(kcoll_comm *c, uint64_t addr, uint64_t count)
{
    c->flags[c->rank].count[c->seq & 1] = count;
    kcoll_flag_post(c, addr); /* its release publishes the count too */
}

uint64_t kcoll_flag_wait_block(kcoll_comm *c, int r, uint64_t *count)
{
    uint64_t addr = kcoll_flag_wait_post(c, r);
    *count = c->flags[r].count[c->seq & 1];
    return addr;
}

void kcoll_flag_done(kcoll_comm *c, int failed)
{
    atomic_store_explicit(&c->flags[c->rank].done,
                          2 * (uint64_t)c->seq + (failed != 0),
                          memory_order_release);
}

int kcoll_flag_wait_done(kcoll_comm *c, int r)
{
    uint64_t v = wait_ge(c, &c->flags[r].done, 2 * (uint64_t)c->seq);
    /* Only this call's failure counts; r cannot be a call ahead here (it
     * waits for this process before its next done), but a later word
     * would say nothing about this call. */
    return v == 2 * (uint64_t)c->seq + 1;
}

/* The counter holds, from the top, the low 24 bits of the call's sequence
 * number, how many chunks were taken from the front (the owner's end) and
 * how many from the back (the helper's), 20 bits each. A counter last used
 * by an earlier call reads as nothing taken in this one, so it is never
 * reset. Every claimant of rank r's block in call seq is done claiming
 * before r's next call starts (r waits for the helper's done flag first),
 * so a counter never holds a later call's number while this one claims.
 * Why two ends: a chunk copied by the same core call after call finds its
 * destination lines in that core's cache; claimed in one order by both,
 * a chunk's copier changed from call to call and paid a transfer of the
 * lines the other core had written (kcal probe's dirty_beta). */
#define KCOLL_CLAIM_BITS 20
#define KCOLL_CLAIM_MASK (((uint64_t)1 << KCOLL_CLAIM_BITS) - 1)

uint64_t kcoll_flag_claim(kcoll_comm *c, int r, uint64_t chunks, int back)
{
    _Atomic uint64_t *w = &c->flags[r].claim;
    uint64_t tag = (c->seq & 0xffffffu) << (2 * KCOLL_CLAIM_BITS);
    uint64_t v = atomic_load_explicit(w, memory_order_relaxed);
    for (;;) {
        int ours = (v >> (2 * KCOLL_CLAIM_BITS)) << (2 * KCOLL_CLAIM_BITS) ==
                   tag;
        uint64_t front = ours ? (v >> KCOLL_CLAIM_BITS) & KCOLL_CLAIM_MASK : 0;
        uint64_t tail = ours ? v & KCOLL_CLAIM_MASK : 0;
        if (front + tail >= chunks)
            return chunks;
        uint64_t next = tag | (front + !back) << KCOLL_CLAIM_BITS |
                        (tail + !!back);
        /* Relaxed is enough: the chunk's bytes move by system calls, and
         * their completion is published through the done flags. */
        if (atomic_compare_exchange_weak_explicit(w, &v, next,
                                                  memory_order_relaxed,
                                                  memory_order_relaxed))
            return back ? chunks - 1 - tail : front;
    }
}

/* Only the owner writes its progress word, and only upwards: seq grows
 * from call to call and the count within one. */
void kcoll_flag_progress(kcoll_comm *c, uint64_t count)
{
    atomic_store_explicit(&c->flags[c->rank].progress,
                          c->seq << KCOLL_PROGRESS_BITS | count,
                          memory_order_release);
}

void kcoll_flag_wait_progress(kcoll_comm *c, int r, uint64_t seq,
                              uint64_t count)
{
    wait_ge(c, &c->flags[r].progress, seq << KCOLL_PROGRESS_BITS | count);
}

/* A letter into this root's box for r, the half of this call. That
 * half last held this root's letter of call s_old; r read it before it
 * posted in s_old (its acknowledgement), and any later post of r's means
 * it left s_old. */
void kcoll_flag_send_inbox(kcoll_comm *c, int r, uint64_t addr,
                           uint64_t count, uint64_t help)
{
    kcoll_inbox *b = &c->inbox[(size_t)c->rank * (size_t)c->size + (size_t)r];
    unsigned h = c->seq & 1;
    uint64_t old = atomic_load_explicit(&b->seq[h], memory_order_relaxed);
    if (old)
        wait_ge(c, &c->flags[r].post, old);
    b->addr[h] = addr;
    b->count[h] = count;
    b->help[h] = help;
    atomic_store_explicit(&b->seq[h], c->seq, memory_order_release);
}

uint64_t kcoll_flag_wait_inbox(kcoll_comm *c, int root, uint64_t *count,
                               uint64_t *help)
{
    kcoll_inbox *b =
        &c->inbox[(size_t)root * (size_t)c->size + (size_t)c->rank];
    unsigned h = c->seq & 1;
    wait_ge(c, &b->seq[h], c->seq);
    *count = b->count[h];
    *help = b->help[h];
    return b->addr[h];
}
