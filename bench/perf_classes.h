/* perf_classes: where a collective's CPU time goes, in the classes
 * `kcal profile` reports, from the lines of
 *   perf report --stdio --no-children -n --sort comm,dso,sym -q -t '|'
 * ("overhead% | samples | comm | dso | [k] symbol").
 *
 * The classes follow the phases of the model (docs/model.md): the kernel's
 * copy of a CMA call (β), finding and pinning the pages (l), the rest of
 * the kernel (the system call itself, α, and the scheduler), local
 * copies, libkcoll's flag waits and the MPI library (the T_sm
 * synchronisations), so a slow algorithm's time can be read against the
 * model's terms. Symbols are matched by name: a kernel or library that
 * names them otherwise lands in the "other" class of its side, never in
 * a wrong phase. */
#ifndef KCAL_PERF_CLASSES_H
#define KCAL_PERF_CLASSES_H

typedef enum {
    KCAL_PC_CMA_COPY,   /* kernel: the copy of process_vm_readv/writev */
    KCAL_PC_CMA_PAGES,  /* kernel: finding, pinning, releasing the pages */
    KCAL_PC_LOCKS,      /* kernel: spin locks (page-table locks among them) */
    KCAL_PC_KERNEL,     /* kernel: the rest (syscall entry, scheduler, faults) */
    KCAL_PC_MEMCPY,     /* user: local copies (the C library's memcpy) */
    KCAL_PC_FLAGS,      /* user: libkcoll's shared-memory flags */
    KCAL_PC_MPI,        /* user: the MPI library and what it links */
    KCAL_PC_USER,       /* user: the rest of libkcoll and the benchmark */
    KCAL_PC_IDLE,       /* a CPU with nothing to run */
    KCAL_PC_OTHERS,     /* other processes: mpirun, perf, the machine's own */
    KCAL_PC_COUNT
} kcal_perf_class;

/* The class's one-line name, as the table shows it. */
const char *kcal_perf_class_name(kcal_perf_class c);

/* The short name of the CSV (cma_copy, cma_pages, ...). */
const char *kcal_perf_class_id(kcal_perf_class c);

/* The class of a sample of command comm (program: the benchmark's
 * command name, which perf truncates to 15 characters), in dso, at sym
 * (with perf's "[k] " or "[.] " prefix, or without). */
kcal_perf_class kcal_perf_classify(const char *comm, const char *dso,
                                   const char *sym, const char *program);

/* One line of perf report's output above: its sample count and class.
 * 0, or -1 for a line that is not a row (headers, blank lines). The line
 * is split in place. */
int kcal_perf_parse_line(char *line, const char *program, double *samples,
                         kcal_perf_class *cls);

#endif
