/* predict_cmd: `kcal predict` — rank every algorithm of a collective for p
 * processes over a list of sizes, with the model of model.md; for a list
 * of collectives (or all), one after the other in one process, printing
 * what the runs of each would print one after the other, except that CSV
 * has one header and JSON is one array (one document, as for one).
 *
 * All input is checked before anything is printed, so a bad option leaves
 * stdout empty; that includes params whose predicted times overflow a
 * double (check_finite), which the params reader cannot see alone. CSV and JSON carry every (algorithm, k) uncollapsed: they are
 * what the report joins on; the table is for people. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/reduce_names.h"
#include "cmd/cli.h"
#include "common/columns.h"
#include "common/numfmt.h"
#include "model/irregular.h"
#include "model/model.h"
#include "cmd/predict_irregular.h"
#include "cmd/predict_ppn.h"
#include "common/sizes.h"
#include "model/two_level.h"

enum { FMT_TABLE, FMT_CSV, FMT_JSON };

typedef struct {
    kcal_coll colls[KCAL_COLL_COUNT]; /* --coll, in the order named */
    size_t n_colls;                   /* 0: no --coll */
    long p;
    long ppn; /* --ppn: ranks per node, 0 for one node */
    uint64_t *sizes;
    size_t n_sizes;
    long only_k;
    int in_place;
    int format;
    long top;
    int explain;
    kcal_model_kind model;
    int model_named; /* --model given; else kcal_model_default */
    const char *params_file, *machine;
    const char *vcoll;  /* --coll of a v-collective (alone): predict_irregular */
    const char *counts; /* --counts, for a v-collective */
    const char *type, *op; /* --type, --op: a reduction's; NULL if not given */
    kcal_pkey rate; /* the op's rate key (kcal_reduce_rate_key), -1: none */
} options;

static const char *const CMD = "predict";

static void usage(FILE *f)
{
    fprintf(f,
        "usage: kcal predict --coll C[,C...]|all --p P [--ppn PPN]\n"
        "                    [--size N | --sizes LIST|MIN:MAX]\n"
        "                    [--k K] [--in-place] [--model paper|full]\n"
        "                    [--format table|csv|json] [--top N] [--explain]\n"
        "                    [--params FILE | --machine knl|broadwell|power8]\n"
        "                    [--type T] [--op O]   (the reductions)\n"
        "       kcal predict --coll V --p P [--sizes LIST] [--counts DIST] ...\n"
        "\n"
        "Rank the reference algorithms of collective C for P processes on one\n"
        "node, by the cost model of docs/model.md. C is one of\n"
        "  %s,\n"
        "or a comma-separated list of them, or all (every one, in that order):\n"
        "then the output is what the run of each prints, one after the other,\n"
        "except that CSV has one header line and JSON is one array holding\n"
        "every collective's records. Sizes are bytes with optional binary\n"
        "suffixes (1K = 1024, 4M, 1G): n is the block per process, the whole\n"
        "message for bcast. Default sizes: " KCAL_DEFAULT_SIZES " (powers of two).\n"
        "\n"
        "  --ppn PPN    P ranks on P/PPN nodes: libkcoll's two-level rows\n"
        "               (two_level:<node algorithm>) and the MPI library's flat\n"
        "               collective (mpi_flat); needs net_alpha and net_beta in\n"
        "               the params (kcal probe --network)\n"
        "  --k K        only throttle factor K for throttled_*/knomial (2..P-1,\n"
        "               2..PPN-1 with --ppn)\n"
        "  --in-place   MPI_IN_PLACE: no local T_memcpy\n"
        "  --model      paper (model.md's formulas as printed) or full; default:\n"
        "               full for params kcal probe measured, paper for the\n"
        "               paper's machine files\n"
        "               (plus in-cache copies beta_hot, per-step sync_step and\n"
        "               p-1 remote copies; absent keys fall back to the paper)\n"
        "  --top N      table: the N fastest rows, every k (default: collapse\n"
        "               throttle factors to the best k and its neighbours)\n"
        "  --explain    table: split times into start-up, copy, lock/contention\n"
        "               and shared-memory sync terms\n"
        "  --type, --op a reduction's elements and op (default double, sum;\n"
        "               kcal bench --help lists them): its fold is priced at\n"
        "               the op's rate, reduce_<op>_<class>_beta, where the\n"
        "               params hold it, else at reduce_beta (docs/model.md)\n"
        "  --format     table (default), csv (collective,p,size_bytes,algorithm,\n"
        "               k,predicted_s,rank), json (the same records)\n"
        "V, a v-collective (%s), takes\n"
        "  --counts     the distribution of its blocks, each size the mean block:\n"
        "               uniform (default), skew:F (rank 1's blocks F times),\n"
        "               random:SEED (0..2n), sparse (a quarter of the pairs,\n"
        "               4n each) or file:PATH (p lines of p byte counts,\n"
        "               row s = what rank s sends to each rank; docs/model.md)\n"
        "params: --params FILE, else --machine NAME, else $KCAL_PARAMS, else knl.\n",
        kcal_coll_list(), kcal_model_vcoll_list());
}

