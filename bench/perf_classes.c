/* perf_classes: see perf_classes.h. The symbol lists were read off
 * profiles of kcal-bench-mpi on Linux 6.18 (process_vm_rw_core ->
 * pin_user_pages_remote -> __get_user_pages -> follow_page_pte, then
 * copy_page_to_iter -> _copy_to_iter) and older kernels' names
 * (copy_user_enhanced_fast_string, get_user_pages_remote), plus Open MPI's
 * and MPICH's libraries. */
#include <stdlib.h>
#include <string.h>

#include "bench/perf_classes.h"

static const char *const names[KCAL_PC_COUNT] = {
    "CMA copy (kernel)",
    "CMA pages: find, pin, release",
    "kernel spin locks",
    "kernel, other (syscall, sched)",
    "local copies (memcpy)",
    "libkcoll flags",
    "MPI library",
    "libkcoll + benchmark, other",
    "idle CPU",
    "other processes",
};

static const char *const ids[KCAL_PC_COUNT] = {
    "cma_copy", "cma_pages", "kernel_locks", "kernel_other", "memcpy",
    "flags",    "mpi",       "user_other",   "idle",         "others",
};

const char *kcal_perf_class_name(kcal_perf_class c)
{
    return c < KCAL_PC_COUNT ? names[c] : "?";
}

const char *kcal_perf_class_id(kcal_perf_class c)
{
    return c < KCAL_PC_COUNT ? ids[c] : "?";
}

static int has_any(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (strstr(s, *words))
            return 1;
    return 0;
}

static int starts_any(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (!strncmp(s, *words, strlen(*words)))
            return 1;
    return 0;
}

/* The copy loops the kernel runs for a CMA call (and for any other copy
 * between user and kernel: a CMA-only run has no other). */
static const char *const kernel_copy[] = {
    "copy_to_iter", "copy_from_iter", "copy_page_to_iter",
    "copy_page_from_iter", "copy_user", "rep_movs", "memcpy", "memmove",
    "copy_mc", NULL};

/* Walking the other process's page tables, pinning and releasing its
 * pages: the l·pages(n) term. */
static const char *const kernel_pages[] = {
    "gup", "get_user_pages", "pin_user_pages", "follow_page", "folio",
    "try_grab", "put_page", "unpin", "pte", "pmd", "pud", "p4d", "mmap_lock",
    "mmap_read", "find_vma", "vma_lookup", "lru", "page_state",
    "vm_normal_page", "pgtable", "workingset",
    "process_vm_rw", "mm_access", "iov_iter", "import_iovec", NULL};

static const char *const kernel_locks[] = {"spin_lock", "spin_unlock",
                                           "spin_trylock", NULL};

static const char *const idle_syms[] = {"safe_halt", "default_idle",
                                        "cpuidle", "intel_idle", "acpi_idle",
                                        "mwait_idle", "poll_idle", NULL};

/* Open MPI (libmpi, libopen-pal, libopen-rte, its components mca_*,
 * libevent, PMIx), MPICH (libmpi, libmpich, UCX, libfabric, hydra's PMI). */
static const char *const mpi_dsos[] = {
    "libmpi", "libopen-pal", "libopen-rte", "mca_", "libevent", "libpmix",
    "libmpich", "libucp", "libucs", "libuct", "libucm", "libfabric",
    "libpmi", "libhcoll", NULL};

kcal_perf_class kcal_perf_classify(const char *comm, const char *dso,
                                   const char *sym, const char *program)
{
    if (!strncmp(sym, "[k] ", 4) || !strncmp(sym, "[.] ", 4))
        sym += 4;
    int kernel = strstr(dso, "kernel.kallsyms") != NULL ||
                 !strncmp(dso, "[kernel", 7);
    if (kernel && (!strncmp(comm, "swapper", 7) || has_any(sym, idle_syms)))
        return KCAL_PC_IDLE;
    /* perf shows at most 15 characters of a command's name. */
    size_t plen = strlen(program);
    if (plen > 15)
        plen = 15;
    if (strncmp(comm, program, plen) != 0 ||
        (comm[plen] != '\0' && comm[plen] != ' '))
        return KCAL_PC_OTHERS;
    if (kernel) {
        if (has_any(sym, kernel_locks))
            return KCAL_PC_LOCKS;
        if (has_any(sym, kernel_copy))
            return KCAL_PC_CMA_COPY;
        if (has_any(sym, kernel_pages))
            return KCAL_PC_CMA_PAGES;
        return KCAL_PC_KERNEL;
    }
    if (!strncmp(sym, "kcoll_flag", 10))
        return KCAL_PC_FLAGS;
    if (strstr(dso, "libc.so") &&
        (strstr(sym, "memcpy") || strstr(sym, "memmove")))
        return KCAL_PC_MEMCPY;
    if (starts_any(dso, mpi_dsos))
        return KCAL_PC_MPI;
    return KCAL_PC_USER;
}

/* The field after the next '|', trimmed; NULL when there is none. */
static char *field(char **s)
{
    if (!*s)
        return NULL;
    char *f = *s, *bar = strchr(f, '|');
    if (bar) {
        *bar = '\0';
        *s = bar + 1;
    } else {
        *s = NULL;
    }
    while (*f == ' ' || *f == '\t')
        f++;
    size_t n = strlen(f);
    while (n > 0 && (f[n - 1] == ' ' || f[n - 1] == '\t' || f[n - 1] == '\n'))
        f[--n] = '\0';
    return f;
}

int kcal_perf_parse_line(char *line, const char *program, double *samples,
                         kcal_perf_class *cls)
{
    char *s = line;
    char *pct = field(&s), *cnt = field(&s), *comm = field(&s),
         *dso = field(&s), *sym = field(&s);
    if (!pct || !cnt || !comm || !dso || !sym || !strchr(pct, '%'))
        return -1;
    char *end;
    double n = strtod(cnt, &end);
    if (end == cnt || *end || n < 0)
        return -1;
    *samples = n;
    *cls = kcal_perf_classify(comm, dso, sym, program);
    return 0;
}
