/* bench_opts: kcal-bench-mpi's options and the variants they ask for
 * (see bench_opts.h). */
#include "bench/bench_opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "algos/reduce.h"
#include "bench/bench_world.h"
#include "common/mpi_flavor.h"
#include "common/sizes.h"

static int world_rank(void)
{
    int me = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    return me;
}

static int world_size(void)
{
    int p = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    return p;
}

void bench_usage_error(const char *msg, const char *arg)
{
    if (world_rank() == 0)
        fprintf(stderr, "kcal-bench-mpi: %s%s%s\n", msg, arg ? ": " : "",
                arg ? arg : "");
    MPI_Finalize();
    exit(2);
}

static long num(const char *s, long lo, long hi, const char *opt)
{
    char *end;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || !*s || *end || v < lo || v > hi)
        bench_usage_error("bad value for", opt);
    return v;
}

/* --type and --op: their rows (reduce_names.h, the check kcal bench makes
 * too) and handles, row i of algos/reduce_types.def's named types and ops.
 * libkcoll must reduce the pair itself at the row's size (else every row
 * but mpi would time the MPI library): kcoll_reducible decides that. */
static void choose_reduction(options *o)
{
    static const MPI_Datatype types[] = {
#define KCOLL_RTYPE_NAMED(name, handle, ctype, cls) handle,
#define KCOLL_RTYPE_PAIR(name, handle, vtype) handle,
#include "algos/reduce_types.def"
    };
    static const MPI_Op ops[] = {
#define KCOLL_ROP(name, handle, classes) handle,
#include "algos/reduce_types.def"
    };
    char err[600];
    if (kcal_reduce_choose(o->coll, o->type_name, o->op_name, &o->type,
                           &o->op, err, sizeof err) != 0)
        bench_usage_error(err, NULL);
    o->mpi_type = types[o->type - kcal_reduce_types];
    o->mpi_op = ops[o->op - kcal_reduce_ops];
    size_t esize = 0;
    if (!kcoll_reducible(o->mpi_type, o->mpi_op, &esize) ||
        esize != o->type->size) {
        snprintf(err, sizeof err, "--type %s --op %s: libkcoll does not "
                 "reduce it itself here (element size %zu, want %zu)",
                 o->type->name, o->op->name, esize, o->type->size);
        bench_usage_error(err, NULL);
    }
}

