/* interpose_check's modes on errors: --mode errors, fatal, strict,
 * strict-fatal, and attr, attr-fatal (attributes whose copy callbacks
 * refuse); tests/interpose_check.c says what each checks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tests/interpose_check.h"

/* ---- errors --------------------------------------------------------------- */

static int handler_calls, handler_code;

static void on_error(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

static int error_class(int rc)
{
    int cls = rc;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return cls;
}

int errors(void)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    char buf[64] = {0}, all[4096];
    int bad = 0, root = world_size; /* one past the last rank */
    int rc = MPI_Bcast(buf, 8, MPI_BYTE, root, comm);
    bad += error_class(rc) != MPI_ERR_ROOT;
    rc = MPI_Scatter(all, 8, MPI_BYTE, buf, 8, MPI_BYTE, root, comm);
    bad += error_class(rc) != MPI_ERR_ROOT;
    rc = MPI_Gather(buf, 8, MPI_BYTE, all, 8, MPI_BYTE, -2, comm);
    bad += error_class(rc) != MPI_ERR_ROOT;
    rc = MPI_Allgather(buf, -1, MPI_BYTE, all, -1, MPI_BYTE, comm);
    bad += error_class(rc) != MPI_ERR_COUNT;
    /* The reductions (each wrong alike at every process: a process that
     * alone is wrong would leave the others waiting in kcoll). */
    int ibuf[4] = {0}, iout[4 * 64];
    rc = MPI_Reduce(ibuf, iout, 4, MPI_INT, MPI_SUM, root, comm);
    bad += error_class(rc) != MPI_ERR_ROOT;
#ifdef OPEN_MPI
    rc = MPI_Allreduce(ibuf, iout, -1, MPI_INT, MPI_SUM, comm);
    bad += error_class(rc) != MPI_ERR_COUNT;
#else /* MPICH 4.0 does not check a reduction's count (it crashes) */
    rc = MPI_Allreduce(ibuf, iout, 4, MPI_INT, MPI_OP_NULL, comm);
    bad += error_class(rc) != MPI_ERR_OP;
#endif
    /* Both libraries check the op against the type first. */
    rc = MPI_Allreduce(ibuf, iout, 4, MPI_DATATYPE_NULL, MPI_SUM, comm);
    bad += error_class(rc) != MPI_ERR_TYPE && error_class(rc) != MPI_ERR_OP;
    /* Open MPI 4.1 reports this one through MPI_COMM_WORLD's handler. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Allreduce(ibuf, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, comm);
    bad += rc == MPI_SUCCESS;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    rc = MPI_Reduce_scatter_block(iout, ibuf, 1, MPI_INT, MPI_OP_NULL, comm);
    bad += error_class(rc) != MPI_ERR_OP;
    /* The v-collectives (wrong alike at every process as well). */
    int cnt[64], dsp[64];
    for (int i = 0; i < 64; i++) {
        cnt[i] = 8;
        dsp[i] = 8 * i;
    }
    rc = MPI_Scatterv(all, cnt, dsp, MPI_BYTE, buf, 8, MPI_BYTE, root, comm);
    bad += error_class(rc) != MPI_ERR_ROOT;
    rc = MPI_Gatherv(buf, 8, MPI_BYTE, all, cnt, dsp, MPI_BYTE, -2, comm);
    bad += error_class(rc) != MPI_ERR_ROOT;
    rc = MPI_Allgatherv(buf, 8, MPI_DATATYPE_NULL, all, cnt, dsp,
                        MPI_DATATYPE_NULL, comm);
    bad += error_class(rc) != MPI_ERR_TYPE;
#ifdef OPEN_MPI
    rc = MPI_Alltoallv(all, cnt, dsp, MPI_BYTE, all + 2048, cnt, dsp, MPI_BYTE,
                       comm);
    bad += rc != MPI_SUCCESS; /* (right, for the table's count) */
    cnt[0] = -1;
    rc = MPI_Alltoallv(all, cnt, dsp, MPI_BYTE, all + 2048, cnt, dsp, MPI_BYTE,
                       comm);
    bad += error_class(rc) != MPI_ERR_COUNT;
    cnt[0] = 8;
#else
    rc = MPI_Alltoallv(all, cnt, dsp, MPI_BYTE, all + 2048, cnt, dsp,
                       MPI_BYTE, comm);
    bad += rc != MPI_SUCCESS;
    rc = MPI_Alltoallv(all, cnt, dsp, MPI_DATATYPE_NULL, all + 2048, cnt, dsp,
                       MPI_DATATYPE_NULL, comm);
    bad += error_class(rc) != MPI_ERR_TYPE;
#endif
    /* still usable afterwards */
    rc = MPI_Bcast(buf, 8, MPI_BYTE, 0, comm);
    bad += rc != MPI_SUCCESS;
    ibuf[0] = 1;
    rc = MPI_Allreduce(ibuf, iout, 1, MPI_INT, MPI_SUM, comm);
    bad += rc != MPI_SUCCESS || iout[0] != world_size;
    MPI_Comm_free(&comm);
    printf("errors: rank %d: %d wrong\n", world_rank, bad);
    return bad != 0;
}

