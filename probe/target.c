/* target: forked process holding pre-faulted pages for CMA (see target.h). */
#include "target.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs in the child: fault every page in, say so, sleep until EOF. */
static void target_child(kcal_target *t, kcal_topo *topo, int core,
                         int ctl_r, int ready_w)
{
    /* Die with the probe, whatever happens to it. */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    /* Hold no copy of the probe's stdout (a caller reading it to EOF must
     * not wait for us) nor other targets' control pipes (their EOF). */
    int keep_ctl = fcntl(ctl_r, F_DUPFD, 1000), keep_ready = fcntl(ready_w, F_DUPFD, 1001);
    if (keep_ctl < 0 || keep_ready < 0)
        _exit(1);
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        dup2(devnull, STDOUT_FILENO);
    }
    for (int fd = 3; fd < 1000; fd++)
        close(fd);
    if (topo)
        kcal_topo_bind_core(topo, core, NULL, 0);
    /* Distinct bytes per page: no page may be shared (zero page, KSM). */
    for (size_t i = 0; i < t->bytes; i++)
        t->base[i] = (char)(i * 7 + (i >> 12));
    char one = 1;
    if (write(keep_ready, &one, 1) != 1)
        _exit(1);
    close(keep_ready);
    for (;;) {
        char buf;
        ssize_t r = read(keep_ctl, &buf, 1);
        if (r == 0 || (r < 0 && errno != EINTR))
            break;
    }
    _exit(0);
}

int kcal_target_start(kcal_target *t, size_t bytes, kcal_topo *topo, int core,
                      char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    t->pid = -1;
    t->ctl_fd = -1;
    t->bytes = bytes;
    void *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED) {
        kcal_set_err(err, errlen, "target: mmap of %zu bytes: %s", bytes,
                strerror(errno));
        return -1;
    }
    /* Huge pages would make one "page" 2 MiB and l meaningless per 4 KiB. */
    madvise(base, bytes, MADV_NOHUGEPAGE);
    t->base = base;
    int ctl[2], ready[2];
    if (pipe(ctl) < 0) {
        kcal_set_err(err, errlen, "target: pipe: %s", strerror(errno));
        munmap(base, bytes);
        return -1;
    }
    if (pipe(ready) < 0) {
        kcal_set_err(err, errlen, "target: pipe: %s", strerror(errno));
        close(ctl[0]);
        close(ctl[1]);
        munmap(base, bytes);
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        kcal_set_err(err, errlen, "target: fork: %s", strerror(errno));
        close(ctl[0]);
        close(ctl[1]);
        close(ready[0]);
        close(ready[1]);
        munmap(base, bytes);
        return -1;
    }
    if (pid == 0) {
        close(ctl[1]);
        close(ready[0]);
        target_child(t, topo, core, ctl[0], ready[1]);
    }
    close(ctl[0]);
    close(ready[1]);
    /* The parent never touched the reservation: dropping it costs nothing
     * and the child keeps its own pages at the same address. */
    munmap(base, bytes);
    t->pid = pid;
    t->ctl_fd = ctl[1];
    char one;
    ssize_t r;
    while ((r = read(ready[0], &one, 1)) < 0 && errno == EINTR)
        ;
    close(ready[0]);
    if (r != 1) {
        kcal_set_err(err, errlen, "target: the child process died while faulting "
                "in %zu bytes", bytes);
        kcal_target_stop(t);
        return -1;
    }
    return 0;
}

void kcal_target_stop(kcal_target *t)
{
    if (t->ctl_fd >= 0) {
        close(t->ctl_fd);
        t->ctl_fd = -1;
    }
    if (t->pid > 0) {
        int st;
        while (waitpid(t->pid, &st, 0) < 0 && errno == EINTR)
            ;
        t->pid = -1;
    }
}
