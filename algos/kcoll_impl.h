/* kcoll_impl: what the algorithm files of libkcoll share (not installed).
 *
 * - kcoll_comm (comm.c): the per-communicator state, built on the first call
 *   on a communicator and cached in an MPI attribute: a private communicator
 *   for control messages, the peers' pids by rank, whether the processes
 *   share a node and whether CMA is permitted, or, where it could not be
 *   built on some process, the mark that sends every call to the MPI
 *   library. Plus the small control messages.
 * - kcoll_cma_* (cma.c): the only place data moves between processes.
 * - kcoll_flag_* (flags.c): the shared-memory control channel (one slot
 *   per process in an MPI shared window) of the *_flags algorithms.
 * - kcoll_mpi_* (fallback.c): the MPI built-ins with byte counts > INT_MAX,
 *   used where CMA is forbidden or the model cannot choose, by the
 *   benchmark ("mpi") and by the tests.
 * - kcoll_node_* (nodes.c): which processes share a node (or a virtual
 *   node, KCOLL_VIRTUAL_NODES), and for a communicator that spans nodes its
 *   layout by node and the leaders' communicators.
 * - kcoll_two_level_run (two_level.c): the five collectives on a
 *   communicator that spans nodes, the node steps through kcoll_intra
 *   (kcoll.c), the steps between nodes through the MPI library.
 * - what a call runs and why: choice.h (and verify.h, the run-time check
 *   of libkcoll's own choice).
 * - one function per algorithm (scatter.c, gather.c, bcast.c, allgather.c,
 *   alltoall.c), named in the registry (model/algorithms.def) from which
 *   kcoll.c's dispatch table and the prototypes below are generated; the
 *   v-collectives' (scatterv.c ... alltoallv.c) in algos/irregular.def,
 *   their entry points in irregular.c, their shared steps in vargs.c and
 *   vsteps.c, declared in irregular.h.
 * Nothing here is exported from libkcoll.so (kcoll.h's KCOLL_API is); the
 * tests and the benchmark link the objects or libkcoll.a. */
#ifndef KCOLL_IMPL_H
#define KCOLL_IMPL_H

#include <limits.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <mpi.h>

#include "algos/kcoll.h"
#include "common/copy.h"
#include "model/model.h"

/* libkcoll's own calls of the collectives it implements (its control
 * messages, and the MPI built-ins of fallback.c) go to the MPI library's
 * profiling entry points. In libkcoll_pmpi.so (interpose/) the names
 * MPI_Bcast ... MPI_Alltoall, the reductions' and the v-collectives' are
 * the interposer's, which call kcoll: an MPI_Bcast of a control word there
 * would recurse into kcoll. The same in every build, so no file of libkcoll depends on who defines the MPI_
 * names; tests/interpose.sh checks that no libkcoll object still
 * references them. */
#define MPI_Bcast PMPI_Bcast
#define MPI_Scatter PMPI_Scatter
#define MPI_Gather PMPI_Gather
#define MPI_Allgather PMPI_Allgather
#define MPI_Alltoall PMPI_Alltoall
#define MPI_Reduce PMPI_Reduce
#define MPI_Allreduce PMPI_Allreduce
#define MPI_Reduce_scatter_block PMPI_Reduce_scatter_block
#define MPI_Scatterv PMPI_Scatterv
#define MPI_Gatherv PMPI_Gatherv
#define MPI_Allgatherv PMPI_Allgatherv
#define MPI_Alltoallv PMPI_Alltoallv

/* One remembered choice of the model (choice.c): for calls of `coll` with n
 * bytes and in_place, among every algorithm (only = NULL, the user's
 * algorithm NULL) or among one throttled algorithm's k. rc is
 * kcal_model_select's result (its NONFINITE verdict is remembered too). */
typedef struct {
    int used;
    kcal_coll coll;
    int rate; /* the op's rate (kcoll_red_rate), -1: reduce_beta's */
    int in_place;
    uint64_t n;
    const kcal_algorithm *only;
    int rc;
    kcal_choice choice;
} kcoll_choice_slot;

/* Direct-mapped: a slot per hash of the key; a collision recomputes. */
#define KCOLL_CHOICE_SLOTS 32

typedef struct kcoll_flag_slot kcoll_flag_slot;
typedef struct kcoll_inbox kcoll_inbox;
typedef struct kcoll_nodes kcoll_nodes;
typedef struct kcoll_verify_slot kcoll_verify_slot;