/* --coll: one collective, a comma-separated list of them (each once), or
 * all: every collective in model/collectives.def's order. 0, or -1 after
 * the one line naming the element that is not one. */
static int parse_colls(const char *arg, options *o)
{
    o->n_colls = 0;
    o->vcoll = NULL;
    if (kcal_model_is_vcoll(arg)) {
        o->vcoll = arg;
        return 0;
    }
    if (!strcmp(arg, "all")) {
        for (int c = 0; c < KCAL_COLL_COUNT; c++)
            o->colls[o->n_colls++] = (kcal_coll)c;
        return 0;
    }
    int list = strchr(arg, ',') != NULL;
    for (const char *s = arg;; s++) {
        size_t len = strcspn(s, ",");
        char name[32] = "";
        kcal_coll c = KCAL_COLL_COUNT;
        if (len < sizeof name) {
            memcpy(name, s, len);
            name[len] = '\0';
            if (kcal_coll_from_name(name, &c) < 0)
                c = KCAL_COLL_COUNT;
        }
        size_t seen = 0;
        while (seen < o->n_colls && o->colls[seen] != c)
            seen++;
        if (c == KCAL_COLL_COUNT || seen < o->n_colls) {
            const char *why = c != KCAL_COLL_COUNT ? "named twice"
                              : !strcmp(name, "all") ||
                                      kcal_model_is_vcoll(name)
                                  ? "stands alone, not in a list"
                              : len == 0 ? "an empty name"
                                         : "unknown collective";
            int unknown = c == KCAL_COLL_COUNT && strcmp(name, "all") &&
                          !kcal_model_is_vcoll(name);
            if (list)
                kcal_cli_error(CMD, "--coll '%s': item %zu '%.*s': %s%s%s%s",
                               arg, o->n_colls + 1, (int)len, s, why,
                               unknown ? " (" : "",
                               unknown ? kcal_coll_list() : "",
                               unknown ? "; or all)" : "");
            else
                kcal_cli_error(CMD, "unknown collective '%s' (%s; or all)",
                               arg, kcal_coll_list());
            return -1;
        }
        o->colls[o->n_colls++] = c;
        s += len;
        if (!*s)
            return 0;
    }
}

