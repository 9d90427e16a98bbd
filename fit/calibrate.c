/* calibrate: from raw probe samples to a params set (see calibrate.h): the
 * `# meta` entries, then one fit per probe phase (calibrate_part.h) in
 * order. */
#include "fit/calibrate.h"
#include "common/err.h"
#include "fit/calibrate_part.h"
#include "model/params.h"
#include "model/keys.h"

#include <stdlib.h>

/* The `# meta` entries, first, in file order: a params file reads from
 * what to what was measured. The numeric ones (params' table says which)
 * as numbers. 0, or -1 with err naming the entry and why the params file
 * could not hold it. */
static int copy_meta(const kcal_raw *raw, kcal_params *out, char *err,
                     size_t errlen)
{
    for (size_t i = 0; i < raw->n_meta; i++) {
        const char *k = raw->meta[i].key, *v = raw->meta[i].value;
        const char *why;
        if (kcal_params_key_kind(k) == KCAL_KEY_META_NUMBER) {
            char *end;
            double d = strtod(v, &end);
            why = end == v || *end ? "is not a number"
                                   : kcal_params_check_number(k, d);
            if (!why && kcal_params_set(out, k, d) < 0)
                why = "could not be set";
        } else {
            why = kcal_params_check_text(k, v);
            if (!why && kcal_params_set_text(out, k, v) < 0)
                why = "could not be set";
        }
        if (why) {
            kcal_set_err(err, errlen, "'# meta %s %s': %s, so it cannot go "
                         "into a params file", k, v, why);
            return -1;
        }
    }
    return 0;
}

int kcal_calibrate_params(const kcal_raw *raw, kcal_params *out,
                          kcal_calibrate_notes *notes, char *comment,
                          size_t commentlen, char *err, size_t errlen)
{
    if (notes)
        notes->n = 0;
    if (comment && commentlen)
        comment[0] = '\0';
    const char *page_s = kcal_raw_get_meta(raw, KCAL_KEY_NAME(page));
    if (!page_s) {
        kcal_set_err(err, errlen, "no '# meta page' line with the page size");
        return -1;
    }
    if (copy_meta(raw, out, err, errlen) < 0)
        return -1;
    double page = kcal_params_get(out, KCAL_KEY_NAME(page), 0);
    /* The order is the header's: α and l first (every copy time below
     * takes them off), and cma_context and the hand-off last: they ask
     * the full model, with every other key it uses fitted by then. */
    cal_t3 t3;
    if (cal_phases(raw, page, &t3, out, notes, comment, commentlen, err,
                   errlen) < 0 ||
        cal_bandwidth(raw, page, &t3, out, comment, commentlen, err,
                      errlen) < 0 ||
        cal_contention(raw, t3.alpha, t3.lock, out, notes, comment,
                       commentlen, err, errlen) < 0 ||
        cal_sm(raw, out, notes, comment, commentlen, err, errlen) < 0 ||
        cal_knee(raw, page, t3.alpha, t3.lock, out, notes, comment,
                 commentlen, err, errlen) < 0 ||
        cal_concurrent(raw, t3.alpha, t3.lock, out, notes, comment,
                       commentlen, err, errlen) < 0 ||
        cal_mutual(raw, out, notes, comment, commentlen, err, errlen) < 0 ||
        cal_write(raw, page, out, notes, comment, commentlen, err,
                  errlen) < 0 ||
        cal_dirty(raw, page, out, notes, comment, commentlen, err,
                  errlen) < 0 ||
        cal_pass(raw, out, notes, comment, commentlen, err, errlen) < 0 ||
        cal_reduce(raw, out, notes, comment, commentlen, err, errlen) < 0 ||
        cal_sm_sync_step(raw, out, comment, commentlen, err, errlen) < 0 ||
        cal_sm_flag(raw, out, comment, commentlen, err, errlen) < 0 ||
        cal_sm_context(raw, out, notes, comment, commentlen, err,
                       errlen) < 0)
        return -1;
    return cal_sm_mpi(raw, out, notes, comment, commentlen, err, errlen);
}
