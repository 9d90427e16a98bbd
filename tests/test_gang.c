/* test_gang: the worker framework under contention and concurrent copies
 * (probe/gang.h), with steps that sleep instead of calling CMA: the rows'
 * order and numbering, seconds per call, the workers really meeting at a
 * barrier, every error path, and no child left behind by any of them. */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/check.h"
#include "probe/gang.h"

static const char *const pats[2] = {"p0", "p1"};

typedef struct {
    long step_ns[2];       /* what one step of each pattern sleeps */
    int fail_pat, fail_worker, fail_errno; /* step error (fail_errno != 0) */
    int setup_errno;       /* setup error in every worker */
    int exit_status;       /* step _exits with it (!= 0) */
    long slow_ns;          /* worker 0 sleeps this much more a step */
    atomic_int *done;      /* shared: steps finished, per round */
    atomic_int *early;     /* shared: steps begun before the last round ended */
    int round;             /* the worker's own (its copy of ctx) */
} fake;

static int fake_setup(void *ctx, int pat, int i)
{
    (void)pat, (void)i;
    fake *f = ctx;
    f->round = 0;
    return f->setup_errno;
}

static int fake_step(void *ctx, int pat, int i)
{
    fake *f = ctx;
    if (f->exit_status)
        _exit(f->exit_status);
    if (f->fail_errno && pat == f->fail_pat && i == f->fail_worker)
        return f->fail_errno;
    /* Behind the barrier, both workers finished the round before. */
    if (f->done && f->round > 0 && atomic_load(&f->done[f->round - 1]) != 2)
        atomic_fetch_add(f->early, 1);
    struct timespec ts = {0, f->step_ns[pat] + (i == 0 ? f->slow_ns : 0)};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
    if (f->done)
        atomic_fetch_add(&f->done[f->round], 1);
    f->round++;
    return 0;
}

