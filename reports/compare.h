/* compare: the paper model against the full model (`kcal predict --model
 * full`) on the same measurements — median error, mean regret and right
 * picks of each, which predicts better here, and which of the full model's
 * keys the params lack. Library code: never prints. */
#ifndef KCAL_COMPARE_H
#define KCAL_COMPARE_H

#include "reports/report_input.h"

/* The paragraph, as plain text with `code` spans. Malloc'ed (caller frees);
 * NULL without a full model (in->full_table) or on allocation failure. */
char *kcal_report_model_comparison(const kcal_report_input *in);

#endif