/* The v-collectives' working arrays per communicator (irregular.h's
 * KCOLL_VWORK_*). */
#define KCOLL_VWORK_SLOTS 4

/* Room per communicator for the v-collectives' state (irregular.def has
 * four; irregular.c asserts they fit). */
#define KCOLL_VCOLL_SLOTS 8

/* The domains a communicator decides in (verify.h): each collective, each
 * v-collective's slot, and each reduction (the last three collectives of
 * collectives.def) once more per op whose rate the model knows apart
 * (model/reduce_rates.def): a fold 9-35x slower than MPI_SUM on doubles
 * (the logical ops on the Zen 3 guest) may make another algorithm the
 * fastest, so its calls decide apart from the sums of the same size. */
#define KCOLL_RATE_DOMS (3 * KCAL_N_MEMBERS_REDOP)
#define KCOLL_DOMAINS (KCAL_COLL_COUNT + KCOLL_VCOLL_SLOTS + KCOLL_RATE_DOMS)

/* A per-pair v-collective's agreed size key (vkey.h): counts of its
 * verified NULL calls, the same on every rank. */
typedef struct {
    uint64_t calls;      /* calls so far */
    uint64_t next;       /* the call that agrees next (0: the first) */
    uint64_t every;      /* calls between agreements now */
    uint64_t key;        /* the agreed largest block */
    uint64_t mine;       /* this process's own at the last agreement */
    int changed;         /* this process's own has differed since */
} kcoll_vkey;

typedef struct kcoll_comm {
    MPI_Comm comm; /* private split: our control never matches users'; with
                    * no_state, the user's communicator itself */
    int rank, size;
    int no_state;    /* building the state failed on some process: every
                      * call goes to the MPI library on comm, for good (the
                      * same on every process) */
    pid_t *pids;     /* pid of each rank of the communicator */
    int spans_nodes; /* some processes do not share this node */
    MPI_Comm node;   /* spans_nodes: the processes of this one (nodes.c) */
    kcoll_nodes *nodes; /* spans_nodes: the layout, once a call needs it */
    pid_t *reach;    /* spans_nodes: each rank's pid where CMA reaches it
                      * (this node's, CMA working), else 0; made by the
                      * first v-collective (irregular.c) */
    int cma_ok;      /* a real 1-byte read worked on every process */
    uint64_t seq;    /* collective calls so far (same on every rank) */
    void *scratch;   /* temporary space of the algorithms that need it */
    size_t scratch_len;
    kcoll_flag_slot *flags; /* one slot per rank (flags.c); NULL until an
                             * algorithm needs them */
    kcoll_inbox *inbox; /* p x p pair boxes after the slots (flags.c), or
                         * NULL */
    MPI_Win flag_win;
    int flag_yield;  /* more processes than cores: yield while waiting */
    char **staging;  /* copy_in_out's shared areas by owner rank
                      * (staging.c), or NULL */
    MPI_Win staging_win;
    /* This process's last write into its own area: the call (seq, 0:
     * none) and who read it (staging_readers[r], p bytes; all of them
     * where staging_all): the next write waits for those alone. */
    uint64_t staging_wseq;
    unsigned char *staging_readers;
    int staging_all;
    /* The model's choices on this communicator, as Open MPI's coll/tuned
     * keeps its decision per communicator. No lock: collectives on one
     * communicator never run at the same time (MPI's rule). */
    kcoll_choice_slot choices[KCOLL_CHOICE_SLOTS];
    /* The verified choice's state per domain (verify.h: each collective,
     * then the v-collectives, then the reductions whose op has a rate of
     * its own): an array of slots by size class and in place, made on
     * the first NULL call. */
    kcoll_verify_slot **verify[KCOLL_DOMAINS];
    /* reduce_scatter_write's F (kcal_model_reduce_fold_per_write) per op
     * rate, kcoll_red_rate + 1: rank 0's, broadcast at the first call
     * that cuts with it, so every rank cuts alike whatever params it
     * read; 0 until then. */
    double fold_per_write[KCAL_N_MEMBERS_REDOP + 1];
    /* Per collective, the size below which algorithm NULL hands the call
     * to the MPI library (0: never), and the size classes above it that go
     * there too, once handoff_known has its bit. */
    uint64_t handoff[KCAL_COLL_COUNT];
    double handoff_mask[KCAL_COLL_COUNT]; /* mpi_<coll>_mask, 0 for none */
    unsigned handoff_known;
    /* Per v-collective (algos/irregular.def's order), what algorithm NULL
     * runs, once vbelow_known has its bit (choice.c, the same on every
     * rank): the block below which a pair goes as an MPI message; the
     * row (the v-collective's vrow-th, -1 its first) and window a
     * $KCOLL_TABLE rule names; vmpi's bit: the MPI library's whole call;
     * the largest blocks that run the staged row (choice.h's
     * kcoll_choice_irregular: vstaged_from .. vstaged_to, 0 .. 0 for
     * none). */
    uint64_t vbelow[KCOLL_VCOLL_SLOTS], vstaged_from[KCOLL_VCOLL_SLOTS],
        vstaged_to[KCOLL_VCOLL_SLOTS];
    signed char vrow[KCOLL_VCOLL_SLOTS];
    int vwindow[KCOLL_VCOLL_SLOTS];
    unsigned vbelow_known, vmpi;
    kcoll_vkey vkey[KCOLL_VCOLL_SLOTS];
    /* The v-collectives' working arrays (irregular.h's kcoll_v_work:
     * requests, messages, ints, the root's counts without its staged
     * pairs),
     * kept between calls: a malloc and free of each per call were a
     * tenth of a 1 KiB alltoallv at p = 2. */
    void *vwork[KCOLL_VWORK_SLOTS];
    size_t vwork_len[KCOLL_VWORK_SLOTS];
    /* The rooted v-collectives' measured help policy at this process as
     * a root (vhelp.c), or NULL until its first NULL call as one. */
    void *vhelp;
} kcoll_comm;

