/* gang: c workers started together by a shared barrier (see gang.h). */
#include "probe/gang.h"
#include "common/err.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Shared between the probe and its workers (one anonymous shared mmap). */
typedef struct {
    pthread_barrier_t barrier;
    int errnum[]; /* per worker; the samples follow at samples_of() */
} shm_hdr;

static size_t samples_offset(int max_workers)
{
    size_t off = sizeof(shm_hdr) + (size_t)max_workers * sizeof(int);
    return (off + 15) & ~(size_t)15;
}

/* Worker i's `rounds` step times start at samples_of(...) + i * rounds. */
static double *samples_of(shm_hdr *h, int max_workers)
{
    return (double *)((char *)h + samples_offset(max_workers));
}

static void worker(const kcal_gang_setup *s, shm_hdr *h, int pat, int i,
                   int rounds)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* A worker stuck at the barrier (another one died) must not hang. */
    alarm(60);
    kcal_topo_bind_core(s->topo, i, NULL, 0);
    double *out = samples_of(h, s->max_workers) + (size_t)i * rounds;
    int e = s->setup ? s->setup(s->ctx, pat, i) : 0;
    for (int k = 0; k < rounds; k++) {
        pthread_barrier_wait(&h->barrier);
        long sw = kcal_involuntary_switches();
        double t0 = kcal_now();
        if (!e) /* after an error, keep meeting the barrier for the others */
            e = s->step(s->ctx, pat, i);
        out[k] = kcal_now() - t0;
        /* Preempted during the step: it timed another process. Marked,
         * and left out of the samples. */
        if (kcal_involuntary_switches() != sw)
            out[k] = -out[k];
    }
    /* Once more after the last step: a step may address another worker's
     * memory (mutual.h), which must not exit while that step runs. */
    pthread_barrier_wait(&h->barrier);
    h->errnum[i] = e;
    _exit(0);
}

/* One run: c workers, pattern pat, `rounds` barrier-started steps each.
 * Every worker started is reaped before it returns. */
static int run(const kcal_gang_setup *s, shm_hdr *h, int c, int pat,
               int rounds, char *err, size_t errlen)
{
    pthread_barrierattr_t attr;
    pthread_barrierattr_init(&attr);
    pthread_barrierattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    int rc = pthread_barrier_init(&h->barrier, &attr, (unsigned)c);
    pthread_barrierattr_destroy(&attr);
    if (rc) {
        kcal_set_err(err, errlen, "%s: pthread_barrier_init: %s", s->what,
                     strerror(rc));
        return -1;
    }
    memset(h->errnum, 0, (size_t)s->max_workers * sizeof(int));
    pid_t pids[c];
    int started = 0, failed = 0;
    if (s->run_workers)
        *s->run_workers = c;
    fflush(NULL);
    for (int i = 0; i < c; i++) {
        pid_t pid = fork();
        if (pid < 0) {
            kcal_set_err(err, errlen, "%s: fork: %s", s->what, strerror(errno));
            failed = 1;
            break;
        }
        if (pid == 0)
            worker(s, h, pat, i, rounds);
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
            kcal_set_err(err, errlen, "%s: a %s process failed (%s %d)",
                         s->what, s->worker,
                         WIFSIGNALED(st) ? "signal" : "status",
                         WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
            failed = 1;
        }
    }
    pthread_barrier_destroy(&h->barrier);
    for (int i = 0; !failed && i < c; i++)
        if (h->errnum[i]) {
            kcal_set_err(err, errlen, "%s: %s: %s", s->what, s->call,
                         strerror(h->errnum[i]));
            failed = 1;
        }
    return failed ? -1 : 0;
}

/* The rounds after the warm-up of the run just done, as raw rows. */
/* The rows of one run's samples that no preemption spoiled: how many, or
 * -1 out of memory. */
static int add_rows(const kcal_gang_setup *s, shm_hdr *h, int c, int pat,
                    int rounds, int *rep, kcal_raw *raw)
{
    const double *smp = samples_of(h, s->max_workers);
    int calls = s->calls ? s->calls[pat] : 1, added = 0;
    for (int k = s->warmup; k < rounds; k++)
        for (int i = 0; i < c; i++) {
            double t = smp[(size_t)i * rounds + k] / calls;
            if (t < 0)
                continue;
            if (kcal_raw_add(raw, s->phase, s->patterns[pat], c, s->pages,
                             s->bytes, (*rep)++, t) < 0)
                return -1;
            added++;
        }
    return added;
}

/* Runs whose every sample was preempted are run again, up to this many
 * times in all: on a loaded 2-core guest every cold step of a pass (16
 * calls of 256 KiB) could be preempted, and the pattern then had no row at
 * all (tests/probe_quick.sh: "no own_cold concurrent copies"). */
#define GANG_TRIES 4

int kcal_gang_measure(const kcal_gang_setup *s, kcal_raw *raw, char *err,
                      size_t errlen)
{
    for (size_t ci = 0; ci < s->n_counts; ci++)
        if (s->counts[ci] < 1 || s->counts[ci] > s->max_workers) {
            kcal_set_err(err, errlen, "%s: %ld %ss, not 1..%d", s->what,
                         s->counts[ci], s->worker, s->max_workers);
            return -1;
        }
    int per_pass = (s->reps + s->passes - 1) / s->passes;
    int rounds = s->warmup + per_pass;
    size_t bytes = samples_offset(s->max_workers) +
                   (size_t)s->max_workers * (size_t)rounds * sizeof(double);
    shm_hdr *h = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (h == MAP_FAILED) {
        kcal_set_err(err, errlen, "%s: mmap: %s", s->what, strerror(errno));
        return -1;
    }
    /* rep[pat][c]: the rows' rep counts on across passes */
    int *rep = calloc((size_t)s->n_patterns * (size_t)(s->max_workers + 1),
                      sizeof *rep);
    int rc = rep ? 0 : -1;
    if (!rep)
        kcal_set_err(err, errlen, "out of memory");
    for (int pass = 0; pass < s->passes && rc == 0; pass++)
        for (size_t ci = 0; ci < s->n_counts && rc == 0; ci++)
            for (int pat = 0; pat < s->n_patterns && rc == 0; pat++) {
                int c = (int)s->counts[ci], added = 0;
                for (int t = 0; t < GANG_TRIES && added == 0 && rc == 0; t++) {
                    if (run(s, h, c, pat, rounds, err, errlen) < 0) {
                        rc = -1;
                    } else if ((added = add_rows(
                                    s, h, c, pat, rounds,
                                    &rep[pat * (s->max_workers + 1) + c],
                                    raw)) < 0) {
                        kcal_set_err(err, errlen, "out of memory");
                        rc = -1;
                    }
                }
                if (rc == 0)
                    kcal_meter_tick(s->meter, s->what, (double)c * per_pass);
            }
    free(rep);
    munmap(h, bytes);
    return rc;
}
