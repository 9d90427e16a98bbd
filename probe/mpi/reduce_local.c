/* reduce_local: timing MPI_Reduce_local for the probe's reduce phase (see
 * reduce_local.h and probe/reduce.h). */
#include <mpi.h>

#include "probe/mpi/reduce_local.h"
#include "probe/reduce.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

typedef struct {
    char pattern[24];
    long bytes;
    int inner; /* calls per sample */
} rsize;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Involuntary context switches so far: a sample during which they grew
 * timed another process too (probe/phases.h's rule). */
static long switches(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_nivcsw : -1;
}

/* `calls` back-to-back calls on the first `bytes` of the buffers. Seconds
 * per call, or -1 when a call failed. */
static double timed(const double *in, double *inout, long bytes, int calls)
{
    int count = (int)(bytes / (long)sizeof(double));
    double t0 = now();
    for (int i = 0; i < calls; i++)
        if (MPI_Reduce_local(in, inout, count, MPI_DOUBLE, MPI_SUM) !=
            MPI_SUCCESS)
            return -1;
    return (now() - t0) / calls;
}

static int parse(int argc, char **argv, int *passes, double *min_sample,
                 rsize **sizes, int *n, long *top, char *err, size_t errlen)
{
    char *end;
    if (argc < 4 || strcmp(argv[0], KCAL_REDUCE_ARG)) {
        snprintf(err, errlen, "%s: want %s PASSES MIN_SAMPLE PATTERN:BYTES...",
                 argc ? argv[0] : "", KCAL_REDUCE_ARG);
        return -1;
    }
    *passes = (int)strtol(argv[1], &end, 10);
    if (*end || *passes < 1 || *passes > 100000) {
        snprintf(err, errlen, "%s: bad PASSES '%s'", KCAL_REDUCE_ARG, argv[1]);
        return -1;
    }
    *min_sample = strtod(argv[2], &end);
    if (*end || !(*min_sample >= 0 && *min_sample < 10)) {
        snprintf(err, errlen, "%s: bad MIN_SAMPLE '%s'", KCAL_REDUCE_ARG,
                 argv[2]);
        return -1;
    }
    *n = argc - 3;
    *sizes = calloc((size_t)*n, sizeof **sizes);
    if (!*sizes) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *top = 0;
    for (int i = 0; i < *n; i++) {
        rsize *s = &(*sizes)[i];
        const char *a = argv[3 + i], *colon = strchr(a, ':');
        size_t pl = colon ? (size_t)(colon - a) : 0;
        if (colon)
            s->bytes = strtol(colon + 1, &end, 10);
        if (!colon || pl >= sizeof s->pattern || *end ||
            s->bytes < (long)sizeof(double) || s->bytes % 8 ||
            s->bytes > KCAL_REDUCE_COLD_MAX) {
            snprintf(err, errlen, "%s: bad size '%s'", KCAL_REDUCE_ARG, a);
            free(*sizes);
            return -1;
        }
        memcpy(s->pattern, a, pl);
        s->pattern[pl] = '\0';
        if (s->bytes > *top)
            *top = s->bytes;
    }
    return 0;
}

int kcal_reduce_local_run(int argc, char **argv, FILE *out, char *err,
                          size_t errlen)
{
    int passes, n;
    double min_sample;
    rsize *sz;
    long top;
    if (parse(argc, argv, &passes, &min_sample, &sz, &n, &top, err,
              errlen) < 0)
        return -1;
    double *in = NULL, *inout = NULL;
    int rc = -1;
    if (posix_memalign((void **)&in, 4096, (size_t)top) ||
        posix_memalign((void **)&inout, 4096, (size_t)top)) {
        snprintf(err, errlen, "out of memory (2 x %ld bytes)", top);
        goto done;
    }
    /* Normal numbers that stay normal however often they are summed (no
     * denormals, no overflow): the op's time must not depend on them. */
    for (long i = 0; i < top / (long)sizeof(double); i++)
        in[i] = 1.0, inout[i] = 0.0;
    /* Calls per sample: enough for min_sample, from a warm call's time. */
    for (int k = 0; k < n; k++) {
        double t;
        timed(in, inout, sz[k].bytes, 1);
        if ((t = timed(in, inout, sz[k].bytes, 3)) < 0)
            goto call_failed;
        double want = t > 0 ? min_sample / t : 1e6;
        sz[k].inner = want < 1 ? 1 : want > 1e6 ? 1000000 : (int)want + 1;
    }
    for (int pass = 0; pass < passes; pass++)
        for (int k = 0; k < n; k++) {
            int cold = !strcmp(sz[k].pattern, KCAL_PATTERN_COLD);
            double t = 0;
            for (int tries = 0; tries < 5; tries++) {
                /* In cache: one untimed call first, as the pass's other
                 * sizes (the cold one) have moved the buffers out. */
                if (!cold && timed(in, inout, sz[k].bytes, 1) < 0)
                    goto call_failed;
                long sw = switches();
                t = timed(in, inout, sz[k].bytes, sz[k].inner);
                if (t < 0)
                    goto call_failed;
                if (sw >= 0 && switches() == sw)
                    break;
            }
            fprintf(out, "%s %s %ld %d %.17g\n", KCAL_REDUCE_LINE,
                    sz[k].pattern, sz[k].bytes, pass, t);
        }
    rc = 0;
    goto done;
call_failed:
    snprintf(err, errlen, "MPI_Reduce_local(MPI_DOUBLE, MPI_SUM) failed");
done:
    free(in);
    free(inout);
    free(sz);
    return rc;
}
