"""interpose_mpi4py: the five collectives and the three reductions from Python
(Debian's python3-mpi4py, uppercase buffer methods) on NumPy arrays of several
dtypes, checked against the values they must hold, for
tests/interpose_python.sh, which runs it under the interposer
(libkcoll_pmpi.so). mpi4py calls MPI_Bcast ... MPI_Alltoall, MPI_Allreduce,
MPI_Reduce and MPI_Reduce_scatter_block of the C library with the MPI type of
each dtype. The v-collectives: a distributed 2-D FFT whose transpose is
comm.Alltoallv (rows split unevenly, some ranks with none), checked element
for element against the transposed array and, within rounding, against
NumPy's fft2; and comm.Allgatherv of blocks of different lengths, in place
and not. Also comm.allreduce on Python objects, which in mpi4py 3 is no
MPI_Allreduce (see below).

Rank 0 prints "expect <coll> kcoll <calls>" (p > 1) and
"interpose_mpi4py p=P: N checks, F failed"."""
import sys

import mpi4py
import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, p = comm.Get_rank(), comm.Get_size()
calls = {c: 0 for c in ("bcast", "scatter", "gather", "allgather", "alltoall",
                        "allreduce", "reduce", "reduce_scatter_block",
                        "alltoallv", "allgatherv")}
checks = failed = 0


def check(ok, what):
    global checks, failed
    checks += 1
    if not ok:
        failed += 1
        if failed <= 10:
            print(f"interpose_mpi4py: FAIL rank {rank}: {what}", file=sys.stderr)


def values(dtype, owner, block, n):
    """What rank owner's block holds: distinct per owner, block and element."""
    x = np.arange(n, dtype=np.int64) + 1000 * block + 100000 * owner
    if np.dtype(dtype).kind == "c":
        return (x + 0.5j * x).astype(dtype)
    return (x % 251 if np.dtype(dtype).itemsize == 1 else x).astype(dtype)


for dtype in (np.float64, np.float32, np.int32, np.int64, np.uint8, np.complex128):
    for n in (1, 700, 9000):
        for root in sorted({0, p - 1}):
            for in_place in (False, True):
                what = f"{np.dtype(dtype).name} n={n} root={root}{' in place' if in_place else ''}"
                # Bcast
                buf = values(dtype, root, 0, n) if rank == root else np.zeros(n, dtype)
                comm.Bcast(buf, root=root)
                calls["bcast"] += 1
                check(np.array_equal(buf, values(dtype, root, 0, n)), "Bcast " + what)
                # Scatter: block b of the root's array to rank b
                send = np.concatenate([values(dtype, root, b, n) for b in range(p)]) if rank == root else None
                recv = np.zeros(n, dtype)
                if in_place and rank == root:
                    comm.Scatter(send, MPI.IN_PLACE, root=root)
                    check(np.array_equal(send[root * n:(root + 1) * n], values(dtype, root, root, n)), "Scatter " + what)
                else:
                    comm.Scatter(send, recv, root=root)
                    check(np.array_equal(recv, values(dtype, root, rank, n)), "Scatter " + what)
                calls["scatter"] += 1
                # Gather: rank b's block to block b at the root
                mine = values(dtype, rank, 0, n)
                recv = np.zeros(n * p, dtype) if rank == root else None
                if in_place and rank == root:
                    recv[root * n:(root + 1) * n] = mine
                    comm.Gather(MPI.IN_PLACE, recv, root=root)
                else:
                    comm.Gather(mine, recv, root=root)
                calls["gather"] += 1
                if rank == root:
                    want = np.concatenate([values(dtype, b, 0, n) for b in range(p)])
                    check(np.array_equal(recv, want), "Gather " + what)
                # Allgather
                recv = np.zeros(n * p, dtype)
                if in_place:
                    recv[rank * n:(rank + 1) * n] = mine
                    comm.Allgather(MPI.IN_PLACE, recv)
                else:
                    comm.Allgather(mine, recv)
                calls["allgather"] += 1
                want = np.concatenate([values(dtype, b, 0, n) for b in range(p)])
                check(np.array_equal(recv, want), "Allgather " + what)
                # Alltoall: block b of rank r to block r of rank b
                send = np.concatenate([values(dtype, rank, b, n) for b in range(p)])
                if in_place:
                    recv = send.copy()
                    comm.Alltoall(MPI.IN_PLACE, recv)
                else:
                    recv = np.zeros(n * p, dtype)
                    comm.Alltoall(send, recv)
                calls["alltoall"] += 1
                want = np.concatenate([values(dtype, b, rank, n) for b in range(p)])
                check(np.array_equal(recv, want), "Alltoall " + what)


