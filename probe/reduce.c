/* reduce: planning the reductions' op measurement and reading what the MPI
 * helper timed (see reduce.h). */
#include "probe/reduce.h"
#include "model/model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void kcal_reduce_plan_make(kcal_reduce_plan *p, unsigned long l2,
                           unsigned long llc, int quick, double min_sample)
{
    memset(p, 0, sizeof *p);
    /* in and inout within half of L2: the other half for the stack, the
     * code and what the hardware prefetches beyond the end. */
    long top = (long)KCAL_REDUCE_CHUNK;
    if (l2 && (long)(l2 / 4) < top)
        top = (long)(l2 / 4);
    for (long b = KCAL_REDUCE_MIN_BYTES;
         b <= top && p->n_hot < KCAL_REDUCE_MAX_SIZES; b *= quick ? 4 : 2)
        p->hot[p->n_hot++] = b;
    if (p->n_hot == 0) /* an L2 under 16 KiB */
        p->hot[p->n_hot++] = KCAL_REDUCE_MIN_BYTES;
    long cold = (long)llc;
    if (cold < KCAL_REDUCE_COLD_MIN)
        cold = KCAL_REDUCE_COLD_MIN;
    long cap = quick ? KCAL_REDUCE_COLD_QUICK : KCAL_REDUCE_COLD_MAX;
    if (cold > cap)
        cold = cap;
    p->cold = cold / 8 * 8;
    p->passes = quick ? 15 : 40;
    p->min_sample = min_sample;
    /* The pairs at k hot sizes spread evenly over hot's range (its ends
     * included): enough for a line's slope apart from the call's cost,
     * at a fraction of hot's time. */
    size_t k = quick ? KCAL_REDUCE_RATE_SIZES_QUICK : KCAL_REDUCE_RATE_SIZES;
    for (size_t j = 0; j < k; j++) {
        size_t i = k > 1 ? (j * (p->n_hot - 1) + (k - 1) / 2) / (k - 1) : 0;
        if (p->n_rate_bytes == 0 ||
            p->rate_bytes[p->n_rate_bytes - 1] < p->hot[i])
            p->rate_bytes[p->n_rate_bytes++] = p->hot[i];
    }
    memset(p->rate, 1, sizeof p->rate);
    /* Out of cache, where cold's vectors can evict them (reduce.h). */
    if (p->cold >= 2 * KCAL_REDUCE_RATE_COLD) {
        p->rate_cold = KCAL_REDUCE_RATE_COLD;
        p->rate_cold_every = quick ? KCAL_REDUCE_RATE_COLD_EVERY_QUICK
                                   : KCAL_REDUCE_RATE_COLD_EVERY;
    }
}

int kcal_reduce_args(const kcal_reduce_plan *p, char *buf, size_t len,
                     char **argv, int max)
{
    int n = 0;
    size_t used = 0;
    /* PUT: text into buf; ADD: an argument of its own, its pointer into
     * argv. */
#define PUT(...)                                                           \
    do {                                                                   \
        int w_ = used < len ? snprintf(buf + used, len - used, __VA_ARGS__) \
                            : -1;                                          \
        if (w_ < 0 || (size_t)w_ >= len - used)                            \
            return -1;                                                     \
        used += (size_t)w_;                                                \
    } while (0)
#define ADD(...)                                                           \
    do {                                                                   \
        if (n + 1 >= max)                                                  \
            return -1;                                                     \
        argv[n++] = buf + used;                                            \
        PUT(__VA_ARGS__);                                                  \
        used++;                                                            \
    } while (0)
    ADD("%s", KCAL_REDUCE_ARG);
    ADD("%d", p->passes);
    ADD("%.9g", p->min_sample);
    for (size_t i = 0; i < p->n_hot; i++)
        ADD("%s:%ld", KCAL_PATTERN_HOT, p->hot[i]);
    if (p->cold > 0)
        ADD("%s:%ld", KCAL_PATTERN_COLD, p->cold);
    /* The pairs: one argument, every planned pair at every size; then
     * one with their cold samples, in every rate_cold_every-th pass. */
    int pairs = 0;
    for (int i = 0; i < KCAL_N_MEMBERS_REDOP; i++)
        pairs += p->rate[i] != 0;
    for (int cold = 0; cold < 2 && pairs; cold++) {
        if (cold ? !p->rate_cold || p->cold <= 0 : !p->n_rate_bytes)
            continue;
        if (n + 1 >= max)
            return -1;
        argv[n++] = buf + used;
        const char *sep = "";
        for (int i = 0; i < KCAL_N_MEMBERS_REDOP; i++)
            if (p->rate[i]) {
                PUT("%s%s%s", sep, kcal_reduce_rate_name(i),
                    cold ? KCAL_PATTERN_COLD_SUFFIX : "");
                sep = ",";
            }
        if (cold) {
            PUT(":%ld@%d", p->rate_cold, p->rate_cold_every);
        } else {
            sep = ":";
            for (size_t i = 0; i < p->n_rate_bytes; i++) {
                PUT("%s%ld", sep, p->rate_bytes[i]);
                sep = ",";
            }
        }
        used++; /* past its NUL */
    }
#undef PUT
#undef ADD
    argv[n] = NULL;
    return n;
}

int kcal_reduce_parse_line(const char *line, kcal_raw *raw)
{
    size_t k = strlen(KCAL_REDUCE_LINE);
    if (strncmp(line, KCAL_REDUCE_LINE, k) || line[k] != ' ')
        return 0;
    char pat[24];
    long bytes;
    int rep, end = 0, cold;
    double sec;
    if (sscanf(line + k, " %23s %ld %d %lg%n", pat, &bytes, &rep, &sec,
               &end) != 4 || line[k + (size_t)end] != '\0' || bytes <= 0 ||
        rep < 0 || !(sec > 0) || !isfinite(sec) ||
        (strcmp(pat, KCAL_PATTERN_HOT) && strcmp(pat, KCAL_PATTERN_COLD) &&
         kcal_reduce_rate_pattern(pat, &cold) < 0))
        return -1;
    return kcal_raw_add(raw, KCAL_PHASE_REDUCE, pat, 1, 0, bytes, rep, sec) == 0
               ? 1
               : -1;
}