/* Returns 0, 1 for --help (done), or -1 after printing one error line. */
static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"coll", required_argument, 0, 'c'},
        {"p", required_argument, 0, 'p'},
        {"ppn", required_argument, 0, 'n'},
        {"size", required_argument, 0, 's'},
        {"sizes", required_argument, 0, 'S'},
        {"k", required_argument, 0, 'k'},
        {"in-place", no_argument, 0, 'i'},
        {"model", required_argument, 0, 'm'},
        {"format", required_argument, 0, 'f'},
        {"top", required_argument, 0, 't'},
        {"explain", no_argument, 0, 'e'},
        {"params", required_argument, 0, 'P'},
        {"machine", required_argument, 0, 'M'},
        {"counts", required_argument, 0, 'C'},
        {"type", required_argument, 0, 'T'},
        {"op", required_argument, 0, 'O'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *size_spec = NULL, *size_opt = NULL;
    char err[KCAL_ERRLEN];
    memset(o, 0, sizeof *o);
    o->p = -1;
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
        switch (c) {
        case 'c':
            if (parse_colls(optarg, o) < 0)
                return -1;
            break;
        case 'p':
            if (kcal_cli_int_option(CMD, "--p", optarg, 1, 1000000,
                                    "a whole number from 1 to 1000000", &o->p) != 0)
                return -1;
            break;
        case 'n':
            if (kcal_cli_int_option(CMD, "--ppn", optarg, 1, 1000000,
                                    "a whole number from 1 to 1000000", &o->ppn) != 0)
                return -1;
            break;
        case 's':
            size_opt = optarg;
            break;
        case 'S':
            size_spec = optarg;
            break;
        case 'k':
            if (kcal_cli_int_option(CMD, "--k", optarg, 1, 1000000,
                                    "a positive whole number", &o->only_k) != 0)
                return -1;
            break;
        case 'i':
            o->in_place = 1;
            break;
        case 'm':
            o->model_named = 1;
            if (kcal_model_from_name(optarg, &o->model) < 0) {
                kcal_cli_error(CMD, "unknown model '%s' (available: paper, "
                               "full)", optarg);
                return -1;
            }
            break;
        case 'f':
            if (!strcmp(optarg, "table"))
                o->format = FMT_TABLE;
            else if (!strcmp(optarg, "csv"))
                o->format = FMT_CSV;
            else if (!strcmp(optarg, "json"))
                o->format = FMT_JSON;
            else {
                kcal_cli_error(CMD, "unknown format '%s' (table, csv, json)",
                               optarg);
                return -1;
            }
            break;
        case 't':
            if (kcal_cli_int_option(CMD, "--top", optarg, 1, 100000000,
                                    "a positive whole number", &o->top) != 0)
                return -1;
            break;
        case 'e':
            o->explain = 1;
            break;
        case 'P':
            o->params_file = optarg;
            break;
        case 'M':
            o->machine = optarg;
            break;
        case 'C':
            o->counts = optarg;
            break;
        case 'T':
            o->type = optarg;
            break;
        case 'O':
            o->op = optarg;
            break;
        default:
            return kcal_cli_other_option(CMD, c, argv, usage);
        }
    }
    if (kcal_cli_no_operands(CMD, argc, argv, optind) != 0)
        return -1;
    if ((!o->n_colls && !o->vcoll) || o->p < 0) {
        kcal_cli_error(CMD, "--coll and --p are required (kcal predict --help)");
        return -1;
    }
    o->rate = -1;
    if (o->type || o->op) {
        /* Every collective named must take them, and alike: one rate. */
        const kcal_reduce_type *t = NULL;
        const kcal_reduce_op *op = NULL;
        if (o->vcoll) {
            kcal_cli_error(CMD, "%s: only the reductions (reduce, allreduce, "
                           "reduce_scatter_block) take a type and an op; "
                           "--coll %s moves bytes",
                           o->type ? "--type" : "--op", o->vcoll);
            return -1;
        }
        for (size_t c = 0; c < o->n_colls; c++)
            if (kcal_reduce_choose(o->colls[c], o->type, o->op, &t, &op, err,
                                   sizeof err) < 0) {
                kcal_cli_error(CMD, "%s", err);
                return -1;
            }
        o->rate = kcal_reduce_rate_key(op->name, t->cls);
    }
    if (o->counts && !o->vcoll) {
        kcal_cli_error(CMD, "--counts is for a v-collective (%s)",
                       kcal_model_vcoll_list());
        return -1;
    }
    if (o->vcoll && (o->ppn || o->only_k || o->in_place || o->top)) {
        kcal_cli_error(CMD, "--coll %s takes none of --ppn, --k, --in-place, "
                       "--top (the v-collectives' model has one node, no k)",
                       o->vcoll);
        return -1;
    }
    if (o->ppn && !kcal_two_level_layout_ok(o->p, o->ppn)) {
        kcal_cli_error(CMD, "--ppn %ld with --p %ld: P must be a multiple of "
                       "PPN on two or more nodes", o->ppn, o->p);
        return -1;
    }
    if (size_opt && size_spec) {
        kcal_cli_error(CMD, "give --size or --sizes, not both");
        return -1;
    }
    if (size_opt) {
        o->sizes = malloc(sizeof *o->sizes);
        if (!o->sizes || kcal_sizes_parse_one(size_opt, o->sizes, err, sizeof err) < 0) {
            kcal_cli_error(CMD, "--size: %s", o->sizes ? err : "out of memory");
            return -1;
        }
        o->n_sizes = 1;
    } else if (kcal_sizes_parse(size_spec ? size_spec : KCAL_DEFAULT_SIZES,
                                &o->sizes, &o->n_sizes, err, sizeof err) < 0) {
        kcal_cli_error(CMD, "--sizes: %s", err);
        return -1;
    }
    for (size_t c = 0; o->only_k && c < o->n_colls; c++) {
        size_t na;
        const kcal_algorithm *a = kcal_model_algorithms(o->colls[c], &na);
        int has_k = 0;
        for (size_t i = 0; i < na; i++)
            has_k |= a[i].kind == KCAL_PARAM_THROTTLE;
        if (!has_k) {
            kcal_cli_error(CMD, "--k: %s has no throttle factor",
                           kcal_coll_name(o->colls[c]));
            return -1;
        }
    }
    if (o->only_k) {
        long node_p = o->ppn ? o->ppn : o->p; /* --ppn: the node step's */
        if (o->only_k < 2 || o->only_k > node_p - 1) {
            kcal_cli_error(CMD, "--k %ld is out of range for %s = %ld (2..%s-1)",
                           o->only_k, o->ppn ? "ppn" : "p", node_p,
                           o->ppn ? "ppn" : "p");
            return -1;
        }
    }
    return 0;
}

/* Bytes on their way to f, written a block at a time: one fwrite per
 * 4 KiB, where three stdio calls per CSV row cost more than putting the
 * row together (scripts/bench-predict). One page of stack: a larger
 * block only adds pages to fault in (on the VMs measured a fault costs
 * as much as a thousand rows' copies), and stdout has its own buffer. */
typedef struct {
    FILE *f;
    size_t used;
    char data[4096];
} out_block;

static void block_flush(out_block *b)
{
    fwrite(b->data, 1, b->used, b->f);
    b->used = 0;
}

