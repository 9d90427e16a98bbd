/* probe_cmd: `kcal probe` — measure this machine and print its params file.
 *
 * Order: CMA permission test (exit 3 when forbidden), topology, T1/T2,
 * T3(N) (falling back to the paper's liovcnt = 0 call on a kernel where the
 * 1-byte read does not pin), T4(N) cold or hot, contention with c = 1..C
 * readers, T_sm_X through mpirun; then the same fit as `kcal fit`. The
 * params file is built in memory and written to stdout only at the very
 * end, so any failure leaves stdout empty. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bandwidth.h"
#include "calibrate.h"
#include "cli.h"
#include "cma_check.h"
#include "contention.h"
#include "load.h"
#include "phases.h"
#include "raw.h"
#include "sm.h"
#include "target.h"
#include "topo.h"

#ifndef KCAL_VERSION
#define KCAL_VERSION "0.1.0"
#endif

static const char *const CMD = "probe";

typedef struct {
    int quiet, quick, hot, no_sm;
    long max_readers; /* 0: the core count */
    const char *mpirun, *raw_path;
} options;

static void usage(FILE *f)
{
    fprintf(f,
        "usage: kcal probe [--quick] [--hot] [--max-readers C] [--mpirun CMD]\n"
        "                  [--no-sm] [--raw RAW.csv] [-q] > machine.params\n"
        "\n"
        "Measure the CMA cost model of this machine (alpha, beta, lock, page,\n"
        "gamma_a, gamma_b, sm_*) and print a params file with standard errors.\n"
        "\n"
        "  --quick          coarse calibration (fewer points and repeats)\n"
        "  --hot            beta from in-cache copies only (default: beta out of\n"
        "                   cache, rotating over buffers larger than the last-level\n"
        "                   cache, and beta_hot in cache, for --model full)\n"
        "  --max-readers C  concurrent readers for gamma(c), c = 1..C (default:\n"
        "                   the number of cores)\n"
        "  --mpirun CMD     launcher for the T_sm collectives (default $KCAL_MPIRUN,\n"
        "                   else mpirun); if it fails the sm_* keys stay 0\n"
        "  --no-sm          do not launch MPI; the sm_* keys stay 0\n"
        "  --raw FILE       also save every raw sample (kcal fit FILE re-fits it)\n"
        "  -q, --quiet      no progress on stderr\n"
        "Exit: 0 ok, 1 run-time failure, 2 bad option, 3 CMA forbidden here.\n");
}

static int parse_options(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"quick", no_argument, 0, 'Q'},
        {"hot", no_argument, 0, 'H'},
        {"max-readers", required_argument, 0, 'c'},
        {"mpirun", required_argument, 0, 'm'},
        {"no-sm", no_argument, 0, 'n'},
        {"raw", required_argument, 0, 'r'},
        {"quiet", no_argument, 0, 'q'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'Q': o->quick = 1; break;
        case 'H': o->hot = 1; break;
        case 'n': o->no_sm = 1; break;
        case 'q': o->quiet = 1; break;
        case 'r': o->raw_path = optarg; break;
        case 'm':
            if (!*optarg) {
                kcal_cli_error(CMD, "--mpirun needs a command");
                return -1;
            }
            o->mpirun = optarg;
            break;
        case 'c':
            if (kcal_cli_int(optarg, 1, 1024, &o->max_readers) < 0) {
                kcal_cli_error(CMD, "--max-readers '%s' is not a whole number "
                               "from 1 to 1024", optarg);
                return -1;
            }
            break;
        case 'h':
            usage(stdout);
            return 1;
        default:
            return kcal_cli_bad_option(CMD, c, argv);
        }
    }
    if (optind < argc) {
        kcal_cli_error(CMD, "unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if (!o->mpirun) {
        const char *env = getenv("KCAL_MPIRUN");
        if (env && *env)
            o->mpirun = env;
    }
    return 0;
}

/* How much to measure. */
typedef struct {
    int passes, warmup, per_octave; /* one sample per point per pass */
    double min_sample;
    int c_reps, c_warmup, c_passes;
    long c_pages;
    int sm_reps, sm_inner, sm_warmup;
} plan;

