/* calibrate_sm_handoff: cma_context and the MPI library's collectives
 * (mpi_*: the line, the hand-off size and mask) from the collectives
 * kcal-sm-bench timed for probe/sm.c, libkcoll's (phases kcoll_<coll>) and
 * the MPI library's (mpi_<coll>) (calibrate_part.h). */
#include "fit/calibrate_part.h"
#include "common/err.h"
#include "model/model.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* libkcoll's choice must beat the MPI library by more than this to count:
 * near the crossover the two are within the noise of a measurement of a
 * few µs, and a decision that flips with it hands a size to the slower one
 * half of the time. On the development machine (p = 2) the two differed
 * at 2 KiB by up to 10 % either way from one run to the next (probe and
 * benchmark alike), while from 4 KiB libkcoll's choice was 1.2x to 1.6x
 * faster; a size handed to the MPI library where libkcoll was up to 20 %
 * faster costs at most that. */
#define HANDOFF_MARGIN 1.20

/* mpi_<c>_below at the largest p measured. Of the sizes from which what
 * libkcoll runs for algorithm NULL (the choice of the model libkcoll uses
 * with these params, kcal_model_default: the full model for a probed
 * file, with every key but the mpi_* ones fitted by now; pattern "id" or
 * "id:k" of kcoll_<c>) is nowhere slower than the MPI library by more
 * than HANDOFF_MARGIN, the smallest at which it is faster by more than
 * that; the largest measured size when there is none. Medians. *below 0
 * when nothing was measured; -1 out of memory. Why a tie is allowed above
 * it and not only clear wins: with copy_in_out on the Zen 5 guest
 * libkcoll was 2-4x faster than MPI_Allgather and MPI_Alltoall from
 * 512 B to 32 KiB and 0.97-1.10x at 64 KiB, the largest size the probe
 * measures; requiring the margin at every larger size handed all of it
 * to the MPI library. Within the margin either is as good as the noise
 * lets one tell. */
static int crossover(const kcal_raw *raw, const kcal_params *prm,
                     kcal_coll coll, long *below, double *mask, int *at_p,
                     char *comment, size_t commentlen)
{
    const char *name = kcal_coll_name(coll);
    char mphase[32], kphase[32];
    snprintf(mphase, sizeof mphase, KCAL_PHASE_MPI_PREFIX "%s", name);
    snprintf(kphase, sizeof kphase, KCAL_PHASE_KCOLL_PREFIX "%s", name);
    int pp[MAXPTS], kp[MAXPTS];
    long nn[MAXPTS], kn[MAXPTS];
    double med[MAXPTS], se[MAXPTS], kmed[MAXPTS], kse[MAXPTS];
    size_t n, nk;
    *below = 0;
    *mask = 0;
    if (cal_bytes_points(raw, mphase, NULL, pp, nn, med, se, MAXPTS, &n) < 0)
        return -1;
    int p = 0;
    for (size_t j = 0; j < n; j++)
        p = pp[j] > p ? pp[j] : p;
    if (p < 2)
        return 0;
    long sizes[MAXPTS];
    double mpi_at[MAXPTS], ours_at[MAXPTS];
    char ours[MAXPTS][32];
    size_t ns = 0;
    for (size_t j = 0; j < n; j++) {
        if (pp[j] != p)
            continue;
        kcal_choice ch;
        /* The model libkcoll will use, not the paper's: measured against
         * the paper model's choice, bcast handed 16-32 KiB to libkcoll's
         * direct_split, and auto then ran the full model's
         * scatter_allgather there, 0.72-0.81x of MPI_Bcast (issue 8). */
        if (kcal_model_select(kcal_model_default(prm), prm, coll, p,
                              (uint64_t)nn[j], 0, NULL, &ch) != 0 ||
            kcal_model_is_mpi(ch.alg))
            continue;
        if (ch.alg->kind == KCAL_PARAM_NONE)
            snprintf(ours[ns], sizeof ours[0], "%s", ch.alg->id);
        else
            snprintf(ours[ns], sizeof ours[0], "%s:%d", ch.alg->id, ch.k);
        if (cal_bytes_points(raw, kphase, ours[ns], kp, kn, kmed, kse, MAXPTS, &nk) < 0)
            return -1;
        double t = INFINITY;
        for (size_t q = 0; q < nk; q++)
            if (kp[q] == p && kn[q] == nn[j])
                t = kmed[q];
        if (!isfinite(t))
            continue; /* the choice was not measured at this size */
        sizes[ns] = nn[j];
        mpi_at[ns] = med[j];
        ours_at[ns++] = t;
    }
    if (ns == 0)
        return 0;
    /* sizes ascending (insertion sort: a handful) */
    for (size_t i = 1; i < ns; i++)
        for (size_t j = i; j > 0 && sizes[j - 1] > sizes[j]; j--) {
            long t = sizes[j];
            sizes[j] = sizes[j - 1], sizes[j - 1] = t;
            double u = mpi_at[j];
            mpi_at[j] = mpi_at[j - 1], mpi_at[j - 1] = u;
            u = ours_at[j];
            ours_at[j] = ours_at[j - 1], ours_at[j - 1] = u;
            char w[32];
            memcpy(w, ours[j], sizeof w);
            memcpy(ours[j], ours[j - 1], sizeof w);
            memcpy(ours[j - 1], w, sizeof w);
        }
    *below = sizes[ns - 1];
    for (size_t z = ns; z-- > 0 && ours_at[z] <= mpi_at[z] * HANDOFF_MARGIN;)
        if (ours_at[z] * HANDOFF_MARGIN < mpi_at[z])
            *below = sizes[z];
    *at_p = p;
    cal_cat(comment, commentlen, "mpi_%s_below %ld: at p = %d, MPI against "
            "libkcoll's choice (median us):", name, *below, p);
    for (size_t z = 0; z < ns; z++)
        cal_cat(comment, commentlen, " %ld %.3g/%.3g %s", sizes[z],
                mpi_at[z] * 1e6, ours_at[z] * 1e6, ours[z]);
    cal_cat(comment, commentlen, "\n");
    /* Above the crossover, a measured size where the MPI library was
     * faster all the same keeps its size class [2^i, 2^(i+1)) with it
     * (mpi_<c>_mask, bit i): libkcoll left to choose must never be slower
     * than the MPI library, and one size cannot say so where the model's
     * choice dips in the middle (the Xeon guest: copy_in_out 1.4x MPI at
     * 1 KiB, direct_split 0.92x at 2 KiB, 1.3x from 4 KiB; bcast's auto
     * then ran 0.85x MPI at 2 KiB). */
    uint64_t bits = 0;
    for (size_t z = 0; z < ns; z++)
        if (sizes[z] >= *below && sizes[z] > 0 && ours_at[z] > mpi_at[z]) {
            bits |= (uint64_t)1 << kcal_model_size_class((uint64_t)sizes[z]);
            cal_cat(comment, commentlen, "mpi_%s_mask: %ld B and its size class to "
                    "the MPI library too (%.3g/%.3g us)\n", name, sizes[z],
                    mpi_at[z] * 1e6, ours_at[z] * 1e6);
        }
    *mask = (double)bits;
    return 0;
}

