/* infile (common/infile.h) and the readers of the files users name to
 * libkcoll and kcal that go through it: the params reader and the
 * selection table reader. A FIFO used to block every reader in open()
 * (each rank of a job at its first collective, `kcal run --params FIFO`
 * before launching), silently; a directory was a "read error". Now each is
 * refused at once, saying what the path is. A hang would be the failure:
 * alarm() ends the test instead. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "check.h"
#include "common/infile.h"
#include "model/params.h"
#include "model/table.h"

static char dir[] = "/tmp/kcal-test-infile-XXXXXX";

/* path "DIR/name" into buf. */
static const char *at(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
    return buf;
}

/* Every reader refuses path with "PATH: want". */
static void refused(const char *path, const char *want)
{
    char err[KCAL_ERRLEN] = "", msg[KCAL_ERRLEN + 64];
    snprintf(msg, sizeof msg, "%s: %s", path, want);
    FILE *f = kcal_infile_open(path, err, sizeof err);
    CHECK(f == NULL);
    if (f)
        fclose(f);
    CHECK_STR(err, msg);
    err[0] = '\0';
    CHECK(kcal_infile_check(path, err, sizeof err) == -1);
    CHECK_STR(err, msg);

    kcal_params p;
    err[0] = '\0';
    CHECK(kcal_params_read(path, &p, err, sizeof err) == -1);
    CHECK_STR(err, msg);
    kcal_table t;
    err[0] = '\0';
    CHECK(kcal_table_read(path, &t, err, sizeof err) == -1);
    CHECK_STR(err, msg);
}

static void test_not_regular(void)
{
    char path[512];
    /* A FIFO nobody writes: open() would wait for a writer forever. */
    CHECK(mkfifo(at(path, sizeof path, "fifo"), 0600) == 0);
    refused(path, "is a FIFO (named pipe), not a regular file");
    refused(dir, "is a directory");
    refused("/dev/null", "is a character device, not a regular file");
    refused("/dev/zero", "is a character device, not a regular file");

    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s/sock", dir);
    at(path, sizeof path, "sock");
    CHECK(s >= 0 && bind(s, (struct sockaddr *)&sa, sizeof sa) == 0);
    refused(path, "is a socket, not a regular file");
    close(s);

    refused(at(path, sizeof path, "missing"),
            "cannot open: No such file or directory");
}

static void test_regular(void)
{
    char path[512], err[KCAL_ERRLEN] = "";
    FILE *w = fopen(at(path, sizeof path, "t.table"), "w");
    CHECK(w != NULL);
    fputs("kcoll-table 1 by hand\nbcast * * direct_read\n", w);
    fclose(w);
    CHECK(kcal_infile_check(path, err, sizeof err) == 0);
    FILE *f = kcal_infile_open(path, err, sizeof err);
    CHECK(f != NULL);
    char line[64] = "";
    /* Blocking again once it is known to be a file: reads as usual. */
    CHECK(f && fgets(line, sizeof line, f) && !strcmp(line, "kcoll-table 1 by hand\n"));
    if (f)
        fclose(f);
    kcal_table t;
    CHECK(kcal_table_read(path, &t, err, sizeof err) == 0);
    kcal_table_free(&t);
    /* A symbolic link to a file is that file. */
    char link[512];
    CHECK(symlink(path, at(link, sizeof link, "link.table")) == 0);
    CHECK(kcal_table_read(link, &t, err, sizeof err) == 0);
    kcal_table_free(&t);
}

int main(void)
{
    alarm(30);
    CHECK(mkdtemp(dir) != NULL);
    test_not_regular();
    test_regular();
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
    return check_report();
}
