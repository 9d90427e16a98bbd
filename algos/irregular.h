/* irregular: what the v-collectives' files share (not installed): the
 * arguments of one call as their algorithms see them, the algorithms'
 * prototypes (from algos/irregular.def), their argument resolution
 * (vargs.c) and the point-to-point steps of the pairs that go as MPI
 * messages (vsteps.c).
 *
 * Every count and displacement is in bytes. irregular.c has already
 * resolved MPI_IN_PLACE and overlapping receive regions: an algorithm's
 * sendbuf is a real buffer (the set-aside copy, or the own block in
 * recvbuf), and in_place only says the own block is already where it
 * belongs. */
#ifndef KCOLL_IRREGULAR_H
#define KCOLL_IRREGULAR_H

#include "algos/kcoll_impl.h"
#include "model/irregular.h"

typedef enum {
#define KCOLL_VCOLL(ID, name, REGULAR) KCOLL_VCOLL_##ID,
#include "algos/irregular.def"
    KCOLL_VCOLL_COUNT
} kcoll_vcoll;

typedef struct {
    const char *sendbuf;
    const size_t *scounts, *sdispls; /* the p-block send side, or NULL */
    size_t scount;                   /* the one-block send side */
    char *recvbuf;
    const size_t *rcounts, *rdispls; /* the p-block receive side, or NULL */
    size_t rcount;                   /* the one-block receive side */
    int root;
    int in_place; /* the own block is already in place */
    /* Each rank's pid where CMA reaches it (this node's processes), 0
     * where it does not (another node, a node where CMA is forbidden):
     * such a pair goes as MPI messages whatever its size. */
    const pid_t *pids;
    /* A pair whose block is shorter than this goes as one MPI message on
     * the private communicator instead of a CMA copy (0: every pair by
     * CMA): algorithm NULL's per-pair hand-off, which both ends of a pair
     * decide alike from the count they both know. */
    uint64_t below;
    /* The *_split rows (vrooted.c): 0, the row was named: the root helps
     * every pair. Else (NULL) the root helps a pair whose block is at
     * least this and at least twice its own block, and runs the others
     * as the plain parallel row's pairs; it says which in its address
     * message, so only the root decides. */
    uint64_t split_from;
    /* The windowed rows (throttled_read, throttled_write), at the root:
     * at most this many peers copy at once (1 .. p − 1; vrooted.c). */
    int window;
    /* scatterv's, gatherv's and alltoallv's staged pairs (vstaged.c): a pair whose
     * block is staged_from .. staged_to bytes, on one node, goes through
     * the staging areas (0 .. 0: none); staged: they have gone this
     * call, and the root's counts now say 0 for them. */
    uint64_t staged_from, staged_to;
    int staged;
} kcoll_vargs;

/* The rule, one of the three help policies NULL's root measures
 * (vhelp.h), and the one it keeps on a tie: the smallest helped block.
 * Why the root's own block decides: at
 * p = 2 on the Zen 5 guest (scripts/bench-irregular, 2026-11-28) the
 * help won 1.2-1.9x with skew:16 from 8K mean blocks (a 128K block for
 * the one large pair) and lost 15-35 % for scatterv with uniform counts
 * at 64K to 1M, where the root's own copy keeps it as busy as its peer;
 * the model (t_split) ranked the help first from 128K there, uniform or
 * not. Below 128K it lost: at 4K mean blocks with skew:16 (the large
 * block 64K) NULL with the help ran at 0.82-0.88x the MPI library where
 * the plain pair ran at 0.94-0.96x, in three launches of three. */
#define KCOLL_V_HELP_MIN 131072

typedef int (*kcoll_valgorithm_fn)(kcoll_comm *c, const kcoll_vargs *a);

#define KCOLL_VALGORITHM(VCOLL, id, fn, ...)                                 \
    int fn(kcoll_comm *c, const kcoll_vargs *a);
