/* reduce_local: timing MPI_Reduce_local for the probe's reduce phase (see
 * reduce_local.h and probe/reduce.h). */
#include <mpi.h>

#include "probe/mpi/reduce_local.h"
#include "probe/reduce.h"
#include "bench/reduce_fill.h"

#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* The C type of the pair class (model/reduce_rates.def says why MPI_2INT):
 * its layout, checked against the type's extent at run time. */
struct kcal_2int_ {
    int v, i;
};

enum {
#define KCAL_REDUCE_CLASS(name, ...) CLS_##name,
#include "model/reduce_rates.def"
    N_CLS
};

typedef struct {
    const char *name, *type;
    MPI_Datatype handle;
    size_t size; /* sizeof the C type */
    const char *fill; /* its row of bench/reduce_fill.h */
    const kcal_reduce_type *row;
} rclass;

static rclass classes[N_CLS];

/* The pairs' ops and classes (their patterns: probe/reduce_rates.c); the
 * op's handle is looked up in algos/reduce_types.def by name. */
static const struct {
    const char *op;
    int cls;
} rates[KCAL_N_MEMBERS_REDOP] = {
#define KCAL_REDUCE_RATE(op, cls) {#op, CLS_##cls},
#include "model/reduce_rates.def"
};

/* Filled at run time: Open MPI's handles are addresses, not constants.
 * -1 when a class's fill row is not reduce_fill.h's or not its size. */
static int classes_init(char *err, size_t errlen)
{
    int i = 0;
#define KCAL_REDUCE_CLASS(name, cl, handle_, ctype, fill_)                    \
    classes[i++] = (rclass){#name, #handle_, handle_, sizeof(ctype), fill_,   \
                            kcal_reduce_fill_type(fill_)};
#include "model/reduce_rates.def"
    for (i = 0; i < N_CLS; i++)
        if (!classes[i].row || classes[i].row->size != classes[i].size) {
            snprintf(err, errlen, "class %s: its fill row '%s' is %s",
                     classes[i].name, classes[i].fill,
                     classes[i].row ? "not the size of its C type"
                                    : "not in bench/reduce_fill.h");
            return -1;
        }
    return 0;
}

/* The op's row, for the fill. */
static const kcal_reduce_op *op_row(const char *name)
{
    for (size_t i = 0; i < kcal_reduce_nops; i++)
        if (!strcmp(name, kcal_reduce_ops[i].name))
            return &kcal_reduce_ops[i];
    return NULL;
}

static int op_handle(const char *name, MPI_Op *op)
{
#define KCOLL_ROP(name_, handle, cls)                                         \
    if (!strcmp(name, #name_)) {                                              \
        *op = handle;                                                         \
        return 0;                                                             \
    }
#include "algos/reduce_types.def"
    return -1;
}

typedef struct {
    char pattern[24];
    int rate; /* the pair of reduce_rates.def, -1: MPI_SUM on doubles */
    int cold; /* a pair's, out of cache */
    int every; /* timed in the passes that are multiples of it */
    long bytes;
    int inner; /* calls per sample */
} rsize;

/* What one sample reduces; with row, a pair's: in and inout (bytes of
 * each) filled anew, with pattern seed++, before each call, and with
 * evict, then moved out of the caches by reading evict's bytes. */
typedef struct {
    void *in;
    void *inout;
    int count;
    MPI_Datatype type;
    MPI_Op op;
    const kcal_reduce_type *row;
    const kcal_reduce_op *op_row;
    size_t bytes;
    unsigned seed;
    const unsigned char *evict[2];
    size_t evict_bytes; /* of each */
} rcall;

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

/* One load per cache line of b: the lines that were there leave the
 * caches (reduce.h: 2 x the last-level cache). */
static void evict(const unsigned char *const b[2], size_t n)
{
    volatile unsigned char sink = 0;
    unsigned char acc = 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < n; i += 64)
            acc ^= b[k][i];
    sink = acc;
    (void)sink;
}

