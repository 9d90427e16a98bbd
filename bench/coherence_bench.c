/* kcal-coherence-bench: what a chunk costs to pass from one core to
 * another through shared memory, the way copy_in_out passes its chunks
 * (algos/staging.c), and how that cost moves over time.
 *
 * Two processes, bound with hwloc to the first and the last core: per
 * round the writer copies CHUNK bytes from its own buffer into a shared
 * slot (kcal_copy) and raises a flag; the reader waits for it, copies the
 * slot into its own buffer and acknowledges. So every round the writer
 * overwrites lines the reader's core read in the round before, and the
 * reader reads lines the writer's core has just written: both copies move
 * lines between the cores' caches. The baseline is the same two copies on
 * the writer's core alone. A sample is ROUNDS rounds; SAMPLES samples,
 * INTERVAL seconds apart, each printed as one line:
 *   sample  seconds since start
 *   round   microseconds per round (both copies and the handshake)
 *   write   microseconds of the writer's copy per round
 *   local   microseconds of the two copies on one core
 *   ratio   round / local
 *   both    a copy of CHUNK bytes between two private buffers for 20 ms
 *           while the other process copies its own, ÷ the same with the
 *           other process asleep (the fastest of 5 windows each):
 *           near 1 when the two run on two physical cores (0.89-1.12
 *           on the Xeon guest), near 2 when they take turns on one CPU
 *           (1.84-1.93 in tests/bench_coherence.sh, which makes that
 *           happen), between when they are one core's two hardware
 *           threads sharing its load and store ports. The ratio says
 *           whether lines move between cores (near 1: the two share a
 *           core's caches; huge: every chunk waits for the scheduler);
 *           both says whether two copies run at once, which every
 *           algorithm that splits its copies between processes counts on.
 * On the Zen 5 guest of docs/machine.md the round took 1.1 to 9 µs for
 * 16 KiB within a minute while the local copies stayed near 0.5 µs: the
 * cost of moving lines between its two vCPUs depends on where the host
 * runs them at the time. scripts/bench-coherence runs it.
 * Usage: kcal-coherence-bench [SAMPLES [INTERVAL [ROUNDS [CHUNK]]]]
 * (defaults 20, 1, 2000, 16384). */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/copy.h"
#include "probe/topo.h"

