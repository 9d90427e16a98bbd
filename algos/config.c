/* config: see config.h. */
#include "algos/config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { PATH, TEXT, FLAG, NUMBER };

static const struct {
    const char *name;
    int type;
    long long dflt, lo, hi;
} rows[KCOLL_CFG_COUNT] = {
#define KCOLL_VAR(id, name, type, dflt, lo, hi, meaning)                     \
    [KCOLL_CFG_##id] = {name, type, dflt, lo, hi},
#include "algos/config.def"
#undef KCOLL_VAR
};

/* The values, set once by read_all. A path is copied: the program may
 * setenv afterwards, which can free the string getenv gave. */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct {
    char *path;
    int on;
    long long number;
} values[KCOLL_CFG_COUNT];

int kcoll_config_parse_number(const char *text, long long lo, long long hi,
                              long long *out)
{
    /* strtoll would take blanks before the digits and a sign: a value that
     * reads one way here and another in a shell script is refused alike
     * wherever the blank or the sign is. */
    if (!text || !*text)
        return -1;
    long long v = 0;
    for (const char *c = text; *c; c++) {
        if (*c < '0' || *c > '9')
            return -1;
        int d = *c - '0';
        if (d > hi || v > (hi - d) / 10) /* v * 10 + d > hi, unoverflowed */
            return -1;
        v = v * 10 + d;
    }
    if (v < lo)
        return -1;
    *out = v;
    return 0;
}

static void read_all(void)
{
    for (int i = 0; i < KCOLL_CFG_COUNT; i++) {
        const char *v = getenv(rows[i].name);
        values[i].number = rows[i].dflt;
        if (!v || !*v)
            continue;
        switch (rows[i].type) {
        case PATH:
        case TEXT:
            values[i].path = strdup(v); /* NULL out of memory: as unset */
            break;
        case FLAG:
            values[i].on = strcmp(v, "0") != 0;
            break;
        default:
            if (kcoll_config_parse_number(v, rows[i].lo, rows[i].hi,
                                          &values[i].number) != 0)
                fprintf(stderr, "kcoll: warning: %s='%s' is not a whole "
                                "number from %lld to %lld (decimal digits "
                                "only); using the default (pid %ld)\n",
                        rows[i].name, v, rows[i].lo, rows[i].hi,
                        (long)getpid());
            break;
        }
    }
}

const char *kcoll_config_name(kcoll_config_id id)
{
    return rows[id].name;
}

const char *kcoll_config_path(kcoll_config_id id)
{
    pthread_once(&once, read_all);
    return values[id].path;
}

const char *kcoll_config_text(kcoll_config_id id)
{
    return kcoll_config_path(id);
}

int kcoll_config_on(kcoll_config_id id)
{
    pthread_once(&once, read_all);
    return values[id].on;
}

long long kcoll_config_number(kcoll_config_id id)
{
    pthread_once(&once, read_all);
    return values[id].number;
}
