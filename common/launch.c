/* launch: run an MPI job that kcal always ends (see launch.h). */
#include "common/launch.h"
#include "common/grow.h"
#include "common/err.h"
#include "common/mpi_flavor.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- the command ------------------------------------------------------ */

/* The rules of the job's MPI library: Open MPI's unless the spec names
 * another. */
static const kcal_mpi_flavor *flavor_of(const kcal_launch_spec *s)
{
    return s->mpi ? s->mpi : kcal_mpi_flavor_find("openmpi");
}

/* The launcher's words: the spec's, else the flavor's default launcher
 * (found on PATH), else, with no flavor named, "mpirun". */
static const char *launcher_of(const kcal_launch_spec *s, char *buf,
                               size_t len)
{
    if (s->launcher && *s->launcher)
        return s->launcher;
    if (s->mpi)
        return kcal_mpi_flavor_launcher(s->mpi, buf, len);
    return "mpirun";
}

/* Slurm's srun takes the rank count as -n, not -np. */
static int is_srun(const char *word)
{
    const char *base = strrchr(word, '/');
    return !strcmp(base ? base + 1 : word, "srun");
}

typedef struct {
    char *words; /* the launcher's words, split in place */
    char **argv;
    char np[16];
    char oversubscribe[64];
} command;

static void command_free(command *c)
{
    free(c->words);
    free(c->argv);
}

/* argv: launcher words, -np P (srun: -n P), [--oversubscribe], program
 * and arguments. */
static int command_build(const kcal_launch_spec *s, command *c)
{
    memset(c, 0, sizeof *c);
    char dflt[256];
    c->words = strdup(launcher_of(s, dflt, sizeof dflt));
    size_t nprog = 0;
    while (s->prog && s->prog[nprog])
        nprog++;
    size_t nwrap = 0;
    while (s->wrapper && s->wrapper[nwrap])
        nwrap++;
    size_t cap = 4 + nprog + nwrap;
    for (const char *w = c->words; w && *w; w++)
        cap += *w == ' ' || *w == '\t';
    c->argv = calloc(cap + 1, sizeof *c->argv);
    if (!c->words || !c->argv) {
        command_free(c);
        return -1;
    }
    size_t n = 0;
    char *save = NULL;
    for (size_t i = 0; i < nwrap; i++)
        c->argv[n++] = s->wrapper[i];
    for (char *w = strtok_r(c->words, " \t", &save); w;
         w = strtok_r(NULL, " \t", &save))
        c->argv[n++] = w;
    if (n == nwrap || nprog == 0) {
        command_free(c);
        return -1;
    }
    int over = kcal_launch_oversubscribes(s);
    snprintf(c->np, sizeof c->np, "%d", s->np);
    c->argv[n++] = is_srun(c->argv[nwrap]) ? "-n" : "-np";
    c->argv[n++] = c->np;
    if (over) {
        snprintf(c->oversubscribe, sizeof c->oversubscribe, "%s",
                 flavor_of(s)->oversubscribe);
        c->argv[n++] = c->oversubscribe;
    }
    for (size_t i = 0; i < nprog; i++)
        c->argv[n++] = s->prog[i];
    c->argv[n] = NULL;
    return 0;
}

int kcal_launch_oversubscribes(const kcal_launch_spec *s)
{
    if (s->cores <= 0 || s->np <= s->cores)
        return 0;
    char dflt[256];
    const char *l = launcher_of(s, dflt, sizeof dflt);
    char first[4096];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(l + strspn(l, " \t"), " \t"),
             l + strspn(l, " \t"));
    return kcal_mpi_flavor_oversubscribing(flavor_of(s), first);
}

char *kcal_launch_describe(const kcal_launch_spec *s, char *buf, size_t len)
{
    command c;
    if (len)
        buf[0] = '\0';
    if (command_build(s, &c) != 0)
        return buf;
    size_t at = 0;
    for (size_t i = 0; c.argv[i] && at < len; i++) {
        int n = snprintf(buf + at, len - at, "%s%s", i ? " " : "", c.argv[i]);
        if (n < 0)
            break;
        at += (size_t)n;
    }
    command_free(&c);
    return buf;
}