static void block_put(out_block *b, const char *s, size_t len)
{
    if (len > sizeof b->data - b->used) {
        block_flush(b);
        if (len > sizeof b->data) {
            fwrite(s, 1, len, b->f);
            return;
        }
    }
    memcpy(b->data + b->used, s, len);
    b->used += len;
}

/* CSV and JSON hold the model's algorithms only (what kcal report joins
 * on); the MPI library's row is in the table. Each row is
 * "%s,%ld,%llu,%s,%d,%.9g,%d\n" (k empty without one), put together with
 * common/numfmt: at p = 1024 there are ~45,000 rows, and fprintf's
 * conversions took longer than ranking them (scripts/bench-predict). */
static void print_csv(FILE *f, const options *o, kcal_coll c, uint64_t n,
                      const kcal_prediction *pr, long count)
{
    out_block out;
    out.f = f;
    out.used = 0;
    char head[128]; /* "collective,p,size_bytes,": every row of this size */
    int head_len = snprintf(head, sizeof head, "%s,%ld,%llu,",
                            kcal_coll_name(c), o->p, (unsigned long long)n);
    if (head_len < 0 || (size_t)head_len >= sizeof head)
        return; /* cannot be: a collective's name and two numbers */
    const kcal_algorithm *alg = NULL;
    size_t id_len = 0;
    for (long i = 0; i < count; i++) {
        if (kcal_model_is_mpi(pr[i].alg))
            continue;
        if (pr[i].alg != alg) { /* rows of one algorithm come together */
            alg = pr[i].alg;
            id_len = strlen(alg->id);
        }
        char tail[3 * KCAL_NUMFMT_LEN + 4]; /* ",k,seconds,rank\n" */
        size_t len = 0;
        tail[len++] = ',';
        if (alg->kind != KCAL_PARAM_NONE)
            len += kcal_numfmt_long(pr[i].k, tail + len);
        tail[len++] = ',';
        len += kcal_numfmt_g9(pr[i].seconds, tail + len);
        tail[len++] = ',';
        len += kcal_numfmt_long(pr[i].rank, tail + len);
        tail[len++] = '\n';
        if ((size_t)head_len + id_len + len <= sizeof out.data - out.used) {
            char *w = out.data + out.used; /* the row at once, as a rule */
            memcpy(w, head, (size_t)head_len);
            memcpy(w + head_len, alg->id, id_len);
            memcpy(w + head_len + id_len, tail, len);
            out.used += (size_t)head_len + id_len + len;
        } else {
            block_put(&out, head, (size_t)head_len);
            block_put(&out, alg->id, id_len);
            block_put(&out, tail, len);
        }
    }
    block_flush(&out);
}

static void print_json(FILE *f, const options *o, kcal_coll c, uint64_t n,
                       const kcal_prediction *pr, long count, int *first)
{
    for (long i = 0; i < count; i++) {
        if (kcal_model_is_mpi(pr[i].alg))
            continue;
        fprintf(f, "%s\n  {\"collective\": \"%s\", \"p\": %ld, "
                   "\"size_bytes\": %llu, \"algorithm\": \"%s\", \"k\": ",
                *first ? "" : ",", kcal_coll_name(c), o->p,
                (unsigned long long)n, pr[i].alg->id);
        if (pr[i].alg->kind != KCAL_PARAM_NONE)
            fprintf(f, "%d", pr[i].k);
        else
            fputs("null", f);
        fprintf(f, ", \"predicted_s\": %.9g, \"rank\": %d}", pr[i].seconds,
                pr[i].rank);
        *first = 0;
    }
}

/* Default table view: every algorithm without k, and for each throttled
 * family only its three fastest k and the best k's neighbours (how sensitive
 * the choice is) — the rest differ little and would bury the comparison.
 * Rows come fastest first, so one pass sees each family's best k first. */
typedef struct {
    const kcal_algorithm *alg;
    int best_k, seen;
} family_view;

static int shown(const options *o, const kcal_prediction *pr, long i,
                 family_view *fam, size_t *n_fam)
{
    if (o->top)
        return i < o->top;
    if (pr[i].alg->kind != KCAL_PARAM_THROTTLE)
        return 1;
    size_t f = 0;
    while (f < *n_fam && fam[f].alg != pr[i].alg)
        f++;
    if (f == *n_fam) {
        fam[f] = (family_view){pr[i].alg, pr[i].k, 0};
        (*n_fam)++;
    }
    fam[f].seen++;
    return fam[f].seen <= 3 || abs(fam[f].best_k - pr[i].k) <= 1;
}