static plan make_plan(int quick)
{
    plan p;
    if (quick) {
        p = (plan){.passes = 120, .warmup = 4, .per_octave = 3,
                   .min_sample = 200e-6, .c_reps = 40, .c_warmup = 3,
                   .c_passes = 2, .c_pages = 1024, .sm_reps = 8,
                   .sm_inner = 100, .sm_warmup = 50};
    } else {
        p = (plan){.passes = 300, .warmup = 8, .per_octave = 4,
                   .min_sample = 500e-6, .c_reps = 150, .c_warmup = 5,
                   .c_passes = 3, .c_pages = 1024, .sm_reps = 24,
                   .sm_inner = 200, .sm_warmup = 100};
    }
    return p;
}

static void meta_num(kcal_raw *raw, const char *key, double v)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%.17g", v);
    kcal_raw_set_meta(raw, key, buf);
}

static void set_meta(kcal_raw *raw, const kcal_topo_info *ti, const options *o,
                     long page, int max_readers)
{
    struct utsname u;
    char host[256] = "unknown", date[64] = "", buf[64];
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    kcal_raw_set_meta(raw, "machine", host);
    kcal_raw_set_meta(raw, "source", o->quick ? "kcal probe " KCAL_VERSION " --quick"
                                              : "kcal probe " KCAL_VERSION);
    kcal_raw_set_meta(raw, "probe", o->quick ? "quick" : "full");
    kcal_raw_set_meta(raw, "hostname", host);
    kcal_raw_set_meta(raw, "date", date);
    kcal_raw_set_meta(raw, "cpu", ti->cpu);
    snprintf(buf, sizeof buf, "%d", ti->cores);
    kcal_raw_set_meta(raw, "cores", buf);
    snprintf(buf, sizeof buf, "%d", ti->sockets);
    kcal_raw_set_meta(raw, "sockets", buf);
    snprintf(buf, sizeof buf, "%d", ti->numa);
    kcal_raw_set_meta(raw, "numa", buf);
    if (uname(&u) == 0)
        kcal_raw_set_meta(raw, "kernel", u.release);
    meta_num(raw, KCAL_META_PAGE, (double)page);
    meta_num(raw, "l1d_cache", (double)ti->l1d);
    meta_num(raw, "l2_cache", (double)ti->l2);
    meta_num(raw, "l3_cache", (double)ti->l3);
    meta_num(raw, "max_readers", max_readers);
    kcal_raw_set_meta(raw, KCAL_META_BETA_CACHE,
                      o->hot ? KCAL_PATTERN_HOT : KCAL_PATTERN_COLD);
    kcal_raw_set_meta(raw, "oversubscribed", "no");
}

