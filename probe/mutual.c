/* mutual: CMA calls whose targets make their own at the same moment (see
 * mutual.h); the workers, the barrier and the samples are gang.h's. */
#include "probe/mutual.h"
#include "common/err.h"
#include "probe/gang.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

enum { PAT_OWN, PAT_MUTUAL, PAT_COUNT };
static const char *const pat_names[PAT_COUNT] = {KCAL_PATTERN_OWN,
                                                 KCAL_PATTERN_MUTUAL};

/* Shared by the probe and its workers: each worker's pid, published in
 * its setup (the gang's barrier orders it before any step). */
typedef struct {
    const kcal_mutual_setup *s;
    pid_t *pids;  /* MAP_SHARED, max_workers */
    char *pages;  /* private, max_workers pages, the same address in every
                   * worker: worker i fills page i of its own copy */
    int c;        /* the run's workers (gang run_workers) */
    char *local;  /* the worker's destination page */
    pid_t from;   /* whom this worker reads */
    char *remote; /* and where */
} mutual_ctx;

static int mutual_setup(void *ctx, int pat, int i)
{
    mutual_ctx *m = ctx;
    const kcal_mutual_setup *s = m->s;
    m->local = mmap(NULL, s->page, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m->local == MAP_FAILED)
        return errno;
    memset(m->local, 1, s->page);
    char *mine = m->pages + (size_t)i * s->page;
    memset(mine, 2, s->page);
    m->pids[i] = getpid();
    if (pat == PAT_OWN) {
        m->from = s->own[i].pid;
        m->remote = s->own[i].base;
    } else {
        int next = (i + 1) % m->c;
        m->from = -1; /* looked up at the first step: next may not be up */
        m->remote = m->pages + (size_t)next * s->page;
    }
    return 0;
}

static int mutual_step(void *ctx, int pat, int i)
{
    mutual_ctx *m = ctx;
    const kcal_mutual_setup *s = m->s;
    if (pat == PAT_MUTUAL && m->from < 0)
        m->from = m->pids[(i + 1) % m->c];
    struct iovec l = {m->local, s->page};
    struct iovec r = {m->remote, s->page};
    for (int k = 0; k < s->calls; k++)
        if (process_vm_readv(m->from, &l, 1, &r, 1, 0) != (ssize_t)s->page)
            return errno ? errno : EIO;
    return 0;
}

int kcal_mutual_measure(const kcal_mutual_setup *s, kcal_raw *raw, char *err,
                        size_t errlen)
{
    if (s->max_workers < 2) {
        kcal_set_err(err, errlen, "mutual calls: %d cores, need 2",
                     s->max_workers);
        return -1;
    }
    size_t pid_bytes = (size_t)s->max_workers * sizeof(pid_t);
    size_t page_bytes = (size_t)s->max_workers * s->page;
    mutual_ctx m = {.s = s};
    m.pids = mmap(NULL, pid_bytes, PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    m.pages = mmap(NULL, page_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    int rc = -1;
    if (m.pids == MAP_FAILED || m.pages == MAP_FAILED) {
        kcal_set_err(err, errlen, "mutual calls: mmap: %s", strerror(errno));
    } else {
        int calls[PAT_COUNT] = {s->calls, s->calls};
        kcal_gang_setup g = {
            .phase = KCAL_PHASE_MUTUAL, .patterns = pat_names,
            .n_patterns = PAT_COUNT, .pages = 1, .bytes = (long)s->page,
            .what = "mutual calls", .worker = "reader",
            .call = "process_vm_readv", .topo = s->topo,
            .max_workers = s->max_workers, .counts = s->counts,
            .n_counts = s->n_counts, .reps = s->reps, .warmup = s->warmup,
            .passes = s->passes, .setup = mutual_setup, .step = mutual_step,
            .ctx = &m, .calls = calls, .run_workers = &m.c,
            .meter = s->meter};
        rc = kcal_gang_measure(&g, raw, err, errlen);
    }
    if (m.pids != MAP_FAILED)
        munmap(m.pids, pid_bytes);
    if (m.pages != MAP_FAILED)
        munmap(m.pages, page_bytes);
    return rc;
}