/* The state of `comm`, built collectively on the first call. MPI code.
 * A state that could not be built is not an error: *out is then marked
 * no_state (MPI_ERR_NO_MEM only when not even that could be allocated). */
int kcoll_comm_get(MPI_Comm comm, kcoll_comm **out);
/* Bumped whenever a state is freed: a state (and its verification's
 * slots) found while it had one value is still alive while it keeps it. */
unsigned long kcoll_comm_generation(void);

/* States built so far, no_state ones included: for the tests (a failed one
 * is not built again). */
extern atomic_ulong kcoll_state_builds;

/* Scratch space of at least len bytes, kept with the communicator: a fresh
 * malloc per call would hand peers new, unfaulted pages to read, so every
 * call would pay page faults the model does not have. Valid until the next
 * call on the communicator (collectives on one communicator never overlap).
 * NULL when out of memory. */
void *kcoll_scratch(kcoll_comm *c, size_t len);

/* libkcoll's call of coll on n bytes as kcoll_mpi_coll describes them
 * (algorithm as a user passes it): for the benchmark and the probe. */
int kcoll_coll_bytes(kcal_coll coll, const void *sendbuf, void *recvbuf,
                     size_t n, int root, MPI_Comm comm, const char *algorithm);

/* Tag of control messages of `phase` (< 16) in the current call: the call
 * count is in it, so a message can never match a later call's receive. */
static inline int kcoll_tag(const kcoll_comm *c, int phase)
{
    return (int)(((c->seq & 0x3ffu) << 4) | (unsigned)phase);
}

/* Control messages carry a status (0, or 1 when the sender's data is bad) so
 * a failed copy is reported by every process whose result it spoils. */
int kcoll_ctl_send(kcoll_comm *c, int dest, int tag, int status);
/* src may be MPI_ANY_SOURCE; ORs the received status into *status. */
int kcoll_ctl_recv(kcoll_comm *c, int src, int tag, int *status);
/* Same with an address and a status (address 0 when not needed). */
int kcoll_ctl_send_addr(kcoll_comm *c, int dest, int tag, uint64_t addr,
                        int status);
int kcoll_ctl_recv_addr(kcoll_comm *c, int src, int tag, uint64_t *addr,
                        int *status);
/* Non-blocking control sends, for patterns where every process sends
 * before it receives (rings, pairwise exchanges): a blocking send could wait
 * for its receiver forever under a transport without eager sends. Messages
 * are an address and a status, received with kcoll_ctl_recv_addr. */
