/* infile: open a file the user named (a params file, a selection table, a
 * raw sample file, a report's input) for reading, refusing what is not a
 * regular file. A FIFO would block its reader in open() until some writer
 * came, silently (every rank of a job at its first collective); a
 * directory, a device or a socket is no file of kcal's either. The message
 * says what the path is instead ("PATH: is a directory"). The open never
 * blocks: it is non-blocking until the file is known to be regular. */
#ifndef KCAL_INFILE_H
#define KCAL_INFILE_H

#include <stddef.h>
#include <stdio.h>

/* path, open for reading (binary), or NULL with one of "PATH: cannot open:
 * <strerror>", "PATH: is a directory", "PATH: is a FIFO (named pipe), not
 * a regular file" (a socket, a character device, a block device alike) in
 * err. */
FILE *kcal_infile_open(const char *path, char *err, size_t errlen);

/* The same verdict without reading: 0 when path opens as a regular file,
 * else -1 with the message (for a path handed on to other processes). */
int kcal_infile_check(const char *path, char *err, size_t errlen);

#endif
