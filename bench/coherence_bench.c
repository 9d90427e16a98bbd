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

#include "copy.h"
#include "topo.h"

struct shared {
    _Atomic long go;  /* the writer's round number, the chunk is in */
    char pad[64 - sizeof(long)];
    _Atomic long ack; /* the reader's round number, the chunk is out */
    char pad2[64 - sizeof(long)];
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
        for (long r = 1;; r++) {
            long g;
            while ((g = atomic_load_explicit(&sh->go, memory_order_acquire)) <
                       r && g >= 0)
                ;
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
    if (!local)
        rc = 1;
    else
        memset(local, 3, (size_t)chunk);
    printf("# kcal-coherence-bench: %ld-byte chunks, %ld rounds per sample, "
           "microseconds per round\n", chunk, rounds);
    printf("%8s %9s %9s %9s %7s\n", "sample", "round", "write", "local",
           "ratio");
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
        printf("%8.1f %9.3f %9.3f %9.3f %7.2f\n", start - t0, round * 1e6,
               tw / (double)rounds * 1e6, loc * 1e6, round / loc);
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
    free(local);
    free(mine);
    kcal_topo_free(topo);
    return rc;
}
