/* report_doc: the words of the report. Writes report.md and index.html (the
 * same content; HTML for a browser, Markdown for a repository viewer) from
 * the joined numbers, and writes the paragraph on where the model is off and
 * why, generated from the measured pattern of its errors. Library code:
 * returns 0 or -1; never prints. */
#ifndef KCAL_REPORT_DOC_H
#define KCAL_REPORT_DOC_H

#include <stddef.h>
#include <stdio.h>

#include "join.h"
#include "machine.h"
#include "params.h"

typedef struct {
    char coll[16];
    int p;
    int oversubscribed;
    char png[128]; /* file name inside the output directory */
} kcal_report_plot;

typedef struct {
    const kcal_join_table *table;
    const kcal_join_summary *summary;
    long n_summary;
    const kcal_join_rank *ranking;
    long n_ranking;
    const kcal_params *params;
    const kcal_machine *machine;
    const kcal_report_plot *times; /* one per (collective, p) */
    size_t n_times;
    const kcal_report_plot *speedup; /* one per p (coll unused) */
    size_t n_speedup;
    const char *generated; /* date and command line, for the header */
    /* The full model (--model full) joined with the same measurements, or
     * NULL/0 when the report compares the paper model only. */
    const kcal_join_table *full_table;
    const kcal_join_summary *full_summary;
    long n_full_summary;
    const kcal_join_rank *full_ranking;
    long n_full_ranking;
} kcal_report_input;

/* The paragraph and table comparing the paper and the full model: median
 * error, mean regret and right picks of each, and which predicts better
 * here. Malloc'ed plain text (caller frees); NULL without a full model or
 * on allocation failure. */
char *kcal_report_model_comparison(const kcal_report_input *in);

/* The paragraphs on where the model is off and why: plain text with
 * `code` spans, paragraphs separated by a blank line. Malloc'ed (caller
 * frees); NULL on allocation failure. */
char *kcal_report_analysis(const kcal_report_input *in);

/* Whether the params were measured on this machine (by hostname, machine
 * key or file name); the analysis leads with it when they were not. */
int kcal_report_params_are_local(const kcal_params *p, const kcal_machine *m);

/* Write the whole report to md and html (either may be NULL). 0 or -1. */
int kcal_report_write(const kcal_report_input *in, FILE *md, FILE *html);

#endif
