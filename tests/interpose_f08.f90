! interpose_f08: `use mpi_f08` reaches Open MPI's C code through other
! names (ompi_bcast_f ...) than mpif.h and `use mpi`: a bcast, an
! allgather in place, an allreduce in place (MPI_SUM) and a reduce to
! rank p-1 (MPI_MAX) of 4000 doubles under the interposer, checked, and
! the closing allreduce of the failure counts.
! Rank 0 prints "expect bcast kcoll 1", "expect allgather kcoll 1",
! "expect allreduce kcoll 2", "expect reduce kcoll 1" (p > 1) and
! "interpose_f08 p=P: F failed".
program interpose_f08
  use mpi_f08
  implicit none
  integer, parameter :: n = 4000
  integer :: rank, p, i, b, bad, all_bad
  double precision, allocatable :: x(:), y(:)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, p)
  allocate (x(n * p))
  bad = 0
  x = -1
  if (rank == 0) x(1:n) = [(i * 0.25d0, i = 1, n)]
  call MPI_Bcast(x, n, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD)
  do i = 1, n
    if (x(i) /= i * 0.25d0) bad = bad + 1
  end do
  x = -1
  x(rank * n + 1:rank * n + n) = [(rank * 1.0d5 + i, i = 1, n)]
  call MPI_Allgather(MPI_IN_PLACE, n, MPI_DOUBLE_PRECISION, x, n, &
                     MPI_DOUBLE_PRECISION, MPI_COMM_WORLD)
  do b = 0, p - 1
    do i = 1, n
      if (x(b * n + i) /= b * 1.0d5 + i) bad = bad + 1
    end do
  end do
  ! allreduce in place: element i sums rank * 1000 + i over the ranks
  x(1:n) = [(rank * 1000.0d0 + i, i = 1, n)]
  call MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE_PRECISION, MPI_SUM, &
                     MPI_COMM_WORLD)
  do i = 1, n
    if (x(i) /= 1000.0d0 * (p * (p - 1) / 2) + p * i) bad = bad + 1
  end do
  ! reduce to p-1, MPI_MAX: the highest rank's values
  allocate (y(n))
  y = -1
  x(1:n) = [(rank * 1000.0d0 - i, i = 1, n)]
  call MPI_Reduce(x, y, n, MPI_DOUBLE_PRECISION, MPI_MAX, p - 1, MPI_COMM_WORLD)
  if (rank == p - 1) then
    do i = 1, n
      if (y(i) /= (p - 1) * 1000.0d0 - i) bad = bad + 1
    end do
  end if
  call MPI_Allreduce(bad, all_bad, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0) then
    if (p > 1) then
      print '(a)', 'expect bcast kcoll 1'
      print '(a)', 'expect allgather kcoll 1'
      print '(a)', 'expect allreduce kcoll 2'
      print '(a)', 'expect reduce kcoll 1'
    end if
    print '(a,i0,a,i0,a)', 'interpose_f08 p=', p, ': ', all_bad, ' failed'
  end if
  call MPI_Finalize()
  if (all_bad /= 0) stop 1
end program