int fatal(void)
{
    char buf[8] = {0};
    MPI_Bcast(buf, 8, MPI_BYTE, world_size, MPI_COMM_WORLD);
    printf("survived\n");
    return 0;
}

int strict(int fatal_handler)
{
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Errhandler eh;
    if (!fatal_handler) {
        MPI_Comm_create_errhandler(on_error, &eh);
        MPI_Comm_set_errhandler(comm, eh);
    }
    static char sbuf[1 << 16], rbuf[1 << 16];
    int calls = 0, errs = 0, cls = MPI_SUCCESS, n = 1024;
    int rcs[12], *cnt = malloc(sizeof(int) * 2 * (size_t)world_size);
    int *dsp = cnt + world_size;
    for (int i = 0; i < world_size; i++) {
        cnt[i] = n / 64;
        dsp[i] = i * (n / 64);
    }
    rcs[0] = MPI_Bcast(rbuf, n, MPI_BYTE, 0, comm);
    rcs[1] = MPI_Scatter(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, 0, comm);
    rcs[2] = MPI_Gather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, 0, comm);
    rcs[3] = MPI_Allgather(sbuf, n, MPI_BYTE, rbuf, n, MPI_BYTE, comm);
    rcs[4] = MPI_Alltoall(sbuf, n / 8, MPI_BYTE, rbuf, n / 8, MPI_BYTE, comm);
    rcs[5] = MPI_Reduce(sbuf, rbuf, n / 4, MPI_INT, MPI_SUM, 0, comm);
    rcs[6] = MPI_Allreduce(sbuf, rbuf, n / 4, MPI_INT, MPI_SUM, comm);
    rcs[7] = MPI_Reduce_scatter_block(sbuf, rbuf, n / 32, MPI_INT, MPI_SUM,
                                      comm);
    rcs[8] = MPI_Scatterv(sbuf, cnt, dsp, MPI_BYTE, rbuf, n / 64, MPI_BYTE, 0,
                          comm);
    rcs[9] = MPI_Gatherv(sbuf, n / 64, MPI_BYTE, rbuf, cnt, dsp, MPI_BYTE, 0,
                         comm);
    rcs[10] = MPI_Allgatherv(sbuf, n / 64, MPI_BYTE, rbuf, cnt, dsp,
                             MPI_BYTE, comm);
    rcs[11] = MPI_Alltoallv(sbuf, cnt, dsp, MPI_BYTE, rbuf, cnt, dsp,
                            MPI_BYTE, comm);
    free(cnt);
    for (int i = 0; i < 12; i++) {
        calls++;
        if (rcs[i] != MPI_SUCCESS) {
            errs++;
            cls = error_class(rcs[i]);
        }
    }
    printf("strict: calls %d errors %d class %s handler %d last %s\n", calls,
           errs, cls == MPI_ERR_OTHER ? "MPI_ERR_OTHER" : "other",
           handler_calls,
           handler_calls && handler_code == rcs[11] ? "same" : "different");
    if (!fatal_handler)
        MPI_Errhandler_free(&eh);
    MPI_Comm_free(&comm);
    return 0;
}