static void print_table_size(FILE *f, const options *o, uint64_t n,
                             const kcal_prediction *pr, long count)
{
    char sz[32];
    fprintf(f, "\nsize %s (%llu bytes)\n", kcal_sizes_format(n, sz, sizeof sz),
            (unsigned long long)n);
    fprintf(f, "  rank  %-20s %5s %14s %8s", "algorithm", "k", "time_us",
            "x_best");
    if (o->explain)
        fprintf(f, " %11s %11s %11s %11s", "startup_us", "copy_us", "lock_us",
                "sync_us");
    fputc('\n', f);
    long hidden = 0;
    family_view fam[8]; /* at most one throttled family per collective */
    size_t n_fam = 0;
    /* x_best is against the fastest algorithm; the MPI library's row, where
     * it applies, is first (libkcoll hands the call to it: kcal probe
     * measured it faster than every algorithm at this size). */
    const kcal_prediction *best = pr;
    while (best < pr + count - 1 && kcal_model_is_mpi(best->alg))
        best++;
    for (long i = 0; i < count; i++) {
        if (!shown(o, pr, i, fam, &n_fam)) {
            hidden++;
            continue;
        }
        int mpi = kcal_model_is_mpi(pr[i].alg);
        char k[16] = "", rank[16] = "-";
        if (pr[i].alg->kind != KCAL_PARAM_NONE)
            snprintf(k, sizeof k, "%d", pr[i].k);
        if (!mpi)
            snprintf(rank, sizeof rank, "%d", pr[i].rank);
        double ratio = best->seconds > 0 ? pr[i].seconds / best->seconds : 1;
        fprintf(f, "  %4s  %-20s %5s %14.3f %8.2f", rank, pr[i].alg->id, k,
                pr[i].seconds * 1e6, ratio);
        if (o->explain)
            fprintf(f, " %11.3f %11.3f %11.3f %11.3f",
                    pr[i].terms.startup * 1e6, pr[i].terms.copy * 1e6,
                    pr[i].terms.lock * 1e6, pr[i].terms.sync * 1e6);
        fputs(mpi               ? "  <- libkcoll uses the MPI library here\n"
              : pr[i].rank == 1 ? "  <- best\n"
                                : "\n",
              f);
    }
    if (hidden)
        fprintf(f, "  (%ld more rows: other throttle factors; --top N or "
                   "--format csv shows them)\n", hidden);
}

typedef struct {
    uint64_t first, last;
    const kcal_algorithm *alg;
    int k;
} winner_run;

static void print_crossovers(FILE *f, const winner_run *runs, size_t n_runs)
{
    fprintf(f, "\nfastest algorithm by size%s\n",
            n_runs > 1 ? " (crossovers where it changes):" : ":");
    for (size_t i = 0; i < n_runs; i++) {
        char a[32], b[32], label[64];
        kcal_sizes_format(runs[i].first, a, sizeof a);
        kcal_sizes_format(runs[i].last, b, sizeof b);
        if (runs[i].alg->kind != KCAL_PARAM_NONE)
            snprintf(label, sizeof label, "%s k=%d", runs[i].alg->id,
                     runs[i].k);
        else
            snprintf(label, sizeof label, "%s", runs[i].alg->id);
        if (runs[i].first == runs[i].last)
            fprintf(f, "  %-16s %s\n", a, label);
        else
            fprintf(f, "  %-7s .. %-6s %s\n", a, b, label);
    }
}

/* Params pass their checks one key at a time, but together they can still
 * overflow: lock 0 with gamma_a 1e308 makes 0·γ(c) = 0·inf = NaN. Every
 * prediction is checked before the first byte is printed, so such params
 * are bad input (one line, exit 2, empty stdout), never "nan" in the CSV or
 * in JSON, which has no such number. Returns 0 or -1 after the message. */
static int check_finite(const options *o, kcal_coll c,
                        const kcal_params *prm)
{
    for (size_t s = 0; s < o->n_sizes; s++) {
        kcal_prediction bad;
        if (kcal_model_find_nonfinite(o->model, prm, c, (int)o->p,
                                      o->sizes[s], o->in_place, (int)o->only_k,
                                      &bad) != 1)
            continue;
        char names[4][48];
        snprintf(names[0], sizeof names[0], "start-up (%s)",
                 kcal_key_name(KCAL_PK_alpha));
        snprintf(names[1], sizeof names[1], "copy (%s)",
                 kcal_key_name(KCAL_PK_beta));
        snprintf(names[2], sizeof names[2], "lock (%s, %s, %s)",
                 kcal_key_name(KCAL_PK_lock), kcal_key_name(KCAL_PK_gamma_a),
                 kcal_key_name(KCAL_PK_gamma_b));
        snprintf(names[3], sizeof names[3], "sync (%s*, %s)",
                 kcal_key_info_of(KCAL_PK_sm_a)->prefix,
                 kcal_key_name(KCAL_PK_sync_step));
        const double v[] = {bad.terms.startup, bad.terms.copy, bad.terms.lock,
                            bad.terms.sync};
        char what[256] = "", k[24] = "", sz[32];
        int nbad = 0;
        for (int i = 0; i < 4; i++)
            if (!isfinite(v[i]))
                snprintf(what + strlen(what), sizeof what - strlen(what),
                         "%s%s", nbad++ ? " and " : "", names[i]);
        if (bad.alg->kind != KCAL_PARAM_NONE)
            snprintf(k, sizeof k, " k=%d", bad.k);
        char because[320];
        if (nbad)
            snprintf(because, sizeof because, "its %s term%s overflow%s a double",
                     what, nbad > 1 ? "s" : "", nbad > 1 ? "" : "s");
        else
            snprintf(because, sizeof because, "its terms are finite but their "
                     "sum overflows a double");
        kcal_cli_error(CMD, "%s: the predicted time of %s%s at p = %ld, size "
                       "%s is %s: %s",
                       prm->origin, bad.alg->id, k, o->p,
                       kcal_sizes_format(o->sizes[s], sz, sizeof sz),
                       isnan(bad.seconds) ? "NaN" : "inf", because);
        return -1;
    }
    return 0;
}

