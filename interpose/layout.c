/* layout: where the data of (count, datatype) lie, and packing them (see
 * interpose.h).
 *
 * libkcoll moves raw bytes, and a peer may describe the same message with
 * another type map of the same signature (MPI allows a vector at the root
 * of a scatter and plain doubles elsewhere), so raw bytes are right only
 * where they are the packed form: the type map, walked in order, lists the
 * bytes 0, 1, ..., size - 1 of each element, and elements follow each
 * other (extent = size, lower bound 0). size = extent = true extent is not
 * enough: a struct {int at 4, int at 0} has it and lists its bytes out of
 * order; {int at 0, int at 0, int at 8} has it and lists a byte twice.
 *
 * Predefined types are decided from their size and extents (the pair types
 * MPI_DOUBLE_INT, MPI_SHORT_INT ... have holes); the common ones are in a
 * table and cost one MPI call. A derived type is decoded once with
 * MPI_Type_get_envelope / MPI_Type_get_contents and the verdict is cached on
 * the type as an attribute. Constructors the walk does not decode
 * (subarray, darray) and types of more than WALK_BUDGET blocks count as not
 * contiguous: packing is always right, only slower, and whether a process
 * packs never changes what the others do. */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algos/config.h"
#include "interpose/interpose.h"

size_t kcoll_pack_limit = INT_MAX;

/* Tag of the send-to-self that packs an element too large for MPI_Pack:
 * above every control tag of kcoll (kcoll_tag: 14 bits) on its private
 * communicator, and within the 32767 every MPI library allows. */
#define PACK_TAG 0x7000

#define WALK_BUDGET 1024 /* blocks decoded per type, at most */
#define WALK_DEPTH 32    /* nested constructors, at most */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int verdict_keyval = MPI_KEYVAL_INVALID;

static void init(void)
{
    kcoll_pack_limit = (size_t)kcoll_config_number(KCOLL_CFG_PACK_LIMIT);
    /* MPI_TYPE_DUP_FN: a duplicate has the same type map, so the same
     * verdict; the value is a small integer, nothing to free. */
    if (PMPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN,
                                &verdict_keyval, NULL) != MPI_SUCCESS)
        verdict_keyval = MPI_KEYVAL_INVALID;
}

/* Predefined types whose one element is its size bytes in order (extent =
 * size, lower bound 0), most used first: one comparison each. */
static int plain_predefined(MPI_Datatype t)
{
    static const MPI_Datatype plain[] = {
        MPI_BYTE, MPI_DOUBLE, MPI_INT, MPI_CHAR, MPI_FLOAT, MPI_LONG,
        MPI_UNSIGNED_CHAR, MPI_UNSIGNED, MPI_UNSIGNED_LONG, MPI_LONG_LONG,
        MPI_UNSIGNED_LONG_LONG, MPI_SHORT, MPI_UNSIGNED_SHORT,
        MPI_SIGNED_CHAR, MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T,
        MPI_UINT8_T, MPI_UINT16_T, MPI_UINT32_T, MPI_UINT64_T, MPI_C_BOOL,
        MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_PACKED,
        MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX,
        MPI_DOUBLE_COMPLEX, MPI_CHARACTER, MPI_LOGICAL,
    };
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (t == plain[i])
            return 1;
    return 0;
}

static int is_predefined(int combiner)
{
    return combiner == MPI_COMBINER_NAMED ||
           combiner == MPI_COMBINER_F90_REAL ||
           combiner == MPI_COMBINER_F90_COMPLEX ||
           combiner == MPI_COMBINER_F90_INTEGER;
}

/* One element of a predefined type: its bytes in order from 0 (every
 * predefined pair type lists its members at increasing addresses, so
 * size = extent = true extent at lower bound 0 is exact here). */
static int predefined_in_order(MPI_Datatype t, MPI_Count *size)
{
    MPI_Count lb, ext, tlb, text;
    if (PMPI_Type_size_x(t, size) != MPI_SUCCESS ||
        PMPI_Type_get_extent_x(t, &lb, &ext) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent_x(t, &tlb, &text) != MPI_SUCCESS)
        return 0;
    return *size == 0 || (lb == 0 && tlb == 0 && ext == *size && text == *size);
}

typedef struct {
    MPI_Aint next; /* the displacement the next byte must have */
    int budget;
} walk_state;

static int walk(MPI_Datatype t, MPI_Aint disp, walk_state *w, int depth);

/* n elements of t, the first at disp, each extent(t) after the last: in
 * order when the first is and the elements abut (extent = size). */