void bench_parse(int argc, char **argv, options *o)
{
    int p = world_size();
    *o = (options){.coll = KCAL_COLL_COUNT, .sizes = KCAL_DEFAULT_SIZES,
                   .iterations = 50, .warmup = 5};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--coll")) {
            if (!v || kcal_coll_from_name(v, &o->coll) != 0)
                bench_usage_error("unknown collective", v);
            i++;
        } else if (!strcmp(a, "--sizes")) {
            o->sizes = v ? v : "";
            i++;
        } else if (!strcmp(a, "--algorithm")) {
            o->algorithm = v;
            i++;
        } else if (!strcmp(a, "--iterations")) {
            o->iterations = num(v, 1, 100000000, a);
            i++;
        } else if (!strcmp(a, "--warmup")) {
            o->warmup = num(v, 0, 100000000, a);
            i++;
        } else if (!strcmp(a, "--root")) {
            o->root = (int)num(v, 0, p - 1, a);
            i++;
        } else if (!strcmp(a, "--type")) {
            o->type_name = v ? v : "";
            i++;
        } else if (!strcmp(a, "--op")) {
            o->op_name = v ? v : "";
            i++;
        } else if (!strcmp(a, "--cold")) {
            o->cold = 1;
        } else if (!strcmp(a, "--no-auto-limit")) {
            o->no_auto_limit = 1;
        } else if (!strcmp(a, "--loop")) {
            o->loop = 1;
        } else if (!strcmp(a, "--rounds")) {
            o->rounds = num(v, 1, 1000000, a);
            i++;
        } else if (!strcmp(a, "--twin")) {
            if (!v || !*v)
                bench_usage_error("--twin needs a variant of --algorithm", v);
            o->twin = v;
            i++;
        } else if (!strcmp(a, "--check")) {
            o->check = 1;
        } else if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
            o->quiet = 1;
        } else if (!strcmp(a, "--progress")) {
            o->progress = 1;
        } else if (!strcmp(a, "--mpi")) {
            if (!v || !kcal_mpi_flavor_find(v))
                bench_usage_error("unknown MPI library (openmpi, mpich)", v);
            o->mpi = v;
            i++;
        } else if (!strcmp(a, "--expect-p")) {
            o->expect_p = num(v, 1, 1 << 30, a);
            i++;
        } else if (!strcmp(a, "--library")) {
            o->library = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (world_rank() == 0)
                printf("usage: kcal-bench-mpi --coll C [--sizes LIST|MIN:MAX] "
                       "[--algorithm ID[,ID...]]\n"
                       "       [--type T] [--op O] [--iterations N] "
                       "[--warmup N] [--cold] [--check] [--root R]\n"
                       "       [--no-auto-limit] [--loop [--rounds R] [--twin ID]] "
                       "[--quiet] [--progress] [--mpi NAME] [--expect-p P]\n"
                       "       [--library]\n"
                       "Run it under mpirun or srun; rank 0 prints CSV (see "
                       "`kcal bench --help`).\n");
            MPI_Finalize();
            exit(0);
        } else {
            bench_usage_error("unknown option", a);
        }
    }
    if (o->coll == KCAL_COLL_COUNT && !o->library)
        bench_usage_error("--coll is required", NULL);
    if ((o->type_name || o->op_name) && o->coll != KCAL_COLL_COUNT)
        choose_reduction(o);
    if (o->loop && !o->algorithm)
        bench_usage_error("--loop needs --algorithm", NULL);
    if (o->rounds && !o->loop)
        bench_usage_error("--rounds splits --loop's calls: give --loop", NULL);
    if (o->rounds > o->iterations)
        bench_usage_error("--rounds is more than --iterations", NULL);
    if (o->twin && !o->loop)
        bench_usage_error("--twin measures a --loop variant twice: give --loop",
                          NULL);
    if (o->loop && o->check)
        bench_usage_error("--loop times calls, --check checks them: one at a time",
                    NULL);
}

/* The MPI library this program runs with, as one line (mpi_flavor.h), and
 * whether it is the one kcal bench built it for, launched as one job of
 * the processes it asked for. A mismatch ends the run (exit 2): every
 * process sees the same library; a singleton is its own rank 0 and says
 * so, which is the message kcal bench shows. */
void bench_check_library(const options *o, char *library, size_t len)
{
    char msg[512];
    if (kcal_bench_world_check(o->mpi, o->expect_p, library, len, msg,
                               sizeof msg) != 0)
        bench_usage_error(msg, NULL);
}

/* One item of --algorithm: an id (or mpi) and k, 0 for every k. */
typedef struct {
    char item[128], id[64];
    int k, matched;
} wanted;

/* --algorithm's comma-separated items; *count of them (0 without it). */
static wanted *parse_wanted(const options *o, int *count)
{
    *count = 0;
    if (!o->algorithm)
        return NULL;
    const char *s = o->algorithm;
    int n = 1;
    for (const char *c = s; *c; c++)
        n += *c == ',';
    wanted *w = calloc((size_t)n, sizeof *w);
    if (!w)
        bench_usage_error("out of memory", NULL);
    for (int i = 0; i < n; i++) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        char *item = w[i].item;
        if (len == 0 || len >= sizeof w[i].item)
            bench_usage_error("unknown algorithm", o->algorithm);
        memcpy(item, s, len);
        item[len] = '\0';
        const char *colon = strchr(item, ':');
        size_t idlen = colon ? (size_t)(colon - item) : len;
        if (idlen == 0 || idlen >= sizeof w[i].id)
            bench_usage_error("unknown algorithm", item);
        memcpy(w[i].id, item, idlen);
        w[i].id[idlen] = '\0';
        w[i].k = colon ? (int)num(colon + 1, 1, 1 << 30, "--algorithm") : 0;
        int extra = !strcmp(w[i].id, "mpi") ||
                    (o->loop && (!strcmp(w[i].id, "auto") ||
                                 !strcmp(w[i].id, "limit")));
        if (!extra && !kcal_model_find_algorithm(o->coll, w[i].id))
            bench_usage_error("unknown algorithm", item);
        s = end ? end + 1 : s + len;
    }
    *count = n;
    return w;
}

