/* config: libkcoll's settings from the environment, the one place that
 * reads them (not installed). The variables, their types, defaults and
 * meanings are the rows of algos/config.def; everything in libkcoll and
 * the interposer asks here instead of calling getenv.
 *
 * All of them are read together, once per process, on the first call that
 * asks for any (pthread_once: calls may come from any thread), and never
 * change afterwards, so a setenv later has no effect. One rule for every
 * NUMBER (decimal digits only, within the row's range) and one warning for
 * a value it refuses, on stderr, once per process:
 *
 *   kcoll: warning: KCOLL_VIRTUAL_NODES=' 2' is not a whole number from 1
 *   to 2147483647 (decimal digits only); using the default (pid 4242)
 *
 * (on one line). An unset or empty variable is the default, without a
 * word. */
#ifndef KCOLL_CONFIG_H
#define KCOLL_CONFIG_H

typedef enum {
#define KCOLL_VAR(id, name, type, dflt, lo, hi, meaning) KCOLL_CFG_##id,
#include "algos/config.def"
#undef KCOLL_VAR
    KCOLL_CFG_COUNT
} kcoll_config_id;

/* The variable's name ("KCOLL_TABLE"), for messages. */
const char *kcoll_config_name(kcoll_config_id id);

/* A PATH: its value, or NULL when unset or empty. */
const char *kcoll_config_path(kcoll_config_id id);

/* A TEXT: its value, or NULL when unset or empty. */
const char *kcoll_config_text(kcoll_config_id id);

/* A FLAG: 1 when set, not empty and not "0", else 0. */
int kcoll_config_on(kcoll_config_id id);

/* A NUMBER: its value, or the row's default when unset, empty or refused. */
long long kcoll_config_number(kcoll_config_id id);

/* The NUMBER rule, for the tests: 0 with *out set when text is one whole
 * number from lo to hi in decimal digits only, else -1. */
int kcoll_config_parse_number(const char *text, long long lo, long long hi,
                              long long *out);

#endif
