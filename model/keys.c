/* keys: the params-key registry of keys.h, built from keys.def. */
#include "model/keys.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static const char *const sm_names[KCAL_SM_COUNT] = {"bcast", "gather",
                                                    "allgather", "barrier"};

static const char *const coll_names[KCAL_KEY_N_COLLS] = {
#define KCAL_COLLECTIVE(id, name) #name,
#include "model/collectives.def"
};

static const char *const redop_names[KCAL_N_MEMBERS_REDOP] = {
#define KCAL_REDUCE_RATE(op, cls) #op "_" #cls,
#include "model/reduce_rates.def"
};

const char *kcal_sm_name(kcal_sm_op op)
{
    return (op >= 0 && op < KCAL_SM_COUNT) ? sm_names[op] : NULL;
}

#define KCAL_NEED_REQUIRED 1
#define KCAL_NEED_OPTIONAL 0

static const kcal_key_info rows[KCAL_PK_ROWS] = {
#define KCAL_KEY(name, kind, need, unit, phase, models, meaning)             \
    [KCAL_PK_##name] = {#name,          NULL,  NULL,   KCAL_MEMBERS_NONE,     \
                        KCAL_KEY_##kind, KCAL_NEED_##need, unit, phase,       \
                        models,         meaning},
#define KCAL_KEY_FAMILY(name, prefix, members, suffix, kind, need, unit,     \
                        phase, models, meaning)                               \
    [KCAL_PK_##name] = {#name,           prefix, suffix, KCAL_MEMBERS_##members, \
                        KCAL_KEY_##kind, KCAL_NEED_##need, unit, phase,       \
                        models,          meaning},
#include "model/keys.def"
};

