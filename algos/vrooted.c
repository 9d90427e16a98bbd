/* vrooted: the four protocols of the rooted v-collectives, for
 * scatterv.c (the data go out of the root) and gatherv.c (into it): the
 * root's peers copying at once, the root copying the blocks in turn,
 * both ends of every pair copying chunks of its block, or the peers
 * copying at most a window of w at once (irregular.h).
 *
 * Every peer with bytes to move exchanges one or two small messages with
 * the root: an address message (where the block is or goes) and a done
 * message (with a status: 2 the counts differ, 1 the copy failed), or,
 * below NULL's crossover or where CMA does not reach, the block itself
 * as one message. A peer with 0 bytes takes no part (irregular.h says
 * why both ends agree). A process whose pairs all go as messages can
 * send them alone (kcoll_v_rooted_messages, irregular.c's short way): a
 * lone one blocking, as the MPI library's linear scatterv and gatherv
 * send theirs. */
#include <stdlib.h>

#include "algos/irregular.h"

/* A done message's status as the receiver of the data returns it. */
static int status_rc(uint64_t status)
{
    return status == 2 ? MPI_ERR_TRUNCATE
           : status    ? MPI_ERR_OTHER
                       : MPI_SUCCESS;
}

/* Rank r's block at the root (r != root): scatterv's send side, gatherv's
 * receive side. */
static char *root_block(const kcoll_vargs *a, int r, int out, size_t *n)
{
    *n = out ? a->scounts[r] : a->rcounts[r];
    return out ? (char *)a->sendbuf + a->sdispls[r]
               : a->recvbuf + a->rdispls[r];
}

/* A peer's own block: scatterv's receive side, gatherv's send side. */
static char *own_peer_block(const kcoll_vargs *a, int out, size_t *n)
{
    *n = out ? a->rcount : a->scount;
    return out ? a->recvbuf : (char *)a->sendbuf;
}

/* The root's own block, unless in place. */
static int root_own(const kcoll_vargs *a, int out)
{
    int root = a->root;
    size_t from = out ? a->scounts[root] : a->scount;
    size_t to = out ? a->rcount : a->rcounts[root];
    if (a->in_place)
        return MPI_SUCCESS;
    if (from != to)
        return MPI_ERR_TRUNCATE;
    kcal_copy(out ? a->recvbuf : a->recvbuf + a->rdispls[root],
              out ? a->sendbuf + a->sdispls[root] : a->sendbuf, to);
    return MPI_SUCCESS;
}

/* A peer's block as one message: received from the root, or sent to it. */
static int post_data(kcoll_comm *c, kcoll_vreqs *q, void *buf, size_t n,
                     int peer, int from_peer)
{
    return from_peer
               ? kcoll_vreqs_recv(c, q, buf, n, peer, KCOLL_VTAG_DATA)
               : kcoll_vreqs_send(c, q, buf, n, peer, KCOLL_VTAG_DATA);
}

/* One CMA copy of n bytes between this process's buf and `remote` in
 * peer: a read when the data come this way. The status of a done
 * message: 2 the counts differ, 1 the copy failed, else 0. */
static uint64_t copy_pair(const kcoll_vargs *a, int peer, int read,
                          char *buf, const kcoll_vmsg *m, size_t n)
{
    if (m->count != n)
        return 2;
    int e = read ? kcoll_cma_read(a->pids[peer], buf, m->addr, n)
                 : kcoll_cma_write(a->pids[peer], buf, m->addr, n);
    return e != 0;
}