static int walk_rep(MPI_Datatype t, MPI_Count n, MPI_Aint disp, walk_state *w,
                    int depth)
{
    if (n <= 0)
        return 1;
    if (!walk(t, disp, w, depth))
        return 0;
    if (n == 1)
        return 1;
    MPI_Count size, lb, ext;
    if (PMPI_Type_size_x(t, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent_x(t, &lb, &ext) != MPI_SUCCESS || ext != size)
        return 0;
    w->next += (MPI_Aint)((n - 1) * size);
    return 1;
}

static MPI_Aint extent_of(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    return PMPI_Type_get_extent(t, &lb, &ext) == MPI_SUCCESS ? ext : -1;
}

/* The decoded constructor of t, placed at disp (see the file's comment). */
static int walk_contents(int combiner, const int *ints, const MPI_Aint *addrs,
                         const MPI_Datatype *types, MPI_Aint disp,
                         walk_state *w, int depth)
{
    int ok = 1;
    MPI_Aint ext;
    switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: /* the bytes stay put; only the extent moves */
        return walk(types[0], disp, w, depth);
    case MPI_COMBINER_CONTIGUOUS:
        return walk_rep(types[0], ints[0], disp, w, depth);
    case MPI_COMBINER_VECTOR: /* count, blocklength, stride (in extents) */
        if (ints[0] > 1 && ints[2] != ints[1] && ints[1] > 0)
            return 0;
        return walk_rep(types[0], (MPI_Count)ints[0] * ints[1], disp, w, depth);
    case MPI_COMBINER_HVECTOR: /* count, blocklength; stride in bytes */
        ext = extent_of(types[0]);
        if (ints[0] > 1 && ints[1] > 0 && addrs[0] != (MPI_Aint)ints[1] * ext)
            return 0;
        return walk_rep(types[0], (MPI_Count)ints[0] * ints[1], disp, w, depth);
    case MPI_COMBINER_INDEXED: /* count, blocklengths, displacements */
        ext = extent_of(types[0]);
        for (int i = 0; ok && i < ints[0]; i++)
            ok = walk_rep(types[0], ints[1 + i],
                          disp + (MPI_Aint)ints[1 + ints[0] + i] * ext, w,
                          depth);
        return ok;
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; ok && i < ints[0]; i++)
            ok = walk_rep(types[0], ints[1 + i], disp + addrs[i], w, depth);
        return ok;
    case MPI_COMBINER_INDEXED_BLOCK: /* count, blocklength, displacements */
        ext = extent_of(types[0]);
        for (int i = 0; ok && i < ints[0]; i++)
            ok = walk_rep(types[0], ints[1],
                          disp + (MPI_Aint)ints[2 + i] * ext, w, depth);
        return ok;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; ok && i < ints[0]; i++)
            ok = walk_rep(types[0], ints[1], disp + addrs[i], w, depth);
        return ok;
    case MPI_COMBINER_STRUCT: /* count, blocklengths; displacements; types */
        for (int i = 0; ok && i < ints[0]; i++)
            ok = walk_rep(types[i], ints[1 + i], disp + addrs[i], w, depth);
        return ok;
    default: /* subarray, darray: packed */
        return 0;
    }
}

static int walk(MPI_Datatype t, MPI_Aint disp, walk_state *w, int depth)
{
    if (--w->budget < 0 || depth > WALK_DEPTH)
        return 0;
    int ni, na, nd, combiner;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return 0;
    if (is_predefined(combiner)) {
        MPI_Count size;
        if (!predefined_in_order(t, &size))
            return 0;
        if (size == 0)
            return 1;
        if (disp != w->next)
            return 0;
        w->next += (MPI_Aint)size;
        return 1;
    }
    /* Roughly a block per two integers: a type of a million blocks is
     * given up on before its contents are fetched. */
    w->budget -= ni / 2;
    if (w->budget < 0)
        return 0;
    int *ints = malloc(sizeof(int) * (size_t)(ni ? ni : 1));
    MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (size_t)(na ? na : 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd ? nd : 1));
    int ok = 0, got = 0;
    if (ints && addrs && types &&
        PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, types) ==
            MPI_SUCCESS) {
        got = 1;
        ok = walk_contents(combiner, ints, addrs, types, disp, w, depth + 1);
    }
    /* get_contents hands out new handles of the derived types it names. */
    for (int i = 0; got && i < nd; i++) {
        int a, b, c, comb;
        if (PMPI_Type_get_envelope(types[i], &a, &b, &c, &comb) ==
                MPI_SUCCESS &&
            !is_predefined(comb))
            PMPI_Type_free(&types[i]);
    }
    free(ints);
    free(addrs);
    free(types);
    return ok;
}

/* The verdict on a derived type, decoded now. */
static int derived_contiguous(MPI_Datatype t)
{
    MPI_Count size, lb, ext;
    if (PMPI_Type_size_x(t, &size) != MPI_SUCCESS ||
        PMPI_Type_get_extent_x(t, &lb, &ext) != MPI_SUCCESS)
        return 0;
    if (size == 0)
        return 1; /* no data: nothing to pack */
    if (lb != 0 || ext != size)
        return 0;
    walk_state w = {0, WALK_BUDGET};
    return walk(t, 0, &w, 0) && w.next == (MPI_Aint)size;
}

