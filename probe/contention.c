/* contention: concurrent lock+pin readers started by a shared barrier (see
 * contention.h); the workers, the barrier and the samples are gang.h's. */
#include "probe/contention.h"
#include "probe/gang.h"

#include <errno.h>
#include <sys/uio.h>

enum { PAT_DISTINCT, PAT_SAME, PAT_OWN, PAT_COUNT };
static const char *const pat_names[PAT_COUNT] = {
    KCAL_PATTERN_DISTINCT, KCAL_PATTERN_SAME, KCAL_PATTERN_OWN};

/* One reader's call, prepared in the reader before the first round so the
 * timed step is the call alone. */
typedef struct {
    const kcal_contention_setup *s;
    pid_t pid;
    char byte;
    struct iovec l, r;
} reader;

static int reader_setup(void *ctx, int pat, int i)
{
    reader *rd = ctx;
    const kcal_contention_setup *s = rd->s;
    const kcal_target *t = pat == PAT_OWN ? &s->own[i] : s->shared;
    size_t len = (size_t)s->pages * s->page;
    rd->pid = t->pid;
    rd->l = (struct iovec){&rd->byte, 1};
    rd->r = (struct iovec){
        t->base + (pat == PAT_DISTINCT ? (size_t)i * len : 0), len};
    return 0;
}

static int reader_step(void *ctx, int pat, int i)
{
    (void)pat, (void)i;
    reader *rd = ctx;
    if (process_vm_readv(rd->pid, &rd->l, 1, &rd->r, 1, 0) != 1)
        return errno ? errno : EIO;
    return 0;
}

int kcal_contention_measure(const kcal_contention_setup *s, kcal_raw *raw,
                            char *err, size_t errlen)
{
    reader rd = {.s = s};
    kcal_gang_setup g = {
        .phase = KCAL_PHASE_CONTENTION, .patterns = pat_names,
        .n_patterns = PAT_COUNT, .pages = s->pages, .bytes = 1,
        .what = "contention", .worker = "reader", .call = "process_vm_readv",
        .topo = s->topo, .max_workers = s->max_readers, .counts = s->counts,
        .n_counts = s->n_counts, .reps = s->reps, .warmup = s->warmup,
        .passes = s->passes, .setup = reader_setup, .step = reader_step,
        .ctx = &rd, .meter = s->meter};
    return kcal_gang_measure(&g, raw, err, errlen);
}
