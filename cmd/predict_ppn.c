/* predict_ppn: `kcal predict --ppn` (predict_ppn.h). Same shapes as the
 * one-node output of predict_cmd.c: a table per size with the fastest
 * first, the throttle factors collapsed to the best k and its neighbours,
 * a summary of the fastest row by size; CSV and JSON with every row. The
 * algorithm column is two_level:<node algorithm> or mpi_flat. */
#include "cmd/predict_ppn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cli.h"
#include "common/sizes.h"
#include "model/two_level.h"

int kcal_predict_ppn_check(const char *cmd, const kcal_ppn_request *r,
                           const kcal_params *prm)
{
    kcal_net net;
    if (kcal_net_get(prm, &net) < 0) {
        kcal_cli_error(cmd, "%s: the params lack %s/%s, which --ppn needs "
                       "(kcal probe --network measures them between two "
                       "nodes)", prm->origin, kcal_key_name(KCAL_PK_net_alpha),
                       kcal_key_name(KCAL_PK_net_beta));
        return -1;
    }
    for (size_t s = 0; s < r->n_sizes; s++) {
        kcal_tl_prediction *pr;
        long count = kcal_two_level_rank(r->model, prm, &net, r->coll,
                                         (int)r->p, (int)r->ppn, r->sizes[s],
                                         r->in_place, (int)r->only_k, &pr);
        if (count < 0) {
            kcal_cli_error(cmd, "out of memory ranking the rows");
            return -1;
        }
        for (long i = 0; i < count; i++) {
            if (isfinite(pr[i].seconds))
                continue;
            char name[64], sz[32];
            kcal_cli_error(cmd, "%s: the predicted time of %s at p = %ld, "
                           "ppn = %ld, size %s is %s: a term overflows a "
                           "double", prm->origin,
                           kcal_two_level_name(&pr[i], name, sizeof name),
                           r->p, r->ppn,
                           kcal_sizes_format(r->sizes[s], sz, sizeof sz),
                           isnan(pr[i].seconds) ? "NaN" : "inf");
            free(pr);
            return -1;
        }
        free(pr);
    }
    return 0;
}

static void print_k(FILE *f, const kcal_tl_prediction *pr, int json)
{
    if (pr->node && pr->node->kind != KCAL_PARAM_NONE)
        fprintf(f, "%d", pr->k);
    else if (json)
        fputs("null", f);
}

/* Table view: the N fastest (--top), or every row but the throttle factors
 * beyond each family's three fastest and its best k's neighbours. Rows come
 * fastest first, so a family's first row holds its best k. */
typedef struct {
    const kcal_algorithm *alg;
    int best_k, seen;
} family_view;

static int shown(const kcal_ppn_request *r, const kcal_tl_prediction *pr,
                 long i, family_view *fam, size_t *n_fam)
{
    if (r->top)
        return i < r->top;
    if (!pr[i].node || pr[i].node->kind != KCAL_PARAM_THROTTLE)
        return 1;
    size_t f = 0;
    while (f < *n_fam && fam[f].alg != pr[i].node)
        f++;
    if (f == *n_fam)
        fam[(*n_fam)++] = (family_view){pr[i].node, pr[i].k, 0};
    fam[f].seen++;
    return fam[f].seen <= 3 || abs(fam[f].best_k - pr[i].k) <= 1;
}

static void print_table(FILE *f, const kcal_ppn_request *r, uint64_t n,
                        const kcal_tl_prediction *pr, long count)
{
    char sz[32], name[64];
    fprintf(f, "\nsize %s (%llu bytes)\n", kcal_sizes_format(n, sz, sizeof sz),
            (unsigned long long)n);
    fprintf(f, "  rank  %-34s %5s %14s %8s", "algorithm", "k", "time_us",
            "x_best");
    if (r->explain)
        fprintf(f, " %11s %11s %11s %11s %11s %11s", "node_start", "node_copy",
                "node_lock", "node_sync", kcal_key_name(KCAL_PK_net_alpha),
                kcal_key_name(KCAL_PK_net_beta));
    fputc('\n', f);
    family_view fam[8];
    size_t n_fam = 0;
    long hidden = 0;
    for (long i = 0; i < count; i++) {
        if (!shown(r, pr, i, fam, &n_fam)) {
            hidden++;
            continue;
        }
        char k[16] = "";
        if (pr[i].node && pr[i].node->kind != KCAL_PARAM_NONE)
            snprintf(k, sizeof k, "%d", pr[i].k);
        double ratio = pr[0].seconds > 0 ? pr[i].seconds / pr[0].seconds : 1;
        fprintf(f, "  %4d  %-34s %5s %14.3f %8.2f", pr[i].rank,
                kcal_two_level_name(&pr[i], name, sizeof name), k,
                pr[i].seconds * 1e6, ratio);
        if (r->explain) {
            const kcal_terms *t = &pr[i].node_terms;
            fprintf(f, " %11.3f %11.3f %11.3f %11.3f %11.3f %11.3f",
                    t->startup * 1e6, t->copy * 1e6, t->lock * 1e6,
                    t->sync * 1e6, pr[i].net_startup * 1e6,
                    pr[i].net_copy * 1e6);
        }
        fputs(pr[i].rank == 1 ? "  <- best\n" : "\n", f);
    }
    if (hidden)
        fprintf(f, "  (%ld more rows: other throttle factors; --top N or "
                   "--format csv shows them)\n", hidden);
    if (r->explain)
        fprintf(f, "  (node_*: the node steps at p = %ld; net_*: the MPI "
                   "library between nodes%s)\n", r->ppn,
                r->coll == KCAL_COLL_ALLTOALL
                    ? "; two_level alltoall: time_us is the larger of the "
                      "node and network parts, which overlap"
                    : "");
}

