/* cma_check: a real 1-byte cross-process read between siblings (see
 * cma_check.h). */
#include "probe/cma_check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "probe/target.h"

static int env_set(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0");
}

/* -1 when there is no Yama. */
static int yama_scope(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int v = -1;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = -1;
        fclose(f);
    }
    return v;
}

/* Fork a sibling of the target that reads 1 byte from it; its errno. */
static int sibling_read(const kcal_target *t)
{
    int pfd[2];
    if (pipe(pfd) < 0)
        return errno;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(pfd[0]);
        close(pfd[1]);
        return e;
    }
    if (pid == 0) {
        close(pfd[0]);
        char byte;
        struct iovec l = {&byte, 1}, r = {t->base, 1};
        int e = 0;
        if (env_set("KCAL_PROBE_SIMULATE_EPERM"))
            e = EPERM;
        else if (env_set("KCAL_PROBE_SIMULATE_ENOSYS"))
            e = ENOSYS;
        else if (process_vm_readv(t->pid, &l, 1, &r, 1, 0) != 1)
            e = errno ? errno : EIO;
        if (write(pfd[1], &e, sizeof e) != (ssize_t)sizeof e)
            _exit(2);
        _exit(0);
    }
    close(pfd[1]);
    int e = EIO;
    ssize_t n;
    while ((n = read(pfd[0], &e, sizeof e)) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof e)
        e = EIO;
    close(pfd[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return e;
}

int kcal_cma_check(char *msg, size_t msglen, int *errnum)
{
    kcal_target t;
    char err[256];
    if (kcal_target_start(&t, 4096, NULL, 0, err, sizeof err) < 0) {
        snprintf(msg, msglen, "cannot start a process to test CMA with: %s", err);
        if (errnum)
            *errnum = EIO;
        return -1;
    }
    int e = sibling_read(&t);
    kcal_target_stop(&t);
    if (errnum)
        *errnum = e;
    if (e == 0)
        return 0;
    int yama = yama_scope();
    if (e == EPERM && yama >= 1)
        snprintf(msg, msglen,
                 "CMA is forbidden: process_vm_readv between sibling processes "
                 "fails with EPERM because Yama kernel.yama.ptrace_scope is %d; "
                 "fix: sysctl kernel.yama.ptrace_scope=0 (as root%s)",
                 yama, yama == 3 ? "; scope 3 needs a reboot to lower" : "");
    else if (e == EPERM)
        snprintf(msg, msglen,
                 "CMA is forbidden: process_vm_readv fails with EPERM (no "
                 "CAP_SYS_PTRACE over peer processes, or a seccomp profile, as "
                 "in a container); fix: docker run --cap-add SYS_PTRACE (or "
                 "--security-opt seccomp=unconfined)");
    else if (e == ENOSYS)
        snprintf(msg, msglen,
                 "CMA is unavailable: process_vm_readv fails with ENOSYS (a "
                 "kernel without CONFIG_CROSS_MEMORY_ATTACH, or a seccomp "
                 "profile that bans it); fix: docker run --security-opt "
                 "seccomp=unconfined, or a kernel with "
                 "CONFIG_CROSS_MEMORY_ATTACH=y");
    else
        snprintf(msg, msglen, "CMA test read failed: process_vm_readv: %s",
                 strerror(e));
    return -1;
}