/* The job's environment: kcal's, plus what the flavor's launcher needs to
 * run as root (Open MPI's permission) where the user has not set it (built
 * before fork: no setenv in the child). */
static char **job_environ(const kcal_mpi_flavor *f)
{
    size_t n = 0, nroot = 0;
    while (environ[n])
        n++;
    while (f->root_env[nroot])
        nroot++;
    char **env = calloc(n + nroot + 1, sizeof *env);
    if (!env)
        return NULL;
    memcpy(env, environ, n * sizeof *env);
    for (size_t i = 0; geteuid() == 0 && i < nroot; i++) {
        const char *kv = f->root_env[i];
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(kv, "="), kv);
        if (!getenv(name))
            env[n++] = (char *)kv;
    }
    env[n] = NULL;
    return env;
}

/* ---- signals ---------------------------------------------------------- */

static const int caught[] = {SIGTERM, SIGINT, SIGHUP};
#define NCAUGHT (sizeof caught / sizeof caught[0])
static volatile sig_atomic_t job_pgid; /* 0: no job running */
static volatile sig_atomic_t got_signal;
/* The job has had its SIGTERM: once only. A second one makes Open MPI's
 * mpirun give up its orderly shutdown and exit at once, before its ranks
 * have removed their shared-memory segments (/dev/shm/vader_segment.*),
 * which then stay behind. */
static volatile sig_atomic_t job_termed;

static void on_signal(int sig)
{
    int saved = errno;
    got_signal = sig;
    if (job_pgid > 0 && !job_termed) {
        job_termed = 1;
        kill(-job_pgid, SIGTERM);
        kill(-job_pgid, SIGCONT);
    }
    errno = saved;
}

typedef struct {
    struct sigaction old[NCAUGHT];
    int installed[NCAUGHT];
} handlers;

/* Catch the signals that would end kcal, unless kcal ignores them (nohup,
 * or started in the background by a shell without job control). No
 * SA_RESTART: poll and waitpid return EINTR, so the loop sees the signal. */
static void handlers_install(handlers *h)
{
    got_signal = 0;
    for (size_t i = 0; i < NCAUGHT; i++) {
        h->installed[i] = 0;
        if (sigaction(caught[i], NULL, &h->old[i]) != 0 ||
            h->old[i].sa_handler == SIG_IGN)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        h->installed[i] = sigaction(caught[i], &sa, NULL) == 0;
    }
}

static void handlers_restore(handlers *h)
{
    for (size_t i = 0; i < NCAUGHT; i++)
        if (h->installed[i])
            sigaction(caught[i], &h->old[i], NULL);
}

/* ---- the job's process tree ------------------------------------------- */

typedef struct {
    pid_t pid;
    unsigned long long start; /* jiffies since boot: tells a reused pid */
} proc_id;

/* ppid, start time and state ('R', 'S', 'Z' ...) of pid from
 * /proc/PID/stat; 0 or -1. */
static int proc_stat(pid_t pid, pid_t *ppid, unsigned long long *start,
                     char *state)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* The command name may hold blanks and parentheses: fields resume
     * after the last ')'. State is field 3, ppid 4, start time 22. */
    char *s = strrchr(buf, ')');
    if (!s)
        return -1;
    int pp;
    char st;
    if (sscanf(s + 1, " %c %d", &st, &pp) != 2)
        return -1;
    for (int field = 2; field < 22 && s; field++)
        s = strchr(s + 1, ' ');
    if (!s || sscanf(s, " %llu", start) != 1)
        return -1;
    *ppid = pp;
    *state = st;
    return 0;
}