static void print_csv(FILE *f, const kcal_ppn_request *r, uint64_t n,
                      const kcal_tl_prediction *pr, long count)
{
    char name[64];
    for (long i = 0; i < count; i++) {
        fprintf(f, "%s,%ld,%llu,%s,", kcal_coll_name(r->coll), r->p,
                (unsigned long long)n,
                kcal_two_level_name(&pr[i], name, sizeof name));
        print_k(f, &pr[i], 0);
        fprintf(f, ",%.9g,%d\n", pr[i].seconds, pr[i].rank);
    }
}

static void print_json(FILE *f, const kcal_ppn_request *r, uint64_t n,
                       const kcal_tl_prediction *pr, long count, int *first)
{
    char name[64];
    for (long i = 0; i < count; i++) {
        fprintf(f, "%s\n  {\"collective\": \"%s\", \"p\": %ld, \"ppn\": %ld, "
                   "\"size_bytes\": %llu, \"algorithm\": \"%s\", \"k\": ",
                *first ? "" : ",", kcal_coll_name(r->coll), r->p, r->ppn,
                (unsigned long long)n,
                kcal_two_level_name(&pr[i], name, sizeof name));
        print_k(f, &pr[i], 1);
        fprintf(f, ", \"predicted_s\": %.9g, \"rank\": %d}", pr[i].seconds,
                pr[i].rank);
        *first = 0;
    }
}

static void print_network(FILE *f, const kcal_params *prm,
                          const kcal_net *net)
{
    fprintf(f, "network: %s %.3f us, %s %.4g ns/byte (%.3g GB/s)",
            kcal_key_name(KCAL_PK_net_alpha), net->alpha * 1e6,
            kcal_key_name(KCAL_PK_net_beta), net->beta * 1e9,
            net->beta > 0 ? 1e-9 / net->beta : INFINITY);
    if (kcal_params_has_key(prm, KCAL_PK_net_gap))
        fprintf(f, ", %s %.3f us", kcal_key_name(KCAL_PK_net_gap),
                net->gap * 1e6);
    const kcal_param *how = kcal_params_find_key(prm, KCAL_PK_net_probe);
    if (how && how->is_text)
        fprintf(f, " (%s: %s)", kcal_key_name(KCAL_PK_net_probe), how->text);
    fputc('\n', f);
}

int kcal_predict_ppn_print(const char *cmd, const kcal_ppn_request *r,
                           const kcal_params *prm, int *first)
{
    FILE *f = stdout;
    kcal_net net;
    kcal_net_get(prm, &net); /* checked by kcal_predict_ppn_check */
    if (r->format == KCAL_PREDICT_TABLE) {
        fprintf(f, "kcal predict: %s, p = %ld on %ld nodes of %ld, model %s%s, "
                   "params %s\n", kcal_coll_name(r->coll), r->p,
                r->p / r->ppn, r->ppn, kcal_model_name(r->model),
                r->in_place ? ", in place" : "", prm->origin);
        print_network(f, prm, &net);
    }
    int rc = KCAL_EXIT_OK;
    char (*best)[64] = calloc(r->n_sizes, sizeof *best);
    for (size_t s = 0; s < r->n_sizes && best; s++) {
        kcal_tl_prediction *pr;
        long count = kcal_two_level_rank(r->model, prm, &net, r->coll,
                                         (int)r->p, (int)r->ppn, r->sizes[s],
                                         r->in_place, (int)r->only_k, &pr);
        if (count <= 0) {
            kcal_cli_error(cmd, "out of memory ranking the rows");
            rc = KCAL_EXIT_FAIL;
            break;
        }
        if (r->format == KCAL_PREDICT_CSV)
            print_csv(f, r, r->sizes[s], pr, count);
        else if (r->format == KCAL_PREDICT_JSON)
            print_json(f, r, r->sizes[s], pr, count, first);
        else
            print_table(f, r, r->sizes[s], pr, count);
        char name[64];
        kcal_two_level_name(&pr[0], name, sizeof name);
        if (pr[0].node && pr[0].node->kind != KCAL_PARAM_NONE)
            snprintf(best[s], sizeof best[s], "%.40s k=%d", name, pr[0].k);
        else
            snprintf(best[s], sizeof best[s], "%s", name);
        free(pr);
    }
    if (!best)
        rc = KCAL_EXIT_FAIL;
    if (rc == KCAL_EXIT_OK && r->format == KCAL_PREDICT_TABLE) {
        fprintf(f, "\nfastest algorithm by size:\n");
        for (size_t s = 0; s < r->n_sizes;) {
            size_t e = s;
            while (e + 1 < r->n_sizes && !strcmp(best[e + 1], best[s]))
                e++;
            char a[32], b[32];
            kcal_sizes_format(r->sizes[s], a, sizeof a);
            kcal_sizes_format(r->sizes[e], b, sizeof b);
            if (s == e)
                fprintf(f, "  %-16s %s\n", a, best[s]);
            else
                fprintf(f, "  %-7s .. %-6s %s\n", a, b, best[s]);
            s = e + 1;
        }
    }
    free(best);
    return rc;
}
