/* comm: per-communicator state of libkcoll and its control messages.
 *
 * Built once per communicator, on its first kcoll call, and cached in an MPI
 * attribute (as Open MPI's coll/xhc caches its per-communicator data), so the
 * pids are exchanged once. The state holds a private communicator made from
 * the user's: every control message of kcoll travels on it, so none can
 * match a message of the application. Ranks are those of the communicator,
 * so sub-communicators translate for free: pids[r] is the pid of rank r.
 *
 * The private communicator is a split of the user's (one color, the same
 * order), not an MPI_Comm_dup: a duplicate runs the copy callback of every
 * attribute the user has set on the communicator, which is not libkcoll's
 * to run (one that refuses failed every collective on it; one that counts
 * saw copies the program never made). The node split copies none either.
 *
 * Building the state can fail on some process (memory, an MPI error, or
 * KCOLL_SIMULATE_NO_STATE). The processes agree on it in one MPI_Allreduce
 * on the user's communicator, which also decides whether the communicator
 * spans nodes, and a communicator where any of them failed gets a state
 * marked no_state on every process: every later call on it goes to the MPI
 * library on the user's communicator (kcoll.c; the interposer hands it on
 * unchanged), without trying again.
 *
 * Which processes share a node is nodes.c's question (MPI_COMM_TYPE_SHARED,
 * or KCOLL_VIRTUAL_NODES's groups); a communicator that spans nodes keeps
 * its node's communicator for the two-level calls and has no pids here:
 * each node's own state (on that node communicator) has them.
 *
 * Whether CMA works is tested with a real 1-byte process_vm_readv from the
 * next rank (Yama ptrace_scope, seccomp and containers forbid it in ways no
 * static check sees), and the verdict is agreed on by every process so all
 * take the same path. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "algos/config.h"
#include "algos/kcoll_impl.h"
#include "algos/verify.h"
#include "algos/vhelp.h"

static int state_keyval = MPI_KEYVAL_INVALID;
static int finalize_keyval = MPI_KEYVAL_INVALID;
static int finalizing;
static volatile unsigned char probe_byte = 0x5a;

atomic_ulong kcoll_state_builds;

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: the standard hook
 * to learn that it has begun, after which freeing communicators is unsafe. */
static int on_finalize(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm, (void)keyval, (void)attr, (void)extra;
    finalizing = 1;
    return MPI_SUCCESS;
}

/* The state found last, per thread: most programs call kcoll on one
 * communicator, and MPI_Comm_test_inter + MPI_Comm_get_attr cost about
 * 20 ns a call, a third of what libkcoll added to a 1 KiB call it hands to
 * the MPI library (measured at p = 2). Every deletion of a state bumps the
 * generation, so no thread keeps a freed state (a freed handle may come
 * back as another communicator). */
static atomic_ulong generation;
static _Thread_local MPI_Comm last_comm = MPI_COMM_NULL;
static _Thread_local kcoll_comm *last_state;
static _Thread_local unsigned long last_generation;

static int delete_state(MPI_Comm comm, int keyval, void *attr, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    kcoll_comm *c = attr;
    atomic_fetch_add(&generation, 1);
    kcoll_flags_free(c, finalizing);
    kcoll_staging_free(c, finalizing);
    kcoll_nodes_free(c, finalizing);
    kcoll_verify_free(c);
    kcoll_vhelp_free(c);
    /* A no_state's comm is the user's own. */
    if (!finalizing && !c->no_state && c->comm != MPI_COMM_NULL)
        MPI_Comm_free(&c->comm);
    free(c->pids);
    free(c->reach);
    for (int i = 0; i < KCOLL_VWORK_SLOTS; i++)
        free(c->vwork[i]);
    free(c->scratch);
    free(c);
    return MPI_SUCCESS;
}

void *kcoll_scratch(kcoll_comm *c, size_t len)
{
    if (len > c->scratch_len) {
        free(c->scratch); /* nothing in it outlives a call: no realloc copy */
        c->scratch = malloc(len);
        c->scratch_len = c->scratch ? len : 0;
    }
    return c->scratch;
}

