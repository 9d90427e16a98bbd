/* test_pass: the probe's chunk-passing measurement (probe/pass.h) records
 * one sample per point, pattern and pass (every chunk size with a
 * one-chunk stream, the largest also with a KCAL_PASS_STREAM-chunk one;
 * the mutual streams at the largest size only),
 * with the fields raw.h documents (`pages` the slice) and a positive time; ticks the meter by
 * the work it announced; and leaves no child behind. No timing asserted:
 * the machine is shared. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/check.h"
#include "model/model.h"
#include "probe/pass.h"

static size_t count(const kcal_raw *r, const char *pattern, int m, long c,
                    long slice)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++) {
        const kcal_sample *s = &r->s[i];
        if (!strcmp(s->phase, KCAL_PHASE_PASS) && !strcmp(s->pattern, pattern) &&
            s->readers == m && s->bytes == c && s->pages == slice &&
            s->seconds > 0)
            n++;
    }
    return n;
}

/* A child of this process, from /proc (the peer is the only one), or 0. */
static pid_t find_child(void)
{
    DIR *d = opendir("/proc");
    pid_t found = 0;
    struct dirent *e;
    while (d && !found && (e = readdir(d))) {
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = 0;
        /* pid (comm) state ppid ...; comm may hold spaces: after the last ')' */
        char *p = strrchr(buf, ')');
        int ppid;
        if (p && sscanf(p + 1, " %*c %d", &ppid) == 1 && ppid == getpid())
            found = (pid_t)atoi(e->d_name);
    }
    if (d)
        closedir(d);
    return found;
}

/* Kill (arg: the signal) the peer as soon as it exists. */
static void *killer(void *arg)
{
    int sig = (int)(long)arg;
    for (int i = 0; i < 2000; i++) {
        pid_t c = find_child();
        if (c) {
            struct timespec t = {0, 20 * 1000000L};
            nanosleep(&t, NULL); /* into the measurement, past the fork */
            kill(c, sig);
            return NULL;
        }
        struct timespec t = {0, 1000000L};
        nanosleep(&t, NULL);
    }
    return NULL;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void)
{
    long sizes[16];
    size_t n = kcal_pass_size_list(1, sizes, 16);
    /* quick: 1K, 4K, 16K; the largest is always the staging chunk */
    CHECK(n == 3);
    CHECK(sizes[0] == 1024 && sizes[n - 1] == (long)KCAL_STAGING_CHUNK);
    CHECK(kcal_pass_size_list(0, sizes, 16) == 5);

    n = kcal_pass_size_list(1, sizes, 16);
    kcal_meter meter = {NULL, 0, 0};
    kcal_pass_setup s = {.topo = NULL, .peer_core = 0, .sizes = sizes,
                         .n_sizes = n, .passes = 4, .slice = 3,
                         .meter = &meter};
    kcal_raw raw;
    kcal_raw_init(&raw);
    char err[256] = "";
    CHECK(kcal_pass_measure(&s, &raw, err, sizeof err) == 0);
    /* cross and local at every point, mutual at the largest c's two */
    CHECK(raw.n == (size_t)(2 * 4 * (n + 1) + 2 * 4));
    for (size_t i = 0; i < n; i++) {
        CHECK(count(&raw, KCAL_PATTERN_CROSS, 1, sizes[i], 3) == 4);
        CHECK(count(&raw, KCAL_PATTERN_LOCAL, 1, sizes[i], 3) == 4);
    }
    CHECK(count(&raw, KCAL_PATTERN_CROSS, KCAL_PASS_STREAM, sizes[n - 1], 3) == 4);
    CHECK(count(&raw, KCAL_PATTERN_LOCAL, KCAL_PASS_STREAM, sizes[n - 1], 3) == 4);
    /* Both ways at once: the largest c only, one chunk and the stream. */
    CHECK(count(&raw, KCAL_PATTERN_MUTUAL, 1, sizes[n - 1], 3) == 4);
    CHECK(count(&raw, KCAL_PATTERN_MUTUAL, KCAL_PASS_STREAM, sizes[n - 1], 3) == 4);
    CHECK(count(&raw, KCAL_PATTERN_MUTUAL, 1, sizes[0], 3) == 0);
    CHECK(meter.done == kcal_pass_work(&s));
    /* The peer is reaped. */
    CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
    kcal_raw_free(&raw);

    /* No sizes (one core): nothing measured, no child. */
    kcal_raw_init(&raw);
    s.n_sizes = 0;
    CHECK(kcal_pass_measure(&s, &raw, err, sizeof err) == 0);
    CHECK(raw.n == 0 && kcal_pass_work(&s) == 0);
    kcal_raw_free(&raw);

    /* The peer killed mid-measurement: an error naming it, soon, not a
     * probe spinning for ever on a progress word nobody will raise. */
    n = kcal_pass_size_list(0, sizes, 16);
    s.n_sizes = n;
    s.passes = 100000; /* far longer than the test: only the kill ends it */
    kcal_raw_init(&raw);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, killer, (void *)(long)SIGKILL) == 0);
    double t0 = now();
    err[0] = 0;
    CHECK(kcal_pass_measure(&s, &raw, err, sizeof err) == -1);
    pthread_join(th, NULL);
    CHECK(now() - t0 < 5);
    CHECK(strstr(err, "peer process died") != NULL);
    CHECK(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD);
    kcal_raw_free(&raw);
    return check_report();
}
