/* pass: a chunk passed from one core to another (see pass.h). */
#include "probe/pass.h"
#include "common/copy.h"
#include "common/err.h"
#include "model/model.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LINE 64
#define AREA ((size_t)KCAL_STAGING_SLOTS * KCAL_STAGING_CHUNK)
/* The shared slots: the peer's ring (it copies in, the probe out) and,
 * for the mutual streams, the probe's (the probe in, the peer out). */
#define AREAS (2 * AREA)

/* The shared control block, each word on a line of its own (a word that
 * shares a line with another side's would add the very traffic measured). */
typedef struct {
    _Atomic long cmd; /* the probe's request count; -1: exit */
    long c, m;        /* the request: m chunks of c bytes */
    long both;        /* 1: a mutual stream (both rings at once) */
    char pad0[LINE - 4 * sizeof(long)];
    _Atomic long go; /* chunks the peer has copied in, over all requests */
    char pad1[LINE - sizeof(long)];
    _Atomic long ack; /* chunks the probe has copied out */
    char pad2[LINE - sizeof(long)];
    _Atomic long start_ns; /* the peer's clock as it began the request */
    char pad3[LINE - sizeof(long)];
    /* The mutual streams' other direction: chunks the probe has copied
     * into its ring, and chunks the peer has copied out of it, over all
     * mutual requests; the peer's clock as it ended the request. */
    _Atomic long go_back;
    char pad4[LINE - sizeof(long)];
    _Atomic long ack_back;
    char pad5[LINE - sizeof(long)];
    _Atomic long served; /* requests the peer has finished */
    long end_ns;         /* its clock as it finished the last */
    char pad6[LINE - 2 * sizeof(long)];
} ctl_block;

size_t kcal_pass_size_list(int quick, long *out, size_t max)
{
    size_t n = 0;
    for (long c = 1024; c <= (long)KCAL_STAGING_CHUNK && n < max;
         c *= quick ? 4 : 2)
        out[n++] = c;
    /* The largest (copy_in_out's full chunk) always: the stream's size. */
    if (n && out[n - 1] != (long)KCAL_STAGING_CHUNK && n < max)
        out[n++] = (long)KCAL_STAGING_CHUNK;
    return n;
}

double kcal_pass_work(const kcal_pass_setup *s)
{
    /* cross and local at every point, mutual at the largest c's two */
    return s->n_sizes ? (2.0 * (double)(s->n_sizes + 1) + 2) * s->passes : 0;
}

static long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

static char *slot(char *area, long i)
{
    return area + (size_t)(i % KCAL_STAGING_SLOTS) * KCAL_STAGING_CHUNK;
}

/* One side's chunk i of a stream: wait for its slot (free once the
 * other side has copied out what it held: *ack counts those), copy it
 * in, raise *go. done: the ring's chunks before this stream. */
static void copy_in(char *ring, _Atomic long *go, _Atomic long *ack,
                    long done, long i, const char *src, long c)
{
    while (i >= KCAL_STAGING_SLOTS &&
           atomic_load_explicit(ack, memory_order_acquire) <
               done + i - KCAL_STAGING_SLOTS + 1)
        ;
    kcal_copy(slot(ring, done + i), src + (size_t)i * (size_t)c, (size_t)c);
    atomic_store_explicit(go, done + i + 1, memory_order_release);
}

/* The peer: serve requests until told to exit (or the probe is gone:
 * PR_SET_PDEATHSIG). It spins, as libkcoll's ranks do on their flags. In
 * a mutual stream it also copies each chunk of the probe's ring out,
 * after copying its own in, as every rank of an allgather or allreduce
 * copy_in_out does. */
static void peer(ctl_block *k, char *area, char *src, char *dst)
{
    char *back = area + AREA;
    long seen = 0, done = 0, done_back = 0;
    for (;;) {
        long cmd;
        while ((cmd = atomic_load_explicit(&k->cmd, memory_order_acquire)) ==
               seen)
            ;
        if (cmd < 0)
            _exit(0);
        seen = cmd;
        long c = k->c, m = k->m, both = k->both;
        atomic_store_explicit(&k->start_ns, now_ns(), memory_order_relaxed);
        for (long i = 0; i < m; i++) {
            copy_in(area, &k->go, &k->ack, done, i, src, c);
            if (!both)
                continue;
            while (atomic_load_explicit(&k->go_back, memory_order_acquire) <
                   done_back + i + 1)
                ;
            kcal_copy(dst + (size_t)i * (size_t)c, slot(back, done_back + i),
                      (size_t)c);
            atomic_store_explicit(&k->ack_back, done_back + i + 1,
                                  memory_order_release);
        }
        done += m;
        done_back += both ? m : 0;
        k->end_ns = now_ns();
        atomic_store_explicit(&k->served, cmd, memory_order_release);
    }
}

