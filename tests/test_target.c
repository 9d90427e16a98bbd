/* test_target: the probe's target process (probe/target.h) rewrites what
 * it is asked to and only that, with new values every time and no two
 * pages alike; refuses a range outside its buffer and keeps serving; a
 * dead target is an error (EPIPE), not a SIGPIPE that kills the probe; and
 * stopping leaves no child and closes nothing that is not the target's.
 * Reads the target with process_vm_readv: skipped (77) where CMA is
 * forbidden. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/check.h"
#include "probe/target.h"

#define PAGES 8

static size_t page;

/* The target's whole buffer into buf. 0, or the errno of the read. */
static int read_all(const kcal_target *t, char *buf)
{
    struct iovec l = {buf, t->bytes}, r = {t->base, t->bytes};
    ssize_t got = process_vm_readv(t->pid, &l, 1, &r, 1, 0);
    return got == (ssize_t)t->bytes ? 0 : got < 0 ? errno : EIO;
}

static int same_bytes(const char *a, const char *b, size_t off, size_t len)
{
    return memcmp(a + off, b + off, len) == 0;
}

static int no_children(void)
{
    return waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD;
}

int main(void)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    /* fd 0 open, for the check that stopping never closes it. */
    if (fcntl(STDIN_FILENO, F_GETFD) < 0 && open("/dev/null", O_RDONLY) != 0)
        return 1;
    size_t bytes = PAGES * page;
    char *before = malloc(bytes), *after = malloc(bytes),
         *again = malloc(bytes), *zero = calloc(1, page);
    kcal_target t;
    char err[256];
    CHECK(kcal_target_start(&t, bytes, NULL, 0, err, sizeof err) == 0);
    int e = read_all(&t, before);
    if (e == EPERM || e == ENOSYS) {
        fprintf(stderr, "skip: process_vm_readv: %s\n", strerror(e));
        kcal_target_stop(&t);
        return 77;
    }
    CHECK(e == 0);

    /* Pages 0..2 rewritten: changed, distinct, not zero; the rest not. */
    CHECK(kcal_target_rewrite(&t, 0, 3 * page) == 0);
    CHECK(read_all(&t, after) == 0);
    for (size_t p = 0; p < 3; p++) {
        CHECK(!same_bytes(before, after, p * page, page));
        CHECK(memcmp(after + p * page, zero, page) != 0);
        for (size_t q = 0; q < p; q++)
            CHECK(memcmp(after + p * page, after + q * page, page) != 0);
    }
    CHECK(same_bytes(before, after, 3 * page, bytes - 3 * page));

    /* Again: new values in the same range. */
    CHECK(kcal_target_rewrite(&t, 0, 3 * page) == 0);
    CHECK(read_all(&t, again) == 0);
    for (size_t p = 0; p < 3; p++)
        CHECK(!same_bytes(after, again, p * page, page));

    /* len 0: a round trip that writes nothing. */
    CHECK(kcal_target_rewrite(&t, 0, 0) == 0);
    CHECK(read_all(&t, after) == 0);
    CHECK(same_bytes(again, after, 0, bytes));

    /* An unaligned range: exactly its bytes. */
    size_t off = page + 100, len = page + 5;
    CHECK(kcal_target_rewrite(&t, off, len) == 0);
    CHECK(read_all(&t, again) == 0);
    CHECK(same_bytes(after, again, 0, off));
    CHECK(same_bytes(after, again, off + len, bytes - off - len));
    CHECK(again[off] != after[off] && again[off + len - 1] != after[off + len - 1]);

    /* Outside the buffer: refused, and the target still serves. */
    errno = 0;
    CHECK(kcal_target_rewrite(&t, bytes - page, 2 * page) < 0 && errno == EINVAL);
    errno = 0;
    CHECK(kcal_target_rewrite(&t, bytes + 1, 0) < 0 && errno == EINVAL);
    CHECK(kcal_target_rewrite(&t, bytes - page, page) == 0);

    /* A dead target: EPIPE, and we are still here (no SIGPIPE). */
    kill(t.pid, SIGKILL);
    errno = 0;
    CHECK(kcal_target_rewrite(&t, 0, page) < 0 && errno == EPIPE);
    errno = 0;
    CHECK(kcal_target_rewrite(&t, 0, page) < 0 && errno == EPIPE);
    kcal_target_stop(&t);
    CHECK(no_children());
    errno = 0;
    CHECK(kcal_target_rewrite(&t, 0, page) < 0 && errno == EBADF);

    /* A target set up by hand and never started has reply_fd 0 (stdin):
     * stopping it closes nothing. */
    kcal_target idle = {.pid = -1, .ctl_fd = -1};
    kcal_target_stop(&idle);
    CHECK(fcntl(STDIN_FILENO, F_GETFD) >= 0);

    /* A stopped target's child is gone, EOF on its pipe having ended it. */
    CHECK(kcal_target_start(&t, bytes, NULL, 0, err, sizeof err) == 0);
    CHECK(kcal_target_rewrite(&t, 0, page) == 0);
    kcal_target_stop(&t);
    CHECK(no_children());
    free(before);
    free(after);
    free(again);
    free(zero);
    return check_report();
}