#include "algos/irregular.def"

/* The rooted v-collectives' three protocols (vrooted.c), `out` 1 where
 * the data go out of the root (scatterv), 0 where they come into it
 * (gatherv): the root's peers copying at once by CMA (parallel), the
 * root copying their blocks one after another (sequential), the peers
 * copying at once while the root, its own block done, takes chunks of
 * theirs from the other end (split), or at most a window of them at
 * once (window). */
int kcoll_v_rooted_parallel(kcoll_comm *c, const kcoll_vargs *a, int out);
int kcoll_v_rooted_sequential(kcoll_comm *c, const kcoll_vargs *a, int out);
int kcoll_v_rooted_split(kcoll_comm *c, const kcoll_vargs *a, int out);
/* The parallel protocol with at most a->window peers copying at once:
 * the root sends the next peer its address when a done arrives. */
int kcoll_v_rooted_window(kcoll_comm *c, const kcoll_vargs *a, int out);

/* The rooted exchange where every pair of this process goes as an MPI
 * message (irregular.c's short way): the messages the protocols above
 * send for such pairs, a lone one blocking, as the MPI library's own
 * linear scatterv and gatherv send them. */
int kcoll_v_rooted_messages(kcoll_comm *c, const kcoll_vargs *a, int out);
/* alltoallv's (alltoallv.c). */
int kcoll_alltoallv_messages(kcoll_comm *c, const kcoll_vargs *a);

/* Tags of the v-collectives' messages in the current call (kcoll_tag). */
enum { KCOLL_VTAG_DATA = 1, KCOLL_VTAG_ADDR, KCOLL_VTAG_DONE };

/* One pair's control message: where the block is (or goes) in the peer,
 * its bytes as the peer counts them, and a status (1: the peer's copy or
 * its counts were bad). */
typedef struct {
    uint64_t addr, count, status;
} kcoll_vmsg;

/* Whether the block of n bytes between this rank and `peer` moves as an
 * MPI message (0 < n < below, or CMA does not reach the peer), by CMA or
 * not at all (0). Both ends decide alike: they know n and whether they
 * share a node where CMA works. */
static inline int kcoll_v_by_message(const kcoll_vargs *a, int peer,
                                     size_t n)
{
    return n > 0 && (n < a->below || !a->pids[peer]);
}

/* Argument resolution (vargs.c). A call's own arrays (packed
 * displacements of a substitute receive buffer), freed at its end. */
typedef struct {
    size_t *displs;
    char *buf;
} kcoll_vspare;

void kcoll_vspare_free(kcoll_vspare *s);
/* Packed displacements of the p counts into *displs (malloc'ed); their
 * total in *total; MPI_ERR_COUNT on overflow. */
int kcoll_v_packed(const size_t *counts, int p, size_t **displs,
                   size_t *total);
/* Receive regions of a that overlap (or overflow): this process receives
 * into a packed scratch buffer in *s instead, its recvbuf untouched, and
 * *bad becomes MPI_ERR_ARG, to return after taking part. */
/* Whether the pair's block of n bytes goes through the staging areas
 * (vstaged.c): both ends decide alike from the count they both know. */
static inline int kcoll_v_staged(const kcoll_vargs *a, int peer, size_t n)
{
    return n > 0 && n >= a->staged_from && n <= a->staged_to &&
           a->pids[peer];
}

/* The staged pairs of a scatterv (out 1) or gatherv (out 0) call, first
 * (vstaged.c): a peer whose pair is staged copies it and is done (*rest
 * 0); the root copies its staged pairs, then points a's counts at a copy
 * that says 0 for them (*rest 1: the row runs for the others and the own
 * block). The staging areas and the flags must exist on every process
 * (kcoll_staging_ready, collective): only some processes come here.
 * a->staged_to 0 or a->staged set: nothing to do, *rest 1. */