int kcal_probe_main(int argc, char **argv)
{
    options o;
    int prc = parse_options(argc, argv, &o);
    if (prc)
        return prc > 0 ? KCAL_EXIT_OK : KCAL_EXIT_USAGE;

    char msg[KCAL_ERRLEN], err[KCAL_ERRLEN];
    int e;
    if (kcal_cma_check(msg, sizeof msg, &e) < 0) {
        kcal_cli_error(CMD, "%s", msg);
        return e == EPERM || e == ENOSYS ? KCAL_EXIT_FORBIDDEN : KCAL_EXIT_FAIL;
    }

    int rc = KCAL_EXIT_FAIL;
    kcal_raw raw;
    kcal_raw_init(&raw);
    kcal_params params;
    kcal_params_init(&params);
    kcal_target main_t = {.pid = -1, .ctl_fd = -1}, *own = NULL;
    int n_own = 0;
    kcal_sweep sw[6];
    memset(sw, 0, sizeof sw);
    char *local = MAP_FAILED, *comment = NULL, *out = NULL;
    size_t local_bytes = 0, outlen = 0;
    kcal_topo *topo = kcal_topo_load();
    if (!topo) {
        kcal_cli_error(CMD, "hwloc could not load this machine's topology");
        return KCAL_EXIT_FAIL;
    }
    kcal_topo_info ti;
    kcal_topo_get_info(topo, &ti);
    long page = sysconf(_SC_PAGESIZE);
    int C = o.max_readers ? (int)o.max_readers : ti.cores;
    plan pl = make_plan(o.quick);
    /* γ does not depend on N (the paper's Fig. 5); beyond 64 readers a
     * smaller N keeps the C·N-page target and the C own targets small. */
    if (C > 64)
        pl.c_pages = 256;
    set_meta(&raw, &ti, &o, page, C);

    /* The reader (this process) and the target on different cores. */
    char rdesc[64] = "?", tdesc[64] = "?";
    int reader_core = ti.cores > 1 ? ti.cores - 1 : 0;
    if (kcal_topo_bind_core(topo, reader_core, rdesc, sizeof rdesc) < 0)
        kcal_cli_warn(CMD, "could not bind the reader to a core");
    kcal_topo_core_desc(topo, 0, tdesc, sizeof tdesc);
    if (!o.quiet) {
        fprintf(stderr, "kcal probe: %s, %d cores, %d socket(s), %d NUMA "
                "node(s), LLC %lu KiB, page %ld bytes\n", ti.cpu, ti.cores,
                ti.sockets, ti.numa, ti.llc >> 10, page);
        fprintf(stderr, "kcal probe: reader on %s, target on %s%s\n", rdesc,
                tdesc, ti.cores < 2 ? " (one core: they share it)" : "");
        if (C < 4)
            fprintf(stderr, "kcal probe: contention is measured for c = 1..%d "
                    "readers only; gamma(c) beyond c = %d is extrapolated from "
                    "the fit\n", C, C);
        if (C > ti.cores)
            fprintf(stderr, "kcal probe: --max-readers %d > %d cores: readers "
                    "share cores, so gamma is not a pure contention "
                    "measurement\n", C, ti.cores);
    }

    /* Buffers: the target holds C·N contention pages and the cold pool. */
    size_t pool = kcal_bandwidth_pool_bytes(ti.llc);
    size_t batch = 1024 * (size_t)page;
    size_t tbytes = (size_t)C * (size_t)pl.c_pages * (size_t)page;
    if (tbytes < pool)
        tbytes = pool;
    if (kcal_target_start(&main_t, tbytes, topo, 0, err, sizeof err) < 0) {
        kcal_cli_error(CMD, "%s", err);
        goto done;
    }
    local_bytes = o.hot ? batch : pool;
    local = mmap(NULL, local_bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (local == MAP_FAILED) {
        kcal_cli_error(CMD, "mmap of %zu bytes: %s", local_bytes, strerror(errno));
        goto done;
    }
    madvise(local, local_bytes, MADV_NOHUGEPAGE);
    memset(local, 1, local_bytes); /* pre-fault */

    long pages[64];
    size_t np = kcal_phases_page_list(pl.per_octave, 1024, pages, 64);
    kcal_progress pr;
    kcal_progress_init(&pr, CMD, o.quiet);
    kcal_meter meter = {&pr, 0, 0};
    /* c = 1..C readers; p = 2..P ranks with P <= cores (no oversubscribed
     * T_sm: a rank waiting for a core is not a shared-memory cost). */
    long counts[64], ps[64];
    size_t n_counts = kcal_phases_count_list(1, C, counts, 64);
    int P = C < ti.cores ? C : ti.cores;
    size_t n_ps = o.no_sm ? 0 : kcal_phases_count_list(2, P, ps, 64);
    int sm_launches = (int)n_ps;
    /* The default measures T4 twice, cold (beta) and hot (beta_hot). */
    int n_copy = o.hot ? 1 : 2;
    double work = 2.0 * pl.passes + (1.0 + n_copy) * np * pl.passes;
    for (size_t i = 0; i < n_counts; i++)
        work += 3.0 * counts[i] * ((pl.c_reps + pl.c_passes - 1) / pl.c_passes) * pl.c_passes;
    double sm_units = sm_launches ? 0.4 * work / sm_launches : 0;
    meter.total = work + sm_units * sm_launches;

    kcal_cma_setup cs = {0};
    cs.pid = main_t.pid;
    cs.remote = main_t.base;
    cs.remote_bytes = main_t.bytes;
    cs.local = local;
    cs.local_bytes = local_bytes;
    cs.page = (size_t)page;
    cs.warmup = pl.warmup;
    cs.min_sample = pl.min_sample;
    cs.meter = &meter;
    const char *flat = getenv("KCAL_PROBE_SIMULATE_FLAT_T3");
    cs.simulate_flat_t3 = flat && *flat && strcmp(flat, "0");
    static const long one = 1;
    if (kcal_sweep_init(&sw[0], &cs, KCAL_CALL_SYSCALL, 0, KCAL_PHASE_SYSCALL, KCAL_PATTERN_NONE, &one,
                        1, err, sizeof err) < 0 ||
        kcal_sweep_init(&sw[1], &cs, KCAL_CALL_STARTUP, 0, KCAL_PHASE_STARTUP, KCAL_PATTERN_NONE, &one,
                        1, err, sizeof err) < 0 ||
        kcal_sweep_init(&sw[2], &cs, KCAL_CALL_LOCK, 0, KCAL_PHASE_LOCK,
                        KCAL_PATTERN_ONE_BYTE_LOCAL, pages, np, err, sizeof err) < 0 ||
        kcal_bandwidth_sweep_init(&sw[3], &cs, pages, np, !o.hot, err,
                                  sizeof err) < 0 ||
        (!o.hot && kcal_bandwidth_sweep_init(&sw[5], &cs, pages, np, 0, err,
                                             sizeof err) < 0)) {
        kcal_cli_error(CMD, "%s", err);
        goto done;
    }
    kcal_load load;
    kcal_load_start(&load);
    /* T3 and T4 (cold and hot) of each N in the same pass: they see the
     * same machine. */
    for (int pass = 0; pass < pl.passes; pass++)
        for (int k = 0; k < 6; k++)
            if (k != 4 && sw[k].n &&
                kcal_sweep_pass(&sw[k], &cs, 1, &raw, err, sizeof err) < 0) {
                kcal_cli_error(CMD, "%s", err);
                goto done;
            }
    const char *method = KCAL_PATTERN_ONE_BYTE_LOCAL;
    if (kcal_calibrate_lock_grows(&raw, KCAL_PATTERN_ONE_BYTE_LOCAL) == 0) {
        /* model.md: detect a kernel on which T3 does not grow with N. */
        kcal_cli_warn(CMD, "T3 (1-byte local iovec, N-page remote) does not "
                      "grow with N on this kernel; falling back to the "
                      "paper's liovcnt = 0 method");
        meter.total += np * pl.passes;
        if (kcal_sweep_init(&sw[4], &cs, KCAL_CALL_LOCK_LIOV0, 0, KCAL_PHASE_LOCK,
                            KCAL_PATTERN_LIOVCNT_ZERO, pages, np, err, sizeof err) < 0) {
            kcal_cli_error(CMD, "%s", err);
            goto done;
        }
        for (int pass = 0; pass < pl.passes; pass++)
            if (kcal_sweep_pass(&sw[4], &cs, 1, &raw, err, sizeof err) < 0) {
                kcal_cli_error(CMD, "%s", err);
                goto done;
            }
        method = KCAL_PATTERN_LIOVCNT_ZERO;
        if (kcal_calibrate_lock_grows(&raw, method) != 1) {
            kcal_cli_error(CMD, "T3 does not grow with N with the paper's "
                           "liovcnt = 0 call either: this kernel does not "
                           "let a probe time page pinning, so l cannot be "
                           "measured");
            goto done;
        }
    }
    kcal_raw_set_meta(&raw, KCAL_META_CMA_METHOD, method);
    {
        /* Preempted samples are retaken, but other processes also share
         * caches and memory with us, and a host may steal our vCPU: a run
         * on a busy machine reads high. Say so, in the file too. */
        double others, steal;
        kcal_load_stop(&load, &others, &steal);
        double taken = (double)raw.n + (double)cs.retaken;
        double frac = taken > 0 ? cs.retaken / taken : 0;
        if (frac > 0.02 || others > 0.2 || steal > 0.05) {
            char note[200];
            snprintf(note, sizeof note, "%s; busy machine: other processes "
                     "used %.0f %% of the CPU time, %.0f %% stolen by the "
                     "host, %.0f %% of the samples preempted and retaken",
                     o.quick ? "quick" : "full", 100 * others, 100 * steal,
                     100 * frac);
            kcal_raw_set_meta(&raw, "probe", note);
            kcal_cli_warn(CMD, "the machine was busy while measuring (other "
                          "processes %.0f %% of the CPU time, host steal "
                          "%.0f %%, %.0f %% of the samples preempted and "
                          "retaken): alpha, lock and beta may read high; "
                          "probe again when it is quiet", 100 * others,
                          100 * steal, 100 * frac);
        } else if (cs.retaken && !o.quiet) {
            fprintf(stderr, "%skcal probe: %ld samples taken again: the "
                    "reader was preempted during them\n",
                    pr.tty ? "\r\033[K" : "", cs.retaken);
        }
    }

    /* Contention: one target per reader for the "own" control. */
    own = calloc((size_t)C, sizeof *own);
    if (!own) {
        kcal_cli_error(CMD, "out of memory");
        goto done;
    }
    for (n_own = 0; n_own < C; n_own++)
        if (kcal_target_start(&own[n_own], (size_t)pl.c_pages * (size_t)page,
                              topo, n_own, err, sizeof err) < 0) {
            kcal_cli_error(CMD, "%s", err);
            goto done;
        }
    if (!o.quiet)
        fprintf(stderr, "%skcal probe: contention readers on cores 0..%d, one "
                "process each\n", pr.tty ? "\r\033[K" : "", C - 1);
    kcal_contention_setup ks = {topo, &main_t, own, (size_t)page, pl.c_pages,
                                C, pl.c_reps, pl.c_warmup, pl.c_passes,
                                counts, n_counts, &meter};
    if (kcal_contention_measure(&ks, &raw, err, sizeof err) < 0) {
        kcal_cli_error(CMD, "%s", err);
        goto done;
    }
    for (int i = 0; i < n_own; i++)
        kcal_target_stop(&own[i]);
    kcal_target_stop(&main_t);

    /* T_sm_X through MPI: a failure costs the sm_* keys, not the probe. */
    if (sm_launches) {
        char helper[4096];
        kcal_sm_setup ss = {o.mpirun, NULL, ps, n_ps, pl.sm_reps, pl.sm_inner,
                            pl.sm_warmup, 60, &meter, sm_units};
        ss.helper = kcal_sm_find_helper(helper, sizeof helper);
        if (!ss.helper)
            kcal_cli_warn(CMD, "kcal-sm-bench not found (make builds it; or "
                          "set KCAL_SM_BENCH): sm_* keys left 0");
        else if (kcal_sm_measure(&ss, &raw, err, sizeof err) < 0)
            kcal_cli_warn(CMD, "T_sm: %s; sm_* keys left 0 for p without "
                          "data", err);
    } else if (!o.no_sm && !o.quiet) {
        kcal_cli_warn(CMD, "T_sm needs p >= 2 ranks on distinct cores (%d "
                      "core(s), --max-readers %d): not measured, sm_* keys "
                      "left 0", ti.cores, C);
    }
    kcal_progress_update(&pr, "fit", meter.total, meter.total);

    if (o.raw_path && kcal_raw_save(o.raw_path, &raw, err, sizeof err) < 0) {
        kcal_cli_error(CMD, "--raw %s", err);
        goto done;
    }
    kcal_calibrate_notes notes;
    size_t clen = 8192;
    comment = malloc(clen);
    if (!comment) {
        kcal_cli_error(CMD, "out of memory");
        goto done;
    }
    if (kcal_calibrate_params(&raw, &params, &notes, comment, clen, err, sizeof err) < 0) {
        kcal_cli_error(CMD, "fit: %s", err);
        goto done;
    }
    if (!o.quiet)
        for (int i = 0; i < notes.n; i++)
            kcal_cli_warn(CMD, "%s", notes.text[i]);
    FILE *mem = open_memstream(&out, &outlen);
    if (!mem || kcal_params_write(mem, &params, comment) < 0 || fclose(mem)) {
        kcal_cli_error(CMD, "out of memory");
        goto done;
    }
    kcal_progress_finish(&pr, "done");
    if (fwrite(out, 1, outlen, stdout) != outlen || fflush(stdout)) {
        kcal_cli_error(CMD, "writing stdout: %s", strerror(errno));
        goto done;
    }
    rc = KCAL_EXIT_OK;
done:
    for (int k = 0; k < 6; k++)
        kcal_sweep_free(&sw[k]);
    for (int i = 0; i < n_own; i++)
        kcal_target_stop(&own[i]);
    free(own);
    kcal_target_stop(&main_t);
    if (local != MAP_FAILED)
        munmap(local, local_bytes);
    free(comment);
    free(out);
    kcal_params_free(&params);
    kcal_raw_free(&raw);
    kcal_topo_free(topo);
    return rc;
}