/* The full model uses the paper's term for every key the params lack: say
 * which, so a prediction is never silently the paper's. */
static void note_full_fallbacks(const kcal_params *prm)
{
    unsigned miss = kcal_model_full_missing(prm);
    const char *hot = kcal_key_name(KCAL_PK_beta_hot);
    const char *l3 = kcal_key_name(KCAL_PK_l3_cache);
    char both[96];
    snprintf(both, sizeof both, "%s and no %s", hot, l3);
    if (miss & (KCAL_FULL_NO_BETA_HOT | KCAL_FULL_NO_L3))
        kcal_cli_warn(CMD, "model full: no %s in the params: every copy costs "
                      "%s (the paper's term); kcal probe measures both",
                      (miss & KCAL_FULL_NO_BETA_HOT) && (miss & KCAL_FULL_NO_L3)
                          ? both
                      : (miss & KCAL_FULL_NO_BETA_HOT) ? hot
                                                       : l3,
                      kcal_key_name(KCAL_PK_beta));
    if (miss & KCAL_FULL_NO_SYNC_STEP)
        kcal_cli_warn(CMD, "model full: no %s in the params: per-step "
                      "synchronisation costs 0 (the paper's term); kcal probe "
                      "measures it when mpirun works",
                      kcal_key_name(KCAL_PK_sync_step));
}

/* issue 9, --explain with the full model: what it charged for the copies
 * of this size: the node's footprint (the collective's buffers; bruck adds
 * its scratch) and the knee it is held against, then per algorithm the
 * working set its β was looked up at (the busiest process's bytes), the β
 * and from which measurement, the concurrent copies' δ(c) where it runs
 * several at once, and which write keys a *_write row used. Only for
 * params with issue 9's keys, so older files explain as before. */
static void print_full_copies(FILE *f, const options *o, kcal_coll c,
                              const kcal_params *prm, uint64_t n,
                              const kcal_prediction *pr, long count)
{
    const char *beta = kcal_key_name(KCAL_PK_beta);
    const char *hot = kcal_key_name(KCAL_PK_beta_hot);
    const char *knee_key = kcal_key_name(KCAL_PK_cache_knee);
    const char *l3_key = kcal_key_name(KCAL_PK_l3_cache);
    char src[4][96];
    snprintf(src[KCAL_BETA_FROM_BETA], sizeof src[0], "%s: no cache "
             "measurement", beta);
    snprintf(src[KCAL_BETA_FROM_L3], sizeof src[0], "%s/%s by hwloc's %s",
             hot, beta, l3_key);
    snprintf(src[KCAL_BETA_FROM_KNEE], sizeof src[0], "%s/%s by the measured "
             "%s", hot, beta, knee_key);
    snprintf(src[KCAL_BETA_FROM_WS], sizeof src[0], "%s* curve",
             kcal_key_info_of(KCAL_PK_beta_ws)->prefix);
    kcal_full_copy fc;
    char fp[32];
    kcal_model_full_copy(prm, c, NULL, (int)o->p, 0, n, &fc);
    fprintf(f, "  copies (full model): node footprint %s",
            kcal_sizes_format((uint64_t)fc.footprint, fp, sizeof fp));
    if (fc.beta_source != KCAL_BETA_FROM_WS)
        fprintf(f, " -> %.3g GB/s (%s)", 1e-9 / fc.beta, src[fc.beta_source]);
    double knee = kcal_params_get_key(prm, KCAL_PK_cache_knee, 0);
    double l3 = kcal_params_get_key(prm, KCAL_PK_l3_cache, 0);
    if (knee > 0)
        fprintf(f, "; %s %.0f MiB measured", knee_key, knee / 1048576);
    if (knee > 0 && l3 > 0)
        fprintf(f, ", hwloc %s %.0f MiB (not used)", l3_key, l3 / 1048576);
    fputc('\n', f);
    for (long i = 0; i < count; i++) {
        if (i > 0 && pr[i].alg == pr[i - 1].alg)
            continue; /* one line per algorithm, at its first k */
        kcal_model_full_copy(prm, c, pr[i].alg, (int)o->p, pr[i].k, n,
                             &fc);
        int ws = fc.beta_source == KCAL_BETA_FROM_WS;
        if (!ws && fc.delta == 1 && !fc.write_keys)
            continue;
        fprintf(f, "    %-20s", pr[i].alg->id);
        if (ws)
            fprintf(f, " working set %s -> %.3g GB/s",
                    kcal_sizes_format((uint64_t)fc.working_set, fp, sizeof fp),
                    1e-9 * fc.delta * fc.write_scale / fc.beta);
        if (fc.delta != 1)
            fprintf(f, "; %d copies at once: delta = 1 + %.3g*(%d-1) = %.3f",
                    fc.concurrent, fc.conc, fc.concurrent, fc.delta);
        if (fc.write_keys)
            fprintf(f, "; writes:%s%s%s%s%s%s", fc.write_keys & 1 ? " " : "",
                    fc.write_keys & 1 ? kcal_key_name(KCAL_PK_alpha_write) : "",
                    fc.write_keys & 2 ? " " : "",
                    fc.write_keys & 2 ? kcal_key_name(KCAL_PK_lock_write) : "",
                    fc.write_keys & 4 ? " " : "",
                    fc.write_keys & 4 ? kcal_key_name(KCAL_PK_beta_write) : "");
        fputc('\n', f);
    }
}