/* Whether --algorithm names id (mpi, auto, limit). */
static int named(const wanted *want, int nwant, const char *id)
{
    for (int w = 0; w < nwant; w++)
        if (!strcmp(want[w].id, id))
            return 1;
    return 0;
}

/* Every variant to measure: the MPI built-in first, then model.md order
 * (only --algorithm's items when given), then auto and the limit (always,
 * as mpi, unless --no-auto-limit). With --loop only what --algorithm names,
 * mpi, auto and limit included. */
variant *bench_variants(const options *o, int *count)
{
    int p = world_size();
    size_t na;
    const kcal_algorithm *algs = kcal_model_algorithms(o->coll, &na);
    variant *v = calloc(na * (size_t)(p + 2) + 4, sizeof *v);
    int c = 0, nwant;
    wanted *want = parse_wanted(o, &nwant);
    if (!o->loop || named(want, nwant, "mpi"))
        v[c++] = (variant){"", "mpi", -1, V_MPI};
    for (size_t i = 0; i < na; i++) {
        const kcal_algorithm *a = &algs[i];
        int lo = 0, hi = 0;
        if (a->kind == KCAL_PARAM_THROTTLE)
            lo = 2, hi = p - 1;
        else if (a->kind == KCAL_PARAM_STRIDE)
            lo = hi = 1;
        /* A stride other than 1 is measured only when asked for. */
        for (int w = 0; w < nwant && a->kind == KCAL_PARAM_STRIDE; w++)
            if (!strcmp(want[w].id, a->id) && want[w].k > 0) {
                lo = lo < want[w].k ? lo : want[w].k;
                hi = hi > want[w].k ? hi : want[w].k;
            }
        for (int k = lo; k <= hi; k++) {
            if (!kcal_model_k_valid(a, p, k))
                continue;
            int take = !want;
            for (int w = 0; w < nwant; w++)
                if (!strcmp(want[w].id, a->id) &&
                    (want[w].k == 0 || want[w].k == k)) {
                    want[w].matched = 1;
                    take = 1;
                }
            if (!take)
                continue;
            variant *x = &v[c++];
            x->kind = V_KCOLL;
            x->name = a->id;
            x->k = a->kind == KCAL_PARAM_NONE ? -1 : k;
            if (x->k < 0)
                snprintf(x->spec, sizeof x->spec, "%s", a->id);
            else
                snprintf(x->spec, sizeof x->spec, "%s:%d", a->id, k);
        }
    }
    for (int w = 0; w < nwant; w++)
        if (strcmp(want[w].id, "mpi") && strcmp(want[w].id, "auto") &&
            strcmp(want[w].id, "limit") && !want[w].matched)
            bench_usage_error("algorithm not valid at this p", want[w].item);
    if (o->loop ? named(want, nwant, "auto") : !o->no_auto_limit)
        v[c++] = (variant){"", "auto", -1, V_AUTO};
    if (o->loop ? named(want, nwant, "limit") : !o->no_auto_limit)
        v[c++] = (variant){"", "limit", -1, V_LIMIT};
    if (o->twin) { /* after the others: the twin is no one's predecessor */
        static char name[80];
        int t = -1;
        for (int i = 0; i < c; i++)
            if ((v[i].kind == V_KCOLL && !strcmp(v[i].spec, o->twin)) ||
                (v[i].kind == V_MPI && !strcmp(o->twin, "mpi")))
                t = i;
        if (t < 0)
            bench_usage_error("--twin is not a fixed variant of --algorithm",
                              o->twin);
        snprintf(name, sizeof name, "%s#2", o->twin);
        v[c] = v[t];
        v[c++].name = name;
    }
    free(want);
    *count = c;
    return v;
}
