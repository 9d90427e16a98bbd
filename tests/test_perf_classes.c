/* perf_classes: kcal profile's reading of `perf report --stdio
 * --no-children -n --sort comm,dso,sym -q -t '|'`. The lines below are
 * real ones, from a profile of kcal-bench-mpi (scatter, p = 2, 1 MiB) on
 * Linux 6.18, plus Open MPI's and the idle CPU's, as perf prints them
 * (percent, samples, comm, dso, symbol, padded with blanks). */
#include <stdlib.h>

#include "tests/check.h"
#include "bench/perf_classes.h"

#define PROG "kcal-bench-mpi"

/* The class of one line, or -1 when it is not a row. */
static int cls_of(const char *text, double *samples)
{
    char line[512];
    snprintf(line, sizeof line, "%s", text);
    kcal_perf_class c;
    double n = -1;
    if (kcal_perf_parse_line(line, PROG, &n, &c) != 0)
        return -1;
    if (samples)
        *samples = n;
    return (int)c;
}

static void test_real_lines(void)
{
    double n = 0;
    CHECK(cls_of(" 33.95% | 7384       |kcal-bench-mpi |kcal-bench-mpi                     |[.] kcoll_flag_wait_done\n", &n) == KCAL_PC_FLAGS);
    CHECK(n == 7384);
    CHECK(cls_of(" 15.79% | 3434       |kcal-bench-mpi |libc.so.6                          |[.] __memmove_avx512_unaligned_erms\n", &n) == KCAL_PC_MEMCPY);
    CHECK(n == 3434);
    /* The page walk of process_vm_readv: pinning, one page at a time. */
    CHECK(cls_of(" 9.94%  | 2163       |kcal-bench-mpi |[kernel.kallsyms]                  |[k] __get_user_pages\n", NULL) == KCAL_PC_CMA_PAGES);
    CHECK(cls_of(" 8.98%  | 1954       |kcal-bench-mpi |[kernel.kallsyms]                  |[k] follow_page_pte\n", NULL) == KCAL_PC_CMA_PAGES);
    CHECK(cls_of(" 3.71%  | 808        |kcal-bench-mpi |[kernel.kallsyms]                  |[k] vm_normal_page\n", NULL) == KCAL_PC_CMA_PAGES);
    CHECK(cls_of(" 3.46%  | 752        |kcal-bench-mpi |[kernel.kallsyms]                  |[k] __pte_offset_map_lock\n", NULL) == KCAL_PC_CMA_PAGES);
    CHECK(cls_of(" 1.94%  | 423        |kcal-bench-mpi |[kernel.kallsyms]                  |[k] gup_put_folio\n", NULL) == KCAL_PC_CMA_PAGES);
    CHECK(cls_of(" 1.66%  | 362        |kcal-bench-mpi |[kernel.kallsyms]                  |[k] mod_node_page_state\n", NULL) == KCAL_PC_CMA_PAGES);
    CHECK(cls_of(" 1.23%  | 267        |kcal-bench-mpi |[kernel.kallsyms]                  |[k] unpin_user_pages\n", NULL) == KCAL_PC_CMA_PAGES);
    CHECK(cls_of(" 0.36%  | 78         |kcal-bench-mpi |[kernel.kallsyms]                  |[k] vma_pgtable_walk_end\n", NULL) == KCAL_PC_CMA_PAGES);
    CHECK(cls_of(" 1.09%  | 238        |kcal-bench-mpi |[kernel.kallsyms]                  |[k] process_vm_rw_core.constprop.0\n", NULL) == KCAL_PC_CMA_PAGES);
    /* The copy itself. */
    CHECK(cls_of(" 4.05%  | 880        |kcal-bench-mpi |[kernel.kallsyms]                  |[k] _copy_to_iter\n", NULL) == KCAL_PC_CMA_COPY);
    CHECK(cls_of(" 0.77%  | 167        |kcal-bench-mpi |[kernel.kallsyms]                  |[k] copy_page_to_iter\n", NULL) == KCAL_PC_CMA_COPY);
    /* Spin locks, paravirtual ones included, before any page word. */
    CHECK(cls_of(" 1.50%  | 327        |kcal-bench-mpi |[kernel.kallsyms]                  |[k] __raw_callee_save___pv_queued_spin_unlock\n", NULL) == KCAL_PC_LOCKS);
    CHECK(cls_of(" 1.14%  | 246        |kcal-bench-mpi |[kernel.kallsyms]                  |[k] _raw_spin_lock\n", NULL) == KCAL_PC_LOCKS);
    /* The rest of the kernel. */
    CHECK(cls_of(" 1.79%  | 389        |kcal-bench-mpi |[kernel.kallsyms]                  |[k] __rcu_read_unlock\n", NULL) == KCAL_PC_KERNEL);
    CHECK(cls_of(" 0.05%  | 11         |kcal-bench-mpi |[kernel.kallsyms]                  |[k] do_syscall_64\n", NULL) == KCAL_PC_KERNEL);
    /* Idle: the swapper, or an idle symbol. */
    CHECK(cls_of(" 0.11%  | 23         |swapper        |[kernel.kallsyms]                  |[k] pv_native_safe_halt\n", NULL) == KCAL_PC_IDLE);
    CHECK(cls_of(" 0.11%  | 23         |kcal-bench-mpi |[kernel.kallsyms]                  |[k] default_idle\n", NULL) == KCAL_PC_IDLE);
    /* The MPI library and what it links; libkcoll's other code. */
    CHECK(cls_of(" 2.17%  | 472        |kcal-bench-mpi |libopen-pal.so.40.30.2             |[.] 0x00000000000878b5\n", NULL) == KCAL_PC_MPI);
    CHECK(cls_of(" 1.37%  | 298        |kcal-bench-mpi |libopen-pal.so.40.30.2             |[.] opal_progress\n", NULL) == KCAL_PC_MPI);
    CHECK(cls_of(" 0.50%  | 100        |kcal-bench-mpi |mca_btl_vader.so                   |[.] mca_btl_vader_component_progress\n", NULL) == KCAL_PC_MPI);
    CHECK(cls_of(" 0.20%  | 40         |kcal-bench-mpi |libmpich.so.12.2.0                 |[.] MPIDI_progress_test\n", NULL) == KCAL_PC_MPI);
    CHECK(cls_of(" 0.06%  | 13         |kcal-bench-mpi |kcal-bench-mpi                     |[.] kcoll_scatter_parallel_read_flags\n", NULL) == KCAL_PC_USER);
    CHECK(cls_of(" 0.08%  | 18         |kcal-bench-mpi |libc.so.6                          |[.] __strcmp_evex\n", NULL) == KCAL_PC_USER);
    /* Other processes: mpirun, perf itself, anything else running. */
    CHECK(cls_of(" 0.29%  | 63         |mpirun         |libopen-pal.so.40.30.2             |[.] opal_libevent2022_event_base_loop\n", NULL) == KCAL_PC_OTHERS);
    CHECK(cls_of(" 0.10%  | 21         |perf           |[kernel.kallsyms]                  |[k] _copy_to_iter\n", NULL) == KCAL_PC_OTHERS);
}