typedef struct {
    MPI_Request *req;
    uint64_t *msg; /* 2 per request, alive until kcoll_outbox_finish */
    int n, cap;
} kcoll_outbox;

void kcoll_outbox_init(kcoll_outbox *o);
int kcoll_outbox_send(kcoll_comm *c, kcoll_outbox *o, int dest, int tag,
                      uint64_t addr, int status);
/* Waits for every send and frees the box; returns rc if it is an error. */
int kcoll_outbox_finish(kcoll_outbox *o, int rc);

/* Every process learns whether any failed: the closing synchronisation of
 * the algorithms whose model row ends with T_sm_barrier. */
int kcoll_ctl_allstatus(kcoll_comm *c, int *status);

/* MPI_Waitall of n requests, statuses ignored (n 0: MPI_SUCCESS). Use it
 * instead of MPI_Waitall(..., MPI_STATUSES_IGNORE), which MPICH's header
 * turns into a GCC warning (comm.c). */
int kcoll_waitall(int n, MPI_Request *req);

/* The shared-memory control channel (flags.c). kcoll_flags_get makes the
 * slots on the first call that needs them (collective over c->comm);
 * kcoll_flags_free releases them with the communicator's state (not while
 * MPI finalizes). Within a call (c->seq):
 *   kcoll_flag_post       publish this process's address for the call
 *                         (kcoll_flag_post_block: with a second word,
 *                         a v-collective's block bytes or a reduction's
 *                         recvbuf address);
 *   kcoll_flag_wait_post  wait for rank r's, and return it
 *                         (kcoll_flag_wait_block: the second word in
 *                         *count);
 *   kcoll_flag_done       say this process's part is done (and whether a
 *                         copy of it failed);
 *   kcoll_flag_wait_done  wait for rank r's; returns 1 when r's failed;
 *   kcoll_flag_claim      take the next of the `chunks` chunks of rank r's
 *                         block, r from the front, a helper (back = 1)
 *                         from the back: its index, or `chunks` when all
 *                         are taken (chunks < 2^20). */
int kcoll_flags_get(kcoll_comm *c);
void kcoll_flags_free(kcoll_comm *c, int finalizing);
/*   kcoll_flag_send_inbox  the call's root: a letter to rank r (where r's
 *                          block is, its bytes, whether the root helps),
 *                          once r has read this root's last one in that
 *                          half of their box (r posts after reading);
 *   kcoll_flag_wait_inbox  wait for this call's letter from root to this
 *                          process: its address, *count and *help.
 * The boxes exist (c->inbox) up to KCOLL_INBOX_MAX_P processes. */
#define KCOLL_INBOX_MAX_P 64
void kcoll_flag_send_inbox(kcoll_comm *c, int r, uint64_t addr,
                           uint64_t count, uint64_t help);
uint64_t kcoll_flag_wait_inbox(kcoll_comm *c, int root, uint64_t *count,
                               uint64_t *help);
void kcoll_flag_post(kcoll_comm *c, uint64_t addr);
uint64_t kcoll_flag_wait_post(kcoll_comm *c, int r);
void kcoll_flag_post_block(kcoll_comm *c, uint64_t addr, uint64_t count);
uint64_t kcoll_flag_wait_block(kcoll_comm *c, int r, uint64_t *count);
void kcoll_flag_done(kcoll_comm *c, int failed);
int kcoll_flag_wait_done(kcoll_comm *c, int r);
uint64_t kcoll_flag_claim(kcoll_comm *c, int r, uint64_t chunks, int back);
/* Progress through a pipeline of chunks (the copy_in_out algorithms):
 *   kcoll_flag_progress       this process has finished `count` chunks of
 *                             the current call (c->seq), or
 *                             KCOLL_PROGRESS_DONE: its part is over;
 *   kcoll_flag_wait_progress  wait until rank r has finished `count`
 *                             chunks of call `seq` (or any later call). */
#define KCOLL_PROGRESS_BITS 24
#define KCOLL_PROGRESS_DONE (((uint64_t)1 << KCOLL_PROGRESS_BITS) - 1)
void kcoll_flag_progress(kcoll_comm *c, uint64_t count);
void kcoll_flag_wait_progress(kcoll_comm *c, int r, uint64_t seq,
                              uint64_t count);
