/* vargs: what a v-collective's entry point (irregular.c) resolves in
 * its arguments before an algorithm sees them (irregular.h): receive
 * regions that overlap, which MPI forbids, divert this process's data to
 * a packed scratch buffer so the call still completes on every rank and
 * this one returns MPI_ERR_ARG. */
#include <stdlib.h>

#include "algos/irregular.h"

typedef struct {
    size_t start, end;
} vregion;

static int by_start(const void *x, const void *y)
{
    const vregion *a = x, *b = y;
    return (a->start > b->start) - (a->start < b->start);
}

/* Whether any two of the p regions (displs[i], counts[i]) with bytes in
 * them overlap, or one's end overflows. */
static int overlapping(const size_t *counts, const size_t *displs, int p)
{
    /* Regions in ascending order, each ending before the next begins (the
     * usual layout): no sort, no allocation. */
    size_t end = 0;
    int i = 0;
    for (; i < p; i++) {
        if (!counts[i])
            continue;
        if (displs[i] < end ||
            __builtin_add_overflow(displs[i], counts[i], &end))
            break;
    }
    if (i == p)
        return 0;
    vregion *order = malloc(sizeof *order * (size_t)p);
    if (!order)
        return -1;
    int m = 0;
    for (int r = 0; r < p; r++) {
        if (!counts[r])
            continue;
        order[m].start = displs[r];
        if (__builtin_add_overflow(displs[r], counts[r], &order[m].end)) {
            free(order);
            return 1;
        }
        m++;
    }
    qsort(order, (size_t)m, sizeof *order, by_start);
    int bad = 0;
    for (int r = 1; r < m && !bad; r++)
        bad = order[r].start < order[r - 1].end;
    free(order);
    return bad;
}

void kcoll_vspare_free(kcoll_vspare *s)
{
    free(s->displs);
    free(s->buf);
}

int kcoll_v_packed(const size_t *counts, int p, size_t **displs,
                   size_t *total)
{
    size_t *d = malloc(sizeof *d * (size_t)p), t = 0;
    if (!d)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < p; i++) {
        d[i] = t;
        if (__builtin_add_overflow(t, counts[i], &t)) {
            free(d);
            return MPI_ERR_COUNT;
        }
    }
    *displs = d;
    *total = t;
    return MPI_SUCCESS;
}

/* Overlapping receive regions: this process receives into a packed
 * scratch buffer instead (its recvbuf untouched) and will return
 * MPI_ERR_ARG; *bad says so. */
int kcoll_v_divert(kcoll_vargs *a, int p, kcoll_vspare *s, int *bad)
{
    int o = overlapping(a->rcounts, a->rdispls, p);
    if (o < 0)
        return MPI_ERR_NO_MEM;
    if (!o)
        return MPI_SUCCESS;
    size_t total;
    KCOLL_TRY(kcoll_v_packed(a->rcounts, p, &s->displs, &total));
    if (!(s->buf = malloc(total ? total : 1)))
        return MPI_ERR_NO_MEM;
    a->recvbuf = s->buf;
    a->rdispls = s->displs;
    *bad = MPI_ERR_ARG;
    return MPI_SUCCESS;
}
