/* staging: the shared-memory areas the copy_in_out algorithms of all five
 * collectives copy through.
 *
 * Why a copy through shared memory at all: below a few tens of KiB a CMA
 * call's start-up (α, a system call that looks up the other process and
 * pins its pages) is most of the call, while two copies of 16 KiB through
 * the cache cost a fraction of it (docs/machine.md, "copy_in_out: all
 * five collectives" and "bcast"). The MPI library's eager path does the same for the
 * smallest messages (Open MPI's vader up to 4 KiB), and XHC (Open MPI's
 * coll/xhc) copies in and out of a shared buffer below its CMA/XPMEM
 * threshold, in pipelined chunks.
 *
 * What it costs is not fixed: each chunk is written by one core and read
 * by another, so its lines move between the two cores' caches, and on a
 * virtual machine the host decides how far apart the two vCPUs run and
 * changes it from one minute to the next (scripts/bench-coherence: a
 * 16 KiB chunk passed in 2.3 µs to 87 µs within 37 s on the Zen 5 guest,
 * median 4.6, while the same copies on one core stayed at 0.3 µs;
 * docs/machine.md "Chunks passed between cores"). The CMA algorithms,
 * one copy each, barely move with it. That is why the model's price for
 * these algorithms can be right at probe time and 4-5x wrong later, and
 * why libkcoll verifies its choice while the program runs (verify.h).
 *
 * Every process owns one area, which only it copies into: the root's for
 * bcast and scatter, each source's own for gather (the sources fill theirs
 * at once while the root drains them one after another), every process's
 * for allgather and alltoall. The areas are
 * the segments of one MPI-3 shared window on the communicator's private
 * communicator, as the flags' slots: on one node every process maps all of
 * them. KCAL_STAGING_SLOTS × KCAL_STAGING_CHUNK bytes each (model.h, which
 * the model's rows use too). */
#include <stdlib.h>
#include <string.h>

#include "algos/kcoll_impl.h"

int kcoll_staging_get(kcoll_comm *c)
{
    if (c->staging)
        return MPI_SUCCESS;
    MPI_Aint size = (MPI_Aint)KCAL_STAGING_SLOTS * (MPI_Aint)KCAL_STAGING_CHUNK;
    char **area = calloc((size_t)c->size, sizeof *area);
    unsigned char *readers = calloc((size_t)c->size, 1);
    if (!area || !readers) {
        free(area);
        free(readers);
        return MPI_ERR_NO_MEM; /* the same on every process: no window yet */
    }
    void *mine = NULL;
    int rc = MPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, c->comm, &mine,
                                     &c->staging_win);
    if (rc != MPI_SUCCESS) {
        free(area);
        free(readers);
        return rc;
    }
    for (int r = 0; r < c->size && rc == MPI_SUCCESS; r++) {
        MPI_Aint got = 0;
        int disp = 0;
        void *base = NULL;
        rc = MPI_Win_shared_query(c->staging_win, r, &got, &disp, &base);
        if (rc == MPI_SUCCESS && got < size)
            rc = MPI_ERR_NO_MEM;
        area[r] = base;
    }
    if (rc != MPI_SUCCESS) {
        MPI_Win_free(&c->staging_win);
        free(area);
        free(readers);
        return rc;
    }
    c->staging = area;
    c->staging_readers = readers;
    c->staging_wseq = 0;
    c->staging_all = 1;
    return MPI_SUCCESS;
}

void kcoll_staging_free(kcoll_comm *c, int finalizing)
{
    if (c->staging && !finalizing)
        MPI_Win_free(&c->staging_win);
    free(c->staging);
    free(c->staging_readers);
    c->staging = NULL;
    c->staging_readers = NULL;
}

int kcoll_staging_ready(kcoll_comm *c)
{
    KCOLL_TRY(kcoll_flags_get(c));
    return kcoll_staging_get(c);
}

int kcoll_staging_enter(kcoll_comm *c, size_t n, uint64_t per_chunk,
                        uint64_t extra, uint64_t *m)
{
    KCOLL_TRY(kcoll_staging_ready(c));
    uint64_t chunks = n / KCAL_STAGING_CHUNK + (n % KCAL_STAGING_CHUNK != 0);
    /* The progress word's 24 bits; the same verdict on every process. */
    if (chunks * per_chunk + extra >= KCOLL_PROGRESS_DONE)
        return MPI_ERR_COUNT;
    *m = chunks;
    return MPI_SUCCESS;
}

int kcoll_staging_enter_rooted(kcoll_comm *c, size_t n, int root,
                               uint64_t *m, uint64_t *first)
{
    int p = c->size;
    /* The root's counter runs over every block's chunks. */
    KCOLL_TRY(kcoll_staging_enter(c, n, (uint64_t)(p - 1), 0, m));
    *first = (uint64_t)((c->rank - root + p - 1) % p) * *m;
    return MPI_SUCCESS;
}

/* Wait for the readers of this process's last write into its area. Each
 * reader flags DONE at the end of its part of a call, and its parts of
 * earlier calls ended before; a process that read nothing of that call
 * is not waited for (it may never flag it: the rooted v-collectives'
 * pairs that were not staged, vstaged.c). */
static void wait_readers(kcoll_comm *c)
{
    for (int r = 0; r < c->size && c->staging_wseq; r++)
        if (r != c->rank && (c->staging_all || c->staging_readers[r]))
            kcoll_flag_wait_progress(c, r, c->staging_wseq,
                                     KCOLL_PROGRESS_DONE);
    c->staging_wseq = c->seq;
}

void kcoll_staging_wait_free(kcoll_comm *c)
{
    wait_readers(c);
    c->staging_all = 1;
}

unsigned char *kcoll_staging_wait_free_some(kcoll_comm *c)
{
    wait_readers(c);
    c->staging_all = 0;
    memset(c->staging_readers, 0, (size_t)c->size);
    return c->staging_readers;
}

size_t kcoll_staging_chunk_len(size_t n, uint64_t i)
{
    size_t at = (size_t)i * KCAL_STAGING_CHUNK;
    return n - at < KCAL_STAGING_CHUNK ? n - at : KCAL_STAGING_CHUNK;
}

char *kcoll_staging_slot(const kcoll_comm *c, int owner, uint64_t i)
{
    return c->staging[owner] + (i % KCAL_STAGING_SLOTS) * KCAL_STAGING_CHUNK;
}

void kcoll_staging_drain(kcoll_comm *c, int owner, uint64_t first, uint64_t m,
                         char *dst, size_t n, uint64_t done)
{
    for (uint64_t i = 0; i < m; i++) {
        kcoll_flag_wait_progress(c, owner, c->seq, first + i + 1);
        kcal_copy(dst + i * KCAL_STAGING_CHUNK,
                  kcoll_staging_slot(c, owner, first + i),
                  kcoll_staging_chunk_len(n, i));
        kcoll_flag_progress(c, done + i + 1);
    }
}