/* Every process below root (not root itself), found through /proc. */
static proc_id *descendants(pid_t root, size_t *count)
{
    *count = 0;
    DIR *d = opendir("/proc");
    if (!d)
        return NULL;
    size_t n = 0, cap = 256;
    struct row {
        pid_t pid, ppid;
        unsigned long long start;
        int mine;
    } *all = malloc(cap * sizeof *all);
    struct dirent *e;
    while (all && (e = readdir(d))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        if (n == cap) {
            struct row *more = realloc(all, 2 * cap * sizeof *all);
            if (!more)
                break;
            all = more;
            cap *= 2;
        }
        char state;
        if (proc_stat((pid_t)pid, &all[n].ppid, &all[n].start, &state) == 0) {
            all[n].pid = (pid_t)pid;
            all[n].mine = 0;
            n++;
        }
    }
    closedir(d);
    if (!all)
        return NULL;
    /* Mark children of root, then theirs, until nothing changes. */
    proc_id *out = malloc((n ? n : 1) * sizeof *out);
    size_t got = 0;
    for (int changed = 1; changed && out;) {
        changed = 0;
        for (size_t i = 0; i < n; i++) {
            if (all[i].mine)
                continue;
            int under = all[i].ppid == root;
            for (size_t j = 0; !under && j < n; j++)
                under = all[j].mine && all[j].pid == all[i].ppid;
            if (under) {
                all[i].mine = changed = 1;
                out[got++] = (proc_id){all[i].pid, all[i].start};
            }
        }
    }
    free(all);
    *count = got;
    return out;
}

/* ---- reading the job's output ------------------------------------------ */

typedef struct {
    int fd;
    int to; /* tee: where its bytes are copied as they come, else -1 */
    char *buf;
    size_t len, cap;
} stream;

/* Copy n bytes of a tee'd stream on to s->to. 0, or -1 when that cannot
 * be written any more (a closed pipe: SIGPIPE is ignored meanwhile). */