/* `calls` back-to-back calls; a pair's each on operands filled anew as
 * kcal bench fills ranks 0 and 1 of 2 (bench/reduce_fill.h), untimed
 * (probe/reduce.h says why), the calls' times summed. Seconds per call,
 * or -1 when a call failed. */
static double timed(rcall *c, int calls)
{
    double t0 = now(), sum = 0;
    for (int i = 0; i < calls; i++) {
        if (c->row) {
            kcal_reduce_fill(c->in, c->bytes, c->row, c->op_row, c->seed, 0,
                             2);
            kcal_reduce_fill(c->inout, c->bytes, c->row, c->op_row,
                             c->seed++, 1, 2);
            if (c->evict[0])
                evict(c->evict, c->evict_bytes);
            t0 = now();
        }
        if (MPI_Reduce_local(c->in, c->inout, c->count, c->type, c->op) !=
            MPI_SUCCESS)
            return -1;
        if (c->row)
            sum += now() - t0;
    }
    return (c->row ? sum : now() - t0) / calls;
}

static size_t count_items(const char *s, const char *end)
{
    size_t n = 1;
    for (; s < end; s++)
        n += *s == ',';
    return n;
}

/* One argument PATTERN[,PATTERN...]:BYTES[,BYTES...] into its samples at
 * *sizes + *n. */
static int parse_arg(const char *a, rsize *sizes, int *n, long *top,
                     long *rtop, char *err, size_t errlen)
{
    const char *colon = strchr(a, ':'), *p = a;
    if (!colon)
        goto bad;
    /* The pairs and hot or cold: the most one argument names. */
    char pats[KCAL_N_MEMBERS_REDOP + 2][24];
    size_t np = 0;
    for (;;) {
        size_t l = strcspn(p, ",:");
        if (l == 0 || l >= sizeof pats[0] || np == sizeof pats / sizeof *pats)
            goto bad;
        memcpy(pats[np], p, l);
        pats[np++][l] = '\0';
        if (p[l] == ':')
            break;
        p += l + 1;
    }
    /* @EVERY: the passes that time this argument's samples. */
    int every = 1;
    const char *at = strchr(colon, '@');
    if (at) {
        char *e;
        long v = strtol(at + 1, &e, 10);
        if (e == at + 1 || *e || v < 1 || v > 100000)
            goto bad;
        every = (int)v;
    }
    for (const char *b = colon + 1;;) {
        char *end;
        long bytes = strtol(b, &end, 10);
        if (end == b || (*end && *end != ',' && end != at))
            goto bad;
        for (size_t i = 0; i < np; i++) {
            rsize *s = &sizes[(*n)++];
            strcpy(s->pattern, pats[i]);
            s->rate = -1;
            s->cold = 0;
            s->every = every;
            s->bytes = bytes;
            size_t elem = sizeof(double);
            if (strcmp(s->pattern, KCAL_PATTERN_HOT) &&
                strcmp(s->pattern, KCAL_PATTERN_COLD)) {
                if ((s->rate = kcal_reduce_rate_pattern(s->pattern, &s->cold)) < 0) {
                    snprintf(err, errlen, "%s: unknown pattern '%s' in '%s'",
                             KCAL_REDUCE_ARG, s->pattern, a);
                    return -1;
                }
                elem = classes[rates[s->rate].cls].size;
            }
            if (bytes < (long)elem || bytes % (long)elem ||
                bytes > KCAL_REDUCE_COLD_MAX)
                goto bad;
            long *t = s->rate < 0 ? top : rtop;
            if (bytes > *t)
                *t = bytes;
        }
        if (!*end || end == at)
            break;
        b = end + 1;
    }
    return 0;
bad:
    snprintf(err, errlen, "%s: bad size '%s'", KCAL_REDUCE_ARG, a);
    return -1;
}

