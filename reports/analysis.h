/* analysis: the report's paragraphs on where the model is off and why,
 * generated from the measured pattern of its errors: the overall error and
 * its direction, the worst series each with one hypothesis tied to where and
 * how its error shows (a fixed cost missing, shared bandwidth, the cache,
 * the paper's p transfers), and how well the model chose. Library code:
 * never prints. */
#ifndef KCAL_ANALYSIS_H
#define KCAL_ANALYSIS_H

#include "reports/machine.h"
#include "model/params.h"
#include "reports/report_input.h"

/* The paragraphs: plain text with `code` spans, paragraphs separated by a
 * blank line. Malloc'ed (caller frees); NULL on allocation failure. */
char *kcal_report_analysis(const kcal_report_input *in);

/* Whether the params were measured on this machine (by hostname, machine
 * key or file name); the analysis leads with it when they were not. */
int kcal_report_params_are_local(const kcal_params *p, const kcal_machine *m);

#endif