/* ---- attributes of the program's own ----------------------------------- */

static int copies;

static int copy_refuse(MPI_Comm comm, int keyval, void *extra, void *in,
                       void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra, (void)in, (void)out;
    copies++;
    *flag = 0;
    return MPI_ERR_OTHER;
}

static int copy_accept(MPI_Comm comm, int keyval, void *extra, void *in,
                       void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static unsigned char attr_byte(int owner, size_t i)
{
    return (unsigned char)(owner * 31 + i * 7 + 1);
}

/* The five collectives on comm, 64 KiB blocks, root p - 1: each must
 * return MPI_SUCCESS and leave exactly the bytes MPI says. */
static int attr_calls(MPI_Comm comm)
{
    const size_t n = 64 << 10;
    int p = world_size, me = world_rank, root = p - 1, wrong = 0;
    unsigned char *s = malloc(n * (size_t)p), *r = malloc(n * (size_t)p);
    if (!s || !r)
        return 1;
    int cnt = (int)n;
    for (int coll = 0; coll < NCOLL; coll++) {
        for (size_t i = 0; i < n * (size_t)p; i++) {
            /* block b of the send side: what this process sends rank b
             * (alltoall), or the root's block b (scatter) */
            s[i] = attr_byte(coll == ALLTOALL ? me * p + (int)(i / n)
                                              : coll == SCATTER ? (int)(i / n)
                                                                : me,
                             i % n);
            r[i] = 0;
        }
        int rc;
        switch (coll) {
        case BCAST:
            if (me == root)
                memcpy(r, s, n);
            rc = MPI_Bcast(r, cnt, MPI_BYTE, root, comm);
            break;
        case SCATTER:
            rc = MPI_Scatter(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, root, comm);
            break;
        case GATHER:
            rc = MPI_Gather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, root, comm);
            break;
        case ALLGATHER:
            rc = MPI_Allgather(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, comm);
            break;
        default:
            rc = MPI_Alltoall(s, cnt, MPI_BYTE, r, cnt, MPI_BYTE, comm);
            break;
        }
        size_t blocks = coll == BCAST || coll == SCATTER ? 1
                        : coll == GATHER && me != root ? 0
                                                       : (size_t)p;
        int bad = rc != MPI_SUCCESS;
        for (size_t i = 0; !bad && i < blocks * n; i++) {
            int b = (int)(i / n);
            int owner = coll == BCAST     ? root
                        : coll == SCATTER ? me
                        : coll == ALLTOALL ? b * p + me
                                           : b;
            bad = r[i] != attr_byte(owner, i % n);
        }
        if (bad) {
            wrong++;
            fail("%s on a communicator with an attribute: rc %s%d",
                 coll_names[coll], "", rc, 0);
        }
    }
    free(s);
    free(r);
    return wrong;
}

int attr(int fatal_handler)
{
    int wrong = 0;
    for (int accept = 0; accept < 2; accept++) {
        MPI_Comm comm;
        int keyval;
        static int value = 42;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        MPI_Comm_create_keyval(accept ? copy_accept : copy_refuse,
                               MPI_COMM_NULL_DELETE_FN, &keyval, NULL);
        MPI_Comm_set_attr(comm, keyval, &value);
        if (!fatal_handler)
            MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        /* Twice: the first call builds libkcoll's state, the second uses it. */
        wrong += attr_calls(comm);
        wrong += attr_calls(comm);
        MPI_Comm_free(&comm);
        MPI_Comm_free_keyval(&keyval);
    }
    printf("attr: rank %d: %d wrong, copies %d\n", world_rank, wrong, copies);
    return wrong != 0 || copies != 0;
}
