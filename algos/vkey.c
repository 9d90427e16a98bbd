/* vkey: the agreed size class of a per-pair v-collective's verified
 * calls (vkey.h says why and how often). */
#include <math.h>

#include "algos/vkey.h"
#include "algos/irregular.h"

uint64_t kcoll_vkey_mine(int v, const size_t *scounts, size_t scount,
                         const size_t *rcounts, size_t rcount, int root,
                         int me, int p)
{
    uint64_t most = 0;
    const size_t *many = NULL;
    if (v == KCOLL_VCOLL_SCATTERV)
        many = me == root ? scounts : NULL, most = me == root ? 0 : rcount;
    else if (v == KCOLL_VCOLL_GATHERV)
        many = me == root ? rcounts : NULL, most = me == root ? 0 : scount;
    else
        many = rcounts;
    /* allgatherv: every block, its own too (every rank knows them all) */
    for (int i = 0; many && i < p; i++)
        if ((i != me || v == KCOLL_VCOLL_ALLGATHERV) && many[i] > most)
            most = many[i];
    for (int i = 0; v == KCOLL_VCOLL_ALLTOALLV && scounts && i < p; i++)
        if (i != me && scounts[i] > most)
            most = scounts[i];
    return most;
}

/* The most calls between agreements for calls of call_s seconds. */
static uint64_t most_apart(double call_s)
{
    if (!(call_s > 0))
        return KCOLL_VKEY_EVERY;
    double n = ceil(KCOLL_VKEY_SPAN / call_s);
    return n < 1 ? 1 : n > KCOLL_VKEY_EVERY ? KCOLL_VKEY_EVERY : (uint64_t)n;
}

int kcoll_vkey_agree(kcoll_comm *c, int v, uint64_t mine, double call_s,
                     uint64_t *key)
{
    kcoll_vkey *k = &c->vkey[v];
    k->calls++;
    if (mine != k->mine)
        k->changed = 1;
    if (k->next && k->calls < k->next) {
        *key = k->key;
        return MPI_SUCCESS;
    }
    uint64_t in[2] = {mine, (uint64_t)k->changed}, out[2];
    KCOLL_TRY(MPI_Allreduce(in, out, 2, MPI_UINT64_T, MPI_MAX, c->comm));
    int moved = out[1] != 0 || out[0] != k->key;
    uint64_t most = most_apart(call_s);
    k->every = moved || !k->every ? 1
               : 2 * k->every > most ? most : 2 * k->every;
    k->next = k->calls + k->every;
    k->key = out[0];
    k->mine = mine;
    k->changed = 0;
    *key = k->key;
    return MPI_SUCCESS;
}

void kcoll_vkey_note(kcoll_comm *c, int v, uint64_t key)
{
    c->vkey[v].key = key;
}

uint64_t kcoll_vkey_last(const kcoll_comm *c, int v)
{
    return c->vkey[v].key;
}