static int create_keyvals(void)
{
    if (state_keyval != MPI_KEYVAL_INVALID)
        return MPI_SUCCESS;
    KCOLL_TRY(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, on_finalize,
                                     &finalize_keyval, NULL));
    KCOLL_TRY(MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, NULL));
    /* Not copied by MPI_Comm_dup: a duplicate gets its own private comm. */
    return MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state,
                                  &state_keyval, NULL);
}

/* Collective over c->comm: pids, probe addresses, the 1-byte read, into
 * c->pids and c->cma_ok; all (2 words per process) is scratch. Whether
 * every process got this far is agreed on in the MPI_Allreduce of the
 * read's verdict: MPI_SUCCESS on every process alike, or an error. */
static int exchange_pids(kcoll_comm *c, uint64_t *all)
{
    uint64_t mine[2] = {(uint64_t)getpid(), kcoll_addr((const void *)&probe_byte)};
    int rc = MPI_Allgather(mine, 2, MPI_UINT64_T, all, 2, MPI_UINT64_T,
                           c->comm);
    int ok[2] = {rc == MPI_SUCCESS, 0}, all_ok[2] = {0, 0};
    if (ok[0]) {
        for (int r = 0; r < c->size; r++)
            c->pids[r] = (pid_t)all[2 * r];
        int next = (c->rank + 1) % c->size;
        unsigned char got = 0;
        ok[1] = kcoll_cma_read(c->pids[next], &got, all[2 * next + 1], 1) ==
                    0 &&
                got == 0x5a && !kcoll_config_on(KCOLL_CFG_SIMULATE_NO_CMA);
    }
    rc = MPI_Allreduce(ok, all_ok, 2, MPI_INT, MPI_MIN, c->comm);
    if (rc != MPI_SUCCESS)
        return rc;
    c->cma_ok = all_ok[1];
    return all_ok[0] ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* Whether this process must fail to build a state (for tests). */
static int simulated_failure(void)
{
    long long r = kcoll_config_number(KCOLL_CFG_SIMULATE_NO_STATE);
    int world_rank = -1;
    return r >= 0 &&
           MPI_Comm_rank(MPI_COMM_WORLD, &world_rank) == MPI_SUCCESS &&
           world_rank == r;
}

/* Once per process: a communicator of size processes runs on the MPI
 * library's collectives. own: this process's failure before the agreement
 * (MPI_SUCCESS: none), simulated: it was KCOLL_SIMULATE_NO_STATE's, late:
 * the pids' exchange after the agreement failed (on some process). */
static void warn_no_state(int size, int own, int simulated, int late)
{
    static atomic_int warned;
    if (atomic_exchange(&warned, 1))
        return;
    char why[MPI_MAX_ERROR_STRING + 64], text[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    if (simulated)
        snprintf(why, sizeof why, "on this process: KCOLL_SIMULATE_NO_STATE");
    else if (own != MPI_SUCCESS && MPI_Error_string(own, text, &len) ==
                                       MPI_SUCCESS)
        snprintf(why, sizeof why, "on this process: %s", text);
    else if (own != MPI_SUCCESS)
        snprintf(why, sizeof why, "on this process: MPI error %d", own);
    else
        snprintf(why, sizeof why, "%s", late ? "exchanging the pids"
                                             : "on another process");
    fprintf(stderr, "kcoll: warning: cannot set libkcoll up on a "
                    "communicator of %d processes (%s); its calls use the "
                    "MPI library's own collectives (pid %ld)\n",
            size, why, (long)getpid());
}

/* Collective over comm: libkcoll's state of comm, or, when building it
 * failed on any process, a no_state one (on every process alike). */
static int build_state(MPI_Comm comm, kcoll_comm **out)
{
    kcoll_comm *c = calloc(1, sizeof *c);
    if (!c) /* nothing to remember a verdict in: the one error returned */
        return MPI_ERR_NO_MEM;
    c->comm = c->node = MPI_COMM_NULL;
    atomic_fetch_add(&kcoll_state_builds, 1);
    /* Local, and the same on every process: an invalid comm fails alike. */
    int rc = MPI_Comm_rank(comm, &c->rank);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(comm, &c->size);
    if (rc != MPI_SUCCESS) {
        free(c);
        return rc;
    }
    /* Every process takes part in every collective step, whatever failed
     * before it here, so none waits for another. */
    rc = MPI_Comm_split(comm, 0, c->rank, &c->comm);
    /* The split inherits comm's error handler, by default
     * MPI_ERRORS_ARE_FATAL: an error of a control message would abort
     * inside libkcoll, which returns its errors (and the interposer then
     * raises them once, on the user's communicator). */
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    MPI_Comm node = MPI_COMM_NULL;
    int node_size = 0, nrc = kcoll_node_split(comm, &node);
    if (nrc == MPI_SUCCESS)
        nrc = MPI_Comm_size(node, &node_size);
    if (rc == MPI_SUCCESS)
        rc = nrc;
    uint64_t *all = malloc(sizeof(uint64_t) * 2 * (size_t)c->size);
    c->pids = malloc(sizeof(pid_t) * (size_t)c->size);
    if (rc == MPI_SUCCESS && (!all || !c->pids))
        rc = MPI_ERR_NO_MEM;
    int simulated = rc == MPI_SUCCESS && simulated_failure();
    int own_rc = simulated ? MPI_ERR_OTHER : rc;
    /* The agreement: did every process get here, and does every one see
     * the whole communicator as its node? (Every process sees a smaller
     * node than the communicator when it spans nodes.) */
    int mine[2] = {own_rc == MPI_SUCCESS, node_size == c->size};
    int agreed[2] = {0, 0};
    int arc = MPI_Allreduce(mine, agreed, 2, MPI_INT, MPI_MIN, comm);
    if (arc == MPI_SUCCESS && agreed[0]) {
        c->spans_nodes = !agreed[1];
        if (!c->spans_nodes)
            rc = exchange_pids(c, all);
    } else {
        rc = own_rc != MPI_SUCCESS ? own_rc : MPI_ERR_OTHER;
    }
    free(all);
    if (c->spans_nodes && rc == MPI_SUCCESS) {
        c->node = node; /* kept for the two-level calls, pids on it */
        free(c->pids);
        c->pids = NULL;
    } else if (node != MPI_COMM_NULL) {
        MPI_Comm_free(&node);
    }
    if (arc != MPI_SUCCESS) {
        /* No agreement: nothing can be decided for every process alike;
         * the call fails and the next one tries again. */
        delete_state(comm, state_keyval, c, NULL);
        return arc;
    }
    if (rc != MPI_SUCCESS) {
        /* Failed on some process: the MPI library's, for good. */
        warn_no_state(c->size, simulated ? MPI_SUCCESS : own_rc, simulated,
                      agreed[0]);
        if (c->comm != MPI_COMM_NULL)
            MPI_Comm_free(&c->comm);
        free(c->pids);
        c->pids = NULL;
        c->spans_nodes = c->cma_ok = 0;
        c->no_state = 1;
        c->comm = comm;
    }
    rc = MPI_Comm_set_attr(comm, state_keyval, c);
    if (rc != MPI_SUCCESS) {
        delete_state(comm, state_keyval, c, NULL);
        return rc;
    }
    *out = c;
    return MPI_SUCCESS;
}

unsigned long kcoll_comm_generation(void)
{
    return atomic_load_explicit(&generation, memory_order_acquire);
}

int kcoll_comm_get(MPI_Comm comm, kcoll_comm **out)
{
    if (comm == MPI_COMM_NULL)
        return MPI_ERR_COMM;
    if (comm == last_comm && last_generation == atomic_load(&generation)) {
        *out = last_state;
        return MPI_SUCCESS;
    }
    int inter = 0;
    KCOLL_TRY(MPI_Comm_test_inter(comm, &inter));
    if (inter)
        return MPI_ERR_COMM;
    KCOLL_TRY(create_keyvals());
    void *attr = NULL;
    int found = 0;
    unsigned long gen = atomic_load(&generation);
    KCOLL_TRY(MPI_Comm_get_attr(comm, state_keyval, &attr, &found));
    if (!found)
        KCOLL_TRY(build_state(comm, (kcoll_comm **)&attr));
    last_comm = comm;
    last_state = attr;
    last_generation = gen;
    *out = attr;
    return MPI_SUCCESS;
}

int kcoll_ctl_send(kcoll_comm *c, int dest, int tag, int status)
{
    return MPI_Send(&status, 1, MPI_INT, dest, tag, c->comm);
}

int kcoll_ctl_recv(kcoll_comm *c, int src, int tag, int *status)
{
    int got = 0;
    KCOLL_TRY(MPI_Recv(&got, 1, MPI_INT, src, tag, c->comm,
                       MPI_STATUS_IGNORE));
    *status |= got;
    return MPI_SUCCESS;
}

int kcoll_ctl_send_addr(kcoll_comm *c, int dest, int tag, uint64_t addr,
                        int status)
{
    uint64_t msg[2] = {addr, (uint64_t)status};
    return MPI_Send(msg, 2, MPI_UINT64_T, dest, tag, c->comm);
}

int kcoll_ctl_recv_addr(kcoll_comm *c, int src, int tag, uint64_t *addr,
                        int *status)
{
    uint64_t msg[2] = {0, 0};
    KCOLL_TRY(MPI_Recv(msg, 2, MPI_UINT64_T, src, tag, c->comm,
                       MPI_STATUS_IGNORE));
    *addr = msg[0];
    *status |= (int)msg[1];
    return MPI_SUCCESS;
}

int kcoll_ctl_allstatus(kcoll_comm *c, int *status)
{
    int mine = *status;
    return MPI_Allreduce(&mine, status, 1, MPI_INT, MPI_MAX, c->comm);
}

/* MPICH defines MPI_STATUSES_IGNORE as (MPI_Status *)1 and declares the
 * parameter an array, so GCC 12 reads the call as writing statuses into a
 * zero-sized region (-Wstringop-overflow, a false positive MPICH keeps:
 * pmodels/mpich issue 5687), which -Werror makes a failed MPICH build: the
 * warning is off here only, and libkcoll waits through this function. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
int kcoll_waitall(int n, MPI_Request *req)
{
    return n > 0 ? MPI_Waitall(n, req, MPI_STATUSES_IGNORE) : MPI_SUCCESS;
}
#pragma GCC diagnostic pop

/* Every request of the outbox. */
static int outbox_wait(kcoll_outbox *o)
{
    return kcoll_waitall(o->n, o->req);
}

void kcoll_outbox_init(kcoll_outbox *o)
{
    *o = (kcoll_outbox){NULL, NULL, 0, 0};
}

int kcoll_outbox_send(kcoll_comm *c, kcoll_outbox *o, int dest, int tag,
                      uint64_t addr, int status)
{
    if (o->n == o->cap) {
        /* Requests point into msg: wait for the old ones before moving it. */
        KCOLL_TRY(outbox_wait(o));
        int cap = o->cap ? 2 * o->cap : 8;
        MPI_Request *req = realloc(o->req, sizeof *req * (size_t)cap);
        if (req)
            o->req = req;
        uint64_t *msg = realloc(o->msg, sizeof *msg * 2 * (size_t)cap);
        if (msg)
            o->msg = msg;
        if (!req || !msg)
            return MPI_ERR_NO_MEM;
        o->cap = cap;
        o->n = 0;
    }
    uint64_t *m = o->msg + 2 * o->n;
    m[0] = addr;
    m[1] = (uint64_t)status;
    return MPI_Isend(m, 2, MPI_UINT64_T, dest, tag, c->comm, &o->req[o->n++]);
}

int kcoll_outbox_finish(kcoll_outbox *o, int rc)
{
    int wrc = outbox_wait(o);
    free(o->req);
    free(o->msg);
    kcoll_outbox_init(o);
    return rc != MPI_SUCCESS ? rc : wrc;
}
