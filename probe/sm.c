/* sm: T_sm_X by launching an MPI helper with mpirun (see sm.h). */
#include "sm.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

const char *kcal_sm_find_helper(char *buf, size_t len)
{
    const char *env = getenv("KCAL_SM_BENCH");
    if (env && *env) {
        snprintf(buf, len, "%s", env);
        return access(buf, X_OK) == 0 ? buf : NULL;
    }
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    const char *dir = dirname(exe);
    static const char *const rel[] = {"build/kcal-sm-bench", "kcal-sm-bench",
                                      "../kcal-sm-bench"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        snprintf(buf, len, "%s/%s", dir, rel[i]);
        if (access(buf, X_OK) == 0)
            return buf;
    }
    return NULL;
}

/* argv for one launch: the mpirun words, -np P, helper and its args. */
static char **build_argv(const kcal_sm_setup *s, int p, char *words,
                         char *nums[4])
{
    size_t cap = 16;
    for (const char *c = words; *c; c++)
        cap += *c == ' ' || *c == '\t';
    char **argv = calloc(cap, sizeof *argv);
    if (!argv)
        return NULL;
    size_t n = 0;
    for (char *tok = strtok(words, " \t"); tok; tok = strtok(NULL, " \t"))
        argv[n++] = tok;
    snprintf(nums[0], 16, "%d", p);
    snprintf(nums[1], 16, "%d", s->reps);
    snprintf(nums[2], 16, "%d", s->inner);
    snprintf(nums[3], 16, "%d", s->warmup);
    argv[n++] = "-np";
    argv[n++] = nums[0];
    argv[n++] = (char *)s->helper;
    argv[n++] = nums[1];
    argv[n++] = nums[2];
    argv[n++] = nums[3];
    argv[n] = NULL;
    return argv;
}

/* One mpirun launch at p ranks; parse its "kcal-sm" lines into raw. */
static int launch(const kcal_sm_setup *s, int p, kcal_raw *raw, char *err,
                  size_t errlen)
{
    char *words = strdup(s->mpirun ? s->mpirun : "mpirun");
    char nb[4][16], *nums[4] = {nb[0], nb[1], nb[2], nb[3]};
    char **argv = words ? build_argv(s, p, words, nums) : NULL;
    int pfd[2] = {-1, -1}, rc = -1;
    size_t n0 = raw->n; /* a failed launch leaves no samples */
    if (!argv || !argv[0] || argv[0] == (char *)s->helper) {
        kcal_set_err(err, errlen, "empty mpirun command");
        goto out;
    }
    if (pipe(pfd) < 0) {
        kcal_set_err(err, errlen, "pipe: %s", strerror(errno));
        goto out;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        kcal_set_err(err, errlen, "fork: %s", strerror(errno));
        goto out;
    }
    if (pid == 0) {
        /* Own process group: a hung mpirun is killed with all its ranks. */
        setpgid(0, 0);
        dup2(pfd[1], STDOUT_FILENO);
        dup2(pfd[1], STDERR_FILENO);
        close(pfd[0]);
        close(pfd[1]);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0)
            dup2(devnull, STDIN_FILENO);
        /* The probe is bound to one core; mpirun and its ranks inherit
         * that unless we give the whole machine back (a launcher that
         * does not bind would otherwise stack every rank on one core). */
        long ncpu = sysconf(_SC_NPROCESSORS_CONF);
        if (ncpu > 0) {
            cpu_set_t *set = CPU_ALLOC((int)ncpu);
            if (set) {
                size_t sz = CPU_ALLOC_SIZE((int)ncpu);
                CPU_ZERO_S(sz, set);
                for (long c = 0; c < ncpu; c++)
                    CPU_SET_S((int)c, sz, set);
                sched_setaffinity(0, sz, set);
                CPU_FREE(set);
            }
        }
        if (geteuid() == 0) {
            setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
            setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run '%s': %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    close(pfd[1]);
    pfd[1] = -1;
    FILE *f = fdopen(pfd[0], "r");
    if (!f) {
        kill(-pid, SIGKILL);
        waitpid(pid, NULL, 0);
        kcal_set_err(err, errlen, "fdopen: %s", strerror(errno));
        goto out;
    }
    pfd[0] = -1;
    char line[512], last[256] = "";
    int got = 0, timed_out = 0;
    double deadline = kcal_now() + s->timeout;
    for (;;) {
        struct pollfd pf = {fileno(f), POLLIN, 0};
        int left = (int)((deadline - kcal_now()) * 1000);
        if (left <= 0 || poll(&pf, 1, left) == 0) {
            timed_out = 1;
            break;
        }
        if (!fgets(line, sizeof line, f))
            break;
        char op[32];
        int np, rep;
        double sec;
        if (sscanf(line, "kcal-sm %31s %d %d %lg", op, &np, &rep, &sec) == 4) {
            char phase[48];
            snprintf(phase, sizeof phase, "sm_%s", op);
            if (kcal_raw_add(raw, phase, "mpi", np, 0, 8, rep, sec) == 0)
                got++;
        } else {
            line[strcspn(line, "\n")] = '\0';
            if (*line)
                snprintf(last, sizeof last, "%.200s", line);
        }
    }
    if (timed_out)
        kill(-pid, SIGKILL);
    fclose(f);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (timed_out)
        kcal_set_err(err, errlen, "mpirun -np %d took longer than %.0f s; killed",
                p, s->timeout);
    else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || got == 0)
        kcal_set_err(err, errlen, "mpirun -np %d failed (%s %d)%s%s", p,
                WIFEXITED(st) ? "exit" : "signal",
                WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
                *last ? ": " : "", last);
    else
        rc = 0;
out:
    if (rc < 0)
        raw->n = n0;
    if (pfd[0] >= 0)
        close(pfd[0]);
    if (pfd[1] >= 0)
        close(pfd[1]);
    free(argv);
    free(words);
    return rc;
}

int kcal_sm_measure(const kcal_sm_setup *s, kcal_raw *raw, char *err,
                    size_t errlen)
{
    for (size_t i = 0; i < s->n_ps; i++) {
        if (launch(s, (int)s->ps[i], raw, err, errlen) < 0)
            return -1;
        kcal_meter_tick(s->meter, "T_sm (mpirun)", s->tick_units);
    }
    return 0;
}