def fold(arrays, op):
    """The reduction MPI defines, elementwise (integers wrap as in C)."""
    stack = np.stack(arrays)
    return stack.max(axis=0) if op == MPI.MAX else stack.sum(axis=0, dtype=stack.dtype)


def small(a):
    """Open MPI 4.1.4's MPI_SUM on MPI_UNSIGNED_CHAR saturates (its AVX op,
    on vectors) where C wraps: uint8 sums stay below 256 (p <= 4)."""
    return a % 64 if a.itemsize == 1 else a


# Values are integers, so every order of a float sum is exact.
for dtype in (np.float64, np.float32, np.int32, np.int64, np.uint8, np.complex128):
    ops = (MPI.SUM,) if np.dtype(dtype).kind == "c" else (MPI.SUM, MPI.MAX)
    for n in (1, 700, 9000):
        for op in ops:
            for in_place in (False, True):
                what = f"{np.dtype(dtype).name} n={n} {'MAX' if op == MPI.MAX else 'SUM'}{' in place' if in_place else ''}"
                mine = small(values(dtype, rank, 0, n))
                want = fold([small(values(dtype, r, 0, n)) for r in range(p)], op)
                # Allreduce
                if in_place:
                    recv = mine.copy()
                    comm.Allreduce(MPI.IN_PLACE, recv, op=op)
                else:
                    recv = np.zeros(n, dtype)
                    comm.Allreduce(mine, recv, op=op)
                calls["allreduce"] += 1
                check(np.array_equal(recv, want), "Allreduce " + what)
                # Reduce to p-1 (in place: the root's option alone)
                root = p - 1
                recv = np.zeros(n, dtype) if rank == root else None
                if in_place and rank == root:
                    recv[:] = mine
                    comm.Reduce(MPI.IN_PLACE, recv, op=op, root=root)
                else:
                    comm.Reduce(mine, recv, op=op, root=root)
                calls["reduce"] += 1
                if rank == root:
                    check(np.array_equal(recv, want), "Reduce " + what)
                # Reduce_scatter_block: rank b gets block b of the fold
                send = np.concatenate([small(values(dtype, rank, b, n)) for b in range(p)])
                want = fold([small(values(dtype, r, rank, n)) for r in range(p)], op)
                if in_place:
                    recv = send.copy()
                    comm.Reduce_scatter_block(MPI.IN_PLACE, recv, op=op)
                    recv = recv[:n]
                else:
                    recv = np.zeros(n, dtype)
                    comm.Reduce_scatter_block(send, recv, op=op)
                calls["reduce_scatter_block"] += 1
                check(np.array_equal(recv, want), "Reduce_scatter_block " + what)


def split(n):
    """Rows (or columns) [start, stop) of each rank: n split as evenly as it
    goes, the first ranks one more (ranks beyond n get none)."""
    q, r = divmod(n, p)
    starts = [b * q + min(b, r) for b in range(p + 1)]
    return [(starts[b], starts[b + 1]) for b in range(p)]


def global_array(n0, n1, dtype):
    """The whole array, the same on every rank (exact in any dtype)."""
    i, j = np.meshgrid(np.arange(n0), np.arange(n1), indexing="ij")
    a = (i * 1000 + j).astype(np.float64)
    return (a + 0.25j * (j - i)).astype(dtype) if np.dtype(dtype).kind == "c" else a.astype(dtype)


def transpose(local, n0, n1, mpi_type):
    """Rows [r0, r1) of an n0 x n1 array to columns [c0, c1) of it (all n0
    rows): block (my rows, rank b's columns) to rank b, by comm.Alltoallv.
    The send blocks are packed in rank order; the received ones land in
    reverse rank order with gaps, and are put together from there."""
    rows, cols = split(n0), split(n1)
    my_r, my_c = rows[rank], cols[rank]
    nr, nc = my_r[1] - my_r[0], my_c[1] - my_c[0]
    send = np.concatenate([local[:, c0:c1].ravel() for c0, c1 in cols] + [np.zeros(0, local.dtype)])
    scounts = [nr * (c1 - c0) for c0, c1 in cols]
    sdispls = list(np.cumsum([0] + scounts[:-1]))
    rcounts = [(r1 - r0) * nc for r0, r1 in rows]
    rdispls, at = [0] * p, 0
    for b in reversed(range(p)):
        rdispls[b] = at + 3
        at += 3 + rcounts[b]
    recv = np.full(at + 3, -1, local.dtype)
    comm.Alltoallv([send, (scounts, sdispls), mpi_type], [recv, (rcounts, rdispls), mpi_type])
    calls["alltoallv"] += 1
    gaps = all((recv[rdispls[b] - 3:rdispls[b]] == -1).all() for b in range(p))
    slab = np.concatenate([recv[rdispls[b]:rdispls[b] + rcounts[b]].reshape(rows[b][1] - rows[b][0], nc)
                           for b in range(p)])
    return slab, gaps