int kcoll_layout_of(MPI_Datatype type, size_t count, kcoll_layout *out)
{
    out->type = type;
    out->count = count;
    if (type == MPI_DATATYPE_NULL)
        return MPI_ERR_TYPE;
    if (plain_predefined(type)) {
        if (PMPI_Type_size_x(type, &out->size) != MPI_SUCCESS)
            return MPI_ERR_TYPE;
        out->extent = (MPI_Aint)out->size;
        out->contiguous = 1;
        return MPI_SUCCESS;
    }
    pthread_once(&once, init); /* the keyval of the cached verdicts */
    MPI_Aint lb;
    if (PMPI_Type_size_x(type, &out->size) != MPI_SUCCESS ||
        out->size == MPI_UNDEFINED ||
        PMPI_Type_get_extent(type, &lb, &out->extent) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    /* Cached verdicts: 1 not contiguous, 2 contiguous (0 is "none"). */
    void *val = NULL;
    int found = 0;
    if (verdict_keyval != MPI_KEYVAL_INVALID &&
        PMPI_Type_get_attr(type, verdict_keyval, &val, &found) == MPI_SUCCESS &&
        found) {
        out->contiguous = (intptr_t)val == 2;
        return MPI_SUCCESS;
    }
    int ni, na, nd, combiner;
    if (PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return MPI_ERR_TYPE;
    if (is_predefined(combiner)) {
        MPI_Count size;
        out->contiguous = predefined_in_order(type, &size);
        return MPI_SUCCESS;
    }
    out->contiguous = derived_contiguous(type);
    /* No attribute on predefined types (above): only derived ones get it. */
    if (verdict_keyval != MPI_KEYVAL_INVALID)
        PMPI_Type_set_attr(type, verdict_keyval,
                           (void *)(intptr_t)(out->contiguous ? 2 : 1));
    return MPI_SUCCESS;
}

/* An address offset from a buffer that may be MPI_BOTTOM (address 0, with
 * absolute displacements in the type): integer arithmetic, no pointer
 * arithmetic on a null pointer. */
static void *at(const void *base, MPI_Aint off)
{
    return (void *)((uintptr_t)base + (uintptr_t)off);
}

/* Elements too large for one MPI_Pack: each alone, sent to this process
 * on kcoll's private communicator and received as its bytes (the same
 * homogeneous representation kcoll's copies rely on). */
static int self_copy(kcoll_comm *c, const kcoll_layout *l, const void *from,
                     void *to, int packing)
{
    MPI_Datatype bytes;
    int bcount;
    KCOLL_TRY(kcoll_bytes_type((size_t)l->size, kcoll_mpi_max_count,
                               kcoll_mpi_piece, &bytes, &bcount));
    int rc = MPI_SUCCESS;
    for (size_t i = 0; rc == MPI_SUCCESS && i < l->count; i++) {
        MPI_Aint e = (MPI_Aint)i * l->extent, b = (MPI_Aint)(i * (size_t)l->size);
        if (packing)
            rc = PMPI_Sendrecv(at(from, e), 1, l->type, c->rank, PACK_TAG,
                               at(to, b), bcount, bytes, c->rank, PACK_TAG,
                               c->comm, MPI_STATUS_IGNORE);
        else
            rc = PMPI_Sendrecv(at(from, b), bcount, bytes, c->rank, PACK_TAG,
                               at(to, e), 1, l->type, c->rank, PACK_TAG,
                               c->comm, MPI_STATUS_IGNORE);
    }
    kcoll_bytes_type_free(&bytes);
    return rc;
}

int kcoll_layout_pack(kcoll_comm *c, const kcoll_layout *l, const void *buf,
                      void *out)
{
    pthread_once(&once, init);
    if (l->count == 0 || l->size == 0)
        return MPI_SUCCESS;
    if ((size_t)l->size > kcoll_pack_limit)
        return self_copy(c, l, buf, out, 1);
    size_t per = kcoll_pack_limit / (size_t)l->size;
    for (size_t i = 0; i < l->count; i += per) {
        size_t k = l->count - i < per ? l->count - i : per;
        int pos = 0;
        KCOLL_TRY(PMPI_Pack(at(buf, (MPI_Aint)i * l->extent), (int)k, l->type,
                            at(out, (MPI_Aint)(i * (size_t)l->size)),
                            (int)(k * (size_t)l->size), &pos, c->comm));
    }
    return MPI_SUCCESS;
}

int kcoll_layout_unpack(kcoll_comm *c, const kcoll_layout *l, const void *in,
                        void *buf)
{
    pthread_once(&once, init);
    if (l->count == 0 || l->size == 0)
        return MPI_SUCCESS;
    if ((size_t)l->size > kcoll_pack_limit)
        return self_copy(c, l, in, buf, 0);
    size_t per = kcoll_pack_limit / (size_t)l->size;
    for (size_t i = 0; i < l->count; i += per) {
        size_t k = l->count - i < per ? l->count - i : per;
        int pos = 0;
        KCOLL_TRY(PMPI_Unpack(at(in, (MPI_Aint)(i * (size_t)l->size)),
                              (int)(k * (size_t)l->size), &pos,
                              at(buf, (MPI_Aint)i * l->extent), (int)k,
                              l->type, c->comm));
    }
    return MPI_SUCCESS;
}