int kcoll_v_rooted_sequential(kcoll_comm *c, const kcoll_vargs *a, int out)
{
    int p = c->size, root = a->root, rc;
    kcoll_vreqs q;
    if (c->rank != root) {
        size_t n;
        char *buf = own_peer_block(a, out, &n);
        if (n == 0)
            return MPI_SUCCESS;
        KCOLL_TRY(kcoll_vreqs_init(c, &q, 2));
        kcoll_vmsg m = {kcoll_addr(buf), n, 0}, done = {0, 0, 0};
        int by_msg = kcoll_v_by_message(a, root, n);
        rc = by_msg ? post_data(c, &q, buf, n, root, out)
                    : kcoll_vreqs_send(c, &q, &m, sizeof m, root,
                                       KCOLL_VTAG_ADDR);
        if (rc == MPI_SUCCESS && !by_msg)
            rc = kcoll_vreqs_recv(c, &q, &done, sizeof done, root,
                                  KCOLL_VTAG_DONE);
        KCOLL_TRY(kcoll_vreqs_finish(&q, rc));
        /* The root copied: its failure spoils this rank's block only when
         * it wrote it (scatterv); counts that differ are both ends'. */
        return out || done.status == 2 ? status_rc(done.status)
                                       : MPI_SUCCESS;
    }
    kcoll_vmsg *m = kcoll_v_work(c, KCOLL_VWORK_MSG, sizeof *m * 2 * (size_t)p);
    if (!m)
        return MPI_ERR_NO_MEM;
    rc = kcoll_vreqs_init(c, &q, 2 * p);
    for (int r = 0; r < p && rc == MPI_SUCCESS; r++) {
        size_t n;
        char *block = root_block(a, r, out, &n);
        if (r == root || n == 0)
            continue;
        rc = kcoll_v_by_message(a, r, n)
                 ? post_data(c, &q, block, n, r, !out)
                 : kcoll_vreqs_recv(c, &q, &m[r], sizeof *m, r,
                                    KCOLL_VTAG_ADDR);
    }
    /* A failed message spoils that pair alone: the copies and their done
     * messages still go to every other peer, which waits for them. */
    int bad = kcoll_vreqs_finish(&q, MPI_SUCCESS);
    KCOLL_TRY(rc);
    rc = kcoll_vreqs_init(c, &q, p);
    /* The copies one after another, from the rank after the root. */
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int r = (root + i) % p;
        size_t n;
        char *block = root_block(a, r, out, &n);
        if (n == 0 || kcoll_v_by_message(a, r, n))
            continue;
        m[p + r] = (kcoll_vmsg){0, n, copy_pair(a, r, !out, block, &m[r], n)};
        if (!out && bad == MPI_SUCCESS)
            bad = status_rc(m[p + r].status);
        rc = kcoll_vreqs_send(c, &q, &m[p + r], sizeof *m, r,
                              KCOLL_VTAG_DONE);
    }
    int own = root_own(a, out);
    rc = kcoll_vreqs_finish(&q, rc);
    KCOLL_TRY(rc);
    KCOLL_TRY(bad);
    return own;
}

/* The chunks of an n-byte block that the split's two ends share, as the
 * regular *_split rows cut them (kcal_model_split_chunk): chunk i is
 * [i·m, min(n, (i+1)·m)). */
static uint64_t split_chunks(size_t n, size_t *m)
{
    *m = (size_t)kcal_model_split_chunk(n);
    return (n + *m - 1) / *m;
}

/* Claim and copy chunks of the pair's block until none is left: the peer
 * from the front, the root from the back (kcoll_flag_claim on the peer's
 * slot). `read` when the data come this way; local is this end's block,
 * remote the other's. 1 when a copy failed. */
static int split_copy(kcoll_comm *c, int peer_slot, int back, int read,
                      pid_t pid, char *local, uint64_t remote, size_t n)
{
    size_t m;
    uint64_t q = split_chunks(n, &m), i;
    int failed = 0;
    while ((i = kcoll_flag_claim(c, peer_slot, q, back)) < q) {
        size_t off = (size_t)i * m, len = n - off < m ? n - off : m;
        failed |= (read ? kcoll_cma_read(pid, local + off, remote + off, len)
                        : kcoll_cma_write(pid, local + off, remote + off,
                                          len)) != 0;
    }
    return failed;
}

/* Whether the root helps with pair r's block of n bytes (irregular.h:
 * split_from): every pair the row was named for; for NULL, a pair of at
 * least split_from bytes that is at least twice the root's own block,
 * where the root, done with its own copy, would otherwise wait. */
static int root_helps(const kcoll_vargs *a, int out, size_t n)
{
    if (a->split_from == 0)
        return 1;
    size_t own = a->in_place ? 0 : out ? a->scounts[a->root] : a->scount;
    return n >= a->split_from && n / 2 >= own;
}

/* The parallel protocol, with the root's help where may_help and
 * root_helps say (the split rows). Every pair with bytes that moves by
 * CMA: the root sends the peer its block's address, its status 1 when the
 * root will help; a plain pair's peer copies the whole block and says
 * done; a helped peer first sends its own address, then both copy chunks
 * and exchange done messages. The peer needs nothing but that message to
 * know which, so only the root decides. */
