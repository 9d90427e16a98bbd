/* infile: see infile.h. */
#include "common/infile.h"
#include "common/err.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file of this mode is, for the message; NULL for a regular one. */
static const char *not_regular(mode_t mode)
{
    if (S_ISREG(mode))
        return NULL;
    if (S_ISDIR(mode))
        return "is a directory";
    if (S_ISFIFO(mode))
        return "is a FIFO (named pipe), not a regular file";
    if (S_ISSOCK(mode))
        return "is a socket, not a regular file";
    if (S_ISCHR(mode))
        return "is a character device, not a regular file";
    if (S_ISBLK(mode))
        return "is a block device, not a regular file";
    return "is not a regular file";
}

/* A descriptor of path open for reading in blocking mode, or -1. */
static int open_regular(const char *path, char *err, size_t errlen)
{
    /* O_NONBLOCK: a FIFO's open returns at once instead of waiting for a
     * writer; O_NOCTTY: a terminal named by mistake does not become ours. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        int e = errno;
        const char *what;
        /* A socket cannot be opened at all (ENXIO): say what it is. */
        if (stat(path, &st) == 0 && (what = not_regular(st.st_mode)))
            kcal_set_err(err, errlen, "%s: %s", path, what);
        else
            kcal_set_err(err, errlen, "%s: cannot open: %s", path,
                         strerror(e));
        return -1;
    }
    const char *what = NULL;
    int flags;
    if (fstat(fd, &st) != 0) {
        kcal_set_err(err, errlen, "%s: cannot open: %s", path,
                     strerror(errno));
    } else if ((what = not_regular(st.st_mode))) {
        kcal_set_err(err, errlen, "%s: %s", path, what);
    } else if ((flags = fcntl(fd, F_GETFL)) < 0 ||
               fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
        kcal_set_err(err, errlen, "%s: cannot open: %s", path,
                     strerror(errno));
    } else {
        return fd;
    }
    close(fd);
    return -1;
}

FILE *kcal_infile_open(const char *path, char *err, size_t errlen)
{
    int fd = open_regular(path, err, errlen);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        kcal_set_err(err, errlen, "%s: cannot open: %s", path,
                     strerror(errno));
        close(fd);
    }
    return f;
}

int kcal_infile_check(const char *path, char *err, size_t errlen)
{
    int fd = open_regular(path, err, errlen);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}
