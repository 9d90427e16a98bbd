/* compare: the paper model against the full model on the same
 * measurements (compare.h). */
#include "reports/compare.h"

#include <stdio.h>
#include <string.h>

#include "model/keys.h"
#include "model/model.h"
#include "reports/sbuf.h"

char *kcal_report_model_comparison(const kcal_report_input *in)
{
    if (!in->full_table)
        return NULL;
    kcal_sbuf b = {0};
    int pp, pu, fp, fu, pm, fm;
    double pmed = kcal_join_median_ape_of(in->table, NULL, &pp, &pu);
    double fmed = kcal_join_median_ape_of(in->full_table, NULL, &fp, &fu);
    double preg = kcal_join_mean_regret(in->ranking, in->n_ranking);
    double freg = kcal_join_mean_regret(in->full_ranking, in->n_full_ranking);
    int pr = kcal_join_right_picks(in->ranking, in->n_ranking, &pm);
    int fr = kcal_join_right_picks(in->full_ranking, in->n_full_ranking,
                                   &fm);
    unsigned miss = kcal_model_full_missing(in->params);
    const char *ws = kcal_key_info_of(KCAL_PK_beta_ws)->prefix;
    const char *step = kcal_key_name(KCAL_PK_sync_step);
    const char *hot = kcal_key_name(KCAL_PK_beta_hot);
    /* conc_hot and conc_cold: conc_* */
    const char *conc = kcal_key_name(KCAL_PK_conc_hot);
    int conc_len = (int)(strchr(conc, '_') - conc) + 1;
    char what[400];
    if (kcal_model_full_measured(in->params))
        snprintf(what, sizeof what, "every copy at the rate measured for the "
                 "call's working set (%s*), slowed by δ(c) when c copies run "
                 "at once (%s, %s), and the writes' own keys where they "
                 "differ", ws, kcal_key_name(KCAL_PK_conc_hot),
                 kcal_key_name(KCAL_PK_conc_cold));
    else
        snprintf(what, sizeof what, "copies at %s when the buffers of a call "
                 "fit in the last-level cache", hot);
    kcal_sbuf_add(&b, "The full model (`kcal predict --model full`, model.md "
                  "\"Beyond the paper\") adds to the paper's terms what kcal "
                  "probe measures beyond them: %s, %s "
                  "per synchronised step, p − 1 (not p) remote copies in the "
                  "sequential rows and contending copies in the parallel "
                  "ones, and the overlapped halves of bcast "
                  "`scatter_allgather`. Against the same measurements, median "
                  "model error: paper %.1f %%, full %.1f %% (%d points of 16K "
                  "and more; too optimistic at %d and %d of them); mean "
                  "selection regret: paper %.1f %%, full %.1f %%; right first "
                  "choice at %d and %d of %d (collective, size) points. ",
                  what, step, pmed, fmed, pp, pu, fu, preg, freg, pr, fr, pm);
    int better_err = fmed < pmed, better_reg = freg <= preg;
    const char *verdict =
        better_err && better_reg
            ? "Here the full model predicts the times better and chooses at "
              "least as well. "
        : better_err
            ? "Here the full model predicts the times better but chooses "
              "worse: its errors differ between algorithms more than the "
              "paper's uniform pessimism does. "
        : better_reg
            ? "Here the full model chooses at least as well but predicts the "
              "times worse. "
            : "Here the full model predicts and chooses worse than the "
              "paper's. ";
    kcal_sbuf_add(&b, "%s", verdict);
    if (miss & (KCAL_FULL_NO_BETA_HOT | KCAL_FULL_NO_L3))
        kcal_sbuf_add(&b, "The params have no %s, so every copy of the full "
                      "model costs the cold β (probe again to measure it). ",
                      miss & KCAL_FULL_NO_BETA_HOT
                          ? hot
                          : kcal_key_name(KCAL_PK_l3_cache));
    if (miss & KCAL_FULL_NO_SYNC_STEP)
        kcal_sbuf_add(&b, "The params have no %s, so per-step "
                      "synchronisation costs 0 in the full model. ", step);
    kcal_sbuf_add(&b, "Without `--model`, `kcal predict`, `kcal tune` and "
                  "libkcoll use the full model for params that `kcal probe` "
                  "measured (as these are when they hold its %s*, "
                  "%.*s* or write keys) and the paper's for the paper's "
                  "machine files: model.md \"Which model is the default\" "
                  "records the three runs that decided it; this report is "
                  "one more. Per collective, median error paper → full:",
                  ws, conc_len, conc);
    kcal_join_colls cs = {0};
    for (size_t i = 0; i < in->table->n; i++)
        kcal_join_colls_add(&cs, in->table->rows[i].coll);
    for (int c = 0; c < cs.n; c++) {
        const char *name = cs.name[c];
        int n1, n2;
        double a = kcal_join_median_ape_of(in->table, name, &n1, NULL);
        double f = kcal_join_median_ape_of(in->full_table, name, &n2, NULL);
        if (n1 && n2)
            kcal_sbuf_add(&b, " %s %.0f %% → %.0f %%;", name, a, f);
    }
    if (b.n && b.s[b.n - 1] == ';')
        b.s[b.n - 1] = '.';
    kcal_sbuf_add(&b, " Per algorithm: `summary-full.csv` and "
                  "`ranking-full.csv` (the columns of `summary.csv` and "
                  "`ranking.csv`); in the plots the full model is the dashed "
                  "line of each colour.");
    return kcal_sbuf_take(&b);
}