typedef struct {
    ctl_block *k;
    char *area;    /* the shared slots */
    char *own;     /* the control's private slots */
    char *src;     /* the control's source (the peer has its own) */
    char *dst;     /* the probe's destination */
    long cmd, done; /* requests made, chunks passed */
    long done_back;  /* chunks passed the other way (mutual streams) */
    pid_t pid;
} pass_run;

/* How long the probe waits for the peer's next chunk before it calls the
 * peer stuck (a stream of 8 chunks takes microseconds; a stopped or
 * starved peer would otherwise hang `kcal probe`). */
#define PEER_PATIENCE_NS 10000000000L

/* Spin until the peer's word reaches want (its progress word go, or
 * served): 0, or -1 with a message if the peer died (reaped here) or made
 * no progress for PEER_PATIENCE_NS. Checks only every few thousand spins:
 * waitpid and the clock would otherwise be most of a 1 KiB pass. */
static int wait_peer(pass_run *r, _Atomic long *word, long want, char *err,
                     size_t errlen)
{
    long since = 0;
    for (unsigned spins = 1;
         atomic_load_explicit(word, memory_order_acquire) < want; spins++) {
        if (spins % 4096)
            continue;
        int st;
        pid_t w = waitpid(r->pid, &st, WNOHANG);
        if (w == r->pid) {
            r->pid = 0;
            kcal_set_err(err, errlen,
                         "chunk passing: the peer process died (%s %d)",
                         WIFSIGNALED(st) ? "signal" : "exit status",
                         WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            return -1;
        }
        long t = now_ns();
        if (!since)
            since = t;
        else if (t - since > PEER_PATIENCE_NS) {
            kcal_set_err(err, errlen,
                         "chunk passing: the peer process (pid %d) made no "
                         "progress in %.0f s",
                         (int)r->pid, PEER_PATIENCE_NS * 1e-9);
            return -1;
        }
    }
    return 0;
}

/* One stream across the cores: seconds from the peer's start to the last
 * copy out, or -1 with a message (wait_peer). both: a mutual stream, the
 * probe copying its chunks into its own ring too, each before it copies
 * the peer's chunk out (as the peer does the other way), and the stream
 * ending as the later side ends. */
static double cross(pass_run *r, long c, long m, int both, char *err,
                    size_t errlen)
{
    ctl_block *k = r->k;
    k->c = c;
    k->m = m;
    k->both = both;
    atomic_store_explicit(&k->cmd, ++r->cmd, memory_order_release);
    for (long i = 0; i < m; i++) {
        if (both)
            copy_in(r->area + AREA, &k->go_back, &k->ack_back, r->done_back,
                    i, r->src, c);
        if (wait_peer(r, &k->go, r->done + i + 1, err, errlen) < 0)
            return -1;
        kcal_copy(r->dst + (size_t)i * (size_t)c, slot(r->area, r->done + i),
                  (size_t)c);
        atomic_store_explicit(&k->ack, r->done + i + 1, memory_order_release);
    }
    long end = now_ns();
    r->done += m;
    if (both) { /* until the peer's last copy out too */
        r->done_back += m;
        if (wait_peer(r, &k->served, r->cmd, err, errlen) < 0)
            return -1;
        if (k->end_ns > end)
            end = k->end_ns;
    }
    return (double)(end - atomic_load_explicit(&k->start_ns,
                                               memory_order_relaxed)) * 1e-9;
}

/* The control: the same copies on this core alone. */
static double local(pass_run *r, long c, long m)
{
    long t0 = now_ns();
    for (long i = 0; i < m; i++) {
        kcal_copy(slot(r->own, i), r->src + (size_t)i * (size_t)c, (size_t)c);
        kcal_copy(r->dst + (size_t)i * (size_t)c, slot(r->own, i), (size_t)c);
    }
    return (double)(now_ns() - t0) * 1e-9;
}

static void fill(char *b, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (char)(i * 13 + (i >> 12) + (size_t)seed);
}

static void stop(pass_run *r)
{
    if (r->pid > 0) {
        atomic_store_explicit(&r->k->cmd, -1, memory_order_release);
        int st;
        if (waitpid(r->pid, &st, 0) < 0) {
            kill(r->pid, SIGKILL);
            waitpid(r->pid, &st, 0);
        }
        r->pid = 0;
    }
}

int kcal_pass_measure(kcal_pass_setup *s, kcal_raw *raw, char *err,
                      size_t errlen)
{
    if (!s->n_sizes)
        return 0;
    const size_t max_c = (size_t)s->sizes[s->n_sizes - 1];
    const size_t span = max_c * KCAL_PASS_STREAM;
    pass_run r = {0};
    size_t shared = sizeof(ctl_block) + AREAS;
    void *map = mmap(NULL, shared, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) {
        kcal_set_err(err, errlen, "chunk passing: mmap: %s", strerror(errno));
        return -1;
    }
    memset(map, 0, shared);
    r.k = map;
    r.area = (char *)map + sizeof(ctl_block);
    int rc = -1;
    r.own = aligned_alloc(4096, AREA);
    r.src = aligned_alloc(4096, span);
    r.dst = aligned_alloc(4096, span);
    if (!r.own || !r.src || !r.dst) {
        kcal_set_err(err, errlen, "chunk passing: out of memory");
        goto out;
    }
    fill(r.own, AREA, 1);
    fill(r.src, span, 2);
    fill(r.dst, span, 3);
    pid_t parent = getpid();
    r.pid = fork();
    if (r.pid < 0) {
        kcal_set_err(err, errlen, "chunk passing: fork: %s", strerror(errno));
        goto out;
    }
    if (r.pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) /* the probe died before the prctl */
            _exit(1);
        if (s->topo)
            kcal_topo_bind_core(s->topo, s->peer_core, NULL, 0);
        fill(r.src, span, 4); /* its own pages, in its own core's cache */
        fill(r.dst, span, 5);
        peer(r.k, r.area, r.src, r.dst);
    }
    /* Points: every c with one chunk, the largest with a stream. */
    long pc[64], pm[64];
    size_t np = 0;
    for (size_t i = 0; i < s->n_sizes && np < 63; i++)
        pc[np] = s->sizes[i], pm[np++] = 1;
    pc[np] = (long)max_c, pm[np++] = KCAL_PASS_STREAM;
    /* Warm-up: the first touches of the slots by either side. */
    for (int w = 0; w < 2; w++)
        for (size_t j = 0; j < np; j++) {
            if (cross(&r, pc[j], pm[j], 0, err, errlen) < 0 ||
                (pc[j] == (long)max_c &&
                 cross(&r, pc[j], pm[j], 1, err, errlen) < 0))
                goto out;
            local(&r, pc[j], pm[j]);
        }
    /* x: 0 across the cores, 1 the control, 2 both ways at once (the
     * largest c only: the chunk the mutual rows pass in all but their
     * last) */
    static const char *const pattern[3] = {
        KCAL_PATTERN_CROSS, KCAL_PATTERN_LOCAL, KCAL_PATTERN_MUTUAL};
    for (int pass = 0; pass < s->passes; pass++)
        for (size_t j = 0; j < np; j++)
            for (int x = 0; x < 3; x++) {
                if (x == 2 && pc[j] != (long)max_c)
                    continue;
                double t = 0;
                for (int tries = 0; tries < 5; tries++) {
                    long before = kcal_involuntary_switches();
                    t = x == 1 ? local(&r, pc[j], pm[j])
                               : cross(&r, pc[j], pm[j], x == 2, err, errlen);
                    if (t < 0)
                        goto out;
                    if (kcal_involuntary_switches() == before)
                        break;
                    s->retaken++;
                }
                if (kcal_raw_add(raw, KCAL_PHASE_PASS, pattern[x],
                                 (int)pm[j], s->slice, pc[j], pass, t) < 0) {
                    kcal_set_err(err, errlen, "out of memory");
                    goto out;
                }
                kcal_meter_tick(s->meter, "chunk passing", 1);
            }
    rc = 0;
out:
    if (rc < 0 && r.pid > 0) /* it may be stopped, not just slow */
        kill(r.pid, SIGKILL);
    stop(&r);
    free(r.own);
    free(r.src);
    free(r.dst);
    munmap(map, shared);
    return rc;
}
