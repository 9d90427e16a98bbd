/* concurrent: c processes copying at once (see concurrent.h); the workers,
 * the barrier and the samples are gang.h's. */
#include "probe/concurrent.h"
#include "probe/gang.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>

enum { PAT_DISTINCT_HOT, PAT_DISTINCT_COLD, PAT_SAME_HOT, PAT_SAME_COLD,
       PAT_OWN_HOT, PAT_OWN_COLD, PAT_COUNT };
static const char *const pat_names[PAT_COUNT] = {
    KCAL_PATTERN_DISTINCT_HOT, KCAL_PATTERN_DISTINCT_COLD,
    KCAL_PATTERN_SAME_HOT, KCAL_PATTERN_SAME_COLD,
    KCAL_PATTERN_OWN_HOT, KCAL_PATTERN_OWN_COLD};

static int is_cold(int pat)
{
    return pat == PAT_DISTINCT_COLD || pat == PAT_SAME_COLD ||
           pat == PAT_OWN_COLD;
}

/* One copier: what its steps copy, set up in the copier (its own buffer,
 * faulted in before the first round). */
typedef struct {
    const kcal_concurrent_setup *s;
    const int *calls; /* per pattern */
    pid_t pid;        /* the target read */
    char *local, *remote;
    size_t len, span, cur;
    int cold;
} copier;

static int copier_setup(void *ctx, int pat, int i)
{
    copier *cp = ctx;
    const kcal_concurrent_setup *s = cp->s;
    int same = pat == PAT_SAME_HOT || pat == PAT_SAME_COLD;
    int own = pat == PAT_OWN_HOT || pat == PAT_OWN_COLD;
    cp->cold = is_cold(pat);
    cp->len = (size_t)s->pages * s->page;
    cp->span = cp->cold ? s->cold_bytes / cp->len * cp->len : cp->len;
    if (cp->span < cp->len)
        cp->span = cp->len;
    const kcal_target *t = own ? &s->own[i] : s->target;
    cp->pid = t->pid;
    cp->remote = t->base + (same || own ? 0 : (size_t)i * cp->span);
    cp->cur = 0;
    cp->local = mmap(NULL, cp->span, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (cp->local == MAP_FAILED)
        return errno;
    madvise(cp->local, cp->span, MADV_NOHUGEPAGE);
    memset(cp->local, 1, cp->span);
    return 0;
}

/* A batch of calls: hot ones copy the same pages again, cold ones rotate
 * over the copier's span. */
static int copier_step(void *ctx, int pat, int i)
{
    (void)i;
    copier *cp = ctx;
    for (int c = 0; c < cp->calls[pat]; c++) {
        struct iovec l = {cp->local + cp->cur, cp->len};
        struct iovec r = {cp->remote + cp->cur, cp->len};
        if (process_vm_readv(cp->pid, &l, 1, &r, 1, 0) !=
            (ssize_t)cp->len)
            return errno ? errno : EIO;
        if (cp->cold && (cp->cur += cp->len) + cp->len > cp->span)
            cp->cur = 0;
    }
    return 0;
}

int kcal_concurrent_measure(const kcal_concurrent_setup *s, kcal_raw *raw,
                            char *err, size_t errlen)
{
    int calls[PAT_COUNT];
    for (int pat = 0; pat < PAT_COUNT; pat++)
        calls[pat] = is_cold(pat) ? s->calls_cold : s->calls_hot;
    copier cp = {.s = s, .calls = calls};
    kcal_gang_setup g = {
        .phase = KCAL_PHASE_CONCURRENT, .patterns = pat_names,
        .n_patterns = PAT_COUNT, .pages = s->pages,
        .bytes = s->pages * (long)s->page, .what = "concurrent copies",
        .worker = "copier", .call = "process_vm_readv", .topo = s->topo,
        .max_workers = s->max_copiers, .counts = s->counts,
        .n_counts = s->n_counts, .reps = s->reps, .warmup = s->warmup,
        .passes = s->passes, .setup = copier_setup, .step = copier_step,
        .ctx = &cp, .calls = calls, .meter = s->meter};
    return kcal_gang_measure(&g, raw, err, errlen);
}
