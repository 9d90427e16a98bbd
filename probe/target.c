/* target: forked process holding pre-faulted pages for CMA (see target.h). */
#include "probe/target.h"
#include "common/err.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A request on the control pipe (kcal_target_rewrite): one write of
 * sizeof(rewrite_req) < PIPE_BUF bytes, so it arrives whole. */
typedef struct {
    uint64_t off, len;
} rewrite_req;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* read() on a non-blocking fd that polls for spin_s seconds before it
 * sleeps in poll(): while the probe sends rewrites neither side sleeps,
 * as MPI processes spin on their flags between the steps of a collective.
 * A sleeping core is not what a collective sees, and on the KVM guest it
 * changed the measurement: with both sides sleeping in read(), a 16 KiB
 * read after a rewrite took 0.4, -0.25 and 0.4 µs longer than a clean one
 * in three runs (spread of one read 0.5 µs); polling, 2.0 µs (spread
 * 0.05 µs), as if the writer's cache had been written back while it
 * slept. */
static ssize_t read_spinning(int fd, void *buf, size_t len, double spin_s)
{
    double t0 = spin_s > 0 ? now_s() : 0;
    for (;;) {
        ssize_t r = read(fd, buf, len);
        if (r >= 0)
            return r;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return -1;
        if (spin_s > 0 && now_s() - t0 < spin_s)
            continue;
        struct pollfd pfd = {fd, POLLIN, 0};
        if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
            return -1;
    }
}

/* How long each side polls: the target after each reply, for the next
 * request (the probe sends them back to back; after the last one the
 * target goes back to sleep, leaving the other phases a quiet core); the
 * probe for the reply (a rewrite of 8 MiB takes about a millisecond). */
#define TARGET_SPIN_S 0.02
#define REPLY_SPIN_S 0.5

/* Read exactly one request, polling spin_s seconds first. 1, 0 at EOF (the
 * probe closed the pipe or died), -1 on an error or a torn request. */
static int read_req(int fd, rewrite_req *q, double spin_s)
{
    size_t got = 0;
    while (got < sizeof *q) {
        ssize_t r = read_spinning(fd, (char *)q + got, sizeof *q - got, spin_s);
        if (r <= 0)
            return r == 0 && got == 0 ? 0 : -1;
        got += (size_t)r;
    }
    return 1;
}

/* New values in [off, off + len): every page filled with a byte of this
 * generation and stamped with its index and the generation, so no two
 * pages are ever equal (as at the start) and no page is the zero page.
 * memset per page: stores that stay in the cache (glibc's large memsets
 * may bypass it with non-temporal stores). */
static void rewrite_range(char *base, size_t off, size_t len, size_t page,
                          uint64_t gen)
{
    size_t end = off + len;
    for (size_t p = off; p < end;) {
        size_t pg = p / page, stop = (pg + 1) * page;
        if (stop > end)
            stop = end;
        memset(base + p, (int)(0x5a ^ (gen * 13 + pg)) & 0xff, stop - p);
        if (p == pg * page && stop - p >= 2 * sizeof(uint64_t)) {
            uint64_t stamp[2] = {pg, gen};
            memcpy(base + p, stamp, sizeof stamp);
        }
        p = stop;
    }
}

/* Runs in the child: fault every page in, say so, then serve rewrite
 * requests until EOF. */
static void target_child(kcal_target *t, kcal_topo *topo, int core,
                         int ctl_r, int ready_w, int reply_w)
{
    /* Die with the probe, whatever happens to it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* Hold no copy of the probe's stdout (a caller reading it to EOF must
     * not wait for us) nor other targets' control pipes (their EOF). */
    int keep_ctl = fcntl(ctl_r, F_DUPFD, 1000), keep_ready = fcntl(ready_w, F_DUPFD, 1001);
    int keep_reply = fcntl(reply_w, F_DUPFD, 1002);
    if (keep_ctl < 0 || keep_ready < 0 || keep_reply < 0)
        _exit(1);
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        dup2(devnull, STDOUT_FILENO);
    }
    for (int fd = 3; fd < 1000; fd++)
        close(fd);
    /* A probe gone before the reply: EPIPE, not a signal. */
    signal(SIGPIPE, SIG_IGN);
    if (topo)
        kcal_topo_bind_core(topo, core, NULL, 0);
    /* Distinct bytes per page: no page may be shared (zero page, KSM). */
    for (size_t i = 0; i < t->bytes; i++)
        t->base[i] = (char)(i * 7 + (i >> 12));
    char one = 1;
    if (write(keep_ready, &one, 1) != 1)
        _exit(1);
    close(keep_ready);
    long ps = sysconf(_SC_PAGESIZE);
    size_t page = ps > 0 ? (size_t)ps : 4096;
    if (fcntl(keep_ctl, F_SETFL, fcntl(keep_ctl, F_GETFL) | O_NONBLOCK) < 0)
        _exit(1);
    for (uint64_t gen = 1;; gen++) {
        rewrite_req q;
        /* Asleep until the first request, then polling between them. */
        if (read_req(keep_ctl, &q, gen == 1 ? 0 : TARGET_SPIN_S) <= 0)
            break;
        char ok = q.off <= t->bytes && q.len <= t->bytes - q.off;
        if (ok)
            rewrite_range(t->base, (size_t)q.off, (size_t)q.len, page, gen);
        ssize_t w;
        while ((w = write(keep_reply, &ok, 1)) < 0 && errno == EINTR)
            ;
        if (w != 1)
            break;
    }
    _exit(0);
}