int kcoll_v_rooted_stage(kcoll_comm *c, kcoll_vargs *a, int out, int *rest);
/* The copy_in_out rows: every pair of at most KCAL_V_SLOT_BLOCK
 * bytes (model/irregular.h) staged, the others as the parallel row's
 * pairs. */
int kcoll_v_rooted_copy_in_out(kcoll_comm *c, const kcoll_vargs *a, int out);
/* alltoallv's staged pairs (vstaged.c), first: this rank's staged blocks
 * out and in, then a's counts point at copies that say 0 for them; the
 * pairwise row or the messages run the rest and the own block. Where
 * p − 1 > KCAL_STAGING_SLOTS nothing is staged. Same preconditions as
 * kcoll_v_rooted_stage. */
int kcoll_alltoallv_stage(kcoll_comm *c, kcoll_vargs *a);
/* Whether alltoallv stages at p processes: only where no slot is used
 * twice in a call (vstaged.c says why). */
static inline int kcoll_alltoallv_stages(int p)
{
    return p - 1 <= (int)KCAL_STAGING_SLOTS;
}

int kcoll_v_divert(kcoll_vargs *a, int p, kcoll_vspare *s, int *bad);

/* The point-to-point steps (vsteps.c). */
/* A call's working arrays, kept with the communicator between calls:
 * at least len bytes of slot `which` (one array of each kind at a time;
 * NULL out of memory). */
enum {
    KCOLL_VWORK_REQ,
    KCOLL_VWORK_MSG,
    KCOLL_VWORK_INT,
    KCOLL_VWORK_COUNTS, /* the root's counts without its staged pairs */
    KCOLL_VWORK_COUNT
};
_Static_assert(KCOLL_VWORK_COUNT == KCOLL_VWORK_SLOTS,
               "kcoll_comm.vwork holds one array per KCOLL_VWORK_*");
void *kcoll_v_work(kcoll_comm *c, int which, size_t len);

/* Non-blocking sends and receives of one call, waited for together (the
 * requests in c's KCOLL_VWORK_REQ array: one set at a time). */
typedef struct {
    MPI_Request *req;
    MPI_Status *st;
    int *want; /* a data receive's bytes, to check; -1: nothing to check */
    int n, cap;
} kcoll_vreqs;

int kcoll_vreqs_init(kcoll_comm *c, kcoll_vreqs *r, int cap);
/* MPI_Isend / MPI_Irecv of len bytes with the call's tag of `phase`. */
int kcoll_vreqs_send(kcoll_comm *c, kcoll_vreqs *r, const void *buf,
                     size_t len, int peer, int phase);
int kcoll_vreqs_recv(kcoll_comm *c, kcoll_vreqs *r, void *buf, size_t len,
                     int peer, int phase);
/* Waits for every request, also after one failed (a request left
 * pending would write into the next call's arrays); returns rc if it is
 * an error, else the first failure: a request's, or MPI_ERR_TRUNCATE for
 * a data message shorter than its receive (MPI reports a longer one). */
int kcoll_vreqs_finish(kcoll_vreqs *r, int rc);

/* Blocking data messages (the call's KCOLL_VTAG_DATA tag), for a process
 * whose pairs all go as messages: one pair's block sent or received, or
 * one sent to `to` while one comes from `from` (MPI_Sendrecv). A block
 * received shorter than expected is MPI_ERR_TRUNCATE. */
int kcoll_v_message(kcoll_comm *c, void *buf, size_t n, int peer, int send);
int kcoll_v_swap(kcoll_comm *c, const void *out, size_t n_out, int to,
                 void *in, size_t n_in, int from);

/* A read of msg->count bytes into `to` (want bytes expected): a count
 * that differs is MPI_ERR_TRUNCATE, a failed copy sets *status. */
int kcoll_v_read(const kcoll_vargs *a, int peer, const kcoll_vmsg *msg,
                 void *to, size_t want, int *status);

#endif