/* cma_context (issue 8): what a collective pays once for making CMA
 * calls, beyond α (model.c add_context). α comes from a loop of calls on
 * one passive target; the probe also measures libkcoll's algorithms
 * themselves, one call at a time after a barrier (phases kcoll_<coll>,
 * for the hand-off below). Two of them make exactly one CMA call each and
 * no copy besides the root's own block: scatter parallel_read_flags and
 * gather parallel_write_flags. At every size they were measured from
 * CONTEXT_MIN to CONTEXT_MAX bytes, at the smallest p >= 2, the median
 * less the full model's time for it (without the key) is one point; the
 * key is their weighted mean. Small sizes only: there the call's start is
 * most of the time and a copy-rate error least; the smallest p: the fewest
 * calls at once, so the least of what γ(c) and δ(c) model leaks in (on a
 * many-core machine the hand-off is measured at several p). Each point goes into the
 * comment; a negative mean is held at 0 with a note. Absent samples leave
 * the key absent. */
#define CONTEXT_MIN 256
#define CONTEXT_MAX 8192
int cal_sm_context(const kcal_raw *raw, kcal_params *out,
                   kcal_calibrate_notes *notes, char *comment,
                   size_t commentlen, char *err, size_t errlen)
{
    static const struct {
        kcal_coll coll;
        const char *alg;
    } rows[] = {{KCAL_COLL_SCATTER, "parallel_read_flags"},
                {KCAL_COLL_GATHER, "parallel_write_flags"}};
    double y[2 * MAXPTS], sg[2 * MAXPTS];
    size_t n = 0;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        const char *name = kcal_coll_name(rows[r].coll);
        const kcal_algorithm *alg =
            kcal_model_find_algorithm(rows[r].coll, rows[r].alg);
        char phase[32];
        snprintf(phase, sizeof phase, KCAL_PHASE_KCOLL_PREFIX "%s", name);
        int pp[MAXPTS];
        long nn[MAXPTS];
        double med[MAXPTS], se[MAXPTS];
        size_t npt;
        if (!alg)
            continue;
        if (cal_bytes_points(raw, phase, rows[r].alg, pp, nn, med, se, MAXPTS,
                             &npt) < 0) {
            kcal_set_err(err, errlen, "out of memory fitting cma_context");
            return -1;
        }
        int p = 0;
        for (size_t j = 0; j < npt; j++)
            if (pp[j] >= 2 && (p == 0 || pp[j] < p))
                p = pp[j];
        if (p < 2)
            continue;
        cal_cat(comment, commentlen, "cma_context: %s %s at p = %d, measured - "
                "full model (us):", name, rows[r].alg, p);
        for (size_t j = 0; j < npt; j++) {
            if (pp[j] != p || nn[j] < CONTEXT_MIN || nn[j] > CONTEXT_MAX)
                continue;
            double t = kcal_model_time(KCAL_MODEL_FULL, out, rows[r].coll,
                                       alg, 0, p, (uint64_t)nn[j], 0, NULL);
            if (!(t >= 0) || !isfinite(t))
                continue;
            y[n] = med[j] - t;
            sg[n] = se[j];
            cal_cat(comment, commentlen, " %ld %.3g", nn[j], y[n] * 1e6);
            n++;
        }
        cal_cat(comment, commentlen, "\n");
    }
    if (n == 0)
        return 0;
    return cal_mean_nonneg(out, "cma_context", y, sg, n, "points",
                           "the one-call rows ran faster than the model says",
                           notes, err, errlen);
}