static int rooted(kcoll_comm *c, const kcoll_vargs *a, int out, int may_help)
{
    /* The chunk counters live in the node's shared control slots: a
     * communicator over several nodes has none, and its root never helps
     * (its pairs across nodes go as messages either way). Every rank
     * makes this test and the first kcoll_flags_get alike. */
    if (c->spans_nodes)
        may_help = 0;
    if (may_help)
        KCOLL_TRY(kcoll_flags_get(c));
    int p = c->size, root = a->root, rc;
    kcoll_vreqs q;
    if (c->rank != root) {
        size_t n;
        char *buf = own_peer_block(a, out, &n);
        if (n == 0)
            return MPI_SUCCESS;
        KCOLL_TRY(kcoll_vreqs_init(c, &q, 1));
        kcoll_vmsg m;
        int by_msg = kcoll_v_by_message(a, root, n);
        rc = by_msg ? post_data(c, &q, buf, n, root, out)
                    : kcoll_vreqs_recv(c, &q, &m, sizeof m, root,
                                       KCOLL_VTAG_ADDR);
        KCOLL_TRY(kcoll_vreqs_finish(&q, rc));
        if (by_msg)
            return MPI_SUCCESS;
        kcoll_vmsg done = {0, n, 0}, theirs = {0, 0, 0};
        if (!m.status) { /* the plain parallel pair: the whole block, done */
            done.status = copy_pair(a, root, out, buf, &m, n);
            KCOLL_TRY(MPI_Send(&done, 3, MPI_UINT64_T, root,
                               kcoll_tag(c, KCOLL_VTAG_DONE), c->comm));
            return status_rc(done.status);
        }
        /* The root helps (its address message said so): this rank's
         * address to it, then chunks from the front, then the two done
         * messages: the root may still be copying into or out of this
         * rank's buffer until its own arrives. */
        kcoll_vmsg mine = {kcoll_addr(buf), n, 0};
        KCOLL_TRY(MPI_Send(&mine, 3, MPI_UINT64_T, root,
                           kcoll_tag(c, KCOLL_VTAG_ADDR), c->comm));
        done.status = m.count != n ? 2
                                   : (uint64_t)split_copy(c, c->rank, 0, out,
                                                          a->pids[root], buf,
                                                          m.addr, n);
        KCOLL_TRY(kcoll_vreqs_init(c, &q, 2));
        rc = kcoll_vreqs_send(c, &q, &done, sizeof done, root,
                              KCOLL_VTAG_DONE);
        if (rc == MPI_SUCCESS)
            rc = kcoll_vreqs_recv(c, &q, &theirs, sizeof theirs, root,
                                  KCOLL_VTAG_DONE);
        KCOLL_TRY(kcoll_vreqs_finish(&q, rc));
        /* This rank's block is spoilt by its own failed copy, or by the
         * root's when the root wrote it (scatterv). */
        if (done.status)
            return status_rc(done.status);
        return out ? status_rc(theirs.status) : MPI_SUCCESS;
    }
    kcoll_vmsg *m = kcoll_v_work(c, KCOLL_VWORK_MSG, sizeof *m * 3 * (size_t)p);
    if (!m)
        return MPI_ERR_NO_MEM;
    /* m[r]: the root's address message to r, its status 1 when the root
     * helps; m[p + r]: r's address (helped) or its done (not), then a
     * helped r's done; m[2p + r]: the root's done to a helped r. */
    rc = kcoll_vreqs_init(c, &q, 2 * p);
    for (int r = 0; r < p && rc == MPI_SUCCESS; r++) {
        size_t n;
        char *block = root_block(a, r, out, &n);
        if (r == root || n == 0)
            continue;
        if (kcoll_v_by_message(a, r, n)) {
            rc = post_data(c, &q, block, n, r, !out);
            continue;
        }
        int helps = may_help && root_helps(a, out, n);
        m[r] = (kcoll_vmsg){kcoll_addr(block), n, (uint64_t)helps};
        rc = kcoll_vreqs_send(c, &q, &m[r], sizeof *m, r, KCOLL_VTAG_ADDR);
        if (rc == MPI_SUCCESS)
            rc = kcoll_vreqs_recv(c, &q, &m[p + r], sizeof *m, r,
                                  helps ? KCOLL_VTAG_ADDR : KCOLL_VTAG_DONE);
    }
    int own = root_own(a, out);
    int bad = kcoll_vreqs_finish(&q, MPI_SUCCESS);
    KCOLL_TRY(rc);
    /* Its own block done, the root helps the helped peers in turn from the
     * back of their blocks (they started at the front on their own), then
     * exchanges the done messages: every helped peer waits for one. */
    rc = kcoll_vreqs_init(c, &q, 2 * p);
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int r = (root + i) % p;
        size_t n;
        char *block = root_block(a, r, out, &n);
        if (n == 0 || kcoll_v_by_message(a, r, n) || !m[r].status)
            continue;
        uint64_t status = bad != MPI_SUCCESS ? 1
                          : m[p + r].count != n ? 2
                                                : (uint64_t)split_copy(
                                                      c, r, 1, !out,
                                                      a->pids[r], block,
                                                      m[p + r].addr, n);
        m[2 * p + r] = (kcoll_vmsg){0, n, status};
        rc = kcoll_vreqs_send(c, &q, &m[2 * p + r], sizeof *m, r,
                              KCOLL_VTAG_DONE);
        if (rc == MPI_SUCCESS)
            rc = kcoll_vreqs_recv(c, &q, &m[p + r], sizeof *m, r,
                                  KCOLL_VTAG_DONE);
    }
    rc = kcoll_vreqs_finish(&q, rc);
    KCOLL_TRY(rc);
    KCOLL_TRY(bad);
    /* gatherv: a block the root received is spoilt by either end's failed
     * copy; scatterv's peers report their own. */
    for (int r = 0; r < p && !out; r++) {
        size_t n;
        root_block(a, r, out, &n);
        if (r == root || n == 0 || kcoll_v_by_message(a, r, n))
            continue;
        if (m[r].status)
            KCOLL_TRY(status_rc(m[2 * p + r].status));
        KCOLL_TRY(status_rc(m[p + r].status));
    }
    return own;
}