/* The staging areas of copy_in_out (staging.c): one per process, which
 * only its owner copies into, KCAL_STAGING_SLOTS slots of
 * KCAL_STAGING_CHUNK bytes in an MPI-3 shared window every process of the
 * communicator maps, made on the first call that needs them (collective
 * over c->comm, like the flags) and freed with the communicator's state.
 * A call through them:
 *   kcoll_staging_enter      every process, first: makes the flags and the
 *                            areas, *m = the chunks of an n-byte block,
 *                            MPI_ERR_COUNT when the largest progress count
 *                            the algorithm writes, m·per_chunk + extra,
 *                            does not fit;
 *   kcoll_staging_enter_rooted  scatter's and gather's enter: the root's
 *                            progress word counts one stream of the p − 1
 *                            other ranks' blocks, m chunks each, from rank
 *                            root + 1 on (scatter: the chunks it copied
 *                            in, gather: those it copied out); *first:
 *                            where this rank's block starts in it (the
 *                            root: (p − 1)·m, its end);
 *   kcoll_staging_ready      the flags and the areas alone (collective
 *                            the first time, like enter);
 *   kcoll_staging_wait_free  a process about to copy into its own area:
 *                            wait until every process that read its last
 *                            write has flagged that call DONE (or any later
 *                            call), and record this call as its write, to
 *                            be read by every process;
 *   kcoll_staging_wait_free_some  the same for a write that only some
 *                            processes read (the rooted v-collectives'
 *                            staged pairs, vstaged.c): returns the p
 *                            bytes, all 0, in which the caller marks each
 *                            reader before it flags its progress;
 *   kcoll_staging_slot       where chunk i of owner's stream goes;
 *   kcoll_staging_chunk_len  bytes of chunk i of an n-byte block (the last
 *                            may be short);
 *   kcoll_staging_drain      copy chunks first .. first + m − 1 of owner's
 *                            stream out into the n-byte block at dst, each
 *                            once owner's progress word has passed it,
 *                            and count them in this process's progress
 *                            word as done + 1 .. done + m. */
/* A pipeline of rounds through the areas (allgather's, alltoall's and the
 * reductions' copy_in_out) counts half-rounds in the progress word: round
 * i's chunk is in at KCOLL_HALF_IN(i), its reads of the others' chunk i
 * are done at KCOLL_HALF_OUT(i), which frees slot i for chunk i + SLOTS. */
#define KCOLL_HALF_IN(i) (2 * (i) + 1)
#define KCOLL_HALF_OUT(i) (2 * (i) + 2)
int kcoll_staging_get(kcoll_comm *c);
void kcoll_staging_free(kcoll_comm *c, int finalizing);
int kcoll_staging_enter(kcoll_comm *c, size_t n, uint64_t per_chunk,
                        uint64_t extra, uint64_t *m);
int kcoll_staging_enter_rooted(kcoll_comm *c, size_t n, int root,
                               uint64_t *m, uint64_t *first);
int kcoll_staging_ready(kcoll_comm *c);
void kcoll_staging_wait_free(kcoll_comm *c);
unsigned char *kcoll_staging_wait_free_some(kcoll_comm *c);
char *kcoll_staging_slot(const kcoll_comm *c, int owner, uint64_t i);
size_t kcoll_staging_chunk_len(size_t n, uint64_t i);
void kcoll_staging_drain(kcoll_comm *c, int owner, uint64_t first, uint64_t m,
                         char *dst, size_t n, uint64_t done);

static inline uint64_t kcoll_addr(const void *p)
{
    return (uint64_t)(uintptr_t)p;
}

/* One contiguous piece of a transfer: len bytes at `local` in this process
 * and at `remote` in the peer. */
typedef struct {
    void *local;
    uint64_t remote;
    size_t len;
} kcoll_seg;

/* Move every byte of every segment; loops over short transfers, batches at
 * most IOV_MAX segments per call and at most 1 GiB per call. 0 or an errno. */
int kcoll_cma_readv(pid_t pid, const kcoll_seg *segs, size_t nseg);
int kcoll_cma_writev(pid_t pid, const kcoll_seg *segs, size_t nseg);
int kcoll_cma_read(pid_t pid, void *local, uint64_t remote, size_t len);
int kcoll_cma_write(pid_t pid, const void *local, uint64_t remote, size_t len);
/* For tests: cap the bytes of one system call (0 = no cap beyond 1 GiB) so
 * the short-transfer loop runs on small buffers. */