/* The MPI library's own collectives (model.md "The MPI library as a
 * candidate"): per collective, the line T_mpi = a + b·v through the median
 * of each measured (p, n) point (phase mpi_<coll>), v = (p−1)·n, or
 * ⌈log₂ p⌉·n for bcast, weighted by the points' standard errors; a
 * negative coefficient is held at 0 (as for T_sm). And mpi_<coll>_below,
 * the measured crossover (crossover above), below which libkcoll hands its
 * calls to the MPI library. Absent samples leave the keys absent (no
 * hand-off). 0 or -1. */
int cal_sm_mpi(const kcal_raw *raw, kcal_params *out,
               kcal_calibrate_notes *notes, char *comment,
               size_t commentlen, char *err, size_t errlen)
{
    for (int c = 0; c < KCAL_COLL_COUNT; c++) {
        const char *name = kcal_coll_name((kcal_coll)c);
        char phase[32], ka[48], kb[48], kbelow[48];
        snprintf(phase, sizeof phase, KCAL_PHASE_MPI_PREFIX "%s", name);
        snprintf(ka, sizeof ka, "mpi_%s_a", name);
        snprintf(kb, sizeof kb, "mpi_%s_b", name);
        snprintf(kbelow, sizeof kbelow, "mpi_%s_below", name);
        int pp[MAXPTS];
        long nn[MAXPTS];
        double med[MAXPTS], se[MAXPTS], x[MAXPTS], y[MAXPTS], sy[MAXPTS];
        size_t npt, n = 0;
        if (cal_bytes_points(raw, phase, NULL, pp, nn, med, se, MAXPTS, &npt) < 0) {
            kcal_set_err(err, errlen, "out of memory fitting %s", phase);
            return -1;
        }
        for (size_t j = 0; j < npt; j++) {
            if (pp[j] < 2)
                continue;
            int mult = c == KCAL_COLL_BCAST ? kcal_ceil_log2(pp[j]) : pp[j] - 1;
            x[n] = (double)mult * (double)nn[j];
            y[n] = med[j];
            sy[n++] = se[j];
        }
        if (n == 0)
            continue;
        double a = y[0], b = 0, sa = sy[0], sb = 0;
        if (n >= 2 && cal_line_nonneg(x, y, sy, n, phase, ka, kb, notes, &a,
                                      &b, &sa, &sb, err, errlen) < 0)
            return -1;
        cal_cat(comment, commentlen, "T_mpi_%s = a + b*v over %zu points: a %.3g s, "
                "b %.3g s/byte\n", name, n, a, b);
        long below;
        double mask;
        int at_p = 0;
        if (crossover(raw, out, (kcal_coll)c, &below, &mask, &at_p, comment,
                      commentlen) < 0) {
            kcal_set_err(err, errlen, "out of memory fitting %s", phase);
            return -1;
        }
        /* Without libkcoll's side of the measurement there is no
         * crossover, and the line alone does not hand anything off. */
        if (cal_set_fit(out, ka, a, sa, err, errlen) < 0 ||
            cal_set_fit(out, kb, b, sb, err, errlen) < 0 ||
            (below > 0 && cal_set_num(out, kbelow, (double)below, err, errlen) < 0))
            return -1;
        char kmask[48];
        snprintf(kmask, sizeof kmask, "mpi_%s_mask", name);
        if (below > 0 && mask > 0 && cal_set_num(out, kmask, mask, err, errlen) < 0)
            return -1;
    }
    return 0;
}