static int no_children(void)
{
    return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

/* A measurement that must fail: -1, the error wanted, every child reaped.
 * Returns the rows it added before it failed. */
static size_t check_fails(const kcal_gang_setup *s, const char *want)
{
    kcal_raw raw;
    char err[256] = "";
    kcal_raw_init(&raw);
    CHECK(kcal_gang_measure(s, &raw, err, sizeof err) == -1);
    CHECK_STR(err, want);
    CHECK(no_children());
    size_t n = raw.n;
    kcal_raw_free(&raw);
    return n;
}

static kcal_gang_setup base(kcal_topo *topo, fake *f, const long *counts,
                            size_t n, const int *calls)
{
    return (kcal_gang_setup){
        .phase = "ph", .patterns = pats, .n_patterns = 2, .pages = 7,
        .bytes = 70, .what = "gangtest", .worker = "w", .call = "fakecall",
        .topo = topo, .max_workers = 2, .counts = counts, .n_counts = n,
        .reps = 4, .warmup = 1, .passes = 2, .setup = fake_setup,
        .step = fake_step, .ctx = f, .calls = calls, .meter = NULL};
}

int main(void)
{
    kcal_topo *topo = kcal_topo_load();
    CHECK(topo != NULL);
    if (!topo)
        return check_report();
    char err[256];
    const long counts[] = {1, 2};
    const int calls[] = {1, 20};
    /* 1 ms a step of p0; 20 ms a step of p1, which makes 20 calls. */
    fake f = {.step_ns = {1000000, 20000000}};

    /* Rows: pass, c, pattern, then round by round, worker by worker; rep
     * counts on per (pattern, c) across passes. 2 passes of 1 warm-up + 2
     * rounds: at most 4 rows of each (pattern, c) per worker. */
    kcal_raw raw;
    kcal_raw_init(&raw);
    kcal_gang_setup s = base(topo, &f, counts, 2, calls);
    CHECK(kcal_gang_measure(&s, &raw, err, sizeof err) == 0);
    CHECK(no_children());
    static const struct { const char *pat; int c; } order[] = {
        {"p0", 1}, {"p1", 1}, {"p0", 2}, {"p1", 2},
        {"p0", 1}, {"p1", 1}, {"p0", 2}, {"p1", 2}};
    size_t o = 0;
    int next_rep[2][3] = {{0}};
    int ok_order = 1, ok_rep = 1, ok_cols = 1, ok_secs = 1;
    for (size_t k = 0; k < raw.n; k++) {
        const kcal_sample *x = &raw.s[k];
        /* A run's rows may all be preempted away: skip to this row's run. */
        while (o < 8 && (strcmp(x->pattern, order[o].pat) != 0 ||
                         x->readers != order[o].c))
            o++;
        if (o == 8)
            ok_order = 0;
        int p = x->pattern[1] - '0';
        if (p < 0 || p > 1 || x->readers < 1 || x->readers > 2 ||
            x->rep != next_rep[p][x->readers]++)
            ok_rep = 0;
        if (strcmp(x->phase, "ph") != 0 || x->pages != 7 || x->bytes != 70)
            ok_cols = 0;
        /* Seconds per call: >= 1 ms either way (sleep only overshoots);
         * p1's 20 ms step is 1 ms a call, 20 ms would mean it was not
         * divided by its calls. */
        if (!(x->seconds >= 0.9e-3 && x->seconds < (p == 1 ? 10e-3 : 1)))
            ok_secs = 0;
    }
    CHECK(ok_order);
    CHECK(ok_rep);
    CHECK(ok_cols);
    CHECK(ok_secs);
    CHECK(raw.n > 0 && raw.n <= 2 * 2 * (4 + 8));
    /* Preemption drops a few rows, never most of them. */
    CHECK(next_rep[0][1] >= 2 && next_rep[1][2] >= 4);
    kcal_raw_free(&raw);

    /* The workers of a run meet at the barrier every round: the fast one
     * never begins a step before the slow one has finished the round
     * before (without the barrier it would run all its rounds at once). */
    atomic_int *shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(shm != MAP_FAILED);
    if (shm != MAP_FAILED) {
        fake g = {.slow_ns = 20000000, .done = shm, .early = shm + 16};
        const long two[] = {2};
        s = base(topo, &g, two, 1, NULL);
        s.n_patterns = 1, s.passes = 1, s.reps = 4, s.warmup = 0;
        kcal_raw_init(&raw);
        CHECK(kcal_gang_measure(&s, &raw, err, sizeof err) == 0);
        CHECK(no_children());
        for (int r = 0; r < 4; r++)
            CHECK(atomic_load(&shm[r]) == 2);
        CHECK(atomic_load(g.early) == 0);
        kcal_raw_free(&raw);
        munmap(shm, 4096);
    }

    /* A step's error fails the measurement, naming the call. */
    fake e = f;
    e.fail_errno = EIO, e.fail_pat = 1, e.fail_worker = 1;
    s = base(topo, &e, counts, 2, calls);
    check_fails(&s, "gangtest: fakecall: Input/output error");

    /* So does setup's (a copier's buffer it could not map). */
    e = f;
    e.setup_errno = ENOMEM;
    s = base(topo, &e, counts, 2, calls);
    CHECK(check_fails(&s, "gangtest: fakecall: Cannot allocate memory") == 0);

    /* A worker that exits early fails the run and is reaped. */
    e = f;
    e.exit_status = 5;
    s = base(topo, &e, counts, 1, calls);
    check_fails(&s, "gangtest: a w process failed (status 5)");

    /* A c the shared memory was not sized for is refused before anything
     * starts (contention's readers used to write past their samples). */
    const long three[] = {1, 3}, zero[] = {0};
    s = base(topo, &f, three, 2, calls);
    CHECK(check_fails(&s, "gangtest: 3 ws, not 1..2") == 0);
    s = base(topo, &f, zero, 1, calls);
    CHECK(check_fails(&s, "gangtest: 0 ws, not 1..2") == 0);

    kcal_topo_free(topo);
    return check_report();
}