/* The split protocol through the node's shared control slots (flags.c)
 * instead of MPI messages, on one node: the root puts a letter in the
 * inbox of every peer whose pair moves by CMA (where its block is at the
 * root, its bytes, whether the root helps); the peer posts its own
 * block's address and bytes (which says it read the letter), copies the
 * whole block or, helped, its chunks from the front, and says done; the
 * root, its own block copied, takes the helped blocks' chunks from the
 * back, waits for every peer's done (they copy its buffer) and says done
 * once for all of them; every peer waits for that (a helped one's buffer
 * is the root's to copy until then). Why: four MPI
 * messages per helped pair, three of them one after another on the
 * peer's path, cost 1.3-2 us a call against 0.2 us a flag (flags.c);
 * at 64-128 KiB on the Zen 4 guest parallel_read_split ran 7.4 and
 * 12.5 us with them, slower than the plain parallel_read, against the
 * regular scatter's 5.4 and 8.7 (docs/machine.md). The root's done
 * carries one failure bit for all its pairs; counts that differ are
 * told by the letter and the post, so both ends of that pair see them. */
static int rooted_flags(kcoll_comm *c, const kcoll_vargs *a, int out)
{
    KCOLL_TRY(kcoll_flags_get(c));
    int p = c->size, root = a->root, rc;
    size_t n;
    if (c->rank != root) {
        char *buf = own_peer_block(a, out, &n);
        if (n == 0)
            return MPI_SUCCESS;
        if (kcoll_v_by_message(a, root, n))
            return kcoll_v_message(c, buf, n, root, !out);
        uint64_t count, help,
            from = kcoll_flag_wait_inbox(c, root, &count, &help);
        kcoll_flag_post_block(c, kcoll_addr(buf), n);
        kcoll_vmsg m = {from, count, 0};
        int failed = count != n ? 2
                     : help     ? split_copy(c, c->rank, 0, out,
                                             a->pids[root], buf, from, n)
                                : (int)copy_pair(a, root, out, buf, &m, n);
        kcoll_flag_done(c, failed);
        /* Every peer waits for the root's done, which comes after every
         * peer's: the root reads their posts and dones until then, and a
         * peer that left at once could be two calls ahead by the time it
         * did (sparse counts let a process skip calls), its words those
         * of a later call. */
        int theirs = kcoll_flag_wait_done(c, root);
        /* This rank's block is spoilt by its own failed copy, or by the
         * root's when the root wrote it (scatterv). */
        return failed ? status_rc((uint64_t)failed)
                      : status_rc((uint64_t)(out && theirs));
    }
    kcoll_vreqs q;
    rc = kcoll_vreqs_init(c, &q, p);
    /* Every CMA peer gets its letter and, helped, the root's done, and
     * the root waits for every one's done (they copy its buffer), even
     * after a failed message: a peer left without them would wait for
     * good. */
    for (int i = 1; i < p; i++) {
        int r = (root + i) % p;
        char *block = root_block(a, r, out, &n);
        if (n == 0)
            continue;
        if (!kcoll_v_by_message(a, r, n))
            kcoll_flag_send_inbox(c, r, kcoll_addr(block), n,
                                  (uint64_t)root_helps(a, out, n));
        else if (rc == MPI_SUCCESS)
            rc = post_data(c, &q, block, n, r, !out);
    }
    int own = root_own(a, out);
    int bad = kcoll_vreqs_finish(&q, MPI_SUCCESS);
    int failed = 0;
    for (int i = 1; i < p; i++) {
        int r = (root + i) % p;
        char *block = root_block(a, r, out, &n);
        if (n == 0 || kcoll_v_by_message(a, r, n) || !root_helps(a, out, n))
            continue;
        uint64_t count, to = kcoll_flag_wait_block(c, r, &count);
        if (count == n && bad == MPI_SUCCESS && rc == MPI_SUCCESS)
            failed |= split_copy(c, r, 1, !out, a->pids[r], block, to, n);
    }
    /* Every pair's done, with its count and its failure, then the
     * root's own done, which releases them all. */
    for (int i = 1; i < p; i++) {
        int r = (root + i) % p;
        root_block(a, r, out, &n);
        if (n == 0 || kcoll_v_by_message(a, r, n))
            continue;
        uint64_t count;
        kcoll_flag_wait_block(c, r, &count);
        int theirs = kcoll_flag_wait_done(c, r);
        if (bad == MPI_SUCCESS && count != n)
            bad = MPI_ERR_TRUNCATE;
        /* gatherv: a block the root received is spoilt by its peer's
         * failed copy; scatterv's peers report their own. */
        if (bad == MPI_SUCCESS && !out && theirs)
            bad = MPI_ERR_OTHER;
    }
    kcoll_flag_done(c, failed);
    KCOLL_TRY(rc);
    KCOLL_TRY(bad);
    if (failed && !out)
        return MPI_ERR_OTHER;
    return own;
}

