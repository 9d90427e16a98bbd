/* outfile: write a file so that readers never see it half-written — into
 * "<path>.tmp" first, renamed over <path> only once complete. */
#ifndef KCAL_OUTFILE_H
#define KCAL_OUTFILE_H

#include <stdio.h>

typedef struct {
    FILE *f;
    char path[4096];
    char tmp[4100];
} kcal_outfile;

/* Open <path>.tmp for writing. 0, or -1 (errno set). */
int kcal_outfile_open(kcal_outfile *o, const char *path);
/* Flush, close and rename into place. 0, or -1 (errno set; temp removed). */
int kcal_outfile_commit(kcal_outfile *o);
/* Close and remove the temp file (after an error). */
void kcal_outfile_abort(kcal_outfile *o);

#endif
