/* fuzz_report_join: `kcal report`'s readers and join on arbitrary bytes —
 * the parsers of the predicted and the measured CSV (kcal_join_parse), the
 * join, the tables, the choice of series to plot, and the analysis and
 * report.md/index.html written from whatever survived.
 *
 * One input holds up to three files separated by a line "%%":
 *   predicted CSV \n%%\n measured CSV [\n%%\n full model's predicted CSV]
 * (without a separator the whole input is the predicted CSV and the
 * measured one is empty). Seeds: tests/fuzz/corpus/report_join/.
 *
 * Besides the sanitizers, it checks the readers' contract: a rejected file
 * returns -1 with a message naming it, an accepted one yields rows in key
 * order with no key twice, and the derived numbers are in range (APE and
 * regret >= 0, speedup > 0 or NAN). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/analysis.h"
#include "reports/compare.h"
#include "reports/join.h"
#include "reports/plots.h"
#include "reports/report_doc.h"

#define REQUIRE(c)                                                            \
    do {                                                                      \
        if (!(c)) {                                                           \
            fprintf(stderr, "fuzz_report_join: %s:%d: %s\n", __FILE__,        \
                    __LINE__, #c);                                            \
            abort();                                                          \
        }                                                                     \
    } while (0)

static const char SEP[] = "\n%%\n";

/* The next part of the input: up to the separator or the end. */
static const char *part(const char **p, const char *end, size_t *len)
{
    const char *s = *p;
    if (!s)
        return NULL;
    const char *e = memmem(s, (size_t)(end - s), SEP, sizeof SEP - 1);
    *len = (size_t)((e ? e : end) - s);
    *p = e ? e + sizeof SEP - 1 : NULL;
    return s;
}

static int parse(kcal_join_table *t, kcal_join_side side, const char *data,
                 size_t len, const char *name)
{
    char err[1024];
    err[0] = '\0';
    int rc = kcal_join_parse(t, side, data, len, name, err, sizeof err);
    REQUIRE(rc == 0 || rc == -1);
    if (rc)
        REQUIRE(!strncmp(err, name, strlen(name)) && strlen(err) > strlen(name));
    return rc;
}

static int join(kcal_join_table *t, const char *pred, size_t np,
                const char *meas, size_t nm)
{
    char err[1024] = "";
    if (parse(t, KCAL_JOIN_PREDICTED, pred, np, "p.csv") ||
        parse(t, KCAL_JOIN_MEASURED, meas, nm, "m.csv"))
        return -1;
    if (kcal_join_finish(t, err, sizeof err)) {
        REQUIRE(strstr(err, ": duplicate row ") != NULL);
        return -1;
    }
    size_t po = 0, mo = 0;
    for (size_t i = 0; i < t->n; i++) {
        const kcal_join_row *r = &t->rows[i];
        REQUIRE(r->has_pred || r->has_meas);
        REQUIRE(r->p >= 1 && r->size >= 1);
        po += r->has_pred && !r->has_meas;
        mo += !r->has_pred && r->has_meas;
        if (r->has_pred && r->has_meas)
            REQUIRE(kcal_join_ape(r) >= 0);
        if (i) { /* one row per key, in the order kcal_join_finish sorts */
            const kcal_join_row *q = &t->rows[i - 1];
            REQUIRE(strcmp(q->coll, r->coll) || q->p != r->p ||
                    strcmp(q->alg, r->alg) || q->k != r->k ||
                    q->size != r->size);
        }
    }
    REQUIRE(po == t->pred_only && mo == t->meas_only);
    return 0;
}

static const kcal_params *params(void)
{
    static kcal_params prm;
    static int loaded;
    if (!loaded) {
        char err[256];
        kcal_params_init(&prm);
        REQUIRE(kcal_params_load_embedded("knl", &prm, err, sizeof err) == 0);
        kcal_params_set(&prm, "l3_cache", 1u << 20); /* both cache cases */
        kcal_params_set(&prm, "beta_hot", prm.beta / 3);
        loaded = 1;
    }
    return &prm;
}

static FILE *devnull(void)
{
    static FILE *f;
    if (!f)
        REQUIRE((f = fopen("/dev/null", "w")) != NULL);
    return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    size_t np = 0, nm = 0, nf = 0;
    const char *pred = part(&p, end, &np);
    const char *meas = part(&p, end, &nm);
    const char *full = part(&p, end, &nf);
    if (!meas)
        meas = "";

    kcal_join_table t, tf;
    kcal_join_init(&t);
    kcal_join_init(&tf);
    kcal_join_summary *sum = NULL, *fsum = NULL;
    kcal_join_rank *rank = NULL, *frank = NULL;
    long ns = 0, nr = 0, nfs = 0, nfr = 0;
    if (join(&t, pred, np, meas, nm))
        goto out;
    int with_full = full && !join(&tf, full, nf, meas, nm);

    ns = kcal_join_summarise(&t, &sum);
    nr = kcal_join_rank_sizes(&t, &rank);
    REQUIRE(ns >= 0 && nr >= 0);
    for (long i = 0; i < ns; i++)
        REQUIRE(sum[i].points > 0 && sum[i].mape_pct >= 0 &&
                sum[i].mape_pct <= sum[i].max_ape_pct * (1 + 1e-12));
    for (long i = 0; i < nr; i++) {
        REQUIRE(rank[i].predicted_best && rank[i].measured_best);
        REQUIRE(rank[i].regret_pct >= 0);
        REQUIRE(isnan(rank[i].speedup) || rank[i].speedup > 0);
    }
    if (with_full) {
        nfs = kcal_join_summarise(&tf, &fsum);
        nfr = kcal_join_rank_sizes(&tf, &frank);
        REQUIRE(nfs >= 0 && nfr >= 0);
    }
    (void)kcal_join_median_ape(&t);
    (void)kcal_join_mean_regret(rank, nr);
    for (int over = 0; over <= 1; over++) {
        REQUIRE(kcal_join_write_summary(devnull(), sum, ns, over) == 0);
        REQUIRE(kcal_join_write_ranking(devnull(), rank, nr, over) == 0);
        REQUIRE(kcal_join_write_speedup(devnull(), rank, nr, over) == 0);
    }

    /* The series each (collective, p) plot would draw. */
    for (size_t i = 0; i < t.n; i++) {
        if (i && !strcmp(t.rows[i - 1].coll, t.rows[i].coll) &&
            t.rows[i - 1].p == t.rows[i].p)
            continue;
        char(*labels)[64] = NULL;
        size_t nl = 0;
        REQUIRE(kcal_plot_series(&t, t.rows[i].coll, t.rows[i].p, &labels,
                                 &nl) == 0);
        free(labels);
    }

    /* The words, on a machine whose cache the data may or may not fit. */
    kcal_machine m = {.host = "fuzz", .cpu = "cpu", .kernel = "linux",
                      .cores = 4, .pus = 4, .sockets = 1, .numa = 1,
                      .llc_bytes = 1u << 20, .llc_level = 3};
    kcal_report_input in = {
        .table = &t, .summary = sum, .n_summary = ns, .ranking = rank,
        .n_ranking = nr, .params = params(), .machine = &m,
        .generated = "fuzz", .full_table = with_full ? &tf : NULL,
        .full_summary = fsum, .n_full_summary = nfs, .full_ranking = frank,
        .n_full_ranking = nfr};
    REQUIRE(kcal_report_write(&in, devnull(), devnull()) == 0);
out:
    free(sum);
    free(rank);
    free(fsum);
    free(frank);
    kcal_join_free(&t);
    kcal_join_free(&tf);
    return 0;
}
