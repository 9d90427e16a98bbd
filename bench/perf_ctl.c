/* perf_ctl: see perf_ctl.h. perf reads one command per line from the
 * control fifo and answers "ack\n" on the ack fifo once the events are
 * switched; waiting for that answer is what makes the switch happen before
 * the loop starts, not some milliseconds into it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/perf_ctl.h"

static int write_all(int fd, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, s, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        len -= (size_t)w;
    }
    return 0;
}

int kcal_perf_ctl(const char *cmd, char *err, int errlen)
{
    const char *ctl = getenv("KCAL_PERF_CTL"), *ack = getenv("KCAL_PERF_ACK");
    if (!ctl || !*ctl)
        return 0;
    /* Opened per command: perf holds both fifos open for the whole run, so
     * these opens do not block, and nothing stays open in between. */
    int c = open(ctl, O_WRONLY | O_CLOEXEC);
    if (c < 0) {
        snprintf(err, (size_t)errlen, "KCAL_PERF_CTL %s: %s", ctl, strerror(errno));
        return -1;
    }
    char line[32];
    int n = snprintf(line, sizeof line, "%s\n", cmd);
    int rc = write_all(c, line, (size_t)n);
    close(c);
    if (rc != 0) {
        snprintf(err, (size_t)errlen, "KCAL_PERF_CTL %s: %s", ctl, strerror(errno));
        return -1;
    }
    if (!ack || !*ack)
        return 0;
    int a = open(ack, O_RDONLY | O_CLOEXEC);
    if (a < 0) {
        snprintf(err, (size_t)errlen, "KCAL_PERF_ACK %s: %s", ack, strerror(errno));
        return -1;
    }
    char buf[8];
    size_t got = 0;
    while (got < 4) { /* "ack\n" */
        ssize_t r = read(a, buf + got, sizeof buf - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(a);
    if (got < 4 || memcmp(buf, "ack\n", 4) != 0) {
        snprintf(err, (size_t)errlen, "KCAL_PERF_ACK %s: no ack from perf", ack);
        return -1;
    }
    return 0;
}