/* A family row's first slot; -1 for a key or an open family. */
static const int first_slot[KCAL_PK_ROWS] = {
#define KCAL_KEY(name, ...) [KCAL_PK_##name] = -1,
#define KCAL_KEY_FAMILY(name, prefix, members, ...)                          \
    [KCAL_PK_##name] = KCAL_N_MEMBERS_##members ? KCAL_PK_##name##_0 : -1,
#include "model/keys.def"
};

static const char *const *members_of(kcal_key_members m, int *count)
{
    switch (m) {
    case KCAL_MEMBERS_SM_OP:
        *count = KCAL_SM_COUNT;
        return sm_names;
    case KCAL_MEMBERS_COLL:
        *count = KCAL_KEY_N_COLLS;
        return coll_names;
    case KCAL_MEMBERS_REDOP:
        *count = KCAL_N_MEMBERS_REDOP;
        return redop_names;
    default:
        *count = 0;
        return NULL;
    }
}

kcal_pkey kcal_key_row(kcal_pkey k)
{
    if (k < 0 || k >= KCAL_PK_SLOTS)
        return -1;
    if (k < KCAL_PK_ROWS)
        return k;
    for (int r = 0; r < KCAL_PK_ROWS; r++) {
        int n;
        members_of(rows[r].members, &n);
        if (first_slot[r] >= 0 && k >= first_slot[r] && k < first_slot[r] + n)
            return r;
    }
    return -1;
}

const kcal_key_info *kcal_key_info_of(kcal_pkey k)
{
    kcal_pkey r = kcal_key_row(k);
    return r < 0 ? NULL : &rows[r];
}

/* The members' names, made once: prefix<member>suffix. */
static char member_names[KCAL_PK_SLOTS - KCAL_PK_ROWS][48];
static pthread_once_t member_names_once = PTHREAD_ONCE_INIT;

static void make_member_names(void)
{
    for (int r = 0; r < KCAL_PK_ROWS; r++) {
        int n;
        const char *const *m = members_of(rows[r].members, &n);
        for (int i = 0; first_slot[r] >= 0 && i < n; i++)
            snprintf(member_names[first_slot[r] + i - KCAL_PK_ROWS],
                     sizeof member_names[0], "%s%s%s", rows[r].prefix, m[i],
                     rows[r].suffix);
    }
}

const char *kcal_key_name(kcal_pkey k)
{
    if (k < 0 || k >= KCAL_PK_SLOTS)
        return NULL;
    if (k < KCAL_PK_ROWS)
        return rows[k].members == KCAL_MEMBERS_NONE ? rows[k].name : NULL;
    pthread_once(&member_names_once, make_member_names);
    return member_names[k - KCAL_PK_ROWS];
}

/* prefix<size>: digits and an optional k, m or g (beta_ws_, issue 9;
 * memcpy_ws_, issue 8). */
static int is_size_key(const char *key, const char *prefix)
{
    size_t plen = strlen(prefix);
    if (strncmp(key, prefix, plen))
        return 0;
    const char *c = key + plen;
    if (!isdigit((unsigned char)*c))
        return 0;
    while (isdigit((unsigned char)*c))
        c++;
    if (*c == 'k' || *c == 'm' || *c == 'g')
        c++;
    return *c == '\0';
}

/* Every row but the open KEY families: an exact key, a member of a fixed
 * set, a size. */
static kcal_pkey lookup_direct(const char *name, const char **member,
                               size_t *member_len)
{
    for (int r = 0; r < KCAL_PK_ROWS; r++) {
        const kcal_key_info *in = &rows[r];
        if (in->members == KCAL_MEMBERS_NONE) {
            if (!strcmp(name, in->name))
                return r;
        } else if (in->members == KCAL_MEMBERS_SIZE) {
            if (is_size_key(name, in->prefix)) {
                if (member)
                    *member = name + strlen(in->prefix);
                if (member_len)
                    *member_len = strlen(name + strlen(in->prefix));
                return r;
            }
        } else if (in->members != KCAL_MEMBERS_KEY) {
            size_t pl = strlen(in->prefix);
            int n;
            const char *const *m = members_of(in->members, &n);
            if (strncmp(name, in->prefix, pl))
                continue;
            for (int i = 0; i < n; i++) {
                size_t ml = strlen(m[i]);
                if (!strncmp(name + pl, m[i], ml) &&
                    !strcmp(name + pl + ml, in->suffix))
                    return first_slot[r] + i;
            }
        }
    }
    return -1;
}

static int numeric(kcal_key_kind k)
{
    return k == KCAL_KEY_NUMBER || k == KCAL_KEY_META_NUMBER;
}

kcal_pkey kcal_key_lookup(const char *name, const char **member,
                          size_t *member_len)
{
    if (member)
        *member = NULL;
    if (member_len)
        *member_len = 0;
    kcal_pkey k = lookup_direct(name, member, member_len);
    if (k >= 0)
        return k;
    /* <numeric key><suffix>, the key one of the rows above. */
    size_t len = strlen(name);
    for (int r = 0; r < KCAL_PK_ROWS; r++) {
        if (rows[r].members != KCAL_MEMBERS_KEY)
            continue;
        size_t sl = strlen(rows[r].suffix);
        if (len <= sl || strcmp(name + len - sl, rows[r].suffix))
            continue;
        char base[128];
        if (len - sl >= sizeof base)
            return -1;
        memcpy(base, name, len - sl);
        base[len - sl] = '\0';
        kcal_pkey b = lookup_direct(base, NULL, NULL);
        if (b < 0 || !numeric(kcal_key_info_of(b)->kind))
            return -1;
        if (member)
            *member = name;
        if (member_len)
            *member_len = len - sl;
        return r;
    }
    return -1;
}

char *kcal_key_family_name(kcal_pkey k, const char *member, char *buf,
                           size_t len)
{
    if (k < 0 || k >= KCAL_PK_ROWS || rows[k].members == KCAL_MEMBERS_NONE)
        return NULL;
    int w = snprintf(buf, len, "%s%s%s", rows[k].prefix, member,
                     rows[k].suffix);
    return w >= 0 && (size_t)w < len ? buf : NULL;
}

char *kcal_key_pattern(kcal_pkey k, char *buf, size_t len)
{
    static const char *const place[] = {
        [KCAL_MEMBERS_SM_OP] = "<op>", [KCAL_MEMBERS_COLL] = "<coll>",
        [KCAL_MEMBERS_REDOP] = "<op>_<class>",
        [KCAL_MEMBERS_SIZE] = "<W>", [KCAL_MEMBERS_KEY] = "<key>"};
    const kcal_key_info *in = kcal_key_info_of(k);
    if (!in)
        return NULL;
    if (in->members == KCAL_MEMBERS_NONE)
        snprintf(buf, len, "%s", in->name);
    else
        snprintf(buf, len, "%s%s%s", in->prefix, place[in->members],
                 in->suffix);
    return buf;
}

char *kcal_key_description(kcal_pkey k, char *buf, size_t len)
{
    const kcal_key_info *in = kcal_key_info_of(k);
    if (!in)
        return NULL;
    if (*in->unit)
        snprintf(buf, len, "%s (%s)", in->meaning, in->unit);
    else
        snprintf(buf, len, "%s", in->meaning);
    return buf;
}
