/* reduce_rates: the (op, type class) pairs' patterns in the probe's raw
 * samples (reduce.h): kcal reads them, and the MPI helper, which links
 * this file and nothing else of the probe, times them. No MPI. */
#include "probe/reduce.h"

#include <string.h>

/* The pairs' member names, as model/keys.c spells the REDOP family. */
static const char *const rate_names[KCAL_N_MEMBERS_REDOP] = {
#define KCAL_REDUCE_RATE(op, cls) #op "_" #cls,
#include "model/reduce_rates.def"
};

const char *kcal_reduce_rate_name(int i)
{
    return i >= 0 && i < KCAL_N_MEMBERS_REDOP ? rate_names[i] : NULL;
}

int kcal_reduce_rate_index(const char *name)
{
    for (int i = 0; i < KCAL_N_MEMBERS_REDOP; i++)
        if (!strcmp(name, rate_names[i]))
            return i;
    return -1;
}

int kcal_reduce_rate_pattern(const char *pattern, int *cold)
{
    size_t n = strlen(pattern), k = strlen(KCAL_PATTERN_COLD_SUFFIX);
    *cold = n > k && !strcmp(pattern + n - k, KCAL_PATTERN_COLD_SUFFIX);
    size_t name = *cold ? n - k : n; /* the member name's length */
    for (int i = 0; i < KCAL_N_MEMBERS_REDOP; i++)
        if (strlen(rate_names[i]) == name &&
            !strncmp(pattern, rate_names[i], name))
            return i;
    return -1;
}
