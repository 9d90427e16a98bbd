/* staging: the shared-memory area copy_in_out (bcast.c) copies through.
 *
 * Why a copy through shared memory at all: below a few tens of KiB a CMA
 * call's start-up (α, a system call that looks up the other process and
 * pins its pages) is most of the call, 1-2 µs on the machines kcal was
 * measured on, while two copies of 16 KiB through the cache take a few
 * tenths of a µs. The MPI library's eager path does the same for the
 * smallest messages (Open MPI's vader up to 4 KiB), and XHC (Open MPI's
 * coll/xhc) copies in and out of a shared buffer below its CMA/XPMEM
 * threshold, in pipelined chunks.
 *
 * The area lives in an MPI-3 shared window allocated by rank 0 of the
 * communicator's private duplicate, as the flags' slots: on one node every
 * process maps it. KCAL_STAGING_SLOTS × KCAL_STAGING_CHUNK bytes (model.h,
 * which the model's row uses too). */
#include <string.h>

#include "kcoll_impl.h"

int kcoll_staging_get(kcoll_comm *c)
{
    if (c->staging)
        return MPI_SUCCESS;
    MPI_Aint size = c->rank == 0 ? (MPI_Aint)KCAL_STAGING_SLOTS *
                                       (MPI_Aint)KCAL_STAGING_CHUNK
                                 : 0;
    void *mine = NULL;
    KCOLL_TRY(MPI_Win_allocate_shared(size, 1, MPI_INFO_NULL, c->comm, &mine,
                                      &c->staging_win));
    MPI_Aint got = 0;
    int disp = 0;
    void *base = NULL;
    int rc = MPI_Win_shared_query(c->staging_win, 0, &got, &disp, &base);
    if (rc == MPI_SUCCESS && got < size)
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        MPI_Win_free(&c->staging_win);
        return rc;
    }
    c->staging = base;
    c->staging_seq = 0;
    return MPI_SUCCESS;
}

void kcoll_staging_free(kcoll_comm *c, int finalizing)
{
    if (c->staging && !finalizing)
        MPI_Win_free(&c->staging_win);
    c->staging = NULL;
}