static int parse(int argc, char **argv, int *passes, double *min_sample,
                 rsize **sizes, int *n, long *top, long *rtop, char *err,
                 size_t errlen)
{
    char *end;
    if (argc < 4 || strcmp(argv[0], KCAL_REDUCE_ARG)) {
        snprintf(err, errlen, "%s: want %s PASSES MIN_SAMPLE "
                 "PATTERN[,PATTERN...]:BYTES[,BYTES...]...",
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
    /* Every argument is the product of its two lists. */
    size_t total = 0;
    for (int i = 3; i < argc; i++) {
        const char *colon = strchr(argv[i], ':');
        if (!colon) {
            snprintf(err, errlen, "%s: bad size '%s'", KCAL_REDUCE_ARG,
                     argv[i]);
            return -1;
        }
        total += count_items(argv[i], colon) *
                 count_items(colon + 1, colon + strlen(colon));
    }
    *sizes = calloc(total, sizeof **sizes);
    if (!*sizes) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    *n = 0, *top = 0, *rtop = 0;
    for (int i = 3; i < argc; i++)
        if (parse_arg(argv[i], *sizes, n, top, rtop, err, errlen) < 0) {
            free(*sizes);
            return -1;
        }
    return 0;
}

/* The call sample k makes: MPI_SUM on the doubles in/inout, or its pair
 * on rin and rinout, which timed() fills before each call (patterns from
 * seed on). */
static void prepare(const rsize *s, const MPI_Op *ops,
                    const kcal_reduce_op *const *op_rows, unsigned seed,
                    double *in, double *inout, long top, void *rin,
                    void *rinout, rcall *c)
{
    if (s->rate < 0) {
        *c = (rcall){in, inout, (int)(s->bytes / (long)sizeof(double)),
                     MPI_DOUBLE, MPI_SUM, NULL, NULL, 0, 0, {NULL, NULL}, 0};
        return;
    }
    const rclass *cl = &classes[rates[s->rate].cls];
    long count = s->bytes / (long)cl->size;
    *c = (rcall){rin, rinout, (int)count, cl->handle, ops[s->rate], cl->row,
                 op_rows[s->rate], (size_t)count * cl->size, seed,
                 {NULL, NULL}, 0};
    if (s->cold) { /* cold's vectors evict it */
        c->evict[0] = (const unsigned char *)in;
        c->evict[1] = (const unsigned char *)inout;
        c->evict_bytes = (size_t)top;
    }
}

int kcal_reduce_local_run(int argc, char **argv, FILE *out, char *err,
                          size_t errlen)
{
    int passes, n;
    double min_sample;
    rsize *sz;
    long top, rtop;
    if (classes_init(err, errlen) < 0)
        return -1;
    if (parse(argc, argv, &passes, &min_sample, &sz, &n, &top, &rtop, err,
              errlen) < 0)
        return -1;
    /* A pair out of cache is evicted by cold's vectors: 2 x its size at
     * least (the plan's: 2 x the last-level cache). */
    long cold_top = 0;
    for (int k = 0; k < n; k++)
        if (!strcmp(sz[k].pattern, KCAL_PATTERN_COLD) && sz[k].bytes > cold_top)
            cold_top = sz[k].bytes;
    for (int k = 0; k < n; k++)
        if (sz[k].cold && cold_top < 2 * sz[k].bytes) {
            snprintf(err, errlen, "%s: %s at %ld bytes needs a %s size of "
                     "at least twice that, to evict it", KCAL_REDUCE_ARG,
                     sz[k].pattern, sz[k].bytes, KCAL_PATTERN_COLD);
            free(sz);
            return -1;
        }
    double *in = NULL, *inout = NULL;
    void *rin = NULL, *rinout = NULL;
    MPI_Op ops[KCAL_N_MEMBERS_REDOP];
    const kcal_reduce_op *op_rows[KCAL_N_MEMBERS_REDOP];
    const rsize *cur = NULL;
    rcall c;
    int rc = -1;
    /* Each pair's op, and its type's layout as the buffers are filled. */
    for (int i = 0; i < KCAL_N_MEMBERS_REDOP; i++) {
        const rclass *cl = &classes[rates[i].cls];
        MPI_Aint lb, extent;
        if (op_handle(rates[i].op, &ops[i]) < 0 ||
            !(op_rows[i] = op_row(rates[i].op))) {
            snprintf(err, errlen, "op %s of %s is not in "
                     "algos/reduce_types.def", rates[i].op,
                     kcal_reduce_rate_name(i));
            goto done;
        }
        if (MPI_Type_get_extent(cl->handle, &lb, &extent) != MPI_SUCCESS ||
            lb != 0 || (size_t)extent != cl->size) {
            snprintf(err, errlen, "%s's extent is not sizeof its C type "
                     "(%zu bytes): cannot time %s", cl->type, cl->size,
                     kcal_reduce_rate_name(i));
            goto done;
        }
    }
    if ((top && (posix_memalign((void **)&in, 4096, (size_t)top) ||
                 posix_memalign((void **)&inout, 4096, (size_t)top))) ||
        (rtop && (posix_memalign(&rin, 4096, (size_t)rtop) ||
                  posix_memalign(&rinout, 4096, (size_t)rtop)))) {
        snprintf(err, errlen, "out of memory (2 x %ld bytes)", top + rtop);
        goto done;
    }
    /* Normal numbers that stay normal however often they are summed (no
     * denormals, no overflow): the op's time must not depend on them. */
    for (long i = 0; i < top / (long)sizeof(double); i++)
        in[i] = 1.0, inout[i] = 0.0;
    /* Calls per sample: enough for min_sample, from a warm call's time;
     * a pair's sample lasts min_sample with its fills (which on small
     * sizes take many times the call), so its calls are fewer. */
    for (int k = 0; k < n; k++) {
        double t, w0;
        cur = &sz[k];
        if (cur->cold) { /* its fill and eviction outlast any min_sample */
            sz[k].inner = 1;
            continue;
        }
        prepare(cur, ops, op_rows, 0, in, inout, top, rin, rinout, &c);
        timed(&c, 1);
        w0 = now();
        if ((t = timed(&c, 3)) < 0)
            goto call_failed;
        if (c.row)
            t = (now() - w0) / 3;
        double want = t > 0 ? min_sample / t : 1e6;
        sz[k].inner = want < 1 ? 1 : want > 1e6 ? 1000000 : (int)want + 1;
    }
    for (int pass = 0; pass < passes; pass++)
        for (int k = 0; k < n; k++) {
            cur = &sz[k];
            if (pass % cur->every)
                continue;
            int cold = cur->cold || !strcmp(cur->pattern, KCAL_PATTERN_COLD);
            double t = 0;
            for (int tries = 0; tries < 5; tries++) {
                /* In cache: one untimed call first, as the pass's other
                 * samples (the cold one, the other pairs) have moved the
                 * buffers out or written them. */
                prepare(cur, ops, op_rows, (unsigned)pass << 20, in, inout,
                        top, rin, rinout, &c);
                if (!cold && timed(&c, 1) < 0)
                    goto call_failed;
                long sw = switches();
                t = timed(&c, cur->inner);
                if (t < 0)
                    goto call_failed;
                if (sw >= 0 && switches() == sw)
                    break;
            }
            fprintf(out, "%s %s %ld %d %.17g\n", KCAL_REDUCE_LINE,
                    cur->pattern, cur->bytes, pass, t);
        }
    rc = 0;
    goto done;
call_failed:
    if (cur->rate < 0)
        snprintf(err, errlen, "MPI_Reduce_local(MPI_DOUBLE, MPI_SUM) failed");
    else
        snprintf(err, errlen, "MPI_Reduce_local(%s, %s) failed (%s)",
                 classes[rates[cur->rate].cls].type, rates[cur->rate].op,
                 cur->pattern);
done:
    free(in);
    free(inout);
    free(rin);
    free(rinout);
    free(sz);
    return rc;
}