static void test_not_rows(void)
{
    CHECK(cls_of("", NULL) == -1);
    CHECK(cls_of("\n", NULL) == -1);
    CHECK(cls_of("# Samples: 21K of event 'cpu-clock:ppp'\n", NULL) == -1);
    CHECK(cls_of("# Overhead|Samples|Command|Shared Object|Symbol\n", NULL) == -1);
    /* A count that is not a number, a negative one, a missing field. */
    CHECK(cls_of(" 1.00% | many |kcal-bench-mpi |libc.so.6 |[.] memcpy\n", NULL) == -1);
    CHECK(cls_of(" 1.00% | -3 |kcal-bench-mpi |libc.so.6 |[.] memcpy\n", NULL) == -1);
    CHECK(cls_of(" 1.00% | 3 |kcal-bench-mpi |libc.so.6\n", NULL) == -1);
    CHECK(cls_of("1.00 | 3 |kcal-bench-mpi |libc.so.6 |[.] memcpy\n", NULL) == -1);
}

/* perf keeps 15 characters of a command's name: "kcal-bench-mpi"
 * fits, a longer program is matched on its first 15, and a command that
 * only starts like it is someone else. */
static void test_comm_names(void)
{
    CHECK(kcal_perf_classify("kcal-bench-mpi", "libc.so.6", "[.] memcpy", PROG) == KCAL_PC_MEMCPY);
    CHECK(kcal_perf_classify("kcal-bench-mpi-", "libc.so.6", "[.] memcpy", PROG) == KCAL_PC_OTHERS);
    CHECK(kcal_perf_classify("kcal-bench", "libc.so.6", "[.] memcpy", PROG) == KCAL_PC_OTHERS);
    CHECK(kcal_perf_classify("a-very-long-pro", "libc.so.6", "[.] memcpy",
                             "a-very-long-program-name") == KCAL_PC_MEMCPY);
    CHECK(kcal_perf_classify("a-very-long-pro", "libc.so.6", "[.] memcpy",
                             "a-very-long-prx") == KCAL_PC_OTHERS);
    /* Without perf's "[k] " / "[.] " prefix. */
    CHECK(kcal_perf_classify(PROG, "[kernel.kallsyms]", "follow_page_pte", PROG) == KCAL_PC_CMA_PAGES);
}

static void test_names(void)
{
    for (int c = 0; c < KCAL_PC_COUNT; c++) {
        CHECK(strcmp(kcal_perf_class_name((kcal_perf_class)c), "?") != 0);
        CHECK(strcmp(kcal_perf_class_id((kcal_perf_class)c), "?") != 0);
        for (int d = 0; d < c; d++)
            CHECK(strcmp(kcal_perf_class_id((kcal_perf_class)c),
                         kcal_perf_class_id((kcal_perf_class)d)) != 0);
    }
    CHECK_STR(kcal_perf_class_id(KCAL_PC_CMA_PAGES), "cma_pages");
    CHECK_STR(kcal_perf_class_name(KCAL_PC_COUNT), "?");
}

int main(void)
{
    test_real_lines();
    test_not_rows();
    test_comm_names();
    test_names();
    return check_report();
}
