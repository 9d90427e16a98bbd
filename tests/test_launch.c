/* common/launch: the command line (-np, --oversubscribe only for mpirun;
 * MPICH's launcher and its default, no flag, no Open MPI root variables),
 * stdout line by line (or passed through, or through us: tee, counting what
 * the job printed), stderr kept and the job's own
 * line found in it, a
 * launcher that cannot start, Open MPI's root variables (added, never
 * overridden), the timeout ending the whole tree (its own process group and
 * a process that left it), and a signal to kcal ending the job before it is
 * delivered: SIGTERM reaches the job once, and what the launcher leaves
 * gets the grace period to finish. The "launcher" is a script that drops -np N and execs the
 * program, so no MPI is needed. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/check.h"
#include "common/launch.h"

static char dir[] = "/tmp/kcal-test-launch-XXXXXX";
static char launcher[256];

typedef struct {
    char lines[16][256];
    int n;
} got;

static void on_line(void *ctx, const char *line)
{
    got *g = ctx;
    if (g->n < 16)
        snprintf(g->lines[g->n++], sizeof g->lines[0], "%s", line);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Run `sh -c script` under the test launcher. */
static int run_sh(const char *script, double timeout, got *g,
                  kcal_launch_result *r)
{
    char *prog[] = {"/bin/sh", "-c", (char *)script, NULL};
    kcal_launch_spec s = {launcher, 2, 0, prog, timeout, 0, 0, on_line, g,
                          NULL, NULL, 0};
    memset(g, 0, sizeof *g);
    char err[256];
    return kcal_launch_run(&s, r, err, sizeof err);
}