/* Which rate the fold is priced at, --type and --op given: the op's own
 * key, or reduce_beta and why (a line of the table's header). */
static void print_rate(FILE *f, const options *o, const kcal_params *prm)
{
    const char *tn = o->type ? o->type : KCAL_REDUCE_DEFAULT_TYPE;
    const char *on = o->op ? o->op : KCAL_REDUCE_DEFAULT_OP;
    const char *base = KCAL_KEY_NAME(reduce_beta);
    double rho = kcal_params_get_key(prm, KCAL_PK_reduce_beta, -1);
    if (o->rate >= 0 && kcal_params_has_key(prm, o->rate))
        rho = kcal_params_get_key(prm, o->rate, -1), base = kcal_key_name(o->rate);
    if (rho > 0)
        fprintf(f, "  %s %s: the op at %s = %.3g ns/B (%.3g GB/s)", tn, on,
                base, 1e9 * rho, 1e-9 / rho);
    else
        fprintf(f, "  %s %s: the op at beta (no %s in the params)", tn, on,
                base);
    if (o->rate >= 0 && o->rate != KCAL_PK_reduce_beta &&
        !kcal_params_has_key(prm, o->rate))
        fprintf(f, "; %s is not in the params", kcal_key_name(o->rate));
    else if (o->rate < 0)
        fprintf(f, "; the model has no rate of its own for it");
    fputc('\n', f);
}

/* One collective's part of the output: for the table its header line,
 * a table per size and the crossovers; for CSV and JSON its records
 * (*first: no JSON record printed yet). ranking's buffers serve every
 * size and collective. Returns kcal's exit code. */
static int print_coll(FILE *f, const options *o, kcal_coll c,
                      const kcal_params *prm, kcal_ranking *ranking,
                      int *first)
{
    if (o->format == FMT_TABLE) {
        fprintf(f, "kcal predict: %s, p = %ld, model %s%s, params %s\n",
                kcal_coll_name(c), o->p, kcal_model_name(o->model),
                o->in_place ? ", in place" : "", prm->origin);
        if (o->type || o->op)
            print_rate(f, o, prm);
    }
    winner_run *runs = calloc(o->n_sizes, sizeof *runs);
    size_t n_runs = 0;
    int rc = runs ? KCAL_EXIT_OK : KCAL_EXIT_FAIL;
    for (size_t s = 0; s < o->n_sizes && runs; s++) {
        long count = kcal_model_rank_into(o->model, prm, c, (int)o->p,
                                          o->sizes[s], o->in_place,
                                          (int)o->only_k, ranking);
        const kcal_prediction *pr = ranking->pred;
        if (count <= 0) {
            kcal_cli_error(CMD, "out of memory ranking %ld algorithms", o->p);
            rc = KCAL_EXIT_FAIL;
            break;
        }
        if (o->format == FMT_CSV)
            print_csv(f, o, c, o->sizes[s], pr, count);
        else if (o->format == FMT_JSON)
            print_json(f, o, c, o->sizes[s], pr, count, first);
        else
            print_table_size(f, o, o->sizes[s], pr, count);
        if (o->format == FMT_TABLE && o->explain &&
            o->model == KCAL_MODEL_FULL && kcal_model_full_measured(prm))
            print_full_copies(f, o, c, prm, o->sizes[s], pr, count);
        if (n_runs && runs[n_runs - 1].alg == pr[0].alg &&
            runs[n_runs - 1].k == pr[0].k) {
            runs[n_runs - 1].last = o->sizes[s];
        } else {
            runs[n_runs++] = (winner_run){o->sizes[s], o->sizes[s], pr[0].alg,
                                          pr[0].k};
        }
    }
    if (rc == KCAL_EXIT_OK && o->format == FMT_TABLE)
        print_crossovers(f, runs, n_runs);
    free(runs);
    return rc;
}