/* Window slot s starts pair r: the root sends r its block's address
 * (status 0: the plain parallel pair, which the peer runs as in
 * rooted()) and posts the receive of r's done message. */
static int window_start(kcoll_comm *c, const kcoll_vargs *a, int out,
                        kcoll_vmsg *m, int r, MPI_Request *done)
{
    int p = c->size;
    size_t n;
    char *block = root_block(a, r, out, &n);
    m[r] = (kcoll_vmsg){kcoll_addr(block), n, 0};
    KCOLL_TRY(MPI_Send(&m[r], (int)sizeof *m, MPI_BYTE, r,
                       kcoll_tag(c, KCOLL_VTAG_ADDR), c->comm));
    return MPI_Irecv(&m[p + r], (int)sizeof *m, MPI_BYTE, r,
                     kcoll_tag(c, KCOLL_VTAG_DONE), c->comm, done);
}

/* The windowed protocol. A peer cannot know which others copy by CMA (a
 * scatterv's non-root knows its own count alone), so the root, which
 * knows every count, keeps the window: it starts the first w CMA pairs
 * in its order (root + 1, root + 2, ...), copies its own block, and
 * starts the next pair whenever a done arrives (MPI_Waitany). A peer runs
 * the plain parallel pair and needs nothing else, not even w: only the
 * root decides it. Pairs that go as messages are posted first and are
 * not in the window (they do not contend on the root's pages). */
