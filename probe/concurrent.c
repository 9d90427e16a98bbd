/* concurrent: c processes copying at once (see concurrent.h). */
#include "concurrent.h"
#include "err.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

enum { PAT_DISTINCT_HOT, PAT_DISTINCT_COLD, PAT_SAME_HOT, PAT_SAME_COLD,
       PAT_COUNT };
static const char *const pat_names[PAT_COUNT] = {
    KCAL_PATTERN_DISTINCT_HOT, KCAL_PATTERN_DISTINCT_COLD,
    KCAL_PATTERN_SAME_HOT, KCAL_PATTERN_SAME_COLD};

typedef struct {
    pthread_barrier_t barrier;
    int errnum[]; /* per copier; the samples follow at samples_of() */
} shm_hdr;

static double *samples_of(shm_hdr *h, int max)
{
    size_t off = sizeof *h + (size_t)max * sizeof(int);
    off = (off + 15) & ~(size_t)15;
    return (double *)((char *)h + off);
}

static void copier(const kcal_concurrent_setup *s, shm_hdr *h, int i, int pat,
                   int rounds)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    alarm(60); /* stuck at the barrier when another copier died */
    kcal_topo_bind_core(s->topo, i, NULL, 0);
    int cold = pat == PAT_DISTINCT_COLD || pat == PAT_SAME_COLD;
    int same = pat == PAT_SAME_HOT || pat == PAT_SAME_COLD;
    size_t len = (size_t)s->pages * s->page;
    size_t span = cold ? s->cold_bytes / len * len : len;
    if (span < len)
        span = len;
    char *local = mmap(NULL, span, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int calls = cold ? s->calls_cold : s->calls_hot;
    double *out = samples_of(h, s->max_copiers) + (size_t)i * rounds;
    if (local == MAP_FAILED) {
        h->errnum[i] = errno;
    } else {
        madvise(local, span, MADV_NOHUGEPAGE);
        memset(local, 1, span);
    }
    char *remote = s->target->base + (same ? 0 : (size_t)i * span);
    size_t cur = 0;
    for (int k = 0; k < rounds; k++) {
        pthread_barrier_wait(&h->barrier);
        long sw = kcal_involuntary_switches();
        double t0 = kcal_cli_now();
        for (int c = 0; c < calls && !h->errnum[i]; c++) {
            struct iovec l = {local + cur, len}, r = {remote + cur, len};
            if (process_vm_readv(s->target->pid, &l, 1, &r, 1, 0) !=
                (ssize_t)len)
                h->errnum[i] = errno ? errno : EIO;
            if (cold && (cur += len) + len > span)
                cur = 0;
        }
        out[k] = (kcal_cli_now() - t0) / calls;
        if (kcal_involuntary_switches() != sw)
            out[k] = -out[k]; /* preempted: left out */
    }
    _exit(0);
}

static int run(const kcal_concurrent_setup *s, shm_hdr *h, int c, int pat,
               int rounds, char *err, size_t errlen)
{
    pthread_barrierattr_t attr;
    pthread_barrierattr_init(&attr);
    pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    int rc = pthread_barrier_init(&h->barrier, &attr, (unsigned)c);
    pthread_barrierattr_destroy(&attr);
    if (rc) {
        kcal_set_err(err, errlen, "concurrent copies: pthread_barrier_init: "
                     "%s", strerror(rc));
        return -1;
    }
    memset(h->errnum, 0, (size_t)s->max_copiers * sizeof(int));
    pid_t pids[c];
    int started = 0, failed = 0;
    fflush(NULL);
    for (int i = 0; i < c; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            kcal_set_err(err, errlen, "concurrent copies: fork: %s",
                         strerror(errno));
            failed = 1;
            break;
        }
        if (pid == 0)
            copier(s, h, i, pat, rounds);
        pids[started++] = pid;
    }
    if (failed)
        for (int i = 0; i < started; i++)
            kill(pids[i], SIGKILL);
    for (int i = 0; i < started; i++) {
        int st;
        while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
            ;
        if (!failed && (!WIFEXITED(st) || WEXITSTATUS(st) != 0)) {
            kcal_set_err(err, errlen, "concurrent copies: a copier process "
                         "failed (%s %d)", WIFSIGNALED(st) ? "signal" : "status",
                         WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            failed = 1;
        }
    }
    pthread_barrier_destroy(&h->barrier);
    for (int i = 0; !failed && i < c; i++)
        if (h->errnum[i]) {
            kcal_set_err(err, errlen, "concurrent copies: process_vm_readv: "
                         "%s", strerror(h->errnum[i]));
            failed = 1;
        }
    return failed ? -1 : 0;
}

int kcal_concurrent_measure(const kcal_concurrent_setup *s, kcal_raw *raw,
                            char *err, size_t errlen)
{
    int per_pass = (s->reps + s->passes - 1) / s->passes;
    int rounds = s->warmup + per_pass;
    size_t bytes = sizeof(shm_hdr) + (size_t)s->max_copiers * sizeof(int) + 16 +
                   (size_t)s->max_copiers * (size_t)rounds * sizeof(double);
    shm_hdr *h = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (h == MAP_FAILED) {
        kcal_set_err(err, errlen, "concurrent copies: mmap: %s",
                     strerror(errno));
        return -1;
    }
    int rc = 0;
    int *rep = calloc((size_t)PAT_COUNT * (size_t)(s->max_copiers + 1),
                      sizeof *rep);
    if (!rep) {
        kcal_set_err(err, errlen, "out of memory");
        rc = -1;
    }
    for (int pass = 0; pass < s->passes && rc == 0; pass++)
        for (size_t ci = 0; ci < s->n_counts && rc == 0; ci++)
            for (int pat = 0; pat < PAT_COUNT && rc == 0; pat++) {
                int c = (int)s->counts[ci];
                if (c > s->max_copiers || run(s, h, c, pat, rounds, err,
                                              errlen) < 0) {
                    if (c > s->max_copiers)
                        kcal_set_err(err, errlen, "concurrent copies: %d "
                                     "copiers > %d", c, s->max_copiers);
                    rc = -1;
                    break;
                }
                double *smp = samples_of(h, s->max_copiers);
                int *r = &rep[pat * (s->max_copiers + 1) + c];
                for (int k = s->warmup; k < rounds && rc == 0; k++)
                    for (int i = 0; i < c; i++) {
                        double t = smp[(size_t)i * rounds + k];
                        if (t >= 0 &&
                            kcal_raw_add(raw, KCAL_PHASE_CONCURRENT,
                                         pat_names[pat], c, s->pages,
                                         s->pages * (long)s->page, (*r)++,
                                         t) < 0) {
                            kcal_set_err(err, errlen, "out of memory");
                            rc = -1;
                            break;
                        }
                    }
                kcal_meter_tick(s->meter, "concurrent copies",
                                (double)c * per_pass);
            }
    free(rep);
    munmap(h, bytes);
    return rc;
}