static int copy_on(stream *s, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(s->to, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int stream_add(stream *s, const char *p, size_t n, size_t limit,
                      size_t *dropped)
{
    if (limit && s->len + n > limit) {
        size_t room = limit > s->len ? limit - s->len : 0;
        *dropped += n - room;
        n = room;
    }
    char *b = kcal_grow_to(s->buf, &s->cap, s->len + n + 1, 1, 4096);
    if (!b)
        return -1;
    s->buf = b;
    memcpy(s->buf + s->len, p, n);
    s->len += n;
    s->buf[s->len] = '\0';
    return 0;
}

/* Hand over every complete line of out (all of it at EOF). */
static void deliver_lines(const kcal_launch_spec *sp, stream *out, int eof)
{
    if (!out->buf)
        return;
    size_t at = 0;
    for (;;) {
        char *nl = memchr(out->buf + at, '\n', out->len - at);
        if (!nl)
            break;
        *nl = '\0';
        if (sp->on_line)
            sp->on_line(sp->ctx, out->buf + at);
        at = (size_t)(nl - out->buf) + 1;
    }
    if (eof && at < out->len) {
        if (sp->on_line)
            sp->on_line(sp->ctx, out->buf + at);
        at = out->len;
    }
    memmove(out->buf, out->buf + at, out->len - at);
    out->len -= at;
    out->buf[out->len] = '\0';
}

/* Wait up to ms for output and read what there is; closes a stream at its
 * end. 1 when it read something or closed a stream, else 0. */
static int pump(const kcal_launch_spec *sp, stream *out, stream *err,
                 kcal_launch_result *r, int ms)
{
    struct pollfd pf[2];
    int n = 0;
    if (out->fd >= 0)
        pf[n++] = (struct pollfd){out->fd, POLLIN, 0};
    if (err->fd >= 0)
        pf[n++] = (struct pollfd){err->fd, POLLIN, 0};
    if (n == 0) {
        if (ms > 0)
            poll(NULL, 0, ms);
        return 0;
    }
    if (poll(pf, (nfds_t)n, ms) <= 0)
        return 0;
    int moved = 0;
    for (int i = 0; i < n; i++) {
        if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        stream *s = pf[i].fd == out->fd ? out : err;
        char chunk[8192];
        ssize_t got = read(s->fd, chunk, sizeof chunk);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        moved = 1;
        if (got <= 0) {
            close(s->fd);
            s->fd = -1;
            if (s == out)
                deliver_lines(sp, out, 1);
            continue;
        }
        r->printed += (unsigned long long)got;
        if (s->to >= 0) {
            /* Where kcal's own stream is gone, the job's writes fail from
             * now on, as they would have written there themselves. */
            if (copy_on(s, chunk, (size_t)got) != 0) {
                close(s->fd);
                s->fd = -1;
            }
        } else if (s == out) {
            stream_add(out, chunk, (size_t)got, 0, &r->err_dropped);
            deliver_lines(sp, out, 0);
        } else {
            stream_add(err, chunk, (size_t)got, KCAL_LAUNCH_ERR_KEEP,
                       &r->err_dropped);
        }
    }
    return moved;
}

/* Whether the child has exited, without reaping it: while it is a zombie
 * its pid, and so its process group, cannot be reused. */
static int exited(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           si.si_pid == pid;
}

/* Whether the process of the job's tree that was p still runs (its start
 * time tells a reused pid; a zombie has ended, whether or not anyone
 * reaps it). */
static int still_there(const proc_id *p)
{
    pid_t pp;
    unsigned long long start;
    char state;
    return proc_stat(p->pid, &pp, &start, &state) == 0 &&
           start == p->start && state != 'Z';
}

static int any_still_there(const proc_id *tree, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (still_there(&tree[i]))
            return 1;
    return 0;
}

/* End the job: SIGTERM (and SIGCONT, for stopped processes) to its group,
 * unless the signal handler has sent them already, the grace period for
 * the launcher and then for what it started (ranks that are still
 * removing their shared memory), then SIGKILL to the group and to whatever
 * of its tree is left (mpirun's ranks have process groups of their own). */
static void end_job(const kcal_launch_spec *sp, pid_t pid, stream *out,
                    stream *err, kcal_launch_result *r)
{
    size_t ntree = 0;
    proc_id *tree = descendants(pid, &ntree);
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < NCAUGHT; i++)
        sigaddset(&block, caught[i]);
    sigprocmask(SIG_BLOCK, &block, &old);
    if (!job_termed) {
        job_termed = 1;
        kill(-pid, SIGTERM);
        kill(-pid, SIGCONT);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    double until = now() + KCAL_LAUNCH_GRACE;
    while (!exited(pid) && now() < until)
        pump(sp, out, err, r, 20);
    while (any_still_there(tree, ntree) && now() < until)
        pump(sp, out, err, r, 20);
    kill(-pid, SIGKILL);
    for (size_t i = 0; i < ntree; i++)
        if (still_there(&tree[i]))
            kill(tree[i].pid, SIGKILL);
    free(tree);
    /* What the job wrote before it ended is still in the pipes (a signal
     * to kcal, or a launcher quick to die, leaves the loops above before
     * they read it): take it, without waiting for more. */
    for (int i = 0; i < 4096 && pump(sp, out, err, r, 0); i++)
        ;
}

/* ---- the child -------------------------------------------------------- */

static void give_every_cpu(void)
{
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    if (ncpu <= 0)
        return;
    cpu_set_t *set = CPU_ALLOC((int)ncpu);
    if (!set)
        return;
    size_t sz = CPU_ALLOC_SIZE((int)ncpu);
    CPU_ZERO_S(sz, set);
    for (long c = 0; c < ncpu; c++)
        CPU_SET_S((int)c, sz, set);
    sched_setaffinity(0, sz, set);
    CPU_FREE(set);
}

/* Between fork and exec: only async-signal-safe calls. pipe_action: what
 * SIGPIPE did in kcal before a tee'd launch ignored it, or NULL. */
static void child(const kcal_launch_spec *s, char **argv, char **env,
                  pid_t parent, int out_w, int err_w, int status_w,
                  const sigset_t *mask, const struct sigaction *pipe_action)
{
    setpgid(0, 0);
    /* kcal killed outright (SIGKILL) cannot end the job: the kernel tells
     * the launcher instead. If kcal is already gone, do not start. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(127);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
        dup2(null, STDIN_FILENO);
    if (out_w >= 0)
        dup2(out_w, STDOUT_FILENO);
    if (err_w >= 0)
        dup2(err_w, STDERR_FILENO);
    if (s->unbind)
        give_every_cpu();
    for (size_t i = 0; i < NCAUGHT; i++) {
        struct sigaction sa;
        if (sigaction(caught[i], NULL, &sa) == 0 && sa.sa_handler == on_signal)
            signal(caught[i], SIG_DFL);
    }
    if (pipe_action)
        sigaction(SIGPIPE, pipe_action, NULL);
    sigprocmask(SIG_SETMASK, mask, NULL);
    execvpe(argv[0], argv, env);
    int e = errno;
    ssize_t w = write(status_w, &e, sizeof e);
    (void)w;
    _exit(127);
}

/* ---- running it -------------------------------------------------------- */

int kcal_launch_run(const kcal_launch_spec *s, kcal_launch_result *r,
                    char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->status = -1;
    command c;
    if (command_build(s, &c) != 0) {
        kcal_set_err(err, errlen, "empty launcher command");
        return -1;
    }
    char **env = job_environ(flavor_of(s));
    int outp[2] = {-1, -1}, errp[2] = {-1, -1}, stp[2] = {-1, -1};
    int rc = -1;
    if (!env) {
        kcal_set_err(err, errlen, "out of memory");
        goto out;
    }
    /* tee: the streams that would be kcal's come through it instead. */
    int tee_out = s->tee && !s->on_line, tee_err = s->tee && s->pass_stderr;
    if (((s->on_line || tee_out) && pipe2(outp, O_CLOEXEC)) ||
        pipe2(stp, O_CLOEXEC) ||
        ((!s->pass_stderr || tee_err) && pipe2(errp, O_CLOEXEC))) {
        kcal_set_err(err, errlen, "pipe: %s", strerror(errno));
        goto out;
    }
    /* Writing the job's output on to a closed stdout must fail (EPIPE),
     * not kill kcal with the job still running; the job itself gets back
     * what kcal had. */
    struct sigaction ignore, pipe_action;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    int pipe_ignored = s->tee && sigaction(SIGPIPE, &ignore, &pipe_action) == 0;
    handlers h;
    handlers_install(&h);
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < NCAUGHT; i++)
        sigaddset(&block, caught[i]);
    sigprocmask(SIG_BLOCK, &block, &old);
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    if (pid == 0)
        child(s, c.argv, env, parent, outp[1], errp[1], stp[1], &old,
              pipe_ignored ? &pipe_action : NULL);
    if (pid < 0) {
        kcal_set_err(err, errlen, "fork: %s", strerror(errno));
        sigprocmask(SIG_SETMASK, &old, NULL);
        handlers_restore(&h);
        if (pipe_ignored)
            sigaction(SIGPIPE, &pipe_action, NULL);
        goto out;
    }
    setpgid(pid, pid); /* also here: no signal may find the group missing */
    job_termed = 0;
    job_pgid = pid;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (outp[1] >= 0)
        close(outp[1]);
    close(stp[1]);
    outp[1] = stp[1] = -1;
    if (errp[1] >= 0) {
        close(errp[1]);
        errp[1] = -1;
    }

    /* The exec status pipe closes at a successful exec, or brings errno. */
    int e = 0;
    ssize_t got;
    while ((got = read(stp[0], &e, sizeof e)) < 0 && errno == EINTR &&
           !got_signal)
        ;
    stream out = {outp[0], tee_out ? STDOUT_FILENO : -1, NULL, 0, 0},
           errs = {errp[0], tee_err ? STDERR_FILENO : -1, NULL, 0, 0};
    outp[0] = errp[0] = -1;
    if (got == (ssize_t)sizeof e)
        r->exec_errno = e;

    double deadline = s->timeout > 0 ? now() + s->timeout : 0, gone = 0;
    while (!r->exec_errno && !got_signal && (out.fd >= 0 || errs.fd >= 0)) {
        double t = now();
        if (deadline && t >= deadline) {
            r->timed_out = 1;
            break;
        }
        /* The launcher is gone but something it left holds the pipes:
         * read what is there for a second, then stop. */
        if (!gone && exited(pid))
            gone = t;
        if (gone && t - gone > 1.0)
            break;
        int ms = 250;
        if (deadline && (deadline - t) * 1000 < ms)
            ms = (int)((deadline - t) * 1000) + 1;
        pump(s, &out, &errs, r, ms);
    }
    /* The output has ended; the launcher may take a moment to exit. */
    while (!r->exec_errno && !r->timed_out && !got_signal && !exited(pid)) {
        if (deadline && now() >= deadline)
            r->timed_out = 1;
        else
            pump(s, &out, &errs, r, 50);
    }
    size_t before_end = SIZE_MAX; /* all of it when the job ended itself */
    if (r->timed_out || got_signal) {
        before_end = errs.len;
        end_job(s, pid, &out, &errs, r);
    } else if (!r->exec_errno) {
        kill(-pid, SIGKILL); /* anything the launcher left in its group */
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    job_pgid = 0;
    r->term_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + r->term_signal;
    if (out.fd >= 0)
        close(out.fd);
    if (errs.fd >= 0)
        close(errs.fd);
    free(out.buf);
    r->err_before_end = before_end < errs.len ? before_end : errs.len;
    if (errs.len) {
        r->err = errs.buf;
        r->err_len = errs.len;
    } else {
        free(errs.buf);
    }
    r->signal = got_signal;
    handlers_restore(&h);
    if (pipe_ignored)
        sigaction(SIGPIPE, &pipe_action, NULL);
    /* The signal was meant for kcal: deliver it now that the job is over
     * (with the disposition it had before; by default it ends kcal). */
    if (r->signal)
        raise(r->signal);
    rc = 0;
out:
    for (int i = 0; i < 2; i++) {
        if (outp[i] >= 0)
            close(outp[i]);
        if (errp[i] >= 0)
            close(errp[i]);
        if (stp[i] >= 0)
            close(stp[i]);
    }
    free(env);
    command_free(&c);
    return rc;
}

void kcal_launch_result_free(kcal_launch_result *r)
{
    free(r->err);
    r->err = NULL;
    r->err_len = 0;
}

const char *kcal_launch_err_line(const kcal_launch_result *r,
                                 const char *prefix, char *buf, size_t len)
{
    size_t plen = strlen(prefix);
    for (const char *s = r->err; s && *s;) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        if (n >= plen && !strncmp(s, prefix, plen)) {
            snprintf(buf, len, "%.*s", (int)n, s);
            return buf;
        }
        s = nl ? nl + 1 : s + n;
    }
    return NULL;
}

int kcal_launch_save_err(const kcal_launch_result *r, const char *tag,
                         char *path, size_t len)
{
    if (!r->err || !r->err_len || !r->err_before_end)
        return -1;
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    int n = snprintf(path, len, "%s/kcal-%s-XXXXXX.log", dir, tag);
    if (n < 0 || (size_t)n >= len)
        return -1;
    int fd = mkstemps(path, 4);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        close(fd);
        unlink(path);
        return -1;
    }
    fwrite(r->err, 1, r->err_len, f);
    if (r->err_dropped)
        fprintf(f, "[kcal: %zu more bytes of output were not kept]\n",
                r->err_dropped);
    if (fclose(f) != 0) {
        unlink(path);
        return -1;
    }
    return 0;
}
