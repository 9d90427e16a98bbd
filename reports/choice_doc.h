/* choice_doc: the parts of the report about choosing on a machine that
 * moves — the table that opens the report (libkcoll's verified choice,
 * `auto`, against the MPI library and the best row, worst size first), the
 * paragraph on the noise between two launches of kcal bench, and the
 * per-point cells of the ranking table (which choices lie inside that
 * noise, and what `auto` measured there). Written through doc_writer.h;
 * the numbers come from noise.h. Library code: never prints. */
#ifndef KCAL_CHOICE_DOC_H
#define KCAL_CHOICE_DOC_H

#include <stddef.h>

#include "reports/doc_writer.h"
#include "reports/report_input.h"

/* The opening table and the paragraph that says how to read it. 0, or -1
 * when out of memory. */
int kcal_report_auto_table(kcal_doc *d, const kcal_report_input *in);

/* The between-launch paragraph: the floor against the repeat error, and at
 * how many points the model's first choice lies inside it. */
void kcal_report_noise_paras(kcal_doc *d, const kcal_report_input *in);

/* Points (not oversubscribed) of a ranking with any mark of
 * kcal_noise_marks at the report's floor; *of gets how many were judged. */
int kcal_report_marked_points(const kcal_report_input *in,
                              const kcal_join_rank *r, long n, int *of);

/* The ranking table's extra cells for point r: `within` the marks
 * ("regret", "margin", both, or ""), `autoc` auto's median and its ratio
 * to the measured best ("–" when not measured), `again` the measured best
 * of the second launch ("–" when the point was not measured again). */
void kcal_report_point_cells(const kcal_report_input *in,
                             const kcal_join_rank *r, char *within,
                             char *autoc, char *again, size_t len);

#endif
