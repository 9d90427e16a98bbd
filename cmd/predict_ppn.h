/* predict_ppn: `kcal predict --ppn PPN`, the rows across nodes
 * (two_level.h) for P ranks at PPN per node. predict_cmd.c parses the
 * options and loads the params, then hands over. */
#ifndef KCAL_PREDICT_PPN_H
#define KCAL_PREDICT_PPN_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

typedef enum {
    KCAL_PREDICT_TABLE,
    KCAL_PREDICT_CSV,
    KCAL_PREDICT_JSON
} kcal_predict_format;

typedef struct {
    kcal_coll coll;
    long p, ppn;    /* kcal_two_level_layout_ok(p, ppn) */
    long only_k;    /* 0, or a throttle factor of the node step */
    long top;       /* table: the N fastest rows (0: collapse k) */
    const uint64_t *sizes;
    size_t n_sizes;
    int in_place, explain;
    kcal_predict_format format;
    kcal_model_kind model;
} kcal_ppn_request;

/* Before anything is printed: the params must hold net_alpha and net_beta,
 * and every row must be finite. 0, or -1 after one error line on stderr
 * (the caller exits 2). */
int kcal_predict_ppn_check(const char *cmd, const kcal_ppn_request *r,
                           const kcal_params *prm);

/* One collective's rows on stdout: for the table its header, a table per
 * size and the summary; for CSV and JSON its records (*first: no JSON
 * record printed yet). The caller prints the CSV header, JSON's brackets
 * and flushes. Returns kcal's exit code (1 out of memory). */
int kcal_predict_ppn_print(const char *cmd, const kcal_ppn_request *r,
                           const kcal_params *prm, int *first);

#endif
