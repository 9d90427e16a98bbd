/* keys: the params keys of model/keys.def as code sees them.
 *
 * Owns the key ids (KCAL_PK_<name>), what each key is (kind, whether it is
 * required, its unit, what measures it, which model uses it, its meaning),
 * the keys of the families (sm_<op>_a, mpi_<coll>_below, beta_ws_<W>,
 * <key>_stderr, ...) and the lookup from a name back to its id. No other
 * file spells a key's name: code passes ids, and kcal_key_name gives the
 * name (for a message, or to set a key by name).
 *
 * A key is a slot: every KCAL_KEY row is one (KCAL_PK_<name>), and so is
 * every member of a family with a fixed member set (KCAL_PK_MEMBER: the
 * sm_<op>_*, mpi_<coll>_* and reduce_<op>_<class>_beta keys). The families of open member sets
 * (beta_ws_<W>, memcpy_ws_<W>, <key>_stderr, <key>_dof) have a row id and
 * no slots. */
#ifndef KCAL_KEYS_H
#define KCAL_KEYS_H

#include <stddef.h>

/* Shared-memory control collectives of the model (T_sm_X): the members of
 * the sm_<op>_* keys. */
typedef enum {
    KCAL_SM_BCAST = 0,
    KCAL_SM_GATHER,
    KCAL_SM_ALLGATHER,
    KCAL_SM_BARRIER,
    KCAL_SM_COUNT
} kcal_sm_op;

/* Name of the shared-memory op as used in keys (sm_<name>_a). */
const char *kcal_sm_name(kcal_sm_op op);

/* What a key is (keys.def's kind column). */
typedef enum {
    KCAL_KEY_UNKNOWN = 0, /* not a key of model.md: kept, warned about */
    KCAL_KEY_NUMBER,      /* a model parameter, or a <key>_stderr/_dof */
    KCAL_KEY_META_NUMBER, /* a number the probe records about the machine
                           * (page, cache sizes, max_readers): a raw file's
                           * `# meta` entry that kcal fit copies as a number */
    KCAL_KEY_TEXT,        /* metadata text (cpu, kernel, date, ...) */
} kcal_key_kind;

/* The member sets of the families (keys.def). */
typedef enum {
    KCAL_MEMBERS_NONE = 0, /* a key, not a family */
    KCAL_MEMBERS_SM_OP,
    KCAL_MEMBERS_COLL,
    KCAL_MEMBERS_REDOP, /* (op, type class): model/reduce_rates.def */
    KCAL_MEMBERS_SIZE,
    KCAL_MEMBERS_KEY
} kcal_key_members;

enum {
    KCAL_KEY_N_COLLS = 0
#define KCAL_COLLECTIVE(id, name) +1
#include "model/collectives.def"
};
/* How many slots a family of each member set has. */
enum {
    KCAL_N_MEMBERS_SM_OP = KCAL_SM_COUNT,
    KCAL_N_MEMBERS_COLL = KCAL_KEY_N_COLLS,
    KCAL_N_MEMBERS_REDOP = 0
#define KCAL_REDUCE_RATE(op, cls) +1
#include "model/reduce_rates.def"
    ,
    KCAL_N_MEMBERS_SIZE = 0,
    KCAL_N_MEMBERS_KEY = 0
};

/* A slot or a row: KCAL_PK_<name>, KCAL_PK_MEMBER(family, i); -1 for none. */
typedef int kcal_pkey;

/* Every row of keys.def, in its order: KCAL_PK_<name>. */
enum {
#define KCAL_KEY(name, ...) KCAL_PK_##name,
#define KCAL_KEY_FAMILY(name, ...) KCAL_PK_##name,
#include "model/keys.def"
    KCAL_PK_ROWS
};

/* The members' slots, after the rows: KCAL_PK_<family>_0 is the first. */
enum {
    KCAL_PK_MEMBERS_BEFORE_ = KCAL_PK_ROWS - 1,
#define KCAL_KEY(...)
#define KCAL_KEY_FAMILY(name, prefix, members, ...)                          \
    KCAL_PK_##name##_0,                                                       \
        KCAL_PK_##name##_last_ = KCAL_PK_##name##_0 +                         \
                                 KCAL_N_MEMBERS_##members - 1,
#include "model/keys.def"
    KCAL_PK_SLOTS
};

/* The slot of member i (a kcal_sm_op, a kcal_coll) of a family with a
 * fixed member set, e.g. KCAL_PK_MEMBER(mpi_below, KCAL_COLL_BCAST) is
 * mpi_bcast_below. */
#define KCAL_PK_MEMBER(family, i) ((kcal_pkey)(KCAL_PK_##family##_0 + (i)))

/* The name of a slot ("sync_step", "mpi_bcast_below"); NULL for a family
 * row or a bad id. The strings are static. */
const char *kcal_key_name(kcal_pkey k);
/* A key's name by its keys.def id: KCAL_KEY_NAME(beta) is "beta". */
#define KCAL_KEY_NAME(name) kcal_key_name(KCAL_PK_##name)

/* The id of a name: its slot; for a key of an open family (beta_ws_64k,
 * alpha_stderr) the family's row; -1 when it is not a key of keys.def.
 * `*member` (may be NULL) receives what the name has in the member's
 * place ("64k", "alpha") for an open family, else NULL. */
kcal_pkey kcal_key_lookup(const char *name, const char **member,
                          size_t *member_len);

/* The name of a family's key for a member given as text:
 * kcal_key_family_name(KCAL_PK_beta_ws, "64k") is beta_ws_64k,
 * (KCAL_PK_key_stderr, "beta") beta_stderr, (KCAL_PK_mpi_a, "bcast")
 * mpi_bcast_a. Writes at most len bytes; returns buf, or NULL when k is
 * not a family or the name does not fit. */
char *kcal_key_family_name(kcal_pkey k, const char *member, char *buf,
                           size_t len);

/* The row of a slot (a member's family), or k itself for a row. */
kcal_pkey kcal_key_row(kcal_pkey k);

/* What keys.def says of a row (or a slot's row). */
typedef struct {
    const char *name;     /* a key's name; a family's id */
    const char *prefix, *suffix; /* a family: prefix<member>suffix */
    kcal_key_members members;
    kcal_key_kind kind;
    int required;
    const char *unit, *phase, *models, *meaning;
} kcal_key_info;
const kcal_key_info *kcal_key_info_of(kcal_pkey k);

/* A key's meaning with its unit, as the report shows it: "start-up of one
 * CMA call (s)". Returns buf, or NULL for a bad id. */
char *kcal_key_description(kcal_pkey k, char *buf, size_t len);

/* A family's keys as model.md writes them: "sm_<op>_a", "beta_ws_<W>",
 * "<key>_stderr"; a key's name for a key. */
char *kcal_key_pattern(kcal_pkey k, char *buf, size_t len);

#endif
