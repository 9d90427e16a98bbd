/* contention: concurrent lock+pin readers started by a shared barrier (see
 * contention.h). */
#include "contention.h"
#include "err.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

enum { PAT_DISTINCT, PAT_SAME, PAT_OWN, PAT_COUNT };
static const char *const pat_names[PAT_COUNT] = {
    KCAL_PATTERN_DISTINCT, KCAL_PATTERN_SAME, KCAL_PATTERN_OWN};

/* Shared between the probe and its readers (one anonymous shared mmap). */
typedef struct {
    pthread_barrier_t barrier;
    int errnum[]; /* per reader; the samples follow at samples_of() */
} shm_hdr;

static double *samples_of(shm_hdr *h, int max_readers)
{
    size_t off = sizeof *h + (size_t)max_readers * sizeof(int);
    off = (off + 15) & ~(size_t)15;
    return (double *)((char *)h + off);
}

static void reader(const kcal_contention_setup *s, shm_hdr *h, int i, int pat,
                   int rounds)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* A reader stuck at the barrier (another one died) must not hang. */
    alarm(60);
    kcal_topo_bind_core(s->topo, i, NULL, 0);
    const kcal_target *t = pat == PAT_OWN ? &s->own[i] : s->shared;
    size_t len = (size_t)s->pages * s->page;
    char byte;
    struct iovec l = {&byte, 1};
    struct iovec r = {t->base + (pat == PAT_DISTINCT ? (size_t)i * len : 0), len};
    double *out = samples_of(h, s->max_readers) + (size_t)i * rounds;
    for (int k = 0; k < rounds; k++) {
        pthread_barrier_wait(&h->barrier);
        long sw = kcal_involuntary_switches();
        double t0 = kcal_cli_now();
        if (process_vm_readv(t->pid, &l, 1, &r, 1, 0) != 1) {
            h->errnum[i] = errno ? errno : EIO;
            /* Keep meeting the barrier so the others finish. */
        }
        out[k] = kcal_cli_now() - t0;
        /* Preempted during the call: it timed another process. Marked,
         * and left out of the samples. */
        if (kcal_involuntary_switches() != sw)
            out[k] = -out[k];
    }
    _exit(0);
}

/* One run: c readers, pattern pat, `rounds` barrier-started calls each. */
static int run(const kcal_contention_setup *s, shm_hdr *h, int c, int pat,
               int rounds, char *err, size_t errlen)
{
    pthread_barrierattr_t attr;
    pthread_barrierattr_init(&attr);
    pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    int rc = pthread_barrier_init(&h->barrier, &attr, (unsigned)c);
    pthread_barrierattr_destroy(&attr);
    if (rc) {
        kcal_set_err(err, errlen, "contention: pthread_barrier_init: %s", strerror(rc));
        return -1;
    }
    memset(h->errnum, 0, (size_t)s->max_readers * sizeof(int));
    pid_t pids[c];
    int started = 0, failed = 0;
    fflush(NULL);
    for (int i = 0; i < c; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            kcal_set_err(err, errlen, "contention: fork: %s", strerror(errno));
            failed = 1;
            break;
        }
        if (pid == 0)
            reader(s, h, i, pat, rounds);
        pids[started++] = pid;
    }
    if (failed) /* the barrier can never fill: stop those that wait on it */
        for (int i = 0; i < started; i++)
            kill(pids[i], SIGKILL);
    for (int i = 0; i < started; i++) {
        int st;
        while (waitpid(pids[i], &st, 0) < 0 && errno == EINTR)
            ;
        if (!failed && (!WIFEXITED(st) || WEXITSTATUS(st) != 0)) {
            kcal_set_err(err, errlen, "contention: a reader process failed (%s %d)",
                    WIFSIGNALED(st) ? "signal" : "status",
                    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            failed = 1;
        }
    }
    pthread_barrier_destroy(&h->barrier);
    for (int i = 0; !failed && i < c; i++)
        if (h->errnum[i]) {
            kcal_set_err(err, errlen, "contention: process_vm_readv: %s",
                    strerror(h->errnum[i]));
            failed = 1;
        }
    return failed ? -1 : 0;
}

int kcal_contention_measure(const kcal_contention_setup *s, kcal_raw *raw,
                            char *err, size_t errlen)
{
    int per_pass = (s->reps + s->passes - 1) / s->passes;
    int rounds = s->warmup + per_pass;
    size_t bytes = sizeof(shm_hdr) + (size_t)s->max_readers * sizeof(int) + 16 +
                   (size_t)s->max_readers * (size_t)rounds * sizeof(double);
    shm_hdr *h = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (h == MAP_FAILED) {
        kcal_set_err(err, errlen, "contention: mmap: %s", strerror(errno));
        return -1;
    }
    int rc = 0;
    int rep[PAT_COUNT][s->max_readers + 1];
    memset(rep, 0, sizeof rep);
    for (int pass = 0; pass < s->passes && rc == 0; pass++)
        for (size_t ci = 0; ci < s->n_counts && rc == 0; ci++)
            for (int pat = 0; pat < PAT_COUNT && rc == 0; pat++) {
                int c = (int)s->counts[ci];
                if (run(s, h, c, pat, rounds, err, errlen) < 0) {
                    rc = -1;
                    break;
                }
                double *smp = samples_of(h, s->max_readers);
                for (int k = s->warmup; k < rounds && rc == 0; k++)
                    for (int i = 0; i < c; i++)
                        if (smp[(size_t)i * rounds + k] >= 0 &&
                            kcal_raw_add(raw, KCAL_PHASE_CONTENTION, pat_names[pat], c,
                                         s->pages, 1, rep[pat][c]++,
                                         smp[(size_t)i * rounds + k]) < 0) {
                            kcal_set_err(err, errlen, "out of memory");
                            rc = -1;
                            break;
                        }
                kcal_meter_tick(s->meter, "contention", (double)c * per_pass);
            }
    munmap(h, bytes);
    return rc;
}