extern size_t kcoll_cma_call_limit;

/* The MPI built-ins with MPI_BYTE semantics for any size_t n: a block above
 * INT_MAX bytes is one element of a derived type (fallback.c); n so large
 * that even its 1 GiB pieces overflow an int count is MPI_ERR_COUNT. */
int kcoll_mpi_scatter(const void *sendbuf, void *recvbuf, size_t n, int root,
                      MPI_Comm comm);
int kcoll_mpi_gather(const void *sendbuf, void *recvbuf, size_t n, int root,
                     MPI_Comm comm);
int kcoll_mpi_bcast(void *buf, size_t n, int root, MPI_Comm comm);
int kcoll_mpi_allgather(const void *sendbuf, void *recvbuf, size_t n,
                        MPI_Comm comm);
int kcoll_mpi_alltoall(const void *sendbuf, void *recvbuf, size_t n,
                       MPI_Comm comm);

/* The same as one function of the collective: n bytes per block (the
 * whole message for bcast, whose buffer is recvbuf), the (count, type) of
 * kcoll_bytes_type on both sides. A reduction's n bytes are doubles
 * summed (MPI_DOUBLE, MPI_SUM), or bytes OR'd where n is not a multiple
 * of 8 (kcoll_bytes_reduction, reduce.h): the benchmark's and the probe's
 * reductions; kcoll_coll_bytes is libkcoll's call of the same. */
int kcoll_mpi_coll(kcal_coll coll, const void *sendbuf, void *recvbuf,
                   size_t n, int root, MPI_Comm comm);
/* kcoll_mpi_coll for the five data collectives alone: kcoll_mpi_data,
 * inline below kcoll_mpi_typed. */

/* How fallback.c describes n bytes to MPI: `count` elements of `type`, with
 * type's extent n when count is 1. Up to max_count bytes: MPI_BYTE and
 * count n; above: one element made of n / piece pieces of `piece` bytes and
 * the remainder (MPI_ERR_COUNT when n / piece > max_count). Free the type
 * with kcoll_bytes_type_free. The MPI functions above use max_count =
 * INT_MAX and piece = 1 GiB; tests pass small values to reach the derived
 * type without gigabytes of memory. */
int kcoll_bytes_type(size_t n, size_t max_count, size_t piece,
                     MPI_Datatype *type, int *count);
void kcoll_bytes_type_free(MPI_Datatype *type);
/* For tests: the max_count and piece the kcoll_mpi_* functions use
 * (default INT_MAX and 1 GiB). */
extern size_t kcoll_mpi_max_count, kcoll_mpi_piece;

/* Whether kcoll_mpi_data describes n bytes as n MPI_BYTEs (else as a
 * derived type: kcoll_bytes_type, kcoll_mpi_data_derived). */
static inline int kcoll_mpi_bytes_fit(size_t n)
{
    return n <= kcoll_mpi_max_count && kcoll_mpi_max_count <= INT_MAX;
}

/* The MPI library's data collective coll on count elements of type t at
 * both ends: kcoll_mpi_data's one call, inline so that a caller whose
 * coll is a constant (kcoll.c's quiet calls) pays no switch. */
static inline __attribute__((always_inline)) int
kcoll_mpi_typed(kcal_coll coll, const void *sendbuf, void *recvbuf,
                int count, MPI_Datatype t, int root, MPI_Comm comm)
{
    switch (coll) {
    case KCAL_COLL_SCATTER:
        return MPI_Scatter(sendbuf, count, t, recvbuf, count, t, root, comm);
    case KCAL_COLL_GATHER:
        return MPI_Gather(sendbuf, count, t, recvbuf, count, t, root, comm);
    case KCAL_COLL_BCAST:
        return MPI_Bcast(recvbuf, count, t, root, comm);
    case KCAL_COLL_ALLGATHER:
        return MPI_Allgather(sendbuf, count, t, recvbuf, count, t, comm);
    case KCAL_COLL_ALLTOALL:
        return MPI_Alltoall(sendbuf, count, t, recvbuf, count, t, comm);
    default:
        return MPI_ERR_ARG;
    }
}

/* kcoll_mpi_data's case of n above kcoll_mpi_max_count: n bytes as one
 * element of a derived type (fallback.c). */
