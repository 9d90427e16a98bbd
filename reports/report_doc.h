/* report_doc: report.md and index.html — the sections of the report in
 * their order (headline, model comparison, analysis, plots, speedup, the
 * error and ranking tables, oversubscribed runs, machine, params), written
 * through doc_writer.h so both files say the same. The prose comes from
 * analysis.h and compare.h. Library code: returns 0 or -1; never prints. */
#ifndef KCAL_REPORT_DOC_H
#define KCAL_REPORT_DOC_H

#include <stdio.h>

#include "reports/report_input.h"

/* Write the whole report to md and html (either may be NULL). 0 or -1. */
int kcal_report_write(const kcal_report_input *in, FILE *md, FILE *html);

#endif