int kcoll_v_rooted_window(kcoll_comm *c, const kcoll_vargs *a, int out)
{
    int p = c->size, root = a->root, rc;
    if (c->rank != root)
        return rooted(c, a, out, 0);
    kcoll_vmsg *m = kcoll_v_work(c, KCOLL_VWORK_MSG, sizeof *m * 2 * (size_t)p);
    int *order = kcoll_v_work(c, KCOLL_VWORK_INT, sizeof *order * (size_t)p);
    if (!m || !order)
        return MPI_ERR_NO_MEM;
    kcoll_vreqs q;
    rc = kcoll_vreqs_init(c, &q, p);
    int cma = 0;
    for (int i = 1; i < p && rc == MPI_SUCCESS; i++) {
        int r = (root + i) % p;
        size_t n;
        char *block = root_block(a, r, out, &n);
        if (n == 0)
            continue;
        if (kcoll_v_by_message(a, r, n))
            rc = post_data(c, &q, block, n, r, !out);
        else
            order[cma++] = r;
    }
    int w = a->window < 1 ? 1 : a->window;
    w = w < cma ? w : cma;
    MPI_Request *done = malloc(sizeof *done * (size_t)(w ? w : 1));
    int *who = malloc(sizeof *who * (size_t)(w ? w : 1));
    if (rc == MPI_SUCCESS && (!done || !who))
        rc = MPI_ERR_NO_MEM;
    int next = 0, active = 0, bad = MPI_SUCCESS;
    for (int s = 0; s < w && done; s++)
        done[s] = MPI_REQUEST_NULL;
    for (int s = 0; s < w && rc == MPI_SUCCESS; s++) {
        who[s] = order[next++];
        rc = window_start(c, a, out, m, who[s], &done[s]);
        active += rc == MPI_SUCCESS;
    }
    int own = root_own(a, out);
    /* After a failure nothing more starts, but what started is waited
     * for: its done message lands in m. */
    while (active > 0) {
        int s;
        MPI_Status st;
        int wrc = MPI_Waitany(w, done, &s, &st);
        if (wrc != MPI_SUCCESS || s == MPI_UNDEFINED) {
            rc = rc != MPI_SUCCESS ? rc : wrc;
            for (int i = 0; wrc != MPI_SUCCESS && i < w; i++)
                if (done[i] != MPI_REQUEST_NULL)
                    MPI_Wait(&done[i], MPI_STATUS_IGNORE);
            break;
        }
        active--;
        /* gatherv: a block the root received is spoilt by its writer's
         * failed copy; scatterv's peers report their own. */
        if (!out && bad == MPI_SUCCESS)
            bad = status_rc(m[p + who[s]].status);
        if (rc == MPI_SUCCESS && next < cma) {
            who[s] = order[next++];
            rc = window_start(c, a, out, m, who[s], &done[s]);
            active += rc == MPI_SUCCESS;
        }
    }
    free(done);
    free(who);
    rc = kcoll_vreqs_finish(&q, rc);
    KCOLL_TRY(rc);
    KCOLL_TRY(bad);
    return own;
}

int kcoll_v_rooted_messages(kcoll_comm *c, const kcoll_vargs *a, int out)
{
    int p = c->size, root = a->root, one = -1, many = 0;
    size_t n;
    if (c->rank != root) {
        char *buf = own_peer_block(a, out, &n);
        return n ? kcoll_v_message(c, buf, n, root, !out) : MPI_SUCCESS;
    }
    for (int r = 0; r < p; r++) {
        root_block(a, r, out, &n);
        if (r != root && n) {
            one = r;
            many++;
        }
    }
    int rc = MPI_SUCCESS;
    if (many == 1) {
        char *block = root_block(a, one, out, &n);
        rc = kcoll_v_message(c, block, n, one, out);
    } else if (many > 1) {
        kcoll_vreqs q;
        rc = kcoll_vreqs_init(c, &q, many);
        for (int r = 0; r < p && rc == MPI_SUCCESS; r++) {
            char *block = root_block(a, r, out, &n);
            if (r != root && n)
                rc = post_data(c, &q, block, n, r, !out);
        }
        rc = kcoll_vreqs_finish(&q, rc);
    }
    int own = root_own(a, out);
    return rc != MPI_SUCCESS ? rc : own;
}

int kcoll_v_rooted_parallel(kcoll_comm *c, const kcoll_vargs *a, int out)
{
    return rooted(c, a, out, 0);
}

int kcoll_v_rooted_split(kcoll_comm *c, const kcoll_vargs *a, int out)
{
    /* The chunk counters and the inboxes live in the node's shared
     * control slots: a communicator over several nodes has none, and its
     * root never helps (its pairs across nodes go as messages either
     * way); above KCOLL_INBOX_MAX_P processes there are no inboxes.
     * Every rank makes these tests alike. */
    return c->spans_nodes ? rooted(c, a, out, 0)
           : c->size > KCOLL_INBOX_MAX_P ? rooted(c, a, out, 1)
                                         : rooted_flags(c, a, out);
}