for dtype, mpi_type in ((np.complex128, MPI.DOUBLE_COMPLEX), (np.float64, MPI.DOUBLE)):
    for n0, n1 in ((max(p - 1, 1), 5), (37, 53), (256, 200)):
        what = f"{np.dtype(dtype).name} {n0}x{n1}"
        whole = global_array(n0, n1, dtype)
        (r0, r1), (c0, c1) = split(n0)[rank], split(n1)[rank]
        # The transpose alone: my columns of the whole array, exactly.
        slab, gaps = transpose(whole[r0:r1], n0, n1, mpi_type)
        check(slab.shape == (n0, c1 - c0) and np.array_equal(slab, whole[:, c0:c1]) and gaps,
              "Alltoallv transpose " + what)
        if np.dtype(dtype).kind != "c":
            continue
        # A 2-D FFT: along the rows here, the transpose, along the columns.
        slab, _ = transpose(np.fft.fft(whole[r0:r1], axis=1), n0, n1, mpi_type)
        got = np.fft.fft(slab, axis=0)
        want = np.fft.fft2(whole)[:, c0:c1]
        check(got.shape == want.shape and np.allclose(got, want, rtol=1e-9, atol=1e-6 * max(1.0, np.abs(want).max())),
              "Alltoallv 2-D FFT " + what)

# Allgatherv: rank b's block is 3·b + 1 (times k) elements, at displacements
# in reverse rank order with gaps.
for dtype, mpi_type in ((np.float64, MPI.DOUBLE), (np.int32, MPI.INT)):
    for k in (1, 2000):
        for in_place in (False, True):
            what = f"{np.dtype(dtype).name} k={k}{' in place' if in_place else ''}"
            counts = [(3 * b + 1) * k for b in range(p)]
            displs, at = [0] * p, 0
            for b in reversed(range(p)):
                displs[b] = at + 1
                at += 1 + counts[b]
            recv = np.full(at + 1, -1, dtype)
            mine = values(dtype, rank, 0, counts[rank])
            if in_place:
                recv[displs[rank]:displs[rank] + counts[rank]] = mine
                comm.Allgatherv(MPI.IN_PLACE, [recv, (counts, displs), mpi_type])
            else:
                comm.Allgatherv(mine, [recv, (counts, displs), mpi_type])
            calls["allgatherv"] += 1
            want = np.full(at + 1, -1, dtype)
            for b in range(p):
                want[displs[b]:displs[b] + counts[b]] = values(dtype, b, 0, counts[b])
            check(np.array_equal(recv, want), "Allgatherv " + what)

# comm.allreduce on Python objects. In mpi4py 3 it is no MPI_Allreduce: with
# mpi4py.rc.fast_reduce (the default) a tree of point-to-point messages to
# rank 0, then two MPI_Bcast (the pickle's size, then the pickle); without it
# an MPI_Allgather of the sizes and an MPI_Allgatherv of the pickles.
if mpi4py.__version__.split(".")[0] == "3":
    for k in range(3):
        check(comm.allreduce(rank + k, op=MPI.SUM) == p * (p - 1) // 2 + p * k,
              f"allreduce of an int (k={k})")
        check(comm.allreduce([rank], op=MPI.SUM) == list(range(p)),
              f"allreduce of a list (k={k})")
        check(comm.allreduce({"r": rank}, op=lambda a, b: {"r": max(a["r"], b["r"])}) == {"r": p - 1},
              f"allreduce of a dict, own op (k={k})")
        if mpi4py.rc.fast_reduce:
            calls["bcast"] += 6
        else:
            calls["allgather"] += 3
            calls["allgatherv"] += 3
elif rank == 0:
    print(f"interpose_mpi4py: mpi4py {mpi4py.__version__}: comm.allreduce not checked "
          "(which collectives it calls is known for mpi4py 3 only)", file=sys.stderr)

total = np.zeros(1, np.int64)
comm.Allreduce(np.array([failed], np.int64), total, op=MPI.SUM)
calls["allreduce"] += 1
all_failed = int(total[0])
if rank == 0:
    if p > 1:
        for c, k in calls.items():
            print(f"expect {c} kcoll {k}")
    print(f"interpose_mpi4py p={p}: {checks} checks on rank 0, {all_failed} failed in all")
sys.exit(1 if all_failed else 0)
