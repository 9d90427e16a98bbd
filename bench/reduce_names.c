/* reduce_names: the reductions' types and ops by name (reduce_names.h). */
#include "bench/reduce_names.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "algos/reduce_types.h"

/* A pair's C layout is MPI's: its size with padding is its extent. */
#define PAIR_SIZE(vtype) sizeof(struct { vtype v; int i; })

const kcal_reduce_type kcal_reduce_types[] = {
#define KCOLL_RTYPE_NAMED(name, handle, ctype, cls)                           \
    {#name, sizeof(ctype), cls, (ctype)-1 < 1, (ctype)0.5 != 0,              \
     sizeof(ctype), 0},
#define KCOLL_RTYPE_PAIR(name, handle, vtype)                                 \
    {#name, PAIR_SIZE(vtype), KCOLL_RC_PAIR, (vtype)-1 < 1,                  \
     (vtype)0.5 != 0, sizeof(vtype),                                         \
     PAIR_SIZE(vtype) != sizeof(vtype) + sizeof(int)},
#include "algos/reduce_types.def"
};
const size_t kcal_reduce_ntypes =
    sizeof kcal_reduce_types / sizeof *kcal_reduce_types;

const kcal_reduce_op kcal_reduce_ops[] = {
#define KCOLL_ROP(name, handle, classes) {#name, classes},
#include "algos/reduce_types.def"
};
const size_t kcal_reduce_nops = sizeof kcal_reduce_ops / sizeof *kcal_reduce_ops;

/* "a, b, c": the named types (of classes cls, and reduced by libkcoll), or
 * with types == 0 the ops, into buf; with indent > 0 a new line of indent
 * blanks where the next name would pass 80 columns, the first line taken
 * to start there too. */
static const char *list(int types, unsigned cls, int indent, char *buf,
                        size_t len)
{
    size_t n = types ? kcal_reduce_ntypes : kcal_reduce_nops, at = 0;
    int col = indent;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *name = types ? kcal_reduce_types[i].name
                                 : kcal_reduce_ops[i].name;
        if (types && (!(kcal_reduce_types[i].cls & cls) ||
                      kcal_reduce_types[i].padded))
            continue;
        int wrap = indent > 0 && at && col + 2 + (int)strlen(name) > 79;
        int w = snprintf(buf + at, len - at, "%s%s%*s%s", at ? "," : "",
                         wrap ? "\n" : at ? " " : "", wrap ? indent : 0, "",
                         name);
        if (w < 0 || (size_t)w >= len - at)
            break;
        at += (size_t)w;
        col = wrap ? indent + (int)strlen(name) : col + w;
    }
    return buf;
}

const char *kcal_reduce_names(int types, int indent, char *buf, size_t len)
{
    return list(types, ~0u, indent, buf, len);
}

int kcal_reduce_choose(kcal_coll coll, const char *type, const char *op,
                       const kcal_reduce_type **t, const kcal_reduce_op **o,
                       char *err, size_t len)
{
    char names[512];
    *t = NULL, *o = NULL;
    if (!kcal_coll_is_reduction(coll)) {
        snprintf(err, len, "%s: only the reductions (reduce, allreduce, "
                 "reduce_scatter_block) take a type and an op; --coll %s "
                 "moves bytes", type ? "--type" : "--op", kcal_coll_name(coll));
        return -1;
    }
    const char *tn = type ? type : KCAL_REDUCE_DEFAULT_TYPE;
    const char *on = op ? op : KCAL_REDUCE_DEFAULT_OP;
    for (size_t i = 0; i < kcal_reduce_ntypes && !*t; i++)
        if (!strcmp(tn, kcal_reduce_types[i].name))
            *t = &kcal_reduce_types[i];
    for (size_t i = 0; i < kcal_reduce_nops && !*o; i++)
        if (!strcmp(on, kcal_reduce_ops[i].name))
            *o = &kcal_reduce_ops[i];
    if (!*t) {
        snprintf(err, len, "--type: '%s' is not a type (%s)", tn,
                 list(1, ~0u, 0, names, sizeof names));
        return -1;
    }
    if (!*o) {
        snprintf(err, len, "--op: '%s' is not an op (%s)", on,
                 list(0, 0, 0, names, sizeof names));
        return -1;
    }
    if ((*t)->padded) {
        /* Measured, every row would be the MPI library's collective under
         * a libkcoll algorithm's name: algos/reduce.h reduces only types
         * without holes. */
        snprintf(err, len, "--type %s: libkcoll hands this pair to the MPI "
                 "library (%zu bytes with padding for %zu of data), so every "
                 "row would time the MPI library; the pairs libkcoll reduces: "
                 "%s", tn, (*t)->size, (*t)->vsize + sizeof(int),
                 list(1, KCOLL_RC_PAIR, 0, names, sizeof names));
        return -1;
    }
    if (!((*o)->classes & (*t)->cls)) {
        snprintf(err, len, "--op %s%s is not defined on --type %s%s (MPI "
                 "4.0 §6.9.2; types it takes: %s)", on, op ? "" : " (the "
                 "default)", tn, type ? "" : " (the default)",
                 list(1, (*o)->classes, 0, names, sizeof names));
        return -1;
    }
    return 0;
}

int kcal_reduce_check_size(const kcal_reduce_type *t, uint64_t n, char *err,
                           size_t len)
{
    if (n % t->size == 0)
        return 0;
    snprintf(err, len, "--sizes: %" PRIu64 " bytes is not a whole number of "
             "%s (%zu bytes each; --type)", n, t->name, t->size);
    return -1;
}