/* pid is gone (or a zombie nobody waits for) within two seconds. */
static int gone(long pid)
{
    for (int i = 0; i < 200; i++) {
        char path[64], buf[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            return 1;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        char *p = strrchr(buf, ')');
        if (p && p[1] == ' ' && p[2] == 'Z')
            return 1;
        usleep(10000);
    }
    return 0;
}

static volatile sig_atomic_t seen;
static void note(int sig) { seen = sig; }

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    snprintf(launcher, sizeof launcher, "%s/fake-mpirun", dir);
    FILE *f = fopen(launcher, "w");
    fprintf(f, "#!/bin/sh\n[ \"$1\" = -np ] && shift 2\nexec \"$@\"\n");
    fclose(f);
    chmod(launcher, 0755);

    /* The command line. */
    char *prog[] = {"prog", "a", NULL};
    char line[512];
    kcal_launch_spec s = {"mpirun -x FOO", 3, 2, prog, 0, 0, 0, NULL, NULL,
                          NULL, NULL, 0};
    CHECK_STR(kcal_launch_describe(&s, line, sizeof line),
              "mpirun -x FOO -np 3 --oversubscribe prog a");
    s.np = 2;
    CHECK_STR(kcal_launch_describe(&s, line, sizeof line), "mpirun -x FOO -np 2 prog a");
    s = (kcal_launch_spec){"/usr/bin/mpiexec", 3, 2, prog, 0, 0, 0, NULL, NULL,
                           NULL, NULL, 0};
    CHECK(kcal_launch_oversubscribes(&s));
    s.launcher = "srun --mpi=pmix"; /* not Open MPI's: no such option */
    CHECK(!kcal_launch_oversubscribes(&s));
    /* srun counts ranks with -n (it reads -np as -n p). */
    CHECK_STR(kcal_launch_describe(&s, line, sizeof line),
              "srun --mpi=pmix -n 3 prog a");
    s.launcher = "/usr/bin/srun -N 2";
    CHECK_STR(kcal_launch_describe(&s, line, sizeof line),
              "/usr/bin/srun -N 2 -n 3 prog a");
    /* kcal profile's wrapper comes first; the launcher's own first word
     * still decides srun's -n and Open MPI's --oversubscribe. */
    char *perf[] = {"perf", "record", "-a", "--", NULL};
    s.wrapper = perf;
    CHECK_STR(kcal_launch_describe(&s, line, sizeof line),
              "perf record -a -- /usr/bin/srun -N 2 -n 3 prog a");
    s.launcher = "mpirun";
    CHECK_STR(kcal_launch_describe(&s, line, sizeof line),
              "perf record -a -- mpirun -np 3 --oversubscribe prog a");
    s.wrapper = NULL;
    s.launcher = NULL;
    s.cores = 0; /* unknown cores: never */
    CHECK(!kcal_launch_oversubscribes(&s));
    CHECK_STR(kcal_launch_describe(&s, line, sizeof line), "mpirun -np 3 prog a");

    /* Flavors: Open MPI's named explicitly keeps its rules (and names its
     * own launcher: mpirun.openmpi where Debian installs it beside
     * another MPI); MPICH's hydra takes no oversubscribe flag, even named
     * mpiexec, and its default launcher is mpiexec.mpich or another
     * hydra. */
    const kcal_mpi_flavor *ompi = kcal_mpi_flavor_find("openmpi");
    const kcal_mpi_flavor *mpich = kcal_mpi_flavor_find("mpich");
    CHECK(ompi && mpich && ompi != mpich);
    s = (kcal_launch_spec){"mpirun.openmpi", 3, 2, prog, 0, 0, 0, NULL, NULL,
                           ompi, NULL, 0};
    CHECK_STR(kcal_launch_describe(&s, line, sizeof line),
              "mpirun.openmpi -np 3 --oversubscribe prog a");
    s.mpi = mpich;
    s.launcher = "mpiexec.mpich -genv A=1";
    CHECK(!kcal_launch_oversubscribes(&s));
    CHECK_STR(kcal_launch_describe(&s, line, sizeof line),
              "mpiexec.mpich -genv A=1 -np 3 prog a");
    s.launcher = "/usr/bin/mpiexec";
    CHECK(!kcal_launch_oversubscribes(&s));
    s.launcher = NULL;
    char dflt[256];
    kcal_mpi_flavor_launcher(mpich, dflt, sizeof dflt);
    CHECK(!strcmp(dflt, "mpiexec.mpich") || !strcmp(dflt, "mpiexec.hydra") ||
          !strcmp(dflt, "mpiexec"));
    char want[300];
    snprintf(want, sizeof want, "%s -np 3 prog a", dflt);
    CHECK_STR(kcal_launch_describe(&s, line, sizeof line), want);

    /* Output: lines in order (the last without its newline), stderr kept,
     * the job's own line found among others, the exit status. */
    got g;
    kcal_launch_result r;
    CHECK(run_sh("echo one; echo 'noise' >&2; echo 'job: it broke' >&2; "
                 "printf 'two\\nthree'; exit 4", 0, &g, &r) == 0);
    CHECK(g.n == 3);
    CHECK_STR(g.lines[0], "one");
    CHECK_STR(g.lines[2], "three");
    CHECK(r.status == 4 && !r.timed_out && !r.exec_errno && !r.term_signal);
    CHECK_STR(r.err, "noise\njob: it broke\n");
    CHECK_STR(kcal_launch_err_line(&r, "job: ", line, sizeof line), "job: it broke");
    CHECK(kcal_launch_err_line(&r, "other: ", line, sizeof line) == NULL);
    setenv("TMPDIR", dir, 1);
    char log[512];
    CHECK(kcal_launch_save_err(&r, "test", log, sizeof log) == 0);
    CHECK(strncmp(log, dir, strlen(dir)) == 0);
    FILE *lf = fopen(log, "r");
    char kept[64] = "";
    CHECK(lf && fread(kept, 1, sizeof kept - 1, lf) > 0);
    if (lf)
        fclose(lf);
    CHECK_STR(kept, "noise\njob: it broke\n");
    unlink(log);
    kcal_launch_result_free(&r);

    /* Nothing on stderr: nothing kept, no file. */
    CHECK(run_sh("true", 0, &g, &r) == 0);
    CHECK(r.status == 0 && r.err == NULL && g.n == 0);
    CHECK(kcal_launch_save_err(&r, "test", log, sizeof log) < 0);

    /* A launcher that does not exist. */
    kcal_launch_spec bad = {"/nonexistent/mpirun --flag", 2, 0, prog, 0, 0, 0,
                            NULL, NULL, NULL, NULL, 0};
    char err[256];
    CHECK(kcal_launch_run(&bad, &r, err, sizeof err) == 0);
    CHECK(r.exec_errno == ENOENT && r.status == 127);
    kcal_launch_result_free(&r);
    bad.launcher = "   ";
    CHECK(kcal_launch_run(&bad, &r, err, sizeof err) < 0);

    /* Without a callback the job's stdout is ours, byte for byte (kcal
     * run): here a file in place of the test's stdout. */
    char outpath[512], content[64] = "";
    snprintf(outpath, sizeof outpath, "%s/stdout", dir);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    int fd = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(saved >= 0 && fd >= 0);
    dup2(fd, STDOUT_FILENO);
    close(fd);
    char *say[] = {"/bin/sh", "-c", "printf 'straight\\nthrough'; exit 3", NULL};
    kcal_launch_spec pass = {launcher, 2, 0, say, 0, 0, 0, NULL, NULL, NULL, NULL,
                             0};
    int prc = kcal_launch_run(&pass, &r, err, sizeof err);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    CHECK(prc == 0 && r.status == 3);
    FILE *of = fopen(outpath, "r");
    CHECK(of && fread(content, 1, sizeof content - 1, of) > 0);
    if (of)
        fclose(of);
    CHECK_STR(content, "straight\nthrough");
    unlink(outpath);

    /* tee (kcal run): the same bytes reach our stdout and stderr, through
     * us, and r.printed counts them; a job that says nothing prints 0. */
    char errpath[512], errcontent[64] = "";
    snprintf(errpath, sizeof errpath, "%s/stderr", dir);
    fflush(stdout);
    fflush(stderr);
    saved = dup(STDOUT_FILENO);
    int saved_err = dup(STDERR_FILENO);
    fd = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int efd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(saved >= 0 && saved_err >= 0 && fd >= 0 && efd >= 0);
    dup2(fd, STDOUT_FILENO);
    dup2(efd, STDERR_FILENO);
    close(fd);
    close(efd);
    char *both[] = {"/bin/sh", "-c", "printf 'out'; printf 'err' >&2; exit 4",
                    NULL};
    kcal_launch_spec tee = {launcher, 2, 0, both, 0, 0, 1, NULL, NULL, NULL,
                            NULL, 1};
    prc = kcal_launch_run(&tee, &r, err, sizeof err);
    int tee_status = r.status;
    unsigned long long printed = r.printed;
    kcal_launch_result_free(&r);
    char *quiet[] = {"/bin/sh", "-c", "exit 5", NULL};
    tee.prog = quiet;
    int qrc = kcal_launch_run(&tee, &r, err, sizeof err);
    dup2(saved, STDOUT_FILENO);
    dup2(saved_err, STDERR_FILENO);
    close(saved);
    close(saved_err);
    CHECK(prc == 0 && tee_status == 4 && printed == 6);
    CHECK(qrc == 0 && r.status == 5 && r.printed == 0 && r.err == NULL);
    kcal_launch_result_free(&r);
    of = fopen(outpath, "r");
    memset(content, 0, sizeof content);
    CHECK(of && fread(content, 1, sizeof content - 1, of) > 0);
    if (of)
        fclose(of);
    CHECK_STR(content, "out");
    FILE *ef = fopen(errpath, "r");
    CHECK(ef && fread(errcontent, 1, sizeof errcontent - 1, ef) > 0);
    if (ef)
        fclose(ef);
    CHECK_STR(errcontent, "err");
    unlink(outpath);
    unlink(errpath);
    kcal_launch_result_free(&r);

    /* Root: Open MPI's variables are added, a value the user set stays. */
    unsetenv("OMPI_ALLOW_RUN_AS_ROOT");
    unsetenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM");
    CHECK(run_sh("echo \"[$OMPI_ALLOW_RUN_AS_ROOT][$OMPI_ALLOW_RUN_AS_ROOT_CONFIRM]\"",
                 0, &g, &r) == 0);
    CHECK_STR(g.lines[0], geteuid() == 0 ? "[1][1]" : "[][]");
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "0", 1);
    CHECK(run_sh("echo \"[$OMPI_ALLOW_RUN_AS_ROOT]\"", 0, &g, &r) == 0);
    CHECK_STR(g.lines[0], "[0]");
    CHECK(getenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM") == NULL); /* kcal's own: untouched */
    unsetenv("OMPI_ALLOW_RUN_AS_ROOT");
    /* MPICH runs as root as it is: nothing added for it. */
    {
        char *sh[] = {"/bin/sh", "-c",
                      "echo \"[$OMPI_ALLOW_RUN_AS_ROOT][$OMPI_ALLOW_RUN_AS_ROOT_CONFIRM]\"",
                      NULL};
        kcal_launch_spec m = {launcher, 2, 0, sh, 0, 0, 0, on_line, &g, mpich, NULL,
                              0};
        memset(&g, 0, sizeof g);
        CHECK(kcal_launch_run(&m, &r, err, sizeof err) == 0);
        CHECK(g.n == 1);
        CHECK_STR(g.lines[0], "[][]");
        kcal_launch_result_free(&r);
    }

    /* The timeout ends the job's group and a process that left it (as
     * mpirun's ranks do: setsid), stopped or not. */
    double t0 = now();
    CHECK(run_sh("sleep 100 & echo $!; setsid sleep 101 & echo $!; "
                 "kill -STOP $!; wait", 1, &g, &r) == 0);
    double took = now() - t0;
    CHECK(r.timed_out);
    CHECK(took >= 1 && took < 1 + KCAL_LAUNCH_GRACE + 2);
    CHECK(g.n == 2);
    for (int i = 0; i < g.n; i++)
        CHECK(gone(atol(g.lines[i])));
    kcal_launch_result_free(&r);

    /* A job ended by the timeout: what it wrote on stderr before the end is
     * worth a file; what it writes on being ended (mpirun's words, which
     * come or not with timing) alone is not. */
    CHECK(run_sh("trap 'echo ended >&2; exit 1' TERM; "
                 "while :; do sleep 0.05; done", 1, &g, &r) == 0);
    CHECK(r.timed_out && r.err_len > 0 && r.err_before_end == 0);
    CHECK(kcal_launch_save_err(&r, "test", log, sizeof log) < 0);
    kcal_launch_result_free(&r);
    CHECK(run_sh("echo 'job: stuck' >&2; trap 'echo ended >&2; exit 1' TERM; "
                 "while :; do sleep 0.05; done", 1, &g, &r) == 0);
    CHECK(r.timed_out && r.err_before_end == strlen("job: stuck\n"));
    CHECK(kcal_launch_save_err(&r, "test", log, sizeof log) == 0);
    unlink(log);
    kcal_launch_result_free(&r);

    /* SIGTERM to kcal while the job runs: the job is ended first, then the
     * signal is delivered as it would have been (here: to our handler). */
    signal(SIGTERM, note);
    CHECK(run_sh("sleep 100 & echo $!; kill -TERM $PPID; wait", 0, &g, &r) == 0);
    CHECK(r.signal == SIGTERM && seen == SIGTERM);
    CHECK(g.n == 1 && gone(atol(g.lines[0])));
    kcal_launch_result_free(&r);
    signal(SIGTERM, SIG_DFL);

    /* The job gets SIGTERM once: a second one makes Open MPI's mpirun quit
     * its orderly shutdown at once, before its ranks have removed their
     * shared memory (kcal run left /dev/shm/vader_segment.* behind after
     * Ctrl-C). The launcher here notes each SIGTERM and goes after 1 s. */
    char script[1024], notes[512], cleaned[512];
    snprintf(notes, sizeof notes, "%s/terms", dir);
    snprintf(script, sizeof script,
             "trap 'echo term >>%s' TERM; kill -TERM $PPID; "
             "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 0.1; done", notes);
    seen = 0;
    signal(SIGTERM, note);
    CHECK(run_sh(script, 0, &g, &r) == 0);
    CHECK(r.signal == SIGTERM && seen == SIGTERM);
    signal(SIGTERM, SIG_DFL);
    kcal_launch_result_free(&r);
    FILE *nf = fopen(notes, "r");
    int terms = 0;
    for (char l[64]; nf && fgets(l, sizeof l, nf);)
        terms++;
    if (nf)
        fclose(nf);
    CHECK(terms == 1);
    unlink(notes);

    /* What the launcher leaves when it goes (a rank still removing its
     * shared memory) has the rest of the grace period to finish before
     * SIGKILL: here a process of its own session that the launcher sends
     * SIGTERM on its way out, and that takes 0.5 s to clean up. */
    snprintf(cleaned, sizeof cleaned, "%s/cleaned", dir);
    snprintf(script, sizeof script,
             "setsid sh -c 'trap \"sleep 0.5; echo done >%s; exit\" TERM; "
             "while :; do sleep 0.1; done' & c=$!; echo $c; "
             "trap \"kill -TERM $c; exit\" TERM; "
             "while :; do sleep 0.1; done", cleaned);
    CHECK(run_sh(script, 1, &g, &r) == 0);
    CHECK(r.timed_out && g.n == 1);
    CHECK(access(cleaned, F_OK) == 0);
    CHECK(g.n == 1 && gone(atol(g.lines[0])));
    kcal_launch_result_free(&r);
    unlink(cleaned);

    unlink(launcher);
    rmdir(dir);
    return check_report();
}