int kcal_target_start(kcal_target *t, size_t bytes, kcal_topo *topo, int core,
                      char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->pid = -1;
    t->ctl_fd = -1;
    t->reply_fd = -1;
    t->bytes = bytes;
    void *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        kcal_set_err(err, errlen, "target: mmap of %zu bytes: %s", bytes,
                strerror(errno));
        return -1;
    }
    /* Huge pages would make one "page" 2 MiB and l meaningless per 4 KiB. */
    madvise(base, bytes, MADV_NOHUGEPAGE);
    t->base = base;
    int ctl[2], ready[2], reply[2];
    if (pipe(ctl) < 0) {
        kcal_set_err(err, errlen, "target: pipe: %s", strerror(errno));
        munmap(base, bytes);
        return -1;
    }
    if (pipe(ready) < 0) {
        kcal_set_err(err, errlen, "target: pipe: %s", strerror(errno));
        close(ctl[0]);
        close(ctl[1]);
        munmap(base, bytes);
        return -1;
    }
    if (pipe(reply) < 0) {
        kcal_set_err(err, errlen, "target: pipe: %s", strerror(errno));
        close(ctl[0]);
        close(ctl[1]);
        close(ready[0]);
        close(ready[1]);
        munmap(base, bytes);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        kcal_set_err(err, errlen, "target: fork: %s", strerror(errno));
        int fds[] = {ctl[0], ctl[1], ready[0], ready[1], reply[0], reply[1]};
        for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
            close(fds[i]);
        munmap(base, bytes);
        return -1;
    }
    if (pid == 0) {
        close(ctl[1]);
        close(ready[0]);
        close(reply[0]);
        target_child(t, topo, core, ctl[0], ready[1], reply[1]);
    }
    close(ctl[0]);
    close(ready[1]);
    /* Our copy of the reply's write end gone, a dead child reads as EOF. */
    close(reply[1]);
    fcntl(reply[0], F_SETFL, fcntl(reply[0], F_GETFL) | O_NONBLOCK);
    /* The parent never touched the reservation: dropping it costs nothing
     * and the child keeps its own pages at the same address. */
    munmap(base, bytes);
    t->pid = pid;
    t->ctl_fd = ctl[1];
    t->reply_fd = reply[0];
    char one;
    ssize_t r;
    while ((r = read(ready[0], &one, 1)) < 0 && errno == EINTR)
        ;
    close(ready[0]);
    if (r != 1) {
        kcal_set_err(err, errlen, "target: the child process died while faulting "
                "in %zu bytes", bytes);
        kcal_target_stop(t);
        return -1;
    }
    return 0;
}

/* write() that returns EPIPE instead of raising SIGPIPE (the probe keeps
 * the default action: a pipe it writes to must not kill it). */
static ssize_t write_nosigpipe(int fd, const void *buf, size_t len)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    int was_pending = 0;
    sigset_t pending;
    if (sigpending(&pending) == 0)
        was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t w;
    while ((w = write(fd, buf, len)) < 0 && errno == EINTR)
        ;
    int saved = errno;
    if (w < 0 && saved == EPIPE && !was_pending) {
        /* Take back the SIGPIPE this write raised before unblocking. */
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
    return w;
}

int kcal_target_rewrite(kcal_target *t, size_t off, size_t len)
{
    if (t->ctl_fd < 0 || t->reply_fd < 0) {
        errno = EBADF;
        return -1;
    }
    rewrite_req q = {off, len};
    ssize_t w = write_nosigpipe(t->ctl_fd, &q, sizeof q);
    if (w != (ssize_t)sizeof q) {
        if (w >= 0)
            errno = EIO;
        return -1;
    }
    char ok;
    ssize_t r;
    r = read_spinning(t->reply_fd, &ok, 1, REPLY_SPIN_S);
    if (r != 1) {
        if (r == 0)
            errno = EPIPE;
        return -1;
    }
    if (!ok) {
        errno = EINVAL;
        return -1;
    }
    return 0;
}

void kcal_target_stop(kcal_target *t)
{
    if (t->ctl_fd >= 0) {
        close(t->ctl_fd);
        t->ctl_fd = -1;
        /* Opened with ctl_fd, so only then (a target set up by hand as
         * {.pid = -1, .ctl_fd = -1} has reply_fd 0: stdin, not ours). */
        if (t->reply_fd >= 0)
            close(t->reply_fd);
        t->reply_fd = -1;
    }
    if (t->pid > 0) {
        int st;
        while (waitpid(t->pid, &st, 0) < 0 && errno == EINTR)
            ;
        t->pid = -1;
    }
}
