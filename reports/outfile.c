/* outfile: temp file + rename, so an interrupted or failed report leaves the
 * previous complete file (or none) and never a truncated one. */
#include "reports/outfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int kcal_outfile_open(kcal_outfile *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (strlen(path) >= sizeof o->path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    snprintf(o->path, sizeof o->path, "%s", path);
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp", path);
    o->f = fopen(o->tmp, "w");
    return o->f ? 0 : -1;
}

int kcal_outfile_commit(kcal_outfile *o)
{
    int bad = ferror(o->f);
    if (fclose(o->f) != 0 || bad) {
        int e = errno ? errno : EIO;
        o->f = NULL;
        unlink(o->tmp);
        errno = e;
        return -1;
    }
    o->f = NULL;
    if (rename(o->tmp, o->path) != 0) {
        int e = errno;
        unlink(o->tmp);
        errno = e;
        return -1;
    }
    return 0;
}

void kcal_outfile_abort(kcal_outfile *o)
{
    if (o->f)
        fclose(o->f);
    o->f = NULL;
    if (o->tmp[0])
        unlink(o->tmp);
}