/* A v-collective (predict_irregular.h): checked, then printed. */
static int predict_v(const options *o, kcal_predict_format format,
                     const kcal_params *prm, const char *chosen)
{
    kcal_vpredict_request r = {o->vcoll, o->p, o->sizes, o->n_sizes,
                               {0}, o->explain, format, o->model};
    char err[KCAL_ERRLEN];
    if (kcal_vcounts_parse(o->counts ? o->counts : "uniform", &r.counts, err,
                           sizeof err) < 0) {
        kcal_cli_error(CMD, "%s", err);
        return KCAL_EXIT_USAGE;
    }
    if (kcal_predict_irregular_check(CMD, &r, prm) < 0)
        return KCAL_EXIT_USAGE;
    kcal_cli_say_params(CMD, prm, chosen);
    int first = 1;
    if (format == KCAL_PREDICT_CSV)
        fputs(KCAL_CSV_PREDICTED_HEADER "\n", stdout);
    else if (format == KCAL_PREDICT_JSON)
        fputc('[', stdout);
    int rc = kcal_predict_irregular_print(CMD, &r, prm, &first);
    if (rc == KCAL_EXIT_OK && format == KCAL_PREDICT_JSON)
        fputs("\n]\n", stdout);
    if (fflush(stdout) != 0 && rc == KCAL_EXIT_OK) {
        kcal_cli_error(CMD, "writing the output failed");
        rc = KCAL_EXIT_FAIL;
    }
    return rc;
}

int kcal_predict_main(int argc, char **argv)
{
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != 0) {
        free(o.sizes);
        return rc > 0 ? KCAL_EXIT_OK : KCAL_EXIT_USAGE;
    }
    kcal_params prm;
    char chosen[512];
    if (kcal_cli_load_params_quietly(CMD, o.params_file, o.machine, &prm,
                                     chosen, sizeof chosen) < 0) {
        free(o.sizes);
        return KCAL_EXIT_USAGE;
    }
    /* Params that read but predict inf or NaN are bad input: one line, so
     * the line saying which params were loaded waits until they pass. So
     * do params without the network keys, with --ppn. Every collective of
     * a list is checked before the first prints. */
    if (!o.model_named)
        o.model = kcal_model_default(&prm);
    /* --type and --op: the params as their op sees them (its rate in
     * reduce_beta's place); the base params stay what is freed. */
    kcal_params view;
    kcal_params_reduce_view(&prm, o.rate, &view);
    static const kcal_predict_format formats[] = {
        [FMT_TABLE] = KCAL_PREDICT_TABLE, [FMT_CSV] = KCAL_PREDICT_CSV,
        [FMT_JSON] = KCAL_PREDICT_JSON};
    if (o.vcoll) {
        rc = predict_v(&o, formats[o.format], &prm, chosen);
        free(o.sizes);
        kcal_params_free(&prm);
        return rc;
    }
    kcal_ppn_request across[KCAL_COLL_COUNT];
    for (size_t c = 0; c < o.n_colls; c++) {
        across[c] = (kcal_ppn_request){o.colls[c], o.p, o.ppn, o.only_k,
                                       o.top, o.sizes, o.n_sizes, o.in_place,
                                       o.explain, formats[o.format], o.model};
        if (o.ppn ? kcal_predict_ppn_check(CMD, &across[c], &view) < 0
                  : check_finite(&o, o.colls[c], &view) < 0) {
            free(o.sizes);
            kcal_params_free(&prm);
            return KCAL_EXIT_USAGE;
        }
    }
    kcal_cli_say_params(CMD, &prm, chosen);
    if (o.model == KCAL_MODEL_FULL)
        note_full_fallbacks(&prm);

    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    FILE *f = stdout;
    if (o.format == FMT_CSV)
        fputs(KCAL_CSV_PREDICTED_HEADER "\n", f);
    else if (o.format == FMT_JSON)
        fputc('[', f);
    int first = 1;
    rc = KCAL_EXIT_OK;
    kcal_ranking ranking = {0}; /* one set of buffers for every size */
    for (size_t c = 0; c < o.n_colls && rc == KCAL_EXIT_OK; c++)
        rc = o.ppn ? kcal_predict_ppn_print(CMD, &across[c], &view, &first)
                   : print_coll(f, &o, o.colls[c], &view, &ranking, &first);
    kcal_ranking_free(&ranking);
    if (rc == KCAL_EXIT_OK && o.format == FMT_JSON)
        fputs("\n]\n", f);
    free(o.sizes);
    kcal_params_free(&prm);
    if (fflush(stdout) != 0 && rc == KCAL_EXIT_OK) {
        kcal_cli_error(CMD, "writing the output failed");
        rc = KCAL_EXIT_FAIL;
    }
    return rc;
}