int kcoll_mpi_data_derived(kcal_coll coll, const void *sendbuf,
                           void *recvbuf, size_t n, int root, MPI_Comm comm);

/* The MPI library's data collective coll on n bytes per block. Inline:
 * a caller whose coll is a constant (kcoll.c's quiet calls) makes the
 * usual call, n MPI_BYTEs, with no switch and no frame of libkcoll's
 * (that frame was 55 of the 169 instructions libkcoll spent around a
 * quiet 1 KiB MPI_Scatter, callgrind). */
static inline __attribute__((always_inline)) int
kcoll_mpi_data(kcal_coll coll, const void *sendbuf, void *recvbuf, size_t n,
               int root, MPI_Comm comm)
{
    if (kcoll_mpi_bytes_fit(n))
        return kcoll_mpi_typed(coll, sendbuf, recvbuf, (int)n, MPI_BYTE, root,
                               comm);
    return kcoll_mpi_data_derived(coll, sendbuf, recvbuf, n, root, comm);
}

/* Arguments of one call as the algorithms see them. For bcast the buffer is
 * recvbuf. k is the parameter after the colon (0 when none). The
 * reductions' (algos/reduce.h) also carry the elements' type, op and size:
 * n is then the vector's bytes (reduce, allreduce) or one rank's block
 * (reduce_scatter_block), a multiple of esize. */
typedef struct {
    const void *sendbuf;
    void *recvbuf;
    size_t n;
    int root;
    int k;
    MPI_Datatype type;
    MPI_Op op;
    size_t esize;
} kcoll_args;

typedef int (*kcoll_algorithm_fn)(kcoll_comm *c, const kcoll_args *a);

/* One per registry row: int kcoll_<coll>_<id>(kcoll_comm *, const kcoll_args *). */
#define KCAL_ALGORITHM(coll, id, kind, fn, ...)                              \
    int fn(kcoll_comm *c, const kcoll_args *a);
#include "model/algorithms.def"

/* Nodes (nodes.c). kcoll_node_split: the processes of comm that share
 * this node (MPI_COMM_TYPE_SHARED), cut further into virtual nodes of
 * KCOLL_VIRTUAL_NODES consecutive MPI_COMM_WORLD ranks when that is set;
 * ranks in comm's order. Collective over comm. kcoll_nodes_free: the
 * layout and communicators kept for c (not freed while MPI finalizes). */
int kcoll_node_split(MPI_Comm comm, MPI_Comm *node);
/* The most processes of one communicator that kcoll_node_split has seen
 * share this real node (0 before the first): a node communicator smaller
 * than that, such as a virtual node, is not alone on the cores. */
int kcoll_node_procs(void);
/* More processes on c's node than it has cores (c alone, or with the
 * other communicators kcoll_node_split has seen there): every wait is a
 * time slice. The same on every rank of a one-node c. */
int kcoll_oversubscribed(const kcoll_comm *c);
void kcoll_nodes_free(kcoll_comm *c, int finalizing);

/* What a node step ran, for the KCOLL_STATS record of a two-level call:
 * the id (or "mpi") and k of kcoll.c's record, and the node's size. */
typedef struct {
    const char *name;
    int k, p;
} kcoll_ran;

/* One call of coll on the node communicator `node` through libkcoll's own
 * path (the public entry point's, without its stats record): algorithm as
 * a user passes it (NULL: the model's choice at the node's size). For bcast
 * the buffer is a->recvbuf. *ran (may be NULL) gets what it ran. */
int kcoll_intra(kcal_coll coll, MPI_Comm node, const char *algorithm,
                const kcoll_args *a, kcoll_ran *ran);

/* A call of coll on c, which spans nodes (two_level.c): alg and a->k are
 * the user's (alg NULL, or k < 0: the model's choice per node). *ran gets
 * what this process's node step ran. */
int kcoll_two_level_run(kcoll_comm *c, kcal_coll coll,
                        const kcal_algorithm *alg, const kcoll_args *a,
                        kcoll_ran *ran);

/* Propagate an MPI error code. */
#define KCOLL_TRY(call)                                                      \
    do {                                                                     \
        int kcoll_rc_ = (call);                                              \
        if (kcoll_rc_ != MPI_SUCCESS)                                        \
            return kcoll_rc_;                                                \
    } while (0)

#endif