struct shared {
    _Atomic long go;  /* the writer's round number, the chunk is in */
    char pad[64 - sizeof(long)];
    _Atomic long ack; /* the reader's round number, the chunk is out */
    char pad2[64 - sizeof(long)];
    _Atomic long both;     /* nonzero: the reader sleeps (odd) or copies
                              along (even) until it changes */
    _Atomic long both_ack; /* the reader has seen that value */
    char pad3[64 - 2 * sizeof(long)];
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long arg(int argc, char **argv, int i, long dflt, long lo, long hi)
{
    if (argc <= i)
        return dflt;
    char *end;
    errno = 0;
    long v = strtol(argv[i], &end, 10);
    if (errno || *end || end == argv[i] || v < lo || v > hi) {
        fprintf(stderr, "kcal-coherence-bench: argument %d: '%s' is not a "
                        "number in %ld..%ld\n", i, argv[i], lo, hi);
        exit(2);
    }
    return v;
}

/* Seconds per copy of len bytes from src to dst, copying for BOTH_SECONDS:
 * a window many scheduler slices long, so that two processes taking turns
 * on one CPU show as half the copies, not as a window one of them had to
 * itself. */
#define BOTH_SECONDS 0.02
#define BOTH_PAIRS 5
static double private_copies(char *dst, const char *src, long len)
{
    double a = now(), t;
    long n = 0;
    do {
        for (int i = 0; i < 16; i++, n++) {
            kcal_copy(dst, src, (size_t)len);
            __asm__ volatile("" : : "r"(dst) : "memory");
        }
    } while ((t = now() - a) < BOTH_SECONDS);
    return t / (double)n;
}

/* Asks the reader to sleep (odd mode) or copy along (even) and waits
 * until it does. */
static void reader_mode(struct shared *sh, long mode)
{
    atomic_store_explicit(&sh->both, mode, memory_order_release);
    while (atomic_load_explicit(&sh->both_ack, memory_order_acquire) != mode)
        ;
}

int main(int argc, char **argv)
{
    long samples = arg(argc, argv, 1, 20, 1, 100000);
    long interval = arg(argc, argv, 2, 1, 0, 3600);
    long rounds = arg(argc, argv, 3, 2000, 1, 100000000);
    long chunk = arg(argc, argv, 4, 16384, 64, 64L << 20);
    if (argc > 5) {
        fprintf(stderr, "usage: kcal-coherence-bench [SAMPLES [INTERVAL "
                        "[ROUNDS [CHUNK]]]]\n");
        return 2;
    }
    /* The probe's binding (hwloc, one PU of a core): the first core
     * and the last. */
    kcal_topo *topo = kcal_topo_load();
    kcal_topo_info info = {0};
    if (topo)
        kcal_topo_get_info(topo, &info);
    if (!topo || info.cores < 2) {
        fprintf(stderr, "kcal-coherence-bench: %s\n",
                topo ? "one core: no other core to pass chunks to"
                     : "hwloc: cannot read the topology");
        kcal_topo_free(topo);
        return 1;
    }
    size_t len = sizeof(struct shared) + (size_t)chunk;
    char *map = mmap(NULL, len, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    char *mine = aligned_alloc(4096, (size_t)chunk);
    if (map == MAP_FAILED || !mine) {
        fprintf(stderr, "kcal-coherence-bench: %s\n", strerror(ENOMEM));
        return 1;
    }
    struct shared *sh = (struct shared *)map;
    char *slot = map + sizeof *sh;
    memset(map, 0, len);
    memset(mine, 1, (size_t)chunk);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "kcal-coherence-bench: fork: %s\n", strerror(errno));
        return 1;
    }
    if (pid == 0) { /* the reader: until the writer's round is -1 */
        /* Never outlive the writer (killed, it cannot say -1). */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() == 1 ||
            kcal_topo_bind_core(topo, info.cores - 1, NULL, 0) < 0) {
            atomic_store_explicit(&sh->ack, -1, memory_order_release);
            _exit(1);
        }
        char *other = aligned_alloc(4096, (size_t)chunk);
        if (!other)
            _exit(1);
        memset(other, 5, (size_t)chunk);
        for (long r = 1;; r++) {
            long g;
            while ((g = atomic_load_explicit(&sh->go, memory_order_acquire)) <
                       r && g >= 0) {
                long b = atomic_load_explicit(&sh->both, memory_order_acquire);
                if (b == 0)
                    continue;
                atomic_store_explicit(&sh->both_ack, b, memory_order_release);
                while (atomic_load_explicit(&sh->both, memory_order_acquire) ==
                       b) {
                    if (b % 2) { /* off the CPU: the writer's copy alone.
                                    Waking every 100 us took a third of
                                    the writer's copy rate on one CPU
                                    (both 1.33, not 2); every 2 ms
                                    costs ~1 % of a 20 ms window. */
                        struct timespec d = {0, 2000000};
                        nanosleep(&d, NULL);
                        continue;
                    }
                    kcal_copy(other, mine, (size_t)chunk);
                    __asm__ volatile("" : : "r"(other) : "memory");
                }
            }
            if (g < 0)
                _exit(0);
            kcal_copy(mine, slot, (size_t)chunk);
            atomic_store_explicit(&sh->ack, r, memory_order_release);
        }
    }
    int rc = 0;
    if (kcal_topo_bind_core(topo, 0, NULL, 0) < 0) {
        fprintf(stderr, "kcal-coherence-bench: hwloc: cannot bind to the "
                        "first core\n");
        rc = 1;
    }
    char *local = aligned_alloc(4096, (size_t)chunk);
    char *priv = aligned_alloc(4096, (size_t)chunk);
    if (!local || !priv)
        rc = 1;
    else {
        memset(local, 3, (size_t)chunk);
        memset(priv, 4, (size_t)chunk);
    }
    printf("# kcal-coherence-bench: %ld-byte chunks, %ld rounds per sample, "
           "microseconds per round\n", chunk, rounds);
    printf("%8s %9s %9s %9s %7s %6s\n", "sample", "round", "write", "local",
           "ratio", "both");
    double t0 = now();
    long r = 0;
    for (long s = 0; s < samples && rc == 0; s++) {
        fprintf(stderr, "kcal-coherence-bench: sample %ld of %ld\n", s + 1,
                samples);
        double tw = 0, start = now();
        for (long i = 0; i < rounds; i++) {
            double a = now();
            kcal_copy(slot, mine, (size_t)chunk);
            tw += now() - a;
            atomic_store_explicit(&sh->go, ++r, memory_order_release);
            long k;
            while ((k = atomic_load_explicit(&sh->ack,
                                             memory_order_acquire)) < r &&
                   k >= 0)
                ;
            if (k < 0) {
                rc = 1;
                break;
            }
        }
        if (rc)
            break;
        double round = (now() - start) / (double)rounds;
        /* The same two copies on this core alone. */
        double a = now();
        for (long i = 0; i < rounds; i++) {
            kcal_copy(slot, mine, (size_t)chunk);
            kcal_copy(local, slot, (size_t)chunk);
            __asm__ volatile("" : : "r"(local) : "memory");
        }
        double loc = (now() - a) / (double)rounds;
        /* One private copy with the reader asleep (a reader polling
         * for the next round would take turns with the writer where the
         * two share a CPU), then with the reader copying along. */
        /* BOTH_PAIRS pairs, each side's fastest window kept: the host
         * taking the vCPU away for part of one window (steal, seen in CI
         * as round/local ratios in the hundreds) would otherwise read as
         * a reader that runs along, or as one that does not. */
        double alone = 0, along = 0;
        for (int k = 0; k < BOTH_PAIRS; k++) {
            reader_mode(sh, 2 * (s * BOTH_PAIRS + k) + 1);
            double t1 = private_copies(priv, local, chunk);
            reader_mode(sh, 2 * (s * BOTH_PAIRS + k) + 2);
            double t2 = private_copies(priv, local, chunk);
            alone = k == 0 || t1 < alone ? t1 : alone;
            along = k == 0 || t2 < along ? t2 : along;
        }
        atomic_store_explicit(&sh->both, 0, memory_order_release);
        printf("%8.1f %9.3f %9.3f %9.3f %7.2f %6.2f\n", start - t0,
               round * 1e6, tw / (double)rounds * 1e6, loc * 1e6, round / loc,
               along / alone);
        fflush(stdout);
        if (s + 1 < samples && interval > 0) {
            struct timespec d = {interval, 0};
            nanosleep(&d, NULL);
        }
    }
    atomic_store_explicit(&sh->go, -1, memory_order_release);
    int st = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
        fprintf(stderr, "kcal-coherence-bench: the reader failed (binding "
                        "to the last core)\n");
        rc = 1;
    }
    free(priv);
    free(local);
    free(mine);
    kcal_topo_free(topo);
    return rc;
}
