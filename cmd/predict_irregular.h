/* predict_irregular: `kcal predict --coll scatterv|gatherv|allgatherv|
 * alltoallv [--counts DIST]`, the model of the v-collectives
 * (model/irregular.h) for a distribution of counts (common/vcounts.h) at
 * each size. predict_cmd.c parses the options and loads the params, then
 * hands over. */
#ifndef KCAL_PREDICT_IRREGULAR_H
#define KCAL_PREDICT_IRREGULAR_H

#include <stddef.h>
#include <stdint.h>

#include "cmd/predict_ppn.h"
#include "common/vcounts.h"

typedef struct {
    const char *vcoll; /* kcal_model_is_vcoll */
    long p;
    const uint64_t *sizes; /* the mean block (file: ignored but labels) */
    size_t n_sizes;
    kcal_vcounts counts;
    int explain;
    kcal_predict_format format;
    kcal_model_kind model;
} kcal_vpredict_request;

/* The counts at every size made, every prediction finite: 0, or -1
 * after one error line (exit 2), before anything is printed. */
int kcal_predict_irregular_check(const char *cmd,
                                 const kcal_vpredict_request *r,
                                 const kcal_params *prm);

/* The rows on stdout: table (a header, a table per size), or CSV and
 * JSON records as `kcal predict` writes them (the caller prints the CSV
 * header and JSON's brackets). Returns kcal's exit code. */
int kcal_predict_irregular_print(const char *cmd,
                                 const kcal_vpredict_request *r,
                                 const kcal_params *prm, int *first);

#endif
